"""The reference engine for a SpatialArm: M(q) q_dd = f integrated by scipy's solvers (or
generalized-alpha) through the shared stepping loop (:mod:`chrono_flex.stepping`), as the
planar arm's engine does (:mod:`chrono_flex.planar.reference`).

State x = [q, q_d, W_in, W_diss]: the input work and the dissipated energy are integrated
as states, so the energy balance is checked to the integrator's tolerance.
"""

import time

import numpy as np

from .. import _checks as ck
from .._callbacks import call_vector
from ..errors import BudgetExceeded, ParameterError
from ..integrators.generalized_alpha import GeneralizedAlpha
from ..integrators.ivp import EXPLICIT, STIFF, OdeStepper, fd_jacobian
from ..planar.reference import FIXED_STEP, GA_RTOL, ReferenceStepper, rk4_stepper
from ..stepping import Progress, output_times, partial_result, run
from . import equations as mdl
from .post import deflection_ratio, spatial_result


def simulate_reference(arm, t_end, q0=None, qd0=None, torque=None, joint_motion=None,
                       dt_out=None, t0=0.0, method="Radau", rtol=None, atol=None,
                       max_step=np.inf, max_nfev=None, max_deflection_ratio=0.5,
                       n_samples=21, progress=None, max_wall_time=None, step=None,
                       rho_inf=0.8):
    """The reference engine: :meth:`SpatialArm.simulate
    <chrono_flex.spatial.arm.SpatialArm.simulate>` (same arguments after ``arm``)."""
    t_end, t0 = ck.real("t_end", t_end), ck.real("t0", t0)
    if t_end <= t0:
        raise ParameterError("t_end", t_end, f"must be > t0 = {t0}")
    dt_out = (t_end - t0) / 500 if dt_out is None else ck.positive("dt_out", dt_out)
    if method not in STIFF + EXPLICIT + FIXED_STEP:
        raise ParameterError("method", method, f"must be one of {STIFF + EXPLICIT + FIXED_STEP}")
    max_deflection_ratio = ck.positive("max_deflection_ratio", max_deflection_ratio)
    for name, fn in (("torque", torque), ("joint_motion", joint_motion)):
        if fn is not None and not callable(fn):
            raise ParameterError(name, fn, "must be callable")
    if joint_motion is not None and torque is not None:
        raise ParameterError("joint_motion", joint_motion,
                             "excludes `torque` (the joints are prescribed)")
    n_samples = ck.positive_int("n_samples", n_samples)
    if n_samples < 2:
        raise ParameterError("n_samples", n_samples, "must be >= 2 (the root and the tip)")
    q0 = np.zeros(arm.nq) if q0 is None else ck.vector("q0", q0, arm.nq)
    qd0 = np.zeros(arm.nq) if qd0 is None else ck.vector("qd0", qd0, arm.nq)
    if joint_motion is None:
        sim = _ForwardProblem(arm, torque)
        x0 = np.concatenate([q0, qd0, [0.0, 0.0]])
    else:
        sim = _MixedProblem(arm, joint_motion)
        e = arm.elastic_index
        x0 = np.concatenate([q0[e], qd0[e], [0.0, 0.0]])
    n2 = sim.n2
    if atol is None:
        atol = np.concatenate([np.full(n2, 1e-9), np.full(n2, 1e-7), [1e-6, 1e-6]])
    if rtol is None:
        rtol = GA_RTOL if method in FIXED_STEP else 1e-6
    if max_nfev is None and method in EXPLICIT:
        max_nfev = int(2e7 / x0.size)
    t_wall = time.perf_counter()
    if method == "rk4":
        ode, settings = rk4_stepper(sim, t0, x0, step, max_nfev)
    elif method in FIXED_STEP:
        first = min(max_step, dt_out, t_end - t0) / 10.0
        ode = GeneralizedAlpha(sim.rhs, sim.jac, t0, x0, n2,
                               first if step is None else step, rho_inf=rho_inf,
                               max_nfev=max_nfev, forcing=getattr(sim, "forcing", None),
                               **(dict(error_rtol=rtol, max_step=max_step) if step is None
                                  else {}))
        settings = dict(step="adaptive" if step is None else step, rtol=rtol, rho_inf=rho_inf)
    else:
        if step is not None:
            raise ParameterError("step", step, "is for methods 'generalized_alpha' and 'rk4'")
        ode = OdeStepper(sim.rhs, t0, x0, t_end, method=method, rtol=rtol, atol=atol,
                         jac=sim.jac, max_nfev=max_nfev, max_step=max_step)
        settings = dict(rtol=rtol)
    def result(rec):
        X = rec["x"]
        Q, QD, torques = sim.samples(rec.t, X)
        res = spatial_result(arm, rec.t, Q, QD, torques.reshape(rec.t.size, arm.n_joints),
                             X[:, -2], X[:, -1], n_samples)
        res.info.update(engine="reference", method=method, form="virtual_power", **settings,
                        **ode.counters(), wall_time=round(time.perf_counter() - t_wall, 4))
        return res

    try:
        rec = run(ReferenceStepper(sim, ode), output_times(t0, t_end, dt_out),
                  max_deflection_ratio=max_deflection_ratio,
                  progress=Progress(t_end, "reference", progress), max_wall_time=max_wall_time)
    except BudgetExceeded as exc:        # what was computed, marked partial
        exc.partial = partial_result(exc, result)
        raise
    return result(rec)


