"""Fixed-step (real-time) integration of the drive: step bound, stability, convergence."""

import math

import numpy as np
import pytest

from chrono_flex.drive import (DriveParams, FixedStepDrive, GearDrive, simulate_drive,
                               simulate_fixed, stable_step)
from chrono_flex.errors import ParameterError, SimulationError


def rate(hs, errs):
    return np.polyfit(np.log(hs), np.log(errs), 1)[0]


def test_stability_limits_of_the_methods():
    # real axis: Euler h|lambda| <= 2, RK4 <= 2.7853 (Hairer-Wanner II, IV.2)
    assert stable_step("euler", -1e4) == pytest.approx(2e-4, rel=1e-15)
    assert stable_step("rk4", -1.0) == pytest.approx(2.785293563405282, rel=1e-15)
    # damped oscillator for Euler: |1 + h lam| <= 1 <=> h <= -2 Re(lam) / |lam|^2
    lam = -250.0 + 1340.0j
    assert stable_step("euler", lam) == pytest.approx(-2 * lam.real / abs(lam) ** 2, rel=1e-9)
    # imaginary axis: RK4 reaches 2 sqrt(2), Euler nothing
    assert stable_step("rk4", 1000j) == pytest.approx(2 * math.sqrt(2) / 1000, rel=1e-9)
    assert stable_step("euler", 1000j) == 0.0


def test_step_bound_is_eq_29_for_static_friction_and_T_min_for_dynamic():
    p = DriveParams.serebrenny2019(friction="static")
    k = 6.0
    # [S] eq. 29 with the slope Ms/dOmega2 of the linear zone: h < 2 dOmega2 J2 / (k Ms)
    assert GearDrive(p).max_stable_step("euler", safety=k) == pytest.approx(
        2 * p.dOmega2 * p.J2 / (k * p.Ms), rel=1e-12)
    # the load factor at a stuck transmitted torque shrinks it by (1 + K_ML M1')
    assert GearDrive(p).max_stable_step("euler", safety=k, torque=0.5) == pytest.approx(
        2 * p.dOmega2 * p.J2 / (k * p.Ms * (1 + 0.5 * p.K_ML)), rel=1e-12)
    d = GearDrive(DriveParams.serebrenny2019(friction="dynamic"))
    assert d.max_stable_step("rk4", safety=k) == pytest.approx(2.785293563405282 * 2e-6 / k,
                                                               rel=1e-12)
    # with a long T_min the electrical time constant L/R becomes the limit
    slow = DriveParams.serebrenny2019(T_min=1e-2, friction="dynamic")
    lam_e = GearDrive(slow).stiff_modes()["electromechanical"]
    # (the back-EMF coupling moves the electrical eigenvalue by a few per cent)
    assert np.min(lam_e.real) == pytest.approx(-slow.R / slow.L, rel=0.05)


def test_step_above_the_bound_is_refused():
    d = GearDrive(DriveParams.serebrenny2019())
    for method in ("euler", "rk4"):
        h_max = d.max_stable_step(method)
        FixedStepDrive(d, h_max, method)                      # at the bound: accepted
        with pytest.raises(ParameterError) as e:
            FixedStepDrive(d, 1.01 * h_max, method)
        assert e.value.parameter == "h" and e.value.value == 1.01 * h_max
        with pytest.raises(ParameterError) as e:
            simulate_fixed(d, 1e-3, 2 * h_max, u=12.0, method=method)
        assert e.value.parameter == "h"


