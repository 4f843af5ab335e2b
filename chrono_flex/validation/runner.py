"""Run validation cases: a table on stdout, a JSON summary, a Markdown report with figures.

Used by ``chrono-flex validate [--only PATTERN] [--json FILE] [--report DIR]``. A case
that raises is reported as failed with the error; a case needing PyChrono where it is
absent is reported as skipped with the reason. The exit code is 1 when any case failed.
Progress goes to stderr: a line as each case starts (also in a log or a pipe) and, on a
terminal, notes from inside long cases; ``progress=False`` (``--quiet``) silences it.
"""

import json
import os
import sys

from .._files import atomic_write
from .core import select
from .running import Context, run_cases     # noqa: F401 (both: this module's API too)


def format_table(rows):
    """The summary table printed by ``chrono-flex validate``."""
    w = max([len(r["name"]) for r in rows] + [4])
    lines = [f"{'case':<{w}}  {'status':<7}  {'value':>11}  {'tolerance':<18} {'s':>6}  metric"]
    for r in rows:
        val = "" if r["value"] is None else f"{r['value']:.4g}"
        lines.append(f"{r['name']:<{w}}  {r['status']:<7}  {val:>11}  {r['tolerance_text']:<18} "
                     f"{r['seconds']:>6.1f}  {r['metric']}")
        if r["message"]:
            lines.append(f"{'':<{w}}  -> {r['message']}")
    n_pass = sum(r["status"] == "passed" for r in rows)
    n_skip = sum(r["status"] == "skipped" for r in rows)
    n_fail = len(rows) - n_pass - n_skip
    lines.append(f"{n_pass} passed, {n_fail} failed, {n_skip} skipped "
                 f"({sum(r['seconds'] for r in rows):.0f} s)")
    return "\n".join(lines)


def _json_safe(obj):
    import numpy as np

    if isinstance(obj, dict):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _json_safe(obj.tolist())
    if isinstance(obj, (np.floating, np.integer)):
        return obj.item()
    if isinstance(obj, float) and obj != obj:
        return None
    return obj


def write_json(rows, path):
    keys = ("name", "kind", "passed", "status", "metric", "value", "tolerance", "reason",
            "engines", "needs_pychrono", "seconds", "message", "quantity", "data")
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    with atomic_write(path, "w") as f:
        json.dump(_json_safe([{k: r.get(k) for k in keys} for r in rows]), f, indent=1)


def main(only=None, json_path=None, report_dir=None, engines=None, progress=None,
         list_only=False, out=None, parallel=None, scheduler=None):
    """Entry point of ``chrono-flex validate``; returns the exit code. ``parallel``: run
    the cases on Dask workers (a LocalCluster of that many, 0 for the cores) or on the
    cluster at ``scheduler`` (:mod:`chrono_flex.campaign`)."""
    out = sys.stdout if out is None else out
    if isinstance(engines, str):
        engines = [e.strip() for e in engines.split(",") if e.strip()]
    cases = select(only, engines)
    if not cases:
        print(f"no validation case matches --only {only!r}" +
              (f" with engines {engines}" if engines else ""), file=out)
        return 2
    if list_only:
        for c in cases:
            print(f"{c.name:<40} {c.kind:<12} {','.join(c.engines):<30} {c.quantity}", file=out)
        return 0
    replaced = lambda p: " (overwrote the previous file)" if os.path.exists(p) else ""  # noqa: E731
    if parallel is not None or scheduler:
        from ..campaign import run_cases_parallel

        log = None if progress is False else (lambda text: print(text, file=sys.stderr))
        rows, outcomes = run_cases_parallel(cases, parallel or None, scheduler, engines, log)
    else:
        rows, outcomes = run_cases(cases, progress)
    print(format_table(rows), file=out)
    if json_path:
        note = replaced(json_path)
        write_json(rows, json_path)
        print(f"JSON summary: {json_path}{note}", file=out)
    if report_dir:
        from .report import write_report

        note = replaced(os.path.join(report_dir, "report.md"))
        path = write_report(rows, outcomes, report_dir)
        print(f"report: {path}{note}", file=out)
    return 0 if all(r["status"] in ("passed", "skipped") for r in rows) else 1
