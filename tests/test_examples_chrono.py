"""The Chrono examples run and give the answers their docstrings state."""

import importlib.util
import pathlib

import numpy as np
import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"

pytestmark = pytest.mark.pychrono


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_two_link_gear_arm_follows_the_reference_engine():
    ex = load("chrono_two_link_gear_arm")
    res = ex.run(t_end=0.05, step=5e-4)
    theta, ref = res["joint_angles"], res["reference_joint_angles"]
    # the voltages' signs: shoulder forwards, elbow backwards (7.4e-3, -7.2e-3 rad seen)
    assert theta[-1, 0] > 1e-3 and theta[-1, 1] < -1e-3
    # same model, two integrators: at h = 0.5 ms the drive step study
    # (tests/chrono/test_drive.py) gives joint-angle errors ~5e-5 of the angle; seen here
    # 1.2e-6 rad of 7.2e-3 (1.7e-4). 1e-3 of the largest angle leaves a factor ~6.
    assert np.max(np.abs(theta - ref)) < 1e-3 * np.max(np.abs(ref))
    assert res["turntable_angle"][-1] > 0.0          # the GearDriveLink turns it forwards
    assert res["tip"][-1, 0] == pytest.approx(1.5, abs=1e-3)   # 1 m + 0.5 m, nearly straight
