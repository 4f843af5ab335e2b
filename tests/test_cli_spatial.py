"""`chrono-flex render`, `modes` and `view` on spatial arms and trees and the RRRP arm,
run in-process on the catalogue's spatial cases (short runs)."""

import numpy as np
import pytest

from chrono_flex import Result, scenarios
from chrono_flex.cli import main


def _frequencies(out):
    """The (locked, free) columns of `modes`' table, "-" as NaN."""
    rows = [line.split() for line in out.splitlines()
            if line.split() and line.split()[0].isdigit()]
    return np.array([[float("nan") if c == "-" else float(c) for c in r[1:3]] for r in rows])


def test_render_of_the_hub_tree_writes_a_gif_a_vtk_series_and_a_frame(tmp_path, capsys):
    from PIL import Image

    assert main(["render", "spatial-hub-2links", "--t-end", "0.2", "--frames", "3",
                 "--vtk", str(tmp_path / "vtk"), "--out", str(tmp_path), "--quiet"]) == 0
    out = capsys.readouterr().out
    gif = tmp_path / "spatial-hub-2links.gif"
    assert f"wrote {gif}" in out
    with Image.open(gif) as im:
        assert im.n_frames == 3
        im.seek(2)
        frame = np.asarray(im.convert("RGB"), dtype=float)
    assert frame.std() > 10                  # a drawing, not a blank canvas
    vtus = sorted((tmp_path / "vtk").glob("*.vtu"))
    assert len(vtus) == 3 and (tmp_path / "vtk" / "spatial-hub-2links.pvd").exists()
    assert (tmp_path / "spatial-hub-2links_max_deflection.png").stat().st_size > 10_000


def test_the_rrrp_result_draws_the_models_own_points(tmp_path, capsys):
    """The centrelines the renderer draws are the model's positions: arm 3's end is the
    end effector B, arm 1's end joint A, to round-off."""
    assert main(["run", "rrrp-slew", "--t-end", "0.1", "--out", str(tmp_path),
                 "--quiet"]) == 0
    capsys.readouterr()
    res = Result.from_npz(tmp_path / "rrrp-slew_reference.npz")
    assert res.centerline.shape == (res.t.size, 3, 21, 3)
    np.testing.assert_allclose(res.centerline[:, 2, -1], res.tip_position, atol=1e-12)
    np.testing.assert_allclose(res.centerline[:, 0, -1], res.extra["joint_position"],
                               atol=1e-12)
    assert main(["render", "rrrp-slew", "--t-end", "0.1", "--frames", "2",
                 "--out", str(tmp_path), "--quiet"]) == 0
    assert (tmp_path / "rrrp-slew.gif").stat().st_size > 1000


def test_modes_of_the_hub_tree_turn_with_the_hub(tmp_path, capsys):
    """Without gravity the tree's frequencies do not depend on the hub's angle (the
    whole arm turns rigidly): --pose 0 and --pose 30 agree to round-off; with the hub
    locked each link is a clamped beam, so the locked frequencies come in pairs (two
    equal links)."""
    assert main(["modes", "spatial-hub-2links", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "(0 deg)" in out and (tmp_path / "spatial-hub-2links_modes.png").exists()
    at0 = _frequencies(out)
    assert main(["modes", "spatial-hub-2links", "--pose", "30", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "(30 deg)" in out
    at30 = _frequencies(out)
    assert at0.shape == (4, 2)
    np.testing.assert_allclose(at30, at0, rtol=1e-5)     # the table prints 6 digits
    np.testing.assert_allclose(at0[0::2, 0], at0[1::2, 0], rtol=1e-5)


def test_modes_of_the_hub_tree_are_the_spatial_models(tmp_path, capsys):
    from chrono_flex.spatial.modes import natural_modes

    assert main(["modes", "spatial-hub-2links", "--n", "3", "--out", str(tmp_path)]) == 0
    table = _frequencies(capsys.readouterr().out)
    arm = scenarios.get("spatial-hub-2links").build()[0]
    for col, joints in enumerate(("locked", "free")):
        np.testing.assert_allclose(table[:, col],
                                   natural_modes(arm, 3, joints=joints).frequencies,
                                   rtol=1e-5)    # the table prints 6 significant digits


def test_modes_of_the_rrrp_arm_with_its_joints_held(tmp_path, capsys):
    from chrono_flex.formulations.rrrp_fem import am_frequencies

    assert main(["modes", "rrrp-slew", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    table = _frequencies(out)
    arm, kw = scenarios.get("rrrp-slew").build()
    np.testing.assert_allclose(table[:, 0], am_frequencies(arm, arm.static_deflection(
        kw["q0"])), rtol=1e-5)      # the table prints 6 significant digits
    assert np.all(np.isnan(table[:, 1])) and "not computed" in out
    assert "2.3 m" in out                        # the extension a, in metres
    assert main(["modes", "rrrp-slew", "--pose", "0,10,-10,2.5", "--out",
                 str(tmp_path)]) == 0
    assert "2.5 m" in capsys.readouterr().out


@pytest.mark.parametrize("argv, name", [
    (["modes", "spatial-hub-2links", "--pose", "10,20"], "--pose"),
    (["modes", "spatial-satellite", "--pose", "abc"], "--pose"),
    (["modes", "rrrp-slew", "--n", "5"], "n"),
])
def test_bad_spatial_modes_options_are_named(argv, name, tmp_path, capsys):
    assert main(argv + ["--out", str(tmp_path)]) == 2
    assert f"`{name}`" in capsys.readouterr().err


def test_view_shows_a_spatial_result_with_z_up(tmp_path, capsys):
    from chrono_flex.viz.viewer import ViewSeries

    pytest.importorskip("pyvista")
    assert main(["run", "spatial-hub-2links", "--t-end", "0.1", "--out", str(tmp_path),
                 "--quiet"]) == 0
    npz = tmp_path / "spatial-hub-2links_reference.npz"
    series = ViewSeries.from_result(Result.from_npz(npz))
    assert series.up == (0.0, 0.0, 1.0)
    shot = tmp_path / "view.png"
    assert main(["view", str(npz), "--screenshot", str(shot)]) == 0
    assert f"wrote {shot}" in capsys.readouterr().out
    assert shot.stat().st_size > 5000
