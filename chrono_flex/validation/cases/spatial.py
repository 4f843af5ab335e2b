"""The spatial RRRP arm with a telescopic link ([W], docs/rrrp-arm.md;
chrono_flex.formulations.rrrp).

``spatial.energy``: a 4 s manoeuvre of the default arm (aluminium tubes, l1 = l2 = 5 m,
l3 = 4 m, m_A = 5 kg, m_B = 2 kg, gravity along -Z). Joint torques tau1..tau3 and the
force on a track quintic set-point ramps (theta1 0 -> 1 rad, theta2 0.2 -> 0.5 rad,
theta3 -0.2 -> -0.3 rad (from the horizontal, as [W]), a 2.3 -> 3.0 m in 3 s, then held; the arm starts at rest in its
static deflection under gravity) by PD control with the rigid gravity load fed forward;
the arms bend and vibrate (no structural damping). The energy balance
T + V_elastic + V_gravity - W_inputs must stay constant: its drift, relative to
the largest energy exchanged, measures the consistency of the mass matrix, the velocity
terms and the potential gradients (all derived from one position function) and the
integrator error (RK45, rtol = 1e-7, as [W]'s 4(5) Runge-Kutta).

``spatial.lambda-fit-uniform`` and ``spatial.lambda-fit``: [W]'s power-law fit of a first mode
(chrono_flex.formulations.rrrp_fit), on the exact clamped-free mode (1.5522) and on the
project's FE model of the combined arm 2+3 at nine extensions (lambda(a)).

``spatial.planar-special-case``: the arm held in the horizontal plane against the planar
engine with the same power-law shapes (equations, to the RRRP arm's differencing error).

``spatial.stiffness-unit-check``: K_44 l1^3 / (E I1) for phi_1y = (x/l1)^1.5522 must print
as 7.037 (docs/rrrp-arm.md eq. (4.2)).
"""

import functools

import numpy as np
from scipy.integrate import quad

from ..core import Outcome, case, labels
from ...formulations.rrrp import ACTUATED, RRRPArm, RRRPParams, power_stiffness_factor
from ...formulations.rrrp_fit import fit_exponent, fit_lambda
from ...planar.shapes import clamped_free_roots

RTOL = 1e-7
T_END, T_MOVE = 4.0, 3.0
START = np.array([0.0, 0.2, -0.2, 2.3])
GOAL = np.array([1.0, 0.5, -0.3, 3.0])


def _quintic(t):
    s = np.clip(t / T_MOVE, 0.0, 1.0)
    return s**3 * (10 - 15 * s + 6 * s * s)


@functools.lru_cache(maxsize=None)
def _manoeuvre():
    arm = RRRPArm()
    idx = list(ACTUATED)
    eta0 = np.zeros(8)
    eta0[idx] = START
    eta0 = arm.static_deflection(eta0)         # start at rest, bent by gravity
    Mjj = np.diag(arm.mass_matrix(eta0))[idx]
    w = np.array([2.0, 2.0, 2.0, 6.0])        # closed-loop rigid bandwidths, rad/s
    zeta = 0.9
    kp, kd = Mjj * w * w, 2 * zeta * w * Mjj

    def inputs(t, eta, eta_d):
        ref = START + (GOAL - START) * _quintic(t)
        rigid = eta.copy()
        rigid[3:7] = 0.0
        g = arm.potential_gradient(rigid)[idx]  # gravity (and K_2(a)) load, rigid arms
        return arm.joint_inputs(kp * (ref - eta[idx]) - kd * eta_d[idx] + g)

    return arm, arm.simulate(T_END, eta0, torque=inputs, method="Radau", rtol=RTOL, atol=1e-9, n_out=601,
                             progress=False)


