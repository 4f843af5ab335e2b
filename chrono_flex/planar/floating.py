"""The planar flexible arm carried by a moving rigid body, in 3D (pure numpy).

A planar arm (docs/planar-link.md) sits in a plane fixed to a parent body B. A material
point at planar position rho(q) (from :func:`chrono_flex.planar.equations.evaluate`, the same
kinematics as the reference engine) is, in the world,

    R = p_B + A_B s,        s = o + P rho(q)                         (body frame: s)

with p_B, A_B the body's position and rotation, o the plane origin and P = [x_axis,
y_axis] (3x2) the plane axes, both in the body frame. The velocity vector is the one
Chrono uses for a body followed by the arm's coordinates,

    w = [v_B (3, absolute, world frame), omega_B (3, LOCAL, body frame), q_dot (nq)],

and in the body frame the point's velocity is  A_B^T R_dot = A_B^T v_B - s~ omega_B
+ P J q_dot  (s~: the cross-product matrix, J = d rho/dq), so its partial velocities are

    G = [A_B^T, -s~, P J]      (rows in the body frame; |A_B G w| = |G w|).

Its acceleration is  A_B (G w_dot + c),  c = omega x (omega x s) + 2 omega x (P J q_dot)
+ P a,  with a = J_dot q_dot of the planar kinematics. Kane's equations (virtual power)
over the quadrature points, with weights rho A w_k, and the lumped point masses give

    M_full w_dot = f_full,
    M_full = sum m G^T G (+ rotary items),
    f_full = sum m G^T (A_B^T g - c) (+ rotary items) + [0; 0; Q - K q - D q_dot (- K_geo e)].

The v rows are rotated back to the world frame (A_B G_v^T = I). With the body at rest
the q rows are exactly those of :func:`chrono_flex.planar.equations.terms` and
:func:`chrono_flex.planar.equations.forcing`.

Scope (what the model is not):

* The link is rigid out of its plane: out-of-plane bending and torsion are not modelled
  (the paper's model is planar); out-of-plane motion of the parent only moves the plane.
* Sections are point masses on the centreline (no section rotary inertia), as in
  docs/planar-link.md §2.
* Rotary items (hub inertia, payload inertia J_t) have inertia about the plane normal n
  only, J n n^T: their angular velocity about n is u = n . omega_B + phi_dot, and the
  gyroscopic moment J u (omega_B x n) is kept (Euler's equations for that tensor).
* The optional geometric stiffening of the reference (:func:`model.geometric_stiffness_force`)
  is computed from the in-plane motion relative to the parent and the arm model's own
  gravity setting; the parent's acceleration does not enter the axial load.
"""

import numpy as np

from . import equations as mdl

#: Index blocks of the velocity vector w = [v_B, omega_B, q_dot].
V_BLOCK = slice(0, 3)
W_BLOCK = slice(3, 6)
N_BODY = 6


def _skew(v):
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def plane_normal(plane_axes_local):
    """Unit normal n = x_axis x y_axis of the plane (body frame)."""
    P = np.asarray(plane_axes_local, dtype=float)
    return np.cross(P[:, 0], P[:, 1])


def _mass_points(model, ev):
    """Planar r (N,2), J (N,2,nq), a (N,2) and masses (N,) of all material points and
    lumped point masses, in the order of :func:`chrono_flex.planar.equations.terms`."""
    rs, Js, as_, ms = [], [], [], []
    for lk, qu, r, J, a in zip(model.links, model.quad, ev.r, ev.J, ev.a):
        rs.append(r)
        Js.append(J)
        as_.append(a)
        ms.append(lk.rho_A * qu.w)
    for it in model.items:
        if it.kind == "mass":
            Jr, ar, p = mdl._item_kinematics(model, ev, it)
            rs.append(p[None, :])
            Js.append(Jr[None])
            as_.append(ar[None, :])
            ms.append(np.array([it.value]))
    return (np.concatenate(rs), np.concatenate(Js), np.concatenate(as_),
            np.concatenate(ms))


