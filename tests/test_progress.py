"""Progress reports: in place on a terminal, a plain line every few seconds in a log,
with the wall time left; silenced by ``quiet`` (the command line's ``--quiet``).

A fake clock drives the reports, so the tests take no wall time and fail when a line
comes too early, too late, or without its estimate.
"""

import io

import pytest

from chrono_flex import cli
from chrono_flex.stepping import Progress, format_duration, progress_wanted, quiet
from chrono_flex.validation import core, runner


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_log_gets_a_plain_line_every_five_seconds_with_the_time_left():
    clock, log = Clock(), io.StringIO()
    p = Progress(10.0, "reference", stream=log, clock=clock)
    assert p.every == 5.0
    clock.now += 4.9
    p(1.0)
    assert log.getvalue() == ""               # not yet: nothing for short runs
    clock.now += 0.1                          # 5 s elapsed, a quarter done
    p(2.5)
    assert log.getvalue() == ("reference: t = 2.5 / 10 s (25 %), 5 s elapsed, "
                              "about 15 s left\n")
    clock.now += 1.0
    p(3.0)
    assert log.getvalue().count("\n") == 1    # the next one 5 s after the last
    clock.now += 4.0                          # 10 s elapsed, 60 % done: 10 * 0.4 / 0.6
    p(6.0)
    assert log.getvalue().splitlines()[-1].endswith("10 s elapsed, about 7 s left")
    clock.now += 55.0
    p.close()
    assert log.getvalue().splitlines()[-1] == "reference: done in 1 min 05 s"
    assert "\r" not in log.getvalue()


def test_terminal_line_is_rewritten_in_place_and_cleared():
    clock, tty = Clock(), Terminal()
    p = Progress(2.0, "chrono", stream=tty, clock=clock)
    assert p.every == 0.5
    clock.now += 0.5
    p(0.5)
    clock.now += 0.5
    p(1.0)
    text = tty.getvalue()
    assert "\n" not in text and text.count("\r") == 2
    assert text.split("\r")[-1].strip() == ("chrono: t = 1 / 2 s (50 %), 1 s elapsed, "
                                            "about 1 s left")
    p.close()
    assert tty.getvalue().endswith("\r") and tty.getvalue().split("\r")[-2].strip() == ""


def test_quiet_silences_what_nobody_asked_for():
    clock, log = Clock(), io.StringIO()
    with quiet():
        assert progress_wanted() is False and progress_wanted(True) is True
        silent = Progress(1.0, stream=log, clock=clock)
        forced = Progress(1.0, "forced", enabled=True, stream=log, clock=clock)
    assert progress_wanted() is True           # restored on leaving the block
    clock.now += 10.0
    silent(0.5)
    forced(0.5)
    assert log.getvalue().startswith("forced: ") and log.getvalue().count("\n") == 1


def test_a_run_that_never_reported_closes_without_a_word():
    log = io.StringIO()
    p = Progress(1.0, stream=log, clock=Clock())
    p(0.5)
    p.close()
    assert log.getvalue() == ""


@pytest.mark.parametrize("seconds,text", [(0.4, "0 s"), (59.4, "59 s"), (60, "1 min 00 s"),
                                          (3599, "59 min 59 s"), (3720, "1 h 02 min")])
def test_durations_read_as_people_write_them(seconds, text):
    assert format_duration(seconds) == text


@pytest.mark.parametrize("command", [["run", "bien-1link-n1"], ["render", "bien-1link-n1"]])
def test_quiet_option_silences_the_run(command, monkeypatch, tmp_path):
    from chrono_flex import engines

    seen = []

    class Stop(Exception):
        pass

    def fake_run_case(*args, **kw):
        seen.append(progress_wanted())
        raise Stop

    monkeypatch.setattr(engines, "run_case", fake_run_case)
    for extra in ([], ["--quiet"]):
        with pytest.raises(Stop):
            cli.main(command + ["--engine", "reference", "--out", str(tmp_path)] + extra)
    assert seen == [True, False]
    assert progress_wanted() is True


