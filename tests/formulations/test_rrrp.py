"""The spatial RRRP arm (chrono_flex.formulations.rrrp, docs/rrrp-arm.md): unit check of the
modal stiffness, mass matrix properties, the rigid limit against hand formulas, conservation
laws and the telescopic kinematics."""

import math

import numpy as np
import pytest

from chrono_flex.errors import ParameterError, SimulationError
from chrono_flex.formulations.rrrp import RRRPArm, RRRPParams, power_stiffness_factor

ARM = RRRPArm()


def test_power_mode_stiffness_unit_check():
    # docs/rrrp-arm.md eq. (4.2): K_44 = E I1 int (phi_1y'')^2 dx = 7.037 E I1 / l1^3, p = 1.5522
    assert f"{power_stiffness_factor(1.5522):.3f}" == "7.037"
    p = ARM.params
    assert f"{ARM.K1y * p.l1**3 / p.EI1:.3f}" == "7.037"
    # sin(pi x/l): int (pi/l)^4 sin^2 = pi^4 / (2 l^3)
    assert ARM.K1z == pytest.approx(p.EI1 * math.pi**4 / (2 * p.l1**3), rel=1e-14)


def test_arm2_stiffness_matches_quadrature():
    # K_2(a) in closed form vs a fine quadrature of EI (phi'')^2 over each tube's range
    p, a = ARM.params, 2.7
    L, lam = p.l2 + a, p.lam(a)
    d2 = lambda x: lam * (lam - 1) / L**2 * (x / L) ** (lam - 2)  # noqa: E731
    from scipy.integrate import quad
    k = (p.EI2 * quad(lambda x: d2(x) ** 2, 0, p.l2, limit=200)[0]
         + p.EI3 * quad(lambda x: d2(x) ** 2, L - p.l3, L, limit=200)[0])
    assert ARM.stiffness(a)[2] == pytest.approx(k, rel=1e-8)


def _random_states(rng, n, arm=ARM):
    lo, hi = arm.params.stroke
    eta = rng.uniform(-1.5, 1.5, (n, 8))
    eta[:, 3:7] = rng.uniform(-0.1, 0.1, (n, 4))
    eta[:, 7] = rng.uniform(lo, hi, n)
    return eta


def test_mass_matrix_symmetric_positive_definite():
    rng = np.random.default_rng(1)
    M = ARM.mass_matrix(_random_states(rng, 20))
    assert np.max(np.abs(M - np.swapaxes(M, -1, -2))) <= 1e-12 * np.max(np.abs(M))
    assert np.all(np.linalg.eigvalsh(M) > 0)


def test_velocity_terms_match_lagrange_from_mass_matrix():
    # c = M_dot eta_d - dT/deta, both by central differences of M (error ~ h^2 ~ 1e-10)
    rng = np.random.default_rng(2)
    eta, v = _random_states(rng, 1)[0], rng.normal(size=8) * 0.5
    h = 1e-5
    E = np.eye(8)
    dT = np.array([(ARM.kinetic_energy(eta + h * E[k], v) - ARM.kinetic_energy(eta - h * E[k], v))
                   / (2 * h) for k in range(8)])
    Mdot = (ARM.mass_matrix(eta + h * v) - ARM.mass_matrix(eta - h * v)) / (2 * h)
    c = ARM.velocity_terms(eta, v)
    assert np.allclose(c, Mdot @ v - dT, rtol=1e-6, atol=1e-6 * np.max(np.abs(c)))


def _stiff_params():
    return RRRPParams(EI1=1e12, EI2=1e12, EI3=1e12, theta3_from="arm1")  # hand formulas: relative theta3


def test_rigid_limit_yaw_kinetic_energy():
    # arms horizontal, elastic coordinates frozen at zero, only theta1 turning:
    # T = 1/2 I_z w^2, I_z = rho_A1 l1^3/3 + m_A l1^2 + rho_A2 int_0^l2 (l1 + x)^2 dx
    #     + rho_A3 int_{L-l3}^{L} (l1 + x)^2 dx + m_B (l1 + L)^2
    arm = RRRPArm(_stiff_params())
    p, a, w = arm.params, 2.4, 0.7
    L = p.l2 + a
    cube = lambda lo, hi: ((p.l1 + hi) ** 3 - (p.l1 + lo) ** 3) / 3  # noqa: E731
    Iz = (p.rho_A1 * p.l1**3 / 3 + p.m_A * p.l1**2 + p.rho_A2 * cube(0, p.l2)
          + p.rho_A3 * cube(L - p.l3, L) + p.m_B * (p.l1 + L) ** 2)
    eta = np.array([0.3, 0, 0, 0, 0, 0, 0, a])
    T = arm.kinetic_energy(eta, [w, 0, 0, 0, 0, 0, 0, 0])
    assert T == pytest.approx(0.5 * Iz * w * w, rel=1e-13)


