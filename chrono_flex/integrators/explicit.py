"""The classical fourth-order Runge-Kutta method with a fixed step, for the reference
engine's first-order form x' = rhs(t, x).

There to show what a stiff model does to an explicit method: on an undamped mode,
eigenvalues +-i omega, one step multiplies the mode by R(i omega h) with

    |R(i y)|^2 = 1 - y^6 / 72 + y^8 / 576,

which is below 1 for y < 2 sqrt(2) and above it beyond (Hairer & Wanner, Solving ODEs
II, section IV.2; on the negative real axis the limit is 2.785). A step above
2 sqrt(2) / omega_max, omega_max the highest natural frequency of the discretised arm,
makes the highest mode grow by a fixed factor per step until the state overflows:
Kozlowski's report of explicit Runge-Kutta "overflowing" on the flexible double
pendulum (docs/planar-link.md §6). The engine's loop stops such a run with a
SimulationError (a non-finite state or a tip deflection beyond its guard).
"""

import math

import numpy as np

from ..stepping import fixed_substep
from .base import LandingStepper, checked_step

#: RK4's stability limit on the imaginary axis, |omega h| <= 2 sqrt(2).
RK4_IMAGINARY_LIMIT = 2.0 * math.sqrt(2.0)


def rk4_step(rhs, t, x, h):
    """One classical Runge-Kutta step of size h from (t, x): x + h (k1 + 2 k2 + 2 k3 + k4)/6."""
    k1 = rhs(t, x)
    k2 = rhs(t + 0.5 * h, x + (0.5 * h) * k1)
    k3 = rhs(t + 0.5 * h, x + (0.5 * h) * k2)
    k4 = rhs(t + h, x + h * k3)
    return x + (h / 6.0) * (k1 + 2.0 * (k2 + k3) + k4)


def rk4_amplification(y):
    """|R(i y)| of RK4 for a purely imaginary eigenvalue times the step, y = omega h."""
    y = np.asarray(y, dtype=float)
    return np.sqrt(1.0 - y**6 / 72.0 + y**8 / 576.0)


class RungeKutta4(LandingStepper):
    """Fixed-step RK4 with the interface of the reference engine's steppers (``advance``,
    ``current``, ``state``, ``counters``).

    Args:
        rhs: callable(t, x) -> dx/dt.  t0, x0: initial time and state.
        step: the largest step, s (:meth:`advance` lands on each target in equal steps).
        max_nfev: budget of ``rhs`` evaluations, or None.
    """

    method = "rk4"

    def __init__(self, rhs, t0, x0, step, max_nfev=None):
        self.rhs, self.step, self.max_nfev = rhs, checked_step(step), max_nfev
        self.t = float(t0)
        self.x = np.array(x0, dtype=float)
        self.nfev = self.n_steps = 0

    def _f(self, t, x):
        self._count_evaluation(t)
        with np.errstate(over="ignore", invalid="ignore"):
            return self.rhs(t, x)

    def advance(self, t_target):
        """One step towards ``t_target`` (no longer than ``step``, landing on it); returns
        the new time. The loop's guard judges the new state."""
        h = fixed_substep(self.t, t_target, self.step)
        with np.errstate(over="ignore", invalid="ignore"):
            self.x = rk4_step(self._f, self.t, self.x, h)
        self.t = self.t + h if abs(t_target - self.t - h) > 1e-12 * max(1.0, abs(self.t)) \
            else float(t_target)
        self.n_steps += 1
        return self.t

    def counters(self):
        return dict(nfev=int(self.nfev), n_steps=int(self.n_steps))


__all__ = ["RK4_IMAGINARY_LIMIT", "RungeKutta4", "rk4_amplification", "rk4_step"]
