"""Integration of first-order systems dx/dt = rhs(t, x) with numerical-trouble detection.

Stiff implicit methods are the default ([K] found explicit Runge-Kutta overflowing for
two flexible links; docs/planar-link.md §5). Explicit methods stay available for comparison,
guarded by an evaluation budget so that a stiff run fails with a clear message instead of
running for hours.

Every run on scipy's solvers goes through here, with the same checks
(:class:`CheckedRhs`: the budget, a non-finite derivative reported with its time and the
callback's name; the settings by :func:`chrono_flex._checks.solver_settings`): a step at
a time for the shared loop (:class:`OdeStepper`: the arms' reference engines and
:func:`chrono_flex.drive.simulate_drive`), or a whole solve_ivp run (:func:`integrate`:
the comparison models of :mod:`chrono_flex.formulations`).
"""

import time

import numpy as np
from scipy.integrate import BDF, DOP853, LSODA, RK23, RK45, Radau, solve_ivp

from .. import _checks as ck
from ..errors import BudgetExceeded, SimulationError

STIFF = ("Radau", "BDF", "LSODA")
EXPLICIT = ("RK45", "RK23", "DOP853")
_SOLVERS = {"Radau": Radau, "BDF": BDF, "LSODA": LSODA, "RK45": RK45, "RK23": RK23,
            "DOP853": DOP853}


class CheckedRhs:
    """``rhs(t, x)`` as every scipy run calls it, checked once for all of them: each
    call counted (``nfev``) within a budget of ``max_nfev`` evaluations (None: none),
    whose end raises :class:`~chrono_flex.errors.BudgetExceeded` naming ``max_nfev``
    and ``method`` with the time; a derivative that is not finite raises
    SimulationError naming ``name`` (the callback or model), the first components and
    the time. ``progress`` (a :class:`~chrono_flex.stepping.Progress` or None) is told
    each time."""

    def __init__(self, rhs, method, max_nfev=None, name="the right-hand side",
                 progress=None):
        self.rhs, self.method, self.max_nfev = rhs, method, max_nfev
        self.name, self.progress = name, progress
        self.nfev = 0
        self.t_last = None

    def budget_error(self):
        """The BudgetExceeded of a spent ``max_nfev``, at the last time evaluated."""
        hint = (" (the model is too stiff for an explicit method; use Radau or BDF)"
                if self.method in EXPLICIT else " (raise max_nfev, or loosen rtol/atol)")
        return BudgetExceeded(f"{self.method} used up its budget of max_nfev = "
                              f"{self.max_nfev} right-hand-side evaluations{hint}",
                              self.t_last)

    def __call__(self, t, x):
        self.nfev += 1
        self.t_last = t
        if self.max_nfev is not None and self.nfev > self.max_nfev:
            raise self.budget_error()
        if self.progress is not None:
            self.progress(t)
        dx = self.rhs(t, x)
        if not np.all(np.isfinite(dx)):
            bad = np.flatnonzero(~np.isfinite(dx))[:5]
            raise SimulationError(f"non-finite derivative from {self.name} in state "
                                  f"components {bad.tolist()} (divergence, or a step the "
                                  "model cannot take)", t)
        return dx


def fd_jacobian(rhs, t, x, f0, columns, exact_rows=None):
    """Forward-difference Jacobian of ``rhs`` over ``columns`` (others zero).

    ``exact_rows``: (rows, cols) of an identity block known exactly (dq/dt = q_dot), kept
    instead of differenced. Step sqrt(eps) * max(1, |x_j|) (Dennis & Schnabel, 5.4).
    """
    n = x.size
    Jm = np.zeros((n, n))
    for j in columns:
        h = 1.49e-8 * max(1.0, abs(x[j]))
        xp = x.copy()
        xp[j] += h
        Jm[:, j] = (rhs(t, xp) - f0) / h
    if exact_rows is not None:
        rows, cols = exact_rows
        Jm[rows, :] = 0.0
        Jm[rows, cols] = 1.0
    return Jm


