"""The gear drive of docs/drive.md inside Chrono against the reference integrators.

Tolerances come from step studies (as in test_element.py). Chrono runs at three
steps h, h/2, h/4; for each compared quantity y (joint angle, motor current, output
torque) Chrono's own self-differences give the observed order and error model

    d1 = max|y(h) - y(h/2)|,  d2 = max|y(h/2) - y(h/4)|,  p = log2(d1 / d2),
    e(h_k) = C h_k^p  with  C = d2 / ((h/4)^p (2^p - 1))     (Richardson)

and every run must agree with the reference within

    |y(h_k) - y_ref| <= S e(h_k) + atol_ref + rtol_ref max|y_ref|,    S = 3.

Observed (2026-11-22, HHT alpha = 0, smooth 50 ms voltage ramp to 1.5 V, 0.1 s):
errors 7.6e-6, 1.4e-6, 4.8e-7 rad (angle), 4.7e-3, 1.6e-3, 4.2e-4 A (current),
2.0e-2, 4.3e-3, 1.1e-3 N m (torque) at h = 1, 0.5, 0.25 ms: orders 1.5-2.4, about the
trapezoidal rule's 2, lowered by the kinks of the model (backlash contact, |v| in the
LuGre law) at the output's breakaway (t ~ 4 ms), where nearly all of the error is
made. S = 3 covers a Richardson estimate made before the asymptotic range (the gear
mode, 185 Hz, is resolved with omega h = 0.3-1.2 only). A modelling difference between
the engines (a second copy of a formula, a wrong scale, a missing torque) would not
shrink with h and fails the bound at the finest step.
"""

import math

import numpy as np
import pytest

from chrono_flex import scenarios
from chrono_flex.drive import DriveParams, GearDrive, simulate_drive
from chrono_flex.errors import ParameterError, SimulationError

from _chrono_helpers import falling_system, sample, step_study

pytestmark = pytest.mark.pychrono

REF_TOL = dict(rtol=1e-9, atol=1e-11)   # the reference's error is far below Chrono's
HS = (1e-3, 5e-4, 2.5e-4)
U_MAX, T_RAMP = 1.5, 0.05


def smooth_voltage(t):
    """0 -> 1.5 V over 50 ms as (1 - cos)/2: the case's step input without the jump, so
    the comparison measures the integrators, not the resolution of a discontinuity."""
    return U_MAX * (0.5 - 0.5 * math.cos(math.pi * t / T_RAMP)) if t < T_RAMP else U_MAX


# -- the drive on a FlexibleLink joint (simulate_chrono) --------------------------------

def drive_case(t_end):
    arm, kw = scenarios.get("drive-bien-1link").arm_and_kwargs(t_end=t_end)
    kw.pop("t_end")
    kw.update(drive_input=lambda t: [smooth_voltage(t)], dt_out=0.002)
    return arm, kw


def arm_columns(res):
    """Joint angle, motor current, output torque (the drive's torque on the joint)."""
    return np.column_stack([res.joint_angles[:, 0], res.extra["drive1_states"][:, 0],
                            res.joint_torque[:, 0]])


def test_arm_drive_in_chrono_converges_to_the_reference():
    from chrono_flex.chrono import simulate_chrono

    t_end = 0.06
    arm, kw = drive_case(t_end)
    ref = arm.simulate(t_end, method="Radau", **REF_TOL, **kw)
    runs = [simulate_chrono(arm, t_end, step=h, progress=False, **kw) for h in HS]
    for r in runs:
        assert np.allclose(r.t, ref.t, rtol=0, atol=1e-9)
        assert r.extra["drive1_states"].shape == ref.extra["drive1_states"].shape
    p, ratios = step_study([arm_columns(r) for r in runs], HS, arm_columns(ref),
                           REF_TOL["rtol"], REF_TOL["atol"])
    assert np.all(p > 1.0), p           # consistent (observed 1.5-2.4 over 0.1 s)
    assert np.all(ratios <= 1.0), (p, ratios)
    # the other states come back unscaled. z: sliding, on its plateau Ms/sigma0 (4.7e-4
    # rad), which both reach: 1e-3 of it. Twist alpha1/i_g - theta = play + tau/c
    # (1.1e-3 rad): the torques agree to ~1e-3 N m at h/4 (seen), over c = 1003 N m/rad
    # that is 1e-6 rad; 1e-5 rad leaves a factor 10.
    x_c, x_r = runs[-1].extra["drive1_states"][-1], ref.extra["drive1_states"][-1]
    assert abs(x_c[3] - x_r[3]) < 1e-3 * abs(x_r[3])
    ratio = arm.drives[0].ratio
    twist = [x[1] / ratio - r.joint_angles[-1, 0] for x, r in ((x_c, runs[-1]), (x_r, ref))]
    assert twist[0] == pytest.approx(twist[1], abs=1e-5)
    assert twist[1] > 1e-3                      # in contact beyond the play (theta_b)


