"""The spatial weld's pure physics (chrono_flex.spatial.floating: station,
station_motion, attachment_terms, attachment_jacobians) against the tip frame, finite
differences and the virtual-power balance."""

import numpy as np
import pytest

from chrono_flex.spatial import equations as mdl
from chrono_flex.spatial import floating
from chrono_flex.spatial.arm import SpatialArm
from chrono_flex.spatial.params import PrismaticJoint, RevoluteJoint, RigidBody, SpatialLink

from _weld_checks import check_power_balance, check_weld_jacobians, rot, vee

RNG = np.random.default_rng(23)


def tree_model():
    """A hub on a tilted revolute joint, a link on a turned revolute joint, a second link
    on a prismatic joint at its tip: every kind of parent frame on the path."""
    a = SpatialLink(0.8, 3, EI_y=3.0, EI_z=2.0, GJ=1.0, rho_A=0.5, rho_Ip=1e-3)
    b = SpatialLink(0.6, 2, EI_y=1.5, EI_z=2.5, GJ=0.7, rho_A=0.3, rho_Ip=1e-3,
                    element_lengths=(0.25, 0.35))
    joints = [RevoluteJoint(axis=(0.3, -0.2, 1.0)),
              RevoluteJoint(axis=(0, 1, 0), offset=(0.05, 0.01, 0)),
              PrismaticJoint(axis=(0.2, 1.0, 0.1), x_axis=(0, 1, 0), y_axis=(-1, 0, 0))]
    return SpatialArm([RigidBody(1.0, (0.02, 0.02, 0.05)), a, b], joints).model


def test_station_at_the_tip_is_the_tip_frame():
    model = tree_model()
    q, qd = RNG.normal(scale=0.1, size=model.nq), RNG.normal(size=model.nq)
    for link, body in enumerate(model.links):
        f = floating.station(model, q, qd, link, model.bases[body].length)
        tip = mdl.tip_frames(model, q, qd)[body]
        for name in ("p", "Jp", "R", "Jw", "w", "ap", "aw"):
            # the same arithmetic on the same path: round-off only
            assert np.allclose(getattr(f, name), getattr(tip, name), rtol=0, atol=1e-13), name


@pytest.mark.parametrize("link, s", [(0, 0.3), (1, 0.31), (1, 0.0)])
def test_station_jacobians_are_the_derivatives_of_position_and_rotation(link, s):
    model = tree_model()
    q = RNG.normal(scale=0.1, size=model.nq)
    zero = np.zeros(model.nq)
    f = floating.station(model, q, zero, link, s)
    d = 1e-6                     # central differences: error ~ d^2 |r'''| ~ 1e-12
    for k in range(model.nq):
        e = np.zeros(model.nq)
        e[k] = d
        fp = floating.station(model, q + e, zero, link, s)
        fm = floating.station(model, q - e, zero, link, s)
        assert np.allclose((fp.p - fm.p) / (2 * d), f.Jp[:, k], rtol=0, atol=1e-8)
        # dR/dq_k R^T = S(Jw[:, k])
        assert np.allclose(vee((fp.R - fm.R) / (2 * d) @ f.R.T), f.Jw[:, k], rtol=0,
                           atol=1e-8)


def _random_state(rng):
    model = tree_model()
    nq = model.nq
    q, qd = rng.normal(scale=0.1, size=nq), rng.normal(size=nq)
    placement = (rng.normal(size=3), rot(rng.normal(size=3)), rng.normal(size=3),
                 rng.normal(size=3), np.array([0.1, -0.2, 0.05]), rot(rng.normal(size=3)))
    return model, q, qd, placement


@pytest.mark.parametrize("link, s, damped", [(0, 0.5, False), (1, 0.6, False), (1, 0.2, True)])
def test_generalized_forces_do_the_work_the_bushing_loses(link, s, damped):
    """Virtual power of the weld's forces (_weld_checks.check_power_balance)."""
    model, q, qd, placement = _random_state(RNG)
    t0 = check_power_balance(floating, model, q, qd, placement, link, s, damped, RNG)
    assert np.linalg.norm(t0["force"]) > 0 and np.linalg.norm(t0["moment"]) > 0


def test_station_motion_is_the_time_derivative_of_the_station_pose():
    model, q, qd, (pB, AB, vB, wB, o, P) = _random_state(RNG)

    def pose(dt):
        pl = (pB + vB * dt, AB @ rot(wB * dt), vB, wB, o, P)
        return floating.station_motion(model, q + qd * dt, qd, 1, 0.4, pl)

    R0, A0, v0, w0 = pose(0.0)
    h = 1e-6                     # central differences: ~h^2 of the motion's third derivative
    Rp, Ap, _, _ = pose(h)
    Rm, Am, _, _ = pose(-h)
    assert np.allclose((Rp - Rm) / (2 * h), v0, rtol=0, atol=1e-8)
    assert np.allclose(vee((Ap - Am) / (2 * h) @ A0.T), w0, rtol=0, atol=1e-8)


def test_weld_jacobians_are_the_derivatives_of_its_forces_up_to_geometric_terms():
    """K and R against central differences of the forces (_weld_checks.check_weld_jacobians)."""
    rng = np.random.default_rng(7)
    model, q, qd, placement = _random_state(rng)
    check_weld_jacobians(floating, model, q, qd, placement, 1, 0.45, rng)


def test_link_bushing_stiffness_takes_the_stiffer_plane_and_shortest_element():
    link = SpatialLink(0.6, 2, EI_y=1.5, EI_z=2.5, GJ=0.7, rho_A=0.3, rho_Ip=1e-3,
                       element_lengths=(0.25, 0.35))
    k_p, k_r = floating.link_bushing_stiffness(link, 10.0)
    assert np.isclose(k_p, 10 * 12 * 2.5 / 0.25 ** 3, rtol=1e-12)
    assert np.isclose(k_r, 10 * 4 * 2.5 / 0.25, rtol=1e-12)
