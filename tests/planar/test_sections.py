"""Links of varying section (docs/planar-link.md §2.5): input checks, element matrices
against independent quadrature, the equation paths against each other, data round trips.

Tolerances: 1e-12 relative where the same integrals are summed in another order or by
another exact rule (round-off of sums of a few hundred terms, ~1e4 eps); the tapered
closed forms themselves are the validation cases ``sections.*``.
"""

import json
import math

import numpy as np
import pytest
from scipy.integrate import quad

import chrono_flex as cf
from chrono_flex.errors import ParameterError
from chrono_flex.planar import equations as mdl
from chrono_flex.planar import invariants, kernels
from chrono_flex.planar.shapes import HermiteBasis, basis_for, hermite_functions

ROUND_OFF = 1e-12


def close(a, b, tol=ROUND_OFF):
    return np.abs(a - b).max() <= tol * max(1.0, np.abs(b).max())


def cone(n=4, **kw):
    return cf.Link(length=0.8, n_elements=n, EI=lambda x: 3.0 * (1 - 0.6 * x / 0.8) ** 4,
                   rho_A=lambda x: 0.5 * (1 - 0.6 * x / 0.8) ** 2, **kw)


# -- bad input -----------------------------------------------------------------------------
@pytest.mark.parametrize("kw,name,words", [
    (dict(EI=(1.0, 2.0, 3.0)), "EI", "one value per element"),
    (dict(rho_A=[0.5, 0.5, 0.5, 0.5, 0.5]), "rho_A", "one value per element"),
    (dict(EI=(1.0, 2.0, -3.0, 1.0)), "EI[2]", "> 0"),
    (dict(rho_A=(0.5, float("nan"), 0.5, 0.5)), "rho_A[1]", "finite"),
    (dict(EI=lambda x: float("inf")), "EI", "finite value > 0"),
    (dict(EI=lambda x: 1.0 - 2.0 * x), "EI", "returned"),
    (dict(rho_A=lambda x: "heavy"), "rho_A", "must return a number"),
    (dict(EI="stiff"), "EI", "must be a real number"),
    (dict(EI={"a": 1}), "EI", "must be a real number"),
    (dict(element_lengths=(0.5, 0.4)), "element_lengths", "must sum to length"),
    (dict(element_lengths=(1.5, -0.5)), "element_lengths", "> 0"),
    (dict(element_lengths=(0.5, 0.5), n_elements=3), "n_elements", "contradicts"),
    (dict(EI=lambda x: 1.0, basis="modes"), "EI", "basis='fem'"),
    (dict(element_lengths=(0.5, 0.5), basis="power"), "element_lengths", "basis='fem'"),
    (dict(EI=lambda x: 1.0, E=1.0, I=1.0), "EI", "without E and I"),
])
def test_bad_sections_name_the_parameter_and_value(kw, name, words):
    base = dict(length=1.0, n_elements=4, EI=1.0, rho_A=0.5)
    base.update(kw)
    if "element_lengths" in kw and "n_elements" not in kw:
        base.pop("n_elements")
    with pytest.raises(ParameterError) as e:
        cf.Link(**base)
    assert e.value.parameter == name, str(e.value)
    assert words in str(e.value)


def test_a_callable_error_names_the_abscissa_and_the_value():
    with pytest.raises(ParameterError) as e:
        cf.Link(length=1.0, n_elements=2, EI=lambda x: 1.0 - 2.0 * x, rho_A=1.0)
    msg = str(e.value)
    assert "returned -" in msg and "at x = 0.5" in msg     # the first Gauss point past 0.5
    assert callable(e.value.value)


def test_a_section_vanishing_at_the_tip_is_accepted():
    """The quadrature never asks for the tip value, where a wedge's section is zero."""
    lk = cf.Link(length=1.0, n_elements=3, EI=lambda x: (1 - x) ** 3, rho_A=lambda x: 1 - x)
    assert math.isclose(lk.mass, 0.5, rel_tol=1e-14)     # int_0^1 (1 - x) dx
    arm = cf.PlanarArm([lk])
    ei = arm.elastic_index
    assert np.all(np.linalg.eigvalsh(arm.stiffness_matrix()[np.ix_(ei, ei)]) > 0)


