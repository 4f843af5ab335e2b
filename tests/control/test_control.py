"""Controllers, sensors, describing functions and the torque observer
(chrono_flex.control; docs/control.md)."""

import math

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex._callbacks import held
from chrono_flex.control import (PID, Accelerometer, CurrentSensor, Encoder, StateFeedback,
                                 StrainGauge, Tachometer, TipPosition, TorqueObserver,
                                 backlash_df, coulomb_df, dead_zone_df, numerical_df, quantise,
                                 record, stribeck_df, surface_strain)
from chrono_flex.drive import DriveParams, GearDrive, simulate_drive
from chrono_flex.errors import ParameterError, SimulationError


def _drive(**changes):
    return GearDrive(DriveParams.serebrenny2019(**changes))


def _arm(n=4, **kw):
    link = cf.Link(length=1.0, n_elements=n, EI=1.04, rho_A=0.196, thickness=0.01)
    return cf.PlanarArm(links=[link], joints=[cf.RevoluteJoint()], **kw)


# -- PID ----------------------------------------------------------------------------------
def _sequence(anti_windup):
    """A sampled PI (kp = 1, ki = 10, T = 0.1, limits +-1) on measurements y = 0 with
    setpoint 2: the error e = 2 stays, v = 2 + I saturates from the first sample."""
    pid = PID(1.0, 10.0, 0.0, setpoint=2.0, sensor=lambda t, *s: [0.0], u_min=-1.0,
              u_max=1.0, anti_windup=anti_windup, Tt=0.5, period=0.1)
    out = []
    for k in range(4):
        u = float(pid(0.1 * k))
        out.append((u, pid.integral))
    return out


def test_pid_back_calculation_by_hand():
    # k = 0: v = 2 + 0 = 2, u = 1, I1 = 0 + 0.1 (10*2 + (1 - 2)/0.5) = 1.8
    # k = 1: v = 2 + 1.8 = 3.8, u = 1, I2 = 1.8 + 0.1 (20 + (1 - 3.8)/0.5) = 3.24
    # k = 2: v = 5.24, I3 = 3.24 + 0.1 (20 - 4.24/0.5) = 4.392
    # k = 3: v = 6.392, I4 = 4.392 + 0.1 (20 - 5.392/0.5) = 5.3136
    expected = [1.8, 3.24, 4.392, 5.3136]
    got = _sequence("back-calculation")
    assert [u for u, _ in got] == [1.0] * 4
    # the hand arithmetic is exact to a few ulps of numbers below 10
    np.testing.assert_allclose([i for _, i in got], expected, rtol=0, atol=1e-13)
    # the integral tends to the fixed point I = Tt ki e + u - kp e = 10 - 1 = ... bounded
    assert got[-1][1] < 10.0


def test_pid_clamping_and_none_by_hand():
    # clamping: u = 1 != v = 2 and ki e = 20 pushes v further up: no integration at all
    assert [i for _, i in _sequence("clamping")] == [0.0, 0.0, 0.0, 0.0]
    # none: I grows by T ki e = 2 every sample (the windup the others prevent)
    np.testing.assert_allclose([i for _, i in _sequence("none")], [2.0, 4.0, 6.0, 8.0],
                               rtol=0, atol=1e-14)


def test_pid_derivative_on_measurement_by_hand():
    ys = iter([0.0, 0.1, 0.3])
    pid = PID(2.0, 0.0, 0.5, setpoint=1.0, sensor=lambda t, *s: [next(ys)], period=0.01)
    u = [float(pid(0.01 * k)) for k in range(3)]
    # u_k = 2 (1 - y_k) - 0.5 (y_k - y_{k-1}) / 0.01, derivative 0 at k = 0
    np.testing.assert_allclose(u, [2.0, 1.8 - 5.0, 1.4 - 10.0], rtol=0, atol=1e-12)


def test_continuous_pid_with_states_refused_as_plain_callback():
    """Called alone it has no state to use (the engines integrate it through output()
    and rates(): tests/control/test_controller_states.py)."""
    pid = PID(1.0, 1.0, 0.0, sensor=lambda t, *s: [0.0])
    with pytest.raises(ParameterError, match="controller"):
        pid(0.0, np.zeros(6))


