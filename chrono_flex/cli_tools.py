"""The analysis and tool commands of ``chrono-flex`` (chrono_flex.cli): ``modes``,
``view``, ``plot``, ``identify`` and ``bench``."""

import os
import sys

from . import _checks as ck
from ._files import check_output_dir, check_output_file
from .cli_common import (_check_frames, _check_out, _check_scale, _existing, _model_case,
                         _refuse_unused, _report_written)
from .errors import ParameterError


#: `modes`: how many modes to show when --n is not given (fewer when the model has fewer).
DEFAULT_MODES = 4


def cmd_modes(args):
    from .planar.modes import JOINTS, eigenmodes, natural_modes
    from .viz.modes import plot_modes

    _check_out(args)
    case = _model_case(args.model)          # an unknown model or a bad file: named first
    arm, kw = case.build()
    name = case.name
    planar = hasattr(arm, "equilibrium")    # else a spatial arm or tree, or the RRRP arm
    q, pose_text = (_modes_pose if planar else _spatial_pose)(arm, kw, args.pose)
    out = check_output_dir("--out", args.out or os.path.join("out", name))
    path = check_output_file("--out", os.path.join(out, f"{name}_modes.png"))
    existed = _existing(path)
    if args.n is not None:
        ck.positive_int("--n", args.n)
    rows, note = ([], None) if planar else _spatial_modes(arm, q, args.n)
    for joints in JOINTS if planar else ():
        n = args.n
        if n is None:                               # up to DEFAULT_MODES, as many as there are
            n = min(DEFAULT_MODES, eigenmodes(arm, None, q, joints=joints)[0].size)
        rows.append(natural_modes(arm, n, q, joints=joints) if n else None)
    print(f"{name}: natural frequencies (Hz) of the arm linearised at rest, {pose_text}")
    print(f"{'mode':>4}  {'joints locked':>14}  {'joints free':>14}")
    for k in range(max(len(m.frequencies) for m in rows if m is not None)):
        cells = [f"{m.frequencies[k]:14.6g}" if m is not None and k < len(m.frequencies)
                 else f"{'-':>14}" for m in rows]
        print(f"{k + 1:>4}  " + "  ".join(cells))
    print(note or "locked: each link clamped at its hub; free: joints turn (slide) freely, "
          "rigid-body modes left out" + ("; gravity included" if arm.gravity else "")
          + ("; the drives add their output inertia J2 to the hubs, not their gear "
             "stiffness" if arm.drives else ""))
    plot_modes([m for m in rows if m is not None], path=path, title=f"{name}: mode shapes")
    _report_written(path, existed)
    return 0


def _modes_pose(arm, kw, pose):
    """(q, text) of `modes --pose`: "equilibrium" (default; the static equilibrium under
    gravity from the run's initial joint angles, driven joints held by their drives, the
    others free), "initial" (the run's initial joint angles held, the links at their
    static deflection) or joint coordinates "a,b" (degrees; m at a prismatic joint), held."""
    import math

    import numpy as np

    from .errors import SimulationError

    start = np.zeros(arm.n_joints)
    if kw.get("joint_angles0") is not None:
        start = np.array(kw["joint_angles0"], dtype=float)
    if pose == "equilibrium":
        joints = ["held" if j in arm.drives else "free" for j in range(arm.n_joints)]
        try:
            eq = arm.equilibrium(start, joints=joints)
        except SimulationError as exc:
            raise ParameterError("--pose", pose, f"has no static equilibrium near the initial "
                                 f"joint angles ({exc}); name --pose initial or angles") from None
        angles = eq.q[arm.joint_index]
        what = "static equilibrium" + ("" if eq.stable else " (unstable)")
    else:
        if pose == "initial":
            angles = start
        else:
            try:
                values = [float(v) for v in pose.split(",")]
            except ValueError:
                raise ParameterError("--pose", pose, "must be 'equilibrium', 'initial' or "
                                     "joint coordinates 'a,b,...'") from None
            if len(values) != arm.n_joints:
                raise ParameterError("--pose", pose, f"must give {arm.n_joints} joint "
                                     "coordinates")
            angles = np.array([math.radians(v) if jt.kind == "revolute" else v
                               for v, jt in zip(values, arm.joints)])
        eq = arm.equilibrium(angles, joints="held")
        what = "joints held" + (", links at their static deflection" if arm.gravity else "")
    shown = ", ".join(f"{round(math.degrees(a), 6) + 0.0:.4g} deg" if jt.kind == "revolute"
                      else f"{round(a, 8) + 0.0:.4g} m"
                      for a, jt in zip(angles, arm.joints))
    return eq.q, f"{what}, joint coordinates ({shown})"


