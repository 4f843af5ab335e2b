"""Command line: ``chrono-flex`` (also ``python -m chrono_flex``).

    chrono-flex cases
    chrono-flex run [CASE | MODEL.toml] [--engine auto|reference|chrono|chrono-beam] [--t-end T] [--out DIR] [--render] [--quiet]
    chrono-flex render CASE|MODEL.toml [--engine ...] [--scale K] [--gif FILE] [--vtk DIR] [--blender DIR] [--live] [--quiet]
    chrono-flex modes CASE|MODEL.toml [--n N] [--pose equilibrium|initial|a,b] [--out DIR]
    chrono-flex view RESULT.npz|SERIES.pvd|VTK_DIR [--scale K] [--frame K] [--screenshot FILE.png]
    chrono-flex plot RESULT.npz [RESULT.npz ...] [--out FILE.png|.pdf|.svg] [--labels A,B]
    chrono-flex identify efficiency FILE.csv
    chrono-flex bench [render|perf|spatial] [--quick] [--repeat N]
    chrono-flex validate [--only PATTERN] [--json FILE] [--report DIR] [--parallel [N]] [--scheduler ADDRESS] [--quiet]
    chrono-flex sweep CASE|MODEL.toml --vary KEY=V1,V2,... [--vary ...] --out DIR [--workers N | --serial | --scheduler ADDRESS]

Long work reports its progress on stderr (simulated time, wall time used and left): a
line rewritten in place on a terminal, a plain line every few seconds in a log or pipe;
``--quiet`` silences it.

Every output path is checked before a run starts (a directory under a file, a name too
long, a missing directory: exit code 2 with one line naming the option). Outputs are
written atomically and an existing file is replaced: the command prints "overwrote PATH"
for those, "wrote PATH" for new ones.
"""

import argparse
import os
import sys
import warnings

from . import _checks as ck
from ._files import check_output_dir, check_output_file
from ._version import __version__
from .errors import ChronoFlexError, ParameterError
from .cli_common import (MAX_FRAMES, MAX_SCALE, _check_animation_path,  # noqa: F401
                         _check_frames, _check_out, _check_scale, _check_t_end,
                         _drive_scenarios, _existing, _model_case, _quietly,
                         _refuse_unused, _report_written, _say_code)
from .cli_tools import (DEFAULT_MODES, PLOT_FORMATS, _modes_pose, cmd_bench,  # noqa: F401
                        cmd_compile, cmd_identify, cmd_modes, cmd_plot, cmd_view)


def cmd_cases(args):
    from . import scenarios

    print("Flexible-arm scenarios (engines: reference, chrono, chrono-beam):")
    for name, c in sorted(scenarios.all_cases().items()):
        print(f"  {name:28s} {c.description}")
    print("\nDrive and friction scenarios (reference engine):")
    for name, (desc, _) in sorted(_drive_scenarios().items()):
        print(f"  {name:28s} {desc}")
    print(f"\nDefault for `chrono-flex run`: {scenarios.DEFAULT_CASE}")
    return 0


#: `run --engine chrono-beam`: fewer beam elements per link than this are raised to it
#: (one Euler beam per link misses the bending the papers' Hermite element captures).
BEAM_MIN_ELEMENTS = 8


def _resolving_output(case, t_end):
    """{"dt_out": dt} when the case's output step samples its arm's bending frequencies
    too coarsely to draw them (engines.resolving_dt_out), saying so; else {}."""
    from . import engines

    arm, kw = case.arm_and_kwargs(t_end)
    dt, f = engines.resolving_dt_out(arm, kw.get("dt_out"))
    if f is None or dt == kw.get("dt_out"):
        return {}
    print(f"output step {dt:g} s, {engines.POINTS_PER_PERIOD} or more points per period "
          f"of the {f:.3g} Hz bending mode (the case's {kw['dt_out']:g} s gives "
          f"{1 / (f * kw['dt_out']):.1f})")
    return {"dt_out": dt}


