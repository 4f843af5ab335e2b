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
from . import kinematics as kin

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
    for qu, r, J, a in zip(model.quad, ev.r, ev.J, ev.a):
        rs.append(r)
        Js.append(J)
        as_.append(a)
        ms.append(qu.mw)
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
    for qu, J, a in zip(model.quad, ev.J, ev.a):
        wJ = (qu.mw[:, None, None] * J).reshape(-1, nq)
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
    c_rot = _cross_rows(w, _cross_rows(w, s)) + 2.0 * _cross_rows(w, vrel)
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
    M[W_BLOCK, N_BODY:] = np.einsum("n,nka->ak", m, _cross_rows(s[:, None, :],
                                                               PJ.transpose(0, 2, 1)))
    M[N_BODY:, N_BODY:] = Mqq
    f[V_BLOCK] = mtot * np.asarray(gravity_world, dtype=float) - A @ (m @ acc)
    f[W_BLOCK] = m @ _cross_rows(s, g_b - acc)
    fq = Qg - h - np.einsum("n,nak,na->k", m, PJ, c_rot)
    for J_r, Jrow, arot in rotary:
        u = n @ w + Jrow @ qd
        M[W_BLOCK, W_BLOCK] += J_r * np.outer(n, n)
        M[W_BLOCK, N_BODY:] += J_r * np.outer(n, Jrow)
        f[W_BLOCK] -= J_r * (n * arot + u * _cross3(w, n))
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
    R_local = np.column_stack([ex, ey, _cross3(ex, ey)])
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


# -- a body welded to the link at a station (the Chrono element's attachments) ---------

#: Default ratio of an attachment bushing's stiffness to the link's element stiffness
#: (:func:`bushing_stiffness`).
BUSHING_RATIO = 1.0e4


def _cross_rows(a, b):
    """a x b over the last axis of two broadcastable (..., 3) arrays: the same numbers
    as np.cross without its axis handling, which costs more than the products on the
    few hundred points of an arm."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def _cross3(a, b):
    """a x b of two 3-vectors (np.cross costs ten times more on single vectors)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


def station(model, q, qd, link, s, shapes=None):
    """Planar kinematics of the material point at abscissa ``s`` of link ``link``.

    The point of docs/planar-link.md eq. (1.1) (:func:`chrono_flex.planar.kinematics.points`):

        r = p_i + R(psi_i) [s, w_i(s)]^T,   r_dot = J q_dot,
        phi = psi_i + w_i'(s),              phi_dot = J_phi . q_dot

    (phi: the angle of the deformed centreline's tangent). The abscissa is measured
    along the undeformed link (small elastic deflections, as in the whole model).

    ``shapes``: (N, N') of the link's basis at s, each (1, n), if already known.

    Returns:
        r (2,), J (2, nq), phi, J_phi (nq,).
    """
    q = np.asarray(q, dtype=float)
    qd = np.asarray(qd, dtype=float)
    frame = kin.base_frame(model.nq)
    for lk in model.layout.links[:link]:        # the chain up to this link's root only
        frame = kin.tip_frame(kin.child_frame(frame, lk, q, qd), lk, q, qd)
    lk = model.layout.links[link]
    frame = kin.child_frame(frame, lk, q, qd)
    x = np.array([float(s)])
    N, dN = model.bases[link].values(x)[:2] if shapes is None else shapes
    r, J, _, phi, Jphi, _ = kin.points(frame, lk, x, (N, dN), q, qd)
    return r[0], J[0], phi[0], Jphi[0]


def bushing_stiffness(EI, element_length, ratio=BUSHING_RATIO):
    """Stiffnesses (k_p N/m, k_r N m/rad) of the bushing that welds a body to a link.

        k_p = ratio * 12 EI / l^3,    k_r = ratio * 4 EI / l

    12 EI / l^3 and 4 EI / l are the transverse and rotational stiffnesses of one
    clamped element of length l (the diagonal of the Hermite element stiffness,
    docs/planar-link.md eq. (2.3)), so the bushing is ``ratio`` times stiffer than
    the stiffest piece of the discretised link. A load F through the bushing opens a
    gap |F| / k_p (and |M| / k_r): relative to the link's own deflection at a station
    s >= l, whose stiffness is at most 3 EI / l^3, that is at most 1 / (4 ratio).
    Chrono integrates the bushing implicitly (finite-difference Jacobian), so its
    stiffness does not limit the step (docs/chrono.md §8).
    """
    ell = float(element_length)
    return ratio * 12.0 * EI / ell ** 3, ratio * 4.0 * EI / ell


