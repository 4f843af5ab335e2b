"""Compiled helpers of the spatial result (:mod:`chrono_flex.spatial.post`; numba, the
``fast`` extra): the frames of every body at many states without their Jacobians, and
the centreline points r = p + R [x, v, w] of a link at its stations and the bending
curvature there for all samples
(docs/spatial-link.md §1). The frames come from the kernels' own frame routines
(:func:`chrono_flex.spatial.kernels._child_frame`, :func:`~chrono_flex.spatial.kernels._tip_frame`)
with no Jacobian columns carried (nc = 0), so the positions and rotations are those of
:func:`chrono_flex.spatial.kernels.tree_frames` by the same operations; the numpy twins
are :func:`chrono_flex.spatial.kinematics.tree_frames` and
:func:`chrono_flex.spatial.post._points` (tests/spatial/test_spatial_kernels.py)."""

import numpy as np

from ..planar.kernels import _jit, row_ranges
from .kernels import BI_JIDX, BI_JKIND, BI_LINK, BI_PARENT, _child_frame, _tip_frame
from .link_coef import FAP, FAW, FJ, FP, FR, FW


@_jit
def _frames_only(P, Q):
    """(positions (nt, 2, nb, 3), rotations (nt, 2, nb, 3, 3)) of the root (0) and
    attachment (1) frames of every body at the rows of Q, at rest (q_d = 0): the walk of
    :func:`chrono_flex.spatial.kernels._tree_pass` without Jacobian columns or terms."""
    nt, nq = Q.shape
    nb = P.bint.shape[0]
    pos = np.zeros((nt, 2, nb, 3))
    rot = np.zeros((nt, 2, nb, 3, 3))
    qd = np.zeros(nq)
    # a frame whose Jacobian columns are written, never read (nc = 0)
    F = np.zeros((3, FJ + 2 * nq))
    E = np.empty((2, 3, 3))
    for t in range(nt):
        q = Q[t].copy()
        for b in range(nb):
            pa = P.bint[b, BI_PARENT]
            for i in range(3):
                F[i, FAP] = F[i, FAW] = F[i, FW] = 0.0
                F[i, FP] = 0.0 if pa < 0 else pos[t, 1, pa, i]
                for j in range(3):
                    F[i, FR + j] = (1.0 if i == j else 0.0) if pa < 0 else rot[t, 1, pa, i, j]
            _child_frame(P.bflt, b, P.bint[b, BI_JKIND], P.bint[b, BI_JIDX], q, qd, 0, F, E)
            for i in range(3):
                pos[t, 0, b, i] = F[i, FP]
                for j in range(3):
                    rot[t, 0, b, i, j] = F[i, FR + j]
            if P.bint[b, BI_LINK] == 1:
                _tip_frame(P.bint, P.bflt, b, q, qd, 0, F)
            for i in range(3):
                pos[t, 1, b, i] = F[i, FP]
                for j in range(3):
                    rot[t, 1, b, i, j] = F[i, FR + j]
    return pos, rot


@_jit
def _stations(p, R, x, Nv, Nw, d2Nv, d2Nw, ET, nz, cols):
    """(r = p + R [x, Nv e, Nw e] (nt, ns, 3), curvature sqrt((Nv'' e)^2 + (Nw'' e)^2)
    (nt, ns)) for frames p (nt, 3), R (nt, 3, 3), abscissae x (ns,), shape values
    (ns, ne) and elastic coordinates ET (ne, nt) (a column per sample), the sums over
    the nz[k] columns cols[k] where station k's shape values are not all zero (the
    others add exact zeros; an element's shape functions vanish off its nodes). The
    samples are the inner loop (each sum in the same order, the samples side by side);
    plain loops: numpy's products call the BLAS, whose threads wait on a busy machine."""
    nt = ET.shape[1]
    ns = x.shape[0]
    out = np.empty((nt, ns, 3))
    curv = np.empty((nt, ns))
    v, w, cv, cw = np.empty(nt), np.empty(nt), np.empty(nt), np.empty(nt)
    for k in range(ns):
        v[:] = 0.0
        w[:] = 0.0
        cv[:] = 0.0
        cw[:] = 0.0
        for c in range(nz[k]):
            j = cols[k, c]
            a0, a1, a2, a3 = Nv[k, j], Nw[k, j], d2Nv[k, j], d2Nw[k, j]
            for t in range(nt):
                e = ET[j, t]
                v[t] += a0 * e
                w[t] += a1 * e
                cv[t] += a2 * e
                cw[t] += a3 * e
        a = x[k]
        for t in range(nt):
            for i in range(3):
                out[t, k, i] = p[t, i] + R[t, i, 0] * a + R[t, i, 1] * v[t] + R[t, i, 2] * w[t]
            curv[t, k] = np.sqrt(cv[t] * cv[t] + cw[t] * cw[t])
    return out, curv


@_jit
def _quadratic_forms(Q, A, lo, hi):
    """q^T A q at each row q of Q, over the nonzero range [lo[i], hi[i]) of each row of
    A (the other terms are exact zeros)."""
    nt = Q.shape[0]
    out = np.zeros(nt)
    for t in range(nt):
        s = 0.0
        for i in range(A.shape[0]):
            x = 0.0
            for j in range(lo[i], hi[i]):
                x += A[i, j] * Q[t, j]
            s += Q[t, i] * x
        out[t] = s
    return out


def quadratic_forms(Q, A):
    """q^T A q at each row q of Q (nt, n) for a square A (n, n) (numpy twin:
    ``np.einsum("ti,ij,tj->t", Q, A, Q)``), compiled over the nonzero range of A's rows
    (a stiffness matrix's band: the einsum's triple loop took about a tenth of the
    spatial result)."""
    A = np.ascontiguousarray(A, dtype=float)
    return _quadratic_forms(np.ascontiguousarray(Q, dtype=float), A, *row_ranges(A))


def frames_only(packed, Q):
    """:func:`_frames_only` at the rows of Q (nt, nq)."""
    return _frames_only(packed, np.ascontiguousarray(np.atleast_2d(Q), dtype=float))


def station_shapes(x, Nv, Nw, d2Nv, d2Nw):
    """The shape values of stations at abscissae x as contiguous float arrays, with the
    columns where each station's are not all zero: (x, Nv, Nw, d2Nv, d2Nw, nz (ns,),
    cols (ns, max nz)), the last arguments of :func:`stations`."""
    arrays = [np.ascontiguousarray(a, dtype=float) for a in (x, Nv, Nw, d2Nv, d2Nw)]
    used = (arrays[1] != 0) | (arrays[2] != 0) | (arrays[3] != 0) | (arrays[4] != 0)
    nz = used.sum(axis=1).astype(np.int64)
    cols = np.zeros((used.shape[0], max(int(nz.max(initial=0)), 1)), dtype=np.int64)
    for k, row in enumerate(used):
        cols[k, :nz[k]] = np.nonzero(row)[0]
    return (*arrays, nz, cols)


def stations(p, R, E, shapes):
    """:func:`_stations` for frames p (nt, 3), R (nt, 3, 3) and elastic coordinates E
    (nt, ne), the stations' ``shapes`` of :func:`station_shapes`."""
    x, Nv, Nw, d2Nv, d2Nw, nz, cols = shapes
    return _stations(np.ascontiguousarray(p, dtype=float), np.ascontiguousarray(R, dtype=float),
                     x, Nv, Nw, d2Nv, d2Nw, np.ascontiguousarray(np.transpose(E), dtype=float),
                     nz, cols)


__all__ = ["frames_only", "quadratic_forms", "station_shapes", "stations"]
