"""Validation helpers for parameters: each error names the parameter and the value."""

import math

import numpy as np

from .errors import ParameterError


def real(name, value):
    """Return ``value`` as a finite float, or raise naming ``name``: a bool or a text
    ("1.04") is not taken for a number (no implicit typing)."""
    if isinstance(value, (bool, np.bool_)):
        raise ParameterError(name, value, "must be a real number, not a boolean")
    if isinstance(value, (str, bytes)):
        raise ParameterError(name, value, "must be a real number, not text")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ParameterError(name, value, "must be a real number") from None
    if not math.isfinite(x):
        raise ParameterError(name, value, "must be finite")
    return x


def positive(name, value):
    x = real(name, value)
    if x <= 0.0:
        raise ParameterError(name, value, "must be > 0")
    return x


def non_negative(name, value):
    x = real(name, value)
    if x < 0.0:
        raise ParameterError(name, value, "must be >= 0")
    return x


def positive_int(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ParameterError(name, value, "must be an integer")
    if value < 1:
        raise ParameterError(name, value, "must be >= 1")
    return int(value)


def boolean(name, value):
    """Return ``value`` as a bool if it is one (Python or numpy bool), else raise naming
    ``name``: a string such as "no" or a number is not taken for a truth value."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ParameterError(name, value, "must be True or False")


def numeric(name, value):
    """Refuse ``value`` (a number or an array-like of them) when it holds text or
    booleans, naming ``name``: ``np.asarray("0", float)`` and ``float(True)`` would
    take them for numbers."""
    if isinstance(value, (str, bytes)):
        raise ParameterError(name, value, "must be real numbers, not text")
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):         # ragged: the float conversion names it
        return
    if raw.dtype.kind in "USa":
        raise ParameterError(name, value, "must be real numbers, not text")
    if raw.dtype.kind == "b":
        raise ParameterError(name, value, "must be real numbers, not booleans")
    if raw.dtype.kind == "O" and any(isinstance(v, (str, bytes, bool, np.bool_))
                                     for v in raw.ravel().tolist()):
        raise ParameterError(name, value, "must be real numbers, not text or booleans")


def vector(name, value, size=None, finite=True):
    """Return ``value`` as a 1-D float array (optionally of length ``size``); text and
    booleans are refused (:func:`numeric`)."""
    numeric(name, value)
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(name, value, "must be an array of real numbers") from None
    if a.ndim == 0:
        a = a.reshape(1)
    if a.ndim != 1:
        raise ParameterError(name, value, f"must be 1-dimensional (shape {a.shape})")
    if size is not None and a.shape[0] != size:
        raise ParameterError(name, value, f"must have length {size} (has {a.shape[0]})")
    if finite and not np.all(np.isfinite(a)):
        raise ParameterError(name, value, "must contain only finite numbers")
    return a


def choice(name, value, options):
    if value not in options:
        raise ParameterError(name, value, f"must be one of {sorted(options)}")
    return value


#: Smallest relative tolerance scipy's solvers honour (they raise smaller ones to it).
MIN_RTOL = 100 * np.finfo(float).eps

#: Above this many output samples a run is refused before it starts (memory).
MAX_OUTPUTS = 10_000_000


def solver_settings(method, rtol, atol, max_step, max_nfev, n, methods):
    """Refuse integrator settings a solver would reject with its own error, clamp or
    misread, naming the argument: ``method`` not in ``methods``; ``rtol`` below
    :data:`MIN_RTOL`; ``atol`` negative or not one value per state (``n``);
    ``max_step`` <= 0; ``max_nfev`` not a whole number >= 1 (or None)."""
    choice("method", method, methods)
    if isinstance(rtol, bool) or not isinstance(rtol, (int, float, np.number)) \
            or not np.isfinite(rtol) or rtol < MIN_RTOL:
        raise ParameterError("rtol", rtol, f"must be a number >= {MIN_RTOL:.3g} (100 machine "
                             "epsilons; below it the solvers cannot honour it)")
    try:
        a = np.array(np.nan) if isinstance(atol, bool) else np.asarray(atol, dtype=float)
    except (TypeError, ValueError):
        a = np.array(np.nan)
    if a.ndim > 1 or (a.ndim == 1 and a.size != n) or not np.all(np.isfinite(a)) \
            or np.any(a < 0):
        raise ParameterError("atol", atol, f"must be >= 0: one number or one per state ({n})")
    if isinstance(max_step, bool) or not isinstance(max_step, (int, float, np.number)) \
            or not max_step > 0:
        raise ParameterError("max_step", max_step, "must be > 0 (math.inf for no bound)")
    if max_nfev is not None and (isinstance(max_nfev, bool)
                                 or not isinstance(max_nfev, (int, np.integer))
                                 or max_nfev < 1):
        raise ParameterError("max_nfev", max_nfev, "must be a whole number >= 1 (or None)")


def output_times(t0, t_end, dt_out):
    """Output times t0, t0 + dt_out, ... and t_end itself (appended when dt_out does not
    divide the interval), as an array; more than :data:`MAX_OUTPUTS` is refused."""
    span = t_end - t0
    n_out = int(math.floor(span / dt_out + 1e-9)) + 1
    if n_out > MAX_OUTPUTS:
        raise ParameterError("dt_out", dt_out, f"gives {n_out} output samples over "
                             f"{span:g} s; at most {MAX_OUTPUTS} are kept")
    t = t0 + dt_out * np.arange(n_out)
    if t[-1] < t_end - 1e-12 * max(1.0, abs(t_end)):
        t = np.append(t, t_end)
    return t


def n_samples(value, name="n_samples"):
    """Centreline points per link: a whole number >= 2 (both ends)."""
    n = positive_int(name, value)
    if n < 2:
        raise ParameterError(name, value, "must be >= 2 (the root and the tip)")
    return n