@case("spatial.energy", tolerance=100 * RTOL, engines=("reference",))
def energy(ctx):
    """Quantity: energy balance T + V_el + V_g - W_inputs of the spatial RRRP arm during a 4 s
        PD-tracked manoeuvre (all four inputs acting)

    Metric: max |balance drift| / max(T + V_el + |V_g - V_g(0)| + |W|)

    Reason: the equations are exact derivatives of one Lagrangian (complex-step J, J' eta'
        to ~1e-10), so the drift is the RK45 global error: local error <= rtol |y| per step,
        accumulated over ~10^3 steps, bounded by 100 rtol (rtol = 1e-7)

    Source: [W] Wang Lei et al.; docs/rrrp-arm.md"""
    arm, r = _manoeuvre()
    E = r.energy
    scale = float(np.max(E.kinetic + E.elastic + np.abs(E.gravity - E.gravity[0])
                         + np.abs(E.input_work)))
    drift = float(np.max(np.abs(E.balance_error)))
    q = r.q
    rows = [f"final joints theta1..3 = {q[-1, 0]:.4f}, {q[-1, 1]:.4f}, {q[-1, 2]:.4f} rad, "
            f"a = {q[-1, 7]:.4f} m (goal {GOAL.tolist()})",
            f"max |q1y|, |q1z|, |q2y|, |q2z| = "
            + ", ".join(f"{v * 1e3:.2f}" for v in np.max(np.abs(q[:, 3:7]), 0)) + " mm",
            f"max T = {E.kinetic.max():.4g} J, max V_el = {E.elastic.max():.4g} J, "
            f"input work at end = {E.input_work[-1]:.4g} J",
            f"balance drift {drift:.3e} J of scale {scale:.4g} J; "
            f"RK45 nfev = {r.info['nfev']}, wall {r.info['wall_time']:.2f} s"]

    def plot(fig):
        ax = fig.add_subplot(1, 2, 1)
        ax.plot(r.t, E.kinetic, label="kinetic T")
        ax.plot(r.t, E.elastic, label="elastic V_el")
        ax.plot(r.t, E.gravity - E.gravity[0], label="gravity V_g - V_g(0)")
        ax.plot(r.t, E.input_work, label="input work W")
        ax.plot(r.t, E.balance_error * (0.1 * scale / max(drift, 1e-300)), "k:",
                label=f"balance drift x {0.1 * scale / max(drift, 1e-300):.2g}")
        labels(ax, "t (s)", "energy (J)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6)
        bx = fig.add_subplot(1, 2, 2, projection="3d")
        tip, jA = r.tip_position, r.joint_position
        bx.plot(tip[:, 0], tip[:, 1], tip[:, 2], color="C3", lw=1, label="tip B")
        bx.plot(jA[:, 0], jA[:, 1], jA[:, 2], color="C0", lw=1, label="joint A")
        for k in (0, len(r.t) - 1):
            pts = np.real(arm.positions(r.q[k]))
            n = arm.params.n_gauss
            bx.plot(*np.vstack([[0, 0, 0], pts[:n]]).T, color="0.4", lw=1.5)
            bx.plot(*np.vstack([pts[-2], pts[n:2 * n], pts[-1]]).T, color="0.2", lw=1.5)
        labels(bx, "X (m)", "Y (m)")
        bx.set_zlabel("Z (m)")
        bx.legend(fontsize=6)

    return Outcome(drift / scale, plot=plot, details=rows,
                   data=dict(drift=drift, scale=scale, nfev=r.info["nfev"]))


@case("spatial.stiffness-unit-check", tolerance=5e-4, engines=("closed form",))
def stiffness_unit_check(ctx):
    """Quantity: modal stiffness of phi_1y = (x/l1)^1.5522, K_44 l1^3 / (E I1)

    Metric: |K_44 l1^3 / (E I1) - 7.037|

    Reason: [W] prints 7.037 (4 digits): the closed form must round to it, |error| <= 5e-4

    Source: [W]; docs/rrrp-arm.md eq. (4.2)"""
    arm = RRRPArm()
    p = arm.params
    k = arm.K1y * p.l1**3 / p.EI1

    pe = p.p1y
    k_quad = quad(lambda s: (pe * (pe - 1) * s ** (pe - 2)) ** 2, 0, 1, limit=200)[0]
    return Outcome(abs(k - 7.037), details=[
        f"closed form p^2 (p-1)^2 / (2p-3) = {power_stiffness_factor(pe):.6f}",
        f"from the arm: K_44 l1^3 / (E I1) = {k:.6f}; adaptive quadrature {k_quad:.6f}"])


@case("spatial.lambda-fit-uniform", tolerance=1.6e-4, engines=("closed form",))
def lambda_fit_uniform(ctx):
    """Quantity: power-law exponent fitted to the first clamped-free mode of a uniform beam
        (the procedure of chrono_flex.formulations.rrrp_fit)

    Metric: |lambda - 1.5522|, for nine and for 401 samples

    Reason: [W] prints 1.5522 (half a unit of the last digit: 5e-5) and does not say how the
        mode was sampled; the least-squares exponent moves with the sample count by 1.1e-4
        (1.55206 for fine sampling, 1.55217 for nine samples)

    Source: [W]; docs/rrrp-arm.md eqs. (3.1), (3.4)"""
    b = clamped_free_roots(1)[0]
    s = (np.cosh(b) + np.cos(b)) / (np.sinh(b) + np.sin(b))
    rows, lams = [], []
    for n in (9, 401):
        x = np.linspace(0.0, 1.0, n)
        phi = np.cosh(b * x) - np.cos(b * x) - s * (np.sinh(b * x) - np.sin(b * x))
        lams.append(fit_exponent(x, phi / phi[-1]))
        rows.append(f"{n} equally spaced samples of eq. (3.4): lambda = {lams[-1]:.5f}")
    return Outcome(max(abs(v - 1.5522) for v in lams), details=rows)


@case("spatial.lambda-fit", tolerance=0.02, engines=("reference",))
def lambda_fit(ctx):
    """Quantity: lambda(a) of arms 2+3 from the project's FE modal analysis of the combined arm
        at nine extensions, against [W]'s fit 0.0167 a^2 - 0.0227 a + 1.4952

    Metric: max over the nine extensions of |lambda_FE(a) - lambda_W(a)|

    Reason: [W] does not give its FE model: with the end-effector mass m_B on the arm the
        fitted lambda moves by up to 0.039, so a reproduction can be expected within about
        half that; the mesh contributes < 1e-6 (12 vs 24 elements/m)

    Source: [W]; docs/rrrp-arm.md §3"""
    p = RRRPParams(lambda_coeffs="W-80/60-60/40")
    fit = fit_lambda(p)
    with_tip = fit_lambda(p, tip_mass=p.m_B)
    a = fit.extensions
    err = np.abs(fit.exponents - p.lam(a))
    rows = [f"a = {ai:.2f} m: lambda_FE = {lf:.4f}, lambda_W = {lw:.4f}, with m_B "
            f"{lt:.4f}; first mode {f:.3f} Hz"
            for ai, lf, lw, lt, f in zip(a, fit.exponents, p.lam(a), with_tip.exponents,
                                         fit.frequencies)]
    c, ct = fit.coeffs, with_tip.coeffs
    rows += [f"fit: lambda(a) = {c[0]:.4f} a^2 {c[1]:+.4f} a {c[2]:+.4f} "
             f"([W]: 0.0167 a^2 - 0.0227 a + 1.4952; with m_B on the arm "
             f"{ct[0]:.4f} a^2 {ct[1]:+.4f} a {ct[2]:+.4f})"]

    def plot(fig):
        ax = fig.add_subplot(1, 1, 1)
        aa = np.linspace(a[0], a[-1], 101)
        ax.plot(aa, p.lam(aa), "k-", label="[W]'s fit")
        ax.plot(a, fit.exponents, "o", label="FE first mode, arms only")
        ax.plot(aa, fit.lam(aa), "C0--", label="quadratic through them")
        ax.plot(a, with_tip.exponents, "s", mfc="none", label="FE, with m_B at the tip")
        ax.axhline(1.5, color="0.6", lw=0.8, ls=":")
        labels(ax, "extension a (m)", "lambda")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)

    return Outcome(float(err.max()), plot=plot, details=rows,
                   data=dict(coeffs=c, exponents=fit.exponents.tolist()))


