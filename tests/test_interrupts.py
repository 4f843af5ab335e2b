"""Ctrl-C and wall-time budgets in long compiled runs (chrono_flex._interrupts).

The compiled generalized-alpha loop returns to Python after about 0.1 s of work, so an
interrupt or a spent budget acts within about that long at any step size: an interrupted
run raises KeyboardInterrupt (the command line exits 130 with one line and writes
nothing), a run stopped by its budget raises BudgetExceeded carrying the partial Result.
The interrupt tests run a long compiled run in a subprocess and send it SIGINT once its
first progress line shows it is inside the step loop.
"""

import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex import cli
from chrono_flex._interrupts import watching
from chrono_flex.errors import BudgetExceeded
from chrono_flex.planar import chain_ga
from chrono_flex.planar.model_file import read_model
from chrono_flex.result import Result

ROOT = pathlib.Path(__file__).resolve().parents[1]
MODEL = ROOT / "examples" / "models" / "kozlowski-1link.toml"

compiled = pytest.mark.skipif(not chain_ga.available(),
                              reason="the compiled step needs numba as the kernel backend")

#: Seconds from SIGINT to the process' exit that the tests accept: the compiled calls
#: last about 0.1 s (chain_ga.CALL_SECONDS); the rest is the interpreter's shutdown
#: (about 1 s measured on two busy cores) and scheduling on a shared machine.
EXIT_WITHIN = 5.0


def long_model(tmp_path, step, extra=""):
    """The pendulum of kozlowski-1link for 100 s at a tiny fixed step: hours of work."""
    text = MODEL.read_text().replace("t_end = 5.0", "t_end = 100.0").replace(
        "dt_out = 0.01", f'dt_out = 0.5\nstep = {step}\nmethod = "generalized_alpha"{extra}')
    path = tmp_path / "long.toml"
    path.write_text(text)
    return path