def _spatial_pose(arm, kw, pose):
    """(q, text) of `modes --pose` for a spatial arm or tree, or the RRRP arm: the run's
    initial coordinates ("equilibrium", "initial") or the joint coordinates "a,b,..."
    (degrees; m at a prismatic joint), the joints held and the links at their static
    deflection under gravity. A spatial arm's equilibrium with free joints is not
    searched: at rest without gravity its initial pose is one; under gravity the joints
    are held."""
    import math

    import numpy as np

    rrrp = not hasattr(arm, "joint_index")
    q = np.array(kw["q0"] if rrrp else (np.zeros(arm.nq) if kw.get("q0") is None
                                         else kw["q0"]), dtype=float)
    kinds = (["revolute"] * 3 + ["prismatic"] if rrrp
             else [jt.kind for jt in arm.joints if jt.kind != "fixed"])
    index = [0, 1, 2, 7] if rrrp else list(arm.joint_index)
    if pose not in ("equilibrium", "initial"):
        try:
            values = [float(v) for v in pose.split(",")]
        except ValueError:
            raise ParameterError("--pose", pose, "must be 'equilibrium', 'initial' or "
                                 "joint coordinates 'a,b,...'") from None
        if len(values) != len(kinds):
            raise ParameterError("--pose", pose, f"must give {len(kinds)} joint coordinates")
        q[index] = [math.radians(v) if k == "revolute" else v for v, k in zip(values, kinds)]
    gravity = True if rrrp else bool(np.any(arm.gravity))
    if gravity:
        q = arm.static_deflection(q) if rrrp else arm.static_deflection({}, q)
    what = ("joints held, links at their static deflection" if gravity
            else "at rest (an equilibrium: no gravity)")
    shown = ", ".join(f"{round(math.degrees(a), 6) + 0.0:.4g} deg" if k == "revolute"
                      else f"{round(a, 8) + 0.0:.4g} m" for a, k in zip(q[index], kinds))
    return q, f"{what}, joint coordinates ({shown})"


def _spatial_modes(arm, q, n):
    """(rows, note) of `modes` for a spatial arm or tree (joints locked and free:
    :func:`chrono_flex.spatial.modes.natural_modes`) or the RRRP arm (joints locked:
    :func:`chrono_flex.formulations.rrrp_fem.am_modes`), with their shapes."""
    import numpy as np

    from .spatial.modes import JOINTS, natural_modes, with_shapes

    if not hasattr(arm, "joint_index"):          # the RRRP arm
        from .formulations.rrrp_fem import am_modes

        def lines(x, ns):
            c = arm.centerlines(x, n_samples=ns)
            return np.stack([c["arm1"], c["arm2"], c["arm3"]])

        modes = am_modes(arm, q, min(DEFAULT_MODES, 4) if n is None else n)
        return [with_shapes(modes, lines), None], (
            "locked: the three joints and the extension a held, gravity included; free: "
            "not computed (under gravity the arm has no equilibrium with free joints)")
    from .spatial import equations

    rows = []
    for joints in JOINTS:
        for k in ([n] if n is not None else range(DEFAULT_MODES, 0, -1)):
            try:                          # up to DEFAULT_MODES, as many as there are
                modes = natural_modes(arm, k, q, joints=joints)
                break
            except ParameterError:
                if n is not None:
                    raise
                modes = None
        rows.append(modes and with_shapes(
            modes, lambda x, ns: equations.centerlines(arm.model, x, ns)[0]))
    return rows, ("locked: each link clamped at its hub; free: joints turn (slide) "
                  "freely, rigid-body modes left out"
                  + ("; gravity included" if np.any(arm.gravity) else "")
                  + ("; the drives add their output inertia J2 to the hubs" if arm.drives
                     else ""))


