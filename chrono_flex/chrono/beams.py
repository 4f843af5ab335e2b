"""Chrono's own beams for a PlanarArm: the "chrono-beam" engine (cross-validation).

The reference engine integrates the floating-frame Lagrange equations of spec 01. This
module builds the same arm from Chrono's own finite elements and lets Chrono integrate
it, so a comparison checks the formulation, not a second copy of it:

* each link: ``ChElementBeamEuler`` elements (corotational Euler-Bernoulli, LUMPED mass)
  made by ``ChBuilderBeamEuler``, or, with ``consistent_mass=True``,
  ``ChElementBeamTaperedTimoshenko`` elements with a consistent mass matrix and a shear
  rigidity so high (shear parameter phi = 12 EI/(GA l^2) = 1e-6) that they are
  Euler-Bernoulli beams for every practical purpose. Chrono offers no consistent mass
  for ``ChElementBeamEuler``;
* each link is clamped (``ChLinkMateGeneric``, six coordinates) to a hub body; a hub
  turns on a revolute joint (``ChLinkMotorRotationTorque`` driven by the case's
  ``torque(t, q, qd)``, or ``ChLinkMotorRotationAngle`` for prescribed ``joint_motion``,
  whose reaction gives the joint torque) or slides on a prismatic joint
  (``ChLinkMotorLinearForce`` / ``ChLinkMotorLinearPosition``) with respect to the
  ground or to a small body clamped to the previous link's tip node;
* the payload is a body clamped to the last node; gravity acts along -plane Y;
  the arm's plane sits in 3D as ``arm.plane`` says.

Two section defaults of Chrono change the physics silently (spec 05, covered by
tests): Rayleigh damping beta = 0.01 and an "artificial" rotary inertia of the section,
1/500 of the mass per length. Both are set explicitly here, from the Link (damping) and
from ``jyy_factor`` (default 1e-9). Body inertias default to 1 kg m^2 in Chrono: every
body's mass and inertia are set here; bodies with no physical mass or inertia (the tip
connectors, a hub without hub inertia) get 1e-9 of their link's mass and of its moment
of inertia about the root, a change far below every tolerance in use.

The consistent-mass section has a third silent default: the tapered Timoshenko section
computes its consistent mass matrix with its own length, 1 m unless ``SetLength`` is
called (the element does not set it); it is set to the element length here.

Differences from the reference that are physics, not bugs (measured in the tests and
reported there): the corotational beams carry the stiffening or softening of axial
loads (centrifugal, gravity) whatever ``arm.geometric_stiffening`` says, so they stay
bounded in a fast spin-up where the papers' linear model diverges, and they part from
the reference when axial load times L^2/EI is not small; they are geometrically exact,
so large deflections (several % of L) differ from the linear floating-frame model;
lumped mass lowers the bending frequencies and raises the links' moment of inertia
about the joint by 1/(2 n^2) (errors fall as h^2); Chrono's beams are extensible (axial
stiffness EA from the section decomposition of :func:`section_properties`).

Every Chrono object handed to a Chrono call is kept referenced from Python
(``BeamArm._keep``): SWIG does not keep temporaries alive, and a reference into a
destroyed ``ChFramed`` reads garbage.

Only this package imports pychrono; import cost is paid on first use.
"""

from dataclasses import dataclass
import math
import time

import numpy as np

from .. import _checks as ck
from ..planar.arm import PlanarArm
from ..errors import ParameterError, SimulationError
from ..integrators.ivp import Progress
from ..result import Energy, Result
from ..planar.shapes import hermite_functions, hermite_mass, hermite_stiffness
from ._quiet import quiet_swig

ENGINE = "chrono-beam"

#: Default of the artificial rotary-inertia factor (Chrono's own default is 1/500).
DEFAULT_JYY_FACTOR = 1e-9

#: Default HHT parameter: alpha < 0 damps the spurious oscillation of the reaction forces
#: of prescribed motions that alpha = 0 (trapezoidal rule) lets grow; on a 8 Hz bending
#: mode at a 1 ms step it adds a damping ratio below 2e-6 (measured).
DEFAULT_HHT_ALPHA = -0.2

#: Newton settings of the HHT step (Chrono's defaults: 6 iterations, rtol 1e-4, atol
#: 1e-10). The Jacobian is refreshed once per step (modified Newton); in the fast spin-up
#: it then converges linearly (factor ~5 per iteration), so 8 iterations left most steps
#: "terminated" while 20 converge all of them; the solutions differ by < 1e-8 m.
NEWTON_MAX_ITERS = 20
NEWTON_RELTOL = 1e-5
NEWTON_ABSTOL = 1e-8
JACOBIAN_UPDATE = "EVERY_STEP"

#: Shear parameter 12 EI/(GA l^2) of the Timoshenko elements used for consistent mass.
SHEAR_PHI = 1e-6

#: Mass and inertia given to bodies that physically have none, relative to the link.
MASS_FLOOR = 1e-9

#: Poisson ratio used only for the torsion rigidity (out of the plane, never excited).
POISSON = 0.3

#: Below this many lumped elements per link the result carries a warning note.
COARSE_LUMPED_MESH = 4


# ---------------------------------------------------------------------------------------
# Pure helpers (no Chrono): section decomposition, rigid kinematics, centreline, energies
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class BeamSection:
    """A Link's section as Chrono wants it (SI units).

    E, A, Izz, density reproduce the Link exactly: E Izz = EI and density A = rho_A.
    Izz is the in-plane bending moment (bending about the plane normal = local Z of the
    beam), Iyy the out-of-plane one, J the torsion constant, G the shear modulus.
    """

    E: float
    A: float
    Izz: float
    Iyy: float
    J: float
    G: float
    density: float

    @property
    def EI(self):
        return self.E * self.Izz

    @property
    def EA(self):
        return self.E * self.A

    @property
    def mass_per_length(self):
        return self.density * self.A


