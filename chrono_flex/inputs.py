"""Input profiles: joint torques, drive inputs and prescribed joint motions as functions of
time that also describe themselves as data (for model files).

Each profile is a :class:`Profile`: callable as ``p(t)`` (and as ``p(t, q, qd)``, the
torque signature; the state is not used) and carrying ``p.spec``, the plain-data
description it was built from, which :func:`profile` turns back into the same profile::

    step       amplitude, t_start = 0        0 before t_start, amplitude from it on
    pulse      amplitude, period             A sin(w t)(1 - cos(w t))/2 for 0 <= t < T
    sine       amplitude, frequency (Hz), phase = 0 (rad), offset = 0
    bang-bang  amplitude, period             +A for t < T/2, -A until T, then 0
    table      file, columns = all           linear interpolation in a CSV file
    spin-up    Omega (rad/s), T (s)          a prescribed hub motion (theta, theta_d, theta_dd)

``amplitude`` is one number or one per input (joint or drive). A Python callable named
``"module:function"`` (or ``"file.py:function"``, relative to a model file) is a profile
too; its spec is that string. Importing it runs that module's code, as ``import`` does:
read model files you trust.

Functions of time alone. The built-in profiles are declared so (:func:`is_time_only`);
an imported callable is not (it is given the state and may read it), nor is a plain
callable, whatever its signature; :func:`time_only` declares one. The reference
engine's generalized-alpha may then evaluate a torque ahead of the steps and run many
steps in one compiled call (docs/planar-link.md §4.4); ``step``, ``pulse``, ``sine``
and ``bang-bang`` also carry their formula (``Profile.kernel``) for the compiled loop
to evaluate itself.
"""

import csv
import importlib
import importlib.util
import inspect
import math
import os

import numpy as np

from . import _checks as ck
from .errors import ParameterError


class Profile:
    """A function of time with its description: ``spec`` (a dict, or the
    "module:function" string of an imported callable) and ``base_dir``, where the files
    it names are. It pickles as its description (to run in another process).

    ``time_only``: the built-in profiles are functions of time alone (the state a torque
    is called with is not used): :func:`is_time_only`."""

    time_only = True

    def __init__(self, spec, fn, base_dir=None, kernel=None):
        self.spec = spec
        self.base_dir = base_dir
        self._fn = fn
        #: (code, amplitudes, parameters) of the profiles a compiled loop evaluates
        #: itself (:data:`KERNEL_CODES`, the same formula as ``fn``), or None.
        self.kernel = kernel

    def __call__(self, t, *state):
        return self._fn(t)

    def __reduce__(self):
        return profile, (self.spec, self.base_dir)

    def __repr__(self):
        return f"Profile({self.spec!r})"


def _amplitude(amplitude):
    a = np.atleast_1d(np.asarray(amplitude, dtype=float))
    if a.ndim != 1 or a.size == 0 or not np.all(np.isfinite(a)):
        raise ParameterError("amplitude", amplitude, "must be a finite number or a list of them")
    return a


def _spec(kind, **values):
    """The plain-data spec: numbers as floats, vectors as lists."""
    out = {"profile": kind}
    for k, v in values.items():
        v = np.asarray(v, dtype=float) if not isinstance(v, str) else v
        out[k] = v if isinstance(v, str) else (float(v) if v.ndim == 0 else v.tolist())
    return out


#: Codes of the profiles whose ``kernel`` a compiled loop evaluates
#: (:func:`chrono_flex.planar.chain_ga.profile_values`, the same formulas as here).
KERNEL_CODES = {"pulse": 1, "step": 2, "sine": 3, "bang-bang": 4}


def _kernel(kind, a, *params):
    return KERNEL_CODES[kind], a.copy(), np.array(params, dtype=float)


def step(amplitude, t_start=0.0):
    """0 for t < t_start, ``amplitude`` from t_start on."""
    a = _amplitude(amplitude)
    t_start = ck.real("t_start", t_start)
    return Profile(_spec("step", amplitude=a if a.size > 1 else a[0], t_start=t_start),
                   lambda t: a if t >= t_start else 0.0 * a,
                   kernel=_kernel("step", a, t_start))


def pulse(amplitude, period):
    """One smooth accelerate-brake cycle: A sin(w t) (1 - cos(w t))/2 for 0 <= t < T
    (w = 2 pi/T), else 0.

    It and its first two derivatives vanish at t = 0 and t = T (it grows as t^3 there),
    so the pulse excites the high bending modes far less than a plain sine with kinks.
    """
    a = _amplitude(amplitude)
    period = ck.positive("period", period)
    w = 2 * math.pi / period

    def f(t):
        if not 0.0 <= t < period:
            return 0.0 * a
        return a * (math.sin(w * t) * (1 - math.cos(w * t)) / 2)
    return Profile(_spec("pulse", amplitude=a if a.size > 1 else a[0], period=period), f,
                   kernel=_kernel("pulse", a, period, w))


