"""Kinematics of a tree of flexible links and rigid bodies in space (docs/spatial-link.md §1).

Floating frame of reference: every body has a frame (position p, rotation R) moved by
its joint; a link's material point at abscissa x sits at

    r(x) = p + R s(x),   s = [x, v(x), w(x)]^T,   v = Nv e, w = Nw e,

and its section is twisted by phi(x) = Nphi e about the frame's x axis. A child hangs on
its parent's attachment frame: a rigid body's own frame, or a link's deformed tip,
whose rotation is R_tip = R Rz(v'(L)) Ry(-w'(L)) Rx(phi(L)) (the small elastic rotation
from the tip slopes and twist, written as an exact rotation so that the chain stays a
chain of rotations).

For every frame and point the functions return the position, the velocity Jacobian
J = dr/dq (dr/dt = J q_d), the angular-velocity Jacobian Jw (omega = Jw q_d) and the
convective accelerations a = J_dot q_d, aw = Jw_dot q_d (the parts of the accelerations
free of q_dd):

    J  = Jp + Jw x (R s) + R [0, Nv, Nw]^T
    a  = ap + aw x (R s) + omega x (omega x R s) + 2 omega x (R s_dot)

Frames are built from the root to the leaves in the bodies' order (a parent comes before
its children). The functions work on complex arrays too (complex-step checks).
"""

from dataclasses import dataclass

import numpy as np

from .params import rotation


@dataclass(frozen=True)
class BodyLayout:
    """Where one body's coordinates live in q and how it hangs on its parent.

    body: a SpatialLink or RigidBody; joint: its joint; parent: index of the parent body
    (-1: the base); basis: the link's SpatialBasis (None for a rigid body);
    joint_index: index of the joint coordinate in q (None for a FixedJoint);
    elastic_index: indices of the link's elastic coordinates in q (empty for a body).
    """

    body: object
    joint: object
    parent: int
    basis: object
    joint_index: object
    elastic_index: np.ndarray

    @property
    def is_link(self):
        return self.basis is not None

    @property
    def elastic_slice(self):
        return slice(int(self.elastic_index[0]), int(self.elastic_index[-1]) + 1)


@dataclass(frozen=True)
class Layout:
    """q = [joint coordinate, elastic coordinates] of each body in turn."""

    bodies: tuple
    nq: int

    @classmethod
    def build(cls, bodies, joints, parents, bases):
        out, k = [], 0
        for body, joint, parent, basis in zip(bodies, joints, parents, bases):
            ji = None
            if joint.kind != "fixed":
                ji, k = k, k + 1
            n = 0 if basis is None else basis.n
            out.append(BodyLayout(body, joint, int(parent), basis, ji, np.arange(k, k + n)))
            k += n
        return cls(tuple(out), k)

    @property
    def joint_indices(self):
        return np.array([b.joint_index for b in self.bodies if b.joint_index is not None],
                        dtype=int)

    @property
    def elastic_indices(self):
        parts = [b.elastic_index for b in self.bodies]
        return np.concatenate(parts).astype(int) if parts else np.zeros(0, int)


@dataclass
class Frame:
    """A body frame: position p (3,), its Jacobian Jp (3, nq) and convective acceleration
    ap (3,); rotation R (3, 3), angular-velocity Jacobian Jw (3, nq), convective angular
    acceleration aw (3,) and angular velocity w (3,)."""

    p: np.ndarray
    Jp: np.ndarray
    ap: np.ndarray
    R: np.ndarray
    Jw: np.ndarray
    aw: np.ndarray
    w: np.ndarray


