"""The linear algebra of the compiled generalized-alpha step (:mod:`.chain_ga`): dense
LU, band LU, the bordered-banded Newton matrix (:func:`_factor_banded`) and its solve, and
the plain-loop products they use (numba, the ``fast`` extra)."""

import numpy as np

from . import kernels

#: The rows of a :class:`~chrono_flex.planar.chain_ga.Structure`'s integer array ``iv``
#: (each its first entries: 1, ni, nb, ni, nb, nq, nq, nq): the flag, the inner and
#: border coordinates, the band's and the Schur complement's pivots, the row ranges of
#: K and D, the step control's groups.
ST_USE, ST_INNER, ST_BORDER, ST_BPIV, ST_SPIV, ST_KLO, ST_KHI, ST_GROUPS = range(8)


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
    x = b.copy()
    _lu_solve_in(A, piv, x)
    return x


@kernels._jit
def _lu_solve_in(A, piv, x):
    """:func:`_lu_solve` in place: x (holding b) overwritten with the solution (the
    step's solves take no new array: each heap allocation in the compiled step costs
    about as much as a dozen of its multiply-adds, docs/performance.md)."""
    n = A.shape[0]
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


#: A x by plain loops. The matrices here are small (nq up to a few hundred), and numba's
#: ``@`` calls the BLAS, whose threads, on a machine busier than it has cores, wait for
#: each other far longer than the product takes (64 elements: 8 to 10 times the whole
#: step's cost). The one loop of :func:`chrono_flex.planar.kernels._mv`.
_matvec = kernels._mv


@kernels._jit
def _matvec_into(A, x, out):
    """:func:`_matvec` into ``out`` (the same sums)."""
    n, m = A.shape
    for i in range(n):
        s = 0.0
        for j in range(m):
            s += A[i, j] * x[j]
        out[i] = s


@kernels._jit
def _band_matvec(A, lo, hi, x):
    """A x over the nonzero range [lo[i], hi[i]) of each row (:func:`kernels.row_ranges`;
    the same sums as :func:`_matvec`, less exact zeros)."""
    out = np.zeros(A.shape[0])
    _band_matvec_into(A, lo, hi, x, out)
    return out


@kernels._jit
def _band_matvec_into(A, lo, hi, x, out):
    """:func:`_band_matvec` into ``out``."""
    for i in range(A.shape[0]):
        s = 0.0
        for j in range(lo[i], hi[i]):
            s += A[i, j] * x[j]
        out[i] = s


@kernels._jit
def _abs_max(v, lo, hi):
    """max |v[k]| over lo <= k < hi (hi > lo), NaN if any is NaN: ``np.abs(v[lo:hi]).max()``
    without the temporary."""
    big = abs(v[lo])
    for k in range(lo + 1, hi):
        a = abs(v[k])
        if big != big:
            return big
        if a > big or a != a:
            big = a
    return big


@kernels._jit
def _dot(a, b):
    """a . b by a plain loop (see :func:`_matvec`)."""
    s = 0.0
    for k in range(a.shape[0]):
        s += a[k] * b[k]
    return s


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
    x = b.copy()
    _band_solve_in(W, kl, ku, piv, x)
    return x


@kernels._jit
def _band_solve_in(W, kl, ku, piv, x):
    """:func:`_band_solve` in place: x (holding b) overwritten with the solution."""
    n = W.shape[0]
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


@kernels._jit
def _fits_band(JF, Mj, nq, S):
    """Whether the inner block of M and dF/dx (q and q_d columns) is zero outside the
    band S.kl, S.ku: what the bordered-banded factorisation assumes (:func:`structure`);
    an O(nq^2) scan, made with each fresh Jacobian."""
    inner = S.iv[ST_INNER]
    ni = S.ni
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
    inner, border = S.iv[ST_INNER], S.iv[ST_BORDER]
    ni, nb = S.ni, S.nb
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
    if not _band_lu(W, kl, ku, S.iv[ST_BPIV]):
        return False
    for c in range(nb):
        _band_solve_in(W, kl, ku, S.iv[ST_BPIV], S.ZT[c])
    for i in range(nb):
        for j in range(nb):
            s = 0.0
            for k in range(ni):
                s += S.ABI[i, k] * S.ZT[j, k]
            S.SC[i, j] -= s
    return _lu_factor(S.SC, S.iv[ST_SPIV])


@kernels._jit
def _newton_solve(A, piv, S, b):
    """x with (Newton matrix) x = b: the dense LU of :func:`_lu_factor` in ``A``, or the
    block factors of :func:`_factor_banded` when ``S.use[0]``."""
    x = b.copy()
    _newton_solve_in(A, piv, S, x, np.empty(b.shape[0]))
    return x


@kernels._jit
def _newton_solve_in(A, piv, S, x, work):
    """:func:`_newton_solve` in place: x (holding b) overwritten with the solution;
    ``work`` scratch of x's length (the bordered-banded path's pieces; the same
    operations in the same order)."""
    if S.iv[ST_USE, 0] == 0:
        _lu_solve_in(A, piv, x)
        return
    inner, border = S.iv[ST_INNER], S.iv[ST_BORDER]
    ni, nb = S.ni, S.nb
    yI = work[:ni]
    for r in range(ni):
        yI[r] = x[inner[r]]
    _band_solve_in(S.W, S.kl, S.ku, S.iv[ST_BPIV], yI)
    t = work[ni:ni + nb]
    for rb in range(nb):
        s = x[border[rb]]
        for k in range(ni):
            s -= S.ABI[rb, k] * yI[k]
        t[rb] = s
    _lu_solve_in(S.SC, S.iv[ST_SPIV], t)
    for c in range(nb):
        x[border[c]] = t[c]
        xc = t[c]
        for r in range(ni):
            yI[r] -= S.ZT[c, r] * xc
    for r in range(ni):
        x[inner[r]] = yI[r]
