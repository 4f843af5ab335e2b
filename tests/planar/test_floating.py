"""The planar arm on a moving parent body (chrono_flex.planar.floating): pure numpy, no Chrono.

Checks: the body at rest gives the reference terms; a body turning about the plane
normal is the reference arm with the body's angle added to the first joint; M_full is
symmetric positive definite; kinetic energy and the generalized inertia forces agree with
finite differences of world positions along prescribed motions (independent of the
formulas under test).
"""

import numpy as np
import pytest
from scipy.linalg import expm

import chrono_flex as cf
from chrono_flex.planar import equations as mdl
from chrono_flex.planar.floating import (N_BODY, plane_normal, plane_terms, spatial_points,
                                  spatial_terms)

G = 9.81


def two_link_arm(payload=cf.Payload(0.3, 0.0), stiffening=False, damping=0.0):
    links = [cf.Link(1.0, 2, EI=40.0, rho_A=0.8, damping_beta=damping),
             cf.Link(0.7, 3, EI=25.0, rho_A=0.5, damping_beta=damping)]
    return cf.PlanarArm(links, payload=payload, hub_inertia=0.02, gravity=G,
                        geometric_stiffening=stiffening,
                        joints=[cf.RevoluteJoint(hub_mass=0.0),
                                cf.RevoluteJoint(hub_inertia=0.004, hub_mass=0.2)])


def random_state(arm, rng, scale=0.05):
    q = rng.normal(size=arm.nq) * scale
    q[arm.joint_index] = rng.normal(size=arm.n_joints)
    qd = rng.normal(size=arm.nq) * 0.5
    return q, qd


def rot(axis, angle):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return expm(K * angle)


def skew(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


PLANE_XY = (np.zeros(3), np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]))


@pytest.mark.parametrize("stiffening", [False, True])
def test_body_at_rest_gives_the_reference_terms(stiffening):
    arm = two_link_arm(stiffening=stiffening, damping=1e-3)
    m = arm.model
    rng = np.random.default_rng(1)
    q, qd = random_state(arm, rng)
    Q = rng.normal(size=arm.nq)
    M, f = spatial_terms(m, q, qd, np.zeros(3), np.eye(3), np.zeros(3), np.zeros(3),
                         *PLANE_XY, np.array([0.0, -G, 0.0]), Q=Q)
    M_ref, f_ref = mdl.forcing(m, q, qd, Q)
    scale = np.max(np.abs(M_ref))
    # the same integrals, point by point vs by invariants: equal up to round-off
    assert np.max(np.abs(M[N_BODY:, N_BODY:] - M_ref)) < 1e-14 * scale
    assert np.max(np.abs(f[N_BODY:] - f_ref)) < 1e-13 * np.max(np.abs(f_ref))
    # the cheap path for a parent at rest (the element on the ground) is the reference
    # engine's own evaluation (inertia invariants), bit for bit
    M_p, f_p = plane_terms(m, q, qd, m.g_vec, Q)
    assert np.array_equal(M_p, M_ref) and np.array_equal(f_p, f_ref)


def test_a_moving_body_without_rotation_changes_nothing_in_the_arm_rows():
    # Galilean invariance: a body translating at constant velocity, g unchanged.
    arm = two_link_arm()
    rng = np.random.default_rng(2)
    q, qd = random_state(arm, rng)
    args = (np.zeros(3), np.zeros(3), *PLANE_XY, np.array([0.0, -G, 0.0]))
    M0, f0 = spatial_terms(arm.model, q, qd, np.zeros(3), np.eye(3), *args)
    M1, f1 = spatial_terms(arm.model, q, qd, np.array([4.0, 5, 6]), np.eye(3),
                           np.array([1.0, -2.0, 3.0]), *args[1:])
    assert np.array_equal(M0, M1) and np.array_equal(f0, f1)


def test_body_turning_about_the_plane_normal_is_an_extra_rigid_joint():
    """A body turning by beta about the plane normal through the plane origin, at a
    constant rate Omega, is the reference arm with theta_1 -> theta_1 + beta and
    theta_1_dot -> theta_1_dot + Omega: the arm rows and the body's spin row must be the
    reference's rows (the spin row is the reference's first-joint row)."""
    arm = two_link_arm(payload=cf.Payload(0.3, 0.01))
    m = arm.model
    rng = np.random.default_rng(3)
    q, qd = random_state(arm, rng)
    beta, Omega = 0.7, 1.9
    n = np.array([0.0, 0.0, 1.0])
    M, f = spatial_terms(m, q, qd, np.zeros(3), rot(n, beta), np.zeros(3), Omega * n,
                         *PLANE_XY, np.array([0.0, -G, 0.0]))
    qr, qdr = q.copy(), qd.copy()
    qr[0] += beta
    qdr[0] += Omega
    M_ref, f_ref = mdl.forcing(m, qr, qdr, np.zeros(arm.nq))
    tol = 1e-12
    assert np.allclose(M[N_BODY:, N_BODY:], M_ref, rtol=0, atol=tol * np.max(np.abs(M_ref)))
    assert np.allclose(f[N_BODY:], f_ref, rtol=0, atol=tol * np.max(np.abs(f_ref)))
    spin = 5      # omega_z row
    assert np.allclose(M[spin, N_BODY:], M_ref[0], rtol=0, atol=tol * np.max(np.abs(M_ref)))
    assert abs(M[spin, spin] - M_ref[0, 0]) < tol * M_ref[0, 0]
    assert abs(f[spin] - f_ref[0]) < tol * np.max(np.abs(f_ref))


