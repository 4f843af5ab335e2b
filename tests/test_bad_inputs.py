"""Bad inputs are refused naming their source; writes are atomic; runs are repeatable.

API cases assert the error type and that the message names the parameter or callback.
Command-line cases assert exit code 2, a one-line message and no traceback, and that the
output paths are checked before the (long) run starts. Interrupted writes leave the
previous file byte for byte as it was.
"""

import csv
import math
import os
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

import chrono_flex as cf
from _synthetic import two_link_result
from chrono_flex import cli
from chrono_flex.drive import (DriveParams, GearDrive, identify_efficiency,
                               identify_efficiency_output, read_efficiency_csv, simulate_drive)
from chrono_flex.errors import ParameterError, SimulationError
from chrono_flex.result import Result
from chrono_flex.viz import render, render_animation, write_vtk_series

CASE = "bien-1link-n1"


@pytest.fixture(scope="module")
def drive():
    return GearDrive(DriveParams.serebrenny2019())


@pytest.fixture(scope="module")
def small_arm():
    return cf.PlanarArm([cf.Link(1.0, 2, EI=10.0, rho_A=0.5)])


@pytest.fixture(scope="module")
def result():
    res = two_link_result(nt=9, ns=7)
    res.info["case"] = CASE
    return res


def names(exc_info, name):
    """The error names ``name`` (as its parameter and in its message)."""
    assert f"`{name}`" in str(exc_info.value) or name in str(exc_info.value), str(exc_info.value)


# ------------------------------------------------------------------ A1 identification

@pytest.mark.parametrize("fit,name", [(identify_efficiency, "M_in"),
                                      (identify_efficiency_output, "M_out")])
@pytest.mark.parametrize("M", [[1.0, 1.0, 1.0], [1.0, 1.0, 2.0], [2.0, 1.0, 2.0, 1.0]])
def test_efficiency_fit_refuses_too_few_distinct_torques(fit, name, M):
    with pytest.raises(ParameterError) as e:
        fit(M, [0.8] * len(M))
    assert e.value.parameter == name
    names(e, name)
    assert "distinct" in str(e.value)


def test_efficiency_fit_still_accepts_three_distinct_torques():
    M = np.array([0.5, 1.0, 2.0])
    fit = identify_efficiency(M, (M * (1 - 3.0 * 0.04) - 0.04) / M + [1e-3, -1e-3, 5e-4])
    assert np.isfinite(fit.K_ML) and np.isfinite(fit.Mc)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("body,column,value", [
    ("eta,torque\n0.5,1.0\n0.6,2.0\n0.7,3.0\n", 1, "eta"),          # header names
    ("M,T [N m]\n0.5,1.0\n0.6,2.0\n0.7,3.0\n", 2, "T [N m]"),
    ("0.5,1.0\n0.6,2.0\n0.7,3.0\n", 2, "2.0"),                      # value ranges
])
def test_swapped_csv_columns_are_refused_naming_the_column(tmp_path, body, column, value):
    path = write(tmp_path, "swapped.csv", body)
    e = pytest.raises(ParameterError, read_efficiency_csv, path)
    assert (e.value.parameter, e.value.value) == (f"{path}, column {column}", value)
    assert "swapped" in str(e.value)


@pytest.mark.parametrize("data", [b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
                                  b"\xff\xfe1,0.5\n2,0.6\n"])
def test_binary_or_undecodable_csv_names_the_file(tmp_path, data):
    path = tmp_path / "data.csv"
    path.write_bytes(data)
    with pytest.raises(ParameterError) as e:
        read_efficiency_csv(path)
    assert e.value.parameter == "path" and e.value.value == str(path)


