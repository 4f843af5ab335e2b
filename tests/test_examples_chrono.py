"""The Chrono examples run and give the answers their docstrings state; without
PyChrono they say so in one line instead of a traceback."""

import importlib.util
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"
ROOT = EXAMPLES.parent


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.pychrono
def test_two_link_gear_arm_follows_the_reference_engine():
    ex = load("chrono_two_link_gear_arm")
    res = ex.run(t_end=0.05, step=5e-4)
    theta, ref = res["joint_angles"], res["reference_joint_angles"]
    # the voltages' signs: shoulder forwards, elbow backwards (7.4e-3, -7.2e-3 rad seen)
    assert theta[-1, 0] > 1e-3 and theta[-1, 1] < -1e-3
    # same model, two integrators: at h = 0.5 ms the drive step study
    # (tests/chrono/test_drive.py) gives joint-angle errors ~5e-5 of the angle; seen here
    # 1.2e-6 rad of 7.2e-3 (1.7e-4). 1e-3 of the largest angle leaves a factor ~6.
    assert np.max(np.abs(theta - ref)) < 1e-3 * np.max(np.abs(ref))
    assert res["turntable_angle"][-1] > 0.0          # the GearDriveLink turns it forwards
    assert res["tip"][-1, 0] == pytest.approx(1.5, abs=1e-3)   # 1 m + 0.5 m, nearly straight


