"""The reference engines' plumbing, written once: the settings checked, the integrator
chosen and built from ``method``, the run through the shared loop
(:func:`chrono_flex.stepping.run`) and ``Result.info`` filled (:func:`run_engine`).

Used by every reference engine: the planar arm, the spatial arm and the RRRP arm of
:mod:`chrono_flex.formulations.rrrp` (and so with the same default, generalized-alpha with
its step control at :data:`GA_RTOL`). A problem ``sim`` offers ``rhs(t, x)``,
``jac(t, x)``, ``n2`` (the number of second-order coordinates), ``default_atol()``,
``max_deflection_ratio(t, x)`` and, optionally, ``forcing(t, x)`` (the mass-matrix form
that generalized-alpha's Newton prefers).
"""

import time

import numpy as np

from .. import _checks as ck
from .._callbacks import reads_drive_states
from ..errors import BudgetExceeded, ParameterError
from ..stepping import Progress, partial_result, run
from .base import FIXED_STEP
from .explicit import RungeKutta4
from .generalized_alpha import GeneralizedAlpha
from .ivp import EXPLICIT, STIFF, OdeStepper
from .reference_loop import ReferenceStepper, SampledStepper, inputs_in_loop, sampled_torque

#: Every method of the reference engines.
METHODS = STIFF + EXPLICIT + FIXED_STEP

#: The default method of every reference engine.
DEFAULT_METHOD = "generalized_alpha"

#: The default method of the drive's own run (:func:`chrono_flex.drive.simulate_drive`):
#: Radau (:func:`default_method`).
DRIVE_METHOD = "Radau"

#: Default tolerance of generalized-alpha's step control (a second-order method: its
#: local error estimate is meaningful at engineering tolerances, not at Radau's 1e-6).
GA_RTOL = 1e-3


def default_method(problem="arm"):
    """The default integrator of a kind of run, chosen here for all of them.

    * ``"arm"``, every arm's reference engine (planar, spatial, RRRP, a drive on a joint
      of an arm): :data:`DEFAULT_METHOD`, generalized-alpha with its step control at
      :data:`GA_RTOL`: second order, the high modes damped, the Newton solve compiled.
    * ``"drive"``, a drive alone on its output inertia: :data:`DRIVE_METHOD`, Radau at
      rtol 1e-6. Generalized-alpha's step control measures the positions only: at
      rtol 1e-3 it leaves the current (a first-order state) about 2 % and the motor
      speed 1 % of their range off, short of what the drive's callers check; and the
      drive's state [i, alpha1, Omega1, z, alpha2, Omega2] is not in its second-order
      form [q, q_d, first-order states].
    """
    defaults = {"arm": DEFAULT_METHOD, "drive": DRIVE_METHOD}
    return defaults[ck.choice("problem", problem, tuple(defaults))]


def check_times(t_end, t0, dt_out):
    """(t_end, t0, dt_out) checked: t_end > t0, dt_out > 0 (default (t_end - t0) / 500)."""
    t_end, t0 = ck.real("t_end", t_end), ck.real("t0", t0)
    if t_end <= t0:
        raise ParameterError("t_end", t_end, f"must be > t0 = {t0}")
    dt_out = (t_end - t0) / 500 if dt_out is None else ck.positive("dt_out", dt_out)
    return t_end, t0, dt_out


def check_method(method):
    """``method`` if it is one of :data:`METHODS`, else ParameterError naming it."""
    if method not in METHODS:
        raise ParameterError("method", method, f"must be one of {METHODS}")
    return method


def check_arm_run(arm, t_end, t0, dt_out, method, max_deflection_ratio, torque,
                  joint_motion, drive_input):
    """The settings every arm's run checks, in one place: (t_end, t0, dt_out,
    max_deflection_ratio) checked (:func:`check_times`), ``method`` one of
    :data:`METHODS`, the inputs callables, ``joint_motion`` alone (no torque, no drives),
    ``drive_input`` only on an arm with drives. ParameterError names the setting."""
    t_end, t0, dt_out = check_times(t_end, t0, dt_out)
    check_method(method)
    max_deflection_ratio = ck.positive("max_deflection_ratio", max_deflection_ratio)
    for name, fn in (("torque", torque), ("joint_motion", joint_motion),
                     ("drive_input", drive_input)):
        if fn is not None and not callable(fn):
            raise ParameterError(name, fn, "must be callable")
    if joint_motion is not None and (torque is not None or arm.drives):
        raise ParameterError("joint_motion", joint_motion,
                             "excludes `torque` and drives (the joints are prescribed)")
    if drive_input is not None and not arm.drives:
        raise ParameterError("drive_input", drive_input, "is given but the arm has no drives")
    return t_end, t0, dt_out, max_deflection_ratio


