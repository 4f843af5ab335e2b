"""An arm as plain data, and results that carry their arm and engine through an NPZ file.

A round trip is exact: the description holds every parameter as the number it was, so an
arm rebuilt from a result's file simulates bit for bit as the arm that made it.
"""

import json
import math

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex.drive import DriveParams, GearDrive
from chrono_flex.errors import ParameterError
from chrono_flex.result import Result


def two_link_arm():
    """Every part the description covers, none at its default."""
    return cf.PlanarArm(
        [cf.Link.from_material(1.0, 2, E=2e10, I=5.2e-11, rho=7850.0, A=2.5e-5,
                               damping_beta=1e-3),
         cf.Link(0.5, 1, EI=3.0, rho_A=0.4, basis="modes", n_modes=2, thickness=0.02)],
        joints=[cf.RevoluteJoint(hub_inertia=1e-3, angle_offset=0.1),
                cf.PrismaticJoint(axis_angle=0.2, slider_mass=0.3)],
        payload=cf.Payload(0.15, 2e-4), hub_inertia=2e-3, gravity=True,
        plane=cf.Plane(origin=(0.0, 0.0, 1.0), x_axis=(1.0, 0.0, 0.0), y_axis=(0.0, 0.0, 1.0)),
        drives={0: GearDrive(DriveParams.serebrenny2019(theta_b=2e-3))})


def test_description_round_trips_through_json():
    arm = two_link_arm()
    data = arm.to_dict()
    again = cf.PlanarArm.from_dict(json.loads(json.dumps(data)))
    assert again.to_dict() == data
    # the drive's output inertia joins the hub once, not once per round trip
    assert again.joints[0].hub_inertia == arm.joints[0].hub_inertia
    q = np.linspace(-0.3, 0.4, arm.nq)
    np.testing.assert_array_equal(again.mass_matrix(q), arm.mass_matrix(q))
    np.testing.assert_array_equal(again.stiffness_matrix(), arm.stiffness_matrix())
    assert again.drives[0].params == arm.drives[0].params
    assert again.gravity == arm.gravity and again.plane == arm.plane


@pytest.mark.parametrize("change,name", [
    (lambda d: d["links"][0].update(lenght=1.0), "links[0].lenght"),
    (lambda d: d["links"][1].update(EI=-1.0), "links[1].EI"),
    (lambda d: d["joints"][1].update(type="ball"), "joints[1].type"),
    (lambda d: d["drives"][0].update(joint="first"), "drives[0].joint"),
    (lambda d: d["drives"][0].update(R=0.0), "drives[0].R"),
    (lambda d: d["payload"].update(mass=-1.0), "payload.mass"),
    (lambda d: d.update(wheels=3), "wheels"),
    (lambda d: d.pop("links"), "links"),
])
def test_bad_description_names_the_key(change, name):
    data = two_link_arm().to_dict()
    change(data)
    with pytest.raises(ParameterError) as e:
        cf.PlanarArm.from_dict(data)
    assert e.value.parameter == name, str(e.value)


def test_an_arm_whose_drive_is_not_data_says_so():
    class Drive:                      # the drive protocol without DriveParams
        rates, n_states, output_inertia = None, 1, 1e-3

        def initial_state(self, *a):
            return np.zeros(1)

    arm = cf.PlanarArm([cf.Link(1.0, 1, EI=1.0, rho_A=1.0)], drives={0: Drive()})
    with pytest.raises(ParameterError) as e:
        arm.to_dict()
    assert e.value.parameter == "drives[0]"


@pytest.fixture(scope="module")
def run():
    """A short run on the reference engine, and its arm."""
    arm = cf.PlanarArm([cf.Link(1.0, 2, EI=2.0, rho_A=0.5)], payload=cf.Payload(0.1),
                       gravity=True)
    res = arm.simulate(0.05, q0=[-0.5], dt_out=0.01, n_samples=5)
    return arm, res


