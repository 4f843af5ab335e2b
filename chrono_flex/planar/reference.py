"""The reference engine: the assembled Lagrange equations of a PlanarArm, integrated by
scipy's adaptive solvers through the shared stepping loop (:mod:`chrono_flex.stepping`).

Two problems are integrated:

* forward dynamics, state x = [q, q_d, W_in, W_diss, drive states..., controller
  states...]: M(q) q_dd = Q - h + Q_g - K q - D q_d (docs/planar-link.md section 4), the
  joint forces from the torque callback and the drives (docs/drive.md), the states of
  continuous controllers integrated with the arm's (docs/control.md §1.2);
* the mixed problem, joints prescribed: state x = [e, e_d, W_in, W_diss], elastic
  coordinates integrated and joint torques returned.

The input work and the dissipated energy are integrated as states, so the energy
balance is checked to the integrator's tolerance.
"""

import math
import time

import numpy as np
from scipy.optimize import brentq

from .. import _checks as ck
from .._callbacks import call_vector, call_vector_series, held, is_sampled, reads_drive_states
from .._interrupts import watched
from ..drive.coupling import ArmInputs, JointDrives
from ..errors import BudgetExceeded, ParameterError
from ..integrators.choice import (FIXED_STEP, GA_RTOL, build_integrator, check_method,
                                  check_times)
from ..integrators.ivp import fd_jacobian
from ..stepping import Progress, Stepper, output_times, partial_result, run
from .. import inputs
from . import chain_ga
from . import equations as mdl
from .post import arm_result, check_n_samples, deflection_ratio, deflection_ratios

FORMS = ("virtual_power", "lagrange", "without_mdot")

#: Whether generalized-alpha may solve its steps with the compiled Newton iteration of
#: :mod:`chrono_flex.planar.chain_ga` where it applies (:func:`compiled_step`); False
#: keeps the Python iteration everywhere (tests compare the two).
COMPILED_STEP = True


@watched
def simulate_reference(arm, t_end, joint_angles0=None, joint_rates0=None, elastic0=None,
                       elastic_rates0=None, torque=None, joint_motion=None, drive_input=None,
                       dt_out=None, t0=0.0, method="generalized_alpha", rtol=None,
                       atol=None, form="virtual_power", max_step=np.inf, max_nfev=None,
                       max_deflection_ratio=0.5, n_samples=21, progress=None,
                       max_wall_time=None, step=None, rho_inf=0.8, family="chung-hulbert",
                       exact_callbacks=False):
    """The reference engine: :meth:`PlanarArm.simulate <chrono_flex.planar.arm.PlanarArm.simulate>`
    (same arguments, after ``arm``); returns a :class:`~chrono_flex.result.Result`."""

    t_end, t0, dt_out = check_times(t_end, t0, dt_out)
    ck.choice("form", form, FORMS)
    check_method(method)
    max_deflection_ratio = ck.positive("max_deflection_ratio", max_deflection_ratio)
    if joint_motion is not None and (torque is not None or arm.drives):
        raise ParameterError("joint_motion", joint_motion,
                             "excludes `torque` and drives (the joints are prescribed)")
    for name, fn in (("torque", torque), ("joint_motion", joint_motion),
                     ("drive_input", drive_input)):
        if fn is not None and not callable(fn):
            raise ParameterError(name, fn, "must be callable")
    if drive_input is not None and not arm.drives:
        raise ParameterError("drive_input", drive_input, "is given but the arm has no drives")
    torque, drive_input, max_step = inputs_in_loop(torque, drive_input, method, step,
                                                    max_step)
    check_n_samples(n_samples)
    nj, ne = arm.n_joints, arm.elastic_index.size
    q0, qd0 = np.zeros(arm.nq), np.zeros(arm.nq)
    for name, value, size, index, out in (
            ("joint_angles0", joint_angles0, nj, arm.joint_index, q0),
            ("joint_rates0", joint_rates0, nj, arm.joint_index, qd0),
            ("elastic0", elastic0, ne, arm.elastic_index, q0),
            ("elastic_rates0", elastic_rates0, ne, arm.elastic_index, qd0)):
        if value is not None:
            out[index] = ck.vector(name, value, size)
    t_out = output_times(t0, t_end, dt_out)
    law, torque = sampled_torque(torque, method, step, nj, t0)
    if joint_motion is not None:
        sim = _MixedProblem(arm, joint_motion, form)
    else:
        sim = _ForwardProblem(arm, torque, drive_input, form)
    x0 = sim.initial_state(q0, qd0)
    t_wall = time.perf_counter()
    solver = (compiled_step(sim, torque, exact_callbacks) if method == "generalized_alpha"
              else None)
    groups = sim.error_groups() if hasattr(sim, "error_groups") else None
    ode, settings = build_integrator(sim, t0, t_end, x0, dt_out, method, rtol, atol,
                                     max_step, max_nfev, step, rho_inf, family, solver,
                                     error_groups=groups)
    if solver is not None and solver.reads_state:
        settings["torque_evaluation"] = "predicted"
    if law is not None and reads_drive_states(law.law):
        law.drive_states = slice(sim.drives.start, sim.drives.stop)
    stepper = ReferenceStepper(sim, ode) if law is None else SampledStepper(sim, ode, law)

    def result(rec):
        if law is not None:
            sim.torque = law.recorded            # the held values, as they acted
            settings.update(sample_period=law.period, sample_delay=law.delay,
                            n_samples_taken=law.n_samples)
        res = sim.result(rec.t, rec["x"], n_samples)
        res.info.update(engine="reference", method=method, form=form, **settings,
                        **ode.counters(), wall_time=round(time.perf_counter() - t_wall, 4))
        if solver is not None:
            res.info["newton_matrix"] = solver.matrix
        return res

    try:
        rec = run(stepper, t_out, max_deflection_ratio=max_deflection_ratio,
                  progress=Progress(t_end, "reference", progress), max_wall_time=max_wall_time)
    except BudgetExceeded as exc:        # what was computed, marked partial
        exc.partial = partial_result(exc, result)
        raise
    return result(rec)


