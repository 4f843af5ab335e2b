"""The RRRP arm as a tree of beam elements (chrono_flex.formulations.rrrp_fem,
docs/rrrp-arm.md §6): argument checks, the maps between the two models' coordinates,
closed-form statics and the bound on the models' difference."""

import math

import numpy as np
import pytest

from chrono_flex.errors import ParameterError
from chrono_flex.formulations import rrrp_fem as rf
from chrono_flex.formulations.rrrp import RRRPArm, RRRPParams, power_stiffness_factor

POWER = RRRPParams(phi1z="power")
FEM = rf.fem_arm(POWER, a=2.3)


@pytest.mark.parametrize("call, name", [
    (lambda: rf.fem_arm(params="default"), "params"),
    (lambda: rf.fem_arm(POWER, a=1.0), "a"),          # below the stroke (2.0, 3.5)
    (lambda: rf.fem_arm(POWER, a=-2.0), "a"),
    (lambda: rf.fem_arm(POWER, n_elements=0), "n_elements"),
    (lambda: rf.fem_arm(POWER, poisson=0.5), "poisson"),
    (lambda: rf.fem_arm(POWER, torsion_factor=0.0), "torsion_factor"),
    (lambda: rf.split_elements(1, (1.0, 2.0)), "n_elements"),
    (lambda: RRRPParams(phi1z="cosine"), "phi1z"),
    (lambda: FEM.joint_coordinates([0.0, 0.1, 0.2]), "joints"),
    (lambda: FEM.fem_coordinates(np.zeros(7)), "eta"),
    (lambda: FEM.am_coordinates(np.zeros(3)), "q"),
    (lambda: rf.am_prescribed(RRRPArm(POWER), "quintic", [0.0, 1.0]), "joint_motion"),
    (lambda: rf.quintic_motion([0] * 4, [1] * 4, 0.0), "duration"),
])
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ParameterError) as err:
        call()
    assert err.value.parameter == name


def test_tree_layout_follows_the_overlap():
    p = POWER
    nodes2 = FEM.arm.bodies[2].nodes
    x_b = p.l2 - (p.l3 - 2.3)                       # arm 3's inner end inside arm 2
    assert np.min(np.abs(nodes2 - x_b)) < 1e-12     # an element ends there
    EI = np.atleast_1d(FEM.arm.bodies[2].EI_y)
    assert set(np.round(EI / p.EI2, 12)) == {1.0, round(1 + p.EI3 / p.EI2, 12)}
    assert FEM.arm.bodies[3].length == 2.3 and FEM.arm.bodies[4].mass == p.m_B
    assert FEM.arm.joints[2].hub_mass == p.m_A
    assert rf.split_elements(4, (3.3, 1.7)) == pytest.approx((1.65, 1.65, 0.85, 0.85))


@pytest.mark.parametrize("convention", ["horizontal", "arm1"])
def test_joint_map_round_trip_and_rigid_tip(convention):
    p = RRRPParams(phi1z="power", theta3_from=convention)
    fem, am = rf.fem_arm(p, a=2.7), RRRPArm(p)
    rng = np.random.default_rng(4)
    for _ in range(5):
        eta = np.zeros(8)
        eta[[0, 1, 2]] = rng.uniform(-1.2, 1.2, 3)
        eta[7] = rng.uniform(2.0, 3.5)              # a away from the layout: rigid slide
        j = eta[[0, 1, 2, 7]]
        fj = fem.joint_coordinates(j)
        assert fj[2] == (j[2] - j[1] if convention == "horizontal" else j[2])
        assert np.allclose(fem.am_joint_coordinates(fj), j, rtol=0, atol=1e-15)
        q = fem.fem_coordinates(eta)
        # the rigid arm: B at the same point to round-off (lengths ~ 10 m)
        assert np.allclose(fem.tip_position(q), am.tip_position(eta), rtol=0, atol=1e-13)
        assert np.allclose(fem.joint_a_position(q), am.joint_position(eta), rtol=0,
                           atol=1e-13)


def test_deflected_states_map_to_second_order():
    # B of the mapped FEM state differs from the assumed-modes B by O(q^2) (arm 3's tip
    # frame turns exactly, [W]'s field is linear): halving q quarters the difference
    am = RRRPArm(POWER)
    eta = np.array([0.3, 0.2, -0.2, 0.02, -0.03, 0.04, 0.05, 2.3])
    gaps = []
    for s in (1.0, 0.5):
        e = eta.copy()
        e[3:7] *= s
        gaps.append(np.linalg.norm(FEM.tip_position(FEM.fem_coordinates(e)) - am.tip_position(e)))
    assert 0 < gaps[0] < 1e-3
    assert gaps[0] / gaps[1] == pytest.approx(4.0, rel=0.05)     # O(q^2); O(q^3) is 5 %
    back = FEM.am_coordinates(FEM.fem_coordinates(eta))
    assert np.array_equal(back[[0, 1, 2, 7]], eta[[0, 1, 2, 7]])
    assert np.allclose(back[3:5], eta[3:5], rtol=0, atol=1e-15)  # arm 1's tip: exact
    assert np.allclose(back[5:7], eta[5:7], rtol=0, atol=1e-4 * 0.05)   # B: 2nd order


