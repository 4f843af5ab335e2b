"""Work-precision benchmark (``chrono-flex bench perf``): error against wall time of every
engine, and of Exudyn where it is installed, on two planar flexible-link problems.

The problems, built from the package's own pieces:

* ``P1``, torque-driven link: one [B] link (:func:`chrono_flex.scenarios.bien_link`,
  L = 1 m), tip mass 0.1 kg, no gravity, the torque pulse
  :func:`chrono_flex.scenarios.pulse` (0.4 N m over 2 s), 3 s, 4 elements. Measure: the
  largest distance, over time, between the tip and the converged tip, divided by the
  range of the tip position (the larger side of the box the converged tip sweeps).
* ``P2``, gravity pendulum: the Kozlowski link (:func:`chrono_flex.scenarios.kozlowski_link`,
  the arm of the ``kozlowski-1link`` case) released at rest at -80 deg, with geometric
  stiffening, 2 s, 16 elements. Measures: the largest joint angle error (rad) and the
  largest tip deflection error divided by the range (max - min) of the converged tip
  deflection.

Each tool is measured against its own converged solution (its finest run), so the
errors are numerical errors of that tool; the difference between a tool's converged
solution and the reference engine's is reported apart, as the model difference (an
extensible beam, lumped masses, a different beam theory), which no step size removes.

Tools: the reference engine with Radau at several ``rtol`` and with generalized-alpha
(rho_inf = 0.8) at several steps; the Chrono custom element (engine ``chrono``) and
Chrono's own beams (``chrono-beam``) at several steps, when PyChrono is present; and
Exudyn's ANCF cable elements (:func:`exudyn_cable_run`), when ``exudyn`` is installed
(the ``bench`` extra). Every timing is the wall time of the whole call (building the
model, integrating, reading the outputs), all in one process after one warm-up run of
every tool (numba compiles its kernels on first use, PyChrono and Exudyn load).

The summary gives, per problem, the cheapest run of each tool that reaches the accuracy
target (P1: 1 % tip position; P2: 1e-3 rad and 1 % tip deflection) and the wall-time
ratios reference engine / Exudyn and Chrono element / Chrono beams; then the growth of
the reference engine's cost with the element count (fixed-step generalized-alpha on a
short P2, exponent of a log-log least-squares fit) and the Chrono element / Chrono
beams ratio at 4, 8 and 16 elements.

Two lines time user laws (:func:`user_laws`): ``P3``, P1's link turned by a bang-bang
torque that a Python controller sampled at 1 kHz computes, at the reference engine's
default settings against Exudyn with its torque a Python user function; and Bien's
8-element link over 10 s with a plain Python torque f(t, q, qd), at the default
settings, in times faster than real time, each with its tip error.

This module sits at the top with the command line: it may use the scenario catalogue
and every engine; nothing imports it.
"""

from dataclasses import dataclass, field
import math
import time

import numpy as np

from . import _checks as ck
from . import engines, scenarios
from .errors import ParameterError, SimulationError
from .planar.arm import PlanarArm
# the problems, tools and user-law lines, in two modules; their names stay importable here
from .bench_tools import (DT_OUT, EXUDYN_NEWTON_ATOL, EXUDYN_NEWTON_RTOL,  # noqa: F401
                          FULL, QUICK, RHO_INF, RUN_BUDGET, TOOLS, Problem, Trajectory,
                          _engine_run, errors, exudyn_available, exudyn_cable_chain,
                          exudyn_cable_run, gravity_pendulum, meets, run_tool,
                          torque_driven_link)
from .bench_user_laws import (BANG_BANG, CONTROLLER_PERIOD, _default_run,  # noqa: F401
                              _format_user_laws, bang_bang_link, user_laws)


@dataclass
class Row:
    """One line of a work-precision table."""

    tool: str
    setting: float
    wall: float
    errors: dict
    note: str = ""


@dataclass
class ProblemReport:
    """The table of one problem: its rows, each tool's model difference to the
    reference engine (converged against converged), the cheapest run reaching the
    target per tool, and the wall-time ratios."""

    problem: Problem
    rows: list
    model_difference: dict
    cheapest: dict
    skipped: dict
    converged: dict = field(default_factory=dict)


def _problems(quick):
    if quick:
        return [torque_driven_link(t_end=0.5), gravity_pendulum(t_end=0.3, n_elements=4)]
    return [torque_driven_link(), gravity_pendulum()]


