"""One generalized-alpha step of a planar chain, compiled (numba, the ``fast`` extra).

:class:`chrono_flex.integrators.generalized_alpha.GeneralizedAlpha` solves each step by
a modified Newton iteration on the mass-matrix residual (docs/planar-link.md §4.4). In
Python every iteration costs a few dozen small-array operations around one evaluation
of the compiled chain kernel (:func:`chrono_flex.planar.kernels.chain_terms`), so the
interpreter, not the arithmetic, sets the price of a step. Here the whole Newton solve
of a step is one compiled function: predictor, residual, the Jacobian by forward
differences of the generalized forces, its LU factors, the iteration and its
convergence tests, in the same order and with the same tests as the Python iteration;
the Python side keeps only the step control and the output.

It serves the forward problem of an arm without drives, state x = [q, q_d, W_in,
W_diss], whose joint forces are a function of time alone during a step: no torque, or
a torque declared time-only (:func:`chrono_flex.inputs.is_time_only`: the input
profiles, callables wrapped by :func:`chrono_flex.inputs.time_only`). The joint forces
are then evaluated once per step, in Python, at t_{n+1}, where the Python iteration
evaluates them at every iterate with the same result. Without a torque, with an input
profile that carries its formula (``Profile.kernel``, evaluated in the loop by
:func:`profile_values`), and with any time-only torque under a fixed step (the steps'
ends known ahead, :func:`fixed_grid`, the torque evaluated there beforehand), the step
loop runs compiled through many output times (:func:`ga_outputs`). A torque callback
that reads the state, or a drive with its own states, keeps the Python iteration.

The equations, for y = (a, w) the unknowns at t_{n+1} (algorithmic accelerations of q
and of the work integrals z = (W_in, W_diss)):

    M(q) a - f(t, q, q_d) = 0,  f = Q - r(q, q_d) - K q - D q_d   (eq. (4.7))
    w - (tau . theta_d,  q_d^T D q_d) = 0                        (work rates)

with x_{n+1}(y) from the generalized-alpha update (Arnold & Bruls 2007, eqs. 6-8).

Long chains: the residual takes M a from the structure of M without forming it, K q and
D q_d over their bands, and the Newton matrix is factored bordered-banded
(:func:`structure`, :func:`_factor_banded`), so a step costs O(nq) where the dense
matrices cost O(nq^2) per evaluation and O(nq^3) per factorisation; short chains keep
the dense LU (:data:`BANDED_FROM`).
"""

import math
import time
from collections import namedtuple

import numpy as np

from .._callbacks import call_vector, call_vector_series
from .._interrupts import compiled_call
from . import kernels

#: Status codes of :func:`ga_solve` (0: converged).
OK, FAILED, NON_FINITE = 0, 1, 2


def available():
    """Whether the compiled step can run (numba present and chosen as the backend)."""
    return kernels.backend() == "numba"


@kernels._jit
def _lu_factor(A, piv):
    """In-place LU with partial pivoting (Golub & Van Loan, alg. 3.4.1); False when a
    pivot is zero or not finite."""
    n = A.shape[0]
    for k in range(n):
        p = k
        big = abs(A[k, k])
        for i in range(k + 1, n):
            if abs(A[i, k]) > big:
                big, p = abs(A[i, k]), i
        piv[k] = p
        if not big > 0.0 or not np.isfinite(big):
            return False
        if p != k:
            for j in range(n):
                A[k, j], A[p, j] = A[p, j], A[k, j]
        inv = 1.0 / A[k, k]
        for i in range(k + 1, n):
            A[i, k] *= inv
            lik = A[i, k]
            if lik != 0.0:
                for j in range(k + 1, n):
                    A[i, j] -= lik * A[k, j]
    return True


@kernels._jit
def _lu_solve(A, piv, b):
    """x with (LU) x = b for the factors of :func:`_lu_factor`."""
    n = A.shape[0]
    x = b.copy()
    for k in range(n):
        p = piv[k]
        if p != k:
            x[k], x[p] = x[p], x[k]
    for i in range(n):
        s = x[i]
        for j in range(i):
            s -= A[i, j] * x[j]
        x[i] = s
    for i in range(n - 1, -1, -1):
        s = x[i]
        for j in range(i + 1, n):
            s -= A[i, j] * x[j]
        x[i] = s / A[i, i]
    return x


#: A x by plain loops. The matrices here are small (nq up to a few hundred), and numba's
#: ``@`` calls the BLAS, whose threads, on a machine busier than it has cores, wait for
#: each other far longer than the product takes (64 elements: 8 to 10 times the whole
#: step's cost). The one loop of :func:`chrono_flex.planar.kernels._mv`.
_matvec = kernels._mv


@kernels._jit
def _band_matvec(A, lo, hi, x):
    """A x over the nonzero range [lo[i], hi[i]) of each row (:func:`kernels.row_ranges`;
    the same sums as :func:`_matvec`, less exact zeros)."""
    n = A.shape[0]
    out = np.zeros(n)
    for i in range(n):
        s = 0.0
        for j in range(lo[i], hi[i]):
            s += A[i, j] * x[j]
        out[i] = s
    return out


@kernels._jit
def _dot(a, b):
    """a . b by a plain loop (see :func:`_matvec`)."""
    s = 0.0
    for k in range(a.shape[0]):
        s += a[k] * b[k]
    return s


