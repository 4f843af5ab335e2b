"""Every result writes and reads itself: a spatial arm's Result (tip in 3D, no plane),
the RRRP arm's RRRPResult (a Result) and the drive's DriveResult."""

import csv

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex.drive import DriveParams, GearDrive, simulate_drive
from chrono_flex.drive.simulate import DriveResult
from chrono_flex.formulations.rrrp import RRRPArm, RRRPResult
from chrono_flex.spatial import RevoluteJoint, SpatialLink


def _header(path):
    with open(path, newline="") as f:
        return next(csv.reader(f))


def _column(path, name):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    k = rows[0].index(name)
    assert rows[1][k] != ""                  # the second row gives each column's unit
    return np.array([float(r[k]) for r in rows[2:]])


@pytest.fixture(scope="module")
def spatial_result():
    link = SpatialLink(0.5, 1, EI_y=2.0, EI_z=1.0, GJ=1.0, rho_A=0.2, rho_Ip=1e-3)
    arm = cf.SpatialArm([link], joints=[RevoluteJoint(axis=(0, 1, 0))], gravity=True)
    return arm.simulate(0.05, q0=[0.2], dt_out=0.01, step=1e-3, progress=False)


def test_a_spatial_result_writes_its_tip_in_3d_and_reads_back(spatial_result, tmp_path):
    res = spatial_result
    assert res.plane is None and res.tip_position.shape == (res.t.size, 3)
    assert abs(res.tip_position[-1, 2]) > 1e-3           # gravity and the y axis: out of z = 0
    path = res.to_csv(tmp_path / "s.csv")
    assert {"tip_x", "tip_y", "tip_z"} <= set(_header(path))
    np.testing.assert_array_equal(_column(path, "tip_z"), res.tip_position[:, 2])
    back = cf.Result.from_npz(res.to_npz(tmp_path / "s.npz"))
    assert back.plane is None
    np.testing.assert_array_equal(back.tip_position, res.tip_position)
    assert "\n" not in repr(res)


def test_the_rrrp_result_is_a_result(tmp_path):
    res = RRRPArm().simulate(0.02, q0=[0.0, 0.3, -0.3, 0, 0, 0, 0, 2.6], dt_out=0.01,
                             progress=False)
    assert isinstance(res, cf.Result) and isinstance(res, RRRPResult)
    np.testing.assert_array_equal(res.joint_angles, res.q[:, [0, 1, 2, 7]])
    np.testing.assert_array_equal(res.tip_deflection[:, 1], np.hypot(res.q[:, 5], res.q[:, 6]))
    path = res.to_csv(tmp_path / "r.csv")
    np.testing.assert_array_equal(_column(path, "tip_z"), res.tip_position[:, 2])
    back = RRRPResult.from_npz(res.to_npz(tmp_path / "r.npz"))
    np.testing.assert_array_equal(back.joint_position, res.joint_position)
    np.testing.assert_array_equal(back.angular_momentum_z, res.angular_momentum_z)
    np.testing.assert_array_equal(back.inputs, res.inputs)
    assert "joint 4" in res.summary() and "\n" not in repr(res)


def test_the_drive_result_writes_reads_and_prints_in_one_line(tmp_path):
    r = simulate_drive(GearDrive(DriveParams.serebrenny2019()), 0.01, drive_input=12.0,
                       dt_out=1e-3)
    assert "\n" not in repr(r) and "DriveResult" in repr(r) and "array" not in repr(r)
    path = r.to_csv(tmp_path / "d.csv")
    np.testing.assert_array_equal(_column(path, "output_speed"), r.state("output_speed"))
    np.testing.assert_array_equal(_column(path, "out_current"), r.outputs["current"])
    back = DriveResult.from_npz(r.to_npz(tmp_path / "d.npz"))
    np.testing.assert_array_equal(back.states, r.states)
    assert set(back.outputs) == set(r.outputs) and back.info["method"] == "Radau"
    assert back.summary() == r.summary()


