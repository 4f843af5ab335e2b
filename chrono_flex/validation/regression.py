"""Regression values: numbers stored from an earlier run, kept apart from verification.

They verify nothing by themselves (verification is in :mod:`chrono_flex.validation.cases`); they catch
unintended changes of results that have no closed form. Each carries the date it was
stored and why; never edit a value silently: a deliberate change of the model gets a new
value, a new date and the reason in the same commit.
"""

from dataclasses import dataclass

import numpy as np

from chrono_flex.engines import run_case

from .core import Outcome, case


@dataclass(frozen=True)
class Stored:
    name: str
    quantity: str
    value: float
    rtol: float
    date: str
    reason: str
    compute: object


def _peak_tip(name, t_end):
    def compute():
        r = run_case(name, "reference", t_end=t_end, method="Radau")
        return float(np.max(np.abs(r.tip_deflection)))
    return compute


def _final_angle(name, t_end):
    def compute():
        return float(run_case(name, "reference", t_end=t_end,
                            method="Radau").joint_angles[-1, 0])
    return compute


STORED = [
    Stored("regression.bien-2link-peak-tip", "peak |tip deflection| of bien-2link over 3 s (m)",
           0.046679802, 1e-5, "2026-11-22",
           "reference engine after the validation suite landed; the case's rtol 1e-6 gives "
           "run-to-run reproducibility far below 1e-5, a larger change means the model or "
           "the inputs changed", _peak_tip("bien-2link", 3.0)),
    Stored("regression.kozlowski-1link-peak-tip", "peak |tip deflection| of kozlowski-1link "
           "over 1 s (m)", 0.00020971424, 1e-4, "2026-11-22",
           "as above; 1e-4 because the peak is a sample of a vibration at the case's rtol "
           "1e-6 (the sampled maximum moves with the solver's steps)",
           _peak_tip("kozlowski-1link", 1.0)),
    Stored("regression.drive-bien-1link-final-angle", "joint angle of drive-bien-1link at "
           "3 s (rad)", -0.029866886, 1e-5, "2026-11-22",
           "drive on a flexible link (backlash, LuGre): no closed form; stored to catch "
           "changes of the drive coupling", _final_angle("drive-bien-1link", 3.0)),
]


def _register(s):
    @case(s.name, quantity=s.quantity, metric=f"|value / stored - 1| (stored {s.value!r} "
          f"on {s.date})", tolerance=s.rtol, reason=s.reason, kind="regression",
          engines=("reference",))
    def run(ctx):
        v = s.compute()
        return Outcome(abs(v / s.value - 1.0), details=[f"value {v!r}, stored {s.value!r} "
                                                        f"({s.date})"], data=dict(value=v))
    return run


for _s in STORED:
    _register(_s)
