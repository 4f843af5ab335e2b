"""A PlanarArm built from Chrono's own beams: the scene of the "chrono-beam" engine.

:func:`build_beams` makes the same arm as the reference engine's from Chrono's own
finite elements, for Chrono to integrate (:mod:`chrono_flex.chrono.beams`):

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

The section defaults Chrono would otherwise apply, and the differences from the
reference that are physics, are stated in :mod:`chrono_flex.chrono.beams`.
"""

from dataclasses import dataclass
import math

import numpy as np

from .. import _checks as ck
from .._callbacks import check_period
from ..errors import ParameterError
from ..planar.arm import PlanarArm
from .directors import JointInputs, JointMotion, beam_function_classes
from .corotational import (BeamSection, centreline_integral_y, element_mass,
                           element_sections, element_stiffness, element_strain_energy,
                           hermite_centreline, hub_frame_deflection, local_velocities,
                           project_onto_basis, rigid_chain, rigid_velocity)

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


#: Below this many lumped elements per link the result carries a warning note.
COARSE_LUMPED_MESH = 4



def _modules():
    from ._detect import require_fea, require_pychrono

    return require_pychrono(), require_fea()


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
    sections: list = None   # one BeamSection per element (varying sections)
    jyy: float = 0.0        # artificial rotary inertia per unit mass per length

    @property
    def uniform(self):
        return all(s is self.sections[0] for s in self.sections)

    @property
    def mu_elements(self):
        """Mass per length of each element (n,)."""
        return np.array([s.mass_per_length for s in self.sections])

    def element_matrices(self, le, consistent, stiffness=True):
        """Per element (n, 6, 6): the stiffness (``stiffness=True``) or the mass matrices."""
        if stiffness:
            return [element_stiffness(s.EI, s.EA, le) for s in self.sections]
        return [element_mass(s.mass_per_length, self.jyy * s.mass_per_length, le, consistent)
                for s in self.sections]


