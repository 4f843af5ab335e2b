"""The custom Chrono element against the reference engine.

Tolerances come from step studies, not from guesses. For each scenario Chrono runs at
three steps h, h/2, h/4 and, for each compared quantity y (joint coordinates, tip
deflections, joint torques), the observed order and error model are taken from Chrono's
own self-differences:

    d1 = max|y(h) - y(h/2)|,  d2 = max|y(h/2) - y(h/4)|,  p = log2(d1 / d2),
    e(h_k) = C h_k^p  with  C = d2 / ((h/4)^p (2^p - 1))     (Richardson)

and every run must agree with the reference within

    |y(h_k) - y_ref| <= S e(h_k) + atol_ref + rtol_ref max|y_ref|,    S = 3,

rtol_ref, atol_ref being the reference's tolerances (its error, measured against a 10x
tighter run, is below 2e-9 on these cases: 2026-11-22). The safety factor S = 3 covers
Richardson estimates made before the asymptotic range: the [K] pendulums' bending modes
(490-540 Hz) are resolved with omega h = 0.2-0.8 only; there the modelled error was
within 1.4x of the actual one. A modelling difference between the engines would not
shrink with h and fails the bound at the finest step.
"""

import functools
import math

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex import scenarios
from chrono_flex.errors import ParameterError, SimulationError

from _chrono_helpers import SAFETY, falling_system, step_study

pytestmark = pytest.mark.pychrono

REF_TOL = dict(rtol=1e-7, atol=1e-10)
REF_TOL_STIFF = dict(rtol=1e-6, atol=1e-9)       # [K] cases: Radau is slow there


def columns(res, torque=False):
    cols = [res.joint_angles, res.tip_deflection]
    if torque:
        cols.append(res.joint_torque)
    return np.column_stack(cols)


@functools.lru_cache(maxsize=None)
def reference(name, t_end, dt_out, stiff=False):
    arm, kw = scenarios.get(name).arm_and_kwargs(t_end=t_end)
    kw.pop("t_end")
    kw["dt_out"] = dt_out
    return arm.simulate(t_end, method="Radau", **(REF_TOL_STIFF if stiff else REF_TOL), **kw)


@functools.lru_cache(maxsize=None)
def chrono_run(name, t_end, dt_out, step):
    from chrono_flex.chrono import simulate_chrono

    arm, kw = scenarios.get(name).arm_and_kwargs(t_end=t_end)
    kw.pop("t_end")
    kw["dt_out"] = dt_out
    return simulate_chrono(arm, t_end, step=step, **kw)


STUDIES = [
    # name, t_end, dt_out, steps, order window of the joint coordinates, stiff reference
    ("bien-1link-n1", 1.0, 0.04, (4e-3, 2e-3, 1e-3), (1.8, 2.2), False),
    ("bien-1link-n3", 1.0, 0.04, (4e-3, 2e-3, 1e-3), (1.8, 2.2), False),
    ("bien-prismatic", 0.24, 0.04, (4e-3, 2e-3, 1e-3), (1.8, 2.2), False),
    ("bien-2link", 1.0, 0.04, (4e-3, 2e-3, 1e-3), (1.7, 2.3), False),
    ("kozlowski-1link", 0.1, 0.01, (2.5e-4, 1.25e-4, 6.25e-5), (1.3, 2.3), True),
    ("kozlowski-2link", 0.05, 0.005, (1e-4, 5e-5, 2.5e-5), (0.8, 2.5), True),
]


@pytest.mark.parametrize("name, t_end, dt_out, hs, window, stiff", STUDIES,
                         ids=[s[0] for s in STUDIES])
def test_custom_element_converges_to_the_reference(name, t_end, dt_out, hs, window, stiff):
    ref = reference(name, t_end, dt_out, stiff)
    runs = [chrono_run(name, t_end, dt_out, h) for h in hs]
    for r in runs:
        assert np.allclose(r.t, ref.t, rtol=0, atol=1e-9)
        assert r.info["engine"] == "chrono"
    tol = REF_TOL_STIFF if stiff else REF_TOL
    p, ratios = step_study([columns(r) for r in runs], hs, columns(ref), tol["rtol"],
                           tol["atol"])
    nj = ref.joint_angles.shape[1]
    assert np.all((p[:nj] >= window[0]) & (p[:nj] <= window[1])), p
    assert np.all(ratios <= 1.0), (p, ratios)