@_quietly
def cmd_run(args):
    from . import scenarios
    from . import engines

    name = args.case or scenarios.DEFAULT_CASE
    scen = _drive_scenarios()
    drive_case = name in scen and name not in scenarios.all_cases()
    _check_out(args)
    _check_t_end(args)
    if args.elements is not None:
        ck.positive_int("--elements", args.elements)
    if drive_case:
        if args.engine not in ("auto", "reference"):
            raise ParameterError("--engine", args.engine, f"cannot be used with the drive "
                                 f"scenario {name!r} (it runs on the reference engine)")
        _refuse_unused(args, ("render", "elements", "partial", "allow_code"),
                       f"with the drive scenario {name!r}")
    else:
        case = scenarios.get(name, allow_code=args.allow_code)   # unknown or bad: named first
        name = case.name
        engine = engines.resolve(args.engine, case)
        _say_code(case)
        if args.elements is not None and engine != "chrono-beam":
            raise ParameterError("--elements", args.elements, "is for --engine chrono-beam "
                                 f"(the {engine} engine takes the case's elements)")
    out = check_output_dir("--out", args.out or os.path.join("out", name))
    if drive_case:
        path = check_output_file("--out", os.path.join(out, f"{name}.png"))
        existed = _existing(path)
        res = scen[name][1](t_end=args.t_end)
        res.plot(path)
        print(res.summary())
        _report_written(path, existed)
        return 0
    stem = f"{name}_{engine}"
    paths = [check_output_file("--out", os.path.join(out, f"{stem}{ext}"))
             for ext in (".csv", ".npz", ".png")]
    planned = {}
    if args.render:
        from .viz.command import planned_outputs

        planned = planned_outputs(out, name, gif=True)
        for p in (planned["frame"], planned["gif"], planned["plot"]):
            check_output_file("--out", p)
    existed = _existing(*paths, *planned.values())
    if args.engine == "auto" and engine == "reference":
        print("PyChrono not found: running on the built-in reference engine "
              f"({engines.pychrono_available()[1]})")
    overrides = _resolving_output(case, args.t_end)
    if engine == "chrono-beam":
        n_min = min(lk.n_elements for lk in case.arm_and_kwargs(args.t_end)[0].links)
        if args.elements is not None:
            overrides["n_elements"] = args.elements
        elif n_min < BEAM_MIN_ELEMENTS:
            overrides["n_elements"] = BEAM_MIN_ELEMENTS
            print(f"chrono-beam: the case's links have {n_min} element(s); using "
                  f"{BEAM_MIN_ELEMENTS} beam elements per link (--elements N to change)")
    res, stopped = _run_or_partial(engines.run_case, args.partial, case, engine,
                                   t_end=args.t_end, **overrides)
    csv_path, npz_path = res.save(out, stem=stem)
    plot_path = paths[2]
    res.plot(plot_path, title=f"{name} ({engine})")
    print(f"model file {case.model_file.path}" if case.model_file else f"case {name}")
    print(res.summary())
    for p in (csv_path, npz_path, plot_path):
        _report_written(p, existed)
    if args.render:
        from .viz import render_command

        for p in render_command(res, out, gif=True):
            _report_written(p, existed)
    if stopped is not None:
        print(f"chrono-flex: error: {stopped} (the files above hold the partial result, "
              f"to t = {res.t[-1]:.6g} s)", file=sys.stderr)
        return 2
    return 0


def _run_or_partial(run, partial, *args, **kwargs):
    """(Result, None) of ``run(*args, **kwargs)``; with ``partial`` (``--partial``), a
    run stopped by its budget (``max_wall_time``, ``max_nfev``) gives (the Result it
    reached, marked ``info["partial"]``, the error) instead of the error."""
    from .errors import BudgetExceeded

    try:
        return run(*args, **kwargs), None
    except BudgetExceeded as exc:
        if not partial or exc.partial is None:
            raise
        return exc.partial, exc