def arm_inputs(torque, drive_input, method, step, max_step, n_joints, t0):
    """(law, torque, drive_input, max_step): the inputs ready for the loop
    (:func:`~.reference_loop.inputs_in_loop`), ``law`` a sampled torque whose instants
    the steps land on (:class:`~.reference_loop.SampledTorque`, ``torque`` then its
    held value) or None."""
    torque, drive_input, max_step = inputs_in_loop(torque, drive_input, method, step,
                                                   max_step)
    law, torque = sampled_torque(torque, method, step, n_joints, t0)
    return law, torque, drive_input, max_step


def build_integrator(sim, t0, t_end, x0, dt_out, method, rtol=None, atol=None,
                     max_step=np.inf, max_nfev=None, step=None, rho_inf=0.8,
                     family="chung-hulbert", step_solver=None, error_groups=None):
    """(integrator, settings) for ``sim`` from x0 at t0: generalized-alpha (adaptive, or
    with the fixed ``step``; ``step_solver`` its compiled Newton solve or None,
    ``error_groups`` the position groups of its step control or None), RK4 (a
    fixed ``step``), or one of scipy's solvers (:class:`~.ivp.OdeStepper`). ``settings``
    are the choices made, for ``Result.info``. ParameterError for settings the method
    would misread: an ``atol`` or no ``rtol`` check for generalized-alpha, a ``step``
    for scipy's solvers."""
    check_method(method)
    if method in FIXED_STEP:
        ck.solver_settings(method, GA_RTOL if rtol is None else rtol, 0.0, max_step,
                           max_nfev, x0.size, FIXED_STEP)
        if atol is not None:
            raise ParameterError("atol", atol, "is for scipy's solvers "
                                 f"({', '.join(STIFF + EXPLICIT)}); method {method!r} "
                                 "controls its error with rtol alone "
                                 "(name method='Radau' for a run to an absolute tolerance)")
    if atol is None:
        atol = sim.default_atol()
    if max_nfev is None and method in EXPLICIT:
        max_nfev = int(2e7 / x0.size)
    if rtol is None:
        rtol = GA_RTOL if method in FIXED_STEP else 1e-6
    forcing = getattr(sim, "forcing", None)
    if method == "rk4":
        if step is None:
            raise ParameterError("step", step, "must be given for method 'rk4' (a fixed step, s)")
        return RungeKutta4(sim.rhs, t0, x0, step, max_nfev=max_nfev), dict(step=step)
    if method in FIXED_STEP:
        if step is None:       # step control on the local error, to rtol
            first = min(max_step, dt_out, t_end - t0) / 10.0
            ode = GeneralizedAlpha(sim.rhs, sim.jac, t0, x0, sim.n2, first, rho_inf=rho_inf,
                                   family=family, max_nfev=max_nfev, error_rtol=rtol,
                                   max_step=max_step, forcing=forcing,
                                   step_solver=step_solver, error_groups=error_groups)
            settings = dict(step="adaptive", rtol=rtol, rho_inf=rho_inf, family=family)
        else:
            ode = GeneralizedAlpha(sim.rhs, sim.jac, t0, x0, sim.n2, step, rho_inf=rho_inf,
                                   family=family, max_nfev=max_nfev, forcing=forcing,
                                   step_solver=step_solver)
            settings = dict(step=step, rho_inf=rho_inf, family=family)
        settings["newton"] = "compiled" if step_solver is not None else "python"
        return ode, settings
    if step is not None:
        raise ParameterError("step", step, f"is for method 'generalized_alpha'; "
                             f"{method} chooses its own steps (max_step bounds them)")
    ode = OdeStepper(sim.rhs, t0, x0, t_end, method=method, rtol=rtol, atol=atol,
                     jac=sim.jac, max_nfev=max_nfev, max_step=max_step)
    return ode, dict(rtol=rtol, atol=float(atol) if np.ndim(atol) == 0 else "per state")


