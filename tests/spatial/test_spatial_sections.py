"""Spatial links of varying section (docs/spatial-link.md §2.1): numbers, per-element
values and callables of x for EI_y, EI_z, GJ, rho_A, rho_Ip, and unequal elements."""

import math

import numpy as np
import pytest
from scipy.linalg import eigh

from chrono_flex.errors import ParameterError
from chrono_flex.planar.shapes import tapered_cantilever_coefficient
from chrono_flex.spatial import equations as mdl
from chrono_flex.spatial import params as sp
from chrono_flex.spatial.arm import SpatialArm
from chrono_flex.validation.cases.spatial_link import cone_coefficients, cone_link
from chrono_flex.validation.core import observed_rate

L, N = 1.2, 4
SECTION = dict(EI_y=3.0, EI_z=1.2, GJ=0.8, rho_A=0.5, rho_Ip=2e-3)


def _forms():
    """The same uniform link as numbers, as per-element lists, as callables, and with
    its equal element lengths spelled out."""
    const = lambda v: (lambda x: v)          # noqa: E731
    return {"number": sp.SpatialLink(L, N, **SECTION),
            "lists": sp.SpatialLink(L, N, **{k: [v] * N for k, v in SECTION.items()}),
            "callables": sp.SpatialLink(L, N, **{k: const(v) for k, v in SECTION.items()}),
            "lengths": sp.SpatialLink(L, element_lengths=[L / N] * N, **SECTION)}


def _arm(link):
    """A link on a skew revolute joint carrying a second (uniform) link: gravity and
    geometric stiffening on, so every mass integral and the axial force are used."""
    second = sp.SpatialLink(0.7, 2, **SECTION)
    joints = [sp.RevoluteJoint(axis=(0.3, 0.4, 1.0)), sp.RevoluteJoint(axis=(0.0, 1.0, 0.0))]
    return SpatialArm([link, second], joints, gravity=True, geometric_stiffening=True)


def test_a_uniform_link_in_every_form_gives_the_same_matrices_and_frequencies():
    arms = {k: _arm(lk) for k, lk in _forms().items()}
    ref = arms["number"]
    rng = np.random.default_rng(3)
    q, qd = 0.2 * rng.normal(size=ref.nq), rng.normal(size=ref.nq)
    f_ref = ref.forcing(0.0, q, qd)[1]
    M_ref, K_ref = ref.mass_matrix(q), ref.stiffness_matrix()
    freq_ref = ref.modes(6).frequencies
    for name, arm in arms.items():
        assert arm.model.bodies[0].uniform == (name == "number")
        # round-off: the 6-point rule of a callable against the closed forms and the
        # 4-point rule; summing element lengths
        tol = 1e-12
        for method in ("assembly", "virtual_power"):
            M = arm.mass_matrix(q, method=method)
            assert np.max(np.abs(M - M_ref)) < tol * np.max(np.abs(M_ref)), (name, method)
        assert np.max(np.abs(arm.stiffness_matrix() - K_ref)) < tol * np.max(np.abs(K_ref))
        f = arm.forcing(0.0, q, qd)[1]
        assert np.max(np.abs(f - f_ref)) < tol * np.max(np.abs(f_ref)), name
        assert np.max(np.abs(arm.modes(6).frequencies / freq_ref - 1)) < 1e-10, name
        assert math.isclose(arm.energies(q, qd)[2], ref.energies(q, qd)[2], rel_tol=tol)
    # and the matrices are not trivially equal: a stiffer section changes them
    stiff = _arm(sp.SpatialLink(L, N, **dict(SECTION, GJ=[0.8, 0.8, 1.6, 0.8])))
    assert np.max(np.abs(stiff.stiffness_matrix() - K_ref)) > 0.5 * 0.8 / (L / N)   # GJ / l


def test_unequal_elements_keep_the_static_tip_deflection_exact():
    # cubic bending and linear twist lie in the element spaces: the nodes are exact for
    # any element lengths (Tong 1969), so only round-off of the solve remains
    P, T = 0.01, 0.003
    lk = sp.SpatialLink(L, element_lengths=(0.1, 0.2, 0.4, 0.5), **SECTION)
    arm = SpatialArm([lk], [sp.RevoluteJoint()], gravity=0.0)
    q = arm.static_deflection({0: ((0.0, P, -P), (T, 0.0, 0.0))})
    v, w, phi = mdl.tip_coordinates(arm.model, q)[0]
    exact = (P * L**3 / (3 * SECTION["EI_z"]), -P * L**3 / (3 * SECTION["EI_y"]),
             T * L / SECTION["GJ"])
    np.testing.assert_allclose((v, w, phi), exact, rtol=1e-10)
    # the nodes sit where the lengths say
    np.testing.assert_allclose(lk.nodes, [0.0, 0.1, 0.3, 0.7, 1.2], rtol=0, atol=1e-15)


def test_a_cone_in_each_plane_has_the_planar_tapered_coefficient_at_order_four():
    exact = tapered_cantilever_coefficient(2)            # 8.71926 (Kirchhoff 1879)
    ns = (4, 8, 16)
    c = [cone_coefficients(n) for n in ns]
    for plane in ("v", "w"):
        errs = [abs(ck[plane] / exact - 1) for ck in c]
        # Hermite elements with the section integrated exactly (a cone is polynomial):
        # O(h^4); +-0.2 for the pre-asymptotic terms
        assert 3.8 < observed_rate(1.0 / np.array(ns), errs) < 4.2, (plane, errs)
        assert errs[-1] < 1e-6, (plane, errs)       # measured 1.7e-7 at 16 elements