def section_properties(link):
    """Split a Link's EI and rho_A into E, A, I, density for Chrono.

    When the Link was given A and I, they are kept; otherwise the section is a solid
    square of side ``link.thickness`` (A = h^2, I = h^4/12). Either way E = EI/I and
    density = rho_A/A, so EI and rho_A are exact; the decomposition only sets the axial
    rigidity EA = 12 EI/h^2 for the square (the reference is inextensible) and the
    out-of-plane properties (Iyy = Izz, torsion constant 0.1406 h^4 of a square,
    Roark), which planar motion does not excite.
    """
    if link.A is not None and link.I is not None:
        A, Izz = float(link.A), float(link.I)
    else:
        h = float(link.thickness)
        A, Izz = h * h, h ** 4 / 12.0
    E = link.EI / Izz
    return BeamSection(E=E, A=A, Izz=Izz, Iyy=Izz, J=0.1406 * A * A,
                       G=E / (2.0 * (1.0 + POISSON)), density=link.rho_A / A)


def rigid_chain(arm, joint_coords):
    """Root frames (p, psi) of every link with zero deformation, their tips, and the
    slide axis of each prismatic joint (None for revolute ones), in the arm plane.

    The same chain as :func:`chrono_flex.planar.kinematics.child_frame` with w = 0: revolute
    psi = parent angle + theta + offset at the parent tip; prismatic: axis angle
    a = parent angle + axis_angle, p = parent tip + d (cos a, sin a), psi = a + link_angle.
    """
    p, ang = np.zeros(2), 0.0
    roots, tips, axes = [], [], []
    for lk, jt, qj in zip(arm.links, arm.joints, joint_coords):
        if jt.kind == "revolute":
            root, psi, axis = p, ang + qj + jt.angle_offset, None
        else:
            a = ang + jt.axis_angle
            axis = np.array([math.cos(a), math.sin(a)])
            root, psi = p + qj * axis, a + jt.link_angle
        tip = root + lk.length * np.array([math.cos(psi), math.sin(psi)])
        roots.append((root, psi))
        tips.append((tip, psi))
        axes.append(axis)
        p, ang = tip, psi
    return roots, tips, axes


def rigid_velocity(arm, joint_coords, joint_rates, link, r):
    """Velocity (2,) and angular rate of a point r (2,) carried by ``link`` when the
    joints move at ``joint_rates`` (rigid links): sum over the joints up to ``link`` of
    theta_d S (r - p_j) (revolute) or d_d u_j (prismatic)."""
    roots, _, axes = rigid_chain(arm, joint_coords)
    v, w = np.zeros(2), 0.0
    for j in range(link + 1):
        rate = joint_rates[j]
        if arm.joints[j].kind == "revolute":
            d = np.asarray(r, dtype=float) - roots[j][0]
            v += rate * np.array([-d[1], d[0]])
            w += rate
        else:
            v += rate * axes[j]
    return v, w


def _hermite_basis(xi):
    """Cubic Hermite basis on [0, 1] and its first two derivatives in xi (each (4, n)):
    :func:`chrono_flex.planar.shapes.hermite_functions` on a unit element."""
    return tuple(a.T for a in hermite_functions(xi, 1.0))


def hermite_centreline(nodes_xy, node_angles, length, n_samples):
    """Points (ns, 2) and curvature (ns,) of a beam from its nodes, at s = linspace(0, L).

    Between two nodes the centreline is the cubic Hermite curve through the nodes'
    positions with the nodes' tangents (cos theta, sin theta) scaled by the chord
    length: the shape functions of Chrono's corotational Euler element in its chord
    frame. Curvature = (r' x r'') / |r'|^3 of that curve.
    """
    P = np.asarray(nodes_xy, dtype=float)
    th = np.asarray(node_angles, dtype=float)
    n = P.shape[0] - 1
    s = np.linspace(0.0, length, n_samples)
    le = length / n
    e = np.minimum((s / le).astype(int), n - 1)
    xi = s / le - e
    h, dh, ddh = _hermite_basis(xi)
    A, B = P[e], P[e + 1]
    chord = np.linalg.norm(B - A, axis=1)[:, None]
    TA = np.stack([np.cos(th[e]), np.sin(th[e])], axis=1) * chord
    TB = np.stack([np.cos(th[e + 1]), np.sin(th[e + 1])], axis=1) * chord
    r = h[0][:, None] * A + h[1][:, None] * TA + h[2][:, None] * B + h[3][:, None] * TB
    d1 = dh[0][:, None] * A + dh[1][:, None] * TA + dh[2][:, None] * B + dh[3][:, None] * TB
    d2 = ddh[0][:, None] * A + ddh[1][:, None] * TA + ddh[2][:, None] * B + ddh[3][:, None] * TB
    speed = np.linalg.norm(d1, axis=1)
    curv = (d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]) / speed ** 3
    return r, curv


def _wrap(a):
    return (a + np.pi) % (2 * np.pi) - np.pi


def element_stiffness(EI, EA, le):
    """Planar local stiffness of an Euler-Bernoulli element, dofs [u, v, theta] x 2."""
    K = np.zeros((6, 6))
    K[np.ix_([0, 3], [0, 3])] = EA / le * np.array([[1, -1], [-1, 1]])
    K[np.ix_([1, 2, 4, 5], [1, 2, 4, 5])] = hermite_stiffness(EI, le)
    return K


def element_mass(mu, Jzz, le, consistent):
    """Planar local mass of a beam element, dofs [u, v, theta] x 2.

    Lumped (ChElementBeamEuler): mu le/2 on each node's translations and Jzz le/2 on its
    rotation. Consistent (Euler-Bernoulli limit of ChElementBeamTaperedTimoshenko):
    axial mu le [1/3 1/6], the Hermite matrix mu le/420 [156 22le 54 -13le ...] and the
    rotary-inertia matrix Jzz/(30 le) [36 3le -36 3le ...].
    """
    M = np.zeros((6, 6))
    if not consistent:
        M[[0, 1, 3, 4], [0, 1, 3, 4]] = mu * le / 2
        M[[2, 5], [2, 5]] = Jzz * le / 2
        return M
    M[np.ix_([0, 3], [0, 3])] = mu * le / 6 * np.array([[2, 1], [1, 2]])
    ix = np.ix_([1, 2, 4, 5], [1, 2, 4, 5])
    M[ix] = hermite_mass(mu, le)
    M[ix] += Jzz / (30 * le) * np.array(
        [[36, 3 * le, -36, 3 * le], [3 * le, 4 * le ** 2, -3 * le, -le ** 2],
         [-36, -3 * le, 36, -3 * le], [3 * le, -le ** 2, -3 * le, 4 * le ** 2]])
    return M


