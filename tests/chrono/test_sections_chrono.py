"""A tapered link in both Chrono formulations against the reference engine: the static
tip deflection of a truncated cone (radius halving from root to tip) under a tip load.

* The custom element (FlexibleLink) uses the reference's own element matrices (the
  section integrated exactly). Its tip load is a payload of weight P under gravity (the
  link's own weight acts too), so no weld enters: the two solve the same equations and
  agree up to the settle's residual (implicit Euler, every mode decays by
  (1 + (omega h)^2)^(-1/2) per step; Newton's tolerance) and round-off, < 1e-7.
* Chrono's beams get one section per element, the element mean of EI and rho_A
  (chrono_flex.chrono.corotational.element_sections), and P through a body welded to
  the tip node (ChLinkMateFix), no gravity. They must match the reference run on the
  same piecewise-constant section (``Link.per_element()``) up to what the beams add
  physically: axial stretch and the large-rotation terms of the corotational element,
  relative (w/L)^2 ~ 1e-5 at w/L ~ 3e-3, and the Timoshenko elements' shear compliance
  (phi = 1e-6). Against the exact section they differ by the averaging error itself,
  |w(per element) - w(exact)| (O(h^2), printed), which bounds them with that margin.
"""

import math

import pytest
from scipy.integrate import quad

import chrono_flex as cf
from chrono_flex.chrono import scenes

pytestmark = pytest.mark.pychrono

L, EI0, RHO_A0, TAPER, N = 1.0, 2.0, 0.5, 0.5, 6
#: Gravity of the element's scene, m/s^2: small, so that the payload of weight P is 1 kg
#: and the link's own weight (rho_A g L ~ 3e-3 N) stays comparable to P.
G = 0.01
#: Tip load, N: a tip deflection of about 3e-3 L.
P = 1e-2
#: Static settle of the Chrono scenes: implicit Euler, step and count (the first mode,
#: ~10 rad/s, decays by 0.2 per step; 40 steps leave < 1e-25). The element carries a
#: 1 kg payload (first mode ~1.5 rad/s): its step is 10 times longer (0.13 per step).
STEP, STEPS = 0.5, 40
ELEMENT_STEP = 5.0
#: The element against the reference: settle residual and round-off.
SETTLE = 1e-7
#: The beams against the reference on the same sections: (w/L)^2 ~ 1e-5 (large-rotation
#: and axial terms the linear reference lacks) plus shear (phi = 1e-6); 3e-5 with margin.
BEAM_PHYSICS = 3e-5


def cone_section(x):
    r = 1 - (1 - TAPER) * x / L          # radius / root radius
    return EI0 * r**4, RHO_A0 * r**2


def tapered_link(n=N):
    return cf.Link(length=L, n_elements=n, EI=lambda x: cone_section(x)[0],
                   rho_A=lambda x: cone_section(x)[1], thickness=0.01)


def reference_tip(link, weight=False):
    """Tip deflection of the reference: under P at the tip (``weight``: a payload of
    weight P and the link's own weight, gravity -Y)."""
    if weight:
        arm = cf.PlanarArm([link], payload=cf.Payload(mass=P / G), gravity=G)
        q = arm.static_deflection()
    else:
        arm = cf.PlanarArm([link])
        q = arm.static_deflection(tip_force=(0.0, -P))
    return float(q[arm.elastic_index][-2])


def element_tip(link):
    """The custom element with a payload of weight P, under gravity, settled."""
    system = scenes.new_system(gravity=(0.0, -G, 0.0), timestepper="euler")
    arm = cf.PlanarArm([link], payload=cf.Payload(mass=P / G), gravity=G)
    fl = scenes.clamped_link(system, arm, "element")
    scenes.settle(system, ELEMENT_STEP, STEPS)
    return float(fl.tip_deflections()[0])


def beam_tip(link, **kw):
    """Chrono's beams with a body welded at the tip node, pulled by P, settled."""
    system = scenes.new_system(timestepper="euler")
    arm = scenes.clamped_link(system, cf.PlanarArm([link]), "beam", **kw)
    body = scenes.free_body(system, 1.0, (1e-2,) * 3, (L, 0.0, 0.0))
    arm.attach(body)
    scenes.world_force(system, body, (0.0, -P, 0.0))
    scenes.settle(system, STEP, STEPS)
    return float(arm.tip_deflections()[0])


def test_reference_tip_deflection_matches_the_unit_load_integral():
    """w(L) = int_0^L P (L - x)^2 / EI(x) dx; Hermite elements with the section
    integrated exactly converge at O(h^4) (measured: error ratio ~16 per halving)."""
    exact = -quad(lambda x: P * (L - x) ** 2 / cone_section(x)[0], 0, L, epsrel=1e-14)[0]
    errs = [abs(reference_tip(tapered_link(n)) / exact - 1) for n in (3, 6, 12)]
    print(f"[sections] tip deflection errors n = 3, 6, 12: {errs}")
    assert errs[2] < errs[1] < errs[0]
    assert math.log2(errs[1] / errs[2]) > 3.5       # order 4, less pre-asymptotic terms


def test_tapered_element_matches_the_reference():
    link = tapered_link()
    w_ref, w = reference_tip(link, weight=True), element_tip(link)
    print(f"[sections] element: w = {w:.10e}, reference {w_ref:.10e}")
    assert abs(w - w_ref) <= SETTLE * abs(w_ref)


@pytest.mark.parametrize("consistent", [False, True])
def test_tapered_beams_match_the_reference(consistent):
    link = tapered_link()
    w_ref = reference_tip(link)
    w_pe = reference_tip(link.per_element())
    w = beam_tip(link, consistent_mass=consistent)
    averaging = abs(w_pe - w_ref)
    print(f"[sections] beams (consistent mass {consistent}): w = {w:.9e}, reference "
          f"{w_ref:.9e}, per-element reference {w_pe:.9e} (averaging error "
          f"{averaging / abs(w_ref):.2e})")
    assert abs(w - w_pe) <= BEAM_PHYSICS * abs(w_ref)
    assert abs(w - w_ref) <= averaging + BEAM_PHYSICS * abs(w_ref)


def test_chrono_beams_refuse_unequal_elements():
    from chrono_flex.chrono.beam_scene import build_beams
    from chrono_flex.errors import ParameterError

    arm = cf.PlanarArm([cf.Link(length=1.0, element_lengths=(0.3, 0.7), EI=1.0, rho_A=1.0)])
    with pytest.raises(ParameterError) as e:
        build_beams(arm)
    assert e.value.parameter == "links[0].element_lengths"


def test_beam_energies_use_each_elements_section():
    """The beams' gravity energy, link standing up (joint at 90 degrees), at rest: each
    element's own mass at its own height, g int rho_A x dx of the piecewise-constant
    section (lumped: element halves at the nodes; consistent: Hermite integral; both
    exact for a straight link), to round-off."""
    from chrono_flex.chrono.beam_scene import build_beams

    link = tapered_link()
    arm = cf.PlanarArm([link], gravity=9.81)
    expected = 9.81 * link.per_element().integral("rho_A", 0.0, L, 1)
    for consistent in (False, True):
        scene = build_beams(arm, joint_angles0=[math.pi / 2], consistent_mass=consistent)
        kin, el, grav = scene.energies()
        assert kin == 0.0 and el < 1e-20
        assert math.isclose(grav, expected, rel_tol=1e-12), (consistent, grav, expected)
