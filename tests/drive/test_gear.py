"""Backlash, transmitted torque and chains of gear stages (docs/drive.md §3)."""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from chrono_flex.drive import (DriveParams, GearDrive, GearStage, GearTrain, StaticFriction,
                               dead_zone, dead_zone_slope, friction_torque, load_factor,
                               transmitted_torque)
from chrono_flex.errors import ParameterError

C, D, TB = 1003.0, 0.146, 1e-3      # [S] stiffness, damping; default half-width


def random_states(rng, n=4000, span=5 * TB, rate=50.0):
    return rng.uniform(-span, span, n), rng.uniform(-rate, rate, n)


def test_dead_zone_eqs_16_17():
    th = np.array([-3e-3, -1e-3, -5e-4, 0.0, 5e-4, 1e-3, 3e-3])
    np.testing.assert_array_equal(dead_zone(th, TB), [-2e-3, 0, 0, 0, 0, 0, 2e-3])
    np.testing.assert_array_equal(dead_zone_slope(th, TB), [1, 0, 0, 0, 0, 0, 1])
    assert dead_zone(2.5e-3, TB) == pytest.approx(1.5e-3, rel=1e-15)


@pytest.mark.parametrize("contact", ["modelica", "linear"])
def test_no_torque_inside_the_gap(contact):
    rng = np.random.default_rng(0)
    th, dth = random_states(rng, span=TB)
    inside = np.abs(th) <= TB
    M = transmitted_torque(th, dth, C, D, TB, contact)
    assert np.all(M[inside] == 0.0)


def test_elastobacklash_never_pulls_and_is_continuous_at_contact():
    rng = np.random.default_rng(1)
    th, dth = random_states(rng)
    M = transmitted_torque(th, dth, C, D, TB, "modelica")
    assert np.all(M[th > TB] >= 0.0) and np.all(M[th < -TB] <= 0.0)
    # the damper part never exceeds the spring part: |M - c b| <= |c b|
    tau_c = C * dead_zone(th, TB)
    assert np.all(np.abs(M - tau_c) <= np.abs(tau_c) * (1 + 1e-15))
    # [S] eq. 15 as printed does pull for the same states (so the check above has teeth)
    M_lin = transmitted_torque(th, dth, C, D, TB, "linear")
    assert np.any(M_lin[th > TB] < 0.0) and np.any(M_lin[th < -TB] > 0.0)
    # continuity at the start of contact: at theta = theta_b (1 + eps) the torque is at most
    # 2 c theta_b eps whatever the speed (the linear law jumps by d dtheta)
    eps = 1e-9
    for s in (1.0, -1.0):
        Mc = transmitted_torque(s * TB * (1 + eps) + 0 * dth, dth, C, D, TB, "modelica")
        assert np.max(np.abs(Mc)) <= 2 * C * TB * eps * (1 + 1e-6)


def test_no_gap_is_the_spring_damper():
    rng = np.random.default_rng(2)
    th, dth = random_states(rng)
    exact = C * th + D * dth
    for tb in (0.0, 1e-12):          # at or below GAP_EPS = 1e-10 rad: no backlash at all
        for contact in ("modelica", "linear"):
            np.testing.assert_array_equal(transmitted_torque(th, dth, C, D, tb, contact), exact)
    # for a small positive gap, where the contact pushes and the damper stays below the
    # spring, the torque differs from the spring-damper by c theta_b exactly (eq. 16)
    for tb in (1e-4, 1e-6, 1e-8):
        keep = ((np.abs(th) > tb) & (np.sign(dth) == np.sign(th))
                & (D * np.abs(dth) <= C * (np.abs(th) - tb)))
        M = transmitted_torque(th[keep], dth[keep], C, D, tb)
        np.testing.assert_allclose(np.abs(M - exact[keep]), C * tb, rtol=1e-6)


def test_scalar_path_matches_array_path():
    rng = np.random.default_rng(3)
    th, dth = random_states(rng, n=300)
    for contact in ("modelica", "linear"):
        M = transmitted_torque(th, dth, C, D, TB, contact)
        Ms = [transmitted_torque(float(a), float(b), C, D, TB, contact) for a, b in zip(th, dth)]
        np.testing.assert_array_equal(M, Ms)


def test_load_dependent_friction_eq_20():
    assert load_factor(-0.5, 3.266) == pytest.approx(1 + 0.5 * 3.266, rel=1e-15)
    assert friction_torque(2.0, 0.04, 3.0, 3.266, 0.01) == pytest.approx(
        (2 * 3.266 + 1) * 0.04 + 0.03, rel=1e-15)


# ---------------------------------------------------------------------------------------
# chains


def elastic_stage(ratio, J_out, c=500.0, **kw):
    return GearStage(ratio=ratio, J_out=J_out, c=c, **kw)


def test_chain_conserves_energy_without_losses():
    train = GearTrain([elastic_stage(5.0, 2e-4), elastic_stage(-3.0, 1e-3, c=800.0)], J_in=1e-5)
    x0 = train.initial_state()
    x0[train.n_stages + 1] = 40.0      # spin the input shaft: the links start to twist
    sol = solve_ivp(lambda t, x: train.rates(t, x, 0.0, 0.0), (0, 0.05), x0, method="DOP853",
                    rtol=1e-11, atol=1e-13, dense_output=True)
    E = np.array([train.energy(sol.sol(t)) for t in np.linspace(0, 0.05, 200)])
    # exact conservation; DOP853 at rtol 1e-11 drifts by ~1e-9 relative over 50 ms
    assert np.max(np.abs(E - E[0])) <= 1e-8 * E[0]
    # the energy did move into the links (the test is not trivially static)
    n = train.n_stages
    twist_energy = max(E[0] - 0.5 * train.inertias @ sol.sol(t)[n + 1: 2 * n + 2] ** 2
                       for t in np.linspace(0, 0.05, 200))
    assert twist_energy > 0.1 * E[0]


