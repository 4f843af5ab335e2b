"""The spatial finite-element arm as a Chrono item (the custom element in space).

A :class:`SpatialFlexibleLink` puts a :class:`chrono_flex.SpatialArm` (flexible links
bending in two planes and twisting, rigid bodies, revolute and prismatic joints about any
axis, serial or branched: docs/spatial-link.md) into a ``ChSystem`` exactly as
:class:`~chrono_flex.chrono.element.FlexibleLink` does for a planar arm: one ``ChShaft``
per generalized coordinate, and a ``ChLoadCustomMultiple`` over them (and over the
parent body when it moves) whose ``ComputeQ`` evaluates the generalized forces of
:mod:`chrono_flex.spatial.floating` (the reference engine's equations, with the body's
velocity columns) and injects M(q). Chrono integrates it implicitly with the rest of
the scene (docs/chrono.md §2, §9)::

    system = chrono.ChSystemNSC()
    configure_system(system)
    link = SpatialFlexibleLink(system, arm, torque=lambda t, q, qd: [0.1, 0.0])
    while system.GetChTime() < 1.0:
        step(system, 1e-3)
    print(link.joint_angles(), link.tip_coordinates())

Everything the planar element offers on its coordinates carries over: the torque
callback or ``ChFunction`` list, prescribed joints (``joint_motion``), actuators with
internal states (:meth:`add_joint_actuator`), the Jacobian policy (``jacobian``), the
kinematic :attr:`tip_body`, error handling through :func:`~chrono_flex.chrono.system.step`.
Free bodies are welded to any station of any link with :meth:`attach` (a stiff bushing
inside the same load, docs/chrono.md §8, §12), as on the planar element.
"""

import numpy as np

from ..errors import ParameterError
from ..inputs import is_time_only
from ..spatial import equations as sp
from ..spatial import floating as sfl
from ..spatial import kernels as skernels
from ..spatial import load_kernels
from ..spatial.arm import SpatialArm
from .element import FlexibleLink
from .system import matrix_to_quat


