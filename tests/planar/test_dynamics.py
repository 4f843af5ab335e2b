"""Conservation laws, rigid limits, the mixed problem and frequencies of the reference engine."""

import math

import numpy as np
import pytest
from scipy.optimize import brentq

import chrono_flex as cf
from chrono_flex import scenarios

G = 9.81


def pendulum(n=2, EI=400.0, rho_A=2.0, payload=cf.Payload(0.3, 0.001), links=1):
    lk = cf.Link(1.0, n, EI=EI, rho_A=rho_A)
    return cf.PlanarArm([lk] * links, payload=payload, gravity=G)


def test_undamped_free_motion_conserves_energy():
    arm = pendulum(n=1)
    rtol = 1e-8
    r = arm.simulate(0.5, joint_angles0=[-1.2], method="Radau", rtol=rtol, atol=1e-11, dt_out=0.01)
    scale = np.max(np.abs(r.energy.kinetic))
    drift = np.max(np.abs(r.energy.balance_error))
    # Radau controls the local error to rtol per step; the energy error of the
    # tolerance-controlled solution stays within a few hundred rtol * energy scale over
    # ~1e3 steps (seen: 3e-7 relative). Bound: 1e3 * rtol.
    assert drift < 1e3 * rtol * scale, drift / scale
    assert r.energy.input_work[-1] == 0.0 and r.energy.dissipated[-1] == 0.0


def flexible_two_link():
    links = [cf.Link(1.0, 1, EI=20.0, rho_A=0.5), cf.Link(0.6, 1, EI=10.0, rho_A=0.4)]
    return cf.PlanarArm(links, payload=cf.Payload(0.2, 0.002), hub_inertia=0.05)


def test_energy_drifts_without_the_mdot_terms():
    arm = flexible_two_link()
    kw = dict(joint_angles0=[0.0, 0.8], joint_rates0=[2.0, -3.0], method="Radau", rtol=1e-8, atol=1e-11,
              dt_out=0.001)
    # without M_dot q_d this arm's elastic coordinates blow up within ~0.04 s (the run
    # stops with SimulationError there); 0.02 s shows the drift before that
    full = arm.simulate(0.02, **kw)
    cut = arm.simulate(0.02, form="without_mdot", **kw)
    d_full = np.max(np.abs(full.energy.balance_error))
    d_cut = np.max(np.abs(cut.energy.balance_error))
    scale = full.energy.kinetic[0]
    # [K]'s point: dropping M_dot q_d breaks the energy balance. The full equations keep
    # it to ~rtol; the cut ones must drift by more than 100x that and by more than 1e-3 of
    # the kinetic energy (visible on a plot).
    assert d_cut > 100 * d_full and d_cut > 1e-3 * scale, (d_full, d_cut, scale)
    with pytest.raises(cf.SimulationError, match="tip deflection exceeded"):
        arm.simulate(0.2, form="without_mdot", **kw)


def test_torque_free_horizontal_motion_conserves_angular_momentum_and_energy():
    arm = flexible_two_link()
    rtol = 1e-8
    r = arm.simulate(1.0, joint_angles0=[0.0, 0.8], joint_rates0=[2.0, -3.0], method="Radau", rtol=rtol,
                     atol=1e-11, dt_out=0.02)
    H = np.array([arm.angular_momentum(q, qd) for q, qd in zip(r.q, r.qd)])
    # same error model as the energy test: 1e3 * rtol relative
    assert np.max(np.abs(H - H[0])) < 1e3 * rtol * abs(H[0])
    assert np.max(np.abs(r.energy.balance_error)) < 1e3 * rtol * r.energy.kinetic[0]
    assert np.max(np.abs(r.tip_deflection)) > 1e-4     # the links really did bend


def test_damping_and_input_work_close_the_energy_balance():
    lk = cf.Link(1.0, 3, EI=20.0, rho_A=0.5, damping_alpha=0.5, damping_beta=2e-3)
    arm = cf.PlanarArm([lk], payload=cf.Payload(0.1), gravity=G)
    rtol = 1e-8
    r = arm.simulate(1.0, torque=scenarios.pulse(3.0, 0.5), method="Radau", rtol=rtol, atol=1e-11, dt_out=0.01)
    e = r.energy
    assert e.dissipated[-1] > 1e-3 * e.input_work.max() > 0
    # the work and dissipation integrals ride in the integrated state: same bound as above
    assert np.max(np.abs(e.balance_error)) < 1e3 * rtol * np.max(np.abs(e.mechanical))


# Rigid limits (single and double pendulum against the rigid closed forms, the error
# falling as 1/EI) are the validation cases dynamics.rigid-limit-pendulum and
# dynamics.rigid-limit-double-pendulum, run by tests/validation/test_validation.py.


