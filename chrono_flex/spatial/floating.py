"""A spatial arm carried by a moving rigid body (pure numpy; docs/spatial-link.md §6).

The tree of :mod:`chrono_flex.spatial.equations` hangs on a base frame. Carried by a
rigid body B (position p_B, rotation A_B, velocity v_B in the world, angular velocity
omega_B in B's own axes: the velocity coordinates Chrono gives a body), the base sits
at the origin o and turned by the rotation P, both in B's frame:

    p_base = p_B + A_B o,   R_base = A_B P,
    v_base = v_B - A_B [o]x omega_B,   omega_base = A_B omega_B,

so, with the body's six velocities appended to the arm's rates as extra columns, the
base frame's Jacobians are constant blocks and its convective accelerations

    a_p = A_B (omega_B x (omega_B x o)),   a_w = 0

(d/dt(A_B) omega_B = A_B (omega_B x omega_B) = 0). Every frame and point of the tree
then carries the body's columns through the same kinematics, and Kane's equations over
the quadrature points give the terms over w = [v_B, omega_B, q_dot] in one pass
(:func:`body_terms`). With the body at rest and at the origin they reduce to
:func:`chrono_flex.spatial.equations.forcing` with the base's axes.

A Chrono body welded to a station of a link (docs/chrono.md §12) pulls on the section
frame at that abscissa (:func:`station`, lifted onto the body like the base frame):
:func:`attachment_terms` gives the bushing's generalized forces and
:func:`attachment_jacobians` its stiffness and damping matrices.

Scope: the optional geometric stiffening takes its axial load from the motion of the
arm relative to the base and from gravity in the base's axes; the body's own
acceleration does not enter it (as in the planar arm on a body,
:mod:`chrono_flex.planar.floating`).
"""

import numpy as np

from ..planar.floating import BUSHING_RATIO, bushing_stiffness, bushing_wrench, rotation_angle
from . import equations as mdl
from . import kinematics as kin

#: Number of velocity coordinates of the carrying body (v_B, omega_B).
N_BODY = 6


def skew(v):
    """[v]x, the cross-product matrix: skew(v) @ u = v x u."""
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def fixed_base(nq, origin, rotation):
    """The base frame at rest at ``origin`` turned by ``rotation`` (world axes)."""
    z3, z = np.zeros(3), np.zeros((3, nq))
    return kin.Frame(np.asarray(origin, dtype=float), z, z3.copy(),
                     np.asarray(rotation, dtype=float), z.copy(), z3.copy(), z3.copy())


def body_base(nq, body_pos, body_rot, body_omega_local, origin, mount):
    """The base frame on a moving body, nq + 6 columns wide: the arm's nq rates, then
    v_B (world) and omega_B (body axes) (module docstring)."""
    A = np.asarray(body_rot, dtype=float)
    o = np.asarray(origin, dtype=float)
    om = np.asarray(body_omega_local, dtype=float)
    Jp = np.zeros((3, nq + N_BODY))
    Jp[:, nq:nq + 3] = np.eye(3)
    Jp[:, nq + 3:] = -A @ skew(o)
    Jw = np.zeros((3, nq + N_BODY))
    Jw[:, nq + 3:] = A
    ap = A @ np.cross(om, np.cross(om, o))
    return kin.Frame(np.asarray(body_pos, dtype=float) + A @ o, Jp, ap, A @ np.asarray(mount),
                     Jw, np.zeros(3), A @ om)


def _arm_forces(model, q, qd, gravity_base, Q):
    """Q - K q - D q_d [- K_geo e] on the arm's own coordinates."""
    f = (np.zeros(model.nq) if Q is None else np.asarray(Q, dtype=float)) \
        - model.K @ q - model.D @ qd
    if model.geometric_stiffening:
        f = f + mdl.geometric_stiffness_force(model, q, qd, gravity_base)
    return f


def fixed_terms(model, q, qd, gravity_base, Q=None):
    """(M, f) of the arm on a fixed base, gravity given in the base's axes: exactly
    :func:`chrono_flex.spatial.equations.forcing` with that gravity."""
    M, h, Qg = mdl.terms(model, q, qd, gravity=gravity_base)
    return M, Qg - h + _arm_forces(model, q, qd, gravity_base, Q)


def body_terms(model, q, qd, body_pos, body_rot, body_vel, body_omega_local, origin, mount,
               gravity, Q=None):
    """(M, f) over w = [v_B, omega_B, q_dot] of the arm carried by a moving body:

        M = sum rho_A J^T J + ... (the terms of :func:`chrono_flex.spatial.equations.terms`
        with the body's columns), f = Q_g - h + [0; Q - K q - D q_d]

    with J = dr/dw; rows 0-2 are forces on the body in the world, rows 3-5 moments on it
    in its own axes (the rows Chrono's body variables take)."""
    nq = model.nq
    base = body_base(nq, body_pos, body_rot, body_omega_local, origin, mount)
    q_ext = np.concatenate([q, np.zeros(N_BODY)])
    qd_ext = np.concatenate([qd, body_vel, body_omega_local])
    M, h, Qg = mdl.terms(model, q_ext, qd_ext, base=base, gravity=gravity)
    f = Qg - h
    f[:nq] += _arm_forces(model, q, qd, base.R.T @ np.asarray(gravity, dtype=float), Q)
    order = np.r_[nq:nq + N_BODY, 0:nq]
    return M[np.ix_(order, order)], f[order]


