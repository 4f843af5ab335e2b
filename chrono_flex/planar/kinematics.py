"""Kinematics of a planar serial chain of flexible links (docs/planar-link.md §1).

A material point at abscissa x of link i:

    r_i(x) = p_i + R(psi_i) [x, w_i(x)]^T,   w_i = N_i(x) e_i,   R(a) = [[c, -s], [s, c]]

For every point the functions here return the position r, the velocity Jacobian
J = dr/dq (so that dr/dt = J q_dot) and the convective acceleration a = J_dot q_dot
(the part of d2r/dt2 that does not contain q_ddot):

    J = J_p + (R S s) J_psi + R [0, N] E_i,              S = [[0, -1], [1, 0]]
    a = a_p + a_psi (R S s) - psi_dot^2 R s - 2 psi_dot (N e_dot) R e_x

Frames chain tip to root ([B] Fig. 1b, [K] Fig. 1): a revolute joint puts link i+1's
root at the deformed tip of link i, turned by the tip slope plus the joint angle; a
prismatic joint slides it along an axis fixed in that tip frame by d
(docs/planar-link.md eqs. (1.5)-(1.6)). The functions are dtype-generic, so complex-step
differentiation runs through them.
"""

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LinkLayout:
    """Where one link's coordinates live in q, and how it hangs on its parent.

    joint: a params.RevoluteJoint or PrismaticJoint; basis: its shapes.ShapeBasis;
    joint_index: index of the joint coordinate in q; elastic_index: indices of e_i in q.
    """

    joint: object
    basis: object
    joint_index: int
    elastic_index: np.ndarray

    @property
    def elastic_slice(self):
        """The elastic coordinates are contiguous in q: the same as a slice (faster)."""
        return slice(int(self.elastic_index[0]), int(self.elastic_index[-1]) + 1)


@dataclass(frozen=True)
class Layout:
    """The coordinate layout of a chain: q = [joint_1, e_1, joint_2, e_2, ...]."""

    links: tuple
    nq: int

    @classmethod
    def build(cls, joints, bases):
        links, k = [], 0
        for joint, basis in zip(joints, bases):
            links.append(LinkLayout(joint, basis, k, np.arange(k + 1, k + 1 + basis.n)))
            k += 1 + basis.n
        return cls(tuple(links), k)

    @property
    def joint_indices(self):
        return np.array([lk.joint_index for lk in self.links])

    @property
    def elastic_indices(self):
        return np.concatenate([lk.elastic_index for lk in self.links])


@dataclass
class Frame:
    """Floating frame of a link root, or a tip frame: position p, angle psi, their
    Jacobians Jp (2, nq), Jpsi (nq,), convective accelerations ap (2,), apsi, and rates."""

    p: np.ndarray
    Jp: np.ndarray
    ap: np.ndarray
    psi: object
    Jpsi: np.ndarray
    apsi: object
    psid: object


def _skew(v):
    """S v for S = [[0, -1], [1, 0]] (a quarter turn), along the last axis of v."""
    out = np.empty_like(v)
    out[..., 0] = -v[..., 1]
    out[..., 1] = v[..., 0]
    return out


def points(frame, layout_link, x, shapes, q, qd):
    """Kinematics of material points of one link.

    Args:
        frame: the link's root Frame.
        layout_link: its LinkLayout.
        x: abscissae (npts,).
        shapes: (N, dN) at x, each (npts, n).
        q, qd: generalized coordinates and rates (nq,).
    Returns:
        r (npts, 2), J (npts, 2, nq), a (npts, 2), slope angle phi (npts,),
        Jphi (npts, nq), aphi (npts,) where phi = psi + w'(x) is the angle of the
        tangent (used for tip frames and payload rotation).
    """
    N, dN = shapes
    ei = layout_link.elastic_slice
    e, ed = q[ei], qd[ei]
    w = N @ e
    wd = N @ ed
    c, sn = np.cos(frame.psi), np.sin(frame.psi)
    n = w.shape[0]
    Rs = np.empty((n, 2), dtype=w.dtype)
    Rs[:, 0] = c * x - sn * w
    Rs[:, 1] = sn * x + c * w
    RSs = _skew(Rs)
    r = frame.p + Rs
    J = frame.Jp[None, :, :] + RSs[:, :, None] * frame.Jpsi[None, None, :]
    J[:, 0, ei] -= sn * N                          # R e_y = (-sin, cos)
    J[:, 1, ei] += c * N
    a = frame.ap + frame.apsi * RSs - frame.psid**2 * Rs
    a[:, 0] -= 2.0 * frame.psid * c * wd           # R e_x = (cos, sin)
    a[:, 1] -= 2.0 * frame.psid * sn * wd
    phi = frame.psi + dN @ e
    Jphi = np.repeat(frame.Jpsi[None, :], n, axis=0)
    Jphi[:, ei] += dN
    aphi = np.full(n, frame.apsi)
    return r, J, a, phi, Jphi, aphi


