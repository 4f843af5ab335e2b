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

Continuous controllers with their own states xc (``n_states`` > 0, ``output(t, xc,
*state)``, ``rates(t, xc, *state)``; :func:`has_states`): the reference engines append xc
to their state vector and integrate it with the plant (:class:`ControllerBlock`); an
engine that cannot (Chrono) advances xc from step to step with :class:`stepped`.
:func:`loop_input` picks the wrapper an engine of the second kind needs.
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
    return checked_vector(name, invoke(name, fn, t, *(read_only(a) for a in args)), n, t)


def invoke(name, fn, t, *args):
    """``fn(t, *args)``; an exception it raises (other than this package's errors) as a
    SimulationError naming the callback and the time, the user's exception chained."""
    try:
        return fn(t, *args)
    except (ParameterError, SimulationError):
        raise
    except Exception as exc:  # noqa: BLE001 - re-raised with the callback's name and time
        raise SimulationError(f"the `{name}` callback raised {type(exc).__name__}: {exc}",
                              t) from exc


def checked_vector(name, out, n, t):
    """The value ``out`` a callback returned at time t as a float array of shape (n,),
    with the checks and errors of :func:`call_vector`."""
    if n == 1 and isinstance(out, float) and math.isfinite(out) \
            and abs(out) <= MAX_MAGNITUDE:
        return np.array([float(out)])       # one valid real: the checks below, in brief
    if type(out) is np.ndarray and out.dtype == np.float64 and out.shape == (n,):
        values = out.tolist()               # valid reals: the checks below, in brief
        if all(math.isfinite(v) and abs(v) <= MAX_MAGNITUDE for v in values):
            return np.array(values)
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


class CompiledPort:
    """A callback f(t, q, qd) -> n values made callable from compiled step loops, through
    a C function pointer (ctypes) that the loop calls with t alone.

    The loop writes q and q_d into ``buffer[:2 nq]``, calls the function at
    :attr:`address` with t, and on the return value 0 reads the callback's value from
    ``buffer[2 nq:]``. The callback gets read-only copies of q and q_d, and its value the
    checks and errors of :func:`call_vector`; anything it raises
    (the errors of :func:`call_vector`, a KeyboardInterrupt) is kept in :attr:`error` and
    the function returns 1, for the loop to stop and the caller to raise it once back in
    Python (an exception cannot pass through the C frames)."""

    def __init__(self, name, fn, n, nq):
        import ctypes
        self.name, self.fn, self.n, self.nq = name, fn, int(n), int(nq)
        self.buffer = np.zeros(2 * self.nq + self.n)
        self.error = None
        buf, nq_ = self.buffer, self.nq
        x_in = buf[:2 * nq_]
        out_at = 2 * nq_ if n == 1 else None
        isfinite = math.isfinite

        def call(t):
            try:
                x = x_in.copy()                         # one copy; its views read-only
                x.setflags(write=False)
                q, qd = x[:nq_], x[nq_:]
                out = invoke(name, fn, t, q, qd)
                v = float(out[0]) if out_at is not None and type(out) is np.ndarray \
                    and out.shape == (1,) and out.dtype == np.float64 else out
                if out_at is not None and isinstance(v, float) and isfinite(v) \
                        and abs(v) <= MAX_MAGNITUDE:
                    buf[out_at] = v                 # one valid real: checked_vector's path
                else:
                    buf[2 * nq_:] = checked_vector(name, out, n, t)
                return 0
            except BaseException as exc:  # noqa: BLE001 - raised by the caller
                self.error = exc
                return 1

        self._c_function = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_double)(call)
        #: the C function's address, for the compiled loop
        self.address = ctypes.cast(self._c_function, ctypes.c_void_p).value

    def raise_error(self):
        """Raise the exception a call kept (once)."""
        exc, self.error = self.error, None
        if exc is None:
            raise RuntimeError(f"the `{self.name}` callback failed without an exception")
        raise exc


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


def check_period(name, fn, step):
    """A sampled ``fn`` (:func:`is_sampled`) whose period is below an engine's fixed
    ``step`` is a ParameterError naming ``period``: it would be sampled less often than
    it asks. ``name``: the input it gives ("torque", "drive_input")."""
    if is_sampled(fn) and fn.period < step * (1 - 1e-9):
        raise ParameterError("period", fn.period, f"of the `{name}` controller is below "
                             f"the step {step:g} s (it would be sampled less often than "
                             "it asks)")


def reads_drive_states(fn):
    """Whether ``fn`` (a controller) reads the motor side of an arm's drives: an
    attribute ``reads_drive_states`` that is True. An arm engine then calls it with the
    drives' states z after q and qd, ``fn(t, q, qd, z)``."""
    return getattr(fn, "reads_drive_states", False) is True


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
        self.reads_drive_states = reads_drive_states(fn)
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


def has_states(fn):
    """Whether ``fn`` is a continuous controller with states: not sampled, and an
    ``n_states`` > 0 (its ``output`` and ``rates`` then give u and dxc/dt)."""
    return (fn is not None and not is_sampled(fn)
            and int(getattr(fn, "n_states", 0) or 0) > 0)


def _initial(name, ctrl):
    n = int(ctrl.n_states)
    try:
        x0 = np.asarray(ctrl.initial_state(), dtype=float)
    except (TypeError, ValueError):
        x0 = None
    if x0 is None or x0.shape != (n,) or not np.isfinite(x0).all():
        raise ParameterError(f"{name}.initial_state", x0, f"must return {n} finite value(s) "
                             "(the controller's n_states)")
    return x0