def test_element_lengths_set_the_nodes_and_the_element_count():
    lk = cf.Link(length=1.0, element_lengths=[0.1, 0.2, 0.3, 0.4], EI=1.0, rho_A=1.0)
    assert lk.n_elements == 4 and not lk.uniform
    np.testing.assert_allclose(lk.nodes, [0.0, 0.1, 0.3, 0.6, 1.0], rtol=0, atol=1e-15)
    assert cf.Link(length=1.0, EI=1.0, rho_A=1.0).n_elements == 4      # the default


# -- element matrices ----------------------------------------------------------------------
def _by_quad(f, order, a, b):
    """int_a^b f(x) D_i D_j dx by adaptive quadrature (scipy.integrate.quad)."""
    le = b - a
    out = np.empty((4, 4))
    for i in range(4):
        for j in range(4):
            g = lambda x: (f(x) * hermite_functions(np.array([(x - a) / le]), le)[order][0, i]  # noqa: E731
                           * hermite_functions(np.array([(x - a) / le]), le)[order][0, j])
            out[i, j] = quad(g, a, b, epsabs=0, epsrel=1e-13)[0]
    return out


def test_callable_element_matrices_are_exact_for_degree_four_sections():
    """6 Gauss points: exact for EI and rho_A of degree 4 (the cone), on an element of
    its own length, against adaptive quadrature (relative accuracy 1e-13)."""
    EI = lambda x: 2.0 + x - 3.0 * x**2 + 0.5 * x**3 + 1.5 * x**4   # noqa: E731
    rho_A = lambda x: 1.0 + 0.3 * x + x**4                           # noqa: E731
    b = HermiteBasis(1.0, 3, nodes=[0.0, 0.2, 0.65, 1.0], points=6)
    for j, (a, bb, _) in enumerate(b.elements):
        assert close(b.element_stiffness(EI, j), _by_quad(EI, 2, a, bb), 1e-11)
        assert close(b.element_mass(rho_A, j), _by_quad(rho_A, 0, a, bb), 1e-11)


def test_unequal_elements_keep_the_tip_load_nodally_exact():
    """Hermite elements contain the cubic of a tip load whatever their lengths."""
    L, EI, P = 1.3, 2.0, 0.7
    lk = cf.Link(length=L, element_lengths=(0.1, 0.5, 0.2, 0.5), EI=EI, rho_A=0.5)
    arm = cf.PlanarArm([lk])
    e = arm.static_deflection(tip_force=(0.0, P))[arm.elastic_index]
    x = lk.nodes[1:]
    assert close(e[0::2], P * x**2 * (3 * L - x) / (6 * EI), 1e-10)
    assert close(e[1::2], P * x * (2 * L - x) / (2 * EI), 1e-10)


def test_shapes_of_unequal_elements_are_continuous_at_the_nodes():
    b = basis_for(cf.Link(length=1.0, element_lengths=(0.3, 0.25, 0.45), EI=1.0, rho_A=1.0))
    for xn in (0.3, 0.55):
        lo, hi = b.values([xn - 1e-12]), b.values([xn + 1e-12])
        for a, c in zip(lo[:2], hi[:2]):                 # w and w' continuous
            assert np.abs(a - c).max() < 1e-9


def test_per_element_values_equal_the_elementwise_closed_forms():
    """K scattered by hand from eq. (2.3) with each element's own EI (root dofs dropped)."""
    from chrono_flex.planar.shapes import hermite_stiffness

    vals = (4.0, 3.0, 2.0, 1.0)
    lk = cf.Link(length=1.0, n_elements=4, EI=vals, rho_A=(1.0, 0.8, 0.6, 0.4))
    K = np.zeros((10, 10))
    for j, v in enumerate(vals):
        K[2 * j:2 * j + 4, 2 * j:2 * j + 4] += hermite_stiffness(v, 0.25)
    assert close(cf.PlanarArm([lk]).stiffness_matrix()[1:, 1:], K[2:, 2:])
    assert math.isclose(lk.mass, 0.25 * (1.0 + 0.8 + 0.6 + 0.4), rel_tol=1e-15)


