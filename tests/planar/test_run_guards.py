"""Bad settings and faulty callbacks of a run: each error names its source.

The reference engine's integrator settings, its callbacks, its budgets and the guard on
the initial state. (The Chrono engines share the callback wrapper and the loop: their
cases are in tests/chrono.)
"""

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex import ParameterError, SimulationError


@pytest.fixture(scope="module")
def arm():
    return cf.PlanarArm([cf.Link(1.0, 2, EI=1.0, rho_A=0.2)])


def pulse(t, q, qd):
    return [0.05 * np.sin(10.0 * t)]


@pytest.mark.parametrize("kw, name", [
    (dict(rtol=1e-20), "rtol"),             # scipy would raise it to 2.2e-14 silently
    (dict(rtol=-1.0), "rtol"),
    (dict(rtol="tight"), "rtol"),
    (dict(atol=-1.0), "atol"),
    (dict(atol=[1e-9, 1e-9]), "atol"),      # not one per state
    (dict(max_step=0.0), "max_step"),
    (dict(max_step=-1.0), "max_step"),
    (dict(method="bogus"), "method"),
    (dict(max_nfev=0), "max_nfev"),
    (dict(max_nfev=2.5), "max_nfev"),
    (dict(max_wall_time=0.0), "max_wall_time"),
    (dict(qd0=[np.inf]), "qd0"),
    (dict(q0=[0.0, 1.0]), "q0"),
    (dict(elastic0=[0.0, 0.0]), "elastic0"),
    (dict(elastic_rates0=[np.nan] * 4), "elastic_rates0"),
    (dict(n_samples=1), "n_samples"),
    (dict(n_samples=0), "n_samples"),
    (dict(dt_out=1e-9), "dt_out"),          # 5e8 samples: refused before any memory is used
])
def test_bad_settings_name_the_argument(arm, kw, name):
    with pytest.raises(ParameterError) as e:
        arm.simulate(0.5, torque=pulse, **kw)
    assert e.value.parameter == name and f"`{name}`" in str(e.value)


@pytest.mark.parametrize("value, what", [
    (None, "real number"), ("x", "real number"), ("0.1", "real number"),
    ([0.1, "a"], "real number"), ([1.0, 2.0], "1 value"), ([[1.0]], "1 value"),
])
def test_a_torque_callback_returning_garbage_is_named_with_the_time(arm, value, what):
    with pytest.raises(ParameterError) as e:
        arm.simulate(0.5, torque=lambda t, q, qd: value)
    assert e.value.parameter == "torque" and what in str(e.value) and "t = 0 s" in str(e.value)


def test_a_non_finite_torque_is_numerical_trouble_at_its_time(arm):
    with pytest.raises(SimulationError) as e:
        arm.simulate(0.5, torque=lambda t, q, qd: [np.nan if t > 0.1 else 0.01])
    assert "`torque` callback returned a non-finite value" in str(e.value)
    assert 0.1 < e.value.time < 0.11


def test_a_torque_that_changes_shape_later_is_caught_when_it_does(arm):
    def torque(t, q, qd):
        return [0.01] if t < 0.1 else [0.01, 0.02]

    with pytest.raises(ParameterError, match="torque") as e:
        arm.simulate(0.5, torque=torque)
    assert "at t = 0.1" in str(e.value)


class ControllerFault(Exception):
    """The user's own exception type, to be found as the cause."""


def faulty_controller(t, q, qd):
    """A controller that loses its sensor after 0.2 s."""
    return [0.01] if t <= 0.2 else _lost()


def _lost():
    raise ControllerFault("sensor lost")


def test_a_raising_callback_stops_the_run_with_its_name_type_and_time(arm):
    with pytest.raises(SimulationError) as e:
        arm.simulate(0.5, torque=faulty_controller)
    msg = str(e.value)
    assert "`torque` callback raised ControllerFault: sensor lost" in msg
    assert isinstance(e.value.__cause__, ControllerFault)
    assert 0.2 < e.value.time < 0.21       # the first evaluation past 0.2 s (steps < 10 ms)


def test_drive_input_and_joint_motion_callbacks_are_named():
    from chrono_flex.drive import DriveParams, GearDrive

    link = cf.Link(1.0, 2, EI=1.0, rho_A=0.2)
    driven = cf.PlanarArm([link], drives={0: GearDrive(DriveParams.serebrenny2019())})
    with pytest.raises(SimulationError, match="`drive_input` callback returned a non-finite"):
        driven.simulate(0.1, drive_input=lambda t: [float("nan")])
    plain = cf.PlanarArm([link])
    with pytest.raises(ParameterError, match="joint_motion"):
        plain.simulate(0.1, joint_motion=lambda t: ([0.0], [0.0]))


def test_the_initial_state_is_guarded_too(arm):
    """A tip deflection of 5 m on a 1 m link is refused at t = 0, not integrated."""
    with pytest.raises(SimulationError, match="tip deflection") as e:
        arm.simulate(0.5, elastic0=[0.0, 0.0, 5.0, 0.0])
    assert e.value.time == 0.0


def test_every_integrator_has_an_evaluation_budget(arm):
    for method in ("Radau", "BDF", "RK45"):
        with pytest.raises(SimulationError, match="max_nfev = 40") as e:
            arm.simulate(0.5, torque=pulse, method=method, max_nfev=40)
        assert 0.0 <= e.value.time < 0.5


def test_a_wall_time_budget_stops_any_run(arm):
    with pytest.raises(SimulationError, match="wall-time budget") as e:
        arm.simulate(5.0, torque=pulse, method="Radau", rtol=1e-10, max_wall_time=0.05)
    assert e.value.time < 5.0


def test_repeated_runs_are_bit_identical(arm):
    a = arm.simulate(0.5, torque=pulse)
    b = arm.simulate(0.5, torque=pulse)
    assert np.array_equal(a.q, b.q) and np.array_equal(a.qd, b.qd)
    assert np.array_equal(a.energy.balance, b.energy.balance)
