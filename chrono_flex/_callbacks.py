"""Calling the user's callbacks (torques, drive inputs, prescribed motions) so that every
fault names the callback and the time.

A callback that raises stops the run with a :class:`~chrono_flex.errors.SimulationError`
chained to the user's exception (its type and message, the callback's name and the
time), and so does one that returns NaN or inf (numerical trouble at that time); one
that returns something other than the expected number of reals is a
:class:`~chrono_flex.errors.ParameterError` naming the callback, with the value and the
time. Every engine calls its callbacks through :func:`call_vector`.

Inputs that read the state. A drive input is a callable of time u(t) or of the state,
with the convention of the joint torque: u(t, q, qd) in the arm engines, u(t, x) in
:func:`chrono_flex.drive.simulate_drive`; :func:`takes_state` tells which. A sampled
input (an object with a ``period`` > 0, e.g. a controller of :mod:`chrono_flex.control`)
is evaluated only at the sample instants t_k = k period and its value held from
t_k + ``delay`` (zero-order hold); :func:`held` gives that behaviour to an engine that
calls its inputs at arbitrary times.
"""

import bisect
import inspect
import math

import numpy as np

from .errors import ParameterError, SimulationError


#: Largest magnitude a callback may return: beyond it the squares and products the
#: energy and power sums form (about 1e300) leave the range of floats (1.8e308).
MAX_MAGNITUDE = 1e150


def read_only(a):
    """A read-only view of the array ``a`` (other values unchanged): what a callback is
    given of the integrator's state, so that writing into it is an error naming the
    callback rather than a silent change of the state."""
    if isinstance(a, np.ndarray):
        a = a.view()
        a.flags.writeable = False
    return a


def call_vector(name, fn, n, t, *args):
    """``fn(t, *args)`` as a float array of shape (n,), checked.

    A scalar is accepted when n == 1. The arrays in ``args`` are passed read-only
    (:func:`read_only`). Raises SimulationError (the callback raised, or returned a
    non-finite value or one above :data:`MAX_MAGNITUDE`) or ParameterError (wrong type
    or shape, booleans), both naming ``name`` and t.
    """
    try:
        out = fn(t, *(read_only(a) for a in args))
    except (ParameterError, SimulationError):
        raise
    except Exception as exc:  # noqa: BLE001 - re-raised with the callback's name and time
        raise SimulationError(f"the `{name}` callback raised {type(exc).__name__}: {exc}",
                              t) from exc
    if n == 1 and isinstance(out, float) and math.isfinite(out) \
            and abs(out) <= MAX_MAGNITUDE:
        return np.array([float(out)])       # one valid real: the checks below, in brief
    try:
        raw = np.asarray(out)
    except (TypeError, ValueError):         # ragged sequences
        raw = np.asarray(None)
    if raw.dtype.kind not in "iuf":         # None, strings, booleans, objects
        raise ParameterError(name, out, f"must return {n} real number(s) (at t = {t:.6g} s)")
    a = raw.astype(float)
    if a.shape == () and n == 1:
        a = a.reshape(1)
    if a.shape != (n,):
        raise ParameterError(name, out, f"must return {n} value(s), one per "
                             f"{'joint' if name == 'torque' else 'input'} (at t = {t:.6g} s)")
    if not np.isfinite(a).all():
        raise SimulationError(f"the `{name}` callback returned a non-finite value "
                              f"{a.tolist()}", t)
    if np.abs(a).max(initial=0.0) > MAX_MAGNITUDE:
        raise SimulationError(f"the `{name}` callback returned {a.tolist()}, beyond "
                              f"{MAX_MAGNITUDE:g} in magnitude (its products in the "
                              "energy sums would overflow)", t)
    return a


