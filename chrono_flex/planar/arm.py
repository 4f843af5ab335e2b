"""PlanarArm: the public face of the reference engine (numpy/scipy).

    arm = PlanarArm(links=[Link(...)], joints=[RevoluteJoint()], payload=Payload(...))
    res = arm.simulate(t_end=2.0, joint_angles0=[0.0], torque=lambda t, q, qd: [0.1])

Forward dynamics integrates M(q) q_dd = Q - h + Q_g - K q - D q_d (module
:mod:`chrono_flex.planar.equations`) with a stiff implicit method by default; the mixed problem
(joint motion prescribed, elastic coordinates integrated, joint torques returned),
inverse dynamics, linearised natural frequencies and the energy bookkeeping sit beside it.
"""

import numpy as np

from .. import _checks as ck
from . import equations as mdl
from .assembly import ExtendedAssembly
from .description import arm_arguments, arm_to_dict, run_settings
from .modes import eigenmodes, natural_modes
from ..errors import ParameterError, SimulationError
from .reference import FORMS, simulate_reference
from .params import Link, Payload, Plane, PrismaticJoint, RevoluteJoint, gravity_magnitude



class PlanarArm:
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
            for attr in ("rates", "n_states", "initial_state", "output_inertia"):
                if not hasattr(d, attr):
                    raise ParameterError(f"drives[{j}]", d, f"has no `{attr}` (not a drive)")
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
        from .model_file import read_model

        return read_model(path).arm

    def to_file(self, path, inputs=None, simulation=None, description=None):
        """Write the arm as a model file at ``path`` (TOML, atomically), with ``inputs``
        ({"torque" | "joint_motion" | "drive_input": a profile of
        :mod:`chrono_flex.inputs`}) and ``simulation`` (simulate's settings) when given,
        so that ``chrono-flex run path`` runs it; return ``path``."""
        from .model_file import write_model

        return write_model(path, self, inputs, simulation, description)

    # -- sizes and coordinates ----------------------------------------------------------
    @property
    def nq(self):
        """Number of generalized coordinates."""
        return self.model.nq

    @property
    def n_joints(self):
        return len(self.joints)

    @property
    def joint_index(self):
        """Indices of the joint coordinates in q."""
        return self.model.joint_index

    @property
    def elastic_index(self):
        """Indices of the elastic coordinates in q."""
        return self.model.elastic_index

    def coordinates(self, joint_angles=None, elastic=None):
        """Assemble q from joint coordinates and elastic coordinates."""
        q = np.zeros(self.nq)
        if joint_angles is not None:
            q[self.joint_index] = ck.vector("joint_angles", joint_angles, self.n_joints)
        if elastic is not None:
            q[self.elastic_index] = ck.vector("elastic", elastic, self.elastic_index.size)
        return q

    def _q(self, q, name="q"):
        return ck.vector(name, q, self.nq)

    # -- the equations ------------------------------------------------------------------
    def mass_matrix(self, q, method="assembly"):
        """M(q): by [B]'s extended assembly (default) or the virtual-power quadrature."""
        q = self._q(q)
        if method == "assembly":
            return self.assembly.mass_matrix(q)
        ck.choice("method", method, ("assembly", "virtual_power"))
        return mdl.terms(self.model, q, np.zeros(self.nq))[0]

    def stiffness_matrix(self):
        """K (constant; elastic coordinates only)."""
        return self.model.K.copy()

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

    def energies(self, q, qd):
        """(kinetic, elastic, gravity) energies at a state, J."""
        q, qd = self._q(q), self._q(qd, "qd")
        return (mdl.kinetic_energy(self.model, q, qd), mdl.elastic_potential(self.model, q),
                float(mdl.gravity_potential(self.model, q)))

    def natural_frequencies(self, n=3, q=None, joints="locked"):
        """The n lowest natural frequencies (Hz) of the arm linearised about q (at rest).

        ``joints="locked"``: joint coordinates held (clamped-free links);
        ``"free"``: joints free (pinned-free with hub inertia); rigid-body modes of zero
        frequency are left out. Gravity enters through the Hessian of its potential.
        ParameterError when ``n`` exceeds the number of modes the model has (at most one
        per elastic coordinate, see ``elastic_index``). :meth:`modes` gives the shapes.
        """
        w2, _ = eigenmodes(self, n, q, joints)
        return np.sqrt(w2) / (2 * np.pi)

    def modes(self, n=3, q=None, joints="locked", n_samples=41):
        """The n lowest natural modes about q at rest: a
        :class:`~chrono_flex.planar.modes.Modes` with ``frequencies`` (Hz), the
        mass-normalised ``vectors`` (n, nq) and the centrelines' ``shapes``
        (n, nl, n_samples, 2); ``joints`` as for :meth:`natural_frequencies`."""
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
            dx = np.linalg.solve(Jr, -r)
            q[ei] += dx
            if np.max(np.abs(dx)) <= 1e-13 * max(1.0, np.max(np.abs(q[ei]))):
                return q
        raise SimulationError("static equilibrium did not converge in 50 Newton steps")

    # -- simulation ---------------------------------------------------------------------
    def simulate(self, t_end, joint_angles0=None, joint_rates0=None, elastic0=None,
                 elastic_rates0=None, torque=None, joint_motion=None, drive_input=None,
                 dt_out=None, t0=0.0, method="generalized_alpha", rtol=None, atol=None,
                 form="virtual_power", max_step=np.inf, max_nfev=None,
                 max_deflection_ratio=0.5, n_samples=21, progress=None,
                 max_wall_time=None, step=None, rho_inf=0.8, family="chung-hulbert",
                 exact_callbacks=False):
        """Simulate the arm from t0 to t_end; returns a :class:`Result`.

        Args:
            t_end: end time, s.
            joint_angles0, joint_rates0: initial joint coordinates/rates (nj,).
            elastic0, elastic_rates0: initial elastic coordinates/rates.
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
        del arguments["self"]
        res = simulate_reference(self, t_end, joint_angles0=joint_angles0,
                                 joint_rates0=joint_rates0, elastic0=elastic0,
                                 elastic_rates0=elastic_rates0, torque=torque,
                                 joint_motion=joint_motion, drive_input=drive_input,
                                 dt_out=dt_out, t0=t0, method=method, rtol=rtol, atol=atol,
                                 form=form, max_step=max_step, max_nfev=max_nfev,
                                 max_deflection_ratio=max_deflection_ratio,
                                 n_samples=n_samples, progress=progress,
                                 max_wall_time=max_wall_time, step=step, rho_inf=rho_inf,
                                 family=family, exact_callbacks=exact_callbacks)
        res.info["run"] = run_settings(arguments)
        return res
