"""The RRRP arm through the engines' one plumbing (chrono_flex.formulations.rrrp_run):
the integrator from integrators.choice, stepping.run's loop and budgets, the arm's limits
located in the step."""

import numpy as np
import pytest

from chrono_flex.errors import BudgetExceeded, ParameterError, SimulationError
from chrono_flex.formulations.rrrp import RRRPArm, RRRPResult
from chrono_flex.integrators.choice import DEFAULT_METHOD, GA_RTOL

ARM = RRRPArm()
#: Held under gravity at rest: the modal coordinates at their static deflection.
ETA0 = ARM.static_deflection([0.0, 0.2, -0.2, 0, 0, 0, 0, 2.3])


def _hold(t, eta, eta_d):
    """Gravity compensation: the joints stay where they are (the arm then vibrates
    about nothing: it starts in its static deflection)."""
    return ARM.joint_inputs(ARM.potential_gradient(eta)[[0, 1, 2, 7]])


@pytest.mark.slow
def test_generalized_alpha_agrees_with_rk45_and_says_how_it_ran():
    """A torque pulse on joint 1: generalized-alpha at rtol 1e-5 and at the default
    settings against RK45 at 1e-8. Measured: 6e-6 rad in the joint angles, 3e-5 m in
    the modal coordinates (of amplitude 2e-2 m) at rtol 1e-6 over 0.4 s; the bounds
    leave room for the looser rtol (a second-order method whose numerical damping,
    rho_inf = 0.8, also trims the faster modes), and the bounds are far below the
    motion. The default (rtol 1e-3, an engineering tolerance): measured 4.7e-4 rad and
    2.3e-3 m (of 7e-3 rad and 2.5e-2 m) at 31 outputs; bounds twice those."""
    def torque(t, eta, eta_d):
        return _hold(t, eta, eta_d) + np.array([300.0 * (t < 0.2), 0, 0, 0])

    a = ARM.simulate(0.3, ETA0, torque=torque, n_out=4, progress=False, method="RK45")
    b = ARM.simulate(0.3, ETA0, torque=torque, n_out=4, progress=False,
                     method="generalized_alpha", rtol=1e-5)
    c = ARM.simulate(0.3, ETA0, torque=torque, n_out=4, progress=False)   # the default
    assert isinstance(b, RRRPResult)
    assert a.q[-1, 0] > 1e-3 and np.max(np.abs(a.q[:, 3])) > 5e-3   # it turned, it bent
    np.testing.assert_allclose(b.q[:, :3], a.q[:, :3], atol=1e-4)
    np.testing.assert_allclose(b.q[:, 3:7], a.q[:, 3:7], atol=5e-4)
    np.testing.assert_allclose(c.q[:, :3], a.q[:, :3], atol=1e-3)
    np.testing.assert_allclose(c.q[:, 3:7], a.q[:, 3:7], atol=5e-3)
    assert a.info["method"] == "RK45" and a.info["rtol"] == 1e-8 and a.info["atol"] == 1e-10
    assert b.info["step"] == "adaptive" and b.info["rtol"] == 1e-5 and b.info["nfev"] > 0
    assert "atol" not in b.info
    assert c.info["method"] == DEFAULT_METHOD == "generalized_alpha"
    assert c.info["step"] == "adaptive" and c.info["rtol"] == GA_RTOL
    # the input work integrated as a state balances the energy (RK45 to 1e-8)
    e = a.energy
    drift = np.max(np.abs(e.balance_error)) / np.max(np.abs(e.input_work))
    assert drift < 1e-5


def test_the_stroke_limit_is_located_in_the_step():
    """A constant force pushes the telescope out: the run stops when ``a`` reaches the
    stroke maximum; a run to just before that time ends with ``a`` below the maximum
    and within the distance it travels in that last stretch. Both runs with RK45 at
    rtol 1e-8: the two runs (other output times, so other steps) must agree far better
    than the last stretch of 1e-3 t_hit, which the default's rtol 1e-3 does not promise."""
    def push(t, eta, eta_d):
        return _hold(t, eta, eta_d) + np.array([0, 0, 0, 2e3])

    with pytest.raises(SimulationError, match="stroke maximum") as e:
        ARM.simulate(2.0, ETA0, torque=push, progress=False, method="RK45")
    t_hit = e.value.time
    assert 0.0 < t_hit < 2.0
    before = ARM.simulate(t_hit * (1 - 1e-3), ETA0, torque=push, n_out=3, progress=False,
                          method="RK45")
    a_max = ARM.params.stroke[1]
    gap = a_max - before.q[-1, 7]
    speed = before.qd[-1, 7]
    assert 0.0 < gap < 2 * speed * t_hit * 1e-3     # it was about to arrive


def test_budgets_stop_the_run_with_its_partial_result():
    with pytest.raises(BudgetExceeded) as e:
        ARM.simulate(1.0, ETA0, torque=_hold, max_nfev=300, progress=False)
    part = e.value.partial
    assert isinstance(part, RRRPResult) and part.info["partial"]
    assert 0.0 < part.t[-1] < 1.0


def test_settings_the_method_would_misread_are_refused():
    for named in (dict(method="generalized_alpha"), {}):     # the default: name a method
        with pytest.raises(ParameterError) as e:
            ARM.simulate(0.1, ETA0, atol=1e-9, **named)
        assert e.value.parameter == "atol" and "method='Radau'" in str(e.value)
    with pytest.raises(ParameterError) as e:
        ARM.simulate(0.1, ETA0, method="rk4")
    assert e.value.parameter == "step"
    with pytest.raises(ParameterError) as e:
        ARM.simulate(0.1, ETA0, rtol=-1.0)
    assert e.value.parameter == "rtol"
