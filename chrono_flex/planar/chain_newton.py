"""The Newton solve of one generalized-alpha step of a planar chain, compiled
(:mod:`.chain_ga` states the equations): the generalized forces, the predictor, the
Newton matrix and its factors, the iteration (:func:`ga_solve`), and the local error
estimate seen through the Newton matrix (:func:`filtered_error`)."""

import numpy as np

from . import kernels
from .chain_linalg import (ST_KHI, ST_KLO, ST_USE, _abs_max, _band_matvec_into, _dot,
                           _factor_banded, _fits_band, _lu_factor, _lu_solve_in,
                           _matvec_into, _newton_solve_in)

#: Status codes of :func:`ga_solve` (0: converged).
OK, FAILED, NON_FINITE = 0, 1, 2


@kernels._jit
def _iterate_with_m():
    """Whether :func:`_forcing` forms M on the dense path even when not asked to
    (``form_m``) and multiplies it by a: True for the planar chain, whose full pass
    costs about as much as its force-only pass; the spatial step binds a function that
    returns False (:mod:`chrono_flex.spatial.tree_ga`), its force-only pass costing
    less than the full one and the product with a 40-odd square matrix."""
    return True


@kernels._jit
def _forcing(P, K, D, g, stiff, Q, jidx, tau, x, nq, a, banded, klo, khi, form_m, F,
             work):
    """(M(q) a, M) at the state x, and F = [f, tau . theta_d, q_d^T D q_d] (module
    docstring) written into ``F``; zeros for M a with an empty ``a``; M itself where it
    is formed (``form_m``, or the dense path where :func:`_iterate_with_m`), else an
    empty matrix. On the bordered-banded path (``banded``: ``S.use[0]`` of the
    :class:`Structure`, whose band ranges of K and D, ``klo`` and ``khi``, are passed
    alone: every array passed costs two atomic reference counts) M a comes from the structure of M without
    forming it (:func:`kernels._chain_forces`); short planar chains assemble M and
    multiply, which costs less there (one pass). ``work``: scratch of 4 nq at least,
    where q, q_d (contiguous: the kernel's loops run faster on them), a and D q_d are
    held, and M a on the dense path (valid until the next call with the same
    ``work``): the step's evaluations take no new arrays but the pass's one block."""
    q = work[:nq]
    qd = work[nq:2 * nq]
    for k in range(nq):
        q[k] = x[k]
        qd[k] = x[nq + k]
    if (form_m or (banded == 0 and _iterate_with_m())) and a.shape[0] == nq:
        M, r = kernels._chain_terms(P, q, qd, g, stiff)
        Ma = work[3 * nq:4 * nq]
        _matvec_into(M, a, Ma)
    else:
        M = work[:0].reshape((0, 0))
        ac = work[2 * nq:2 * nq + a.shape[0]]
        for k in range(a.shape[0]):
            ac[k] = a[k]
        Ma, r = kernels._chain_forces(P, q, qd, g, stiff, ac)
    Dqd = work[2 * nq:3 * nq]
    _band_matvec_into(D, klo, khi, qd, Dqd)
    _band_matvec_into(K, klo, khi, q, F)          # K q in F's first nq entries, then
    for i in range(nq):                           # f = Q - r - K q - D q_d over them
        F[i] = Q[i] - r[i] - F[i] - Dqd[i]
    p = 0.0
    for k in range(jidx.shape[0]):
        p += tau[k] * qd[jidx[k]]
    F[nq] = p
    F[nq + 1] = _dot(qd, Dqd)
    return Ma, M


@kernels._jit
def _start(x, y0, acc, y_last, ratio, nq, h, am, af, gamma, beta, acc_const, x_const, y):
    """A step's constants (in place): the part of the algorithmic accelerations and of
    x_{n+1} that does not depend on the unknowns y, and the first iterate y0 + ratio
    (y0 - y_last); returns c_new = (1 - alpha_f) / (1 - alpha_m), the factor of y in
    the accelerations (:func:`_predict`)."""
    m = y0.shape[0]
    for k in range(m):
        acc_const[k] = (af * y0[k] - am * acc[k]) / (1.0 - am)
    for k in range(nq):
        x_const[k] = x[nq + k] + h * (0.5 - beta) * acc[k]
    for k in range(m):
        x_const[nq + k] = (1.0 - gamma) * acc[k]
    for k in range(m):
        y[k] = y0[k] + ratio * (y0[k] - y_last[k])
    return (1.0 - af) / (1.0 - am)