def cmd_view(args):
    from .viz.viewer import require_pyvista, view

    _check_scale("--scale", args.scale)
    require_pyvista()                       # the missing extra is named before anything else
    if args.screenshot is not None:
        if os.path.splitext(args.screenshot)[1].lower() != ".png":
            raise ParameterError("--screenshot", args.screenshot, "must end with .png")
        path = check_output_file("--screenshot", args.screenshot)
        existed = _existing(path)
        _report_written(view(args.source, scale=args.scale, screenshot=path,
                             frame=args.frame), existed)
    else:
        view(args.source, scale=args.scale, option="--screenshot", frame=args.frame)
    return 0


#: `plot`: file formats of the figure, by suffix.
PLOT_FORMATS = (".png", ".pdf", ".svg")


def cmd_plot(args):
    from .result import Result, plot

    out = args.out or (os.path.splitext(args.results[0])[0] + "_plot.png")
    if os.path.splitext(out)[1].lower() not in PLOT_FORMATS:
        raise ParameterError("--out", out, f"must end with {', '.join(PLOT_FORMATS)}")
    out = check_output_file("--out", out)
    labels = None
    if args.labels is not None:
        labels = args.labels.split(",")
        if len(labels) != len(args.results):
            raise ParameterError("--labels", args.labels, f"must give {len(args.results)} "
                                                          "comma-separated labels, one per file")
    results = []
    for path in args.results:
        if not os.path.isfile(path):
            raise ParameterError("RESULT", path, "does not exist (a .npz written by `run`)")
        try:
            results.append(Result.from_npz(path))
        except (OSError, ValueError, KeyError) as exc:
            raise ParameterError("RESULT", path, f"is not a result file written by `run` "
                                                 f"({exc})") from None
    if labels is None and len(results) > 1:
        labels = [os.path.splitext(os.path.basename(p))[0] for p in args.results]
    existed = _existing(out)
    plot(results, labels=labels, path=out, title=args.title)
    _report_written(out, existed)
    return 0


def cmd_identify(args):
    from .drive.identify import identify_command

    print(identify_command(args.file))
    return 0


def _print_spatial_engine(rows):
    print("Spatial engine on the planar case (wall time s, spatial / planar; target <= 1.5):")
    for r in rows:
        print(f"  {r['settings']:14s} planar {r['planar_s']:8.3f}  spatial {r['spatial_s']:8.3f}"
              f"  ratio {r['ratio']:6.2f}  nq {r['nq']}  difference {r['difference']:.1e}")
        if "work" in r:
            print("  " + " " * 14 + " work (planar, spatial): "
                  + "  ".join(f"{k} {v[0]}, {v[1]}" for k, v in r["work"].items()))


def cmd_compile(args):
    from .warmup import FAMILIES, warm_up_parallel

    families = FAMILIES if args.family == "all" else (args.family,)
    done = warm_up_parallel(ck.positive_int("--jobs", args.jobs), families)
    for family in families:
        code, wall, error = done[family]
        print(f"{family}: {'compiled or loaded' if code == 0 else f'FAILED (exit {code})'}"
              f" in {wall:.1f} s")
        if code != 0:
            print(error, file=sys.stderr)
    return 0 if all(code == 0 for code, _, _ in done.values()) else 1