# -- sensors ------------------------------------------------------------------------------
def test_encoder_quantisation():
    d = _drive()
    enc = Encoder(d, counts=1000, side="motor")
    q = 2 * math.pi / 1000
    x = np.zeros(6)
    for alpha in (0.0, 0.5 * q, 0.999 * q, q * (1 + 1e-9), 3.7 * q, -0.2 * q, -1.5 * q):
        x[1] = alpha
        got = float(enc.read(0.0, x))
        assert got == pytest.approx(q * math.floor(alpha / q), abs=1e-15)   # whole counts
        assert 0.0 <= alpha - got < q * (1 + 1e-9)                         # error in [0, q)
    assert Encoder(d, 4096).index == 4 and enc.index == 1      # link side alpha2, motor alpha1
    assert quantise(0.3, 0.0) == 0.3


def test_strain_gauge_at_root_is_PL_over_EI_times_half_thickness():
    # a cantilever with a tip force P: w'' (0) = P L / EI (beam theory); cubic Hermite
    # elements hold the exact cubic, so the root curvature is exact to round-off
    P, L, EI, h = 0.01, 1.0, 1.04, 0.01
    arm = _arm(n=4)
    q = arm.static_deflection(joint_angles=[0.0], tip_force=(0.0, P))
    gauge = StrainGauge(arm, link=0, station=0.0)
    exact = P * L / EI * h / 2
    # the static solve iterates Newton to 1e-13 relative; round-off of a 8x8 solve
    assert gauge.value(0.0, q) == pytest.approx(exact, rel=1e-9)
    mid = StrainGauge(arm, link=0, station=0.3).value(0.0, q)
    assert mid == pytest.approx(P * (L - 0.3) / EI * h / 2, rel=1e-9)
    assert surface_strain(2.0, 0.005) == 0.01


def test_sensor_noise_is_seeded_and_delay_shifts_the_channel():
    d = _drive()
    res = simulate_drive(d, 0.01, u=5.0, dt_out=1e-4)
    a = record(res, [CurrentSensor(d, noise=0.01, seed=3, period=1e-3, name="i1")])["i1"]
    b = record(res, [CurrentSensor(d, noise=0.01, seed=3, period=1e-3, name="i2")])["i2"]
    np.testing.assert_array_equal(a, b)
    clean = record(res, [CurrentSensor(d, period=1e-3, delay=3e-4, name="i3")])["i3"]
    t = res.t
    assert np.all(np.isnan(clean[t < 3e-4 - 1e-12]))
    # at t = 1.35e-3 the latest sample taken by t - delay = 1.05e-3 is t_1 = 1e-3
    k = int(np.argmin(abs(t - 1.35e-3)))
    assert clean[k] == pytest.approx(res.outputs["current"][10], rel=1e-12)
    assert res.info["units"]["i3"] == "A"


def test_tip_sensors_and_accelerometer_from_a_run(tmp_path):
    arm = _arm(n=2, hub_inertia=0.01)
    res = arm.simulate(0.05, torque=cf.inputs.step(0.05), dt_out=1e-3)
    ch = record(res, [TipPosition(arm), Accelerometer(arm, station=0.0)])
    np.testing.assert_allclose(ch["tip_position"], res.tip_position, rtol=0, atol=1e-12)
    # at the root the link's frame turns about its origin: no acceleration, no gravity
    assert np.max(np.abs(ch["accelerometer"])) < 1e-10
    res.to_csv(path := tmp_path / "channels.csv")
    with open(path) as f:
        names, units = f.readline().strip().split(","), f.readline().strip().split(",")
    unit = dict(zip(names, units))          # the CSV's second row gives the units
    assert unit["tip_position0"] == "m" and unit["accelerometer1"] == "m/s^2"
    back = cf.Result.from_npz(res.to_npz(tmp_path / "channels.npz"))
    np.testing.assert_array_equal(back.extra["accelerometer"], ch["accelerometer"])
    assert back.info["units"]["accelerometer"] == "m/s^2"


