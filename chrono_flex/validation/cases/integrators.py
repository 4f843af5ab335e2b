"""Kozlowski's integrator sensitivity: explicit Runge-Kutta vs stiff integration of the
flexible double pendulum, as a measured table (cost and success)."""

import time

import numpy as np

import chrono_flex as cf
from chrono_flex import scenarios

from ..core import Outcome, case, observed_rate

METHODS = ("Radau", "BDF", "LSODA", "RK45", "DOP853", "RK23")
EXPLICIT = ("RK45", "DOP853", "RK23")


def _kozlowski_two(n, damping_beta):
    arm0, kw = scenarios.get("kozlowski-2link").arm_and_kwargs(t_end=0.05)
    base = scenarios.kozlowski_link(n)
    lk = cf.Link(base.length, n, EI=base.EI, rho_A=base.rho_A, thickness=base.thickness,
                 damping_beta=damping_beta)
    return cf.PlanarArm([lk, lk], joints=arm0.joints, payload=arm0.payload,
                        gravity=arm0.gravity), kw


def _lambda_max(arm, kw):
    """Largest |eigenvalue| of the arm linearised at its initial configuration."""
    q0 = arm.coordinates(kw["q0"])
    M, K, D = arm.mass_matrix(q0), arm.stiffness_matrix(), arm.damping_matrix()
    nq = arm.nq
    A = np.block([[np.zeros((nq, nq)), np.eye(nq)],
                  [-np.linalg.solve(M, K), -np.linalg.solve(M, D)]])
    return float(np.max(np.abs(np.linalg.eigvals(A))))


@case("integrators.kozlowski-table", tolerance=(0.9, 1.5), compare="window", engines=("reference",))
def kozlowski_table(ctx):
    """Quantity: cost (right-hand-side evaluations) and success of explicit (RK45, DOP853,
        RK23) and stiff (Radau, BDF, LSODA) integrators on [K]'s flexible double pendulum, n
        = 2, 4, 8 elements per link, stiffness-proportional damping beta = 1e-4 s, rtol =
        1e-4, 0.05 s

    Metric: RK45 evaluations at n = 8 / the stability-limited estimate 6 t_end |lambda_max|
        / 3.31

    Reason: an explicit method's step is bounded by stability: DOPRI5's interval on the
        negative real axis is 3.31 (Hairer & Wanner II, IV.2), 6 evaluations per step;
        lambda_max of the linearised arm grows as n^2 to n^4 with damping. Rejected steps of
        a controller hunting at the boundary add 10-50 %. A stiff method's step follows
        accuracy only, so it must also cost 5x less at n = 8

    Source: Kozlowski 1994 (explicit RK overflowing)"""
    ns, table = (2, 4, 8), {}
    for n in ns:
        arm, kw = _kozlowski_two(n, 1e-4)
        f_max = float(arm.natural_frequencies(arm.nq - 2).max())
        for m in METHODS:
            ctx.note(f"n = {n}, {m}")
            t0 = time.perf_counter()
            try:
                r = arm.simulate(**dict(kw, method=m, rtol=1e-4, max_nfev=200_000))
                table[n, m] = dict(ok=True, nfev=r.info["nfev"], wall=time.perf_counter() - t0,
                                   w=float(np.max(np.abs(r.tip_deflection))), f_max=f_max)
            except cf.SimulationError as exc:
                table[n, m] = dict(ok=False, nfev=None, wall=time.perf_counter() - t0,
                                   w=None, f_max=f_max, why=str(exc)[:120])
    for n in ns:
        for m in ("Radau", "BDF"):
            if not table[n, m]["ok"]:
                raise AssertionError(f"stiff method {m} failed at n = {n}: {table[n, m]['why']}")
    rk = [table[n, "RK45"]["nfev"] for n in ns]
    if any(v is None for v in rk):
        raise AssertionError("RK45 exceeded the evaluation budget: " + table[ns[-1], "RK45"]["why"])
    exponent = observed_rate(ns, rk)
    radau_exp = observed_rate(ns, [table[n, "Radau"]["nfev"] for n in ns])
    estimate = {n: 6 * 0.05 * _lambda_max(*_kozlowski_two(n, 1e-4)) / 3.31 for n in ns}
    if not table[8, "Radau"]["nfev"] * 5 < rk[-1]:
        raise AssertionError(f"Radau ({table[8, 'Radau']['nfev']}) is not 5x cheaper than "
                             f"RK45 ({rk[-1]}) at n = 8")
    lines = [f"{'n':>3} {'f_max (Hz)':>11} " + " ".join(f"{m:>16}" for m in METHODS),
             "    (evaluations / wall seconds; FAIL = stopped)"]
    for n in ns:
        cells = []
        for m in METHODS:
            c = table[n, m]
            cells.append(f"{c['nfev']:>8d}/{c['wall']:6.2f}s" if c["ok"] else f"{'FAIL':>16}")
        lines.append(f"{n:>3} {table[n, 'Radau']['f_max']:>11.0f} " + " ".join(cells))
    lines.append(f"cost exponent over n: RK45 {exponent:.2f}, Radau {radau_exp:.2f}")
    lines.append("stability-limited RK45 estimate 6 t_end |lambda_max| / 3.31: " +
                 ", ".join(f"n = {n}: {estimate[n]:.0f}" for n in ns) +
                 " (below the observed cost where accuracy, not stability, limits the step)")
    lines.append("without damping and at the case's rtol 1e-6 the released vibration excites "
                 "every mode, accuracy limits both families, and their costs are alike")

    def plot(fig):
        ax = fig.add_subplot(111)
        for m in METHODS:
            xs = [n for n in ns if table[n, m]["ok"]]
            ax.loglog(xs, [table[n, m]["nfev"] for n in xs], "o-" if m not in EXPLICIT else "s--",
                      label=m + (" (explicit)" if m in EXPLICIT else " (stiff)"))
        ax.loglog(ns, [estimate[n] for n in ns], "k:", label="RK45 stability limit")
        ax.set(xlabel="elements per link n", ylabel="right-hand-side evaluations",
               title="flexible double pendulum, 0.05 s, rtol 1e-4")
        ax.legend(fontsize=8)
    data = {f"{m}@n={n}": v for (n, m), v in table.items()}
    data["stability_estimate"] = {str(n): v for n, v in estimate.items()}
    return Outcome(rk[-1] / estimate[8], plot, details=lines, data=data)


