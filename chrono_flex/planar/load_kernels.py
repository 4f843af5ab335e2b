"""Compiled evaluation of the custom Chrono element's whole load (optional, numba).

The element (:class:`chrono_flex.chrono.element.FlexibleLink`) is one Chrono load over
the shafts of q, the parent body when it moves, and the bodies welded to the link. Its
generalized forces at Chrono's state vectors x, w (docs/chrono.md eq. (2.1): a body's
7 position entries, position and unit quaternion, and 6 velocity entries, world velocity
and local angular velocity) are the arm's terms
(:func:`chrono_flex.planar.floating_kernels.spatial_terms` on a moving body, the chain
terms of :func:`chrono_flex.planar.floating.plane_terms` at rest) plus every weld's
bushing (:func:`chrono_flex.planar.floating.attachment_terms`). Here they are evaluated
from x and w in one compiled call (:func:`load_forces`), and so are K = -dQ/dx and
R = -dQ/dv by the one-sided differences of Chrono's ``ChLoadCustomMultiple::
ComputeJacobian`` (:func:`load_jacobian`: step d, a body's rotation incremented by a
local rotation vector, ``ChBody::IntStateIncrement``), all 2n evaluations in one call.
The formulas are those of the modules named; tests hold the results equal to the numpy
path to round-off.
"""

from collections import namedtuple

import numpy as np

from . import floating_kernels as fk
from . import kernels
from .kernels import _inline, _jit

#: Everything the compiled load needs besides the state, packed once per load:
#: the chain model P (:class:`chrono_flex.planar.kernels.Packed`), its quadrature
#: (X, MW, NQ, npts: :class:`chrono_flex.planar.floating_kernels.Points`), K, D, the
#: geometric stiffening flag, the plane (o, Pax: in the parent's frame, or the world's
#: for a parent at rest), whether the parent moves, and per weld: link, abscissa,
#: shape values N, N' at it, the body's place among the load's bodies, offset,
#: frame rotation and gains (k_p, k_r, c_p, c_r); the last link's index, length and
#: shape values N, N' at its tip (:func:`tip_motion`).
LoadPack = namedtuple("LoadPack", "P X MW NQ npts K D stiff o Pax moving n_bodies "
                                  "w_link w_s w_N w_dN w_body w_offset w_rot w_gains "
                                  "t_link t_x t_N t_dN")


def pack_load(model, plane_origin, plane_axes, moving, n_bodies, attachments, shapes):
    """The :class:`LoadPack` of a planar element (``model.packed`` must exist: the numba
    backend); ``attachments``: objects with link, s, index, offset, frame_rot, gains;
    ``shapes``: the (N (1, ne), N' (1, ne)) of each at its station."""
    pts = fk.pack_points(model)
    na = len(attachments)
    ne = max(max((np.asarray(sh[0]).size for sh in shapes), default=1), 1)
    N, dN = np.zeros((na, ne)), np.zeros((na, ne))
    for a, (n_, dn_) in enumerate(shapes):
        n_, dn_ = np.ravel(n_), np.ravel(dn_)
        N[a, :n_.size], dN[a, :dn_.size] = n_, dn_
    last = model.n_links - 1
    tip_N, tip_dN, _ = model.tip_shapes[last]
    return LoadPack(
        model.packed, pts.x, pts.mw, pts.N, pts.n, np.ascontiguousarray(model.K, dtype=float),
        np.ascontiguousarray(model.D, dtype=float), bool(model.geometric_stiffening),
        np.ascontiguousarray(plane_origin, dtype=float),
        np.ascontiguousarray(plane_axes, dtype=float), bool(moving), int(n_bodies),
        np.array([a.link for a in attachments], dtype=np.int64),
        np.array([a.s for a in attachments], dtype=float), N, dN,
        np.array([a.index for a in attachments], dtype=np.int64),
        np.array([a.offset for a in attachments], dtype=float).reshape(na, 3),
        np.array([a.frame_rot for a in attachments], dtype=float).reshape(na, 3, 3),
        np.array([a.gains for a in attachments], dtype=float).reshape(na, 4),
        int(last), float(model.bases[last].length),
        np.ascontiguousarray(np.ravel(tip_N), dtype=float),
        np.ascontiguousarray(np.ravel(tip_dN), dtype=float))


