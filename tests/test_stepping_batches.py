"""The stepping loop with a stepper that reaches several output times at once
(``Stepper.advance_outputs``): each output gets the guards it would get after
``advance``, in order, before the error that stopped the stepper is raised."""

import numpy as np
import pytest

from chrono_flex.errors import SimulationError
from chrono_flex.stepping import Stepper, output_times, run


class Batches(Stepper):
    """x(t) = t; reaches ``per_call`` outputs per call, with the deflection ratios
    ``ratio(t)``; raises ``error`` after output ``stop`` (an index)."""

    def __init__(self, per_call, ratio=lambda t: 0.0, stop=None, error=None):
        self.per_call, self.ratio, self.stop, self.error = per_call, ratio, stop, error
        self.t = 0.0
        self.calls = 0
        self.done = 0

    def advance_outputs(self, t_targets):
        self.calls += 1
        out = []
        for t in t_targets[:self.per_call]:
            self.t = float(t)
            out.append((self.t, self.ratio(self.t), {"x": np.array([self.t])}))
            self.done += 1
            if self.stop is not None and self.done == self.stop:
                return out, self.error
        return out, None

    def deflection_ratio(self):
        return self.ratio(self.t)

    def record(self, t):
        return {"x": np.array([self.t])}


def test_outputs_reached_in_batches_are_all_recorded():
    t_out = output_times(0.0, 1.0, 0.1)
    s = Batches(4)
    rec = run(s, t_out)
    np.testing.assert_allclose(rec["x"][:, 0], t_out)     # x(t) = t at every output
    assert s.calls == 3                                  # 10 outputs, 4 per call


def test_the_guard_stops_at_the_first_output_over_the_limit():
    """The ratio crosses 0.5 at t = 0.35: the run stops at the output 0.4, the first one
    over it, although the batch went on to 0.8."""
    s = Batches(8, ratio=lambda t: t + 0.15)
    with pytest.raises(SimulationError, match="tip deflection") as exc:
        run(s, output_times(0.0, 1.0, 0.1))
    assert exc.value.time == pytest.approx(0.4)


def test_an_error_after_the_batch_comes_after_its_outputs_guards():
    """The stepper failed after its 6th output (0.6 s); the guard trips at 0.4 s first.
    Without the guard the stepper's own error is raised."""
    err = SimulationError("the engine failed", 0.65)
    with pytest.raises(SimulationError, match="tip deflection"):
        run(Batches(8, ratio=lambda t: t + 0.15, stop=6, error=err),
            output_times(0.0, 1.0, 0.1))
    with pytest.raises(SimulationError, match="the engine failed"):
        run(Batches(8, stop=6, error=err), output_times(0.0, 1.0, 0.1))