def test_drive_case_arm_runs_on_the_chrono_engine():
    """The case's own arm and step input through engines.simulate (chrono)."""
    from chrono_flex import engines

    assert "chrono" in scenarios.get("drive-bien-1link").engines
    arm, kw = scenarios.get("drive-bien-1link").arm_and_kwargs(t_end=0.02)
    res = engines.simulate(arm, "chrono", progress=False, **kw)
    assert res.info["engine"] == "chrono" and res.info["jacobian"] == "iteration"
    assert res.info["retries"] == 0
    assert res.extra["drive1_states"].shape == (res.t.size, 4)
    assert res.joint_angles[-1, 0] > 0.0        # +1.5 V turns the joint forwards


# The state of case drive-bien-1link (step 1 ms) at t = 1.004 s, 4 ms after the voltage
# reversal: the rotor has crossed the backlash and hit the other flank, the output
# (0.21 rad/s) is about to reverse. A fixed 1 ms step cannot cross that reversal: Newton
# cycles between the two sides of the kink of the friction law at zero output speed
# (|R| 378 <-> 1049, output speed +0.09 <-> -0.21 rad/s) and does not converge, even with
# max_iters=60. More iterations do not help; halving the step (max_halvings) does.
REVERSAL_STATE = dict(
    t=1.004,
    q=[0.3712136419999642, -0.002599287686109965, -0.014957362777480568,
       -0.00916452095183223, -0.02329965756557714, -0.017431657138532085,
       -0.02538305586437378],
    qd=[0.21330779187074744, 0.14075772350530125, 0.36539720019857547, 0.27622192892997877,
        0.45274694317007, 0.41921192876461544, 0.3955631651408412],
    x=[-0.13394700696181602, 10.347498642619271, -7.87728722853441, 0.000466890857247267])


def reversal_link(max_halvings):
    """The case's arm with its drive, put in REVERSAL_STATE (input -1.5 V)."""
    import pychrono as chrono

    from chrono_flex.chrono import FlexibleLink, configure_system
    from chrono_flex.chrono.drive import ScaledDrive

    arm, kw = scenarios.get("drive-bien-1link").arm_and_kwargs()
    s = REVERSAL_STATE
    system = chrono.ChSystemNSC()
    system.SetGravitationalAcceleration(chrono.ChVector3d(*(-arm.gravity * np.asarray(
        arm.plane.y_axis, dtype=float))))
    configure_system(system, max_halvings=max_halvings)
    system.SetChTime(s["t"])
    link = FlexibleLink(system, arm, jacobian="iteration")
    for sh, q, qd in zip(link.shafts, s["q"], s["qd"]):
        sh.SetPos(q)
        sh.SetPosDt(qd)
    drive = ScaledDrive(arm.drives[0])
    link.add_joint_actuator(0, drive, lambda t: float(kw["drive_input"](t)[0]))
    for sh, y in zip(link.actuators[0][3], np.array(s["x"]) / drive.scales):
        sh.SetPosDt(float(y))
    link.initialize_accelerations()
    return system, link, drive


def test_newton_failure_at_the_voltage_reversal_is_retried_with_half_steps():
    from chrono_flex.chrono import quiet_swig, step

    with quiet_swig():
        system, link, drive = reversal_link(max_halvings=0)
        with pytest.raises(RuntimeError, match="Newton"):
            step(system, 1e-3)                  # the fixed step cannot cross it
        system, link, drive = reversal_link(max_halvings=6)
        for k in range(6):
            step(system, 1e-3)
    assert link.n_retries >= 1                  # one halving (seen: 1)
    assert system.GetChTime() == pytest.approx(REVERSAL_STATE["t"] + 6e-3, abs=1e-12)
    x = drive.unscale(link.actuator_states()[0])
    assert np.all(np.isfinite(x)) and x[0] < 0.0          # braking current
    assert link.joint_rates()[0] < REVERSAL_STATE["qd"][0]  # the output slows down


