"""What RK4 and generalized-alpha share (chrono_flex.integrators.base): the step check,
the evaluation budget with its message, landing on the output times."""

import numpy as np
import pytest

from chrono_flex.errors import BudgetExceeded, ParameterError
from chrono_flex.integrators.explicit import RungeKutta4
from chrono_flex.integrators.generalized_alpha import GeneralizedAlpha


def _oscillator(t, x):
    """q'' = -q as x = [q, v]: dx = [v, -q]."""
    return np.array([x[1], -x[0]])


def _jac(t, x):
    return np.array([[0.0, 1.0], [-1.0, 0.0]])


def _rk4(step, max_nfev=None):
    return RungeKutta4(_oscillator, 0.0, [1.0, 0.0], step, max_nfev=max_nfev)


def _ga(step, max_nfev=None):
    return GeneralizedAlpha(_oscillator, _jac, 0.0, [1.0, 0.0], 1, step, max_nfev=max_nfev)


@pytest.mark.parametrize("make", [_rk4, _ga])
@pytest.mark.parametrize("step", [0.0, -1e-3, True, "1e-3", float("nan")])
def test_a_bad_step_is_refused_naming_it(make, step):
    with pytest.raises(ParameterError) as e:
        make(step)
    assert e.value.parameter == "step"


@pytest.mark.parametrize("make, name, hint", [
    (_rk4, "rk4", ""), (_ga, "generalized_alpha", " (raise max_nfev, or use a larger step)")])
def test_the_budget_stops_the_steps_naming_the_method(make, name, hint):
    ode = make(1e-2, max_nfev=10)
    with pytest.raises(BudgetExceeded) as e:
        while ode.t < 1.0:
            ode.advance(1.0)
    assert f"{name} used up its budget of max_nfev = 10 right-hand-side evaluations{hint}" \
        in str(e.value)
    assert ode.nfev == 10                        # no evaluation beyond the budget


@pytest.mark.parametrize("make", [_rk4, _ga])
def test_steps_land_on_the_target_and_state_is_a_copy(make):
    ode = make(0.03)
    while ode.t < 0.1:
        ode.advance(0.1)
    assert ode.t == 0.1                          # exactly: the last step is shortened
    x = ode.state(0.1)
    assert x is not ode.current and np.array_equal(x, ode.current)
    x[0] = 99.0
    assert ode.current[0] != 99.0
    assert ode.n_steps == 4                      # equal substeps of 0.025 <= 0.03
    # q = cos t: generalized-alpha (second order, rho_inf 0.8) is off by O(h^2) t,
    # measured 5.5e-7, RK4 by 3e-11; 1e-5 leaves room and catches a wrong step
    assert abs(ode.current[0] - np.cos(0.1)) < 1e-5
