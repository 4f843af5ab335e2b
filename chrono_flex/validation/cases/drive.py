"""The geared joint drive of docs/drive.md (Serebrenny, Boshlyakov, Ogorodnik 2019, [S]):
friction laws, backlash, DC motor, load-dependent friction, and the drive on a flexible link.

Closed forms used as the independent checks (written here, not taken from the package):

* Stribeck curves ([S] Table 1): Gaussian g(v) = Fc + (Fs - Fc) exp(-(v/vs)^2), Tustin
  exp(-|v|/vs), Lorentzian 1/(1 + (v/vs)^2); [S] eq. 3 shifts the curve by dv outside the
  linear zone |v| <= dv, where F = Fs v/dv.
* LuGre at constant v: dz/dt = 0 gives z = g(v) sign(v)/sigma0(v) and F = g(v) sign(v) +
  sigma2 v, whatever sigma0(v), sigma1(v) are (the modified model of [S] eqs. 9-12 too).
* Small presliding displacements: z ~ x, F ~ sigma0 x + sigma1 dx/dt (LuGre linearised
  about z = 0, [CW] 1995 section II).
* Slowly varying speed: z = z_ss - T_v dz_ss/dt + ..., T_v = g/(sigma0 |v|), so
  F ~ g(v) + (sigma1(v)/sigma0(v) - T_v) dg/dt: a lag for sigma1/sigma0 < T_v, a lead above.
* DC motor + rigid load: u = R i + k_E Omega1, k_M i = b Omega1 (steady state); the drive
  with friction="none", theta_b = 0 is linear, x' = A x + B u, its slowest eigenvalue is
  the mechanical time constant.
* Stick-slip, the ideal static model (stiction Fs, kinetic Fc + sigma2 v, vs -> 0): the
  spring extension s obeys m s'' + sigma2 s' + k s = Fc + sigma2 vp while slipping, from
  k s = Fs, s' = vp, until the mass stops (s' = vp); then k s rises at k vp back to Fs.
* Load-dependent friction ([S] eq. 20) in steady sliding, current-controlled motor:
  k_M i r = M1' = (1 + K_ML M1') g(W) + K_V2 W.
"""

import math

import numpy as np
from scipy.integrate import solve_ivp

from chrono_flex.drive import (DriveParams, GearDrive, LuGre, lorentzian, modified_coulomb,
                               modified_stribeck, simulate_drive, stribeck_curve)
from chrono_flex.scenarios.drive import CW1995

from ..core import Outcome, case, labels, tidy

P = DriveParams.serebrenny2019()
SOURCE = "Serebrenny, Boshlyakov, Ogorodnik 2019 (docs/drive.md); Canudas de Wit et al. 1995"


def _gauss(v, Fc, Fs, vs):
    """The Gaussian Stribeck magnitude, written out (independent of the package)."""
    return Fc + (Fs - Fc) * np.exp(-(np.asarray(v, dtype=float) / vs) ** 2)


# ---------------------------------------------------------------------------------------
# closed forms


