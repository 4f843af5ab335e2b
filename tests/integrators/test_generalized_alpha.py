"""The generalized-alpha integrator: its order, its dissipation, and the reference engine
run with it against Radau.

Tolerances: the observed order of a second-order method lies within 0.1 of 2 once the
errors are asymptotic (omega h <= 0.03); the high-frequency amplitude
decays at the spectral radius rho_inf, up to the factor N^(1/N) of its double
eigenvalue (Chung & Hulbert 1993); engine comparisons are bounded by the error seen at
the step used, times a stated margin.
"""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from chrono_flex import ParameterError, SimulationError, scenarios
from chrono_flex.integrators.generalized_alpha import GeneralizedAlpha, alpha_parameters

W, C = 3.0, 0.1


def forced(t, x):
    """q'' = -W^2 q - C q' + sin t, and a first-order state z' = q."""
    q, v, z = x
    return np.array([v, -W * W * q - C * v + np.sin(t), q])


def forced_jac(t, x):
    return np.array([[0.0, 1.0, 0.0], [-W * W, -C, 0.0], [1.0, 0.0, 0.0]])


def integrate(rhs, jac, x0, n2, h, t_end, **kw):
    g = GeneralizedAlpha(rhs, jac, 0.0, x0, n2, h, **kw)
    while g.t < t_end - 1e-12:
        g.advance(t_end)
    return g


@pytest.mark.parametrize("rho_inf", [1.0, 0.8, 0.5, 0.0])
def test_second_order_for_every_rho_inf_including_first_order_states(rho_inf):
    exact = solve_ivp(forced, (0, 2.0), [1.0, 0.0, 0.0], method="DOP853", rtol=1e-12,
                      atol=1e-14).y[:, -1]
    errs = [np.abs(integrate(forced, forced_jac, [1.0, 0.0, 0.0], 1, h, 2.0,
                             rho_inf=rho_inf, rtol=1e-12, atol=1e-14).x - exact)
            for h in (0.01, 0.005, 0.0025)]
    order = np.log2(errs[1] / errs[2])
    assert np.all(np.abs(order - 2.0) < 0.1), order        # q, v and the state z


@pytest.mark.parametrize("rho_inf", [1.0, 0.9, 0.8, 0.6, 0.5])
def test_unresolved_modes_decay_at_rho_inf(rho_inf):
    w = 1e4                                                   # omega h = 1e4
    g = GeneralizedAlpha(lambda t, x: np.array([x[1], -w * w * x[0]]),
                         lambda t, x: np.array([[0.0, 1.0], [-w * w, 0.0]]),
                         0.0, [1.0, 0.0], 1, 1.0, rho_inf=rho_inf)
    size = lambda: np.sqrt(g.x[0] ** 2 + g.x[1] ** 2 + g.acc[0] ** 2)  # noqa: E731
    a0, n = size(), 60
    for _ in range(n):
        g.advance(g.t + 1.0)
    rate = (size() / a0) ** (1.0 / n)
    assert rho_inf * (1 - 1e-5) <= rate <= rho_inf * n ** (1.0 / n) * 1.01


def test_parameters_of_the_special_cases():
    am, af, gamma, beta = alpha_parameters(1.0)
    assert (am, af, gamma, beta) == (0.5, 0.5, 0.5, 0.25)            # trapezoidal rule
    am, af, gamma, beta = alpha_parameters(0.5, family="hht")
    assert am == 0.0 and af == pytest.approx(1 / 3) and gamma == pytest.approx(5 / 6)
    for bad in (-0.1, 1.5, "x", True):
        with pytest.raises(ParameterError, match="rho_inf"):
            alpha_parameters(bad)
    with pytest.raises(ParameterError, match="rho_inf"):
        alpha_parameters(0.3, family="hht")
    with pytest.raises(ParameterError, match="family"):
        alpha_parameters(0.8, family="newmark")


def test_the_reference_engine_with_generalized_alpha_matches_radau():
    """Bien & My's single link (3 elements) under the torque pulse, 1 s: at h = 2 ms the
    tip position agrees with a tight Radau run to 4e-6 of its range over 10 s (seen);
    1e-4 allows 25 times that."""
    arm, kw = scenarios.get("bien-1link-n3").arm_and_kwargs(t_end=1.0)
    kw["dt_out"] = 0.02
    ref = arm.simulate(**kw, method="Radau", rtol=1e-9)
    ga = arm.simulate(**kw, method="generalized_alpha", step=2e-3)
    span = np.ptp(ref.tip_position, axis=0).max()
    assert np.max(np.abs(ga.tip_position - ref.tip_position)) < 1e-4 * span
    assert ga.info["method"] == "generalized_alpha" and ga.info["n_steps"] == 500
    np.testing.assert_allclose(ga.t, ref.t, rtol=0, atol=1e-12)   # outputs land exactly