def run_cli(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_clean_error(code, err, *words):
    assert code == 2
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("chrono-flex: error:")
    for w in words:
        assert w in err, err


def test_cli_identify_refuses_identical_points(tmp_path, capsys):
    path = write(tmp_path, "same.csv", "torque,eta\n1.0,0.8\n1.0,0.8\n1.0,0.8\n")
    code, out, err = run_cli(capsys, "identify", "efficiency", path)
    assert_clean_error(code, err, "column 1", "distinct")
    assert "+-" not in out


@pytest.mark.parametrize("body,column", [("eta,torque\n0.5,1.0\n0.6,2.0\n0.7,3.0\n", 1),
                                         ("0.5,1.0\n0.6,2.0\n0.7,3.0\n", 2)])
def test_cli_identify_refuses_swapped_columns(tmp_path, capsys, body, column):
    code, _, err = run_cli(capsys, "identify", "efficiency", write(tmp_path, "s.csv", body))
    assert_clean_error(code, err, f"column {column}", "swapped")


@pytest.mark.parametrize("data", [bytes(range(256)) * 4, b"\xff\xfe\xfd1,0.5\n"])
def test_cli_identify_binary_file(tmp_path, capsys, data):
    path = tmp_path / "bin.csv"
    path.write_bytes(data)
    code, _, err = run_cli(capsys, "identify", "efficiency", path)
    assert_clean_error(code, err, "`path`", str(path))


# ------------------------------------------------------------------ A2 booleans

@pytest.mark.parametrize("value", ["no", "False", 0, 1, None, 1.0])
def test_geometric_stiffening_must_be_a_bool(small_arm, value):
    with pytest.raises(ParameterError) as e:
        cf.PlanarArm(list(small_arm.links), geometric_stiffening=value)
    assert e.value.parameter == "geometric_stiffening" and e.value.value == value
    names(e, "geometric_stiffening")


@pytest.mark.parametrize("value", [True, False, np.True_, np.False_])
def test_geometric_stiffening_takes_python_and_numpy_bools(small_arm, value):
    arm = cf.PlanarArm(list(small_arm.links), geometric_stiffening=value)
    assert arm.geometric_stiffening is bool(value)


# ------------------------------------------------------------------ A3 drive outputs

def test_drive_dt_out_above_t_end_is_refused(drive):
    with pytest.raises(ParameterError) as e:
        simulate_drive(drive, 0.01, drive_input=12.0, dt_out=0.02)
    assert e.value.parameter == "dt_out"
    names(e, "dt_out")


def test_drive_outputs_keep_the_requested_spacing_and_end_at_t_end(drive):
    r = simulate_drive(drive, 0.01, drive_input=12.0, dt_out=0.006)
    np.testing.assert_array_equal(r.t, [0.0, 0.006, 0.01])
    r = simulate_drive(drive, 0.01, drive_input=12.0, dt_out=0.0025)
    np.testing.assert_allclose(r.t, [0.0, 0.0025, 0.005, 0.0075, 0.01], rtol=0, atol=1e-18)
    assert r.t[-1] == 0.01
    r = simulate_drive(drive, 0.01, drive_input=12.0, dt_out=0.01)
    np.testing.assert_array_equal(r.t, [0.0, 0.01])
    assert len(simulate_drive(drive, 0.01, drive_input=12.0).t) == 1001


# ------------------------------------------------------------------ A4 NPZ path

def test_to_npz_writes_exactly_the_given_path(result, tmp_path):
    path = tmp_path / "traj.dat"
    assert result.to_npz(str(path)) == str(path)
    assert path.exists() and not (tmp_path / "traj.dat.npz").exists()
    assert sorted(os.listdir(tmp_path)) == ["traj.dat"]
    back = Result.from_npz(path)
    np.testing.assert_array_equal(back.q, result.q)


# ------------------------------------------------------------------ A5, A6 sizes

def test_natural_frequencies_beyond_the_model_name_n_and_the_count(small_arm):
    n_modes = small_arm.elastic_index.size
    assert len(small_arm.natural_frequencies(n_modes)) == n_modes
    with pytest.raises(ParameterError) as e:
        small_arm.natural_frequencies(n=1000)
    assert e.value.parameter == "n" and e.value.value == 1000
    assert f"at most {n_modes}" in str(e.value)


def test_link_elements_have_a_documented_limit():
    from chrono_flex.planar.params import MAX_ELEMENTS

    assert MAX_ELEMENTS == 2000
    assert cf.Link(1.0, MAX_ELEMENTS, EI=1.0, rho_A=1.0).n_elements == MAX_ELEMENTS
    for n in (MAX_ELEMENTS + 1, 10**6):
        with pytest.raises(ParameterError) as e:
            cf.Link(1.0, n_elements=n, EI=1.0, rho_A=1.0)
        assert e.value.parameter == "n_elements" and e.value.value == n
        assert str(MAX_ELEMENTS) in str(e.value)


# ------------------------------------------------------------------ B7 drive callbacks, settings

@pytest.mark.parametrize("u,error", [
    (lambda t: float("nan"), SimulationError),
    (lambda t: 12.0 if t < 1e-3 else math.inf, SimulationError),
    (lambda t: None, ParameterError),
    (lambda t: "12 V", ParameterError),
    (lambda t: [12.0, 1.0], ParameterError),
    (lambda t: np.ones((2, 2)), ParameterError),
])
def test_drive_input_callback_faults_name_it_and_the_time(drive, u, error):
    with pytest.raises(error) as e:
        simulate_drive(drive, 0.005, drive_input=u)
    names(e, "drive_input")
    assert "t = " in str(e.value)
    if error is ParameterError:
        assert e.value.parameter == "drive_input"
    else:
        assert e.value.time is not None


def test_drive_input_callback_that_raises_is_chained(drive):
    class Broken(Exception):
        pass

    def u(t):
        if t > 1e-3:
            raise Broken("sensor lost")
        return 12.0

    with pytest.raises(SimulationError) as e:
        simulate_drive(drive, 0.005, drive_input=u)
    assert isinstance(e.value.__cause__, Broken)
    assert "`drive_input`" in str(e.value) and "Broken" in str(e.value) and "sensor lost" in str(e.value)
    assert e.value.time is not None and e.value.time > 1e-3
    assert f"t = {e.value.time:.6g} s" in str(e.value)


def test_drive_m_out_callback_is_named(drive):
    with pytest.raises(ParameterError) as e:
        simulate_drive(drive, 0.005, drive_input=12.0, m_out=lambda t: "load")
    assert e.value.parameter == "m_out"


@pytest.mark.parametrize("name,value", [("atol", -1), ("atol", [1e-9] * 5), ("max_step", 0),
                                        ("max_step", -1.0), ("method", "bogus"),
                                        ("rtol", -1), ("rtol", 0.0), ("max_nfev", 0),
                                        ("max_nfev", 2.5)])
def test_drive_solver_settings_are_named(drive, name, value):
    with pytest.raises(ParameterError) as e:
        simulate_drive(drive, 0.005, drive_input=12.0, **{name: value})
    assert e.value.parameter == name
    names(e, name)


def test_drive_evaluation_budget(drive):
    with pytest.raises(SimulationError) as e:
        simulate_drive(drive, 0.05, drive_input=12.0, max_nfev=50)
    assert "max_nfev = 50" in str(e.value) and e.value.time is not None
    r = simulate_drive(drive, 0.005, drive_input=12.0, max_nfev=10**6)
    assert r.info["nfev"] <= 10**6 and r.info["max_nfev"] == 10**6


# ------------------------------------------------------------------ B8 command line

@pytest.fixture
def no_run(monkeypatch):
    """Any simulation started by the command line fails the test: the output checks must
    come first."""
    from chrono_flex import engines
    from chrono_flex.validation import runner

    def started(*a, **k):
        raise AssertionError("the run started before the output paths were checked")

    monkeypatch.setattr(engines, "run_case", started)
    monkeypatch.setattr(runner, "run_cases", started)


def test_cli_out_directory_under_a_file(tmp_path, capsys, no_run):
    (tmp_path / "somefile").write_text("x")
    for cmd in (["run", CASE, "--engine", "reference"], ["render", CASE]):
        code, _, err = run_cli(capsys, *cmd, "--out", tmp_path / "somefile" / "x")
        assert_clean_error(code, err, "`--out`", "somefile")


def test_cli_too_long_names(tmp_path, capsys, no_run):
    code, _, err = run_cli(capsys, "run", CASE, "--engine", "reference",
                           "--out", tmp_path / ("d" * 300))
    assert_clean_error(code, err, "`--out`")
    code, _, err = run_cli(capsys, "render", CASE, "--out", tmp_path,
                           "--gif", "g" * 300 + ".gif")
    assert_clean_error(code, err, "`--gif`", "at most")


def test_cli_gif_into_a_missing_directory(tmp_path, capsys, no_run):
    code, _, err = run_cli(capsys, "render", CASE, "--out", tmp_path,
                           "--gif", tmp_path / "missing" / "a.gif")
    assert_clean_error(code, err, "`--gif`", "does not exist")
    assert not (tmp_path / "missing").exists()
    code, _, err = run_cli(capsys, "render", CASE, "--out", tmp_path, "--gif", "a.png")
    assert_clean_error(code, err, "`--gif`")


def test_cli_vtk_directory_under_a_file(tmp_path, capsys, no_run):
    (tmp_path / "f").write_text("x")
    code, _, err = run_cli(capsys, "render", CASE, "--out", tmp_path, "--vtk", tmp_path / "f")
    assert_clean_error(code, err, "`--vtk`")


def test_cli_validate_json_into_an_unwritable_path(tmp_path, capsys, no_run):
    (tmp_path / "somefile").write_text("x")
    code, _, err = run_cli(capsys, "validate", "--json", tmp_path / "somefile" / "v.json")
    assert_clean_error(code, err, "`--json`")
    code, _, err = run_cli(capsys, "validate", "--json", tmp_path)        # a directory
    assert_clean_error(code, err, "`--json`")
    code, _, err = run_cli(capsys, "validate", "--report", tmp_path / "somefile")
    assert_clean_error(code, err, "`--report`")


def test_cli_unexpected_os_errors_are_one_line(tmp_path, capsys, monkeypatch):
    from chrono_flex.drive import identify

    def full(path):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(identify, "identify_command", full)
    code, _, err = run_cli(capsys, "identify", "efficiency", tmp_path / "x.csv")
    assert_clean_error(code, err, "No space left on device")


def test_cli_cases_into_a_closed_pipe_exits_quietly():
    """``chrono-flex cases | head -1``: the reader is gone before the listing is written."""
    p = subprocess.Popen([sys.executable, "-m", "chrono_flex", "cases"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    p.stdout.close()                  # long before the child has imported and printed
    err = p.stderr.read().decode()
    p.stderr.close()
    assert p.wait(timeout=120) == 0
    assert "Traceback" not in err and "BrokenPipe" not in err and err == ""


def test_cli_says_when_it_overwrote(tmp_path, capsys, monkeypatch, result):
    from chrono_flex import engines

    monkeypatch.setattr(engines, "run_case", lambda name, engine, **kw: result)
    argv = ["run", CASE, "--engine", "reference", "--out", tmp_path]
    code, out, _ = run_cli(capsys, *argv)
    assert code == 0
    csv_path = os.path.join(str(tmp_path), f"{CASE}_reference.csv")
    assert f"wrote {csv_path}" in out and "overwrote" not in out
    code, out, _ = run_cli(capsys, *argv)
    assert code == 0 and f"overwrote {csv_path}" in out
    assert "\nwrote " not in out


# ------------------------------------------------------------------ C9 atomic writes

def snapshot(directory):
    return {name: (directory / name).read_bytes() for name in sorted(os.listdir(directory))}


def test_interrupted_csv_write_keeps_the_previous_file(result, tmp_path, monkeypatch):
    path = tmp_path / "traj.csv"
    result.to_csv(path)
    before = snapshot(tmp_path)
    real = csv.writer

    def writer(f):
        w, n = real(f), [0]

        def writerow(row):
            n[0] += 1
            if n[0] == 4:
                raise OSError(28, "No space left on device")
            w.writerow(row)
        return SimpleNamespace(writerow=writerow)

    from chrono_flex import result as result_module

    monkeypatch.setattr(result_module, "csv", SimpleNamespace(writer=writer))
    with pytest.raises(OSError):
        result.to_csv(path)
    assert snapshot(tmp_path) == before


def test_interrupted_npz_write_keeps_the_previous_file(result, tmp_path, monkeypatch):
    path = tmp_path / "traj.npz"
    result.to_npz(path)
    before = snapshot(tmp_path)

    def half(f, **arrays):
        f.write(b"PK\x03\x04 half an archive")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez_compressed", half)
    with pytest.raises(OSError):
        result.to_npz(path)
    assert snapshot(tmp_path) == before


def test_animation_failing_at_frame_4_leaves_the_old_gif(result, tmp_path, monkeypatch):
    path = tmp_path / "arm.gif"
    render_animation(result, path, scale=10, n_frames=3)
    before = snapshot(tmp_path)
    real, calls = render._Scene.update, [0]

    def update(self, k):
        calls[0] += 1
        if calls[0] == 4:
            raise RuntimeError("frame 4 failed")
        return real(self, k)

    monkeypatch.setattr(render._Scene, "update", update)
    with pytest.raises(RuntimeError, match="frame 4"):
        render_animation(result, path, scale=10, n_frames=6)
    assert snapshot(tmp_path) == before


def test_failed_vtk_series_leaves_the_previous_one(result, tmp_path, monkeypatch):
    from chrono_flex.viz import vtk

    write_vtk_series(result, tmp_path, stem="arm", every=2)
    before = snapshot(tmp_path)
    real, calls = vtk.frame_vtu, [0]

    def frame(*a, **kw):
        calls[0] += 1
        if calls[0] == 3:
            raise MemoryError("frame 3")
        return real(*a, **kw)

    monkeypatch.setattr(vtk, "frame_vtu", frame)
    with pytest.raises(MemoryError):
        write_vtk_series(result, tmp_path, stem="arm", every=1)
    assert snapshot(tmp_path) == before          # no new .vtu, no staging directory


def test_failed_first_vtk_series_leaves_no_vtu(result, tmp_path, monkeypatch):
    from chrono_flex.viz import vtk

    def frame(*a, **kw):
        raise RuntimeError("no frames")

    monkeypatch.setattr(vtk, "frame_vtu", frame)
    with pytest.raises(RuntimeError):
        write_vtk_series(result, tmp_path / "v", stem="arm")
    assert os.listdir(tmp_path / "v") == []


def test_rewritten_vtk_series_removes_only_its_own_stale_frames(result, tmp_path):
    write_vtk_series(result, tmp_path, stem="arm", every=1)           # frames 0..8
    (tmp_path / "other_00007.vtu").write_text("another series")
    (tmp_path / "arm_notes.txt").write_text("keep")
    pvd = write_vtk_series(result, tmp_path, stem="arm", every=4)     # frames 0, 4, 8
    files = sorted(os.listdir(tmp_path))
    assert files == ["arm.pvd", "arm_00000.vtu", "arm_00004.vtu", "arm_00008.vtu",
                     "arm_notes.txt", "other_00007.vtu"]
    assert pvd == str(tmp_path / "arm.pvd")


def test_atomic_write_keeps_mode_and_cleans_up(tmp_path):
    from chrono_flex._files import atomic_write

    path = tmp_path / "a.txt"
    path.write_text("old")
    os.chmod(path, 0o640)
    with atomic_write(path, "w") as f:
        f.write("new")
    assert path.read_text() == "new" and (os.stat(path).st_mode & 0o777) == 0o640
    with pytest.raises(KeyError):
        with atomic_write(path, "w") as f:
            f.write("half")
            raise KeyError("stop")
    assert path.read_text() == "new" and os.listdir(tmp_path) == ["a.txt"]


# ------------------------------------------------------------------ determinism

def test_planar_runs_are_bit_identical(small_arm):
    def run():
        return small_arm.simulate(0.05, joint_angles0=[0.1], dt_out=0.005,
                                  torque=lambda t, q, qd: [0.2 * math.sin(40 * t)])

    a, b = run(), run()
    for name in ("t", "q", "qd", "tip_position", "tip_deflection", "joint_torque"):
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes(), name
    assert a.energy.balance.tobytes() == b.energy.balance.tobytes()


def test_drive_runs_are_bit_identical(drive):
    def run():
        return simulate_drive(drive, 0.02, drive_input=lambda t: 12.0 * min(1.0, t / 0.005),
                              m_out=0.01, dt_out=0.001)

    a, b = run(), run()
    assert a.t.tobytes() == b.t.tobytes() and a.states.tobytes() == b.states.tobytes()
    for k in a.outputs:
        assert a.outputs[k].tobytes() == b.outputs[k].tobytes(), k