@case("drive.static-friction-curves", tolerance=1e-14, engines=("drive",), source=SOURCE)
def static_friction_curves(ctx):
    """Quantity: static friction laws ([S] Table 1, eqs. 2-3) at characteristic speeds: 0, vs,
        dv/2, dv, dv + vs, 1e3 vs, both signs

    Metric: max |F - closed form| / Fs over 4 shapes x 13 points

    Reason: the laws are algebraic: only round-off of one exp/division (a few ulps of Fs,
        2.2e-16 each) separates them from the closed forms"""
    Fc, Fs, vs, dv = P.Mc, P.Ms, P.Omega2s, 0.5
    e1 = math.exp(-1.0)
    # g at v = 0, vs, 1e3 vs for each shape: exact values
    shapes = {"gaussian": (Fs, Fc + (Fs - Fc) * e1, Fc),
              "tustin": (Fs, Fc + (Fs - Fc) * e1, Fc + (Fs - Fc) * math.exp(-1e3)),
              "lorentzian": (Fs, Fc + (Fs - Fc) / 2.0, Fc + (Fs - Fc) / (1.0 + 1e6)),
              "generalized": (Fs, Fc + (Fs - Fc) * e1, Fc)}
    errs, rows = [], []
    for shape, (g0, g1, ginf) in shapes.items():
        got = stribeck_curve(np.array([0.0, vs, -vs, 1e3 * vs]), Fc, Fs, vs, shape, delta=1.7)
        exp = np.array([g0, g1, g1, ginf])
        # modified Stribeck, [S] eq. 3: line Fs v/dv inside, shifted curve outside, odd in v
        v = np.array([dv / 2, dv, dv + vs, -(dv + vs), -dv / 2, 0.0, dv + 1e3 * vs, 2 * dv])
        got_m = modified_stribeck(v, Fc, Fs, vs, dv, shape, delta=1.7)
        g_dv = {"gaussian": math.exp(-(dv / vs) ** 2), "tustin": math.exp(-dv / vs),
                "lorentzian": 1.0 / (1.0 + (dv / vs) ** 2),
                "generalized": math.exp(-(dv / vs) ** 1.7)}[shape]
        exp_m = np.array([Fs / 2, Fs, g1, -g1, -Fs / 2, 0.0, ginf, Fc + (Fs - Fc) * g_dv])
        e = np.max(np.abs(np.concatenate([got - exp, got_m - exp_m]))) / Fs
        errs.append(e)
        rows.append(f"{shape:11s}: g(0) = {got[0]:.6g}, g(vs) = {got[1]:.6g}, "
                    f"F(dv) = {got_m[1]:.6g} N m; max error {e:.2e} Fs")
    # modified Coulomb [S] eq. 2 and the Lorentzian helper at two points
    mc = modified_coulomb(np.array([dv / 4, -dv, 3 * dv]), Fc, dv)
    errs.append(np.max(np.abs(mc - np.array([Fc / 4, -Fc, Fc]))) / Fs)
    errs.append(abs(lorentzian(2 * vs, Fc, Fs, vs) - (Fc + (Fs - Fc) / 5)) / Fs)
    rows.append(f"modified Coulomb at dv/4, -dv, 3dv: {mc.tolist()} N m")

    def plot(fig):
        v = np.linspace(-3 * vs, 3 * vs, 1201)
        ax1, ax2 = fig.subplots(1, 2)
        for shape in shapes:
            ax1.plot(v, stribeck_curve(v, Fc, Fs, vs, shape, delta=1.7) * np.sign(v),
                     label=shape + (" (delta 1.7)" if shape == "generalized" else ""))
        ax1.plot([vs, -vs], [Fc + (Fs - Fc) * e1, -(Fc + (Fs - Fc) * e1)], "ko", ms=4,
                 label="closed form at +-vs (e^-1)")
        labels(ax1, "speed Omega2, rad/s", "friction torque, N m",
               "Stribeck curves g(v) sign(v), [S] Table 1")
        vz = np.linspace(-4 * dv, 4 * dv, 801)
        ax2.plot(vz, modified_stribeck(vz, Fc, Fs, vs, dv), label="modified Stribeck (eq. 3)")
        ax2.plot(vz, modified_coulomb(vz, Fc, dv), "--", label="modified Coulomb (eq. 2)")
        ax2.plot([-dv, dv], [-Fs, Fs], "ko", ms=4, label="+-Fs at +-dv (closed form)")
        labels(ax2, "speed Omega2, rad/s", "friction torque, N m",
               f"linear zone |v| <= dv = {dv} rad/s (enlarged)")
        tidy((ax1, ax2))

    return Outcome(max(errs), plot=plot, details=rows, data=dict(errors=errs))


