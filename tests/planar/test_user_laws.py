"""User laws in the reference engine's generalized-alpha: sampled laws with zero-order
hold (chrono_flex.inputs.sampled), state-reading callbacks held over the compiled step
(evaluated once per step at the predicted end state), and the step control's accuracy
at its default settings (the local error filtered through the Newton matrix).
"""

import math

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex import inputs, scenarios
from chrono_flex.errors import ParameterError, SimulationError
from chrono_flex.integrators.generalized_alpha import GeneralizedAlpha
from chrono_flex.planar import chain_ga, reference

needs_numba = pytest.mark.skipif(not chain_ga.available(),
                                 reason="numba is not installed (the `fast` extra)")


def _arm():
    return cf.PlanarArm([cf.Link(0.7, 3, EI=20.0, rho_A=0.5)], payload=cf.Payload(0.1))


def _law(calls):
    """A sampled law whose value is its sample's number (1, 2, ...), logging its calls."""
    def f(t, q, qd):
        calls.append((t, q.copy(), qd.copy()))
        return [0.01 * (1 + round(t / 0.01))]
    return f


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("delay", [0.0, 0.003, 0.013])
def test_sampled_law_is_called_at_the_samples_and_held(compiled, delay, monkeypatch):
    """Called only at t_k = k T with the state there; the arm sees the value of sample k
    from t_k + delay until t_{k+1} + delay, zero before the first: the run agrees, to
    the Newton tolerance (1e-6 of the range, tests/planar/test_chain_ga.py), with one
    whose torque is that hold written as a function of time (on the same 1 ms steps,
    which land on the hold instants; a hold one step early or late moves the arm by
    far more), and the result's joint torque is the held value from its instant on."""
    if compiled and not chain_ga.available():
        pytest.skip("numba is not installed (the `fast` extra)")
    monkeypatch.setattr(reference, "COMPILED_STEP", compiled)
    calls = []
    T = 0.01
    kw = dict(t_end=0.06, dt_out=0.001, step=0.001, progress=False)
    res = _arm().simulate(torque=inputs.sampled(_law(calls), T, delay=delay), **kw)
    assert res.info["newton"] == ("compiled" if compiled else "python")
    ts = np.array([c[0] for c in calls])
    np.testing.assert_allclose(ts, T * np.arange(ts.size), rtol=0, atol=1e-12)
    assert ts.size == 7                     # t = 0, 0.01, ..., 0.06
    # the state handed to the law is the state of the run at that sample
    for t, q, qd in calls:
        k = int(np.argmin(np.abs(res.t - t)))
        np.testing.assert_allclose(q, res.q[k], rtol=0, atol=1e-12)
        np.testing.assert_allclose(qd, res.qd[k], rtol=0, atol=1e-12)

    def hold(t):
        """The value acting over a step that ends at t (the sample k with
        t_k + delay < t <= t_{k+1} + delay)."""
        k = math.ceil((t - delay) / T - 1e-6) - 1
        return [0.01 * (k + 1) if k >= 0 else 0.0]

    ref = _arm().simulate(torque=inputs.time_only(hold), **kw)
    span = np.maximum(np.ptp(ref.q, axis=0), 1e-3)
    assert np.all(np.abs(res.q - ref.q).max(axis=0) <= 1e-6 * span)
    assert np.ptp(ref.q[:, 0]) > 1e-4                      # the arm moves
    t = res.t
    k = np.floor((t - delay) / T + 1e-9)     # the sample acting at t (from its instant on)
    expected = np.where(t >= delay - 1e-12, 0.01 * (k + 1), 0.0)
    np.testing.assert_allclose(res.joint_torque[:, 0], expected, rtol=0, atol=1e-15)


