"""SpatialArm: the public face of the spatial flexible-link model (docs/spatial-link.md).

    link = SpatialLink(1.0, 8, EI_y=3.0, EI_z=2.0, GJ=1.0, rho_A=0.5, rho_Ip=1e-3)
    arm = SpatialArm([link], joints=[RevoluteJoint(axis=(0, 1, 0))])
    res = arm.simulate(2.0, torque=lambda t, q, qd: [0.1])
    arm.natural_frequencies(6)

A tree: ``parents[i]`` is the body link i hangs on (-1: the base; default the serial
chain). Rigid bodies (:class:`~chrono_flex.spatial.params.RigidBody`) are hubs and
payloads.
"""

from dataclasses import replace

import numpy as np

from .. import _checks as ck
from .._aliases import initial_coordinates
from ..drive.coupling import check_drive
from ..errors import ParameterError
from ..integrators.choice import DEFAULT_METHOD
from . import equations as mdl
from .assembly import ExtendedAssembly
from ..planar.arm_common import AssembledArm
from ..planar.model_file import read_model
from .description import KEYS, arm_arguments, arm_to_dict
from .modes import natural_modes
from .params import (FixedJoint, PrismaticJoint, RevoluteJoint, RigidBody, SpatialLink,
                     gravity_vector)
from .reference import simulate_reference


