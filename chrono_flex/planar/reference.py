"""The reference engine: the assembled Lagrange equations of a PlanarArm, integrated by
generalized-alpha (the default) or scipy's solvers through the reference engines' one
plumbing (:func:`chrono_flex.integrators.choice.run_engine`: settings, integrator, the
shared stepping loop, ``Result.info``).

Two problems are integrated:

* forward dynamics, state x = [q, q_d, W_in, W_diss, drive states..., controller
  states...]: M(q) q_dd = Q - h + Q_g - K q - D q_d (docs/planar-link.md section 4), the
  joint forces from the torque callback and the drives (docs/drive.md), the states of
  continuous controllers integrated with the arm's (docs/control.md §1.2);
* the mixed problem, joints prescribed: state x = [e, e_d, W_in, W_diss], elastic
  coordinates integrated and joint torques returned.

The input work and the dissipated energy are integrated as states, so the energy
balance is checked to the integrator's tolerance.
"""

import numpy as np

from .. import _checks as ck
from .._callbacks import call_vector_series
from .._interrupts import watched
from ..integrators.choice import FIXED_STEP, GA_RTOL, arm_inputs, check_arm_run, run_engine
from ..integrators.arm_problems import ForwardArmProblem, MixedArmProblem
from ..integrators.reference_loop import (ReferenceStepper, SampledStepper, SampledTorque,
                                          inputs_in_loop, sampled_torque)
from ..stepping import output_times
from .. import inputs
from . import chain_ga
from . import equations as mdl
from .post import arm_result, check_n_samples, deflection_ratio, deflection_ratios

FORMS = ("virtual_power", "lagrange", "without_mdot")

#: Whether generalized-alpha may solve its steps with the compiled Newton iteration of
#: :mod:`chrono_flex.planar.chain_ga` where it applies (:func:`compiled_step`); False
#: keeps the Python iteration everywhere (tests compare the two).
COMPILED_STEP = True


@watched
def simulate_reference(arm, t_end, joint_angles0=None, joint_rates0=None, elastic0=None,
                       elastic_rates0=None, torque=None, joint_motion=None, drive_input=None,
                       dt_out=None, t0=0.0, method="generalized_alpha", rtol=None,
                       atol=None, form="virtual_power", max_step=np.inf, max_nfev=None,
                       max_deflection_ratio=0.5, n_samples=21, progress=None,
                       max_wall_time=None, step=None, rho_inf=0.8, family="chung-hulbert",
                       exact_callbacks=False):
    """The reference engine: :meth:`PlanarArm.simulate <chrono_flex.planar.arm.PlanarArm.simulate>`
    (same arguments, after ``arm``); returns a :class:`~chrono_flex.result.Result`."""

    t_end, t0, dt_out, max_deflection_ratio = check_arm_run(
        arm, t_end, t0, dt_out, method, max_deflection_ratio, torque, joint_motion,
        drive_input)
    ck.choice("form", form, FORMS)
    law, torque, drive_input, max_step = arm_inputs(torque, drive_input, method, step,
                                                    max_step, arm.n_joints, t0)
    check_n_samples(n_samples)
    nj, ne = arm.n_joints, arm.elastic_index.size
    q0, qd0 = np.zeros(arm.nq), np.zeros(arm.nq)
    for name, value, size, index, out in (
            ("joint_angles0", joint_angles0, nj, arm.joint_index, q0),
            ("joint_rates0", joint_rates0, nj, arm.joint_index, qd0),
            ("elastic0", elastic0, ne, arm.elastic_index, q0),
            ("elastic_rates0", elastic_rates0, ne, arm.elastic_index, qd0)):
        if value is not None:
            out[index] = ck.vector(name, value, size)
    if joint_motion is not None:
        sim = _MixedProblem(arm, joint_motion, form)
    else:
        sim = _ForwardProblem(arm, torque, drive_input, form)
    solver = (compiled_step(sim, torque, exact_callbacks) if method == "generalized_alpha"
              else None)
    return run_engine(sim, sim.initial_state(q0, qd0), output_times(t0, t_end, dt_out),
                      method, lambda rec: sim.result(rec.t, rec["x"], n_samples),
                      dt_out=dt_out, rtol=rtol, atol=atol, max_step=max_step,
                      max_nfev=max_nfev, step=step, rho_inf=rho_inf, family=family,
                      step_solver=solver, error_groups=sim.error_groups(), law=law,
                      max_deflection_ratio=max_deflection_ratio, progress=progress,
                      max_wall_time=max_wall_time, info=dict(form=form))


def compiled_step(sim, torque, exact_callbacks=False):
    """The compiled Newton solve of generalized-alpha's steps
    (:class:`chrono_flex.planar.chain_ga.ChainStep`) for ``sim``, or None where it does
    not apply: numba absent or not the backend, :data:`COMPILED_STEP` off, a mixed
    problem, drives or controllers with states (their states and rates are Python),
    another form than
    "virtual_power", or (``exact_callbacks``) a torque callback not declared a function
    of time alone. A torque declared so (:func:`chrono_flex.inputs.is_time_only`: the
    input profiles, callables wrapped by :func:`chrono_flex.inputs.time_only`) is
    evaluated at each step's end; any other callable, which may read the state, once
    per step at the state predicted for the step's end and held through the compiled
    iteration (:meth:`ChainStep.held_torque`: the method stays second order), unless
    ``exact_callbacks`` asks for the Python iteration, which evaluates it at every
    iterate."""
    if not (COMPILED_STEP and chain_ga.available() and isinstance(sim, _ForwardProblem)
            and not sim.drive_joints and not sim.controllers and sim.form == "virtual_power"):
        return None
    reads_state = torque is not None and not inputs.is_time_only(torque)
    if reads_state and exact_callbacks:
        return None
    return chain_ga.ChainStep(sim.arm.model, torque, reads_state=reads_state)