def sampled_torque(torque, method, step, nj, t0):
    """(law, torque): a sampled torque left by :func:`inputs_in_loop` as a
    :class:`SampledTorque` (the steps land on its instants) and the held value the
    engine applies, or (None, torque) for any other."""
    if not (is_sampled(torque) and not isinstance(torque, held)):
        return None, torque
    if method not in FIXED_STEP:
        raise ParameterError("method", method, "must be one of "
                             f"{', '.join(FIXED_STEP)} with a sampled torque (their "
                             "steps land on the sample instants; scipy's do not)")
    law = SampledTorque(torque, nj, t0)
    if step is not None and law.period < step:
        raise ParameterError("period", law.period, f"of the sampled torque must not be "
                             f"below the step ({step:g} s): it would be sampled "
                             "between the steps' ends")
    return law, law.held


def inputs_in_loop(torque, drive_input, method, step, max_step):
    """(torque, drive_input, max_step) ready for the loop: sampled inputs (a ``period``
    > 0, :func:`chrono_flex._callbacks.is_sampled`) wrapped in
    :class:`chrono_flex._callbacks.held` with the step bounded by the period (a period
    below a fixed step is a ParameterError naming it), except a sampled torque under a
    method of :data:`FIXED_STEP` (or a :class:`chrono_flex.inputs.SampledInput`, refused
    under the others), left for :class:`SampledTorque` (the steps land on its instants,
    the compiled steps run between them); continuous controllers with states are left
    as they are (:class:`_ForwardProblem` appends their states)."""
    out = []
    for name, fn in (("torque", torque), ("drive_input", drive_input)):
        if fn is None:
            out.append(fn)
            continue
        if callable(getattr(fn, "reset", None)):
            fn.reset()                      # a controller starts each run afresh
        if is_sampled(fn):
            period = float(fn.period)
            if step is not None and period < step * (1 - 1e-9):
                raise ParameterError("period", period, f"of the `{name}` controller is below "
                                     f"the fixed step {step:g} s (it would be sampled less "
                                     "often than it asks)")
            if name == "torque" and (method in FIXED_STEP
                                     or isinstance(fn, inputs.SampledInput)):
                out.append(fn)              # sampled on the steps (SampledTorque)
                continue
            max_step = min(max_step, period)
            fn = held(fn)
        out.append(fn)
    return out[0], out[1], max_step