def test_rigid_limit_pitch_and_slide_kinetic_energy():
    # theta2 turning about the horizontal joint axis through the origin: T = 1/2 w^2 sum m |r|^2
    # with arm 1 at elevation t2 and arm 2 at t2 + t3; plus a pure slide a_dot of the telescope:
    # T = 1/2 (rho_A3 l3 + m_B) a_dot^2.
    arm = RRRPArm(_stiff_params())
    p, a, t2, t3, w = arm.params, 3.0, 0.4, -0.9, 0.6
    L = p.l2 + a
    e1 = np.array([math.cos(t2), 0, math.sin(t2)])
    e2 = np.array([math.cos(t2 + t3), 0, math.sin(t2 + t3)])
    c = float(e1 @ e2)
    # int |l1 e1 + x e2|^2 dx = l1^2 x + l1 c x^2 + x^3/3
    F = lambda x: p.l1**2 * x + p.l1 * c * x**2 + x**3 / 3  # noqa: E731
    J = (p.rho_A1 * p.l1**3 / 3 + p.m_A * p.l1**2 + p.rho_A2 * F(p.l2)
         + p.rho_A3 * (F(L) - F(L - p.l3)) + p.m_B * (p.l1**2 + 2 * p.l1 * c * L + L * L))
    eta = np.array([-1.1, t2, t3, 0, 0, 0, 0, a])
    T = arm.kinetic_energy(eta, [0, w, 0, 0, 0, 0, 0, 0])
    assert T == pytest.approx(0.5 * J * w * w, rel=1e-13)
    ad = 0.3
    assert arm.kinetic_energy(eta, [0, 0, 0, 0, 0, 0, 0, ad]) == pytest.approx(
        0.5 * (p.rho_A3 * p.l3 + p.m_B) * ad * ad, rel=1e-13)


def test_telescopic_extension_moves_tip_along_arm2():
    # tip = r_A + A2 [L, q2y, q2z] (phi_2(L) = 1), so changing a by da moves B by da A2 e_x
    rng = np.random.default_rng(3)
    eta = _random_states(rng, 1)[0]
    eta[7] = 2.1
    e0 = eta.copy()
    e0[5:7] = 0.0
    axis = (ARM.tip_position(e0) - ARM.joint_position(e0)) / (ARM.params.l2 + e0[7])
    eta2 = eta.copy()
    eta2[7] += 1.2
    d = ARM.tip_position(eta2) - ARM.tip_position(eta)
    assert np.allclose(d, 1.2 * axis, atol=1e-13)
    assert np.linalg.norm(axis) == pytest.approx(1.0, rel=1e-14)


ETA0 = np.array([0.0, 0.3, -0.3, 0.0, 0.0, 0.0, 0.0, 2.75])
ETA_D0 = np.array([0.4, 0.3, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])


def test_free_motion_conserves_energy_and_yaw_momentum():
    # undamped free motion under gravity (joints free, the chain collapses and slides;
    # 0.8 s before a leaves the stroke). RK45's local error is held below rtol |y| + atol,
    # so after ~300 steps the drift of T + V relative to max T stays well below 10 rtol
    # (measured ~1e-9 for rtol = 1e-6). Gravity along Z and no torque on theta1: the
    # angular momentum about Z, dT/dtheta1_dot = (M eta_d)_0, is a first integral.
    rtol = 1e-6
    r = ARM.simulate(0.8, ETA0, ETA_D0, method="RK45", rtol=rtol, atol=1e-8, n_out=81)
    E = r.energy
    assert np.max(np.abs(E.balance_error)) / np.max(E.kinetic) < 10 * rtol
    Lz = r.angular_momentum_z
    assert np.ptp(Lz) / np.max(np.abs(Lz)) < 10 * rtol
    assert np.max(np.abs(r.q[:, 3:7])) > 1e-3          # the arms did bend
    assert r.tip_position.shape == (81, 3)


def test_yaw_momentum_conserved_under_internal_torques():
    # torques on theta2, theta3 and a force on a are internal to the Z-rotation symmetry
    def u(t, eta, eta_d):
        return (0.0, 4000 * math.sin(3 * t), 1500.0 * math.cos(2 * t), -50.0)

    rtol = 1e-6
    r = ARM.simulate(0.5, ETA0, ETA_D0, torque=u, method="RK45", rtol=rtol, atol=1e-8,
                     n_out=51)
    Lz = r.angular_momentum_z
    assert np.ptp(Lz) / np.max(np.abs(Lz)) < 10 * rtol
    E = r.energy   # the balance includes the work of the inputs
    scale = np.max(E.kinetic) + np.max(np.abs(E.input_work))
    assert np.max(np.abs(E.balance_error)) / scale < 10 * rtol


