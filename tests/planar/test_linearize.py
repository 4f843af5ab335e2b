"""PlanarArm.linearize and the static equilibrium (docs/linear-models.md)."""

import math

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex.errors import ParameterError
from chrono_flex.linear import LinearModel
from chrono_flex.scenarios.arms import bien_link, get

HUB, PAYLOAD = 0.01, 0.1          # kg m^2 at the hub, kg at the tip


def pinned_link(n, **kw):
    """[B]'s link (L = 1 m, EI = 1.04 N m^2, rho A = 0.196 kg/m) on a revolute joint with
    hub inertia and payload, torque at the hub, no gravity."""
    return cf.PlanarArm([bien_link(1.0, n)], hub_inertia=HUB, payload=cf.Payload(PAYLOAD), **kw)


def positive_imag(z):
    return np.sort(z.imag[z.imag > 1e-9])


def hub_and_tip(n):
    arm = pinned_link(n)
    hub = arm.linearize(inputs="torque1", outputs="theta1")
    tip = arm.linearize(inputs="torque1", outputs="tip_lateral")
    return arm, hub, tip


def test_zeros_of_torque_to_joint_angle_are_the_clamped_link_frequencies():
    arm, hub, _ = hub_and_tip(8)
    zeros = positive_imag(hub.zeros()) / (2 * np.pi)
    locked = arm.natural_frequencies(6, joints="locked")
    # the same generalized eigenproblem (K_ee, M_ee) solved two ways (QZ of the balanced
    # Rosenbrock pencil, eigh): round-off amplified by omega_max / omega_k ~ 1e4 at most
    np.testing.assert_allclose(zeros[:6], locked, rtol=1e-9)
    poles = positive_imag(hub.poles()) / (2 * np.pi)
    np.testing.assert_allclose(poles[:6], arm.natural_frequencies(6, joints="free"), rtol=1e-9)
    # collocated: a double pole at 0 (the rigid rotation), then z1 < p1 < z2 < p2 < ...
    assert np.sum(np.abs(hub.poles()) < 1e-6) == 2
    merged = np.empty(2 * zeros.size)
    merged[0::2], merged[1::2] = zeros, poles[:zeros.size]
    assert np.all(np.diff(merged) > 0), merged


def test_torque_to_tip_position_has_real_zero_pairs():
    _, _, tip = hub_and_tip(8)
    z = tip.zeros()
    z = z[np.argsort(np.abs(z))][:8]
    # the lowest four pairs (those 8 elements resolve: the higher zeros of a discretised
    # beam pair up into complex quartets, an artefact of the mesh that moves up with it)
    assert np.all(np.abs(z.imag) <= 1e-9 * np.abs(z))       # real (no damping)
    right, left = np.sort(z.real[z.real > 0]), np.sort(-z.real[z.real < 0])
    assert right.size == left.size == 4                      # +-sigma: non-minimum phase
    # mirror pairs to the round-off of the balanced pencil
    np.testing.assert_allclose(right, left, rtol=1e-8)


def test_zeros_and_poles_converge_at_the_hermite_rate():
    # cubic Hermite elements: eigenvalue (omega^2) and so frequency errors O(h^4)
    # (Strang & Fix, 2 (k - m) with k = 4, m = 2); the zeros of both outputs are
    # eigenvalues of constrained beams of the same elements, so the same rate. Window
    # [3.5, 4.5]: the asymptotic 4 with the pre-asymptotic spread of 4 to 12 elements.
    ns = np.array([4, 6, 8, 12])

    def first(n):
        _, hub, tip = hub_and_tip(n)
        zt = tip.zeros().real
        return np.array([positive_imag(hub.zeros())[0], positive_imag(hub.poles())[0],
                         np.min(zt[zt > 0])])

    ref = first(48)
    errs = np.array([np.abs(first(n) / ref - 1) for n in ns])
    for k, what in enumerate(("zero to joint angle", "pole", "tip zero")):
        rate = -np.polyfit(np.log(ns), np.log(errs[:, k]), 1)[0]
        assert 3.5 <= rate <= 4.5, (what, rate, errs[:, k])


