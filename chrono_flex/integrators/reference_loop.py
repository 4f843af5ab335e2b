"""The reference engines' side of the shared stepping loop (:func:`chrono_flex.stepping.run`):
the stepper that shows an integrator of :mod:`chrono_flex.integrators.choice` to the loop
(:class:`ReferenceStepper`), and the joint inputs as the loop must see them: a sampled
torque whose instants the steps land on (:class:`SampledTorque`, :class:`SampledStepper`)
and other sampled inputs held between their samples (:func:`inputs_in_loop`).

Written once for every arm (planar, spatial, the RRRP arm): an arm's problem ``sim``
offers ``nq``, ``max_deflection_ratio(t, x)`` and, for several outputs in one compiled
call, ``max_deflection_ratios(X)``.
"""

import math

import numpy as np
from scipy.optimize import brentq

from .. import _checks as ck
from .. import inputs
from .._callbacks import call_vector, held, is_sampled
from ..errors import ParameterError
from ..stepping import Stepper
from .base import FIXED_STEP


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
        self._times_array = None        # self.times as an array, for recorded()
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
        if self._times_array is None or self._times_array.shape[0] != len(self.times):
            # the list only grows: made again when it has (searchsorted on the list
            # itself converted all of it at every call: with 3,001 samples read at 301
            # outputs, a sixth of the whole run)
            self._times_array = np.asarray(self.times, dtype=float)
        i = int(np.searchsorted(self._times_array, t + 1e-12 * max(1.0, abs(t)),
                                side="right")) - 1
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
                return self._outputs(targets, *out)
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


__all__ = ["ReferenceStepper", "SampledStepper", "SampledTorque",
           "inputs_in_loop", "sampled_torque"]