def test_mass_matrix_is_symmetric_positive_semidefinite_with_the_joint_null_space():
    """M_full is the arm's kinetic energy only, so it has one null direction: the body
    turning about the first joint's axis while the first joint turns back (the arm does
    not move). With any inertia of the body itself added it is positive definite."""
    arm = two_link_arm(payload=cf.Payload(0.3, 0.01))
    rng = np.random.default_rng(4)
    for _ in range(5):
        q, qd = random_state(arm, rng)
        A = rot(rng.normal(size=3), rng.normal())
        P = np.linalg.qr(rng.normal(size=(3, 2)))[0]
        o = rng.normal(size=3)
        M, _ = spatial_terms(arm.model, q, qd, rng.normal(size=3), A, rng.normal(size=3),
                             rng.normal(size=3), o, P, np.zeros(3))
        scale = np.max(np.abs(M))
        # J^T J sums are symmetric up to the round-off of the products
        assert np.allclose(M, M.T, rtol=0, atol=1e-14 * scale)
        ev = np.linalg.eigvalsh(M)
        assert ev[0] > -1e-13 * scale and ev[1] > 1e-6 * scale
        n = plane_normal(P)
        null = np.zeros(M.shape[0])
        null[3:6] = n                       # omega_B = n (body frame)
        null[0:3] = -A @ np.cross(n, o)     # v_B keeps the joint axis at rest
        null[N_BODY + arm.joint_index[0]] = -1.0
        assert np.max(np.abs(M @ null)) < 1e-13 * scale
        body = np.zeros_like(M)
        body[:3, :3] = 2.0 * np.eye(3)
        body[3:6, 3:6] = np.diag([0.1, 0.2, 0.3])
        assert np.min(np.linalg.eigvalsh(M + body)) > 0


class Motion:
    """A prescribed motion through a state: p(t) = p0 + v t + a t^2/2,
    A(t) = A0 expm(skew(omega t + alpha t^2/2)) (local angular velocity omega at t = 0,
    its rate alpha), q(t) = q0 + qd t + qdd t^2/2."""

    def __init__(self, p0, A0, q0, v, omega, qd, a=None, alpha=None, qdd=None):
        self.p0, self.A0, self.q0 = p0, A0, q0
        self.v, self.omega, self.qd = v, omega, qd
        self.a = np.zeros(3) if a is None else a
        self.alpha = np.zeros(3) if alpha is None else alpha
        self.qdd = np.zeros_like(q0) if qdd is None else qdd

    def at(self, t):
        p = self.p0 + self.v * t + 0.5 * self.a * t * t
        A = self.A0 @ expm(skew(self.omega * t + 0.5 * self.alpha * t * t))
        return p, A, self.q0 + self.qd * t + 0.5 * self.qdd * t * t

    @property
    def w(self):
        return np.concatenate([self.v, self.omega, self.qd])

    @property
    def w_dot(self):
        return np.concatenate([self.a, self.alpha, self.qdd])


def setup(rng, payload_inertia=0.0):
    arm = two_link_arm(payload=cf.Payload(0.3, payload_inertia))
    q, qd = random_state(arm, rng)
    o = rng.normal(size=3) * 0.3
    P = np.linalg.qr(rng.normal(size=(3, 2)))[0]
    return arm, q, qd, o, P


def rotary_items(arm, q):
    """(inertia, planar angle) of every rotary item (hubs, payload) at q."""
    ev = mdl.evaluate(arm.model, q, np.zeros(arm.nq))
    return [(it.value, mdl._item_kinematics(arm.model, ev, it)[2])
            for it in arm.model.items if it.kind == "rotary"]


def _item_path(arm, motion, P, k):
    """World rotation of rotary item k along a motion: the body's rotation, the plane's
    axes, then the item's planar angle about the normal."""
    frame = np.column_stack([P[:, 0], P[:, 1], plane_normal(P)])

    def R(t):
        _, A, q = motion.at(t)
        return A @ frame @ rot([0, 0, 1], rotary_items(arm, q)[k][1])
    return R


def _angular_velocity(R, t, dt=1e-5):
    """Body-frame angular velocity of a rotation path R(t) by central differences."""
    W = R(t).T @ (R(t + dt) - R(t - dt)) / (2 * dt)
    return np.array([W[2, 1], W[0, 2], W[1, 0]])