@case("integrators.drive-time-step", tolerance=(0.9, 1.1), compare="window", engines=("drive",))
def drive_time_step(ctx):
    """Quantity: fixed-step (real-time) integration of the [S] drive, 12 V step, 10 ms:
        explicit Euler and RK4 at the stability bound h0 of GearDrive.max_stable_step and at
        h0/2, h0/4, against Radau at rtol 1e-11

    Metric: observed order of explicit Euler (max relative state error at 10 ms)

    Reason: Euler is first order; +-0.1 for the non-smooth backlash and friction switches
        crossed at step-dependent times. RK4 is reported (its order is capped near 2 by the
        same kinks at [S]'s parameters)

    Source: Serebrenny et al. 2019, eq. 29"""
    from chrono_flex.drive import DriveParams, GearDrive, simulate_drive, simulate_fixed

    d = GearDrive(DriveParams.serebrenny2019())
    T = 0.01
    ref = simulate_drive(d, T, drive_input=12.0, rtol=1e-11, atol=1e-13).states[-1]
    out = {}
    for method in ("euler", "rk4"):
        h0 = d.max_stable_step(method)
        hs = np.array([h0, h0 / 2, h0 / 4])
        errs = [float(np.max(np.abs(simulate_fixed(d, T, h, u=12.0, method=method).states[-1] - ref)
                             / (np.abs(ref) + 1e-12))) for h in hs]
        out[method] = (hs, errs, observed_rate(hs, errs))

    def plot(fig):
        ax = fig.add_subplot(111)
        for m, (hs, errs, rate) in out.items():
            ax.loglog(hs, errs, "o-", label=f"{m}: order {rate:.2f}")
        ax.set(xlabel="step h (s)", ylabel="max relative state error at 10 ms",
               title="fixed-step drive from its stability bound down")
        ax.legend()
    return Outcome(out["euler"][2], plot,
                   details=[f"{m}: h = {np.round(hs, 9).tolist()} s, errors "
                            f"{[f'{e:.2e}' for e in errs]}, order {r:.2f}"
                            for m, (hs, errs, r) in out.items()])
