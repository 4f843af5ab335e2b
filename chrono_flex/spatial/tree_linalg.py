"""The LU factorisation of a tree's Newton matrix (numba, the ``fast`` extra): the dense
LU with partial pivoting of :func:`chrono_flex.planar.chain_linalg._lu_factor`, its row
updates over the nonzero entries of the pivot row only.

A tree's Newton matrix is factored dense (:func:`chrono_flex.spatial.tree_ga.structure`),
yet most of it is zero: a link's elastic coordinates couple to the others through the
joints and the tip coordinates of the links before it, and in bending about one axis
the coordinates of the other bending plane and the twist not at all (the planar special
case: 332 nonzeros of 44 x 44, 605 after the fill of the elimination). The update of
row i by pivot row k, a_ij -= l_ik a_kj, leaves a_ij as it is where a_kj = 0; skipping
those entries gives the same factors (the same operations on the others, in the same
order) at a cost that follows the nonzeros of the pivot rows."""

import numpy as np

from ..planar.kernels import _jit


@_jit
def _lu_factor_sparse(A, piv):
    """In-place LU with partial pivoting (Golub & Van Loan, alg. 3.4.1; the factors and
    pivots of :func:`chrono_flex.planar.chain_linalg._lu_factor`, solved by its
    ``_lu_solve``), each row update over the nonzero columns of the pivot row; False
    when a pivot is zero or not finite."""
    n = A.shape[0]
    cols = np.empty(n, dtype=np.int64)
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
        nz = 0
        for j in range(k + 1, n):
            if A[k, j] != 0.0:
                cols[nz] = j
                nz += 1
        inv = 1.0 / A[k, k]
        for i in range(k + 1, n):
            A[i, k] *= inv
            lik = A[i, k]
            if lik != 0.0:
                for t in range(nz):
                    j = cols[t]
                    A[i, j] -= lik * A[k, j]
    return True


__all__ = []
