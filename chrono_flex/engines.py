"""One entry point for the three engines that run a PlanarArm scenario.

* ``reference``: the numpy/scipy integration of the assembled Lagrange equations.
* ``chrono``: the same equations as a custom Chrono item (needs PyChrono).
* ``chrono-beam``: the links rebuilt from Chrono's own corotational Euler beams.

All return :class:`chrono_flex.result.Result`.
"""

from . import _checks as ck
from .errors import ParameterError, PyChronoUnavailable
from .planar.description import run_settings
from . import scenarios

ENGINES = ("reference", "chrono", "chrono-beam")


def pychrono_available():
    """(True, "") when the real PyChrono imports, else (False, reason)."""
    from .chrono._detect import pychrono_status

    return pychrono_status()


def resolve(engine, case=None):
    """``auto`` -> chrono when PyChrono is present (and ``case``, if given, runs on it),
    else reference."""
    if engine == "auto":
        ok, _ = pychrono_available()
        return "chrono" if ok and (case is None or "chrono" in case.engines) else "reference"
    if engine not in ENGINES:
        raise ParameterError("engine", engine, f"must be one of {ENGINES + ('auto',)}")
    return engine


#: Output samples per period of the highest bending frequency of interest
#: (:func:`resolving_dt_out`): a sampled sine's peaks are then within 1 - cos(pi / 10)
#: = 5 % of its amplitude, and its plot shows the oscillation, not an alias of it.
POINTS_PER_PERIOD = 10


def resolving_dt_out(arm, dt_out, points_per_period=POINTS_PER_PERIOD):
    """(dt, f) with f (Hz) the highest of the arm's first bending frequencies, one per
    link, with the joints free (what a run excites: the arm's own vibration, joints
    moving), and dt the output step that samples it at ``points_per_period`` or more:
    ``dt_out`` when it already does, else the largest 1, 2 or 5 x 10^k below
    1 / (points_per_period f). f is None (and dt = ``dt_out``) where the arm's modes
    cannot be computed (no elastic coordinates, a pose that is no equilibrium, an arm
    without ``links``: a spatial tree or the RRRP arm)."""
    import math

    import numpy as np

    n_links = len(getattr(arm, "links", ()) or ())
    if n_links == 0 or not hasattr(arm, "natural_frequencies"):
        return dt_out, None               # an arm without this model of links: as asked
    try:
        f = arm.natural_frequencies(n_links, joints="free")
    except ParameterError:
        return dt_out, None
    f = f[np.isfinite(f)]
    if f.size == 0 or dt_out is None:
        return dt_out, None
    f_max = float(f.max())
    bound = 1.0 / (points_per_period * f_max)
    if dt_out <= bound:
        return dt_out, f_max
    k = math.floor(math.log10(bound))
    dt = max(m * 10.0 ** k for m in (1, 2, 5) if m * 10.0 ** k <= bound * (1 + 1e-12))
    return float(f"{dt:.12g}"), f_max


def simulate(arm, engine="reference", **kwargs):
    """Run ``arm`` on ``engine`` with PlanarArm.simulate's keyword arguments."""
    engine = resolve(engine)
    if engine == "reference":
        return arm.simulate(**kwargs)
    ok, why = pychrono_available()
    if not ok:
        raise PyChronoUnavailable(f"engine {engine!r} needs PyChrono: {why}")
    if engine == "chrono":
        from .chrono.engine import simulate_chrono as run
    else:
        from .chrono.beams import simulate_beams as run
    res = run(arm, **kwargs)
    res.info.setdefault("run", run_settings(kwargs))
    return res


def run_case(name, engine="reference", t_end=None, **overrides):
    """Build the case (a name, a model file "FILE.toml", or a
    :class:`~chrono_flex.scenarios.Case`) and run it on ``engine``; returns the Result.
    A bad setting read from a model file is reported with the file, key and line."""
    case = name if isinstance(name, scenarios.Case) else scenarios.get(name)
    engine = resolve(engine)
    if engine not in case.engines:
        raise ParameterError("engine", engine, f"cannot run case {case.name!r} (it runs on "
                                               f"{case.engines})")
    arm, kw = case.arm_and_kwargs(t_end)
    kw.update(overrides)
    try:
        res = simulate(arm, engine, **kw)
    except ParameterError as exc:
        located = exc if case.model_file is None else case.model_file.located(exc)
        if located is exc:
            raise
        raise located from None
    res.info["case"] = case.name
    return res


def export_case(name, directory, engine="chrono", t_end=None, n_frames=100, scale=1.0,
                **overrides):
    """Run the named case on a Chrono engine and write about ``n_frames`` frames for
    Chrono's Blender add-on (evenly spaced in time) into ``directory``; return
    (Result, :class:`~chrono_flex.chrono.blender.BlenderExporter`)."""
    from .chrono.blender import BlenderExporter

    if resolve(engine) == "reference":
        raise ParameterError("engine", engine, "must be 'chrono' or 'chrono-beam' (the "
                                               "Blender export writes a Chrono system)")
    n_frames = ck.positive_int("n_frames", n_frames)
    _, kw = scenarios.get(name).arm_and_kwargs(t_end)
    exporter = BlenderExporter(directory, scale=scale, dt=kw["t_end"] / n_frames, stem=name,
                               title=f"{name} ({engine})")
    res = run_case(name, engine, t_end=t_end, on_output=exporter, **overrides)
    return res, exporter
