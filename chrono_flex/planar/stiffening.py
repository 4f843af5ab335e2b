"""When the papers' linear model is adequate: the geometric-stiffening rule
(docs/planar-link.md §4.5).

The floating-frame model of [B] and [K] leaves out the stiffness that an axial force
gives a bending beam (tension stiffens, compression softens). Two ratios measure how
much that matters for a link of bending stiffness EI and length L:

* axial ratio P / P_cr: the axial force at the link's root (gravity, centrifugal force
  and the root's acceleration along the link, on the link and on all it carries) against
  the Euler buckling load of a clamped-free column, P_cr = pi^2 EI / (4 L^2). A tip load P
  changes the first bending frequency by omega^2 / omega_0^2 ~ 1 + P / P_cr (tension
  positive; Galef's formula), i.e. by a fraction ~ P / (2 P_cr). For a load spread along
  the link the root force over-states the effect (self-weight buckles at a total weight
  7.84 EI / L^2, not 2.47 EI / L^2), so the ratio is on the safe side.
* spin ratio |psi_dot| / omega_1: the link's absolute angular velocity against the
  arm's first bending frequency (joints locked). In the rotating frame the linear model
  has omega^2 = omega_0^2 - psi_dot^2 for the first in-plane mode, the stiffened one
  omega_0^2 + (k_1 - 1) psi_dot^2 with Southwell's coefficient k_1 = 1.193 of a uniform
  clamped-free beam: a frequency error of ~ (k_1 / 2) (psi_dot / omega_1)^2
  (Kane, Ryan & Banerjee 1987, [KRB]).

The rule: the linear model keeps the first bending frequency within 1 % while
P / P_cr <= 0.02 and |psi_dot| / omega_1 <= 0.13 (from P/(2 P_cr) <= 0.01 and
(k_1/2) r^2 <= 0.01). Quasi-static deflections then agree to about the same fraction;
a pointwise history over many periods drifts in phase by 2 pi f_1 T times the frequency
error after a time T, so it needs a tighter bound (or the stiffened model).
"""

import math
import warnings

import numpy as np

from ..errors import ParameterError, StiffeningWarning
from . import equations as mdl

#: Axial load over the clamped-free buckling load up to which the first bending frequency
#: of the linear model stays within 1 % (P / (2 P_cr) <= 0.01).
AXIAL_RATIO_LIMIT = 0.02
#: Southwell coefficient of the first mode of a uniform clamped-free beam (no hub radius).
SOUTHWELL_1 = 1.193
#: Spin rate over the first bending frequency up to which the frequency error of the
#: linear model stays within 1 % ((SOUTHWELL_1 / 2) r^2 <= 0.01).
SPIN_RATIO_LIMIT = 0.13


def buckling_load(EI, length):
    """Euler buckling load of a clamped-free column under an end load: pi^2 EI / (4 L^2), N."""
    return math.pi ** 2 * EI / (4.0 * length ** 2)


def buckling_EI(link):
    """The bending stiffness (N m^2) that puts a link's buckling load at pi^2 EI / (4 L^2):
    EI itself for a uniform link; for a varying section the Rayleigh quotient's weighted
    mean int EI(x) cos^2(pi x / 2L) dx / int cos^2(pi x / 2L) dx, with the uniform
    column's buckling shape 1 - cos(pi x / 2L) (Timoshenko & Gere 1961, §2.10: exact for
    a uniform link, an estimate for a varying one, by the same element quadrature as the
    section's other integrals)."""
    if link.uniform:
        return float(link.EI)
    from .params import SECTION_POINTS

    g, gw = np.polynomial.legendre.leggauss(SECTION_POINTS)
    lo, hi = link.nodes[:-1], link.nodes[1:]
    xs = (lo[:, None] + (g[None, :] + 1) / 2 * (hi - lo)[:, None]).ravel()
    ws = (gw[None, :] * (hi - lo)[:, None] / 2).ravel()
    c2 = np.cos(math.pi * xs / (2 * link.length)) ** 2
    return float(np.sum(ws * c2 * link.section("EI", xs)) / np.sum(ws * c2))


def stiffening_ratios(axial_load, spin_rate, EI, length, omega1):
    """(|P| / P_cr, |spin_rate| / omega1): the two ratios of the rule (module doc).

    axial_load: axial force at the link's root, N (tension or compression); spin_rate:
    the link's angular velocity, rad/s; EI, length: the link's, N m^2 and m; omega1: the
    first bending frequency, rad/s. Floats or arrays."""
    return (np.abs(axial_load) / buckling_load(EI, length),
            np.abs(spin_rate) / omega1)


