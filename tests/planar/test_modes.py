"""Natural modes: frequencies and shapes of a clamped-free uniform beam against the
closed form, mass-normalised vectors, and ``chrono-flex modes``.

Closed form (Blevins, Formulas for natural frequency and mode shape, table 8-1):
1 + cos(bL) cosh(bL) = 0, beta_n L = 1.8751, 4.6941, 7.8548;
f_n = (beta_n L)^2 / (2 pi L^2) sqrt(EI / rho_A);
phi_n(x) = cosh bx - cos bx - s (sinh bx - sin bx), s = (cosh bL + cos bL)/(sinh bL + sin bL).
Cubic Hermite elements converge at rate 4 in the element length for both.
"""

import math
import re

import numpy as np
import pytest
from scipy.optimize import brentq

import chrono_flex as cf
from chrono_flex import cli, scenarios
from chrono_flex.planar import kernels, modes

EI, RHO_A, L = 2.0, 0.5, 1.2          # N m^2, kg/m, m
MESHES = (4, 8, 16)


def beta_L():
    """The first three roots of 1 + cos x cosh x = 0, found here (not from the package)."""
    f = lambda x: math.cos(x) + 1.0 / math.cosh(x)  # noqa: E731 (same roots, no overflow)
    return np.array([brentq(f, a, b) for a, b in ((1.0, 2.5), (4.0, 5.5), (7.0, 8.5))])


def exact_shape(bL, x):
    b = bL / L
    s = (math.cosh(bL) + math.cos(bL)) / (math.sinh(bL) + math.sin(bL))
    phi = np.cosh(b * x) - np.cos(b * x) - s * (np.sinh(b * x) - np.sin(b * x))
    return phi / phi[np.argmax(np.abs(phi))]


@pytest.fixture(scope="module")
def beams():
    return {n: cf.PlanarArm([cf.Link(L, n, EI=EI, rho_A=RHO_A)]).modes(3, n_samples=33)
            for n in MESHES}


def test_the_roots_are_the_published_ones():
    np.testing.assert_array_equal(np.round(beta_L(), 4), [1.8751, 4.6941, 7.8548])


def test_clamped_free_frequencies_converge_at_rate_four(beams):
    exact = beta_L() ** 2 / (2 * math.pi * L**2) * math.sqrt(EI / RHO_A)
    err = np.array([np.abs(beams[n].frequencies / exact - 1) for n in MESHES])
    rate = np.log2(err[1] / err[2])
    # halving h divides the error by 2^4; seen 3.99, 3.97, 3.94 (mode 3 is still
    # approaching its asymptote at 8 elements)
    assert np.all((rate > 3.8) & (rate < 4.2)), rate
    # with 16 elements the errors are 1.3e-7, 5.1e-6, 4.0e-5: the rate above carries
    # them from the coarse meshes, so a bound 25 % above the third's only guards that
    assert np.all(err[2] < 5e-5), err[2]


def test_clamped_free_shapes_converge_to_the_closed_form(beams):
    err = []
    for n in MESHES:
        m = beams[n]
        x = m.centerline[0, :, 0]
        assert np.max(np.abs(m.shapes[:, 0, :, 0])) < 1e-9     # transverse only (linear)
        err.append([np.max(np.abs(m.shapes[k, 0, :, 1] - exact_shape(bL, x)))
                    for k, bL in enumerate(beta_L())])
    err = np.array(err)
    rate = np.log2(err[1] / err[2])
    assert np.all(rate > 3.5), rate            # the shapes' error also falls as h^4


def test_vectors_are_mass_normalised_and_zero_at_locked_joints():
    arm = cf.PlanarArm([cf.Link(1.0, 3, EI=2.0, rho_A=0.5), cf.Link(0.6, 2, EI=1.0, rho_A=0.3)],
                       payload=cf.Payload(0.2, 1e-3), gravity=True)
    q = arm.coordinates([-0.4, 0.3])
    M = arm.mass_matrix(q)
    for joints in ("locked", "free"):
        m = arm.modes(4, q=q, joints=joints)
        # eigh's M-orthonormality holds to round-off of matrices of norm ~1
        np.testing.assert_allclose(m.vectors @ M @ m.vectors.T, np.eye(4), atol=1e-10)
        np.testing.assert_array_equal(m.frequencies, arm.natural_frequencies(4, q, joints))
    assert np.all(arm.modes(4, q=q).vectors[:, arm.joint_index] == 0.0)


