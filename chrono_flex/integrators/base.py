"""What the reference engine's own integrators (:class:`~.explicit.RungeKutta4`,
:class:`~.generalized_alpha.GeneralizedAlpha`) share: a state ``x`` at time ``t`` that
``advance`` moves one step towards an output time, landing on it, a step checked once
and the budget of ``max_nfev`` evaluations counted once. scipy's solvers come through
:class:`~.ivp.OdeStepper` with the same ``advance``, ``current``, ``state`` and
``counters``."""

import numpy as np

from ..errors import BudgetExceeded, ParameterError

#: Methods of the reference engines with a fixed step or their own step control, whose
#: steps land on the times they are asked for (the others are scipy's adaptive solvers).
FIXED_STEP = ("generalized_alpha", "rk4")


def checked_step(step):
    """``step`` as a float if it is a number > 0, else ParameterError naming ``step``."""
    if isinstance(step, bool) or not isinstance(step, (int, float, np.number)) \
            or not step > 0:
        raise ParameterError("step", step, "must be > 0")
    return float(step)


class LandingStepper:
    """The base of the integrators whose steps land on the output times. A subclass
    sets ``t``, ``x``, ``nfev`` and ``max_nfev`` (None: no budget), and names itself in
    :attr:`method` (with :attr:`budget_hint` after its budget message)."""

    #: The method's name in messages (``method`` of ``simulate``).
    method = ""
    #: What the budget message suggests, after the count.
    budget_hint = ""

    @property
    def current(self):
        return self.x

    def state(self, t):
        """The state at an output time: the steps land on them (``advance``)."""
        return self.x.copy()

    def _budget_error(self, t):
        return BudgetExceeded(f"{self.method} used up its budget of max_nfev = "
                              f"{self.max_nfev} right-hand-side evaluations"
                              f"{self.budget_hint}", t)

    def _count_evaluation(self, t):
        """One more evaluation of the equations, within the ``max_nfev`` budget."""
        if self.max_nfev is not None and self.nfev >= self.max_nfev:
            raise self._budget_error(t)
        self.nfev += 1


__all__ = ["FIXED_STEP", "LandingStepper", "checked_step"]