@kernels._jit
def _predict(x, y, nq, h, beta, gamma, c_new, acc_const, x_const, xn, acc_new):
    """x_{n+1} and the algorithmic accelerations for trial unknowns y (in place)."""
    m = y.shape[0]
    for k in range(m):
        acc_new[k] = c_new * y[k] + acc_const[k]
    for k in range(x.shape[0]):
        xn[k] = x[k] + h * x_const[k]
    for k in range(nq):
        xn[k] += h * h * beta * acc_new[k]
    for k in range(m):
        xn[nq + k] += h * gamma * acc_new[k]


@kernels._jit
def _factor(P, K, D, g, stiff, Q, jidx, tau, xn, nq, h, beta, gamma, c_new, fresh,
            JF, Mj, A, piv, S, counts):
    """The Newton matrix [M, 0; 0, I] - dF/dx dx/dy and its factors (dense LU in ``A``,
    ``piv``, or the bordered-banded ones in S when ``S.use[0]``); dF/dx and M rebuilt at
    ``xn`` by forward differences when ``fresh`` (then a Jacobian that does not fit the
    band turns S.use off for good); else M is, on the dense path, the one
    :func:`ga_solve` kept from the last converged step (the bordered-banded path keeps
    the M of the last build: it never forms M). False when singular or not finite."""
    n = xn.shape[0]
    m = nq + 2
    if fresh:
        M0 = kernels._chain_terms(P, xn[:nq], xn[nq:2 * nq], g, stiff)[0]
        no_a = np.zeros(0)
        F0 = np.empty(m)
        Fp = np.empty(m)
        work = np.empty(4 * nq)
        _forcing(P, K, D, g, stiff, Q, jidx, tau, xn, nq, no_a, S.iv[ST_USE, 0], S.iv[ST_KLO], S.iv[ST_KHI],
                 np.bool_(False), F0, work)
        counts[0] += 1
        xp = xn.copy()
        for j in range(2 * nq):                  # F does not depend on W_in, W_diss
            e = 1.49e-8 * max(1.0, abs(xn[j]))
            xp[j] = xn[j] + e
            _forcing(P, K, D, g, stiff, Q, jidx, tau, xp, nq, no_a, S.iv[ST_USE, 0], S.iv[ST_KLO], S.iv[ST_KHI],
                     np.bool_(False), Fp, work)
            counts[0] += 1
            for i in range(m):
                JF[i, j] = (Fp[i] - F0[i]) / e
            xp[j] = xn[j]
        for j in range(2 * nq, n):
            for i in range(m):
                JF[i, j] = 0.0
        Mj[:, :] = M0
        counts[1] += 1
        if S.iv[ST_USE, 0] != 0 and not _fits_band(JF, Mj, nq, S):
            S.iv[ST_USE, 0] = 0
    dq, dv = h * h * beta * c_new, h * gamma * c_new
    counts[2] += 1
    if S.iv[ST_USE, 0] != 0:
        return _factor_banded(JF, Mj, nq, dq, dv, S)
    for i in range(m):
        for k in range(nq):
            A[i, k] = -(JF[i, k] * dq + JF[i, nq + k] * dv)
        for k in range(2):
            A[i, nq + k] = -JF[i, 2 * nq + k] * dv
    for i in range(nq):
        for k in range(nq):
            A[i, k] += Mj[i, k]
    for k in range(2):
        A[nq + k, nq + k] += 1.0
    return _lu_factor(A, piv)


