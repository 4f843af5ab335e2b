"""sigma0 from a presliding test (identify_presliding) and [S] eq. 12 as printed."""

import numpy as np
import pytest

from chrono_flex.drive import DriveParams, ModifiedLuGre, identify_presliding, presliding_curve
from chrono_flex.errors import ParameterError

SIGMA0, MS, SIGMA1 = 100.0, 0.0467, 0.923        # [S] Table 2


def test_presliding_curve_has_slope_sigma0_and_asymptote_ms():
    h = 1e-9 * MS / SIGMA0
    slope = (presliding_curve(h, SIGMA0, MS) - presliding_curve(0.0, SIGMA0, MS)) / h
    # forward difference: truncation sigma0 h / (2 Ms) = 5e-10; expm1 keeps round-off ~1e-16
    assert slope == pytest.approx(SIGMA0, rel=1e-9)
    assert presliding_curve(50 * MS / SIGMA0, SIGMA0, MS) == pytest.approx(MS, rel=1e-15)


def test_fit_recovers_sigma0_ms_sigma1_from_exact_curve_with_noise():
    rng = np.random.default_rng(1)
    x = np.linspace(0.0, 2.5 * MS / SIGMA0, 400)
    v = 0.01 * (1.0 + np.sin(x * 1e4))
    noise = 1e-5 * MS
    F = presliding_curve(x, SIGMA0, MS, SIGMA1, v) + rng.normal(0.0, noise, x.size)
    fit = identify_presliding(x, F, v)
    for name, true in (("sigma0", SIGMA0), ("Ms", MS), ("sigma1", SIGMA1)):
        lo, hi = fit.ci[name]
        # a 95 % interval: the truth inside it (this seed), and the estimate within 4 sd
        assert lo <= true <= hi, name
        assert abs(getattr(fit, name) - true) < 4 * fit.stderr[name], name


def test_fit_with_ms_given_uses_only_the_samples_below_it():
    x = np.linspace(0.0, 5 * MS / SIGMA0, 200)
    F = presliding_curve(x, SIGMA0, MS)
    fit = identify_presliding(x, F, Ms=MS)
    assert fit.fitted == ("sigma0",)
    assert fit.sigma0 == pytest.approx(SIGMA0, rel=1e-9)        # exact data: round-off
    assert "given" in fit.summary()


def test_bad_presliding_data_is_refused_by_name():
    with pytest.raises(ParameterError, match="displacement"):
        identify_presliding([0.0, -1e-4, -2e-4, -3e-4], [0.0, 0.01, 0.02, 0.03])
    with pytest.raises(ParameterError, match="friction"):
        identify_presliding([0.0, 1e-4, 2e-4, 3e-4], [0.0, 0.01, np.nan, 0.03])
    with pytest.raises(ParameterError, match="displacement"):    # turns back after 2 samples
        identify_presliding([0.0, 1e-4, 0.5e-4, 2e-4, 3e-4], [0.0, 0.01, 0.005, 0.02, 0.03])


def test_printed_sigma1_law_is_4_sigma0_g_over_v_and_not_passive():
    kw = dict(sigma0=SIGMA0, sigma1=SIGMA1, sigma2=0.0, Fc=0.0405, Fs=MS, vs=10.47,
              T_min=2e-6)
    printed = ModifiedLuGre(damping="printed", **kw)
    cap = ModifiedLuGre(damping="cap", **kw)
    v = 30.0
    g = float(printed.g(v))
    assert float(printed.sigma1_eff(v)) == pytest.approx(min(SIGMA1, 4 * SIGMA0 * g / v),
                                                         rel=1e-14)
    assert float(cap.sigma1_eff(v)) == pytest.approx(min(SIGMA1, 4 * g / v), rel=1e-14)
    assert cap.passive and not printed.passive
    assert DriveParams.serebrenny2019(sigma1_damping="printed").friction_model.damping == \
        "printed"
    with pytest.raises(ParameterError, match="sigma1_damping"):
        DriveParams.serebrenny2019(sigma1_damping="uncapped")
