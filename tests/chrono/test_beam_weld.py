"""Bodies welded to an arm of Chrono's beams (BeamArm.attach, docs/chrono.md §8): the
same scenes as FlexibleLink.attach with one argument switched, statics against closed
forms, the two formulations on a welded-payload swing, and bad input."""

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex.errors import ParameterError
from chrono_flex.planar.shapes import elastica_tip_deflection

pytestmark = pytest.mark.pychrono

from chrono_flex.chrono import scenes
from chrono_flex.validation.cases import scene


def test_elastica_reduces_to_beam_theory_for_small_loads():
    # P L^3/3EI (1 - c alpha^2): the correction falls as alpha^2 (c about 1/9)
    for a in (0.15, 0.075):
        rel = elastica_tip_deflection(a, 1.0, 1.0) / (a / 3) - 1
        assert -0.13 * a * a < rel < -0.10 * a * a


@pytest.mark.parametrize("formulation", ["element", "beam"])
def test_a_force_on_the_welded_tip_body_gives_PL3_over_3EI_with_both_formulations(formulation):
    r = scene.cantilever_pulled(scene.L, formulation)
    # the weld transmits the whole force, in either formulation
    assert np.allclose(r["force"], [0.0, scene.P_TIP, 0.0], rtol=0, atol=1e-9 * scene.P_TIP)
    lin, ela = r["w_tip_exact"], r["w_elastica"]
    if formulation == "element":
        # linear Hermite elements are nodally exact: Newton's 1e-9 relative is what is left
        assert abs(r["w_tip"] - lin) <= 1e-9 * abs(lin)
    else:
        # Chrono's corotational beams are geometrically exact: they follow the elastica
        # (-2.6e-3 relative to P L^3/3EI at alpha = 0.15) to their O(l^2) discretisation
        # error, 4.7e-5 measured with 4 elements (1.2e-5 with 8)
        assert abs(r["w_tip"] - ela) <= 1e-4 * abs(ela)
        assert abs(r["w_tip"] - lin) <= 1.2 * abs(ela - lin)
        assert r["gap"] < 1e-12 and r["angle"] < 1e-12   # Chrono's exact constraint


def test_beam_weld_at_mid_span_node_bends_the_link_as_beam_theory_says():
    r = scene.cantilever_pulled(scene.L / 2, "beam")
    # alpha at the load is P s^2/EI = 0.0375: the elastica's correction is < 2e-4 relative
    assert abs(r["w_s"] - r["w_s_exact"]) <= 3e-4 * abs(r["w_s_exact"])
    assert abs(r["w_tip"] - r["w_tip_exact"]) <= 3e-4 * abs(r["w_tip_exact"])


def test_the_two_formulations_agree_on_a_welded_payload_swing_within_the_derived_bound():
    st = scene.formulation_swing()
    diff, bound = np.array(st["diff"]), np.array(st["bound"])
    assert np.all(diff <= bound), (diff, bound)
    # the case is in the linear range the bound assumes, and it did swing
    assert st["w_max"] < 0.02 * scene.L and st["alpha_N"] < 0.05
    assert st["theta_max"] > 0.05


@pytest.fixture
def beam_scene():
    system = scenes.new_system()
    arm = cf.PlanarArm([cf.Link(length=1.0, n_elements=4, EI=2.0, rho_A=0.5)])
    return system, scenes.clamped_link(system, arm, "beam")


def test_beam_weld_station_must_fall_on_a_node(beam_scene):
    system, link = beam_scene
    body = scenes.free_body(system, 0.1, (1e-3,) * 3, (0.3, 0.0, 0.0))
    with pytest.raises(ParameterError, match="s.*beam node"):
        link.attach(body, s=0.3)
    with pytest.raises(ParameterError, match="s"):
        link.attach(body, s=1.5)
    with pytest.raises(ParameterError, match="link"):
        link.attach(body, link=1)
    other = scenes.new_system()
    stranger = scenes.free_body(other, 0.1, (1e-3,) * 3, (1.0, 0.0, 0.0))
    with pytest.raises(ParameterError, match="body.*system"):
        link.attach(stranger)
    att = link.attach(body, s=0.25)
    assert att.s == 0.25 and att.error() == (0.0, 0.0)


def test_unknown_formulation_is_named():
    with pytest.raises(ParameterError, match="formulation"):
        scenes.flexible_link(scenes.new_system(), cf.PlanarArm([cf.Link(length=1.0, EI=1.0, rho_A=1.0)]), "shell")


# -- free vibration of the propped cantilever --------------------------------------------

def test_clamped_pinned_roots_are_the_printed_ones():
    from chrono_flex.planar.shapes import clamped_pinned_roots

    # Blevins' table gives 5 significant digits
    assert np.allclose(clamped_pinned_roots(3), [3.9266, 7.0686, 10.2102], atol=5e-5)


def test_trapezoidal_frequency_recovers_the_oscillator_from_its_trapezoidal_samples():
    # the trapezoidal rule on x'' = -omega^2 x, written out: it must give omega back
    omega, h = 7.0, 0.05
    A = np.array([[1.0, -h / 2], [h / 2 * omega ** 2, 1.0]])
    B = np.array([[1.0, h / 2], [-h / 2 * omega ** 2, 1.0]])
    step = np.linalg.solve(A, B)
    y, xs = np.array([1.0, 0.0]), []
    for _ in range(60):
        xs.append(y[0])
        y = step @ y
    assert abs(scene.trapezoidal_frequency(xs, h) - omega) < 1e-10 * omega
    # a plain zero-crossing count would see the period error (omega h)^2 / 12 ~ 1e-2
    assert abs(np.arccos(0.5 * (xs[2] + xs[0]) / xs[1]) / h - omega) > 1e-3 * omega


def test_propped_cantilever_frequencies_converge_to_the_closed_form_at_fourth_order():
    st = scene.propped_vibration_study()
    for mode, s in st.items():
        # cubic Hermite elements: eigenvalue error O(h^4) (Strang & Fix); n = 2 is still
        # pre-asymptotic for the second mode, so the order is read from 4 -> 8 elements
        assert 3.5 < s["orders"][-1] < 4.5, (mode, s["orders"])
        assert np.all(np.diff(s["errors"]) < 0)
        # 8 elements: 3.7e-5, 4.0e-4 and 1.7e-3 measured for modes 1, 2, 3
        assert s["errors"][-1] < (5e-4, 5e-4, 3e-3)[mode]
        for r in s["rows"]:
            # the Chrono scene reproduces its discrete model: the pin body's inertia and
            # the bushing shift the frequency by <= 1.1e-4 (modes 1, 2) and 5.1e-4 (mode
            # 3, whose tip turns fastest) measured, worst with n = 2
            assert abs(r["vs_discrete"]) < (2e-4, 2e-4, 1e-3)[mode], r
            assert r["error"] > 0               # consistent mass: bounds from above