class BeamArm:
    """A PlanarArm built from Chrono's beam elements (see the module docstring).

    Build it with :func:`build_beams`; :func:`simulate_beams` runs it. Attributes:
    ``system``, ``mesh``, ``links`` (per link: nodes, elements, hub and tip bodies),
    ``motors`` (one per joint), ``payload_body`` (or None), ``ground``.
    """

    def __init__(self, arm, joint_coords0, joint_rates0, n_elements, consistent_mass,
                 rayleigh_beta, rayleigh_alpha, jyy_factor, hht_alpha, step,
                 torque=None, joint_motion=None, system=None, parent_body=None):
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

        self.welds = []     # bodies welded by attach()
        own = system is None
        sys_ = chrono.ChSystemSMC() if own else system
        self.system = sys_
        if own:
            g = self._vec3(-arm.gravity * np.asarray(arm.plane.y_axis))
            sys_.SetGravitationalAcceleration(g)
        self.ground = chrono.ChBody()
        self.ground.SetFixed(True)
        sys_.Add(self.ground)
        self.mesh = fea.ChMesh()
        self.mesh.SetName("beams")
        # in a given system, the system's gravity acts on the beams as on every body
        self.mesh.SetAutomaticGravity(arm.gravity > 0 or not own)
        sys_.Add(self.mesh)

        roots, tips, axes = rigid_chain(arm, self.q0)
        self.links = []
        self.motors = []
        TorqueFunction, MotionFunction = beam_function_classes(chrono)
        self.inputs = JointInputs(self, torque) if torque is not None else None
        self.motion = joint_motion
        parent = self.ground if parent_body is None else parent_body
        for i, (lk, jt) in enumerate(zip(arm.links, arm.joints)):
            n = n_elements[i]
            (p, psi), (ptip, _) = roots[i], tips[i]
            link_mass, link_inertia = lk.mass, _root_inertia(lk)
            beta = lk.damping_beta if rayleigh_beta is None else rayleigh_beta
            alpha = lk.damping_alpha if rayleigh_alpha is None else rayleigh_alpha
            secs = element_sections(lk, n)
            sec = secs[0]
            nodes, elements = self._build_beam(secs, lk, n, p, ptip, psi, beta, alpha)
            # hub body, clamped to the root node
            J_hub = jt.hub_inertia + (arm.hub_inertia if i == 0 else 0.0)
            hub = self._body(p, psi, max(jt.hub_mass, MASS_FLOOR * link_mass),
                             max(J_hub, MASS_FLOOR * link_inertia))
            hub.SetName(f"hub{i + 1}")     # names for exporters (chrono_flex.chrono.visual)
            self._clamp(nodes[0], hub)
            # joint: hub with respect to the parent (ground or previous tip body)
            self.motors.append(self._joint(i, jt, hub, parent, p, axes[i], TorqueFunction,
                                           MotionFunction))
            mu = lk.rho_A if lk.uniform else sec.mass_per_length   # (uniform: as given)
            lb = _LinkBeam(nodes, elements, hub, None, lk.length, n, sec, mu,
                           jyy_factor * mu, beta, alpha, secs, jyy_factor)
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
                max(pl.inertia, MASS_FLOOR * _root_inertia(last)))
            self.payload_body.SetName("payload")
            self._clamp(self.links[-1].nodes[-1], self.payload_body)
        self._bodies = [lb.hub for lb in self.links] + [lb.tip for lb in self.links if lb.tip]
        if self.payload_body is not None:
            self._bodies.append(self.payload_body)
        self._set_initial_velocities()
        self.step = step
        if not own:     # the system's owner chose its solver and timestepper
            self.solver = self.timestepper = self.hht_alpha = None
            return

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
        sys_.Setup()
        sys_.Update(0.0)    # the motors' angles and rates are valid before the first step

    # -- for the welds (chrono.beam_weld) -----------------------------------------------
    def keep(self, *items):
        """Hold ``items`` (SWIG frames, joints) as long as the scene: SWIG does not keep
        temporaries alive."""
        self._keep.extend(items)

    def vector3(self, v):
        """A ``ChVector3d`` of ``v`` (3,), held as long as the scene."""
        return self._vec3(v)

    def count_body(self, body, welded=True):
        """Count ``body`` among the scene's bodies (whose energy :meth:`energy` sums),
        once (``welded``), or take it out (``welded=False``)."""
        ident = body.GetIdentifier()
        if not welded:
            self._bodies = [b for b in self._bodies if b.GetIdentifier() != ident]
        elif all(b.GetIdentifier() != ident for b in self._bodies):
            self._bodies.append(body)

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

    def _timoshenko_section(self, sec, le, beta, alpha, mu):
        """The tapered-Timoshenko section (the same at both ends) of one element of mass
        per length ``mu``."""
        fea = self.fea
        dc = fea.DampingCoefficients()
        dc.bx = dc.by = dc.bz = dc.bt = math.sqrt(beta)   # Chrono squares them
        dc.alpha = alpha
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
        self._keep += [dc, s, tap]
        return tap

    def _euler_section(self, sec, beta, alpha):
        s = self.fea.ChBeamSectionEulerAdvanced()
        s.SetYoungModulus(sec.E)
        s.SetShearModulus(sec.G)
        s.SetArea(sec.A)
        s.SetIzz(sec.Izz)
        s.SetIyy(sec.Iyy)
        s.SetJ(sec.J)
        s.SetDensity(sec.density)
        s.SetRayleighDamping(beta, alpha)          # Chrono default: beta = 0.01
        s.SetArtificialJyyJzzFactor(self.jyy_factor)  # Chrono default: 1/500
        self._keep.append(s)
        return s

    def _build_beam(self, secs, lk, n, p, ptip, psi, beta, alpha):
        """n equal elements from p to ptip; element k gets the section secs[k] (one
        ChBeamSectionEulerAdvanced, or tapered-Timoshenko section, per distinct one)."""
        fea = self.fea
        A, B = self._vec3(self._world(p)), self._vec3(self._world(ptip))
        ydir = self._vec3(self._dir(psi + math.pi / 2))   # local Z = plane normal
        uniform = all(s is secs[0] for s in secs)
        le = lk.length / n
        if self.consistent_mass and uniform:
            builder = fea.ChBuilderBeamTaperedTimoshenko()
            builder.BuildBeam(self.mesh, self._timoshenko_section(secs[0], le, beta, alpha,
                                                                  lk.rho_A), n, A, B, ydir)
            nodes = list(builder.GetLastBeamNodes())
            self._keep.append(builder)
        elif self.consistent_mass:
            # one element per call, each starting at the previous one's end node
            pa, pb = np.asarray(p, dtype=float), np.asarray(ptip, dtype=float)
            nodes = []
            for k, sec in enumerate(secs):
                builder = fea.ChBuilderBeamTaperedTimoshenko()
                end = self._vec3(self._world(pa + (pb - pa) * (k + 1) / n))
                start = A if k == 0 else nodes[-1]
                tap = self._timoshenko_section(sec, le, beta, alpha, sec.mass_per_length)
                builder.BuildBeam(self.mesh, tap, 1, start, end, ydir)
                nodes += list(builder.GetLastBeamNodes())[(0 if k == 0 else 1):]
                self._keep.append(builder)
        else:
            builder = fea.ChBuilderBeamEuler()
            builder.BuildBeam(self.mesh, self._euler_section(secs[0], beta, alpha), n, A, B,
                              ydir)
            nodes = list(builder.GetLastBeamNodes())
            self._keep.append(builder)
        # PyChrono 10 wraps no Python class for ChElementBeamTaperedTimoshenko: its
        # element list cannot be iterated, and nothing here needs it
        elements = [] if self.consistent_mass else list(builder.GetLastBeamElements())
        if not uniform and not self.consistent_mass:
            for el, sec in zip(elements, secs):     # before the system's set-up reads them
                el.SetSection(self._euler_section(sec, beta, alpha))
        return nodes, elements

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

    def arm_state(self):
        """The arm's generalized coordinates and rates (q, q_d) measured from the beams:
        the joint values from the motors, and for each link the least-squares
        coordinates of its shape basis that reproduce the beams' deflection and its
        rate in the hub frame (:func:`~chrono_flex.chrono.corotational.hub_frame_deflection`,
        sampled at 8 points per beam element)."""
        q, qd = self.arm_q(np.nan), self.arm_q(np.nan)
        jq, jqd = self.joint_state()
        q[self.arm.joint_index], qd[self.arm.joint_index] = jq, jqd
        layout = self.arm.model.layout
        for lb, basis, ll in zip(self.links, self.arm.model.bases, layout.links):
            P, th, V, W = self.frames(lb.nodes, velocities=True)
            (ph,), (ah,), (vh,), (wh,) = self.frames([lb.hub], velocities=True)
            x = np.linspace(0.0, lb.length, 8 * lb.n_elements + 1)
            w, w_rate = hub_frame_deflection(P, np.unwrap(th), V, W, (ph, ah, vh, wh),
                                             lb.length, x)
            q[ll.elastic_index] = project_onto_basis(basis, x, w)
            qd[ll.elastic_index] = project_onto_basis(basis, x, w_rate)
        return q, qd

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
            vl = local_velocities(P, th, V, W)
            if lb.uniform:
                M = element_mass(lb.mu, lb.Jzz, le, self.consistent_mass)
                kin += 0.5 * float(np.einsum("ei,ij,ej->", vl, M, vl))
                el += element_strain_energy(P, th, le, lb.section.EI, lb.section.EA)
            else:
                M = np.array(lb.element_matrices(le, self.consistent_mass, stiffness=False))
                kin += 0.5 * float(np.einsum("ei,eij,ej->", vl, M, vl))
                el += element_strain_energy(P, th, le, np.array([s.EI for s in lb.sections]),
                                            np.array([s.EA for s in lb.sections]))
            if g:
                if self.consistent_mass and lb.uniform:
                    grav += g * lb.mu * centreline_integral_y(P, th, lb.length)
                elif self.consistent_mass:
                    grav += g * centreline_integral_y(P, th, lb.length,
                                                      weights=lb.mu_elements)
                elif lb.uniform:
                    m_node = np.full(P.shape[0], lb.mu * le)
                    m_node[[0, -1]] = lb.mu * le / 2
                    grav += g * float(m_node @ P[:, 1])
                else:
                    half = lb.mu_elements * le / 2       # each element's half on its nodes
                    m_node = np.concatenate([half, [0.0]]) + np.concatenate([[0.0], half])
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
            vl = local_velocities(P, th, V, W)
            if lb.uniform:
                D = (lb.beta * element_stiffness(lb.section.EI, lb.section.EA, le)
                     + lb.alpha * element_mass(lb.mu, lb.Jzz, le, self.consistent_mass))
                P_d += float(np.einsum("ei,ij,ej->", vl, D, vl))
            else:
                D = (lb.beta * np.array(lb.element_matrices(le, self.consistent_mass))
                     + lb.alpha * np.array(lb.element_matrices(le, self.consistent_mass,
                                                               stiffness=False)))
                P_d += float(np.einsum("ei,eij,ej->", vl, D, vl))
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

    def attach(self, body, link=-1, s=None, frame=None):
        """Weld a free ``ChBody`` to link ``link`` at arc length ``s`` (default the tip),
        with Chrono's ``ChLinkMateFix`` between the beam node there and the body, where
        the body is now; the body takes the node's velocity. ``s`` must fall on a node.
        Same signature and report as :meth:`FlexibleLink.attach
        <chrono_flex.chrono.element.FlexibleLink.attach>` (docs/chrono.md §8); returns a
        :class:`~chrono_flex.chrono.beam_weld.BeamWeld`."""
        from .beam_weld import attach

        return attach(self, body, link, s, frame)

    def enable_contact(self, material, radius, link=-1):
        """Contact on link ``link``: a sphere of ``radius`` (m, at most half an element) at
        each of its beam nodes, a ``ChContactSurfaceNodeCloud`` with the user's
        ``material`` (``ChContactMaterialNSC`` or ``SMC``, as the system). The system
        needs a collision system; call it before the first step and before ``attach``.
        Returns a :class:`~chrono_flex.chrono.contact.LinkContact` (contact force per
        node). docs/chrono.md §13."""
        from .contact import beam_contact

        return beam_contact(self, material, radius, link)

    def initialize_accelerations(self):
        """Store consistent accelerations in every item of the system (Chrono's
        acceleration assembly: M a = f with the constraints' reactions). HHT starts from
        the stored accelerations; a welded body left at zero makes the run first order
        in the step (docs/chrono.md §2)."""
        self.system.DoAssembly(self.chrono.ACCELERATION)

    def check_callbacks(self):
        for src in (self.inputs, self.motion):
            if src is not None and src.error is not None:
                err, src.error = src.error, None
                raise err


