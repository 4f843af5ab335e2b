"""The same controller object drives the gear drive in Chrono (GearDriveLink) and in
simulate_drive, and the two agree within Chrono's step bound (the step study of
tests/chrono/test_drive.py: Richardson error model from steps h, h/2, h/4, S = 3)."""

import math

import numpy as np
import pytest

from chrono_flex.control import PID, CurrentSensor, Encoder, StateFeedback, Tachometer
from chrono_flex.drive import DriveParams, GearDrive, simulate_drive

from _chrono_helpers import assert_step_study, sample

pytestmark = pytest.mark.pychrono

REF_TOL = dict(rtol=1e-9, atol=1e-11)   # the reference's error is far below Chrono's
HS = (1e-3, 5e-4, 2.5e-4)


def setpoint(t):
    """0 -> 0.05 rad over 50 ms as (1 - cos)/2: no jump for the PD to differentiate."""
    return 0.05 * (0.5 - 0.5 * math.cos(math.pi * t / 0.05)) if t < 0.05 else 0.05


def pd(drive):
    """A continuous PD on the output shaft (kp = 100 V/rad: below the gains at which the
    play makes it oscillate, docs/control.md §4)."""
    return PID(100.0, 0.0, 1.0, setpoint=setpoint, sensor=Encoder(drive, 2**40),
               rate_sensor=Tachometer(drive), u_min=-24.0, u_max=24.0)


def flywheel(drive, law, h, t_end):
    import pychrono.core as chrono
    from chrono_flex.chrono import GearDriveLink, configure_system

    system = chrono.ChSystemNSC()
    system.SetGravitationalAcceleration(chrono.ChVector3d(0, 0, 0))
    configure_system(system)
    base = chrono.ChBody()
    base.SetFixed(True)
    system.Add(base)
    wheel = chrono.ChBody()
    J2 = drive.output_inertia
    wheel.SetMass(1.0)
    wheel.SetInertiaXX(chrono.ChVector3d(J2, J2, J2))
    system.Add(wheel)
    link = GearDriveLink(system, base, wheel, chrono.ChFramed(), drive, drive_input=law)
    return np.array(sample(system, h, t_end, 0.002, lambda: [link.angle(), link.current]))


def test_one_pd_controller_in_chrono_and_in_simulate_drive():
    drive = GearDrive(DriveParams.serebrenny2019())
    law = pd(drive)
    flywheel_agrees(drive, law)


def flywheel_agrees(drive, law):
    """The drive on a flywheel in Chrono (:func:`flywheel`) at the steps HS against
    simulate_drive (Radau) under the same law: order > 1 within the step bound, and the
    servo follows the setpoint (0.014 rad at 0.04 s). 0.04 s is during the setpoint's ramp:
    later the output comes to rest within the play and LuGre's stiction, where the step
    study leaves its asymptotic range (seen: errors 2e-4, 1e-4, 6e-6 rad at 0.1 s against
    1.5e-5, 3.5e-6, 7.6e-7 at 0.04 s)."""
    t_end = 0.04
    ref = simulate_drive(drive, t_end, drive_input=law, dt_out=0.002, **REF_TOL)
    y_ref = np.column_stack([ref.state("output_angle"), ref.outputs["current"]])[1:]
    ys = [flywheel(drive, law, h, t_end) for h in HS]
    assert_step_study(ys, HS, y_ref, REF_TOL["rtol"], REF_TOL["atol"], min_order=1.0)
    assert y_ref[-1, 0] > 0.01


def drive_columns(res):
    """The compared columns of an arm with a drive: the joint angle and the current."""
    return np.column_stack([res.joint_angles[:, 0], res.extra["drive1_states"][:, 0]])


