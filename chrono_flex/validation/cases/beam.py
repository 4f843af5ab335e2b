"""One link against beam theory: static deflection, natural frequencies, convergence.

Closed forms (Euler-Bernoulli beam, Blevins "Formulas for natural frequency and mode
shape", tables 8-1 and 8-9):

* tip load P on a cantilever: w(x) = P x^2 (3L - x) / (6 EI), w(L) = P L^3 / (3 EI);
* uniform load q0: w(L) = q0 L^4 / (8 EI);
* clamped-free: 1 + cos(bL) cosh(bL) = 0, f = (bL)^2 / (2 pi L^2) sqrt(EI / rho A);
* a link on a hub of inertia J_h (free joint) with a tip mass m and tip inertia J_t: the
  absolute deflection Y(x) = A cos bx + B sin bx + C cosh bx + D sinh bx satisfies
  Y(0) = 0, EI Y''(0) + w^2 J_h Y'(0) = 0, EI Y''(L) - w^2 J_t Y'(L) = 0,
  EI Y'''(L) + w^2 m Y(L) = 0 (from Hamilton's principle with T = 1/2 int rho A Y_t^2 +
  1/2 J_h Y_t'(0)^2 + 1/2 m Y_t(L)^2 + 1/2 J_t Y_t'(L)^2); J_h = m = J_t = 0 gives the
  pinned-free beam tan bL = tanh bL, J_h -> infinity the clamped-free one.

The discretisation error of consistent-mass cubic Hermite elements is, to leading order,
a relative frequency error (b h)^4 / 1440 for element length h (the eigenvalue error
(b h)^4 / 720, halved for the frequency; Strang & Fix, An analysis of the finite element
method, ch. 6) — the bound used below, with a factor 2 for the next-order terms.
"""

import math

import numpy as np
from scipy.optimize import brentq

import chrono_flex as cf
from chrono_flex.planar.shapes import HermiteBasis

from ..core import Outcome, case, observed_rate

EI, RHO_A, L = 2.0, 0.5, 1.3


def hermite_frequency_bound(beta_L, n):
    """Leading relative frequency error of n consistent-mass Hermite elements, times 2."""
    return 2.0 * (np.asarray(beta_L) / n) ** 4 / 1440.0


def hub_link_roots(k, EI, rho_A, L, J_hub, m_tip, J_tip):
    """First k frequencies (Hz) of a link on a free hub with tip mass (module docstring)."""
    def det(b):
        w2 = (b * b) ** 2 * EI / rho_A          # omega^2 = b^4 EI / rho A
        c, s, ch, sh = math.cos(b * L), math.sin(b * L), math.cosh(b * L), math.sinh(b * L)
        # rows: Y(0), EI Y''(0) + w2 J_h Y'(0), EI Y''(L) - w2 J_t Y'(L), EI Y'''(L) + w2 m Y(L)
        A = np.array([
            [1.0, 0.0, 1.0, 0.0],
            [-EI * b * b, w2 * J_hub * b, EI * b * b, w2 * J_hub * b],
            [-EI * b * b * c + w2 * J_tip * b * s, -EI * b * b * s - w2 * J_tip * b * c,
             EI * b * b * ch - w2 * J_tip * b * sh, EI * b * b * sh - w2 * J_tip * b * ch],
            [EI * b**3 * s + w2 * m_tip * c, -EI * b**3 * c + w2 * m_tip * s,
             EI * b**3 * sh + w2 * m_tip * ch, EI * b**3 * ch + w2 * m_tip * sh]])
        return np.linalg.det(A) / math.cosh(b * L) ** 2
    grid = np.linspace(0.2 / L, (k + 2) * math.pi / L, 4000)
    vals = [det(b) for b in grid]
    roots = []
    for a, b, fa, fb in zip(grid[:-1], grid[1:], vals[:-1], vals[1:]):
        if fa * fb < 0:
            roots.append(brentq(det, a, b, xtol=1e-14))
            if len(roots) == k:
                break
    b = np.array(roots)
    return b * b * math.sqrt(EI / rho_A) / (2 * math.pi)