def frequency_error(axial_ratio, spin_ratio):
    """Estimated relative error of the first bending frequency of the linear model:
    the larger of P / (2 P_cr) and (k_1 / 2) (psi_dot / omega_1)^2 (module doc)."""
    return np.maximum(0.5 * np.asarray(axial_ratio, dtype=float),
                      0.5 * SOUTHWELL_1 * np.asarray(spin_ratio, dtype=float) ** 2)


def first_bending_frequency(arm, q=None):
    """The arm's lowest natural frequency with the joints locked, rad/s (modes.py)."""
    from .modes import lowest_frequency_squared   # heavy (eigensolvers): on first use

    return math.sqrt(lowest_frequency_squared(arm, q))


def run_ratios(arm, Q, QD):
    """(axial ratios (nt, nl), spin ratios (nt, nl), omega1) along sampled states Q, QD
    (nt, nq): the root axial force of each link from the same axial field as the
    stiffening term (:func:`chrono_flex.planar.equations.axial_force`), its angular
    velocity, and the arm's first bending frequency about the first sample."""
    model = arm.model
    try:
        omega1 = first_bending_frequency(arm, np.asarray(Q[0], dtype=float))
    except ParameterError:          # no vibration mode (cannot happen for a Hermite link)
        omega1 = math.nan
    roots = mdl.root_motion_series(model, Q, QD)
    P = np.column_stack([mdl.axial_force(model, i, r, 0.0) * np.ones(len(Q))
                         for i, r in enumerate(roots)])
    spin = np.column_stack([r.psid for r in roots])
    EI = np.array([buckling_EI(lk) for lk in model.links])
    L = np.array([lk.length for lk in model.links])
    axial, spin_r = stiffening_ratios(P, spin, EI, L, omega1)
    return axial, spin_r, omega1


def check_stiffening(arm, t, Q, QD):
    """The rule along a run: a dict of the largest ratios (and where), with a
    :class:`~chrono_flex.errors.StiffeningWarning` (once) when a run of the linear model
    (``arm.geometric_stiffening`` False) crosses a limit. None for an empty run."""
    if len(t) == 0:
        return None
    axial, spin, omega1 = run_ratios(arm, Q, QD)
    spin = np.nan_to_num(spin, nan=0.0)          # no first frequency: no spin ratio
    ka = np.unravel_index(np.argmax(axial), axial.shape)
    ks = np.unravel_index(np.argmax(spin), spin.shape)
    out = dict(axial_ratio=float(axial[ka]), axial_time=float(t[ka[0]]),
               axial_link=int(ka[1]) + 1, spin_ratio=float(spin[ks]),
               spin_time=float(t[ks[0]]), spin_link=int(ks[1]) + 1, omega1=omega1,
               frequency_error=float(frequency_error(axial[ka], spin[ks])),
               limits=dict(axial=AXIAL_RATIO_LIMIT, spin=SPIN_RATIO_LIMIT))
    crossed = [k for k, lim in (("axial", AXIAL_RATIO_LIMIT), ("spin", SPIN_RATIO_LIMIT))
               if out[f"{k}_ratio"] > lim]
    out["crossed"] = crossed
    if crossed and not arm.geometric_stiffening:
        parts = []
        if "axial" in crossed:
            parts.append(f"axial load / buckling load reached {out['axial_ratio']:.3g} "
                         f"(limit {AXIAL_RATIO_LIMIT}) on link {out['axial_link']} at t = "
                         f"{out['axial_time']:.4g} s")
        if "spin" in crossed:
            parts.append(f"spin rate / first bending frequency reached "
                         f"{out['spin_ratio']:.3g} (limit {SPIN_RATIO_LIMIT}) on link "
                         f"{out['spin_link']} at t = {out['spin_time']:.4g} s")
        warnings.warn(StiffeningWarning(
            "the papers' linear model (geometric_stiffening=False) left its range: "
            + "; ".join(parts) + f"; its first bending frequency may be off by about "
            f"{100 * out['frequency_error']:.2g} % (docs/planar-link.md §4.5); rerun with "
            "geometric_stiffening=True"), stacklevel=2)
    return out


__all__ = ["AXIAL_RATIO_LIMIT", "SOUTHWELL_1", "SPIN_RATIO_LIMIT", "buckling_load",
           "check_stiffening", "first_bending_frequency", "frequency_error", "run_ratios",
           "stiffening_ratios"]
