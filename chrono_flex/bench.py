"""Benchmarks: scripts that print figures, never timed tests (``chrono-flex bench``).

* :func:`bench_drive_step`: one fixed step of the whole drive module (Serebrenny et al.
  2019, eq. 24, with the output shaft), static and dynamic friction.
* :func:`bench_chrono_element`: wall time per simulated second of a single link of
  Bien & My (2018) as the custom Chrono element, per element count.
* :func:`bench_beams`: the same for a single-link case built from Chrono's beams.
* :func:`bench_slider_crank`: the same for a scene with a welded body, the flexible
  slider-crank (docs/chrono.md §8).
* :func:`bench_spatial_hub`: the same for a spatial scene, the free hub with two
  links, as the spatial custom element and as Chrono's spatial beams.
* :func:`bench_render`: wall time of a GIF of a case run.
* :func:`bench_spatial_forcing`: one evaluation of M(q) and f of the spatial link's
  equations (docs/spatial-link.md §4) for a hub with two links, per element count.
* :func:`bench_spatial_engine`: the same arm through the planar engine and through the
  spatial engine as a tree with z axes, and the ratio of their wall times.

This module sits at the top with the command line: it may use the scenario catalogue
and every engine; nothing imports it.
"""

import os
import statistics
import tempfile
import time

from . import _checks as ck
from . import scenarios
from .errors import ParameterError
from .drive.fixed_step import FixedStepDrive
from .drive.gear_drive import DriveParams, GearDrive
from .planar.arm import PlanarArm
from .planar.params import Payload
from .spatial.arm import SpatialArm


