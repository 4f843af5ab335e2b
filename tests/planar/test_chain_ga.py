"""The compiled Newton solve of generalized-alpha (chrono_flex.planar.chain_ga) against
the Python iteration of chrono_flex.integrators.generalized_alpha.

Both solve the same equations of every step, in the same order and with the same
tests; they differ in how the arithmetic is associated (the compiled kernel forms K q
and D q_d apart, its own LU), so their Newton iterates differ by round-off and may
stop one iteration apart. Newton stops when the update it would make is below rtol =
1e-8 of the velocities under a fixed step, so the trajectories agree to a few 1e-8
relative; 1e-6 of each coordinate's range leaves a margin of ten for the accumulation
over the run. Under the step control Newton stops at 3e-2 of the step control's rtol
(3e-5 at its default: GeneralizedAlpha.NEWTON_FRACTION), and the agreement asked for
scales with it (100 times the Newton tolerance, :func:`agree`).
"""

import numpy as np
import pytest
from _arms import planar_chain

import chrono_flex as cf
from chrono_flex import inputs
from chrono_flex.integrators.choice import GA_RTOL
from chrono_flex.integrators.generalized_alpha import GeneralizedAlpha
from chrono_flex.planar import chain_ga, reference

needs_numba = pytest.mark.skipif(not chain_ga.available(),
                                 reason="numba is not installed (the `fast` extra)")

AGREE = 1e-6


def run(arm, compiled, monkeypatch, **kw):
    monkeypatch.setattr(reference, "COMPILED_STEP", compiled)
    res = arm.simulate(progress=False, method="generalized_alpha", **kw)
    assert res.info["newton"] == ("compiled" if compiled else "python")
    return res


def agree(a, b, step=0.0):
    """a and b within AGREE of each coordinate's range; with ``step`` None (the step
    control at its default rtol) within 100 times its Newton tolerance."""
    tol = AGREE if step is not None else 100 * max(
        GeneralizedAlpha.NEWTON_RTOL, GeneralizedAlpha.NEWTON_FRACTION * GA_RTOL)
    span = np.maximum(np.ptp(b, axis=0), 1e-3)
    return np.all(np.abs(a - b).max(axis=0) <= tol * span)


@needs_numba
@pytest.mark.parametrize("step", [2e-3, None])
def test_compiled_step_follows_the_python_iteration(step, monkeypatch):
    """A torque profile (time only) on two links, geometric stiffening and gravity; a
    fixed step and the step control."""
    arm = cf.PlanarArm([cf.Link(0.7, 3, EI=20.0, rho_A=0.5), cf.Link(0.5, 2, EI=10.0,
                                                                      rho_A=0.3)],
                       payload=cf.Payload(0.2), gravity=9.81, geometric_stiffening=True)
    kw = dict(t_end=0.6, dt_out=0.02, step=step, joint_angles0=[0.3, -0.4],
              torque=inputs.pulse([1.0, -0.5], 0.5))
    a, b = run(arm, True, monkeypatch, **kw), run(arm, False, monkeypatch, **kw)
    assert agree(a.q, b.q, step) and agree(a.qd, b.qd, step)
    assert agree(a.energy.input_work[:, None], b.energy.input_work[:, None], step)
    assert np.ptp(a.q[:, 0]) > 0.1               # the arm moves


@needs_numba
def test_state_feedback_is_held_over_the_compiled_step_or_iterated_on_request(monkeypatch):
    """A plain callable may read the state: by default it is evaluated once per step at
    the predicted end state and the compiled step holds it (the run says so);
    ``exact_callbacks=True`` keeps the Python iteration, which evaluates it at every
    iterate."""
    arm = cf.PlanarArm([cf.Link(0.7, 3, EI=20.0, rho_A=0.5)])
    monkeypatch.setattr(reference, "COMPILED_STEP", True)
    kw = dict(torque=lambda t, q, qd: -qd[:1], joint_rates0=[1.0], progress=False,
              method="generalized_alpha", step=1e-3)
    res = arm.simulate(0.05, **kw)
    assert res.info["newton"] == "compiled"
    assert res.info["torque_evaluation"] == "predicted"
    res = arm.simulate(0.05, exact_callbacks=True, **kw)
    assert res.info["newton"] == "python" and "torque_evaluation" not in res.info


