"""The spatial arm on a moving body (chrono_flex.spatial.floating) against the same arm
hung on six joints (three slides, three turns) that give the body its motion: at zero
joint angles the joints' rates are exactly the body's v_B and omega_B, so the mass
matrices agree to round-off, and the forces once the joints' convective angular
acceleration is accounted for."""

import numpy as np
import pytest

from chrono_flex.spatial import floating as sfl
from chrono_flex.spatial import equations as mdl
from chrono_flex.spatial.arm import SpatialArm
from chrono_flex.spatial.params import (PrismaticJoint, RevoluteJoint, RigidBody, SpatialLink,
                                        turned)

E = np.eye(3)
ORIGIN = np.array([0.1, 0.05, -0.02])
X_AXIS, Y_AXIS = turned(0.4, (0, 1, 0))
MOUNT = np.column_stack([X_AXIS, Y_AXIS, np.cross(X_AXIS, Y_AXIS)])
G = np.array([0.3, -1.0, -9.81])


def _link():
    return SpatialLink(0.8, 3, EI_y=3.0, EI_z=2.0, GJ=1.0, rho_A=0.5, rho_Ip=1e-3)


def _arms():
    """(the arm on the body, the same arm on six joints through massless bodies: the
    body's own inertia is Chrono's part, not the arm's)."""
    tip = RigidBody(0.3, (1e-3, 2e-3, 3e-3))
    on_body = SpatialArm([_link(), tip], joints=[
        RevoluteJoint(axis=(0, 0, 1), x_axis=X_AXIS, y_axis=Y_AXIS, hub_inertia=0.01),
        RevoluteJoint(axis=(0, 1, 0))])
    chain = SpatialArm(
        [RigidBody()] * 6 + [_link(), tip],
        joints=[PrismaticJoint(axis=E[k], x_axis=E[0], y_axis=E[1]) for k in range(3)]
        + [RevoluteJoint(axis=E[k]) for k in range(3)]
        + [RevoluteJoint(axis=(0, 0, 1), offset=tuple(ORIGIN), x_axis=X_AXIS, y_axis=Y_AXIS,
                         hub_inertia=0.01), RevoluteJoint(axis=(0, 1, 0))],
        gravity=G)
    return on_body, chain


@pytest.mark.parametrize("turning", [False, True])
def test_body_terms_match_the_six_joint_chain(turning):
    """At zero angles the joints' rates (a, b, c about x, y, z in turn) are omega_B, and
    omega_B_dot = (a, b, c)_dd + c_w with the chain's convective part
    c_w = (c_d b_d, -c_d a_d, a_d b_d), so f_body = f_chain + M[:, omega] c_w."""
    rng = np.random.default_rng(3)
    on_body, chain = _arms()
    v = np.array([0.2, -0.1, 0.3])
    w = np.array([0.4, -0.3, 0.5]) if turning else np.zeros(3)
    q = 0.05 * rng.standard_normal(on_body.nq)
    qd = 0.3 * rng.standard_normal(on_body.nq)
    qc, qdc = np.concatenate([np.zeros(6), q]), np.concatenate([v, w, qd])
    M, f = sfl.body_terms(on_body.model, q, qd, np.zeros(3), np.eye(3), v, w, ORIGIN,
                          np.eye(3), G)
    Mc, hc, Qgc = mdl.terms(chain.model, qc, qdc)
    a, b, c = w
    fc = Qgc - hc + Mc[:, 3:6] @ np.array([c * b, -c * a, a * b])
    fc[6:] -= chain.model.K[6:, 6:] @ q + chain.model.D[6:, 6:] @ qd
    # round-off of sums of O(1) products
    np.testing.assert_allclose(M, Mc, atol=1e-12)
    np.testing.assert_allclose(f, fc, atol=1e-11)


def test_body_at_rest_at_origin_reduces_to_the_fixed_arm():
    rng = np.random.default_rng(5)
    on_body, _ = _arms()
    q, qd = 0.05 * rng.standard_normal(on_body.nq), 0.3 * rng.standard_normal(on_body.nq)
    Q = rng.standard_normal(on_body.nq)
    M, f = sfl.body_terms(on_body.model, q, qd, np.zeros(3), np.eye(3), np.zeros(3),
                          np.zeros(3), np.zeros(3), np.eye(3), G, Q)
    M0, f0 = sfl.fixed_terms(on_body.model, q, qd, G, Q)
    np.testing.assert_allclose(M[6:, 6:], M0, atol=1e-12)
    np.testing.assert_allclose(f[6:], f0, atol=1e-11)


def test_fixed_terms_rotate_gravity_into_the_base():
    rng = np.random.default_rng(7)
    on_body, _ = _arms()
    arm_g = SpatialArm(on_body.bodies, on_body.joints, gravity=MOUNT.T @ G)
    q, qd = 0.05 * rng.standard_normal(on_body.nq), 0.3 * rng.standard_normal(on_body.nq)
    M0, f0 = sfl.fixed_terms(on_body.model, q, qd, MOUNT.T @ G)
    M1, f1 = mdl.forcing(arm_g.model, q, qd, np.zeros(on_body.nq))
    np.testing.assert_allclose(M0, M1, atol=1e-13)
    np.testing.assert_allclose(f0, f1, atol=1e-12)
