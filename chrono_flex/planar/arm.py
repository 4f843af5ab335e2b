"""PlanarArm: the public face of the reference engine (numpy/scipy).

    arm = PlanarArm(links=[Link(...)], joints=[RevoluteJoint()], payload=Payload(...))
    res = arm.simulate(t_end=2.0, q0=[0.0], torque=lambda t, q, qd: [0.1])

Forward dynamics integrates M(q) q_dd = Q - h + Q_g - K q - D q_d (module
:mod:`chrono_flex.planar.equations`) with a stiff implicit method by default; the mixed problem
(joint motion prescribed, elastic coordinates integrated, joint torques returned),
inverse dynamics, linearised natural frequencies and the energy bookkeeping sit beside it.
"""

import numpy as np

from .. import _checks as ck
from .._aliases import canonical_arguments, initial_coordinates
from ..drive.coupling import check_drive
from ..integrators.choice import DEFAULT_METHOD
from . import equations as mdl
from .assembly import ExtendedAssembly
from .arm_common import AssembledArm
from .description import ARM_DEFAULTS, arm_arguments, arm_to_dict, run_settings
from .model_file import read_model
from .modes import eigenmodes, natural_modes
from ..errors import ParameterError, SimulationError
from .reference import FORMS, simulate_reference
from .statics import check_equilibrium, static_equilibrium
from .params import Link, Payload, Plane, PrismaticJoint, RevoluteJoint, gravity_magnitude
from .post import deflection_ratio

#: Largest tip deflection / link length a static solution may have: the runs' guard
#: (``max_deflection_ratio`` default) on the small-deformation model.
MAX_STATIC_DEFLECTION = 0.5