def _best_of(fn, n, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(n)
        best = min(best, time.perf_counter() - t0)
    return 1e6 * best / n


def bench_drive_step(n=20000, repeat=3, voltage=12.0):
    """Microseconds per call on this machine (best of ``repeat`` runs of ``n`` calls).

    Keys: "{friction}_{method}_step_us" for friction in (static, dynamic) and method in
    (rk4, euler): one FixedStepDrive.step of the [S] drive, sliding at speed after a
    12 V start (the drive states plus the output shaft, at the stable step bound);
    "{friction}_rates_tuple_us": one scalar evaluation of the drive's rates;
    "{friction}_rates_us": one call of the ndarray contract GearDrive.rates.
    """
    n = ck.positive_int("n", n)
    repeat = ck.positive_int("repeat", repeat)
    out = {}
    for friction in ("static", "dynamic"):
        drive = GearDrive(DriveParams.serebrenny2019(friction=friction))
        for method in ("rk4", "euler"):
            stepper = FixedStepDrive(drive, drive.max_stable_step(method), method)
            for _ in range(2000):  # leave the start, get into motion
                stepper.step(voltage)

            def run(k, s=stepper):
                step = s.step
                for _ in range(k):
                    step(voltage, 0.0)

            out[f"{friction}_{method}_step_us"] = _best_of(run, n, repeat)
        x = list(stepper.y)

        def tup(k, f=drive.rates_tuple, x=x):
            for _ in range(k):
                f(x[0], x[1], x[2], x[3], x[4], x[5], voltage)

        def arr(k, f=drive.rates, x=stepper.x, a=x[4], w=x[5]):
            for _ in range(k):
                f(0.0, x, a, w, voltage)

        out[f"{friction}_rates_tuple_us"] = _best_of(tup, n, repeat)
        out[f"{friction}_rates_us"] = _best_of(arr, n, repeat)
    return out


def bench_chrono_element(n_elements_list=(1, 4, 16), t_sim=0.2, step=1e-3,
                         timestepper="hht", jacobian="auto"):
    """Wall time per simulated second of a single [B] link (payload 0.1 kg, torque
    pulse) with n elements, for each n in ``n_elements_list``.

    Returns a list of dicts: n_elements, nq, wall_per_sim_second (s/s), steps_per_second,
    compute_q_calls_per_step, compute_q_us (the element's work in one ComputeQ call,
    timed alone) and loop_us_per_call (the whole stepping loop divided by the calls:
    adds Chrono's own work and the director crossings).
    """
    from .chrono.engine import simulate_chrono

    out = []
    for n in n_elements_list:
        n = ck.positive_int("n_elements_list[...]", n)
        arm = PlanarArm([scenarios.bien_link(1.0, n)], payload=Payload(0.1))
        torque = scenarios.pulse(0.4, 2.0)
        res = simulate_chrono(arm, t_sim, torque=torque, step=step, timestepper=timestepper,
                              jacobian=jacobian, dt_out=t_sim, n_samples=2, progress=False)
        loop = res.info["wall_time"]
        calls = res.info["compute_q_calls"]
        out.append(dict(n_elements=n, nq=arm.nq,
                        wall_per_sim_second=loop / t_sim,
                        steps_per_second=res.info["n_steps"] / loop,
                        compute_q_calls_per_step=calls / res.info["n_steps"],
                        compute_q_us=_compute_q_cost(arm) * 1e6,
                        loop_us_per_call=loop / calls * 1e6))
    return out


def _compute_q_cost(arm, repeat=200):
    """Mean wall time (s) of the element's work in one ComputeQ call (terms, torque,
    injection, SWIG transfers), measured outside the solver on a live element."""
    from .chrono._detect import require_pychrono
    from .chrono.element import FlexibleLink
    from .chrono.system import configure_system, step as step_system

    chrono = require_pychrono()
    system = chrono.ChSystemNSC()
    configure_system(system)
    link = FlexibleLink(system, arm, torque=scenarios.pulse(0.4, 2.0))
    step_system(system, 1e-3)
    x = chrono.ChState()
    w = chrono.ChStateDelta()
    x.SetVect(link.q().tolist())
    w.SetVect(link.qd().tolist())
    link._stiff_now = link._chrono_differences = False
    t0 = time.perf_counter()
    for k in range(repeat):
        link._injected_key = None
        link.compute_q(link.load, x, w)
    return (time.perf_counter() - t0) / repeat


def bench_slider_crank(t_sim=0.1, step=1e-3, jacobian="step", formulation="element",
                       differences="arrays"):
    """Wall time per simulated second of the flexible slider-crank
    (:class:`chrono_flex.chrono.scenes.SliderCrank`: a 4-element rod on a turning crank,
    its tip welded to a pin in a slider) with the rod as ``formulation`` ("element": the
    papers' element, with ``jacobian`` and K, R differenced as ``differences`` says,
    :attr:`FlexibleLink.differences <chrono_flex.chrono.element.FlexibleLink.differences>`;
    "beam": Chrono's beams), the process's processor time per simulated second
    (``cpu_per_sim_second``: what the run itself costs, whatever else the machine runs),
    and, for the element, its ComputeQ calls per step (None for the beams)."""
    from .chrono import scenes

    t_sim, step = ck.positive("t_sim", t_sim), ck.positive("step", step)
    sc = scenes.SliderCrank(jacobian=jacobian, formulation=formulation)
    if sc.formulation == "element":
        sc.link.differences = differences
    c0, t0 = time.process_time(), time.perf_counter()
    scenes.run(sc.system, step, t_sim, lambda: 0.0)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    n_steps = int(round(t_sim / step))
    calls = sc.link.n_compute_q / n_steps if sc.formulation == "element" else None
    return dict(formulation=sc.formulation, jacobian=jacobian if calls is not None else None,
                differences=differences if calls is not None else None,
                wall_per_sim_second=wall / t_sim, cpu_per_sim_second=cpu / t_sim,
                compute_q_calls_per_step=calls)


def bench_slider_crank_formulations(t_sim=0.1, step=1e-3, repeat=5):
    """:func:`bench_slider_crank` side by side in one process: the element with its
    Jacobian rebuilt every step ("step") and kept while Newton converges fast ("auto"),
    each with K and R differenced on arrays (the default) and by Chrono's loop over
    ComputeQ calls (as before), and Chrono's beams; each row gets ``ratio``, its wall
    time over the beams'. The configurations run in turn, ``repeat`` rounds, and each
    keeps its best round (the machine's other work only slows a run down);
    ``round_ratios``: its wall time over the beams' in each round (the two measured a
    few tenths of a second apart, so under the same load) and ``median_ratio`` their
    median, which one disturbed round cannot move (the best-of ratio can: a round
    where the beams alone were slowed); ``cpu_ratio`` and ``cpu_median_ratio``: the
    same of the processor times (``cpu_per_sim_second``, best round), which other
    processes on the machine change far less than the wall times; ``load_start`` and
    ``load``: the 1-minute load average before the first round and at the end."""
    repeat = ck.positive_int("repeat", repeat)
    load_start = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    bench_slider_crank(2 * step, step)     # warm-up: the compiled kernels load once
    bench_slider_crank(2 * step, step, "auto")
    configs = [dict(jacobian=jac, formulation="element", differences=diff)
               for jac in ("step", "auto") for diff in ("chrono", "arrays")]
    configs.append(dict(formulation="beam"))
    rows = [None] * len(configs)
    walls = [[] for _ in configs]
    cpus = [[] for _ in configs]
    for _ in range(repeat):
        for i, cfg in enumerate(configs):
            r = bench_slider_crank(t_sim, step, **cfg)
            walls[i].append(r["wall_per_sim_second"])
            cpus[i].append(r["cpu_per_sim_second"])
            if rows[i] is None or r["wall_per_sim_second"] < rows[i]["wall_per_sim_second"]:
                rows[i] = r
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    for r, w, c in zip(rows, walls, cpus):
        r["ratio"] = r["wall_per_sim_second"] / rows[-1]["wall_per_sim_second"]
        r["round_ratios"] = [a / b for a, b in zip(w, walls[-1])]
        r["median_ratio"] = float(statistics.median(r["round_ratios"]))
        r["cpu_per_sim_second"] = min(c)
        r["cpu_ratio"] = min(c) / min(cpus[-1])
        r["cpu_median_ratio"] = float(statistics.median([a / b for a, b in zip(c, cpus[-1])]))
        r["load_start"], r["load"] = load_start, load
    return rows


def bench_beams(n_elements_list=(1, 4, 16), t_sim=0.5, step=1e-3, case="kozlowski-1link"):
    """Wall time per simulated second of a single-link case, per element count.

    Returns {n_elements: seconds of wall time per simulated second} for ``case``
    (default the Kozlowski pendulum) run for ``t_sim`` s at ``step`` with outputs every
    10 steps, after a warm-up run (first import of PyChrono). Includes building the
    system and the Python read-out.
    """
    from .chrono.beams import simulate_beams

    t_sim = ck.positive("t_sim", t_sim)
    arm, kw = scenarios.get(case).arm_and_kwargs()
    if len(arm.links) != 1:
        raise ParameterError("case", case, "must be a single-link case")
    kw.pop("t_end", None)
    kw["dt_out"] = 10 * step
    simulate_beams(arm, 10 * step, step=step, n_elements=1, progress=False, **kw)   # warm-up
    out = {}
    for n in n_elements_list:
        n = ck.positive_int("n_elements_list[]", n)
        t0 = time.perf_counter()
        simulate_beams(arm, t_sim, step=step, n_elements=n, progress=False, **kw)
        out[n] = (time.perf_counter() - t0) / t_sim
    return out


def bench_render(case="bien-2link", n_frames=200, path=None, engine="reference"):
    """Wall time to write an ``n_frames``-frame GIF of a case run.

    The case is simulated first (timed apart); then :func:`render_animation` writes the
    GIF (automatic exaggeration, colour by strain when the engine gave curvature) to
    ``path`` (default: a temporary file, removed afterwards). Returns a dict: case,
    engine, n_frames, simulate_s, render_s, ms_per_frame, gif_bytes.
    """
    from . import engines
    from .viz.render import render_animation, suggest_scale

    n_frames = ck.positive_int("n_frames", n_frames)
    t0 = time.perf_counter()
    res = engines.run_case(case, engine)
    simulate_s = time.perf_counter() - t0
    frames = min(n_frames, len(res.t))
    color_by = "strain" if res.curvature is not None else "deflection"
    with tempfile.TemporaryDirectory() as tmp:
        out = os.fspath(path) if path is not None else os.path.join(tmp, f"{case}.gif")
        t0 = time.perf_counter()
        render_animation(res, out, scale=suggest_scale(res), n_frames=frames, color_by=color_by)
        render_s = time.perf_counter() - t0
        size = os.path.getsize(out)
    return dict(case=case, engine=res.engine, n_frames=frames, simulate_s=simulate_s,
                render_s=render_s, ms_per_frame=1e3 * render_s / frames, gif_bytes=size)


__all__ = ["bench_drive_step", "bench_chrono_element", "bench_beams", "bench_render",
           "bench_slider_crank", "bench_slider_crank_formulations", "bench_spatial_forcing",
           "bench_spatial_hub"]


def bench_spatial_forcing(n_elements_list=(2, 4, 8), n=100, repeat=3):
    """Microseconds per evaluation of (M, f) of a SpatialArm: a free hub carrying two
    links at 180 degrees (the case spatial-link.hub-two-links), per element count.
    Returns {"hub_two_links_{n}el_us": us} with the coordinate count in
    "hub_two_links_{n}el_nq"."""
    import math

    import numpy as np

    from .spatial import FixedJoint, RevoluteJoint, RigidBody, SpatialArm, SpatialLink, turned
    from .spatial import equations as smdl

    out = {}
    x_b, y_b = turned(math.pi)
    joints = [RevoluteJoint(axis=(0, 0, 1)), FixedJoint(offset=(0.1, 0, 0)),
              FixedJoint(offset=(-0.1, 0, 0), x_axis=x_b, y_axis=y_b)]
    for ne in n_elements_list:
        link = SpatialLink(1.2, ne, EI_y=3.0, EI_z=1.2, GJ=0.8, rho_A=0.5, rho_Ip=2e-3)
        arm = SpatialArm([RigidBody(2.0, (0.0, 0.0, 0.05)), link, link], joints, [-1, 0, 0])
        rng = np.random.default_rng(1)
        q, qd, Q = 0.01 * rng.normal(size=arm.nq), rng.normal(size=arm.nq), np.zeros(arm.nq)

        def calls(k, arm=arm, q=q, qd=qd, Q=Q):
            for _ in range(k):
                smdl.forcing(arm.model, q, qd, Q)

        out[f"hub_two_links_{ne}el_us"] = _best_of(calls, n, repeat)
        out[f"hub_two_links_{ne}el_nq"] = arm.nq
    return out


def _planar_and_spatial(n_elements):
    """A hub (0.05 kg m^2) with two links (1.0 m and 0.5 m, EI = 1.04 N m^2, rho_A =
    0.196 kg/m) and a 0.1 kg payload, as a PlanarArm and as a SpatialArm with its joint
    axes along z (docs/spatial-link.md §5.2), and the index in the spatial q of each
    planar coordinate."""
    from .planar.params import Link, RevoluteJoint as PlanarJoint
    from .spatial import FixedJoint, RevoluteJoint, RigidBody, SpatialLink

    dims = ((1.0, 1.04, 0.196), (0.5, 1.04, 0.196))
    p = PlanarArm([Link(L, n_elements, EI=EI, rho_A=r) for L, EI, r in dims],
                  joints=[PlanarJoint(hub_inertia=0.05), PlanarJoint()],
                  payload=Payload(0.1, 1e-3))
    s = SpatialArm([SpatialLink(L, n_elements, EI_y=2.0, EI_z=EI, GJ=1.0, rho_A=r,
                                rho_Ip=1e-3) for L, EI, r in dims]
                   + [RigidBody(0.1, (0.0, 0.0, 1e-3))],
                   joints=[RevoluteJoint(axis=(0, 0, 1), hub_inertia=0.05),
                           RevoluteJoint(axis=(0, 0, 1)), FixedJoint()], parents=[-1, 0, 1])
    idx = []
    for b in range(2):
        idx.append(s.model.layout.bodies[b].joint_index)
        idx += list(s.elastic_indices(b)[:, :2].ravel())
    return p, s, idx


def bench_spatial_engine(t_end=0.5, step=1e-3, n_elements=4, repeat=3):
    """Wall time (s, best of ``repeat`` after one run that compiles) of the arm of
    :func:`_planar_and_spatial` through ``PlanarArm.simulate`` and through
    ``SpatialArm.simulate``, side by side in one process, for ``t_end`` s under a torque
    pulse on both joints: at a fixed ``step`` and at the default settings
    (generalized-alpha's step control). Returns rows {"settings", "planar_s",
    "spatial_s", "ratio" (spatial / planar), "nq" (planar, spatial), "work" (steps,
    evaluations of the terms, Jacobians, LU factorisations and rejected steps of each run,
    (planar, spatial): the same motion should take the same work), "difference" (max
    |q_spatial - q_planar| of the in-plane coordinates over max |q_planar|)}."""
    import numpy as np

    from .inputs import pulse

    repeat = ck.positive_int("repeat", repeat)
    p, s, idx = _planar_and_spatial(ck.positive_int("n_elements", n_elements))
    torque = pulse([0.1, 0.02], t_end)
    rows = []
    for settings in (dict(step=step), {}):
        kw = dict(torque=torque, progress=False, **settings)
        best = {}
        res = {}
        for name, arm in (("planar", p), ("spatial", s)):
            res[name] = arm.simulate(t_end, **kw)          # compiles (or loads) the kernels
        for _ in range(repeat):
            for name, arm in (("planar", p), ("spatial", s)):
                t0 = time.perf_counter()
                arm.simulate(t_end, **kw)
                best[name] = min(best.get(name, np.inf), time.perf_counter() - t0)
        qp, qs = res["planar"].q, res["spatial"].q[:, idx]
        rows.append(dict(settings=f"step {step:g} s" if settings else "default",
                         planar_s=best["planar"], spatial_s=best["spatial"],
                         ratio=best["spatial"] / best["planar"], nq=(p.nq, s.nq),
                         newton=(res["planar"].info.get("newton"),
                                 res["spatial"].info.get("newton")),
                         work={k: (res["planar"].info.get(k), res["spatial"].info.get(k))
                               for k in ("n_steps", "nfev", "njev", "nlu", "rejected")},
                         difference=float(np.abs(qs - qp).max() / np.abs(qp).max())))
    return rows


def bench_spatial_hub(n_elements=4, t_sim=0.05, step=1e-3, jacobian="auto", numpy_path=False):
    """Wall time per simulated second of the free hub with two links
    (:func:`chrono_flex.scenarios.spatial.hub_two_links`, a torque pulse on the hub) as
    the spatial custom element (:class:`~chrono_flex.chrono.spatial_element.SpatialFlexibleLink`,
    ``jacobian``) and as Chrono's spatial beams
    (:func:`~chrono_flex.chrono.spatial_beams.arm_from_beams`), side by side at the same
    element count and step; each row gets ``ratio``, its wall time over the beams'.
    ``numpy_path``: also the element on its numpy path (``compiled=False``), row
    "element-numpy"."""
    from .chrono import scenes
    from .chrono.spatial_beams import arm_from_beams
    from .chrono.spatial_element import SpatialFlexibleLink
    from .inputs import pulse
    from .scenarios.spatial import hub_two_links

    t_sim, step = ck.positive("t_sim", t_sim), ck.positive("step", step)
    torque = pulse([0.02], 1.0)

    def timed(formulation, t_run):
        arm = hub_two_links(int(n_elements))
        system = scenes.new_system()
        if formulation.startswith("element"):
            SpatialFlexibleLink(system, arm, torque=torque, jacobian=jacobian,
                                compiled=formulation == "element")
        else:
            arm_from_beams(system, arm, torque=torque)
        t0 = time.perf_counter()
        scenes.run(system, step, t_run, lambda: 0.0)
        return arm, time.perf_counter() - t0

    rows = []
    timed("element", 2 * step)        # warm-up: the compiled load kernels load once
    for formulation in ("element",) + (("element-numpy",) if numpy_path else ()) + ("beam",):
        arm, wall = timed(formulation, t_sim)
        rows.append(dict(formulation=formulation, n_elements=int(n_elements), nq=arm.nq,
                         wall_per_sim_second=wall / t_sim))
    for r in rows:
        r["ratio"] = r["wall_per_sim_second"] / rows[-1]["wall_per_sim_second"]
    return rows