class SpatialFlexibleLink(FlexibleLink):
    """A spatial flexible arm (docs/spatial-link.md) as a Chrono item, on the ground or a body.

    Args:
        system: the ``ChSystem``; its gravity acts on the arm (``arm.gravity`` is not
            used).
        arm: a :class:`chrono_flex.SpatialArm` (a serial chain or a tree).
        parent_body: a ``ChBody`` carrying the arm's base, or None for the ground. A
            fixed body is treated as ground at its pose when the link is built; a moving
            one joins the element's coordinates (its 6 velocities), so the arm's inertia,
            gravity and joint reactions act on it.
        joint_frame: the arm's base frame in the parent's frame (world for the ground):
            a ``ChFramed``, or (origin, rotation 3 x 3); default the parent's own frame.
        torque, joint_motion, joint_angles0, joint_rates0, elastic0, elastic_rates0,
        jacobian: as for :class:`~chrono_flex.chrono.element.FlexibleLink`.
        compiled: evaluate the load compiled where it can
            (:mod:`chrono_flex.spatial.load_kernels`: the numba backend, no welded
            bodies, no actuator states, no geometric stiffening on a moving body);
            False keeps the numpy path (the two agree to round-off; for comparisons).
    """

    def __init__(self, system, arm, parent_body=None, joint_frame=None, compiled=True, **kw):
        if not isinstance(arm, SpatialArm):
            raise ParameterError("arm", arm, "must be a SpatialArm (a PlanarArm goes into "
                                 "FlexibleLink)")
        if not isinstance(compiled, bool):
            raise ParameterError("compiled", compiled, "must be True or False")
        self.compiled = compiled
        super().__init__(system, arm, parent_body=parent_body, joint_frame=joint_frame, **kw)

    # -- the model's hooks ----------------------------------------------------------------
    def _place(self, joint_frame, chrono):
        if joint_frame is None:
            o, R = np.zeros(3), np.eye(3)
        elif isinstance(joint_frame, chrono.ChFramed):
            o = np.asarray(joint_frame.GetPos().to_numpy(), dtype=float)
            R = np.asarray(joint_frame.GetRotMat().to_numpy(), dtype=float)
        else:
            try:
                o, R = joint_frame
                o = np.asarray(o, dtype=float).reshape(3)
                R = np.asarray(R, dtype=float).reshape(3, 3)
            except (TypeError, ValueError):
                raise ParameterError("joint_frame", joint_frame,
                                     "must be a ChFramed or (origin (3,), rotation (3, 3))") \
                    from None
            if not (np.all(np.isfinite(o)) and np.allclose(R.T @ R, np.eye(3), atol=1e-9)
                    and np.linalg.det(R) > 0):
                raise ParameterError("joint_frame", joint_frame,
                                     "must hold a finite origin and a proper rotation matrix")
        self.plane = None
        self._o, self._P = o, R

    def _mass_at(self, q):
        return sp.terms(self.model, q, np.zeros(self.nq))[0]

    def _model_terms(self, q, qd, body, g, Q):
        if body is None:
            return sfl.fixed_terms(self.model, q, qd, self._ground_P.T @ g, Q)
        return sfl.body_terms(self.model, q, qd, body[0], body[1], body[2], body[3],
                              self._o, self._P, g, Q)

    # -- the compiled load (chrono_flex.spatial.load_kernels) ------------------------------
    _kernels = load_kernels

    def _pack_load(self):
        """The arrays of the compiled load (:mod:`chrono_flex.spatial.load_kernels`), or
        None where the numpy path stays: the numpy backend, welded bodies, actuator
        states, or the geometric stiffening on a moving body."""
        if (not self.compiled or skernels.packed_model(self.model) is None or self.attachments
                or self.actuators
                or (self._moving and self.model.geometric_stiffening)):
            return None
        o, P = (self._o, self._P) if self._moving else (self._ground_o, self._ground_P)
        self._weld_damped = False
        return load_kernels.pack_load(self.model, o, P, self._moving)

    def _joint_forces_at(self, x, w):
        """Q (nq,) on q at Chrono's state vectors; a torque of time alone (a built-in
        profile, ChFunctions, or none) is evaluated once per time: every ComputeQ of a
        step carries the step's end time (docs/chrono.md §2)."""
        fn = self._torque_fn
        if fn is not None and not is_time_only(fn):
            return super()._joint_forces_at(x, w)
        kept = self._joint_forces_kept
        if kept is None or kept[0] != self._time:
            kept = self._joint_forces_kept = (self._time, super()._joint_forces_at(x, w))
        return kept[1]

    _joint_forces_kept = None

    def compute_jacobian(self, load):
        """K = -dQ/dx and R = -dQ/dv as :meth:`LoadEvaluation.compute_jacobian
        <chrono_flex.chrono.element_load.LoadEvaluation.compute_jacobian>` forms them
        (the same one-sided differences), the arm's part in one compiled call
        (:func:`chrono_flex.spatial.load_kernels.load_jacobian`, the joint forces held)
        and, for a torque callback that may read the state, its own differences over
        the shafts' columns added here (2 nq calls of the callback)."""
        pack = self._compiled_load()
        jac = load.GetJacobians()
        if pack is None or jac is None or self._last_state is None:
            super().compute_jacobian(load)
            return
        x, w, _ = self._last_state
        d = self.JACOBIAN_DELTA
        Q = self._joint_forces_at(x, w)
        K, R = load_kernels.load_jacobian(pack, x, w, Q, self._gravity, d)
        if self._torque_fn is not None and not is_time_only(self._torque_fn):
            self._add_torque_differences(K, R, x, w, Q, d)
        self.n_jacobians += 1
        jac.K = self._chrono.ChMatrixDynamicd(K)
        jac.R = self._chrono.ChMatrixDynamicd(R)

    def _add_torque_differences(self, K, R, x, w, Q, d):
        """K, R += the one-sided differences -dQ/dq, -dQ/dq_dot of the joint forces (on
        the shafts' rows and columns: the torque reads q and q_dot only)."""
        nb, nq = self._n_body, self.nq
        xo = 7 if self._moving else 0
        rows = nb + np.asarray(self.arm.joint_index)
        Qj = Q[self.arm.joint_index]
        for i in range(nq):
            xi = x.copy()
            xi[xo + i] += d
            K[rows, nb + i] += (Qj - self._joint_forces_at(xi, w)[self.arm.joint_index]) / d
            wi = w.copy()
            wi[nb + i] += d
            R[rows, nb + i] += (Qj - self._joint_forces_at(x, wi)[self.arm.joint_index]) / d

    # -- the welds' hooks (docs/chrono.md §8, §12) ---------------------------------------
    weld_physics = sfl

    def attach(self, body, link=-1, s=None, frame=None, stiffness_ratio=sfl.BUSHING_RATIO,
               damping_ratio=0.0):
        """Weld a free ``ChBody`` to link ``link`` at arc length ``s``, both ways.

        As :meth:`FlexibleLink.attach <chrono_flex.chrono.element.FlexibleLink.attach>`
        (docs/chrono.md §8), in space (§12): ``link`` counts the arm's links
        (``arm.model.links``: rigid bodies are not counted; negative from the last), the
        station frame is the deformed section at s (origin on the centreline, axes
        R Rz(v'(s)) Ry(-w'(s)) Rx(phi(s)) of the link frame R), and every component of
        the weld's wrench bends or twists the link. The bushing's stiffness follows the
        planar rule with the stiffer bending plane, max(EI_y, EI_z)
        (:func:`chrono_flex.spatial.floating.link_bushing_stiffness`); ``damping_ratio``
        sets c_r with the mean of the body's principal inertias.

        Returns:
            an :class:`~chrono_flex.chrono.attachment.Attachment`.
        """
        return super().attach(body, link, s, frame, stiffness_ratio, damping_ratio)

    def link_lengths(self):
        return [self.model.bases[i].length for i in self.model.links]

    def contact_link(self, link):
        i = self.model.links[link]
        return self.model.bases[i], self.model.bodies[i]

    def station_shapes(self, link, s):
        return sfl.station_shapes(self.model, link, s)

    def _weld_stiffness(self, link, ratio):
        return sfl.link_bushing_stiffness(self.model.bodies[self.model.links[link]], ratio)

    def _weld_rotary_inertia(self, body):
        """The mean principal inertia of the body: the three rotations all bend or twist
        a spatial link, and one damper gain serves them."""
        return float(np.trace(np.asarray(body.GetInertia().to_numpy(), dtype=float)) / 3.0)

    def station_pose(self, link, s):
        R, A, _, _ = sfl.station_motion(self.model, self.q(), self.qd(), link, s,
                                        self.placement_state())
        return R, A

    # -- reading the state ------------------------------------------------------------------
    def _base(self):
        """The base frame now (world), as a fixed frame (position and rotation)."""
        pos, A, o, P = self.placement()
        return sfl.fixed_base(self.nq, pos + A @ o, A @ P)

    def tip_coordinates(self, q=None):
        """(v(L), w(L), phi(L)) of each link in its own frame, (n_links, 3)."""
        return sp.tip_coordinates(self.model, self.q() if q is None else q)

    def tip_deflections(self, q=None):
        """Transverse tip deflection sqrt(v(L)^2 + w(L)^2) of each link, m (n_links,)."""
        vw = self.tip_coordinates(q)
        return np.hypot(vw[:, 0], vw[:, 1])

    def _tip_pose(self):
        body = self.model.links[-1]
        return sfl.world_tip_frames(self.model, self.q(), self._base())[body]

    def _tip_motion(self):
        pack = self._compiled_load()
        if pack is not None:
            x, w = self._state_vectors()
            return self._kernels.tip_motion(pack, x, w, self.model.links[-1])
        pos, R = self._tip_pose()
        return pos, R, self.tip_velocity()

    def _state_vectors(self):
        """Chrono's x and w of the arm now (the body's entries first when it moves)."""
        q, qd = self.q(), self.qd()
        body = self._body_state()
        if body is None:
            return q, qd
        return (np.concatenate([body[0], matrix_to_quat(body[1]), q]),
                np.concatenate([body[2], body[3], qd]))

    def tip_frames(self):
        """(position (3,), rotation (3, 3)) in the world of every body's attachment frame
        (a link's deformed tip, a rigid body's own frame)."""
        return sfl.world_tip_frames(self.model, self.q(), self._base())

    def centerlines(self, n_samples=21, rigid=False):
        """World points (n_links, ns, 3) of the links' centrelines now."""
        return sfl.world_centerlines(self.model, self.q(), self._base(), n_samples, rigid)

    def tip_frame(self):
        """``ChFramed`` of the last link's deformed tip in the world."""
        chrono = self._chrono
        pos, R = self._tip_pose()
        return chrono.ChFramed(chrono.ChVector3d(*pos), chrono.ChQuaterniond(*matrix_to_quat(R)))

    def _extended_state(self):
        """(q, w, base): the arm's coordinates padded with the body's velocity columns."""
        q, qd = self.q(), self.qd()
        body = self._body_state()
        if body is None:
            return q, qd, self._base()
        base = sfl.body_base(self.nq, body[0], body[1], body[3], self._o, self._P)
        return (np.concatenate([q, np.zeros(sfl.N_BODY)]),
                np.concatenate([qd, body[2], body[3]]), base)

    def tip_velocity(self):
        """World velocity of the last link's tip (3,), m/s."""
        q, w, base = self._extended_state()
        ev = sp.evaluate(self.model, q, w, base)
        return ev.attach[self.model.links[-1]].Jp @ w

    def energy(self):
        """(kinetic, elastic, gravity) energy of the arm, J (the parent body's own energy
        is not included; gravity potential -sum m g.R from the world origin)."""
        q, w, base = self._extended_state()
        g = self._system_gravity()
        M = sp.terms(self.model, q, w, base, g)[0]
        kinetic = 0.5 * w @ M @ w
        elastic = float(sp.elastic_potential(self.model, self.q()))
        gravity = float(sp.gravity_potential(self.model, self.q(), self._base(), g))
        return float(kinetic), elastic, gravity


__all__ = ["SpatialFlexibleLink"]
