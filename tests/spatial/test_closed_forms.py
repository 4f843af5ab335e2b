"""The spatial closed forms: the hub-and-links determinant in its known limits."""

import numpy as np

from chrono_flex.planar.shapes import clamped_free_frequencies, clamped_pinned_roots
from chrono_flex.spatial.closed_forms import hub_links_frequencies, torsion_frequencies
from chrono_flex.validation.cases.beam import hub_link_roots

EI, RHO_A, L = 2.0, 0.5, 1.3


def test_n_links_at_the_centre_are_one_link_on_a_share_of_the_hub():
    """r = 0: n links on J_h are one link on J_h / n (the planar hub case's closed form,
    solved to 1e-14 in bL)."""
    for n in (1, 2, 3):
        np.testing.assert_allclose(hub_links_frequencies(3, EI, RHO_A, L, 0.06, n),
                                   hub_link_roots(3, EI, RHO_A, L, 0.06 / n, 0.0, 0.0),
                                   rtol=1e-12)


def test_limits_of_the_hub():
    # a hub of huge inertia clamps the links, whatever their radius (error ~1/J_h)
    np.testing.assert_allclose(hub_links_frequencies(3, EI, RHO_A, L, 1e12, 2, 0.2),
                               clamped_free_frequencies(EI, RHO_A, L, 3), rtol=1e-9)
    # no hub, links at the centre: pinned-free, tan bL = tanh bL
    b = clamped_pinned_roots(3)
    np.testing.assert_allclose(hub_links_frequencies(3, EI, RHO_A, L, 0.0, 2),
                               (b / L) ** 2 * np.sqrt(EI / RHO_A) / (2 * np.pi), rtol=1e-12)


def test_torsion_frequencies():
    f = torsion_frequencies(0.8, 2e-3, 1.2, 3)
    np.testing.assert_allclose(f / f[0], [1, 3, 5], rtol=1e-15)
    assert abs(f[0] - np.pi / 2.4 * np.sqrt(400.0) / (2 * np.pi)) < 1e-12


def test_bench_reports_the_spatial_forcing():
    from chrono_flex.bench import bench_spatial_forcing

    figures = bench_spatial_forcing((1, 2), n=3, repeat=1)
    assert figures["hub_two_links_1el_nq"] == 1 + 2 * 5
    assert figures["hub_two_links_2el_nq"] == 1 + 2 * 10
    assert all(v > 0 for v in figures.values())