def drive_arm_servo_agrees(law_of):
    """[B]'s link on [S]'s drive (the scenario drive-bien-1link), its voltage from the law
    ``law_of(arm)``, 0.06 s: simulate_chrono at the steps HS converges to the reference
    engine (Radau) at order > 1 within its step bound, and the servo moves the link."""
    from chrono_flex import scenarios
    from chrono_flex.chrono import simulate_chrono

    t_end = 0.06
    arm, kw = scenarios.get("drive-bien-1link").arm_and_kwargs(t_end=t_end)
    kw.pop("t_end")
    law = law_of(arm)
    kw.update(drive_input=law, dt_out=0.002)
    ref = arm.simulate(t_end, method="Radau", **REF_TOL, **kw)
    runs = [simulate_chrono(arm, t_end, step=h, progress=False, **kw) for h in HS]
    assert_step_study([drive_columns(r) for r in runs], HS, drive_columns(ref),
                      REF_TOL["rtol"], REF_TOL["atol"], min_order=1.0)
    assert ref.joint_angles[-1, 0] > 0.005          # the servo moves the link


def test_one_pd_controller_on_an_arm_drive_in_chrono_and_the_reference_engine():
    """[B]'s link on [S]'s drive (the scenario drive-bien-1link), the drive's voltage from
    a PD on the joint encoder: simulate_chrono against the reference engine (Radau)."""
    drive_arm_servo_agrees(lambda arm: PID(100.0, 0.0, 1.0, setpoint=setpoint,
                                           sensor=Encoder(arm, 2**40),
                                           rate_sensor=Tachometer(arm), u_min=-24.0,
                                           u_max=24.0))


def test_one_continuous_pi_with_its_integral_on_a_link_in_chrono_and_the_reference_engine():
    """A continuous PI (its integral a state) on a flexible link: the reference engine
    integrates the integral with the arm; Chrono advances it from step to step by the
    linearly implicit trapezoidal rule (chrono_flex._callbacks.stepped). The step study
    bounds Chrono's error, and the observed order is about 2 (HHT with alpha = 0 and
    the trapezoidal rule on the controller's state; seen: 1.99 for the angle and
    the torque)."""
    import chrono_flex as cf
    from chrono_flex.chrono import simulate_chrono

    link = cf.Link(length=1.0, n_elements=4, EI=1.04, rho_A=0.196, thickness=0.01)
    arm = cf.PlanarArm(links=[link], joints=[cf.RevoluteJoint()], hub_inertia=0.01,
                       gravity=0.0)

    def r(t):
        return 0.1 * (0.5 - 0.5 * math.cos(math.pi * t / 0.2)) if t < 0.2 else 0.1

    def law():
        return PID(2.0, 4.0, 0.5, setpoint=r, sensor=Encoder(arm, 2**40),
                   rate_sensor=Tachometer(arm), u_min=-1.0, u_max=1.0)

    t_end, hs = 0.4, (2e-3, 1e-3, 5e-4)
    ref = arm.simulate(t_end, torque=law(), method="Radau", **REF_TOL, dt_out=0.01)
    def cols(res):
        return np.column_stack([res.joint_angles[:, 0], res.joint_torque[:, 0]])

    runs = [simulate_chrono(arm, t_end, torque=law(), step=h, dt_out=0.01, progress=False)
            for h in hs]
    assert_step_study([cols(res) for res in runs], hs, cols(ref),
                      REF_TOL["rtol"], REF_TOL["atol"], min_order=1.5)
    assert ref.joint_angles[-1, 0] > 0.05            # the loop moves the link


def test_continuous_pid_with_states_on_the_gear_drive_in_chrono_and_simulate_drive():
    """A PI with a filtered derivative (two states: the integral and the filter) on the
    drive's output: GearDriveLink advances them step to step, simulate_drive integrates
    them with the drive (observed orders seen: 2.1 for the angle and the current)."""
    drive = GearDrive(DriveParams.serebrenny2019())
    law = PID(100.0, 500.0, 1.0, setpoint=setpoint, sensor=Encoder(drive, 2**40),
              u_min=-24.0, u_max=24.0, Tf=2e-3)
    assert law.n_states == 2
    flywheel_agrees(drive, law)


