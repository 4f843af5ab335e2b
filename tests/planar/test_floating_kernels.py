"""The compiled moving-body terms and welds (chrono_flex.planar.floating_kernels) against
the numpy reference (chrono_flex.planar.floating).

Both evaluate the same sums over the same quadrature points and lumped items, the
compiled one with the arm's own rows from the inertia-invariant chain kernel: they must
agree to round-off. The tolerance 1e-12 relative to the largest entry is about 1e4
machine epsilons, the reassociation of sums of a few hundred terms (as in
tests/planar/test_kernels.py). The model is packed here whatever the process's kernel
backend (without numba the "compiled" functions run as Python, the same arithmetic).
"""

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex.planar import floating
from chrono_flex.planar import floating_kernels as fk
from chrono_flex.planar import kernels

ROUND_OFF = 1e-12


def rotation(seed):
    """A proper rotation matrix from a random unit quaternion."""
    w, x, y, z = np.random.default_rng(seed).normal(size=4)
    n = np.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / n, x / n, y / n, z / n
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def packed_model(stiffening=False):
    """Revolute, prismatic and offset revolute joints, hub masses and inertias, a
    payload with rotary inertia (every kind of lumped item and frame)."""
    links = [cf.Link(0.7, 3, EI=20.0, rho_A=0.5), cf.Link(0.5, 2, EI=10.0, rho_A=0.3),
             cf.Link(0.4, 2, EI=8.0, rho_A=0.3)]
    joints = [cf.RevoluteJoint(hub_inertia=0.01, hub_mass=0.2),
              cf.PrismaticJoint(axis_angle=0.3, link_angle=0.2),
              cf.RevoluteJoint(angle_offset=0.1, hub_mass=0.1)]
    arm = cf.PlanarArm(links, joints=joints, payload=cf.Payload(0.3, 0.01), gravity=9.81,
                       geometric_stiffening=stiffening, hub_inertia=0.02)
    model = arm.model
    if model.packed is None:                # the numpy backend: pack for this test
        model.packed = kernels.pack(model)
    return model


def close(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return np.max(np.abs(a - b)) <= ROUND_OFF * max(1.0, np.max(np.abs(b)))


@pytest.mark.parametrize("stiffening", [False, True])
def test_moving_body_terms_equal_the_numpy_reference(stiffening):
    model = packed_model(stiffening)
    rng = np.random.default_rng(3)
    for k in range(3):
        q, qd, Q = (rng.normal(size=model.nq) * s for s in (0.3, 1.0, 1.0))
        A, P = rotation(k), rotation(10 + k)[:, :2]
        w, o, g = rng.normal(size=3), rng.normal(size=3), np.array([0.3, -9.81, 1.0])
        M0, f0 = floating.spatial_terms(model, q, qd, np.zeros(3), A, np.zeros(3), w, o, P,
                                        g, Q)
        M1, f1 = fk.spatial_terms(model, q, qd, A, w, o, P, g, Q)
        assert close(M1, M0) and close(f1, f0)
        # the dispatcher takes the compiled path on a packed model
        M2, f2 = fk.moving_terms(model, q, qd, A, w, o, P, g, Q)
        assert np.array_equal(M2, M1) and np.array_equal(f2, f1)


def test_the_compiled_terms_see_the_body_s_rotation_and_spin():
    """Not a constant: turning the body or spinning it changes f (a check that the
    comparison above compares something that moves)."""
    model = packed_model()
    q, qd = np.full(model.nq, 0.1), np.full(model.nq, 0.2)
    P = np.eye(3)[:, :2]
    g = np.array([0.0, -9.81, 0.0])
    _, f0 = fk.spatial_terms(model, q, qd, np.eye(3), np.zeros(3), np.zeros(3), P, g)
    _, f1 = fk.spatial_terms(model, q, qd, rotation(1), np.zeros(3), np.zeros(3), P, g)
    _, f2 = fk.spatial_terms(model, q, qd, np.eye(3), np.array([0.0, 0.0, 3.0]), np.zeros(3),
                             P, g)
    assert not close(f1, f0) and not close(f2, f0)


@pytest.mark.parametrize("link, s", [(0, 0.0), (0, 0.35), (1, 0.5), (2, 0.17)])
def test_weld_station_terms_and_jacobians_equal_the_numpy_reference(link, s):
    model = packed_model()
    rng = np.random.default_rng(7 + link)
    q, qd = rng.normal(size=model.nq) * 0.3, rng.normal(size=model.nq)
    placement = (rng.normal(size=3), rotation(1), rng.normal(size=3), rng.normal(size=3),
                 rng.normal(size=3), rotation(2)[:, :2])
    body = (rng.normal(size=3), rotation(3), rng.normal(size=3), rng.normal(size=3))
    offset, frame_rot = rng.normal(size=3), rotation(4)
    gains = (1e3, 2e2, 3.0, 0.5)
    for a, b in zip(fk.station(model, q, qd, link, s), floating.station(model, q, qd, link, s)):
        assert close(a, b)
    t1 = fk.attachment_terms(model, q, qd, link, s, placement, body, offset, frame_rot, gains)
    t0 = floating.attachment_terms(model, q, qd, link, s, placement, body, offset, frame_rot,
                                   gains)
    assert set(t1) == set(t0)
    for key in t0:
        assert close(t1[key], t0[key]), key
    K1, R1 = fk.attachment_jacobians(model, q, link, s, placement, body, offset, gains)
    K0, R0 = floating.attachment_jacobians(model, q, link, s, placement, body, offset, gains)
    assert set(K1) == set(K0)
    for key in K0:
        assert close(K1[key], K0[key]) and close(R1[key], R0[key]), key
    # G of the compiled path gives the same K: G^T diag(k) G
    G = fk.attachment_g(model, q, link, s, placement, body, offset)
    Kfull = G.T @ (np.array([1e3] * 3 + [2e2] * 3)[:, None] * G)
    nq = model.nq
    assert close(Kfull[6:6 + nq, 6:6 + nq], K0[("q", "q")])
    assert close(Kfull[:6, 6 + nq:], K0[("parent", "body")])
    # and scattered into a load's matrices at given columns (here: q and body only)
    K, R = np.zeros((nq + 8, nq + 8)), np.zeros((nq + 8, nq + 8))
    cols = np.arange(2, nq + 8)
    assert fk.add_weld_matrices(model, q, link, s, placement, body, offset, gains, cols, K, R)
    assert close(K[2:2 + nq, 2:2 + nq], K0[("q", "q")])
    assert close(R[2 + nq:, 2:2 + nq], R0[("body", "q")])
    assert not K[:2].any() and not R[:, :2].any()


def test_tip_kinematics_are_the_chain_s_tip_frame():
    from chrono_flex.planar import kinematics

    model = packed_model()
    rng = np.random.default_rng(11)
    q, qd = rng.normal(size=model.nq) * 0.3, rng.normal(size=model.nq)
    r, J, phi, Jphi = fk.tip_kinematics(model, q, qd)
    tip = kinematics.chain_frames(model.layout, q, qd)[1][-1]
    assert close(r, tip.p) and close(J, tip.Jp) and close([phi], [tip.psi])
    assert close(Jphi, tip.Jpsi)
