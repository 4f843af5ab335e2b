"""The validation suite: the runner's contract, and the whole suite passing.

``test_the_whole_suite_passes`` runs every case (the Chrono ones where PyChrono is
present, skipped with the reason where it is absent) exactly as ``chrono-flex validate``
does, and checks the JSON summary and the report it writes.
"""

import json
import os

import pytest

import chrono_flex.engines
from chrono_flex import cli
from chrono_flex.validation import core, runner
from chrono_flex.validation.core import Outcome


@pytest.fixture
def scratch_cases(monkeypatch):
    """An empty registry for synthetic cases (the real one is restored afterwards)."""
    import chrono_flex.validation.cases  # noqa: F401  (register the real cases first)

    monkeypatch.setattr(core, "CASES", {})
    return core.CASES


def _register_synthetic():
    @core.case("t.pass", quantity="q", metric="m", tolerance=1.0, reason="because")
    def ok(ctx):
        return Outcome(0.5, plot=lambda fig: fig.add_subplot(111).plot([0, 1], [0, 1]))

    @core.case("t.fail", quantity="q", metric="m", tolerance=1.0, reason="because")
    def bad(ctx):
        return Outcome(2.0)

    @core.case("t.raise", quantity="q", metric="m", tolerance=1.0, reason="because")
    def boom(ctx):
        raise ValueError("broken model")

    @core.case("t.rate", quantity="q", metric="m", tolerance=(3.5, 4.5), compare="window",
               reason="because")
    def rate(ctx):
        return Outcome(float("nan"))

    @core.case("t.chrono", quantity="q", metric="m", tolerance=1.0, reason="because",
               needs_pychrono=True, engines=("chrono",))
    def chrono(ctx):
        return Outcome(0.0)


def test_runner_reports_pass_fail_error_nan_and_skip(scratch_cases, monkeypatch, tmp_path):
    _register_synthetic()
    monkeypatch.setattr(chrono_flex.engines, "pychrono_available", lambda: (False, "not here"))
    out = tmp_path / "table.txt"
    with open(out, "w") as f:
        code = runner.main(json_path=str(tmp_path / "s.json"), report_dir=str(tmp_path / "r"),
                           progress=False, out=f)
    assert code == 1
    rows = {r["name"]: r for r in json.load(open(tmp_path / "s.json"))}
    assert rows["t.pass"]["passed"] is True and rows["t.pass"]["value"] == 0.5
    assert rows["t.fail"]["passed"] is False and rows["t.fail"]["status"] == "FAILED"
    assert rows["t.raise"]["status"] == "error" and "broken model" in rows["t.raise"]["message"]
    assert rows["t.rate"]["passed"] is False          # NaN never passes
    assert rows["t.chrono"]["status"] == "skipped" and "not here" in rows["t.chrono"]["message"]
    for r in rows.values():
        assert set(r) >= {"name", "passed", "metric", "value", "tolerance", "engines", "seconds"}
    report = (tmp_path / "r" / "report.md").read_text()
    assert "t.pass" in report and "figures/t.pass.png" in report
    assert os.path.getsize(tmp_path / "r" / "figures" / "t.pass.png") > 1000
    table = out.read_text()
    assert "1 passed, 3 failed, 1 skipped" in table


def test_only_selects_by_glob_and_exit_code_is_zero_when_all_pass(scratch_cases, tmp_path):
    _register_synthetic()
    assert runner.main(only="t.pass", progress=False, out=open(tmp_path / "o", "w")) == 0
    assert runner.main(only="nothing.*", out=open(tmp_path / "o", "w")) == 2


def test_a_case_without_a_reason_is_refused(scratch_cases):
    with pytest.raises(ValueError, match="no reason"):
        core.case("t.x", quantity="q", metric="m", tolerance=1.0, reason=" ")


def test_a_case_takes_its_words_from_its_docstring_or_its_decorator(scratch_cases):
    @core.case("t.doc", tolerance=1.0)
    def documented(ctx):
        """A summary line that is not a declaration.

        Quantity: a tip
            deflection

        Metric: max relative error

        Reason: nodally exact elements: round-off"""
        return Outcome(0.0)

    c = core.CASES["t.doc"]
    assert (c.quantity, c.metric, c.reason, c.source) == (
        "a tip deflection", "max relative error", "nodally exact elements: round-off", "")
    with pytest.raises(ValueError, match="gives its metric twice"):
        core.case("t.both", metric="m", tolerance=1.0)(documented)
    with pytest.raises(ValueError, match="has no reason"):
        @core.case("t.none", quantity="q", metric="m", tolerance=1.0)
        def undocumented(ctx):
            return Outcome(0.0)


def test_every_real_case_states_its_tolerance_and_reason():
    cases = core.select()
    assert len(cases) >= 40
    names = [c.name for c in cases]
    for group in ("beam.", "dynamics.", "formulations.", "integrators.", "spinup.", "drive.",
                  "engines.", "regression.", "published.", "stiffening."):
        assert any(n.startswith(group) for n in names), group
    for c in cases:
        assert len(c.reason) > 20, c.name
        assert c.kind in core.KINDS
    regression = [c for c in cases if c.kind == "regression"]
    assert regression and all("2026-" in c.metric for c in regression)


def _case_params():
    """One test per registered case, so that pytest-xdist spreads the suite over the
    workers; the Chrono cases carry the ``pychrono`` marker (skipped with the reason
    where PyChrono is absent, as ``chrono-flex validate`` does)."""
    out = []
    for c in core.select():
        marks = [pytest.mark.slow] + ([pytest.mark.pychrono] if c.needs_pychrono else [])
        out.append(pytest.param(c.name, marks=marks, id=c.name))
    return out


@pytest.mark.parametrize("name", _case_params())
def test_validation_case_passes(name):
    """Every case passes, run exactly as ``chrono-flex validate --only NAME`` runs it."""
    rows, outcomes = runner.run_cases(core.select(name), progress=False)
    (row,) = rows
    if row["status"] == "skipped":      # its data are absent (an installed package)
        pytest.skip(row["message"])
    assert row["status"] == "passed", (row["value"], row["tolerance_text"], row["message"],
                                       row.get("traceback", ""))
    assert name in outcomes
    if outcomes[name].plot is not None:
        # the report's figure draws: the report would only print one line for a broken one
        from matplotlib.figure import Figure

        outcomes[name].plot(Figure())


def test_validate_command_writes_json_and_report(tmp_path, capsys):
    """The command end to end on a fast group (every case of it passes): JSON summary, Markdown report with one figure per case that draws one."""
    only = "beam.*"
    code = cli.main(["validate", "--only", only, "--json", str(tmp_path / "v.json"),
                     "--report", str(tmp_path / "rep")])
    printed = capsys.readouterr().out
    rows = json.load(open(tmp_path / "v.json"))
    assert code == 0, printed[-3000:]
    assert rows and all(r["status"] == "passed" for r in rows)
    assert {r["name"] for r in rows} == {c.name for c in core.select(only)}
    report = (tmp_path / "rep" / "report.md").read_text()
    figures = os.listdir(tmp_path / "rep" / "figures")
    assert figures and all(f"figures/{f}" in report for f in figures)
