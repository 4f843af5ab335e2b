"""The Chrono examples run and give the answers their docstrings state; without
PyChrono they say so in one line instead of a traceback."""

import importlib.util
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"
ROOT = EXAMPLES.parent


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.pychrono
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


#: Runs an example as ``python example.py`` would, with ``import pychrono`` failing as it
#: does where PyChrono is not installed.
WITHOUT_PYCHRONO = """
import runpy, sys
sys.modules["pychrono"] = None          # import pychrono -> ImportError
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def test_two_link_gear_arm_without_pychrono_says_what_is_missing(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", WITHOUT_PYCHRONO,
                           str(EXAMPLES / "chrono_two_link_gear_arm.py"), str(tmp_path)],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "ModuleNotFoundError" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("chrono_two_link_gear_arm.py: ")
    assert "needs PyChrono" in lines[0] and "conda install -c projectchrono" in lines[0]
    assert list(tmp_path.iterdir()) == []          # nothing written