def work_precision(problem, settings, tools, repeat=1, log=None, budget=RUN_BUDGET):
    """The work-precision table of ``problem`` for ``tools`` with ``settings`` (a dict
    as :data:`FULL` ["P1"]), each row the best wall time of ``repeat`` runs; a run of a
    chrono_flex engine that needs more than ``budget`` s becomes a row without errors.
    ``log``: callable(str) told of every run. Returns a :class:`ProblemReport`."""
    rows, converged = [], {}
    ref_tool, ref_value = settings["reference"]
    if log:
        log(f"{problem.key} reference engine: converged run, {ref_tool} {ref_value:g}")
    ref = run_tool(problem, ref_tool, ref_value)[0]
    for tool in tools:
        if tool in ("radau", "galpha"):
            converged[tool] = ref
        else:
            fine = settings["converged"][tool]
            if log:
                log(f"{problem.key} {tool}: converged run at {fine:g}")
            converged[tool] = run_tool(problem, tool, fine)[0]
        for v in settings[tool]:
            best, traj = math.inf, None
            try:
                for _ in range(repeat):
                    traj, wall = run_tool(problem, tool, v, budget=budget)
                    best = min(best, wall)
            except SimulationError as exc:     # over budget: a row without errors
                rows.append(Row(tool, v, math.inf, None, str(exc)))
            else:
                rows.append(Row(tool, v, best, errors(problem, traj, converged[tool])))
            if log:
                log(f"{problem.key} {tool} {v:g}: {best:.3f} s {rows[-1].errors}")
    model = {tool: errors(problem, converged[tool], ref)
             for tool in tools if tool not in ("radau", "galpha")}
    cheapest = {}
    for r in rows:
        if r.errors is None or not meets(problem, r.errors):
            continue
        if r.tool not in cheapest or r.wall < cheapest[r.tool].wall:
            cheapest[r.tool] = r
    fine = {t: settings["converged"][t] for t in tools if t not in ("radau", "galpha")}
    return ProblemReport(problem, rows, model, cheapest, {},
                         dict(reference=settings["reference"], **fine))


def _ref_cheapest(report):
    """The cheapest reference-engine run (either method) reaching the target."""
    runs = [report.cheapest[k] for k in ("radau", "galpha") if k in report.cheapest]
    return min(runs, key=lambda r: r.wall) if runs else None


def element_scaling(n_list=(2, 4, 8, 16, 32, 64), t_end=0.2, step=1e-3, repeat=1):
    """Wall time of the reference engine (generalized-alpha, fixed ``step``) on the
    gravity pendulum for ``t_end`` s, per element count; returns (list of (n, wall s),
    exponent p of wall ~ n^p by least squares on the logarithms)."""
    problem = gravity_pendulum(t_end=t_end)
    out = []
    for n in n_list:
        n = ck.positive_int("n_list[]", n)
        out.append((n, min(run_tool(problem, "galpha", step, n_elements=n)[1]
                           for _ in range(repeat))))
    ns, ws = np.array(out, dtype=float).T
    p = float(np.polyfit(np.log(ns), np.log(ws), 1)[0]) if len(ns) > 1 else math.nan
    return out, p


def chrono_ratio(n_list=(4, 8, 16), t_end=0.5, step=1e-3, repeat=1):
    """Wall times of the Chrono element and Chrono's beams on the gravity pendulum for
    ``t_end`` s at ``step``, per element count: list of (n, element s, beams s)."""
    problem = gravity_pendulum(t_end=t_end)
    out = []
    for n in n_list:
        n = ck.positive_int("n_list[]", n)
        el = min(run_tool(problem, "chrono", step, n_elements=n)[1] for _ in range(repeat))
        bm = min(run_tool(problem, "chrono-beam", step, n_elements=n)[1] for _ in range(repeat))
        out.append((n, el, bm))
    return out


def _single_link(t_end):
    """[B]'s single link (`bien-1link-n3`: three elements, torque pulse), as its scenario."""
    arm, kw = scenarios.get("bien-1link-n3").arm_and_kwargs(t_end=t_end)
    return arm, kw


def _double_pendulum(t_end):
    """[K]'s double pendulum with 4 + 4 elements, released at (-90, 5) deg under gravity."""
    arm = PlanarArm([scenarios.kozlowski_link(4), scenarios.kozlowski_link(4)], gravity=True)
    return arm, dict(t_end=t_end, q0=[math.radians(-90.0), math.radians(5.0)],
                     dt_out=0.01)


#: the cases of the real-time line: (label, builder(t_end) -> (arm, simulate arguments))
REAL_TIME_CASES = (("[B] single link, bien-1link-n3", _single_link),
                   ("[K] double pendulum, 4 + 4 elements", _double_pendulum))


