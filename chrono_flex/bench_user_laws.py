"""The user-law lines of the work-precision benchmark (:mod:`chrono_flex.bench_perf`): a
sampled Python controller against Exudyn with its Python user function, and a plain
Python torque f(t, q, qd) in times faster than real time."""

import bisect
import math
import os
import time

from . import _checks as ck
from . import inputs, scenarios
from .bench_tools import (DT_OUT, FULL, QUICK, Problem, Trajectory, errors,
                          run_tool)
from .planar.arm import PlanarArm
from .planar.params import Payload


#: The bang-bang torque of the user-law lines: +0.1 N m for 1 s, -0.1 N m for 1 s, then
#: none ([B]'s link, the amplitude of its torque pulse).
BANG_BANG = (0.1, 2.0)

#: The sample period of the controller line, s (1 kHz).
CONTROLLER_PERIOD = 1e-3

#: The targets the two lines are printed against: the controller line's wall time at
#: most Exudyn's at the same accuracy (both with a Python user law,
#: :func:`matched_wall`); the plain torque's run at least ten times faster than real
#: time.
RATIO_TARGET, REALTIME_TARGET = 1.0, 10.0


def bang_bang_link(n_elements=4, t_end=3.0):
    """A [B] link (L = 1 m) with a 0.1 kg tip mass, no gravity, turned by the bang-bang
    torque :data:`BANG_BANG` (an input profile: ``problem.torque``)."""
    torque = inputs.bang_bang(*BANG_BANG)
    return Problem("P3", "bang-bang link, tip mass, no gravity",
                   lambda n: PlanarArm([scenarios.bien_link(1.0, n)], payload=Payload(0.1)),
                   t_end, n_elements, dict(torque=torque), ("tip",), {"tip": 0.01}, 0.0,
                   torque)


def matched_wall(points, error):
    """The wall time a tool takes to reach the tip error ``error``, read off its
    work-precision points ``points`` ((wall s, error) per run): on the points no other
    run beats in both (the front: a run that is slower and less accurate than another
    is no setting anyone would choose), ``log wall`` interpolated linearly in
    ``log error`` between the two front points around ``error``. Returns (wall, how):
    ``how`` is "interpolated", or "extrapolated" when ``error`` lies outside the front's
    errors (then the line through its two nearest points, a guess to be read as such);
    (None, "no front") with fewer than two front points."""
    front = []
    for wall, err in sorted(points, key=lambda p: (p[1], p[0])):
        if wall > 0 and err > 0 and (not front or wall < front[-1][0]):
            front.append((float(wall), float(err)))
    if len(front) < 2:
        return None, "no front"
    inside = front[0][1] <= error <= front[-1][1]
    i = min(max(bisect.bisect_left([e for _, e in front], error), 1), len(front) - 1)
    (w0, e0), (w1, e1) = front[i - 1], front[i]
    s = math.log(error / e0) / math.log(e1 / e0)
    return math.exp(math.log(w0) + s * math.log(w1 / w0)), \
        "interpolated" if inside else "extrapolated"


def _default_run(problem, torque):
    """(Trajectory, wall s) of the reference engine at its default settings with
    ``torque``."""
    start = time.perf_counter()
    res = problem.arm().simulate(problem.t_end, torque=torque, dt_out=DT_OUT, progress=False)
    return Trajectory.of(res), time.perf_counter() - start, res.info