def test_frequency_response_and_python_control():
    control = pytest.importorskip("control")
    arm, hub, _ = hub_and_tip(4)
    sys = hub.to_control()
    assert list(sys.input_labels) == ["torque1"] and list(sys.output_labels) == ["theta1"]
    w = np.array([1.0, 10.0, 100.0])
    ours = hub.frequency_response(w)[:, 0, 0]
    theirs = np.array([complex(control.evalfr(sys, 1j * x)) for x in w])
    np.testing.assert_allclose(ours, theirs, rtol=1e-10)   # the same formula, round-off
    # low frequency: the rigid arm, 1 / (-(J_total) w^2) with J_total = hub + link + payload
    link = arm.links[0]
    J = HUB + link.rho_A * link.length ** 3 / 3 + PAYLOAD * link.length ** 2
    np.testing.assert_allclose(hub.frequency_response([1e-3])[0, 0, 0], -1 / (J * 1e-6),
                               rtol=1e-6)     # the flexible modes add (w / omega_1)^2 ~ 4e-9; the
    # solve of (j w I - A) next to the double pole at 0 loses digits as |A| / w^2 ~ 1e13


def test_default_pose_is_the_equilibrium_under_gravity():
    arm = get("kozlowski-1link").build()[0]
    lin = arm.linearize(inputs="torque1", outputs=["theta1", "tip_deflection1"])
    eq = arm.equilibrium()                      # held horizontal: its holding torque
    np.testing.assert_allclose(lin.info["pose"], eq.q, atol=1e-14)
    # the holding torque of a uniform link with no tip mass: m g L / 2 (bending shortens
    # the arm by O(w^2 / L), below 1e-5 here)
    assert eq.joint_torques[0] == pytest.approx(5.0 * 9.81 / 2, rel=1e-5)
    free = arm.equilibrium(joints="free")
    assert free.stable and free.q[0] == pytest.approx(-math.pi / 2, abs=1e-10)


def test_hanging_pendulum_modes_at_equilibrium():
    arm = get("kozlowski-1link").build()[0]
    eq = arm.equilibrium(joints="free", joint_angles=[math.radians(-80)])
    hanging = arm.coordinates([-math.pi / 2])    # straight: gravity along the link
    for joints in ("locked", "free"):
        f_eq = arm.natural_frequencies(2, q=eq.q, joints=joints, equilibrium=True)
        f_rest = arm.natural_frequencies(2, q=hanging, joints=joints)
        assert np.all(f_eq > 0)
        # the two poses agree to Newton's tolerance (1e-12), the frequencies likewise
        np.testing.assert_allclose(f_eq, f_rest, rtol=1e-9)
    # the free pendulum's lowest mode is the swing, about sqrt(3 g / 2 L) / 2 pi
    free = arm.natural_frequencies(1, q=eq.q, joints="free")[0]
    assert free == pytest.approx(math.sqrt(1.5 * 9.81) / (2 * math.pi), rel=1e-2)  # elastic


def test_modes_refuse_a_pose_that_is_not_an_equilibrium():
    arm = get("kozlowski-1link").build()[0]
    with pytest.raises(ParameterError, match="`q`.*not a static equilibrium.*link1.e"):
        arm.modes(2, q=arm.coordinates([0.0]), equilibrium=True)
    with pytest.raises(ParameterError, match="`pose`.*not a static equilibrium"):
        arm.linearize(inputs="torque1", pose=arm.coordinates([math.radians(-80)]))


def test_bad_names_stop_with_the_name():
    arm = pinned_link(2)
    with pytest.raises(ParameterError, match="`inputs`.*'torque7'"):
        arm.linearize(inputs="torque7")
    with pytest.raises(ParameterError, match="`outputs`.*'tip_speed'"):
        arm.linearize(inputs="torque1", outputs="tip_speed")
    with pytest.raises(ParameterError, match="`outputs` names a station off link 1.*'strain1@1.5'"):
        arm.linearize(inputs="torque1", outputs="strain1@1.5")
    lin = arm.linearize(inputs="torque1", outputs=["theta1", "tip_y"])
    with pytest.raises(ParameterError, match="`zeros`"):
        lin.zeros()
    with pytest.raises(ParameterError, match="`outputs`.*'tip'"):
        lin.select(outputs="tip")