@kernels._jit
def _forcing(P, K, D, g, stiff, Q, jidx, tau, x, nq, a, S):
    """(M(q) a, F, M) at the state x: F = [f, tau . theta_d, q_d^T D q_d] (module
    docstring); zeros for M a with an empty ``a``; M itself where it is formed (the
    dense path), else an empty matrix. On the bordered-banded path M a
    comes from the structure of M without forming it (:func:`kernels._chain_forces`);
    short chains assemble M and multiply, which costs less there (one pass)."""
    q = x[:nq].copy()                # contiguous: the kernel's loops run faster on them
    qd = x[nq:2 * nq].copy()
    if S.use[0] == 0 and a.shape[0] == nq:
        M, r = kernels._chain_terms(P, q, qd, g, stiff)
        Ma = _matvec(M, a)
    else:
        M = np.empty((0, 0))
        Ma, r = kernels._chain_forces(P, q, qd, g, stiff, a.copy())
    F = np.empty(nq + 2)
    Dqd = _band_matvec(D, S.klo, S.khi, qd)
    F[:nq] = Q - r - _band_matvec(K, S.klo, S.khi, q) - Dqd
    p = 0.0
    for k in range(jidx.shape[0]):
        p += tau[k] * qd[jidx[k]]
    F[nq] = p
    F[nq + 1] = _dot(qd, Dqd)
    return Ma, F, M


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
def _entry(JF, Mj, nq, dq, dv, i, k):
    """Entry (i, k) of the Newton matrix [M, 0; 0, I] - dF/dx dx/dy (dx/dy: h^2 beta
    c_new = ``dq`` on q, h gamma c_new = ``dv`` on q_d and the work integrals)."""
    if k < nq:
        v = -(JF[i, k] * dq + JF[i, nq + k] * dv)
        if i < nq:
            v += Mj[i, k]
        return v
    v = -JF[i, nq + k] * dv
    if i == k:
        v += 1.0
    return v


@kernels._jit
def _band_lu(W, kl, ku, piv):
    """In-place LU with partial pivoting of a band matrix with kl sub- and ku
    superdiagonals, row i of it in W[i, j - i + kl] for columns j in [i - kl, i + kl +
    ku] (room for the fill of the row exchanges; band Gaussian elimination with partial
    pivoting, Golub & Van Loan, Matrix Computations, 4th ed. 2013, §4.3; the layout and
    the order of LAPACK's dgbtf2). False when a pivot is zero or not finite."""
    n = W.shape[0]
    for k in range(n):
        p = k
        big = abs(W[k, kl])
        last = min(n, k + kl + 1)
        for i in range(k + 1, last):
            v = abs(W[i, k - i + kl])
            if v > big:
                big, p = v, i
        piv[k] = p
        if not big > 0.0 or not np.isfinite(big):
            return False
        jmax = min(n, k + kl + ku + 1)
        if p != k:
            for j in range(k, jmax):
                W[k, j - k + kl], W[p, j - p + kl] = W[p, j - p + kl], W[k, j - k + kl]
        inv = 1.0 / W[k, kl]
        for i in range(k + 1, last):
            W[i, k - i + kl] *= inv
            lik = W[i, k - i + kl]
            if lik != 0.0:
                for j in range(k + 1, jmax):
                    W[i, j - i + kl] -= lik * W[k, j - k + kl]
    return True


@kernels._jit
def _band_solve(W, kl, ku, piv, b):
    """x with A x = b for the factors of :func:`_band_lu` (LAPACK's dgbtrs order: the
    row exchanges and the multipliers of each column in turn, then the back
    substitution)."""
    n = W.shape[0]
    x = b.copy()
    for k in range(n):
        p = piv[k]
        if p != k:
            x[k], x[p] = x[p], x[k]
        xk = x[k]
        if xk != 0.0:
            for i in range(k + 1, min(n, k + kl + 1)):
                x[i] -= W[i, k - i + kl] * xk
    for i in range(n - 1, -1, -1):
        s = x[i]
        for j in range(i + 1, min(n, i + kl + ku + 1)):
            s -= W[i, j - i + kl] * x[j]
        x[i] = s / W[i, kl]
    return x


@kernels._jit
def _fits_band(JF, Mj, nq, S):
    """Whether the inner block of M and dF/dx (q and q_d columns) is zero outside the
    band S.kl, S.ku: what the bordered-banded factorisation assumes (:func:`structure`);
    an O(nq^2) scan, made with each fresh Jacobian."""
    inner = S.inner
    ni = inner.shape[0]
    for r in range(ni):
        i = inner[r]
        for c in range(ni):
            if r - S.kl <= c <= r + S.ku:
                continue
            k = inner[c]
            if JF[i, k] != 0.0 or JF[i, nq + k] != 0.0 or Mj[i, k] != 0.0:
                return False
    return True


@kernels._jit
def _factor_banded(JF, Mj, nq, dq, dv, S):
    """The Newton matrix, its inner (elastic, tip dofs excepted) coordinates I and the
    border B (joints, tip dofs, work integrals) apart, factored by blocks:
    A_II = LU (banded), Z = A_II^-1 A_IB, the Schur complement A_BB - A_BI Z and its
    dense LU (block Gaussian elimination). O(nq (bandwidth + border)^2) where the dense
    LU is O(nq^3). False when a pivot is zero or not finite."""
    inner, border = S.inner, S.border
    ni, nb = inner.shape[0], border.shape[0]
    kl, ku = S.kl, S.ku
    W = S.W
    for r in range(ni):
        for c in range(W.shape[1]):
            W[r, c] = 0.0
        for c in range(max(0, r - kl), min(ni, r + ku + 1)):
            W[r, c - r + kl] = _entry(JF, Mj, nq, dq, dv, inner[r], inner[c])
        for c in range(nb):
            S.ZT[c, r] = _entry(JF, Mj, nq, dq, dv, inner[r], border[c])
    for rb in range(nb):
        for c in range(ni):
            S.ABI[rb, c] = _entry(JF, Mj, nq, dq, dv, border[rb], inner[c])
        for c in range(nb):
            S.SC[rb, c] = _entry(JF, Mj, nq, dq, dv, border[rb], border[c])
    if not _band_lu(W, kl, ku, S.bpiv):
        return False
    for c in range(nb):
        S.ZT[c, :] = _band_solve(W, kl, ku, S.bpiv, S.ZT[c, :])
    for i in range(nb):
        for j in range(nb):
            s = 0.0
            for k in range(ni):
                s += S.ABI[i, k] * S.ZT[j, k]
            S.SC[i, j] -= s
    return _lu_factor(S.SC, S.spiv)


