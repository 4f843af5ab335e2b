"""The unit row of a Result's CSV file: every column's unit, from the arm's joints and
bases and the drives' states."""

import csv

import numpy as np

import chrono_flex as cf
from chrono_flex.drive import DriveParams, GearDrive


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], dict(zip(rows[0], rows[1])), np.array(rows[2:], dtype=float)


def test_units_follow_joints_bases_and_drives(tmp_path):
    arm = cf.PlanarArm([cf.Link(1.0, 2, EI=1.04, rho_A=0.196),
                        cf.Link(0.5, 1, EI=1.0, rho_A=0.2, basis="modes", n_modes=2)],
                       joints=[cf.RevoluteJoint(), cf.PrismaticJoint()])
    res = arm.simulate(t_end=0.02, dt_out=0.01)
    names, units, data = read(res.to_csv(tmp_path / "a.csv"))
    assert units["joint1"] == "rad" and units["joint1_rate"] == "rad/s"
    assert units["joint2"] == "m" and units["joint2_rate"] == "m/s"
    assert units["joint1_torque"] == "N m" and units["joint2_torque"] == "N"
    # q = [theta1, w, w', w, w' (two Hermite nodes), d2, a1, a2 (mode amplitudes)]
    assert [units[f"q{k}"] for k in range(arm.nq)] == ["rad", "m", "rad", "m", "rad",
                                                       "m", "m", "m"]
    assert units["qd2"] == "rad/s" and units["qd5"] == "m/s"
    assert set(units.values()) <= {"s", "rad", "rad/s", "m", "m/s", "N m", "N", "J"}
    # the data rows follow the unit row unchanged
    np.testing.assert_array_equal(data[:, names.index("q5")], res.q[:, 5])

    driven = cf.PlanarArm([cf.Link(1.0, 2, EI=1.04, rho_A=0.196)],
                          drives={0: GearDrive(DriveParams.serebrenny2019())})
    res = driven.simulate(t_end=0.01, drive_input=lambda t: [1.5], dt_out=0.005)
    _, units, _ = read(res.to_csv(tmp_path / "d.csv"))
    assert [units[f"drive1_states{k}"] for k in range(4)] == ["A", "rad", "rad/s", "rad"]


def test_units_of_spatial_and_rrrp_results(tmp_path):
    # a spatial link on a revolute and a prismatic joint: per node v, v', w, w', phi
    sp = cf.SpatialArm([cf.spatial.RigidBody(0.5, (0.01, 0.01, 0.01)),
                        cf.spatial.SpatialLink(0.8, 1, EI_y=2.0, EI_z=2.0, GJ=1.5,
                                               rho_A=0.3, rho_Ip=1e-4)],
                       joints=[cf.spatial.PrismaticJoint(), cf.spatial.RevoluteJoint()])
    res = sp.simulate(t_end=0.01, dt_out=0.005)
    _, units, _ = read(res.to_csv(tmp_path / "s.csv"))
    assert [units[f"q{k}"] for k in range(sp.nq)] == ["m", "rad", "m", "rad", "m", "rad",
                                                      "rad"]
    assert units["qd0"] == "m/s" and units["qd3"] == "rad/s"
    assert "?" not in units.values()

    from chrono_flex.formulations.rrrp import RRRPArm
    rr = RRRPArm().simulate(t_end=0.01, q0=[0, 0, 0, 0, 0, 0, 0, 2.5], dt_out=0.005)
    _, units, _ = read(rr.to_csv(tmp_path / "r.csv"))
    assert [units[f"q{k}"] for k in range(8)] == ["rad"] * 3 + ["m"] * 5
    assert units["joint_position0"] == "m" and units["angular_momentum_z"] == "N m s"
    assert "?" not in units.values()