def test_engine_step_failure_names_the_time_and_gives_drive_advice():
    from chrono_flex.chrono.engine import _step_failure

    msg = _step_failure(RuntimeError("Newton did not converge"), 1.004, 1e-3, 0, {0: None},
                        "iteration")
    assert "t = 1.004 s to 1.005 s" in msg
    assert "jacobian='step'" not in msg and "smaller step" in msg
    assert "jacobian='iteration'" in _step_failure(RuntimeError("x"), 0.0, 1e-3, 6, {0: None},
                                                    "step")
    assert "jacobian='step'" not in _step_failure(RuntimeError("x"), 0.0, 1e-3, 6, {}, "step")


# -- drives on a moving parent body -------------------------------------------------------

def cart_scene(h, n_steps, max_halvings=6):
    """Bien's two-link arm with two gear drives (+1.5 V, -1.0 V) on a 6 kg cart that
    slides on a prismatic joint along the world X axis (its frame from a rotation, so the
    joint's residual is at round-off, ~1e-17), gravity -Y in the arm's plane. Returns
    (link, cart, linear X momentum of cart + arm at each step)."""
    import pychrono as chrono

    from chrono_flex.planar.arm import PlanarArm
    from chrono_flex.chrono import FlexibleLink, configure_system, quiet_swig, step
    from chrono_flex.chrono.drive import ScaledDrive
    from chrono_flex.planar.params import Payload

    drive = GearDrive(DriveParams.serebrenny2019())
    arm = PlanarArm([scenarios.bien_link(1.0, 1), scenarios.bien_link(0.5, 1)],
                    payload=Payload(0.15), drives={0: drive, 1: drive})
    system = chrono.ChSystemNSC()
    system.SetGravitationalAcceleration(chrono.ChVector3d(0, -9.81, 0))
    configure_system(system, max_halvings=max_halvings)
    table = chrono.ChBody()
    table.SetFixed(True)
    system.Add(table)
    cart = chrono.ChBodyEasyBox(0.3, 0.2, 0.1, 1000.0, True, False)
    system.Add(cart)
    slider = chrono.ChLinkLockPrismatic()         # along the frame's Z = world X
    slider.Initialize(table, cart, chrono.ChFramed(chrono.ChVector3d(0, 0, 0),
                                                   chrono.QuatFromAngleY(math.pi / 2)))
    system.Add(slider)
    link = FlexibleLink(system, arm, parent_body=cart, jacobian="iteration")
    for j, u in enumerate((1.5, -1.0)):
        link.add_joint_actuator(j, ScaledDrive(drive), lambda t, u=u: u)
    nq = arm.nq

    def momentum_x():
        w = np.concatenate([cart.GetPosDt().to_numpy(), cart.GetAngVelLocal().to_numpy(),
                            link.qd()])
        return (link.mass_matrix()[0, :6 + nq] @ w) + cart.GetMass() * cart.GetPosDt().x

    p = []
    with quiet_swig():
        for k in range(n_steps):
            step(system, h)
            p.append(momentum_x())
    return link, cart, np.array(p)


def test_drives_on_a_cart_take_small_steps():
    """Small steps need an absolute Newton tolerance that grows as 1/h^2: a joint's
    round-off residual C ~ 1e-17 enters as C / (beta h^2), ~6e-10 at h = 0.25 ms, above a
    fixed absolute tolerance of 1e-10 that Newton cannot reach (with or without drives).
    step() therefore raises the absolute tolerance to at least 1e-14 / h^2, so 0.25 ms
    steps run without retries."""
    link, cart, p = cart_scene(2.5e-4, 40, max_halvings=0)     # no halving needed
    assert link.n_retries == 0
    q = link.joint_angles()
    assert q[0] > 0.0 > q[1]                   # the voltages' signs
    assert abs(cart.GetPosDt().x) > 1e-6       # the cart recoils
    # no force along X on cart + arm: their momentum stays 0 (the drive torques act on
    # the relative joint coordinates, their reactions on the cart) up to the
    # integrator's truncation error (M(q) w is not an exact invariant of HHT): seen
    # 8.8e-4 of the cart's own momentum; a torque or a coupling left out would be O(1)
    scale = cart.GetMass() * np.abs(cart.GetPosDt().x)
    assert np.max(np.abs(p)) < 1e-2 * scale, np.max(np.abs(p)) / scale


