"""One vocabulary for every ``simulate`` (chrono_flex._aliases): the same keyword names
on every arm and on the drive alone; the old names still work, with a warning."""

import inspect

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex._aliases import SIMULATE_ALIASES
from chrono_flex.drive import DriveParams, GearDrive, simulate_drive
from chrono_flex.errors import ParameterError
from chrono_flex.formulations.rrrp import RRRPArm

ARM_KEYS = ("t_end", "q0", "qd0", "torque", "joint_motion", "drive_input", "dt_out", "t0",
            "method", "rtol", "atol", "max_step", "max_nfev", "max_deflection_ratio",
            "n_samples", "progress", "max_wall_time", "step", "rho_inf", "family",
            "elastic0", "elastic_rates0")


def _names(fn):
    return [p for p in inspect.signature(fn).parameters if p != "self"]


def test_planar_and_spatial_arms_take_the_same_keywords_in_the_same_order():
    assert _names(cf.PlanarArm.simulate)[:len(ARM_KEYS)] == list(ARM_KEYS)
    assert _names(cf.SpatialArm.simulate) == list(ARM_KEYS)


def test_the_rrrp_arm_and_the_drive_use_the_same_names_for_the_same_things():
    assert _names(RRRPArm.simulate)[:6] == ["t_end", "q0", "qd0", "torque", "dt_out",
                                            "method"]
    drive = _names(simulate_drive)
    for k in ("t_end", "drive_input", "q0", "qd0", "method", "rtol", "atol", "dt_out",
              "max_step", "max_nfev"):
        assert k in drive
    # no old name is a parameter any more: each is in the one table only
    olds = {o for v in SIMULATE_ALIASES.values() for o in v}
    for fn in (cf.PlanarArm.simulate, cf.SpatialArm.simulate, RRRPArm.simulate,
               simulate_drive):
        assert not olds & set(_names(fn))


@pytest.fixture(scope="module")
def arm():
    return cf.PlanarArm([cf.Link(0.5, 2, EI=1.0, rho_A=0.2)])


def test_old_planar_names_warn_and_give_the_same_run(arm):
    kw = dict(dt_out=0.01, method="generalized_alpha", step=1e-3, progress=False,
              torque=lambda t, q, qd: [0.05])
    new = arm.simulate(0.02, q0=[0.1], qd0=[0.5], **kw)
    with pytest.warns(DeprecationWarning, match="`joint_angles0` is now called `q0`"):
        old = arm.simulate(0.02, joint_angles0=[0.1], joint_rates0=[0.5], **kw)
    np.testing.assert_array_equal(new.q, old.q)            # the same call: bit for bit
    full = np.zeros(arm.nq)
    full[arm.joint_index] = 0.1
    rates = np.zeros(arm.nq)
    rates[arm.joint_index] = 0.5
    np.testing.assert_array_equal(arm.simulate(0.02, q0=full, qd0=rates, **kw).q, new.q)
    assert new.q[0, arm.joint_index[0]] == 0.1


def test_both_names_or_an_unknown_one_are_refused(arm):
    with pytest.raises(ParameterError) as e:
        arm.simulate(0.01, q0=[0.1], joint_angles0=[0.1], progress=False)
    assert e.value.parameter == "joint_angles0"
    with pytest.raises(TypeError, match="eta0"):           # not a PlanarArm name
        arm.simulate(0.01, eta0=[0.1], progress=False)
    with pytest.raises(ParameterError) as e:               # neither nq nor nj values
        arm.simulate(0.01, q0=[0.1, 0.2], progress=False)
    assert e.value.parameter == "q0"
    with pytest.raises(ParameterError) as e:               # full q0 and an elastic part
        arm.simulate(0.01, q0=np.zeros(arm.nq), elastic0=np.zeros(arm.nq - 1), progress=False)
    assert e.value.parameter == "elastic0"


def test_the_spatial_arm_takes_the_joints_alone_or_all_coordinates():
    link = cf.spatial.SpatialLink(0.5, 1, EI_y=2.0, EI_z=1.0, GJ=1.0, rho_A=0.2, rho_Ip=1e-3)
    arm = cf.SpatialArm([link])
    kw = dict(t_end=0.01, dt_out=0.01, step=1e-3, progress=False)
    a = arm.simulate(q0=[0.3], qd0=[1.0], **kw)
    full, rates = np.zeros(arm.nq), np.zeros(arm.nq)
    full[arm.joint_index], rates[arm.joint_index] = 0.3, 1.0
    np.testing.assert_array_equal(arm.simulate(q0=full, qd0=rates, **kw).q, a.q)
    assert a.q[0, arm.joint_index[0]] == 0.3 and a.info["method"] == "generalized_alpha"


def test_old_drive_and_rrrp_names_warn_and_give_the_same_run():
    drive = GearDrive(DriveParams.serebrenny2019())
    new = simulate_drive(drive, 0.002, drive_input=12.0, qd0=0.5, dt_out=1e-3)
    with pytest.warns(DeprecationWarning, match="`u` is now called `drive_input`"):
        old = simulate_drive(drive, 0.002, u=12.0, omega_out0=0.5, dt_out=1e-3)
    np.testing.assert_array_equal(new.states, old.states)
    assert new.states[0, -1] == 0.5
    rrrp = RRRPArm()
    eta0 = [0.0, 0.3, -0.3, 0, 0, 0, 0, 2.6]
    new = rrrp.simulate(0.01, q0=eta0, dt_out=0.005, progress=False)
    with pytest.warns(DeprecationWarning, match="`eta0` is now called `q0`"):
        old = rrrp.simulate(0.01, eta0=eta0, n_out=3, progress=False)
    np.testing.assert_allclose(new.t, old.t, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(new.q, old.q)
    with pytest.warns(DeprecationWarning, match="RRRPResult"):
        from chrono_flex.formulations.rrrp import SpatialResult
    assert SpatialResult is type(new)