def call_vector_series(fn, n, ts):
    """``fn(t)`` at every time of ``ts`` as rows (len(ts), n) of floats: the values
    :func:`call_vector` gives one by one for a callback of time alone, in one pass
    without its per-call checks; None when any call raises or any value is not a
    finite real of the expected shape (the caller then calls :func:`call_vector` one
    by one, which reports the fault with its name and time)."""
    try:
        raw = np.asarray([fn(t) for t in np.asarray(ts, dtype=float).tolist()])
    except Exception:  # noqa: BLE001 - reported by call_vector on the slow path
        return None
    if raw.dtype.kind not in "iuf":
        return None
    m = len(ts)
    raw = raw.astype(float)
    if raw.shape == (m,) and n == 1:
        raw = raw.reshape(m, 1)
    if raw.shape != (m, n) or not np.isfinite(raw).all() \
            or np.abs(raw).max(initial=0.0) > MAX_MAGNITUDE:
        return None
    return raw


def takes_state(name, fn, n_state):
    """Whether ``fn`` is to be called with the state, ``fn(t, *state)`` (``n_state``
    arguments after t), rather than ``fn(t)``.

    Declared functions of time (an attribute ``time_only`` that is True) are called with
    t; otherwise the signature decides: a callable that accepts t and the state is given
    the state (also when it accepts t alone, e.g. ``f(t, *args)``), one that accepts t
    alone is called with t. A callable that accepts neither is a ParameterError naming
    ``name``. Callables without a signature (some builtins) are called with t alone.
    """
    if getattr(fn, "time_only", False) is True:
        return False
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    def binds(*args):
        try:
            sig.bind(*args)
        except TypeError:
            return False
        return True
    if binds(0.0, *([None] * n_state)):
        return True
    if binds(0.0):
        return False
    raise ParameterError(name, fn, f"must accept (t) or (t, {', '.join(['state'] * n_state)})"
                         if n_state != 2 else "must accept (t) or (t, q, qd)")


def is_sampled(fn):
    """Whether ``fn`` is a sampled input: an attribute ``period`` that is a positive
    number (s)."""
    period = getattr(fn, "period", None)
    return isinstance(period, (int, float)) and not isinstance(period, bool) and period > 0


def sample_index(t, period, offset=0.0):
    """The index k of the latest instant k period + offset at or before t (k >= 0, or
    -1 before the first); ties within 1e-9 of a period count as reached, so that an
    instant computed as a sum of steps is not missed by round-off."""
    return math.floor((t - offset) / period + 1e-9)


class held:
    """A sampled input ``fn`` (period, delay, a call fn(t, *state)) as a plain callable
    of (t, *state) for an engine that evaluates its inputs at any time.

    ``fn`` is called once per sample instant t_k = k period, with the state of the first
    evaluation at or after t_k (the state at t_k where the engine lands on the sample
    instants, a step later at most otherwise), and its value is returned from
    t_k + delay until the next value takes over (zero-order hold); before the first
    value ``initial`` (zeros of the first value's shape by default). Evaluations at
    earlier times (a rejected step, or the engine recording its inputs at the output
    times after the run) return the value held then, without calling ``fn`` again: a
    sample once taken stays, and the whole history is kept for that.
    """

    time_only = False

    def __init__(self, fn, initial=None):
        self.fn = fn
        self.period = float(fn.period)
        self.delay = float(getattr(fn, "delay", 0.0) or 0.0)
        self.initial = initial
        self._k = -1
        self._on, self._values = [], []      # t_k + delay and the value, in order

    def __call__(self, t, *state):
        k = sample_index(t, self.period)
        while self._k < k:
            self._k += 1
            tk = self._k * self.period
            value = np.asarray(self.fn(max(tk, t) if self._k == k else tk, *state), dtype=float)
            self._on.append(tk + self.delay)
            self._values.append(value)
        n = bisect.bisect_right(self._on, t + 1e-9 * self.period) - 1
        if n >= 0:
            return self._values[n]
        if self.initial is not None:
            return np.asarray(self.initial, dtype=float)
        return np.zeros_like(self._values[0]) if self._values else 0.0


__all__ = ["MAX_MAGNITUDE", "call_vector", "call_vector_series", "held", "is_sampled",
           "read_only", "sample_index", "takes_state"]
