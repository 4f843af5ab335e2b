"""Campaigns: sweeps and the parallel validation suite (chrono_flex.campaign).

The Dask tests start a LocalCluster of two worker processes; they skip with the reason
where dask.distributed is absent. Runs are short (0.05 s of simulated time) and use the
numpy kernels (no compilation in each fresh worker process).
"""

import csv
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from chrono_flex import Result, campaign
from chrono_flex.cli import main
from chrono_flex.errors import ParameterError

HAVE_DASK, WHY_NO_DASK = campaign.dask_status()
needs_dask = pytest.mark.skipif(not HAVE_DASK, reason=f"needs the 'dist' extra: {WHY_NO_DASK}")

CASE = "bien-1link-n1"
VARY = ["payload.mass=0.1,0.2", "links[0].EI=1.0,2.0"]
T_END = 0.05
ROOT = str(pathlib.Path(__file__).resolve().parents[1])


@pytest.fixture(autouse=True)
def numpy_kernels(monkeypatch):
    # inherited by the worker processes: no numba compilation in each of them
    monkeypatch.setenv("CHRONO_FLEX_KERNELS", "numpy")


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@needs_dask
def test_sweep_on_two_workers_matches_serial_runs(tmp_path):
    par = campaign.sweep(CASE, VARY, tmp_path / "dask", t_end=T_END, n_workers=2,
                         log=lambda s: None)
    # the serial runs in a process whose BLAS has one thread, as Dask's workers have
    # (distributed.nanny.pre-spawn-environ): a threaded BLAS sums in another order and
    # differs in the last bits (1e-21 rad here)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1", PYTHONPATH=ROOT)
    args = [sys.executable, "-m", "chrono_flex", "sweep", CASE, "--t-end", str(T_END),
            "--out", str(tmp_path / "serial"), "--serial"]
    for v in VARY:
        args += ["--vary", v]
    subprocess.run(args, env=env, check=True, capture_output=True, timeout=600)
    ser = json.loads((tmp_path / "serial" / "summary.json").read_text())
    assert [r["status"] for r in par] == ["ok"] * 4, par
    # the cartesian product, in order
    assert [(r["payload.mass"], r["links[0].EI"]) for r in par] == \
        [(0.1, 1.0), (0.1, 2.0), (0.2, 1.0), (0.2, 2.0)]
    for a, b in zip(par, ser):
        ra = Result.from_npz(tmp_path / "dask" / "runs" / a["npz"])
        rb = Result.from_npz(tmp_path / "serial" / "runs" / b["npz"])
        # the same code on the same inputs: bit-identical, whichever process ran it
        assert np.array_equal(ra.q, rb.q) and np.array_equal(ra.qd, rb.qd)
        assert ra.engine == "reference" and ra.model["payload"]["mass"] == a["payload.mass"]
        assert ra.info["sweep"]["params"]["links[0].EI"] == a["links[0].EI"]
        assert ra.t[-1] == pytest.approx(T_END)
        assert {k: v for k, v in a.items() if k != "wall_s"} == \
            {k: v for k, v in b.items() if k != "wall_s"}
    # a stiffer link deflects less under the same torque
    assert par[1]["peak_tip_deflection1"] < par[0]["peak_tip_deflection1"]
    rows = read_csv(tmp_path / "dask" / "summary.csv")
    assert len(rows) == 4 and rows[3]["links[0].EI"] == "2.0"
    assert float(rows[2]["joint1_final"]) == par[2]["joint1_final"]   # repr round-trips
    assert json.loads((tmp_path / "dask" / "summary.json").read_text())[0]["run"] == 0
    assert (tmp_path / "dask" / "summary.png").stat().st_size > 10_000


@needs_dask
def test_sweep_on_an_existing_cluster_by_its_address(tmp_path):
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                      dashboard_address=None) as cluster:
        rows = campaign.sweep(CASE, ["payload.mass=0.1,0.2"], tmp_path, t_end=T_END,
                              scheduler=cluster.scheduler_address, log=lambda s: None)
        assert len(cluster.scheduler.workers) == 1      # the cluster is left running
    assert [r["status"] for r in rows] == ["ok", "ok"]
    assert (tmp_path / "runs" / "run-001.npz").exists()