@case("drive.lugre-steady-state", tolerance=1e-7, engines=("drive",), source=SOURCE)
def lugre_steady_state(ctx):
    """Quantity: steady sliding friction of the drive's modified LuGre and of the classic LuGre
        ([CW] 1995 parameters) at constant speed, 1e-2..1e2 vs, both signs, vs the Stribeck
        curve + viscous part

    Metric: max |F(40 T_v) - (g(v) sign v + sigma2 v)| / |g sign v + sigma2 v|

    Reason: z is integrated from 0 for 40 time constants T_v (transient e^-40 ~ 4e-18);
        Radau rtol 1e-10 on z leaves ~1e-10 relative, and sigma1 dz/dt at the end adds
        sigma1 T_v-scaled rounding; 1e-7 leaves a 1000x margin"""
    models = {"modified LuGre ([S] drive)": P.friction_model, "classic LuGre ([CW] 1995)":
              LuGre(**CW1995)}
    curves, worst, rows = {}, 0.0, []
    for name, m in models.items():
        vs_ = m.vs
        speeds = np.concatenate([-np.logspace(2, -2, 13), np.logspace(-2, 2, 13)]) * vs_
        F = []
        for v in speeds:
            T = float(m.time_constant(v))
            sol = solve_ivp(lambda t, y: [m.dzdt(float(v), float(y[0]))], (0.0, 40 * T), [0.0],
                            method="Radau", rtol=1e-10, atol=1e-16 * vs_ * T + 1e-300)
            F.append(float(m.force(float(v), float(sol.y[0, -1]))))
        F = np.array(F)
        closed = _gauss(np.abs(speeds), m.Fc, m.Fs, m.vs) * np.sign(speeds) + m.sigma2 * speeds
        e = np.abs(F - closed) / np.abs(closed)
        worst = max(worst, float(np.max(e)))
        curves[name] = (speeds, F, closed, e, m)
        rows.append(f"{name}: {speeds.size} speeds, max relative error {np.max(e):.2e}")
    ctx.note("done")

    def plot(fig):
        ax1, ax2 = fig.subplots(1, 2)
        for (name, (v, F, closed, e, m)), col in zip(curves.items(), ("C0", "C1")):
            pos = v > 0
            vv = np.logspace(-2, 2, 300) * m.vs
            ax1.semilogx(vv / m.vs, (_gauss(vv, m.Fc, m.Fs, m.vs) + m.sigma2 * vv) / m.Fc, "-",
                         color=col, label=f"closed form, {name}")
            ax1.semilogx(v[pos] / m.vs, F[pos] / m.Fc, "o", color=col, mfc="none",
                         label="LuGre after 40 T_v, v > 0")
            ax1.semilogx(-v[~pos] / m.vs, -F[~pos] / m.Fc, "x", color=col,
                         label="LuGre, v < 0 (mirrored)")
            ax2.loglog(np.abs(v) / m.vs, np.maximum(e, 1e-17), "o-", color=col, ms=3, label=name)
        labels(ax1, "|v| / vs (Stribeck speed)", "|F| / Fc",
               "steady-state friction = Stribeck curve + sigma2 v")
        ax2.axhline(1e-7, color="r", ls="--", label="tolerance")
        labels(ax2, "|v| / vs", "relative error", "error vs closed form")
        tidy((ax1, ax2), legend=6, which="both")

    return Outcome(worst, plot=plot, details=rows,
                   data={k: dict(v=c[0].tolist(), err=c[3].tolist()) for k, c in curves.items()})