class SpatialArm(AssembledArm):
    """A tree of spatial flexible links and rigid bodies (docs/spatial-link.md).

    Args:
        bodies: sequence of :class:`SpatialLink` and :class:`RigidBody`, parents before
            their children.
        joints: one joint per body (:class:`RevoluteJoint`, :class:`PrismaticJoint`,
            :class:`FixedJoint`); default: revolute about z for every body.
        parents: index of each body's parent (-1: the base), each smaller than the body's
            own index; default the serial chain [-1, 0, 1, ...].
        gravity: a 3-vector (m/s^2), a magnitude along -Z, True for 9.81, or none.
        geometric_stiffening: add the axial (centrifugal and gravity) stiffening of the
            links (docs/spatial-link.md §4.3); off by default, as in the planar link.
        drives: {body number (0-based): drive} with drive objects of
            :mod:`chrono_flex.drive` on the revolute joints of those bodies (their output
            inertia joins the joint's ``hub_inertia``; docs/spatial-link.md §4.5).
    """

    #: The top-level keys of the arm's description (:meth:`to_dict`, model files).
    model_keys = ("bodies", "kind", "version") + KEYS

    equations = mdl       # the module of its equations (AssembledArm)

    def __init__(self, bodies, joints=None, parents=None, gravity=0.0,
                 geometric_stiffening=False, drives=None):
        bodies = list(bodies) if bodies is not None else []
        if not bodies:
            raise ParameterError("bodies", bodies, "must hold at least one SpatialLink")
        for k, b in enumerate(bodies):
            if not isinstance(b, (SpatialLink, RigidBody)):
                raise ParameterError(f"bodies[{k}]", b, "must be a SpatialLink or RigidBody")
        if not any(isinstance(b, SpatialLink) for b in bodies):
            raise ParameterError("bodies", bodies, "must hold at least one SpatialLink")
        joints = [RevoluteJoint() for _ in bodies] if joints is None else list(joints)
        if len(joints) != len(bodies):
            raise ParameterError("joints", joints, f"must hold one joint per body ({len(bodies)})")
        for k, jt in enumerate(joints):
            if not isinstance(jt, (RevoluteJoint, PrismaticJoint, FixedJoint)):
                raise ParameterError(f"joints[{k}]", jt,
                                     "must be a RevoluteJoint, PrismaticJoint or FixedJoint")
        parents = list(range(-1, len(bodies) - 1)) if parents is None else list(parents)
        if len(parents) != len(bodies):
            raise ParameterError("parents", parents, f"must hold one index per body ({len(bodies)})")
        for k, p in enumerate(parents):
            if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or not -1 <= p < k:
                raise ParameterError(f"parents[{k}]", p,
                                     f"must be -1 (the base) or a body index below {k}")
        self.drives = dict(drives or {})
        for j, d in self.drives.items():
            if isinstance(j, bool) or not isinstance(j, (int, np.integer)) \
                    or not 0 <= j < len(joints):
                raise ParameterError("drives", j, f"keys must be body numbers 0..{len(joints) - 1}")
            if joints[j].kind != "revolute":
                raise ParameterError("drives", j, "a gear drive needs a revolute joint")
            check_drive(j, d)
        self.joints_given = tuple(joints)
        # the drive's output inertia J2 turns with the joint's hub
        joints = [replace(jt, hub_inertia=jt.hub_inertia + self.drives[k].output_inertia)
                  if k in self.drives else jt for k, jt in enumerate(joints)]
        self.bodies, self.joints, self.parents = tuple(bodies), tuple(joints), tuple(parents)
        self.gravity = gravity_vector(gravity)
        self.geometric_stiffening = ck.boolean("geometric_stiffening", geometric_stiffening)
        self.assembly = ExtendedAssembly(self.bodies, self.joints, self.parents, self.gravity,
                                         self.geometric_stiffening)
        self.model = self.assembly.red

    # -- as plain data ------------------------------------------------------------------
    def to_dict(self):
        """The arm as plain data (:mod:`chrono_flex.spatial.description`);
        :meth:`from_dict` rebuilds it."""
        return arm_to_dict(self)

    @classmethod
    def from_dict(cls, data):
        """The arm described by ``data`` (the layout of :meth:`to_dict`); errors name the
        key (``bodies[0].EI_y``)."""
        return cls(**arm_arguments(data))

    @classmethod
    def from_file(cls, path):
        """The arm of a model file with ``kind = "spatial"`` (docs/model-files.md)."""
        arm = read_model(path).arm
        if not isinstance(arm, cls):
            raise ParameterError("model", path, "must describe a spatial arm (kind = "
                                 "\"spatial\")")
        return arm

    # -- sizes and coordinates ----------------------------------------------------------
    @property
    def n_joints(self):
        return self.model.joint_index.size

    def elastic_indices(self, body):
        """Indices in q of body ``body``'s elastic coordinates, (n_elements, 5): per node
        [v, v', w, w', phi] from the first free node to the tip."""
        bl = self.model.layout.bodies[body]
        if not bl.is_link:
            raise ParameterError("body", body, "is a rigid body (no elastic coordinates)")
        return bl.elastic_index.reshape(-1, 5)

    def drive_places(self):
        """{body number: (p, i)} of each drive: ``p`` its joint's entry in the joint-force
        vector (n_joints,), ``i`` its coordinate's index in q."""
        ji = list(self.joint_index)
        out = {}
        for k in self.drives:
            i = self.model.layout.bodies[k].joint_index
            out[k] = (ji.index(i), i)
        return out

    # -- the equations ------------------------------------------------------------------
    def element_matrices(self, q):
        """The extended assembly's element matrices at q: list of (ElementMap, M_e)."""
        return self.assembly.element_matrices(self.assembly.expand(self._q(q)))

    def forcing(self, t, q, qd, Q=None):
        """(M, f) of M(q) q_dd = f = Q - h + Q_g - K q - D q_d; ``Q`` (nq,) the applied
        generalized forces (joint torques or forces at ``joint_index``)."""
        q, qd = self._q(q), self._q(qd, "qd")
        Q = np.zeros(self.nq) if Q is None else ck.vector("Q", Q, self.nq)
        return mdl.forcing(self.model, q, qd, Q)

    def accelerations(self, t, q, qd, Q=None):
        """q_dd from forward dynamics."""
        M, f = self.forcing(t, q, qd, Q)
        return np.linalg.solve(M, f)

    def tip_frame(self, q, body=None):
        """(position (3,), rotation (3, 3)) of the attachment (tip) frame of ``body``
        (default: the last link)."""
        body = self.model.links[-1] if body is None else body
        f = mdl.tip_frames(self.model, self._q(q))[body]
        return f.p.copy(), f.R.copy()

    def natural_frequencies(self, n=3, q=None, joints="locked"):
        """The n lowest natural frequencies (Hz) about q at rest; ``joints``: "locked"
        (links clamped at their joints) or "free" (rigid-body modes left out)."""
        return natural_modes(self, n, q, joints).frequencies

    def modes(self, n=3, q=None, joints="locked"):
        """The n lowest natural modes about q at rest
        (:class:`~chrono_flex.spatial.modes.Modes`)."""
        return natural_modes(self, n, q, joints)

    def linearize(self, inputs=None, outputs=None, pose=None):
        """The arm linearised about a static equilibrium: a
        :class:`~chrono_flex.linear.LinearModel`. ``inputs``: "torque<j>" (default all);
        ``outputs``: any state ("joint1", "body1.e3_dot") or "tip_x", "tip_y", "tip_z"
        (the last link's tip; "tip<b>_x" for body b), default the joint coordinates;
        ``pose``: q (nq,), which must be an equilibrium, or None (the static equilibrium
        with the joints held at zero). docs/linear-models.md;
        :mod:`chrono_flex.spatial.linearize`."""
        from .linearize import linearize

        return linearize(self, inputs, outputs, pose)

    def static_deflection(self, loads, q=None):
        """Elastic coordinates of the linear static deflection about q (joints held).

        ``loads``: {body: (force (3,), moment (3,))} acting at each body's attachment
        frame (a link's tip), in that frame's axes at q. Solves K_ee e = Q_e with the
        loads' generalized forces at q (linear theory: the loads do not turn with the
        deflection); gravity adds its own. Returns q with the deflection added.
        """
        q = np.zeros(self.nq) if q is None else self._q(q).copy()
        zero = np.zeros(self.nq)
        M, h, Q = mdl.terms(self.model, q, zero)
        frames = mdl.tip_frames(self.model, q)
        for body, (force, moment) in dict(loads).items():
            if not isinstance(body, (int, np.integer)) or not 0 <= body < len(self.bodies):
                raise ParameterError("loads", body, "keys must be body numbers")
            F = ck.vector(f"loads[{body}] force", force, 3)
            T = ck.vector(f"loads[{body}] moment", moment, 3)
            f = frames[body]
            Q = Q + f.Jp.T @ (f.R @ F) + f.Jw.T @ (f.R @ T)
        ei = self.elastic_index
        Q = Q - self.model.K @ q
        q[ei] += np.linalg.solve(self.model.K[np.ix_(ei, ei)], Q[ei])
        return q

    # -- simulation ---------------------------------------------------------------------
    def simulate(self, t_end, q0=None, qd0=None, torque=None, joint_motion=None,
                 drive_input=None, dt_out=None, t0=0.0, method=DEFAULT_METHOD, rtol=None,
                 atol=None, max_step=np.inf, max_nfev=None, max_deflection_ratio=0.5,
                 n_samples=21, progress=None, max_wall_time=None, step=None, rho_inf=0.8,
                 family="chung-hulbert", elastic0=None, elastic_rates0=None):
        """Simulate from t0 to t_end; returns a :class:`~chrono_flex.result.Result`.

        The keywords are those of every ``simulate`` (:mod:`chrono_flex._aliases`).

        Args:
            q0, qd0: initial coordinates and rates: all of them (nq,), or the joints'
                alone (n_joints,) with the elastic ones from ``elastic0``,
                ``elastic_rates0`` (default zero: at rest at q = 0).
            torque: callable(t, q, qd) -> (n_joints,) joint torques (N m) or forces (N),
                or a controller of :mod:`chrono_flex.control` (sampled, or continuous
                with its states integrated with the arm's: docs/control.md §1.2), its
                sensors attached to this arm.
            joint_motion: callable(t) -> (theta, theta_d, theta_dd), each (n_joints,):
                the joints prescribed, the elastic coordinates integrated and the joint
                torques returned (excludes ``torque`` and drives; q0, qd0 give the
                elastic start).
            drive_input: callable(t) or (t, q, qd) -> (n_drives,) drive inputs (motor
                voltages, in the order of the drives' body numbers), a controller as
                for ``torque``, or None for zero; the drives' states are in
                ``extra["drive<k+1>_states"]`` (k the body number), a continuous
                controller's in ``extra["<torque|drive_input>_controller_states"]``.
            dt_out: output interval (default (t_end - t0) / 500).
            method: "generalized_alpha" (default, with its step control to ``rtol``,
                default 1e-3), "Radau" (for tight tolerances), ... as for
                :meth:`chrono_flex.planar.arm.PlanarArm.simulate`, with the same
                integrator choice (:mod:`chrono_flex.integrators.choice`).
            rtol, atol, max_step, max_nfev, step, rho_inf, family, max_wall_time,
            max_deflection_ratio, n_samples, progress: as for
            :meth:`chrono_flex.planar.arm.PlanarArm.simulate`.
        The result's ``tip_position`` is in space (nt, 3), ``tip_deflection`` the
        transverse tip deflection of each link, ``extra["tip_vw_phi"]`` its v, w, phi.
        """
        q0, qd0 = initial_coordinates(self, q0, qd0, elastic0, elastic_rates0)
        return simulate_reference(self, t_end, q0=q0, qd0=qd0, torque=torque,
                                  joint_motion=joint_motion, drive_input=drive_input,
                                  dt_out=dt_out, t0=t0, method=method, rtol=rtol, atol=atol,
                                  max_step=max_step, max_nfev=max_nfev,
                                  max_deflection_ratio=max_deflection_ratio,
                                  n_samples=n_samples, progress=progress,
                                  max_wall_time=max_wall_time, step=step, rho_inf=rho_inf,
                                  family=family)


__all__ = ["SpatialArm"]
