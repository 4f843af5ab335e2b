"""Closed forms for one link: static deflection and clamped-free frequencies."""

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex.planar.shapes import (HermiteBasis, ModesBasis, PowerBasis, clamped_free_roots,
                                hermite_mass, hermite_stiffness)

EI, RHO_A, L = 2.0, 0.5, 1.3


def test_clamped_free_roots_match_tables():
    # Blevins table 8-1 prints beta L to 4 decimals: agreement to 5e-5 is the table's precision
    np.testing.assert_allclose(clamped_free_roots(3), [1.8751, 4.6941, 7.8548], atol=5e-5)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_static_tip_load_is_nodally_exact(n):
    # Hermite cubics contain the exact cubic deflection w = P x^2 (3L - x) / (6 EI), so the
    # nodal values are exact to round-off (1e-12 relative).
    P = 0.7
    arm = cf.PlanarArm([cf.Link(L, n, EI=EI, rho_A=RHO_A)])
    q = arm.static_deflection(tip_force=(0.0, P))
    b = HermiteBasis(L, n)
    x = np.linspace(0, L, n + 1)[1:]
    w_nodes = q[arm.elastic_index][0::2]
    np.testing.assert_allclose(w_nodes, P * x**2 * (3 * L - x) / (6 * EI), rtol=1e-12)
    assert w_nodes[-1] == pytest.approx(P * L**3 / (3 * EI), rel=1e-12)
    # slopes too: w' = P x (2L - x) / (2 EI)
    np.testing.assert_allclose(q[arm.elastic_index][1::2], P * x * (2 * L - x) / (2 * EI),
                               rtol=1e-12)
    assert b.n == 2 * n


def test_static_deflection_under_own_weight_converges():
    # uniform load q0: w(L) = q0 L^4 / (8 EI); Hermite elements are exact at the nodes for a
    # uniform load too (consistent load vector), so 1e-10 relative (Newton iteration tolerance
    # and the geometric nonlinearity of the turned load, of order (w/L)^2 ~ 1e-9 here).
    arm = cf.PlanarArm([cf.Link(L, 4, EI=2e3, rho_A=RHO_A)], gravity=9.81)
    q = arm.static_deflection(joint_angles=[0.0])
    w = q[arm.elastic_index][-2]
    assert w == pytest.approx(-RHO_A * 9.81 * L**4 / (8 * 2e3), rel=1e-8)


def test_clamped_free_frequencies_converge_at_rate_four():
    exact = cf.clamped_free_frequencies(EI, RHO_A, L, 3)
    ns = np.array([2, 4, 8, 16])
    errs = []
    for n in ns:
        arm = cf.PlanarArm([cf.Link(L, int(n), EI=EI, rho_A=RHO_A)])
        f = arm.natural_frequencies(3, joints="locked")
        errs.append(np.abs(f - exact) / exact)
    errs = np.array(errs)
    # consistent-mass Hermite elements: frequency error O(h^4) (Strang & Fix, ch. 6);
    # the fitted rate of the first three modes lies in [3.5, 4.5] (pre-asymptotic scatter)
    for k in range(3):
        rate = np.polyfit(np.log(1.0 / ns[1:]), np.log(errs[1:, k]), 1)[0]
        assert 3.5 < rate < 4.5, (k, rate, errs[:, k])
    # 16 elements: first frequency within 1e-6 (seen 1.3e-7)
    assert errs[-1, 0] < 1e-6


def test_element_matrices_are_the_textbook_ones():
    Ke, Me = hermite_stiffness(EI, 0.5), hermite_mass(RHO_A, 0.5)
    # rigid-body modes of a free element: translation and rotation carry no strain energy
    for mode in (np.array([1, 0, 1, 0.0]), np.array([-0.25, 1, 0.25, 1.0])):
        np.testing.assert_allclose(Ke @ mode, 0, atol=1e-12)
    # total mass: translation mode's kinetic energy = 1/2 m
    t = np.array([1, 0, 1, 0.0])
    assert t @ Me @ t == pytest.approx(RHO_A * 0.5, rel=1e-14)


def test_assumed_modes_basis_gives_exact_uncoupled_frequencies():
    # the exact eigenfunctions diagonalise M and K; frequencies exact up to the quadrature
    # (composite Gauss, 1e-9 relative seen; 1e-7 allows for the higher modes)
    b = ModesBasis(L, 4)
    K, M = b.stiffness_matrix(EI), b.mass_matrix(RHO_A)
    off = K - np.diag(np.diag(K))
    assert np.max(np.abs(off)) < 1e-8 * np.max(np.abs(K))
    w = np.sqrt(np.diag(K) / np.diag(M)) / (2 * np.pi)
    np.testing.assert_allclose(w, cf.clamped_free_frequencies(EI, RHO_A, L, 4), rtol=1e-7)
    N = b.values(np.array([L]))[0]
    np.testing.assert_allclose(N, 1.0, rtol=1e-12)


def test_power_law_stiffness_matches_the_papers_unit_check():
    # [W] (docs/rrrp-arm.md eq. (4.2)): K = 7.037 EI / l^3 for p = 1.5522 (printed to 4 digits)
    b = PowerBasis(L, [1.5522])
    assert b.stiffness_matrix(EI)[0, 0] * L**3 / EI == pytest.approx(7.037, abs=5e-4)


def test_fem_and_assumed_modes_agree_with_a_tip_mass():
    payload = cf.Payload(0.2)
    fem = cf.PlanarArm([cf.Link(L, 16, EI=EI, rho_A=RHO_A)], payload=payload)
    f_fem = fem.natural_frequencies(2)     # converged to ~1e-7 (rate-4 test above)
    errs = []
    for k in (5, 8):
        modes = cf.PlanarArm([cf.Link(L, EI=EI, rho_A=RHO_A, basis="modes", n_modes=k)],
                             payload=payload)
        f = modes.natural_frequencies(2)
        assert np.all(f >= f_fem * (1 - 1e-6))     # Rayleigh-Ritz: assumed modes bound from above
        errs.append((f - f_fem) / f_fem)
    errs = np.array(errs)
    # clamped-free modes have zero shear at the tip, so a tip mass is represented only
    # through the series: the error decays algebraically (~k^-3). Bounds: twice the values
    # seen with 8 modes (1.3e-5, 2.1e-4), and a decrease from 5 to 8 modes.
    assert errs[1, 0] < 3e-5 and errs[1, 1] < 5e-4
    assert np.all(errs[1] < errs[0] / 2)
