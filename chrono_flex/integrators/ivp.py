"""Integration of first-order systems dx/dt = rhs(t, x) with numerical-trouble detection.

Stiff implicit methods are the default ([K] found explicit Runge-Kutta overflowing for
two flexible links; docs/planar-link.md §5). Explicit methods stay available for comparison,
guarded by an evaluation budget so that a stiff run fails with a clear message instead of
running for hours.
"""

import time

import numpy as np
from scipy.integrate import BDF, DOP853, LSODA, RK23, RK45, Radau, solve_ivp

from .. import _checks as ck
from ..errors import BudgetExceeded, ParameterError, SimulationError

STIFF = ("Radau", "BDF", "LSODA")
EXPLICIT = ("RK45", "RK23", "DOP853")
_SOLVERS = {"Radau": Radau, "BDF": BDF, "LSODA": LSODA, "RK45": RK45, "RK23": RK23,
            "DOP853": DOP853}


class _Budget(Exception):
    pass


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
              events=None, max_nfev=None, max_step=np.inf, progress=None):
    """solve_ivp with errors turned into :class:`SimulationError` and checked output.

    Returns the scipy solution object plus ``sol.wall_time``. Raises SimulationError on
    solver failure, on a terminal event (the event's message is given by ``events``
    as (function, message) pairs), on non-finite states, or when ``max_nfev`` right-hand
    side evaluations are used up before ``t_end`` (an explicit method on a stiff model).
    """
    if method not in STIFF + EXPLICIT:
        raise ParameterError("method", method, f"must be one of {STIFF + EXPLICIT}")
    for name, v in (("rtol", rtol),):
        if not (np.isfinite(v) and v > 0):
            raise ParameterError(name, v, "must be > 0")
    count = [0, t_span[0]]

    def f(t, x):
        count[0] += 1
        count[1] = t
        if max_nfev is not None and count[0] > max_nfev:
            raise _Budget()
        if progress is not None:
            progress(t)
        dx = rhs(t, x)
        if not np.all(np.isfinite(dx)):
            bad = np.flatnonzero(~np.isfinite(dx))[:5]
            raise SimulationError(f"non-finite derivative in state components {bad.tolist()} "
                                  "(divergence, or a step the model cannot take)", t)
        return dx

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
    except _Budget:
        raise BudgetExceeded(
            f"{method} used up its budget of {max_nfev} right-hand-side evaluations "
            f"(the model is too stiff for an explicit method; use Radau or BDF)",
            count[1]) from None
    finally:
        if progress is not None:
            progress.close()
    sol.wall_time = time.perf_counter() - t0
    if sol.status == -1:
        raise SimulationError(f"{method} failed: {sol.message}", count[1])
    if sol.status == 1:
        for k, te in enumerate(sol.t_events):
            if len(te):
                raise SimulationError(messages[k], float(te[0]))
    if not np.all(np.isfinite(sol.y)):
        raise SimulationError("non-finite state in the solution", float(sol.t[-1]))
    return sol


class OdeStepper:
    """One of scipy's adaptive solvers, a step at a time, for :func:`chrono_flex.stepping.run`.

    ``rhs(t, x)`` is wrapped so that a non-finite derivative stops the run with the time,
    and (``max_nfev``) so that a budget of evaluations bounds the cost. After each
    :meth:`advance` the step's dense output gives the state anywhere in the step
    (:meth:`state`), which is how output times are sampled and guard crossings located.
    """

    def __init__(self, rhs, t0, x0, t_end, method="Radau", rtol=1e-6, atol=1e-9, jac=None,
                 max_nfev=None, max_step=np.inf):
        ck.solver_settings(method, rtol, atol, max_step, max_nfev, len(x0), STIFF + EXPLICIT)
        self.method, self.max_nfev = method, max_nfev
        self.nfev = 0
        self._t_last = t0

        def f(t, x):
            self.nfev += 1
            self._t_last = t
            if max_nfev is not None and self.nfev > max_nfev:
                raise _Budget()
            dx = rhs(t, x)
            if not np.all(np.isfinite(dx)):
                bad = np.flatnonzero(~np.isfinite(dx))[:5]
                raise SimulationError(f"non-finite derivative in state components "
                                      f"{bad.tolist()} (divergence, or a step the model "
                                      "cannot take)", t)
            return dx

        kw = {"jac": jac} if jac is not None and method in STIFF else {}
        self.solver = _SOLVERS[method](f, t0, np.asarray(x0, dtype=float), t_end, rtol=rtol,
                                       atol=atol, max_step=max_step, **kw)
        self._dense = None
        self.t, self.current = self.solver.t, self.solver.y     # updated by advance()

    def advance(self, t_target=None):
        """One adaptive step (of the solver's own size: ``t_target`` is not needed, the
        dense output samples the output times); returns the new time."""
        try:
            message = self.solver.step()
        except _Budget:
            raise BudgetExceeded(
                f"{self.method} used up its budget of max_nfev = {self.max_nfev} "
                "right-hand-side evaluations" + (
                    " (the model is too stiff for an explicit method; use Radau or BDF)"
                    if self.method in EXPLICIT else " (raise max_nfev, or loosen rtol/atol)"),
                self._t_last) from None
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
        return dict(nfev=int(self.nfev), njev=int(getattr(s, "njev", 0)),
                    nlu=int(getattr(s, "nlu", 0)))
