"""Sensors on the motor side of an arm's drives (docs/control.md §2): a motor-side
encoder, tachometer and current sensor on a joint with a gear drive, read by a
controller in the reference engines (which hand it the drives' states) and recorded
from a result."""

import math

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex.control import PID, CurrentSensor, Encoder, Tachometer, record
from chrono_flex.drive import DriveParams, GearDrive
from chrono_flex.errors import ParameterError
from chrono_flex.spatial import FixedJoint, RevoluteJoint, RigidBody, SpatialLink

L, EI, RHO_A = 1.0, 1.04, 0.196
#: both engines solve generalized-alpha's Newton iteration to 1e-8 of the update
NEWTON = 1e-8


def drive(**kw):
    return GearDrive(DriveParams.serebrenny2019(friction="none", theta_b=0.0, **kw))


def planar(drives, n_links=1):
    links = [cf.Link(L, 2, EI=EI, rho_A=RHO_A, thickness=0.01) for _ in range(n_links)]
    return cf.PlanarArm(links, payload=cf.Payload(0.1, 1e-3), drives=drives)


def spatial(drives):
    link = SpatialLink(L, 2, EI_y=2.0, EI_z=EI, GJ=1.0, rho_A=RHO_A, rho_Ip=1e-3,
                       thickness=0.01)
    return cf.SpatialArm([link, RigidBody(0.1, (0.0, 0.0, 1e-3))],
                         joints=[RevoluteJoint(axis=(0, 0, 1)), FixedJoint()],
                         parents=[-1, 0], drives=drives)


def motor_servo(arm, **kw):
    """A PI on the motor encoder with the motor tachometer's rate, to 0.05 rad of the
    output (ratio * 0.05 at the motor), limited to +-24 V."""
    d = arm.drives[0]
    return PID(0.5, 2.0, 0.01, setpoint=d.ratio * 0.05,
               sensor=Encoder(arm, 2**40, side="motor"),
               rate_sensor=Tachometer(arm, side="motor"), u_min=-24.0, u_max=24.0, **kw)


def test_a_motor_side_servo_on_the_planar_arm_and_its_z_axis_tree():
    settings = dict(dt_out=1e-3, method="generalized_alpha", step=5e-4, progress=False)
    P, S = planar({0: drive()}), spatial({0: drive()})
    law_p, law_s = motor_servo(P), motor_servo(S)
    assert law_p.reads_drive_states and law_p.n_states == 1
    rp = P.simulate(0.2, drive_input=law_p, **settings)
    rs = S.simulate(0.2, drive_input=law_s, **settings)
    scale = np.max(np.abs(rp.extra["drive1_states"]), axis=0)
    np.testing.assert_allclose(rs.extra["drive1_states"], rp.extra["drive1_states"], rtol=0,
                               atol=10 * NEWTON * np.max(scale))
    np.testing.assert_allclose(rs.joint_angles, rp.joint_angles, rtol=0,
                               atol=10 * NEWTON * np.max(np.abs(rp.joint_angles)))
    np.testing.assert_allclose(rs.extra["drive_input_controller_states"],
                               rp.extra["drive_input_controller_states"], rtol=0,
                               atol=10 * NEWTON * np.max(scale))
    # the motor turns ratio times the joint (the drive without play: the twist is small)
    assert rp.extra["drive1_states"][-1, 1] > 0.5 * P.drives[0].ratio * 0.05
    # the recorded channels are the drive's states (current, motor angle, motor speed)
    for arm, res in ((P, rp), (S, rs)):
        ch = record(res, [Encoder(arm, 2**40, side="motor"), CurrentSensor(arm),
                          Tachometer(arm, side="motor")])
        z = res.extra["drive1_states"]
        # the encoder of 2^40 counts: quantum 5.7e-12 rad
        np.testing.assert_allclose(ch["encoder_motor"], z[:, 1], rtol=0, atol=6e-12)
        np.testing.assert_array_equal(ch["current"], z[:, 0])
        np.testing.assert_array_equal(ch["tacho_motor"], z[:, 2])
        assert res.info["units"]["current"] == "A"


class _Logged(PID):
    """A sampled PID that logs (t_k, y_k) of what it measured."""

    def __call__(self, t, *state):
        self.log.append((t, float(self.measure(t, *state)[0])))
        return super().__call__(t, *state)

    def reset(self):
        super().reset()
        self.log = []


class _OnSecondJoint:
    """A one-output law as the torque of a two-joint arm (on the second joint)."""

    def __init__(self, inner):
        self.inner, self.period, self.delay = inner, inner.period, inner.delay
        self.reads_drive_states = inner.reads_drive_states

    def reset(self):
        self.inner.reset()

    def __call__(self, t, *state):
        return [0.0, float(self.inner(t, *state))]


def test_a_sampled_law_reads_the_second_drives_motor_at_the_sample_instants():
    """Drives on both joints; a sampled joint-torque law reading the motor encoder of the
    second drive: the steps land on the sample instants, so what the law read is the
    recorded state there (the motor angle is the 2nd of the second drive's 4 states)."""
    arm = planar({0: drive(), 1: drive()}, n_links=2)
    enc = Encoder(arm, 2**40, side="motor", joint=1)
    assert enc.index == 4 + 1
    law = _Logged(0.05, 0.0, 0.0, setpoint=0.0, sensor=enc, period=1e-3)
    res = arm.simulate(0.02, torque=_OnSecondJoint(law), drive_input=lambda t: [1.0, -2.0],
                       method="generalized_alpha", step=2.5e-4, dt_out=1e-3)
    t_k, y_k = np.array(law.log).T
    np.testing.assert_allclose(t_k, 1e-3 * np.arange(t_k.size), rtol=0, atol=1e-12)
    alpha1 = res.extra["drive2_states"][:, 1]
    # the law read, at t_k, the state the run recorded at t_k (output times = samples);
    # the 2^40-count encoder: quantum 5.7e-12 rad
    np.testing.assert_allclose(y_k, alpha1[:t_k.size], rtol=0, atol=6e-12)
    assert abs(alpha1[-1]) > 1e-3                # the second motor turned


def test_bad_motor_side_sensors_are_named():
    with pytest.raises(ParameterError, match="joint"):
        Encoder(planar(None), 1000, side="motor")                  # no drive at all
    arm = planar({0: drive()}, n_links=2)
    with pytest.raises(ParameterError, match="joint"):
        Tachometer(arm, side="motor", joint=1)                     # joint 1 has none
    with pytest.raises(ParameterError, match="plant"):
        CurrentSensor(planar({0: drive(motor="current")}))        # the current is the input
    law = motor_servo(planar({0: drive()}))
    q = np.zeros(law.sensors[0].plant.nq)
    with pytest.raises(ParameterError, match="sensors"):           # no drive states given
        law.output(0.0, np.zeros(1), q, q)