def _root_inertia(link):
    """int rho_A x^2 dx: the link's rotary inertia about its root (rigid)."""
    if link.uniform:
        return link.rho_A * link.length ** 3 / 3.0
    return link.integral("rho_A", 0.0, link.length, 2)


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
                hht_alpha=DEFAULT_HHT_ALPHA, step=1e-3, system=None, parent_body=None):
    """Build a Chrono system holding ``arm`` made of Chrono's beams; returns a BeamArm.

    Args:
        arm: a :class:`chrono_flex.PlanarArm` (no gear drives).
        joint_angles0, joint_rates0: initial joint coordinates and rates (nj,), links
            undeformed. With ``joint_motion`` they come from ``joint_motion(0)``.
        torque: callable(t, q, qd) -> (nj,) joint torques (N m) or forces (N); q and qd
            are in the arm's layout (``arm.nq``) with the joint coordinates at
            ``arm.joint_index`` and NaN in the elastic entries. A controller runs as on
            the custom element (docs/control.md §1.4; a period below ``step`` is named).
        joint_motion: callable(t) -> (theta, theta_d, theta_dd): prescribed joints.
        n_elements: elements per link (int, or one per link); default the Links'.
        consistent_mass: True for consistent-mass (Timoshenko, phi = 1e-6) elements.
        rayleigh_beta, rayleigh_alpha: override the Links' damping_beta/damping_alpha
            (None: use the Links'; 0 is set explicitly, Chrono's default is beta = 0.01).
        jyy_factor: Chrono's artificial section rotary inertia, per unit mass per length.
        hht_alpha: HHT parameter in [-1/3, 0].
        step: the fixed time step, s.
        system: build into this ``ChSystem`` (its solver, timestepper and gravity stay as
            they are; the beams feel its gravity) instead of a new one of its own.
            :meth:`BeamArm.energies` still counts gravity from ``arm.gravity``, and
            the welded bodies' kinetic energy in the plane only.
        parent_body: a ``ChBody`` of ``system`` that carries the first joint (instead of
            the beams' own fixed ground): the arm's plane is placed in the world as
            ``arm.plane`` says at the start, and the initial velocities above are
            relative to a parent at rest, so give the beams a moving parent's velocity
            yourself.
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
    for k, lk in enumerate(arm.links):
        if lk.element_lengths is not None:
            raise ParameterError(f"links[{k}].element_lengths", lk.element_lengths,
                                 "are not supported by the chrono-beam engine, which meshes "
                                 "each link with equal elements (a varying EI or rho_A is; "
                                 "use the reference or the chrono engine for unequal "
                                 "elements)")
    jyy_factor = ck.non_negative("jyy_factor", jyy_factor)
    hht_alpha = ck.real("hht_alpha", hht_alpha)
    if not -1.0 / 3.0 <= hht_alpha <= 0.0:
        raise ParameterError("hht_alpha", hht_alpha, "must lie in [-1/3, 0]")
    step = ck.positive("step", step)
    check_period("torque", torque, step)
    if rayleigh_beta is not None:
        rayleigh_beta = ck.non_negative("rayleigh_beta", rayleigh_beta)
    if rayleigh_alpha is not None:
        rayleigh_alpha = ck.non_negative("rayleigh_alpha", rayleigh_alpha)
    motion = None
    if joint_motion is not None:
        motion = JointMotion(joint_motion, nj)
        q0, qd0 = motion(0.0)[0], motion(0.0)[1]
    else:
        q0 = np.zeros(nj) if joint_angles0 is None else ck.vector("joint_angles0", joint_angles0, nj)
        qd0 = np.zeros(nj) if joint_rates0 is None else ck.vector("joint_rates0", joint_rates0, nj)
    if parent_body is not None:
        chrono, _ = _modules()
        if system is None:
            raise ParameterError("parent_body", parent_body, "needs `system` (the system "
                                 "the body is in)")
        if not isinstance(parent_body, chrono.ChBody):
            raise ParameterError("parent_body", parent_body, "must be a chrono ChBody")
    return BeamArm(arm, q0, qd0, n_el, bool(consistent_mass), rayleigh_beta, rayleigh_alpha,
                   jyy_factor, hht_alpha, step, torque=torque, joint_motion=motion,
                   system=system, parent_body=parent_body)


__all__ = ["BeamArm", "DEFAULT_HHT_ALPHA", "DEFAULT_JYY_FACTOR", "ENGINE", "build_beams"]
