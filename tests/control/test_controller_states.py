"""Continuous controllers with their own states (integrators, filters) in the arm
engines (docs/control.md §1.2): the reference engines append the states to the
integrated state; an engine that cannot (Chrono) advances them from step to step by the
linearly implicit trapezoidal rule (chrono_flex._callbacks.stepped)."""

import math

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex._callbacks import stepped
from chrono_flex.control import PID, Encoder
from chrono_flex.errors import ParameterError, SimulationError

from _arms import hub_link_arm, pi_law, setpoint


def link_arm():
    """Bien's-like link (1 m, 4 elements) on a hub, no gravity."""
    return hub_link_arm(1.04)


class _Filter:
    """dxc/dt = (y - xc)/Tf with y the state argument: a first-order filter, linear in
    xc; its output is xc."""

    n_states, period, Tf = 1, 0.0, 0.05

    def initial_state(self):
        return np.zeros(1)

    def rates(self, t, xc, y):
        return (np.asarray(y) - xc) / self.Tf

    def output(self, t, xc, y):
        return xc.copy()

    def __call__(self, t, *state):
        raise AssertionError("the engines call output() and rates()")


def test_stepped_is_the_trapezoidal_rule_and_restarts_a_retried_step():
    f = stepped("torque", _Filter())
    h, a = 0.01, 1.0 / 0.05
    y = lambda t: np.array([math.sin(10 * t)])  # noqa: E731
    def trapezoidal(x, t, t1):
        # (1 + h a/2) x1 = (1 - h a/2) x0 + h a/2 (y0 + y1)
        hh = t1 - t
        return ((1 - hh * a / 2) * x + hh * a / 2 * (y(t)[0] + y(t1)[0])) / (1 + hh * a / 2)

    x, t = 0.0, 0.0
    f(0.0, y(0.0))
    for k in range(1, 30):
        t1 = k * h
        f(t1, y(t1) + 0.3)                     # a Newton iterate: replaced below
        if k == 5:                             # the step fails; retried with h/2, which
            f(t + h / 2, y(t + h / 2))         # is accepted when the next time is called
            x, t = trapezoidal(x, t, t + h / 2), t + h / 2
            f(t1, y(t1) - 0.2)
        got = float(f(t1, y(t1))[0])
        x, t = trapezoidal(x, t, t1), t1
        # the Jacobian a by forward differences of a linear rate: round-off of 1e-7
        # relative steps, about 1e-9 relative
        assert got == pytest.approx(x, rel=1e-8, abs=1e-12), k
    assert f.n_accepted == 29              # 28 steps and the half step


def test_continuous_pi_generalized_alpha_against_radau_and_the_sampled_pi():
    arm = link_arm()
    t_end = 0.4
    ref = arm.simulate(t_end, torque=pi_law(arm), method="Radau", rtol=1e-10, atol=1e-12,
                       dt_out=1e-3)
    # the integral is a state of the run, recorded with the others
    I = ref.extra["torque_controller_states"][:, 0]
    e = np.array([setpoint(t) for t in ref.t]) - ref.joint_angles[:, 0]
    # dI/dt = ki e: the trapezoidal sum of the recorded error at 1 ms outputs, its
    # error ki h^2/12 max|e''| T = 4 * 1e-6 / 12 * 12 * 0.4 (|e''| <= 0.05 (pi/0.2)^2
    # = 12 rad/s^2 from the setpoint's ramp)
    trap = 4.0 * np.concatenate([[0.0], np.cumsum(0.5e-3 * (e[1:] + e[:-1]))])
    np.testing.assert_allclose(I, trap, rtol=0, atol=2e-6)
    ga = arm.simulate(t_end, torque=pi_law(arm), rtol=1e-6, dt_out=1e-3)
    assert ga.info["newton"] == "python"
    # generalized-alpha's step control to rtol 1e-6 of the largest angle (0.06 rad)
    np.testing.assert_allclose(ga.joint_angles, ref.joint_angles, rtol=0, atol=1e-6)
    # the sampled PI (zero-order hold) tends to the continuous one as the period shrinks:
    # first order in the period (the hold delays the input by T/2 on average)
    errs = []
    periods = (4e-3, 2e-3, 1e-3)
    for T in periods:
        run = arm.simulate(t_end, torque=pi_law(arm, period=T), step=T / 4, dt_out=1e-3)
        errs.append(np.max(np.abs(run.joint_angles - ref.joint_angles)))
    rates = np.log2(np.array(errs[:-1]) / np.array(errs[1:]))
    assert np.all((rates > 0.8) & (rates < 1.3)), (errs, rates)


def test_drive_input_controller_with_states_on_an_arm_with_a_drive():
    from chrono_flex.drive import DriveParams, GearDrive

    d = GearDrive(DriveParams.serebrenny2019(friction="none", theta_b=0.0))
    link = cf.Link(length=1.0, n_elements=2, EI=1.04, rho_A=0.196, thickness=0.01)
    arm = cf.PlanarArm(links=[link], joints=[cf.RevoluteJoint()], gravity=0.0,
                       drives={0: d})
    law = PID(50.0, 200.0, 0.0, setpoint=0.05, sensor=Encoder(arm, 2**40),
              u_min=-24.0, u_max=24.0, Tf=2e-3)
    res = arm.simulate(0.2, drive_input=law, method="Radau", rtol=1e-8, atol=1e-10,
                       dt_out=1e-3)
    xc = res.extra["drive_input_controller_states"]
    assert xc.shape == (res.t.size, 1)         # the integral (no derivative: no filter)
    # the integral is ki times the integrated error (trapezoidal sum, 1 ms outputs:
    # error h^2/12 |e''| T with |e''| <~ 10 rad/s^2)
    e = 0.05 - res.joint_angles[:, 0]
    trap = 200.0 * np.concatenate([[0.0], np.cumsum(0.5e-3 * (e[1:] + e[:-1]))])
    np.testing.assert_allclose(xc[:, 0], trap, rtol=0, atol=1e-4)
    assert res.joint_angles[-1, 0] > 0.02      # the servo moves the link


class _Broken(_Filter):
    def __init__(self, what):
        self.what = what

    def initial_state(self):
        return np.zeros(2) if self.what == "initial" else np.zeros(1)

    def rates(self, t, xc, q, qd):
        return np.array([math.nan]) if self.what == "nan" else np.zeros(1)

    def output(self, t, xc, q, qd):
        return [1.0, 2.0] if self.what == "shape" else 0.0


@pytest.mark.parametrize("what, error, match", [
    ("initial", ParameterError, "torque.initial_state"),
    ("nan", SimulationError, "torque.rates"),
    ("shape", ParameterError, "torque.output"),
])
def test_bad_controllers_are_named(what, error, match):
    arm = link_arm()
    with pytest.raises(error, match=match.replace(".", r"\.")):
        arm.simulate(0.01, torque=_Broken(what), dt_out=1e-3)
    if what != "initial":                      # the step-to-step route (Chrono's)
        from chrono_flex._callbacks import call_vector

        f = stepped("torque", _Broken(what))
        q = np.zeros(arm.nq)
        with pytest.raises(error, match="torque.rates" if what == "nan" else "`torque`"):
            call_vector("torque", f, 1, 0.0, q, q)
    else:
        with pytest.raises(error, match=r"torque\.initial_state"):
            stepped("torque", _Broken(what))