def test_a_sample_period_below_chronos_step_is_named():
    import chrono_flex as cf
    from chrono_flex.chrono import simulate_chrono
    from chrono_flex.errors import ParameterError

    link = cf.Link(length=1.0, n_elements=2, EI=1.04, rho_A=0.196, thickness=0.01)
    arm = cf.PlanarArm(links=[link], joints=[cf.RevoluteJoint()], hub_inertia=0.01)
    law = PID(1.0, 0.0, 0.0, sensor=Encoder(arm, 100), period=1e-4)
    with pytest.raises(ParameterError, match="period"):
        simulate_chrono(arm, 0.01, torque=law, step=1e-3, progress=False)


def motor_side_laws(arm):
    """Two laws on the motor side of the drive on joint 0 (the setpoint at the motor:
    ratio times the joint's): a state feedback on the motor encoder, the motor
    tachometer and the motor current (stateless), and a PI on the motor encoder with the
    motor tachometer's rate (its integral a state, advanced step to step in Chrono)."""
    ratio = arm.drives[0].ratio
    sensors = [Encoder(arm, 2**40, side="motor"), Tachometer(arm, side="motor"),
               CurrentSensor(arm)]
    # the gains of the link-side PD above seen at the motor (kp = 100 V/rad at the joint)
    feedback = StateFeedback([100.0 / ratio, 1.0 / ratio, 2.0],
                             reference=lambda t: [ratio * setpoint(t), 0.0, 0.0],
                             sensors=sensors, u_min=-24.0, u_max=24.0)
    pi = PID(100.0 / ratio, 500.0 / ratio, 1.0 / ratio, setpoint=lambda t: ratio * setpoint(t),
             sensor=Encoder(arm, 2**40, side="motor"),
             rate_sensor=Tachometer(arm, side="motor"), u_min=-24.0, u_max=24.0)
    return {"state feedback": feedback, "PI": pi}


def test_a_motor_side_sensor_in_chronos_torque_is_named():
    """Chrono's element hands the drives' states to a drive input, not to its `torque`
    (first called before the drives are added): a torque law with a motor-side sensor
    stops the run naming the sensor."""
    import chrono_flex as cf
    from chrono_flex.chrono import simulate_chrono
    from chrono_flex.errors import ParameterError

    link = cf.Link(length=1.0, n_elements=2, EI=1.04, rho_A=0.196, thickness=0.01)
    arm = cf.PlanarArm(links=[link], joints=[cf.RevoluteJoint()],
                       drives={0: GearDrive(DriveParams.serebrenny2019())})
    law = PID(0.5, 0.0, 0.0, sensor=Encoder(arm, 2**20, side="motor"))
    with pytest.raises(ParameterError, match="sensors"):
        simulate_chrono(arm, 0.01, torque=law, progress=False)


@pytest.mark.parametrize("kind", ["state feedback", "PI"])
def test_motor_side_sensors_on_an_arm_drive_in_chrono_and_the_reference_engine(kind):
    """Chrono's element hands a controller the drives' states after q and qd, unscaled
    and in the order of their joints, as the reference engines do: the motor encoder,
    tachometer and current of the drive on the joint of [B]'s link on [S]'s drive
    (drive-bien-1link) close the loop in simulate_chrono and in the reference engine
    (Radau), and agree within Chrono's step bound."""
    def law_of(arm):
        law = motor_side_laws(arm)[kind]
        assert law.reads_drive_states
        return law

    drive_arm_servo_agrees(law_of)


def test_motor_side_sensors_of_the_gear_drive_in_chrono_and_simulate_drive():
    """Sensors attached to the GearDrive itself read its motor side in GearDriveLink
    (x = [i, alpha1, Omega1, z, theta_out, omega_out]) as in simulate_drive: a state
    feedback on the motor encoder, the motor tachometer and the current, the gains of
    the output PD above seen at the motor."""
    drive = GearDrive(DriveParams.serebrenny2019())
    ratio = drive.ratio
    law = StateFeedback([100.0 / ratio, 1.0 / ratio, 2.0],
                        reference=lambda t: [ratio * setpoint(t), 0.0, 0.0],
                        sensors=[Encoder(drive, 2**40, side="motor"),
                                 Tachometer(drive, side="motor"), CurrentSensor(drive)],
                        u_min=-24.0, u_max=24.0)
    flywheel_agrees(drive, law)