def test_bound_is_sharp_for_a_stuck_output():
    """Static friction, output held by the linear zone under a constant torque below Ms:
    the exact solution creeps at M_out dOmega2 / Ms. Below the (safety 1) bound both
    methods settle on it; 10 % above it they chatter by about dOmega2."""
    p = DriveParams.serebrenny2019(friction="static")
    d = GearDrive(p)
    creep = 0.02 * p.dOmega2 / p.Ms
    ref = simulate_drive(d, 0.01, drive_input=0.0, m_out=0.02, rtol=1e-9, atol=1e-13)
    # the output creeps 4e-7 rad, inside the backlash gap: the motor side takes no part,
    # so the creep speed is exact up to the solver's rtol
    assert ref.states[-1, 5] == pytest.approx(creep, rel=1e-6)
    for method in ("euler", "rk4"):
        h = d.max_stable_step(method, safety=1.0)
        late = slice(-200, None)
        ok = simulate_fixed(d, 0.01, 0.9 * h, u=0.0, m_out=0.02, method=method, safety=1.0)
        assert np.max(np.abs(ok.states[late, 5] - creep)) < 1e-6 * creep   # converged creep
        bad = simulate_fixed(d, 0.01, 1.1 * h, u=0.0, m_out=0.02, method=method, check=False)
        assert np.max(np.abs(bad.states[late, 5] - creep)) > 0.3 * p.dOmega2


@pytest.mark.parametrize("friction", ["dynamic", "static"])
def test_euler_is_stable_below_the_bound_and_first_order(friction):
    """The [S] drive at its own parameters, 12 V step, 10 ms: Euler at the bound and below,
    against Radau at rtol 1e-11."""
    d = GearDrive(DriveParams.serebrenny2019(friction=friction))
    T = 0.01
    ref = simulate_drive(d, T, drive_input=12.0, rtol=1e-11, atol=1e-13).states[-1]
    h0 = d.max_stable_step("euler")
    hs = np.array([h0, h0 / 2, h0 / 4])
    errs = [np.max(np.abs(simulate_fixed(d, T, h, u=12.0, method="euler").states[-1] - ref)
                   / (np.abs(ref) + 1e-12)) for h in hs]
    assert max(errs) < 1e-3                       # stable and accurate at the bound
    assert 0.9 < rate(hs, errs) < 1.1             # first order


def test_rk4_converges_at_fourth_order_on_a_smooth_run():
    """RK4's order shows on a run without non-smooth points: no backlash, sliding between
    the sigma1 cap speed and v_t (T_min = 4e-5 s puts v_t at 10.7 rad/s), M1' > 0.
    (At [S]'s parameters the backlash contact and friction kinks cap it near order 2, at
    errors ~1e-9 already.) Start in steady state at 6 V, step to 12 V."""
    d = GearDrive(DriveParams.serebrenny2019(theta_b=0.0, T_min=4e-5))
    y0 = simulate_drive(d, 0.3, drive_input=6.0, rtol=1e-10, atol=1e-13).states[-1]
    T = 0.005
    ref = simulate_drive(d, T, drive_input=12.0, x0=y0, rtol=1e-12, atol=1e-14)
    w = ref.states[:, 5]
    assert 0.2 < w.min() and w.max() < d.friction.transition_speed   # stays in the smooth band
    scale = np.max(np.abs(ref.states), axis=0) + 1e-30
    h0 = d.max_stable_step("rk4")
    hs = h0 * np.array([1.0, 2 ** -0.5, 0.5])
    errs = [np.max(np.abs(simulate_fixed(d, T, h, u=12.0, x0=y0).states[-1] - ref.states[-1])
                   / scale) for h in hs]
    # errors ~1e-10 .. 4e-11, well above the reference's ~1e-12
    assert 3.6 < rate(hs, errs) < 4.5
    assert max(errs) < 1e-8


def test_step_api_and_divergence():
    d = GearDrive(DriveParams.serebrenny2019())
    s = FixedStepDrive(d, d.max_stable_step("rk4"))
    for _ in range(100):
        tau = s.step(12.0)
    assert s.t == pytest.approx(100 * s.h) and isinstance(tau, float)
    assert s.x.shape == (4,) and s.state.shape == (6,)
    assert s.x[0] > 0.0                                      # current rose
    with pytest.raises(SimulationError) as e:
        s.step(float("nan"))
    assert e.value.time == pytest.approx(100 * s.h)
