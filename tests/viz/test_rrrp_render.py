"""Pictures of the spatial RRRP arm (chrono_flex.viz.rrrp), RRRPArm.centerlines and the
example examples/spatial_rrrp.py over a short time."""

import importlib.util
import math
import pathlib

import matplotlib
import numpy as np
import pytest

from chrono_flex.errors import ParameterError
from chrono_flex.formulations.rrrp import ELASTIC
from chrono_flex.viz.rrrp import (render_spatial_animation, render_spatial_frame,
                                     suggest_spatial_scale)

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "spatial_rrrp.py"


def _example():
    spec = importlib.util.spec_from_file_location("spatial_rrrp_example", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


EX = _example()


@pytest.fixture(scope="module")
def run():
    """(arm, result) of the first 0.4 s of the example's manoeuvre."""
    return EX.simulate(0.4, n_out=9)


def test_centerlines_at_scale_one_end_at_the_tip(run):
    arm, result = run
    c = arm.centerlines(result.q, n_samples=11)
    assert c["arm1"].shape == c["arm3"].shape == (len(result.t), 11, 3)
    np.testing.assert_allclose(c["tip"], result.tip_position, atol=1e-12)
    np.testing.assert_allclose(c["arm3"][:, -1], result.tip_position, atol=1e-12)
    np.testing.assert_allclose(c["joint_a"], result.joint_position, atol=1e-12)
    np.testing.assert_allclose(c["arm1"][:, -1], result.joint_position, atol=1e-12)
    np.testing.assert_allclose(c["arm2"][:, 0], result.joint_position, atol=1e-12)
    np.testing.assert_allclose(c["arm1"][:, 0], 0.0, atol=1e-15)     # R1/R2 at the origin
    # the rigid ghost is the model's position function with the modal coordinates zeroed
    eta = result.q.copy()
    eta[:, list(ELASTIC)] = 0.0
    np.testing.assert_allclose(c["rigid"]["tip"], arm.tip_position(eta), atol=1e-12)
    # arm 3 spans l3 along the rigid arm 2 direction and ends l2 + a from A
    p = arm.params
    r = c["rigid"]
    np.testing.assert_allclose(np.linalg.norm(r["arm3"][:, -1] - r["arm3"][:, 0], axis=-1),
                               p.l3, rtol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(r["tip"] - r["joint_a"], axis=-1),
                               p.l2 + result.q[:, 7], rtol=1e-12)


def test_centerline_exaggeration_is_linear_in_the_elastic_offset(run):
    arm, result = run
    one = arm.centerlines(result.q[-1], scale=1.0)
    K = 37.0
    big = arm.centerlines(result.q[-1], scale=K)
    true = one["tip"] - one["rigid"]["tip"]
    assert np.linalg.norm(true) > 1e-2                 # the arm does bend (gravity sag)
    np.testing.assert_allclose(big["tip"] - big["rigid"]["tip"], K * true,
                               rtol=1e-12, atol=1e-12 * K)
    np.testing.assert_array_equal(big["rigid"]["arm2"], one["rigid"]["arm2"])
    with pytest.raises(ParameterError):
        arm.centerlines(result.q[-1], scale=-1.0)
    with pytest.raises(ParameterError):
        arm.centerlines(result.q[-1, :7])


def test_frame_renders_png_with_agg(run, tmp_path):
    arm, result = run
    matplotlib.use("Agg")
    path = tmp_path / "frame.png"
    fig = render_spatial_frame(arm, result, -1, scale=10.0, path=path)
    assert path.stat().st_size > 10_000
    assert fig.canvas.get_default_filetype() == "png"
    labels = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert "deformation x 10" in labels
    assert "t = 0.400 s" in labels
    # automatic scale: the largest deflection (~0.2 m sag on ~12.3 m) becomes a few %
    s = suggest_spatial_scale(arm, result)
    assert s in (1.0, 2.0, 5.0)
    fig = render_spatial_frame(arm, result, 0, scale=1.0)
    labels = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert not any(t.startswith("deformation") for t in labels)   # true size: no label


def test_animation_writes_gif(run, tmp_path):
    arm, result = run
    path = render_spatial_animation(arm, result, tmp_path / "a.gif", frames=3, scale=5.0)
    assert pathlib.Path(path).stat().st_size > 10_000
    with pytest.raises(ParameterError):
        render_spatial_animation(arm, result, tmp_path / "a.avi", frames=2)


def test_example_run_short():
    out = EX.run(t_end=0.3)
    assert all(math.isfinite(v) for v in out.values())
    # the run starts from RRRPArm.static_deflection with gravity compensated, so at t = 0
    # the tip hangs at the static sag under the arm's own weight; the module docstring of
    # chrono_flex.formulations.rrrp states 0.18 m for this pose (q2z = -0.071 m, q1z = +0.024 m).
    assert out["initial_sag"] == pytest.approx(0.176, abs=2e-3)
    # no damping, and the inputs' work is bookkept: the energy balance holds to rtol
    assert out["energy_balance_error"] < 1e-5
    # while the slew accelerates, B lags behind the motion (offset against +theta1)
    assert out["lag_min"] < -1e-3 and out["lag_max"] <= 1e-6
    assert out["theta1_error_peak"] < 1e-2