# -- sampled timing -----------------------------------------------------------------------
class _Counter:
    """A sampled law returning its sample number; records where it is called."""

    def __init__(self, period, delay=0.0):
        self.period, self.delay, self.calls = period, delay, []

    def __call__(self, t, *state):
        self.calls.append(t)
        return float(len(self.calls))


def test_zoh_timing_in_simulate_drive():
    law = _Counter(1e-3, delay=4e-4)
    res = simulate_drive(_drive(), 5e-3, u=law, dt_out=1e-4)
    # samples at t_k < t_end (one at t_end would act after the run)
    np.testing.assert_allclose(law.calls, 1e-3 * np.arange(5), rtol=0, atol=1e-15)
    u = res.outputs["voltage"]
    for t, v in zip(res.t, u):
        k = math.floor((t - 4e-4) / 1e-3 + 1e-9)       # the latest sample in effect
        assert v == (0.0 if k < 0 else k + 1.0), t


def test_held_wrapper_samples_once_per_period():
    law = _Counter(0.1, delay=0.05)
    f = held(law)
    vals = [float(f(t)) for t in (0.0, 0.02, 0.06, 0.1, 0.12, 0.149, 0.151, 0.09)]
    assert vals == [0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 2.0, 1.0]
    assert law.calls == [0.0, 0.1]


def test_state_feedback_in_simulate_drive_and_arm_drive_input_reads_state():
    d = _drive(friction="none", theta_b=0.0)
    # u(t, x): a plain feedback law, the convention of the torque
    r1 = simulate_drive(d, 0.05, u=lambda t, x: 20.0 * (0.02 - x[4]), dt_out=1e-3)
    sf = StateFeedback([[0, 0, 0, 0, 20.0, 0]], reference=[0, 0, 0, 0, 0.02, 0])
    r2 = simulate_drive(d, 0.05, u=sf, dt_out=1e-3)
    np.testing.assert_allclose(r1.states, r2.states, rtol=0, atol=1e-12)
    # the arm with a drive: drive_input(t, q, qd) no longer fails
    arm = _arm(n=2, drives={0: d})
    res = arm.simulate(0.02, drive_input=lambda t, q, qd: [10.0 * (0.1 - q[0])], dt_out=1e-3)
    assert res.joint_angles[-1, 0] > 0.0
    res_t = arm.simulate(0.02, drive_input=lambda t: [1.0], dt_out=1e-3)   # still accepted
    assert res_t.joint_angles[-1, 0] > 0.0


# -- errors -------------------------------------------------------------------------------
def test_errors_name_what_is_wrong():
    arm = _arm()
    d = _drive()
    with pytest.raises(ParameterError, match="station"):
        StrainGauge(arm, station=1.5)
    with pytest.raises(ParameterError, match="station"):
        TipPosition(arm, station=-0.1)
    res = simulate_drive(d, 0.01, u=1.0, dt_out=1e-3)
    with pytest.raises(ParameterError, match="period"):
        record(res, [Encoder(d, 100, period=1e-4)])          # below the output interval
    pd = PID(1.0, 0.0, 0.0, sensor=Encoder(arm, 100), period=1e-4)
    with pytest.raises(ParameterError, match="period"):
        arm.simulate(0.01, torque=pd, method="rk4", step=1e-3)   # below the fixed step
    with pytest.raises(ParameterError, match="K"):
        simulate_drive(d, 0.01, u=StateFeedback([[1.0, 2.0]]))    # 2 columns, 6 states
    with pytest.raises(ParameterError, match="K"):
        StateFeedback([[0, 0, 0, 0, math.nan, 0]])
    with pytest.raises(SimulationError, match="StateFeedback.*non-finite"):
        simulate_drive(d, 0.01, u=StateFeedback([[0] * 6], feedforward=lambda t: math.nan))
    with pytest.raises(ParameterError, match="`drive_input`"):
        simulate_drive(d, 0.01, u=lambda t, x: [1.0, 2.0])
    with pytest.raises(ParameterError, match="torque"):
        arm.simulate(0.01, torque=lambda t, q, qd: [1.0, 2.0])
    with pytest.raises(ParameterError, match="joint"):
        Encoder(arm, 100, side="motor")                      # an arm without drives
    with pytest.raises(ParameterError, match="sensors"):
        PID(1.0, sensor=CurrentSensor(d, noise=0.1))           # noise in a continuous loop
    with pytest.raises(ParameterError, match="sensors"):
        Accelerometer(arm).read(0.0, np.zeros(arm.nq), np.zeros(arm.nq))


