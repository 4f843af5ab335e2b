"""``chrono-flex bench perf``: the work-precision tables, on the --quick settings.

No timing is asserted (speed is what the benchmark prints, not what a test checks);
the tests check the tables' structure and that the errors fall as the runs are refined,
which fails when a setting does not reach the engine or the error measure is wrong.
"""

import math

import numpy as np
import pytest

from chrono_flex import bench_perf as bp
from chrono_flex import cli
from chrono_flex.errors import ParameterError


def _rows(report, tool):
    return [r for r in report.rows if r.tool == tool]


def _check_table(report, tools, settings):
    """Every tool has one row per setting, in order, with a finite wall time and a
    finite, non-negative error for every measure of the problem."""
    for tool in tools:
        rows = _rows(report, tool)
        assert [r.setting for r in rows] == list(settings[tool])
        for r in rows:
            assert math.isfinite(r.wall) and r.wall > 0
            assert set(r.errors) == set(report.problem.measures)
            assert all(np.isfinite(e) and e >= 0 for e in r.errors.values())


def _check_falls(rows, measure, min_order):
    """Errors fall with every refinement, and from the coarsest to the finest run at
    least as fast as h^min_order (steps) or rtol^min_order (tolerances)."""
    errs = [r.errors[measure] for r in rows]
    assert all(a > b for a, b in zip(errs, errs[1:])), (measure, errs)
    order = math.log(errs[0] / errs[-1]) / math.log(rows[0].setting / rows[-1].setting)
    assert order > min_order, (measure, errs, order)


@pytest.fixture(scope="module")
def reference_bench():
    """One quick benchmark for the module: the reference engine's tools, and the Chrono
    ones where PyChrono is present (the scaling, real-time and user-law parts are the
    same whichever tools are asked for, so one run serves every test here)."""
    from chrono_flex import engines

    chrono = ["chrono", "chrono-beam"] if engines.pychrono_available()[0] else []
    return bp.perf_benchmark(quick=True, tools=["radau", "galpha"] + chrono)


def test_reference_engine_tables_and_convergence(reference_bench):
    p1, p2 = reference_bench["problems"]
    assert (p1.problem.key, p2.problem.key) == ("P1", "P2")
    for rep in (p1, p2):
        _check_table(rep, ("radau", "galpha"), bp.QUICK[rep.problem.key])
    # generalized-alpha is second order (Chung & Hulbert 1993); from 4 ms to 1 ms the
    # coarse steps are not yet in the asymptotic range, so ask for better than first
    # order only.
    for rep in (p1, p2):
        for m in rep.problem.measures:
            _check_falls(_rows(rep, "galpha"), m, 1.0)
    # Radau's error follows the tolerance: 100x smaller rtol, error smaller by more
    # than 10x (order 0.5 in rtol; Radau's local error control gives about order 1).
    _check_falls(_rows(p1, "radau"), "tip", 0.5)


def test_reference_engine_summary_and_scaling(reference_bench):
    p1 = reference_bench["problems"][0]
    # the cheapest run meeting the target is one of the rows that meet it
    ok = [r for r in p1.rows if bp.meets(p1.problem, r.errors)]
    for tool, r in p1.cheapest.items():
        assert r in ok and r.wall == min(x.wall for x in ok if x.tool == tool)
    scaling, exponent = reference_bench["scaling"]
    assert [n for n, _ in scaling] == [2, 4, 8]
    ns, ws = np.array(scaling, dtype=float).T
    assert exponent == pytest.approx(np.polyfit(np.log(ns), np.log(ws), 1)[0])
    lines = bp.format_report(reference_bench)
    text = "\n".join(lines)
    assert "P1: torque-driven link" in text and "P2: gravity pendulum" in text
    assert "wall ~ n^" in text and "Summary: cheapest run reaching the target" in text
    # the Chrono ratio exactly when the Chrono tools ran
    assert (reference_bench["ratio"] is None) == ("chrono" not in reference_bench["tools"])


def test_real_time_line_runs_the_default_settings(reference_bench):
    """The real-time line times the scenarios with the engine's defaults: the method and
    rtol it reports are the default's, and its factor is the span over the wall time."""
    rows = reference_bench["real_time"]
    assert [r[0] for r in rows] == [label for label, _ in bp.REAL_TIME_CASES]
    for label, method, rtol, wall, factor in rows:
        assert (method, rtol) == ("generalized_alpha", 1e-3)
        assert wall > 0 and factor == pytest.approx(1.0 / wall)      # quick: 1 s of motion
    text = "\n".join(bp.format_report(reference_bench))
    assert "times faster than real time" in text


def test_errors_measure_what_the_docstring_says():
    problem = bp.torque_driven_link()
    t = np.linspace(0.0, 1.0, 11)
    tip = np.column_stack([np.cos(t), np.sin(t)])
    ref = bp.Trajectory(t, t, tip, 0.1 * t)
    run = bp.Trajectory(t, t, tip + [0.0, 0.01], 0.1 * t)
    # tip range: the larger of ptp(cos t) and ptp(sin t) on [0, 1]
    span = max(1 - math.cos(1.0), math.sin(1.0))
    assert bp.errors(problem, run, ref)["tip"] == pytest.approx(0.01 / span, rel=1e-12)
    pend = bp.gravity_pendulum()
    run = bp.Trajectory(t, t + 2e-3, tip, 0.1 * t + 1e-3)
    errs = bp.errors(pend, run, ref)
    assert errs["angle"] == pytest.approx(2e-3, rel=1e-9)
    assert errs["deflection"] == pytest.approx(1e-3 / 0.1, rel=1e-9)
    assert not bp.meets(pend, errs)