def test_kinetic_energy_matches_finite_differences_of_positions():
    """1/2 w^T M w = sum 1/2 m |R_dot|^2 + sum 1/2 J u^2, with R_dot from central
    differences of world positions and u (spin about the normal) from central
    differences of the rotary items' world rotations."""
    rng = np.random.default_rng(5)
    arm, q, qd, o, P = setup(rng, payload_inertia=0.01)
    mo = Motion(rng.normal(size=3), rot(rng.normal(size=3), 0.9), q, rng.normal(size=3),
                rng.normal(size=3), qd)
    M, _ = spatial_terms(arm.model, q, qd, mo.p0, mo.A0, mo.v, mo.omega, o, P, np.zeros(3))
    T = 0.5 * mo.w @ M @ mo.w
    h = 1e-5
    Rp, m = spatial_points(arm.model, mo.at(h)[2], *mo.at(h)[:2], o, P)
    Rm, _ = spatial_points(arm.model, mo.at(-h)[2], *mo.at(-h)[:2], o, P)
    T_fd = 0.5 * m @ np.sum(((Rp - Rm) / (2 * h)) ** 2, axis=1)
    items = rotary_items(arm, q)
    assert len(items) == 3       # two hubs and the payload
    for k, (J_r, _) in enumerate(items):
        u = _angular_velocity(_item_path(arm, mo, P, k), 0.0, h)[2]
        T_fd += 0.5 * J_r * u * u
    # central differences: error ~ h^2 |R'''| / 6 relative, ~1e-10 here; 1e-8 bounds it
    assert abs(T - T_fd) < 1e-8 * T, (T, T_fd)


def test_inertia_forces_match_finite_differences_of_positions():
    """Kane's equations: for every virtual velocity dw, sum m R_ddot . dR_dot + the
    rotary items' Euler terms = dw^T (M w_dot - f_inertial), with R_ddot, dR_dot and the
    items' angular velocities and accelerations taken by finite differences of world
    positions and rotations along two motions through the same state. Gravity is zero
    and K q, D q_d are added back so that f is purely inertial."""
    rng = np.random.default_rng(6)
    arm, q, qd, o, P = setup(rng, payload_inertia=0.02)
    m_ = arm.model
    p0, A0 = rng.normal(size=3), rot(rng.normal(size=3), 0.8)
    real = Motion(p0, A0, q, rng.normal(size=3), rng.normal(size=3), qd,
                  rng.normal(size=3), rng.normal(size=3), rng.normal(size=arm.nq))
    M, f = spatial_terms(m_, q, qd, p0, A0, real.v, real.omega, o, P, np.zeros(3))
    f_inertial = f.copy()
    f_inertial[N_BODY:] += m_.K @ q + m_.D @ qd
    lhs = M @ real.w_dot - f_inertial

    h = 1e-4
    pos = lambda mo, t: spatial_points(m_, mo.at(t)[2], *mo.at(t)[:2], o, P)[0]  # noqa: E731
    masses = spatial_points(m_, q, p0, A0, o, P)[1]
    R_ddot = (pos(real, h) - 2 * pos(real, 0.0) + pos(real, -h)) / h**2
    items = rotary_items(arm, q)
    euler = []
    for k, (J_r, _) in enumerate(items):
        R = _item_path(arm, real, P, k)
        w_item = _angular_velocity(R, 0.0)
        alpha_item = (_angular_velocity(R, h) - _angular_velocity(R, -h)) / (2 * h)
        I_item = J_r * np.diag([0.0, 0.0, 1.0])      # about the plane normal only
        euler.append(I_item @ alpha_item + np.cross(w_item, I_item @ w_item))
    for _ in range(4):
        virt = Motion(p0, A0, q, rng.normal(size=3), rng.normal(size=3), rng.normal(size=arm.nq))
        dR = (pos(virt, h) - pos(virt, -h)) / (2 * h)
        power_fd = masses @ np.sum(R_ddot * dR, axis=1)
        for k in range(len(items)):
            power_fd += _angular_velocity(_item_path(arm, virt, P, k), 0.0) @ euler[k]
        power = virt.w @ lhs
        # second differences with h = 1e-4: truncation ~h^2, round-off ~eps |R|/h^2
        # ~ 2e-8; relative 1e-5 of the power scale bounds both
        scale = np.abs(masses @ np.sum(np.abs(R_ddot * dR), axis=1)) + abs(power)
        assert abs(power - power_fd) < 1e-5 * scale, (power, power_fd)


def test_rotary_items_use_the_plane_normal_only():
    """A payload inertia J_t on a body spinning about an in-plane axis: the arm's rows do
    not feel it (it has no inertia about in-plane axes) and the body gets J_t n n^T."""
    arm0 = two_link_arm(payload=cf.Payload(0.3, 0.0))
    arm1 = two_link_arm(payload=cf.Payload(0.3, 0.05))
    rng = np.random.default_rng(7)
    q, qd = random_state(arm0, rng)
    args = (np.zeros(3), np.eye(3), np.zeros(3), np.array([3.0, 0.0, 0.0]), *PLANE_XY,
            np.zeros(3))
    M0, f0 = spatial_terms(arm0.model, q, qd, *args)
    M1, f1 = spatial_terms(arm1.model, q, qd, *args)
    dM = M1 - M0
    assert np.allclose(dM[3:5, :], 0.0) and np.allclose(dM[:, 3:5], 0.0)
    assert abs(dM[5, 5] - 0.05) < 1e-15