@kernels._jit
def ga_solve(P, K, D, g, stiff, Q, jidx, tau, x, y0, acc, y_last, ratio, h, am, af, gamma,
             beta, rtol, atol, max_iters, JF, Mj, A, piv, S, state, counts):
    """The Newton solve of one generalized-alpha step of size h from (x, y0, acc) at t_n
    (Python twin: ``GeneralizedAlpha._solve_step`` in mass-matrix form).

    y_last, ratio: the first iterate is y0 + ratio (y0 - y_last) (the Python iteration
    starts from y0, the derivatives at t_n; :meth:`ChainStep._extrapolation`).
    Q: the generalized forces held over the step (the joint forces at t_{n+1}); tau the
    joint forces, jidx their coordinates. JF, Mj, A, piv: the kept Jacobian, mass
    matrix and dense LU (modified Newton across steps); S the :class:`Structure` with
    the bordered-banded factors used instead where S.use[0]; state = [have a Jacobian
    (0/1), h of the LU]; counts = [nfev, njev, nlu] (all updated in place).
    Returns (status, x_{n+1}, y_{n+1}, acc_{n+1}); status OK, FAILED (Newton did not
    converge even with a fresh Jacobian) or NON_FINITE (the forces or the matrix are not
    finite).

    The Newton matrix is refactored at the first iterate of every step with the mass
    matrix there and the kept dF/dx (rather than the M of the last converged step). A
    link on a
    joint without hub inertia has a nearly singular combination of coordinates (the
    joint turned one way, the elastic slopes the other: the Schur complement of M on
    the joint is a few thousandths of M_00), so M_00 changing by 3e-4 of itself over a
    1 ms step (the deflection's share of the link's inertia) let the modified Newton
    contract by only 0.09 per iteration on the bang-bang link of ``bench_user_laws``
    (0.3 with M kept over 7 ms); with the fresh mass matrix and dF/dx kept over the
    same 7 ms it contracts by 0.03 or less. One LU per step (about 1 us for a dozen
    coordinates) buys iterations that cost a force evaluation each (3 to 6 us).
    The iteration stops when its update is within the tolerance or, from the second
    update on, when the error the update leaves, estimated from the contraction rate
    theta of the last two updates as theta / (1 - theta) |dy| (Hairer & Wanner, Solving
    ODEs II, 2nd ed. 1996, §IV.8, the stopping criterion of Radau), is: with theta of 0.01 to 0.03 this saves
    the last iteration, whose update was a hundred times below the tolerance.
    ``GeneralizedAlpha._newton`` does the same in Python."""
    n = x.shape[0]
    nq = (n - 2) // 2
    m = nq + 2
    # one block per step (each heap allocation costs about as much as a dozen of the
    # pass's multiply-adds): the new state x_{n+1}, y_{n+1}, acc_{n+1} (returned, kept by
    # the caller as the next step's start), the predictor's constants and the
    # iteration's work; the same operations in the same order as array expressions
    blk = np.empty(2 * n + 5 * m + 4 * nq)
    xn = blk[:n]
    x_const = blk[n:2 * n]
    y = blk[2 * n:2 * n + m]
    acc_new = blk[2 * n + m:2 * n + 2 * m]
    acc_const = blk[2 * n + 2 * m:2 * n + 3 * m]
    F = blk[2 * n + 3 * m:2 * n + 4 * m]
    r = blk[2 * n + 4 * m:2 * n + 5 * m]
    work = blk[2 * n + 5 * m:]
    c_new = _start(x, y0, acc, y_last, ratio, nq, h, am, af, gamma, beta, acc_const,
                   x_const, y)
    tiny = 1e3 * 2.220446049250313e-16
    for attempt in range(2):
        fresh = state[0] == 0.0 or attempt == 1
        ok = True
        if fresh:
            _predict(x, y, nq, h, beta, gamma, c_new, acc_const, x_const, xn, acc_new)
            ok = _factor(P, K, D, g, stiff, Q, jidx, tau, xn, nq, h, beta, gamma, c_new,
                         np.bool_(True), JF, Mj, A, piv, S, counts)
            state[0] = 1.0
            state[1] = h
        if not ok:
            state[0] = 0.0
            return NON_FINITE, xn, y, acc_new
        # refactored at the first iterate with the mass matrix there (see the docstring)
        refresh = not fresh
        prev = -1.0
        conv = False
        for _ in range(max_iters):
            _predict(x, y, nq, h, beta, gamma, c_new, acc_const, x_const, xn, acc_new)
            Ma, M = _forcing(P, K, D, g, stiff, Q, jidx, tau, xn, nq, y[:nq],
                             S.iv[ST_USE, 0], S.iv[ST_KLO], S.iv[ST_KHI], refresh, F,
                             work)
            counts[0] += 1
            if not np.isfinite(_dot(F, F)):
                return NON_FINITE, xn, y, acc_new
            if refresh:
                refresh = False
                Mj[:, :] = M
                state[1] = h
                if not _factor(P, K, D, g, stiff, Q, jidx, tau, xn, nq, h, beta, gamma,
                               c_new, np.bool_(False), JF, Mj, A, piv, S, counts):
                    state[0] = 0.0
                    return NON_FINITE, xn, y, acc_new
            for k in range(nq):
                r[k] = Ma[k] - F[k]
            for k in range(nq, m):
                r[k] = y[k] - F[k]
            scale = max(_abs_max(Ma, 0, nq), _abs_max(F, 0, nq))
            small = _abs_max(r, 0, nq) <= tiny * scale
            if small:
                small = _abs_max(r, nq, m) <= tiny * _abs_max(F, nq, m)
            if small:
                conv = True
                if S.iv[ST_USE, 0] == 0 and M.shape[0] == nq:   # M formed (_forcing)
                    Mj[:, :] = M
                break
            if S.iv[ST_USE, 0] == 0:                  # r becomes -dy
                _lu_solve_in(A, piv, r)               # (S not passed: fewer counts)
            else:
                _newton_solve_in(A, piv, S, r, work)
            dy = r
            for k in range(m):
                dy[k] = -dy[k]
                y[k] += dy[k]
            s = 0.0
            for k in range(m):
                z = h * gamma * c_new * dy[k] / (atol + rtol * abs(xn[nq + k]))
                s += z * z
            norm = np.sqrt(s / m)
            if not np.isfinite(norm):
                break
            # converged: the update within tolerance, or the error it leaves, estimated
            # from the contraction theta = norm / prev as theta / (1 - theta) norm
            if norm <= 1.0 or (0.0 < prev and norm < 0.9 * prev
                               and norm * norm <= prev - norm):
                _predict(x, y, nq, h, beta, gamma, c_new, acc_const, x_const, xn, acc_new)
                conv = True
                if S.iv[ST_USE, 0] == 0 and M.shape[0] == nq:   # M formed (_forcing)
                    Mj[:, :] = M
                break
            if prev >= 0.0 and norm > 0.9 * prev:
                break
            prev = norm
        if conv:
            return OK, xn, y, acc_new
        for k in range(m):                       # the retry starts where Python's does
            y[k] = y0[k]
    return FAILED, xn, y, acc_new