def world_tip_frames(model, q, base):
    """Attachment (tip) frames of every body in the world, the tree on ``base`` (a fixed
    frame: only its p and R are used)."""
    _, attach = kin.tree_frames(model.layout, q, None)
    return [(base.p + base.R @ f.p, base.R @ f.R) for f in attach]


def world_centerlines(model, q, base, n_samples=21, rigid=False):
    """Centreline points of each link in the world (n_links, ns, 3), the tree on ``base``."""
    pts, _ = mdl.centerlines(model, q, n_samples, rigid=rigid)
    return base.p + pts @ base.R.T


# -- a body welded to a link at a station (the Chrono element's attachments) -----------

def station(model, q, qd, link, s, shapes=None):
    """The section frame at abscissa ``s`` of link number ``link`` (its place among
    ``model.links``), the tree on the fixed base at the origin (a :class:`Frame`):

        r(s) = p + R [s, v(s), w(s)]^T,       R_s = R Rz(v'(s)) Ry(-w'(s)) Rx(phi(s)),

    with its Jacobians dr/dt = Jp q_dot and omega = Jw q_dot
    (:func:`chrono_flex.spatial.kinematics.station_frame`, docs/spatial-link.md §1: the
    tip frame's rotation taken at s). Only the link's ancestors are built.
    ``shapes``: the basis' values at s (:meth:`SpatialBasis.values`), if known.
    """
    q = np.asarray(q, dtype=float)
    qd = np.asarray(qd, dtype=float)
    i = model.links[link]
    bodies = model.layout.bodies
    path = [i]
    while bodies[path[-1]].parent >= 0:
        path.append(bodies[path[-1]].parent)
    frame = kin.base_frame(model.nq)
    for j in reversed(path[1:]):
        frame = kin.attachment_frame(kin.child_frame(frame, bodies[j], q, qd), bodies[j], q, qd)
    root = kin.child_frame(frame, bodies[i], q, qd)
    return kin.station_frame(root, bodies[i], s, q, qd, shapes)


def station_shapes(model, link, s):
    """The basis values at abscissa s of link number ``link`` (for :func:`station`)."""
    return model.bases[model.links[link]].values(np.array([float(s)]))


def _lift(frame, placement):
    """(s_L, R_L, A_L, P Jp, P Jw) of a station frame of the tree moved onto its
    placement (p_B, A_B, v_B, omega_B local, o, P): s_L = o + P p in the body frame,
    R_L = p_B + A_B s_L, A_L = A_B P R."""
    pB, AB, _, _, o, P = placement
    sL = o + P @ frame.p
    return sL, pB + AB @ sL, AB @ P @ frame.R, P @ frame.Jp, P @ frame.Jw


def _placement(placement):
    return tuple(np.asarray(v, dtype=float) for v in placement)


def station_motion(model, q, qd, link, s, placement, kinematics=None):
    """World position R_L, rotation A_L, velocity v_L and angular velocity omega_L of
    the station frame at abscissa s of link number ``link``:

        v_L = v_B + A_B (omega_B x s_L + P Jp q_dot),   omega_L = A_B (omega_B + P Jw q_dot)

    (``placement`` as in :func:`attachment_terms`; :func:`body_base`'s lift written
    out); ``kinematics``: :func:`station`'s frame, if known."""
    placement = _placement(placement)
    qd = np.asarray(qd, dtype=float)
    f = station(model, q, qd, link, s) if kinematics is None else kinematics
    sL, RL, AL, PJ, PJw = _lift(f, placement)
    _, AB, vB, wB, _, _ = placement
    return RL, AL, vB + AB @ (np.cross(wB, sL) + PJ @ qd), AB @ (wB + PJw @ qd)