def _shaft(n):
    """A shaft whose GJ and rho_Ip fall linearly to half at the tip; stiff in bending."""
    taper = lambda v: (lambda x: v * (1.0 - x / (2 * L)))      # noqa: E731
    return sp.SpatialLink(L, n, EI_y=30.0, EI_z=20.0, GJ=taper(0.8), rho_A=0.5,
                          rho_Ip=taper(2e-3))


def _first_torsion(link):
    """The lowest frequency (Hz) of the twist dofs alone: a straight link at rest twists
    without bending, so M(0) and K restricted to phi hold the torsion modes. (On a fine
    mesh the arm's ``modes`` would take the lowest modes for rigid-body ones: its
    threshold is relative to the largest eigenvalue.)"""
    arm = SpatialArm([link], [sp.RevoluteJoint()], gravity=0.0)
    phi = arm.elastic_indices(0)[:, 4]
    ix = np.ix_(phi, phi)
    w2 = eigh(arm.stiffness_matrix()[ix], arm.mass_matrix(np.zeros(arm.nq))[ix],
              eigvals_only=True)
    return math.sqrt(w2[0]) / (2 * math.pi)


def test_a_tapered_shaft_s_torsion_frequency_converges_at_order_two():
    ref = _first_torsion(_shaft(64))
    ns = (4, 8, 16)
    errs = [abs(_first_torsion(_shaft(n)) / ref - 1) for n in ns]
    # linear torsion elements: O(h^2); the 64-element reference itself errs by
    # (4/64)^2 of the 4-element error, which lifts the observed order by < 0.1
    assert 1.8 < observed_rate(1.0 / np.array(ns), errs) < 2.3, errs
    # and the taper matters: the uniform shaft's frequency differs by far more
    uniform = sp.SpatialLink(L, 16, EI_y=30.0, EI_z=20.0, GJ=0.8, rho_A=0.5, rho_Ip=2e-3)
    assert abs(_first_torsion(uniform) / ref - 1) > 100 * errs[-1]


def test_bad_sections_name_the_parameter_and_the_value():
    cases = [
        (dict(SECTION, EI_y=[1.0, 2.0, -1.0, 1.0]), "EI_y[2]"),
        (dict(SECTION, rho_Ip=[1.0, 2.0]), "rho_Ip"),
        (dict(SECTION, GJ=lambda x: x - 0.5), "GJ"),
        (dict(SECTION, rho_A=lambda x: float("nan")), "rho_A"),
        (dict(SECTION, EI_z=lambda x: "stiff"), "EI_z"),
        (dict(SECTION, element_lengths=(0.5, 0.5)), "element_lengths"),
        (dict(SECTION, element_lengths=(0.6, 0.6, 0.0)), "element_lengths"),
    ]
    for kw, name in cases:
        with pytest.raises(ParameterError) as e:
            sp.SpatialLink(L, **kw)
        assert e.value.parameter == name, (kw, e.value)
    with pytest.raises(ParameterError) as e:
        sp.SpatialLink(L, 3, element_lengths=(0.6, 0.6), **SECTION)
    assert e.value.parameter == "n_elements"
    # the value is in the message
    with pytest.raises(ParameterError, match="-1"):
        sp.SpatialLink(L, **dict(SECTION, EI_y=[1.0, 2.0, -1.0, 1.0]))


def test_a_callable_is_not_data_and_per_element_is():
    cone = cone_link(4)
    with pytest.raises(ParameterError) as e:
        cone.to_dict()
    assert e.value.parameter == "EI_y"
    avg = cone.per_element()
    data = avg.to_dict()
    assert sp.SpatialLink(**data) == avg
    # averages keep the mass: int rho_A dx = rho_A0 L / 3 for the cone
    assert math.isclose(avg.mass, SECTION["rho_A"] * L / 3, rel_tol=1e-13)
    assert math.isclose(cone.mass, SECTION["rho_A"] * L / 3, rel_tol=1e-13)


def test_energy_balance_of_a_tapered_arm_in_free_motion():
    """Gravity-driven motion of a tapered link (callables, unequal elements) carrying a
    per-element one: the energy balance drifts only by the integrator's error (Radau,
    rtol 1e-6: a drift below 1e-3 of the energy scale over 0.1 s is 1000 rtol; a mass
    term left uniform would show at O(1e-1), the taper being a factor 2)."""
    taper = lambda v: (lambda x: v * (1.0 - x / (2 * L)))      # noqa: E731
    first = sp.SpatialLink(L, element_lengths=(0.5, 0.4, 0.3),
                           **{k: taper(v) for k, v in SECTION.items()})
    second = sp.SpatialLink(0.6, 2, **dict(SECTION, rho_A=[0.5, 0.25], EI_y=[3.0, 1.5]))
    arm = SpatialArm([first, second], [sp.RevoluteJoint(axis=(0.0, 1.0, 0.0)),
                                       sp.RevoluteJoint(axis=(0.0, 0.0, 1.0))], gravity=True)
    qd0 = np.zeros(arm.nq)
    qd0[arm.joint_index] = [1.0, -0.5]
    res = arm.simulate(0.1, qd0=qd0, dt_out=0.05, method="Radau", rtol=1e-6, atol=1e-9, progress=False)
    E = res.energy
    scale = np.max(E.kinetic) + np.max(np.abs(E.gravity - E.gravity[0])) + np.max(E.elastic)
    assert np.max(np.abs(E.balance_error)) < 1e-3 * scale
    assert np.max(E.elastic) > 0                 # the links did bend