def test_power_z_mode_moves_joint_a():
    am, sine = RRRPArm(POWER), RRRPArm()
    assert am.K1z == pytest.approx(POWER.EI1 * power_stiffness_factor(POWER.p1y) / POWER.l1**3,
                                   rel=1e-15)
    eta = np.array([0.0, 0.0, 0.0, 0.0, 0.01, 0.0, 0.0, 2.3])
    assert am.joint_position(eta) == pytest.approx([POWER.l1, 0.0, 0.01], abs=1e-15)
    assert sine.joint_position(eta) == pytest.approx([POWER.l1, 0.0, 0.0], abs=1e-15)


def test_cantilever_sag_closed_forms():
    # uniform weight w L^4 / (8 EI) and a tip mass P L^3 / (3 EI) (Timoshenko & Gere)
    EI, rA, L, m, g = 2.0e4, 3.0, 4.0, 5.0, 9.81
    assert rf.cantilever_sag([(0.0, L, EI, rA)], [], g) == pytest.approx(
        rA * g * L**4 / (8 * EI), rel=1e-14)
    assert rf.cantilever_sag([(0.0, 1.5, EI, 0.0), (1.5, L, EI, 0.0)], [(L, m)], g) == \
        pytest.approx(m * g * L**3 / (3 * EI), rel=1e-14)


@pytest.mark.parametrize("a", [2.0, 3.5])
def test_fem_sag_matches_the_stepped_cantilever(a):
    # Hermite elements are nodally exact when every section change is a node
    fem = rf.fem_arm(POWER, a=a, n_elements=3)
    delta = rf.cantilever_sag(*rf.straight_arm_sections(POWER, a), POWER.gravity)
    u = rf.linear_sag(fem, [1.1, 0.0, 0.0, a])
    assert -u[2] == pytest.approx(delta, rel=1e-12)
    assert np.allclose(u[:2], 0.0, atol=1e-12 * delta)


def test_one_mode_ritz_work_below_the_elements():
    # admissible shapes: the Ritz solution's gravity work never exceeds the exact one's
    joints = [0.0, 0.0, 0.0, 2.3]
    uA, WA = rf.am_linear_sag(RRRPArm(POWER), joints)
    WF = rf.fem_linear_work(FEM, joints)
    assert 0 < WA < WF
    assert 0 < -uA[2] < -rf.linear_sag(FEM, joints)[2]


def test_frequencies_bracket_and_static_deflection_is_equilibrium():
    p = RRRPParams(phi1z="power", gravity=0.0)
    fem, am = rf.fem_arm(p, a=2.3), RRRPArm(p)
    eta = np.array([0.0, 0.2, -0.2, 0, 0, 0, 0, 2.3])
    f_am = rf.am_frequencies(am, eta, 2)
    f_fem = fem.frequencies(fem.fem_coordinates(eta), 2)
    assert np.all(f_am > f_fem)          # one admissible mode: Rayleigh quotient above
    g = rf.fem_arm(POWER, a=2.3)
    q = g.static_deflection(g.fem_coordinates(eta))
    f = g.arm.forcing(0.0, q, np.zeros(g.arm.nq))[1][g.arm.elastic_index]
    # Newton to a 1e-12 m step: the residual is K times that (K ~ 1e6 N/m)
    assert np.max(np.abs(f)) < 1e-4


def test_difference_bound_holds_for_two_oscillators():
    # eq. (6.3) on its own premise: two undamped oscillators, the same step load per unit
    # modal mass, from rest: u_m = (g0 / w_m^2) (1 - cos w_m t)
    t = np.linspace(0.0, 20.0, 4001)
    wA, wF, g0 = 4.5, 2.8, 1.0
    uA = (g0 / wA**2) * (1 - np.cos(wA * t))
    uF = (g0 / wF**2) * (1 - np.cos(wF * t))
    B = rf.difference_bound(t, uA, wA, wF)
    assert np.all(np.abs(uF - uA) <= B + 1e-12)
    # and it is not empty: the difference reaches a fair share of it early on
    assert np.max((np.abs(uF - uA) / np.maximum(B, 1e-300))[t > 0.1]) > 0.3


def test_quintic_motion_is_rest_to_rest():
    m = rf.quintic_motion([0, 0.2, -0.2, 2.3], [0.5, 0.3, -0.3, 2.3], 6.0)
    th0, v0, a0 = m(0.0)
    th1, v1, a1 = m(6.0)
    assert np.allclose(th0, [0, 0.2, -0.2, 2.3]) and np.allclose(th1, [0.5, 0.3, -0.3, 2.3])
    assert not np.any(v0) and not np.any(a0) and not np.any(v1) and not np.any(a1)
    # rates: the central difference of theta (error O(h^2) ~ 1e-9)
    h = 1e-4
    assert np.allclose((m(2.0 + h)[0] - m(2.0 - h)[0]) / (2 * h), m(2.0)[1], atol=1e-8)
    assert np.allclose((m(2.0 + h)[1] - m(2.0 - h)[1]) / (2 * h), m(2.0)[2], atol=1e-8)
    assert math.isclose(m(3.0)[0][0], 0.25)
