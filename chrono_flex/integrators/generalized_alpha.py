"""Generalized-alpha: a second-order implicit integrator with controllable high-frequency
dissipation, for M(q) q'' = f(t, q, q') with first-order states alongside.

The scheme of Chung & Hulbert (1993), in the form of Arnold & Bruls (2007, eqs. 6-8),
advances positions q, velocities v and the algorithmic accelerations a:

    q_{n+1} = q_n + h v_n + h^2 (1/2 - beta) a_n + h^2 beta a_{n+1}
    v_{n+1} = v_n + h (1 - gamma) a_n + h gamma a_{n+1}
    (1 - alpha_m) a_{n+1} + alpha_m a_n = (1 - alpha_f) qdd_{n+1} + alpha_f qdd_n

where qdd_{n+1} satisfies the equations of motion at t_{n+1}. First-order states z
(drive currents and friction states, the work integrals) follow the first-order
generalized-alpha of Jansen, Whiting & Hulbert (2000) with the same parameters:

    z_{n+1} = z_n + h (1 - gamma) w_n + h gamma w_{n+1}
    (1 - alpha_m) w_{n+1} + alpha_m w_n = (1 - alpha_f) zd_{n+1} + alpha_f zd_n

so one Newton loop solves for (qdd_{n+1}, zd_{n+1}) together. From the spectral radius at
infinite frequency rho_inf in [0, 1] (Chung & Hulbert 1993, eq. 25):

    alpha_m = (2 rho_inf - 1) / (rho_inf + 1),  alpha_f = rho_inf / (rho_inf + 1),
    gamma = 1/2 + alpha_f - alpha_m,            beta = (gamma + 1/2)^2 / 4.

rho_inf = 1 is the trapezoidal rule (no dissipation); smaller values damp the modes
above 1/h while keeping second-order accuracy; ``family="hht"`` gives the HHT-alpha
method (alpha_m = 0, alpha_f = (1 - rho_inf)/(1 + rho_inf), rho_inf in [1/2, 1]).

The problem comes in the reference engine's first-order form ``rhs(t, x)`` with
x = [q, v, z] and dx = [v, qdd, zd]; its Jacobian ``jac(t, x)`` gives the Newton matrix.
Where the problem also gives its equations in mass-matrix form (``forcing``: M q_dd = f),
Newton works on the residual M a - f instead, with a matrix built from differences of f
alone (no M^-1 in it, which fine meshes make too inaccurate; docs/planar-link.md §4.4).
The Jacobian is kept across iterations and steps (modified Newton) and rebuilt when the
iteration contracts too slowly or fails; the mass-matrix form refactors the matrix
at the first iterate of each step with the mass matrix there. Without a fixed step, the
step follows an estimate of the local error of the positions seen through the Newton
matrix (:meth:`GeneralizedAlpha.filtered_error`: the modes the method damps do not
shrink the step).
"""

import math

import numpy as np
from scipy.linalg import lu_factor, lu_solve

from ..errors import ParameterError, SimulationError
from .._interrupts import checkpoint
from ..stepping import fixed_substep
from .base import LandingStepper, checked_step

FAMILIES = ("chung-hulbert", "hht")


def alpha_parameters(rho_inf, family="chung-hulbert"):
    """(alpha_m, alpha_f, gamma, beta) of the generalized-alpha method for the spectral
    radius ``rho_inf`` at infinite frequency (Chung & Hulbert 1993, eq. 25; HHT: Hilber,
    Hughes & Taylor 1977, with alpha = -alpha_f)."""
    if family not in FAMILIES:
        raise ParameterError("family", family, f"must be one of {FAMILIES}")
    if isinstance(rho_inf, bool) or not isinstance(rho_inf, (int, float, np.number)):
        raise ParameterError("rho_inf", rho_inf, "must be a number in [0, 1]")
    lo = 0.5 if family == "hht" else 0.0
    if not lo <= rho_inf <= 1.0:
        raise ParameterError("rho_inf", rho_inf, f"must lie in [{lo:g}, 1] for {family}")
    if family == "hht":
        am, af = 0.0, (1.0 - rho_inf) / (1.0 + rho_inf)
    else:
        am, af = (2.0 * rho_inf - 1.0) / (rho_inf + 1.0), rho_inf / (rho_inf + 1.0)
    gamma = 0.5 + af - am
    return am, af, gamma, 0.25 * (gamma + 0.5) ** 2