@_quietly
def cmd_render(args):
    from . import scenarios
    from . import engines
    from .viz import render_command
    from .viz.command import planned_outputs

    chrono_hooks = args.blender is not None or args.live
    _check_frames("--frames", args.frames)
    _check_out(args)
    _check_t_end(args)
    _check_scale("--scale", args.scale)
    _check_scale("--blender-scale", args.blender_scale)
    if not chrono_hooks and args.blender_scale != 1.0:
        raise ParameterError("--blender-scale", args.blender_scale,
                             "is for --blender or --live (use --scale for the GIF)")
    case = scenarios.get(args.case, allow_code=args.allow_code)   # unknown or bad: named first
    name = case.name
    _say_code(case)
    # every output path is checked before the run
    out = check_output_dir("--out", args.out or os.path.join("out", name))
    planned = planned_outputs(out, name, gif=args.gif or True, vtk=args.vtk)
    for p in (planned["frame"], planned["plot"]):
        check_output_file("--out", p)
    _check_animation_path("--gif", planned["gif"])
    if planned["vtk"] is not None:
        check_output_dir("--vtk", planned["vtk"])
        check_output_file("--vtk", planned["pvd"])
    if args.blender is not None:
        check_output_dir("--blender", args.blender)
    existed = _existing(*planned.values())
    if args.live:
        from .chrono.window import require_live_window

        require_live_window()          # no run when no window can open: say what is missing
    engine = engines.resolve(args.engine or ("chrono" if chrono_hooks else "reference"))
    if chrono_hooks and engine == "reference":
        raise ParameterError("--engine", engine, "must be chrono or chrono-beam with "
                                                 "--blender or --live (they show a Chrono system)")
    hooks = []
    if args.blender is not None:
        from .chrono.blender import BlenderExporter

        t_end = case.arm_and_kwargs(args.t_end)[1]["t_end"]
        exporter = BlenderExporter(args.blender, scale=args.blender_scale,
                                   dt=t_end / args.frames, stem=name,
                                   title=f"{name} ({engine})")
        hooks.append(exporter)
    if args.live:
        from .chrono.live import LiveWindow

        hooks.append(LiveWindow(scale=args.blender_scale, title=f"{name} ({engine})"))
    overrides = _resolving_output(case, args.t_end)
    if hooks:
        overrides["on_output"] = lambda system, t: [h(system, t) for h in hooks]
    res = engines.run_case(case, engine, t_end=args.t_end, **overrides)
    if args.blender is not None:
        print(f"wrote {len(exporter.frames)} Blender frames: {exporter.assets_path} "
              f"(+ {os.path.dirname(exporter.state_path(0))}/state*.py); import it with "
              f"Chrono's Blender add-on (File > Import > Chrono import)")
    if args.frames > len(res.t):
        print(f"--frames {args.frames}: the run has {len(res.t)} output times, one frame each")
    paths = render_command(res, out, scale=args.scale, gif=args.gif or True, vtk=args.vtk,
                           n_frames=args.frames, vtk_fields=args.vtk_fields)
    for p in paths:
        _report_written(p, existed)
    return 0


def cmd_validate(args):
    from chrono_flex.validation.runner import main as validate_main

    if args.engines is not None:
        from chrono_flex.validation.runner import select

        known = sorted({e for c in select(None, None) for e in c.engines})
        for e in args.engines.split(","):
            if e.strip() not in known:
                raise ParameterError("--engines", args.engines, f"must be engines of the "
                                     f"cases ({', '.join(known)}) separated by commas "
                                     f"({e.strip()!r} is not one)")
    if not args.list:                   # the outputs are checked before the long run
        if args.json:
            check_output_file("--json", args.json, create_dir=True)
        if args.report:
            check_output_dir("--report", args.report)
            check_output_dir("--report", os.path.join(args.report, "figures"))
    if args.parallel is not None or args.scheduler:
        from .campaign import require_dask

        if args.parallel is not None:
            if args.parallel < 0:
                raise ParameterError("--parallel", args.parallel, "must be a number of "
                                                                  "workers >= 1 (or none: the cores)")
        if args.scheduler:
            require_dask("--scheduler", args.scheduler)
        else:
            require_dask("--parallel", args.parallel or "the cores")
    return validate_main(only=args.only, json_path=args.json, report_dir=args.report,
                         engines=args.engines, list_only=args.list,
                         progress=False if args.quiet else None,
                         parallel=args.parallel, scheduler=args.scheduler)