def compiled_step(sim, torque, exact_callbacks=False):
    """The compiled Newton solve of generalized-alpha's steps
    (:class:`chrono_flex.planar.chain_ga.ChainStep`) for ``sim``, or None where it does
    not apply: numba absent or not the backend, :data:`COMPILED_STEP` off, a mixed
    problem, drives or controllers with states (their states and rates are Python),
    another form than
    "virtual_power", or (``exact_callbacks``) a torque callback not declared a function
    of time alone. A torque declared so (:func:`chrono_flex.inputs.is_time_only`: the
    input profiles, callables wrapped by :func:`chrono_flex.inputs.time_only`) is
    evaluated at each step's end; any other callable, which may read the state, once
    per step at the state predicted for the step's end and held through the compiled
    iteration (:meth:`ChainStep.held_torque`: the method stays second order), unless
    ``exact_callbacks`` asks for the Python iteration, which evaluates it at every
    iterate."""
    if not (COMPILED_STEP and chain_ga.available() and isinstance(sim, _ForwardProblem)
            and not sim.drive_joints and not sim.controllers and sim.form == "virtual_power"):
        return None
    reads_state = torque is not None and not inputs.is_time_only(torque)
    if reads_state and exact_callbacks:
        return None
    return chain_ga.ChainStep(sim.arm.model, torque, reads_state=reads_state)


class ReferenceStepper(Stepper):
    """The shared loop's view of an adaptive scipy solver on a forward or mixed problem."""

    label = "reference"

    def __init__(self, sim, ode):
        self.sim, self.ode = sim, ode

    @property
    def t(self):
        return self.ode.t

    def advance(self, t_target):
        return self.ode.advance(t_target)

    def advance_outputs(self, t_targets):
        """Several output times in one go where the integrator offers it
        (:meth:`GeneralizedAlpha.advance_outputs`; :meth:`Stepper.advance_outputs`)."""
        fn = getattr(self.ode, "advance_outputs", None)
        out = None if fn is None else fn(t_targets)
        if out is None:
            return None
        return self._outputs(t_targets, *out)

    def _outputs(self, t_targets, X, error):
        """The loop's view of the states X at the first output times (with their
        deflection ratios) and the error that stopped the run after them."""
        ratios = self.sim.max_deflection_ratios(X)
        ratios[~np.isfinite(np.einsum("ij,ij->i", X, X))] = np.nan   # as _ratio
        return [(float(t), float(r), {"x": x})
                for t, r, x in zip(t_targets, ratios, X)], error

    def _ratio(self, t, x):
        if not math.isfinite(float(x @ x)):       # any NaN or inf (or overflow)
            return float("nan")
        return self.sim.max_deflection_ratio(t, x)

    def deflection_ratio(self):
        return self._ratio(self.ode.t, self.ode.current)

    def record(self, t):
        return {"x": self.ode.state(t)}

    def crossing(self, t_prev, t, level):
        g = lambda s: self._ratio(s, self.ode.state(s)) - level  # noqa: E731
        if not g(t_prev) < 0.0 < g(t):
            return t
        return brentq(g, t_prev, t, xtol=1e-12 * max(1.0, abs(t)))


class _Held:
    """The value a :class:`SampledTorque` holds, as a joint torque of time alone; to the
    compiled loop a constant (``kernel``: the ``step`` profile from t = -inf on)."""

    time_only = True

    def __init__(self, n):
        self.value = np.zeros(n)
        self._par = np.array([-np.inf])

    def __call__(self, t, *state):
        return self.value

    @property
    def kernel(self):
        return inputs.KERNEL_CODES["step"], self.value, self._par


