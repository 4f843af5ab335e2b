"""Small Chrono scenes with welded bodies, shared by the validation cases, the tests and
the benchmarks (docs/chrono.md §8).

Each builder returns the system and its items; nothing here steps the system except
:func:`settle` (static answers through implicit Euler) and :func:`run` (a fixed-step
run that samples a reading).
"""

import numpy as np

from ..errors import ParameterError
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


FORMULATIONS = ("element", "beam")


def flexible_link(system, arm, formulation="element", **kw):
    """The arm in ``system``: a :class:`FlexibleLink` (``formulation`` "element", the
    papers' element) or a :class:`~chrono_flex.chrono.beam_scene.BeamArm` of Chrono's
    beams ("beam"); both weld bodies with ``attach(body, link=-1, s=None)``. ``kw`` go
    to the chosen constructor."""
    if formulation == "element":
        return FlexibleLink(system, arm, **kw)
    if formulation == "beam":
        from .beam_scene import build_beams

        return build_beams(arm, system=system, **kw)
    raise ParameterError("formulation", formulation, f"must be one of {list(FORMULATIONS)}")


def clamped_link(system, arm, formulation="element", **kw):
    """The arm with its joints held at zero (a cantilever on the ground), in either
    formulation (:func:`flexible_link`)."""
    zero = np.zeros(arm.n_joints)
    return flexible_link(system, arm, formulation, joint_motion=lambda t: (zero, zero, zero),
                         **kw)


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


class SliderCrank:
    """A slider-crank whose connecting rod is a FlexibleLink (docs/chrono.md §8).

    A rigid crank (radius ``crank_radius``, inertia ``crank_inertia`` about its pivot at
    the origin) turns at ``omega`` about world Z, its angle omega t prescribed by a
    ``ChLinkMotorRotationAngle``. The rod (``rod_length``, ``EI``, ``rho_A``,
    ``n_elements``) is a FlexibleLink on the crank, its joint a free revolute at the
    crank pin. Its tip is welded to a small pin body that turns on a
    ``ChLinkLockRevolute`` in the slider, which runs along world X on a
    ``ChLinkLockPrismatic``. No gravity. Starts at top dead centre with the rigid
    mechanism's velocities and the slider's acceleration -r omega^2 (1 + r / l).
    """

    def __init__(self, crank_radius=0.15, rod_length=0.5, omega=2 * np.pi, EI=5.0,
                 rho_A=0.5, n_elements=4, slider_mass=0.3, pin_mass=0.02, pin_inertia=1e-5,
                 crank_inertia=2e-3, stiffness_ratio=100.0, jacobian="step"):
        import chrono_flex as cf

        chrono = require_pychrono()
        r, l = float(crank_radius), float(rod_length)
        self.r, self.l, self.omega = r, l, float(omega)
        self.system = system = new_system()
        ground = chrono.ChBody()
        ground.SetFixed(True)
        system.Add(ground)
        self.crank = free_body(system, 0.5, (crank_inertia,) * 3, (0.0, 0.0, 0.0))
        self.crank.SetAngVelLocal(chrono.ChVector3d(0, 0, self.omega))
        # ChLinkMotorRotationSpeed would start its internal speed at zero against the
        # crank's omega and ring (docs/chrono.md §8)
        self.motor = chrono.ChLinkMotorRotationAngle()
        self.motor.Initialize(self.crank, ground,
                              chrono.ChFramed(chrono.ChVector3d(0, 0, 0), chrono.QUNIT))
        self.motor.SetAngleFunction(chrono.ChFunctionRamp(0.0, self.omega))
        system.Add(self.motor)
        rod = cf.PlanarArm([cf.Link(length=l, n_elements=n_elements, EI=EI, rho_A=rho_A)])
        # the rod's angle on the crank: absolute rate -r omega / l at top dead centre
        self.link = FlexibleLink(system, rod, parent_body=self.crank,
                                 joint_frame=((r, 0, 0), (1, 0, 0), (0, 1, 0)),
                                 joint_rates0=[-r * self.omega / l - self.omega],
                                 jacobian=jacobian)
        x0 = (r + l, 0.0, 0.0)
        self.slider = free_body(system, slider_mass, (1e-3,) * 3, x0)
        guide = chrono.ChLinkLockPrismatic()            # along its frame's Z = world X
        guide.Initialize(self.slider, ground, chrono.ChFramed(chrono.ChVector3d(*x0),
                                                              chrono.QuatFromAngleY(np.pi / 2)))
        system.Add(guide)
        self.pin = free_body(system, pin_mass, (pin_inertia,) * 3, x0)
        self.weld = self.link.attach(self.pin, stiffness_ratio=stiffness_ratio)
        hinge = chrono.ChLinkLockRevolute()
        hinge.Initialize(self.pin, self.slider, chrono.ChFramed(chrono.ChVector3d(*x0),
                                                                chrono.QUNIT))
        system.Add(hinge)
        a0 = chrono.ChVector3d(-r * self.omega ** 2 * (1 + r / l), 0, 0)
        self.slider.SetPosDt2(a0)
        self.pin.SetPosDt2(a0)
        basis = self.link.model.bases[0]
        self._N = [basis.values(np.array([x]))[0][0] for x in (l / 2, l)]

    def energy(self):
        """Rod, pin, slider and weld energy, J (the crank's is constant)."""
        E = sum(self.link.energy()) + self.weld.energy()
        for b in (self.slider, self.pin):
            v = b.GetPosDt().to_numpy()
            w = b.GetAngVelLocal().to_numpy()
            E += 0.5 * b.GetMass() * v @ v + 0.5 * w @ np.diag(b.GetInertiaXX().to_numpy()) @ w
        return float(E)

    def midpoint_deflection(self):
        """The rod's midpoint off its chord, m: w(l/2) - w(l)/2."""
        e = self.link.q()[1:]
        return float(self._N[0] @ e - 0.5 * (self._N[1] @ e))

    def rigid_slider(self, theta):
        """The rigid mechanism's slider X at crank angle theta."""
        return self.r * np.cos(theta) + np.sqrt(self.l ** 2 - (self.r * np.sin(theta)) ** 2)

    def read(self):
        """[t, crank angle, slider X, midpoint deflection, gap, angle, energy, motor power]."""
        t = self.system.GetChTime()
        gap, angle = self.weld.error()
        return [t, self.omega * t, self.slider.GetPos().x, self.midpoint_deflection(), gap,
                angle, self.energy(), self.motor.GetMotorTorque() * self.omega]


__all__ = ["FORMULATIONS", "SliderCrank", "clamped_link", "flexible_link", "free_body", "new_system", "pin_to_ground", "run", "settle",
           "world_force"]