def cmd_sweep(args):
    from .campaign import sweep

    if args.workers is not None:
        ck.positive_int("--workers", args.workers)
    _check_out(args)
    _check_t_end(args)
    _model_case(args.model)             # an unknown model or a bad file: named first
    rows = sweep(args.model, args.vary or [], args.out, engine=args.engine,
                 t_end=args.t_end, parallel=not args.serial, n_workers=args.workers,
                 scheduler=args.scheduler, allow_code=args.allow_code)
    return 0 if all(r["status"] == "ok" for r in rows) else 1


def _add_quiet(parser):
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress reports on stderr (by default: a line rewritten "
                             "in place on a terminal, a line every few seconds in a log)")


def build_parser():
    p = argparse.ArgumentParser(prog="chrono-flex",
                                description=__doc__.split("\n")[0].replace("``", ""))
    p.add_argument("--version", action="version", version=f"chrono-flex {__version__}",
                   help="print the version of chrono_flex and exit")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("cases", help="list the named scenarios").set_defaults(fn=cmd_cases)
    r = sub.add_parser("run", help="run a scenario, write trajectory (CSV, NPZ) and plots")
    r.add_argument("case", nargs="?", help="scenario name (default: the default case) or a "
                                           "model file (.toml, docs/model-files.md)")
    r.add_argument("--engine", default="auto",
                   help="auto (chrono if PyChrono is present, else reference), reference, chrono, chrono-beam")
    r.add_argument("--t-end", type=float, default=None, help="end time (s) instead of the case's")
    r.add_argument("--out", default=None, help="output directory (default out/CASE)")
    r.add_argument("--render", action="store_true", help="also render 3D frames and a GIF")
    r.add_argument("--allow-code", action="store_true",
                   help="run Python code a model file names that is not beside it "
                        "(\"module:function\", a .py file elsewhere; docs/model-files.md)")
    r.add_argument("--partial", action="store_true",
                   help="a run stopped by its budget (max_wall_time, max_nfev) writes what "
                        "it computed (marked partial) and exits with code 2")
    r.add_argument("--elements", type=int, default=None, metavar="N",
                   help=f"chrono-beam: beam elements per link (default: the case's, at least "
                        f"{BEAM_MIN_ELEMENTS})")
    _add_quiet(r)
    r.set_defaults(fn=cmd_run)
    v = sub.add_parser("render", help="run a scenario and render the deforming arm in 3D")
    v.add_argument("case", help="scenario name or model file (.toml)")
    v.add_argument("--engine", default=None,
                   help="reference (default), chrono or chrono-beam (default chrono with "
                        "--blender or --live)")
    v.add_argument("--t-end", type=float, default=None, help="end time (s) instead of the "
                                                              "case's")
    v.add_argument("--scale", type=float, default=None, help="deformation exaggeration (default: automatic)")
    v.add_argument("--gif", default=None, metavar="FILE",
                   help="animation file, .gif or .mp4 (relative to the current directory; "
                        "default CASE.gif in the output directory)")
    v.add_argument("--vtk", default=None, metavar="DIR",
                   help="directory for a VTK time series, .vtu + .pvd (relative to the "
                        "current directory)")
    v.add_argument("--vtk-fields", choices=("essential", "all"), default="essential",
                   help="point data of the VTK series: deflection and bending strain, or "
                        "also |deflection| and curvature (derived from them)")
    v.add_argument("--frames", type=int, default=100,
                   help="number of animation frames (GIF, VTK series and Blender)")
    v.add_argument("--blender", default=None, metavar="DIR",
                   help="also write the Chrono run for Chrono's Blender add-on into DIR")
    v.add_argument("--blender-scale", type=float, default=1.0,
                   help="deformation exaggeration in the Blender files and the live window "
                        "(default 1: true size; chrono engine only)")
    v.add_argument("--live", action="store_true",
                   help="show the Chrono run in an Irrlicht/VSG window (needs a display)")
    v.add_argument("--out", default=None, help="output directory (default out/CASE)")
    v.add_argument("--allow-code", action="store_true",
                   help="run Python code a model file names that is not beside it")
    _add_quiet(v)
    v.set_defaults(fn=cmd_render)
    m = sub.add_parser("modes", help="natural frequencies (joints locked and free) and a "
                                     "figure of the mode shapes")
    m.add_argument("model", help="a scenario name (see `chrono-flex cases`) or a model file "
                                 "(.toml)")
    m.add_argument("--n", type=int, default=None,
                   help=f"number of modes (default: up to {DEFAULT_MODES})")
    m.add_argument("--pose", default="equilibrium",
                   help="where the arm is linearised: 'equilibrium' (default: the static "
                        "equilibrium under gravity next to the run's initial joint angles), "
                        "'initial' (those angles held) or joint coordinates 'a,b' in "
                        "degrees (m for a prismatic joint), held")
    m.add_argument("--out", default=None, help="output directory (default out/MODEL)")
    m.set_defaults(fn=cmd_modes)
    w = sub.add_parser("view", help="interactive 3D viewer of a result (.npz) or a VTK "
                                    "series (.pvd or its directory); needs the viz extra")
    w.add_argument("source", help="RESULT.npz (from `run`), SERIES.pvd or a directory with "
                                  "one .pvd (from `render --vtk`)")
    w.add_argument("--scale", type=float, default=None,
                   help="initial deformation exaggeration (default: automatic; a slider "
                        "changes it)")
    w.add_argument("--frame", type=int, default=None, metavar="K",
                   help="output frame shown first, 0 .. N-1 (default: the frame of "
                        "largest deflection; a slider changes it)")
    w.add_argument("--screenshot", default=None, metavar="FILE.png",
                   help="render off-screen to this PNG instead of opening a window")
    w.set_defaults(fn=cmd_view)
    pl = sub.add_parser("plot", help="one figure of one or several results (.npz from "
                                     "`run`), overlaid")
    pl.add_argument("results", nargs="+", metavar="RESULT.npz",
                    help="result files written by `run` (up to ten)")
    pl.add_argument("--out", default=None, metavar="FILE",
                    help="figure file, .png, .pdf or .svg by its suffix (default: the "
                         "first result's name with _plot.png)")
    pl.add_argument("--labels", default=None, metavar="A,B,...",
                    help="legend label of each result, comma-separated (default: the "
                         "file names)")
    pl.add_argument("--title", default=None, help="figure title (default: the labels)")
    pl.set_defaults(fn=cmd_plot)
    i = sub.add_parser("identify", help="identify drive parameters from measurements")
    isub = i.add_subparsers(dest="what", required=True)
    e = isub.add_parser("efficiency", help="K_ML and Mc from an efficiency curve (CSV: torque, efficiency)")
    e.add_argument("file", help="CSV file of two columns (a header row optional): torque "
                                "(N m, referred to the output) and efficiency (0..1)")
    e.set_defaults(fn=cmd_identify)
    c = sub.add_parser("compile", help="compile the numba kernels into their disk cache "
                       "(once after installing or changing chrono_flex)")
    c.add_argument("family", nargs="?", choices=("all", "planar", "spatial"), default="all")
    c.add_argument("--jobs", type=int, default=2, help="processes at once (default 2)")
    c.set_defaults(fn=cmd_compile)
    b = sub.add_parser("bench", help="print performance figures")
    b.add_argument("what", nargs="?", choices=("all", "render", "perf", "spatial"),
                   default="all",
                   help="render: time a GIF of bien-2link (reference engine); spatial: the "
                        "spatial engine against the planar one on a planar arm; perf: "
                        "work-precision of every engine (and Exudyn when installed) on "
                        "two flexible-link problems (about 10 min)")
    b.add_argument("--frames", type=int, default=200, help="frames of the render benchmark")
    b.add_argument("--quick", action="store_true",
                   help="perf: short runs with coarse settings (under a minute)")
    b.add_argument("--repeat", type=int, default=1,
                   help="perf: runs per table row, the best wall time counts (default 1)")
    b.add_argument("--verbose", action="store_true", help="perf: report every run on stderr")
    b.set_defaults(fn=cmd_bench)
    va = sub.add_parser("validate", help="run the validation suite")
    va.add_argument("--only", default=None, help="glob pattern of case names")
    va.add_argument("--json", default=None, help="write a JSON summary here")
    va.add_argument("--report", default=None, help="write a Markdown report with figures here")
    va.add_argument("--engines", default=None, help="comma-separated engines to include")
    va.add_argument("--list", action="store_true", help="list the cases without running them")
    va.add_argument("--parallel", type=int, nargs="?", const=0, default=None, metavar="N",
                    help="run the cases on N Dask workers (default: the cores); needs the "
                         "'dist' extra")
    va.add_argument("--scheduler", default=None, metavar="ADDRESS",
                    help="run the cases on the Dask cluster at ADDRESS (tcp://host:8786)")
    _add_quiet(va)
    va.set_defaults(fn=cmd_validate)
    sw = sub.add_parser("sweep", help="run a model for every combination of varied values "
                                      "(on Dask workers) and write a summary table")
    sw.add_argument("model", help="a scenario name or a model file (.toml)")
    sw.add_argument("--vary", action="append", metavar="KEY=V1,V2,...",
                    help="a model-file key and its values, e.g. payload.mass=0.1,0.2 or "
                         "links[0].EI=1.0,2.0 (repeat for a cartesian product)")
    sw.add_argument("--out", required=True, help="output directory (runs/, summary.csv, "
                                                 "summary.json)")
    sw.add_argument("--engine", default="reference", help="reference (default), chrono, "
                                                          "chrono-beam")
    sw.add_argument("--t-end", type=float, default=None, help="end time (s) of every run "
                                                              "instead of the model's")
    sw.add_argument("--workers", type=int, default=None, metavar="N",
                    help="Dask workers of the local cluster (default: the cores)")
    sw.add_argument("--serial", action="store_true", help="run here, one after the other")
    sw.add_argument("--allow-code", action="store_true",
                    help="let the model's inputs run Python code that is not beside the "
                         "model file (a module:function): only for files you trust")
    sw.add_argument("--scheduler", default=None, metavar="ADDRESS",
                    help="run on the Dask cluster at ADDRESS (tcp://host:8786)")
    sw.set_defaults(fn=cmd_sweep)
    return p


def _quiet_broken_pipe():
    """The reader of stdout went away (``chrono-flex cases | head -1``): point stdout at
    /dev/null so that the interpreter's last flush does not complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """A warning as one line on stderr: "chrono-flex: StiffeningWarning: ...", without
    the source line Python shows by default (a user of the command reads no code)."""
    text = " ".join(str(message).split())
    print(f"chrono-flex: {category.__name__}: {text}", file=sys.stderr if file is None
          else file, flush=True)


def main(argv=None):
    """Run the command line; return the exit code: 0, 1 (validation failures), 2 (an
    error, reported in one line on stderr without a traceback), 130 (interrupted by
    Ctrl-C: one line, no outputs written). Warnings show as one line each."""
    args = build_parser().parse_args(argv)
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        return _main(args)


def _main(args):
    try:
        code = args.fn(args)
        sys.stdout.flush()
        return code
    except KeyboardInterrupt:
        print("chrono-flex: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _quiet_broken_pipe()
        return 0
    except ChronoFlexError as exc:
        print(f"chrono-flex: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:              # a file system fault the checks could not foresee
        where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
        print(f"chrono-flex: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