def test_drives_on_a_free_falling_body_match_the_fixed_base_reference():
    """Einstein's lift with drives: the arm and its drive on a heavy body falling freely
    (the floating-parent terms, the parent's 7 position coordinates and the drive states
    together in the load) moves as the reference arm on a fixed base without gravity."""
    import pychrono as chrono

    from chrono_flex.chrono import FlexibleLink
    from chrono_flex.chrono.drive import ScaledDrive

    t_end, h = 0.03, 5e-4
    arm = scenarios.get("drive-bien-1link").arm_and_kwargs()[0]
    assert arm.gravity == 0.0
    c, s = math.cos(0.4), math.sin(0.4)
    frame = ((0.3, -0.2, 0.1), (c, s, 0.0), (0.0, 0.0, 1.0))   # gravity lies in the plane
    system, body = falling_system(chrono)
    link = FlexibleLink(system, arm, parent_body=body, joint_frame=frame, jacobian="iteration")
    drive = ScaledDrive(arm.drives[0])
    link.add_joint_actuator(0, drive, lambda t: smooth_voltage(t))
    out = sample(system, h, t_end, 0.002, lambda: [
        link.joint_angles()[0], drive.unscale(link.actuator_states()[0])[0]])
    ref = arm.simulate(t_end, drive_input=lambda t: [smooth_voltage(t)], dt_out=0.002,
                       method="Radau", **REF_TOL)
    y_ref = np.column_stack([ref.joint_angles[1:, 0], ref.extra["drive1_states"][1:, 0]])
    assert link.n_retries == 0
    # errors of the fixed-base run at h = 0.5 ms (module docstring): 1.4e-6 rad and
    # 1.6e-3 A over 0.1 s; a bookkeeping error would be of the size of the signal
    assert np.max(np.abs(out[:, 0] - y_ref[:, 0])) < 1e-5 + 1e-3 * np.max(np.abs(y_ref[:, 0]))
    assert np.max(np.abs(out[:, 1] - y_ref[:, 1])) < 0.02 * np.max(np.abs(y_ref[:, 1]))
    assert np.max(np.abs(y_ref[:, 0])) > 1e-3   # it turns


# -- GearDriveLink between two bodies ----------------------------------------------------

def flywheel_scene(drive, h, t_end, u, J_wheel, body1_free=False, J_body1=None,
                   stator_reaction=True):
    """A wheel (inertia J_wheel about Z) on a revolute joint to the ground (or to a free
    body of inertia J_body1), driven by ``drive``; samples every 2 ms of
    (angle, current, output torque, body1 speed, wheel speed, motor speed)."""
    import pychrono as chrono

    from chrono_flex.chrono import GearDriveLink, configure_system

    system = chrono.ChSystemNSC()
    system.SetGravitationalAcceleration(chrono.ChVector3d(0, 0, 0))
    configure_system(system)
    base = chrono.ChBody()
    if body1_free:
        base.SetMass(2.0)
        base.SetInertiaXX(chrono.ChVector3d(J_body1, J_body1, J_body1))
    else:
        base.SetFixed(True)
    system.Add(base)
    wheel = chrono.ChBody()
    wheel.SetMass(1.0)
    wheel.SetInertiaXX(chrono.ChVector3d(J_wheel, J_wheel, J_wheel))
    system.Add(wheel)
    link = GearDriveLink(system, base, wheel, chrono.ChFramed(), drive, drive_input=u,
                         stator_reaction=stator_reaction)
    out = sample(system, h, t_end, 0.002, lambda: [
        link.angle(), link.current, link.output_torque, base.GetAngVelLocal().z,
        wheel.GetAngVelLocal().z, link.motor_speed])
    return np.array(out), link


