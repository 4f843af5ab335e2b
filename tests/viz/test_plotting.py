"""The run plot (chrono_flex.viz.plotting) and the files of the `chrono-flex render` command."""

import os

import numpy as np
import pytest
from matplotlib.image import imread
from PIL import Image

from _synthetic import two_link_result
from chrono_flex.viz.plotting import plot_result
from chrono_flex.viz import render_command


def lines_of(ax):
    return {ln.get_label(): ln for ln in ax.get_lines()}


def test_plot_shows_every_series_with_its_values(tmp_path):
    res = two_link_result(nt=31)
    path = tmp_path / "run.png"
    fig = res.plot(path=path, title="my run")       # Result.plot -> plot_result
    assert fig._suptitle.get_text() == "my run"
    joints, defl, energy, balance, torque = fig.axes
    same = np.testing.assert_array_equal
    same(lines_of(joints)["joint 2"].get_ydata(), res.joint_angles[:, 1])
    same(lines_of(defl)["link 1"].get_ydata(), 1e3 * res.tip_deflection[:, 0])    # mm
    e = res.energy
    for name, series in (("mechanical", e.mechanical), ("input work", e.input_work),
                         ("dissipated", e.dissipated)):
        np.testing.assert_array_equal(lines_of(energy)[name].get_ydata(), series)
    np.testing.assert_array_equal(lines_of(balance)["balance error"].get_ydata(), e.balance_error)
    np.testing.assert_array_equal(lines_of(torque)["joint 1"].get_ydata(), res.joint_torque[:, 0])
    assert imread(path).shape[1] == 1080                  # 9 in at 120 dpi


def test_coinciding_energies_stay_visible_and_legends_cover_no_curve():
    """Without dissipation the mechanical energy lies on the input work: it is drawn on top
    (higher zorder), dashed, over a wider solid line; every legend lies outside its panel."""
    fig = plot_result(two_link_result(nt=31))
    energy = fig.axes[2]
    mech, work = lines_of(energy)["mechanical"], lines_of(energy)["input work"]
    assert mech.get_zorder() > work.get_zorder()
    assert mech.get_linestyle() == "--" and work.get_linestyle() == "-"
    assert work.get_linewidth() > mech.get_linewidth()
    renderer = fig.canvas.get_renderer()
    fig.draw(renderer)                          # the final layout places the legends
    for ax in fig.axes:
        legend = ax.get_legend()
        assert legend is not None
        box, panel = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
        assert not box.overlaps(panel), f"legend of {ax.get_ylabel()!r} lies on its panel"


def test_plot_without_energy_or_torque_says_so():
    fig = plot_result(two_link_result(nt=11, energy=False, torque=False))
    assert len(fig.axes) == 3
    assert any("energy not available" in t.get_text() for t in fig.axes[2].texts)


@pytest.mark.filterwarnings("error")
def test_render_command_writes_what_is_asked(tmp_path):
    res = two_link_result(nt=11)
    paths = render_command(res, tmp_path / "out", gif=True, vtk=tmp_path / "out" / "series",
                           n_frames=4)
    names = [os.path.relpath(p, tmp_path / "out") for p in paths]
    assert names == ["two_link_cantilever_max_deflection.png", "two_link_cantilever.gif",
                     os.path.join("series", "two_link_cantilever.pvd"),
                     "two_link_cantilever_plot.png"]
    assert all(os.path.getsize(p) > 1000 for p in paths if not p.endswith(".pvd"))  # pictures
    with Image.open(paths[1]) as im:
        assert im.n_frames == 4
    # the VTK series has the frames of the animation, not every output step
    assert len([p for p in os.listdir(tmp_path / "out" / "series") if p.endswith(".vtu")]) == 4
    only = render_command(res, tmp_path / "plain", scale=3)
    assert [os.path.basename(p) for p in only] == ["two_link_cantilever_max_deflection.png",
                                                   "two_link_cantilever_plot.png"]