def real_time(t_end=10.0, repeat=1):
    """Wall time of ``t_end`` s of each of :data:`REAL_TIME_CASES` on the reference engine
    at its default settings (``simulate`` given only the scenario's own arguments: the
    default method and tolerance), best of ``repeat``; returns a list of (label, method,
    rtol, wall s, t_end / wall: times faster than real time)."""
    t_end = ck.positive("t_end", t_end)
    repeat = ck.positive_int("repeat", repeat)
    out = []
    for label, build in REAL_TIME_CASES:
        walls = []
        for _ in range(repeat):
            arm, kw = build(t_end)
            start = time.perf_counter()
            res = arm.simulate(progress=False, **kw)
            walls.append(time.perf_counter() - start)
        wall = min(walls)
        out.append((label, res.info["method"], res.info["rtol"], wall, t_end / wall))
    return out


def _warm_up(tools):
    """One short run of every tool: numba compiles, PyChrono and Exudyn load."""
    for problem in (torque_driven_link(t_end=0.02), gravity_pendulum(t_end=0.02, n_elements=2)):
        for tool in tools:
            run_tool(problem, tool, 1e-3)


def available_tools(tools=None):
    """(the tools to run, {tool: why it is skipped}): ``tools`` (default all of
    :data:`TOOLS`) less those whose software is missing (PyChrono, Exudyn)."""
    tools = list(TOOLS) if tools is None else list(tools)
    for t in tools:
        if t not in TOOLS:
            raise ParameterError("tools", tools, f"must be keys of {sorted(TOOLS)}")
    skipped = {}
    if "chrono" in tools or "chrono-beam" in tools:
        ok, why = engines.pychrono_available()
        if not ok:
            for t in ("chrono", "chrono-beam"):
                if t in tools:
                    skipped[t] = f"PyChrono is not available: {why}"
    if "exudyn" in tools:
        ok, why = exudyn_available()
        if not ok:
            skipped["exudyn"] = why
    return [t for t in tools if t not in skipped], skipped


def perf_benchmark(quick=False, tools=None, repeat=1, log=None):
    """Run the whole benchmark; returns a dict: problems (list of ProblemReport),
    scaling ((n, wall) list, exponent), ratio ((n, element s, beams s) list, or None
    without the Chrono tools), real_time (:func:`real_time`, 1 s quick, else 10 s), skipped ({tool: reason}), tools (those run), quick,
    exudyn_version.

    ``quick``: short runs with coarse settings (:data:`QUICK`, P2 with 4 elements) for
    tests and a first look; ``tools``: keys of :data:`TOOLS` (default all, those whose
    software is missing skipped with the reason); ``repeat``: runs per table row (the
    best wall time counts); ``log``: callable(str) told of every run."""
    repeat = ck.positive_int("repeat", repeat)
    tools, skipped = available_tools(tools)
    _warm_up(tools)
    table = QUICK if quick else FULL
    reports = []
    for problem in _problems(quick):
        rep = work_precision(problem, table[problem.key], tools, repeat, log)
        rep.skipped = skipped
        reports.append(rep)
    if quick:
        scaling = element_scaling((2, 4, 8), t_end=0.05, repeat=repeat)
    else:
        scaling = element_scaling(repeat=max(repeat, 2))
    realtime = real_time(1.0 if quick else 10.0, repeat=max(repeat, 2))
    ratio = None
    if "chrono" in tools and "chrono-beam" in tools:
        ratio = chrono_ratio(*(((4, 8), 0.05) if quick else ()), repeat=repeat)
    version = exudyn_available()[1] if "exudyn" in tools else None
    laws = user_laws(quick, tools, repeat=max(repeat, 3))
    return dict(problems=reports, scaling=scaling, ratio=ratio, real_time=realtime,
                skipped=skipped, tools=tools, quick=quick, exudyn_version=version,
                user_laws=laws)


# -- the printed report ------------------------------------------------------------------

_MEASURE_LABEL = {"tip": "tip pos. err / range", "angle": "angle err (rad)",
                  "deflection": "defl. err / range"}


def _setting(tool, v):
    return f"rtol {v:.0e}" if TOOLS[tool][1] == "rtol" else f"h {v:.2e} s"