def _plane_block(model, ev, g_p):
    """(M, h, Q_g, rotary items) of the arm's own rows, term by term as
    :func:`chrono_flex.planar.equations.terms`, with the in-plane gravity ``g_p`` (2,)."""
    nq = model.nq
    M = np.zeros((nq, nq))
    h = np.zeros(nq)
    Qg = np.zeros(nq)
    for lk, qu, J, a in zip(model.links, model.quad, ev.J, ev.a):
        wJ = ((lk.rho_A * qu.w)[:, None, None] * J).reshape(-1, nq)
        M += wJ.T @ J.reshape(-1, nq)
        h += wJ.T @ a.ravel()
        Qg += wJ.T @ np.tile(g_p, J.shape[0])
    rotary = []
    for it in model.items:
        Jr, ar, _ = mdl._item_kinematics(model, ev, it)
        M += it.value * Jr.T @ Jr
        h += it.value * Jr.T @ ar
        if it.kind == "mass":
            Qg += it.value * Jr.T @ g_p
        else:
            rotary.append((it.value, Jr[0], ar[0]))
    return M, h, Qg, rotary


def _elastic_and_applied(model, q, qd, Q):
    """-K q - D q_d [- K_geo e] + Q on the arm's rows."""
    f = -(model.K @ q) - model.D @ qd
    if model.geometric_stiffening:
        f = f + mdl.geometric_stiffness_force(model, q, qd)
    if Q is not None:
        f = f + np.asarray(Q, dtype=float)
    return f


def plane_terms(model, q, qd, gravity_plane, Q=None):
    """(M, f) of the arm on a parent at rest: M q_dd = f, gravity ``gravity_plane`` (2,)
    in the arm plane. With ``gravity_plane = model.g_vec`` this is
    :func:`chrono_flex.planar.equations.forcing`; it is the q-block of :func:`spatial_terms` for a
    body at rest (the cheap path of the Chrono element on the ground), evaluated from the
    inertia invariants (:func:`chrono_flex.planar.equations.chain_terms`)."""
    q = np.asarray(q, dtype=float)
    qd = np.asarray(qd, dtype=float)
    M, r = mdl.chain_terms(model, q, qd, np.asarray(gravity_plane, dtype=float))
    Q = np.zeros(model.nq) if Q is None else np.asarray(Q, dtype=float)
    return M, Q - r - model.K @ q - model.D @ qd


def spatial_terms(model, q, qd, body_pos, body_rot, body_vel, body_omega_local,
                  plane_origin_local, plane_axes_local, gravity_world, Q=None):
    """(M_full, f_full) of the arm on a moving body: M_full w_dot = f_full (module doc).

    Args:
        model: a :class:`chrono_flex.planar.equations.ArmModel` (``PlanarArm.model``).
        q, qd: the arm's coordinates and rates (nq,).
        body_pos: p_B (3,), world. Enters nothing but is accepted for symmetry with
            :func:`spatial_points` (the terms do not depend on where the body is).
        body_rot: A_B (3, 3), body-to-world rotation.
        body_vel: v_B (3,), world. Like ``body_pos`` it does not enter the terms.
        body_omega_local: omega_B (3,) in the body frame (Chrono's convention).
        plane_origin_local: o (3,), the arm plane's origin in the body frame.
        plane_axes_local: P (3, 2), the plane's X and Y unit axes in the body frame.
        gravity_world: g (3,), world.
        Q: generalized forces on q (joint torques/forces), default zero.

    Returns:
        M_full (6+nq, 6+nq), the arm's part of the mass matrix (the body's own mass and
        inertia are not in it): symmetric, positive semi-definite with one null
        direction, the body turning about the first joint's axis while that joint turns
        back (or sliding along a prismatic first joint's axis while it slides back); and
        f_full (6+nq,): inertial (centrifugal, Coriolis, gyroscopic), gravity, elastic
        -K q, damping -D q_dot, optional geometric stiffening and Q.
    """
    q = np.asarray(q, dtype=float)
    qd = np.asarray(qd, dtype=float)
    A = np.asarray(body_rot, dtype=float)
    w = np.asarray(body_omega_local, dtype=float)
    o = np.asarray(plane_origin_local, dtype=float)
    P = np.asarray(plane_axes_local, dtype=float)
    g_b = A.T @ np.asarray(gravity_world, dtype=float)
    g_p = P.T @ g_b
    nq = model.nq
    ev = mdl.evaluate(model, q, qd)

    Mqq, h, Qg, rotary = _plane_block(model, ev, g_p)

    # the body's blocks and the couplings
    r, J, a, m = _mass_points(model, ev)
    s = o + r @ P.T                                    # (N, 3) body frame
    PJ = np.einsum("ai,nik->nak", P, J)                # (N, 3, nq)
    vrel = (J @ qd) @ P.T                              # (N, 3)
    c_rot = np.cross(w, np.cross(w, s)) + 2.0 * np.cross(w, vrel)
    acc = c_rot + a @ P.T                              # convective acceleration, body frame
    mtot = m.sum()
    ms = m @ s
    n = plane_normal(P)

    M = np.zeros((N_BODY + nq, N_BODY + nq))
    f = np.zeros(N_BODY + nq)
    M[V_BLOCK, V_BLOCK] = mtot * np.eye(3)
    M[V_BLOCK, W_BLOCK] = -A @ _skew(ms)
    M[V_BLOCK, N_BODY:] = A @ np.einsum("n,nak->ak", m, PJ)
    M[W_BLOCK, W_BLOCK] = (np.einsum("n,n", m, np.einsum("na,na->n", s, s)) * np.eye(3)
                           - np.einsum("n,na,nb->ab", m, s, s))
    M[W_BLOCK, N_BODY:] = np.einsum("n,nka->ak", m, np.cross(s[:, None, :],
                                                          PJ.transpose(0, 2, 1)))
    M[N_BODY:, N_BODY:] = Mqq
    f[V_BLOCK] = mtot * np.asarray(gravity_world, dtype=float) - A @ (m @ acc)
    f[W_BLOCK] = m @ np.cross(s, g_b - acc)
    fq = Qg - h - np.einsum("n,nak,na->k", m, PJ, c_rot)
    for J_r, Jrow, arot in rotary:
        u = n @ w + Jrow @ qd
        M[W_BLOCK, W_BLOCK] += J_r * np.outer(n, n)
        M[W_BLOCK, N_BODY:] += J_r * np.outer(n, Jrow)
        f[W_BLOCK] -= J_r * (n * arot + u * np.cross(w, n))
    M[N_BODY:, V_BLOCK] = M[V_BLOCK, N_BODY:].T
    M[N_BODY:, W_BLOCK] = M[W_BLOCK, N_BODY:].T
    M[W_BLOCK, V_BLOCK] = M[V_BLOCK, W_BLOCK].T

    f[N_BODY:] = fq + _elastic_and_applied(model, q, qd, Q)
    return M, f


