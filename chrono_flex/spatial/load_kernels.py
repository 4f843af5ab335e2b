"""Compiled evaluation of the spatial Chrono element's load (optional, numba).

The spatial custom element (:class:`chrono_flex.chrono.spatial_element.SpatialFlexibleLink`)
is one Chrono load over the shafts of q and, when the arm's base body moves, that body.
Its generalized forces at Chrono's state vectors x, w (docs/chrono.md eq. (2.1): a body's
7 position entries, position and unit quaternion, and 6 velocity entries, world velocity
and local angular velocity) are the tree's terms of :mod:`chrono_flex.spatial.floating`:

* on a base at rest (the ground, or a fixed body), with gravity g_b = P^T g in the
  base's axes: f = Q - r(q, q_d) - K q - D q_d, r = h - Q_g [+ K_geo e] of
  :func:`chrono_flex.spatial.kernels.tree_terms` (the reference engine's own kernel);
* on a moving body: the tree hangs on the base frame of
  :func:`chrono_flex.spatial.floating.body_base` (the body's six velocities as extra
  Jacobian columns), walked by :func:`_tree_pass_on` with the same per-link and per-item
  routines of :mod:`chrono_flex.spatial.kernels`, and reordered to Chrono's layout
  [v_B, omega_B, q_dot] as :func:`~chrono_flex.spatial.floating.body_terms` does.

Both come from x and w in one compiled call (:func:`compute_q`), and so do K = -dQ/dx
and R = -dQ/dv (:func:`load_jacobian`): the one-sided differences of Chrono's
``ChLoadCustomMultiple::ComputeJacobian`` (step d, a body's rotation incremented by a
local rotation vector, ``ChBody::IntStateIncrement``: the increment of
:mod:`chrono_flex.planar.load_kernels`), all 2n evaluations in that call over the
force-only pass (no mass matrix formed). Joint forces Q are held over the differences
(the element adds the part of a state-dependent torque itself). The numpy path stays the
reference: tests/chrono/test_spatial_element_compiled.py holds the two equal to
round-off.

Scope: welded bodies (docs/chrono.md §12) and actuators with internal states keep the
numpy path, and so does the geometric stiffening on a moving body (its axial load is
taken relative to the base there, :mod:`chrono_flex.spatial.floating`).
"""

from collections import namedtuple

import numpy as np

from ..planar.kernels import _jit, _mv
from ..planar.load_kernels import _increment, _quat_matrix
from . import kernels as sk
from .floating import N_BODY

#: Everything the compiled load needs besides the state, packed once per load: the
#: tree's arrays P (:class:`chrono_flex.spatial.kernels.Packed`), K, D, the geometric
#: stiffening flag, the base origin o and rotation Pax (in the parent body's frame, or
#: the world's for a base at rest), whether the base body moves, and the number of
#: welded bodies (none on this path; the field keeps the layout of
#: :func:`chrono_flex.planar.load_kernels._increment`).
LoadPack = namedtuple("LoadPack", "P K D stiff o Pax moving n_bodies")


def pack_load(model, origin, rotation, moving):
    """The :class:`LoadPack` of a spatial element's arm (``model`` reduced; the numba
    backend: :func:`chrono_flex.spatial.kernels.packed_model` not None)."""
    P = sk.packed_model(model)
    if P is None:
        raise ValueError("the compiled load needs the numba backend and a reduced model")
    return LoadPack(P, np.ascontiguousarray(model.K, dtype=float),
                    np.ascontiguousarray(model.D, dtype=float), bool(model.geometric_stiffening),
                    np.ascontiguousarray(origin, dtype=float),
                    np.ascontiguousarray(rotation, dtype=float), bool(moving), 0)


