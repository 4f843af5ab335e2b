"""The drive module ([S] eq. 24): coupling contract, energy balance, steady states, errors."""

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from chrono_flex.drive import DCMotor, DriveParams, GearDrive, simulate_drive
from chrono_flex.errors import ParameterError, SimulationError

S_TABLE = dict(L=0.746e-3, R=7.25, k_E=0.0453, k_M=0.0452, J1=9.49e-7, ratio=28.0, K_V1=0.146,
               c=1003.0, J2=0.0021, K_ML=3.266, Mc=0.0405, Ms=0.0467, dOmega2=1e-4,
               Omega2s=10.47, K_V2=0.0, sigma0=100.0, sigma1=0.923, T_min=2e-6)


def test_factory_holds_the_identified_values_and_documented_defaults():
    p = DriveParams.serebrenny2019()
    for k, v in S_TABLE.items():
        assert getattr(p, k) == v, k
    assert (p.theta_b, p.delta, p.friction, p.motor) == (1e-3, 2.0, "dynamic", "voltage")
    # [S]'s condition on presliding damping, zeta > 0.5 on the output inertia
    assert p.friction_model.presliding_damping_ratio(p.J2) > 0.5


def test_contract_shapes_and_rest_state():
    for friction in ("dynamic", "static", "none"):
        drive = GearDrive(DriveParams.serebrenny2019(friction=friction, Mc=0.0405))
        assert drive.n_states == 4 and drive.output_inertia == 0.0021
        x = drive.initial_state(theta_out=0.7)
        assert x[1] == pytest.approx(28 * 0.7) and x[0] == x[2] == x[3] == 0.0
        dx, tau = drive.rates(0.0, x, 0.7, 0.0, 0.0)
        assert isinstance(dx, np.ndarray) and dx.shape == (4,) and isinstance(tau, float)
        # at rest with zero twist and no voltage nothing moves (exactly)
        assert np.all(dx == 0.0) and tau == 0.0
        out = drive.outputs(0.0, x, 0.7, 0.0, 0.0)
        for key in ("current", "motor_torque", "twist", "transmitted_torque", "friction_torque",
                    "z", "electrical_power", "copper_loss", "tau_out"):
            assert isinstance(out[key], float), key


def test_rates_are_explicit_functions_of_state():
    """No algebraic loop: tau_out and the rates follow from states alone, so evaluating twice
    gives the same numbers and tau_out = M1' - M_F' from the outputs."""
    drive = GearDrive(DriveParams.serebrenny2019())
    x = np.array([0.4, 28 * 0.1 + 0.02, 50.0, 1e-4])
    dx1, tau1 = drive.rates(0.0, x, 0.1, 1.5, 12.0)
    dx2, tau2 = drive.rates(0.0, x, 0.1, 1.5, 12.0)
    assert np.array_equal(dx1, dx2) and tau1 == tau2
    o = drive.outputs(0.0, x, 0.1, 1.5, 12.0)
    assert tau1 == o["transmitted_torque"] - o["friction_torque"]
    assert o["twist"] == pytest.approx((28 * 0.1 + 0.02) / 28 - 0.1, rel=1e-12)


def _balance_run(friction, rtol):
    p = DriveParams.serebrenny2019(friction=friction)
    drive = GearDrive(p)

    def u(t):
        return 6.0 + 6.0 * math.sin(2 * math.pi * 30 * t)

    def m_out(t):
        return 0.15 * math.sin(2 * math.pi * 20 * t)

    flows = ("electrical_power", "copper_loss", "emf_power", "mechanical_power", "gear_loss",
             "friction_power")

    def rhs(t, y):
        x, a2, w2 = y[:4], y[4], y[5]
        dx, tau = drive.rates(t, x, a2, w2, u(t))
        o = drive.outputs(t, x, a2, w2, u(t))
        return np.concatenate([dx, [w2, (tau + m_out(t)) / p.J2],
                               [o[k] for k in flows], [m_out(t) * w2]])

    y0 = np.concatenate([drive.initial_state(), [0.0, 0.0], np.zeros(len(flows) + 1)])
    sol = solve_ivp(rhs, (0.0, 0.1), y0, method="Radau", rtol=rtol, atol=1e-12)
    assert sol.success
    y = sol.y[:, -1]
    E = dict(zip(flows + ("external_work",), y[6:]))
    o0 = drive.outputs(0, y0[:4], 0, 0, u(0))
    o1 = drive.outputs(0.1, y[:4], y[4], y[5], u(0.1))
    delta = {k: o1[k] - o0[k] for k in ("magnetic_energy", "motor_kinetic_energy", "spring_energy")}
    delta["output_kinetic_energy"] = 0.5 * p.J2 * y[5] ** 2
    return E, delta


