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


def call_vector(name, fn, n, t, *args):
    """``fn(t, *args)`` as a float array of shape (n,), checked.

    A scalar is accepted when n == 1. Raises SimulationError (the callback raised, or
    returned a non-finite value) or ParameterError (wrong type or shape), both naming
    ``name`` and t.
    """
    try:
        out = fn(t, *args)
    except (ParameterError, SimulationError):
        raise
    except Exception as exc:  # noqa: BLE001 - re-raised with the callback's name and time
        raise SimulationError(f"the `{name}` callback raised {type(exc).__name__}: {exc}",
                              t) from exc
    try:
        raw = np.asarray(out)
    except (TypeError, ValueError):         # ragged sequences
        raw = np.asarray(None)
    if raw.dtype.kind not in "biuf":        # None, strings, objects: not numbers
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
    if raw.dtype.kind not in "biuf":
        return None
    m = len(ts)
    raw = raw.astype(float)
    if raw.shape == (m,) and n == 1:
        raw = raw.reshape(m, 1)
    if raw.shape != (m, n) or not np.isfinite(raw).all():
        return None
    return raw


__all__ = ["call_vector", "call_vector_series"]