def sine(amplitude, frequency, phase=0.0, offset=0.0):
    """offset + A sin(2 pi f t + phase); f in Hz, phase in rad."""
    a = _amplitude(amplitude)
    frequency = ck.positive("frequency", frequency)
    phase, offset = ck.real("phase", phase), ck.real("offset", offset)
    w = 2 * math.pi * frequency
    return Profile(_spec("sine", amplitude=a if a.size > 1 else a[0], frequency=frequency,
                         phase=phase, offset=offset),
                   lambda t: offset + a * math.sin(w * t + phase),
                   kernel=_kernel("sine", a, w, phase, offset))


def bang_bang(amplitude, period):
    """+A for 0 <= t < T/2, -A for T/2 <= t < T, then 0 (accelerate, brake, coast)."""
    a = _amplitude(amplitude)
    period = ck.positive("period", period)

    def f(t):
        if t < period / 2:
            return a
        return -a if t < period else 0.0 * a
    return Profile(_spec("bang-bang", amplitude=a if a.size > 1 else a[0], period=period), f,
                   kernel=_kernel("bang-bang", a, period))


def spin_up(Omega, T):
    """Kane-Ryan-Banerjee hub motion (J. Guidance 10(2) 1987, eq. 60):
    theta_d = (Omega/T)(t - (T/2pi) sin(2 pi t/T)) for t < T, Omega after; a prescribed
    joint motion: p(t) -> (theta, theta_d, theta_dd), arrays of one joint."""
    Omega, T = ck.real("Omega", Omega), ck.positive("T", T)

    def f(t):
        if t < T:
            th = Omega / T * (t * t / 2 + (T / (2 * math.pi)) ** 2 * (math.cos(2 * math.pi * t / T) - 1))
            thd = Omega / T * (t - T / (2 * math.pi) * math.sin(2 * math.pi * t / T))
            thdd = Omega / T * (1 - math.cos(2 * math.pi * t / T))
        else:
            th = Omega / T * (T * T / 2) + Omega * (t - T)
            thd, thdd = Omega, 0.0
        return np.array([th]), np.array([thd]), np.array([thdd])
    return Profile(_spec("spin-up", Omega=Omega, T=T), f)


def smooth_step(t, t0, t1):
    """The quintic smooth step from 0 at ``t0`` to 1 at ``t1`` and its first two time
    derivatives (zero at both ends): s = 10 u^3 - 15 u^4 + 6 u^5, u = (t - t0) / (t1 - t0),
    held at 0 before and 1 after. Returns (s, ds/dt, d2s/dt2)."""
    if t <= t0:
        return 0.0, 0.0, 0.0
    if t >= t1:
        return 1.0, 0.0, 0.0
    d = t1 - t0
    u = (t - t0) / d
    return (u ** 3 * (10 - 15 * u + 6 * u * u), 30 * u * u * (1 - u) ** 2 / d,
            60 * u * (1 - u) * (1 - 2 * u) / d ** 2)


def table(file, columns=None, base_dir=None):
    """Linear interpolation in a CSV file: a header row, then rows of numbers; the first
    column is the time (s, increasing), the others the inputs (``columns``: their names,
    default all). Before the first time and after the last the end values hold."""
    if not isinstance(file, str) or not file.strip():
        raise ParameterError("file", file, "must name a CSV file")
    path = file
    if base_dir is not None:            # a model file's table: relative to the file
        if os.path.isabs(file):
            raise ParameterError("file", file, "must be a path relative to the model file "
                                 "(an absolute path is refused)")
        path = os.path.join(base_dir, file)
    try:
        with open(path, newline="") as f:
            rows = [r for r in csv.reader(f) if r and any(c.strip() for c in r)]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else \
            type(exc).__name__
        raise ParameterError("file", file, f"cannot be read as a CSV text file ({why})") \
            from None
    if len(rows) < 3:
        raise ParameterError("file", file, "must hold a header row and at least two rows "
                             "of numbers")
    header = [h.strip() for h in rows[0]]
    data = []
    for i, r in enumerate(rows[1:], 2):     # the message quotes no content of the file
        try:
            data.append([float(c) for c in r])
        except ValueError:
            raise ParameterError("file", file, f"must hold numbers below its header (row "
                                 f"{i} does not)") from None
    data = np.array(data) if len({len(r) for r in data}) == 1 else np.array(None)
    if data.ndim != 2 or data.shape[1] != len(header) or len(header) < 2:
        raise ParameterError("file", file, "must have the same number (>= 2) of columns in "
                             "every row: the time, then the inputs")
    t = data[:, 0]
    if not np.all(np.diff(t) > 0):
        raise ParameterError("file", file, "must have increasing times in its first column")
    names = header[1:] if columns is None else list(columns)
    for name in names:
        if name not in header[1:]:
            raise ParameterError("columns", name, f"is not a column of {file} (it has "
                                 f"{len(header) - 1} after the time)")
    values = data[:, [header.index(n) for n in names]]

    def f(tt):
        return np.array([np.interp(tt, t, v) for v in values.T])
    spec = {"profile": "table", "file": file}
    if columns is not None:
        spec["columns"] = names
    return Profile(spec, f, base_dir)