@needs_numba
def test_sampled_law_compiled_follows_the_python_iteration(monkeypatch):
    """The compiled loop between samples and the Python iteration solve the same steps
    with the same held values: they agree to the Newton tolerance (tests/planar/
    test_chain_ga.py says why 1e-6 of each coordinate's range), and the steps match."""
    law = lambda t, q, qd: [0.3 * math.sin(20 * t) - 0.5 * q[0]]  # noqa: E731
    out = {}
    for compiled in (True, False):
        monkeypatch.setattr(reference, "COMPILED_STEP", compiled)
        out[compiled] = _arm().simulate(0.3, torque=inputs.sampled(law, 1e-3, delay=2e-4),
                                        dt_out=0.01, progress=False)
    a, b = out[True], out[False]
    span = np.maximum(np.ptp(b.q, axis=0), 1e-3)
    assert np.all(np.abs(a.q - b.q).max(axis=0) <= 1e-6 * span)
    assert a.info["n_steps"] == b.info["n_steps"]
    assert np.ptp(a.q[:, 0]) > 1e-3                        # the arm moves


@needs_numba
@pytest.mark.parametrize("step", [None, 5e-4])
def test_sampled_law_called_from_the_compiled_loop(step, monkeypatch):
    """A sampled law without delay is called from the compiled step loop at its sample
    instants (``GeneralizedAlpha.advance_sampled``): the same steps, the same calls
    with the same states and the same numbers, bit for bit, as the run that returns to
    Python at every sample (the same arithmetic in the same order), under the step
    control and a fixed step."""
    out = {}
    for fast in (True, False):
        if not fast:
            monkeypatch.setattr(GeneralizedAlpha, "advance_sampled", lambda *a: None)
        calls = []

        def law(t, q, qd):
            calls.append((t, q.copy(), qd.copy()))
            return [0.3 * math.sin(20 * t) - 0.5 * q[0] - 0.05 * qd[0]]
        res = _arm().simulate(0.2, torque=inputs.sampled(law, 1e-3), dt_out=0.01,
                              step=step, progress=False)
        out[fast] = res, calls
    (a, ca), (b, cb) = out[True], out[False]
    assert a.info["n_steps"] == b.info["n_steps"] and a.info["nfev"] == b.info["nfev"]
    assert a.info["n_samples_taken"] == b.info["n_samples_taken"] == 201
    np.testing.assert_array_equal(a.q, b.q)
    np.testing.assert_array_equal(a.joint_torque, b.joint_torque)
    assert [c[0] for c in ca] == [c[0] for c in cb]
    for (_, qa, qda), (_, qb, qdb) in zip(ca, cb):
        np.testing.assert_array_equal(qa, qb)
        np.testing.assert_array_equal(qda, qdb)
    assert np.ptp(a.q[:, 0]) > 1e-3                        # the arm moves


@needs_numba
def test_sampled_law_fault_in_the_compiled_loop():
    """A law that raises, or returns a wrong shape, inside the compiled loop stops the
    run with the error :func:`chrono_flex._callbacks.call_vector` gives on the Python
    path: the callback's name, the sample's time, the user's exception chained."""
    def law(t, q, qd):
        if t > 0.0045:
            raise ValueError("sensor lost")
        return [0.1]
    with pytest.raises(SimulationError, match="torque.*ValueError: sensor lost") as info:
        _arm().simulate(0.02, torque=inputs.sampled(law, 1e-3), progress=False)
    assert "0.005" in str(info.value)
    assert isinstance(info.value.__cause__, ValueError)
    with pytest.raises(ParameterError, match="torque"):
        _arm().simulate(0.02, torque=inputs.sampled(
            lambda t, q, qd: [0.0] if t < 0.003 else [0.0, 1.0], 1e-3), progress=False)


def _pd_run(step, exact, monkeypatch):
    """A link under smooth state feedback (PD on the joint tracking a smooth reference
    that starts at rest, so the torque starts at zero): a fixed step."""
    monkeypatch.setattr(reference, "COMPILED_STEP", True)
    arm = cf.PlanarArm([cf.Link(1.0, 2, EI=5.0, rho_A=1.0)], payload=cf.Payload(0.2))
    law = lambda t, q, qd: [4.0 * (0.25 * (1 - math.cos(2 * t)) - q[0])  # noqa: E731
                            - 1.5 * qd[0]]
    return arm.simulate(1.0, torque=law, step=step, dt_out=0.05, progress=False,
                        exact_callbacks=exact)


