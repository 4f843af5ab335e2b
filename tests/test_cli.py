"""The command line, run in-process."""

import csv

import numpy as np
import pytest

from chrono_flex import Result
from chrono_flex.cli import main


def test_cases_lists_every_paper_configuration(capsys):
    assert main(["cases"]) == 0
    out = capsys.readouterr().out
    for name in ("bien-1link-n1", "bien-1link-n3", "bien-1link-n5", "bien-1link-n7",
                 "bien-prismatic", "bien-2link", "kozlowski-1link", "kozlowski-2link",
                 "spinup-6", "drive-presliding", "drive-stribeck", "lugre-stick-slip"):
        assert name in out


def test_run_writes_trajectory_and_plot(tmp_path, capsys):
    assert main(["run", "bien-1link-n1", "--engine", "reference", "--t-end", "0.5",
                 "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "tip deflection" in out
    npz = tmp_path / "bien-1link-n1_reference.npz"
    res = Result.from_npz(npz)
    assert res.t[-1] == pytest.approx(0.5)
    with open(tmp_path / "bien-1link-n1_reference.csv") as f:
        rows = list(csv.reader(f))
    assert rows[0][0] == "t" and len(rows) == len(res.t) + 2      # names, units, data
    units = dict(zip(rows[0], rows[1]))
    assert units["t"] == "s" and units["joint1"] == "rad" and units["joint1_torque"] == "N m"
    assert units["energy_kinetic"] == "J" and units["tip_deflection1"] == "m"
    assert "?" not in units.values() and "" not in units.values()
    np.testing.assert_array_equal([float(r[rows[0].index("joint1")]) for r in rows[2:]],
                                  res.joint_angles[:, 0])
    assert (tmp_path / "bien-1link-n1_reference.png").stat().st_size > 10_000


def test_unknown_case_and_engine_are_errors(capsys):
    assert main(["run", "no-such-case", "--engine", "reference"]) == 2
    assert "`case`" in capsys.readouterr().err
    assert main(["run", "bien-2link", "--engine", "warp"]) == 2
    assert "`engine`" in capsys.readouterr().err


def test_identify_efficiency_from_csv(tmp_path, capsys):
    rng = np.random.default_rng(7)
    K_ML, Mc = 3.266, 0.0405
    M = np.linspace(0.3, 3.0, 25)
    eta = (M * (1 - K_ML * Mc) - Mc) / M + rng.normal(scale=2e-3, size=M.size)
    path = tmp_path / "eff.csv"
    path.write_text("torque,efficiency\n" + "\n".join(f"{a},{b}" for a, b in zip(M, eta)))
    assert main(["identify", "efficiency", str(path)]) == 0
    out = capsys.readouterr().out
    assert "K_ML" in out and "Mc" in out
    bad = tmp_path / "bad.csv"
    bad.write_text("1.0,0.5\n2.0,abc\n")
    assert main(["identify", "efficiency", str(bad)]) == 2
    assert "abc" in capsys.readouterr().err


@pytest.mark.pychrono
def test_run_chrono_beam_raises_coarse_meshes_to_eight_elements(tmp_path, capsys, monkeypatch):
    """bien-1link-n1 has one element per link: chrono-beam gets n_elements=8 and says
    so; --elements overrides it (checked on the argument simulate_beams receives, then
    one short real run)."""
    from chrono_flex.chrono import beams

    seen = []
    real = beams.simulate_beams

    def spy(arm, **kw):
        seen.append(kw.get("n_elements"))
        return real(arm, **kw)

    monkeypatch.setattr(beams, "simulate_beams", spy)
    assert main(["run", "bien-1link-n1", "--engine", "chrono-beam", "--t-end", "0.01",
                 "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "using 8 beam elements per link" in out
    assert main(["run", "bien-1link-n1", "--engine", "chrono-beam", "--t-end", "0.01",
                 "--elements", "3", "--out", str(tmp_path)]) == 0
    assert "beam elements per link" not in capsys.readouterr().out
    assert seen == [8, 3]
    assert (tmp_path / "bien-1link-n1_chrono-beam.npz").exists()


def test_render_vtk_series_has_the_frames_asked_for(tmp_path, monkeypatch, capsys):
    """`render --vtk DIR --frames N` writes N .vtu files (not one per output step) into DIR
    taken from the current directory, not from --out; the run itself is replaced by a
    synthetic result of 41 output times."""
    from dataclasses import replace

    from _synthetic import two_link_result
    from chrono_flex import engines

    res = two_link_result(nt=41)
    res = replace(res, info={**res.info, "case": "bien-1link-n1"})
    monkeypatch.setattr(engines, "run_case", lambda case, engine, **kw: res)
    monkeypatch.chdir(tmp_path)
    assert main(["render", "bien-1link-n1", "--vtk", "series", "--frames", "5",
                 "--out", str(tmp_path / "out"), "--quiet"]) == 0
    vtus = [p for p in (tmp_path / "series").iterdir() if p.suffix == ".vtu"]
    assert len(vtus) == 5
    assert not (tmp_path / "out" / "series").exists()
    assert "bien-1link-n1.pvd" in capsys.readouterr().out


def test_render_relative_gif_path_is_from_the_current_directory(tmp_path, monkeypatch,
                                                                 capsys):
    """`render CASE --gif out/r/b.gif` writes ./out/r/b.gif (it used to look for
    out/CASE/out/r and stop); the frame and the plot stay in the output directory. The
    run is a synthetic result."""
    from dataclasses import replace

    from _synthetic import two_link_result
    from chrono_flex import engines

    res = replace(two_link_result(nt=11), info={"engine": "reference",
                                                "case": "bien-1link-n3"})
    monkeypatch.setattr(engines, "run_case", lambda case, engine, **kw: res)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out" / "r").mkdir(parents=True)
    assert main(["render", "bien-1link-n3", "--gif", "out/r/b3.gif", "--frames", "3",
                 "--quiet"]) == 0
    out = capsys.readouterr().out
    assert (tmp_path / "out" / "r" / "b3.gif").stat().st_size > 1000
    assert "wrote out/r/b3.gif" in out
    assert (tmp_path / "out" / "bien-1link-n3" / "bien-1link-n3_plot.png").exists()
    assert not (tmp_path / "out" / "bien-1link-n3" / "out").exists()


def test_plot_of_two_results(tmp_path, capsys):
    """`plot A.npz B.npz --out F.svg` overlays both in one vector figure, each labelled
    by its file name (or --labels); a wrong number of labels or a missing file is one
    clean error line."""
    from _synthetic import two_link_result

    a = two_link_result(nt=21).to_npz(tmp_path / "coarse.npz")
    b = two_link_result(nt=41, amplitudes=(0.01, 0.03)).to_npz(tmp_path / "fine.npz")
    out = tmp_path / "both.svg"
    assert main(["plot", str(a), str(b), "--out", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    svg = out.read_text()
    assert "<svg" in svg and "coarse, link 1" in svg and "fine, link 2" in svg
    assert main(["plot", str(a), str(b), "--labels", "A,B", "--out", str(tmp_path / "l.png")]) == 0
    assert (tmp_path / "l.png").stat().st_size > 10_000
    assert main(["plot", str(a), str(b), "--labels", "A"]) == 2
    assert "`--labels`" in capsys.readouterr().err
    assert main(["plot", str(tmp_path / "none.npz")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["plot", str(a), "--out", str(tmp_path / "x.jpg")]) == 2


def test_run_samples_the_bending_mode_it_draws():
    """kozlowski-1link's 34.9 Hz bending mode (joints free) gets ten or more output
    points a period: 2 ms, where the case's 10 ms gives 2.9; a fine step stays."""
    from chrono_flex import engines, scenarios

    arm, kw = scenarios.get("kozlowski-1link").arm_and_kwargs()
    dt, f = engines.resolving_dt_out(arm, kw["dt_out"])
    assert f == pytest.approx(34.92, abs=0.01)          # printed to four digits above
    assert dt == 0.002 and 1 / (f * dt) >= engines.POINTS_PER_PERIOD
    assert engines.resolving_dt_out(arm, 0.001) == (0.001, f)


def test_warnings_show_as_one_clean_line(tmp_path, monkeypatch, capsys):
    """A warning of a run (here a StiffeningWarning raised by a stand-in for the run)
    is one line on stderr, with its category and without Python's source line."""
    import warnings
    from dataclasses import replace

    from _synthetic import two_link_result
    from chrono_flex import engines
    from chrono_flex.errors import StiffeningWarning

    res = replace(two_link_result(nt=11), info={"engine": "reference", "case": "bien-1link-n1"})

    def run(case, engine, **kw):
        warnings.warn("the linear model left its range;\n  rerun with stiffening",
                      StiffeningWarning)
        return res

    monkeypatch.setattr(engines, "run_case", run)
    assert main(["run", "bien-1link-n1", "--engine", "reference", "--out", str(tmp_path),
                 "--quiet"]) == 0
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert err == ["chrono-flex: StiffeningWarning: the linear model left its range; "
                   "rerun with stiffening"]


def test_every_option_has_help_and_no_markup():
    """Every option and argument of every command says what it is, and `--help` shows
    no reStructuredText (double backticks, :func: roles) from the docstrings."""
    import argparse

    from chrono_flex.cli import build_parser

    missing, markup = [], []

    def walk(parser, name):
        text = parser.format_help()
        if "``" in text or ":func:" in text or ":mod:" in text or ":class:" in text:
            markup.append(name)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, p in action.choices.items():
                    walk(p, f"{name} {sub}")
            elif not isinstance(action, argparse._HelpAction) and not action.help:
                missing.append(f"{name} {action.option_strings or action.dest}")

    walk(build_parser(), "chrono-flex")
    assert missing == [] and markup == []