@needs_numba
@pytest.mark.parametrize("step", [1e-3, None])
def test_whole_intervals_in_one_call_take_the_python_steps(step, monkeypatch):
    """Without a torque the compiled side runs from output to output in one call
    (chain_ga.ga_advance), fixed step or step control: the same steps as the Python
    loop (their count, and the rejected ones), the same trajectory to the Newton
    tolerance."""
    arm = cf.PlanarArm([cf.Link(1.0, 3, EI=1000.0, rho_A=5.0),
                        cf.Link(1.0, 3, EI=1000.0, rho_A=5.0)], gravity=9.81)
    kw = dict(t_end=0.3, dt_out=0.01, step=step, joint_angles0=[-0.5, 0.3])
    a, b = run(arm, True, monkeypatch, **kw), run(arm, False, monkeypatch, **kw)
    assert agree(a.q, b.q, step) and agree(a.qd, b.qd, step)
    for key in ("n_steps", "rejected"):
        assert a.info[key] == b.info[key], key
    assert np.ptp(a.q[:, 0]) > 0.1


def _one_step_at_a_time(monkeypatch):
    """The stepping loop's per-step path: no output times taken at once."""
    monkeypatch.setattr(reference.ReferenceStepper, "advance_outputs", lambda self, ts: None)


@needs_numba
@pytest.mark.parametrize("torque, step", [
    (inputs.pulse([1.0, -0.5], 0.25), 3e-3),
    (inputs.pulse([1.0, -0.5], 0.25), None),
    (inputs.sine([0.5, 0.2], 3.0, 0.4, 0.1), None),
    (inputs.bang_bang([0.4, -0.2], 0.2), None),
    (inputs.step([0.3, 0.1], 0.05), None),
    (inputs.time_only(lambda t: [np.sin(9 * t), 0.3]), 3e-3)])
def test_inputs_in_the_compiled_loop_give_the_step_by_step_numbers(torque, step,
                                                                   monkeypatch):
    """A time-only torque: the compiled loop through many output times
    (chain_ga.ga_outputs), with the profile evaluated in the loop
    (chain_ga.profile_values; fixed step and step control) or a declared time-only
    callable evaluated ahead at the fixed steps' ends, against the same compiled Newton
    solve called step by step from Python, which calls the torque itself. Both
    evaluate the same torques at the same times (the grid repeats the loop's
    arithmetic, the compiled profiles the formulas of chrono_flex.inputs) and solve the
    same steps, so the results are identical, not only close: any difference would
    mean another time grid or another torque. The last case has Newton fail now and
    then at this step (the steps are halved in Python between compiled calls)."""
    arm = cf.PlanarArm([cf.Link(0.7, 3, EI=20.0, rho_A=0.5), cf.Link(0.5, 2, EI=10.0,
                                                                      rho_A=0.3)],
                       payload=cf.Payload(0.2), gravity=9.81, geometric_stiffening=True)
    kw = dict(t_end=0.4, dt_out=0.01, step=step, joint_angles0=[0.3, -0.4], torque=torque)
    fast = run(arm, True, monkeypatch, **kw)
    _one_step_at_a_time(monkeypatch)
    slow = run(arm, True, monkeypatch, **kw)
    # The same steps (any difference here would mean another time grid or another
    # torque) and the same work, up to a Newton iteration whose residual lands on the
    # tolerance within round-off (seen: 47,403 against 47,404 evaluations) ...
    for key in ("n_steps", "retries", "rejected"):
        assert fast.info[key] == slow.info[key], key
    for key in ("nfev", "njev", "nlu"):
        assert abs(fast.info[key] - slow.info[key]) <= 1e-3 * slow.info[key], key
    # ... and the same numbers to round-off: the two paths are compiled separately, and
    # on a CPU with fused multiply-add LLVM may contract a*b + c in one and not in the
    # other, so a step's arithmetic can differ in the last bit, and the dynamics carry
    # it on (seen: up to 3e-11 of a coordinate's scale after 100 fixed steps). 1e-9 of
    # each quantity's scale is below the Newton tolerance (1e-8) and far below any
    # change of grid or torque, which moves the results by the local error. Under the
    # step control Newton stops on the error its last update leaves, theta / (1 - theta)
    # |dy|, up to its tolerance (3e-5 of the velocities), so a round-off difference that
    # moves a stop by one iteration moves that step by up to the tolerance (seen: 1e-5
    # of a velocity's scale after 2,000 steps with the filtered error estimate at a
    # Newton tolerance of 1e-6): there the bound is 100 times the Newton tolerance, as
    # for the other runs compared (agree; seen at 3e-5: 2.8e-4 of a velocity's range
    # after 470 steps in test_compiled_step_follows_the_python_iteration).
    tol = 1e-9 if step is not None else 100 * GeneralizedAlpha.NEWTON_FRACTION * GA_RTOL
    for name in ("q", "qd", "joint_torque"):
        a, b = getattr(fast, name), getattr(slow, name)
        scale = np.ptp(b, axis=0) + np.abs(b).max(axis=0) + 1e-300
        assert np.all(np.abs(a - b) <= tol * scale), name
    assert fast.info["n_steps"] >= 40                # many steps per call (40 outputs)
    assert np.ptp(fast.q[:, 0]) > 0.05               # the torque moves the arm