def _local_velocities(P, th, V, W):
    """Nodal velocities of every element of a link in its chord frame: (ne, 6)."""
    c = P[1:] - P[:-1]
    beta = np.arctan2(c[:, 1], c[:, 0])
    cb, sb = np.cos(beta), np.sin(beta)
    out = np.empty((c.shape[0], 6))
    for k, (a, b) in enumerate(((0, slice(None, -1)), (3, slice(1, None)))):
        v = V[b]
        out[:, a] = cb * v[:, 0] + sb * v[:, 1]
        out[:, a + 1] = -sb * v[:, 0] + cb * v[:, 1]
        out[:, a + 2] = W[b]
    return out


def element_strain_energy(P, th, le, EI, EA):
    """Corotational strain energy of the elements of a link, J (summed).

    In the chord frame of each element the nodes' rotations relative to the chord
    are theta_a, theta_b and the stretch is delta = |chord| - le:
    U = EA delta^2/(2 le) + EI/le (2 theta_a^2 + 2 theta_a theta_b + 2 theta_b^2),
    i.e. 1/2 d^T K d with the element stiffness of :func:`element_stiffness` on the
    local displacements Chrono's corotational element uses (``GetStateBlock``).
    """
    c = P[1:] - P[:-1]
    beta = np.arctan2(c[:, 1], c[:, 0])
    ta, tb = _wrap(th[:-1] - beta), _wrap(th[1:] - beta)
    delta = np.linalg.norm(c, axis=1) - le
    return float(np.sum(EA * delta ** 2 / (2 * le)
                        + EI / le * (2 * ta ** 2 + 2 * ta * tb + 2 * tb ** 2)))


# ---------------------------------------------------------------------------------------
# Chrono plumbing
# ---------------------------------------------------------------------------------------

def _modules():
    from ._detect import require_fea, require_pychrono

    return require_pychrono(), require_fea()


class _JointInputs:
    """Evaluates the joint torques/forces of ``torque(t, q, qd)`` for the motors.

    ``ChLinkMotor*`` call their ChFunction several times per step (residual and Newton
    iterations) with the time only; the joint state is read from the motors at each
    call, and the result is cached for one (t, state) so that a chain of n joints calls
    ``torque`` once, not n times. No state is integrated here (spec 05).
    """

    def __init__(self, scene, torque):
        self.scene, self.torque = scene, torque
        self.nj = len(scene.arm.joints)
        self._key = None
        self._value = np.zeros(self.nj)
        self.error = None

    def value(self, t):
        q, qd = self.scene.joint_state()
        key = (t, *q, *qd)
        if key != self._key:
            out = np.asarray(self.torque(t, self.scene.arm_q(q), self.scene.arm_q(qd)),
                             dtype=float)
            if out.shape == () and self.nj == 1:
                out = out.reshape(1)
            if out.shape != (self.nj,):
                raise ParameterError("torque", out.tolist(),
                                     f"must return {self.nj} value(s) (one per joint)")
            if not np.all(np.isfinite(out)):
                raise SimulationError(f"torque returned {out.tolist()}", t)
            self._key, self._value = key, out
        return self._value

    def safe_component(self, t, k):
        """Called from C++: never let an exception cross the solver; keep the first."""
        if self.error is not None:
            return 0.0
        try:
            return float(self.value(t)[k])
        except Exception as exc:  # noqa: BLE001 (re-raised after the step)
            self.error = exc
            return 0.0


class _JointMotion:
    """theta_k(t) - theta_k(t0) and its derivatives from ``joint_motion(t)`` (cached per t)."""

    def __init__(self, motion, nj, t0=0.0):
        self.motion, self.nj = motion, nj
        self._t, self._v = None, None
        self.error = None
        self.start = self(t0)[0].copy()

    def __call__(self, t):
        if t != self._t:
            vals = [ck.vector(f"joint_motion(t)[{k}]", v, self.nj)
                    for k, v in enumerate(self.motion(t))]
            if len(vals) != 3:
                raise ParameterError("joint_motion", self.motion,
                                     "must return (theta, theta_d, theta_dd)")
            self._t, self._v = t, vals
        return self._v

    def safe(self, t, k, order):
        if self.error is not None:
            return 0.0
        try:
            v = self(t)[order][k]
            return float(v - self.start[k]) if order == 0 else float(v)
        except Exception as exc:  # noqa: BLE001
            self.error = exc
            return 0.0


def _function_classes(chrono):
    """ChFunction subclasses (defined once pychrono is imported)."""

    class TorqueFunction(chrono.ChFunction):
        def __init__(self, inputs, k):
            super().__init__()
            self.inputs, self.k = inputs, k

        def GetVal(self, x):
            return self.inputs.safe_component(x, self.k)

        def Clone(self):
            return self

    class MotionFunction(chrono.ChFunction):
        def __init__(self, motion, k):
            super().__init__()
            self.motion, self.k = motion, k

        def GetVal(self, x):
            return self.motion.safe(x, self.k, 0)

        def GetDer(self, x):
            return self.motion.safe(x, self.k, 1)

        def GetDer2(self, x):
            return self.motion.safe(x, self.k, 2)

        def Clone(self):
            return self

    return TorqueFunction, MotionFunction


@dataclass
class _LinkBeam:
    """One link in the Chrono system."""

    nodes: list
    elements: list
    hub: object          # ChBody clamped to the root node
    tip: object = None   # ChBody clamped to the tip node (carries the next joint)
    length: float = 0.0
    n_elements: int = 1
    section: BeamSection = None
    mu: float = 0.0
    Jzz: float = 0.0
    beta: float = 0.0
    alpha: float = 0.0


