"""The papers' printed tables, read from a source checkout's ``validation/papers/``.

[S] Table 2: the identification of K_ML and Mc (with their 95 % intervals) from the ten
printed (M1', eta) points, against the printed result. [W] Table 1: lambda(a) of each of
the three structures from the project's own modal analysis
(:mod:`chrono_flex.formulations.rrrp_fit`) against [W]'s fit. Where the tables are absent
(an installed package) the cases are skipped with the reason.
"""

import numpy as np

from chrono_flex.drive import identify_efficiency

from ..core import Outcome, case
from ..external import read_table
from ...drive import efficiency_input
from ...formulations.rrrp import RRRPParams
from ...formulations.rrrp_fit import fit_lambda

S_TABLE = "papers/serebrenny2019_table2.csv"
W_TABLE = "papers/wang_table1.csv"
#: Half a unit of the last printed digit of eta in [S] Table 2.
ETA_HALF_DIGIT = 0.0005


def _fit_values(fit):
    return np.array([fit.K_ML, *fit.ci["K_ML"], fit.Mc, *fit.ci["Mc"]])


def rounding_bound(M, eta, half_digit=ETA_HALF_DIGIT):
    """The largest change of (K_ML, its interval, Mc, its interval) that rounding every
    eta to ``half_digit`` can cause: sum_i |d value / d eta_i| half_digit (the fit is
    linear in (K_ML Mc, Mc), so the first-order bound is close; derivatives by central
    differences of step 1e-6)."""
    h = 1e-6
    S = []
    for i in range(len(eta)):
        e1, e2 = eta.copy(), eta.copy()
        e1[i] += h
        e2[i] -= h
        S.append((_fit_values(identify_efficiency(M, e1))
                  - _fit_values(identify_efficiency(M, e2))) / (2 * h))
    return half_digit * np.abs(np.array(S)).sum(axis=0)


@case("published.s-table2-printed", tolerance=1.0, engines=("drive",))
def s_table2_printed(ctx):
    """Quantity: K_ML, Mc and both 95 % intervals identified by least squares of [S] eq. 27
        from [S] Table 2's ten printed (M1', eta) points, against the printed K_ML = 3.266
        (3.204 ... 3.328), Mc = 0.04052 (0.04022 ... 0.04082)

    Metric: max over the six numbers of |fit - printed| / (change the rounding of the
        printed eta can cause + half a unit of the printed result's last digit)

    Reason: the points are printed to 3 decimals of eta: rounding each within +-0.0005 moves
        the fit by at most sum_i |d fit / d eta_i| 0.0005 (K_ML 0.032, Mc 1.5e-4), and the
        result is printed to half a unit of its last digit; a fit inside that bound is what
        the printed digits allow

    Source: Serebrenny, Boshlyakov, Ogorodnik 2019, Table 2
        (validation/papers/serebrenny2019_table2.csv)"""
    cols, _ = read_table(S_TABLE)
    M = np.array(cols["M1_Nm"], float)
    eta = np.array(cols["eta"], float)
    printed = {q: [float(cols[k][i]) for k in ("printed", "ci_low", "ci_high")]
               for i, q in enumerate(cols["quantity"]) if q}
    want = np.array(printed["K_ML"] + printed["Mc"])
    fit = identify_efficiency(M, eta)
    got = _fit_values(fit)
    half = np.array([5e-4] * 3 + [5e-6] * 3)        # 3.266, 0.04052: the printed digits
    bound = rounding_bound(M, eta) + half
    ratio = np.abs(got - want) / bound
    names = ["K_ML", "K_ML low", "K_ML high", "Mc", "Mc low", "Mc high"]
    rows = [f"{n}: fit {g:.6g}, printed {w:.6g}, difference {g - w:+.3g}, allowed "
            f"{b:.3g} ({r:.2f})" for n, g, w, b, r in zip(names, got, want, bound, ratio)]
    rows.append(f"residual std of eta {fit.residual_std:.3g} (the printed digit: "
                f"{ETA_HALF_DIGIT / np.sqrt(3):.3g} rms)")

    def plot(fig):
        ax = fig.add_subplot(1, 2, 1)
        Mf = np.linspace(0.08, 0.75, 200)
        ax.plot(M, eta, "ko", label="[S] Table 2")
        ax.plot(Mf, fit.efficiency(Mf), "C0-", label="fit, eq. 27")
        ax.plot(Mf, efficiency_input(Mf, printed["K_ML"][0], printed["Mc"][0]), "C3--",
                label="[S]'s printed K_ML, Mc")
        ax.set(xlabel="M1' (N m)", ylabel="efficiency")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        ax = fig.add_subplot(1, 2, 2)
        for k, (lo, g, hi, w) in enumerate(((got[1], got[0], got[2], want),
                                            (got[4], got[3], got[5], want[3:]))):
            sc = 1.0 if k == 0 else 100.0           # Mc in 1e-2 N m beside K_ML
            ax.errorbar([k - 0.1], [g * sc], yerr=[[(g - lo) * sc], [(hi - g) * sc]],
                        fmt="C0o", capsize=4, label="this fit" if k == 0 else None)
            ax.errorbar([k + 0.1], [w[0] * sc], yerr=[[(w[0] - w[1]) * sc],
                                                     [(w[2] - w[0]) * sc]],
                        fmt="C3s", capsize=4, label="[S] printed" if k == 0 else None)
        ax.set_xticks([0, 1], ["K_ML (1/(N m))", "Mc (1e-2 N m)"])
        ax.set_xlim(-0.6, 1.6)
        ax.set_title("estimates and 95 % intervals", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)

    return Outcome(float(ratio.max()), plot=plot, details=rows,
                   data=dict(fit=got.tolist(), printed=want.tolist(), allowed=bound.tolist()))


