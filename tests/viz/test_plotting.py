"""The run plot (chrono_flex.viz.plotting) and the files of the `chrono-flex render` command."""

import os

import numpy as np
import pytest
from matplotlib.image import imread
from PIL import Image

from dataclasses import replace

import chrono_flex as cf
from _synthetic import two_link_result
from chrono_flex.errors import ParameterError
from chrono_flex.result import Energy
from chrono_flex.viz.plotting import draw_figure, plot_result
from chrono_flex.viz import render_command


def lines_of(ax):
    return {ln.get_label(): ln for ln in ax.get_lines()}


def by_label(fig):
    """{y label's first line: axes} of a figure."""
    return {ax.get_ylabel().split("\n")[0]: ax for ax in fig.axes}


def test_plot_shows_every_series_with_its_values(tmp_path):
    res = two_link_result(nt=31)
    path = tmp_path / "run.png"
    fig = res.plot(path=path, title="my run")       # Result.plot -> plot_result
    assert fig._suptitle.get_text() == "my run"
    ax = by_label(fig)
    assert list(ax) == ["joint coordinate", "tip deflection", "energy", "balance error",
                        "joint torque"]
    same = np.testing.assert_array_equal
    same(lines_of(ax["joint coordinate"])["$\\theta_{2}$"].get_ydata(), res.joint_angles[:, 1])
    same(lines_of(ax["tip deflection"])["link 1"].get_ydata(), 1e3 * res.tip_deflection[:, 0])
    e = res.energy
    energy = lines_of(ax["energy"])
    same(energy["$T$"].get_ydata(), e.kinetic)
    same(energy["$V - V_0$"].get_ydata(), e.elastic + e.gravity - (e.elastic + e.gravity)[0])
    same(energy["$W_\\mathrm{in}$"].get_ydata(), e.input_work)
    same(energy["$D$"].get_ydata(), e.dissipated)
    (balance,) = ax["balance error"].get_lines()
    same(balance.get_ydata(), e.balance_error)
    same(lines_of(ax["joint torque"])["$\\tau_{1}$"].get_ydata(), res.joint_torque[:, 0])
    # every axis names its unit
    for a in fig.axes:
        assert "(" in a.get_ylabel() and ")" in a.get_ylabel(), a.get_ylabel()
    assert fig.axes[-1].get_xlabel() == "time $t$ (s)"
    assert imread(path).shape[1] == 1050                  # 7 in at 150 dpi


def test_legends_cover_no_curve():
    fig = plot_result(two_link_result(nt=31))
    renderer = fig.canvas.get_renderer()
    fig.draw(renderer)                          # the final layout places the legends
    for ax in fig.axes:
        legend = ax.get_legend()
        assert legend is not None
        box, panel = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
        assert not box.overlaps(panel), f"legend of {ax.get_ylabel()!r} lies on its panel"


def test_panels_follow_what_the_run_has():
    """No torque panel for an unforced run, no balance panel where the balance holds to
    round-off, no energy panel without energies: each left out is named in the note."""
    res = two_link_result(nt=31)
    e = res.energy
    exact = Energy(e.kinetic, e.elastic, e.gravity,
                   e.kinetic + e.elastic - e.kinetic[0] - e.elastic[0] + e.dissipated,
                   e.dissipated)
    fig = plot_result(replace(res, energy=exact, joint_torque=0.0 * res.joint_torque))
    assert list(by_label(fig)) == ["joint coordinate", "tip deflection", "energy"]
    note = fig._supxlabel.get_text()
    assert "no joint torque" in note and "energy balance error within round-off" in note
    fig = plot_result(two_link_result(nt=11, energy=False, torque=False))
    assert list(by_label(fig)) == ["joint coordinate", "tip deflection"]
    assert "energies not given by engine 'synthetic'" in fig._supxlabel.get_text()


