"""Gear drives on the joints of a spatial arm or tree (the reference engine), against the
same arm built as a planar arm (examples/planar_as_spatial.py)."""

import importlib.util
import pathlib

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex.drive import DriveParams, GearDrive
from chrono_flex.errors import ParameterError
from chrono_flex.integrators.generalized_alpha import GeneralizedAlpha
from chrono_flex.spatial import PrismaticJoint, RevoluteJoint, SpatialLink

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"

#: Newton's stopping tolerance of each generalized-alpha step under a fixed step (the
#: integrator's rtol when none is given and there is no step control).
NEWTON_RTOL = GeneralizedAlpha.NEWTON_RTOL


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("planar_as_spatial",
                                                  EXAMPLES / "planar_as_spatial.py")
    module = importlib.util.module_from_spec(spec)
    with pytest.warns(cf.errors.StiffeningWarning):     # the planar runs say so
        spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("run", ["torque_run", "drive_run"])
def test_planar_and_spatial_tree_agree_to_the_newton_tolerance(example, run):
    """Same fixed steps, the same discrete equations (equal to round-off, case
    spatial-link.planar-special-case): the runs differ only where each step's Newton
    iteration stopped, within NEWTON_RTOL of the values per step; over the 50 steps at
    most 50 NEWTON_RTOL (the drive states likewise, relative to their range)."""
    rp, rs, idx = getattr(example, run)
    n_steps = rp.info["n_steps"]
    assert n_steps == rs.info["n_steps"] == round(example.T_END / example.STEP)
    d, leak = example.difference(rp, rs, idx)
    assert d < n_steps * NEWTON_RTOL, d
    assert leak < 1e-12            # the out-of-plane coordinates: round-off of the frames
    np.testing.assert_allclose(rs.joint_torque, rp.joint_torque,
                               atol=n_steps * NEWTON_RTOL * np.max(np.abs(rp.joint_torque)))
    assert np.max(np.abs(rp.joint_angles[-1])) > 1e-3            # the arm did move
    if run == "drive_run":
        for k in ("drive1_states", "drive2_states"):
            a, b = rp.extra[k], rs.extra[k]
            scale = np.max(np.abs(a), axis=0)
            assert np.all(scale > 0)
            assert np.all(np.max(np.abs(b - a), axis=0) < n_steps * NEWTON_RTOL * scale), k
        # the drives did the work: the input work is the drives' output torque's
        w = rs.energy.input_work[-1]
        assert w > 0 and abs(w - rp.energy.input_work[-1]) < n_steps * NEWTON_RTOL * w


def _one_link(joint, drives):
    link = SpatialLink(0.5, 2, EI_y=2.0, EI_z=1.0, GJ=1.0, rho_A=0.2, rho_Ip=1e-3)
    return cf.SpatialArm([link], joints=[joint], drives=drives)


def test_the_drive_s_output_inertia_joins_the_joint_s_hub():
    d = GearDrive(DriveParams.serebrenny2019())
    arm = _one_link(RevoluteJoint(axis=(0, 1, 0), hub_inertia=0.01), {0: d})
    bare = _one_link(RevoluteJoint(axis=(0, 1, 0), hub_inertia=0.01), None)
    i = arm.joint_index[0]
    dM = arm.mass_matrix(np.zeros(arm.nq))[i, i] - bare.mass_matrix(np.zeros(arm.nq))[i, i]
    assert dM == pytest.approx(d.output_inertia, rel=1e-12)
    assert arm.joints_given[0].hub_inertia == 0.01


def test_a_drive_on_a_tilted_axis_turns_the_joint_and_keeps_its_states():
    """A drive on a joint about y (out of the planar special case): the joint turns the
    way the voltage pushes, the result carries the drive's states, and the energy
    balance (drive work against the arm's energy) holds to the integrator's tolerance."""
    arm = _one_link(RevoluteJoint(axis=(0, 1, 0)), {0: GearDrive(DriveParams.serebrenny2019())})
    res = arm.simulate(0.05, drive_input=lambda t: [2.0], dt_out=0.01, method="Radau",
                       rtol=1e-7, atol=1e-10, progress=False)
    assert res.extra["drive1_states"].shape == (res.t.size, 4)
    assert res.joint_angles[-1, 0] > 0 and res.extra["drive1_states"][-1, 0] > 0
    e = res.energy
    # Radau at rtol 1e-7: the balance drifts by ~100 rtol of the work done
    assert np.max(np.abs(e.balance_error)) < 1e-5 * e.input_work[-1]


@pytest.mark.parametrize("joint, drives, kw, name", [
    (PrismaticJoint(), {0: GearDrive(DriveParams.serebrenny2019())}, {}, "drives"),
    (RevoluteJoint(), {3: GearDrive(DriveParams.serebrenny2019())}, {}, "drives"),
    (RevoluteJoint(), {0: object()}, {}, "drives[0]"),
    (RevoluteJoint(), None, {"drive_input": lambda t: [1.0]}, "drive_input"),
    (RevoluteJoint(), {0: GearDrive(DriveParams.serebrenny2019())},
     {"joint_motion": lambda t: ([0.0], [0.0], [0.0])}, "joint_motion"),
])
def test_bad_drives_name_the_parameter(joint, drives, kw, name):
    with pytest.raises(ParameterError) as err:
        arm = _one_link(joint, drives)
        arm.simulate(0.01, progress=False, **kw)
    assert err.value.parameter == name