def integrate(rhs, t_span, x0, t_eval, method="Radau", rtol=1e-6, atol=1e-9, jac=None,
              events=None, max_nfev=None, max_step=np.inf, progress=None,
              name="the right-hand side"):
    """solve_ivp with the checks of every scipy run (:class:`CheckedRhs`: the budget,
    a non-finite derivative reported naming ``name``), errors turned into
    :class:`SimulationError` and checked output.

    Returns the scipy solution object plus ``sol.wall_time``. Raises ParameterError for
    settings scipy would reject or misread (:func:`chrono_flex._checks.solver_settings`),
    SimulationError on solver failure, on a terminal event (the event's message is
    given by ``events`` as (function, message) pairs), on non-finite states, or when
    ``max_nfev`` right-hand side evaluations are used up before ``t_end`` (an explicit
    method on a stiff model).
    """
    ck.solver_settings(method, rtol, atol, max_step, max_nfev, np.size(x0), STIFF + EXPLICIT)
    f = CheckedRhs(rhs, method, max_nfev, name, progress)
    ev_funcs, messages = [], []
    for fn, msg in events or ():
        fn.terminal = True
        ev_funcs.append(fn)
        messages.append(msg)
    kw = {}
    if jac is not None and method in STIFF:
        kw["jac"] = jac
    t0 = time.perf_counter()
    try:
        sol = solve_ivp(f, t_span, x0, method=method, t_eval=t_eval, rtol=rtol, atol=atol,
                        events=ev_funcs or None, max_step=max_step, **kw)
    finally:
        if progress is not None:
            progress.close()
    sol.wall_time = time.perf_counter() - t0
    if sol.status == -1:
        raise SimulationError(f"{method} failed: {sol.message}",
                              f.t_last if f.t_last is not None else t_span[0])
    if sol.status == 1:
        for k, te in enumerate(sol.t_events):
            if len(te):
                raise SimulationError(messages[k], float(te[0]))
    if not np.all(np.isfinite(sol.y)):
        raise SimulationError("non-finite state in the solution", float(sol.t[-1]))
    return sol


class OdeStepper:
    """One of scipy's adaptive solvers, a step at a time, for :func:`chrono_flex.stepping.run`.

    ``rhs(t, x)`` is wrapped (:class:`CheckedRhs`) so that a non-finite derivative stops
    the run with the time, naming ``name``, and (``max_nfev``) so that a budget of
    evaluations bounds the cost; the settings are checked as scipy would not
    (:func:`chrono_flex._checks.solver_settings`). After each
    :meth:`advance` the step's dense output gives the state anywhere in the step
    (:meth:`state`), which is how output times are sampled and guard crossings located.
    """

    def __init__(self, rhs, t0, x0, t_end, method="Radau", rtol=1e-6, atol=1e-9, jac=None,
                 max_nfev=None, max_step=np.inf, name="the right-hand side"):
        ck.solver_settings(method, rtol, atol, max_step, max_nfev, len(x0), STIFF + EXPLICIT)
        self.method, self.max_nfev = method, max_nfev
        self.f = CheckedRhs(rhs, method, max_nfev, name)
        self._options = dict(rtol=rtol, atol=atol, max_step=max_step,
                             **({"jac": jac} if jac is not None and method in STIFF else {}))
        self._spent = dict(njev=0, nlu=0)        # by the solvers before a restart
        self.restart(t0, x0, t_end)

    @property
    def nfev(self):
        return self.f.nfev

    def restart(self, t0, x0, t_end):
        """Start the solver afresh from the state x0 at t0, bound for ``t_end`` (its last
        step lands there): where the equations jump (a held input taking its new value),
        as a new solver would. The evaluations are counted on, within the same budget."""
        old = getattr(self, "solver", None)
        if old is not None:
            for k in self._spent:
                self._spent[k] += int(getattr(old, k, 0))
        self.solver = _SOLVERS[self.method](self.f, t0, np.asarray(x0, dtype=float), t_end,
                                            **self._options)
        self._dense = None
        self.t, self.current = self.solver.t, self.solver.y     # updated by advance()

    @property
    def finished(self):
        """True once the solver has reached the ``t_end`` it was started for."""
        return self.solver.status == "finished"

    def advance(self, t_target=None):
        """One adaptive step (of the solver's own size: ``t_target`` is not needed, the
        dense output samples the output times); returns the new time."""
        message = self.solver.step()
        if self.solver.status == "failed":
            raise SimulationError(f"{self.method} failed: {message}", self.solver.t)
        self._dense = self.solver.dense_output()
        self.t, self.current = self.solver.t, self.solver.y
        return self.t

    def state(self, t):
        """The state at t within the last step (the step's end exactly)."""
        if self._dense is None or t == self.solver.t:
            return self.solver.y.copy()
        return self._dense(t)

    def counters(self):
        s = self.solver
        return dict(nfev=int(self.nfev),
                    **{k: n + int(getattr(s, k, 0)) for k, n in self._spent.items()})