def _w_structures():
    cols, _ = read_table(W_TABLE)
    out = {}
    for k, s in enumerate(cols["structure"]):
        g = lambda key: float(cols[key][k])  # noqa: E731
        out[int(s)] = dict(l2=g("l2_m"), l3=g("l3_m"),
                           tube2=(g("arm2_outer_mm") / 1e3, g("arm2_inner_mm") / 1e3),
                           tube3=(g("arm3_outer_mm") / 1e3, g("arm3_inner_mm") / 1e3),
                           coeffs=(g("c2"), g("c1"), g("c0")))
    return out


def _w_case(structure, extra=None):
    s = _w_structures()[structure]
    p = RRRPParams(l2=s["l2"], l3=s["l3"], tube2=s["tube2"], tube3=s["tube3"],
                   lambda_coeffs=(0.0, 0.0, 1.6))       # lambda_coeffs unused by the fit
    a = np.linspace(max(0.0, s["l3"] - s["l2"]), s["l3"], 9)
    fit = fit_lambda(p, extensions=a)
    with_tip = fit_lambda(p, extensions=a, tip_mass=p.m_B)
    lam_w = np.polyval(s["coeffs"], a)
    err = np.abs(fit.exponents - lam_w)
    c = fit.coeffs
    w = s["coeffs"]
    rows = [f"structure {structure}: l2 = {s['l2']:g} m, l3 = {s['l3']:g} m, arm 2 "
            f"{s['tube2'][0] * 1e3:g}/{s['tube2'][1] * 1e3:g} mm, arm 3 "
            f"{s['tube3'][0] * 1e3:g}/{s['tube3'][1] * 1e3:g} mm",
            f"FE fit: lambda(a) = {c[0]:.4f} a^2 {c[1]:+.4f} a {c[2]:+.4f}; [W]: "
            f"{w[0]:.4f} a^2 {w[1]:+.4f} a {w[2]:+.4f}"]
    rows += [f"a = {ai:.2f} m: lambda_FE = {lf:.4f}, lambda_W = {lw:.4f}, with m_B {lt:.4f}"
             for ai, lf, lw, lt in zip(a, fit.exponents, lam_w, with_tip.exponents)]
    alt = None
    if extra is not None:
        label, kw, tip = extra
        alt = (label, fit_lambda(RRRPParams(**dict(kw, l2=s["l2"], l3=s["l3"],
                                                   lambda_coeffs=(0.0, 0.0, 1.6))),
                                 extensions=a, tip_mass=tip))
        rows.append(f"{label}: max |lambda - lambda_W| = "
                    f"{np.abs(alt[1].exponents - lam_w).max():.3f}")

    def plot(fig):
        ax = fig.add_subplot(1, 1, 1)
        aa = np.linspace(a[0], a[-1], 101)
        ax.plot(aa, np.polyval(w, aa), "k-", label="[W] Table 1 fit")
        ax.plot(a, fit.exponents, "o", label="FE first mode, printed sizes")
        ax.plot(aa, fit.lam(aa), "C0--", label="quadratic through them")
        ax.plot(a, with_tip.exponents, "s", mfc="none", label="FE, with m_B at the tip")
        if alt is not None:
            ax.plot(a, alt[1].exponents, "^", color="C3", label=alt[0])
        ax.set(xlabel="extension a (m)", ylabel="lambda",
               title=f"[W] Table 1, structure {structure}: max |diff| {err.max():.3f}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)

    return Outcome(float(err.max()), plot=plot, details=rows,
                   data=dict(coeffs=c, exponents=fit.exponents.tolist(),
                             printed=list(w)))


_W_REASON = ("[W] does not give its FE model: with the end-effector mass m_B on the arm "
             "the fitted lambda moves by up to 0.04, so a reproduction can be expected "
             "within about half that; the mesh contributes < 1e-6 (12 vs 24 elements/m)")
_W_SOURCE = "Wang, Wang, Niu, Table 1 (validation/papers/wang_table1.csv; docs/rrrp-arm.md §3)"


def _reproduced(structure, l2):
    """Register ``published.w-table1-structure<structure>``, one of the two structures
    (arm 2 length ``l2`` m, the printed tubes) the printed sizes reproduce."""
    @case(f"published.w-table1-structure{structure}", quantity=f"lambda(a) of [W] Table 1's "
          f"structure {structure} (l2 = {l2} m, tubes 80/60 and 60/40 mm) from the project's FE "
          "modal analysis at nine extensions, against [W]'s printed fit",
          metric="max over the nine extensions of |lambda_FE(a) - lambda_W(a)|",
          tolerance=0.02, reason=_W_REASON, engines=("reference",), source=_W_SOURCE)
    def run(ctx):
        return _w_case(structure)

    return run


w_table1_1 = _reproduced(1, 5)


@case("published.w-table1-structure2", tolerance=(0.23, 0.27), compare="window",
      engines=("reference",), source=_W_SOURCE)
def w_table1_2(ctx):
    """Quantity: lambda(a) of [W] Table 1's structure 2 (l2 = 5 m, arm 2 tube 60/40 mm, arm 3
        solid 40 mm) from the project's FE modal analysis, against [W]'s printed fit: the
        printed sizes do NOT reproduce it, and this case records the difference
        (docs/rrrp-arm.md §3)

    Metric: max over the nine extensions of |lambda_FE(a) - lambda_W(a)| (a recorded
        difference, not an agreement)

    Reason: the printed sizes give 0.25 below [W]'s fit at full extension (0.15 at a = 0):
        no section of arm 3 with arm 2 as printed comes within 0.12 and even a free arm-3
        section with a 47 kg tip mass within 0.07 (docs/rrrp-arm.md §3), so the difference
        is recorded; the window (+-0.02, half the m_B effect) flags any change of the modal
        analysis that moves it"""
    return _w_case(2, ("best two-parameter fit: arm 3 solid 41.2 mm, 47.3 kg at the tip",
                       dict(tube2=(0.06, 0.04), tube3=(0.0412, 0.0)), 47.3))


w_table1_3 = _reproduced(3, 6)