@needs_dask
def test_unreachable_scheduler_is_named(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(campaign, "CONNECT_TIMEOUT", "1s")    # nobody listens on port 9
    assert main(["sweep", CASE, "--vary", "payload.mass=0.1", "--t-end", str(T_END),
                 "--out", str(tmp_path), "--scheduler", "tcp://127.0.0.1:9"]) == 2
    assert "--scheduler" in capsys.readouterr().err


def test_sweep_serial_records_a_failed_run_and_goes_on(tmp_path, capsys):
    code = main(["sweep", CASE, "--vary", 'simulation.method="Radau","NoSuchMethod"',
                 "--t-end", str(T_END), "--out", str(tmp_path), "--serial"])
    assert code == 1                       # not every run succeeded
    rows = read_csv(tmp_path / "summary.csv")
    assert [r["status"] for r in rows] == ["ok", "failed"]
    assert "NoSuchMethod" in rows[1]["error"] and rows[1]["npz"] == ""
    assert (tmp_path / "runs" / rows[0]["npz"]).exists()
    assert (tmp_path / "summary.png").stat().st_size > 5_000     # drawn without the failed run
    assert "1 ok, 1 failed" in capsys.readouterr().out


def test_first_frequency_scales_as_sqrt_EI(tmp_path):
    rows = campaign.sweep(CASE, ["links[0].EI=1.0,2.0,4.0"], tmp_path, t_end=T_END,
                          parallel=False, log=lambda s: None)
    f = np.array([r["f1_locked_hz"] for r in rows])
    # only the stiffness matrix changes, in proportion to EI: omega^2 scales exactly with
    # it; 1e-10 is the eigensolver's round-off on a 3x3 problem, with margin
    np.testing.assert_allclose(f / f[0], np.sqrt([1.0, 2.0, 4.0]), rtol=1e-10)
    assert len(read_csv(tmp_path / "summary.csv")) == 3


@pytest.mark.parametrize("vary, named", [
    ("payload.mas=1,2", "payload.mas"),             # unknown key
    ("links[3].EI=1,2", "links[3].EI"),              # no such link
    ("payload.mass=0.1,-1", "payload.mass"),         # bad value (read back before any run)
    ("payload.mass", "--vary"),                     # no values
    ("payload.mass=0.1,@", "payload.mass"),          # not a value
])
def test_bad_key_or_value_is_named_before_any_run(tmp_path, capsys, vary, named):
    assert main(["sweep", CASE, "--vary", vary, "--out", str(tmp_path), "--serial"]) == 2
    err = capsys.readouterr().err
    assert named in err and err.count("\n") == 1, err
    assert not (tmp_path / "summary.csv").exists()
    assert not list((tmp_path / "runs").glob("*.npz")) if (tmp_path / "runs").exists() else True


def test_summary_write_is_atomic(tmp_path):
    rows = [dict(run=0, status="ok", joint1_final=1.5)]
    csv_path, json_path = campaign.write_summary(rows, tmp_path)
    before = open(json_path).read()
    with pytest.raises(TypeError):          # not JSON: the old summary.json stays whole
        campaign.write_summary([dict(run=0, status="ok", bad=object())], tmp_path)
    assert open(json_path).read() == before
    assert sorted(os.listdir(tmp_path)) == ["summary.csv", "summary.json"]   # no temp files


def test_set_key_rules():
    data = {"links": [{"EI": 1.0, "E": 2.0, "I": 0.5, "rho_A": 1.0}], "payload": {"mass": 1.0}}
    campaign.set_key(data, "links[0].EI", 3.0)
    assert data["links"][0] == {"EI": 3.0, "rho_A": 1.0}   # E and I would contradict it
    campaign.set_key(data, "simulation.t_end", 0.1)         # a missing table is created
    assert data["simulation"] == {"t_end": 0.1}
    with pytest.raises(ParameterError, match="links has 1 entries"):
        campaign.set_key(data, "links[1].EI", 1.0)
    with pytest.raises(ParameterError, match="no table 'joints'"):
        campaign.set_key(data, "joints.type", "revolute")
    assert campaign.parse_vary("inputs.torque.amplitude=[0.1, 0.2],0.3") == \
        ("inputs.torque.amplitude", [[0.1, 0.2], 0.3])


def test_without_dask_sweep_is_serial_and_parallel_names_the_extra(tmp_path, capsys,
                                                                   monkeypatch):
    monkeypatch.setattr(campaign, "dask_status", lambda: (False, "no dask here"))
    assert main(["validate", "--only", "beam.static-tip-load", "--parallel", "2"]) == 2
    err = capsys.readouterr().err
    assert "--parallel" in err and "'dist' extra" in err
    assert main(["sweep", CASE, "--vary", "payload.mass=0.1", "--t-end", str(T_END),
                 "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "one after the other" in out and "no dask here" in out


@needs_dask
def test_validate_parallel_gives_the_serial_verdicts(tmp_path):
    only = "beam.static-*,formulations.power-law-stiffness"
    assert main(["validate", "--only", only, "--json", str(tmp_path / "s.json"), "-q"]) == 0
    assert main(["validate", "--only", only, "--json", str(tmp_path / "p.json"), "-q",
                 "--parallel", "2"]) == 0
    serial = json.loads((tmp_path / "s.json").read_text())
    parallel = json.loads((tmp_path / "p.json").read_text())
    assert len(serial) == 3
    assert [(r["name"], r["status"], r["value"]) for r in parallel] == \
        [(r["name"], r["status"], r["value"]) for r in serial]