def test_chain_power_balance_with_damping_friction_and_torques():
    fr = StaticFriction(Fc=0.02, Fs=0.03, vs=2.0, dv=1e-2)
    train = GearTrain([elastic_stage(4.0, 3e-4, K_V1=0.05, theta_b=2e-3, K_ML=0.5, friction=fr),
                       elastic_stage(6.0, 2e-3, c=900.0, K_V1=0.2, K_V2=0.01)], J_in=2e-5)
    n = train.n_stages
    M_in, M_out = 0.05, -0.3

    def losses(x):
        """Gear damping (power into a link minus its elastic energy rate) + friction power."""
        a, w = x[: n + 1], x[n + 1: 2 * n + 2]
        M1p, MFp, _ = train.stage_torques(x)
        total = 0.0
        for k, s in enumerate(train.stages):
            theta, dtheta = a[k] / s.ratio - a[k + 1], w[k] / s.ratio - w[k + 1]
            total += (M1p[k] - s.c * dead_zone(theta, s.theta_b)) * dtheta + MFp[k] * w[k + 1]
        return total

    def rhs(t, y):
        x = y[:-2]
        w = x[n + 1: 2 * n + 2]
        return np.concatenate([train.rates(t, x, M_in, M_out),
                               [M_in * w[0] + M_out * w[-1], losses(x)]])

    y0 = np.concatenate([train.initial_state(), [0.0, 0.0]])
    rtol = 1e-9
    sol = solve_ivp(rhs, (0, 0.2), y0, method="Radau", rtol=rtol, atol=1e-12, max_step=1e-3)
    x_end, work, lost = sol.y[:-2, -1], sol.y[-2, -1], sol.y[-1, -1]
    # input work = stored energy + losses; the accumulators carry the solver's error,
    # of order rtol times the work
    assert work - train.energy(x_end) - lost == pytest.approx(0.0, abs=10 * rtol * abs(work))
    assert lost > 0.0 and train.energy(x_end) > 0.0   # both terms matter


def test_chain_static_equilibrium_closed_form():
    s1, s2 = elastic_stage(5.0, 2e-4, c=300.0, theta_b=1e-3), elastic_stage(8.0, 1e-3, c=700.0)
    train = GearTrain([s1, s2], J_in=1e-5)
    M_in = 0.02
    M_out = -M_in * 5.0 * 8.0                        # balances the input through both ratios
    # twists: stage 1 carries M1' = 5 M_in -> theta1 = theta_b + M1'/c1; stage 2: 40 M_in / c2
    th1 = 1e-3 + 5.0 * M_in / 300.0
    th2 = 40.0 * M_in / 700.0
    a2 = 0.3
    a1 = 8.0 * (a2 + th2)
    a0 = 5.0 * (a1 + th1)
    x = np.array([a0, a1, a2, 0, 0, 0, 0, 0])
    dx = train.rates(0.0, x, M_in, M_out)
    # every torque balances to rounding (torques ~ 1 N m, inertias ~ 1e-5: 1e-10 of 1/J)
    assert np.max(np.abs(dx)) < 1e-9
    # a small extra input torque accelerates the input shaft by dM / J_in
    dx2 = train.rates(0.0, x, M_in + 1e-3, M_out)
    assert dx2[3] == pytest.approx(1e-3 / 1e-5, rel=1e-9)


def test_single_stage_train_matches_the_drive_in_current_mode():
    p = DriveParams.serebrenny2019(motor="current")
    drive = GearDrive(p)
    train = GearTrain([p.stage], J_in=p.J1)
    rng = np.random.default_rng(4)
    for _ in range(20):
        i_cmd = rng.uniform(-1, 1)
        a1, w1, z = rng.uniform(-1, 1) * 28, rng.uniform(-100, 100), rng.uniform(-4e-4, 4e-4)
        a2, w2 = rng.uniform(-1, 1), rng.uniform(-5, 5)
        dx, tau = drive.rates(0.0, np.array([0.0, a1, w1, z]), a2, w2, i_cmd)
        dt = train.rates(0.0, np.array([a1, a2, w1, w2, z]), p.k_M * i_cmd, 0.0)
        # same functions, same arithmetic order up to the J2 division: a few ulps
        assert dx[2] == pytest.approx(dt[2], rel=1e-12, abs=1e-9)
        assert dx[3] == pytest.approx(dt[4], rel=1e-12, abs=1e-15)
        assert tau / p.J2 == pytest.approx(dt[3], rel=1e-12, abs=1e-9)


@pytest.mark.parametrize("field,value", [("ratio", 0.0), ("J_out", -1e-3), ("c", 0.0),
                                         ("theta_b", -1e-3), ("K_V1", -0.1)])
def test_bad_stage_parameters(field, value):
    kw = dict(ratio=5.0, J_out=1e-3, c=100.0)
    kw[field] = value
    with pytest.raises(ParameterError) as e:
        GearStage(**kw)
    assert e.value.parameter == field and e.value.value == value