def cross(a, b):
    """a x b along the last axis (broadcasting), without numpy.cross's overhead."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], -1)


def _cross_columns(J, v):
    """Column k of the result is J[:, k] x v; J (3, nq), v (3,)."""
    return np.stack([J[1] * v[2] - J[2] * v[1], J[2] * v[0] - J[0] * v[2],
                     J[0] * v[1] - J[1] * v[0]])


def base_frame(nq, dtype=float):
    """The fixed base: origin, identity rotation, at rest."""
    z3, z = np.zeros(3, dtype), np.zeros((3, nq), dtype)
    return Frame(z3, z, z3.copy(), np.eye(3, dtype=dtype), z.copy(), z3.copy(), z3.copy())


def shifted(frame, offset):
    """The frame moved by ``offset`` (given in the frame), same rotation."""
    off = np.asarray(offset, dtype=float)
    if not np.any(off):
        return frame
    o = frame.R @ off
    p = frame.p + o
    Jp = frame.Jp + _cross_columns(frame.Jw, o)
    ap = frame.ap + cross(frame.aw, o) + cross(frame.w, cross(frame.w, o))
    return Frame(p, Jp, ap, frame.R, frame.Jw, frame.aw, frame.w)


def child_frame(parent, bl, q, qd):
    """The root frame of body ``bl`` from its parent's attachment frame.

    Revolute about a (parent frame): R = R_P Rot(a, theta) mount, omega = omega_P +
    (R_P a) theta_dot, aw = aw_P + (omega_P x R_P a) theta_dot.
    Prismatic along u: p = p_P + d R_P u, R = R_P mount,
    Jp = Jp_P + d (Jw_P x R_P u) + (R_P u) e_d^T,
    ap = ap_P + d (aw_P x R_P u + omega_P x (omega_P x R_P u)) + 2 d_dot omega_P x R_P u.
    Fixed: R = R_P mount.
    """
    jt = bl.joint
    f = shifted(parent, jt.offset)
    mount = jt.mount
    if jt.kind == "fixed":
        return Frame(f.p, f.Jp, f.ap, f.R @ mount, f.Jw, f.aw, f.w)
    j = bl.joint_index
    axis = np.asarray(jt.axis)
    u = f.R @ axis
    if jt.kind == "revolute":
        Jw = f.Jw.copy()
        Jw[:, j] += u
        R = f.R @ rotation(axis, q[j]) @ mount
        return Frame(f.p, f.Jp, f.ap, R, Jw, f.aw + cross(f.w, u) * qd[j], f.w + u * qd[j])
    d, dd = q[j], qd[j]
    wu = cross(f.w, u)
    Jp = f.Jp + d * _cross_columns(f.Jw, u)
    Jp[:, j] += u
    ap = f.ap + d * (cross(f.aw, u) + cross(f.w, wu)) + 2.0 * dd * wu
    return Frame(f.p + d * u, Jp, ap, f.R @ mount, f.Jw, f.aw, f.w)


def points(frame, bl, x, Nv, Nw, q, qd):
    """Kinematics of material points of a link at abscissae x (npts,), shape values
    Nv, Nw (npts, n): r (npts, 3), J (npts, 3, nq), a (npts, 3) (module docstring)."""
    ei = bl.elastic_slice
    e, ed = q[ei], qd[ei]
    s = np.stack([x + 0 * (Nv @ e), Nv @ e, Nw @ e], -1)
    sd = np.stack([0 * x + 0 * (Nv @ ed), Nv @ ed, Nw @ ed], -1)
    Rs = s @ frame.R.T
    r = frame.p + Rs
    Jw = frame.Jw
    J = np.empty((x.size, 3, Jw.shape[1]), dtype=np.result_type(Rs, Jw))
    J[:, 0, :] = Jw[1][None, :] * Rs[:, 2:3] - Jw[2][None, :] * Rs[:, 1:2]
    J[:, 1, :] = Jw[2][None, :] * Rs[:, 0:1] - Jw[0][None, :] * Rs[:, 2:3]
    J[:, 2, :] = Jw[0][None, :] * Rs[:, 1:2] - Jw[1][None, :] * Rs[:, 0:1]
    J += frame.Jp[None]
    J[:, :, ei] += (frame.R[:, 1][None, :, None] * Nv[:, None, :]
                    + frame.R[:, 2][None, :, None] * Nw[:, None, :])
    w = frame.w
    a = (frame.ap + cross(frame.aw, Rs) + cross(w, cross(w, Rs))
         + 2.0 * cross(w, sd @ frame.R.T))
    return r, J, a


def tip_rotation(a, b, c):
    """(E, T): E = Rz(a) Ry(b) Rx(c) and the columns T = [e_z, Rz(a) e_y, Rz(a) Ry(b) e_x]
    that map (a_dot, b_dot, c_dot) to E's angular velocity (in the link frame)."""
    ca, sa, cb, sb, cc, sc = np.cos(a), np.sin(a), np.cos(b), np.sin(b), np.cos(c), np.sin(c)
    one, zero = 1.0 + 0 * ca, 0 * ca
    Rz = np.array([[ca, -sa, zero], [sa, ca, zero], [zero, zero, one]])
    Ry = np.array([[cb, zero, sb], [zero, one, zero], [-sb, zero, cb]])
    Rx = np.array([[one, zero, zero], [zero, cc, -sc], [zero, sc, cc]])
    T = np.array([[zero, -sa, ca * cb], [zero, ca, sa * cb], [one, zero, -sb]])
    return Rz @ Ry @ Rx, T