def test_modes_command_prints_both_columns_and_writes_the_figure(tmp_path, capsys):
    assert cli.main(["modes", "bien-2link", "--n", "3", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if re.match(r"\s+\d+\s", line)]
    arm = scenarios.get("bien-2link").arm_and_kwargs()[0]
    printed = np.array([[float(v) for v in r[1:]] for r in rows])
    expected = np.column_stack([arm.natural_frequencies(3, joints="locked"),
                                arm.natural_frequencies(3, joints="free")])
    np.testing.assert_allclose(printed, expected, rtol=1e-5)     # printed to 6 digits
    figure = tmp_path / "bien-2link_modes.png"
    assert f"wrote {figure}" in out and figure.stat().st_size > 20_000


def test_modes_command_refuses_what_it_cannot_do(tmp_path, capsys):
    assert cli.main(["modes", "no-such-arm", "--out", str(tmp_path)]) == 2
    assert "`case`" in capsys.readouterr().err
    assert cli.main(["modes", "bien-1link-n1", "--n", "50", "--out", str(tmp_path)]) == 2
    assert "`n` must be at most 2" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_fine_meshes_keep_their_lowest_mode():
    # omega_1^2 / omega_max^2 ~ 0.017 / n^4: at 64 elements a threshold relative to the
    # largest eigenvalue dropped the first mode; locked links have no rigid-body mode
    import chrono_flex as cf
    from chrono_flex.planar.shapes import clamped_free_frequencies

    f = cf.PlanarArm([cf.Link(1.0, 64, EI=2.0, rho_A=0.5)]).natural_frequencies(2)
    # 64 Hermite elements: frequency error ~ (h/L)^4 ~ 1e-8 relative
    assert np.allclose(f, clamped_free_frequencies(2.0, 0.5, 1.0, 2), rtol=1e-7)


needs_numba = pytest.mark.skipif(kernels.numba is None,
                                 reason="numba is not installed (the `fast` extra)")


@needs_numba
@pytest.mark.parametrize("arm", [
    cf.PlanarArm([scenarios.kozlowski_link(16)], gravity=True),
    cf.PlanarArm([scenarios.kozlowski_link(64)], gravity=True),
    cf.PlanarArm([cf.Link(0.7, 8, EI=20.0, rho_A=0.5), cf.Link(0.5, 8, EI=10.0, rho_A=0.3)],
                 payload=cf.Payload(0.2, 0.01), gravity=9.81)], ids=["16", "64", "2x8"])
def test_the_lowest_frequency_by_inverse_iteration_is_eigh_s(arm, monkeypatch):
    """modes.lowest_frequency_squared (inverse iteration, the stiffening rule's omega_1)
    against the lowest of eigenmodes (scipy's eigh): eigh finds the lowest eigenvalue to
    about eps lambda_max / lambda_1 relative (backward stable on the whole spectrum;
    2.7e-8 at 64 elements, where the iteration is within 4e-10 of an 80-bit run), so
    that times ten is the tolerance."""
    q = np.zeros(arm.nq)
    q[arm.model.joint_index] = [-1.4, 0.5][:arm.model.n_links]
    w2, _ = modes.eigenmodes(arm, None, q)
    monkeypatch.setattr(modes, "eigenmodes", None)    # the iteration answers, no fallback
    got = modes.lowest_frequency_squared(arm, q)
    assert abs(got - w2[0]) <= 10 * np.finfo(float).eps * w2[-1]


@needs_numba
def test_inverse_iteration_says_when_it_has_no_answer():
    """NaN (and the caller takes eigh) for a stiffness that is not positive definite,
    and for a start orthogonal to the lowest mode, which the iteration cannot see: the
    check that K - lambda M is positive definite below the answer catches it."""
    M = np.eye(2)
    # eigenvalues 1 (mode (1, 1)) and 4 (mode (1, -1))
    assert kernels.lowest_eigenvalue(np.array([[2.5, -1.5], [-1.5, 2.5]]), M) == \
        pytest.approx(1.0, rel=1e-14)
    # eigenvalues 4 (mode (1, 1), the start) and 1 (mode (1, -1), orthogonal to it)
    assert np.isnan(kernels.lowest_eigenvalue(np.array([[2.5, 1.5], [1.5, 2.5]]), M))
    assert np.isnan(kernels.lowest_eigenvalue(np.diag([1.0, -2.0]), M))


def test_modes_command_linearises_at_the_equilibrium(tmp_path, capsys):
    # the hanging pendulum: the default pose is the static equilibrium (-90 deg, found
    # from the run's -80 deg); its frequencies are those at rest hanging straight
    import math

    assert cli.main(["modes", "kozlowski-1link", "--n", "2", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "static equilibrium, joint coordinates (-90 deg)" in out
    rows = [line.split() for line in out.splitlines() if re.match(r"\s+\d+\s", line)]
    printed = np.array([[float(v) for v in r[1:]] for r in rows])
    arm = scenarios.get("kozlowski-1link").arm_and_kwargs()[0]
    hanging = arm.coordinates([-math.pi / 2])
    expected = np.column_stack([arm.natural_frequencies(2, hanging, "locked"),
                                arm.natural_frequencies(2, hanging, "free")])
    assert np.all(printed > 0)
    np.testing.assert_allclose(printed, expected, rtol=1e-5)     # printed to 6 digits
    # held horizontal (the run's pose before this option): other frequencies
    assert cli.main(["modes", "kozlowski-1link", "--n", "2", "--pose", "0",
                     "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "joints held, links at their static deflection, joint coordinates (0 deg)" in out
    assert cli.main(["modes", "kozlowski-1link", "--pose", "1,2", "--out", str(tmp_path)]) == 2
    assert "`--pose` must give 1 joint coordinates" in capsys.readouterr().err