@kernels._jit
def predicted_state(x, y0, acc, y_last, ratio, nq, h, am, af, gamma, beta):
    """x_{n+1} for the first iterate y0 + ratio (y0 - y_last) of :func:`ga_solve` (one
    block, the same operations)."""
    n = x.shape[0]
    m = y0.shape[0]
    blk = np.empty(2 * n + 3 * m)
    xn = blk[:n]
    x_const = blk[n:2 * n]
    y = blk[2 * n:2 * n + m]
    acc_const = blk[2 * n + m:2 * n + 2 * m]
    acc_new = blk[2 * n + 2 * m:]
    c_new = _start(x, y0, acc, y_last, ratio, nq, h, am, af, gamma, beta, acc_const,
                   x_const, y)
    _predict(x, y, nq, h, beta, gamma, c_new, acc_const, x_const, xn, acc_new)
    return xn


@kernels._jit
def filtered_error(Mj, A, piv, S, e):
    """The local error estimate e of the positions seen through the Newton matrix N of
    the last step: the first nq entries of N^-1 [M e, 0, 0] (Python twin and reasons:
    ``GeneralizedAlpha.filtered_error``)."""
    nq = e.shape[0]
    return filtered_error_in(Mj, A, piv, S, e, np.empty(nq + 2), np.empty(nq + 2))


@kernels._jit
def filtered_error_in(Mj, A, piv, S, e, b, work):
    """:func:`filtered_error` in ``b`` (length nq + 2; its first nq entries returned,
    a view) with ``work`` (the same length) as the solve's scratch."""
    nq = e.shape[0]
    _matvec_into(Mj, e, b)
    b[nq] = 0.0
    b[nq + 1] = 0.0
    _newton_solve_in(A, piv, S, b, work)
    return b[:nq]