def bushing_wrench(gap, rot_rel, gap_rate, omega_rel, k_p, k_r, c_p=0.0, c_r=0.0):
    """Force and moment of a spring-damper bushing on the body side, world frame.

    With the gap e = R_body - R_link (3,), the relative rotation R_rel = A_body A_link^T
    and its skew part sigma = vee((R_rel - R_rel^T) / 2) (= sin(theta) times the axis
    of the relative rotation theta), the bushing stores

        V = k_p |e|^2 / 2 + k_r tr(I - R_rel) / 2          (= k_r (1 - cos theta))

    and its force and moment on the body (at the body's attachment point) are

        F = -k_p e - c_p e_dot,      M = -k_r sigma - c_r (omega_body - omega_link),

    the link taking -F and -M at its station. The spring parts are -dV/de and
    -dV/dtheta (d tr(R_rel) = -2 sigma . d alpha for a rotation d alpha of the body),
    so the bushing conserves energy; the dampers dissipate

        P = c_p |e_dot|^2 + c_r |omega_body - omega_link|^2 >= 0.

    Returns:
        F (3,), M (3,), V (J), P (W).
    """
    e = np.asarray(gap, dtype=float)
    R = np.asarray(rot_rel, dtype=float)
    ed = np.asarray(gap_rate, dtype=float)
    wr = np.asarray(omega_rel, dtype=float)
    sigma = 0.5 * np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    F = -k_p * e - c_p * ed
    M = -k_r * sigma - c_r * wr
    V = 0.5 * k_p * (e @ e) + 0.5 * k_r * (3.0 - np.trace(R))
    P = c_p * (ed @ ed) + c_r * (wr @ wr)
    return F, M, float(V), float(P)