@_jit
def _tree_pass_on(L, q, qd, g, stiff, full, terms, pB, A, om):
    """(M or an empty matrix, r, the root (0) and attachment (1) frames (2, nb, 3, 7 + 2
    nf) of :func:`chrono_flex.spatial.kernels._frame_array`, their Jacobians' columns of
    q (nb, nf)) of the
    tree hung on a moving body (without ``terms`` the frames only): the pass of
    :func:`chrono_flex.spatial.kernels._tree_pass` (frames from the base to the leaves,
    each link's ``_link``, the lumped items) from the base frame of
    :func:`chrono_flex.spatial.floating.body_base` (position pB + A o, rotation A P,
    Jp = [0 | I, -A [o]x], Jw = [0 | 0, A], ap = A (om x (om x o)), aw = 0, omega = A om;
    body position pB, rotation A, angular velocity om in its own axes, o and P of the
    :class:`LoadPack` L), over q and q_d padded with the body's six columns (n = nq + 6)."""
    P = L.P
    n = q.shape[0]
    nq = n - N_BODY
    nb = P.bint.shape[0]
    M = np.zeros((n, n)) if full else np.zeros((0, 0))
    Ma = np.zeros(n)
    r = np.zeros(n)
    no_a = np.zeros(0)
    # the base frame (index nb of the attachment frames: the parent of the roots)
    o = L.o
    b_p = pB + _mv(A, o)
    b_ap = _mv(A, sk._cross(om, sk._cross(om, o)))
    b_R = sk._mm(A, L.Pax)
    b_w = _mv(A, om)
    # the frames' Jacobians over the body's six columns, then each body's own
    # (:func:`chrono_flex.spatial.kernels.frame_columns`)
    nf = N_BODY + P.fcol.shape[1]
    fcol = np.empty((nb, nf), dtype=np.int64)
    for b in range(nb):
        for k in range(N_BODY):
            fcol[b, k] = nq + k
        for k in range(nf - N_BODY):
            fcol[b, N_BODY + k] = P.fcol[b, k]
    b_Jp = np.zeros((3, N_BODY))
    b_Jw = np.zeros((3, N_BODY))
    So = np.array(((0.0, -o[2], o[1]), (o[2], 0.0, -o[0]), (-o[1], o[0], 0.0)))
    ASo = sk._mm(A, So)
    for i in range(3):
        b_Jp[i, i] = 1.0
        for j in range(3):
            b_Jp[i, 3 + j] = -ASo[i, j]
            b_Jw[i, 3 + j] = A[i, j]
    Fr = sk._frame_array(nb, nf)
    FJ = sk.FJ
    E, W, cols = np.empty((2, 3, 3)), sk._scratch(n, P.nemax), np.empty(n, np.int64)
    for b in range(nb):
        pa = P.bint[b, sk.BI_PARENT]
        if pa < 0:
            for i in range(3):
                Fr[0, b, i, sk.FP] = b_p[i]
                Fr[0, b, i, sk.FAP] = b_ap[i]
                Fr[0, b, i, sk.FW] = b_w[i]
                for j in range(3):
                    Fr[0, b, i, sk.FR + j] = b_R[i, j]
                for k in range(N_BODY):
                    Fr[0, b, i, FJ + k] = b_Jp[i, k]
                    Fr[0, b, i, FJ + nf + k] = b_Jw[i, k]
        else:
            sk._copy_frame(Fr, 1, pa, 0, b, N_BODY + P.bint[pa, sk.BI_NCOL1])
        sk._child_frame(P.bflt, b, P.bint[b, sk.BI_JKIND], P.bint[b, sk.BI_JIDX], q, qd,
                        N_BODY + (0 if pa < 0 else P.bint[pa, sk.BI_NCOL1]), Fr[0, b], E)
        nc = N_BODY + P.bint[b, sk.BI_NCOL0]
        sk._copy_frame(Fr, 0, b, 1, b, nc)
        if P.bint[b, sk.BI_LINK] == 1:
            if terms:
                sk._link(P.bint[b, sk.BI_E0], P.bint[b, sk.BI_NE], P.lsc[b], P.lvec[b],
                         P.cptr, P.ccol, P.cval, b, q, qd, g, stiff, nc, fcol[b], Fr[1, b], M,
                         no_a, Ma, r, W, cols)
            sk._tip_frame(P.bint, P.bflt, b, q, qd, nc, Fr[1, b])
    for t in range(P.iint.shape[0] if terms else 0):
        f, b = P.iint[t, sk.IT_TIP], P.iint[t, sk.IT_BODY]
        sk._item(P.iint[t, sk.IT_ROT] == 1, P.iflt, t,
                 N_BODY + (P.bint[b, sk.BI_NCOL0] if f == 0 else P.bint[b, sk.BI_NCOL1]),
                 fcol[b], Fr[f, b], g, M, no_a, Ma, r, W, cols)
    return M, r, Fr, fcol