@pytest.fixture(autouse=True)
def python_sigint_handler():
    """Each test starts from Python's own Ctrl-C handler, whatever an earlier test of the
    same process left (a run of a library that leaves SIGINT ignored would otherwise make
    the interrupts below vanish, and be inherited by the subprocesses)."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)   # Python then installs its own handler


def start(args, tmp_path):
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, *args], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_default_sigint)


def interrupt_in_loop(proc, marker):
    """Wait for the line ``marker`` on stderr (the run's first progress report: inside
    the step loop), send SIGINT, and return (seconds to exit, stdout, stderr)."""
    seen = []
    deadline = time.time() + 600            # a cold numba cache compiles for minutes
    for line in proc.stderr:
        seen.append(line)
        if marker in line or time.time() > deadline:
            break
    assert any(marker in s for s in seen), "".join(seen)
    sent = time.time()
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("no exit within 60 s of SIGINT")
    return time.time() - sent, out, "".join(seen) + err


@compiled
@pytest.mark.parametrize("step", [1e-7, 1e-4])
def test_cli_ctrl_c_in_compiled_loop_exits_130_and_writes_nothing(tmp_path, step):
    model = long_model(tmp_path, step)
    proc = start(["-m", "chrono_flex", "run", str(model), "--engine", "reference",
                  "--out", "out"], tmp_path)
    took, out, err = interrupt_in_loop(proc, "reference: t =")
    assert proc.returncode == 130, err
    assert took < EXIT_WITHIN, took
    assert err.strip().splitlines()[-1] == "chrono-flex: interrupted", err
    assert "Traceback" not in err and "SystemError" not in err, err
    assert not (tmp_path / "out").exists() or not os.listdir(tmp_path / "out")


@pytest.mark.slow
@compiled
def test_api_ctrl_c_raises_keyboard_interrupt(tmp_path):
    model = long_model(tmp_path, 1e-7)
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent(f"""
        from chrono_flex.planar.model_file import read_model
        m = read_model({str(model)!r})
        try:
            m.arm.simulate(**m.simulate_kwargs(), progress=True)
        except KeyboardInterrupt:
            print("KeyboardInterrupt")
        else:
            print("finished")
    """))
    took, out, err = interrupt_in_loop(start([str(script)], tmp_path), "reference: t =")
    assert out.strip() == "KeyboardInterrupt", (out, err)
    assert took < EXIT_WITHIN, took


@compiled
def test_wall_time_budget_stops_a_compiled_run_and_keeps_the_partial_result():
    m = read_model(MODEL)
    kw = m.simulate_kwargs()
    kw.update(t_end=0.01, method="generalized_alpha", step=1e-4)
    m.arm.simulate(**kw)                    # compiled (or loaded) before the timing
    kw.update(t_end=100.0, step=1e-8, dt_out=0.1, max_wall_time=1.0)
    t0 = time.perf_counter()
    with pytest.raises(BudgetExceeded) as e:
        m.arm.simulate(**kw)
    took = time.perf_counter() - t0
    # the budget is looked at every compiled call (about 0.1 s); the rest is the set-up
    # before the loop and the partial Result's post-processing
    assert took < 1.0 + 1.5, took
    res = e.value.partial
    assert res is not None and res.info["partial"] is True
    assert "max_wall_time" in res.info["stopped"]
    assert 0.0 < res.t[-1] == pytest.approx(e.value.time, rel=1e-9)   # where it stopped
    assert np.all(np.isfinite(res.q)) and res.q.shape[0] == res.t.size


def test_budget_of_a_python_loop_keeps_outputs():
    arm = cf.PlanarArm([cf.Link(1.0, 2, EI=10.0, rho_A=0.5)])
    with pytest.raises(BudgetExceeded) as e:
        arm.simulate(t_end=50.0, method="Radau", rtol=1e-10, dt_out=0.001,
                     torque=lambda t, q, qd: [0.1 * np.sin(t)], max_wall_time=0.5)
    res = e.value.partial
    assert res.info["partial"] and res.t.size >= 2
    assert np.all(np.diff(res.t) > 0) and res.t[-1] == pytest.approx(e.value.time)


@compiled
def test_cli_budget_error_writes_nothing_unless_partial_asked(tmp_path, capsys):
    m = read_model(MODEL)
    kw = m.simulate_kwargs()
    kw.update(t_end=0.01, method="generalized_alpha", step=1e-4)
    m.arm.simulate(**kw)                    # compiled before the budget starts
    model = long_model(tmp_path, 1e-7, extra="\nmax_wall_time = 0.5")
    out = tmp_path / "out"
    code = cli.main(["run", str(model), "--engine", "reference", "--out", str(out), "-q"])
    err = capsys.readouterr().err
    assert code == 2 and "max_wall_time" in err, err
    assert not out.exists() or not os.listdir(out)
    code = cli.main(["run", str(model), "--engine", "reference", "--out", str(out), "-q",
                     "--partial"])
    err = capsys.readouterr().err
    assert code == 2 and "partial result" in err, err
    res = Result.from_npz(out / "long_reference.npz")
    assert res.info["partial"] is True and res.t[-1] > 0.0


def test_an_interrupt_swallowed_by_a_finaliser_is_still_raised():
    """Python ignores an exception raised inside __del__ (numba's compiler runs many):
    a Ctrl-C that lands there would be lost; within a run it is raised at the end."""
    class Finaliser:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):           # the handler runs between these bytecodes
                pass

    with pytest.raises(KeyboardInterrupt):
        with watching(None):
            Finaliser()                     # collected at once; the interrupt is ignored
            reached_end = True
    assert reached_end


@compiled
def test_paused_compiled_calls_take_the_same_steps(monkeypatch):
    """Calls bounded to a few steps (resumed from where they paused) give the numbers of
    one long call, bit for bit: fixed step with and without a time-only torque, step
    control with and without a compiled profile."""
    arm = cf.PlanarArm([cf.Link(1.0, 3, EI=10.0, rho_A=0.5), cf.Link(0.5, 2, EI=5.0,
                                                                     rho_A=0.3)])
    torque = cf.inputs.time_only(lambda t: [0.2 * np.sin(3 * t), 0.05])
    runs = []
    for steps in (None, 3):
        if steps is not None:
            monkeypatch.setattr(chain_ga, "CALL_SECONDS", 0.0)     # never grows
            monkeypatch.setattr(chain_ga.ChainStep, "__init__", _with_max_steps(steps))
        runs.append([arm.simulate(t_end=0.2, dt_out=0.05, method="generalized_alpha",
                                  step=step, torque=tq)
                     for tq, step in ((None, 1e-3), (torque, 1e-3), (None, None),
                                      (cf.inputs.sine([0.5, 0.2], 3.0, 0.4), None))])
    for whole, paused in zip(*runs):
        assert paused.info["newton"] == "compiled"
        np.testing.assert_array_equal(whole.q, paused.q)


def _with_max_steps(n):
    init = chain_ga.ChainStep.__init__

    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.max_steps = n
    return __init__


def test_budget_of_a_spatial_run_keeps_outputs():
    from chrono_flex.spatial import params as sp
    from chrono_flex.spatial.arm import SpatialArm

    arm = SpatialArm([sp.SpatialLink(1.0, 2, EI_y=3.0, EI_z=2.0, GJ=1.0, rho_A=0.5,
                                     rho_Ip=1e-2)])
    with pytest.raises(BudgetExceeded) as e:
        arm.simulate(t_end=50.0, method="Radau", rtol=1e-10, dt_out=0.001,
                     torque=lambda t, q, qd: [0.1 * np.sin(t)], max_wall_time=0.5)
    res = e.value.partial
    assert res.info["partial"] and res.t.size >= 2
    assert res.t[-1] == pytest.approx(e.value.time)