def test_matched_wall_interpolates_on_the_work_precision_front():
    from chrono_flex.bench_user_laws import _format_user_laws, matched_wall
    # synthetic points on wall = 1e-3 error^-0.5 (a second-order method's cost: error
    # ~ h^2, wall ~ 1/h), given out of order: log-log interpolation is exact on it
    law = lambda e: 1e-3 * e ** -0.5  # noqa: E731
    errs = [1e-2, 1e-4, 1e-3]
    points = [(law(e), e) for e in errs]
    wall, how = matched_wall(points, 3e-4)
    assert how == "interpolated" and wall == pytest.approx(law(3e-4), rel=1e-12)
    # at a point itself, its own wall time
    assert matched_wall(points, 1e-3)[0] == pytest.approx(law(1e-3), rel=1e-12)
    # a dominated run (slower and less accurate than another) is not on the front: with
    # it the answer would be a linear mix that is no longer law(3e-4)
    assert matched_wall(points + [(10.0, 5e-4)], 3e-4)[0] == pytest.approx(law(3e-4),
                                                                          rel=1e-12)
    # beyond the points: extrapolated along the nearest two, and said so
    wall, how = matched_wall(points, 1e-5)
    assert how == "extrapolated" and wall == pytest.approx(law(1e-5), rel=1e-12)
    assert matched_wall([(1.0, 1e-3)], 1e-3) == (None, "no front")
    # the printed line says which (the run's wall time 0.5 x Exudyn's at its accuracy)
    problem = bp.bang_bang_link(4, 0.5)
    row = dict(wall=0.5 * law(3e-4), error=3e-4, n_steps=1, samples=1,
               exudyn=[(h, w, e) for h, (w, e) in zip((4e-3, 1e-3, 2e-3), points)],
               matched=matched_wall(points, 3e-4))
    plain = dict(wall=1.0, error=1e-3, n_steps=1, realtime=1.0)
    text = "\n".join(_format_user_laws({"controller": (problem, row),
                                         "plain": (problem, plain)}))
    assert "at matched accuracy" in text and ": 0.50 (target" in text
    assert "cheapest within 1 %, h 0.004 s): " in text


def test_bad_tool_is_named():
    with pytest.raises(ParameterError, match="tool"):
        bp.run_tool(bp.torque_driven_link(), "adams", 1e-3)
    with pytest.raises(ParameterError, match="tools"):
        bp.available_tools(["radau", "adams"])


def test_exudyn_absent_is_skipped_with_the_reason(monkeypatch):
    monkeypatch.setattr(bp, "exudyn_available", lambda: (False, "Exudyn is not installed"))
    tools, skipped = bp.available_tools(["galpha", "exudyn"])
    assert tools == ["galpha"] and skipped == {"exudyn": "Exudyn is not installed"}


def test_exudyn_cable_matches_the_reference_engine():
    pytest.importorskip("exudyn", reason="Exudyn is not installed (the 'bench' extra)")
    problem = bp.gravity_pendulum(t_end=0.3, n_elements=4)
    exu, _ = bp.run_tool(problem, "exudyn", 1e-3)
    ref, _ = bp.run_tool(problem, "galpha", 1e-3)
    # Same beam theory, same cubic interpolation, same integrator family and step: the
    # joint angles differ by the cable's axial strain (tension / EA ~ 5e-7) and
    # the integrators' details; 1e-5 rad is 1 % of the benchmark's angle target.
    assert np.max(np.abs(exu.at(ref.t).angle - ref.angle)) < 1e-5
    assert exu.angle[0] == pytest.approx(math.radians(-80.0), abs=1e-12)


@pytest.mark.pychrono
def test_chrono_tables_and_ratio(reference_bench):
    from chrono_flex import engines

    ok, why = engines.pychrono_available()
    if not ok:
        pytest.skip(why)
    bench = reference_bench
    assert {"chrono", "chrono-beam"} <= set(bench["tools"])
    for rep in bench["problems"]:
        _check_table(rep, ("chrono", "chrono-beam"), bp.QUICK[rep.problem.key])
        # HHT with alpha = 0 is second order; two coarse steps: better than first order
        for m in rep.problem.measures:
            _check_falls(_rows(rep, "chrono"), m, 1.0)
        assert set(rep.model_difference) == {"chrono", "chrono-beam"}
    assert [n for n, _, _ in bench["ratio"]] == [4, 8]
    assert "Chrono element / Chrono beams" in "\n".join(bp.format_report(bench))


def test_cli_choices_include_perf():
    parser = cli.build_parser()
    args = parser.parse_args(["bench", "perf", "--quick"])
    assert args.what == "perf" and args.quick and args.fn is cli.cmd_bench