def test_gear_drive_link_on_a_flywheel_converges_to_simulate_drive():
    """A flywheel of inertia J2 on the ground: exactly the load simulate_drive
    integrates (J2 dOmega2/dt = tau_out)."""
    drive = GearDrive(DriveParams.serebrenny2019())
    t_end = 0.1
    ref = simulate_drive(drive, t_end, drive_input=smooth_voltage, dt_out=0.002, **REF_TOL)
    y_ref = np.column_stack([ref.state("output_angle"), ref.outputs["current"],
                             ref.outputs["tau_out"]])[1:]
    ys = [flywheel_scene(drive, h, t_end, smooth_voltage, drive.output_inertia)[0][:, :3]
          for h in HS]
    p, ratios = step_study(ys, HS, y_ref, REF_TOL["rtol"], REF_TOL["atol"])
    assert np.all(p > 1.0), p
    assert np.all(ratios <= 1.0), (p, ratios)
    assert y_ref[-1, 0] > 0.02                   # it turns (0.053 rad at 0.1 s)


def test_stator_reaction_conserves_angular_momentum_of_bodies_and_rotor():
    """Two free bodies: the housing takes -tau_out - J1 dOmega1/dt, so
    J_a w_a + J_b w_b + J1 Omega1 (Omega1 relative to the housing) stays 0. The
    integrator conserves this linear invariant exactly; what is left is Newton's
    tolerance (rel 1e-9 of the accelerations per step) accumulated over the steps:
    bound 1e-9 of the wheel's momentum (2e-14 seen: round-off)."""
    drive = GearDrive(DriveParams.serebrenny2019())
    J1, J_a, J_b = drive.params.J1, 0.01, drive.output_inertia
    out, link = flywheel_scene(drive, 5e-4, 0.05, smooth_voltage, J_b, body1_free=True,
                               J_body1=J_a)
    momentum = J_a * out[:, 3] + J_b * out[:, 4] + J1 * out[:, 5]
    scale = np.max(np.abs(J_b * out[:, 4]))
    assert scale > 1e-4                          # the wheel really spins up
    assert np.max(np.abs(momentum)) < 1e-9 * scale, np.max(np.abs(momentum)) / scale
    # and the housing turns backwards
    assert out[-1, 3] < 0.0 < out[-1, 4]


def test_gear_drive_link_reads_its_states():
    drive = GearDrive(DriveParams.serebrenny2019())
    out, link = flywheel_scene(drive, 5e-4, 0.01, 1.5, drive.output_inertia)
    x = link.states()
    o = link.outputs()
    assert x.shape == (4,)
    assert o["current"] == pytest.approx(x[0], rel=1e-12) == link.current
    assert o["motor_speed"] == link.motor_speed and o["z"] == link.z
    assert o["tau_out"] == link.output_torque
    assert link.angle() == pytest.approx(out[-1, 0], rel=1e-12)
    # relative speed from the bodies = the wheel's own speed (ground fixed)
    assert link.speed() == pytest.approx(out[-1, 4], rel=1e-12)


# -- errors ----------------------------------------------------------------------------

def test_an_exception_in_drive_input_surfaces_from_the_step():
    def bad(t):
        if t > 2e-3:
            raise ZeroDivisionError("boom in drive_input")
        return 1.0

    drive = GearDrive(DriveParams.serebrenny2019())
    with pytest.raises(SimulationError, match="boom in drive_input") as info:
        flywheel_scene(drive, 1e-3, 0.01, bad, drive.output_inertia)
    assert isinstance(info.value.__cause__, ZeroDivisionError)
    assert info.value.time == pytest.approx(3e-3)


def test_an_exception_in_the_engines_drive_input_surfaces():
    from chrono_flex.chrono import simulate_chrono

    def bad(t):
        if t > 2e-3:
            raise KeyError("no such voltage")
        return [1.0]

    arm, kw = drive_case(0.01)
    kw["drive_input"] = bad
    with pytest.raises(SimulationError, match="no such voltage") as info:
        simulate_chrono(arm, 0.01, step=1e-3, progress=False, **kw)
    assert isinstance(info.value.__cause__, KeyError)