# -- the equation paths agree on varying sections --------------------------------------------
def varying_chain(stiffening):
    links = [cone(3), cf.Link(0.5, EI=(10.0, 6.0), rho_A=(0.3, 0.2),
                              element_lengths=(0.3, 0.2))]
    return cf.PlanarArm(links, joints=[cf.RevoluteJoint(hub_inertia=0.01),
                                       cf.RevoluteJoint(hub_mass=0.1)],
                        payload=cf.Payload(0.3, 0.01), gravity=9.81,
                        geometric_stiffening=stiffening)


@pytest.mark.parametrize("stiffening", [False, True])
def test_invariants_and_kernel_equal_the_pointwise_sums(stiffening):
    model = varying_chain(stiffening).model
    rng = np.random.default_rng(3)
    for _ in range(3):
        q, qd = rng.normal(size=model.nq) * 0.3, rng.normal(size=model.nq)
        M0, h, Qg = mdl.terms(model, q, qd)
        r0 = h - Qg
        if stiffening:
            r0 = r0 - mdl.geometric_stiffness_force(model, q, qd)
        M1, r1, _ = invariants.terms(model, q, qd)
        assert close(M1, M0) and close(r1, r0)
        if kernels.numba is not None:
            M2, r2 = kernels.chain_terms(kernels.pack(model), q, qd, model.g_vec, stiffening)
            assert close(M2, M0) and close(r2, r0)


def test_extended_assembly_and_kozlowski_form_agree_on_varying_sections():
    arm = varying_chain(False)
    rng = np.random.default_rng(5)
    q, qd = rng.normal(size=arm.nq) * 0.3, rng.normal(size=arm.nq)
    A = arm.mass_matrix(q, method="assembly")
    B = arm.mass_matrix(q, method="virtual_power")
    assert close(A, B)
    from chrono_flex.planar.assembly import ExtendedAssembly
    ea = ExtendedAssembly(arm.links, arm.joints, arm.payload, arm.gravity)
    assert close(ea.stiffness_matrix(), arm.model.K)
    Q = np.linspace(-1, 1, arm.nq)
    M1, f1 = ea.lagrange_forcing(q, qd, Q)
    M2, f2 = mdl.forcing(arm.model, q, qd, Q)
    assert close(f1, f2, 1e-10)


def test_axial_load_integrates_the_mass_beyond_each_point():
    """int_x^L rho_A ds of the cone in closed form, at the quadrature points."""
    lk = cone(3)
    c = 0.6 / 0.8
    x = np.array([0.0, 0.13, 0.4, 0.77])
    F = lambda s: -0.5 * (1 - c * s) ** 3 / (3 * c)            # noqa: E731 (antiderivative)
    m_exact = F(0.8) - F(x)
    assert close(lk.beyond(x)[0], m_exact)
    assert math.isclose(lk.mass, m_exact[0], rel_tol=1e-14)


# -- data ------------------------------------------------------------------------------------
def test_per_element_sections_round_trip_through_json_and_model_files(tmp_path):
    lk = cf.Link(length=1.0, element_lengths=(0.4, 0.35, 0.25), EI=(3.0, 2.0, 1.0),
                 rho_A=(0.5, 0.4, 0.3))
    arm = cf.PlanarArm([lk], gravity=9.81)
    data = arm.to_dict()
    assert data["links"][0]["EI"] == [3.0, 2.0, 1.0]
    again = cf.PlanarArm.from_dict(json.loads(json.dumps(data)))
    assert again.links[0] == lk
    path = tmp_path / "taper.toml"
    arm.to_file(path)
    text = path.read_text()
    assert "element_lengths = [0.4, 0.35, 0.25]" in text
    back = cf.PlanarArm.from_file(path)
    np.testing.assert_array_equal(back.stiffness_matrix(), arm.stiffness_matrix())
    np.testing.assert_array_equal(back.mass_matrix(np.zeros(arm.nq)),
                                  arm.mass_matrix(np.zeros(arm.nq)))


