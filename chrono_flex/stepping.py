"""The engine contract: one stepping loop, with its guards and bookkeeping, for every engine.

Every engine (the reference engine's integrators, the Chrono custom element, Chrono's
beams) runs through :func:`run`. An engine supplies a :class:`Stepper`; the loop

1. records the state at t0 (:meth:`Stepper.record`) and calls ``on_output(t0)``;
2. asks the stepper to advance towards the next output time (fixed-step engines land
   on it exactly, adaptive ones may step past it and interpolate);
3. after every step applies the guards: a non-finite state, and a tip deflection above
   ``max_deflection_ratio`` of its link length (the small-deformation model of the
   floating frame is no longer valid), each a :class:`~chrono_flex.errors.SimulationError`
   with the time (refined by :meth:`Stepper.crossing` where the stepper can);
4. accumulates the input work and the dissipated energy by the trapezoidal rule from
   :meth:`Stepper.powers` (engines that integrate them as states return None);
5. records every output time that the step passed, calls ``on_output`` there, and
   reports progress.

Interrupts and budgets: an engine whose steps run in compiled code returns to Python
after a bounded amount of work (about 0.1 s) and calls :func:`checkpoint` there, which
raises KeyboardInterrupt after a Ctrl-C and the budget error once ``max_wall_time`` is
spent (:mod:`chrono_flex._interrupts`), so that both act within about a second at any step size. During a run the
Ctrl-C handler records the interrupt as well as raising it, and does not raise while
compiled code runs (:func:`~chrono_flex._interrupts.compiled_call`: an exception raised in a compiled function's
call machinery is not safe); an interrupt that was caught on the way (a Python
finaliser ignores exceptions) is raised at the next checkpoint or at the end of the
run, so a run that was interrupted never returns a result. A run stopped by its
wall-time budget raises :class:`~chrono_flex.errors.BudgetExceeded` carrying what it
computed: ``exc.recording`` here, ``exc.partial`` (a Result marked
``info["partial"] = True``) from the engines.

:func:`run` returns a :class:`Recording`: the output times and, for each field the
stepper recorded, the stacked samples. Building the :class:`~chrono_flex.result.Result`
from it is the engine's last act (:func:`chrono_flex.planar.post.arm_result` for engines
whose state is the arm's generalized coordinates).
"""

from contextlib import contextmanager
import math
import sys
import time

import numpy as np

from ._checks import output_times
from ._interrupts import checkpoint, compiled_call, watching
from .errors import BudgetExceeded, ParameterError, SimulationError

#: Relative slack when comparing times: output times are reached when within it.
TIME_SLACK = 1e-12


#: Progress reports when nobody asked for or against them (see :func:`quiet`).
_REPORT_BY_DEFAULT = [True]


@contextmanager
def quiet(silent=True):
    """Within the block, :class:`Progress` reports that were not asked for explicitly
    (``enabled=None``) stay silent: the command line's ``--quiet``."""
    before = _REPORT_BY_DEFAULT[0]
    _REPORT_BY_DEFAULT[0] = not silent
    try:
        yield
    finally:
        _REPORT_BY_DEFAULT[0] = before


def progress_wanted(enabled=None):
    """``enabled`` as a bool: None means "unless inside :func:`quiet`"."""
    return _REPORT_BY_DEFAULT[0] if enabled is None else bool(enabled)


def format_duration(seconds):
    """A wall-clock duration for people: "8 s", "2 min 05 s", "1 h 04 min"."""
    s = int(round(max(seconds, 0.0)))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


#: Compilation of numba kernels seen in this process (see :func:`watch_compilation`):
#: nesting depth, seconds spent, start of the current one, notice given.
_COMPILING = {"depth": 0, "seconds": 0.0, "start": 0.0, "announced": False,
              "watching": False}

#: What a run says when the compiled kernels are built (once per installation).
COMPILE_NOTICE = ("compiling the numba kernels (once after installing or changing "
                  "chrono_flex; a minute or two, then cached on disk); the time left "
                  "leaves it out")


def compile_seconds():
    """Wall time (s) this process spent compiling numba kernels, the one under way
    included; 0 without numba."""
    c = _COMPILING
    return c["seconds"] + (time.perf_counter() - c["start"] if c["depth"] else 0.0)


