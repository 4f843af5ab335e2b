"""PlanarArm: the public face of the reference engine (numpy/scipy).

    arm = PlanarArm(links=[Link(...)], joints=[RevoluteJoint()], payload=Payload(...))
    res = arm.simulate(t_end=2.0, joint_angles0=[0.0], torque=lambda t, q, qd: [0.1])

Forward dynamics integrates M(q) q_dd = Q - h + Q_g - K q - D q_d (module
:mod:`chrono_flex.model`) with a stiff implicit method by default; the mixed problem
(joint motion prescribed, elastic coordinates integrated, joint torques returned),
inverse dynamics, linearised natural frequencies and the energy bookkeeping sit beside it.
"""

import time

import numpy as np
from scipy.linalg import eigh

from . import _checks as ck
from . import model as mdl
from .assembly import ExtendedAssembly
from .errors import ParameterError, SimulationError
from .integrate import EXPLICIT, Progress, fd_jacobian, integrate
from .params import Link, Payload, Plane, PrismaticJoint, RevoluteJoint, gravity_magnitude
from .result import Energy, Result

FORMS = ("virtual_power", "lagrange", "without_mdot")


class PlanarArm:
    """A planar serial chain of flexible links (spec 01).

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
        # the drive's output inertia J2 turns with the joint hub
        joints = [RevoluteJoint(jt.hub_inertia + self.drives[k].output_inertia, jt.hub_mass,
                                jt.angle_offset) if k in self.drives else jt
                  for k, jt in enumerate(joints)]
        self.links, self.joints, self.payload = tuple(links), tuple(joints), payload
        self.hub_inertia = hub_inertia
        self.gravity = gravity_magnitude(gravity)
        self.geometric_stiffening = bool(geometric_stiffening)
        self.plane = plane if plane is not None else Plane()
        self.assembly = ExtendedAssembly(self.links, self.joints, payload, self.gravity,
                                         hub_inertia, self.geometric_stiffening)
        self.model = self.assembly.red

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
        """(M, f) with M(q) q_dd = f, in either equation form (spec 01 section 4).

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
        """Generalized forces Q that produce q_dd at (q, q_d): Q = M q_dd - f(Q = 0)."""
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
        """
        n = ck.positive_int("n", n)
        ck.choice("joints", joints, ("locked", "free"))
        q = np.zeros(self.nq) if q is None else self._q(q)
        M = self.mass_matrix(q)
        Kl = self.model.K.copy()
        if self.gravity:
            zero = np.zeros(self.nq)
            for k in range(self.nq):
                h = 1e-6
                qp, qm = q.copy(), q.copy()
                qp[k] += h
                qm[k] -= h
                Kl[:, k] -= (mdl.terms(self.model, qp, zero)[2]
                             - mdl.terms(self.model, qm, zero)[2]) / (2 * h)
            Kl = 0.5 * (Kl + Kl.T)
        keep = self.elastic_index if joints == "locked" else np.arange(self.nq)
        w2 = eigh(Kl[np.ix_(keep, keep)], M[np.ix_(keep, keep)], eigvals_only=True)
        scale = max(np.max(np.abs(w2)), 1.0)
        w2 = w2[w2 > 1e-9 * scale]
        return np.sqrt(w2[:n]) / (2 * np.pi)

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
                 dt_out=None, t0=0.0, method="Radau", rtol=1e-6, atol=None,
                 form="virtual_power", max_step=np.inf, max_nfev=None,
                 max_deflection_ratio=0.5, n_samples=21, progress=None):
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
            method: "Radau" (default), "BDF", "LSODA", or explicit "RK45", "RK23", "DOP853".
            rtol, atol: integrator tolerances (atol default: 1e-9 on positions and
                elastic coordinates, 1e-7 on rates).
            form: "virtual_power" (fast) or "lagrange" (Kozlowski's eq. 18, slower).
            max_nfev: budget of right-hand-side evaluations (default 20 million / states
                for explicit methods, none for implicit ones).
            max_deflection_ratio: stop with SimulationError when a tip deflection exceeds
                this fraction of its link length (the small-deformation model has left
                its validity: instability or divergence).
            n_samples: centreline samples per link in the result.
            progress: True/False to force the terminal progress line (default: when
                stderr is a terminal).
        """
        t_end = ck.real("t_end", t_end)
        t0 = ck.real("t0", t0)
        if t_end <= t0:
            raise ParameterError("t_end", t_end, f"must be > t0 = {t0}")
        dt_out = (t_end - t0) / 500 if dt_out is None else ck.positive("dt_out", dt_out)
        ck.choice("form", form, FORMS)
        max_deflection_ratio = ck.positive("max_deflection_ratio", max_deflection_ratio)
        if joint_motion is not None and (torque is not None or self.drives):
            raise ParameterError("joint_motion", joint_motion,
                                 "excludes `torque` and drives (the joints are prescribed)")
        for name, fn in (("torque", torque), ("joint_motion", joint_motion),
                         ("drive_input", drive_input)):
            if fn is not None and not callable(fn):
                raise ParameterError(name, fn, "must be callable")
        if drive_input is not None and not self.drives:
            raise ParameterError("drive_input", drive_input, "is given but the arm has no drives")
        nj, nq = self.n_joints, self.nq
        q0 = self.coordinates(joint_angles0 if joint_angles0 is not None else np.zeros(nj),
                              elastic0)
        qd0 = self.coordinates(joint_rates0 if joint_rates0 is not None else np.zeros(nj),
                               elastic_rates0)
        n_out = int(np.floor((t_end - t0) / dt_out + 1e-9)) + 1
        t_eval = t0 + dt_out * np.arange(n_out)
        if t_eval[-1] < t_end - 1e-12 * max(1.0, abs(t_end)):
            t_eval = np.append(t_eval, t_end)
        prog = Progress(t_end, "reference", progress)
        if joint_motion is not None:
            sim = _MixedProblem(self, joint_motion, form)
        else:
            sim = _ForwardProblem(self, torque, drive_input, form)
        x0 = sim.initial_state(q0, qd0)
        if atol is None:
            atol = sim.default_atol()
        if max_nfev is None and method in EXPLICIT:
            max_nfev = int(2e7 / x0.size)
        tip_ratio = lambda t, x: max_deflection_ratio - sim.max_deflection_ratio(t, x)  # noqa
        events = [(tip_ratio, f"a tip deflection exceeded {max_deflection_ratio} of its link "
                   "length: the small-deformation model is no longer valid (unstable or "
                   "diverging motion)")]
        t_wall = time.perf_counter()
        sol = integrate(sim.rhs, (t0, t_end), x0, t_eval, method=method, rtol=rtol,
                        atol=atol, jac=sim.jac, events=events, max_nfev=max_nfev,
                        max_step=max_step, progress=prog)
        res = sim.result(sol, n_samples)
        res.info.update(engine="reference", method=method, rtol=rtol, form=form,
                        nfev=int(sol.nfev), njev=int(sol.njev), nlu=int(sol.nlu),
                        wall_time=round(time.perf_counter() - t_wall, 4))
        return res

    # -- shared post-processing ---------------------------------------------------------
    def _result(self, t, Q, QD, torques, w_in, w_diss, n_samples, extra=None):
        m = self.model
        nt = t.size
        kin_e = np.empty(nt)
        el_e = np.empty(nt)
        gr_e = np.empty(nt)
        tip = np.empty((nt, 2))
        defl = np.empty((nt, m.n_links))
        cl = np.empty((nt, m.n_links, n_samples, 3))
        clr = np.empty_like(cl)
        curv = np.empty((nt, m.n_links, n_samples))
        for k in range(nt):
            q, qd = Q[k], QD[k]
            kin_e[k] = mdl.kinetic_energy(m, q, qd)
            el_e[k] = mdl.elastic_potential(m, q)
            gr_e[k] = mdl.gravity_potential(m, q)
            tip[k] = mdl.tip_state(m, q)[0]
            defl[k] = mdl.tip_deflections(m, q)
            pts, curv[k] = mdl.centerlines(m, q, n_samples)
            cl[k] = self.plane.to_world(pts)
            clr[k] = self.plane.to_world(mdl.centerlines(m, q, n_samples, rigid=True)[0])
        ji = self.joint_index
        return Result(t=t, q=Q, qd=QD, joint_angles=Q[:, ji].copy(),
                      joint_rates=QD[:, ji].copy(), tip_position=tip, tip_deflection=defl,
                      energy=Energy(kin_e, el_e, gr_e, w_in, w_diss), joint_torque=torques,
                      centerline=cl, centerline_rigid=clr, curvature=curv, plane=self.plane,
                      link_thickness=np.array([lk.thickness for lk in self.links]),
                      extra=extra or {}, info={})