class Compiled:
    """A compiled kernel called with arguments of the same types at every call (one
    load's pack and state vectors): the first call finds the compiled entry point of
    that signature (compiling the kernel through numba's dispatcher when it has none);
    the later calls go straight to it. The dispatcher types a nested named tuple of
    arrays field by field at every call (tens of microseconds, more than the kernel's
    own work on a small load); the entry point only unboxes. The type of a pack is
    kept by the layout of its arrays (:func:`_numba_type`), so that a new load of the
    same kind finds its entry points without typing its pack again (a pack typed field
    by field costs about half a millisecond, once per kernel). Without numba (the
    kernel a plain function) the kernel itself is called."""

    #: (kernel, argument types) -> entry point, shared by every load
    _entries = {}

    def __init__(self, kernel):
        self.kernel = kernel
        self._entry = None

    def __call__(self, *args):
        if self._entry is not None:
            return self._entry(*args)
        overloads = getattr(self.kernel, "overloads", None)
        if overloads is None:
            self._entry = self.kernel
            return self.kernel(*args)
        sig = tuple(_numba_type(self.kernel, a) for a in args)
        entry = self._entries.get((self.kernel, sig))
        if entry is None:
            cres = overloads.get(sig)
            if cres is None:
                out = self.kernel(*args)            # compiled (or loaded) now
                cres = overloads.get(sig)
                if cres is None:                    # typed otherwise by the dispatcher
                    self._entry = self.kernel
                    return out
            entry = self._entries[(self.kernel, sig)] = cres.entry_point
        self._entry = entry
        return entry(*args)


#: layout of a pack (:func:`_layout`) -> its numba type
_PACK_TYPES = {}


def _layout(value):
    """What numba's type of ``value`` depends on, for a named tuple of arrays and
    scalars: per array its dtype, dimensions, contiguity, writability and alignment."""
    if isinstance(value, np.ndarray):
        f = value.flags
        return (value.dtype.str, value.ndim, f.c_contiguous, f.f_contiguous, f.writeable,
                f.aligned)
    if isinstance(value, tuple):
        return (type(value), tuple(_layout(v) for v in value))
    return type(value)


def _numba_type(kernel, value):
    """numba's type of an argument of ``kernel``; a tuple's by its layout, typed once."""
    if not isinstance(value, tuple):
        return kernel.typeof_pyval(value)
    key = _layout(value)
    ty = _PACK_TYPES.get(key)
    if ty is None:
        ty = _PACK_TYPES[key] = kernel.typeof_pyval(value)
    return ty


@_jit
def _quat_matrix(x, o):
    """Rotation matrix of the unit quaternion x[o:o + 4] (scalar first), as
    :func:`chrono_flex.chrono.system.quat_to_matrix`."""
    e0, e1, e2, e3 = x[o], x[o + 1], x[o + 2], x[o + 3]
    A = np.empty((3, 3))
    A[0, 0] = e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3
    A[0, 1] = 2 * (e1 * e2 - e0 * e3)
    A[0, 2] = 2 * (e1 * e3 + e0 * e2)
    A[1, 0] = 2 * (e1 * e2 + e0 * e3)
    A[1, 1] = e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3
    A[1, 2] = 2 * (e2 * e3 - e0 * e1)
    A[2, 0] = 2 * (e1 * e3 - e0 * e2)
    A[2, 1] = 2 * (e2 * e3 + e0 * e1)
    A[2, 2] = e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3
    return A


