"""The linear-model examples give the answers their docstrings state (the module-level
linear results; the nonlinear runs are the validation cases linear.*)."""

import importlib.util
import math
import pathlib

import numpy as np
import pytest

from chrono_flex.linear import residual_vibration

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_pd_and_shaper_example():
    ex = load("linear_pd_and_shaper")
    # the docstring's 0.706 Hz and 0.046, to the digits it prints
    assert ex.frequency / (2 * math.pi) == pytest.approx(0.7067, abs=5e-5)
    assert ex.damping == pytest.approx(0.0457, abs=5e-5)
    for kind, (times, amps) in ex.shapers.items():
        assert amps.sum() == pytest.approx(1.0, abs=1e-15)    # the move ends where it would
        # designed to leave nothing of the mode: round-off of the sums
        assert residual_vibration(ex.frequency, ex.damping, times, amps) < 1e-12
    # ZV's second impulse half a damped period later (0.71 s, the docstring)
    wd = ex.frequency * math.sqrt(1 - ex.damping ** 2)
    assert ex.shapers["ZV"][0][1] == pytest.approx(math.pi / wd, rel=1e-14)
    assert ex.shapers["ZV"][0][1] == pytest.approx(0.71, abs=5e-3)


def test_tip_feedback_example():
    ex = load("linear_tip_feedback")
    assert ex.real_pairs[0] == pytest.approx(25.8, abs=0.05)          # the docstring's
    assert ex.k_star == pytest.approx(3.29, abs=5e-3)
    # the crossing is at the clamped frequency, where the hub stands still: brentq's
    # xtol 1e-12 against a frequency response at a frequency from eigh, round-off
    assert ex.k_star == pytest.approx(-1 / ex.G.real, rel=1e-8)
    assert abs(ex.G.imag) < 1e-8 * abs(ex.G.real)
    assert abs(ex.first_mode(ex.k_star).imag - ex.omega_c) < 1e-6 * ex.omega_c
    assert np.all(np.diff(np.sign(ex.growth))[np.diff(np.sign(ex.growth)) != 0] > 0)  # one crossing, upwards