def test_mixed_problem_torques_reproduce_the_motion():
    arm = cf.PlanarArm([cf.Link(1.0, 2, EI=30.0, rho_A=0.5)], payload=cf.Payload(0.1))
    motion = scenarios.spin_up(2.0, 1.0)
    mixed = arm.simulate(1.2, joint_motion=motion, method="Radau", rtol=1e-9, atol=1e-12, dt_out=0.002)
    from scipy.interpolate import CubicSpline

    tau = CubicSpline(mixed.t, mixed.joint_torque[:, 0])
    fwd = arm.simulate(1.2, torque=lambda t, q, qd: [tau(t)], method="Radau", rtol=1e-9, atol=1e-12,
                       dt_out=0.002)
    th = np.array([motion(t)[0][0] for t in fwd.t])
    # the cubic spline of the torque sampled every 2 ms has error O(dt^4 tau'''') ~ 1e-9 N m;
    # the joint angle follows to ~1e-7 rad (seen 3e-8); bound 1e-6 rad
    assert np.max(np.abs(fwd.joint_angles[:, 0] - th)) < 1e-6
    np.testing.assert_allclose(fwd.tip_deflection, mixed.tip_deflection, atol=1e-7)
    # the work of the prescribed motion equals the energy it put in (no damping, no gravity)
    assert mixed.energy.input_work[-1] == pytest.approx(mixed.energy.mechanical[-1], rel=1e-6)


def test_inverse_dynamics_inverts_forward_dynamics():
    arm = pendulum(n=2, links=2)
    rng = np.random.default_rng(3)
    q, qd, Q = rng.normal(size=arm.nq), rng.normal(size=arm.nq), rng.normal(size=arm.nq)
    qdd = arm.accelerations(0.0, q, qd, Q)
    # a backward-stable solve has a residual ~ eps * |M| |q_dd| ~ eps * |f|; here |f| ~ 1e5
    # (K q with random elastic coordinates of order 1): bound 1e3 eps max|f|
    f = arm.forcing(0.0, q, qd, Q)[1]
    tol = 1e3 * np.finfo(float).eps * np.max(np.abs(f))
    np.testing.assert_allclose(arm.inverse_dynamics(q, qd, qdd), Q, rtol=0, atol=tol)


def pinned_free_roots(k):
    """tan(bL) = tanh(bL): beta L = 3.9266, 7.0686, ... (pinned-free beam, Blevins 8-1)."""
    return [brentq(lambda b: math.tan(b) - math.tanh(b), (r + 0.25) * math.pi - 0.3,
                   (r + 0.25) * math.pi + 0.3) for r in range(1, k + 1)]


def test_pinned_free_frequencies_and_hub_inertia_limit():
    EI, rho_A, L = 3.0, 0.7, 1.2
    c = math.sqrt(EI / rho_A) / (2 * math.pi * L * L)
    free = cf.PlanarArm([cf.Link(L, 16, EI=EI, rho_A=rho_A)])
    f = free.natural_frequencies(2, joints="free")
    # 16 Hermite elements, O(h^4): the second pinned-free mode (beta L = 7.07) has the
    # wavelength of the third clamped-free one, which showed 4e-5 at 16 elements
    np.testing.assert_allclose(f, c * np.array(pinned_free_roots(2)) ** 2, rtol=5e-5)
    heavy = cf.PlanarArm([cf.Link(L, 16, EI=EI, rho_A=rho_A)], hub_inertia=1e9)
    clamped = cf.clamped_free_frequencies(EI, rho_A, L, 2)
    # hub inertia 1e9 times the link's: the pinned-free system tends to clamped-free with a
    # relative shift ~ J_link / J_hub (~1e-9), below the discretisation error
    np.testing.assert_allclose(heavy.natural_frequencies(2, joints="free"), clamped, rtol=1e-5)


# The paper scenarios of [B] (single link n = 1, 3, 5, 7; prismatic; two links) running
# with their energy balance closed to 1e-3 of the input work are the validation case
# dynamics.bien-scenarios (run by tests/validation/test_validation.py).


@pytest.mark.parametrize("name,t_end", [("kozlowski-1link", 1.0), ("kozlowski-2link", 0.4)])
def test_kozlowski_pendulums_show_the_reported_deflections(name, t_end):
    arm, kw = scenarios.get(name).arm_and_kwargs(t_end=t_end)
    r = arm.simulate(**kw)
    wmax = np.max(np.abs(r.tip_deflection))
    # [K] reports elastic displacements of order 0.05-0.25 mm (read off plots: order of
    # magnitude only); checked as 0.03 .. 0.4 mm
    assert 3e-5 < wmax < 4e-4, wmax
    slopes = np.degrees(np.abs(r.q[:, arm.elastic_index[1::2]]))
    assert 1e-3 < slopes.max() < 0.2       # [K]: elastic slopes 0.01-0.1 deg (order)