def user_laws(quick=False, tools=(), repeat=3):
    """The two user-law lines; returns a dict:

    * ``controller``: the bang-bang link (:func:`bang_bang_link`, 4 elements, 3 s; quick
      0.5 s) with the torque a Python controller sampled at 1 kHz
      (:func:`chrono_flex.inputs.sampled` of a function of (t, q, qd) returning the
      bang-bang value) on the reference engine at its default settings, against Exudyn
      (when "exudyn" is in ``tools``) with the same torque as its Python load user
      function, at the steps of :data:`FULL` ["P1"] (quick: :data:`QUICK`); each
      against its own converged run (Radau rtol 1e-9; Exudyn at 1e-5 s, quick 1e-4).
      Wall times: the best of ``repeat`` rounds, each round one run of ours and one of
      Exudyn at every step, in turn (after an untimed round), so that both sides see
      the same machine (``load``: the load average after them).
      Two ratios of the reference run's wall time to Exudyn's: at matched accuracy,
      Exudyn's wall time at the reference run's own tip error (``matched``: (wall,
      how), :func:`matched_wall` on Exudyn's runs; the honest comparison: a tool is as
      fast as its cost at the accuracy delivered), and to Exudyn's cheapest run within
      1 % of the tip's range (printed for comparison with earlier figures; it compares
      runs of different accuracies: the reference run may be more accurate than that
      Exudyn run);
    * ``plain``: Bien's link with 8 elements over 10 s (quick 1 s) with a plain Python
      torque f(t, q, qd) (the bang-bang value; the engine cannot know it reads no
      state) at the default settings, against generalized-alpha at a fixed 1e-4 s with
      the torque as a profile (quick: 2e-4 s; second order: over the first 2 s, 1e-4 s
      is within 6e-4 of the tip's range of 5e-5 s); wall time, times faster than
      real time, tip error / range.
    """
    repeat = ck.positive_int("repeat", repeat)
    bb = inputs.bang_bang(*BANG_BANG)
    out = {}
    p = bang_bang_link(4, 0.5 if quick else 3.0)
    law = inputs.sampled(lambda t, q, qd: bb(t), CONTROLLER_PERIOD)
    ref = run_tool(p, "radau", 1e-9)[0]
    table = (QUICK if quick else FULL)["P1"]
    steps = table["exudyn"] if "exudyn" in tools else ()
    # one untimed round (the trajectories), then ``repeat`` rounds each running ours and
    # Exudyn at every step in turn: a swing of the machine's speed then falls on both
    # sides' runs alike, and the best of each compares like with like
    traj, _, info = _default_run(p, law)
    exu = {h: run_tool(p, "exudyn", h)[0] for h in steps}
    walls, exu_walls = [], {h: [] for h in steps}
    for _ in range(repeat):
        walls.append(_default_run(p, law)[1])
        for h in steps:
            exu_walls[h].append(run_tool(p, "exudyn", h)[1])
    row = dict(wall=min(walls), error=errors(p, traj, ref)["tip"], repeat=repeat,
               load=os.getloadavg()[0], n_steps=info["n_steps"],
               samples=info["n_samples_taken"], exudyn=[])
    if steps:
        fine = run_tool(p, "exudyn", table["converged"]["exudyn"])[0]
        row["exudyn"] = [(h, min(exu_walls[h]), errors(p, exu[h], fine)["tip"]) for h in steps]
        row["matched"] = matched_wall([r[1:] for r in row["exudyn"]], row["error"])
    out["controller"] = (p, row)
    p = bang_bang_link(8, 1.0 if quick else 10.0)
    ref = run_tool(p, "galpha", 2e-4 if quick else 1e-4)[0]
    runs = [_default_run(p, lambda t, q, qd: bb(t)) for _ in range(repeat)]
    traj, info = runs[0][0], runs[0][2]
    wall = min(r[1] for r in runs)
    out["plain"] = (p, dict(wall=wall, error=errors(p, traj, ref)["tip"],
                            n_steps=info["n_steps"], realtime=p.t_end / wall))
    return out


def _format_user_laws(laws):
    lines = []
    p, row = laws["controller"]
    lines.append(f"{p.key}: {p.title}, {p.t_end:g} s, {p.n_elements} elements; torque a "
                 f"Python controller sampled at {1 / CONTROLLER_PERIOD:g} Hz")
    if "repeat" in row:
        lines.append(f"  wall times: best of {row['repeat']} rounds, ours and Exudyn's runs "
                     f"in turn; load average {row['load']:.1f}")
    lines.append(f"  reference engine, default settings: {row['wall']:.3f} s "
                 f"({p.t_end / row['wall']:.1f} times faster than real time), tip err / "
                 f"range {row['error']:.2e}, {row['n_steps']} steps, {row['samples']} "
                 "samples")
    ok = [r for r in row["exudyn"] if r[2] <= p.targets["tip"]]
    for h, wall, err in row["exudyn"]:
        lines.append(f"  Exudyn, Python user function, h {h:.2e} s: {wall:.3f} s, tip err "
                     f"/ range {err:.2e}" + ("  *" if err <= p.targets["tip"] else ""))
    if ok:
        best = min(ok, key=lambda r: r[1])
        lines.append(f"  reference engine / Exudyn (cheapest within 1 %, h {best[0]:g} s): "
                     f"{row['wall'] / best[1]:.2f}")
    wall, how = row.get("matched", (None, ""))
    if wall is not None:
        lines.append(f"  reference engine / Exudyn at matched accuracy (Exudyn's wall time "
                     f"at tip err / range {row['error']:.2e}, {how} log-log on its runs"
                     + (", outside their errors" if how == "extrapolated" else "")
                     + f": {wall:.3f} s): {row['wall'] / wall:.2f} (target: at most "
                     f"{RATIO_TARGET:g})")
    p, row = laws["plain"]
    lines.append(f"Bien's link, {p.n_elements} elements, {p.t_end:g} s, plain Python torque "
                 f"f(t, q, qd), default settings: {row['wall']:.3f} s, "
                 f"{row['realtime']:.1f} times faster than real time (target: at least "
                 f"{REALTIME_TARGET:g}), tip err / range {row['error']:.2e}, "
                 f"{row['n_steps']} steps")
    return lines
