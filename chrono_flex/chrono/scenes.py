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
from .attachment import body_kinetic_energy
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
#: Other names of the formulations: "chrono-beam" is the engine's name for Chrono's beams.
ALIASES = {"chrono-beam": "beam"}


def flexible_link(system, arm, formulation="element", **kw):
    """The arm in ``system``: a :class:`FlexibleLink` (``formulation`` "element", the
    papers' element) or a :class:`~chrono_flex.chrono.beam_scene.BeamArm` of Chrono's
    beams ("beam", or "chrono-beam"); both weld bodies with ``attach(body, link=-1, s=None)``. ``kw`` go
    to the chosen constructor."""
    if _formulation(formulation) == "element":
        return FlexibleLink(system, arm, **kw)
    from .beam_scene import build_beams

    return build_beams(arm, system=system, **kw)


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


def contact_system(method, gravity, k_contact=2e4, g_contact=0.0, smc_timestepper="hht",
                   smc_alpha=0.0):
    """(chrono, system, material) for contact scenes (docs/chrono.md §13), frictionless
    (a roller), Bullet collision. ``method`` "nsc": ``ChSystemNSC``, linearised implicit
    Euler with ADMM around a sparse LU (tolerances 1e-10, 300 iterations). "smc":
    ``ChSystemSMC`` with Hooke contact of stiffness ``k_contact`` (N/m) and normal
    damping ``g_contact`` per unit effective mass (1/s), no tangential stiffness,
    :func:`configure_system` with ``smc_timestepper`` (HHT's ``smc_alpha``) and the
    contact's Jacobian in the implicit step."""
    chrono = require_pychrono()
    if method == "nsc":
        system = chrono.ChSystemNSC()
        solver = chrono.ChSolverADMM(chrono.ChSolverSparseLU())
        solver.SetMaxIterations(300)
        solver.SetToleranceDual(1e-10)
        solver.SetTolerancePrimal(1e-10)
        system.SetSolver(solver)
        system.SetTimestepperType(chrono.ChTimestepper.Type_EULER_IMPLICIT_LINEARIZED)
        mat = chrono.ChContactMaterialNSC()
    elif method == "smc":
        system = chrono.ChSystemSMC()
        configure_system(system, timestepper=smc_timestepper, alpha=smc_alpha)
        system.SetContactForceModel(chrono.ChSystemSMC.Hooke)
        system.UseMaterialProperties(False)
        system.SetContactStiff(True)
        mat = chrono.ChContactMaterialSMC()
        mat.SetKn(float(k_contact))
        mat.SetKt(0.0)
        mat.SetGn(float(g_contact))
        mat.SetGt(0.0)
    else:
        raise ParameterError("method", method, "must be 'nsc' or 'smc'")
    mat.SetFriction(0.0)
    system.SetGravitationalAcceleration(chrono.ChVector3d(*(float(v) for v in gravity)))
    system.SetCollisionSystemType(chrono.ChCollisionSystem.Type_BULLET)
    return chrono, system, mat


def support_box(system, material, x, top, size, envelope, margin):
    """A fixed cube of side ``size`` (m) whose top face is at y = ``top``, centred under
    x = ``x``, with the collision ``envelope`` and safe ``margin`` given (m)."""
    chrono = require_pychrono()
    body = chrono.ChBody()
    body.SetFixed(True)
    body.SetPos(chrono.ChVector3d(float(x), float(top) - 0.5 * size, 0.0))
    body.AddCollisionShape(chrono.ChCollisionShapeBox(material, size, size, size))
    body.GetCollisionModel().SetEnvelope(float(envelope))
    body.GetCollisionModel().SetSafeMargin(float(margin))
    body.EnableCollision(True)
    system.Add(body)
    return body


def spin_up_motion(t, omega, duration):
    """Crank angle, rate and acceleration (rad, rad/s, rad/s^2) of a smooth start from rest
    to the constant rate ``omega`` over ``duration`` s.

    The rate follows the quintic smooth step omega S(tau), tau = t / duration,
    S = 10 tau^3 - 15 tau^4 + 6 tau^5 (S(0) = 0, S(1) = 1, S' and S'' zero at both ends),
    so the angle theta = omega duration (5/2 tau^4 - 3 tau^5 + tau^6) joins the constant
    rate with a continuous acceleration and jerk; afterwards theta = omega (t - duration/2).
    A forcing that starts this smoothly leaves the mechanism's elastic modes nearly
    unexcited (their periods are far below ``duration``).
    """
    if t >= duration:
        return omega * (t - 0.5 * duration), omega, 0.0
    tau = max(t, 0.0) / duration
    S = tau ** 3 * (10.0 - 15.0 * tau + 6.0 * tau * tau)
    dS = 30.0 * tau ** 2 * (1.0 - tau) ** 2
    theta = omega * duration * tau ** 4 * (2.5 - 3.0 * tau + tau * tau)
    return theta, omega * S, omega * dS / duration


def _formulation(formulation):
    """The canonical name of a formulation ("chrono-beam", the engine's name, is "beam")."""
    name = ALIASES.get(formulation, formulation) if isinstance(formulation, str) else formulation
    if name not in FORMULATIONS:
        raise ParameterError("formulation", formulation,
                             f"must be one of {list(FORMULATIONS) + list(ALIASES)}")
    return name