def watch_compilation(stream=None):
    """Where numba is loaded, listen (once per process) to its compilations, the ones
    its disk cache could not spare: the first one writes :data:`COMPILE_NOTICE` to
    ``stream`` (stderr) unless progress reports are off (:func:`quiet`), and their wall
    time is counted (:func:`compile_seconds`) so that :class:`Progress` leaves it out
    of the time left."""
    _COMPILING["stream"] = stream
    if _COMPILING["watching"] or "numba" not in sys.modules:
        return
    from numba.core import event

    class _Compilation(event.Listener):
        def on_start(self, ev):
            c = _COMPILING
            if c["depth"] == 0:
                c["start"] = time.perf_counter()
                if not c["announced"] and progress_wanted():
                    c["announced"] = True
                    out = c.get("stream") or sys.stderr
                    out.write(COMPILE_NOTICE + "\n")
                    out.flush()
            c["depth"] += 1

        def on_end(self, ev):
            c = _COMPILING
            c["depth"] -= 1
            if c["depth"] == 0:
                c["seconds"] += time.perf_counter() - c["start"]

    event.register("numba:compile", _Compilation())
    _COMPILING["watching"] = True


def _is_terminal(stream):
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):      # no isatty, or a closed stream
        return False


class Progress:
    """Reports how far a run has come and the wall time it still needs (stderr).

    On a terminal, one line rewritten in place at most every ``every`` s (default
    0.5 s); elsewhere (a log file, a pipe, CI) a plain line every ``every`` s (default
    5 s), so that a long run shows in the log while it goes on. Nothing is written for
    a run shorter than ``every``. The estimate of the time left assumes the rest of the
    run goes at the average pace so far: remaining = elapsed (t_end - t) / (t - t0),
    with the wall time spent compiling numba kernels left out of ``elapsed``
    (:func:`watch_compilation`: a one-off cost, not the pace of the run).

    Args:
        t_end: the simulated end time, s; t0: the start time, s. (With another ``unit``,
            the amount of work: frames, cases, ...)
        label: the engine's name, written before the figures.
        enabled: True, False, or None for "unless inside :func:`quiet`".
        every: seconds of wall time between reports.
        stream: where to write (default: ``sys.stderr`` at construction).
        clock: wall clock in seconds (``time.perf_counter``; tests pass a fake).
        unit: "s" (simulated time: "t = 2.5 / 10 s") or the name of what is counted
            ("frames": "12 / 100 frames").
    """

    def __init__(self, t_end, label="", enabled=None, every=None, stream=None,
                 clock=time.perf_counter, t0=0.0, unit="s"):
        self.enabled = progress_wanted(enabled)
        self.stream = sys.stderr if stream is None else stream
        self.terminal = _is_terminal(self.stream)
        self.every = every if every is not None else (0.5 if self.terminal else 5.0)
        self.t0, self.t_end, self.label, self.unit = t0, t_end, label, unit
        self._clock = clock
        self._start = self._last = clock()
        self._shown = False
        self._width = 0
        if self.enabled:
            watch_compilation(self.stream)
        self._compiled0 = compile_seconds()

    def line(self, t, now):
        """The report at simulated time ``t`` and wall time ``now``."""
        elapsed = now - self._start
        working = max(elapsed - (compile_seconds() - self._compiled0), 0.0)
        span = self.t_end - self.t0
        done = min(max((t - self.t0) / span, 0.0), 1.0) if span > 0 else 1.0
        amount = (f"t = {t:.4g} / {self.t_end:.4g} s" if self.unit == "s"
                  else f"{t:g} / {self.t_end:g} {self.unit}")
        text = (f"{self.label + ': ' if self.label else ''}{amount} "
                f"({100 * done:.0f} %), {format_duration(elapsed)} elapsed")
        if 0.0 < done < 1.0:
            text += f", about {format_duration(working * (1.0 - done) / done)} left"
        return text

    def __call__(self, t):
        if not self.enabled:
            return
        now = self._clock()
        if now - self._last < self.every:
            return
        self._last = now
        text = self.line(t, now)
        if self.terminal:
            self.stream.write("\r  " + text.ljust(self._width))
            self._width = max(self._width, len(text))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self._shown = True

    def close(self):
        """End the report: clear the terminal line, or write how long the run took."""
        if not (self.enabled and self._shown):
            return
        if self.terminal:
            self.stream.write("\r" + " " * (self._width + 2) + "\r")
        else:
            took = format_duration(self._clock() - self._start)
            self.stream.write(f"{self.label + ': ' if self.label else ''}done in {took}\n")
        self.stream.flush()