class _ForwardProblem(ForwardArmProblem):
    """The forward problem (:class:`~chrono_flex.integrators.arm_problems.ForwardArmProblem`):
    state x = [q, q_d, W_in, W_diss, drive states..., controller states...], the
    planar arm's equations in the ``form`` asked."""

    ratio, ratios = staticmethod(deflection_ratio), staticmethod(deflection_ratios)

    def __init__(self, arm, torque, drive_input, form):
        super().__init__(arm, torque, drive_input,
                         {j: (j, arm.joint_index[j]) for j in arm.drives})
        self.drive_input, self.form = drive_input, form
        self.drive_joints, self.controllers = self.drives.keys, self.inputs.controllers

    @property
    def torque(self):
        return self.inputs.torque

    @torque.setter
    def torque(self, fn):           # the sampled torque's record, after the run
        self.inputs.torque = fn

    def error_groups(self):
        """The position groups of the step control (:func:`chain_ga.error_groups`)."""
        return chain_ga.error_groups(self.arm.model)

    def rhs(self, t, x):
        nq, arm = self.nq, self.arm
        q, qd, Q, tau, rates = self.loads(t, x)
        dx = np.empty(self.n)
        dx[:nq] = qd
        if self.form == "virtual_power":
            dx[nq:2 * nq] = mdl.accelerations(arm.model, q, qd, Q)
        else:
            M, f = arm._forcing(q, qd, Q, self.form)
            dx[nq:2 * nq] = np.linalg.solve(M, f)
        dx[2 * nq] = tau @ qd[arm.joint_index]
        dx[2 * nq + 1] = qd @ arm.model.D @ qd
        for s, r in zip(self.inputs.slices, rates):
            dx[s] = r
        return dx

    def forcing(self, t, x):
        """(M, [f, zd]): the equations in mass-matrix form for generalized-alpha's Newton
        (M q_dd = f; zd the rates of the work integrals and the drive states)."""
        nq, arm = self.nq, self.arm
        q, qd, Q, tau, rates = self.loads(t, x)
        M, f = arm._forcing(q, qd, Q, self.form)
        F = np.empty(self.n - nq)
        F[:nq] = f
        F[nq] = tau @ qd[arm.joint_index]
        F[nq + 1] = qd @ arm.model.D @ qd
        for s, r in zip(self.inputs.slices, rates):
            F[s.start - nq:s.stop - nq] = r
        return M, F

    def _torques(self, t, X):
        """The joint forces at the samples (t, X): a time-only torque without drives in
        one pass (:func:`chrono_flex._callbacks.call_vector_series`), else state by state."""
        nq = self.nq
        if self.torque is None and not self.drive_joints:
            return np.zeros((len(t), self.arm.n_joints))
        if not self.drive_joints and not self.controllers and inputs.is_time_only(self.torque):
            out = call_vector_series(self.torque, self.arm.n_joints, t)
            if out is not None:
                return out
        return np.array([self.joint_forces(tk, x[:nq], x[nq:2 * nq], x)[0]
                         for tk, x in zip(t, X)])

    def result(self, t, X, n_samples):
        nq, arm = self.nq, self.arm
        Q, QD = X[:, :nq], X[:, nq:2 * nq]
        torques = self._torques(t, X)
        return arm_result(arm, t, Q, QD, torques, X[:, 2 * nq], X[:, 2 * nq + 1], n_samples,
                          self.inputs.extra(X))


class _MixedProblem(MixedArmProblem):
    """Joints prescribed (:class:`~chrono_flex.integrators.arm_problems.MixedArmProblem`):
    state x = [e, e_d, W_in, W_diss], the planar arm's forcing in the ``form`` asked,
    the joint torques returned."""

    ratio = staticmethod(deflection_ratio)

    def __init__(self, arm, motion, form):
        super().__init__(arm, motion)
        self.form = form

    def forcing_terms(self, q, qd):
        return self.arm._forcing(q, qd, np.zeros(self.arm.nq), self.form)

    def initial_state(self, q0, qd0):
        self._state(0.0, np.concatenate([q0[self.b], qd0[self.b]]))   # checks the motion
        return super().initial_state(q0, qd0)

    def error_groups(self):
        """The elastic coordinates' groups of the step control, one per link."""
        groups = chain_ga.error_groups(self.arm.model)[self.b]
        return np.unique(groups, return_inverse=True)[1]

    def result(self, t, X, n_samples):
        return arm_result(self.arm, t, *self.samples(t, X), n_samples)


__all__ = ["FIXED_STEP", "FORMS", "GA_RTOL", "ReferenceStepper", "SampledStepper",
           "SampledTorque", "inputs_in_loop", "sampled_torque", "simulate_reference"]