def _every_method_round_trips(res, tmp_path, stem):
    """to_csv (names, units, one row per sample), to_npz/from_npz (equal columns), a
    summary, a figure and a one-line repr without arrays."""
    path = res.to_csv(tmp_path / f"{stem}.csv")
    cols = res.columns()
    assert _header(path) == list(cols)
    for name in list(cols)[1:3]:
        np.testing.assert_array_equal(_column(path, name), cols[name])
    back = type(res).from_npz(res.to_npz(tmp_path / f"{stem}.npz"))
    assert list(back.columns()) == list(cols)
    for name, v in cols.items():
        np.testing.assert_array_equal(back.columns()[name], v)
    assert back.summary() == res.summary() and repr(back) == repr(res)
    assert "\n" not in repr(res) and "array" not in repr(res)
    fig = res.plot(tmp_path / f"{stem}.png")
    assert len(fig.axes) >= 2 and (tmp_path / f"{stem}.png").stat().st_size > 10_000
    return back


def test_a_drive_scenario_writes_reads_and_prints_in_one_line(tmp_path):
    from chrono_flex.scenarios.drive import SCENARIOS, ScenarioResult

    res = SCENARIOS["drive-step"][1](t_end=0.01)
    back = _every_method_round_trips(res, tmp_path, "scenario")
    assert isinstance(back, ScenarioResult)
    assert back.metrics == res.metrics and back.panels[0]["title"] == res.panels[0]["title"]
    path = tmp_path / "scenario.csv"
    assert _column(path, "t").size == res.data["t"].size
    units = dict(zip(_header(path), _units_row(path)))
    assert units["t"] == "s" and units["current_dynamic"] == "A"   # from the axis labels


def _units_row(path):
    with open(path, newline="") as f:
        rows = csv.reader(f)
        next(rows)
        return next(rows)


def test_the_weak_coupling_result_writes_reads_and_prints_in_one_line(tmp_path):
    from chrono_flex.formulations import screw as sc

    arm = cf.PlanarArm([cf.Link(1.0, 2, EI=5.0, rho_A=1.0), cf.Link(0.8, 2, EI=3.0,
                                                                   rho_A=1.0)])
    res = sc.weak_coupling(arm, _two_joint_motion, 0.2, dt_out=0.02)
    back = _every_method_round_trips(res, tmp_path, "weak")
    assert isinstance(back, sc.WeakCouplingResult)
    np.testing.assert_array_equal(back.joint_torque, res.joint_torque)
    np.testing.assert_array_equal(back.elastic[1], res.elastic[1])
    np.testing.assert_array_equal(back.tip_deflection, res.tip_deflection)
    assert "N m" in repr(res)


def _two_joint_motion(t):
    """Both joints on a smooth rest-to-rest turn of 0.3 rad over 0.2 s."""
    x = min(t / 0.2, 1.0)
    s, ds, dds = (x**3 * (10 - 15 * x + 6 * x**2), 30 * x**2 * (1 - x) ** 2 / 0.2,
                  60 * x * (1 - x) * (1 - 2 * x) / 0.04)
    return np.array([0.3 * s] * 2), np.array([0.3 * ds] * 2), np.array([0.3 * dds] * 2)


def test_spatial_and_rrrp_results_name_their_arm():
    link = SpatialLink(0.5, 1, EI_y=2.0, EI_z=1.0, GJ=1.0, rho_A=0.2, rho_Ip=1e-3)
    res = cf.SpatialArm([link]).simulate(0.01, dt_out=0.005, step=1e-3, progress=False)
    assert res.title == "spatial arm, 1 link" and "spatial arm" in repr(res)
    rrrp = RRRPArm().simulate(0.01, q0=[0.0, 0.3, -0.3, 0, 0, 0, 0, 2.6], dt_out=0.005,
                              progress=False)
    assert rrrp.title == "RRRP arm" and "'RRRP arm'" in repr(rrrp)
    assert rrrp.joint_kinds == ["revolute"] * 3 + ["prismatic"]      # a slides
    units = rrrp.units()
    assert units["joint4"] == "m" and units["joint4_torque"] == "N"
    assert units["joint3"] == "rad" and units["joint3_torque"] == "N m"