def test_drive_states_share_the_newton_loop():
    """An arm with a geared drive (stiff, non-smooth friction) over 0.2 s: the joint angle
    follows Radau's to 1e-4 rad at h = 0.5 ms (1.6e-5 rad seen over 0.5 s)."""
    arm, kw = scenarios.get("drive-bien-1link").arm_and_kwargs(t_end=0.2)
    kw["dt_out"] = 0.01
    ref = arm.simulate(**kw, method="Radau", rtol=1e-9)
    ga = arm.simulate(**kw, method="generalized_alpha", step=5e-4)
    assert np.max(np.abs(ga.joint_angles - ref.joint_angles)) < 1e-4
    assert ga.extra["drive1_states"].shape == ref.extra["drive1_states"].shape


def test_settings_are_checked_by_name():
    arm, kw = scenarios.get("bien-1link-n3").arm_and_kwargs(t_end=0.1)
    with pytest.raises(ParameterError, match="`step`"):
        arm.simulate(**kw, method="Radau", step=1e-3)            # Radau picks its own
    with pytest.raises(ParameterError, match="`atol`"):
        arm.simulate(**kw, atol=1e-9)          # the default's step control takes rtol alone
    with pytest.raises(ParameterError, match="`rtol`"):
        arm.simulate(**kw, rtol=1e-9)          # below the Newton tolerance (1e-8)
    with pytest.raises(ParameterError, match="`rho_inf`"):
        arm.simulate(**kw, method="generalized_alpha", step=1e-3, rho_inf=2.0)
    with pytest.raises(SimulationError, match="max_nfev = 5"):
        arm.simulate(**kw, method="generalized_alpha", step=1e-3, max_nfev=5)


def test_step_control_meets_its_tolerance_and_refines():
    """Without ``step`` the step follows the local error estimate. Against a tight Radau
    run, the error in the joint angle must fall when the tolerance falls (the control
    works) and stay within a few times the tolerance times the angle's range (the
    estimate is of the local error; a few steps' worth of accumulation is allowed: the
    factor 20 covers the ~100 steps of this run with the error's sign alternating)."""
    arm, kw = scenarios.get("bien-1link-n3").arm_and_kwargs(t_end=1.0)
    ref = arm.simulate(**kw, method="Radau", rtol=1e-9)
    span = np.ptp(ref.q[:, 0])
    errs = []
    for rtol in (1e-2, 1e-3):
        res = arm.simulate(**kw, method="generalized_alpha", rtol=rtol)
        assert res.info["step"] == "adaptive" and res.info["rtol"] == rtol
        errs.append(np.abs(res.q[:, 0] - ref.q[:, 0]).max())
        assert errs[-1] <= 20 * rtol * span, (rtol, errs[-1], span)
    assert errs[1] < errs[0]
    with pytest.raises(ParameterError, match="`rtol`"):
        arm.simulate(**kw, method="generalized_alpha", rtol=2.0)


def test_step_control_shrinks_a_rejected_step_before_an_output_time():
    """A step that would leave a sliver before the output time is stretched to reach it
    (up to 1.25 h); once such a step is rejected the retry must be smaller, or the same
    step is rejected forever. This arm (two links, payload, gravity) hits the case just
    before t = 0.08 s; the budget of evaluations turns an endless retry into an error
    (about 4000 evaluations are needed)."""
    import chrono_flex as cf
    from chrono_flex import inputs
    arm = cf.PlanarArm([cf.Link(0.7, 3, EI=20.0, rho_A=0.5), cf.Link(0.5, 2, EI=10.0,
                                                                      rho_A=0.3)],
                       payload=cf.Payload(0.2), gravity=9.81, geometric_stiffening=True)
    res = arm.simulate(0.1, dt_out=0.02, joint_angles0=[0.3, -0.4],
                       torque=inputs.pulse([1.0, -0.5], 0.5), progress=False,
                       method="generalized_alpha", max_nfev=40000)
    assert res.t[-1] == pytest.approx(0.1) and res.info["nfev"] < 40000