def spatial_points(model, q, body_pos, body_rot, plane_origin_local, plane_axes_local):
    """World positions (N, 3) and masses (N,) of the arm's mass points (quadrature points
    of every link, then the lumped point masses), as used by :func:`spatial_terms`."""
    q = np.asarray(q, dtype=float)
    ev = mdl.evaluate(model, q, np.zeros(model.nq))
    r, _, _, m = _mass_points(model, ev)
    A = np.asarray(body_rot, dtype=float)
    P = np.asarray(plane_axes_local, dtype=float)
    s = np.asarray(plane_origin_local, dtype=float) + r @ P.T
    return np.asarray(body_pos, dtype=float) + s @ A.T, m


def plane_pose(planar_position, planar_angle, body_pos, body_rot, plane_origin_local,
               plane_axes_local):
    """World position (3,) and rotation (3, 3) of a planar frame (position, angle).

    The frame's X axis is the planar direction at ``planar_angle`` from the plane's X
    axis, its Z axis the plane normal.
    """
    A = np.asarray(body_rot, dtype=float)
    P = np.asarray(plane_axes_local, dtype=float)
    c, s = np.cos(planar_angle), np.sin(planar_angle)
    ex = P @ np.array([c, s])
    ey = P @ np.array([-s, c])
    R_local = np.column_stack([ex, ey, np.cross(ex, ey)])
    pos = (np.asarray(body_pos, dtype=float)
           + A @ (np.asarray(plane_origin_local, dtype=float) + P @ np.asarray(planar_position)))
    return pos, A @ R_local


def tip_pose(model, q, body_pos, body_rot, plane_origin_local, plane_axes_local):
    """World position and rotation of the deformed tip of the last link (X along the
    tangent, Z along the plane normal)."""
    p, psi = mdl.tip_state(model, np.asarray(q, dtype=float))
    return plane_pose(p, psi, body_pos, body_rot, plane_origin_local, plane_axes_local)


def gravity_potential(model, q, body_pos, body_rot, plane_origin_local, plane_axes_local,
                      gravity_world):
    """V_g = - sum m g . R over the arm's mass points (J)."""
    R, m = spatial_points(model, q, body_pos, body_rot, plane_origin_local, plane_axes_local)
    return float(-(m @ (R @ np.asarray(gravity_world, dtype=float))))


__all__ = ["plane_terms", "spatial_terms", "spatial_points", "plane_pose", "tip_pose", "gravity_potential",
           "plane_normal", "V_BLOCK", "W_BLOCK", "N_BODY"]