def test_validation_writes_a_line_per_case_in_a_log_unless_quiet(monkeypatch, capsys):
    import chrono_flex.validation.cases  # noqa: F401  (register the real cases first)

    monkeypatch.setattr(core, "CASES", {})

    @core.case("p.one", quantity="q", metric="m", tolerance=1.0, reason="synthetic")
    def one(ctx):
        return core.Outcome(0.5)

    assert runner.main(out=io.StringIO()) == 0
    err = capsys.readouterr().err
    assert err.startswith("[1/1] p.one ... (0 s elapsed)\n") and "\r" not in err
    assert cli.main(["validate", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_counted_work_is_reported_in_its_unit():
    clock, log = Clock(), io.StringIO()
    p = Progress(100, "animation", stream=log, clock=clock, unit="frames")
    clock.now += 6.0
    p(30)
    assert log.getvalue() == ("animation: 30 / 100 frames (30 %), 6 s elapsed, "
                              "about 14 s left\n")


def test_a_long_animation_reports_its_frames(tmp_path, monkeypatch, capsys):
    from _synthetic import two_link_result
    from chrono_flex.viz import render, render_animation

    ticks = iter(range(0, 1000, 6))               # each reading of the clock: 6 s later
    monkeypatch.setattr(render, "Progress",
                        lambda *a, **k: Progress(*a, clock=lambda: next(ticks), **k))
    render_animation(two_link_result(nt=9, ns=7), str(tmp_path / "a.gif"), n_frames=4)
    err = capsys.readouterr().err
    assert "animation: 2 / 4 frames (50 %)" in err and "animation: done in" in err


def test_compilation_is_announced_and_left_out_of_the_time_left(monkeypatch):
    """A numba compilation during a run writes the notice once, and the time left is
    estimated from the wall time without it (a fake clock: compilation plus 1 s of
    work at 10 % done leaves 9 s, not 9 times the compilation)."""
    import io

    from chrono_flex import stepping

    numba = pytest.importorskip("numba")
    monkeypatch.setitem(stepping._COMPILING, "announced", False)
    out, clock = io.StringIO(), [0.0]
    p = stepping.Progress(10.0, enabled=True, stream=out, every=0.0, clock=lambda: clock[0])

    def twice_plus_one(x):            # a new function: no disk cache spares its compilation
        return 2.0 * x + 1.0

    before = stepping.compile_seconds()
    assert numba.njit(twice_plus_one)(1.0) == 3.0
    spent = stepping.compile_seconds() - before
    assert spent > 0.0
    assert out.getvalue().count(stepping.COMPILE_NOTICE) == 1
    clock[0] = spent + 1.0
    assert "about 9 s left" in p.line(1.0, clock[0])
    numba.njit(lambda x: x - 1.0)(1.0)                    # a second compilation: no notice
    assert out.getvalue().count(stepping.COMPILE_NOTICE) == 1


def test_a_compiled_run_reports_between_outputs_far_apart():
    """A compiled run whose only output is its end still reports while it works: each
    pause of the compiled loop (:func:`chrono_flex._interrupts.checkpoint`) passes the
    simulated time to the report. The model file's pendulum at a 1 us fixed step for
    0.05 s (50,000 steps): the compiled calls start at 64 steps and double, so the run
    pauses several times before its one output whatever the machine's speed."""
    import pathlib

    from chrono_flex.planar import chain_ga
    from chrono_flex.planar.model_file import read_model

    if not chain_ga.available():
        pytest.skip("the compiled step needs numba as the kernel backend")
    model = pathlib.Path(__file__).resolve().parents[1] / "examples" / "models" / \
        "kozlowski-1link.toml"
    m = read_model(model)
    kw = m.simulate_kwargs()
    kw.update(t_end=0.05, dt_out=0.05, method="generalized_alpha", step=1e-6)
    log = io.StringIO()
    m.arm.simulate(**kw, progress=Progress(0.05, "reference", True, every=0.0, stream=log))
    times = [float(line.split("t = ")[1].split(" /")[0])
             for line in log.getvalue().splitlines() if "t = " in line]
    assert any(0.0 < t < 0.05 for t in times), log.getvalue()
