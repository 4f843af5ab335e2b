"""Run validation cases one after another: a row per case (status, value, time) and
the outcomes for the report. :mod:`chrono_flex.validation.runner` prints and writes
them; :mod:`chrono_flex.campaign` runs the same function on each Dask worker.
"""

import sys
import time
import traceback

from ..stepping import format_duration, progress_wanted
from .core import Skip


class Context:
    """What a case may use besides its own models: progress output and engine status."""

    def __init__(self, progress=None):
        self.progress = progress_wanted(progress)
        self.terminal = sys.stderr.isatty()
        self.case_name = ""

    def note(self, text):
        """A progress line for a long case (terminal only: rewritten in place)."""
        if self.progress and self.terminal:
            sys.stderr.write(f"\r    {self.case_name}: {text}" + " " * 10)
            sys.stderr.flush()


def run_cases(cases, progress=None):
    """Run ``cases``; returns a list of per-case dicts (name, status, value, ...) and the
    outcomes by name (for the report's figures)."""
    from chrono_flex.engines import pychrono_available

    have_chrono, why = pychrono_available()
    ctx = Context(progress)
    rows, outcomes = [], {}
    t_start = time.perf_counter()
    for k, c in enumerate(cases, 1):
        row = dict(name=c.name, kind=c.kind, quantity=c.quantity, metric=c.metric,
                   tolerance=c.tolerance, tolerance_text=c.tolerance_text(),
                   reason=c.reason, engines=list(c.engines), needs_pychrono=c.needs_pychrono,
                   source=c.source, value=None, passed=None, status="", seconds=0.0,
                   message="")
        if ctx.progress:
            elapsed = format_duration(time.perf_counter() - t_start)
            line = f"[{k}/{len(cases)}] {c.name} ... ({elapsed} elapsed)"
            sys.stderr.write(f"\r{line:<70}\n" if ctx.terminal else line + "\n")
            sys.stderr.flush()
        if c.needs_pychrono and not have_chrono:
            row.update(status="skipped", message=f"needs PyChrono: {why}")
            rows.append(row)
            continue
        ctx.case_name = c.name
        t0 = time.perf_counter()
        try:
            out = c.run(ctx)
            value = float(out.value)        # a case returning a non-number is an error too
        except Skip as why:
            row.update(status="skipped", message=str(why))
        except Exception as exc:  # a case that raises is a failure with its cause
            row.update(status="error", passed=False,
                       message=f"{type(exc).__name__}: {exc}",
                       traceback=traceback.format_exc(limit=6))
        else:
            ok = c.passed(value)
            row.update(value=value, passed=bool(ok),
                       status="passed" if ok else "FAILED", data=out.data,
                       details=list(out.details))
            outcomes[c.name] = out
        row["seconds"] = round(time.perf_counter() - t0, 3)
        if ctx.progress and ctx.terminal:
            sys.stderr.write("\r" + " " * 100 + "\r")
        rows.append(row)
    return rows, outcomes


__all__ = ["Context", "run_cases"]
