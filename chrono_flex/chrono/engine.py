"""Run a :class:`chrono_flex.PlanarArm` in Chrono with the custom element ("chrono" engine).

:func:`simulate_chrono` builds a ``ChSystemNSC`` with the arm on the ground (its plane
from ``arm.plane``, gravity ``arm.gravity`` along -``plane.y_axis``), steps it at a fixed
step with an implicit timestepper through the shared stepping loop
(:mod:`chrono_flex.stepping`), and returns the same :class:`chrono_flex.Result` as the
reference engine (energies and centrelines from the same post-processing,
:func:`chrono_flex.planar.post.arm_result`), ``info["engine"] = "chrono"``.
"""

import time

import numpy as np

from .. import _checks as ck
from .._aliases import joint_and_elastic
from .._callbacks import (call_vector, check_period, loop_input, reads_drive_states,
                          takes_state)
from ..errors import BudgetExceeded, ParameterError, SimulationError
from ..planar.post import arm_result, check_n_samples
from ..stepping import (Progress, Stepper, fixed_step_output_times, fixed_substep,
                        partial_result, run)
from ._detect import require_pychrono
from ._quiet import quiet_swig
from .drive import ScaledDrive
from .element import FlexibleLink
from .system import MAX_HALVINGS, TIMESTEPPERS, configure_system, step as step_system


