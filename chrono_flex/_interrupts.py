"""Ctrl-C and wall-time budgets in long runs (the stepping loop's, :mod:`chrono_flex.stepping`).

While a run goes on (:func:`watching`), Ctrl-C is recorded as well as raised, and not
raised while compiled code runs (:func:`compiled_call`): an exception raised inside a
compiled function's call machinery is not safe there. Engines whose work runs compiled
return to Python after a bounded amount of it and call :func:`checkpoint`, which raises
the recorded interrupt, or the budget error once the run's wall time is spent, and
otherwise passes the simulated time to the run's progress report (so that a run whose
outputs are far apart still reports while it works towards the next one).
"""

from contextlib import contextmanager
import functools
import signal
import threading
import time

from .errors import BudgetExceeded


class _Interrupts:
    """The state of the Ctrl-C handler of the runs in progress (:func:`watching`):
    ``armed`` while it is installed, ``pending`` once a Ctrl-C came and was not yet
    raised by :func:`checkpoint`, ``shield`` while compiled code runs; ``deadlines``
    the wall-clock deadlines (perf_counter) and budgets of the runs, innermost last, and
    ``reports`` their progress reports (callable(t) or None), in the same order."""

    armed = False
    pending = False
    shield = False
    deadlines = []
    reports = []


_INT = _Interrupts()


def _on_sigint(signum, frame):
    _INT.pending = True                  # kept until raised by checkpoint or the run's end
    if not _INT.shield:
        raise KeyboardInterrupt


@contextmanager
def watching(max_wall_time, progress=None):
    """Within the block: the wall-time deadline of a run, its progress report
    (callable(t), called by :func:`checkpoint`; it limits its own rate), and (in the main
    thread, when Ctrl-C has Python's default handler) the handler that records
    interrupts."""
    _INT.deadlines.append(None if max_wall_time is None
                          else (time.perf_counter() + max_wall_time, max_wall_time))
    _INT.reports.append(progress)
    install = (not _INT.armed and threading.current_thread() is threading.main_thread()
               and signal.getsignal(signal.SIGINT) is signal.default_int_handler)
    if install:
        signal.signal(signal.SIGINT, _on_sigint)
        _INT.armed, _INT.pending = True, False
    try:
        yield
        if _INT.pending:                 # an interrupt caught on the way: still raised
            _INT.pending = False
            raise KeyboardInterrupt
    except SystemError:                 # raised through compiled code's call machinery
        if _INT.pending:
            raise KeyboardInterrupt from None
        raise
    finally:
        _INT.deadlines.pop()
        _INT.reports.pop()
        if install:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            _INT.armed = _INT.pending = False


def watched(fn):
    """``fn`` within :func:`watching` (no budget): a Ctrl-C during its set-up (the first
    call of a compiled kernel compiles it, and a Python finaliser there ignores the
    interrupt it happens to run into) is still raised, at the run's first checkpoint
    or when ``fn`` returns."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        with watching(None):
            return fn(*args, **kwargs)
    return run


def checkpoint(t):
    """Between bounded pieces of an engine's work (compiled step loops): raise
    KeyboardInterrupt when Ctrl-C came, and :class:`~chrono_flex.errors.BudgetExceeded`
    at time ``t`` when the wall-time budget of the run in progress is spent; otherwise
    report simulated time ``t`` to the run's progress report, if it has one."""
    if _INT.pending:
        _INT.pending = False
        raise KeyboardInterrupt
    if _INT.deadlines and _INT.deadlines[-1] is not None \
            and time.perf_counter() > _INT.deadlines[-1][0]:
        raise BudgetExceeded(f"the run used up its wall-time budget of max_wall_time = "
                             f"{_INT.deadlines[-1][1]:g} s", t)
    if _INT.reports and _INT.reports[-1] is not None:
        _INT.reports[-1](t)


#: The compiled functions :func:`compiled_call` has seen compiled (their first call done).
_COMPILED = set()


def compiled_call(fn, *args):
    """``fn(*args)`` for a compiled function that runs a while: a Ctrl-C meanwhile is
    held and raised as KeyboardInterrupt when it returns (its results are dropped).
    The first call of ``fn`` in a process compiles it (or loads it from the cache) and
    is not shielded, so Ctrl-C stops the compilation at once."""
    if not _INT.armed:
        return fn(*args)
    if fn not in _COMPILED:              # a dispatcher's signatures cost ~0.1 ms to read
        if not getattr(fn, "signatures", None):
            return fn(*args)
        _COMPILED.add(fn)
    _INT.shield = True
    try:
        out = fn(*args)
    finally:
        _INT.shield = False
    if _INT.pending:
        _INT.pending = False
        raise KeyboardInterrupt
    return out


__all__ = ["checkpoint", "compiled_call", "watched", "watching"]
