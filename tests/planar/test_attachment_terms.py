"""The weld's pure physics (chrono_flex.planar.floating: station, bushing_wrench,
attachment_terms) against finite differences and the virtual-power balance."""

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex.planar import floating

from _weld_checks import check_power_balance, check_weld_jacobians, rot

RNG = np.random.default_rng(11)


def _random_state(rng):
    """(model, q, qd, placement) with a random moving parent and plane."""
    model = two_link_model()
    nq = model.nq
    q, qd = rng.normal(scale=0.1, size=nq), rng.normal(size=nq)
    pB, AB, vB, wB = rng.normal(size=3), rot(rng.normal(size=3)), rng.normal(size=3), rng.normal(size=3)
    o, P = np.array([0.1, -0.2, 0.05]), rot(rng.normal(size=3))[:, :2]
    return model, q, qd, (pB, AB, vB, wB, o, P)


def two_link_model():
    links = [cf.Link(length=0.8, n_elements=3, EI=3.0, rho_A=0.4),
             cf.Link(length=0.6, n_elements=2, EI=2.0, rho_A=0.3)]
    return cf.PlanarArm(links).model


def test_station_at_the_tip_is_the_tip_frame():
    model = two_link_model()
    q = RNG.normal(scale=0.1, size=model.nq)
    r, _, phi, _ = floating.station(model, q, np.zeros(model.nq), 1, 0.6)
    p, psi = cf.planar.equations.tip_state(model, q)
    assert np.allclose(r, p, rtol=0, atol=1e-14) and abs(phi - psi) < 1e-14


def test_station_jacobians_are_the_derivatives_of_position_and_angle():
    model = two_link_model()
    q = RNG.normal(scale=0.1, size=model.nq)
    zero = np.zeros(model.nq)
    r, J, phi, Jphi = floating.station(model, q, zero, 1, 0.37)
    d = 1e-6                     # central differences: error ~ d^2 |r'''| ~ 1e-12
    for k in range(model.nq):
        e = np.zeros(model.nq)
        e[k] = d
        rp, _, pp, _ = floating.station(model, q + e, zero, 1, 0.37)
        rm, _, pm, _ = floating.station(model, q - e, zero, 1, 0.37)
        assert np.allclose((rp - rm) / (2 * d), J[:, k], atol=1e-8)
        assert abs((pp - pm) / (2 * d) - Jphi[k]) < 1e-8


def test_bushing_force_and_moment_are_minus_the_gradient_of_its_energy():
    k_p, k_r = 7.0, 3.0
    e = RNG.normal(size=3)
    R = rot(RNG.normal(scale=0.4, size=3))
    F, M, V, P = floating.bushing_wrench(e, R, np.zeros(3), np.zeros(3), k_p, k_r)
    assert P == 0.0
    d = 1e-6                     # central differences: truncation ~ d^2 V''' ~ 1e-12
    for i in range(3):
        u = np.zeros(3)
        u[i] = d
        Vp = floating.bushing_wrench(e + u, R, np.zeros(3), np.zeros(3), k_p, k_r)[2]
        Vm = floating.bushing_wrench(e - u, R, np.zeros(3), np.zeros(3), k_p, k_r)[2]
        assert abs(-(Vp - Vm) / (2 * d) - F[i]) < 1e-7
        # a world rotation u of the body: R_rel -> exp(u) R_rel
        Vp = floating.bushing_wrench(e, rot(u) @ R, np.zeros(3), np.zeros(3), k_p, k_r)[2]
        Vm = floating.bushing_wrench(e, rot(-u) @ R, np.zeros(3), np.zeros(3), k_p, k_r)[2]
        assert abs(-(Vp - Vm) / (2 * d) - M[i]) < 1e-7
    assert V > 0


def test_dampers_dissipate_their_stated_power():
    ed, wr = RNG.normal(size=3), RNG.normal(size=3)
    F, M, _, P = floating.bushing_wrench(np.zeros(3), np.eye(3), ed, wr, 0.0, 0.0, 2.0, 0.5)
    assert np.isclose(P, -(F @ ed + M @ wr), rtol=1e-14)
    assert P > 0


@pytest.mark.parametrize("link, s, damped", [(0, 0.5, False), (1, 0.6, False), (1, 0.2, True)])
def test_generalized_forces_do_the_work_the_bushing_loses(link, s, damped):
    """Virtual power of the weld's forces (_weld_checks.check_power_balance)."""
    model, q, qd, placement = _random_state(RNG)
    t0 = check_power_balance(floating, model, q, qd, placement, link, s, damped, RNG)
    # the random states load the bushing: the balance above is not between zeros
    assert np.linalg.norm(t0["force"]) > 0


def test_bushing_stiffness_rule():
    k_p, k_r = floating.bushing_stiffness(EI=2.0, element_length=0.25, ratio=10.0)
    assert np.isclose(k_p, 10 * 12 * 2.0 / 0.25 ** 3) and np.isclose(k_r, 10 * 4 * 2.0 / 0.25)


def test_weld_jacobians_are_the_derivatives_of_its_forces_up_to_geometric_terms():
    """K and R against central differences of the forces (_weld_checks.check_weld_jacobians)."""
    rng = np.random.default_rng(7)            # its own draws: independent of test order
    check_weld_jacobians(floating, *_random_state(rng), 1, 0.45, rng)