def simulate_chrono(arm, t_end, joint_angles0=None, joint_rates0=None, elastic0=None,
                    elastic_rates0=None, torque=None, joint_motion=None, drive_input=None,
                    dt_out=None, step=1e-3, timestepper="hht", alpha=None, jacobian=None,
                    max_deflection_ratio=0.5, n_samples=21, progress=None,
                    drive_scales=None, on_output=None, max_halvings=None, max_wall_time=None,
                    **unsupported):
    """Simulate ``arm`` in Chrono with the custom element; returns a :class:`Result`.

    Arguments as :meth:`PlanarArm.simulate` where they share a name; besides:

    Args:
        step: fixed time step, s (the largest one: steps are shortened where needed so
            that every output time is hit).
        dt_out: output interval, s, at least ``step`` (default t_end/500 or ``step``,
            whichever is larger).
        timestepper: "hht" (HHT, second order; ``alpha`` in [-1/3, 0] damps high
            frequencies, 0 is the trapezoidal rule) or "euler" (implicit Euler, first
            order, dissipative).
        alpha: HHT parameter; default 0 with torque inputs and -0.1 with ``joint_motion``:
            the motors' reactions (the joint torques) of a prescribed motion oscillate
            from step to step, undamped and growing, with alpha = 0.
        jacobian: "auto", "step", "iteration" or a number of steps N (see
            :class:`FlexibleLink`); "auto" keeps the Jacobian across steps while Newton
            converges as usual (with 16 elements about 3x faster than "step", the same
            result to 1e-11). Default "auto", and "iteration" for an arm with drives:
            the drive's friction and backlash change the Jacobian within a step, so
            Newton with the step's first Jacobian does not converge at the output's breakaway.
        max_halvings: a step whose Newton iteration fails is retried with half the step,
            down to ``step`` / 2**max_halvings (:func:`configure_system`; default 4 for
            an arm with drives and "hht", else 0: no retry). With drives Newton can cycle
            between the two sides of a kink of the friction law (|v| at a speed reversal
            of the output) at 1 ms steps, and converges with half the step there.
            ``info["retries"]`` counts the failed attempts.
        max_deflection_ratio: stop with SimulationError when a tip deflection exceeds
            this fraction of its link length (as the reference engine).
        drive_input: callable(t) or callable(t, q, qd) -> (n_drives,) inputs of ``arm.drives`` in the order of
            their joint numbers (as the reference engine), or None for zero. Each drive
            joins the element through :meth:`FlexibleLink.add_joint_actuator`, its states
            scaled by :class:`~chrono_flex.chrono.drive.ScaledDrive`; the result holds
            them, unscaled, in ``extra["drive<j+1>_states"]`` (nt, n_states) as the
            reference engine does.
        drive_scales: {joint: scale factors} overriding
            :func:`~chrono_flex.chrono.drive.drive_scales` for some drives.
        max_wall_time: budget of wall-clock seconds (default none); SimulationError
            when spent.
        on_output: callable(system, t) called at t = 0 and at every output time, after
            the step (e.g. :class:`chrono_flex.chrono.blender.BlenderExporter`).

    Reference-engine options without a meaning here (``form``, ``method``, ``rtol``,
    ``atol``, ``t0``, ...) raise ParameterError naming them.
    """
    joint_angles0, joint_rates0, elastic0, elastic_rates0 = joint_and_elastic(
        arm, unsupported, joint_angles0, joint_rates0, elastic0, elastic_rates0)
    if unsupported:
        names = ", ".join(sorted(unsupported))
        raise ParameterError(names, unsupported,
                             "is not supported by the chrono engine (it takes: step, "
                             "timestepper, alpha, jacobian, max_halvings, dt_out and the "
                             "initial state, torque, joint_motion, drive_input, "
                             "drive_scales)")
    chrono = require_pychrono()
    t_end = ck.positive("t_end", t_end)
    step = ck.positive("step", step)
    if step > t_end:
        raise ParameterError("step", step, f"must not exceed t_end = {t_end}")
    for name, fn in (("torque", torque), ("drive_input", drive_input)):
        check_period(name, fn, step)
    if timestepper not in TIMESTEPPERS:
        raise ParameterError("timestepper", timestepper, f"must be one of {list(TIMESTEPPERS)}")
    max_deflection_ratio = ck.positive("max_deflection_ratio", max_deflection_ratio)
    if jacobian is None:
        jacobian = "iteration" if arm.drives else "auto"
    for name, fn in (("torque", torque), ("joint_motion", joint_motion),
                     ("drive_input", drive_input)):
        if fn is not None and not callable(fn):
            raise ParameterError(name, fn, "must be callable")
    if joint_motion is not None and arm.drives:
        raise ParameterError("joint_motion", joint_motion,
                             "excludes drives (the joints are prescribed)")
    if drive_input is not None and not arm.drives:
        raise ParameterError("drive_input", drive_input, "is given but the arm has no drives")
    drive_joints = sorted(arm.drives)
    inputs = _DriveInputs(drive_input, len(drive_joints))
    drive_scales = dict(drive_scales or {})
    for j in drive_scales:
        if j not in arm.drives:
            raise ParameterError("drive_scales", j, f"keys must be drive joints {drive_joints}")
    if alpha is None:
        alpha = 0.0 if joint_motion is None else -0.1
    alpha = ck.real("alpha", alpha)
    if not -1.0 / 3.0 <= alpha <= 0.0:
        raise ParameterError("alpha", alpha, "must be in [-1/3, 0]")
    if dt_out is not None:
        dt_out = ck.positive("dt_out", dt_out)
    t_out = fixed_step_output_times(t_end, dt_out, step)
    check_n_samples(n_samples)

    system = chrono.ChSystemNSC()
    g = -arm.gravity * np.asarray(arm.plane.y_axis, dtype=float)
    system.SetGravitationalAcceleration(chrono.ChVector3d(*g))
    if max_halvings is None:
        max_halvings = MAX_HALVINGS if timestepper == "hht" and arm.drives else 0
    ts = configure_system(system, timestepper, alpha=alpha, max_halvings=max_halvings)
    link = FlexibleLink(system, arm, torque=torque, joint_motion=joint_motion,
                        joint_angles0=joint_angles0, joint_rates0=joint_rates0,
                        elastic0=elastic0, elastic_rates0=elastic_rates0, jacobian=jacobian)
    scaled = [ScaledDrive(arm.drives[j], drive_scales.get(j)) for j in drive_joints]
    for k, (j, drive) in enumerate(zip(drive_joints, scaled)):
        link.add_joint_actuator(j, drive, inputs.component(k))
    stepper = ElementStepper(system, link, arm, step, scaled,
                             advice=dict(max_halvings=max_halvings, drives=arm.drives,
                                         jacobian=jacobian))
    t_wall = time.perf_counter()
    def result(rec):
        wall = time.perf_counter() - t_wall
        extra = {f"drive{j + 1}_states": rec[f"drive{j + 1}_states"] for j in drive_joints}
        info = dict(engine="chrono", timestepper=timestepper, alpha=alpha, step=step,
                    jacobian=jacobian, n_steps=stepper.n_steps,
                    compute_q_calls=link.n_compute_q, jacobians=link.n_jacobians,
                    max_halvings=max_halvings,
                    retries=link.n_retries,
                    newton_iterations=int(ts.GetNumIterations()), wall_time=round(wall, 4))
        return arm_result(arm, rec.t, rec["q"], rec["qd"], rec["tau"], rec["work_in"],
                          rec["work_diss"], n_samples, extra, info)

    try:
        with quiet_swig():
            rec = run(stepper, t_out, max_deflection_ratio=max_deflection_ratio,
                      on_output=on_output, progress=Progress(t_end, "chrono", progress),
                      max_wall_time=max_wall_time)
    except BudgetExceeded as exc:        # what was computed, marked partial
        exc.partial = partial_result(exc, result)
        raise
    return result(rec)


