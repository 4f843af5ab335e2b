"""Named scenarios (docs/drive.md §7): they run, plot, and show the behaviours [S] and
Canudas de Wit et al. 1995 describe."""

import math

import numpy as np
import pytest

from chrono_flex.drive import DriveParams
from chrono_flex.scenarios.drive import SCENARIOS, run_scenario
from chrono_flex.scenarios.drive import CW1995
from chrono_flex.errors import ParameterError

P = DriveParams.serebrenny2019()


def test_registry_entries():
    assert set(SCENARIOS) == {"drive-presliding", "drive-stribeck", "lugre-stick-slip",
                              "drive-step"}
    for name, (description, func) in SCENARIOS.items():
        assert isinstance(description, str) and "\n" not in description and callable(func)
    with pytest.raises(ParameterError) as e:
        run_scenario("no-such-scenario")
    assert e.value.parameter == "scenario"


def test_presliding_hysteresis(tmp_path):
    r = run_scenario("drive-presliding", t_end=2.5)
    d = r.data
    x_dyn, x_sta = np.max(np.abs(d["x_dynamic"])), np.max(np.abs(d["x_static"]))
    # dynamic: bristle displacement of order Ms / sigma0 = 4.7e-4 rad (Fig. 7: ~1e-3 rad)
    assert 0.3 * P.Ms / P.sigma0 < x_dyn < 3 * P.Ms / P.sigma0
    # static: creep speed <= dOmega2, so displacement ~ dOmega2 / w = 8e-6 rad: a line
    assert x_sta < 2 * P.dOmega2 / (2 * math.pi * 2.0)
    assert x_sta < 0.05 * x_dyn
    # no breakaway: friction follows the applied torque, always below Ms
    for kind in ("dynamic", "static"):
        assert np.max(np.abs(d[f"F_{kind}"])) < P.Ms
    # loop area (energy per cycle): the dynamic loop is wide, the static line is not
    assert r.metrics["loop_area_dynamic"] > 10 * r.metrics["loop_area_static"]
    r.plot(tmp_path / "presliding.png")
    assert (tmp_path / "presliding.png").stat().st_size > 10_000
    assert r.summary().startswith("drive-presliding")


def test_stribeck_drop_and_frictional_lag():
    r = run_scenario("drive-stribeck")
    d = r.data
    v, F_sta, F_dyn = d["v"], d["F_sta"], d["F_dyn"]
    # both follow the curve from ~Ms at 1 rad/s down to Mc at 41 rad/s (exp(-(41/10.47)^2) = 2e-7)
    assert F_sta[np.argmin(v)] == pytest.approx(P.Ms, rel=0.01)
    assert F_sta[np.argmax(v)] == pytest.approx(P.Mc, rel=1e-6)
    assert F_dyn[np.argmax(v)] == pytest.approx(P.Mc, rel=1e-3)
    # the dynamic friction lags: accelerating and decelerating branches differ, by much
    # more than the solver tolerance (rtol 1e-8 of 0.04 N m)
    assert r.metrics["hysteresis_width"] > 1e-5


def test_lugre_stick_slip_reproduces_canudas_de_wit():
    r = run_scenario("lugre-stick-slip")
    d = r.data
    v, spring, t = d["v"], d["spring"], d["t"]
    sliding = v > 0.05
    starts = np.flatnonzero(sliding[1:] & ~sliding[:-1]) + 1
    assert starts.size >= 3 and r.metrics["n_slips"] == starts.size   # repeated stick-slip
    # slip starts when the spring force reaches about Fs = 1.5 N (LuGre breakaway under a
    # slow force ramp of 0.2 N/s; presliding creep makes it a little early or late)
    assert np.all(np.abs(spring[starts] - CW1995["Fs"]) < 0.03)
    # in between, the mass sticks: |v| tiny (presliding creep only)
    stuck = (t > t[starts[0]] + 3.5) & (t < t[starts[1]] - 0.5)
    assert np.max(np.abs(v[stuck])) < 1e-3


def test_drive_step(tmp_path):
    r = run_scenario("drive-step", t_end=0.06)
    d = r.data
    stall = 12.0 / P.R
    for kind in ("dynamic", "static"):
        assert 0.8 * stall < np.max(d[f"current_{kind}"]) < stall     # back-EMF limits it
    # both friction models agree in the end (steady sliding: same Stribeck curve)
    assert d["output_speed_dynamic"][-1] == pytest.approx(d["output_speed_static"][-1], rel=1e-3)
    r.plot(tmp_path / "step.png")
    assert (tmp_path / "step.png").exists()