class _ForwardProblem:
    """State x = [q, q_d, W_in, W_diss]; joint forces from the ``torque`` callback."""

    def __init__(self, arm, torque):
        self.arm, self.torque, self.nq = arm, torque, arm.nq
        self.n, self.n2 = 2 * arm.nq + 2, arm.nq

    def joint_forces(self, t, q, qd):
        if self.torque is None:
            return np.zeros(self.arm.n_joints)
        return call_vector("torque", self.torque, self.arm.n_joints, t, q, qd)

    def forcing(self, t, x):
        nq, arm = self.nq, self.arm
        q, qd = x[:nq], x[nq:2 * nq]
        tau = self.joint_forces(t, q, qd)
        Q = np.zeros(nq)
        Q[arm.joint_index] = tau
        M, f = mdl.forcing(arm.model, q, qd, Q)
        return M, np.concatenate([f, [tau @ qd[arm.joint_index], qd @ arm.model.D @ qd]])

    def rhs(self, t, x):
        nq = self.nq
        M, F = self.forcing(t, x)
        return np.concatenate([x[nq:2 * nq], np.linalg.solve(M, F[:nq]), F[nq:]])

    def jac(self, t, x):
        nq = self.nq
        return fd_jacobian(self.rhs, t, x, self.rhs(t, x), range(2 * nq),
                           (np.arange(nq), np.arange(nq, 2 * nq)))

    def max_deflection_ratio(self, t, x):
        return deflection_ratio(self.arm, x[:self.nq])

    def samples(self, t, X):
        nq = self.nq
        tau = np.array([self.joint_forces(tk, x[:nq], x[nq:2 * nq]) for tk, x in zip(t, X)])
        return X[:, :nq], X[:, nq:2 * nq], tau


class _MixedProblem:
    """Joints prescribed: state x = [e, e_d, W_in, W_diss]; the joint torques returned.

    With a the joint coordinates and b the elastic ones (planar.reference's mixed problem):
    M_bb e_dd = f_b - M_ba theta_dd and tau = M_aa theta_dd + M_ab e_dd - f_a.
    """

    def __init__(self, arm, motion):
        self.arm, self.motion = arm, motion
        self.a, self.b = arm.joint_index, arm.elastic_index
        self.ne = self.n2 = self.b.size

    def _state(self, t, x):
        nj = self.arm.n_joints
        th, thd, thdd = np.split(call_vector("joint_motion", lambda s: np.ravel(self.motion(s)),
                                             3 * nj, t), 3)
        q, qd = np.empty(self.arm.nq), np.empty(self.arm.nq)
        q[self.a], qd[self.a] = th, thd
        q[self.b], qd[self.b] = x[:self.ne], x[self.ne:2 * self.ne]
        return q, qd, thdd

    def _solve(self, t, x):
        q, qd, thdd = self._state(t, x)
        M, f = mdl.forcing(self.arm.model, q, qd, np.zeros(self.arm.nq))
        a, b = self.a, self.b
        edd = np.linalg.solve(M[np.ix_(b, b)], f[b] - M[np.ix_(b, a)] @ thdd)
        return q, qd, edd, M[np.ix_(a, a)] @ thdd + M[np.ix_(a, b)] @ edd - f[a]

    def rhs(self, t, x):
        q, qd, edd, tau = self._solve(t, x)
        ne = self.ne
        return np.concatenate([x[ne:2 * ne], edd, [tau @ qd[self.a],
                                                   qd @ self.arm.model.D @ qd]])

    def jac(self, t, x):
        ne = self.ne
        return fd_jacobian(self.rhs, t, x, self.rhs(t, x), range(2 * ne),
                           (np.arange(ne), np.arange(ne, 2 * ne)))

    def max_deflection_ratio(self, t, x):
        return deflection_ratio(self.arm, self._state(t, x)[0])

    def samples(self, t, X):
        Q = np.empty((t.size, self.arm.nq))
        QD, tau = np.empty_like(Q), np.empty((t.size, self.arm.n_joints))
        for k, (tk, x) in enumerate(zip(t, X)):
            Q[k], QD[k], _, tau[k] = self._solve(tk, x)
        return Q, QD, tau


__all__ = ["simulate_reference"]
