"""The geometric-stiffening rule (chrono_flex.planar.stiffening, docs/planar-link.md §4.5)."""

import math
import warnings

import pytest

import chrono_flex as cf
from chrono_flex.errors import StiffeningWarning
from chrono_flex.inputs import spin_up
from chrono_flex.planar.stiffening import (AXIAL_RATIO_LIMIT, SPIN_RATIO_LIMIT, buckling_load,
                                           frequency_error, stiffening_ratios)


def test_ratios_against_the_closed_forms():
    EI, L = 1000.0, 1.0
    assert buckling_load(EI, L) == pytest.approx(math.pi**2 * 1000.0 / 4, rel=1e-15)
    a, s = stiffening_ratios(-49.05, 2.0, EI, L, 50.0)      # compression counts as load
    assert a == pytest.approx(49.05 / (math.pi**2 * 250.0), rel=1e-15)
    assert s == pytest.approx(0.04, rel=1e-15)
    # at the limits both estimates give a 1 % frequency error
    assert frequency_error(AXIAL_RATIO_LIMIT, 0.0) == pytest.approx(0.01, rel=1e-12)
    assert frequency_error(0.0, SPIN_RATIO_LIMIT) == pytest.approx(0.01, rel=0.01)


def test_root_axial_force_of_a_hanging_link_is_its_weight():
    arm = cf.PlanarArm([cf.Link(1.0, 2, EI=1000.0, rho_A=5.0)], gravity=True)
    q = arm.coordinates([-math.pi / 2])
    r = arm.simulate(1e-3, joint_angles0=[-math.pi / 2], dt_out=1e-3, progress=False)
    s = r.info["stiffening"]
    # at rest, hanging: N(0) = rho A L g (tension), omega1 from the locked-joint modes
    assert s["axial_ratio"] == pytest.approx(5.0 * 9.81 / buckling_load(1000.0, 1.0), rel=1e-6)
    assert s["omega1"] == pytest.approx(2 * math.pi * arm.natural_frequencies(1, q)[0],
                                        rel=1e-12)


def _spin(stiffening, Omega):
    arm = cf.PlanarArm([cf.Link(10.0, 2, EI=1.4e4, rho_A=1.2)],
                       geometric_stiffening=stiffening)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = arm.simulate(3.0, joint_motion=spin_up(Omega, 2.0), dt_out=0.1, progress=False)
    return r, [w for w in caught if issubclass(w.category, StiffeningWarning)]


def test_the_linear_model_warns_once_above_the_rule_and_not_below():
    r, warned = _spin(False, 1.5)                      # 0.39 omega_1
    assert len(warned) == 1 and "geometric_stiffening=True" in str(warned[0].message)
    assert r.info["stiffening"]["spin_ratio"] > SPIN_RATIO_LIMIT
    r, warned = _spin(False, 0.2)                      # 0.05 omega_1
    assert not warned and r.info["stiffening"]["crossed"] == []
    r, warned = _spin(True, 1.5)                       # stiffened: nothing to warn about
    assert not warned and "spin" in r.info["stiffening"]["crossed"]


def test_buckling_EI_of_varying_sections():
    # uniform: EI itself; a uniform callable: the same to round-off; a cone: the Rayleigh
    # weighted mean with the uniform column's shape, against adaptive quadrature
    import math

    from scipy.integrate import quad

    import chrono_flex as cf
    from chrono_flex.planar.stiffening import buckling_EI

    assert buckling_EI(cf.Link(1.0, 4, EI=2.0, rho_A=0.5)) == 2.0
    assert buckling_EI(cf.Link(1.0, 4, EI=lambda x: 2.0, rho_A=0.5)) == pytest.approx(2.0, rel=1e-14)
    cone = cf.Link(1.0, 8, EI=lambda x: (1 - x) ** 4, rho_A=lambda x: (1 - x) ** 2)
    c2 = lambda x: math.cos(math.pi * x / 2) ** 2  # noqa: E731
    ref = quad(lambda x: (1 - x) ** 4 * c2(x), 0, 1)[0] / quad(c2, 0, 1)[0]
    # 6 Gauss points per element on a smooth integrand: error far below 1e-10
    assert buckling_EI(cone) == pytest.approx(ref, rel=1e-10)
