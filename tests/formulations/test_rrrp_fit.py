"""[W]'s lambda(a) procedure (chrono_flex.formulations.rrrp_fit): the combined arm's
sections, its first mode against the uniform-beam closed form, and bad input."""

import numpy as np
import pytest

from chrono_flex.errors import ParameterError
from chrono_flex.formulations.rrrp import RRRPParams
from chrono_flex.formulations.rrrp_fit import (combined_arm_sections, first_mode,
                                               fit_exponent, fit_lambda)
from chrono_flex.planar.shapes import clamped_free_frequencies


def test_sections_of_the_combined_arm():
    p = RRRPParams()                                   # l2 = 5, l3 = 4
    s = combined_arm_sections(p, 2.0)                  # arm 3 on [3, 7]
    assert [(x0, x1) for x0, x1, _, _ in s] == [(0.0, 3.0), (3.0, 5.0), (5.0, 7.0)]
    assert [ei for _, _, ei, _ in s] == [p.EI2, p.EI2 + p.EI3, p.EI3]
    assert [ra for _, _, _, ra in s] == [p.rho_A2, p.rho_A2 + p.rho_A3, p.rho_A3]


def test_fully_overlapped_arm_is_a_uniform_cantilever():
    # l3 = l2 and a = 0: both tubes over the whole length, one uniform section
    p = RRRPParams(l3=5.0)
    x, phi, omega = first_mode(p, 0.0)
    w1 = clamped_free_frequencies(p.EI2 + p.EI3, p.rho_A2 + p.rho_A3, 5.0, k=1)[0]
    # 60 Hermite elements: frequency error ~ (h/L)^4 ~ 1e-7 relative
    assert omega / (2 * np.pi) == pytest.approx(w1, rel=1e-6)   # clamped_free_frequencies: Hz
    assert phi[0] == 0.0 and phi[-1] == 1.0
    # the exact mode's least-squares exponent, fine sampling: 1.55206 (spatial.lambda-fit-uniform)
    assert fit_exponent(x, phi) == pytest.approx(1.55206, abs=2e-5)


def test_fit_recovers_an_exact_power_law():
    x = np.linspace(0, 2.0, 50)
    assert fit_exponent(x, (x / 2.0) ** 1.7) == pytest.approx(1.7, abs=1e-7)


def test_default_extensions_and_quadratic():
    f = fit_lambda(RRRPParams(), extensions=[0.0, 2.0, 4.0])
    assert f.coeffs == pytest.approx(np.polyfit(f.extensions, f.exponents, 2), abs=1e-12)
    assert np.allclose(f.lam(f.extensions), f.exponents, atol=1e-12)   # 3 points: exact
    assert np.all(np.diff(f.frequencies) < 0)           # longer arm, lower first mode


@pytest.mark.parametrize("kw, name", [(dict(extensions=[0.0, 1.0]), "extensions"),
                                      (dict(extensions=[-0.5, 1.0, 2.0]), "extensions"),
                                      (dict(extensions=[0.0, 1.0, 4.5]), "extensions"),
                                      (dict(tip_mass=-1.0), "tip_mass"),
                                      (dict(params="arm"), "params")])
def test_bad_input_names_the_parameter(kw, name):
    with pytest.raises(ParameterError, match=name):
        fit_lambda(**kw)