# -- describing functions -----------------------------------------------------------------
def test_describing_functions_against_their_defining_integral():
    b = 0.3
    for A in (0.31, 0.5, 1.0, 3.0, 30.0):
        dz = numerical_df(lambda x: np.sign(x) * np.maximum(np.abs(x) - b, 0.0), A, n=1 << 16)
        # the midpoint rule is O(1/n^2) at the two kinks: ~1e-9 at n = 65536
        assert abs(dz - dead_zone_df(A, b)) < 1e-8
    V = 0.7
    assert abs(numerical_df(lambda v: 2.0 * np.sign(v), V, n=1 << 16)
               - coulomb_df(V, 2.0)) < 1e-8
    g = lambda v: np.sign(v) * (1.0 + 0.5 * np.exp(-(v / 0.2) ** 2))  # noqa: E731
    for V in (0.05, 0.2, 1.0, 5.0):
        assert abs(numerical_df(g, V, n=1 << 16) - stribeck_df(V, 1.0, 1.5, 0.2)) \
            < 1e-8 * abs(stribeck_df(V, 1.0, 1.5, 0.2)) + 1e-8


def test_backlash_df_against_the_hysteresis_operator():
    b = 0.25
    for A in (0.3, 0.6, 1.0, 4.0):
        n = 1 << 15
        phi = (np.arange(2 * n) + 0.5) * (2 * math.pi / n)   # two periods: the 2nd settled
        x = A * np.sin(phi)
        y = np.empty_like(x)
        out = 0.0
        for k, xk in enumerate(x):                            # play of +-b
            out = min(max(out, xk - b), xk + b)
            y[k] = out
        p2, y2 = phi[n:], y[n:]
        N = (2.0 / (n * A)) * np.sum(y2 * (np.sin(p2) + 1j * np.cos(p2)))
        # midpoint rule at the corners of the hysteresis loop: O(1/n)
        assert abs(N - backlash_df(A, b)) < 1e-3, (A, N, backlash_df(A, b))
    assert abs(backlash_df(1e6, b) - 1.0) < 1e-6


# -- observer -----------------------------------------------------------------------------
def test_torque_observer_tracks_the_transmitted_torque():
    d = _drive(friction="none", theta_b=0.0)
    T, w_o = 1e-4, 2000.0
    res = simulate_drive(d, 0.3, u=6.0, m_out=lambda t: -0.2 - 0.1 * math.sin(30.0 * t),
                         dt_out=T, rtol=1e-9, atol=1e-12)
    obs = TorqueObserver(d, T, bandwidth=w_o)
    M_hat, _ = obs.estimate(res.state("motor_angle"), res.state("current"))
    true = res.outputs["transmitted_torque"]
    late = res.t > 0.1          # the gear's start-up vibration has decayed (e^-20)
    # d^/d = w^3/(s+w)^3: a torque changing at M' is followed with the error 3 M'/w
    # (first order in the lag; the discrete observer adds O(w T) = 0.2 of it)
    rate = np.max(np.abs(np.gradient(true[late], res.t[late])))
    err = np.max(np.abs(M_hat[late] - true[late]))
    assert err < 1.2 * 3 * rate / w_o + 1e-6
    assert err > 0.3 * 3 * rate / w_o          # the lag is there: the bound is not idle


def test_plot_channels_names_units_and_refuses_unknown(tmp_path):
    pytest.importorskip("matplotlib")
    from chrono_flex.viz.plotting import plot_channels

    d = _drive()
    res = simulate_drive(d, 0.005, u=6.0, dt_out=1e-4)
    record(res, [CurrentSensor(d, period=2e-4)])
    fig = plot_channels(res, path=tmp_path / "ch.png")
    assert (tmp_path / "ch.png").stat().st_size > 0
    assert fig.axes[0].get_ylabel() == "current, A"
    with pytest.raises(ParameterError, match="names"):
        plot_channels(res, ["voltage_sensor"])