def test_time_only_declarations():
    """Profiles and wrapped callables are time-only; plain and imported callables are
    not (they may read the state), whatever their signature."""
    assert inputs.is_time_only(inputs.pulse(1.0, 2.0))
    f = inputs.time_only(lambda t: 2.0 * t)
    assert inputs.is_time_only(f) and f(0.5, np.zeros(3), np.zeros(3)) == 1.0
    assert inputs.time_only(f) is f
    assert not inputs.is_time_only(lambda t: 0.0)
    assert not inputs.is_time_only(inputs.imported("math:cos"))
    with pytest.raises(cf.ParameterError, match="fn"):
        inputs.time_only(3.0)


@needs_numba
def test_a_faulty_input_ahead_is_reported_at_its_time(monkeypatch):
    """A time-only torque that turns non-finite at 0.05 s: the run stops there with the
    torque named, as step by step (the loop falls back to single steps)."""
    arm = cf.PlanarArm([cf.Link(0.7, 3, EI=20.0, rho_A=0.5)])
    torque = inputs.time_only(lambda t: 1.0 if t < 0.05 else float("nan"))
    with pytest.raises(cf.SimulationError, match="torque") as fast:
        arm.simulate(0.2, torque=torque, progress=False, method="generalized_alpha",
                     step=1e-3, dt_out=0.01)
    _one_step_at_a_time(monkeypatch)
    with pytest.raises(cf.SimulationError, match="torque") as slow:
        arm.simulate(0.2, torque=torque, progress=False, method="generalized_alpha",
                     step=1e-3, dt_out=0.01)
    assert str(fast.value) == str(slow.value)


@needs_numba
@pytest.mark.parametrize("prof", [inputs.pulse([0.4, -0.1], 2.0), inputs.step([1.0, 2.0], 0.5),
                                  inputs.sine([0.3, 0.2], 1.5, 0.7, -0.05),
                                  inputs.bang_bang([0.2, -0.3], 1.0)])
def test_compiled_profiles_are_the_profiles(prof):
    """chain_ga.profile_values against the Python profile, at random times and at the
    switching times (0, T/2, T, t_start): the same operations, so equal numbers."""
    code, amp, par = prof.kernel
    rng = np.random.default_rng(7)
    times = np.concatenate([rng.uniform(-0.5, 2.5, 200), [0.0, 0.5, 1.0, 2.0, -0.0]])
    out = np.empty(2)
    for t in times:
        chain_ga.profile_values(code, amp, par, float(t), out)
        np.testing.assert_array_equal(out, prof(float(t)))


# -- the bordered-banded Newton matrix (chain_ga.structure) ------------------------------

def two_links_of_eight():
    return cf.PlanarArm([cf.Link(0.7, 8, EI=20.0, rho_A=0.5), cf.Link(0.5, 8, EI=10.0,
                                                                       rho_A=0.3)],
                        joints=[cf.RevoluteJoint(hub_inertia=0.01),
                                cf.RevoluteJoint(hub_mass=0.1)],
                        payload=cf.Payload(0.2, 0.01), gravity=9.81,
                        geometric_stiffening=True)


