"""The reference engines' integrator choice, written once: the settings checked, the
integrator built from ``method`` and its settings recorded for ``Result.info``.

Used by the planar and the spatial reference engines (and so with the same default,
generalized-alpha with its step control at :data:`GA_RTOL`). A problem ``sim`` offers
``rhs(t, x)``, ``jac(t, x)``, ``n2`` (the number of second-order coordinates),
``default_atol()`` and, optionally, ``forcing(t, x)`` (the mass-matrix form that
generalized-alpha's Newton prefers).
"""

import numpy as np

from .. import _checks as ck
from ..errors import ParameterError
from .explicit import RungeKutta4
from .generalized_alpha import GeneralizedAlpha
from .ivp import EXPLICIT, STIFF, OdeStepper

#: Methods of the reference engines with a fixed step or their own step control (the
#: others are scipy's adaptive solvers).
FIXED_STEP = ("generalized_alpha", "rk4")

#: Every method of the reference engines.
METHODS = STIFF + EXPLICIT + FIXED_STEP

#: The default method of every reference engine.
DEFAULT_METHOD = "generalized_alpha"

#: Default tolerance of generalized-alpha's step control (a second-order method: its
#: local error estimate is meaningful at engineering tolerances, not at Radau's 1e-6).
GA_RTOL = 1e-3


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
    return ode, dict(rtol=rtol)


__all__ = ["DEFAULT_METHOD", "FIXED_STEP", "GA_RTOL", "METHODS", "build_integrator",
           "check_method", "check_times"]
