"""The gear drive linearised (chrono_flex.drive.linearize) and an arm with a drive."""

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex.drive import DriveParams, GearDrive
from chrono_flex.drive.linearize import linearize_drive
from chrono_flex.errors import ParameterError
from chrono_flex.planar.reference import _ForwardProblem
from chrono_flex.scenarios.arms import bien_link


def test_poles_without_friction_are_the_stiff_modes():
    # stiff_modes writes the 5x5 matrix of the drive in contact by hand; here it comes from
    # central differences of rates_tuple: the two agree to the differences' error (1e-7
    # steps on smooth, here linear, functions: round-off / step ~ 1e-9 relative)
    d = GearDrive(DriveParams.serebrenny2019(friction="none"))
    m = linearize_drive(d, outputs="output_angle")
    lam = m.poles()
    lam = np.sort_complex(lam[np.abs(lam) > 1e-6])
    np.testing.assert_allclose(lam, np.sort_complex(d.stiff_modes()["electromechanical"]),
                               rtol=1e-7)


def test_presliding_adds_the_bristle_oscillator():
    # with the motor current held (current mode) and the motor side far stiffer, the output
    # sits on the bristles: J2 s^2 + (sigma1 + K_V2) s + sigma0 = 0 (stiff_modes' friction
    # entry) is near a pole pair of the linear model, shifted by the gear's coupling to
    # the rotor (J1 i^2 = 7e-4 against J2 = 2.1e-3: tens of percent)
    d = GearDrive(DriveParams.serebrenny2019(motor="current", theta_b=0.0))
    m = linearize_drive(d, outputs="output_angle")
    assert "z" in m.state_names and "current" not in m.state_names
    # no pole in the right half plane: the drive at rest is passive
    assert np.max(m.poles().real) <= 1e-6 * np.max(np.abs(m.poles()))
    sliding = linearize_drive(d, outputs="output_speed", omega_out=2.0, friction="sliding")
    assert sliding.info["friction"] == "sliding"


def test_regimes_are_checked():
    d = GearDrive(DriveParams.serebrenny2019())
    with pytest.raises(ParameterError, match="`friction`.*at rest"):
        linearize_drive(d, omega_out=1.0)                  # presliding needs rest
    with pytest.raises(ParameterError, match="`friction`.*speed"):
        linearize_drive(d, friction="sliding")             # sliding needs a speed
    with pytest.raises(ParameterError, match="`backlash`"):
        linearize_drive(d, backlash="flank")
    with pytest.raises(ParameterError, match="`backlash`.*play"):
        linearize_drive(GearDrive(DriveParams.serebrenny2019(theta_b=0.0)), backlash="gap")
    with pytest.raises(ParameterError, match="`outputs`.*'torque'"):
        linearize_drive(d, outputs="torque")
    # in the gap no torque passes: the output is its inertia alone (a double pole at 0)
    # on the friction's bristles, decoupled from the motor
    gap = linearize_drive(d, backlash="gap", outputs="output_angle", inputs="voltage")
    assert np.allclose(gap.frequency_response([1.0, 10.0]), 0.0)


def test_steady_state_is_steady():
    d = GearDrive(DriveParams.serebrenny2019())
    for kw in (dict(torque=0.3), dict(torque=-0.3, theta_out=1.0), dict(u=2.0),
               dict(u=3.0, omega_out=1.5)):
        x, u, tau = d.steady_state(**kw)
        di, da, dw, dz, t = d.rates_tuple(*x, kw.get("theta_out", 0.0),
                                          kw.get("omega_out", 0.0), u)
        scale = abs(tau) + d.params.Ms
        assert abs(dw) * d.params.J1 < 1e-12 * scale and abs(di) < 1e-9 and abs(dz) < 1e-12
        assert t == pytest.approx(tau, abs=1e-12 * scale)
    with pytest.raises(ParameterError, match="`torque`"):
        d.steady_state(torque=1.0, u=1.0)


def test_arm_with_drive_matches_the_engines_rhs():
    # A of the arm with a drive (no play, friction "none": the engine's equations are
    # smooth there) against central differences of the reference engine's own rhs at the
    # equilibrium (gravity on, the joint held horizontal by the drive)
    drive = GearDrive(DriveParams.serebrenny2019(theta_b=0.0, friction="none"))
    arm = cf.PlanarArm([bien_link(1.0, 2)], payload=cf.Payload(0.1), gravity=True,
                       drives={0: drive})
    lin = arm.linearize(inputs="voltage1", outputs=["theta1", "drive1.motor_angle"])
    eq = arm.equilibrium()
    assert eq.drive_inputs[0] > 0                      # the motor holds the weight up
    u0 = eq.drive_inputs[0]
    sim = _ForwardProblem(arm, None, lambda t: [u0], "virtual_power")
    nq = arm.nq
    x0 = np.concatenate([eq.q, np.zeros(nq), [0.0, 0.0], eq.drive_states[0]])
    f0 = sim.rhs(0.0, x0)
    assert np.max(np.abs(f0[:2 * nq])) < 1e-6        # at rest: an equilibrium of the engine
    keep = list(range(2 * nq)) + [2 * nq + 2 + k for k in range(3)]   # no z
    J = np.empty((len(keep), len(keep)))
    for c, k in enumerate(keep):
        h = 1e-6 * max(1.0, abs(x0[k]))
        xp, xm = x0.copy(), x0.copy()
        xp[k] += h
        xm[k] -= h
        J[:, c] = (sim.rhs(0.0, xp) - sim.rhs(0.0, xm))[keep] / (2 * h)
    # both by central differences with steps ~1e-6..1e-7: ~1e-7 of the largest entry
    np.testing.assert_allclose(lin.A, J, atol=1e-6 * np.max(np.abs(J)))


def test_free_driven_joint_takes_input_zero():
    drive = GearDrive(DriveParams.serebrenny2019(theta_b=0.0))
    arm = cf.PlanarArm([bien_link(1.0, 2)], drives={0: drive})
    eq = arm.equilibrium(joints="free")
    assert eq.drive_inputs == {0: 0.0} and eq.joint_torques[0] == 0.0
    lin = arm.linearize(inputs="voltage1", outputs="theta1", pose=eq)
    # the motor turns the link: a rigid-body pole at 0 (the angle), the rest stable
    assert np.sum(np.abs(lin.poles()) < 1e-6 * np.max(np.abs(lin.poles()))) >= 1
    assert np.max(lin.poles().real) < 1e-6 * np.max(np.abs(lin.poles()))