class BeamArm:
    """A PlanarArm built from Chrono's beam elements (see the module docstring).

    Build it with :func:`build_beams`; :func:`simulate_beams` runs it. Attributes:
    ``system``, ``mesh``, ``links`` (per link: nodes, elements, hub and tip bodies),
    ``motors`` (one per joint), ``payload_body`` (or None), ``ground``.
    """

    def __init__(self, arm, joint_coords0, joint_rates0, n_elements, consistent_mass,
                 rayleigh_beta, rayleigh_alpha, jyy_factor, hht_alpha, step,
                 torque=None, joint_motion=None):
        chrono, fea = _modules()
        self.chrono, self.fea = chrono, fea
        self.arm = arm
        self.nj = len(arm.joints)
        self.consistent_mass = consistent_mass
        self.jyy_factor = jyy_factor
        self._keep = []     # Python references to every director and frame object
        B = np.column_stack([arm.plane.x_axis, arm.plane.y_axis, arm.plane.normal])
        self._B, self._origin = B, np.asarray(arm.plane.origin, dtype=float)
        self.q0 = np.array(joint_coords0, dtype=float)
        self.qd0 = np.array(joint_rates0, dtype=float)

        sys_ = chrono.ChSystemSMC()
        self.system = sys_
        g = self._vec3(-arm.gravity * np.asarray(arm.plane.y_axis))
        sys_.SetGravitationalAcceleration(g)
        self.ground = chrono.ChBody()
        self.ground.SetFixed(True)
        sys_.Add(self.ground)
        self.mesh = fea.ChMesh()
        self.mesh.SetName("beams")
        self.mesh.SetAutomaticGravity(arm.gravity > 0)
        sys_.Add(self.mesh)

        roots, tips, axes = rigid_chain(arm, self.q0)
        self.links = []
        self.motors = []
        TorqueFunction, MotionFunction = _function_classes(chrono)
        self.inputs = _JointInputs(self, torque) if torque is not None else None
        self.motion = joint_motion
        parent = self.ground
        for i, (lk, jt) in enumerate(zip(arm.links, arm.joints)):
            n = n_elements[i]
            (p, psi), (ptip, _) = roots[i], tips[i]
            link_mass, link_inertia = lk.mass, lk.rho_A * lk.length ** 3 / 3.0
            beta = lk.damping_beta if rayleigh_beta is None else rayleigh_beta
            alpha = lk.damping_alpha if rayleigh_alpha is None else rayleigh_alpha
            sec = section_properties(lk)
            nodes, elements = self._build_beam(sec, lk, n, p, ptip, psi, beta, alpha)
            # hub body, clamped to the root node
            J_hub = jt.hub_inertia + (arm.hub_inertia if i == 0 else 0.0)
            hub = self._body(p, psi, max(jt.hub_mass, MASS_FLOOR * link_mass),
                             max(J_hub, MASS_FLOOR * link_inertia))
            hub.SetName(f"hub{i + 1}")     # names for exporters (chrono_flex.chrono.visual)
            self._clamp(nodes[0], hub)
            # joint: hub with respect to the parent (ground or previous tip body)
            self.motors.append(self._joint(i, jt, hub, parent, p, axes[i], TorqueFunction,
                                           MotionFunction))
            lb = _LinkBeam(nodes, elements, hub, None, lk.length, n, sec, lk.rho_A,
                           jyy_factor * lk.rho_A, beta, alpha)
            if i + 1 < len(arm.links):
                lb.tip = self._body(ptip, psi, MASS_FLOOR * link_mass,
                                    MASS_FLOOR * link_inertia)
                lb.tip.SetName(f"tip{i + 1}")
                self._clamp(nodes[-1], lb.tip)
                parent = lb.tip
            self.links.append(lb)
        pl = arm.payload
        self.payload_body = None
        if pl.mass > 0 or pl.inertia > 0:
            last = arm.links[-1]
            self.payload_body = self._body(
                tips[-1][0], tips[-1][1], max(pl.mass, MASS_FLOOR * last.mass),
                max(pl.inertia, MASS_FLOOR * last.rho_A * last.length ** 3 / 3.0))
            self.payload_body.SetName("payload")
            self._clamp(self.links[-1].nodes[-1], self.payload_body)
        self._bodies = [lb.hub for lb in self.links] + [lb.tip for lb in self.links if lb.tip]
        if self.payload_body is not None:
            self._bodies.append(self.payload_body)
        self._set_initial_velocities()

        solver = chrono.ChSolverSparseLU()
        solver.LockSparsityPattern(True)
        sys_.SetSolver(solver)
        ts = chrono.ChTimestepperHHT(sys_)
        ts.SetAlpha(hht_alpha)
        ts.SetStepControl(False)
        ts.SetMaxIters(NEWTON_MAX_ITERS)
        ts.SetRelTolerance(NEWTON_RELTOL)
        ts.SetAbsTolerances(NEWTON_ABSTOL)
        ts.SetJacobianUpdateMethod(getattr(chrono.ChTimestepperImplicit,
                                           "JacobianUpdate_" + JACOBIAN_UPDATE))
        sys_.SetTimestepper(ts)
        self.solver, self.timestepper = solver, ts
        self.hht_alpha = ts.GetAlpha()
        self.step = step
        sys_.Setup()
        sys_.Update(0.0)    # the motors' angles and rates are valid before the first step

    # -- construction helpers ------------------------------------------------------------
    def _vec3(self, v):
        v = self.chrono.ChVector3d(float(v[0]), float(v[1]), float(v[2]))
        self._keep.append(v)
        return v

    def _world(self, xy):
        return self._origin + self._B[:, 0] * xy[0] + self._B[:, 1] * xy[1]

    def _dir(self, ang):
        return self._B[:, 0] * math.cos(ang) + self._B[:, 1] * math.sin(ang)

    def _quat(self, ang):
        R = self.chrono.ChMatrix33d()
        R.SetFromAxisX(self._vec3(self._dir(ang)), self._vec3(self._dir(ang + math.pi / 2)))
        q = R.GetQuaternion()
        self._keep += [R, q]
        return q

    def _frame(self, xy, ang):
        f = self.chrono.ChFramed(self._vec3(self._world(xy)), self._quat(ang))
        self._keep.append(f)
        return f

    def _body(self, xy, ang, mass, inertia):
        b = self.chrono.ChBody()
        b.SetPos(self._vec3(self._world(xy)))
        b.SetRot(self._quat(ang))
        b.SetMass(float(mass))
        b.SetInertiaXX(self._vec3((inertia, inertia, inertia)))
        self.system.Add(b)
        return b

    def _clamp(self, node, body):
        """Clamp a beam node to a body: ChLinkMateGeneric with all six coordinates."""
        link = self.chrono.ChLinkMateGeneric(True, True, True, True, True, True)
        frame = node.Frame()
        self._keep.append(frame)
        link.Initialize(node, body, False, frame, frame)
        self.system.Add(link)
        self._keep.append(link)
        return link

    def _build_beam(self, sec, lk, n, p, ptip, psi, beta, alpha):
        chrono, fea = self.chrono, self.fea
        A, B = self._vec3(self._world(p)), self._vec3(self._world(ptip))
        ydir = self._vec3(self._dir(psi + math.pi / 2))   # local Z = plane normal
        if self.consistent_mass:
            le = lk.length / n
            dc = fea.DampingCoefficients()
            dc.bx = dc.by = dc.bz = dc.bt = math.sqrt(beta)   # Chrono squares them
            dc.alpha = alpha
            mu = lk.rho_A
            jr = self.jyy_factor * mu
            GA = 12.0 * sec.EI / (SHEAR_PHI * le * le)
            s = fea.ChBeamSectionTimoshenkoAdvancedGeneric(
                sec.EA, sec.G * sec.J, sec.E * sec.Iyy, sec.EI, GA, GA, dc,
                0.0, 0.0, 0.0, 0.0, 0.0, mu, jr, jr)
            tap = fea.ChBeamSectionTaperedTimoshenkoAdvancedGeneric()
            tap.SetSectionA(s)
            tap.SetSectionB(s)
            tap.SetLumpedMassMatrixType(False)
            tap.SetLength(le)    # default 1.0 m: the consistent matrix would be wrong
            builder = fea.ChBuilderBeamTaperedTimoshenko()
            builder.BuildBeam(self.mesh, tap, n, A, B, ydir)
            self._keep += [dc, s, tap]
        else:
            s = fea.ChBeamSectionEulerAdvanced()
            s.SetYoungModulus(sec.E)
            s.SetShearModulus(sec.G)
            s.SetArea(sec.A)
            s.SetIzz(sec.Izz)
            s.SetIyy(sec.Iyy)
            s.SetJ(sec.J)
            s.SetDensity(sec.density)
            s.SetRayleighDamping(beta, alpha)          # Chrono default: beta = 0.01
            s.SetArtificialJyyJzzFactor(self.jyy_factor)  # Chrono default: 1/500
            builder = fea.ChBuilderBeamEuler()
            builder.BuildBeam(self.mesh, s, n, A, B, ydir)
            self._keep.append(s)
        self._keep.append(builder)
        # PyChrono 10 wraps no Python class for ChElementBeamTaperedTimoshenko: its
        # element list cannot be iterated, and nothing here needs it
        elements = [] if self.consistent_mass else list(builder.GetLastBeamElements())
        return list(builder.GetLastBeamNodes()), elements

    def _joint(self, i, jt, hub, parent, p, axis, TorqueFunction, MotionFunction):
        chrono = self.chrono
        if jt.kind == "revolute":
            frame = self._frame(p, 0.0)        # Z = plane normal
            if self.motion is not None:
                m = chrono.ChLinkMotorRotationAngle()
                fn = MotionFunction(self.motion, i)
                setter = m.SetAngleFunction
            else:
                m = chrono.ChLinkMotorRotationTorque()
                fn = (TorqueFunction(self.inputs, i) if self.inputs is not None
                      else chrono.ChFunctionConst(0.0))
                setter = m.SetTorqueFunction
        else:
            ang = math.atan2(axis[1], axis[0])
            u = self._dir(ang)
            R = self.chrono.ChMatrix33d()
            # frame Z along the slide axis: X = plane normal, Y = Z x X
            R.SetFromAxisX(self._vec3(self._B[:, 2]), self._vec3(np.cross(u, self._B[:, 2])))
            q = R.GetQuaternion()
            frame = chrono.ChFramed(self._vec3(self._world(p)), q)
            self._keep += [R, q, frame]
            if self.motion is not None:
                m = chrono.ChLinkMotorLinearPosition()
                fn = MotionFunction(self.motion, i)
                setter = m.SetMotionFunction
            else:
                m = chrono.ChLinkMotorLinearForce()
                fn = (TorqueFunction(self.inputs, i) if self.inputs is not None
                      else chrono.ChFunctionConst(0.0))
                setter = m.SetForceFunction
        m.Initialize(hub, parent, frame)
        setter(fn)
        self.system.Add(m)
        self._keep += [m, fn]
        return m

    def _set_initial_velocities(self):
        if not np.any(self.qd0):
            return
        arm = self.arm
        for i, lb in enumerate(self.links):
            items = list(lb.nodes) + [lb.hub] + ([lb.tip] if lb.tip else [])
            if i == len(self.links) - 1 and self.payload_body is not None:
                items.append(self.payload_body)
            for it in items:
                r = self._planar(it.GetPos().to_numpy())
                v, w = rigid_velocity(arm, self.q0, self.qd0, i, r)
                it.SetPosDt(self._vec3(self._B[:, 0] * v[0] + self._B[:, 1] * v[1]))
                it.SetAngVelParent(self._vec3(self._B[:, 2] * w))

    # -- state read-out ------------------------------------------------------------------
    def _planar(self, X):
        return (np.asarray(X) - self._origin) @ self._B[:, :2]

    def _angles(self, Q):
        """Planar angle of the local X axis of frames with quaternions Q (n, 4)."""
        e0, e1, e2, e3 = Q.T
        x = np.stack([1 - 2 * (e2 * e2 + e3 * e3), 2 * (e1 * e2 + e0 * e3),
                      2 * (e1 * e3 - e0 * e2)], axis=1)
        return np.arctan2(x @ self._B[:, 1], x @ self._B[:, 0])

    def frames(self, items, velocities=False):
        """Planar positions (n, 2) and angles (n,) of nodes/bodies [and velocities, rates]."""
        X = np.array([it.GetPos().to_numpy() for it in items])
        Q = np.array([it.GetRot().to_numpy() for it in items])
        out = (self._planar(X), self._angles(Q))
        if velocities:
            V = np.array([it.GetPosDt().to_numpy() for it in items]) @ self._B[:, :2]
            W = np.array([it.GetAngVelParent().to_numpy() for it in items]) @ self._B[:, 2]
            out += (V, W)
        return out

    def joint_state(self):
        """Joint coordinates and rates (rad or m) read from the motors."""
        q, qd = np.empty(self.nj), np.empty(self.nj)
        for k, (m, jt) in enumerate(zip(self.motors, self.arm.joints)):
            if jt.kind == "revolute":
                q[k], qd[k] = m.GetMotorAngle(), m.GetMotorAngleDt()
            else:
                q[k], qd[k] = m.GetMotorPos(), m.GetMotorPosDt()
        return self.q0 + q, qd

    def arm_q(self, joint_values):
        """Joint values placed in the arm's coordinate layout (elastic entries NaN: the
        beam nodes are not the arm's generalized coordinates)."""
        q = np.full(self.arm.nq, np.nan)
        q[self.arm.joint_index] = joint_values
        return q

    def joint_torques(self, t):
        """Torque (N m) or force (N) applied at each joint at time t."""
        if self.motion is not None:
            return np.array([m.GetMotorTorque() if jt.kind == "revolute" else m.GetMotorForce()
                             for m, jt in zip(self.motors, self.arm.joints)])
        if self.inputs is None:
            return np.zeros(self.nj)
        return self.inputs.value(t).copy()

    def tip_deflections(self):
        """Transverse tip deflection of each link in its hub (root tangent) frame."""
        d = np.empty(len(self.links))
        for i, lb in enumerate(self.links):
            (ph, pt), (ah, _) = self.frames([lb.hub, lb.nodes[-1]])
            rel = pt - ph
            d[i] = -math.sin(ah) * rel[0] + math.cos(ah) * rel[1]
        return d

    def energies(self):
        """(kinetic, elastic, gravity) energies of the Chrono model, J."""
        g = self.arm.gravity
        kin = el = grav = 0.0
        for lb in self.links:
            P, th, V, W = self.frames(lb.nodes, velocities=True)
            le = lb.length / lb.n_elements
            M = element_mass(lb.mu, lb.Jzz, le, self.consistent_mass)
            vl = _local_velocities(P, th, V, W)
            kin += 0.5 * float(np.einsum("ei,ij,ej->", vl, M, vl))
            el += element_strain_energy(P, th, le, lb.section.EI, lb.section.EA)
            if g:
                if self.consistent_mass:
                    grav += g * lb.mu * _centreline_integral_y(P, th, lb.length)
                else:
                    m_node = np.full(P.shape[0], lb.mu * le)
                    m_node[[0, -1]] = lb.mu * le / 2
                    grav += g * float(m_node @ P[:, 1])
        for b in self._bodies:
            (P,), _, (V,), (W,) = self.frames([b], velocities=True)
            m, J = b.GetMass(), b.GetInertiaXX().z
            kin += 0.5 * (m * V @ V + J * W * W)
            grav += g * m * P[1]
        return kin, el, grav

    def dissipation_power(self):
        """Power of Chrono's Rayleigh damping, W: sum over elements of
        beta v^T K v + alpha v^T M v with v the nodal velocities in the chord frame
        (Chrono applies both to ABSOLUTE velocities; K has rigid motions in its null
        space, M does not: alpha also damps rigid-body motion)."""
        P_d = 0.0
        for lb in self.links:
            if lb.beta == 0 and lb.alpha == 0:
                continue
            P, th, V, W = self.frames(lb.nodes, velocities=True)
            le = lb.length / lb.n_elements
            D = (lb.beta * element_stiffness(lb.section.EI, lb.section.EA, le)
                 + lb.alpha * element_mass(lb.mu, lb.Jzz, le, self.consistent_mass))
            vl = _local_velocities(P, th, V, W)
            P_d += float(np.einsum("ei,ij,ej->", vl, D, vl))
        return P_d

    def centrelines(self, n_samples):
        """Deformed centrelines in the plane (nl, ns, 2) and curvature (nl, ns)."""
        pts, curv = [], []
        for lb in self.links:
            P, th = self.frames(lb.nodes)
            r, c = hermite_centreline(P, np.unwrap(th), lb.length, n_samples)
            pts.append(r)
            curv.append(c)
        return np.array(pts), np.array(curv)

    def tip_position(self):
        return self.frames([self.links[-1].nodes[-1]])[0][0]

    def check_callbacks(self):
        for src in (self.inputs, self.motion):
            if src is not None and src.error is not None:
                err, src.error = src.error, None
                raise err


