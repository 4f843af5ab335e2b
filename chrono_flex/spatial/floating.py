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

Scope: the optional geometric stiffening takes its axial load from the motion of the
arm relative to the base and from gravity in the base's axes; the body's own
acceleration does not enter it (as in the planar arm on a body,
:mod:`chrono_flex.planar.floating`).
"""

import numpy as np

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


def gravity_potential(model, q, base, gravity):
    """V_g = - sum rho_A g . r - sum m g . r_item with r in the world (tree on ``base``)."""
    g = np.asarray(gravity, dtype=float)
    ev = mdl.evaluate(model, q, np.zeros(model.nq))
    V = 0.0
    for i in model.links:
        V -= np.sum(model.quad[i].w_rho_A * ((base.p + ev.r[i] @ base.R.T) @ g))
    for it in model.items:
        if it.kind == "mass":
            f = ev.roots[it.body] if it.where == "root" else ev.attach[it.body]
            V -= it.value * ((base.p + base.R @ f.p) @ g)
    return float(V)


__all__ = ["N_BODY", "body_base", "body_terms", "fixed_base", "fixed_terms",
           "gravity_potential", "skew", "world_centerlines", "world_tip_frames"]
