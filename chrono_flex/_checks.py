"""Validation helpers for parameters: each error names the parameter and the value."""

import math

import numpy as np

from .errors import ParameterError


def real(name, value):
    """Return ``value`` as a finite float, or raise naming ``name``."""
    if isinstance(value, bool):
        raise ParameterError(name, value, "must be a real number")
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


def vector(name, value, size=None, finite=True):
    """Return ``value`` as a 1-D float array (optionally of length ``size``)."""
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
