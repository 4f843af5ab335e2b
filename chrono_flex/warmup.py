"""Compile the numba kernels ahead of use (``chrono-flex compile``).

numba compiles a kernel on its first call in a process and keeps the machine code in its
disk cache (``__pycache__`` beside the kernel's module), so only the first run after
installing or changing chrono_flex pays for it (a minute or two per family on one core).
:func:`warm_up` makes that first call on tiny runs of each family of kernels, and
:func:`warm_up_parallel` runs the families in separate processes at once, so that work
started afterwards (a campaign's workers) loads the cache instead of compiling the same
kernels once in every process.

Families (each the smallest runs that reach its kernels):

* ``planar``: the planar engine's compiled generalized-alpha, with a time profile, a
  plain f(t, q, qd) law and a sampled law (the compiled loop's call-outs); the planar
  Chrono element's compiled load (its weld included) when PyChrono imports;
* ``spatial``: the spatial tree's compiled generalized-alpha; the spatial Chrono
  element's compiled load when PyChrono imports.
"""

import os
import subprocess
import sys
import tempfile
import time

from . import inputs, scenarios
from .errors import ParameterError
from .planar.arm import PlanarArm
from .planar.params import Payload
from .spatial.arm import SpatialArm
from .spatial.params import RevoluteJoint, RigidBody, SpatialLink

#: The families :func:`warm_up` knows, in the order :func:`warm_up_parallel` starts them.
FAMILIES = ("spatial", "planar")


def _chrono_available():
    from .chrono._detect import pychrono_status
    return pychrono_status()[0]


def _planar():
    arm = PlanarArm([scenarios.bien_link(1.0, 2)], payload=Payload(0.1))
    for torque in (inputs.bang_bang(0.02, 0.005), lambda t, q, qd: [0.0],
                   inputs.sampled(lambda t, q, qd: [0.0], 1e-3)):
        arm.simulate(0.01, torque=torque, dt_out=0.005, progress=False)
    if _chrono_available():
        from .chrono import scenes
        sc = scenes.SliderCrank(jacobian="auto")
        scenes.run(sc.system, 1e-3, 3e-3, lambda: 0.0)


def _spatial():
    link = SpatialLink(0.8, 2, EI_y=3.0, EI_z=2.0, GJ=1.0, rho_A=0.5, rho_Ip=1e-3)
    arm = SpatialArm([link, RigidBody(0.2, (2e-3, 3e-3, 4e-3))],
                     joints=[RevoluteJoint(), RevoluteJoint()])
    arm.simulate(0.01, dt_out=0.005, progress=False)
    if _chrono_available():
        from .chrono import scenes
        from .chrono.spatial_element import SpatialFlexibleLink
        from .spatial.params import FixedJoint
        system = scenes.new_system(gravity=(0.0, 0.0, -9.81))
        SpatialFlexibleLink(system, SpatialArm([link, RigidBody(0.2, (2e-3, 3e-3, 4e-3))],
                                               [RevoluteJoint(), FixedJoint()]),
                            torque=lambda t, q, qd: [0.1])
        scenes.run(system, 1e-3, 3e-3, lambda: 0.0)


_RUNS = {"planar": _planar, "spatial": _spatial}


def warm_up(family):
    """Compile (or load from the disk cache) the kernels of ``family`` (one of
    :data:`FAMILIES`) in this process; returns the wall time, s."""
    if family not in _RUNS:
        raise ParameterError("family", family, f"must be one of {FAMILIES}")
    start = time.perf_counter()
    _RUNS[family]()
    return time.perf_counter() - start


def warm_up_parallel(jobs=2, families=FAMILIES):
    """:func:`warm_up` of each of ``families`` in its own process, at most ``jobs`` at a
    time; returns {family: (exit code, wall s, error output)}, the error output being
    the end of what a failed family's process wrote to stderr ("" when it succeeded). A
    family that fails is reported, not raised: the kernels are then compiled where they
    are first used."""
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise ParameterError("jobs", jobs, "must be an integer of at least 1")
    for f in families:
        if f not in _RUNS:
            raise ParameterError("families", f, f"must be among {FAMILIES}")
    out, queue, running = {}, list(families), {}
    while queue or running:
        while queue and len(running) < jobs:
            f = queue.pop(0)
            # stderr to a file, not a pipe: a pipe nobody reads while polling can fill
            err = tempfile.TemporaryFile(mode="w+")
            running[f] = (subprocess.Popen([sys.executable, "-c",
                                            f"from chrono_flex.warmup import warm_up; "
                                            f"warm_up({f!r})"],
                                           stdout=subprocess.DEVNULL, stderr=err,
                                           env=dict(os.environ)),
                          time.perf_counter(), err)
        for f, (p, start, err) in list(running.items()):
            if p.poll() is not None:
                err.seek(0)
                tail = err.read()[-3000:] if p.returncode != 0 else ""
                err.close()
                out[f] = (p.returncode, time.perf_counter() - start, tail)
                del running[f]
        time.sleep(0.05)
    return out