def three_joint_kinds():
    """Revolute, prismatic and offset revolute joints, hub masses, a payload: every kind
    of border coordinate (11 of 75: the automatic choice takes the band)."""
    return planar_chain((12, 12, 12), stiffening=True)


def one_link_of_64():
    from chrono_flex import scenarios
    return cf.PlanarArm([scenarios.kozlowski_link(64)], gravity=True,
                        geometric_stiffening=True)


def factored(arm, banded, xn, h=1e-3):
    """A ChainStep's Newton matrix at the state xn with a fresh Jacobian, factored
    bordered-banded or dense; and that matrix, dense, from the same Jacobian."""
    mdl = arm.model
    nq = mdl.nq
    st = chain_ga.ChainStep(mdl)
    st.S = chain_ga.structure(mdl, banded)
    beta, gamma, c_new = 0.3, 0.6, 0.9
    assert chain_ga._factor(mdl.packed, mdl.K, mdl.D, mdl.g_vec, True, st._Q, st.jidx,
                            st._tau, xn, nq, h, beta, gamma, c_new, True, st.JF, st.Mj, st.A,
                            st.piv, st.S, st.counts)
    assert st.matrix == ("bordered-banded" if banded else "dense")
    dq, dv = h * h * beta * c_new, h * gamma * c_new
    A = np.array([[chain_ga._entry(st.JF, st.Mj, nq, dq, dv, i, k) for k in range(nq + 2)]
                  for i in range(nq + 2)])
    return st, A


@pytest.mark.slow
@needs_numba
@pytest.mark.parametrize("make", [two_links_of_eight, three_joint_kinds, one_link_of_64])
def test_the_banded_factors_solve_the_newton_matrix(make):
    """Block elimination of the border over the banded LU of the inner elastic
    coordinates against the dense LU, on the same Newton matrix: both backward stable,
    so the residuals are round-off (1e-13 of |A| |x|: a thousand machine epsilons for
    sums of up to a hundred terms) and the solutions differ by at most eps times the
    condition number (with a factor 100 for the growth of the two eliminations)."""
    arm = make()
    nq = arm.model.nq
    rng = np.random.default_rng(5)
    xn = np.zeros(2 * nq + 2)
    xn[:nq] = 1e-3 * rng.normal(size=nq)
    xn[arm.model.joint_index] = [0.4, -0.3, 0.2][:arm.model.n_links]
    xn[nq:2 * nq] = 0.1 * rng.normal(size=nq)
    banded, A = factored(arm, True, xn)
    dense, A_dense = factored(arm, False, xn)
    np.testing.assert_array_equal(A, A_dense)             # the same matrix
    b = rng.normal(size=nq + 2)
    xb = chain_ga._newton_solve(banded.A, banded.piv, banded.S, b)
    xd = chain_ga._newton_solve(dense.A, dense.piv, dense.S, b)
    for x in (xb, xd):
        assert np.abs(A @ x - b).max() <= 1e-13 * np.abs(A).max() * np.abs(x).max()
    bound = 100 * np.finfo(float).eps * np.linalg.cond(A)
    assert np.abs(xb - xd).max() <= bound * np.abs(xd).max()
    assert banded.S.border.size <= 3 * arm.model.n_links + 2    # joints, tips, work


def test_the_newton_matrix_is_chosen_by_size_and_basis():
    """Long Hermite chains take the bordered-banded factors; short ones and a modal
    basis (every mode moves the tip: no band) the dense LU."""
    assert chain_ga.structure(one_link_of_64().model).use[0] == 1
    assert chain_ga.structure(two_links_of_eight().model).use[0] == 1
    small = cf.PlanarArm([cf.Link(0.7, 3, EI=20.0, rho_A=0.5)])
    assert chain_ga.structure(small.model).use[0] == 0
    modal = cf.PlanarArm([cf.Link(0.9, EI=20.0, rho_A=0.5, basis="modes", n_modes=30)])
    assert chain_ga.structure(modal.model).use[0] == 0