def test_prescribed_spin_up_torque_and_deflection_converge_to_the_mixed_problem():
    """Kane-Ryan-Banerjee spin-up (hub angle prescribed by a ChShaftsMotorPosition,
    HHT alpha = -0.1): tip deflection and the motor's joint torque."""
    name, t_end, dt_out, hs = "spinup-4", 2.0, 0.1, (2e-2, 1e-2, 5e-3)
    ref = reference(name, t_end, dt_out)
    runs = [chrono_run(name, t_end, dt_out, h) for h in hs]
    p, ratios = step_study([columns(r, torque=True) for r in runs], hs,
                           columns(ref, torque=True), REF_TOL["rtol"], REF_TOL["atol"])
    assert np.all(np.abs(p[1:] - 2.0) < 0.2), p            # deflection and torque
    assert np.all(ratios[:, 1:] <= 1.0), ratios
    assert np.max(np.abs(runs[-1].joint_torque)) > 1.0     # the motor really works


def test_undamped_unforced_energy_is_constant_to_the_integrators_accuracy():
    """[K] pendulum, no damping, no torque: the energy drift of each run shrinks at the
    order the step study observes (>= 1.5), and the finest drift is what the two coarser
    ones predict (within S), i.e. it is integration error, not a modelling leak."""
    name, t_end, dt_out, hs = STUDIES[4][:4]
    drifts = []
    for h in hs:
        r = chrono_run(name, t_end, dt_out, h)
        assert r.energy.input_work[-1] == 0.0 and r.energy.dissipated[-1] == 0.0
        drifts.append(np.max(np.abs(r.energy.balance_error)))
    p = math.log2(drifts[0] / drifts[1])
    assert p >= 1.5, drifts
    assert drifts[2] <= SAFETY * drifts[1] / 2 ** p, drifts
    scale = np.max(np.abs(reference(name, t_end, dt_out, True).energy.kinetic))
    assert drifts[2] < 1e-4 * scale            # and small: ~1e-6 of the energy seen


# -- a moving parent -------------------------------------------------------------------

def horizontal_arm():
    return cf.PlanarArm([scenarios.bien_link(1.0, 2)], payload=cf.Payload(0.1, 1e-4),
                        hub_inertia=1e-3)


TORQUE = scenarios.pulse(0.4, 2.0)


def run_on_turning_body(h, t_end, Omega):
    """Arm on a body driven about the world Z axis (the plane normal) at constant speed
    by a ChLinkMotorRotationSpeed; returns (t, joint angle, tip deflection)."""
    import pychrono as chrono

    from chrono_flex.chrono import FlexibleLink, configure_system, step

    system = chrono.ChSystemNSC()
    configure_system(system)
    ground = chrono.ChBody()
    ground.SetFixed(True)
    system.Add(ground)
    body = chrono.ChBody()
    body.SetMass(5.0)
    body.SetInertiaXX(chrono.ChVector3d(0.2, 0.2, 0.2))
    body.SetAngVelLocal(chrono.ChVector3d(0, 0, Omega))
    system.Add(body)
    motor = chrono.ChLinkMotorRotationSpeed()
    motor.Initialize(body, ground, chrono.ChFramed(chrono.ChVector3d(0, 0, 0)))
    speed = chrono.ChFunctionConst(Omega)
    motor.SetSpeedFunction(speed)
    system.Add(motor)
    link = FlexibleLink(system, horizontal_arm(), parent_body=body,
                        torque=lambda t, q, qd: TORQUE(t))
    out = []
    for k in range(int(round(t_end / h))):
        step(system, h)
        out.append(np.concatenate([[system.GetChTime()], link.joint_angles(),
                                   link.tip_deflections()]))
    return np.array(out), link, body


def test_arm_on_a_body_turning_about_the_plane_normal_is_the_reference_with_an_extra_joint():
    """A body turning at constant Omega about the plane normal through the first joint:
    theta_1(t) = theta_1'(t) - Omega t, theta_1' from the reference started with
    theta_1'_dot(0) = Omega (the arm's own joint is relative to the body)."""
    t_end, Omega, hs = 0.4, 2.0, (8e-3, 4e-3, 2e-3)
    arm = horizontal_arm()
    every = [int(round(0.04 / h)) for h in hs]
    runs = [run_on_turning_body(h, t_end, Omega)[0][e - 1::e] for h, e in zip(hs, every)]
    ref = arm.simulate(t_end, joint_rates0=[Omega], torque=TORQUE, dt_out=0.04, method="Radau", **REF_TOL)
    y_ref = np.column_stack([ref.joint_angles[1:, 0] - Omega * ref.t[1:],
                             ref.tip_deflection[1:, 0]])
    ys = [r[:, 1:] for r in runs]
    assert np.allclose(runs[0][:, 0], ref.t[1:])
    p, ratios = step_study(ys, hs, y_ref, REF_TOL["rtol"], REF_TOL["atol"])
    assert np.all(ratios <= 1.0), (p, ratios)
    assert np.max(np.abs(y_ref[:, 1])) > 1e-4          # it bends: centrifugal + torque