class SampledTorque:
    """A sampled joint-torque law (:class:`chrono_flex.inputs.SampledInput`) in a run:
    the sample instants t_k = k period (k from the first at or after t0), the values
    waiting for their instant t_k + delay, the value acting (``held``, zero before the
    first) and the record of what acted when (``recorded``)."""

    def __init__(self, law, n, t0):
        self.law, self.n = law, n
        self.period = ck.positive("period", law.period)
        self.delay = ck.real("delay", law.delay)
        if self.delay < 0.0:
            raise ParameterError("delay", law.delay, "must be >= 0 s")
        self.held = _Held(n)
        self.k = math.ceil(t0 / self.period - 1e-9)   # the next sample's number
        self.pending = []                             # (instant, value), in order
        self.times, self.values = [t0], [np.zeros(n)]
        self.n_samples = 0
        self.drive_states = None        # slice of the drives' states, for a law reading them

    def _due(self, t_event, t):
        return t_event <= t + 1e-9 * max(self.period, 1e-300) + 1e-12 * abs(t)

    def fire(self, t, x, nq):
        """At time t with the state x: take every sample and apply every value due."""
        while True:
            t_sample = self.k * self.period
            if self._due(t_sample, t):
                state = (x[:nq].copy(), x[nq:2 * nq].copy())
                if self.drive_states is not None:       # a motor-side sensor's drive states
                    state += (x[self.drive_states].copy(),)
                u = call_vector("torque", self.law, self.n, t_sample, *state)
                self.pending.append((t_sample + self.delay, u))
                self.k += 1
                self.n_samples += 1
                continue
            if self.pending and self._due(self.pending[0][0], t):
                t_apply, u = self.pending.pop(0)
                self.held.value = u
                self.times.append(t_apply)
                self.values.append(u)
                continue
            return

    def took(self, times, values, k):
        """The samples a compiled loop took (no delay: each value acts from its instant)
        and the number of the next one."""
        if len(times):
            self.times.extend(times.tolist())
            self.values.extend(np.array(values))
            self.held.value = self.values[-1]
        self.n_samples += len(times)
        self.k = k

    def next_event(self):
        """The next sample or hold instant."""
        t = self.k * self.period
        return min(t, self.pending[0][0]) if self.pending else t

    def recorded(self, t, *state):
        """The value acting at time t (from its instant on)."""
        i = int(np.searchsorted(self.times, t + 1e-12 * max(1.0, abs(t)), side="right")) - 1
        return self.values[max(i, 0)]

    recorded.time_only = True


class SampledStepper(ReferenceStepper):
    """:class:`ReferenceStepper` with a sampled torque: the steps land on its sample and
    hold instants, where it is sampled and its held value changed; between them the
    integrator runs with the value held (in compiled calls where it offers them)."""

    def __init__(self, sim, ode, law):
        super().__init__(sim, ode)
        self.law = law
        law.fire(ode.t, ode.current, sim.nq)

    def advance(self, t_target):
        t = self.ode.advance(min(t_target, self.law.next_event()))
        self.law.fire(t, self.ode.current, self.sim.nq)
        return t

    def advance_outputs(self, t_targets):
        """The outputs up to the next sample or hold instant (after running to the
        instants before the first output, if any), or None where the integrator has
        no compiled run through several outputs."""
        targets = np.asarray(t_targets, dtype=float)
        nq = self.sim.nq
        fn = getattr(self.ode, "advance_sampled", None)
        if fn is not None and self.law.delay == 0.0 and self.law.drive_states is None:
            out = fn(targets, self.law)      # the law called from the compiled loop
            if out is not None and (len(out[0]) or out[1] is not None):
                return ReferenceStepper._outputs(self, targets, *out)
        while True:
            t_event = self.law.next_event()
            j = int(np.searchsorted(targets, t_event + 1e-12 * max(1.0, abs(t_event)),
                                    side="right"))
            if j > 0:
                out = super().advance_outputs(targets[:j])
                if out is not None and out[1] is None and out[0]:
                    self.law.fire(self.ode.t, self.ode.current, nq)
                return out
            fn = getattr(self.ode, "advance_outputs", None)
            out = None if fn is None else fn([t_event])
            if out is None:
                return None
            if out[1] is not None:
                return [], out[1]
            self.law.fire(self.ode.t, self.ode.current, nq)