@_jit
def _arm_rows(L, q, qd, Q, f, at):
    """f[at:at + nq] += Q - K q - D q_d (the arm's own forces, dense K and D)."""
    nq = q.shape[0]
    for i in range(nq):
        s = Q[i]
        for j in range(nq):
            s -= L.K[i, j] * q[j] + L.D[i, j] * qd[j]
        f[at + i] += s


@_jit
def _forces(L, x, w, Q, g, full):
    """(M over the load's velocity coordinates, or an empty matrix without ``full``; f)
    at Chrono's state vectors x, w (module docstring)."""
    nq = L.P.nq
    if not L.moving:
        q, qd = x[0:nq].copy(), w[0:nq].copy()
        gb = np.zeros(3)                              # P^T g: gravity in the base's axes
        for i in range(3):
            gb[i] = L.Pax[0, i] * g[0] + L.Pax[1, i] * g[1] + L.Pax[2, i] * g[2]
        if full:
            M, r = sk._tree_terms(L.P, q, qd, gb, L.stiff)
        else:
            M = np.zeros((0, 0))
            r = sk._tree_forces(L.P, q, qd, gb, L.stiff, np.zeros(0))[1]
        f = -r
        _arm_rows(L, q, qd, Q, f, 0)
        return M, f
    n = nq + N_BODY
    A = _quat_matrix(x, 3)
    q_ext, qd_ext = np.zeros(n), np.zeros(n)
    for i in range(nq):
        q_ext[i] = x[7 + i]
        qd_ext[i] = w[6 + i]
    for i in range(N_BODY):
        qd_ext[nq + i] = w[i]
    M_ext, r, _, _ = _tree_pass_on(L, q_ext, qd_ext, g, np.bool_(False), full, np.bool_(True),
                                      x[0:3].copy(),
                                      A, w[3:6].copy())
    # Chrono's order: the body's six rows and columns first, then the arm's
    f = np.empty(n)
    for i in range(N_BODY):
        f[i] = -r[nq + i]
    for i in range(nq):
        f[N_BODY + i] = -r[i]
    _arm_rows(L, x[7:7 + nq], w[6:6 + nq], Q, f, N_BODY)
    if not full:
        return np.zeros((0, 0)), f
    M = np.empty((n, n))
    for i in range(n):
        a = i + nq if i < N_BODY else i - N_BODY
        for j in range(n):
            M[i, j] = M_ext[a, j + nq if j < N_BODY else j - N_BODY]
    return M, f


@_jit
def _compute_q(L, x, w, Q, g):
    M, f = _forces(L, x, w, Q, g, np.bool_(True))
    finite = True
    for i in range(f.shape[0]):
        if not np.isfinite(f[i]):
            finite = False
    return M, f, finite