def test_arm_on_a_free_falling_body_feels_no_gravity():
    """Einstein's lift: a heavy body falling freely (gravity -Z, initial velocity) with
    the arm in a tilted vertical plane offset from the body's centre: in the body's frame
    the arm moves as the reference arm without gravity. The body's recoil (arm mass 0.3 kg
    vs 1e6 kg) changes nothing at the compared accuracy."""
    import pychrono as chrono

    from chrono_flex.chrono import FlexibleLink, step

    t_end, hs = 0.4, (8e-3, 4e-3, 2e-3)
    arm = horizontal_arm()
    c, s = math.cos(0.4), math.sin(0.4)
    frame = ((0.3, -0.2, 0.1), (c, s, 0.0), (0.0, 0.0, 1.0))   # gravity lies in the plane

    def run(h):
        system, body = falling_system(chrono, position=(1, 2, 3))
        link = FlexibleLink(system, arm, parent_body=body, joint_frame=frame,
                            torque=lambda t, q, qd: TORQUE(t))
        out = []
        for k in range(int(round(t_end / h))):
            step(system, h)
            if (k + 1) % int(round(0.04 / h)) == 0:
                out.append(np.concatenate([link.joint_angles(), link.tip_deflections()]))
        return np.array(out), link

    results = [run(h) for h in hs]
    ref = arm.simulate(t_end, torque=TORQUE, dt_out=0.04, method="Radau", **REF_TOL)
    y_ref = columns(ref)[1:]
    p, ratios = step_study([r[0] for r in results], hs, y_ref, REF_TOL["rtol"],
                           REF_TOL["atol"])
    assert np.all(ratios <= 1.0), (p, ratios)
    link = results[-1][1]
    # the tip body follows the deformed tip: the reference's planar tip, placed on the
    # falling body
    A = np.asarray(link.parent_body.GetRotMat().to_numpy())
    pB = np.asarray(link.parent_body.GetPos().to_numpy())
    tip_plane = cf.Plane(*frame).to_world(ref.tip_position[-1])
    expected = pB + A @ tip_plane
    assert np.allclose(np.asarray(link.tip_body.GetPos().to_numpy()), expected, atol=1e-5)
    assert np.allclose(np.asarray(link.tip_frame().GetPos().to_numpy()),
                       np.asarray(link.tip_body.GetPos().to_numpy()), atol=1e-12)
    assert abs(link.parent_body.GetPos().z - (3 + 2.0 * t_end - 9.81 * t_end**2 / 2)) < 1e-6


# -- errors, options, hooks ----------------------------------------------------------------

def test_an_exception_in_the_torque_callable_surfaces_with_its_cause_and_time():
    from chrono_flex.chrono import simulate_chrono

    class Boom(Exception):
        pass

    def torque(t, q, qd):
        if t > 0.0105:
            raise Boom("controller failed")
        return [0.1]

    arm = horizontal_arm()
    with pytest.raises(SimulationError) as info:
        simulate_chrono(arm, 0.05, torque=torque, step=1e-3)
    assert isinstance(info.value.__cause__, Boom)
    assert "controller failed" in str(info.value) and "Boom" in str(info.value)
    assert abs(info.value.time - 0.011) < 1e-9


def test_non_finite_forces_stop_the_run_with_the_time():
    from chrono_flex.chrono import simulate_chrono

    arm = horizontal_arm()
    with pytest.raises(SimulationError) as info:
        simulate_chrono(arm, 0.05, torque=lambda t, q, qd: [math.nan if t > 0.0205 else 0.0],
                        step=1e-3)
    assert "`torque` callback returned a non-finite value" in str(info.value)
    assert abs(info.value.time - 0.021) < 1e-9


def test_unsupported_options_are_named():
    from chrono_flex.chrono import simulate_chrono

    with pytest.raises(ParameterError, match="form, rtol"):
        simulate_chrono(horizontal_arm(), 0.1, form="lagrange", rtol=1e-6)
    with pytest.raises(ParameterError, match="timestepper"):
        simulate_chrono(horizontal_arm(), 0.1, timestepper="rk4")


def test_euler_timestepper_converges_at_first_order():
    from chrono_flex.chrono import simulate_chrono

    arm = horizontal_arm()
    ref = arm.simulate(0.2, torque=TORQUE, dt_out=0.02, method="Radau", **REF_TOL)
    errs = [np.max(np.abs(simulate_chrono(arm, 0.2, torque=TORQUE, step=h, dt_out=0.02,
                                          timestepper="euler").joint_angles - ref.joint_angles))
            for h in (2e-3, 1e-3)]
    assert abs(math.log2(errs[0] / errs[1]) - 1.0) < 0.2, errs