@needs_numba
@pytest.mark.parametrize("make, step, t_end", [(two_links_of_eight, 2e-3, 0.3),
                                               (two_links_of_eight, None, 0.3),
                                               (three_joint_kinds, 2e-3, 0.2),
                                               (one_link_of_64, 1e-3, 0.05)])
def test_banded_runs_follow_the_dense_runs(make, step, t_end, monkeypatch):
    """Whole runs with either factorisation. The linear solves agree to round-off (the
    test above), but modified Newton stops when an update falls below 1e-8 of the
    velocities, and a round-off difference in an update can move that stop by one
    iteration (the 64-element link: 965 evaluations against 966 over 0.2 s), so the
    trajectories agree to the Newton tolerance, as the compiled and Python iterations do
    (AGREE), and take the same steps."""
    arm = make()
    kw = dict(t_end=t_end, dt_out=0.01, step=step,
              joint_angles0=[0.3, -0.4, 0.2][:arm.model.n_links])
    monkeypatch.setattr(chain_ga, "BANDED_FROM", 0)
    a = run(arm, True, monkeypatch, **kw)
    monkeypatch.setattr(chain_ga, "BANDED_FROM", 10 ** 9)
    b = run(arm, True, monkeypatch, **kw)
    assert a.info["newton_matrix"] == "bordered-banded" and b.info["newton_matrix"] == "dense"
    assert agree(a.q, b.q, step) and agree(a.qd, b.qd, step)
    assert a.info["n_steps"] == b.info["n_steps"]
    assert a.info["rejected"] == b.info["rejected"]
    assert np.ptp(a.q[:, 0]) > 0.01                  # the arm moves


@needs_numba
def test_a_jacobian_outside_the_band_falls_back_to_the_dense_lu():
    """The factorisation checks each fresh Jacobian against the band it assumes: with
    a band too narrow for the finite-element matrices (a diagonal) the check fails and
    the step factors the dense matrix instead, for good."""
    arm = two_links_of_eight()
    mdl = arm.model
    nq = mdl.nq
    st = chain_ga.ChainStep(mdl)
    S = chain_ga.structure(mdl, True)
    st.S = S._replace(kl=0, ku=0, W=np.zeros((S.inner.size, 1)))
    xn = np.zeros(2 * nq + 2)
    xn[mdl.joint_index] = [0.4, -0.3]
    assert chain_ga._factor(mdl.packed, mdl.K, mdl.D, mdl.g_vec, True, st._Q, st.jidx,
                            st._tau, xn, nq, 1e-3, 0.3, 0.6, 0.9, True, st.JF, st.Mj, st.A,
                            st.piv, st.S, st.counts)
    assert st.matrix == "dense"
    b = np.linspace(-1.0, 1.0, nq + 2)
    x = chain_ga._newton_solve(st.A, st.piv, st.S, b)
    _, A = factored(arm, False, xn)
    assert np.abs(A @ x - b).max() <= 1e-13 * np.abs(A).max() * np.abs(x).max()


def test_the_compiled_loop_lands_as_the_python_step_control():
    """The compiled loop's landing rule is the integrator's (numba freezes a module
    constant; the two must be changed together or the loops take different steps)."""
    from chrono_flex.planar import chain_loop
    assert chain_loop.LANDING_STRETCH == GeneralizedAlpha.LANDING_STRETCH


@pytest.mark.parametrize("nan_at", [None, 0, 3, 6])
def test_the_loop_maximum_is_numpys(nan_at):
    """The Newton iteration's scale and convergence test take max |v| over a range by a
    loop (no temporary array); it must be numpy's ``np.abs(v[lo:hi]).max()`` exactly,
    a NaN anywhere in the range included (then the test compares false and the step is
    not accepted on it)."""
    from chrono_flex.planar.chain_linalg import _abs_max
    v = np.array([0.5, -2.0, 1.5, -0.25, 3.0, -3.0, 1.0])
    if nan_at is not None:
        v[nan_at] = np.nan
    for lo, hi in [(0, 7), (0, 1), (2, 5), (3, 7), (6, 7)]:
        got, want = _abs_max(v, lo, hi), np.abs(v[lo:hi]).max()
        assert got == want or (np.isnan(got) and np.isnan(want)), (lo, hi, got, want)