class _ForwardProblem:
    """State x = [q, q_d, W_in, W_diss, drive states...]."""

    def __init__(self, arm, torque, drive_input, form):
        self.arm, self.torque, self.drive_input, self.form = arm, torque, drive_input, form
        nq = arm.nq
        self.nq = nq
        self.drive_joints = sorted(arm.drives)
        self.drive_slices = []
        k = 2 * nq + 2
        for j in self.drive_joints:
            n = arm.drives[j].n_states
            self.drive_slices.append(slice(k, k + n))
            k += n
        self.n = k
        self._checked = False

    def initial_state(self, q0, qd0):
        x = np.zeros(self.n)
        x[:self.nq] = q0
        x[self.nq:2 * self.nq] = qd0
        for j, s in zip(self.drive_joints, self.drive_slices):
            ji = self.arm.joint_index[j]
            x[s] = self.arm.drives[j].initial_state(q0[ji], qd0[ji])
        return x

    def default_atol(self):
        a = np.full(self.n, 1e-9)
        a[self.nq:2 * self.nq] = 1e-7
        a[2 * self.nq:2 * self.nq + 2] = 1e-6
        for j, s in zip(self.drive_joints, self.drive_slices):
            a[s] = getattr(self.arm.drives[j], "atol", 1e-8)
        return a

    def _joint_forces(self, t, q, qd, x, with_drive_rates=False):
        arm = self.arm
        tau = np.zeros(arm.n_joints)
        if self.torque is not None:
            out = np.asarray(self.torque(t, q, qd), dtype=float)
            if not self._checked:
                if out.shape not in ((arm.n_joints,), ()) or (out.shape == () and arm.n_joints != 1):
                    raise ParameterError("torque", out.tolist(),
                                         f"must return {arm.n_joints} value(s) (one per joint)")
                self._checked = True
            tau += out
        rates = []
        if self.drive_joints:
            u = (np.zeros(len(self.drive_joints)) if self.drive_input is None
                 else np.atleast_1d(np.asarray(self.drive_input(t), dtype=float)))
            if u.shape != (len(self.drive_joints),):
                raise ParameterError("drive_input", u.tolist(),
                                     f"must return {len(self.drive_joints)} value(s)")
            for k, (j, s) in enumerate(zip(self.drive_joints, self.drive_slices)):
                ji = arm.joint_index[j]
                dx, tau_j = arm.drives[j].rates(t, x[s], q[ji], qd[ji], u[k])
                tau[j] += tau_j
                rates.append(dx)
        return tau, rates

    def rhs(self, t, x):
        nq, arm = self.nq, self.arm
        q, qd = x[:nq], x[nq:2 * nq]
        tau, rates = self._joint_forces(t, q, qd, x)
        Q = np.zeros(nq)
        Q[arm.joint_index] = tau
        M, f = arm._forcing(q, qd, Q, self.form)
        dx = np.empty(self.n)
        dx[:nq] = qd
        dx[nq:2 * nq] = np.linalg.solve(M, f)
        dx[2 * nq] = tau @ qd[arm.joint_index]
        dx[2 * nq + 1] = qd @ arm.model.D @ qd
        for s, r in zip(self.drive_slices, rates):
            dx[s] = r
        return dx

    def jac(self, t, x):
        nq = self.nq
        cols = list(range(2 * nq)) + list(range(2 * nq + 2, self.n))
        return fd_jacobian(self.rhs, t, x, self.rhs(t, x), cols,
                           (np.arange(nq), np.arange(nq, 2 * nq)))

    def max_deflection_ratio(self, t, x):
        m = self.arm.model
        d = np.abs(mdl.tip_deflections(m, x[:self.nq]))
        return float(np.max(d / np.array([lk.length for lk in m.links])))

    def result(self, sol, n_samples):
        nq, arm = self.nq, self.arm
        X = sol.y.T
        Q, QD = X[:, :nq], X[:, nq:2 * nq]
        torques = np.array([self._joint_forces(t, x[:nq], x[nq:2 * nq], x)[0]
                            for t, x in zip(sol.t, X)])
        extra = {}
        for j, s in zip(self.drive_joints, self.drive_slices):
            extra[f"drive{j + 1}_states"] = X[:, s]
        return arm._result(sol.t, Q, QD, torques, X[:, 2 * nq], X[:, 2 * nq + 1], n_samples,
                           extra)