def imported(name, base_dir=None, deferred=False):
    """The callable called ``"module:function"`` (an importable module) or
    ``"file.py:function"`` (a file, relative to ``base_dir``) as a Profile.
    ``deferred``: nothing is imported now (reading a model file runs no code); the
    profile imports its code when :meth:`_Imported.load` is called, and refuses to be
    called before."""
    module_name, sep, attr = str(name).rpartition(":")
    if not sep or not module_name or not attr:
        raise ParameterError("profile", name, 'must be "module:function" or "file.py:function"')
    if deferred:
        return _Imported(name, None, base_dir)
    return _Imported(name, _import(name, base_dir), base_dir)


def _import(name, base_dir):
    """The callable ``name`` ("module:function" or "file.py:function"), imported."""
    module_name, _, attr = str(name).rpartition(":")
    try:
        if module_name.endswith(".py"):
            path = module_name if base_dir is None else os.path.join(base_dir, module_name)
            spec = importlib.util.spec_from_file_location(
                os.path.splitext(os.path.basename(path))[0], path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - the user's module: any fault, named
        raise ParameterError("profile", name, f"cannot be imported ({type(exc).__name__}: "
                                              f"{exc})") from None
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise ParameterError("profile", name, f"names no callable `{attr}` in {module_name}")
    return fn


class _Imported(Profile):
    """A user's callable: called with every argument it is given (t, or t, q, qd); it
    may read the state, so it is not :func:`is_time_only` (wrap it in
    :func:`time_only` to declare that it does not). Read from a model file, its code is
    imported only by :meth:`load` (after the model's trust check)."""

    time_only = False

    def __call__(self, t, *state):
        if self._fn is None:
            raise ParameterError("profile", self.spec, "names code that was not loaded: "
                                 "run the model through ModelFile.simulate_kwargs (which "
                                 "asks for allow_code=True where needed)")
        return self._fn(t, *state)

    def load(self):
        """Import the code (once); return self."""
        if self._fn is None:
            self._fn = _import(self.spec, self.base_dir)
        return self

    def code(self):
        """What calling it runs: the module or the file (absolute path) and the function."""
        module_name, _, attr = str(self.spec).rpartition(":")
        if module_name.endswith(".py"):
            path = module_name if self.base_dir is None else os.path.join(self.base_dir,
                                                                        module_name)
            return f"function `{attr}` of the file {os.path.abspath(path)}"
        return f"function `{attr}` of the Python module {module_name!r}"

    def trusted(self, directory):
        """Whether the code may run without an explicit opt-in: a file directly in
        ``directory`` (beside a model file), or a module of this package itself
        (``chrono_flex.``..., already imported code: the shipped cases' inputs)."""
        module_name = str(self.spec).rpartition(":")[0]
        return module_name.startswith("chrono_flex.") or self.beside(directory)

    def beside(self, directory):
        """Whether the code is a file directly in ``directory`` (beside a model file)."""
        module_name = str(self.spec).rpartition(":")[0]
        if not module_name.endswith(".py") or self.base_dir is None:
            return False
        path = os.path.realpath(os.path.join(self.base_dir, module_name))
        return os.path.dirname(path) == os.path.realpath(directory)


class TimeOnly:
    """A callable of time alone, declared so (:func:`time_only`): called as ``f(t)``
    whatever state it is given."""

    time_only = True

    def __init__(self, fn):
        if not callable(fn):
            raise ParameterError("fn", fn, "must be callable(t)")
        self._fn = fn

    def __call__(self, t, *state):
        return self._fn(t)

    def __repr__(self):
        return f"time_only({self._fn!r})"


def time_only(fn):
    """``fn``, a callable of time alone f(t), declared to be one: as a joint torque it is
    called with t only (never with the state), and the reference engine's generalized-
    alpha may then evaluate it ahead at the times of its fixed steps and run many steps
    in one compiled call (docs/planar-link.md §4.4). The result is the same as calling
    it step by step; only declare what is true: a torque that reads the state must stay
    a plain callable f(t, q, qd). Input profiles (:func:`pulse`, :func:`step`, ...) are
    time-only already; ``fn`` itself is returned for them."""
    return fn if is_time_only(fn) else TimeOnly(fn)


def is_time_only(fn):
    """Whether ``fn`` is declared a function of time alone: a built-in input profile, or
    a callable wrapped by :func:`time_only` (an attribute ``time_only`` that is True).
    A plain callable is not, whatever its signature: it may read the state."""
    return getattr(fn, "time_only", False) is True


class SampledInput:
    """A law sampled at a period with zero-order hold (a digital controller's output):
    ``f(t, q, qd)`` is called only at the sample instants t_k = k ``period`` (the
    multiples of the period from the run's start on), with the state there; its value
    acts from t_k + ``delay`` until the next value acts, t_{k+1} + ``delay``. Before
    the first value acts the input is zero.

    The planar reference engine takes its steps to land on the sample and hold
    instants and runs the compiled generalized-alpha loop between them, the input
    constant there (docs/planar-link.md §4.4). Any object with these attributes
    (``period``, ``delay`` and the call) is taken as one (:func:`is_sampled`).

    Attributes:
        period: the sample period, s (> 0).
        delay: from a sample to the instant its value acts, s (>= 0; default 0).
    """

    time_only = False

    def __init__(self, fn, period, delay=0.0):
        if not callable(fn):
            raise ParameterError("fn", fn, "must be callable(t, q, qd)")
        self._fn = fn
        self.period = ck.positive("period", period)
        self.delay = ck.real("delay", delay)
        if self.delay < 0.0:
            raise ParameterError("delay", delay, "must be >= 0 s")

    def __call__(self, t, q, qd):
        return self._fn(t, q, qd)

    def __repr__(self):
        return f"sampled({self._fn!r}, period={self.period!r}, delay={self.delay!r})"


def sampled(fn, period, delay=0.0):
    """``fn`` (callable f(t, q, qd) -> one value per joint) as a :class:`SampledInput`:
    called once per ``period`` (s), its value held (zero-order hold) from ``delay`` (s)
    after its sample on."""
    return SampledInput(fn, period, delay)


def is_sampled(fn):
    """Whether ``fn`` is a sampled law (:class:`SampledInput`, or any callable with a
    positive number ``period`` and a ``delay``)."""
    period = getattr(fn, "period", None)
    return (callable(fn) and isinstance(period, (int, float, np.number))
            and not isinstance(period, bool) and hasattr(fn, "delay"))


#: name -> builder(**parameters) of the built-in profiles.
PROFILES = {"step": step, "pulse": pulse, "sine": sine, "bang-bang": bang_bang,
            "spin-up": spin_up, "table": table}


def profile(spec, base_dir=None, deferred=False):
    """The Profile described by ``spec``: a dict with ``profile`` (one of
    :data:`PROFILES`) and its parameters, or a "module:function" string (imported now,
    or with ``deferred`` only by its ``load()``: :func:`imported`). Files (``table``,
    "file.py:function") are found relative to ``base_dir``.
    Errors name the key (``profile``, ``amplitude``, ...)."""
    if isinstance(spec, str):
        return imported(spec, base_dir, deferred)
    if not isinstance(spec, dict) or "profile" not in spec:
        raise ParameterError("profile", spec, "must be a table with `profile` (one of "
                             f"{', '.join(PROFILES)}) or a \"module:function\" string")
    kind = spec["profile"]
    if kind not in PROFILES:
        raise ParameterError("profile", kind, f"must be one of {', '.join(PROFILES)}")
    build = PROFILES[kind]
    params = {k: v for k, v in spec.items() if k != "profile"}
    signature = inspect.signature(build).parameters
    names = [n for n in signature if n != "base_dir"]
    for k in params:
        if k not in names:
            raise ParameterError(k, params[k], f"is not a parameter of the {kind} profile "
                                 f"(parameters: {', '.join(names)})")
    for k in names:
        if signature[k].default is inspect.Parameter.empty and k not in params:
            raise ParameterError(k, None, f"must be given for the {kind} profile")
    if kind == "table":
        params["base_dir"] = base_dir
    return build(**params)


__all__ = ["KERNEL_CODES", "PROFILES", "Profile", "SampledInput", "TimeOnly", "bang_bang",
           "imported", "is_sampled", "is_time_only", "profile", "pulse", "sampled", "sine",
           "spin_up", "step", "table", "time_only"]
