"""Calling the user's callbacks (torques, drive inputs, prescribed motions) so that every
fault names the callback and the time.

A callback that raises stops the run with a :class:`~chrono_flex.errors.SimulationError`
chained to the user's exception (its type and message, the callback's name and the
time), and so does one that returns NaN or inf (numerical trouble at that time); one
that returns something other than the expected number of reals is a
:class:`~chrono_flex.errors.ParameterError` naming the callback, with the value and the
time. Every engine calls its callbacks through :func:`call_vector`.
"""

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


__all__ = ["MAX_MAGNITUDE", "call_vector", "call_vector_series", "read_only"]