class ElementStepper(Stepper):
    """The shared loop's view of a system holding one :class:`FlexibleLink` (and its
    drives): fixed steps that land on the output times."""

    label = "chrono"

    def __init__(self, system, link, arm, step, scaled_drives, advice):
        self.system_, self.link, self.arm, self.step = system, link, arm, step
        self.scaled, self.advice = scaled_drives, advice
        self.lengths = np.array([lk.length for lk in arm.links])
        self.ji, self.D = arm.joint_index, arm.model.D
        self.t = system.GetChTime()
        self.n_steps = 0

    def advance(self, t_target):
        h = fixed_substep(self.t, t_target, self.step)
        try:
            step_system(self.system_, h, sync=False)
        except RuntimeError as exc:
            if isinstance(exc, SimulationError):
                raise
            raise SimulationError(_step_failure(exc, self.t, h, **self.advice),
                                  time=self.t + h) from exc
        self.n_steps += 1
        self.t = self.system_.GetChTime()
        return self.t

    def deflection_ratio(self):
        q, qd = self.link.q(), self.link.qd()
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(qd))):
            return float("nan")
        return float(np.max(np.abs(self.link.tip_deflections(q)) / self.lengths))

    def powers(self):
        q, qd = self.link.q(), self.link.qd()
        tau = self.link.joint_torques(q, qd)
        return float(tau @ qd[self.ji]), float(qd @ self.D @ qd)

    def record(self, t):
        q, qd = self.link.q(), self.link.qd()
        out = dict(q=q, qd=qd, tau=self.link.joint_torques(q, qd))
        for j, d, y in zip(sorted(self.arm.drives), self.scaled, self.link.actuator_states()):
            out[f"drive{j + 1}_states"] = d.unscale(y)
        return out

    def system(self):
        return self.system_


def _step_failure(exc, t_start, h, max_halvings, drives, jacobian):
    """The message of a step whose Newton iteration failed, with advice that fits."""
    msg = f"Chrono could not take the step from t = {t_start:.9g} s to {t_start + h:.9g} s ({exc})"
    if max_halvings:
        msg += f", not even with {max_halvings} halvings of the step"
    if drives:
        # jacobian='step' is worse with drives (friction and backlash change the Jacobian
        # within a step): Newton then fails at the output's breakaway
        advice = ("a smaller step, or more halvings (max_halvings): Newton cycles across the "
                  "kinks of the drive's friction and backlash")
        if jacobian != "iteration":
            advice += ", and jacobian='iteration' (the drive's Jacobian changes within a step)"
    elif jacobian == "iteration":
        advice = "a smaller step"
    else:
        advice = "a smaller step or jacobian='iteration' (full Newton)"
    return f"{msg}; try {advice}"


class _DriveInputs:
    """``drive_input(t)`` -> (n,) shared by the drives: evaluated once per time value and
    checked, each drive reading its component (:meth:`component`). A controller whose
    sensors read the drives' motor side (:func:`~chrono_flex._callbacks.reads_drive_states`)
    is called ``drive_input(t, q, qd, z)``, z the drives' states in the order of their
    joints (unscaled), as in the reference engines."""

    def __init__(self, fn, n, nq=0):
        self.reads_state = fn is not None and takes_state("drive_input", fn, 2)
        self.reads_drive_states = reads_drive_states(fn)
        self.fn = loop_input("drive_input", fn)     # reset; held or stepped (controllers)
        self.n = n
        self._t, self._u = None, np.zeros(n)
        if fn is not None and n and not self.reads_state:
            self._u = self.values(0.0)      # a wrong shape is a ParameterError before the run

    def values(self, t, q=None, qd=None, z=None):
        """u at t: a function of time evaluated once per time value; one of the state
        (drive_input(t, q, qd), the convention of the torque; with the drives' states z
        after them for a controller that reads them) at every call."""
        if self.fn is None:
            return self._u
        if self.reads_drive_states:
            return call_vector("drive_input", self.fn, self.n, t, q, qd, z)
        if self.reads_state:
            return call_vector("drive_input", self.fn, self.n, t, q, qd)
        if t != self._t:
            self._t, self._u = t, call_vector("drive_input", self.fn, self.n, t)
        return self._u

    def component(self, k):
        if self.reads_drive_states:
            return _DriveStatesInput(self, k)
        return lambda t, q, qd: float(self.values(t, q, qd)[k])


class _DriveStatesInput:
    """Drive k's component of a :class:`_DriveInputs` that reads the drives' states:
    called by the element as ``(t, q, qd, z)``."""

    reads_drive_states = True

    def __init__(self, inputs, k):
        self.inputs, self.k = inputs, k

    def __call__(self, t, q, qd, z):
        return float(self.inputs.values(t, q, qd, z)[self.k])


__all__ = ["simulate_chrono"]