def test_result_file_keeps_engine_settings_and_arm(run, tmp_path):
    arm, res = run
    res.extra["probe"] = np.arange(res.t.size, dtype=float)
    path = res.to_npz(tmp_path / "r.npz")
    back = Result.from_npz(path)
    assert back.info == res.info
    assert back.engine == "reference" and back.info["method"] == "generalized_alpha"
    assert back.info["rtol"] == res.info["rtol"]
    np.testing.assert_array_equal(back.extra["probe"], res.extra["probe"])
    np.testing.assert_array_equal(back.curvature, res.curvature)
    # the stored arm simulates identically (same numbers in, same solver path)
    again = cf.PlanarArm.from_dict(back.model).simulate(0.05, q0=[-0.5],
                                                        dt_out=0.01, n_samples=5)
    np.testing.assert_array_equal(again.q, res.q)
    # info given to from_npz updates the stored one
    assert Result.from_npz(path, info={"case": "mine"}).info["case"] == "mine"


def test_result_file_without_metadata_still_reads(run, tmp_path):
    _, res = run
    path = tmp_path / "old.npz"
    res.to_npz(path)
    with np.load(path) as d:                   # a file written before info was stored
        old = {k: d[k] for k in d.files if k != "meta_json"}
    np.savez(path, **old)
    back = Result.from_npz(path, info={"engine": "chrono"})
    assert back.model is None and back.info == {"engine": "chrono"}


def test_repr_is_one_short_line(run):
    _, res = run
    text = repr(res)
    assert "\n" not in text and len(text) < 200, text
    assert "reference (generalized_alpha)" in text and "nq = 5" in text
    tip_mm = 1e3 * res.tip_deflection[-1, 0]
    assert f"{tip_mm:+.4g}" in text


def test_api_result_title_names_the_arm(run):
    _, res = run
    assert res.title == "1-link revolute arm"
    case = dict(res.info, case="bien-1link")
    assert Result(**{**res.__dict__, "info": case}).title == "bien-1link"


def test_info_that_is_not_json_is_kept_as_text(run, tmp_path):
    _, res = run
    res = Result(**{**res.__dict__, "info": dict(res.info, n=np.int64(3), x=np.float32(0.5),
                                                 arr=np.arange(2), obj=object)})
    back = Result.from_npz(res.to_npz(tmp_path / "r.npz"))
    assert back.info["n"] == 3 and back.info["arr"] == [0, 1]
    assert math.isclose(back.info["x"], 0.5) and "object" in back.info["obj"]


@pytest.mark.pychrono
@pytest.mark.parametrize("engine", ["chrono", "chrono-beam"])
def test_chrono_results_carry_their_arm(engine, tmp_path):
    from chrono_flex import engines

    arm = cf.PlanarArm([cf.Link(1.0, 2, EI=2.0, rho_A=0.5)], payload=cf.Payload(0.1))
    res = engines.simulate(arm, engine, t_end=0.01, dt_out=0.005, n_samples=5)
    back = Result.from_npz(res.to_npz(tmp_path / "r.npz"))
    assert back.engine == engine and set(back.info) == set(res.info)
    assert back.model == arm.to_dict()


def test_result_keeps_its_run_settings_and_input_profiles(tmp_path):
    from chrono_flex import inputs

    arm = cf.PlanarArm([cf.Link(1.0, 2, EI=2.0, rho_A=0.5)], payload=cf.Payload(0.1))
    kw = dict(t_end=0.05, dt_out=0.01, q0=[0.2], method="Radau", rtol=1e-7,
              n_samples=5)
    res = arm.simulate(torque=inputs.pulse(0.2, 0.1), progress=False, **kw)
    back = Result.from_npz(res.to_npz(tmp_path / "r.npz"))
    run = back.info["run"]
    assert run["torque"] == {"profile": "pulse", "amplitude": 0.2, "period": 0.1}
    assert {k: run[k] for k in kw} == kw and "progress" not in run
    # the file alone reruns the run: the arm from `model`, the settings from `run`
    torque = inputs.profile(run.pop("torque"))
    again = cf.PlanarArm.from_dict(back.model).simulate(torque=torque, progress=False, **run)
    np.testing.assert_array_equal(again.q, res.q)
    # a plain function is named, not lost silently
    res2 = arm.simulate(torque=lambda t, q, qd: [0.0], progress=False, **kw)
    assert res2.info["run"]["torque"].startswith("<callable ")