class _MixedProblem:
    """Joints prescribed: state x = [e, e_d, W_in, W_diss]; joint torques returned.

    With a = joint coordinates and b = elastic ones, M_bb e_dd = f_b - M_ba theta_dd and
    tau = M_aa theta_dd + M_ab e_dd - f_a (f: forcing without inputs).
    """

    def __init__(self, arm, motion, form):
        self.arm, self.motion, self.form = arm, motion, form
        self.a, self.b = arm.joint_index, arm.elastic_index
        self.ne = self.b.size

    def _joints(self, t):
        th, thd, thdd = (ck.vector(f"joint_motion(t)[{k}]", v, self.arm.n_joints)
                         for k, v in enumerate(self.motion(t)))
        return th, thd, thdd

    def _state(self, t, x):
        th, thd, thdd = self._joints(t)
        q = np.empty(self.arm.nq)
        qd = np.empty(self.arm.nq)
        q[self.a], qd[self.a] = th, thd
        q[self.b], qd[self.b] = x[:self.ne], x[self.ne:2 * self.ne]
        return q, qd, thdd

    def _solve(self, t, x):
        q, qd, thdd = self._state(t, x)
        M, f = self.arm._forcing(q, qd, np.zeros(self.arm.nq), self.form)
        a, b = self.a, self.b
        edd = np.linalg.solve(M[np.ix_(b, b)], f[b] - M[np.ix_(b, a)] @ thdd)
        tau = M[np.ix_(a, a)] @ thdd + M[np.ix_(a, b)] @ edd - f[a]
        return q, qd, edd, tau

    def initial_state(self, q0, qd0):
        q, qd, _ = self._state(0.0, np.concatenate([q0[self.b], qd0[self.b]]))
        return np.concatenate([q0[self.b], qd0[self.b], [0.0, 0.0]])

    def default_atol(self):
        a = np.full(2 * self.ne + 2, 1e-9)
        a[self.ne:2 * self.ne] = 1e-7
        a[-2:] = 1e-6
        return a

    def rhs(self, t, x):
        q, qd, edd, tau = self._solve(t, x)
        ne = self.ne
        dx = np.empty(2 * ne + 2)
        dx[:ne] = x[ne:2 * ne]
        dx[ne:2 * ne] = edd
        dx[-2] = tau @ qd[self.a]
        dx[-1] = qd @ self.arm.model.D @ qd
        return dx

    def jac(self, t, x):
        ne = self.ne
        return fd_jacobian(self.rhs, t, x, self.rhs(t, x), range(2 * ne),
                           (np.arange(ne), np.arange(ne, 2 * ne)))

    def max_deflection_ratio(self, t, x):
        q, _, _ = self._state(t, x)
        m = self.arm.model
        return float(np.max(np.abs(mdl.tip_deflections(m, q))
                            / np.array([lk.length for lk in m.links])))

    def result(self, sol, n_samples):
        X = sol.y.T
        nt = sol.t.size
        Q = np.empty((nt, self.arm.nq))
        QD = np.empty_like(Q)
        tau = np.empty((nt, self.arm.n_joints))
        for k, (t, x) in enumerate(zip(sol.t, X)):
            Q[k], QD[k], _, tau[k] = self._solve(t, x)
        return self.arm._result(sol.t, Q, QD, tau, X[:, -2], X[:, -1], n_samples)