@case("drive.motor-steady-state", tolerance=1e-7, engines=("drive",), source=SOURCE)
def motor_steady_state(ctx):
    """Quantity: steady speed and current of the [S] DC motor at 12 V driving the gear (no
        friction) with a viscous load K_V2 = 0.01 N m s/rad

    Metric: max relative error of (output speed, current) at t = 40 mechanical time
        constants

    Reason: closed form W = u k_M r / (k_E k_M r^2 + R K_V2), i = K_V2 W / (k_M r); the
        transient is e^-40 after 40 tau_m, Radau rtol 1e-9 leaves ~1e-9; 1e-7 gives margin
        for the gear oscillation's decay"""
    p = DriveParams.serebrenny2019(friction="none", K_V2=0.01)
    u, r = 12.0, p.ratio
    W = u * p.k_M * r / (p.k_E * p.k_M * r * r + p.R * p.K_V2)
    I = p.K_V2 * W / (p.k_M * r)
    tau_m = p.R * (p.J1 * r * r + p.J2) / (p.k_E * p.k_M * r * r + p.R * p.K_V2)
    # (rtol 1e-10 is not used: scipy's Radau fails on this system with its constant z state)
    res = simulate_drive(GearDrive(p), 40 * tau_m, drive_input=u, rtol=1e-9, atol=1e-11,
                         dt_out=tau_m / 50)
    o = res.outputs
    e_w = abs(o["output_speed"][-1] - W) / W
    e_i = abs(o["current"][-1] - I) / I
    rows = [f"closed form: W = {W:.8g} rad/s, i = {I:.8g} A (tau_m = {tau_m * 1e3:.4g} ms)",
            f"simulated:   W = {o['output_speed'][-1]:.8g} rad/s, i = {o['current'][-1]:.8g} A",
            f"relative errors: speed {e_w:.2e}, current {e_i:.2e}"]

    def plot(fig):
        ax1, ax2 = fig.subplots(1, 2)
        t = res.t * 1e3
        ax1.plot(t, o["output_speed"], label="simulated Omega2")
        ax1.axhline(W, color="k", ls="--", label="closed form W")
        ax1.set_ylabel("output speed, rad/s")
        a2 = ax1.twinx()
        a2.plot(t, o["current"], "C1", label="simulated current")
        a2.axhline(I, color="C1", ls=":", label="closed form i")
        a2.set_ylabel("current, A")
        ax1.set_xlabel("t, ms")
        ax1.legend(loc="center right", fontsize=7)
        a2.legend(loc="upper right", fontsize=7)
        ax1.set_title("12 V step, viscous load", fontsize=9)
        ax2.semilogy(t, np.abs(o["output_speed"] - W) / W, label="speed")
        ax2.semilogy(t, np.abs(o["current"] - I) / I, label="current")
        ax2.axhline(1e-7, color="r", ls="--", label="tolerance")
        labels(ax2, "t, ms", "|simulated - closed form| / closed form",
               "approach to the steady state")
        for a in (ax1, ax2):
            a.grid(True, alpha=0.3)
        ax2.legend(fontsize=7)

    return Outcome(max(e_w, e_i), plot=plot, details=rows,
                   data=dict(W=W, I=I, W_sim=float(o["output_speed"][-1]),
                             I_sim=float(o["current"][-1])))


def _linear_drive_matrix(p):
    """x = [i, alpha1, Omega1, alpha2, Omega2] of the drive with friction="none", theta_b = 0,
    K_V2 on the output, written from [S] eq. 24 (independent of the package)."""
    r, J1, J2, c, d = p.ratio, p.J1, p.J2, p.c, p.K_V1
    A = np.array([
        [-p.R / p.L, 0.0, -p.k_E / p.L, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0, 0.0],
        [p.k_M / J1, -c / (r * r * J1), -d / (r * r * J1), c / (r * J1), d / (r * J1)],
        [0.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, c / (r * J2), d / (r * J2), -c / J2, -(d + p.K_V2) / J2]])
    return A