#: Runs an example as ``python example.py`` would, with ``import pychrono`` failing as it
#: does where PyChrono is not installed.
WITHOUT_PYCHRONO = """
import runpy, sys
sys.modules["pychrono"] = None          # import pychrono -> ImportError
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def test_two_link_gear_arm_without_pychrono_says_what_is_missing(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", WITHOUT_PYCHRONO,
                           str(EXAMPLES / "chrono_two_link_gear_arm.py"), str(tmp_path)],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "ModuleNotFoundError" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("chrono_two_link_gear_arm.py: ")
    assert "needs PyChrono" in lines[0] and "conda install -c projectchrono" in lines[0]
    assert list(tmp_path.iterdir()) == []          # nothing written


@pytest.mark.pychrono
@pytest.mark.parametrize("formulation", ["element", "beam"])
def test_flexible_slider_crank_balances_energy_and_keeps_its_weld_closed(formulation):
    ex = load("chrono_flexible_slider_crank")
    res = ex.run(t_end=0.1, step=1e-3, formulation=formulation)
    # the crank turns the rod: the slider leaves top dead centre towards the pivot
    assert res["slider"][0] == pytest.approx(0.65, abs=1e-9) and res["slider"][-1] < 0.63
    # the motor's work is the mechanism's energy change, to HHT's accuracy at 1 ms
    # (the energy tests of welded scenes: drifts ~1e-5 of the energy exchanged). The
    # balance also rings at period 2 h (HHT with alpha = 0 does not damp the prescribed
    # crank's reaction, docs/chrono.md §9), more with the beams: +-6 uJ seen, 1.2e-4 of
    # the work at 0.1 s, so twice the element's bound
    balance = res["energy"] - res["energy"][0] - res["motor_work"]
    rel = 1e-4 if formulation == "element" else 2e-4
    assert np.max(np.abs(balance)) < rel * np.max(np.abs(res["motor_work"]))
    # the weld's gap: < 30 N through it (about 1 kg accelerated at < 30 m/s^2) over
    # k_p = 100 * 12 EI / l^3 = 3.1e6 N/m
    assert np.max(res["gap"]) < 1e-5
    # the slider follows the rigid mechanism to the rod's deflection (< 1 mm) times its
    # angle (< 0.31 rad) plus the gap
    assert np.max(np.abs(res["slider"] - res["rigid_slider"])) < 3e-4
    assert np.max(np.abs(res["midpoint"])) > 1e-6          # the rod does bend


@pytest.mark.pychrono
def test_flexible_slider_crank_writes_its_plot_and_gif(tmp_path):
    from PIL import Image

    ex = load("chrono_flexible_slider_crank")
    ex.main([str(tmp_path), "0.05", "--formulation", "beam"])
    png = tmp_path / "chrono_flexible_slider_crank_beam.png"
    gif = tmp_path / "chrono_flexible_slider_crank_beam.gif"
    assert png.stat().st_size > 0
    with Image.open(gif) as im:
        # a frame every 1/40 s over 0.05 s: t = 0, 0.025, 0.05
        assert im.n_frames == 3


def test_exaggerated_rod_keeps_the_chord_and_scales_the_offset():
    ex = load("chrono_flexible_slider_crank")
    rod = np.array([[[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 0.0]]])
    out = ex.exaggerated(rod, 10.0)
    assert np.allclose(out[0, [0, -1]], rod[0, [0, -1]])
    assert np.allclose(out[0, 1:3, 1], 10.0 * rod[0, 1:3, 1])
    assert np.allclose(out[0, :, 0], rod[0, :, 0])


@pytest.mark.pychrono
@pytest.mark.parametrize("contact", ["nsc", "smc"])
def test_arm_puts_its_payload_down_on_the_table_and_lets_go(contact):
    import pychrono as chrono

    ex = load("chrono_arm_payload_on_table")
    res = ex.run(contact, t_end=0.8)
    t, y, F, W = res["t"], res["payload_y"], res["contact_y"], res["weight"]
    # carried clear of the table (the cube starts 5 cm above it; the lowering reaches
    # the table at 0.37 s) ...
    assert np.all(F[t < 0.2] == 0.0)
    # ... then pressed onto it by the arm: the table takes more than the weight
    pressed = (t > 0.5) & (t < ex.T_RELEASE - 0.01)
    assert np.all(F[pressed] > 1.2 * W)
    assert res["released"][-1] and not res["released"][t < ex.T_RELEASE - 1e-9].any()
    settled = t >= 0.7                 # 0.1 s after the release
    # the elbow body stayed welded to link 1 all along: its gap is its force over k_p
    # (a few newtons over 100 * 12 EI / l^3 = 3.1e5 N/m: micrometres)
    assert np.max(res["elbow_gap"]) < 1e-4
    if contact == "nsc":
        # complementarity: no overlap, to the ADMM's tolerance (1e-8) and the step's
        # position recovery; 1 um is 30 times what is seen
        expected, tol = res["rest_height"], 1e-6
    else:
        # four corners share the weight through Hertz's law (41.2 um); 2 % of it for
        # the cube's residual rocking on the stiff contact (0.2 % seen)
        R = chrono.ChCollisionInfo.GetDefaultEffectiveCurvatureRadius()
        delta = ex.hertz_overlap(W, 4, radius=R)
        expected, tol = res["rest_height"] - delta, 0.02 * delta
    assert np.all(np.abs(y[settled] - expected) < tol), (y[settled] - res["rest_height"]).tolist()
    # at rest the table carries the weight and nothing else: 1 % for the solver's
    # iteration cap (NSC) and the contact's residual vibration (SMC); 0.2 % seen
    assert np.all(np.abs(F[settled] - W) < 0.01 * W)


def test_arm_payload_motion_is_smooth_and_keeps_link_2_vertical():
    ex = load("chrono_arm_payload_on_table")
    ts = np.linspace(0.0, ex.T_END, 2001)
    th = np.array([ex.joint_motion(t)[0] for t in ts])
    thd = np.array([ex.joint_motion(t)[1] for t in ts])
    assert np.allclose(th[:, 0] + th[:, 1], -np.pi / 2)
    assert th[0, 0] == 0.0 and th[-1, 0] == 0.0
    assert np.min(th[:, 0]) == pytest.approx(ex.shoulder_drop())
    # the rate is the derivative of the angle (central differences, O(dt^2))
    dt = ts[1] - ts[0]
    assert np.allclose(np.gradient(th[:, 0], dt)[1:-1], thd[1:-1, 0], atol=1e-3)
    # the rigid drop: L1 sin(delta) = drop + press
    assert ex.LINKS[0][0] * np.sin(-ex.shoulder_drop()) == pytest.approx(ex.DROP + ex.PRESS)


@pytest.mark.parametrize("name", ["chrono_flexible_slider_crank", "chrono_arm_payload_on_table",
                                  "chrono_spatial_satellite"])
def test_scene_examples_without_pychrono_say_what_is_missing(name, tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", WITHOUT_PYCHRONO, str(EXAMPLES / f"{name}.py"),
                           str(tmp_path)], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=120)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{name}.py: ")
    assert "PyChrono is not importable" in lines[0] and "Project Chrono" in lines[0]
    assert list(tmp_path.iterdir()) == []          # nothing written


@pytest.mark.pychrono
def test_arm_of_chrono_beams_puts_its_payload_down_with_nsc_contact():
    ex = load("chrono_arm_payload_on_table")
    res = ex.run("nsc", t_end=0.8, formulation="beam")
    t, y, F, W = res["t"], res["payload_y"], res["contact_y"], res["weight"]
    assert np.all(F[t < 0.2] == 0.0) and np.all(F[(t > 0.5) & (t < ex.T_RELEASE - 0.01)] > W)
    settled = t >= 0.7
    # as with the element (the same bounds and reasons)
    assert np.all(np.abs(y[settled] - res["rest_height"]) < 1e-6)
    assert np.all(np.abs(F[settled] - W) < 0.01 * W)


def test_arm_example_names_the_combination_it_does_not_offer():
    from chrono_flex.errors import ParameterError

    ex = load("chrono_arm_payload_on_table")
    with pytest.raises(ParameterError, match="contact='smc' is not offered"):
        ex.build("smc", "beam")
    with pytest.raises(ParameterError, match="contact"):
        ex.build("hertz")


@pytest.mark.pychrono
def test_arm_example_writes_its_plot_and_gif(tmp_path):
    from PIL import Image

    ex = load("chrono_arm_payload_on_table")
    ex.main([str(tmp_path), "--contact", "nsc", "--formulation", "beam", "--t-end", "0.08"])
    stem = tmp_path / "chrono_arm_payload_on_table_nsc_beam"
    assert stem.with_suffix(".png").stat().st_size > 0
    with Image.open(stem.with_suffix(".gif")) as im:
        assert im.n_frames == 3                  # a frame every 1/25 s: 0, 0.04, 0.08


@pytest.mark.pychrono
def test_satellite_bus_turns_back_and_conserves_momentum_and_energy():
    ex = load("chrono_spatial_satellite")
    h, t_end = 1e-2, 2.0
    r = ex.run(t_end=t_end, h=h)
    # the joint passes no moment about z but the motor's: the bus's z rate is minus the
    # torque's impulse over I_z, (T0 T / pi)(1 - cos(pi t / T)) / I_z, to HHT's accuracy
    # (second order; 1e-4 of the rate is some 100 times the error seen)
    t = r["t"]
    closed = -(ex.TORQUE * ex.T_HALF / np.pi) * (1 - np.cos(np.pi * t / ex.T_HALF)) / ex.BUS_INERTIA[2]
    np.testing.assert_allclose(r["bus_rate"], closed, atol=1e-4 * np.abs(closed).max())
    # total angular momentum stays zero: seen 3e-9 N m s at h = 10 ms (round-off of the
    # Newton solves); a one-way coupling would leave the arm's whole momentum, ~0.3 N m s
    assert np.abs(r["momentum"]).max() < 1e-6 * np.abs(r["arm_momentum"]).max()
    # energy balance: the trapezoidal rule's O(h^2) error, seen 2.3e-6 of the energy at
    # h = 10 ms over 3.5 s; 1e-4 leaves a factor ~40
    assert abs(r["energy"] - r["work"][-1]) < 1e-4 * r["work"][-1]
    assert np.abs(r["tips"]).max() > 1e-3          # the booms do bend (mm)
