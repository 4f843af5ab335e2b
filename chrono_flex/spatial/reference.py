"""The reference engine for a SpatialArm: M(q) q_dd = f integrated by generalized-alpha
(the default) or scipy's solvers through the reference engines' one plumbing, as the
planar arm (:func:`chrono_flex.integrators.choice.run_engine`: settings, integrator, the
shared stepping loop, ``Result.info``).

State x = [q, q_d, W_in, W_diss, drive states..., controller states...]: a drive on a
revolute joint is coupled as on the planar arm (:mod:`chrono_flex.drive.coupling`), and
the inputs are those of the planar engine: a torque or drive input that reads the state
(t, q, qd), controllers of :mod:`chrono_flex.control` sampled (on the steps, or held) or
continuous with their states integrated with the arm's (docs/control.md); the input
work and the dissipated energy are integrated as states, so the energy balance is
checked to the integrator's tolerance.

Where numba is the kernel backend (:func:`chrono_flex.planar.kernels.backend`) the terms
come from the compiled kernels (:mod:`chrono_flex.spatial.kernels`) and
generalized-alpha's steps of the forward problem without drive or controller states
from the compiled Newton solve (:mod:`chrono_flex.spatial.tree_ga`), as on the planar
arm (:func:`chrono_flex.planar.reference.compiled_step`); ``CHRONO_FLEX_KERNELS=numpy``
(or :data:`COMPILED` False) keeps the numpy equations and the Python iteration.
"""

import numpy as np

from .. import _checks as ck
from .._callbacks import call_vector_series
from ..integrators.choice import DEFAULT_METHOD, arm_inputs, check_arm_run, run_engine
from ..integrators.arm_problems import ForwardArmProblem, MixedArmProblem
from ..inputs import is_time_only
from ..planar.chain_ga import available as compiled_available
from ..stepping import output_times
from . import equations as mdl
from . import kernels as sk
from . import tree_ga
from .post import deflection_ratio, deflection_ratios, spatial_result

#: Whether the compiled kernels and step may serve where they apply (tests compare).
COMPILED = True


def compiled_step(sim, method, torque):
    """The compiled Newton solve of generalized-alpha's steps
    (:func:`chrono_flex.spatial.tree_ga.tree_step`) for ``sim``, or None where it does
    not apply: numba absent or not the backend, :data:`COMPILED` off, another method, a
    mixed problem, drive or controller states. A torque not declared a function of time
    alone (:func:`chrono_flex.inputs.is_time_only`) is evaluated once per step at the
    state predicted for its end (as on the planar arm: ChainStep.held_torque)."""
    if not (COMPILED and method == "generalized_alpha" and compiled_available()
            and isinstance(sim, _ForwardProblem) and sim.n == 2 * sim.nq + 2):
        return None
    return tree_ga.tree_step(sim.arm.model, torque,
                             reads_state=torque is not None and not is_time_only(torque))