@_jit
def _tip_motion(L, x, w):
    """[position (3), unit quaternion (4, scalar first, e0 >= 0), velocity (3)] in the
    world of the last link's deformed tip frame (X along the tangent, Z along the plane
    normal), from the arm's state vectors x, w (the parent body's entries first when it
    moves): :func:`chrono_flex.planar.floating.plane_pose` at the station of
    :func:`chrono_flex.planar.floating.station`, velocity v_B + A_B (omega_B x s + P J
    q_dot), the quaternion by Shepperd's method (as
    :func:`chrono_flex.chrono.system.matrix_to_quat`)."""
    _, nq, nx_arm, _ = _sizes(L)
    if L.moving:
        A = _quat_matrix(x, 3)
        q, qd = x[7:7 + nq].copy(), w[6:6 + nq].copy()
    else:
        A = np.eye(3)
        q, qd = x[0:nq].copy(), w[0:nq].copy()
    r, J, phi, _ = fk._station(L.P, q, qd, L.t_link, L.t_x, L.t_N, L.t_dN)
    Pax, o = L.Pax, L.o
    c, sn = np.cos(phi), np.sin(phi)
    Rl = np.empty((3, 3))
    for a in range(3):
        Rl[a, 0] = Pax[a, 0] * c + Pax[a, 1] * sn
        Rl[a, 1] = Pax[a, 1] * c - Pax[a, 0] * sn
    for a in range(3):
        b, d = (a + 1) % 3, (a + 2) % 3
        Rl[a, 2] = Rl[b, 0] * Rl[d, 1] - Rl[d, 0] * Rl[b, 1]
    R = fk._mm(A, Rl)
    jq = fk._mv(J, qd)
    sL = np.empty(3)
    u = np.empty(3)
    for a in range(3):
        sL[a] = o[a] + Pax[a, 0] * r[0] + Pax[a, 1] * r[1]
        u[a] = Pax[a, 0] * jq[0] + Pax[a, 1] * jq[1]
    out = np.zeros(10)
    if L.moving:
        wB = w[3:6]
        u[0] += wB[1] * sL[2] - wB[2] * sL[1]
        u[1] += wB[2] * sL[0] - wB[0] * sL[2]
        u[2] += wB[0] * sL[1] - wB[1] * sL[0]
    pos, vel = fk._mv(A, sL), fk._mv(A, u)
    for a in range(3):
        out[a] = pos[a] + (x[a] if L.moving else 0.0)
        out[7 + a] = vel[a] + (w[a] if L.moving else 0.0)
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    k, best = 0, tr
    for i in range(3):
        if R[i, i] > best:
            k, best = i + 1, R[i, i]
    if k == 0:
        s = 2.0 * np.sqrt(1.0 + tr)
        e = (s / 4, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s)
    elif k == 1:
        s = 2.0 * np.sqrt(1.0 + R[0, 0] - R[1, 1] - R[2, 2])
        e = ((R[2, 1] - R[1, 2]) / s, s / 4, (R[0, 1] + R[1, 0]) / s, (R[0, 2] + R[2, 0]) / s)
    elif k == 2:
        s = 2.0 * np.sqrt(1.0 + R[1, 1] - R[0, 0] - R[2, 2])
        e = ((R[0, 2] - R[2, 0]) / s, (R[0, 1] + R[1, 0]) / s, s / 4, (R[1, 2] + R[2, 1]) / s)
    else:
        s = 2.0 * np.sqrt(1.0 + R[2, 2] - R[0, 0] - R[1, 1])
        e = ((R[1, 0] - R[0, 1]) / s, (R[0, 2] + R[2, 0]) / s, (R[1, 2] + R[2, 1]) / s, s / 4)
    norm = np.sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3])
    sign = 1.0 if e[0] >= 0 else -1.0
    for i in range(4):
        out[3 + i] = sign * e[i] / norm
    return out


def tip_motion(pack, x, w):
    """(position (3,), quaternion (4,), velocity (3,)) of the tip frame in the world
    from the arm's state vectors (:func:`_tip_motion`), in one compiled call."""
    out = _tip_motion(pack, x, w)
    return out[:3], out[3:7], out[7:]


