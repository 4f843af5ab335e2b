"""3D frames and animations of synthetic arms (tests/_synthetic.py): files, pixels, what is
drawn where, and the errors for bad arguments."""

import math

import numpy as np
import pytest
from matplotlib.image import imread
from PIL import Image

from _synthetic import TILTED_PLANE, two_link_result
from chrono_flex.errors import ParameterError
from chrono_flex.planar.params import Plane
from chrono_flex.viz import render, render_animation, render_frame, suggest_scale

NT = 21
MID = NT // 2          # largest deflection of the synthetic arm (sin(pi t / t_end) = 1)


@pytest.fixture(scope="module")
def arm():
    return two_link_result(nt=NT)


def by_gid(fig, gid):
    (artist,) = [a for a in fig.axes[0].get_children() if a.get_gid() == gid]
    return artist


def test_frames_are_nontrivial_pngs_whose_link_pixels_follow_the_deflection(arm, tmp_path):
    paths = [tmp_path / f"{name}.png" for name in ("rest", "bent", "bent_again")]
    render_frame(arm, 0, scale=20, path=paths[0])          # a(0) = 0: straight links
    render_frame(arm, MID, scale=20, path=paths[1])
    render_frame(arm, MID, scale=20, path=paths[2])
    rest, bent, again = (imread(p) for p in paths)
    assert rest.shape == bent.shape == (600, 800, 4)       # 8 x 6 in at 100 dpi
    # non-trivial: a drawn scene has many colours (a blank canvas has 1, a few lines < 50)
    assert len(np.unique(bent.reshape(-1, 4), axis=0)) > 200
    # the same frame renders to the same pixels, so a difference below is the arm's doing
    np.testing.assert_array_equal(bent, again)
    changed = np.any(np.abs(bent - rest) > 0.1, axis=-1)
    # a 20x exaggerated 2 cm tip deflection moves the ~10 px wide link 2 across ~150 px
    # of image; the time stamp alone changes < 0.1 % of the 480 000 pixels
    assert changed.mean() > 0.005


def test_exaggeration_label_and_time_stamp_are_written(arm):
    fig = render_frame(arm, MID, scale=200)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "deformation x 200" in texts
    assert f"t = {arm.t[MID]:.3f} s" in texts
    fig = render_frame(arm, MID, scale=1)
    assert "deformation x 1 (true size)" in [t.get_text() for t in fig.axes[0].texts]


@pytest.mark.parametrize("plane", [Plane(), TILTED_PLANE], ids=["xy", "tilted"])
@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["towards+y", "towards-y"])
def test_drawn_tips_lie_on_the_side_the_links_bend_to(plane, sign):
    # joints at rest: each link's +y is the plane's +Y, so the tips move along +-Y
    res = two_link_result(nt=NT, joint_rates=(0.0, 0.0), amplitudes=(sign * 0.02, sign * 0.01),
                          plane=plane)
    scale = 30.0
    fig = render_frame(res, MID, scale=scale)
    ey, n = np.asarray(plane.y_axis), np.asarray(plane.normal)
    payload = np.ravel(by_gid(fig, "payload").get_data_3d())
    joint2 = np.ravel(by_gid(fig, "joints").get_data_3d())
    ghost1 = np.asarray(by_gid(fig, "ghost_centerline_1").get_data_3d()).T[-1]
    ghost2 = np.asarray(by_gid(fig, "ghost_centerline_2").get_data_3d()).T[-1]
    for drawn, ghost, link in ((joint2, ghost1, 0), (payload, ghost2, 1)):
        offset = drawn - ghost
        true = res.centerline[MID, link, -1] - res.centerline_rigid[MID, link, -1]
        assert sign * (offset @ ey) > 0
        # same arithmetic as the renderer up to the order of operations: round-off only
        np.testing.assert_allclose(offset, scale * true, rtol=1e-12, atol=1e-14)
        assert abs(offset @ n) < 1e-12          # bending stays in the arm plane


def test_tubes_follow_the_exaggerated_centerline_in_a_tilted_plane():
    res = two_link_result(nt=NT, plane=TILTED_PLANE)
    scale = 25.0
    scene = render._Scene(res, scale, "strain")
    scene.update(MID)
    drawn = res.centerline_rigid[MID] + scale * (res.centerline[MID] - res.centerline_rigid[MID])
    # faces (nl, ns-1, sides, 4, 3): the last ring (corners 2, 3 of the last segment) is
    # centred on the drawn tip; the ring is symmetric, so its mean is the centre exactly
    ring = scene.faces[:, -1, :, 2, :]
    np.testing.assert_allclose(ring.mean(axis=1), drawn[:, -1], atol=1e-12)
    # the tube radius is the drawing floor (1.2 % of the arm) since h/2 is smaller
    r = np.linalg.norm(ring - drawn[:, -1][:, None, :], axis=-1)
    np.testing.assert_allclose(r, render._MIN_TUBE_RADIUS * 1.8, rtol=1e-12)
    # fixed axis limits contain every drawn point of the run, with equal aspect
    ax = scene.ax
    lims = np.array([ax.get_xlim(), ax.get_ylim(), ax.get_zlim()])
    allpts = (res.centerline_rigid + scale * (res.centerline - res.centerline_rigid)).reshape(-1, 3)
    assert np.all(allpts >= lims[:, 0]) and np.all(allpts <= lims[:, 1])
    span = lims[:, 1] - lims[:, 0]
    np.testing.assert_allclose(ax.get_box_aspect() / ax.get_box_aspect()[0], span / span[0],
                               rtol=1e-9)