class _ForwardProblem:
    """State x = [q, q_d, W_in, W_diss, drive states..., controller states...]: the
    joint forces and the appended states of :class:`~chrono_flex.drive.coupling.ArmInputs`
    (a continuous controller with states integrated with the arm's by the same
    integrator)."""

    def __init__(self, arm, torque, drive_input, form):
        self.arm, self.drive_input, self.form = arm, drive_input, form
        nq = arm.nq
        self.nq = nq
        self.drives = JointDrives(arm.drives, {j: (j, arm.joint_index[j]) for j in arm.drives},
                                  2 * nq + 2)
        self.inputs = ArmInputs(torque, drive_input, self.drives, arm.n_joints)
        self.drive_joints, self.controllers = self.drives.keys, self.inputs.controllers
        self.n = self.inputs.stop
        self.n2 = nq              # second-order coordinates: q

    @property
    def torque(self):
        return self.inputs.torque

    @torque.setter
    def torque(self, fn):           # the sampled torque's record, after the run
        self.inputs.torque = fn

    def initial_state(self, q0, qd0):
        x = np.zeros(self.n)
        x[:self.nq] = q0
        x[self.nq:2 * self.nq] = qd0
        self.inputs.initial_state(x, q0, qd0)
        return x

    def error_groups(self):
        """The position groups of the step control (:func:`chain_ga.error_groups`)."""
        return chain_ga.error_groups(self.arm.model)

    def default_atol(self):
        a = np.full(self.n, 1e-9)
        a[self.nq:2 * self.nq] = 1e-7
        a[2 * self.nq:2 * self.nq + 2] = 1e-6
        self.inputs.atol(a)
        return a

    def _joint_forces(self, t, q, qd, x):
        """(tau (n_joints,), the rates of the drive and controller states)."""
        return self.inputs.joint_forces(t, x, q, qd)

    def rhs(self, t, x):
        nq, arm = self.nq, self.arm
        q, qd = x[:nq], x[nq:2 * nq]
        tau, rates = self._joint_forces(t, q, qd, x)
        Q = np.zeros(nq)
        Q[arm.joint_index] = tau
        dx = np.empty(self.n)
        dx[:nq] = qd
        if self.form == "virtual_power":
            dx[nq:2 * nq] = mdl.accelerations(arm.model, q, qd, Q)
        else:
            M, f = arm._forcing(q, qd, Q, self.form)
            dx[nq:2 * nq] = np.linalg.solve(M, f)
        dx[2 * nq] = tau @ qd[arm.joint_index]
        dx[2 * nq + 1] = qd @ arm.model.D @ qd
        for s, r in zip(self.inputs.slices, rates):
            dx[s] = r
        return dx

    def forcing(self, t, x):
        """(M, [f, zd]): the equations in mass-matrix form for generalized-alpha's Newton
        (M q_dd = f; zd the rates of the work integrals and the drive states)."""
        nq, arm = self.nq, self.arm
        q, qd = x[:nq], x[nq:2 * nq]
        tau, rates = self._joint_forces(t, q, qd, x)
        Q = np.zeros(nq)
        Q[arm.joint_index] = tau
        M, f = arm._forcing(q, qd, Q, self.form)
        F = np.empty(self.n - nq)
        F[:nq] = f
        F[nq] = tau @ qd[arm.joint_index]
        F[nq + 1] = qd @ arm.model.D @ qd
        for s, r in zip(self.inputs.slices, rates):
            F[s.start - nq:s.stop - nq] = r
        return M, F

    def jac(self, t, x):
        nq = self.nq
        cols = list(range(2 * nq)) + list(range(2 * nq + 2, self.n))
        return fd_jacobian(self.rhs, t, x, self.rhs(t, x), cols,
                           (np.arange(nq), np.arange(nq, 2 * nq)))

    def max_deflection_ratio(self, t, x):
        return deflection_ratio(self.arm, x[:self.nq])

    def max_deflection_ratios(self, X):
        """:meth:`max_deflection_ratio` at the states X (nt, n) (any times)."""
        return deflection_ratios(self.arm, X[:, :self.nq])

    def _torques(self, t, X):
        """The joint forces at the samples (t, X): a time-only torque without drives in
        one pass (:func:`chrono_flex._callbacks.call_vector_series`), else state by state."""
        nq = self.nq
        if self.torque is None and not self.drive_joints:
            return np.zeros((len(t), self.arm.n_joints))
        if not self.drive_joints and not self.controllers and inputs.is_time_only(self.torque):
            out = call_vector_series(self.torque, self.arm.n_joints, t)
            if out is not None:
                return out
        return np.array([self._joint_forces(tk, x[:nq], x[nq:2 * nq], x)[0]
                         for tk, x in zip(t, X)])

    def result(self, t, X, n_samples):
        nq, arm = self.nq, self.arm
        Q, QD = X[:, :nq], X[:, nq:2 * nq]
        torques = self._torques(t, X)
        return arm_result(arm, t, Q, QD, torques, X[:, 2 * nq], X[:, 2 * nq + 1], n_samples,
                          self.inputs.extra(X))