def _centreline_integral_y(P, th, length, n_gauss=4):
    """int y ds over a link's Hermite centreline (Gauss-Legendre per element)."""
    n = P.shape[0] - 1
    le = length / n
    xg, wg = np.polynomial.legendre.leggauss(n_gauss)
    xi = 0.5 * (xg + 1)
    h = _hermite_basis(xi)[0]
    chord = np.linalg.norm(P[1:] - P[:-1], axis=1)
    total = 0.0
    for e in range(n):
        y = (h[0] * P[e, 1] + h[1] * chord[e] * math.sin(th[e])
             + h[2] * P[e + 1, 1] + h[3] * chord[e] * math.sin(th[e + 1]))
        total += 0.5 * le * float(wg @ y)
    return total


# ---------------------------------------------------------------------------------------
# Public entry points
# ---------------------------------------------------------------------------------------

def _n_elements(arm, n_elements):
    if n_elements is None:
        return [lk.n_elements for lk in arm.links]
    if isinstance(n_elements, (int, np.integer)) and not isinstance(n_elements, bool):
        return [ck.positive_int("n_elements", n_elements)] * len(arm.links)
    vals = list(n_elements)
    if len(vals) != len(arm.links):
        raise ParameterError("n_elements", n_elements,
                             f"must be an integer or one integer per link ({len(arm.links)})")
    return [ck.positive_int(f"n_elements[{k}]", v) for k, v in enumerate(vals)]


