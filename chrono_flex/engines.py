"""One entry point for the three engines that run a PlanarArm scenario.

* ``reference``: the numpy/scipy integration of the assembled Lagrange equations.
* ``chrono``: the same equations as a custom Chrono item (needs PyChrono).
* ``chrono-beam``: the links rebuilt from Chrono's own corotational Euler beams.

All return :class:`chrono_flex.result.Result`.
"""

from .errors import ParameterError, PyChronoUnavailable

ENGINES = ("reference", "chrono", "chrono-beam")


def pychrono_available():
    """(True, "") when the real PyChrono imports, else (False, reason)."""
    from .chrono._detect import pychrono_status

    return pychrono_status()


def resolve(engine):
    """``auto`` -> chrono when PyChrono is present, else reference."""
    if engine == "auto":
        ok, _ = pychrono_available()
        return "chrono" if ok else "reference"
    if engine not in ENGINES:
        raise ParameterError("engine", engine, f"must be one of {ENGINES + ('auto',)}")
    return engine


def simulate(arm, engine="reference", **kwargs):
    """Run ``arm`` on ``engine`` with PlanarArm.simulate's keyword arguments."""
    engine = resolve(engine)
    if engine == "reference":
        return arm.simulate(**kwargs)
    ok, why = pychrono_available()
    if not ok:
        raise PyChronoUnavailable(f"engine {engine!r} needs PyChrono: {why}")
    if engine == "chrono":
        from .chrono.engine import simulate_chrono

        return simulate_chrono(arm, **kwargs)
    from .chrono.beams import simulate_beams

    return simulate_beams(arm, **kwargs)


def run_case(name, engine="reference", t_end=None, **overrides):
    """Build the named case and run it on ``engine``; returns the Result."""
    from . import scenarios

    case = scenarios.get(name)
    engine = resolve(engine)
    if engine not in case.engines:
        raise ParameterError("engine", engine, f"cannot run case {name!r} (it runs on {case.engines})")
    arm, kw = case.arm_and_kwargs(t_end)
    kw.update(overrides)
    res = simulate(arm, engine, **kw)
    res.info["case"] = name
    return res