def test_a_dense_oscillation_is_drawn_as_its_envelope():
    """300 periods of a 60 Hz tip oscillation riding on a slow 0.2 Hz one: an envelope
    band and a mean line, instead of 300 periods of line; sampled at 20 points a period,
    the band reaches the amplitude to 1 - cos(pi / 20) = 1.2 %."""
    res = two_link_result(nt=6001, t_end=5.0)
    t = res.t
    slow, fast = 0.5e-3 * np.sin(2 * np.pi * 0.2 * t), 0.2e-3 * np.sin(2 * np.pi * 60 * t)
    w = np.column_stack([slow + fast, res.tip_deflection[:, 1]])
    fig = plot_result(replace(res, tip_deflection=w))
    ax = by_label(fig)["tip deflection"]
    assert "link 1" not in lines_of(ax)                   # not drawn as a line
    mean = lines_of(ax)["link 1: mean"]
    band = [c for c in ax.collections if c.get_label() == "link 1: envelope"]
    assert len(band) == 1
    hi = band[0].get_paths()[0].vertices[:, 1].max()
    np.testing.assert_allclose(hi, 1e3 * (0.5e-3 + 0.2e-3), rtol=0.03)   # 1.2 % + the slow
    # the mean follows the slow motion: the fast one averages out over two periods
    # (windows of whole periods; the slow part changes by 2 pi 0.2 x 0.033 s = 4 % in one)
    slow_at = 1e3 * 0.5e-3 * np.sin(2 * np.pi * 0.2 * mean.get_xdata())
    assert np.max(np.abs(mean.get_ydata() - slow_at)) < 0.05 * 1e3 * 0.5e-3
    assert "link 2" in lines_of(ax)                       # a slow link stays a line


def test_several_results_overlaid_with_labels(tmp_path):
    a, b = two_link_result(nt=21), two_link_result(nt=31, amplitudes=(0.01, 0.02))
    fig = cf.plot([a, b], labels=["coarse", "fine"], path=tmp_path / "both.pdf")
    ax = by_label(fig)
    lines = lines_of(ax["tip deflection"])
    np.testing.assert_array_equal(lines["coarse, link 1"].get_ydata(), 1e3 * a.tip_deflection[:, 0])
    np.testing.assert_array_equal(lines["fine, link 2"].get_ydata(), 1e3 * b.tip_deflection[:, 1])
    assert lines["coarse, link 1"].get_color() != lines["fine, link 1"].get_color()
    assert fig._suptitle.get_text() == "coarse vs fine"
    assert set(lines_of(ax["balance error"])) == {"coarse", "fine"}
    assert (tmp_path / "both.pdf").read_bytes()[:5] == b"%PDF-"
    again = a.plot(others=[b], labels=["coarse", "fine"])       # the same through Result.plot
    assert [ln.get_label() for ln in again.axes[1].get_lines()] == \
        [ln.get_label() for ln in fig.axes[1].get_lines()]
    with pytest.raises(ParameterError, match="labels"):
        cf.plot([a, b], labels=["one"])


def test_vector_formats_by_suffix(tmp_path):
    res = two_link_result(nt=11)
    res.plot(tmp_path / "f.svg")
    text = (tmp_path / "f.svg").read_text()
    assert "<svg" in text and "tip deflection" in text       # text stays text
    res.plot(tmp_path / "f.pdf")
    assert (tmp_path / "f.pdf").read_bytes()[:5] == b"%PDF-"


def test_log_axes_over_a_decade_read_as_plain_numbers(tmp_path):
    def draw(fig):
        ax = fig.subplots()
        ax.loglog([1.0, 2.0, 4.0, 8.0], [3.0, 1.0, 0.5, 0.3])
    fig = draw_figure(draw, tmp_path / "log.png")
    fig.canvas.draw()
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels() if t.get_text()]
    assert labels and all("10^" not in s and "times" not in s for s in labels), labels
    assert "2" in labels


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


def test_sweep_axis_names_the_key_and_its_unit():
    from chrono_flex.viz.sweep import plot_sweep

    rows = [{"status": "ok", "payload.mass": m, "links[0].EI": ei,
             "peak_tip_deflection1": 1e-3 * m / ei, "joint1_final": 0.1 * m}
            for m in (0.1, 0.2) for ei in (1.0, 2.0)]
    fig = plot_sweep(rows, ["payload.mass", "links[0].EI"])
    assert [ax.get_xlabel() for ax in fig.axes] == ["payload.mass (kg)"] * 2
    fig = plot_sweep(rows, ["links[0].EI", "payload.mass"])
    assert fig.axes[0].get_xlabel() == "links[0].EI (N m$^2$)"
    assert all("(" in ax.get_ylabel() for ax in fig.axes)