@case("beam.static-tip-load", tolerance=1e-12, engines=("reference", "closed form"))
def static_tip(ctx):
    """Quantity: nodal deflections and slopes of a cantilever under a tip load P (n = 1, 2, 5
        elements)

    Metric: max relative error at the nodes

    Reason: cubic Hermite elements contain the exact cubic solution, so the nodes are exact;
        1e-12 is round-off of a solve with condition ~(2n)^4

    Source: Euler-Bernoulli, Blevins"""
    P = 0.7
    err, curves = 0.0, []
    for n in (1, 2, 5):
        arm = cf.PlanarArm([cf.Link(L, n, EI=EI, rho_A=RHO_A)])
        q = arm.static_deflection(tip_force=(0.0, P))
        e = q[arm.elastic_index]
        x = np.linspace(0, L, n + 1)[1:]
        w_exact = P * x**2 * (3 * L - x) / (6 * EI)
        s_exact = P * x * (2 * L - x) / (2 * EI)
        err = max(err, np.max(np.abs(e[0::2] / w_exact - 1)), np.max(np.abs(e[1::2] / s_exact - 1)))
        xs = np.linspace(0, L, 101)
        curves.append((n, xs, HermiteBasis(L, n).values(xs)[0] @ e))

    def plot(fig):
        ax = fig.add_subplot(111)
        xs = np.linspace(0, L, 101)
        ax.plot(xs, 1e3 * P * xs**2 * (3 * L - xs) / (6 * EI), "k-", lw=3, alpha=0.3,
                label="P x^2 (3L - x) / 6EI")
        for n, x, w in curves:
            ax.plot(x, 1e3 * w, "--", label=f"{n} element(s)")
        ax.set(xlabel="x (m)", ylabel="deflection w (mm)", title="cantilever, tip load")
        ax.legend()
    return Outcome(err, plot, details=[f"tip deflection P L^3/3EI = {P * L**3 / (3 * EI):.6g} m"])


@case("beam.static-own-weight", tolerance=1e-8, engines=("reference", "closed form"))
def static_weight(ctx):
    """Quantity: tip deflection of a cantilever under its own weight (4 elements)

    Metric: relative error vs q0 L^4 / 8EI

    Reason: the consistent load vector makes Hermite nodes exact for a uniform load; the
        static solve is nonlinear (the load turns with the link): its residual tolerance and
        the (w/L)^2 ~ 1e-9 geometric term bound the error by 1e-8"""
    EI_ = 2e3
    arm = cf.PlanarArm([cf.Link(L, 4, EI=EI_, rho_A=RHO_A)], gravity=9.81)
    q = arm.static_deflection(joint_angles=[0.0])
    w = q[arm.elastic_index][-2]
    exact = -RHO_A * 9.81 * L**4 / (8 * EI_)
    return Outcome(abs(w / exact - 1), details=[f"w(L) = {w:.9g} m, closed form {exact:.9g} m"])


@case("beam.clamped-free-frequencies", tolerance=1.0, engines=("reference", "closed form"))
def clamped_free(ctx):
    """Quantity: first three clamped-free frequencies, 16 elements, against the printed roots
        bL = 1.8751, 4.6941, 7.8548

    Metric: max over modes of |f_h - f| / f / bound_k, bound_k = 2 (b_k h)^4 / 1440 +
        printed-root precision

    Reason: O(h^4) frequency error of consistent-mass Hermite elements, leading term
        (bh)^4/1440 (Strang & Fix ch. 6), factor 2 for higher-order terms; plus 2 x 5e-5 /
        bL for the 4-decimal printed roots (Blevins table 8-1)

    Source: Blevins table 8-1"""
    n = 16
    printed = np.array([1.8751, 4.6941, 7.8548])
    exact = printed**2 / (2 * math.pi * L * L) * math.sqrt(EI / RHO_A)
    f = cf.PlanarArm([cf.Link(L, n, EI=EI, rho_A=RHO_A)]).natural_frequencies(3, joints="locked")
    err = np.abs(f - exact) / exact
    bound = hermite_frequency_bound(printed, n) + 2 * 5e-5 / printed
    details = [f"mode {k + 1}: f = {f[k]:.8g} Hz, closed form {exact[k]:.8g} Hz, error "
               f"{err[k]:.2e}, bound {bound[k]:.2e}" for k in range(3)]
    return Outcome(float(np.max(err / bound)), details=details,
                   data=dict(f=f, exact=exact, error=err))


@case("beam.frequency-convergence", tolerance=(3.8, 4.2), compare="window",
      engines=("reference", "closed form"))
def frequency_convergence(ctx):
    """Quantity: clamped-free frequencies vs element count (n = 2..32) against the exact roots
        of 1 + cos cosh = 0

    Metric: observed order of convergence of mode 1 (fit over n = 4..32)

    Reason: theory: order 4 for consistent-mass cubic Hermite elements; +-0.2 for the
        pre-asymptotic terms (the next term is O(h^6))"""
    ns = np.array([2, 4, 8, 16, 32])
    exact = cf.clamped_free_frequencies(EI, RHO_A, L, 3)
    errs = np.array([np.abs(cf.PlanarArm([cf.Link(L, int(n), EI=EI, rho_A=RHO_A)])
                            .natural_frequencies(3, joints="locked") - exact) / exact
                     for n in ns])
    rates = [observed_rate(L / ns[1:], errs[1:, k]) for k in range(3)]
    roots = cf.clamped_free_roots(3)

    def plot(fig):
        ax = fig.add_subplot(111)
        for k in range(3):
            ax.loglog(ns, errs[:, k], "o-", label=f"mode {k + 1} (rate {rates[k]:.2f})")
            ax.loglog(ns, (roots[k] / ns) ** 4 / 1440, ":", color=ax.lines[-1].get_color())
        ax.set(xlabel="elements n", ylabel="relative frequency error",
               title="clamped-free frequencies; dotted: (bh)^4/1440")
        ax.legend()
    return Outcome(rates[0], plot, details=[f"rates of modes 1-3: {np.round(rates, 3).tolist()}"],
                   data=dict(n=ns, errors=errs, rates=rates))