def run_engine(sim, x0, t_out, method, build, *, dt_out=None, rtol=None, atol=None,
               max_step=np.inf, max_nfev=None, step=None, rho_inf=0.8,
               family="chung-hulbert", step_solver=None, error_groups=None, law=None,
               stepper=None, max_deflection_ratio=0.5, progress=None, max_wall_time=None,
               engine="reference", label="reference", info=None):
    """Run the problem ``sim`` from the state ``x0`` through the output times ``t_out``:
    the integrator ``method`` built by :func:`build_integrator` (its settings as there;
    ``dt_out`` the output step it starts from, default ``t_out[1] - t_out[0]``), stepped
    by :func:`chrono_flex.stepping.run` (``max_deflection_ratio``, ``progress``: a
    :class:`~chrono_flex.stepping.Progress` or True/False/None, labelled ``label``,
    ``max_wall_time``), the result ``build(recording)`` (a
    :class:`~chrono_flex.result.Result` from the loop's recording, ``rec.t`` and
    ``rec["x"]``).

    ``law``: a sampled torque (:func:`arm_inputs`), whose instants the steps land on
    (:class:`~.reference_loop.SampledStepper`) and whose held values are put in
    ``sim.inputs.torque`` before ``build``; ``stepper``: the loop's stepper class
    (default :class:`~.reference_loop.ReferenceStepper`), called (sim, integrator).

    ``Result.info`` gets, in every engine: ``engine``, ``method``, the engine's own
    ``info``, the integrator's settings (step, rtol, atol, rho_inf, family, newton, ...),
    the sample period, delay and count of a sampled torque, the counters (nfev, ...),
    ``wall_time`` (s) and, with a compiled Newton solve (``step_solver``),
    ``newton_matrix``. A spent budget raises :class:`~chrono_flex.errors.BudgetExceeded`
    with the result of the outputs reached in its ``partial``."""
    t0, t_end = float(t_out[0]), float(t_out[-1])
    if dt_out is None:
        dt_out = float(t_out[1] - t_out[0]) if len(t_out) > 1 else t_end - t0
    t_wall = time.perf_counter()
    ode, settings = build_integrator(sim, t0, t_end, x0, dt_out, method, rtol, atol,
                                     max_step, max_nfev, step, rho_inf, family, step_solver,
                                     error_groups=error_groups)
    if step_solver is not None and step_solver.reads_state:
        settings["torque_evaluation"] = "predicted"
    if law is not None and reads_drive_states(law.law):
        law.drive_states = slice(sim.drives.start, sim.drives.stop)
    if stepper is not None:
        loop_stepper = stepper(sim, ode)
    else:
        loop_stepper = ReferenceStepper(sim, ode) if law is None else \
            SampledStepper(sim, ode, law)
    if not isinstance(progress, Progress):
        progress = Progress(t_end, label, progress, t0=t0)

    def result(rec):
        if law is not None:
            sim.inputs.torque = law.recorded      # the held values, as they acted
            settings.update(sample_period=law.period, sample_delay=law.delay,
                            n_samples_taken=law.n_samples)
        res = build(rec)
        res.info.update(engine=engine, method=method, **(info or {}), **settings,
                        **ode.counters(), wall_time=round(time.perf_counter() - t_wall, 4))
        if step_solver is not None:
            res.info["newton_matrix"] = step_solver.matrix
        return res

    try:
        rec = run(loop_stepper, t_out, max_deflection_ratio=max_deflection_ratio,
                  progress=progress, max_wall_time=max_wall_time)
    except BudgetExceeded as exc:        # what was computed, marked partial
        exc.partial = partial_result(exc, result)
        raise
    return result(rec)


__all__ = ["DEFAULT_METHOD", "DRIVE_METHOD", "FIXED_STEP", "GA_RTOL", "METHODS", "arm_inputs",
           "build_integrator", "check_arm_run", "check_method", "check_times",
           "default_method", "run_engine"]
