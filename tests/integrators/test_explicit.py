"""Fixed-step RK4 (chrono_flex.integrators.explicit): order, stability limit, engine use."""

import math

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex.errors import ParameterError
from chrono_flex.integrators.explicit import (RK4_IMAGINARY_LIMIT, RungeKutta4,
                                              rk4_amplification, rk4_step)


def test_amplification_is_the_rk4_polynomial_on_the_imaginary_axis():
    y = np.linspace(0.1, 3.2, 50)
    z = 1j * y
    R = 1 + z + z**2 / 2 + z**3 / 6 + z**4 / 24
    assert np.allclose(rk4_amplification(y), np.abs(R), rtol=1e-13, atol=0)
    assert rk4_amplification(RK4_IMAGINARY_LIMIT) == pytest.approx(1.0, abs=1e-14)


def test_fourth_order_on_an_oscillator():
    rhs = lambda t, x: np.array([x[1], -x[0]])  # noqa: E731
    errs = []
    for n in (20, 40, 80):
        x, h = np.array([1.0, 0.0]), 1.0 / n
        for k in range(n):
            x = rk4_step(rhs, k * h, x, h)
        errs.append(abs(x[0] - math.cos(1.0)))
    rate = np.polyfit(np.log([1 / 20, 1 / 40, 1 / 80]), np.log(errs), 1)[0]
    assert 3.8 < rate < 4.2                       # fourth order (asymptotic range)


@pytest.mark.parametrize("factor, grows", [(0.99, False), (1.01, True)])
def test_an_undamped_mode_grows_just_above_the_limit(factor, grows):
    omega = 50.0
    rhs = lambda t, x: np.array([x[1], -omega**2 * x[0]])  # noqa: E731
    stepper = RungeKutta4(rhs, 0.0, [1.0, 0.0], factor * RK4_IMAGINARY_LIMIT / omega)
    for k in range(2000):
        stepper.advance(stepper.t + stepper.step)
    energy = stepper.x[0] ** 2 + (stepper.x[1] / omega) ** 2
    assert bool(energy > 1.0) == grows


def test_the_engine_runs_rk4_and_needs_a_step():
    arm = cf.PlanarArm([cf.Link(1.0, 2, EI=1000.0, rho_A=5.0)], gravity=True)
    with pytest.raises(ParameterError, match="step"):
        arm.simulate(0.01, method="rk4")
    r = arm.simulate(0.01, method="rk4", step=1e-4, dt_out=1e-3, progress=False)
    ref = arm.simulate(0.01, dt_out=1e-3, method="Radau", rtol=1e-10, progress=False)
    assert r.info["method"] == "rk4" and r.info["nfev"] == 4 * 100
    # h = 0.1 ms far below the limit (0.8 ms): RK4's error is round-off and Radau's 1e-10
    assert np.max(np.abs(r.joint_angles - ref.joint_angles)) < 1e-8
