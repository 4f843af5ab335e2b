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


__all__ = ["call_vector"]