def format_report(bench):
    """The lines ``chrono-flex bench perf`` prints for the dict of :func:`perf_benchmark`."""
    lines = [("Work-precision benchmark, --quick settings" if bench["quick"] else
              "Work-precision benchmark") + "; tools: " + ", ".join(
        TOOLS[t][0] for t in bench["tools"])
        + (f" (Exudyn {bench['exudyn_version']})" if bench["exudyn_version"] else ""), ""]
    for rep in bench["problems"]:
        p = rep.problem
        lines.append(f"{p.key}: {p.title}, {p.t_end:g} s, {p.n_elements} elements")
        head = "  {:<26s} {:>13s} {:>9s}".format("tool", "setting", "wall (s)")
        head += "".join(f" {_MEASURE_LABEL[m]:>21s}" for m in p.measures)
        lines.append(head)
        for r in rep.rows:
            line = f"  {TOOLS[r.tool][0]:<26s} {_setting(r.tool, r.setting):>13s}"
            if r.errors is None:
                lines.append(line + f"  not finished: {r.note}")
                continue
            line += f" {r.wall:9.3f}" + "".join(f" {r.errors[m]:21.2e}" for m in p.measures)
            lines.append(line + ("  *" if meets(p, r.errors) else ""))
        lines.append("  (* reaches the target: " + ", ".join(
            f"{m} <= {p.targets[m]:g}" for m in p.measures) + "; errors against each "
            "tool's own converged run)")
        conv = rep.converged
        if conv:
            rt, rv = conv["reference"]
            lines.append("  converged runs: reference engine " + _setting(rt, rv)
                         + f" ({TOOLS[rt][0].split(', ')[1]})" + "".join(
                             f"; {TOOLS[t][0]} {_setting(t, v)}" for t, v in conv.items()
                             if t != "reference"))
        lines.append("  model difference, converged run against the reference engine's:")
        for tool, errs in rep.model_difference.items():
            lines.append(f"    {TOOLS[tool][0]:<26s}" + "".join(
                f" {m} {errs[m]:.2e}" for m in p.measures))
        for tool, why in rep.skipped.items():
            lines.append(f"  {TOOLS[tool][0]}: skipped ({why})")
        lines.append("")
    lines.append("Summary: cheapest run reaching the target")
    for rep in bench["problems"]:
        p = rep.problem
        for tool in TOOLS:
            if not any(r.tool == tool for r in rep.rows):
                continue
            r = rep.cheapest.get(tool)
            what = (f"{_setting(tool, r.setting)}, {r.wall:.3f} s" if r is not None
                    else "none of its runs")
            lines.append(f"  {p.key} {TOOLS[tool][0]:<26s} {what}")
        ref, exu = _ref_cheapest(rep), rep.cheapest.get("exudyn")
        if ref is not None and exu is not None:
            lines.append(f"  {p.key} reference engine / Exudyn wall time: "
                         f"{ref.wall / exu.wall:.2f} ({TOOLS[ref.tool][0]}, "
                         f"{_setting(ref.tool, ref.setting)})")
        el = {r.setting: r.wall for r in rep.rows if r.tool == "chrono"}
        bm = {r.setting: r.wall for r in rep.rows if r.tool == "chrono-beam"}
        for h in sorted(set(el) & set(bm)):
            lines.append(f"  {p.key} Chrono element / Chrono beams, {p.n_elements} elements, "
                         f"h {h:g} s: {el[h] / bm[h]:.2f}")
    scaling, exponent = bench["scaling"]
    lines.append("")
    lines.append("Reference engine cost against element count (P2, generalized-alpha, "
                 "h 1e-3 s, " + ("0.05" if bench["quick"] else "0.2") + " s):")
    lines.append("  " + "  ".join(f"n={n}: {w:.3f} s" for n, w in scaling))
    lines.append(f"  wall ~ n^{exponent:.2f} (least squares on log-log)")
    span = "1" if bench["quick"] else "10"
    lines.append(f"Reference engine at default settings, {span} s of motion (best of two):")
    for label, method, rtol, wall, factor in bench["real_time"]:
        lines.append(f"  {label}: {method}, rtol {rtol:g}: {wall:.3f} s, "
                     f"{factor:.1f} times faster than real time")
    if bench.get("user_laws") is not None:
        lines.extend(_format_user_laws(bench["user_laws"]))
    if bench["ratio"] is not None:
        lines.append("Chrono element / Chrono beams (P2, h 1e-3 s, "
                     + ("0.05" if bench["quick"] else "0.5") + " s):")
        for n, el, bm in bench["ratio"]:
            lines.append(f"  n={n}: element {el:.3f} s, beams {bm:.3f} s, ratio {el / bm:.2f}")
    return lines


__all__ = ["torque_driven_link", "gravity_pendulum", "Problem", "Trajectory", "errors",
           "meets", "run_tool", "exudyn_cable_run", "exudyn_cable_chain", "exudyn_available",
           "work_precision",
           "element_scaling", "chrono_ratio", "real_time", "bang_bang_link", "user_laws", "REAL_TIME_CASES", "available_tools", "perf_benchmark",
           "format_report", "TOOLS", "FULL", "QUICK"]
