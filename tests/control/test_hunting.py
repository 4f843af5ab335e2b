"""The time scales of hunting and its compensation through the gear (docs/control.md §4.1)."""

import math

import numpy as np

from chrono_flex.control.servo import breakaway_fall_time, gear_lag, hunting_params
from chrono_flex.drive import DriveParams


def test_gear_lag_is_the_quarter_period_of_the_motor_on_the_gear_spring():
    """With the output held, the drive's motor side J1 alpha1'' = k_M i - (c/i)(alpha1/i)
    ([S] eqs. 13-15, no damping) oscillates at sqrt(c/(J1 i^2)): its eigenvalues, computed
    here from the state matrix, give the quarter period to round-off."""
    p = DriveParams.serebrenny2019()
    A = np.array([[0.0, 1.0], [-p.c / (p.ratio ** 2 * p.J1), 0.0]])
    w = np.max(np.abs(np.linalg.eigvals(A).imag))
    assert math.isclose(gear_lag(p), 0.25 * 2 * math.pi / w, rel_tol=1e-12)
    assert 1.3e-3 < gear_lag(p) < 1.4e-3             # 185 Hz: the docs' 1.35 ms


def test_breakaway_fall_time_slides_the_presliding_range_or_reaches_the_stribeck_speed():
    """Under the constant acceleration a = dM/J, the output slides Ms/sigma0 in
    sqrt(2 Ms/(sigma0 a)) and reaches the Stribeck speed in Omega2s/a; the estimate is the
    longer one: it scales as sigma0^-1/2 while the bristles decide, and equals Omega2s/a
    when they are stiff."""
    soft, stiff = hunting_params(sigma0=1e4), hunting_params(sigma0=4e4)
    assert math.isclose(breakaway_fall_time(soft) / breakaway_fall_time(stiff), 2.0,
                        rel_tol=1e-12)
    p = hunting_params(sigma0=1e8)
    a = (1 + p.K_ML * p.Ms) * (p.Ms - p.Mc) / (p.J2 + p.J1 * p.ratio ** 2)
    assert math.isclose(breakaway_fall_time(p), p.Omega2s / a, rel_tol=1e-12)
    # the docs' figures: ~1.9 ms for the demonstration's friction, 0.4 ms with 1e6 N m/rad
    assert 1.9e-3 < breakaway_fall_time(soft) < 2.0e-3
    assert 0.35e-3 < breakaway_fall_time(hunting_params(sigma0=1e6)) < 0.45e-3