def test_bad_parameters_raise_parameter_errors_naming_them(chrono):
    from chrono_flex.chrono import GearDriveLink, simulate_chrono
    from chrono_flex.chrono.drive import ScaledDrive

    drive = GearDrive(DriveParams.serebrenny2019())
    system = chrono.ChSystemNSC()
    ground, other, wheel = chrono.ChBody(), chrono.ChBody(), chrono.ChBody()
    ground.SetFixed(True)
    other.SetFixed(True)
    for b in (ground, other, wheel):
        system.Add(b)
    frame = chrono.ChFramed()

    def name_of(fn):
        with pytest.raises(ParameterError) as info:
            fn()
        return info.value.parameter

    assert name_of(lambda: GearDriveLink(system, ground, other, frame, drive)) == "body2"
    assert name_of(lambda: GearDriveLink(system, ground, ground, frame, drive)) == "body2"
    assert name_of(lambda: GearDriveLink(system, "ground", wheel, frame, drive)) == "body1"
    assert name_of(lambda: GearDriveLink(system, ground, wheel, frame, drive.params)) == "drive"
    assert name_of(lambda: GearDriveLink(system, ground, wheel, (0, 0, 0), drive)) == "frame"
    assert name_of(lambda: GearDriveLink(system, ground, wheel, (0, 0, 1), drive)) == "frame"
    assert name_of(lambda: GearDriveLink(system, ground, wheel, frame, drive,
                                         drive_input="high")) == "drive_input"
    assert name_of(lambda: GearDriveLink(system, ground, wheel, frame, drive,
                                         scales=[1, 1, -1, 1])) == "scales"
    assert name_of(lambda: GearDriveLink("system", ground, wheel, frame, drive)) == "system"
    assert name_of(lambda: ScaledDrive(drive, scales=[1.0, 2.0])) == "scales"

    arm, kw = drive_case(0.01)
    kw["drive_input"] = lambda t: [1.0, 2.0]
    assert name_of(lambda: simulate_chrono(arm, 0.01, **kw)) == "drive_input"
    kw["drive_input"] = 1.5
    assert name_of(lambda: simulate_chrono(arm, 0.01, **kw)) == "drive_input"
    kw["drive_input"] = None
    assert name_of(lambda: simulate_chrono(arm, 0.01, drive_scales={1: [1, 1, 1, 1]},
                                           **kw)) == "drive_scales"
    assert name_of(lambda: simulate_chrono(arm, 0.01, drive_scales={0: [1, 1, 1]},
                                           **kw)) == "scales"


@pytest.mark.pychrono
def test_visuals_of_a_scene_with_a_flexible_link_and_a_gear_drive_link():
    """Both register with the system so that step() re-raises their callback errors;
    the visuals (Blender export, live window) must draw the FlexibleLink only."""
    import pychrono as chrono

    from chrono_flex.chrono import FlexibleLink, GearDriveLink, configure_system, step
    from chrono_flex.chrono.visual import ArmVisuals

    system = chrono.ChSystemNSC()
    configure_system(system)
    arm, _ = scenarios.get("bien-1link-n1").arm_and_kwargs()
    FlexibleLink(system, arm)
    ground = chrono.ChBody()
    ground.SetFixed(True)
    system.Add(ground)
    wheel = chrono.ChBody()
    wheel.SetInertiaXX(chrono.ChVector3d(1e-3, 1e-3, 2.1e-3))
    wheel.SetPos(chrono.ChVector3d(2.0, 0.0, 0.0))
    system.Add(wheel)
    GearDriveLink(system, ground, wheel, chrono.ChFramed(chrono.ChVector3d(2.0, 0.0, 0.0)),
                  GearDrive(DriveParams.serebrenny2019()), drive_input=lambda t: 1.0)
    vis = ArmVisuals(system)
    assert vis.engine == "chrono" and len(vis._links) == 1
    step(system, 5e-4)
    vis.update()


def test_drive_input_without_drives_is_refused():
    arm, kw = scenarios.get("bien-1link-n1").arm_and_kwargs(t_end=0.01)
    with pytest.raises(ParameterError, match="drive_input"):
        arm.simulate(**kw, drive_input=lambda t: [1.0])


def test_reference_drive_starts_from_the_joint_rate():
    """Both engines start the drive from (theta, omega) of its joint: the motor turns at
    i * omega, so a driven joint started at a rate has no initial twist rate."""
    arm, kw = scenarios.get("drive-bien-1link").arm_and_kwargs(t_end=0.002)
    r = arm.simulate(**dict(kw, joint_rates0=[0.5]))
    drive = arm.drives[0]
    x0 = r.extra["drive1_states"][0]
    np.testing.assert_allclose(x0, drive.initial_state(0.0, 0.5), rtol=1e-12)
    assert x0[2] == pytest.approx(drive.ratio * 0.5, rel=1e-12)     # motor speed = i omega
