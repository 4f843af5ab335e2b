"""The control examples run and give the answers their docstrings state."""

import importlib.util
import pathlib

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_servo_example_predictions():
    ex = load("control_servo_limit_cycle")
    play = ex.predictions["play only, kp = 1000"]
    # the harmonic balance of docs/control.md §4: a root of the loop's eigenvalues (brentq
    # to 1e-13): the stated 19.5 ms and 0.80 mrad to their printed digits
    assert abs(play["period"] - 0.0195) < 5e-5 and abs(play["output"] - 0.80e-3) < 5e-6
    assert not ex.predictions["play + friction, kp = 1000"]["exists"]
    assert ex.predictions["play + friction, kp = 3000"]["exists"]
    assert ex.predictions["kp = 1000, friction compensated"]["exists"]


def test_torque_observer_example():
    ex = load("control_torque_observer")
    # the docstring's "within about 7 mN m" on the smooth stretch; the lag 3 M'/w_o of
    # a ~1 N m/s torque slope is 3 mN m, so an error far below 1 mN m would be suspicious
    assert 1e-3 < ex.error_smooth < 7e-3
