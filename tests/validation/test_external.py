"""The reference data of the top-level validation/ folder: the cases that read it, their
skip where it is absent, its README and its regeneration.

Regenerating one Exudyn reference must reproduce the committed file: the runs are
deterministic, so the regenerated trajectory must agree with the stored one far inside
the stored reference's own time error (1 % of it: anything larger would be a different
reference, not round-off of another machine or library build).
"""

import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from chrono_flex.validation import core, external, runner

ROOT = Path(__file__).resolve().parents[2] / "validation"


def _run(pattern):
    return {r["name"]: r for r in runner.run_cases(core.select(pattern), progress=False)[0]}


def test_absent_data_is_skipped_with_the_reason(monkeypatch, tmp_path):
    monkeypatch.setenv(external.ENV, str(tmp_path))         # a folder without the data
    rows = _run("published.s-table2-printed,exudyn.pendulum")
    for r in rows.values():
        assert r["status"] == "skipped"
        assert "needs a source checkout's validation/" in r["message"]
    assert external.validation_dir() is None


def test_a_case_without_external_data_still_runs(monkeypatch, tmp_path):
    monkeypatch.setenv(external.ENV, str(tmp_path))
    assert _run("published.s-table2")["published.s-table2"]["status"] == "passed"


def test_printed_s_table2_is_reproduced_and_a_changed_point_fails(monkeypatch, tmp_path):
    assert _run("published.s-table2-printed")["published.s-table2-printed"]["status"] == "passed"
    folder = tmp_path / "validation"
    shutil.copytree(ROOT / "papers", folder / "papers")
    (folder / "README.md").write_text("copy\n")
    table = folder / "papers" / "serebrenny2019_table2.csv"
    # one efficiency 0.005 off (ten printed digits): K_ML moves by far more than rounding allows
    table.write_text(table.read_text().replace("0.40,0.766", "0.40,0.771"))
    monkeypatch.setenv(external.ENV, str(folder))
    assert _run("published.s-table2-printed")["published.s-table2-printed"]["status"] == "FAILED"


def test_readme_lists_every_reference_with_tool_version_and_command():
    readme = (ROOT / "README.md").read_text()
    files = sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob("*/*")
                   if p.suffix in (".npz", ".csv"))
    assert len(files) >= 5
    for f in files:
        assert f in readme, f"validation/README.md does not list {f}"
    for p in (ROOT / "exudyn").glob("*.npz"):
        version = str(np.load(p)["exudyn_version"])
        assert f"Exudyn {version}" in readme, f"README does not give {p.name}'s Exudyn version"
        assert re.search(rf"exudyn_references.py {p.stem}\b", readme), p.stem
    size = sum(p.stat().st_size for p in ROOT.rglob("*") if p.is_file() and "report" not in p.parts)
    assert size < 1_000_000, f"validation/ data is {size} bytes"


@pytest.mark.slow
def test_regenerating_a_reference_reproduces_the_committed_data():
    pytest.importorskip("exudyn", reason="Exudyn is not installed (the 'validation' extra)")
    from chrono_flex.validation.exudyn_refs import generate

    stored = external.read_npz("exudyn/tip-mass.npz")
    new = generate("tip-mass")
    for k in ("angles", "deflections"):
        bound = 0.01 * np.max(stored[f"time_{k}"])      # 1 % of the stored time error
        assert np.max(np.abs(new[k] - stored[k])) <= bound, k
    assert np.max(np.linalg.norm(new["tip"] - stored["tip"], axis=1)) <= 0.01 * stored["time_tip"][0]
    np.testing.assert_allclose(new["t"], stored["t"], atol=1e-12)