class FirstOrderTorque:
    """An actuator for the hook: torque z with dz/dt = (u - z) / T (a first-order lag)."""

    n_states = 1

    def __init__(self, T):
        self.T = T

    def initial_state(self, theta, omega):
        return [0.0]

    def rates(self, t, z, theta, omega, u):
        return [(u - z[0]) / self.T], z[0]


def test_joint_actuator_hook_integrates_its_states_with_the_arm():
    """A lag actuator driven by u = 0.2 N m equals the reference driven by the closed
    form tau(t) = 0.2 (1 - exp(-t/T))."""
    import pychrono as chrono

    from chrono_flex.chrono import FlexibleLink, configure_system, step

    arm, T, u, t_end = horizontal_arm(), 0.05, 0.2, 0.2
    ref = arm.simulate(t_end, torque=lambda t, q, qd: [u * (1 - math.exp(-t / T))],
                       dt_out=0.02, method="Radau", **REF_TOL)
    finals = []
    for h in (2e-3, 1e-3):
        system = chrono.ChSystemNSC()
        configure_system(system)
        link = FlexibleLink(system, arm)
        link.add_joint_actuator(0, FirstOrderTorque(T), drive_input=lambda t: u)
        for _ in range(int(round(t_end / h))):
            step(system, h)
        finals.append(np.concatenate([link.joint_angles(), link.actuator_states()[0]]))
        assert abs(link.joint_torques()[0] - link.actuator_states()[0][0]) < 1e-15
    y_ref = np.array([ref.joint_angles[-1, 0], u * (1 - math.exp(-t_end / T))])
    e = [np.abs(f - y_ref) for f in finals]
    # second order: halving the step divides the error by ~4 (3 allows pre-asymptotic),
    # and the error of the finer run is its Richardson estimate |y(h) - y(h/2)| / 3
    # within the safety factor
    assert np.all(e[1] < e[0] / 3), e
    assert np.all(e[1] <= SAFETY * np.abs(finals[0] - finals[1]) / 3), e


def test_refreshing_the_jacobian_every_n_steps_gives_the_same_trajectory():
    """jacobian=N keeps K, R for N steps (modified Newton): same solution to the Newton
    tolerance, fewer Jacobian builds (with Chrono's own differences, fewer ComputeQ
    calls)."""
    from chrono_flex.chrono import simulate_chrono

    arm = cf.PlanarArm([scenarios.bien_link(1.0, 4)], payload=cf.Payload(0.1))
    runs = {jac: simulate_chrono(arm, 0.1, torque=TORQUE, step=1e-3, jacobian=jac)
            for jac in ("step", 10)}
    a, b = runs["step"], runs[10]
    scale = np.max(np.abs(columns(a)), axis=0)
    # Newton stops at rel_tol = 1e-9 of the accelerations: the difference is round-off
    assert np.all(np.max(np.abs(columns(a) - columns(b)), axis=0) < 1e-9 * scale)
    assert b.info["jacobians"] < a.info["jacobians"] / 2
    with pytest.raises(ParameterError, match="jacobian"):
        simulate_chrono(arm, 0.1, jacobian=0)


# -- the shared loop's guards and budgets, on the chrono engine ---------------------------

def test_callbacks_budgets_and_output_spacing_are_checked():
    from chrono_flex.chrono import simulate_chrono

    arm = horizontal_arm()
    with pytest.raises(SimulationError, match="`torque` callback returned a non-finite"):
        simulate_chrono(arm, 0.01, torque=lambda t, q, qd: [float("nan")], step=1e-3)
    with pytest.raises(ParameterError) as e:
        simulate_chrono(arm, 0.01, torque=lambda t, q, qd: None, step=1e-3)
    assert e.value.parameter == "torque"
    with pytest.raises(ParameterError) as e:            # would shrink the step 10-fold
        simulate_chrono(arm, 0.01, torque=TORQUE, step=1e-3, dt_out=1e-4)
    assert e.value.parameter == "dt_out"
    with pytest.raises(ParameterError, match="n_samples"):
        simulate_chrono(arm, 0.01, torque=TORQUE, step=1e-3, n_samples=1)
    with pytest.raises(SimulationError, match="wall-time budget") as e:
        simulate_chrono(arm, 2.0, torque=TORQUE, step=1e-3, max_wall_time=0.05)
    assert e.value.time < 2.0
    with pytest.raises(SimulationError, match="tip deflection") as e:   # initial state
        simulate_chrono(arm, 0.01, torque=TORQUE, step=1e-3, elastic0=[0.0, 0.0, 0.8, 0.0])
    assert e.value.time == 0.0