def base_frame(nq, dtype=float):
    """The fixed base: origin, angle 0."""
    dtype = np.dtype(dtype)
    zero = dtype.type(0)
    return Frame(np.zeros(2, dtype), np.zeros((2, nq), dtype), np.zeros(2, dtype), zero,
                 np.zeros(nq, dtype), zero, zero)


def child_frame(parent, layout_link, q, qd):
    """Root frame of a link from its parent's tip frame (angle = tangent at the tip).

    Revolute: p = P, psi = phi + theta + offset.
    Prismatic: u = R(phi + beta) e_x, p = P + d u, psi = phi + beta + alpha;
      Jp = JP + u e_d^T + d (S u) Jphi, ap = aP + 2 d_dot phi_dot S u + d (aphi S u - phi_dot^2 u).
    """
    j = layout_link.joint_index
    jt = layout_link.joint
    if jt.kind == "revolute":
        Jpsi = parent.Jpsi.copy()
        Jpsi[j] += 1.0
        return Frame(parent.p, parent.Jp, parent.ap, parent.psi + q[j] + jt.angle_offset,
                     Jpsi, parent.apsi, Jpsi @ qd)
    ang = parent.psi + jt.axis_angle
    u = np.stack([np.cos(ang), np.sin(ang)])
    Su = _skew(u)
    d, dd = q[j], qd[j]
    p = parent.p + d * u
    Jp = parent.Jp + d * Su[:, None] * parent.Jpsi[None, :]
    Jp[:, j] += u
    ap = parent.ap + 2.0 * dd * parent.psid * Su + d * (parent.apsi * Su - parent.psid**2 * u)
    return Frame(p, Jp, ap, ang + jt.link_angle, parent.Jpsi, parent.apsi, parent.psid)


def tip_frame(frame, layout_link, q, qd):
    """The frame at the deformed tip of a link: position r(L), angle psi + w'(L)."""
    b = layout_link.basis
    N, dN, _ = b.tip_values
    r, J, a, phi, Jphi, aphi = points(frame, layout_link, np.array([b.length]), (N, dN), q, qd)
    return Frame(r[0], J[0], a[0], phi[0], Jphi[0], aphi[0], Jphi[0] @ qd)


def chain_frames(layout, q, qd=None):
    """Root frames of all links and the tip frame of each (lists of Frame)."""
    q = np.asarray(q)
    qd = np.zeros(layout.nq) if qd is None else np.asarray(qd)
    dtype = np.result_type(q, qd, float)
    parent = base_frame(layout.nq, dtype)
    roots, tips = [], []
    for lk in layout.links:
        f = child_frame(parent, lk, q, qd)
        roots.append(f)
        parent = tip_frame(f, lk, q, qd)
        tips.append(parent)
    return roots, tips


def frame_dependencies(layout):
    """Which q indices each link's root frame and tip depend on (structural sets).

    Root of link i: everything its parent's tip depends on plus its own joint;
    tip of link i: its root's set plus the elastic dofs that move the tip. These are the
    index maps of [B]'s extended assembly (docs/planar-link.md §3).
    """
    roots, tips, parent = [], [], set()
    for lk in layout.links:
        root = parent | {lk.joint_index}
        roots.append(root)
        parent = root | {int(lk.elastic_index[d]) for d in lk.basis.tip_dofs}
        tips.append(parent)
    return roots, tips