@case("spatial.planar-special-case", tolerance=1e-8, engines=("reference",))
def planar_special_case(ctx):
    """Quantity: the RRRP arm moving in the horizontal plane (theta2 = theta3 = 0, out-of-plane
        modes and a held; arm 3 of negligible section, a = 0, gravity off) against the
        planar engine's two-link arm with the same power-law shapes ([W]'s 1.5522 and
        lambda(0)), joint mass m_A and payload m_B, joint 2 locked: mass matrix and
        right-hand side rows of theta1, q1y, q2y at 5 random states

    Metric: max relative difference of M and f

    Reason: the RRRP arm's velocity terms come from a central difference (error ~1e-10), its
        kinetic energy from 16 Gauss points on (x/L)^lambda products (1.7e-9 here, 1e-10
        with 32), and arm 3 keeps 1e-9 of arm 2's section

    Source: [W]; docs/rrrp-arm.md §2, docs/planar-link.md §4"""
    import chrono_flex as cf

    tiny = 1e-9
    p = RRRPParams(lambda_coeffs="W-geometry-2", stroke=(0.0, 0.5), gravity=0.0,
                   EI3=tiny * RRRPParams().EI2, rho_A3=tiny * RRRPParams().rho_A2)
    w = RRRPArm(p)
    a = 0.0
    arm = cf.PlanarArm(
        [cf.Link(p.l1, EI=p.EI1, rho_A=p.rho_A1, basis="power", power_exponents=(p.p1y,)),
         cf.Link(p.l2 + a, EI=p.EI2, rho_A=p.rho_A2, basis="power",
                 power_exponents=(float(p.lam(a)),))],
        [cf.RevoluteJoint(), cf.RevoluteJoint(hub_mass=p.m_A)],
        payload=cf.Payload(p.m_B, 0.0), gravity=False)
    rows_w = [0, 3, 5]                                   # theta1, q1y, q2y
    keep = [int(arm.joint_index[0])] + [int(i) for i in arm.elastic_index]
    rng = np.random.default_rng(2)
    worst_M = worst_f = 0.0
    for _ in range(5):
        th1, w1 = rng.normal(size=2)
        e, ed = 0.03 * rng.normal(size=2), 0.3 * rng.normal(size=2)
        eta = np.array([th1, 0, 0, e[0], 0, e[1], 0, a])
        eta_d = np.array([w1, 0, 0, ed[0], 0, ed[1], 0, 0])
        Mw = w.mass_matrix(eta)[np.ix_(rows_w, rows_w)]
        fw = w.forcing(0.0, eta, eta_d)[0][rows_w]
        M, f = arm.forcing(0.0, arm.coordinates([th1, 0.0], e), arm.coordinates([w1, 0.0], ed))
        Mp, fp = M[np.ix_(keep, keep)], f[keep]
        worst_M = max(worst_M, float(np.abs(Mw - Mp).max() / np.abs(Mp).max()))
        worst_f = max(worst_f, float(np.abs(fw - fp).max() / np.abs(fp).max()))
    return Outcome(max(worst_M, worst_f), details=[
        f"mass matrix: {worst_M:.2e}, right-hand side (velocity and elastic terms): "
        f"{worst_f:.2e} (relative to the largest entry)",
        f"lambda(0) = {p.lam(a):.4f} ([W]'s second fit), arm 2+3 length {p.l2 + a:g} m"])