def station_frame(frame, bl, x, q, qd, values=None, point=None):
    """The frame of the deformed section at abscissa ``x`` of a link (its root frame
    ``frame``): position r(x); rotation R E(a, b, c) with a = v'(x), b = -w'(x),
    c = phi(x) (the module docstring's tip rotation, taken at x); angular velocity
    omega + R T theta_dot and its convective acceleration
    aw + omega x (R T theta_dot) + R (a_dot b_dot e_z x t2 + c_dot (a_dot e_z + b_dot t2) x t3).

    ``values``: the link basis' :meth:`~chrono_flex.spatial.elements.SpatialBasis.values`
    at x, if known; ``point``: the point kinematics (r, J, a) at x, each with a leading
    axis of 1, if already evaluated. At x = L this is the tip frame.
    """
    b = bl.basis
    Nv, dNv, _, Nw, dNw, _, Nphi, _ = b.values(np.array([float(x)])) if values is None \
        else values
    if point is None:          # (r, J, a) of the point, when not already evaluated
        point = points(frame, bl, np.array([float(x)]), Nv, Nw, q, qd)
    r, J, acc = point
    ei = bl.elastic_slice
    Jth = np.stack([dNv[0], -dNw[0], Nphi[0]])           # (3, n) rows of theta = (a, b, c)
    th, thd = Jth @ q[ei], Jth @ qd[ei]
    E, T = tip_rotation(*th)
    RT = frame.R @ T
    Jw = frame.Jw.copy()
    Jw[:, ei] += RT @ Jth
    wrel = RT @ thd
    ez = np.array([0.0, 0.0, 1.0])
    t2, t3 = T[:, 1], T[:, 2]
    rate = thd[0] * thd[1] * cross(ez, t2) + thd[2] * cross(thd[0] * ez + thd[1] * t2, t3)
    aw = frame.aw + cross(frame.w, wrel) + frame.R @ rate
    return Frame(r[0], J[0], acc[0], frame.R @ E, Jw, aw, frame.w + wrel)


def tip_frame(frame, bl, q, qd, tip=None):
    """The frame at the deformed tip of a link: :func:`station_frame` at x = L (``tip``:
    the tip point's kinematics (r, J, a), each with a leading axis of 1, if already
    evaluated)."""
    b = bl.basis
    return station_frame(frame, bl, b.length, q, qd, b.tip_values, tip)


def attachment_frame(root, bl, q, qd):
    """Where children of a body hang: a link's tip frame, a rigid body's own frame."""
    return tip_frame(root, bl, q, qd) if bl.is_link else root


def tree_frames(layout, q, qd=None):
    """Root frames and attachment frames of all bodies (lists of Frame)."""
    q = np.asarray(q)
    qd = np.zeros(layout.nq) if qd is None else np.asarray(qd)
    base = base_frame(layout.nq, np.result_type(q, qd, float))
    roots, attach = [], []
    for bl in layout.bodies:
        parent = base if bl.parent < 0 else attach[bl.parent]
        f = child_frame(parent, bl, q, qd)
        roots.append(f)
        attach.append(attachment_frame(f, bl, q, qd))
    return roots, attach


def frame_dependencies(layout):
    """Which q indices each body's root frame and attachment frame depend on.

    Root: the parent's attachment set plus the own joint coordinate; attachment: the
    root's set plus the tip node's dofs (links). These are the index maps of the extended
    assembly (docs/spatial-link.md §3).
    """
    roots, attach = [], []
    for bl in layout.bodies:
        s = set() if bl.parent < 0 else set(attach[bl.parent])
        if bl.joint_index is not None:
            s = s | {bl.joint_index}
        roots.append(s)
        if bl.is_link:
            s = s | {int(bl.elastic_index[d]) for d in bl.basis.tip_dofs}
        attach.append(s)
    return roots, attach


__all__ = ["BodyLayout", "Frame", "Layout", "attachment_frame", "base_frame", "child_frame",
           "frame_dependencies", "points", "shifted", "station_frame", "tip_frame",
           "tip_rotation", "tree_frames"]