def attachment_terms(model, q, qd, link, s, placement, body, offset, frame_rot, gains,
                     shapes=None, kinematics=None):
    """Generalized forces of a bushing between a link's station and a body, in space.

    The spatial counterpart of :func:`chrono_flex.planar.floating.attachment_terms`
    (docs/chrono.md §8, §12), with the same arguments and results; ``link`` is the
    link's place among ``model.links``, ``placement`` = (p_B, A_B, v_B, omega_B local,
    o, P) the arm's base on its parent (P: the base rotation 3 x 3 in the parent's
    frame; for the ground p_B = 0, A_B = I, v_B = omega_B = 0 and o, P in the world).
    The station frame of :func:`station` moves as in :func:`station_motion`, the body's
    point as x_b + A_b d with axes A_b F. The wrench (F, M) of
    :func:`~chrono_flex.planar.floating.bushing_wrench` acts on the body, (-F, -M) on the
    station, and virtual power gives, with f = -A_B^T F and m = -A_B^T M in the parent's
    frame,

        Q_body   = [F, A_b^T M + d x A_b^T F],
        Q_q      = Jp^T P^T f + Jw^T P^T m,
        Q_parent = [-F, s_L x f + m]

    (Chrono's velocity layout [v world, omega local]). Unlike the planar link, every
    component bends or twists the link: the force along y and z of the section and the
    three moments (bending about y and z, torsion about x).

    Returns:
        dict with Q_parent (6,), Q_q (nq,), Q_body (6,), gap (3,), rot_rel (3, 3), force,
        moment (3,) each (world, on the body), energy, power, gap_rate, omega_rel.
    """
    placement = _placement(placement)
    _, AB, vB, wB, _, P = placement
    xb, Ab, vb, wb = (np.asarray(v, dtype=float) for v in body)
    d = np.asarray(offset, dtype=float)
    qd = np.asarray(qd, dtype=float)
    f = station(model, q, qd, link, s, shapes) if kinematics is None else kinematics
    sL, RL, AL, PJ, PJw = _lift(f, placement)
    vL = vB + AB @ (np.cross(wB, sL) + PJ @ qd)
    wL = AB @ (wB + PJw @ qd)
    Rb = xb + Ab @ d
    vbp = vb + Ab @ np.cross(wb, d)
    rot_rel = Ab @ np.asarray(frame_rot, dtype=float) @ AL.T
    gap_rate, omega_rel = vbp - vL, Ab @ wb - wL
    F, M, V, Pw = bushing_wrench(Rb - RL, rot_rel, gap_rate, omega_rel, *gains)
    fB, mB = -AB.T @ F, -AB.T @ M
    return dict(Q_parent=np.concatenate([-F, np.cross(sL, fB) + mB]),
                Q_q=PJ.T @ fB + PJw.T @ mB,
                Q_body=np.concatenate([F, Ab.T @ M + np.cross(d, Ab.T @ F)]),
                gap=Rb - RL, rot_rel=rot_rel, force=F, moment=M, energy=V, power=Pw,
                gap_rate=gap_rate, omega_rel=omega_rel)


def attachment_jacobians(model, q, link, s, placement, body, offset, gains, kinematics=None):
    """The weld's stiffness and damping matrices over (parent, q, body) velocities.

    As :func:`chrono_flex.planar.floating.attachment_jacobians`: the gap and the relative
    rotation move, to first order, as [de; dtheta] = G dw with

        G_parent = [[-I, A_B S(s_L)], [0, -A_B]],     G_q = [[-A_B P Jp], [-A_B P Jw]],
        G_body   = [[ I, -A_b S(d)],  [0,  A_b]],

    and K = G^T diag(k_p I, k_r I) G, R = G^T diag(c_p I, c_r I) G; the geometric terms
    (dG/dx times the transmitted wrench, about the gap over the lever) are left out.

    Returns:
        (K, R) as dicts of blocks {("parent"|"q"|"body", same): matrix}.
    """
    placement = _placement(placement)
    _, AB, _, _, _, _ = placement
    Ab = np.asarray(body[1], dtype=float)
    d = np.asarray(offset, dtype=float)
    k_p, k_r, c_p, c_r = gains
    f = station(model, q, np.zeros(model.nq), link, s) if kinematics is None else kinematics
    sL, _, _, PJ, PJw = _lift(f, placement)
    z = np.zeros((3, 3))
    G = {"parent": np.block([[-np.eye(3), AB @ skew(sL)], [z, -AB]]),
         "q": np.vstack([-AB @ PJ, -AB @ PJw]),
         "body": np.block([[np.eye(3), -Ab @ skew(d)], [z, Ab]])}
    kw = np.array([k_p] * 3 + [k_r] * 3)
    cw = np.array([c_p] * 3 + [c_r] * 3)
    K = {(a, b): G[a].T @ (kw[:, None] * G[b]) for a in G for b in G}
    R = {(a, b): G[a].T @ (cw[:, None] * G[b]) for a in G for b in G}
    return K, R


def link_bushing_stiffness(link, ratio=BUSHING_RATIO):
    """(k_p, k_r) of a weld on a :class:`~chrono_flex.spatial.params.SpatialLink`: the
    planar rule :func:`~chrono_flex.planar.floating.bushing_stiffness` (docs/chrono.md
    eq. (8.4)) with the stiffer bending plane, EI = max(EI_y, EI_z), of the stiffest
    element (largest mean EI) and the shortest element length."""
    nodes = np.asarray(link.nodes, dtype=float)
    EI = max(max(link.element_average("EI_y", a, b), link.element_average("EI_z", a, b))
             for a, b in zip(nodes[:-1], nodes[1:]))
    return bushing_stiffness(EI, float(np.min(np.diff(nodes))), ratio)


__all__ = ["BUSHING_RATIO", "N_BODY", "attachment_jacobians", "attachment_terms", "body_base",
           "body_terms", "fixed_base", "fixed_terms",
           "link_bushing_stiffness", "rotation_angle", "skew", "station", "station_motion",
           "station_shapes", "world_centerlines", "world_tip_frames"]
