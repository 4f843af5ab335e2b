"""How a :class:`~chrono_flex.chrono.element.FlexibleLink` evaluates its load: the
generalized forces and mass matrix at Chrono's state vectors (``ComputeQ``), the policy
that decides when K and R are rebuilt, and K and R themselves.

A mixin of :class:`~chrono_flex.chrono.element.FlexibleLink` (and so of
:class:`~chrono_flex.chrono.spatial_element.SpatialFlexibleLink`); the Chrono director
that calls it is :mod:`chrono_flex.chrono.directors`.
"""

from collections import namedtuple

import numpy as np

from .._callbacks import call_vector
from .attachment import body_state_from
from .element_views import LoadViews
from .system import quat_to_matrix


class LoadEvaluation:
    """The element's load callbacks (see the module docstring)."""

    # -- the callback -------------------------------------------------------------------
    def begin_update(self, time, missing):
        """Called by the load's Update at ``time`` before Chrono's own Update (after
        :meth:`~chrono_flex.chrono.system.CallbackState.note_update`): decides whether
        this Update rebuilds K and R (``jacobian``; ``missing``: the load has no Jacobian
        matrices yet) and who differences them (:attr:`differences`), and reads the
        system's gravity at a step's first Update. Returns True when the link forms K and R itself
        (:meth:`compute_jacobian`) after Chrono's Update."""
        if time != self._step_time:
            # gravity can change between steps only (read once per step: each read is a
            # few crossings into Chrono)
            try:
                self._gravity = self._system_gravity()
            except BaseException as exc:          # noqa: BLE001 - re-raised after the step
                self.record_error(exc, time)
        self._stiff_now = self._wants_jacobian(time, missing)
        self._chrono_differences = self._stiff_now and self.differences == "chrono"
        return self._stiff_now and not self._chrono_differences

    @property
    def chrono_differences(self):
        """Whether Chrono differences K and R in the current Update (the load's
        ``IsStiff``): 2n + 2 ComputeQ calls (:attr:`differences` "chrono")."""
        return self._chrono_differences

    def _wants_jacobian(self, time, missing):
        """Whether this Update rebuilds K and R (see ``jacobian``): at the first Update of
        every N-th step. A new time means a new step (every Update within a step carries
        the step's end time, docs/chrono.md §2)."""
        new_step = time != self._step_time
        self._step_time = time
        if missing or self.jacobian == "iteration":
            self._steps_since_jacobian = 0
            return True
        if not new_step:
            return False
        iterations = self.n_compute_q - self._calls_at_step
        self._calls_at_step = self.n_compute_q
        self._steps_since_jacobian += 1
        slow = (self.jacobian == "auto" and not self._built_last_step
                and iterations > self.AUTO_MAX_ITERATIONS)
        self._built_last_step = slow or self._steps_since_jacobian >= self._every
        if self._built_last_step:
            self._steps_since_jacobian = 0
        return self._built_last_step

    def _state_from(self, x, w):
        """(q, qd, body state or None, actuator states, attached bodies' states) from
        Chrono's state vectors."""
        nq, nx, nw = self.nq, self._nx_arm, self._nw_arm
        if self._moving:
            body = (x[0:3], quat_to_matrix(*x[3:7].tolist()), w[0:3], w[3:6])
            q, qd = x[7:7 + nq], w[6:6 + nq]
            z = w[6 + nq:nw]
        else:
            body = None
            q, qd = x[:nq], w[:nq]
            z = w[nq:nw]
        bodies = [body_state_from(x[nx + 7 * k:nx + 7 * k + 7], w[nw + 6 * k:nw + 6 * k + 6])
                  for k in range(len(self._bodies))]
        return q, qd, body, z, bodies

    def _joint_forces(self, t, q, qd, z):
        """Generalized forces on q (nq,) and the actuator state rates."""
        arm = self.arm
        Q = None
        if self._torque_fn is not None or self._torque_functions is not None or self.actuators:
            tau = np.zeros(arm.n_joints)
            if self._torque_fn is not None:
                tau += call_vector("torque", self._torque_fn, arm.n_joints, t, q, qd)
            elif self._torque_functions is not None:
                tau += [f.GetVal(t) for f in self._torque_functions]
            Q = np.zeros(self.nq)
            Q[arm.joint_index] = tau
        rates = []
        i = 0
        for joint, act, u_fn, shafts in self.actuators:
            k = arm.joint_index[joint]
            zi = z[i:i + len(shafts)]
            u = 0.0 if u_fn is None else u_fn(t, q, qd, self.actuators, z)
            dz, tau_j = act.rates(t, zi, q[k], qd[k], u)
            Q[k] += tau_j
            rates.append(np.atleast_1d(np.asarray(dz, dtype=float)))
            i += len(shafts)
        return Q, rates

    def _system_gravity(self):
        return np.asarray(self.system.GetGravitationalAcceleration().to_numpy(), dtype=float)

    def _terms(self, t, q, qd, body, z, g=None):
        """(M, f) over the load's velocity coordinates."""
        g = self._gravity if g is None else g
        Q, rates = self._joint_forces(t, q, qd, z)
        M, f = self._model_terms(q, qd, body, g, Q)
        if self._n_act:
            n = M.shape[0]
            M = np.pad(M, ((0, self._n_act), (0, self._n_act)))
            M[n:, n:] = np.eye(self._n_act)
            f = np.concatenate([f] + rates)
        return M, f

    def _load_terms(self, x, w):
        """(M, f) of the whole load at Chrono's state vectors ``x``, ``w`` (arrays):
        the arm's terms, and the welds' when bodies are attached."""
        q, qd, body, z, bodies = self._state_from(x, w)
        if self.attachments:
            # the arm's own terms do not depend on the attached bodies: kept for the
            # Jacobian's perturbations of the bodies' coordinates
            arm_key = (self._time, x[:self._nx_arm].tobytes(), w[:self._nw_arm].tobytes())
            if arm_key != self._arm_key:
                self._arm_terms = self._terms(self._time, q, qd, body, z)
                self._arm_key = arm_key
            M_arm, f = self._arm_terms
            f_arm, f_bodies = self._attachment_forces(q, qd, body, bodies)
            f = np.concatenate([f + f_arm, f_bodies])
            M = np.zeros((self._nw, self._nw))
            M[:self._nw_arm, :self._nw_arm] = M_arm
        else:
            M, f = self._terms(self._time, q, qd, body, z)
        if not np.all(np.isfinite(f)):
            raise FloatingPointError("non-finite generalized forces (the state has diverged)")
        return M, f, (q, qd, body, bodies)

    def compute_q(self, load, state_x, state_w):
        """The load's ComputeQ: the generalized forces at Chrono's state vectors into
        ``load.load_Q``, and M(x) into its Jacobians once per Update (with the welds' K
        and R kept current)."""
        self.n_compute_q += 1
        x, w, views = self._state_arrays(load, state_x, state_w)
        pack = self._compiled_load()
        if pack is not None:
            self._compute_q_compiled(load, pack, x, w, views)
            return
        M, f, (q, qd, body, bodies) = self._load_terms(x, w)
        # Inject M(x) once per Update, at the unperturbed state. In an Update where Chrono
        # differences K and R itself, ComputeQ is called at x, again at x, then at
        # perturbed x and w (docs/chrono.md §2): inject on the second call. Otherwise
        # ComputeQ runs once, at x.
        key = x.tobytes()
        if self._chrono_differences:
            inject = key == self._last_key and key != self._injected_key
        else:
            inject = key != self._injected_key
        if inject:
            jac = self._jacobians(load)
            if jac is not None:
                M[self._diag_index, self._diag_index] -= self._diag_inertia
                jac.M = self._chrono.ChMatrixDynamicd(M)
                self._injected_key = key
                if self.attachments and self.jacobian != "iteration":
                    self._refresh_weld_jacobians(jac, q, qd, body, bodies)
        self._last_key = key
        if views is not None:
            # x, w are views, written again at the next Update
            self._last_state = (x.copy(), w.copy(), f)
            views.Q[:] = f
        else:
            self._last_state = (x, w, f)
            load.load_Q.SetVect(f.tolist())

    def _state_arrays(self, load, state_x, state_w):
        """(x, w, views) of Chrono's state vectors: the views' arrays over their storage
        where :meth:`_load_views` has them (views None otherwise), else copies."""
        views = self._load_views(load, state_x)
        if views is not None:
            return views.x, views.w, views
        return (np.asarray(state_x.GetVectorData(self._nx)),
                np.asarray(state_w.GetVectorData(self._nw)), None)

    def _load_views(self, load, state_x):
        """The :class:`~chrono_flex.chrono.element_views.LoadViews` of the load when
        ``state_x`` is the load's own state vector (an Update's ComputeQ, not one of
        Chrono's differences) and the views hold (made once the load has its Jacobians;
        None where they cannot be made: the element copies through the bindings)."""
        views = self._views
        if views is False:
            if state_x is not getattr(load, "state_x", None) or self._jacobians(load) is None:
                return None
            views = self._views = LoadViews.make(load, self._jacobians(load), self._nx,
                                                 self._nw)
        if views is None or state_x is not views.state_x or not views.valid():
            return None
        return views

    def _compiled_load(self):
        """The :class:`~chrono_flex.planar.load_kernels.LoadPack` of this load, packed once
        after each rebuild of the load (None where the compiled path does not apply:
        :meth:`_pack_load`), with the load's compiled calls (:attr:`_calls`)."""
        if self._load_pack is False:
            self._load_pack = self._pack_load()
            self._zero_q = np.zeros(self.nq)
            self._calls = None if self._load_pack is None else self._load_calls()
            if self._calls is not None:
                nw = self._nw
                m_diag = np.zeros(nw)
                m_diag[self._diag_index] = self._diag_inertia
                # what ComputeQ's call writes (M, f, the welds' K, R): copied into Chrono's
                # matrices at once, so kept from call to call
                self._q_out = (m_diag, np.empty((nw, nw)), np.empty(nw), np.empty((nw, nw)),
                               np.empty((nw, nw)))
        return self._load_pack

    def _pack_load(self):
        return None

    def _load_calls(self):
        """The load's compiled calls (:class:`_LoadCalls`), or None: ComputeQ then goes
        through the kernel module's ``compute_q`` (:meth:`_compute_q_compiled`)."""
        return None

    def _joint_forces_at(self, x, w):
        """Q (nq,) on q at Chrono's state vectors (a load without actuator states)."""
        if self._torque_fn is None and self._torque_functions is None:
            return self._zero_q
        xo = 7 if self._moving else 0
        nb = self._n_body
        Q, _ = self._joint_forces(self._time, x[xo:xo + self.nq], w[nb:nb + self.nq], w[:0])
        return self._zero_q if Q is None else Q

    def _jacobians(self, load):
        """The load's ChLoadJacobians (None until Chrono or the load's Update creates
        them), its Python wrapper kept once it exists (a new load starts without)."""
        jac = self._jac_object
        if jac is None:
            jac = self._jac_object = load.GetJacobians()
        return jac

    def _compute_q_compiled(self, load, pack, x, w, views=None):
        """ComputeQ by one compiled call (:func:`chrono_flex.planar.load_kernels.compute_q`):
        the same forces, M and injection policy as the array path below it. With the
        load's ``views`` (:meth:`_load_views`) the call writes Q, and M when it is
        injected, straight into Chrono's storage."""
        key = x.tobytes()
        if self._chrono_differences:
            inject = key == self._last_key and key != self._injected_key
        else:
            inject = key != self._injected_key
        welds = bool(inject and self.attachments and self.jacobian != "iteration")
        Q = self._joint_forces_at(x, w)
        calls = self._calls
        direct = False
        if calls is not None:
            m_diag, M, f, K_w, R_w = self._q_out
            if views is not None:
                # Q into the load's vector; M into the Jacobians' when injected (M
                # depends on x only: at an x already injected it is the same)
                f = views.Q
                direct = inject
                if direct:
                    M = views.M
            # M less the shafts' own inertia, f, the welds' K and R (when asked for)
            finite = calls.compute_q(pack, x, w, Q, self._gravity, welds, m_diag, M, f,
                                     K_w, R_w)
        else:
            M, f, finite, K_w, R_w = self._kernels.compute_q(pack, x, w, Q, self._gravity,
                                                             welds, self._weld_damped)
            M[self._diag_index, self._diag_index] -= self._diag_inertia
        if not finite:
            raise FloatingPointError("non-finite generalized forces (the state has diverged)")
        if inject:
            jac = self._jacobians(load)
            if jac is not None:
                if views is not None:
                    if not direct:
                        views.M[:] = M
                else:
                    jac.M = self._chrono.ChMatrixDynamicd(M)
                self._injected_key = key
                if welds:
                    d = self.JACOBIAN_DELTA
                    fd = lambda: self._kernels.weld_stiffness_differences(  # noqa: E731
                        pack, x, w, d)
                    if self._stiff_now and not self._chrono_differences:
                        # K and R of this Update now, with the welds' K_w(x0) from the
                        # same evaluations (compute_jacobian takes them at this state)
                        K, R, K_fd = self._compiled_jacobian(pack, x, w, Q)
                        self._jacobian_at = (key + w.tobytes(), K, R)
                        fd = lambda: K_fd  # noqa: E731
                    # kept at a rebuild (_refresh_weld_jacobians): copies of the buffers
                    matrices = ((K_w.copy(), R_w.copy() if self._weld_damped else None)
                                if self._stiff_now else
                                (K_w, R_w if self._weld_damped else None))
                    self._refresh_weld_jacobians(jac, None, None, None, None,
                                                 matrices=matrices, fd=fd, views=views)
        self._last_key = key
        if views is not None:
            # x, w are views, written again at the next Update
            self._last_state = (x.copy(), w.copy(), f)
            if f is not views.Q:
                views.Q[:] = f
        else:
            self._last_state = (x, w, f)
            load.load_Q.SetVect(f.tolist())

    def _compiled_jacobian(self, pack, x, w, Q):
        """(K, R, K_w) of the load at x, w by the compiled differences
        (:func:`chrono_flex.planar.load_kernels.load_jacobian`, joint forces Q held), plus,
        for a torque law that reads the state (``torque(t, q, qd)``), its own part:
        -d tau/dq and -d tau/dq_dot on the joints' rows by the same one-sided differences
        of the law alone (:meth:`_torque_jacobian`)."""
        if self._calls is not None:
            K, R, K_w = self._calls.jacobian(pack, x, w, Q, self._gravity,
                                             self.JACOBIAN_DELTA, True)
        else:
            K, R, K_w = self._kernels.load_jacobian(pack, x, w, Q, self._gravity,
                                                    self.JACOBIAN_DELTA)
        if self._torque_fn is not None:
            self._torque_jacobian(x, w, Q, K, R)
        return K, R, K_w

    def _torque_jacobian(self, x, w, Q, K, R):
        """Add the torque law's K = -dQ/dq and R = -dQ/dq_dot (joint rows, shaft
        columns) by one-sided differences of step ``JACOBIAN_DELTA`` (as Chrono's
        ComputeJacobian), 2 nq calls of the law at the perturbed states."""
        d, nq, nb = self.JACOBIAN_DELTA, self.nq, self._n_body
        xo = 7 if self._moving else 0
        q, qd = x[xo:xo + nq], w[nb:nb + nq]
        rows = nb + np.asarray(self.arm.joint_index)
        for i in range(nq):
            for vel in (False, True):
                qi, qdi = q.copy(), qd.copy()
                (qdi if vel else qi)[i] += d
                Qi, _ = self._joint_forces(self._time, qi, qdi, w[:0])
                (R if vel else K)[rows, nb + i] += (Q - Qi)[self.arm.joint_index] / d

    #: Chrono's difference step for K and R (ChLoadCustomMultiple::ComputeJacobian).
    JACOBIAN_DELTA = 1e-8

    #: How K and R are differenced: "arrays" (default, :meth:`compute_jacobian`) or
    #: "chrono" (Chrono's own loop, 2n + 2 ComputeQ calls; kept for comparison: the
    #: benchmark runs both side by side).
    differences = "arrays"

    def compute_jacobian(self, load):
        """K = -dQ/dx and R = -dQ/dv of the load at the state of the last ComputeQ, by
        the same one-sided differences as Chrono's ``ChLoadCustomMultiple::
        ComputeJacobian`` (step ``JACOBIAN_DELTA``; positions incremented as Chrono
        increments them, a body's rotation by a local rotation vector), evaluated here on
        arrays: Chrono's own loop makes 2n + 2 ComputeQ calls, each crossing from C++ to
        Python and copying the state (docs/chrono.md §2)."""
        jac = self._jacobians(load)
        if jac is None or self._last_state is None:
            return
        x, w, f0 = self._last_state
        d, nw = self.JACOBIAN_DELTA, self._nw
        pack = self._compiled_load()
        if pack is not None:
            kept, self._jacobian_at = self._jacobian_at, None
            if kept is not None and kept[0] == x.tobytes() + w.tobytes():
                K, R = kept[1], kept[2]
            else:
                K, R, _ = self._compiled_jacobian(pack, x, w, self._joint_forces_at(x, w))
            self.n_jacobians += 1
            jac.K = self._chrono.ChMatrixDynamicd(K)
            jac.R = self._chrono.ChMatrixDynamicd(R)
            return
        K = np.empty((nw, nw))
        R = np.empty((nw, nw))
        for i in range(nw):
            K[:, i] = (f0 - self._load_terms(self._increment(x, i, d), w)[1]) / d
        for i in range(nw):
            wi = w.copy()
            wi[i] += d
            R[:, i] = (f0 - self._load_terms(x, wi)[1]) / d
        self.n_jacobians += 1
        jac.K = self._chrono.ChMatrixDynamicd(K)
        jac.R = self._chrono.ChMatrixDynamicd(R)

    def _increment(self, x, i, d):
        """x incremented by d along velocity coordinate i, as Chrono's
        ``LoadStateIncrement``: shafts add d; a body's position adds d, its rotation
        quaternion is multiplied on the right by that of the local rotation vector d e_k
        (``ChBody::IntStateIncrement``)."""
        x = x.copy()
        for xo, wo, kind in self._blocks:
            if kind == "shafts":
                n = self._n_shaft_coords
                if wo <= i < wo + n:
                    x[xo + i - wo] += d
                    return x
            elif wo <= i < wo + 6:
                j = i - wo
                if j < 3:
                    x[xo + j] += d
                else:
                    x[xo + 3:xo + 7] = _quat_times_axis_rotation(x[xo + 3:xo + 7], j - 3, d)
                return x
        raise IndexError(i)


#: the compiled calls of one load (:class:`chrono_flex.planar.load_kernels.Compiled`):
#: ComputeQ's terms, the differenced K and R, the tip's motion
_LoadCalls = namedtuple("_LoadCalls", "compute_q jacobian tip")


def _quat_times_axis_rotation(quat, axis, angle):
    """quat * (cos(angle/2), sin(angle/2) e_axis): a rotation by ``angle`` about the local
    axis ``axis`` (0, 1, 2) composed on the right (Hamilton product, scalar first)."""
    w0, x0, y0, z0 = quat
    c, s = np.cos(0.5 * angle), np.sin(0.5 * angle)
    if axis == 0:
        return np.array([w0 * c - x0 * s, x0 * c + w0 * s, y0 * c + z0 * s, z0 * c - y0 * s])
    if axis == 1:
        return np.array([w0 * c - y0 * s, x0 * c - z0 * s, y0 * c + w0 * s, z0 * c + x0 * s])
    return np.array([w0 * c - z0 * s, x0 * c + y0 * s, y0 * c - x0 * s, z0 * c + w0 * s])


__all__ = ["LoadEvaluation"]
