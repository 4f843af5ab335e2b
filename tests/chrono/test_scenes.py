"""The scenes' switches: formulation names, the slider-crank's inputs and its smooth
spin-up (docs/chrono.md §9)."""

import numpy as np
import pytest

from chrono_flex.chrono import scenes
from chrono_flex.errors import ParameterError


def test_spin_up_motion_is_a_smooth_start_to_the_constant_rate():
    w, T = 4 * np.pi, 0.25
    ts = np.linspace(0.0, 0.5, 5001)
    th, thd, thdd = np.array([scenes.spin_up_motion(t, w, T) for t in ts]).T
    assert th[0] == thd[0] == thdd[0] == 0.0
    # continuous at the join, and the constant rate afterwards
    assert scenes.spin_up_motion(T, w, T) == pytest.approx((w * T / 2, w, 0.0))
    k = np.searchsorted(ts, T)
    assert th[k - 1] == pytest.approx(w * T / 2, abs=w * (ts[1] - ts[0]))
    assert np.allclose(thd[ts > T], w) and np.allclose(thdd[ts > T], 0.0)
    # the rate and acceleration are the angle's derivatives (central differences:
    # O(dt^2) = 1e-8 of the scale)
    dt = ts[1] - ts[0]
    assert np.allclose(np.gradient(th, dt)[1:-1], thd[1:-1], atol=1e-5 * w)
    assert np.allclose(np.gradient(thd, dt)[1:-1], thdd[1:-1], atol=1e-3 * w / T)


@pytest.mark.pychrono
def test_slider_crank_inputs_are_checked():
    with pytest.raises(ParameterError, match="formulation"):
        scenes.SliderCrank(formulation="beams")
    with pytest.raises(ParameterError, match="n_elements"):
        scenes.SliderCrank(formulation="beam", n_elements=3)
    with pytest.raises(ParameterError, match="spin_up"):
        scenes.SliderCrank(spin_up=-1.0)


@pytest.mark.pychrono
@pytest.mark.parametrize("name", ["beam", "chrono-beam"])
def test_both_names_of_the_beam_formulation_build_the_same_slider_crank(name):
    sc = scenes.SliderCrank(formulation=name, spin_up=0.1)
    assert sc.formulation == "beam"
    # at rest at top dead centre: slider at r + l, the rod straight, nothing moving
    t, theta, x, mid, gap, angle, E, P = sc.read()
    assert (t, theta) == (0.0, 0.0)
    assert x == pytest.approx(0.65, abs=1e-12) and abs(mid) < 1e-12 and gap < 1e-12
    assert E == pytest.approx(0.0, abs=1e-12) and P == pytest.approx(0.0, abs=1e-12)
    # its rod's points run from the crank pin to the slider
    pts = sc.rod_points()
    assert np.allclose(pts[0], sc.crank_pin()[:2]) and np.allclose(pts[-1], [0.65, 0.0])