@case("drive.motor-time-constant", tolerance=2e-3, engines=("drive",), source=SOURCE)
def motor_time_constant(ctx):
    """Quantity: decay rate of the output speed after a 12 V step (no friction, no backlash, no
        load): the drive's mechanical time constant

    Metric: |measured rate - slowest eigenvalue of the linear drive| / |eigenvalue|

    Reason: the rate is a least-squares slope of log(W_end - W) over 4-10 tau_m, where the
        next mode (gear oscillation, decay 248 1/s) has died to < 1e-6 and Radau's rtol 1e-9
        is < 1e-4 of the remaining difference; the two-pole rigid-gear formula differs by 1
        % (gear compliance), shown for information"""
    p = DriveParams.serebrenny2019(friction="none", theta_b=0.0)
    r = p.ratio
    lam = np.linalg.eigvals(_linear_drive_matrix(p))
    lam_slow = float(np.max(lam[np.abs(lam) > 1e-6].real))
    J = p.J1 + p.J2 / r**2
    tau_m = p.R * J / (p.k_E * p.k_M)
    quad = np.roots([p.L * J, p.R * J, p.k_E * p.k_M]).real
    t_end = 14 * tau_m
    res = simulate_drive(GearDrive(p), t_end, drive_input=12.0, rtol=1e-9, atol=1e-11,
                         dt_out=tau_m / 100)
    W = res.outputs["output_speed"]
    W_inf = 12.0 / (p.k_E * r)                     # no-load closed form
    win = (res.t > 4 * tau_m) & (res.t < 10 * tau_m)
    rate = float(np.polyfit(res.t[win], np.log(W_inf - W[win]), 1)[0])
    err = abs(rate - lam_slow) / abs(lam_slow)
    i = res.outputs["current"]
    k_e = int(np.argmax(i))
    rows = [f"measured decay rate {rate:.6g} 1/s (tau = {-1e3 / rate:.5g} ms)",
            f"slowest eigenvalue of the linear drive (gear compliance, L): {lam_slow:.6g} 1/s",
            f"two-pole rigid gear L J s^2 + R J s + k_E k_M = 0: {quad.max():.6g} 1/s; "
            f"textbook tau_m = R J / (k_E k_M) = {tau_m * 1e3:.5g} ms",
            f"electrical L/R = {p.L / p.R * 1e6:.4g} us; current peak {i[k_e]:.4g} A at "
            f"{res.t[k_e] * 1e3:.3g} ms (stall current u/R = {12 / p.R:.4g} A)"]

    def plot(fig):
        ax1, ax2 = fig.subplots(1, 2)
        t = res.t * 1e3
        ax1.plot(t, W, label="simulated Omega2")
        ax1.plot(t, W_inf * (1 - np.exp(-res.t / tau_m)), "k--",
                 label=f"W_inf (1 - e^(-t/tau_m)), tau_m = {tau_m * 1e3:.3g} ms")
        labels(ax1, "t, ms", "output speed, rad/s")
        a2 = ax1.twinx()
        a2.plot(t, i, "C1", lw=0.8, label="current")
        a2.set_ylabel("current, A")
        ax1.legend(fontsize=7, loc="center right")
        a2.legend(fontsize=7, loc="upper right")
        ax1.set_title("12 V step, no load", fontsize=9)
        ax2.semilogy(t, W_inf - W, label="simulated W_inf - Omega2")
        tt = res.t[win]
        ax2.semilogy(tt * 1e3, np.exp(np.polyval(np.polyfit(tt, np.log(W_inf - W[win]), 1), tt)),
                     "r--", lw=2, label=f"fit, rate {rate:.5g} 1/s")
        ax2.semilogy(t, (W_inf - W[win][0]) * np.exp(lam_slow * (res.t - tt[0])), "k:",
                     label=f"eigenvalue {lam_slow:.5g} 1/s")
        ax2.set_ylim(1e-6, 1e2)
        labels(ax2, "t, ms", "W_inf - Omega2, rad/s", "exponential tail (fit window 4-10 tau_m)")
        for a in (ax1, ax2):
            a.grid(True, which="both", alpha=0.3)
        ax2.legend(fontsize=7)

    return Outcome(err, plot=plot, details=rows,
                   data=dict(rate=rate, eigenvalue=lam_slow, rigid_gear=float(quad.max()),
                             tau_m=tau_m))
