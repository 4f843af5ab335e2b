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
from ..errors import ParameterError
from ..integrators.generalized_alpha import GeneralizedAlpha
from ..integrators.ivp import EXPLICIT, STIFF, OdeStepper, fd_jacobian
from ..planar.reference import FIXED_STEP, GA_RTOL, ReferenceStepper
from ..stepping import Progress, output_times, run
from . import equations as mdl
from .post import deflection_ratio, spatial_result


def simulate_reference(arm, t_end, q0=None, qd0=None, torque=None, dt_out=None, t0=0.0,
                       method="Radau", rtol=None, atol=None, max_step=np.inf,
                       max_nfev=None, max_deflection_ratio=0.5, n_samples=21,
                       progress=None, max_wall_time=None, step=None, rho_inf=0.8):
    """The reference engine: :meth:`SpatialArm.simulate
    <chrono_flex.spatial.arm.SpatialArm.simulate>` (same arguments after ``arm``)."""
    t_end, t0 = ck.real("t_end", t_end), ck.real("t0", t0)
    if t_end <= t0:
        raise ParameterError("t_end", t_end, f"must be > t0 = {t0}")
    dt_out = (t_end - t0) / 500 if dt_out is None else ck.positive("dt_out", dt_out)
    if method not in STIFF + EXPLICIT + FIXED_STEP:
        raise ParameterError("method", method, f"must be one of {STIFF + EXPLICIT + FIXED_STEP}")
    max_deflection_ratio = ck.positive("max_deflection_ratio", max_deflection_ratio)
    if torque is not None and not callable(torque):
        raise ParameterError("torque", torque, "must be callable")
    n_samples = ck.positive_int("n_samples", n_samples)
    if n_samples < 2:
        raise ParameterError("n_samples", n_samples, "must be >= 2 (the root and the tip)")
    q0 = np.zeros(arm.nq) if q0 is None else ck.vector("q0", q0, arm.nq)
    qd0 = np.zeros(arm.nq) if qd0 is None else ck.vector("qd0", qd0, arm.nq)
    sim = _ForwardProblem(arm, torque)
    x0 = np.concatenate([q0, qd0, [0.0, 0.0]])
    if atol is None:
        atol = np.concatenate([np.full(arm.nq, 1e-9), np.full(arm.nq, 1e-7), [1e-6, 1e-6]])
    if rtol is None:
        rtol = GA_RTOL if method in FIXED_STEP else 1e-6
    if max_nfev is None and method in EXPLICIT:
        max_nfev = int(2e7 / x0.size)
    t_wall = time.perf_counter()
    if method in FIXED_STEP:
        first = min(max_step, dt_out, t_end - t0) / 10.0
        ode = GeneralizedAlpha(sim.rhs, sim.jac, t0, x0, arm.nq,
                               first if step is None else step, rho_inf=rho_inf,
                               max_nfev=max_nfev, forcing=sim.forcing,
                               **(dict(error_rtol=rtol, max_step=max_step) if step is None
                                  else {}))
        settings = dict(step="adaptive" if step is None else step, rtol=rtol, rho_inf=rho_inf)
    else:
        if step is not None:
            raise ParameterError("step", step, "is for method 'generalized_alpha'")
        ode = OdeStepper(sim.rhs, t0, x0, t_end, method=method, rtol=rtol, atol=atol,
                         jac=sim.jac, max_nfev=max_nfev, max_step=max_step)
        settings = dict(rtol=rtol)
    rec = run(ReferenceStepper(sim, ode), output_times(t0, t_end, dt_out),
              max_deflection_ratio=max_deflection_ratio,
              progress=Progress(t_end, "reference", progress), max_wall_time=max_wall_time)
    X, nq = rec["x"], arm.nq
    torques = np.array([sim.joint_forces(tk, x[:nq], x[nq:2 * nq]) for tk, x in zip(rec.t, X)])
    res = spatial_result(arm, rec.t, X[:, :nq], X[:, nq:2 * nq],
                         torques.reshape(rec.t.size, arm.n_joints), X[:, 2 * nq],
                         X[:, 2 * nq + 1], n_samples)
    res.info.update(engine="reference", method=method, form="virtual_power", **settings,
                    **ode.counters(), wall_time=round(time.perf_counter() - t_wall, 4))
    return res


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


__all__ = ["simulate_reference"]