@_inline
def _sizes(L):
    """(n_body, nq, nx_arm, nw_arm) of the load's layout."""
    nq = L.P.nq
    if L.moving:
        return 6, nq, 7 + nq, 6 + nq
    return 0, nq, nq, nq


@_jit
def _forces(L, x, w, Q, g, with_arm):
    """(M over the arm's velocity coordinates, f over the load's, f of the welds alone)
    at x, w; with_arm False: M and the arm's terms are left zero."""
    empty = np.empty((0, 0))
    return _forces_welds(L, x, w, Q, g, with_arm, False, empty, empty)


@_jit
def _forces_welds(L, x, w, Q, g, with_arm, weld_matrices, K, R):
    """:func:`_forces`, and with ``weld_matrices`` the welds' K and R at x added into K
    and R (as :func:`_add_welds`) from the same stations and body rotations."""
    nb, nq, nx_arm, nw_arm = _sizes(L)
    nw = nw_arm + 6 * L.n_bodies
    f = np.zeros(nw)
    fw = np.zeros(nw)
    if L.moving:
        A = _quat_matrix(x, 3)
        pB, vB, wB = x[0:3].copy(), w[0:3].copy(), w[3:6].copy()
        q, qd = x[7:7 + nq].copy(), w[6:6 + nq].copy()
    else:
        A = np.eye(3)
        pB, vB, wB = np.zeros(3), np.zeros(3), np.zeros(3)
        q, qd = x[0:nq].copy(), w[0:nq].copy()
    M = np.zeros((nw_arm, nw_arm))
    if with_arm:
        if L.moving:
            M, fa = fk._body_terms(L.P, L.X, L.MW, L.NQ, L.npts, L.K, L.D, L.stiff, q, qd,
                                   Q, A, wB, L.o, L.Pax, g)
            f[:nw_arm] = fa
        else:
            gp = np.array([L.Pax[0, 0] * g[0] + L.Pax[1, 0] * g[1] + L.Pax[2, 0] * g[2],
                           L.Pax[0, 1] * g[0] + L.Pax[1, 1] * g[1] + L.Pax[2, 1] * g[2]])
            M, r = kernels._chain_terms(L.P, q, qd, gp, L.stiff)
            f[:nq] = Q - r - fk._mv(L.K, q) - fk._mv(L.D, qd)
    n = nb + nq + 6
    ci = np.empty(n, dtype=np.int64)
    for i in range(nb + nq):
        ci[i] = i
    for a in range(L.w_link.shape[0]):
        # r, J, phi, J_phi do not depend on q_dot: the same station for the matrices
        r, J, phi, Jphi = fk._station(L.P, q, qd, L.w_link[a], L.w_s[a], L.w_N[a], L.w_dN[a])
        k = L.w_body[a]
        xo, wo = nx_arm + 7 * k, nw_arm + 6 * k
        Ab = _quat_matrix(x, xo + 3)
        Qp, Qq, Qb, _, _, _, _, _, _, _ = fk._weld(
            r, J, phi, Jphi, qd, pB, A, vB, wB, L.o, L.Pax, x[xo:xo + 3].copy(),
            Ab, w[wo:wo + 3].copy(), w[wo + 3:wo + 6].copy(),
            L.w_offset[a], L.w_rot[a], L.w_gains[a])
        for i in range(nq):
            fw[nb + i] += Qq[i]
        if L.moving:
            for i in range(6):
                fw[i] += Qp[i]
        for i in range(6):
            fw[wo + i] += Qb[i]
        if weld_matrices:
            G = fk._weld_g(r, J, Jphi, A, L.o, L.Pax, Ab, L.w_offset[a])
            for i in range(6):
                ci[nb + nq + i] = wo + i
            fk._add_weld_matrices(G, G.shape[1] - n, L.w_gains[a], ci, K, R)
    return M, f + fw, fw