@case("beam.hub-tip-mass-frequencies", tolerance=1.0, engines=("reference", "closed form"))
def hub_tip_mass(ctx):
    """Quantity: first three frequencies of a link on a free hub (J_h) with a tip mass and tip
        inertia, 16 elements

    Metric: max over modes of relative error / (2 (b_k h)^4 / 1440)

    Reason: closed form solved to 1e-14 in bL; the FEM error is O(h^4) with the leading term
        (bh)^4/1440 (Strang & Fix), factor 2 for higher-order terms

    Source: Hamilton's principle, module docstring"""
    J_h, m, J_t, n = 0.05, 0.2, 0.004, 16
    arm = cf.PlanarArm([cf.Link(L, n, EI=EI, rho_A=RHO_A)], payload=cf.Payload(m, J_t),
                       hub_inertia=J_h)
    f = arm.natural_frequencies(3, joints="free")
    exact = hub_link_roots(3, EI, RHO_A, L, J_h, m, J_t)
    beta_L = np.sqrt(2 * math.pi * exact / math.sqrt(EI / RHO_A)) * L
    ratio = np.abs(f / exact - 1) / hermite_frequency_bound(beta_L, n)
    # the limits that fix the closed form's signs: pinned-free and clamped-free
    pinned = hub_link_roots(2, EI, RHO_A, L, 0.0, 0.0, 0.0)
    clamped = hub_link_roots(2, EI, RHO_A, L, 1e9, 0.0, 0.0)
    details = [f"mode {k + 1}: FEM {f[k]:.8g} Hz, closed form {exact[k]:.8g} Hz"
               for k in range(3)]
    details.append(f"limits: J_h = m = 0 gives {pinned.round(6).tolist()} Hz (pinned-free); "
                   f"J_h = 1e9 gives {clamped.round(6).tolist()} Hz, clamped-free "
                   f"{cf.clamped_free_frequencies(EI, RHO_A, L, 2).round(6).tolist()} Hz")
    return Outcome(float(np.max(ratio)), details=details, data=dict(f=f, exact=exact))


@case("beam.transient-convergence", tolerance=3.0, compare="ge", engines=("reference",))
def transient_convergence(ctx):
    """Quantity: peak tip deflection of Bien's single link under the torque pulse (2 s) vs
        element count (n = 1..8 against n = 16)

    Metric: observed order of convergence (fit over n = 2..8)

    Reason: the transient tip deflection is dominated by the first modes, whose frequencies
        converge as h^4; the peak (a displacement) converges at least as h^3 in practice; 3
        is the floor below which the elements would be mis-assembled (a wrong mass or
        stiffness entry gives order <= 2)"""
    from chrono_flex import scenarios

    ns, peaks, curves = [1, 2, 4, 8, 16], [], []
    for n in ns:
        ctx.note(f"n = {n}")
        arm = cf.PlanarArm([scenarios.bien_link(1.0, n)])
        # rtol 1e-10 puts the integration error (~1e-12 m) below the n = 8 vs 16 difference
        # (3e-8 m); a tight atol on the elastic rates is not needed and costs 100x
        r = arm.simulate(2.0, torque=scenarios.pulse(0.1, 2.0), method="Radau", rtol=1e-10, dt_out=0.002)
        curves.append((n, r.t, r.tip_deflection[:, 0]))
    k = int(np.argmax(np.abs(curves[-1][2])))      # the sample of the finest run's peak
    peaks = np.array([w[k] for _, _, w in curves])
    errs = np.abs(peaks[:-1] - peaks[-1]) / abs(peaks[-1])
    rate = observed_rate(1.0 / np.array(ns[1:-1]), errs[1:])

    def plot(fig):
        a1, a2 = fig.add_subplot(121), fig.add_subplot(122)
        for n, t, w in curves:
            a1.plot(t, 1e3 * w, label=f"n = {n}")
        a1.set(xlabel="t (s)", ylabel="tip deflection (mm)")
        a1.legend()
        a2.loglog(ns[:-1], errs, "o-")
        a2.set(xlabel="elements n", ylabel="|peak - peak(16)| / |peak(16)|",
               title=f"observed order {rate:.2f}")
    return Outcome(rate, plot, details=[f"peaks (mm): {np.round(1e3 * peaks, 6).tolist()}",
                                        f"errors vs n = 16: {errs.tolist()}"])