def test_pose_held_by_nothing_is_refused():
    arm = get("kozlowski-1link").build()[0]
    eq = arm.equilibrium()                              # held by a torque
    with pytest.raises(ParameterError, match="`pose`.*joint 1 is held.*torque1"):
        arm.linearize(inputs=[], outputs="theta1", pose=eq)


def test_outputs_are_the_kinematics_rows():
    arm = pinned_link(4)
    lin = arm.linearize(inputs="torque1", outputs=["tip_y", "tip_lateral", "tip_deflection1",
                                                   "strain1@0.0", "theta1_dot"])
    C = lin.C
    nq = arm.nq
    # at theta = 0 the tip's y is L theta + w(L): the same row as tip_lateral
    np.testing.assert_allclose(C[0], C[1], atol=1e-9)     # central differences, h ~ 1e-6
    assert C[0, arm.joint_index[0]] == pytest.approx(1.0, rel=1e-9)
    np.testing.assert_allclose(C[0, arm.elastic_index], C[2, arm.elastic_index], atol=1e-9)
    # the root strain of a static tip load P: (h/2) P L / EI (Hermite: nodally exact)
    K = arm.stiffness_matrix()[np.ix_(arm.elastic_index, arm.elastic_index)]
    tip = C[2, arm.elastic_index]
    e = np.linalg.solve(K, tip)                          # unit tip load
    link = arm.links[0]
    strain = C[3, arm.elastic_index] @ e
    assert strain == pytest.approx(0.5 * link.thickness * 1.0 / link.EI, rel=1e-10)
    assert C[4, nq + arm.joint_index[0]] == 1.0


def test_linear_model_checks_its_matrices():
    with pytest.raises(ParameterError, match="`state_names`"):
        LinearModel(np.eye(2), np.ones((2, 1)), np.ones((1, 2)), 0, ["a"], ["u"], ["y"])
    # G(s) = (s/2 + 1) / (s^2 + 3 s + 2): poles -1, -2, one zero at -2
    m = LinearModel([[0.0, 1.0], [-2.0, -3.0]], [[0.0], [1.0]], [[1.0, 0.5]], 0,
                    ["a", "b"], ["u"], ["y"])
    np.testing.assert_allclose(m.poles(), [-2, -1], rtol=1e-12)
    np.testing.assert_allclose(m.zeros(), [-2], rtol=1e-12)
    s = 0.3j
    np.testing.assert_allclose(m.frequency_response([0.3])[0, 0, 0],
                               (s / 2 + 1) / (s * s + 3 * s + 2), rtol=1e-14)


def test_shapers_closed_form_and_bad_input():
    from chrono_flex.linear import input_shaper, residual_vibration, shape

    # undamped: ZV is two equal halves half a period apart (Smith's posicast)
    t, a = input_shaper(2.0, 0.0, "ZV")
    np.testing.assert_allclose(t, [0.0, math.pi / 2.0], rtol=1e-15)
    np.testing.assert_allclose(a, [0.5, 0.5], rtol=1e-15)
    t, a = input_shaper(2.0, 0.1, "ZVD")
    assert residual_vibration(2.0, 0.1, t, a) < 1e-15            # round-off of three terms
    # ZVD is flat in the frequency: a 5 % error leaves (pi/2 * 0.05)^2 ~ 0.6 %, ZV ~ 8 %
    assert residual_vibration(2.1, 0.1, t, a) < 0.01
    assert residual_vibration(2.1, 0.1, *input_shaper(2.0, 0.1, "ZV")) > 0.05
    ramp = shape(lambda s: min(s, 1.0), input_shaper(2.0, 0.0, "ZV"))     # impulses 0, pi/2
    assert ramp(0.1) == pytest.approx(0.05, rel=1e-14)       # half the ramp, the second not yet
    assert ramp(3.0) == pytest.approx(1.0, rel=1e-14)        # ends where the ramp does
    with pytest.raises(ParameterError, match="`frequency`"):
        input_shaper(-1.0)
    with pytest.raises(ParameterError, match="`damping`"):
        input_shaper(1.0, 1.0)
    with pytest.raises(ParameterError, match="`kind`"):
        input_shaper(1.0, 0.0, "ZVDD")
    with pytest.raises(ParameterError, match="`profile`"):
        shape(3.0, input_shaper(1.0))