@pytest.mark.parametrize("kw, name", [
    (dict(l1=-1.0), "l1"), (dict(tube2=(0.06, 0.08)), "tube2"), (dict(EI3=0.0), "EI3"),
    (dict(m_B=-1.0), "m_B"), (dict(stroke=(0.0, 3.5)), "lambda_coeffs"),
    (dict(stroke=(2.0, 4.5)), "stroke"), (dict(p1y=1.4), "p1y"), (dict(n_gauss=0), "n_gauss"),
    (dict(gravity=float("nan")), "gravity"),
])
def test_bad_parameters_name_the_parameter(kw, name):
    with pytest.raises(ParameterError) as e:
        RRRPParams(**kw)
    assert e.value.parameter == name


def test_bad_simulate_arguments():
    with pytest.raises(ParameterError) as e:
        ARM.simulate(1.0, np.zeros(7))
    assert e.value.parameter == "q0"
    with pytest.raises(ParameterError) as e:
        ARM.simulate(1.0, ETA0, method="Euler")
    assert e.value.parameter == "method"
    with pytest.raises(ParameterError) as e:
        ARM.simulate(0.1, ETA0, torque=lambda t, q, qd: (1.0, 2.0))
    assert e.value.parameter == "torque"
    with pytest.raises(ParameterError) as e:
        ARM.simulate(1.0, np.r_[ETA0[:7], 1.0])
    assert e.value.parameter == "q0"


def test_divergence_and_nan_raise_simulation_error():
    with pytest.raises(SimulationError) as e:     # a huge force throws the telescope out
        ARM.simulate(1.0, ETA0, torque=lambda t, q, qd: (0, 0, 0, 1e5))
    assert 0 < e.value.time < 1.0
    with pytest.raises(SimulationError):
        ARM.simulate(1.0, ETA0, torque=lambda t, q, qd: (0, 0, 0, float("nan")))


def test_static_deflection_zeroes_the_modal_gradient():
    eta = ARM.static_deflection([0.2, 0.2, -0.2, 0, 0, 0, 0, 2.3])
    g = ARM.potential_gradient(eta)
    assert np.max(np.abs(g[3:7])) < 1e-8 * np.max(np.abs(g))
    assert eta[6] < 0          # arm 2+3 sags under gravity


def test_radau_agrees_with_rk45():
    # both to rtol 1e-8 over 0.2 s: the states agree within 50 (rtol |y| + atol); measured 3.8
    a = ARM.simulate(0.2, ETA0, ETA_D0, rtol=1e-8, atol=1e-10, n_out=3, method="RK45")
    b = ARM.simulate(0.2, ETA0, ETA_D0, rtol=1e-8, atol=1e-10, n_out=3, method="Radau")
    e = np.abs(a.q[-1] - b.q[-1]) / (1e-10 + 1e-8 * np.abs(a.q[-1]))
    assert np.max(e) < 50


def test_theta3_from_horizontal_is_arm1_with_theta3_minus_theta2():
    # [W] eq. 24 measures theta3 from the horizontal: the same pose as the relative joint
    # angle theta3 - theta2, so every point sits at the same place (exactly: same formulas)
    rel = RRRPArm(RRRPParams(theta3_from="arm1"))
    rng = np.random.default_rng(7)
    eta = _random_states(rng, 5)
    eta_rel = eta.copy()
    eta_rel[:, 2] = eta[:, 2] - eta[:, 1]
    assert np.array_equal(ARM.positions(eta), rel.positions(eta_rel))


def test_joint_torque_power_is_the_same_in_both_conventions():
    # tau3 acts between arm 1 and arm 2: its power is tau3 (theta3_dot - theta2_dot) with
    # theta3 from the horizontal, so Q . eta_d = tau1 w1 + tau2 w2 + tau3 w_rel + F a_dot
    rng = np.random.default_rng(8)
    tau, eta_d = rng.normal(size=4), rng.normal(size=8)
    w_rel = eta_d[2] - eta_d[1]
    power = tau[0] * eta_d[0] + tau[1] * eta_d[1] + tau[2] * w_rel + tau[3] * eta_d[7]
    assert ARM.generalized_force(tau) @ eta_d == pytest.approx(power, rel=1e-14)
    # joint_inputs is its inverse on the actuated coordinates
    Q = ARM.generalized_force(tau)[[0, 1, 2, 7]]
    assert np.allclose(ARM.joint_inputs(Q), tau, rtol=0, atol=1e-15)


@pytest.mark.parametrize("name", ["W-80/60-60/40", "W-geometry-2", "W-geometry-3"])
def test_lambda_presets_are_the_published_fits(name):
    from chrono_flex.formulations.rrrp import LAMBDA_PRESETS
    p = RRRPParams(lambda_coeffs=name)
    assert p.lambda_coeffs == LAMBDA_PRESETS[name]
    lo, hi = p.stroke
    assert p.lam(np.linspace(lo, hi, 50)).min() > 1.5       # finite bending energy


def test_bad_theta3_convention_and_preset_are_refused():
    with pytest.raises(ParameterError, match="theta3_from"):
        RRRPParams(theta3_from="vertical")
    with pytest.raises(ParameterError, match="lambda_coeffs"):
        RRRPParams(lambda_coeffs="W-geometry-9")
