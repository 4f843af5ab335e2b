"""Small Chrono scenes with welded bodies, shared by the validation cases, the tests and
the benchmarks (docs/chrono.md §8).

Each builder returns the system and its items; nothing here steps the system except
:func:`settle` (static answers through implicit Euler) and :func:`run` (a fixed-step
run that samples a reading).
"""

import numpy as np

from ._detect import require_pychrono
from ._quiet import quiet_swig
from .element import FlexibleLink
from .system import configure_system, step


def new_system(gravity=(0.0, 0.0, 0.0), timestepper="hht", **kw):
    """An NSC system with ``gravity`` (world, m/s^2) and :func:`configure_system`'s solver."""
    chrono = require_pychrono()
    system = chrono.ChSystemNSC()
    system.SetGravitationalAcceleration(chrono.ChVector3d(*gravity))
    configure_system(system, timestepper=timestepper, **kw)
    return system


def free_body(system, mass, inertia, position, rotation=None):
    """A free ``ChBody`` of ``mass`` (kg) and principal inertias ``inertia`` (3,) at
    ``position`` (world), added to ``system``, collision off."""
    chrono = require_pychrono()
    body = chrono.ChBody()
    body.SetMass(float(mass))
    body.SetInertiaXX(chrono.ChVector3d(*(float(v) for v in inertia)))
    body.SetPos(chrono.ChVector3d(*(float(v) for v in position)))
    if rotation is not None:
        body.SetRot(rotation)
    body.EnableCollision(False)
    system.Add(body)
    return body


def clamped_link(system, arm, **kw):
    """A FlexibleLink whose joints are held at zero (a cantilever on the ground)."""
    nj = arm.n_joints
    zero = np.zeros(nj)
    return FlexibleLink(system, arm, joint_motion=lambda t: (zero, zero, zero), **kw)


def world_force(system, body, force):
    """A constant world-fixed force (N) on the body's centre of mass (a ``ChForce``)."""
    chrono = require_pychrono()
    f = chrono.ChForce()
    body.AddForce(f)
    f.SetMode(chrono.ChForce.FORCE)
    f.SetAlign(chrono.ChForce.WORLD_DIR)
    F = np.asarray(force, dtype=float)
    mag = float(np.linalg.norm(F))
    f.SetDir(chrono.ChVector3d(*(F / mag if mag > 0 else np.array([1.0, 0.0, 0.0]))))
    f.SetMforce(mag)
    return f


def pin_to_ground(system, body, point, axis=(0.0, 0.0, 1.0)):
    """A ``ChLinkLockRevolute`` between ``body`` and a fixed ground body, at ``point``
    (world), turning about ``axis`` (world; Z by default)."""
    chrono = require_pychrono()
    ground = chrono.ChBody()
    ground.SetFixed(True)
    ground.EnableCollision(False)
    system.Add(ground)
    z = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    q = chrono.QuatFromVec2Vec(chrono.ChVector3d(0, 0, 1), chrono.ChVector3d(*z))
    joint = chrono.ChLinkLockRevolute()
    joint.Initialize(body, ground, chrono.ChFramed(chrono.ChVector3d(*point), q))
    system.Add(joint)
    return joint, ground


def settle(system, h, n_steps):
    """``n_steps`` steps of ``h`` (implicit Euler for a static answer: a mode of
    angular frequency omega decays by (1 + (omega h)^2)^(-1/2) per step)."""
    with quiet_swig():
        for _ in range(int(n_steps)):
            step(system, h)


def run(system, h, t_end, read):
    """Step by ``h`` to ``t_end``; returns the array of ``read()`` after every step."""
    out = []
    n = int(round((t_end - system.GetChTime()) / h))
    with quiet_swig():
        for _ in range(n):
            step(system, h)
            out.append(np.asarray(read(), dtype=float))
    return np.array(out)


__all__ = ["clamped_link", "free_body", "new_system", "pin_to_ground", "run", "settle",
           "world_force"]
