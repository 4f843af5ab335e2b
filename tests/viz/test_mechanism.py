"""Planar mechanism GIFs (chrono_flex.viz.mechanism)."""

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from chrono_flex.errors import ParameterError
from chrono_flex.viz.mechanism import box_outline, render_mechanism


def test_box_outline_turns_about_its_centre():
    out = box_outline((1.0, 2.0), (0.5, 0.25), np.pi / 2)
    assert out.shape == (5, 2) and np.allclose(out[0], out[-1])
    # the corner (-0.5, -0.25) turned by 90 degrees is (0.25, -0.5)
    assert np.allclose(out[0], [1.25, 1.5])


def test_render_mechanism_writes_the_frames(tmp_path):
    from PIL import Image

    t = np.linspace(0.0, 1.0, 11)
    crank = np.stack([np.zeros((11, 2)), np.c_[np.cos(t), np.sin(t)]], axis=1)
    path = render_mechanism(t, {"crank": crank}, tmp_path / "m.gif", n_frames=6,
                            labels=lambda k: f"frame {k}")
    with Image.open(path) as im:
        assert im.n_frames == 6


def test_render_mechanism_names_bad_input(tmp_path):
    t = np.linspace(0.0, 1.0, 3)
    good = np.zeros((3, 2, 2))
    with pytest.raises(ParameterError, match="lines"):
        render_mechanism(t, {}, tmp_path / "m.gif")
    with pytest.raises(ParameterError, match=r"lines\['a'\]"):
        render_mechanism(t, {"a": np.zeros((3, 2))}, tmp_path / "m.gif")
    with pytest.raises(ParameterError, match=r"lines\['b'\]"):
        render_mechanism(t, {"a": good, "b": np.zeros((4, 2, 2))}, tmp_path / "m.gif")
    with pytest.raises(ParameterError, match="t"):
        render_mechanism(t[:2], {"a": good}, tmp_path / "m.gif")
    with pytest.raises(ParameterError, match="path"):
        render_mechanism(t, {"a": good}, tmp_path / "m.png")
    assert list(tmp_path.iterdir()) == []
