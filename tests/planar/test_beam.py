"""One link: clamped-free roots and frequencies, element matrices, assumed-mode bases."""

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex.planar.shapes import (ModesBasis, clamped_free_roots, hermite_mass,
                                       hermite_stiffness)

EI, RHO_A, L = 2.0, 0.5, 1.3


def test_clamped_free_roots_match_tables():
    # Blevins table 8-1 prints beta L to 4 decimals: agreement to 5e-5 is the table's precision
    np.testing.assert_allclose(clamped_free_roots(3), [1.8751, 4.6941, 7.8548], atol=5e-5)


# Static deflections against the closed forms (tip load, nodally exact; own weight) are
# the validation cases beam.static-tip-load and beam.static-own-weight, and [W]'s unit
# check of the power-law stiffness is formulations.power-law-stiffness (run by
# tests/validation/test_validation.py).


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