class _MixedProblem:
    """Joints prescribed: state x = [e, e_d, W_in, W_diss]; joint torques returned.

    With a = joint coordinates and b = elastic ones, M_bb e_dd = f_b - M_ba theta_dd and
    tau = M_aa theta_dd + M_ab e_dd - f_a (f: forcing without inputs).
    """

    def __init__(self, arm, motion, form):
        self.arm, self.motion, self.form = arm, motion, form
        self.a, self.b = arm.joint_index, arm.elastic_index
        self.ne = self.b.size
        self.n2 = self.ne         # second-order coordinates: the elastic ones

    def _joints(self, t):
        out = call_vector("joint_motion", lambda s: np.ravel(self.motion(s)),
                          3 * self.arm.n_joints, t)
        return np.split(out, 3)

    def _state(self, t, x):
        th, thd, thdd = self._joints(t)
        q = np.empty(self.arm.nq)
        qd = np.empty(self.arm.nq)
        q[self.a], qd[self.a] = th, thd
        q[self.b], qd[self.b] = x[:self.ne], x[self.ne:2 * self.ne]
        return q, qd, thdd

    def _solve(self, t, x):
        q, qd, thdd = self._state(t, x)
        M, f = self.arm._forcing(q, qd, np.zeros(self.arm.nq), self.form)
        a, b = self.a, self.b
        edd = np.linalg.solve(M[np.ix_(b, b)], f[b] - M[np.ix_(b, a)] @ thdd)
        tau = M[np.ix_(a, a)] @ thdd + M[np.ix_(a, b)] @ edd - f[a]
        return q, qd, edd, tau

    def initial_state(self, q0, qd0):
        q, qd, _ = self._state(0.0, np.concatenate([q0[self.b], qd0[self.b]]))
        return np.concatenate([q0[self.b], qd0[self.b], [0.0, 0.0]])

    def error_groups(self):
        """The elastic coordinates' groups of the step control, one per link."""
        groups = chain_ga.error_groups(self.arm.model)[self.b]
        return np.unique(groups, return_inverse=True)[1]

    def default_atol(self):
        a = np.full(2 * self.ne + 2, 1e-9)
        a[self.ne:2 * self.ne] = 1e-7
        a[-2:] = 1e-6
        return a

    def rhs(self, t, x):
        q, qd, edd, tau = self._solve(t, x)
        ne = self.ne
        dx = np.empty(2 * ne + 2)
        dx[:ne] = x[ne:2 * ne]
        dx[ne:2 * ne] = edd
        dx[-2] = tau @ qd[self.a]
        dx[-1] = qd @ self.arm.model.D @ qd
        return dx

    def jac(self, t, x):
        ne = self.ne
        return fd_jacobian(self.rhs, t, x, self.rhs(t, x), range(2 * ne),
                           (np.arange(ne), np.arange(ne, 2 * ne)))

    def max_deflection_ratio(self, t, x):
        return deflection_ratio(self.arm, self._state(t, x)[0])

    def result(self, t, X, n_samples):
        nt = t.size
        Q = np.empty((nt, self.arm.nq))
        QD = np.empty_like(Q)
        tau = np.empty((nt, self.arm.n_joints))
        for k, (tk, x) in enumerate(zip(t, X)):
            Q[k], QD[k], _, tau[k] = self._solve(tk, x)
        return arm_result(self.arm, t, Q, QD, tau, X[:, -2], X[:, -1], n_samples)


__all__ = ["FIXED_STEP", "FORMS", "GA_RTOL", "ReferenceStepper", "SampledStepper",
           "inputs_in_loop", "sampled_torque", "simulate_reference"]