def fixed_step_output_times(t_end, dt_out, step):
    """Output times of a fixed-step engine from 0 to ``t_end``: every ``dt_out``
    (default t_end/500, but not below one step), and never closer than one ``step``: an
    explicit ``dt_out`` below ``step`` is refused rather than silently shrinking the
    step (which sets the accuracy) or thinning the output."""
    if dt_out is None:
        dt_out = max(t_end / 500, step)
    elif dt_out < step * (1.0 - 1e-12):
        raise ParameterError("dt_out", dt_out, f"must be at least the step ({step:g} s) on a "
                             "fixed-step engine")
    return output_times(0.0, t_end, dt_out)


def fixed_substep(t, t_target, step):
    """The step size that reaches ``t_target`` from ``t`` in whole steps no longer than
    ``step`` (equal sub-steps): the output times of a fixed-step engine are hit exactly."""
    n = max(1, int(math.ceil((t_target - t) / step - 1e-9)))
    return (t_target - t) / n


class Stepper:
    """What an engine supplies to :func:`run` (override the methods below).

    Attributes:
        t: the current time, s.
        label: the engine's name, for progress and messages.
    """

    label = "engine"
    t = 0.0

    def advance(self, t_target):
        """Take one step towards ``t_target`` (fixed-step engines: never past it) and
        return the new time. Raise SimulationError (with the time) when the step fails."""
        raise NotImplementedError

    def advance_outputs(self, t_targets):
        """Optionally, advance through several of the next output times ``t_targets`` at
        once (an engine that runs its steps in compiled code). Returns None when it
        does not (the loop then calls :meth:`advance`), else (a list of (t, deflection
        ratio, record), one per output time reached, in order; None or the
        SimulationError that stopped the engine after them): the loop applies its
        guards to each output as after :meth:`advance` and keeps its record, then raises
        the error."""
        return None

    def deflection_ratio(self):
        """Largest |tip deflection| / link length at the current time; NaN or inf when
        the state is not finite (the loop then stops with a divergence error)."""
        raise NotImplementedError

    def powers(self):
        """(input power, dissipated power), W, at the current time, for the loop's
        trapezoidal work sums; None when the engine integrates the work itself. Only
        for fixed-step engines: the sums are sampled at the step that lands on an
        output time."""
        return None

    def record(self, t):
        """A dict of the fields to keep at output time ``t`` (between the previous step's
        time and the current one; equal to the current one for fixed-step engines)."""
        raise NotImplementedError

    def crossing(self, t_prev, t, level):
        """Time in (t_prev, t] at which :meth:`deflection_ratio` reached ``level``; by
        default the step's end (engines with dense output refine it)."""
        return t

    def system(self):
        """What ``on_output(system, t)`` receives (a Chrono system; None by default)."""
        return None


class Recording:
    """The samples of a run: ``t`` (nt,) and ``fields[name]`` stacked over time; with
    ``work_in`` and ``work_diss`` when the loop summed them."""

    def __init__(self, t, fields):
        self.t = t
        self.fields = fields

    def __getitem__(self, name):
        return self.fields[name]


def run(stepper, t_out, *, max_deflection_ratio=0.5, on_output=None, progress=None,
        max_wall_time=None):
    """Advance ``stepper`` through the output times ``t_out``; returns a :class:`Recording`.

    Args:
        stepper: a :class:`Stepper` at time ``t_out[0]``.
        t_out: increasing output times (:func:`output_times`).
        max_deflection_ratio: the tip-deflection guard (fraction of each link's length).
        on_output: callable(system, t) at every output time, after the sample.
        progress: a :class:`Progress` (closed when the loop ends), or None.
        max_wall_time: a budget of wall-clock seconds for the whole loop, or None; when
            spent the run stops with a SimulationError saying so.
    """
    if on_output is not None and not callable(on_output):
        raise ParameterError("on_output", on_output, "must be callable(system, t)")
    if max_wall_time is not None and (isinstance(max_wall_time, bool)
                                      or not isinstance(max_wall_time, (int, float, np.number))
                                      or not max_wall_time > 0):
        raise ParameterError("max_wall_time", max_wall_time, "must be > 0 seconds (or None)")
    with watching(max_wall_time, progress):
        return _run(stepper, t_out, max_deflection_ratio, on_output, progress)


