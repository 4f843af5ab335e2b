"""The fast equations (inertia invariants, chrono_flex.planar.invariants) and their
compiled twin (chrono_flex.planar.kernels) against the point-by-point sums.

Three implementations of the same integrals: ``equations.terms`` sums rho A J^T J over
the quadrature points, ``invariants.terms`` uses the shape integrals of each link, and
the numba kernel evaluates the invariants in scalar loops. All use one quadrature rule,
so they must agree to round-off: the tolerance 1e-12 relative is about 1e4 machine
epsilons, the reassociation of sums of a few hundred terms.
"""

import numpy as np
import pytest
from _arms import numpy_terms, planar_chain

import chrono_flex as cf
from chrono_flex.errors import ParameterError
from chrono_flex.planar import equations as mdl
from chrono_flex.planar import invariants, kernels

ROUND_OFF = 1e-12


def chain(stiffening):
    """Revolute, prismatic and offset revolute joints; hub masses and inertias; payload."""
    return planar_chain(stiffening=stiffening)


def states(arm, n=4, seed=1):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        yield rng.normal(size=arm.nq) * 0.3, rng.normal(size=arm.nq)


def pointwise(model, q, qd):
    """(M, r) from the point-by-point sums: r = h - Q_g [+ K_geo e]."""
    return numpy_terms(mdl, model, q, qd)


def close(a, b):
    return np.abs(a - b).max() <= ROUND_OFF * max(1.0, np.abs(b).max())


@pytest.mark.parametrize("stiffening", [False, True])
def test_invariants_equal_the_pointwise_sums(stiffening):
    model = chain(stiffening).model
    for q, qd in states(model):
        M0, r0 = pointwise(model, q, qd)
        M1, r1, _ = invariants.terms(model, q, qd)
        assert close(M1, M0) and close(r1, r0)


def test_invariants_take_the_gravity_they_are_given():
    """The Chrono element passes the in-plane gravity of its own scene."""
    model = chain(False).model
    q, qd = next(states(model))
    g = np.array([1.5, -4.0])
    _, r_g, _ = invariants.terms(model, q, qd, g)
    _, r_0, _ = invariants.terms(model, q, qd, np.zeros(2))
    Qg = mdl.terms(model, q, np.zeros(model.nq))[2] / 9.81   # per unit of -Y gravity
    # gravity enters linearly: r(g) - r(0) = -Q_g(g); check along -Y and along X
    _, r_y, _ = invariants.terms(model, q, qd, np.array([0.0, -1.0]))
    assert close(r_0 - r_y, Qg)
    assert np.abs(r_g - r_0).max() > 0.1       # the X component acts as well


needs_numba = pytest.mark.skipif(kernels.numba is None,
                                 reason="numba is not installed (the `fast` extra)")


@needs_numba
@pytest.mark.parametrize("stiffening", [False, True])
def test_compiled_kernel_equals_numpy(stiffening):
    model = chain(stiffening).model
    packed = kernels.pack(model)
    for q, qd in states(model):
        M0, r0, _ = invariants.terms(model, q, qd)
        M1, r1 = kernels.chain_terms(packed, q, qd, model.g_vec, stiffening)
        assert close(M1, M0) and close(r1, r0)
        Q = np.linspace(-1.0, 1.0, model.nq)
        qdd = kernels.chain_accelerations(packed, q, qd, Q, model.K, model.D, model.g_vec,
                                          stiffening)
        M, f = mdl.forcing(model, q, qd, Q)
        assert np.abs(M @ qdd - f).max() <= 1e-9 * np.abs(f).max()   # LU residual


def test_backend_choice_from_the_environment(monkeypatch):
    monkeypatch.setenv("CHRONO_FLEX_KERNELS", "numpy")
    assert kernels.backend() == "numpy"
    arm = chain(False)
    assert arm.model.packed is None              # numpy path chosen at model build
    monkeypatch.setenv("CHRONO_FLEX_KERNELS", "fortran")
    with pytest.raises(ParameterError, match="CHRONO_FLEX_KERNELS"):
        kernels.backend()


def test_numpy_and_default_backends_simulate_the_same(monkeypatch):
    """One short run per backend: identical to the integrator's tolerance (the RHS agree
    to round-off; Radau's step selection may differ by round-off, so rtol-level)."""
    arm = chain(False)
    kw = dict(t_end=0.05, joint_angles0=[0.3, 0.05, -0.2], method="Radau", rtol=1e-8)
    a = arm.simulate(**kw)
    monkeypatch.setenv("CHRONO_FLEX_KERNELS", "numpy")
    b = chain(False).simulate(**kw)
    assert np.abs(a.q - b.q).max() <= 1e-6 * max(1.0, np.abs(b.q).max())


@needs_numba
@pytest.mark.parametrize("stiffening", [False, True])
def test_mass_matrix_products_without_the_matrix(stiffening):
    """M a taken term by term from the structure of M (kernels.chain_forces, what the
    compiled Newton iteration uses) against the assembled M times a: the same sums
    reassociated, so round-off; r comes from the same operations either way, so it is
    the same number."""
    model = chain(stiffening).model
    packed = kernels.pack(model)
    rng = np.random.default_rng(3)
    for q, qd in states(model):
        a = rng.normal(size=model.nq)
        M, r = kernels.chain_terms(packed, q, qd, model.g_vec, stiffening)
        Ma, r2 = kernels.chain_forces(packed, q, qd, model.g_vec, stiffening, a)
        assert close(Ma, M @ a)
        np.testing.assert_array_equal(r2, r)
        zero, r3 = kernels.chain_forces(packed, q, qd, model.g_vec, stiffening)
        np.testing.assert_array_equal(r3, r)
        assert not zero.any()


@pytest.mark.parametrize("basis", ["fem", "modes"])
def test_gram_matrices_over_the_nonzero_shape_functions(basis):
    """invariants.weighted_gram (the sum over each point's few nonzero Hermite
    functions, or the dense product for a modal basis) against the plain sum over all
    functions: the same products in another order, round-off."""
    link = (cf.Link(0.9, 13, EI=20.0, rho_A=0.5) if basis == "fem"       # 26 functions
            else cf.Link(0.9, EI=20.0, rho_A=0.5, basis="modes", n_modes=20))
    qu = cf.PlanarArm([link]).model.quad[0]
    wt = qu.w * (1.0 + qu.x)
    for A in (qu.N, qu.dN):
        dense = np.einsum("p,pi,pj->ij", wt, A, A)
        assert close(invariants.weighted_gram(wt, A), dense)