@kernels._jit
def _newton_solve(A, piv, S, b):
    """x with (Newton matrix) x = b: the dense LU of :func:`_lu_factor` in ``A``, or the
    block factors of :func:`_factor_banded` when ``S.use[0]``."""
    if S.use[0] == 0:
        return _lu_solve(A, piv, b)
    inner, border = S.inner, S.border
    ni, nb = inner.shape[0], border.shape[0]
    bI = np.empty(ni)
    for r in range(ni):
        bI[r] = b[inner[r]]
    yI = _band_solve(S.W, S.kl, S.ku, S.bpiv, bI)
    t = np.empty(nb)
    for rb in range(nb):
        s = b[border[rb]]
        for k in range(ni):
            s -= S.ABI[rb, k] * yI[k]
        t[rb] = s
    xB = _lu_solve(S.SC, S.spiv, t)
    x = np.empty(b.shape[0])
    for c in range(nb):
        x[border[c]] = xB[c]
        xc = xB[c]
        for r in range(ni):
            yI[r] -= S.ZT[c, r] * xc
    for r in range(ni):
        x[inner[r]] = yI[r]
    return x


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
        _, F0, _ = _forcing(P, K, D, g, stiff, Q, jidx, tau, xn, nq, no_a, S)
        counts[0] += 1
        xp = xn.copy()
        for j in range(2 * nq):                  # F does not depend on W_in, W_diss
            e = 1.49e-8 * max(1.0, abs(xn[j]))
            xp[j] = xn[j] + e
            _, Fp, _ = _forcing(P, K, D, g, stiff, Q, jidx, tau, xp, nq, no_a, S)
            counts[0] += 1
            for i in range(m):
                JF[i, j] = (Fp[i] - F0[i]) / e
            xp[j] = xn[j]
        for j in range(2 * nq, n):
            for i in range(m):
                JF[i, j] = 0.0
        Mj[:, :] = M0
        counts[1] += 1
        if S.use[0] != 0 and not _fits_band(JF, Mj, nq, S):
            S.use[0] = 0
    dq, dv = h * h * beta * c_new, h * gamma * c_new
    counts[2] += 1
    if S.use[0] != 0:
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
    finite)."""
    n = x.shape[0]
    nq = (n - 2) // 2
    m = nq + 2
    c_new = (1.0 - af) / (1.0 - am)
    acc_const = (af * y0 - am * acc) / (1.0 - am)
    x_const = np.empty(n)
    for k in range(nq):
        x_const[k] = x[nq + k] + h * (0.5 - beta) * acc[k]
    for k in range(m):
        x_const[nq + k] = (1.0 - gamma) * acc[k]
    xn = np.empty(n)
    acc_new = np.empty(m)
    tiny = 1e3 * 2.220446049250313e-16
    y = y0 + ratio * (y0 - y_last)
    for attempt in range(2):
        if state[0] == 0.0 or attempt == 1:
            _predict(x, y, nq, h, beta, gamma, c_new, acc_const, x_const, xn, acc_new)
            ok = _factor(P, K, D, g, stiff, Q, jidx, tau, xn, nq, h, beta, gamma, c_new,
                         True, JF, Mj, A, piv, S, counts)
            state[0] = 1.0
            state[1] = h
        elif abs(state[1] - h) > 1e-12 * h:
            ok = _factor(P, K, D, g, stiff, Q, jidx, tau, xn, nq, h, beta, gamma, c_new,
                         False, JF, Mj, A, piv, S, counts)
            state[1] = h
        else:
            ok = True
        if not ok:
            state[0] = 0.0
            return NON_FINITE, xn, y, acc_new
        prev = -1.0
        conv = False
        for _ in range(max_iters):
            _predict(x, y, nq, h, beta, gamma, c_new, acc_const, x_const, xn, acc_new)
            Ma, F, M = _forcing(P, K, D, g, stiff, Q, jidx, tau, xn, nq, y[:nq], S)
            counts[0] += 1
            if not np.isfinite(_dot(F, F)):
                return NON_FINITE, xn, y, acc_new
            r = y - F
            r[:nq] = Ma - F[:nq]
            scale = max(np.abs(Ma).max(), np.abs(F[:nq]).max())
            small = np.abs(r[:nq]).max() <= tiny * scale
            if small:
                small = np.abs(r[nq:]).max() <= tiny * np.abs(F[nq:]).max()
            if small:
                conv = True
                if S.use[0] == 0:
                    Mj[:, :] = M
                break
            dy = -_newton_solve(A, piv, S, r)
            for k in range(m):
                y[k] += dy[k]
            s = 0.0
            for k in range(m):
                z = h * gamma * c_new * dy[k] / (atol + rtol * abs(xn[nq + k]))
                s += z * z
            norm = np.sqrt(s / m)
            if not np.isfinite(norm):
                break
            if norm <= 1.0:
                _predict(x, y, nq, h, beta, gamma, c_new, acc_const, x_const, xn, acc_new)
                conv = True
                if S.use[0] == 0:
                    Mj[:, :] = M
                break
            if prev >= 0.0 and norm > 0.9 * prev:
                break
            prev = norm
        if conv:
            return OK, xn, y, acc_new
        y = y0.copy()                            # the retry starts where Python's does
    return FAILED, xn, y, acc_new


@kernels._jit
def predicted_state(x, y0, acc, y_last, ratio, nq, h, am, af, gamma, beta):
    """x_{n+1} for the first iterate y0 + ratio (y0 - y_last) of :func:`ga_solve`."""
    m = y0.shape[0]
    c_new = (1.0 - af) / (1.0 - am)
    acc_const = (af * y0 - am * acc) / (1.0 - am)
    x_const = np.empty(x.shape[0])
    for k in range(nq):
        x_const[k] = x[nq + k] + h * (0.5 - beta) * acc[k]
    for k in range(m):
        x_const[nq + k] = (1.0 - gamma) * acc[k]
    xn = np.empty(x.shape[0])
    acc_new = np.empty(m)
    _predict(x, y0 + ratio * (y0 - y_last), nq, h, beta, gamma, c_new, acc_const, x_const,
             xn, acc_new)
    return xn


@kernels._jit
def filtered_error(Mj, A, piv, S, e):
    """The local error estimate e of the positions seen through the Newton matrix N of
    the last step: the first nq entries of N^-1 [M e, 0, 0] (Python twin and reasons:
    ``GeneralizedAlpha.filtered_error``)."""
    nq = e.shape[0]
    b = np.zeros(nq + 2)
    b[:nq] = _matvec(Mj, e)
    return _newton_solve(A, piv, S, b)[:nq]


@kernels._jit
def profile_values(code, amp, par, t, out):
    """The joint forces of an input profile at time t into ``out``: the formulas of
    :mod:`chrono_flex.inputs` (codes :data:`chrono_flex.inputs.KERNEL_CODES`; ``amp``
    the amplitudes, ``par`` the parameters its ``kernel`` holds), in the same
    operations, so the same numbers: 1 pulse (period, w), 2 step (t_start), 3 sine (w,
    phase, offset), 4 bang-bang (period)."""
    for k in range(amp.shape[0]):
        a = amp[k]
        if code == 1:
            if 0.0 <= t < par[0]:
                out[k] = a * (math.sin(par[1] * t) * (1 - math.cos(par[1] * t)) / 2)
            else:
                out[k] = 0.0 * a
        elif code == 2:
            out[k] = a if t >= par[0] else 0.0 * a
        elif code == 3:
            out[k] = par[2] + a * math.sin(par[0] * t + par[1])
        else:
            if t < par[0] / 2:
                out[k] = a
            else:
                out[k] = -a if t < par[0] else 0.0 * a


#: Further status codes of :func:`ga_advance`: SHRUNK, the step control shrank the step
#: below 1e-12 of the time scale; PAUSED, the call took its ``max_steps`` steps (or used
#: the joint forces given ahead) before ``t_target``: the caller goes on from where it
#: stopped after a look at interrupts and budgets (:func:`chrono_flex.stepping.checkpoint`).
SHRUNK, PAUSED = 3, 4


@kernels._jit
def ga_advance(P, K, D, g, stiff, Q, jidx, tau, taus, i0, pcode, pamp, ppar, t, t_target,
               x, y, acc, y_last, t_last, step, adaptive, h_next, q_scale, err_rtol,
               max_step, am, af, gamma, beta, rtol, atol, max_iters, JF, Mj, A, piv, S,
               state, counts, max_steps):
    """Steps of :func:`ga_solve` from t to ``t_target``: the loop of
    ``GeneralizedAlpha.advance`` compiled. The joint forces of a step, set into ``tau``
    and Q: with rows in ``taus``, those of step k (counted from this call's first) are
    the row i0 + k (fixed step only: the input evaluated ahead at the steps' ends,
    :func:`fixed_grid`); else, with ``pcode`` > 0, the input profile (pcode, pamp,
    ppar) at the step's end (:func:`profile_values`); else Q is constant (no
    time-dependent input).
    Fixed step (``adaptive`` False): equal sub-steps no longer than ``step``; a step
    whose Newton fails returns FAILED at its start, for the Python side to halve.
    Adaptive (``adaptive`` 1, or 2 for the estimate filtered through the Newton matrix,
    :func:`filtered_error`): the step control of ``GeneralizedAlpha._adaptive`` (local
    error (4.14) against err_rtol (1e-6 + max |q_k|), factor (0.9/err)^(1/3) within
    [0.2, 2], the landing rules) with ``h_next`` the proposed step.

    At most ``max_steps`` steps are tried (accepted, rejected and retried together;
    a pause comes after an accepted step, never while a step is being retried), and
    with rows in ``taus`` no more than it holds: then the call returns PAUSED
    before ``t_target`` (the work of one call is bounded, so that the caller can look
    at interrupts and budgets between calls; resumed, the steps are those an
    uninterrupted call takes).

    Returns (status, t, x, y, acc, y_last, t_last, h_next, q_scale, steps, rejected,
    retries): where it stopped (t_target when OK), the state there, the state before
    the last step (for the extrapolated first iterate), and the counts."""
    nq = (x.shape[0] - 2) // 2
    steps = 0
    rejected = 0
    retries = 0
    retry = False
    while t_target - t > 1e-12 * max(1.0, abs(t_target)):
        if not retry and (steps + rejected + retries >= max_steps or (
                taus.shape[0] > 0 and i0 + steps >= taus.shape[0])):
            return (PAUSED, t, x, y, acc, y_last, t_last, h_next, q_scale, steps,
                    rejected, retries)
        remaining = t_target - t
        if adaptive:
            h = min(h_next, remaining)
            if remaining - h < 0.25 * h:
                if retry and remaining > h_next:
                    h = 0.5 * remaining
                else:
                    h = remaining
            if h <= 1e-12 * max(1.0, abs(t)):
                return (SHRUNK, t, x, y, acc, y_last, t_last, h_next, q_scale, steps,
                        rejected, retries)
        else:
            n = max(1, int(np.ceil(remaining / step - 1e-9)))
            h = remaining / n
        landing = h < h_next
        ratio = h / (t - t_last) if t > t_last else 0.0
        if taus.shape[0] > 0:
            for k in range(jidx.shape[0]):
                tau[k] = taus[i0 + steps, k]
                Q[jidx[k]] = tau[k]
        elif pcode > 0:
            profile_values(pcode, pamp, ppar, t + h, tau)
            for k in range(jidx.shape[0]):
                Q[jidx[k]] = tau[k]
        status, xn, yn, accn = ga_solve(P, K, D, g, stiff, Q, jidx, tau, x, y, acc, y_last,
                                        ratio, h, am, af, gamma, beta, rtol, atol,
                                        max_iters, JF, Mj, A, piv, S, state, counts)
        if status == NON_FINITE or (status == FAILED and not adaptive):
            return (status, t, x, y, acc, y_last, t_last, h_next, q_scale, steps,
                    rejected, retries)
        if status == FAILED:
            retries += 1
            h_next = 0.25 * h
            retry = True
            continue
        accept = True
        factor = 2.0
        if adaptive:
            s = 0.0
            c = h * h * (beta - 1.0 / 6.0)
            e = np.empty(nq)
            for k in range(nq):
                e[k] = c * (accn[k] - acc[k])
            if adaptive == 2:
                e = filtered_error(Mj, A, piv, S, e)
            gmax = np.zeros(S.groups.max() + 1)
            for k in range(nq):
                gmax[S.groups[k]] = max(gmax[S.groups[k]], q_scale[k], abs(xn[k]))
            for k in range(nq):
                sc = err_rtol * (1e-6 + gmax[S.groups[k]])
                z = e[k] / sc
                s += z * z
            err = np.sqrt(s / max(nq, 1))
            if err > 0.0:
                factor = min(2.0, max(0.2, 0.9 * err ** (-1.0 / 3.0)))
            accept = err <= 1.0
        if not accept:
            rejected += 1
            h_next = factor * h
            retry = True
            continue
        y_last, t_last = y, t
        t, x, y, acc = t + h, xn, yn, accn
        q_scale = np.maximum(q_scale, np.abs(xn[:nq]))
        steps += 1
        retry = False
        if adaptive:
            if not landing or factor < 1.0:
                h_next = min(max_step, factor * h)
            else:
                h_next = min(max_step, h_next)
    return (OK, t, x, y, acc, y_last, t_last, h_next, q_scale, steps, rejected, retries)


@kernels._jit
def fixed_grid(t, targets, step, max_n):
    """The ends of the fixed steps from t through the output times ``targets`` (in
    order), the first ``max_n`` of them at most: the times :func:`ga_advance` and
    ``GeneralizedAlpha.advance`` reach, by the same arithmetic (equal sub-steps no
    longer than ``step`` per interval, each step h = remaining / ceil(remaining /
    step), t + h)."""
    n = 0
    for k in range(targets.shape[0]):
        n += int(np.ceil((targets[k] - (t if k == 0 else targets[k - 1])) / step)) + 1
        if n >= max_n:
            break
    out = np.empty(min(n, max_n))
    i = 0
    for k in range(targets.shape[0]):
        t_target = targets[k]
        while t_target - t > 1e-12 * max(1.0, abs(t_target)):
            if i == max_n:
                return out[:i]
            remaining = t_target - t
            m = max(1, int(np.ceil(remaining / step - 1e-9)))
            t = t + remaining / m
            if i == out.shape[0]:                # more steps than estimated: grow
                more = np.empty(2 * i + 1)
                more[:i] = out
                out = more
            out[i] = t
            i += 1
    return out[:i]


@kernels._jit
def ga_outputs(P, K, D, g, stiff, Q, jidx, tau, taus, pcode, pamp, ppar, t, targets, X, x,
               y, acc, y_last, t_last, step, adaptive, h_next, q_scale, err_rtol, max_step,
               am, af, gamma, beta, rtol, atol, max_iters, JF, Mj, A, piv, S, state, counts,
               max_steps):
    """:func:`ga_advance` through the output times ``targets`` in turn, the state at each
    stored in the rows of X; the joint forces of every step from ``taus`` (the rows of
    :func:`fixed_grid`'s times), from the profile (pcode, pamp, ppar), or constant;
    ``max_steps`` steps tried at most over all of them (PAUSED after).

    Returns (status, outputs reached, t, x, y, acc, y_last, t_last, h_next, q_scale,
    steps, rejected, retries): on a status other than OK the state where
    :func:`ga_advance` stopped (after the last output reached)."""
    steps = rejected = retries = 0
    reached = 0
    status = OK
    for k in range(targets.shape[0]):
        (status, t, x, y, acc, y_last, t_last, h_next, q_scale, n, r,
         f) = ga_advance(P, K, D, g, stiff, Q, jidx, tau, taus, steps, pcode, pamp, ppar, t,
                         targets[k], x, y, acc, y_last, t_last, step, adaptive, h_next,
                         q_scale, err_rtol, max_step, am, af, gamma, beta, rtol, atol,
                         max_iters, JF, Mj, A, piv, S, state, counts,
                         max_steps - steps - rejected - retries)
        steps += n
        rejected += r
        retries += f
        if status != OK:
            break
        X[k, :] = x
        reached += 1
    return (status, reached, t, x, y, acc, y_last, t_last, h_next, q_scale, steps,
            rejected, retries)


#: The bordered-banded Newton matrix from this many coordinates on; shorter chains take
#: the dense LU, which costs less there (one call of a few dozen loops, where the block
#: factors are a dozen; measured with ``bench_perf.element_scaling``, where the two
#: cost the same near 20 coordinates).
BANDED_FROM = 24

#: The factors of the bordered-banded Newton matrix and the index sets they use
#: (:func:`structure`): use[0] 1 while they serve; inner, border the coordinates of
#: y = (a, w) in the band and in the border; kl, ku the band's sub- and
#: superdiagonals; W, bpiv the band's LU; ZT = (A_II^-1 A_IB)^T; ABI = A_BI; SC, spiv
#: the Schur complement's LU; klo, khi the nonzero range of each row of K and D.
#: groups: the group of each position whose members share one scale in the step
#: control (:func:`error_groups`).
Structure = namedtuple("Structure",
                       "use inner border kl ku W bpiv ZT ABI SC spiv klo khi groups")


def error_groups(model):
    """The groups of positions that share one scale in the step control's error measure
    (``GeneralizedAlpha``'s ``error_groups``): each joint its own, the elastic
    coordinates of each link one group (the link's deflection)."""
    groups = np.empty(model.nq, dtype=np.int64)
    groups[np.asarray(model.joint_index)] = np.arange(len(model.joint_index))
    g = len(model.joint_index)
    for ll in model.layout.links:
        ix = np.asarray(ll.elastic_index, dtype=np.int64)
        if ix.size:
            groups[ix] = g
            g += 1
    return groups


def structure(model, banded=None):
    """The :class:`Structure` of an arm's Newton matrix (docs/planar-link.md §4.4).

    In the floating-frame form a link's material points see the coordinates of the
    links before it only through the frames: the joints and the tip displacement and
    slope of each earlier link, a few coordinates (those where the basis' tip values
    N(L), N'(L) are nonzero). Those, the joints and the two work integrals are the
    border; the remaining elastic coordinates of each link couple, in M and in dF/dx,
    only through the constant banded matrices M_e, G_a, G_w, K and D, and to the border.
    The Newton matrix is then banded plus dense border rows and columns, factored in
    O(nq) by :func:`_factor_banded`. ``banded``: True or False to choose, None for
    automatic (chains of :data:`BANDED_FROM` coordinates or more whose border is at
    most a quarter of them: Hermite links; a modal basis, with every mode nonzero at
    the tip, has no band and stays dense)."""
    nq = model.nq
    m = nq + 2
    klo, khi = kernels.row_ranges(model.K, model.D)
    tip = set()
    for ll, b in zip(model.layout.links, model.bases):
        N, dN, _ = b.tip_values
        ix = np.asarray(ll.elastic_index)
        tip.update(int(k) for k in ix[(np.asarray(N[0]) != 0.0) | (np.asarray(dN[0]) != 0.0)])
    elastic = set(int(k) for k in model.elastic_index)
    inner = np.array(sorted(elastic - tip), dtype=np.int64)
    border = np.setdiff1d(np.arange(m), inner).astype(np.int64)
    ni, nb = inner.size, border.size
    if banded is None:
        banded = nq >= BANDED_FROM and ni > 0 and 4 * nb <= nq
    pattern = (model.K != 0.0) | (model.D != 0.0)
    for ll, inv in zip(model.layout.links, model.invariants):
        ix = np.ix_(ll.elastic_index, ll.elastic_index)
        pattern[ix] |= (inv.M_e != 0.0) | (inv.G_a != 0.0) | (inv.G_w != 0.0)
    rows, cols = np.nonzero(pattern[np.ix_(inner, inner)])
    kl = int(max(0, (rows - cols).max())) if rows.size else 0
    ku = int(max(0, (cols - rows).max())) if rows.size else 0
    if not banded:
        ni = nb = 0
        inner = border = np.zeros(0, dtype=np.int64)
    return Structure(np.array([1 if banded else 0], dtype=np.int64), inner, border, kl, ku,
                     np.zeros((ni, 2 * kl + ku + 1)), np.zeros(ni, dtype=np.int64),
                     np.zeros((nb, ni)), np.zeros((nb, ni)), np.zeros((nb, nb)),
                     np.zeros(nb, dtype=np.int64), klo, khi, error_groups(model))


#: Wall time, s, that one compiled call of :meth:`ChainStep.advance_outputs` aims at:
#: between calls the stepping loop answers Ctrl-C and checks its wall-time budget
#: (:func:`chrono_flex.stepping.checkpoint`), so that they act within about this long
#: at any step size; the calls' overhead (tens of microseconds) stays below 1e-3 of it.
CALL_SECONDS = 0.1

#: The most steps one compiled call may take (its pace doubles from 64 up to this).
MAX_STEPS_PER_CALL = 1 << 20


class ChainStep:
    """The compiled Newton solve of a :class:`GeneralizedAlpha` step for an arm's
    forward problem (module docstring): ``solve(t_new, h, x, y, acc, ga)`` returns
    (status, x_{n+1}, y_{n+1}, acc_{n+1}); ``advance_outputs(ga, targets)`` runs the
    steps through several output times in one call. It keeps the Jacobian and its LU
    between steps and counts the evaluations (``nfev``, ``njev``, ``nlu``).

    Args:
        model: the arm's :class:`~chrono_flex.planar.equations.ArmModel` (with its
            packed arrays: the numba backend).
        torque: the joint torque, a function of time alone (callable(t) -> one value
            per joint, :func:`chrono_flex.inputs.is_time_only`), or None for none.
        reads_state: True for a torque f(t, q, qd) that reads the state: it is
            evaluated at the state predicted for the step's end (:meth:`held_torque`),
            held through the step's compiled Newton solve and corrected at the
            converged state until it no longer changes (:meth:`_solve_held`).
    """

    def __init__(self, model, torque=None, reads_state=False):
        self.model, self.torque = model, torque
        #: whether ``torque`` is called f(t, q, qd) at the predicted end of each step
        #: (:meth:`held_torque`) rather than f(t)
        self.reads_state = bool(reads_state) and torque is not None
        self._tau_scale = 1e-300
        self.n_corrections = 0
        nq = model.nq
        n, m = 2 * nq + 2, nq + 2
        self.jidx = np.asarray(model.joint_index, dtype=np.int64)
        self.JF, self.Mj, self.A = np.zeros((m, n)), np.zeros((nq, nq)), np.zeros((m, m))
        self.piv = np.zeros(m, dtype=np.int64)
        self.S = structure(model)
        self.state = np.zeros(2)
        self.counts = np.zeros(3, dtype=np.int64)
        self._Q = np.zeros(nq)
        self._tau = np.zeros(self.jidx.size)
        self._no_taus = np.zeros((0, self.jidx.size))
        self._no_params = np.zeros(0)
        # t and y at the last two step starts (the arrays are the integrator's, which
        # it replaces, never changes, at each step)
        self._t_start = self._t_last = None
        self._y_start = self._y_last = None
        self.max_steps = 64          # per compiled call, adjusted by :meth:`_pace`

    def joint_forces(self, t):
        """The joint forces at time t, checked (:func:`chrono_flex._callbacks.call_vector`:
        a fault names the callback and the time)."""
        return call_vector("torque", self.torque, self.jidx.size, t)

    def inputs_at(self, ts):
        """The joint forces at the times ``ts`` as rows (len(ts), nj), the values
        :meth:`joint_forces` gives one by one, or None when one is faulty (then the
        steps go one by one, where the fault is reported at its time after the steps
        before it; :func:`chrono_flex._callbacks.call_vector_series`)."""
        return call_vector_series(self.torque, self.jidx.size, ts)

    def _extrapolation(self, t, y, h):
        """(y_{n-1}, ratio) for the iteration's start y_n + ratio (y_n - y_{n-1}), ratio =
        h / (t_n - t_{n-1}): y_n extrapolated linearly from the derivatives at the last
        two step starts (error O(h^2) where y_n alone is O(h): the first update, measured
        against Newton's tolerance of 1e-8 of the velocities, drops by about h times the
        derivatives' time scale, and so do the iterations a step needs)."""
        if t != self._t_start:                                  # a new step
            self._t_last, self._y_last = self._t_start, self._y_start
            self._t_start, self._y_start = t, y
        if self._y_last is None or not t > self._t_last:
            return y, 0.0
        return self._y_last, h / (t - self._t_last)

    def filtered_error(self, e):
        """The local error estimate e through the Newton matrix of the last step
        (:func:`filtered_error`)."""
        return filtered_error(self.Mj, self.A, self.piv, self.S, np.ascontiguousarray(e))

    @property
    def nfev(self):
        return int(self.counts[0])

    @property
    def njev(self):
        return int(self.counts[1])

    @property
    def nlu(self):
        return int(self.counts[2])

    @property
    def matrix(self):
        """How the Newton matrix is factored: "bordered-banded" (:func:`structure`) or
        "dense" (also after a Jacobian that did not fit the band)."""
        return "bordered-banded" if self.S.use[0] else "dense"

    @property
    def autonomous(self):
        """Whether the generalized forces are constant in time (no torque): then whole
        intervals run in one call (:meth:`advance`)."""
        return self.torque is None

    def advance(self, ga, t_target):
        """Steps of ``ga`` (a GeneralizedAlpha) towards ``t_target`` in one compiled call
        (:func:`ga_advance`, no torque); updates its state and counts and returns the
        status."""
        return self.advance_outputs(ga, [t_target])[0]

    def advance_outputs(self, ga, targets):
        """Steps of ``ga`` through the output times ``targets`` in one compiled call
        (:func:`ga_outputs`) of at most :attr:`max_steps` steps (status PAUSED when they
        did not reach the last target); updates its state and counts. Returns (status,
        the states at the outputs reached (k, n)), or None where it does not apply: a torque
        without a compiled formula (``kernel``, :func:`profile_values`) under the step
        control (the step times are not known ahead), or one whose values at the fixed
        steps' ends (:func:`fixed_grid`, :meth:`inputs_at`) are not all finite reals of
        the expected shape."""
        mdl = self.model
        targets = np.asarray(targets, dtype=float)
        adaptive = ga.error_rtol is not None
        taus = self._no_taus
        control = (2 if ga.error_filter else 1) if adaptive else 0
        pcode, pamp, ppar = 0, self._tau, self._no_params
        kernel = getattr(self.torque, "kernel", None)
        if kernel is not None and np.shape(kernel[1]) == self._tau.shape:
            pcode, pamp, ppar = kernel
        elif self.torque is not None:
            if adaptive or self.reads_state:
                return None
            taus = self.inputs_at(fixed_grid(ga.t, targets, ga.step, self.max_steps))
            if taus is None:
                return None
        # the step start before ga.t, as :meth:`solve` would take it (also after steps
        # taken by solve, e.g. the halves of a failed step)
        if self._extrapolation(ga.t, ga.y, 1.0)[1] == 0.0:
            t_last, y_last = -np.inf, ga.y
        else:
            t_last, y_last = self._t_last, self._y_last
        X = np.empty((targets.size, ga.x.size))
        started = time.perf_counter()
        (status, reached, t, x, y, acc, y_last, t_last, h_next, q_scale, steps, rejected,
         retries) = compiled_call(
            ga_outputs, mdl.packed, mdl.K, mdl.D, mdl.g_vec, mdl.geometric_stiffening, self._Q,
            self.jidx, self._tau, taus, pcode, pamp, ppar, ga.t, targets, X, ga.x, ga.y,
            ga.acc, y_last,
            t_last, ga.step, control, ga.h_next, ga.q_scale,
            ga.error_rtol if adaptive else 0.0, ga.max_step, ga.am, ga.af, ga.gamma,
            ga.beta, ga.rtol, ga.atol, ga.max_iters, self.JF, self.Mj, self.A, self.piv,
            self.S, self.state, self.counts, self.max_steps)
        self._pace(time.perf_counter() - started, status)
        ga.t, ga.x, ga.y, ga.acc, ga.q_scale = t, x, y, acc, q_scale
        if adaptive:
            ga.h_next = h_next
        ga.n_steps += steps
        ga.n_rejected += rejected
        ga.n_retries += retries
        if steps:
            self._t_last, self._y_last = t_last, y_last
            self._t_start, self._y_start = t, y
        return status, X[:reached]

    def _pace(self, seconds, status):
        """Adjust :attr:`max_steps` so that a compiled call lasts about
        :data:`CALL_SECONDS`: doubled after a call that paused sooner, halved after one
        that took more than twice as long."""
        if status == PAUSED and seconds < 0.5 * CALL_SECONDS:
            self.max_steps = min(2 * self.max_steps, MAX_STEPS_PER_CALL)
        elif seconds > 2.0 * CALL_SECONDS:
            self.max_steps = max(1, self.max_steps // 2)

    def held_torque(self, t_new, h, x, y, acc, y_last, ratio, ga):
        """A state-reading torque f(t_{n+1}, q, q_d) at the state the step predicts for
        its end: the generalized-alpha update (module docstring) of the iteration's
        first iterate y_n + ratio (y_n - y_{n-1}). That iterate is off the converged
        derivatives by O(h^2), so the predicted q_d by O(h^3) and q by O(h^4): the
        torque held through the step is off the one the exact iteration converges to
        by O(h^3) (a Lipschitz law), one order above the method's local error in the
        velocities, and the method stays second order (tests/planar/test_user_laws.py
        measures the rate)."""
        nq = self.model.nq
        xn = predicted_state(x, y, acc, y_last, ratio, nq, h, ga.am, ga.af, ga.gamma,
                             ga.beta)
        return call_vector("torque", self.torque, self.jidx.size, t_new, xn[:nq],
                           xn[nq:2 * nq])

    #: Corrections of a held state-reading torque per step before the step fails.
    MAX_CORRECTIONS = 4

    #: A held torque is accepted when the law at the converged end state differs from it
    #: by at most this fraction of the largest torque seen.
    CORRECTION_RTOL = 1e-7

    def _solve_held(self, t_new, h, x, y, acc, y_last, ratio, ga):
        """The step with a state-reading torque: held at the predicted end state
        (:meth:`held_torque`), the compiled solve, the law at the converged state; while
        it differs (:data:`CORRECTION_RTOL`) the solve again with that value: a fixed
        point of the exact implicit step. The correction's response passes through the
        Newton matrix, which damps the modes above 1/h, so it contracts where the
        explicit prediction alone (whose joint rates carry those modes) would not. A
        step whose corrections do not settle returns FAILED, and the integrator takes
        it by the exact Python iteration (``GeneralizedAlpha._solve_step_compiled``)."""
        mdl = self.model
        nq = mdl.nq
        tau = self.held_torque(t_new, h, x, y, acc, y_last, ratio, ga)
        for _ in range(self.MAX_CORRECTIONS):
            self._tau = tau
            self._Q[:] = 0.0
            self._Q[self.jidx] = tau
            out = compiled_call(ga_solve, mdl.packed, mdl.K, mdl.D, mdl.g_vec,
                                mdl.geometric_stiffening, self._Q, self.jidx, self._tau, x,
                                y, acc, y_last, ratio, h, ga.am, ga.af, ga.gamma, ga.beta,
                                ga.rtol, ga.atol, ga.max_iters, self.JF, self.Mj, self.A,
                                self.piv, self.S, self.state, self.counts)
            if out[0] != OK:
                return out
            xn = out[1]
            tau = call_vector("torque", self.torque, self.jidx.size, t_new, xn[:nq],
                              xn[nq:2 * nq])
            self._tau_scale = max(self._tau_scale, float(np.abs(tau).max()))
            self.n_corrections += 1
            if np.abs(tau - self._tau).max() <= self.CORRECTION_RTOL * self._tau_scale:
                return out
        return FAILED, out[1], out[2], out[3]

    def solve(self, t_new, h, x, y, acc, ga):
        """One step's Newton solve; ``ga`` gives the method's parameters and tolerances."""
        mdl = self.model
        y_last, ratio = self._extrapolation(ga.t, y, h)
        if self.reads_state:
            return self._solve_held(t_new, h, x, y, acc, y_last, ratio, ga)
        if self.torque is not None:
            self._tau = self.joint_forces(t_new)
            self._Q[:] = 0.0
            self._Q[self.jidx] = self._tau
        return compiled_call(ga_solve, mdl.packed, mdl.K, mdl.D, mdl.g_vec,
                             mdl.geometric_stiffening, self._Q, self.jidx, self._tau, x, y,
                             acc, y_last, ratio, h, ga.am, ga.af,
                             ga.gamma, ga.beta, ga.rtol, ga.atol, ga.max_iters, self.JF,
                             self.Mj, self.A, self.piv, self.S, self.state, self.counts)


__all__ = ["BANDED_FROM", "ChainStep", "Structure", "available", "error_groups",
           "filtered_error", "structure", "fixed_grid",
           "ga_advance", "ga_outputs", "ga_solve",
           "profile_values", "OK", "FAILED", "NON_FINITE", "PAUSED", "SHRUNK"]