def cmd_bench(args):
    from . import engines
    from .bench import (bench_beams, bench_chrono_element, bench_drive_step, bench_render,
                        bench_slider_crank_formulations, bench_spatial_engine,
                        bench_spatial_forcing, bench_spatial_hub)

    if args.what != "perf":
        _refuse_unused(args, ("quick", "verbose"), f"with `bench {args.what}` (perf only)")
        if args.repeat != 1:
            raise ParameterError("--repeat", args.repeat, f"cannot be used with "
                                                          f"`bench {args.what}` (perf only)")
    if args.what != "render" and args.frames != 200:
        raise ParameterError("--frames", args.frames, f"cannot be used with "
                                                      f"`bench {args.what}` (render only)")
    if args.what == "render":
        _check_frames("--frames", args.frames)
    if args.what == "perf":
        from .bench_perf import format_report, perf_benchmark

        log = (lambda msg: print(msg, file=sys.stderr, flush=True)) if args.verbose else None
        bench = perf_benchmark(quick=args.quick, repeat=ck.positive_int("--repeat", args.repeat),
                               log=log)
        for line in format_report(bench):
            print(line)
        return 0
    if args.what == "render":
        b = bench_render(n_frames=args.frames)
        print(f"Render: {b['n_frames']} frames of {b['case']} ({b['engine']} engine) to a GIF")
        print(f"  simulate (not included)    {b['simulate_s']:10.2f} s")
        print(f"  render {b['n_frames']} frames          {b['render_s']:10.2f} s")
        print(f"  per frame                  {b['ms_per_frame']:10.1f} ms")
        print(f"  GIF size                   {b['gif_bytes'] / 1e6:10.2f} MB")
        return 0
    if args.what == "spatial":
        _print_spatial_engine(bench_spatial_engine())
        return 0
    print("Drive module, one fixed step (microseconds):")
    for k, v in bench_drive_step().items():
        print(f"  {k:40s} {v:10.2f}" if isinstance(v, float) else f"  {k:40s} {v}")
    print("Spatial link, one evaluation of M(q) and f (microseconds):")
    for k, v in bench_spatial_forcing().items():
        print(f"  {k:40s} {v:10.2f}" if isinstance(v, float) else f"  {k:40s} {v}")
    _print_spatial_engine(bench_spatial_engine())
    ok, why = engines.pychrono_available()
    if not ok:
        print(f"Chrono benchmarks skipped: {why}")
        return 0
    print("Wall time per simulated second (s), single link:")
    for row in bench_chrono_element():
        print(f"  {'custom element':16s} {row['n_elements']:>3} elements "
              f"{row['wall_per_sim_second']:10.3f}")
    for n, v in bench_beams().items():
        print(f"  {'Chrono beams':16s} {n:>3} elements {v:10.3f}")
    print("Wall time per simulated second (s), flexible slider-crank (welded pin, 4 "
          "elements, 1 ms), and its ratio to Chrono's beams:")
    crank_rows = bench_slider_crank_formulations()
    load, load0 = crank_rows[-1]["load"], crank_rows[-1]["load_start"]
    print(f"  (best of {len(crank_rows[-1]['round_ratios'])} rounds each; then the median "
          "of the rounds' ratios, and the processor-time ratio" +
          ("" if load is None else f"; load average {load0:.1f} to {load:.1f}") + ")")
    for r in crank_rows:
        if r["formulation"] == "element":
            name = f"custom element, {r['jacobian']}, K by {r['differences']}"
            calls = f"   ({r['compute_q_calls_per_step']:.0f} ComputeQ calls per step)"
        else:
            name, calls = "Chrono beams", ""
        print(f"  {name:40s} {r['wall_per_sim_second']:10.3f}  x{r['ratio']:7.2f}  median "
              f"x{r['median_ratio']:.2f}  cpu x{r['cpu_ratio']:.2f}{calls}")
    print("Wall time per simulated second (s), free hub with two spatial links (4 elements "
          "each, 1 ms), and its ratio to Chrono's spatial beams:")
    for r in bench_spatial_hub():
        print(f"  {r['formulation']:40s} {r['wall_per_sim_second']:10.3f}  x{r['ratio']:7.2f}")
    return 0