def build_beams(arm, joint_angles0=None, joint_rates0=None, torque=None, joint_motion=None,
                n_elements=None, consistent_mass=False, rayleigh_beta=None,
                rayleigh_alpha=None, jyy_factor=DEFAULT_JYY_FACTOR,
                hht_alpha=DEFAULT_HHT_ALPHA, step=1e-3):
    """Build a Chrono system holding ``arm`` made of Chrono's beams; returns a BeamArm.

    Args:
        arm: a :class:`chrono_flex.PlanarArm` (no gear drives).
        joint_angles0, joint_rates0: initial joint coordinates and rates (nj,), links
            undeformed. With ``joint_motion`` they come from ``joint_motion(0)``.
        torque: callable(t, q, qd) -> (nj,) joint torques (N m) or forces (N); q and qd
            are in the arm's layout (``arm.nq``) with the joint coordinates at
            ``arm.joint_index`` and NaN in the elastic entries.
        joint_motion: callable(t) -> (theta, theta_d, theta_dd): prescribed joints.
        n_elements: elements per link (int, or one per link); default the Links'.
        consistent_mass: True for consistent-mass (Timoshenko, phi = 1e-6) elements.
        rayleigh_beta, rayleigh_alpha: override the Links' damping_beta/damping_alpha
            (None: use the Links'; 0 is set explicitly, Chrono's default is beta = 0.01).
        jyy_factor: Chrono's artificial section rotary inertia, per unit mass per length.
        hht_alpha: HHT parameter in [-1/3, 0].
        step: the fixed time step, s.
    """
    if not isinstance(arm, PlanarArm):
        raise ParameterError("arm", arm, "must be a chrono_flex.PlanarArm")
    if getattr(arm, "drives", None):
        raise ParameterError("arm.drives", sorted(arm.drives),
                             "are not supported by the chrono-beam engine (use the "
                             "reference or the chrono engine for gear drives)")
    nj = len(arm.joints)
    if joint_motion is not None and torque is not None:
        raise ParameterError("joint_motion", joint_motion,
                             "excludes `torque` (the joints are prescribed)")
    for name, fn in (("torque", torque), ("joint_motion", joint_motion)):
        if fn is not None and not callable(fn):
            raise ParameterError(name, fn, "must be callable")
    n_el = _n_elements(arm, n_elements)
    jyy_factor = ck.non_negative("jyy_factor", jyy_factor)
    hht_alpha = ck.real("hht_alpha", hht_alpha)
    if not -1.0 / 3.0 <= hht_alpha <= 0.0:
        raise ParameterError("hht_alpha", hht_alpha, "must lie in [-1/3, 0]")
    step = ck.positive("step", step)
    if rayleigh_beta is not None:
        rayleigh_beta = ck.non_negative("rayleigh_beta", rayleigh_beta)
    if rayleigh_alpha is not None:
        rayleigh_alpha = ck.non_negative("rayleigh_alpha", rayleigh_alpha)
    motion = None
    if joint_motion is not None:
        motion = _JointMotion(joint_motion, nj)
        q0, qd0 = motion(0.0)[0], motion(0.0)[1]
    else:
        q0 = np.zeros(nj) if joint_angles0 is None else ck.vector("joint_angles0", joint_angles0, nj)
        qd0 = np.zeros(nj) if joint_rates0 is None else ck.vector("joint_rates0", joint_rates0, nj)
    return BeamArm(arm, q0, qd0, n_el, bool(consistent_mass), rayleigh_beta, rayleigh_alpha,
                   jyy_factor, hht_alpha, step, torque=torque, joint_motion=motion)