@needs_numba
def test_state_feedback_held_over_the_step_stays_second_order(monkeypatch):
    """Held at the predicted end state, the torque is off the exact iteration's by
    O(h^3) per step, so generalized-alpha stays second order: the error against a fine
    run halves twice per halving of h (rate 2 within [1.7, 2.5]: four steps from 4 to
    0.5 ms, inside the asymptotic range), and it is the exact iteration's error to
    within 5 % (the held torque is corrected to 1e-7 of the torque, far below the
    truncation error; measured: 0.1 %). The fine run's step, a quarter of the finest
    one, leaves it an error 1/16 of that run's: the fitted rate moves by 0.02 (measured
    1.99, against 1.97 with a fine step of 6.25e-5 at 2.3 times the cost)."""
    fine = _pd_run(1.25e-4, True, monkeypatch)
    hs = np.array([4e-3, 2e-3, 1e-3, 5e-4])
    errs, exact_errs = [], []
    for h in hs:
        held = _pd_run(h, False, monkeypatch)
        assert held.info["torque_evaluation"] == "predicted"
        exact = _pd_run(h, True, monkeypatch)
        errs.append(np.abs(held.q - fine.q).max())
        exact_errs.append(np.abs(exact.q - fine.q).max())
    rate = np.polyfit(np.log(hs), np.log(errs), 1)[0]
    assert 1.7 <= rate <= 2.5, (errs, rate)
    np.testing.assert_allclose(errs, exact_errs, rtol=0.05)


@pytest.mark.slow
@needs_numba
def test_default_step_control_reaches_one_percent_on_a_bang_bang_link():
    """A bang-bang torque on a flexible link with a tip mass ([B]'s section, 4
    elements, 2 s) at the default settings (generalized-alpha, rtol 1e-3): the tip
    within 1 % of its range of a Radau run (the accuracy the default is designed
    for, docs/performance.md), with the torque as a profile and as a plain callback.
    The reference's rtol 1e-6 (atol 1e-9) is tight enough: its tip is within 1e-8 of
    the range of a run at rtol 1e-8 (atol 1e-11) (measured: 9e-9), six orders below
    the 1 % tolerance and the default's own error (measured: 0.18 %), at a third of
    the cost."""
    arm = cf.PlanarArm([scenarios.bien_link(1.0, 4)], payload=cf.Payload(0.1))
    bb = inputs.bang_bang(0.02, 1.0)
    tight = arm.simulate(2.0, torque=bb, method="Radau", rtol=1e-6, atol=1e-9,
                         dt_out=0.01, progress=False)
    span = np.ptp(tight.tip_position, axis=0).max()
    for torque in (bb, lambda t, q, qd: bb(t)):
        res = arm.simulate(2.0, torque=torque, dt_out=0.01, progress=False)
        err = np.linalg.norm(res.tip_position - tight.tip_position, axis=1).max() / span
        assert err <= 0.01, err


def test_sampled_law_bad_input():
    """Period below the step, a wrong shape or NaN from the law, a method whose steps
    do not land: errors naming them."""
    arm = _arm()
    with pytest.raises(ParameterError, match="period"):
        arm.simulate(0.01, torque=inputs.sampled(lambda t, q, qd: [0.0], 1e-3), step=2e-3,
                     progress=False)
    with pytest.raises(ParameterError, match="torque"):
        arm.simulate(0.01, torque=inputs.sampled(lambda t, q, qd: [0.0, 1.0], 1e-3),
                     progress=False)
    with pytest.raises(SimulationError, match="torque"):
        arm.simulate(0.01, torque=inputs.sampled(
            lambda t, q, qd: [np.nan if t > 0.004 else 0.0], 1e-3), progress=False)
    with pytest.raises(ParameterError, match="method"):
        arm.simulate(0.01, torque=inputs.sampled(lambda t, q, qd: [0.0], 1e-3),
                     method="Radau", progress=False)
    for bad in (dict(period=0.0), dict(period=1e-3, delay=-1.0)):
        with pytest.raises(ParameterError, match=next(reversed(bad))):
            inputs.sampled(lambda t, q, qd: [0.0], **bad)
    assert inputs.is_sampled(inputs.sampled(lambda t, q, qd: [0.0], 1e-3))
    assert not inputs.is_sampled(lambda t, q, qd: [0.0])