def test_limits_do_not_change_between_frames(arm):
    scene = render._Scene(arm, 50.0, "deflection")
    limits = []
    for k in (0, MID, NT - 1):
        scene.update(k)
        limits.append((scene.ax.get_xlim(), scene.ax.get_ylim(), scene.ax.get_zlim()))
    assert limits[0] == limits[1] == limits[2]


def test_frame_by_time_and_default_frame(arm):
    assert render.frame_index(arm, time=arm.t[MID] + 0.2 * (arm.t[1] - arm.t[0])) == MID
    assert render.frame_index(arm, -1) == NT - 1
    assert render.frame_index(arm) == MID          # largest deflection


def test_draws_into_a_given_3d_axes(arm):
    from matplotlib.figure import Figure

    fig = Figure()
    ax = fig.add_subplot(projection="3d")
    assert render_frame(arm, MID, scale=10, ax=ax) is fig
    assert "deformation x 10" in [t.get_text() for t in ax.texts]


def test_suggest_scale_shows_the_largest_deflection_as_about_a_tenth_of_the_arm():
    for amp in (1e-4, 3e-3, 2e-2):
        res = two_link_result(nt=NT, amplitudes=(amp, amp / 2))
        s = suggest_scale(res)
        mantissa = s / 10 ** math.floor(math.log10(s))
        assert min(abs(mantissa - m) for m in (1, 2, 5)) < 1e-9
        dmax = np.max(np.linalg.norm(res.centerline - res.centerline_rigid, axis=-1))
        shown = s * dmax / 1.8                      # arm length 1.0 + 0.8 m
        # rounding to the nearest of 1, 2, 5 on a log scale is off by at most sqrt(2.5)
        assert 0.1 / math.sqrt(2.5) <= shown <= 0.1 * math.sqrt(2.5)
    assert suggest_scale(two_link_result(nt=NT, amplitudes=(0.0, 0.0))) == 1.0
    assert suggest_scale(two_link_result(nt=NT, amplitudes=(0.5, 0.3))) == 1.0


def test_gif_has_the_asked_number_of_frames(arm, tmp_path):
    path = tmp_path / "arm.gif"
    assert render_animation(arm, path, scale=20, fps=10, n_frames=5) == str(path)
    with Image.open(path) as im:
        assert im.n_frames == 5
        assert im.size == (800, 600)
        assert im.info["duration"] == 100              # ms per frame at 10 fps
    np.testing.assert_array_equal(render.animation_frames(NT, 5), [0, 5, 10, 15, 20])
    assert len(render.animation_frames(NT, 1000)) == NT


def test_mp4_without_ffmpeg_names_path(arm, tmp_path, monkeypatch):
    monkeypatch.setattr(render.shutil, "which", lambda name: None)
    with pytest.raises(ParameterError, match="ffmpeg") as err:
        render_animation(arm, tmp_path / "arm.mp4")
    assert err.value.parameter == "path"


@pytest.mark.parametrize("kwargs, parameter", [
    (dict(k=MID, scale=-1.0), "scale"),
    (dict(k=MID, scale=float("nan")), "scale"),
    (dict(k=MID, scale=float("inf")), "scale"),
    (dict(k=NT), "k"),
    (dict(k=-NT - 1), "k"),
    (dict(k=1.5), "k"),
    (dict(time=-0.1), "time"),
    (dict(time=2.0), "time"),
    (dict(k=MID, color_by="rainbow"), "color_by"),
])
def test_bad_frame_arguments_raise_parameter_error(arm, kwargs, parameter):
    with pytest.raises(ParameterError) as err:
        render_frame(arm, **kwargs)
    assert err.value.parameter == parameter


@pytest.mark.parametrize("name, kwargs, parameter", [
    ("a.gif", dict(n_frames=0), "n_frames"),
    ("a.gif", dict(fps=0), "fps"),
    ("a.gif", dict(scale=-2), "scale"),
    ("a.avi", {}, "path"),
])
def test_bad_animation_arguments_raise_parameter_error(arm, tmp_path, name, kwargs, parameter):
    with pytest.raises(ParameterError) as err:
        render_animation(arm, tmp_path / name, **kwargs)
    assert err.value.parameter == parameter
    assert not (tmp_path / name).exists()


def test_missing_data_is_named(arm):
    from dataclasses import replace

    with pytest.raises(ParameterError) as err:
        render_frame(replace(arm, centerline=None), 0)
    assert err.value.parameter == "result.centerline"
    with pytest.raises(ParameterError) as err:
        render_frame(replace(arm, curvature=None), 0, color_by="strain")
    assert err.value.parameter == "color_by"
    render_frame(replace(arm, curvature=None), 0, color_by="deflection")   # still drawable
    from matplotlib.figure import Figure

    with pytest.raises(ParameterError) as err:
        render_frame(arm, 0, ax=Figure().add_subplot())
    assert err.value.parameter == "ax"