class SliderCrank:
    """A slider-crank whose connecting rod is flexible (docs/chrono.md §8, §9).

    A rigid crank (radius ``crank_radius``, inertia ``crank_inertia`` about its pivot at
    the origin) turns at ``omega`` about world Z, its angle omega t prescribed by a
    ``ChLinkMotorRotationAngle``. The rod (``rod_length``, ``EI``, ``rho_A``,
    ``n_elements``) is carried by the crank, its joint a free revolute at the crank pin:
    ``formulation`` "element" makes it a :class:`FlexibleLink` (the papers' element),
    "beam" (or "chrono-beam") a :class:`~chrono_flex.chrono.beam_scene.BeamArm` of
    Chrono's Euler beams (lumped mass, no Rayleigh damping) on a revolute to the crank.
    Its tip is welded (``attach``) to a small pin body that turns on a
    ``ChLinkLockRevolute`` in the slider, which runs along world X on a
    ``ChLinkLockPrismatic``. No gravity. Starts at top dead centre with the rigid
    mechanism's velocities and consistent accelerations (the slider's is
    -r omega^2 (1 + r / l)); with ``spin_up`` > 0 (s) it starts at rest instead and the
    crank reaches omega along :func:`spin_up_motion`.
    """

    def __init__(self, crank_radius=0.15, rod_length=0.5, omega=2 * np.pi, EI=5.0,
                 rho_A=0.5, n_elements=4, slider_mass=0.3, pin_mass=0.02, pin_inertia=1e-5,
                 crank_inertia=2e-3, stiffness_ratio=100.0, jacobian="step",
                 formulation="element", spin_up=0.0):
        import chrono_flex as cf
        from .directors import PositionFunction

        chrono = require_pychrono()
        self.formulation = _formulation(formulation)
        r, l = float(crank_radius), float(rod_length)
        self.r, self.l, self.omega = r, l, float(omega)
        self.spin_up = float(spin_up)
        if not np.isfinite(self.spin_up) or self.spin_up < 0:
            raise ParameterError("spin_up", spin_up, "must be a duration >= 0 s")
        self.system = system = new_system()
        ground = chrono.ChBody()
        ground.SetFixed(True)
        system.Add(ground)
        self.crank = free_body(system, 0.5, (crank_inertia,) * 3, (0.0, 0.0, 0.0))
        # ChLinkMotorRotationSpeed would start its internal speed at zero against the
        # crank's omega and ring (docs/chrono.md §8)
        self.motor = chrono.ChLinkMotorRotationAngle()
        self.motor.Initialize(self.crank, ground,
                              chrono.ChFramed(chrono.ChVector3d(0, 0, 0), chrono.QUNIT))
        if self.spin_up > 0:
            self._angle_fn = PositionFunction.make(
                chrono, lambda t: [np.array([v]) for v in self.crank_motion(t)], 0)
        else:
            self.crank.SetAngVelLocal(chrono.ChVector3d(0, 0, self.omega))
            self._angle_fn = chrono.ChFunctionRamp(0.0, self.omega)
        self.motor.SetAngleFunction(self._angle_fn)
        system.Add(self.motor)
        link = cf.Link(length=l, n_elements=n_elements, EI=EI, rho_A=rho_A)
        self.rod_link = link
        # the rod's absolute rate at top dead centre: -r omega / l
        rate = -r * self.omega / l if self.spin_up == 0 else 0.0
        if self.formulation == "element":
            rod = cf.PlanarArm([link])
            self.link = FlexibleLink(system, rod, parent_body=self.crank,
                                     joint_frame=((r, 0, 0), (1, 0, 0), (0, 1, 0)),
                                     joint_rates0=[rate - self.crank_motion(0.0)[1]],
                                     jacobian=jacobian)
            basis = self.link.model.bases[0]
            self._N = [basis.values(np.array([x]))[0][0] for x in (l / 2, l)]
        else:
            if n_elements % 2:
                raise ParameterError("n_elements", n_elements, "must be even with "
                                     "formulation='beam' (the midpoint is a node)")
            from .beam_scene import build_beams

            rod = cf.PlanarArm([link], plane=cf.Plane(origin=(r, 0.0, 0.0)))
            self.link = build_beams(rod, system=system, parent_body=self.crank,
                                    rayleigh_beta=0.0, rayleigh_alpha=0.0)
            lb = self.link.links[0]
            # the rigid rod's velocity field at top dead centre: (0, r omega (1 - x / l))
            for item in list(lb.nodes) + [lb.hub]:
                x = item.GetPos().x - r
                item.SetPosDt(chrono.ChVector3d(0.0, -rate * (l - x), 0.0))
                item.SetAngVelParent(chrono.ChVector3d(0.0, 0.0, rate))
        x0 = (r + l, 0.0, 0.0)
        self.slider = free_body(system, slider_mass, (1e-3,) * 3, x0)
        guide = chrono.ChLinkLockPrismatic()            # along its frame's Z = world X
        guide.Initialize(self.slider, ground, chrono.ChFramed(chrono.ChVector3d(*x0),
                                                              chrono.QuatFromAngleY(np.pi / 2)))
        system.Add(guide)
        self.pin = free_body(system, pin_mass, (pin_inertia,) * 3, x0)
        kw = dict(stiffness_ratio=stiffness_ratio) if self.formulation == "element" else {}
        self.weld = self.link.attach(self.pin, **kw)
        hinge = chrono.ChLinkLockRevolute()
        hinge.Initialize(self.pin, self.slider, chrono.ChFramed(chrono.ChVector3d(*x0),
                                                                chrono.QUNIT))
        system.Add(hinge)
        self._keep = [ground, guide, hinge]
        if self.formulation == "element":
            a0 = chrono.ChVector3d(-r * self.crank_motion(0.0)[1] ** 2 * (1 + r / l), 0, 0)
            self.slider.SetPosDt2(a0)
            self.pin.SetPosDt2(a0)
        else:
            # Chrono's acceleration assembly with every joint in place
            self.link.initialize_accelerations()

    def crank_motion(self, t):
        """Prescribed crank angle, rate and acceleration at time t."""
        if self.spin_up > 0:
            return spin_up_motion(t, self.omega, self.spin_up)
        return self.omega * t, self.omega, 0.0

    def energy(self):
        """Crank, rod, pin, slider and weld energy, J."""
        if self.formulation == "element":
            E = sum(self.link.energy()) + self.weld.energy()
            bodies = (self.crank, self.slider, self.pin)
        else:
            E = sum(self.link.energies())       # beams, their hub and the welded pin
            bodies = (self.crank, self.slider)
        return float(E + sum(body_kinetic_energy(b) for b in bodies))

    def midpoint_deflection(self):
        """The rod's midpoint off its chord, m: w(l/2) - w(l)/2, w the deflection in the
        frame of the rod's root tangent (for the beams: of the nodes, in the root node's
        frame)."""
        if self.formulation == "element":
            e = self.link.q()[1:]
            return float(self._N[0] @ e - 0.5 * (self._N[1] @ e))
        lb = self.link.links[0]
        P, th = self.link.frames(lb.nodes)
        d = P - P[0]
        w = -np.sin(th[0]) * d[:, 0] + np.cos(th[0]) * d[:, 1]
        return float(w[len(w) // 2] - 0.5 * w[-1])

    def shortening(self):
        """What the linear element leaves out of the rod's length along its root tangent,
        m: int_0^l w'^2 / 2 dx (w' the slope off the root tangent; the second-order
        axial shortening of a bent inextensible beam, which puts the element's tip that
        much further out than a geometrically exact beam's). Simpson's rule over 8
        intervals per element; 0 for the beams, which have it."""
        if self.formulation != "element":
            return 0.0
        if not hasattr(self, "_dN"):
            n = self.rod_link.n_elements
            self._x = np.linspace(0.0, self.l, 8 * n + 1)
            self._dN = self.link.model.bases[0].values(self._x)[1]
        slope = self._dN @ self.link.q()[1:]
        wts = np.ones(len(self._x))
        wts[1:-1:2], wts[2:-1:2] = 4.0, 2.0
        return float(0.5 * (self._x[1] - self._x[0]) / 3.0 * (wts @ slope ** 2))

    def rod_points(self, n_samples=21):
        """World (x, y) of the rod's deformed centreline now, (n_samples, 2), m."""
        if self.formulation == "element":
            return self.link.centerlines(n_samples)[0][:, :2]
        pts, _ = self.link.centrelines(n_samples)
        return pts[0] + np.array([self.r, 0.0])

    def rigid_slider(self, theta):
        """The rigid mechanism's slider X at crank angle theta."""
        return self.r * np.cos(theta) + np.sqrt(self.l ** 2 - (self.r * np.sin(theta)) ** 2)

    def axial_force(self):
        """Force along the rod that the pin's weld transmits, N (> 0: the rod is pulled)."""
        F = np.asarray(self.weld.force, dtype=float)    # the rod's force on the pin
        lb_dir = self.pin.GetPos().to_numpy() - self.crank_pin()
        return float(-F @ lb_dir / np.linalg.norm(lb_dir))

    def crank_pin(self):
        """World position of the crank pin, m."""
        return np.asarray(self.crank.GetPos().to_numpy()) + np.asarray(
            self.crank.GetRotMat().to_numpy()) @ np.array([self.r, 0.0, 0.0])

    def read(self):
        """[t, crank angle, slider X, midpoint deflection, gap, angle, energy, motor power]."""
        t = self.system.GetChTime()
        gap, angle = self.weld.error()
        theta, rate, _ = self.crank_motion(t)
        return [t, theta, self.slider.GetPos().x, self.midpoint_deflection(), gap,
                angle, self.energy(), self.motor.GetMotorTorque() * rate]


__all__ = ["ALIASES", "FORMULATIONS", "SliderCrank", "clamped_link", "contact_system",
           "flexible_link", "support_box",
           "free_body", "new_system", "pin_to_ground", "run", "settle", "spin_up_motion",
           "world_force"]