@_jit
def _jacobian(L, x, w, Q, g, d):
    """(K, R) by one-sided differences of step d around x, w, as Chrono's
    ComputeJacobian (the force-only pass at each of the 2n states)."""
    f0 = _forces(L, x, w, Q, g, np.bool_(False))[1]
    n = f0.shape[0]
    K = np.empty((n, n))
    R = np.empty((n, n))
    for i in range(n):
        fi = _forces(L, _increment(L, x, i, d), w, Q, g, np.bool_(False))[1]
        for k in range(n):
            K[k, i] = (f0[k] - fi[k]) / d
    for i in range(n):
        wi = w.copy()
        wi[i] += d
        fi = _forces(L, x, wi, Q, g, np.bool_(False))[1]
        for k in range(n):
            R[k, i] = (f0[k] - fi[k]) / d
    return K, R


@_jit
def _tip_motion(L, x, w, b):
    """(position, rotation, velocity) in the world of body b's attachment frame (a
    link's deformed tip) at x, w: the frames of :func:`_tree_pass_on` (for a base at
    rest, its origin and axes from the body at the world's origin, at rest)."""
    nq = L.P.nq
    n = nq + N_BODY
    q_ext, qd_ext = np.zeros(n), np.zeros(n)
    xo, wo = (7, 6) if L.moving else (0, 0)
    for i in range(nq):
        q_ext[i] = x[xo + i]
        qd_ext[i] = w[wo + i]
    if L.moving:
        for i in range(N_BODY):
            qd_ext[nq + i] = w[i]
        pB, A, om = x[0:3].copy(), _quat_matrix(x, 3), w[3:6].copy()
    else:
        pB, A, om = np.zeros(3), np.eye(3), np.zeros(3)
    _, _, Fr, fcol = _tree_pass_on(L, q_ext, qd_ext, np.zeros(3), np.bool_(False),
                                   np.bool_(False), np.bool_(False), pB, A, om)
    v = np.zeros(3)
    for k in range(N_BODY + L.P.bint[b, sk.BI_NCOL1]):
        for i in range(3):
            v[i] += Fr[1, b, i, sk.FJ + k] * qd_ext[fcol[b, k]]
    return Fr[1, b, :, sk.FP].copy(), Fr[1, b, :, sk.FR:sk.FR + 3].copy(), v


def _f(v):
    return np.ascontiguousarray(v, dtype=float)


def load_forces(pack, x, w, Q, g):
    """(M (n, n), f (n,)) of the load at Chrono's state vectors x, w (joint forces Q
    (nq,), gravity g (3,), world), in one compiled call."""
    M, f, _ = _compute_q(pack, _f(x), _f(w), _f(Q), _f(g))
    return M, f


def compute_q(pack, x, w, Q, g, weld_matrices=False, damped=False):
    """(M, f, f finite, None, None): what one ComputeQ needs, in one compiled call (the
    signature of :func:`chrono_flex.planar.load_kernels.compute_q`; no welds on this
    path, so no weld matrices)."""
    if weld_matrices:
        raise ValueError("the spatial compiled load carries no welds")
    M, f, finite = _compute_q(pack, _f(x), _f(w), _f(Q), _f(g))
    return M, f, finite, None, None


def load_jacobian(pack, x, w, Q, g, d):
    """(K, R): (-dQ/dx, -dQ/dv) of the load by one-sided differences of step d, as
    Chrono's ``ChLoadCustomMultiple::ComputeJacobian`` forms them, in one compiled call
    (Q held)."""
    return _jacobian(pack, _f(x), _f(w), _f(Q), _f(g), float(d))


def tip_motion(pack, x, w, body):
    """(position (3,), rotation (3, 3), velocity (3,)) in the world of body ``body``'s
    attachment frame at Chrono's state vectors x, w, in one compiled call (the numpy
    twins: :func:`chrono_flex.spatial.floating.world_tip_frames` and the tip's Jacobian
    of :func:`chrono_flex.spatial.equations.evaluate`)."""
    return _tip_motion(pack, _f(x), _f(w), int(body))


__all__ = ["LoadPack", "compute_q", "load_forces", "load_jacobian", "pack_load", "tip_motion"]