def _run(stepper, t_out, max_deflection_ratio, on_output, progress):
    """:func:`run` within its watch (deadline, interrupts)."""
    samples = {}
    powers = stepper.powers()
    w_in = w_diss = 0.0

    def keep(t):
        keep_record(stepper.record(t), t)

    def keep_record(rec, t):
        if powers is not None:
            rec = dict(rec, work_in=w_in, work_diss=w_diss)
        for name, value in rec.items():
            samples.setdefault(name, []).append(value)
        if on_output is not None:
            on_output(stepper.system(), t)

    n = len(t_out)
    k = 0

    def guard(t_prev, t, ratio=None):
        ratio = stepper.deflection_ratio() if ratio is None else ratio
        if not math.isfinite(ratio):
            raise SimulationError("the state is not finite (diverged); try a smaller "
                                  "step or tolerance", t)
        if ratio > max_deflection_ratio:
            t_hit = t if t_prev is None else stepper.crossing(t_prev, t, max_deflection_ratio)
            raise SimulationError(
                f"a tip deflection exceeded {max_deflection_ratio} of its link length "
                f"(reached {ratio:.3g}): the small-deformation model is no longer valid "
                "(unstable or diverging motion)", t_hit)

    try:
        guard(None, stepper.t)            # the initial state too
        keep(float(t_out[0]))
        while k < n - 1:
            batch = None if powers is not None else stepper.advance_outputs(t_out[k + 1:])
            if batch is not None and (batch[0] or batch[1] is not None):
                reached, error = batch
                for t, ratio, rec in reached:    # each as if reached by advance()
                    guard(None, t, ratio)
                    k += 1
                    keep_record(rec, t)
                if error is not None:
                    raise error
                checkpoint(stepper.t)
                if progress is not None:
                    progress(stepper.t)
                continue
            t_prev = stepper.t
            t = stepper.advance(float(t_out[k + 1]))
            guard(t_prev, t)
            checkpoint(t)
            if powers is not None:
                new = stepper.powers()
                h = t - t_prev
                w_in += 0.5 * h * (powers[0] + new[0])
                w_diss += 0.5 * h * (powers[1] + new[1])
                if not (math.isfinite(w_in) and math.isfinite(w_diss)):
                    raise SimulationError("the input or dissipated power is not finite", t)
                powers = new
            while k < n - 1 and t_out[k + 1] <= t + TIME_SLACK * max(1.0, abs(t)):
                k += 1
                keep(float(t_out[k]))
            if progress is not None:
                progress(t)
    except BudgetExceeded as exc:        # keep what was computed: the outputs, and the
        t = [float(x) for x in t_out[:k + 1]]   # state where the budget ran out
        if stepper.t > t[-1] * (1.0 + TIME_SLACK) + TIME_SLACK:
            last = stepper.record(stepper.t)
            if powers is not None:
                last = dict(last, work_in=w_in, work_diss=w_diss)
            for name, value in last.items():
                samples.setdefault(name, []).append(value)
            t.append(stepper.t)
        exc.recording = Recording(np.array(t), {name: np.array(v[:len(t)])
                                                for name, v in samples.items()})
        raise
    finally:
        if progress is not None:
            progress.close()
    fields = {name: np.array(v) for name, v in samples.items()}
    return Recording(np.asarray(t_out, dtype=float), fields)


def partial_result(exc, build):
    """The Result of the outputs a run reached before its budget stopped it, and of the
    state where it stopped (``exc.recording``, built by ``build(recording)``),
    ``info["partial"]`` True and ``info["stopped"]`` the reason; None without one."""
    rec = exc.recording
    if rec is None or not rec.fields or len(rec.t) == 0:
        return None
    res = build(rec)
    res.info.update(partial=True, stopped=str(exc))
    return res


__all__ = ["Progress", "Recording", "Stepper", "checkpoint", "compiled_call",
           "fixed_step_output_times", "fixed_substep", "partial_result",
           "format_duration", "output_times", "progress_wanted", "quiet", "run"]
