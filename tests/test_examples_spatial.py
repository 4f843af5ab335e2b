"""The spatial example gives the answers its docstring states."""


import numpy as np

from chrono_flex.spatial.closed_forms import bending_frequencies

from _examples import load


def test_hub_arms_example():
    ex = load("spatial_hub_arms")
    # 8 Hermite elements: relative frequency error below 2 (bL / 8)^4 / 1440 (Strang & Fix),
    # bL from the exact frequency (omega^2 = b^4 EI / rho_A)
    lk = ex.link
    beta_L = np.sqrt(2 * np.pi * ex.hub_exact * np.sqrt(lk.rho_A / lk.EI_z)) * ex.L
    err = np.abs(ex.hub_modes[:2] / ex.hub_exact - 1)
    assert np.all(err < 2 * (beta_L / 8) ** 4 / 1440), (err, beta_L)
    np.testing.assert_allclose(ex.hub_exact, [1.737, 4.720], atol=5e-4)   # the docstring's
    still = ex.modes.frequencies[~ex.turns_hub]
    # the first clamped-free modes, within 2 (1.875 / 8)^4 / 1440 = 4e-6: in the plane
    # once (the arms bending opposite ways round), out of the plane twice
    for EI, count in ((lk.EI_z, 1), (lk.EI_y, 2)):
        f1 = bending_frequencies(EI, lk.rho_A, ex.L, 1)[0]
        assert np.sum(np.abs(still / f1 - 1) < 5e-6) == count