def test_sampled_torque_in_the_arm_engine_is_sampled_on_the_fixed_steps_and_recorded():
    law = _Counter(1e-3)
    arm = _arm(n=2, hub_inertia=0.01)
    res = arm.simulate(4e-3, torque=law, method="generalized_alpha", step=2.5e-4,
                       dt_out=2.5e-4)
    # the steps land on every sample instant: each sample is taken there, once
    np.testing.assert_allclose(law.calls, 1e-3 * np.arange(5), rtol=0, atol=1e-12)
    # the recorded joint torque is the held value: sample k + 1 from t_k on
    expected = np.floor(res.t / 1e-3 + 1e-9) + 1.0
    np.testing.assert_array_equal(res.joint_torque[:, 0], expected)


def test_friction_compensation_uses_the_drives_friction_law():
    from chrono_flex.control import FrictionCompensation

    d = _drive(K_ML=0.0)
    p = d.params
    zero = StateFeedback([[0.0] * 6])                      # inner law: u = 0
    comp = FrictionCompensation(zero, d, Tachometer(d))
    x = np.zeros(6)
    for w in (2.0, -0.5, 30.0):
        x[5] = w
        expected = p.R / (p.k_M * p.ratio) * float(d.friction.steady_state_force(w))
        # the same function the drive integrates, scaled to volts: round-off only
        assert comp(0.0, x) == pytest.approx(expected, rel=1e-12)
    x[5] = 0.0                         # at rest: Coulomb's level in the inner law's direction
    inner = StateFeedback([[0.0] * 6], feedforward=-1.0)
    got = FrictionCompensation(inner, d, Tachometer(d))(0.0, x)
    assert got == pytest.approx(-1.0 - p.R / (p.k_M * p.ratio) * p.Mc, rel=1e-12)


def test_dynamic_friction_compensation_observes_the_drives_bristles():
    """model="dynamic": z^ obeys the drive's own dz/dt on the measured speed; driven by
    an ideal tachometer it is the drive's z, and its torque the drive's friction."""
    from chrono_flex.control import FrictionCompensation
    from chrono_flex.drive import simulate_drive

    d = _drive(theta_b=0.0)
    p = d.params
    law = FrictionCompensation(StateFeedback([[0.0] * 6], feedforward=lambda t: 2.0 * np.sin(
        20.0 * t)), d, Tachometer(d), model="dynamic")
    assert law.n_states == 1 and law.initial_state().tolist() == [0.0]
    x = np.zeros(6)
    x[5] = 0.3
    # the rate and the torque are the drive's functions at (Omega2, z^): round-off
    assert law.rates(0.0, [1e-4], x)[0] == pytest.approx(float(d.friction.dzdt(0.3, 1e-4)),
                                                          rel=1e-12)
    u = law.output(0.0, [1e-4], x)
    M = u * p.k_M * p.ratio / p.R          # the compensated torque (the inner law gives 0)
    # it carries its own load factor: M = (1 + K_ML |M|) F(Omega2, z^), to round-off
    assert M == pytest.approx((1.0 + p.K_ML * abs(M)) * float(d.friction.force(0.3, 1e-4)),
                              rel=1e-12)
    res = simulate_drive(d, 0.3, drive_input=law, method="LSODA", rtol=1e-8, atol=1e-12,
                         dt_out=1e-3)
    z, z_hat = res.state("z"), res.info["controller_states"][:, 0]
    # the same ODE on the same speed, integrated together: apart by the solver's error
    # only (atol 1e-12 on z of size Mc/sigma0 = 4e-4, rtol 1e-8 over ~1e3 steps)
    assert np.abs(z).max() > 1e-4
    assert np.abs(z_hat - z).max() <= 1e-6 * np.abs(z).max()
    with pytest.raises(ParameterError, match="model"):
        FrictionCompensation(StateFeedback([[0.0] * 6]), _drive(friction="static"),
                             Tachometer(_drive()), model="dynamic")
    with pytest.raises(ParameterError, match="controller"):
        law(0.0, x)
