"""Linear stability of the explicit fixed-step methods used for real-time drive simulation.

A mode x' = lambda x is stable under a one-step method while |R(h lambda)| <= 1, R being
the method's stability polynomial (Hairer & Wanner, Solving ODEs II, section IV.2):
Euler 1 + z; classic RK4 1 + z + z^2/2 + z^3/6 + z^4/24. On the negative real axis the
intervals are h |lambda| <= 2 (Euler) and <= 2.785293563 (RK4).
"""

import math

import numpy as np

from .. import _checks as ck

FIXED_STEP_METHODS = ("euler", "rk4")

#: Order of accuracy of each method (the slope the convergence tests expect).
ORDER = {"euler": 1, "rk4": 4}

#: Stability interval on the negative real axis, h |lambda| <= this.
REAL_AXIS_LIMIT = {"euler": 2.0, "rk4": 2.785293563405282}

#: Safety factor k of [S] eq. 29 (k >= 6...10); divides every stability limit.
DEFAULT_SAFETY = 6.0


def amplification(method, z):
    """Stability polynomial R(z) of ``method`` (z = h lambda, complex allowed)."""
    if method == "euler":
        return 1.0 + z
    return 1.0 + z * (1.0 + z / 2.0 * (1.0 + z / 3.0 * (1.0 + z / 4.0)))


def stable_step(method, lam):
    """Largest h with |R(h' lambda)| <= 1 for all 0 < h' <= h (inf for lambda = 0, 0 when no
    positive step is stable, e.g. Euler on an undamped oscillation)."""
    ck.choice("method", method, FIXED_STEP_METHODS)
    lam = complex(lam)
    mag = abs(lam)
    if mag == 0.0:
        return math.inf
    if lam.real > 0.0:
        return 0.0
    if lam.imag == 0.0:
        return REAL_AXIS_LIMIT[method] / mag
    d = lam / mag
    ok = lambda r: abs(amplification(method, r * d)) <= 1.0 + 1e-13  # noqa: E731
    grid = np.linspace(0.0, 4.0, 4001)[1:]
    bad = np.flatnonzero(np.abs(amplification(method, grid * d)) > 1.0 + 1e-13)
    if bad.size == 0:
        return 4.0 / mag
    hi = grid[bad[0]]
    lo = hi - grid[0]
    if lo > 0.0 and not ok(lo):
        return 0.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    # h |lambda| below 1e-6 is rounding slack in the test |R| <= 1 + 1e-13, not stability
    return lo / mag if lo > 1e-6 else 0.0