def simulate_reference(arm, t_end, q0=None, qd0=None, torque=None, joint_motion=None,
                       drive_input=None, dt_out=None, t0=0.0, method=DEFAULT_METHOD,
                       rtol=None, atol=None, max_step=np.inf, max_nfev=None,
                       max_deflection_ratio=0.5, n_samples=21, progress=None,
                       max_wall_time=None, step=None, rho_inf=0.8, family="chung-hulbert"):
    """The reference engine: :meth:`SpatialArm.simulate
    <chrono_flex.spatial.arm.SpatialArm.simulate>` (same arguments after ``arm``)."""
    t_end, t0, dt_out, max_deflection_ratio = check_arm_run(
        arm, t_end, t0, dt_out, method, max_deflection_ratio, torque, joint_motion,
        drive_input)
    n_samples = ck.n_samples(n_samples)
    q0 = np.zeros(arm.nq) if q0 is None else ck.vector("q0", q0, arm.nq)
    qd0 = np.zeros(arm.nq) if qd0 is None else ck.vector("qd0", qd0, arm.nq)
    law, torque, drive_input, max_step = arm_inputs(torque, drive_input, method, step,
                                                    max_step, arm.n_joints, t0)
    sim = (_ForwardProblem(arm, torque, drive_input) if joint_motion is None
           else _MixedProblem(arm, joint_motion))

    def build(rec):
        Q, QD, torques, w_in, w_diss = sim.samples(rec.t, rec["x"])
        return spatial_result(arm, rec.t, Q, QD, torques.reshape(rec.t.size, arm.n_joints),
                              w_in, w_diss, n_samples, extra=sim.extra(rec["x"]))

    return run_engine(sim, sim.initial_state(q0, qd0), output_times(t0, t_end, dt_out), method, build,
                      dt_out=dt_out, rtol=rtol, atol=atol, max_step=max_step,
                      max_nfev=max_nfev, step=step, rho_inf=rho_inf, family=family,
                      step_solver=compiled_step(sim, method, torque),
                      error_groups=tree_ga.error_groups(arm.model)
                      if joint_motion is None else None, law=law,
                      max_deflection_ratio=max_deflection_ratio, progress=progress,
                      max_wall_time=max_wall_time, info=dict(form="virtual_power"))


class _ForwardProblem(ForwardArmProblem):
    """The forward problem (:class:`~chrono_flex.integrators.arm_problems.ForwardArmProblem`):
    state x = [q, q_d, W_in, W_diss, drive states...]; joint forces from the ``torque``
    callback and the drives, the terms compiled where they may serve."""

    ratio, ratios = staticmethod(deflection_ratio), staticmethod(deflection_ratios)

    def __init__(self, arm, torque, drive_input):
        super().__init__(arm, torque, drive_input, arm.drive_places())
        self.packed = sk.packed_model(arm.model) if COMPILED else None

    def forcing(self, t, x):
        arm = self.arm
        q, qd, Q, tau, rates = self.loads(t, x)
        m = arm.model
        if self.packed is not None:       # the compiled terms (spatial.kernels)
            M, r = sk.tree_terms(self.packed, q, qd, m.g_vec, m.geometric_stiffening)
            f = Q - r - m.K @ q - m.D @ qd
        else:
            M, f = mdl.forcing(m, q, qd, Q)
        return M, np.concatenate([f, [tau @ qd[arm.joint_index], qd @ m.D @ qd],
                                  *rates])

    def rhs(self, t, x):
        nq = self.nq
        M, F = self.forcing(t, x)
        return np.concatenate([x[nq:2 * nq], np.linalg.solve(M, F[:nq]), F[nq:]])

    def samples(self, t, X):
        """(Q, QD, joint forces, input work, dissipated energy) at the samples."""
        nq, torque = self.nq, self.inputs.torque
        tau = None
        if self.n == 2 * nq + 2 and (torque is None or is_time_only(torque)):
            tau = (np.zeros((t.size, self.arm.n_joints)) if torque is None
                   else call_vector_series(torque, self.arm.n_joints, t))
        if tau is None:           # state by state (faults reported with their time)
            tau = np.array([self.joint_forces(tk, x[:nq], x[nq:2 * nq], x)[0]
                            for tk, x in zip(t, X)])
        return X[:, :nq], X[:, nq:2 * nq], tau, X[:, 2 * nq], X[:, 2 * nq + 1]

    def extra(self, X):
        """The drives' states, named by their joint (body) number as the planar arm's,
        and the controllers'."""
        return self.inputs.extra(X)


class _MixedProblem(MixedArmProblem):
    """Joints prescribed (:class:`~chrono_flex.integrators.arm_problems.MixedArmProblem`):
    state x = [e, e_d, W_in, W_diss], the joint torques returned."""

    ratio = staticmethod(deflection_ratio)

    def forcing_terms(self, q, qd):
        return mdl.forcing(self.arm.model, q, qd, np.zeros(self.arm.nq))

    def extra(self, X):
        return {}


__all__ = ["simulate_reference"]
