"""The interactive viewer (chrono_flex.viz.viewer, PyVista): its scene is built and
rendered off-screen; without PyVista the core works and the viewer names the extra."""

import os
import subprocess
import sys

import numpy as np
import pytest

from _synthetic import two_link_result
from chrono_flex.cli import main
from chrono_flex.errors import MissingExtra, ParameterError
from chrono_flex.viz import suggest_scale, write_vtk_series

NT, NL, NS = 21, 2, 11


@pytest.fixture(scope="module")
def arm():
    return two_link_result(nt=NT, ns=NS, amplitudes=(0.05, 0.03))


@pytest.fixture
def pv():
    pyvista = pytest.importorskip("pyvista")    # the viz extra
    pyvista.OFF_SCREEN = True
    return pyvista


def test_without_pyvista_the_core_works_and_the_viewer_names_the_extra(tmp_path, capsys,
                                                                       monkeypatch):
    code = ("import sys; sys.modules['pyvista'] = None\n"      # import pyvista -> ImportError
            "import chrono_flex, chrono_flex.viz, chrono_flex.cli, chrono_flex.viz.viewer\n"
            "print('core ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert out.returncode == 0 and "core ok" in out.stdout, out.stderr
    monkeypatch.setitem(sys.modules, "pyvista", None)
    from chrono_flex.viz.viewer import ArmViewer

    with pytest.raises(MissingExtra, match=r"pyvista.*chrono_flex\[viz\]"):
        ArmViewer(two_link_result(nt=3))
    assert main(["view", str(tmp_path / "run.npz")]) == 2
    assert "pip install 'chrono_flex[viz]'" in capsys.readouterr().err


def test_scene_has_the_arm_and_the_scale_slider_moves_its_points(arm, pv):
    from chrono_flex.viz.viewer import ArmViewer

    v = ArmViewer(arm, off_screen=True)
    try:
        assert v.mesh.n_points == NL * NS and v.mesh.n_cells == NL * (NS - 1)  # none across links
        assert v.scale == suggest_scale(arm)          # the same rule as the 3D pictures
        k = v.frame
        c, r = arm.centerline[k].reshape(-1, 3), arm.centerline_rigid[k].reshape(-1, 3)
        # x_shown = x_rigid + K (x - x_rigid); round-off of one product and two sums
        np.testing.assert_allclose(v.mesh.points, r + v.scale * (c - r), rtol=0, atol=1e-12)
        # the slider as a user drags it: its value changes, its end-of-interaction fires
        v.scale_slider.GetRepresentation().SetValue(3.5)
        v.scale_slider.InvokeEvent("EndInteractionEvent")
        assert v.scale == 3.5
        np.testing.assert_allclose(v.mesh.points, r + 3.5 * (c - r), rtol=0, atol=1e-12)
        v.frame_slider.GetRepresentation().SetValue(3.2)
        v.frame_slider.InvokeEvent("EndInteractionEvent")
        assert v.frame == 3
        np.testing.assert_array_equal(v.mesh.point_data["bending strain"],
                                      arm.bending_strain[3].ravel())
        with pytest.raises(ParameterError, match="frame"):
            v.set_frame(NT)
        with pytest.raises(ParameterError, match="scale"):
            v.set_scale(-1.0)
        v.play()                                      # off-screen: steps to the last frame
        assert v.frame == NT - 1
    finally:
        v.close()


def test_a_vtk_series_and_a_npz_show_the_same_arm_as_the_result(arm, pv, tmp_path):
    from chrono_flex.viz.viewer import ViewSeries

    pvd = write_vtk_series(arm, tmp_path / "vtk", stem="arm", n_frames=5)
    npz = arm.to_npz(tmp_path / "run.npz")
    direct = ViewSeries.load(arm)
    f32 = lambda a: np.asarray(a).astype(np.float32)  # noqa: E731
    for series, frames, stored in ((ViewSeries.load(tmp_path / "vtk"), [0, 5, 10, 15, 20], f32),
                                   (ViewSeries.load(pvd), [0, 5, 10, 15, 20], f32),
                                   (ViewSeries.load(npz), range(NT), np.asarray)):
        frames = list(frames)
        np.testing.assert_array_equal(series.t, arm.t[frames])
        np.testing.assert_array_equal(series.link_id, direct.link_id)
        # VTK series hold float32 (chrono_flex.viz.vtk), the NPZ float64
        np.testing.assert_array_equal(series.color, stored(direct.color[frames]))
        np.testing.assert_array_equal(series.deflection, stored(direct.deflection[frames]))
        # the series stores x and x - x_rigid: x_rigid back to the rounding of both
        # (float32: 6e-8 relative, of coordinates below 2 m; float64: round-off)
        atol = 2 * 2.0 * 2.0 ** -24 if stored is f32 else 1e-15
        np.testing.assert_allclose(series.rigid, direct.rigid[frames], rtol=0, atol=atol)


def test_bad_sources_are_named(pv, tmp_path):
    from chrono_flex.viz.viewer import ViewSeries

    with pytest.raises(ParameterError, match="exactly one .pvd"):
        ViewSeries.load(tmp_path)
    (tmp_path / "x.txt").write_text("")
    with pytest.raises(ParameterError, match="`source`.*x.txt"):
        ViewSeries.load(tmp_path / "x.txt")
    with pytest.raises(ParameterError, match="does not exist"):
        ViewSeries.load(tmp_path / "none.npz")
    with pytest.raises(ParameterError, match="`source`"):
        ViewSeries.load(42)
    (tmp_path / "broken.pvd").write_text("<VTKFile")
    with pytest.raises(ParameterError, match="not a readable .pvd"):
        ViewSeries.load(tmp_path / "broken.pvd")


def test_no_window_without_a_display_says_to_take_a_screenshot(arm, pv, tmp_path, capsys,
                                                               monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    assert main(["view", str(arm.to_npz(tmp_path / "run.npz"))]) == 2
    assert "`--screenshot` must be given here: no display" in capsys.readouterr().err


def test_off_screen_picture_shows_the_bent_arm(arm, pv, tmp_path, capsys):
    """The PNG of the frame of largest deflection: the arm drawn at K = 20 differs from the
    rigid arm (K = 0) in many pixels, and both pictures hold the coloured arm."""
    from PIL import Image

    npz = arm.to_npz(tmp_path / "run.npz")
    bent, rigid = tmp_path / "bent.png", tmp_path / "rigid.png"
    assert main(["view", str(npz), "--scale", "20", "--screenshot", str(bent)]) == 0
    assert main(["view", str(npz), "--scale", "0", "--screenshot", str(rigid)]) == 0
    assert f"wrote {bent}" in capsys.readouterr().out
    a = np.asarray(Image.open(bent).convert("RGB"), dtype=int)
    b = np.asarray(Image.open(rigid).convert("RGB"), dtype=int)
    coloured = lambda im: np.sum(im.max(axis=2) - im.min(axis=2) > 60)  # noqa: E731
    assert coloured(a) > 1000 and coloured(b) > 1000    # the tube is drawn (not a blank image)
    moved = np.sum(np.abs(a - b).sum(axis=2) > 60)
    assert moved > 1000, f"only {moved} pixels differ between K = 20 and K = 0"
    assert main(["view", str(npz), "--screenshot", str(tmp_path / "x.jpg")]) == 2


def test_without_curvature_the_arm_is_coloured_by_its_deflection(arm, pv):
    from dataclasses import replace

    from chrono_flex.viz.viewer import ViewSeries

    s = ViewSeries.load(replace(arm, curvature=None))
    assert s.color_name == "|deflection| (m)"
    d = (arm.centerline - arm.centerline_rigid).reshape(NT, -1, 3)
    np.testing.assert_array_equal(s.color, np.linalg.norm(d, axis=-1))


def test_a_hanging_arm_is_drawn_hanging_without_the_sliders(pv, tmp_path):
    """An arm hanging along -Y of its plane (against gravity: +Y up) is drawn upright on
    the screen, taller than wide, whatever its plane of motion; the screenshot at
    --frame K shows that frame and no slider."""
    from dataclasses import replace

    from PIL import Image

    from chrono_flex.viz.viewer import ArmViewer

    res = two_link_result(nt=NT, ns=NS, joint_rates=(0.0, 0.0), amplitudes=(0.05, 0.03))
    down = np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])   # x -> -y
    hanging = replace(res, centerline=res.centerline @ down,
                      centerline_rigid=res.centerline_rigid @ down)
    v = ArmViewer(hanging, scale=1.0, frame=4, off_screen=True)
    try:
        np.testing.assert_allclose(v.plotter.camera.up, (0.0, 1.0, 0.0), atol=1e-9)
        assert v.frame == 4 and "frame 4 of" in v.plotter.actors["label"].GetText(3)
        path = v.screenshot(tmp_path / "hang.png")
    finally:
        v.close()
    im = np.asarray(Image.open(path).convert("RGB"), dtype=int)
    coloured = im.max(axis=2) - im.min(axis=2) > 60
    rows, cols = np.nonzero(coloured[:, : int(0.85 * im.shape[1])])   # left of the colour bar
    assert np.ptp(rows) > 3 * np.ptp(cols), (np.ptp(rows), np.ptp(cols))     # upright
    # no slider: the band where they sit (the bottom 10 %, around 8 % up) is background
    band = im[int(0.9 * im.shape[0]):, :]
    assert np.all(band.min(axis=2) > 200), "something is drawn where the sliders were"
    assert main(["view", str(hanging.to_npz(tmp_path / "h.npz")), "--frame", "2",
                 "--screenshot", str(tmp_path / "h2.png")]) == 0
