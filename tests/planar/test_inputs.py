"""Bad input is refused with the parameter and value named; trouble stops a run."""

import math

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex import scenarios


@pytest.mark.parametrize("kwargs,name", [
    (dict(length=-1.0, EI=1.0, rho_A=1.0), "length"),
    (dict(length=0.0, EI=1.0, rho_A=1.0), "length"),
    (dict(length=1.0, EI=0.0, rho_A=1.0), "EI"),
    (dict(length=1.0, EI=-2.0, rho_A=1.0), "EI"),
    (dict(length=1.0, EI=1.0, rho_A=-1.0), "rho_A"),
    (dict(length=1.0, n_elements=0, EI=1.0, rho_A=1.0), "n_elements"),
    (dict(length=float("nan"), EI=1.0, rho_A=1.0), "length"),
    (dict(length=1.0, EI=1.0), "rho_A"),
    (dict(length=1.0, rho_A=1.0, E=2e11), "EI"),
    (dict(length=1.0, EI=1.0, rho_A=1.0, damping_beta=-1e-3), "damping_beta"),
    (dict(length=1.0, EI=1.0, rho_A=1.0, basis="spline"), "basis"),
    (dict(length=1.0, EI=1.0, rho_A=1.0, basis="power", power_exponents=(1.2,)),
     "power_exponents"),
])
def test_bad_link_parameters_name_the_parameter_and_value(kwargs, name):
    with pytest.raises(cf.ParameterError) as exc:
        cf.Link(**kwargs)
    assert exc.value.parameter == name
    assert f"`{name}`" in str(exc.value)


def test_bad_payload_and_joint_values():
    with pytest.raises(cf.ParameterError, match="`mass`.*-0.1"):
        cf.Payload(mass=-0.1)
    with pytest.raises(cf.ParameterError, match="`hub_inertia`"):
        cf.RevoluteJoint(hub_inertia=-1)
    with pytest.raises(cf.ParameterError, match="`gravity`"):
        cf.PlanarArm([cf.Link(1, 1, EI=1, rho_A=1)], gravity=-9.81)


def arm1():
    return cf.PlanarArm([cf.Link(1.0, 2, EI=10.0, rho_A=0.5)])


def test_wrong_array_sizes_are_refused():
    arm = arm1()
    with pytest.raises(cf.ParameterError, match="`q0`.*coordinates or the 1 joints'"):
        arm.simulate(0.1, q0=[0.0, 1.0])
    with pytest.raises(cf.ParameterError, match="`q`"):
        arm.mass_matrix(np.zeros(3))
    with pytest.raises(cf.ParameterError, match="`joints`"):
        cf.PlanarArm([cf.Link(1, 1, EI=1, rho_A=1)], joints=[cf.RevoluteJoint()] * 2)
    with pytest.raises(cf.ParameterError, match="`q0`.*finite"):
        arm.simulate(0.1, q0=[math.nan])
    with pytest.raises(cf.ParameterError, match="`t_end`"):
        arm.simulate(-1.0)


def test_torque_callable_with_wrong_shape_is_refused():
    arm = arm1()
    with pytest.raises(cf.ParameterError) as exc:
        arm.simulate(0.1, torque=lambda t, q, qd: [1.0, 2.0])
    assert exc.value.parameter == "torque" and exc.value.value == [1.0, 2.0]


def test_nan_from_a_callable_stops_the_run_with_the_time():
    arm = arm1()
    with pytest.raises(cf.SimulationError) as exc:
        arm.simulate(1.0, torque=lambda t, q, qd: [math.nan if t > 0.3 else 0.1])
    assert exc.value.time is not None and 0.3 <= exc.value.time <= 0.31
    assert "non-finite" in str(exc.value) and "`torque` callback" in str(exc.value)


def test_linear_model_past_the_first_frequency_stops_with_divergence():
    # Kane-Ryan-Banerjee: without geometric stiffening the spinning beam loses stiffness
    # (omega^2 > omega_1^2 = (1.875^2 sqrt(EI/(rho A L^4)))^2 ~ 3.8^2) and diverges
    arm, kw = scenarios.get("spinup-6").arm_and_kwargs()
    with pytest.raises(cf.SimulationError) as exc:
        arm.simulate(**kw)
    assert 3.0 < exc.value.time < 15.0
    assert "small-deformation" in str(exc.value)
    stiff_arm, kw = scenarios.get("spinup-6-stiffening").arm_and_kwargs(t_end=exc.value.time + 1)
    r = stiff_arm.simulate(**kw)                   # the stiffened model goes on
    assert np.max(np.abs(r.tip_deflection)) < 0.1 * 10.0


def test_explicit_method_on_a_stiff_model_reports_its_budget():
    arm, kw = scenarios.get("kozlowski-2link").arm_and_kwargs(t_end=1.0)
    with pytest.raises(cf.SimulationError, match="budget"):
        arm.simulate(method="RK45", max_nfev=2000, **kw)
    with pytest.raises(cf.ParameterError, match="`method`"):
        arm.simulate(method="Euler", **kw)


@pytest.mark.slow
def test_drive_on_a_stiff_link_matches_the_drive_alone():
    from chrono_flex.drive import DriveParams, GearDrive, simulate_drive

    link = cf.Link(0.5, 1, EI=1e3, rho_A=0.2)
    J_link = link.rho_A * link.length**3 / 3
    p = DriveParams.serebrenny2019()
    arm = cf.PlanarArm([link], drives={0: GearDrive(p)})
    r = arm.simulate(0.3, drive_input=lambda t: [3.0], dt_out=0.01, method="Radau", rtol=1e-8)
    alone = simulate_drive(GearDrive(DriveParams.serebrenny2019(J2=p.J2 + J_link)), t_end=0.3,
                           u=3.0, dt_out=0.01, rtol=1e-8)
    theta_alone = np.interp(r.t, alone.t, alone.state("output_angle"))
    # a link 1e4 times stiffer than the drive's load torques need: it moves as a rigid
    # inertia; the residual is the elastic twist ~ tau L^2/(2 EI) ~ 1e-5 rad (plus rtol)
    assert np.max(np.abs(r.joint_angles[:, 0] - theta_alone)) < 5e-5
    assert r.joint_angles[-1, 0] > 0.01          # it did turn