def _output_times(t_end, dt_out, step):
    """Output times and the number of fixed steps between consecutive outputs."""
    n_out = int(math.floor(t_end / dt_out + 1e-9)) + 1
    t = dt_out * np.arange(n_out)
    if t[-1] < t_end - 1e-12 * max(1.0, t_end):
        t = np.append(t, t_end)
    steps = [max(1, int(math.ceil((b - a) / step - 1e-9))) for a, b in zip(t[:-1], t[1:])]
    return t, steps


def simulate_beams(arm, t_end, joint_angles0=None, joint_rates0=None, torque=None,
                   joint_motion=None, dt_out=None, step=1e-3, n_elements=None,
                   consistent_mass=False, rayleigh_beta=None, rayleigh_alpha=None,
                   jyy_factor=DEFAULT_JYY_FACTOR, hht_alpha=DEFAULT_HHT_ALPHA,
                   n_samples=21, max_deflection_ratio=0.5, progress=None, on_output=None,
                   **unsupported):
    """Simulate ``arm`` with Chrono's beam elements; returns a :class:`Result`.

    Same inputs and output type as ``PlanarArm.simulate`` (see :func:`build_beams` for
    the beam options). Fixed-step HHT (``step``, shortened so that every output time
    is hit) with the sparse LU direct solver. ``q``/``qd`` of the result hold the joint
    coordinates only (``info["coordinates"]``); tip deflections are measured in each
    link's hub frame (tangent to the root); centrelines follow the Hermite shape
    functions between nodes; energies are computed from the elements' corotated
    strains and Chrono's (lumped or consistent) mass; input work and Rayleigh
    dissipation are accumulated every step (trapezoidal rule), so the energy balance
    error shows the integrator's own dissipation (HHT alpha < 0).

    ``on_output``: callable(system, t) called at t = 0 and at every output time (e.g.
    :class:`chrono_flex.chrono.blender.BlenderExporter`).

    Raises:
        ParameterError: for arguments this engine does not support (named).
        SimulationError: NaN, a Chrono failure, or a tip deflection above
            ``max_deflection_ratio`` of its link length, with the time.
    """
    if unsupported:
        names = sorted(unsupported)
        raise ParameterError(", ".join(names), [unsupported[k] for k in names],
                             "is not supported by the chrono-beam engine")
    t_end = ck.positive("t_end", t_end)
    dt_out = t_end / 500 if dt_out is None else ck.positive("dt_out", dt_out)
    n_samples = ck.positive_int("n_samples", n_samples)
    max_deflection_ratio = ck.positive("max_deflection_ratio", max_deflection_ratio)
    if on_output is not None and not callable(on_output):
        raise ParameterError("on_output", on_output, "must be callable(system, t)")
    scene = build_beams(arm, joint_angles0, joint_rates0, torque, joint_motion, n_elements,
                        consistent_mass, rayleigh_beta, rayleigh_alpha, jyy_factor,
                        hht_alpha, step)
    t_out, steps = _output_times(t_end, dt_out, step)
    nt, nj, nl = t_out.size, scene.nj, len(arm.links)
    Q, QD, TAU = np.empty((nt, nj)), np.empty((nt, nj)), np.empty((nt, nj))
    TIP, DEF = np.empty((nt, 2)), np.empty((nt, nl))
    CL = np.empty((nt, nl, n_samples, 3))
    CLR = np.empty_like(CL)
    CURV = np.empty((nt, nl, n_samples))
    KIN, EL, GR = np.empty(nt), np.empty(nt), np.empty(nt)
    W_IN, W_D = np.zeros(nt), np.zeros(nt)
    damped = any(lb.beta or lb.alpha for lb in scene.links)
    lengths = np.array([lk.length for lk in arm.links])
    prog = Progress(t_end, ENGINE, progress)
    sys_ = scene.system

    def power(t):
        q, qd = scene.joint_state()
        tau = scene.joint_torques(t)
        return float(tau @ qd), (scene.dissipation_power() if damped else 0.0)

    def record(k, t):
        q, qd = scene.joint_state()
        Q[k], QD[k] = q, qd
        TAU[k] = scene.joint_torques(t)
        TIP[k] = scene.tip_position()
        DEF[k] = scene.tip_deflections()
        if not np.all(np.isfinite(DEF[k])) or not np.all(np.isfinite(Q[k])):
            raise SimulationError("NaN in the Chrono beam state", t)
        pts, CURV[k] = scene.centrelines(n_samples)
        CL[k] = arm.plane.to_world(pts)
        roots, _, _ = rigid_chain(arm, q)
        s = np.linspace(0.0, 1.0, n_samples)
        for i, ((p, psi), L) in enumerate(zip(roots, lengths)):
            rig = p + L * s[:, None] * np.array([math.cos(psi), math.sin(psi)])
            CLR[k, i] = arm.plane.to_world(rig)
        KIN[k], EL[k], GR[k] = scene.energies()
        ratio = np.max(np.abs(DEF[k]) / lengths)
        if ratio > max_deflection_ratio:
            raise SimulationError(
                f"a tip deflection reached {ratio:.3g} of its link length (limit "
                f"{max_deflection_ratio}): unstable or diverging motion", t)

    t_wall = time.perf_counter()
    try:
        with quiet_swig():
            record(0, 0.0)
            if on_output is not None:
                on_output(sys_, 0.0)
            p_in, p_d = power(0.0)
            w_in = w_d = 0.0
            t = 0.0
            for k in range(1, nt):
                h = (t_out[k] - t_out[k - 1]) / steps[k - 1]
                for _ in range(steps[k - 1]):
                    try:
                        sys_.DoStepDynamics(h)
                    except Exception as exc:  # noqa: BLE001 (Chrono raises RuntimeError)
                        scene.check_callbacks()
                        raise SimulationError(f"Chrono failed: {exc}", t) from exc
                    scene.check_callbacks()
                    t = sys_.GetChTime()
                    p_in1, p_d1 = power(t)
                    w_in += 0.5 * h * (p_in + p_in1)
                    w_d += 0.5 * h * (p_d + p_d1)
                    p_in, p_d = p_in1, p_d1
                    if not math.isfinite(p_in1):
                        raise SimulationError("NaN in the joint state or torques", t)
                W_IN[k], W_D[k] = w_in, w_d
                record(k, t_out[k])
                if on_output is not None:
                    on_output(sys_, t)
                prog(t)
    finally:
        prog.close()
    ts = scene.timestepper
    notes = [
        "Chrono's corotational beams include geometric (centrifugal) stiffening whatever "
        "arm.geometric_stiffening says",
        "beams are extensible: EA = E*A of chrono_flex.chrono.beams.section_properties",
    ]
    if any(lb.alpha for lb in scene.links):
        notes.append("Chrono's mass-proportional Rayleigh damping (alpha) acts on absolute "
                     "nodal velocities: it also damps rigid-body motion, unlike the "
                     "reference's alpha on elastic coordinates")
    if not scene.consistent_mass and min(lb.n_elements for lb in scene.links) < COARSE_LUMPED_MESH:
        notes.append("coarse lumped mesh: ChElementBeamEuler lumps the mass on the nodes' "
                     "translations only, so with few elements the bending modes are poorly "
                     "represented (with 1 element and no hub inertia the bending follows "
                     "the joint torque quasi-statically); use n_elements >= 8 or "
                     "consistent_mass=True")
    if any(lk.basis != "fem" for lk in arm.links):
        notes.append("links with basis 'modes'/'power' are meshed with n_elements beam "
                     "elements")
    n_el = [lb.n_elements for lb in scene.links]
    info = dict(
        engine=ENGINE,
        coordinates="joint coordinates only: q and qd are the joint angles (rad) or "
                    "slider positions (m) and their rates; the beam nodes are not the "
                    "arm's generalized coordinates",
        element=("ChElementBeamTaperedTimoshenko (consistent mass, phi=%g)" % SHEAR_PHI
                 if scene.consistent_mass else "ChElementBeamEuler (lumped mass)"),
        mass_matrix="consistent" if scene.consistent_mass else "lumped",
        n_elements=n_el, step=float(min((b - a) / m for a, b, m in zip(t_out[:-1], t_out[1:], steps))),
        timestepper="HHT", hht_alpha=scene.hht_alpha, solver="SparseLU",
        jyy_factor=scene.jyy_factor,
        rayleigh_beta=[lb.beta for lb in scene.links],
        rayleigh_alpha=[lb.alpha for lb in scene.links],
        newton_iterations=int(ts.GetNumIterations()),
        newton_not_converged=int(ts.GetNumTerminated()),
        energy="kinetic from Chrono's element mass and the bodies; elastic from the "
               "elements' corotated strains (Chrono's ChElementBeamEuler exposes no "
               "strain energy); work and Rayleigh dissipation summed every step",
        notes=notes,
        wall_time=round(time.perf_counter() - t_wall, 4),
    )
    return Result(t=t_out, q=Q, qd=QD, joint_angles=Q.copy(), joint_rates=QD.copy(),
                  tip_position=TIP, tip_deflection=DEF,
                  energy=Energy(KIN, EL, GR, W_IN, W_D), joint_torque=TAU,
                  centerline=CL, centerline_rigid=CLR, curvature=CURV, plane=arm.plane,
                  link_thickness=np.array([lk.thickness for lk in arm.links]), info=info)


__all__ = ["BeamArm", "BeamSection", "DEFAULT_JYY_FACTOR", "DEFAULT_HHT_ALPHA",
           "build_beams", "hermite_centreline", "rigid_chain",
           "section_properties", "simulate_beams"]