def test_a_callable_section_is_refused_as_data_and_per_element_is_not():
    arm = cf.PlanarArm([cone(2)])
    with pytest.raises(ParameterError) as e:
        arm.to_dict()
    assert e.value.parameter == "links[0].EI" and "per_element" in str(e.value)
    pe = cone(2).per_element()
    assert isinstance(pe.EI, tuple) and len(pe.EI) == 2
    assert math.isclose(pe.mass, cone(2).mass, rel_tol=1e-14)   # the averages keep the mass
    cf.PlanarArm([pe]).to_dict()
    res = arm.simulate(t_end=0.01, dt_out=0.005)
    assert res.model is None and "links[0].EI" in res.info["model"]


def test_a_model_file_with_a_wrong_length_list_names_the_key(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[[links]]\nlength = 1.0\nn_elements = 3\nEI = [1.0, 2.0]\nrho_A = 0.5\n")
    with pytest.raises(ParameterError) as e:
        cf.PlanarArm.from_file(path)
    assert "links[0].EI" in str(e.value) and "one value per element" in str(e.value)


def test_the_screw_recursion_refuses_a_varying_section():
    from chrono_flex.formulations.screw import chain_bodies

    with pytest.raises(ParameterError) as e:
        chain_bodies(cf.PlanarArm([cone(2)]))
    assert e.value.parameter == "links[0].EI"
    with pytest.raises(ParameterError) as e:
        chain_bodies(cf.PlanarArm([cf.Link(1.0, EI=1.0, rho_A=1.0, element_lengths=(0.5, 0.5))]))
    assert e.value.parameter == "links[0].element_lengths"


@pytest.mark.parametrize("stiffening", [False, True])
def test_the_chrono_elements_terms_on_a_body_equal_the_reference(stiffening):
    """floating.spatial_terms (the custom Chrono element's equations on a parent body),
    summed point by point with the weights rho_A(x_p) w_p, against the reference's
    invariants: a body at rest, and a body turning about the plane normal (an extra
    rigid joint ahead of joint 1)."""
    from chrono_flex.planar.floating import N_BODY, spatial_terms

    arm = varying_chain(stiffening)
    m = arm.model
    rng = np.random.default_rng(7)
    q, qd = rng.normal(size=arm.nq) * 0.05, rng.normal(size=arm.nq) * 0.5
    plane = (np.zeros(3), np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]))
    g = np.array([0.0, -9.81, 0.0])
    M, f = spatial_terms(m, q, qd, np.zeros(3), np.eye(3), np.zeros(3), np.zeros(3),
                         *plane, g)
    M_ref, f_ref = mdl.forcing(m, q, qd, np.zeros(arm.nq))
    assert close(M[N_BODY:, N_BODY:], M_ref) and close(f[N_BODY:], f_ref)
    Omega = 1.3
    M, f = spatial_terms(m, q, qd, np.zeros(3), np.eye(3), np.zeros(3),
                         np.array([0.0, 0.0, Omega]), *plane, g)
    qd2 = qd.copy()
    qd2[0] += Omega
    M_ref, f_ref = mdl.forcing(m, q, qd2, np.zeros(arm.nq))
    if not stiffening:      # the element's stiffening ignores the parent's motion (scope)
        assert close(M[N_BODY:, N_BODY:], M_ref) and close(f[N_BODY:], f_ref)
        assert close(M[5, N_BODY:], M_ref[0]) and abs(f[5] - f_ref[0]) < 1e-12 * np.abs(f_ref).max()