def rotation_angle(rot):
    """Angle theta (rad, in [0, pi]) of a rotation matrix R: cos theta = (tr R - 1) / 2
    and sin theta = |vee((R - R^T) / 2)|, taken together by atan2 (exact for small
    angles too, where acos alone loses half the digits)."""
    R = np.asarray(rot, dtype=float)
    sin_t = 0.5 * np.linalg.norm([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    return float(np.arctan2(sin_t, (np.trace(R) - 1.0) / 2.0))


def station_motion(model, q, qd, link, s, placement):
    """World position R_L (3,), rotation A_L (3, 3), velocity v_L (3,) and angular
    velocity omega_L (3,) of the station frame at abscissa s of link ``link``
    (``placement`` and the formulas: :func:`attachment_terms`)."""
    pB, AB, vB, wB, o, P = (np.asarray(v, dtype=float) for v in placement)
    qd = np.asarray(qd, dtype=float)
    r, J, phi, Jphi = station(model, q, qd, link, s)
    n = _cross3(P[:, 0], P[:, 1])
    sL = o + P @ r
    R, A = plane_pose(r, phi, pB, AB, o, P)
    return (R, A, vB + AB @ (_cross3(wB, sL) + P @ (J @ qd)),
            AB @ (wB + n * (Jphi @ qd)))


def attachment_terms(model, q, qd, link, s, placement, body, offset, frame_rot, gains,
                     shapes=None, kinematics=None):
    """Generalized forces of a bushing between link ``link`` at abscissa ``s`` and a body.

    Args:
        model: the arm's ArmModel.
        q, qd: the arm's coordinates and rates (nq,).
        link, s: the station (link number, abscissa along it, m).
        placement: (p_B, A_B, v_B, omega_B local, o, P) of the arm's plane: the parent
            body's pose and velocity (module doc) and the plane in its frame; for a
            parent at rest (or the ground) p_B = 0, A_B = I, v_B = omega_B = 0 and o, P
            the plane in the world.
        body: (x_b, A_b, v_b, omega_b local) of the attached body (Chrono's state).
        offset: d (3,), the attachment point in the body frame.
        frame_rot: F (3, 3), the attachment frame's axes in the body frame; it
            coincides with the link's station frame (X along the tangent, Z along the
            plane normal) when the weld is closed.
        gains: (k_p, k_r, c_p, c_r) of :func:`bushing_wrench`.
        shapes: (N, N') at s, if known (:func:`station`).
        kinematics: :func:`station`'s result at (q, qd), if known.

    The station moves as (module doc, s_L = o + P r)

        R_L = p_B + A_B s_L,    v_L = v_B + A_B (omega_B x s_L + P J q_dot),
        A_L = A_B [P t, P n x t, n],    omega_L = A_B (omega_B + n J_phi . q_dot),

    the body's point as R_b = x_b + A_b d, v_b + A_b (omega_b x d), with axes A_b F and
    angular velocity A_b omega_b. The wrench (F, M) of :func:`bushing_wrench` acts on
    the body, (-F, -M) on the link, and virtual power gives

        Q_body   = [F, A_b^T M + d x A_b^T F],
        Q_q      = J^T P^T f + J_phi (n . m),             f = -A_B^T F, m = -A_B^T M,
        Q_parent = [-F, s_L x f + m]

    (Chrono's velocity layout [v world, omega local]). All components act: the
    in-plane ones (two forces, the moment about n) bend the link; the out-of-plane
    ones are carried by the plane, which the model keeps rigid (the link does not bend
    or twist out of it), into the parent body, or the ground.

    Returns:
        dict with Q_parent (6,), Q_q (nq,), Q_body (6,), gap e (3,), rot_rel (3, 3),
        force F and moment M on the body (3,) each (world), energy V, the dampers'
        power P, and the relative rates gap_rate e_dot, omega_rel (3,) each (world).
    """
    pB, AB, vB, wB, o, P = (np.asarray(v, dtype=float) for v in placement)
    xb, Ab, vb, wb = (np.asarray(v, dtype=float) for v in body)
    d = np.asarray(offset, dtype=float)
    Fr = np.asarray(frame_rot, dtype=float)
    qd = np.asarray(qd, dtype=float)
    r, J, phi, Jphi = (station(model, q, qd, link, s, shapes) if kinematics is None
                       else kinematics)
    n = _cross3(P[:, 0], P[:, 1])
    sL = o + P @ r
    RL = pB + AB @ sL
    vL = vB + AB @ (_cross3(wB, sL) + P @ (J @ qd))
    _, AL = plane_pose(r, phi, pB, AB, o, P)
    wL = AB @ (wB + n * (Jphi @ qd))
    Rb = xb + Ab @ d
    vbp = vb + Ab @ _cross3(wb, d)
    Abf = Ab @ Fr
    gap_rate, omega_rel = vbp - vL, Ab @ wb - wL
    F, M, V, Pw = bushing_wrench(Rb - RL, Abf @ AL.T, gap_rate, omega_rel, *gains)
    f = -AB.T @ F
    m = -AB.T @ M
    FbL = Ab.T @ F
    return dict(Q_parent=np.concatenate([-F, _cross3(sL, f) + m]),
                Q_q=J.T @ (P.T @ f) + Jphi * (n @ m),
                Q_body=np.concatenate([F, Ab.T @ M + _cross3(d, FbL)]),
                gap=Rb - RL, rot_rel=Abf @ AL.T, force=F, moment=M, energy=V, power=Pw,
                gap_rate=gap_rate, omega_rel=omega_rel)


__all__ = ["plane_terms", "spatial_terms", "spatial_points", "plane_pose", "tip_pose", "gravity_potential",
           "plane_normal", "V_BLOCK", "W_BLOCK", "N_BODY"]
def _skew3(v):
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def attachment_jacobians(model, q, link, s, placement, body, offset, gains, kinematics=None):
    """The weld's stiffness and damping matrices over (parent, q, body) velocities.

    The gap and the relative rotation move, to first order, as [de; dtheta] = G dw with
    (``placement`` and ``body`` as in :func:`attachment_terms`, S(v) the cross-product
    matrix, w = [v_B, omega_B (local)], q_dot, [v_b, omega_b (local)])

        G_parent = [[-I, A_B S(s_L)], [0, -A_B]],      G_q = [[-A_B P J], [-A_B n J_phi^T]],
        G_body   = [[ I, -A_b S(d)],  [0,  A_b]],

    so K = -dQ/dx = G^T diag(k_p I, k_r I) G and R = -dQ/dw = G^T diag(c_p I, c_r I) G
    (Q = G^T [F; M] by virtual power). Left out: the terms of dG/dx times the transmitted
    wrench (geometric stiffness), whose ratio to the kept ones is about the gap over the
    lever, |F| / (k_p |s|) (1e-6 in the scenes measured), and the dampers' forces
    turning with the frames, c |omega| |s| / k (= 2 zeta |omega| |s| / omega_b).

    Returns:
        (K, R) as dicts of blocks {("parent"|"q"|"body", same): matrix}.
    """
    pB, AB, vB, wB, o, P = (np.asarray(v, dtype=float) for v in placement)
    Ab = np.asarray(body[1], dtype=float)
    d = np.asarray(offset, dtype=float)
    k_p, k_r, c_p, c_r = gains
    r, J, _, Jphi = (station(model, q, np.zeros(model.nq), link, s) if kinematics is None
                     else kinematics)
    n = _cross3(P[:, 0], P[:, 1])
    sL = o + P @ r
    G = {"parent": np.block([[-np.eye(3), AB @ _skew3(sL)], [np.zeros((3, 3)), -AB]]),
         "q": np.vstack([-AB @ P @ J, -np.outer(AB @ n, Jphi)]),
         "body": np.block([[np.eye(3), -Ab @ _skew3(d)], [np.zeros((3, 3)), Ab]])}
    kw = np.array([k_p] * 3 + [k_r] * 3)
    cw = np.array([c_p] * 3 + [c_r] * 3)
    K = {(a, b): G[a].T @ (kw[:, None] * G[b]) for a in G for b in G}
    R = {(a, b): G[a].T @ (cw[:, None] * G[b]) for a in G for b in G}
    return K, R


__all__ += ["attachment_jacobians", "attachment_terms", "bushing_stiffness", "bushing_wrench",
            "rotation_angle", "station", "station_motion", "BUSHING_RATIO"]