@_jit
def _increment(L, x, i, d):
    """x incremented by d along velocity coordinate i, as Chrono's
    ``LoadStateIncrement`` (:meth:`chrono_flex.chrono.element_load.LoadEvaluation._increment`):
    shafts add d; a body's position adds d, its quaternion is multiplied on the right by
    (cos(d/2), sin(d/2) e_k)."""
    nb, nq, nx_arm, nw_arm = _sizes(L)
    xi = x.copy()
    if nb <= i < nw_arm:
        xi[nx_arm - nq + i - nb] += d
        return xi
    if i < nb:
        xo, j = 0, i
    else:
        xo, j = nx_arm + 7 * ((i - nw_arm) // 6), (i - nw_arm) % 6
    if j < 3:
        xi[xo + j] += d
        return xi
    w0, x0, y0, z0 = x[xo + 3], x[xo + 4], x[xo + 5], x[xo + 6]
    c, s = np.cos(0.5 * d), np.sin(0.5 * d)
    if j == 3:
        qn = (w0 * c - x0 * s, x0 * c + w0 * s, y0 * c + z0 * s, z0 * c - y0 * s)
    elif j == 4:
        qn = (w0 * c - y0 * s, x0 * c - z0 * s, y0 * c + w0 * s, z0 * c + x0 * s)
    else:
        qn = (w0 * c - z0 * s, x0 * c + y0 * s, y0 * c - x0 * s, z0 * c + w0 * s)
    xi[xo + 3], xi[xo + 4], xi[xo + 5], xi[xo + 6] = qn
    return xi


@_jit
def _jacobian(L, x, w, Q, g, d, with_arm):
    """(K, R, K_w) of the load (with_arm False: K of the welds alone, R left zero) by
    one-sided differences of step d around x, w, as Chrono's ComputeJacobian; K_w: the
    welds' part of K, from the same evaluations."""
    _, f0, fw0 = _forces(L, x, w, Q, g, with_arm)
    f_arm0 = f0 - fw0
    nw = f0.shape[0]
    nw_arm = _sizes(L)[3]
    K = np.empty((nw, nw))
    K_w = np.empty((nw, nw))
    R = np.zeros((nw, nw))
    nb = _sizes(L)[0]
    for i in range(nw):
        # a welded body's coordinates, and the parent's position, enter the welds only
        # (the arm's terms read the parent's rotation and angular velocity): the arm's
        # terms are kept
        arm_i = with_arm and 3 <= i < nw_arm if nb else with_arm and i < nw_arm
        _, fi, fwi = _forces(L, _increment(L, x, i, d), w, Q, g, arm_i)
        K_w[:, i] = (fw0 - fwi) / d
        if with_arm:
            K[:, i] = (f0 - (fi if arm_i else f_arm0 + fwi)) / d
        else:
            K[:, i] = K_w[:, i]
    if with_arm:
        for i in range(nw):
            wi = w.copy()
            wi[i] += d
            arm_i = 3 <= i < nw_arm if nb else i < nw_arm
            _, fi, fwi = _forces(L, x, wi, Q, g, arm_i)
            R[:, i] = (f0 - (fi if arm_i else f_arm0 + fwi)) / d
    return K, R, K_w


@_jit
def _add_welds(L, x, K, R):
    """Add the welds' K and R at x (:func:`chrono_flex.planar.floating.attachment_jacobians`:
    G^T diag(gains) G per weld, scattered into the load's columns) into K and R."""
    nb, nq, nx_arm, nw_arm = _sizes(L)
    if L.moving:
        A = _quat_matrix(x, 3)
        q = x[7:7 + nq].copy()
    else:
        A = np.eye(3)
        q = x[0:nq].copy()
    qd = np.zeros(nq)
    n = nb + nq + 6
    cols = np.empty(n, dtype=np.int64)
    for i in range(nb + nq):
        cols[i] = i
    for a in range(L.w_link.shape[0]):
        r, J, _, Jphi = fk._station(L.P, q, qd, L.w_link[a], L.w_s[a], L.w_N[a], L.w_dN[a])
        k = L.w_body[a]
        xo, wo = nx_arm + 7 * k, nw_arm + 6 * k
        G = fk._weld_g(r, J, Jphi, A, L.o, L.Pax, _quat_matrix(x, xo + 3), L.w_offset[a])
        for i in range(6):
            cols[nb + nq + i] = wo + i
        fk._add_weld_matrices(G, G.shape[1] - n, L.w_gains[a], cols, K, R)


@_jit
def _weld_matrices(L, x, damped):
    """The welds' K and R at x over the load's velocity coordinates (:func:`_add_welds`)."""
    nw = _sizes(L)[3] + 6 * L.n_bodies
    K, R = np.zeros((nw, nw)), np.zeros((nw, nw))
    _add_welds(L, x, K, R)
    return K, R


@_jit
def _compute_q(L, x, w, Q, g, weld_matrices, m_diag, M, f, K, R):
    """What one ComputeQ needs, written into the caller's arrays (returning arrays to
    Python costs more than the small load's own work): M (nw, nw) less the inertia
    ``m_diag`` (nw,) the coordinates carry themselves (the shafts'), f (nw,), and with
    ``weld_matrices`` the welds' K and R at x. Returns whether f is finite."""
    if weld_matrices:
        K[:, :] = 0.0
        R[:, :] = 0.0
    M_arm, fa, _ = _forces_welds(L, x, w, Q, g, True, weld_matrices, K, R)
    nw, na = fa.shape[0], M_arm.shape[0]
    M[:, :] = 0.0
    M[:na, :na] = M_arm
    finite = True
    for i in range(nw):
        M[i, i] -= m_diag[i]
        f[i] = fa[i]
        if not np.isfinite(fa[i]):
            finite = False
    return finite


def compute_q(pack, x, w, Q, g, weld_matrices, damped):
    """(M (nw, nw), f (nw,), f finite, the welds' K and R (or None: not asked for; R
    None also when no weld is damped)) of the load at Chrono's state vectors, in one
    compiled call: :func:`load_forces` and :func:`weld_matrices`."""
    nw = w.shape[0]
    M, f, K, R = np.empty((nw, nw)), np.empty(nw), np.empty((nw, nw)), np.empty((nw, nw))
    finite = _compute_q(pack, x, w, Q, g, bool(weld_matrices), np.zeros(nw), M, f, K, R)
    if not weld_matrices:
        return M, f, finite, None, None
    return M, f, finite, K, (R if damped else None)


def load_forces(pack, x, w, Q, g):
    """(M (nw, nw), f (nw,)) of the load at Chrono's state vectors x, w (joint
    forces Q (nq,), gravity g (3,), world), in one compiled call."""
    M, f, _ = _forces(pack, x, w, Q, g, True)
    if M.shape[0] < f.shape[0]:                 # the welded bodies' rows: no arm inertia
        Mf = np.zeros((f.shape[0], f.shape[0]))
        Mf[:M.shape[0], :M.shape[0]] = M
        M = Mf
    return M, f


def load_jacobian(pack, x, w, Q, g, d):
    """(K, R, K_w): (-dQ/dx, -dQ/dv) of the load by one-sided differences of step d, as
    Chrono's ``ChLoadCustomMultiple::ComputeJacobian`` forms them, and the welds' part
    of K (:func:`weld_stiffness_differences`), in one compiled call (Q held: joint
    forces that depend on time only)."""
    return _jacobian(pack, x, w, Q, g, float(d), True)


def weld_stiffness_differences(pack, x, w, d):
    """-dQ_weld/dx of all welds by the same differences (velocities held)."""
    return _jacobian(pack, x, w, np.zeros(pack.P.nq), np.zeros(3), float(d), False)[0]


def weld_matrices(pack, x, damped):
    """The welds' (K, R or None) at x over the load's velocity coordinates."""
    K, R = _weld_matrices(pack, x, damped)
    return K, (R if damped else None)


__all__ = ["Compiled", "LoadPack", "compute_q", "load_forces", "load_jacobian", "pack_load",
           "tip_motion", "weld_matrices", "weld_stiffness_differences"]