class GeneralizedAlpha(LandingStepper):
    """Generalized-alpha on ``rhs(t, x)``, x = [q (n2), v (n2), z (rest)], with a fixed
    step or with the step controlled by an estimate of the local error.

    Args:
        rhs: callable(t, x) -> dx = [v, qdd, zd].
        jac: callable(t, x) -> d(rhs)/dx (n, n), or None for forward differences.
        t0, x0: initial time and state. n2: number of second-order coordinates.
        step: the step size h, s (fixed mode: the largest, :meth:`advance` lands on the
            targets in equal sub-steps); with ``error_rtol`` the first step.
        rho_inf, family: see :func:`alpha_parameters`.
        rtol, atol: Newton stops when the update of the velocities and first-order
            states it causes, weighted by ``atol + rtol |value|``, has an RMS norm
            below 1 (:meth:`_update_norm`); by default :data:`NEWTON_RTOL` (fixed
            step) or :data:`NEWTON_FRACTION` of ``error_rtol`` (not below
            :data:`NEWTON_RTOL`), ``atol`` 1e-2 ``rtol``.
        max_iters: Newton iterations per step before the Jacobian is rebuilt once and,
            failing that, the step fails.
        max_nfev: budget of ``rhs`` evaluations, or None.
        max_halvings: how often a failed step may be halved (fixed mode).
        error_rtol: None (fixed step), or the tolerance of the step control: the local
            error of the positions (:meth:`local_error`) is kept below
            ``error_rtol`` times each coordinate's largest magnitude so far (plus
            ``error_rtol`` * 1e-6 as a floor).
        max_step: the largest step the control may take, s.
        error_filter: whether the step control measures the local error through the
            Newton matrix (:meth:`filtered_error`, the default) or raw
            (:meth:`local_error`, which spends steps on modes the method damps out).
        error_groups: None (each position is measured against its own largest
            magnitude so far), or a group number (0, 1, ...) for each position: the
            positions of a group share one scale, the largest magnitude so far of any of
            them (the elastic coordinates of a link: the nodes near a clamped root, whose
            values are a small part of the link's deflection, are then not asked for a
            smaller error than the tip).
        forcing: optional callable(t, x) -> (M (n2, n2), F) with F = [f (n2), zd]: the
            equations in mass-matrix form M q_dd = f. Newton then works on the residual
            [M a - f, w - zd] with the matrix [M, 0; 0, I] - dF/dx dx/dy (dF/dx by
            forward differences, no M^-1 in it), which stays accurate when the stiffest
            modes give (omega h)^2 of 1e7 and more (fine meshes); ``rhs`` still gives the
            initial derivatives.
        step_solver: optional object whose ``solve(t_new, h, x, y, acc, ga)`` does the
            Newton solve of a step of the mass-matrix form in one call (a compiled twin
            of :meth:`_solve_step`, e.g. :class:`chrono_flex.planar.chain_ga.ChainStep`)
            and returns (status, x_{n+1}, y_{n+1}, acc_{n+1}), status 0 (converged), 1
            (no convergence even with a fresh Jacobian), 2 (non-finite forces) or 5 (a
            state-reading input held over the step did not settle: the step is then
            taken by the Python iteration); it
            keeps its own Jacobian and counts ``nfev``, ``njev`` and ``nlu``. The step
            control, halving and output stay here.
    """

    method = "generalized_alpha"
    budget_hint = " (raise max_nfev, or use a larger step)"

    #: The Newton tolerance (``rtol``; ``atol`` 1e-2 of it) under a fixed step, and its
    #: floor under the step control, which asks for :attr:`NEWTON_FRACTION` of its own
    #: tolerance: the stopping rule of Radau (Hairer & Wanner, Solving ODEs II, 2nd ed.
    #: 1996, §IV.8: the iteration's error a fraction of 1e-2 to 1e-1 of the local error
    #: allowed; their code's default min(0.03, sqrt(rtol))). The Newton tolerance weighs
    #: the velocities, the step control the positions, which an error in the velocities
    #: moves by h beta / gamma (about h / 2) of it: the iteration's error in the
    #: positions stays further below. 1e-8 against a step tolerance of 1e-3 spent a
    #: third of the evaluations on digits the step does not have, 1e-6 a quarter
    #: (docs/performance.md, "User laws called from the compiled loop", "The Newton
    #: tolerance of the step control").
    NEWTON_RTOL, NEWTON_FRACTION = 1e-8, 3e-2

    #: The step control lands on a target (an output or sample time) with one step when
    #: the remainder after the proposed step h is below this fraction of h: one step of
    #: up to (1 + LANDING_STRETCH) h. Stretches of 1.05 h and 1.1 h, which the control's
    #: own error model would accept, took fewer rejections on sampled inputs but more
    #: steps on the plain-torque runs, and none gained on both (docs/performance.md,
    #: "Landing on the samples").
    LANDING_STRETCH = 0.25

    def __init__(self, rhs, jac, t0, x0, n2, step, rho_inf=0.8, family="chung-hulbert",
                 rtol=None, atol=None, max_iters=8, max_nfev=None, max_halvings=4,
                 error_rtol=None, max_step=np.inf, forcing=None, step_solver=None,
                 error_filter=True, error_groups=None):
        self.rhs, self.jac, self.forcing = rhs, jac, forcing
        self.step_solver = step_solver
        self.am, self.af, self.gamma, self.beta = alpha_parameters(rho_inf, family)
        self.rho_inf, self.family = rho_inf, family
        self.step = checked_step(step)
        if error_rtol is not None and not (isinstance(error_rtol, (int, float, np.number))
                                           and 0.0 < error_rtol < 1.0):
            raise ParameterError("rtol", error_rtol, "must lie in (0, 1) for the step control")
        if rtol is None:
            rtol = self.NEWTON_RTOL if error_rtol is None else max(
                self.NEWTON_RTOL, self.NEWTON_FRACTION * float(error_rtol))
        if atol is None:
            atol = 1e-2 * rtol
        if error_rtol is not None and error_rtol < rtol:
            raise ParameterError("rtol", error_rtol,
                                 f"must be >= {rtol:g}, the Newton iteration's tolerance: "
                                 "below it the step control would chase the iteration's "
                                 "own error (name method='Radau' for tighter runs)")
        self.error_rtol = None if error_rtol is None else float(error_rtol)
        self.error_filter = bool(error_filter)
        self.error_groups = (None if error_groups is None
                             else np.asarray(error_groups, dtype=np.int64))
        if self.error_groups is not None and self.error_groups.shape != (int(n2),):
            raise ParameterError("error_groups", error_groups,
                                 f"must give a group number to each of the {n2} positions")
        self.max_step = float(max_step)
        self.h_next = min(self.step, self.max_step)
        self.n_rejected = 0
        self.n2 = int(n2)
        self.rtol, self.atol, self.max_iters, self.max_nfev = rtol, atol, max_iters, max_nfev
        self.max_halvings = int(max_halvings)
        self.n_retries = 0
        self.t = float(t0)
        self.x = np.array(x0, dtype=float)
        self.q_scale = np.abs(self.x[:self.n2])
        self.nfev = self.njev = self.nlu = self.n_steps = 0
        d = self._derivs(self.t, self.x)
        self.y = d.copy()          # true derivatives (qdd, zd) at t_n
        self.acc = d.copy()        # algorithmic accelerations (a, w), a_0 = qdd_0
        self._lu = None
        self._lu_h = None
        self._J = None

    def _eval(self, t, x):
        self._count_evaluation(t)
        dx = self.rhs(t, x)
        if not math.isfinite(float(dx @ dx)):        # any NaN or inf (or overflow)
            raise SimulationError("non-finite derivative (divergence, or a step the model "
                                  "cannot take)", t)
        return dx

    def _derivs(self, t, x):
        return self._eval(t, x)[self.n2:]

    def _predict(self, h, y_new):
        """State x_{n+1} and algorithmic accelerations for trial derivatives y_new."""
        n2, x = self.n2, self.x
        acc_new = self._c_new * y_new + self._acc_const
        xn = x + self._x_const * h
        xn[:n2] += (h * h * self.beta) * acc_new[:n2]
        xn[n2:] += (h * self.gamma) * acc_new
        return xn, acc_new

    def _prepare(self, h):
        """The parts of :meth:`_predict` fixed within a step (eqs. in the module doc):
        acc_new = c y_new + acc_const, x_{n+1} = x_n + h x_const + (h^2 beta, h gamma) acc_new."""
        n2 = self.n2
        self._c_new = (1.0 - self.af) / (1.0 - self.am)
        self._acc_const = (self.af * self.y - self.am * self.acc) / (1.0 - self.am)
        xc = np.empty_like(self.x)
        xc[:n2] = self.x[n2:2 * n2] + h * (0.5 - self.beta) * self.acc[:n2]
        xc[n2:] = (1.0 - self.gamma) * self.acc
        self._x_const = xc

    def _factor(self, t, x, h):
        """LU of the Newton matrix I - dD/dx dx/dy, D = (qdd, zd), y the unknowns; the
        Jacobian dD/dx is rebuilt at ``x`` unless ``x`` is None (a new step size only)."""
        if self.forcing is not None:
            return self._factor_mass_form(t, x, h)
        if x is not None:
            self._J = self.jac(t, x) if self.jac is not None else self._fd_jac(t, x)
            self.njev += 1
        J = self._J
        n, n2 = J.shape[0], self.n2
        A = np.eye(n - n2) - J[n2:, :] @ self._dxdy(n, h)
        # the explicit inverse: one matrix-vector product per iteration (the matrices are
        # small and well conditioned for the step sizes used; a failed solve shows as a
        # stalled iteration, which rebuilds the Jacobian and then halves the step)
        try:
            self._lu = np.linalg.inv(A)
        except np.linalg.LinAlgError:
            raise SimulationError("generalized_alpha: singular Newton matrix (a mass "
                                  "matrix that is not positive definite?)", t) from None
        self._lu_h = h
        self.nlu += 1

    def _dxdy(self, n, h):
        """dx_{n+1}/dy for the unknowns y = (q_dd, zd) (eq. (4.13) with the alpha weights)."""
        n2 = self.n2
        c = (1.0 - self.af) / (1.0 - self.am)
        dxdy = np.zeros((n, n - n2))
        k = np.arange(n2)
        dxdy[k, k] = h * h * self.beta * c
        dxdy[n2 + k, k] = h * self.gamma * c
        kz = np.arange(n - 2 * n2)
        dxdy[2 * n2 + kz, n2 + kz] = h * self.gamma * c
        return dxdy

    def _eval_forcing(self, t, x):
        self._count_evaluation(t)
        M, F = self.forcing(t, x)
        if not math.isfinite(float(F @ F)):
            raise SimulationError("non-finite generalized forces (divergence, or a step the "
                                  "model cannot take)", t)
        return M, F

    def _factor_mass_form(self, t, x, h):
        """LU of [M, 0; 0, I] - dF/dx dx/dy (see ``forcing``); dF/dx and M are rebuilt
        at ``x`` unless ``x`` is None (a new step size only: M is then the one of the
        last converged step, dF/dx the one of the last build)."""
        if x is not None:
            M, F0 = self._eval_forcing(t, x)
            JF = np.empty((F0.size, x.size))
            for j in range(x.size):
                e = 1.49e-8 * max(1.0, abs(x[j]))
                xp = x.copy()
                xp[j] += e
                JF[:, j] = (self._eval_forcing(t, xp)[1] - F0) / e
            self._J, self._M = JF, M
            self.njev += 1
        n2 = self.n2
        n = self._J.shape[1]
        A = -self._J @ self._dxdy(n, h)
        A[:n2, :n2] += self._M
        A[n2:, n2:] += np.eye(n - 2 * n2)
        self._lu = lu_factor(A, check_finite=False)
        if not np.all(np.isfinite(self._lu[0])) or np.any(np.diag(self._lu[0]) == 0.0):
            raise SimulationError("generalized_alpha: singular Newton matrix (a mass "
                                  "matrix that is not positive definite?)", t)
        self._lu_h = h
        self.nlu += 1

    def _fd_jac(self, t, x):
        f0 = self._eval(t, x)
        J = np.empty((x.size, x.size))
        for j in range(x.size):
            e = 1.49e-8 * max(1.0, abs(x[j]))
            xp = x.copy()
            xp[j] += e
            J[:, j] = (self._eval(t, xp) - f0) / e
        return J

    def advance(self, t_target):
        """One step towards ``t_target``, landing on it; returns the new time.

        Fixed step: no longer than ``step``, in equal sub-steps
        (:func:`chrono_flex.stepping.fixed_substep`). A step whose Newton iteration
        fails even with a fresh Jacobian is taken as two half steps, down to
        ``step`` / 2**max_halvings (Newton can cycle across a kink of a non-smooth law,
        e.g. friction at a speed reversal); below that the step fails with a
        SimulationError. With step control (``error_rtol``), see :meth:`_adaptive`."""
        if getattr(self.step_solver, "autonomous", False):
            return self._advance_compiled(t_target)
        if self.error_rtol is None:
            self._take(fixed_substep(self.t, t_target, self.step), self.max_halvings)
        else:
            self._adaptive(t_target)
        self.n_steps += 1
        return self.t

    def _advance_compiled(self, t_target):
        """All the steps to ``t_target`` in calls of ``step_solver.advance(self,
        t_target)`` (equations without time-dependent inputs; the same steps as
        :meth:`advance` would take one by one). A fixed step whose Newton fails is
        taken here with halvings, one whose held input did not settle (5) by
        :meth:`advance`; the statuses are those of the class docstring, and 3: the
        step control shrank the step away."""
        while True:
            status = self.step_solver.advance(self, t_target)
            if self._after_compiled(status, t_target):
                return self.t

    def _after_compiled(self, status, t_target):
        """After a compiled call that stopped with ``status`` on its way to ``t_target``:
        the budget, the errors, a failed fixed step taken with halvings, a paused call
        (4: its share of steps done; interrupts and the run's wall-time budget are
        looked at, :func:`chrono_flex.stepping.checkpoint`); True when ``t_target`` is
        reached."""
        self._check_budget(self.t)
        if status == 0:
            return True
        if status == 4:
            checkpoint(self.t)
            return False
        if status == 2:
            raise SimulationError("non-finite generalized forces (divergence, or a step "
                                  "the model cannot take)", self.t)
        if status == 3:
            raise SimulationError("generalized_alpha: the step control shrank the step "
                                  "below 1e-12 of the time (a discontinuity, or a "
                                  "tolerance the model cannot meet)", self.t)
        if status == 5:
            # a state-reading input held over the step whose corrections did not
            # settle: this step as :meth:`advance` takes it (the exact iteration)
            self.advance(t_target)
            return t_target - self.t <= 1e-12 * max(1.0, abs(t_target))
        # the compiled call tried the step as _take would: go on with its halves
        self._halve(fixed_substep(self.t, t_target, self.step), self.max_halvings)
        self.n_steps += 1
        return t_target - self.t <= 1e-12 * max(1.0, abs(t_target))

    #: About how many steps one call of :meth:`advance_outputs` takes at most (then the
    #: stepping loop checks its wall-time budget and reports progress).
    BATCH_STEPS = 1000

    def advance_outputs(self, t_targets):
        """The steps through several output times ``t_targets`` (increasing, after
        :attr:`t`) in compiled calls of ``step_solver.advance_outputs``, where the step
        solver offers them: equations without inputs, or (fixed step) with inputs that
        are functions of time alone, evaluated ahead at the steps' ends. The steps and
        their numbers are those :meth:`advance` takes one by one; the outputs taken at
        once are limited to about :attr:`BATCH_STEPS` steps.

        Returns None where this does not apply (then call :meth:`advance`), else
        (the states at the first k targets (k, n), None or the SimulationError that
        stopped the run after them)."""
        solver = self.step_solver
        if solver is None or not hasattr(solver, "advance_outputs"):
            return None
        targets = self._batch(t_targets)
        states = []
        k = 0
        try:
            while k < targets.size:
                out = solver.advance_outputs(self, targets[k:])
                if out is None:
                    return None if k == 0 else (np.array(states), None)
                status, X = out
                states.extend(X)
                k += len(X)
                if status == 0:
                    self._check_budget(self.t)
                elif self._after_compiled(status, targets[k]):
                    states.append(self.x.copy())
                    k += 1
        except SimulationError as exc:
            return np.array(states).reshape(-1, self.x.size), exc
        return np.array(states), None

    def advance_sampled(self, t_targets, law):
        """:meth:`advance_outputs` with a sampled torque ``law`` (the reference engine's
        ``SampledTorque``) called from the compiled step loop at its sample instants
        (``step_solver.advance_sampled``), where the step solver offers it. Returns
        None where it does not apply, else (the states at the outputs reached (k, n),
        None or the SimulationError that stopped the run after them). A fixed step
        whose Newton failed is taken here in halves (:meth:`_halve`, as by
        :meth:`advance`) up to the next output or sample instant, where the law is
        sampled when due (``law.fire``)."""
        solver = self.step_solver
        if solver is None or not hasattr(solver, "advance_sampled"):
            return None
        targets = self._batch(t_targets)
        states = []
        try:
            while len(states) < targets.size:
                status, X = solver.advance_sampled(self, targets[len(states):], law)
                states.extend(X)
                self._check_budget(self.t)
                if status == 4:
                    checkpoint(self.t)
                elif status == 1:
                    t_event, t_out = law.next_event(), targets[len(states)]
                    output = t_out <= t_event + 1e-12 * max(1.0, abs(t_event))
                    if self._after_compiled(status, t_out if output else t_event):
                        if output:
                            states.append(self.x.copy())
                        law.fire(self.t, self.x, self.n2)
                elif status != 0:
                    self._after_compiled(status, targets[len(states)])
        except SimulationError as exc:
            return np.array(states).reshape(-1, self.x.size), exc
        return np.array(states).reshape(-1, self.x.size), None

    def _batch(self, t_targets):
        """The first of ``t_targets`` one compiled call may run to: about
        :attr:`BATCH_STEPS` steps of the present step size (at least one target)."""
        targets = np.asarray(t_targets, dtype=float)
        h = self.step if self.error_rtol is None else self.h_next
        span = max(targets[0] - self.t, 1e-300)
        return targets[:max(1, int(self.BATCH_STEPS * h / span))]

    def _check_budget(self, t):
        if self.max_nfev is not None and self.nfev + self.step_solver.nfev > self.max_nfev:
            raise self._budget_error(t)

    def local_error(self, h, acc_new):
        """Estimate of the local error of the positions over a step of size h:
        h^2 (beta - 1/6) (a_{n+1} - a_n), the third-order term the position update
        leaves out (Zienkiewicz & Xie, Earthq. Eng. Struct. Dyn. 20, 1991, for the
        Newmark family; the algorithmic accelerations stand in for q_dd)."""
        n2 = self.n2
        return (h * h * (self.beta - 1.0 / 6.0)) * (acc_new[:n2] - self.acc[:n2])

    def filtered_error(self, h, acc_new):
        """:meth:`local_error` seen through the method's own treatment of the modes:
        N^-1 M e, N the Newton matrix of the step ([M, 0; 0, I] - dF/dx dx/dy, about
        M + c beta h^2 K + c gamma h D, c = (1 - alpha_f)/(1 - alpha_m); the rhs form:
        N^-1 e). A mode of frequency omega keeps the factor 1/(1 + c beta (omega h)^2)
        of its estimate: the resolved band (omega h << 1) is measured as before, while
        for the modes above 1/h, which generalized-alpha damps by rho_inf per step
        anyway, the estimate h^2 (beta - 1/6) omega^2 dA, which grows with (omega h)^2
        though such a mode cannot be off by more than its own amplitude, falls back to
        about (beta - 1/6)/(c beta) dA: their amplitude change over the step. Without
        it the control shrinks the step until the method no longer damps them, and
        pays for resolving vibrations that are not asked for (docs/planar-link.md
        §4.4)."""
        e = self.local_error(h, acc_new)
        n2 = self.n2
        if self.step_solver is not None:
            return self.step_solver.filtered_error(e)
        if self.forcing is not None:
            b = np.zeros(self._lu[0].shape[0])
            b[:n2] = self._M @ e
            return lu_solve(self._lu, b, check_finite=False)[:n2]
        b = np.zeros(self._lu.shape[0])
        b[:n2] = e
        return (self._lu @ b)[:n2]

    def _adaptive(self, t_target):
        """One accepted step with the step-size control: the RMS of the local error,
        weighted by ``error_rtol`` (1e-6 + the largest |q_k| so far), must be <= 1; the
        next step is h (0.9 / err)^(1/3), within [0.2 h, 2 h] and ``max_step``. A
        rejected or non-converging step is retried smaller; below 1e-12 of the time
        scale the run fails with a SimulationError."""
        retry = False
        while True:
            remaining = t_target - self.t
            h = min(self.h_next, remaining)
            if remaining - h < self.LANDING_STRETCH * h:  # no sliver before the target:
                # one step to it, up to 1.25 h; after a rejection (which asked for less
                # than the remainder) two equal ones, so the step does shrink
                h = 0.5 * remaining if retry and remaining > self.h_next else remaining
            landing = h < self.h_next
            if h <= 1e-12 * max(1.0, abs(self.t)):
                raise SimulationError("generalized_alpha: the step control shrank the step "
                                      f"below {h:.3g} s (a discontinuity, or a tolerance "
                                      "the model cannot meet)", self.t)
            cand = self._solve_step(h)
            if cand is None:                              # Newton failed: smaller step
                self.n_retries += 1
                self.h_next = 0.25 * h
                retry = True
                continue
            t_new, xn, y, acc_new = cand
            scale = self.error_rtol * (1e-6 + self._group_max(
                np.maximum(self.q_scale, np.abs(xn[:self.n2]))))
            e = self.filtered_error(h, acc_new) if self.error_filter else \
                self.local_error(h, acc_new)
            z = e / scale
            err = math.sqrt(float(z @ z) / max(z.size, 1))
            factor = min(2.0, max(0.2, 0.9 * err ** (-1.0 / 3.0))) if err > 0 else 2.0
            if err <= 1.0:
                self._commit(t_new, xn, y, acc_new)
                self.h_next = min(self.max_step, factor * h if not landing or factor < 1.0
                                  else self.h_next)
                return
            self.n_rejected += 1
            self.h_next = factor * h
            retry = True

    def _group_max(self, s):
        """Each entry of s replaced by the largest of its group (``error_groups``)."""
        if self.error_groups is None:
            return s
        g = np.zeros(self.error_groups.max() + 1)
        np.maximum.at(g, self.error_groups, s)
        return g[self.error_groups]

    def _commit(self, t_new, xn, y, acc_new):
        self.t, self.x, self.y, self.acc = t_new, xn, y, acc_new
        self.q_scale = np.maximum(self.q_scale, np.abs(xn[:self.n2]))

    def _take(self, h, halvings):
        if not self._try(h):
            self._halve(h, halvings)

    def _halve(self, h, halvings):
        """The step h, whose Newton failed, as two halves (each taken by :meth:`_take`)."""
        if halvings == 0:
            raise SimulationError(f"generalized_alpha: Newton did not converge in "
                                  f"{self.max_iters} iterations with a fresh Jacobian, "
                                  f"even at h = {h:.3g} s after {self.max_halvings} "
                                  "halvings; use a smaller step", self.t)
        self.n_retries += 1
        self._take(0.5 * h, halvings - 1)
        self._take(0.5 * h, halvings - 1)

    def _try(self, h):
        cand = self._solve_step(h)
        if cand is None:
            return False
        self._commit(*cand)
        return True

    def _solve_step(self, h):
        """(t_{n+1}, x_{n+1}, derivatives, algorithmic accelerations) of a step of size
        h, or None when Newton fails even with a fresh Jacobian."""
        t_new = self.t + h
        if self.step_solver is not None:
            return self._solve_step_compiled(t_new, h)
        return self._solve_step_python(t_new, h)

    def _solve_step_python(self, t_new, h):
        """:meth:`_solve_step` by the Python iteration."""
        self._prepare(h)
        y = self.y.copy()                          # predictor: the last derivatives
        for attempt in range(2):
            fresh = self._J is None or attempt == 1
            if fresh:
                xn, _ = self._predict(h, y)
                self._factor(t_new, xn, h)
            elif self.forcing is None and abs(self._lu_h - h) > 1e-12 * h:
                self._factor(t_new, None, h)       # same Jacobian, new step size
            # the mass-matrix form refactors at the first iterate (:meth:`_newton`)
            ok, y, xn, acc_new = self._newton(t_new, h, y,
                                              not fresh and self.forcing is not None)
            if ok:
                return t_new, xn, y, acc_new
            y = self.y.copy()
        return None

    def _solve_step_compiled(self, t_new, h):
        """:meth:`_solve_step` by ``step_solver`` (see the class docstring)."""
        status, xn, y, acc_new = self.step_solver.solve(t_new, h, self.x, self.y,
                                                        self.acc, self)
        self._check_budget(t_new)
        if status == 2:
            raise SimulationError("non-finite generalized forces (divergence, or a step the "
                                  "model cannot take)", t_new)
        if status == 5:
            # a state-reading input held over the compiled step whose corrections did
            # not settle: this step by the exact iteration, the input at every iterate
            return self._solve_step_python(t_new, h)
        if status != 0:
            return None
        return t_new, xn, y, acc_new

    def _newton(self, t_new, h, y, refresh=False):
        """The modified Newton iteration of a step from the trial derivatives y; returns
        (converged, y, x_{n+1}, algorithmic accelerations). ``refresh`` (mass-matrix form):
        refactor the Newton matrix at the first iterate with the mass matrix there and
        the kept dF/dx. The mass matrix changes along a motion where dF/dx barely does,
        and a link on a joint without hub inertia turns a small change of M into a slow
        iteration (the compiled twin, ``chain_newton.ga_solve``, states the figures)."""
        prev = None
        for _ in range(self.max_iters):
            xn, acc_new = self._predict(h, y)
            if self.forcing is None:
                r = y - self._derivs(t_new, xn)
                dy = -(self._lu @ r)
            else:
                M, F = self._eval_forcing(t_new, xn)
                if refresh:
                    refresh = False
                    self._M = M
                    self._factor(t_new, None, h)
                r = y - F
                Ma = M @ y[:self.n2]
                r[:self.n2] = Ma - F[:self.n2]
                if self._residual_at_round_off(r, Ma, F):
                    self._M = M
                    return True, y, xn, acc_new
                dy = -lu_solve(self._lu, r, check_finite=False)
            y = y + dy
            norm = self._update_norm(h, dy, xn)
            if not np.isfinite(norm):
                return False, y, xn, acc_new
            # converged: the update within tolerance, or the error it leaves estimated
            # from the contraction theta = norm / prev as theta / (1 - theta) norm
            # (Hairer & Wanner 1996, §IV.8)
            if norm <= 1.0 or (prev is not None and norm < 0.9 * prev
                               and norm * norm <= prev - norm):
                xn, acc_new = self._predict(h, y)
                if self.forcing is not None:
                    # the mass matrix of the converged step enters the next refactoring
                    # (a new step size): the matrix that changes most along a swing,
                    # and one evaluation old, where dF/dx is kept from its last build
                    self._M = M
                return True, y, xn, acc_new
            if prev is not None and norm > 0.9 * prev:     # stalling: rebuild the Jacobian
                return False, y, xn, acc_new
            prev = norm
        return False, y, xn, acc_new

    def _residual_at_round_off(self, r, Ma, F):
        """Mass-matrix form: whether the residual M a - f is at the round-off of its own
        terms (1e3 machine epsilons of max(|M a|, |f|)). With many elements the
        stiffest modes' forces are so large that the velocity tolerance can lie below
        what the arithmetic resolves; Newton then stops here instead of stalling."""
        n2, tiny = self.n2, 1e3 * np.finfo(float).eps
        scale = max(np.abs(Ma).max(initial=0.0), np.abs(F[:n2]).max(initial=0.0))
        ok = np.abs(r[:n2]).max(initial=0.0) <= tiny * scale
        if r.size > n2:
            ok = ok and np.abs(r[n2:]).max() <= tiny * np.abs(F[n2:]).max()
        return bool(ok)

    def _update_norm(self, h, dy, xn):
        """RMS of the Newton update measured where it lands: an update dy of the
        derivatives moves the velocities and first-order states by h gamma c dy
        (c = (1 - alpha_f)/(1 - alpha_m)), weighted by ``atol + rtol |value|``. Judging
        the update on the accelerations themselves would ask for digits the step's own
        truncation error (O(h^2) in the velocities) makes meaningless."""
        n2 = self.n2
        c = (1.0 - self.af) / (1.0 - self.am)
        value = xn[n2:]                       # velocities, then first-order states
        z = (h * self.gamma * c) * dy / (self.atol + self.rtol * np.abs(value))
        return math.sqrt(float(z @ z) / z.size)

    def counters(self):
        s = self.step_solver
        extra = (0, 0, 0) if s is None else (s.nfev, s.njev, s.nlu)
        return dict(nfev=int(self.nfev) + extra[0], njev=int(self.njev) + extra[1],
                    nlu=int(self.nlu) + extra[2],
                    n_steps=int(self.n_steps), retries=int(self.n_retries),
                    rejected=int(self.n_rejected))


__all__ = ["FAMILIES", "GeneralizedAlpha", "alpha_parameters"]