class PlanarArm(AssembledArm):
    """A planar serial chain of flexible links (docs/planar-link.md).

    Args:
        links: sequence of :class:`Link`.
        joints: one joint per link (:class:`RevoluteJoint` or :class:`PrismaticJoint`);
            default: all revolute.
        payload: :class:`Payload` at the tip of the last link (default none).
        hub_inertia: rotary inertia of the first joint's hub, kg m^2.
        gravity: magnitude along -Y in m/s^2; True for 9.81; False/None/0 for none.
        geometric_stiffening: add the axial centrifugal/inertial stiffening (Kane, Ryan &
            Banerjee 1987), which the papers' model lacks; off by default.
        plane: where the arm's plane sits in 3D (rendering and Chrono scenes).
        drives: {joint number (0-based): drive} with drive objects of
            :mod:`chrono_flex.drive` (their output inertia joins the joint's hub).
    """

    #: The top-level keys of the arm's description (:meth:`to_dict`, model files).
    model_keys = ("links", "version") + tuple(ARM_DEFAULTS)

    equations = mdl       # the module of its equations (AssembledArm)

    def __init__(self, links, joints=None, payload=None, hub_inertia=0.0, gravity=0.0,
                 geometric_stiffening=False, plane=None, drives=None):
        links = list(links) if links is not None else []
        if not links:
            raise ParameterError("links", links, "must hold at least one Link")
        for k, lk in enumerate(links):
            if not isinstance(lk, Link):
                raise ParameterError(f"links[{k}]", lk, "must be a chrono_flex.Link")
        if joints is None:
            joints = [RevoluteJoint() for _ in links]
        joints = list(joints)
        if len(joints) != len(links):
            raise ParameterError("joints", joints, f"must hold one joint per link ({len(links)})")
        for k, jt in enumerate(joints):
            if not isinstance(jt, (RevoluteJoint, PrismaticJoint)):
                raise ParameterError(f"joints[{k}]", jt, "must be a RevoluteJoint or PrismaticJoint")
        if payload is None:
            payload = Payload()
        if not isinstance(payload, Payload):
            raise ParameterError("payload", payload, "must be a chrono_flex.Payload")
        hub_inertia = ck.non_negative("hub_inertia", hub_inertia)
        if hub_inertia > 0 and joints[0].kind != "revolute":
            raise ParameterError("hub_inertia", hub_inertia, "needs a revolute first joint")
        self.drives = dict(drives or {})
        for j, d in self.drives.items():
            if not isinstance(j, (int, np.integer)) or not 0 <= j < len(joints):
                raise ParameterError("drives", j, f"keys must be joint numbers 0..{len(joints) - 1}")
            if joints[j].kind != "revolute":
                raise ParameterError("drives", j, "a gear drive needs a revolute joint")
            check_drive(j, d)
        self._joints_given = tuple(joints)
        # the drive's output inertia J2 turns with the joint hub
        joints = [RevoluteJoint(jt.hub_inertia + self.drives[k].output_inertia, jt.hub_mass,
                                jt.angle_offset) if k in self.drives else jt
                  for k, jt in enumerate(joints)]
        self.links, self.joints, self.payload = tuple(links), tuple(joints), payload
        self.hub_inertia = hub_inertia
        self.gravity = gravity_magnitude(gravity)
        self.geometric_stiffening = ck.boolean("geometric_stiffening", geometric_stiffening)
        self.plane = plane if plane is not None else Plane()
        self.assembly = ExtendedAssembly(self.links, self.joints, payload, self.gravity,
                                         hub_inertia, self.geometric_stiffening)
        self.model = self.assembly.red

    # -- as plain data ------------------------------------------------------------------
    def to_dict(self):
        """The arm as plain data (numbers, strings, lists, dicts: JSON- and TOML-able),
        the layout of :mod:`chrono_flex.planar.description`; :meth:`from_dict` rebuilds
        the arm. ParameterError for a drive that is not a GearDrive."""
        return arm_to_dict(self.links, self._joints_given, self.payload, self.hub_inertia,
                           self.gravity, self.geometric_stiffening, self.plane, self.drives)

    @classmethod
    def from_dict(cls, data):
        """The arm described by ``data`` (the layout of :meth:`to_dict`; missing keys take
        their defaults). Errors name the key: ``links[0].EI``, ``joints[1].type``."""
        return cls(**arm_arguments(data))

    @classmethod
    def from_file(cls, path):
        """The arm of a model file (TOML, docs/model-files.md; its inputs and simulation
        settings are read by :func:`chrono_flex.planar.model_file.read_model`). Errors
        name the file, the key and its line."""
        return read_model(path).arm

    # -- sizes and coordinates ----------------------------------------------------------
    @property
    def n_joints(self):
        return len(self.joints)

    def coordinates(self, joint_angles=None, elastic=None):
        """Assemble q from joint coordinates and elastic coordinates."""
        q = np.zeros(self.nq)
        if joint_angles is not None:
            q[self.joint_index] = ck.vector("joint_angles", joint_angles, self.n_joints)
        if elastic is not None:
            q[self.elastic_index] = ck.vector("elastic", elastic, self.elastic_index.size)
        return q

    # -- the equations ------------------------------------------------------------------
    def damping_matrix(self):
        """D (Rayleigh, alpha M_ee + beta K per link)."""
        return self.model.D.copy()

    def element_matrices(self, q):
        """[B]'s generalized element matrices at q: list of (ElementMap, M_e)."""
        return self.assembly.element_matrices(self.assembly.expand(self._q(q)))

    def forcing(self, t, q, qd, Q=None, form="virtual_power"):
        """(M, f): the mass matrix (nq, nq) and the right-hand side (nq,) of
        M(q) q_dd = f, in either equation form (docs/planar-link.md §4). ``Q``: applied
        generalized forces (nq,), joint torques at ``joint_index``.

        ``form="virtual_power"``: Jacobians at quadrature points; ``"lagrange"``:
        Kozlowski's eq. 18 through the extended assembly. They agree to round-off.
        ``"without_mdot"``: the full equations minus the M_dot q_d term (what [K]
        criticises in simplified models; it breaks energy conservation), there for that
        demonstration.
        """
        q, qd = self._q(q), self._q(qd, "qd")
        Q = np.zeros(self.nq) if Q is None else ck.vector("Q", Q, self.nq)
        ck.choice("form", form, FORMS)
        return self._forcing(q, qd, Q, form)

    def _forcing(self, q, qd, Q, form):
        if form == "virtual_power":
            return mdl.forcing(self.model, q, qd, Q)
        if form == "without_mdot":
            M, f = mdl.forcing(self.model, q, qd, Q)
            return M, f + self.assembly.mdot_qd(q, qd)
        return self.assembly.lagrange_forcing(q, qd, Q)

    def accelerations(self, t, q, qd, Q=None, form="virtual_power"):
        """q_dd from forward dynamics ([K] eq. 19)."""
        M, f = self.forcing(t, q, qd, Q, form)
        return np.linalg.solve(M, f)

    def inverse_dynamics(self, q, qd, qdd, form="virtual_power"):
        """Generalized forces Q that produce q_dd at (q, q_d): Q = M q_dd - f(Q = 0).

        Returns every generalized force (nq,), not only the joints': the joint torques
        (N m) or forces (N) are ``Q[joint_index]``; ``Q[elastic_index]`` are the forces
        the elastic coordinates would need, zero when q_dd is a motion of the arm
        driven at its joints alone (for a prescribed joint motion, the mixed problem
        ``simulate(joint_motion=...)`` returns the joint torques)."""
        q, qd, qdd = self._q(q), self._q(qd, "qd"), self._q(qdd, "qdd")
        M, f = self.forcing(0.0, q, qd, None, form)
        return M @ qdd - f

    def angular_momentum(self, q, qd):
        """Angular momentum about the base origin, normal to the plane (kg m^2/s)."""
        return mdl.angular_momentum(self.model, self._q(q), self._q(qd, "qd"))

    def equilibrium(self, joint_angles=None, joints="held", torque=None, drive_input=None,
                    q0=None):
        """The static equilibrium under gravity, constant joint torques and drives: an
        :class:`~chrono_flex.planar.statics.Equilibrium` (``.q``, ``.joint_torques``,
        ``.drive_states``, ``.drive_inputs``, ``.stable``). ``joints``: "held"
        (default: at ``joint_angles``, the torques that hold them returned), "free", or
        one per joint; ``drive_input``: {joint number: input} turns that driven joint
        freely under its drive (:func:`chrono_flex.planar.statics.static_equilibrium`)."""
        return static_equilibrium(self, joint_angles, joints, torque, drive_input, q0)

    def linearize(self, inputs=None, outputs=None, pose=None, backlash="contact",
                  friction="presliding"):
        """The arm linearised about a static equilibrium: a
        :class:`~chrono_flex.linear.LinearModel` (A, B, C, D with state, input and output
        names; ``poles()``, ``zeros()``, ``frequency_response()``, ``to_control()``).

        Args:
            inputs: names, default all: "torque<j>" (joint j from 1), "voltage<j>" (or
                "current<j>") of a drive.
            outputs: names, default the joint coordinates: any state ("theta1",
                "link1.e2_dot", "drive1.motor_angle"), "tip_x", "tip_y", "tip_lateral",
                "tip_deflection<i>", "strain<i>@<x>", "twist<j>".
            pose: None (the static equilibrium: actuated joints held at zero, the
                others free), an :meth:`equilibrium`, joint coordinates (held there)
                or a whole q, which must then be an equilibrium (ParameterError naming
                ``pose`` otherwise).
            backlash, friction: the regime of the drives' backlash ("contact" on the
                loaded flank, or "gap") and friction ("presliding", or "sliding").
        docs/linear-models.md gives the equations; ParameterError names an unknown input
        or output."""
        from .linearize import linearize

        return linearize(self, inputs, outputs, pose, backlash, friction)

    def _pose_check(self, q, equilibrium):
        if ck.boolean("equilibrium", equilibrium):
            q = np.zeros(self.nq) if q is None else ck.vector("q", q, self.nq)
            check_equilibrium(self, q, np.zeros(self.nq), self.elastic_index, "q")

    def natural_frequencies(self, n=3, q=None, joints="locked", equilibrium=False):
        """The n lowest natural frequencies (Hz) of the arm linearised about q (at rest).

        ``joints="locked"``: joint coordinates held (clamped-free links);
        ``"free"``: joints free (pinned-free with hub inertia); rigid-body modes of zero
        frequency are left out. Gravity enters through the Hessian of its potential.
        ParameterError when ``n`` exceeds the number of modes the model has (at most one
        per elastic coordinate, see ``elastic_index``). :meth:`modes` gives the shapes.
        ``equilibrium=True``: q must be a static equilibrium (the elastic coordinates
        balanced; the joints may be held): ParameterError naming ``q`` otherwise.
        """
        self._pose_check(q, equilibrium)
        w2, _ = eigenmodes(self, n, q, joints)
        return np.sqrt(w2) / (2 * np.pi)

    def modes(self, n=3, q=None, joints="locked", n_samples=41, equilibrium=False):
        """The n lowest natural modes about q at rest: a
        :class:`~chrono_flex.planar.modes.Modes` with ``frequencies`` (Hz), the
        mass-normalised ``vectors`` (n, nq) and the centrelines' ``shapes``
        (n, nl, n_samples, 2); ``joints`` and ``equilibrium`` as for
        :meth:`natural_frequencies` (:meth:`equilibrium` gives a pose)."""
        self._pose_check(q, equilibrium)
        return natural_modes(self, n, q, joints, n_samples)

    def static_deflection(self, joint_angles=None, tip_force=(0.0, 0.0), tip_moment=0.0):
        """Elastic coordinates at static equilibrium with the joints held.

        Solves K e = Q_e(gravity, tip force and moment on the last link) by Newton
        iteration (the loads turn with the deformed links). Returns q.
        """
        q = self.coordinates(joint_angles)
        F = ck.vector("tip_force", tip_force, 2)
        Mz = ck.real("tip_moment", tip_moment)
        ei = self.elastic_index
        zero = np.zeros(self.nq)

        def residual(qq):
            Qg = mdl.terms(self.model, qq, zero)[2]
            _, tips = mdl.kin.chain_frames(self.model.layout, qq, zero)
            Q = Qg + tips[-1].Jp.T @ F + tips[-1].Jpsi * Mz - self.model.K @ qq
            return Q[ei]

        for _ in range(50):
            r = residual(q)
            Jr = np.empty((ei.size, ei.size))
            for c, k in enumerate(ei):
                h = 1e-7 * max(1e-3, abs(q[k]))
                qp = q.copy()
                qp[k] += h
                Jr[:, c] = (residual(qp) - r) / h
            try:
                dx = np.linalg.solve(Jr, -r)
            except np.linalg.LinAlgError:
                dx = np.full(ei.size, np.nan)
            if not np.all(np.isfinite(dx)):
                why = "Newton's iteration diverged"
                break
            q[ei] += dx
            if np.max(np.abs(dx)) <= 1e-13 * max(1.0, np.max(np.abs(q[ei]))):
                ratio = deflection_ratio(self, q)
                if ratio <= MAX_STATIC_DEFLECTION:
                    return q
                why = (f"deflects a link tip by {ratio:.3g} of its length, beyond the "
                       f"small-deformation model's {MAX_STATIC_DEFLECTION}")
                break
        else:
            why = "no convergence in 50 Newton steps"
        raise ParameterError("tip_force", tuple(F.tolist()),
                             f"(with tip_moment = {Mz:g}) gives no static equilibrium "
                             f"within the small-deformation model ({why}; a load too "
                             "large for the links' stiffness?)")

    # -- simulation ---------------------------------------------------------------------
    def simulate(self, t_end, q0=None, qd0=None, torque=None, joint_motion=None,
                 drive_input=None, dt_out=None, t0=0.0, method=DEFAULT_METHOD, rtol=None,
                 atol=None, max_step=np.inf, max_nfev=None, max_deflection_ratio=0.5,
                 n_samples=21, progress=None, max_wall_time=None, step=None, rho_inf=0.8,
                 family="chung-hulbert", elastic0=None, elastic_rates0=None,
                 form="virtual_power", exact_callbacks=False, **old_names):
        """Simulate the arm from t0 to t_end; returns a :class:`Result`.

        The keywords are those of every ``simulate`` (:mod:`chrono_flex._aliases`; the
        old names ``joint_angles0`` and ``joint_rates0`` still work, with a
        DeprecationWarning).

        Args:
            t_end: end time, s.
            q0, qd0: initial coordinates and rates: all of them (nq,), or the joints'
                alone (nj,) with the elastic ones from ``elastic0``, ``elastic_rates0``
                (default zero).
            elastic0, elastic_rates0: initial elastic coordinates/rates (with q0, qd0
                of the joints alone).
            torque: callable(t, q, qd) -> (nj,) joint torques (N m) or forces (N), or None.
            joint_motion: callable(t) -> (theta, theta_d, theta_dd), each (nj,): the
                mixed problem (joints prescribed, elastic coordinates integrated, joint
                torques returned). Excludes ``torque`` and drives.
            drive_input: callable(t) -> (n_drives,) drive inputs (motor voltages, in the
                order of the drives' joint numbers), or None for zero.
            dt_out: output interval (default t_end/500).
            method: "generalized_alpha" (default: second order, numerical dissipation
                ``rho_inf`` of the high modes, the Newton solve compiled where numba is
                present; :mod:`chrono_flex.integrators.generalized_alpha`), scipy's
                "Radau" (order 5: for verification to tight tolerances), "BDF",
                "LSODA", explicit "RK45", "RK23", "DOP853", or "rk4", classical
                Runge-Kutta with the fixed step ``step``
                (:mod:`chrono_flex.integrators.explicit`; stable only below
                2 sqrt(2) / omega_max, there to show the explicit limit).
                docs/performance.md, "The default integrator", says what the default
                gets right and when to name Radau.
            step: the fixed step of "generalized_alpha", s (shortened to land on each
                output time); None (default): the step is controlled by an estimate of
                the local error of the positions, kept below ``rtol`` times each
                coordinate's largest magnitude so far (at most ``max_step``).
            rho_inf: spectral radius at infinite frequency of "generalized_alpha", in
                [0, 1] (1: trapezoidal rule, no dissipation; default 0.8).
            family: "chung-hulbert" (default) or "hht" (rho_inf in [1/2, 1]).
            exact_callbacks: "generalized_alpha" with a ``torque`` that may read the
                state (a plain callable, not an input profile nor
                :func:`chrono_flex.inputs.time_only`): False (default) evaluates it
                once per step at the state predicted for the step's end and holds it
                through the compiled Newton solve (second order still; about the cost
                of a time-only torque); True evaluates it at every Newton iterate, in
                the Python iteration (the exact implicit step, several times slower).
            rtol: relative tolerance: of the step control of "generalized_alpha"
                (default 1e-3), of scipy's solvers (default 1e-6).
            atol: absolute tolerance of scipy's solvers only (default: 1e-9 on
                positions and elastic coordinates, 1e-7 on rates); ParameterError
                with "generalized_alpha" or "rk4".
            form: "virtual_power" (fast) or "lagrange" (Kozlowski's eq. 18, slower).
            max_nfev: budget of right-hand-side evaluations, for every method (default
                20 million / states for explicit methods, none for implicit ones);
                SimulationError when spent.
            max_wall_time: budget of wall-clock seconds for the run (default none);
                SimulationError when spent.
            max_deflection_ratio: stop with SimulationError when a tip deflection exceeds
                this fraction of its link length (the small-deformation model has left
                its validity: instability or divergence).
            n_samples: centreline samples per link in the result.
            The result's ``info["run"]`` holds these arguments as data (an input
            profile of :mod:`chrono_flex.inputs` as its description).
            progress: True/False to force or silence the progress report on stderr
                (default: on unless inside :func:`chrono_flex.stepping.quiet`; a line
                rewritten in place on a terminal, a line every 5 s in a log).
        """
        arguments = dict(locals())          # the arguments: no other name is bound yet
        del arguments["self"], arguments["old_names"]
        q0, qd0 = canonical_arguments("PlanarArm.simulate", ("joint_angles0", "joint_rates0"),
                                      dict(q0=q0, qd0=qd0), old_names)
        arguments.update(q0=q0, qd0=qd0)
        q0, qd0 = initial_coordinates(self, q0, qd0, elastic0, elastic_rates0)
        ji, ei = self.joint_index, self.elastic_index
        res = simulate_reference(self, t_end, joint_angles0=q0[ji], joint_rates0=qd0[ji],
                                 elastic0=q0[ei], elastic_rates0=qd0[ei], torque=torque,
                                 joint_motion=joint_motion, drive_input=drive_input,
                                 dt_out=dt_out, t0=t0, method=method, rtol=rtol, atol=atol,
                                 form=form, max_step=max_step, max_nfev=max_nfev,
                                 max_deflection_ratio=max_deflection_ratio,
                                 n_samples=n_samples, progress=progress,
                                 max_wall_time=max_wall_time, step=step, rho_inf=rho_inf,
                                 family=family, exact_callbacks=exact_callbacks)
        res.info["run"] = run_settings(arguments)
        return res