@pytest.mark.parametrize("friction", ["dynamic", "static"])
def test_energy_balance_closes_along_a_simulation(friction):
    rtol = 1e-8
    E, d = _balance_run(friction, rtol)
    scale = E["electrical_power"]
    # motor: u i = R i^2 + d/dt(L i^2/2) + k_E i Omega1
    motor = E["electrical_power"] - E["copper_loss"] - d["magnetic_energy"] - E["emf_power"]
    # whole drive: + (k_E - k_M) i Omega1 (the identified constants differ by 0.2 %),
    # rotor and output kinetic energy, gear spring, gear damping, friction, external work
    whole = (E["electrical_power"] + E["external_work"] - E["copper_loss"] - d["magnetic_energy"]
             - (E["emf_power"] - E["mechanical_power"]) - d["motor_kinetic_energy"]
             - d["spring_energy"] - E["gear_loss"] - d["output_kinetic_energy"]
             - E["friction_power"])
    # the integrals carry the solver's error control: of order rtol of the input energy
    # (observed ~1e-2 rtol; 1e-6 gives 100x more, so the residual follows rtol)
    assert abs(motor) <= rtol * scale
    assert abs(whole) <= rtol * scale
    # every term is exercised (the balance is not dominated by one of them)
    assert E["gear_loss"] > 0 and E["friction_power"] > 0 and E["copper_loss"] > 0.1 * scale


def _steady_output_speed(p, u):
    """Closed form: constant speed, M1' = c b(theta) constant, Ms = Mc (Coulomb level beyond
    the linear zone), viscous load K_V2. Output: M1' = (1 + K_ML M1') Mc + K_V2 W,
    motor: u = R i + k_E r W, k_M i r = M1'  -> linear in W."""
    r, a = p.ratio, 1.0 - p.K_ML * p.Mc
    # M1' = (Mc + K_V2 W) / a ; u = R (Mc + K_V2 W) / (a k_M r) + k_E r W
    return (u - p.R * p.Mc / (a * p.k_M * r)) / (p.k_E * r + p.R * p.K_V2 / (a * p.k_M * r))


@pytest.mark.parametrize("friction", ["static", "dynamic"])
def test_steady_speed_under_constant_voltage_matches_closed_form(friction):
    p = DriveParams.serebrenny2019(friction=friction, Ms=0.0405, K_V2=0.004)
    W = _steady_output_speed(p, 12.0)
    res = simulate_drive(GearDrive(p), 0.5, drive_input=12.0, rtol=1e-10, atol=1e-12, dt_out=0.01)
    # 0.5 s is ~40 mechanical time constants (R J / (k_E k_M) ~ 13 ms): transient e^-40;
    # what is left is the solver's rtol
    assert res.outputs["output_speed"][-1] == pytest.approx(W, rel=1e-8)
    assert res.outputs["motor_speed"][-1] == pytest.approx(p.ratio * W, rel=1e-8)
    # the DC motor's own closed form, with the load referred to the rotor
    r, a = p.ratio, 1 - p.K_ML * p.Mc
    motor = DCMotor(p.L, p.R, p.k_E, p.k_M)
    W_motor = motor.steady_speed(12.0, p.K_V2 / (a * r * r), p.Mc / (a * r))
    assert W_motor == pytest.approx(r * W, rel=1e-12)


def test_current_mode_steady_state():
    p = DriveParams.serebrenny2019(motor="current", friction="static", Ms=0.0405, K_V2=0.02)
    i_cmd = 0.5
    M1 = p.k_M * i_cmd * p.ratio                      # the current fixes the torque
    W = (M1 - (1 + p.K_ML * M1) * p.Mc) / p.K_V2
    res = simulate_drive(GearDrive(p), 3.0, drive_input=i_cmd, rtol=1e-10, atol=1e-12, dt_out=0.01)
    # time constant (J2 + J1 i^2) / K_V2 = 0.14 s: 3 s leaves e^-21 of the start, the rest
    # is the solver's rtol
    assert res.outputs["current"][-1] == i_cmd
    assert res.outputs["output_speed"][-1] == pytest.approx(W, rel=1e-8)


def test_divergence_or_nan_is_reported_with_its_time():
    drive = GearDrive(DriveParams.serebrenny2019())
    with pytest.raises(SimulationError) as e:
        simulate_drive(drive, 0.05, drive_input=lambda t: 12.0 if t < 0.01 else float("nan"))
    assert e.value.time == pytest.approx(0.01, abs=2e-3)


@pytest.mark.parametrize("field,value", [("J1", -1e-6), ("J2", -0.002), ("J2", 0.0),
                                         ("ratio", 0.0), ("T_min", 0.0), ("T_min", -2e-6),
                                         ("sigma0", 0.0), ("sigma0", -100.0), ("c", 0.0),
                                         ("R", -1.0), ("Ms", 0.01), ("theta_b", -1e-3),
                                         ("friction", "lugre"), ("motor", "pwm")])
def test_bad_parameters_name_parameter_and_value(field, value):
    with pytest.raises(ParameterError) as e:
        DriveParams.serebrenny2019(**{field: value})
    assert e.value.parameter == field and e.value.value == value
    assert field in str(e.value) and repr(value) in str(e.value)


def test_unknown_factory_field_is_rejected():
    with pytest.raises(ParameterError) as e:
        DriveParams.serebrenny2019(J3=1.0)
    assert e.value.parameter == "J3"