class ControllerBlock:
    """A continuous controller with states (:func:`has_states`) as a block of a reference
    engine's state vector: x[start:stop] = xc, integrated with the plant by the engine's
    integrator (dxc/dt = ``ctrl.rates``), the input u = ``ctrl.output``.

    Args:
        name: the input it gives ("torque", "drive_input"), for the errors.
        ctrl: the controller.
        n: number of values of u (one per joint or per drive).
        start: index of xc's first entry in the engine's state vector.
    """

    def __init__(self, name, ctrl, n, start):
        self.name, self.ctrl, self.n = name, ctrl, int(n)
        self.x0 = _initial(name, ctrl)
        self.slice = slice(start, start + self.x0.size)
        self.stop = self.slice.stop

    def evaluate(self, t, x, *state):
        """(u (n,), dxc/dt) at time t, the engine's state vector x and the controller's
        state arguments (q, qd), each checked under ``name.output`` / ``name.rates``."""
        xc = read_only(x[self.slice])
        u = call_vector(f"{self.name}.output", lambda tt, *s: self.ctrl.output(tt, xc, *s),
                        self.n, t, *state)
        dxc = call_vector(f"{self.name}.rates", lambda tt, *s: self.ctrl.rates(tt, xc, *s),
                          self.x0.size, t, *state)
        return u, dxc


class stepped:
    """A continuous controller with states (:func:`has_states`) as a plain callable of
    (t, *state) for an engine that steps forward in time, evaluates its inputs at each
    step's end time (every Newton iterate, Jacobian perturbation and the final update of
    a step carry that time, as Chrono's do) and cannot integrate extra states.

    The controller state advances by the trapezoidal rule, linearly implicit in xc:

        xc_{n+1} = xc_n + (I - h/2 J)^-1 h/2 [r(t_n, xc_n, x_n) + r(t_{n+1}, xc_n, x_{n+1})]

    r = ``ctrl.rates``, J = dr/dxc at (t_{n+1}, xc_n, x_{n+1}) by forward differences,
    h = t_{n+1} - t_n: exactly the trapezoidal rule where r is linear in xc (a PID), second
    order and A-stable (Hairer & Wanner, *Solving ODEs II*, 1996, sec. IV.7: linearly
    implicit methods). At a call at a new time t_{n+1} the plant state x_{n+1} is the
    one given, so xc_{n+1} is a smooth function of it, seen by the engine's Newton
    iteration and its Jacobian; the step is taken as accepted when a later time is
    called, with the state of the last call at t_{n+1} (the converged update). A call at
    an earlier time than the last one (a step retried with a shorter step) starts again
    from the last accepted state; one at or before the accepted time returns the output
    at the accepted state. ``n_accepted`` counts the accepted steps.
    """

    time_only = False
    #: Relative step of the finite differences of r in xc.
    FD_STEP = 1e-7

    def __init__(self, name, ctrl):
        self.name, self.ctrl = name, ctrl
        self.n_states = 0                   # to the engine: a plain callable
        self.reads_drive_states = reads_drive_states(ctrl)
        self.reset()

    def reset(self):
        if callable(getattr(self.ctrl, "reset", None)):
            self.ctrl.reset()
        self.t_c, self.xc, self.r_c = None, _initial(self.name, self.ctrl), None
        self._cand = None                   # (t, xc_new, state copies) of the last call
        self.n_accepted = 0

    def _rates(self, t, xc, state):
        return call_vector(f"{self.name}.rates", lambda tt, *s: self.ctrl.rates(tt, xc, *s),
                           xc.size, t, *state)

    def _advance(self, t, state):
        h = t - self.t_c
        if self.r_c is None:                # the first step: no state seen at t_c
            self.r_c = self._rates(self.t_c, self.xc, state)
        r1 = self._rates(t, self.xc, state)
        n = self.xc.size
        J = np.empty((n, n))
        for j in range(n):
            d = self.FD_STEP * max(1.0, abs(self.xc[j]))
            xp = self.xc.copy()
            xp[j] += d
            J[:, j] = (self._rates(t, xp, state) - r1) / d
        return self.xc + np.linalg.solve(np.eye(n) - 0.5 * h * J, 0.5 * h * (self.r_c + r1))

    def __call__(self, t, *state):
        state = tuple(np.array(s, dtype=float) for s in state)
        if self.t_c is None:
            self.t_c = t
        tol = 1e-12 * max(1.0, abs(t))
        if self._cand is not None and t > self._cand[0] + tol:
            t1, xc1, s1 = self._cand        # the last step is accepted
            self.t_c, self.xc = t1, xc1
            self.r_c = self._rates(t1, xc1, s1)
            self.n_accepted += 1
            self._cand = None
        if t <= self.t_c + tol:
            xc = self.xc
            if self.r_c is None:
                self.r_c = self._rates(self.t_c, xc, state)
        else:
            xc = self._advance(t, state)
            self._cand = (t, xc, state)
        return self.ctrl.output(t, read_only(xc), *state)


def loop_input(name, fn):
    """``fn`` ready for an engine that calls its inputs at any time and cannot integrate
    extra states (Chrono): a sampled controller :class:`held`, one with states
    :class:`stepped`, anything else as it is (None stays None). A controller is reset."""
    if fn is None:
        return None
    if callable(getattr(fn, "reset", None)):
        fn.reset()
    if is_sampled(fn):
        return held(fn)
    if has_states(fn):
        return stepped(name, fn)
    return fn


__all__ = ["MAX_MAGNITUDE", "CompiledPort", "ControllerBlock", "call_vector", "call_vector_series", "check_period",
           "has_states", "held", "is_sampled", "loop_input", "read_only", "reads_drive_states",
           "sample_index",
           "stepped", "takes_state"]
