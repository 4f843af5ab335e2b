"""The reference engine against Exudyn (an independent flexible multibody code).

Exudyn's results are stored in a source checkout's ``validation/exudyn/<problem>.npz``
(computed by ``validation/scripts/exudyn_references.py``; the problems are in
:mod:`chrono_flex.validation.exudyn_refs`); an installed package skips these cases with
the reason. Each case:

1. converges each code against itself at the matched resolution (the same cubic Hermite
   elements): Exudyn's stored time error (step h against h/2, Richardson 4/3) and
   discretisation error (n against 2n elements), and the reference engine's, measured
   here the same way with generalized-alpha at the same steps;
2. bounds what the two models leave different: the cable keeps its length and bends
   with the exact curvature w'' (1 + w'^2)^(-3/2), the reference link's tip stays at
   x = L and its elastic forces are those of w'' (with the second-order geometric
   stiffening), so (a) the tip moves inward by the foreshortening u_f = 1/2 int w'^2 dx,
   computed from the reference's own centrelines, (b) the terms dropped are of relative
   order eps = 3/2 max w'^2 of every measure's range, and (c) the cable's axial stretch
   N L / EA, with N <= (link and outboard mass) (g + omega_max^2 L);
3. compares the two at the matched resolution: every measure's difference must lie
   within the sum of both codes' convergence errors and the model bound.
"""

import numpy as np

from chrono_flex.chrono.corotational import section_properties

from ..core import Outcome, Skip, case
from ..exudyn_refs import DT_OUT, PROBLEMS, differences
from ..external import read_npz


def reference_run(name, n, step):
    """The reference engine on problem ``name`` with ``n`` elements per (first) link and
    generalized-alpha at ``step``; returns (the runs' dict as Exudyn's, Result)."""
    build, _, t_end, angles0, torque, _ = PROBLEMS[name]
    arm = build(n)
    kw = dict(t_end=t_end, dt_out=DT_OUT, q0=angles0, progress=False,
              method="generalized_alpha", step=step, n_samples=41)
    if torque is not None:
        kw["torque"] = torque
    res = arm.simulate(**kw)
    return dict(t=np.asarray(res.t), angles=np.asarray(res.joint_angles),
                tip=np.asarray(res.tip_position),
                deflections=np.asarray(res.tip_deflection)), res, arm


def slopes_and_foreshortening(res, arm):
    """max |w'| over each link and time, and max over time of each link's u_f =
    1/2 int w'^2 dx, from the result's centrelines (w: the deformed centreline's offset
    from the rigid one across the link's root direction)."""
    c = np.asarray(res.centerline)[..., :2]
    r = np.asarray(res.centerline_rigid)[..., :2]
    slope_max, uf_max = [], []
    for j, link in enumerate(arm.links):
        d = r[:, j, -1] - r[:, j, 0]
        d /= np.linalg.norm(d, axis=1)[:, None]
        nrm = np.column_stack([-d[:, 1], d[:, 0]])
        w = np.einsum("tsk,tk->ts", c[:, j] - r[:, j], nrm)
        x = np.linspace(0.0, link.length, w.shape[1])
        ws = np.gradient(w, x, axis=1)
        slope_max.append(float(np.max(np.abs(ws))))
        uf_max.append(float(np.max(0.5 * np.trapezoid(ws**2, x, axis=1))))
    return np.array(slope_max), np.array(uf_max)


def compare(name):
    ex = read_npz(f"exudyn/{name}.npz")
    n, h_exu = int(ex["n_elements"]), float(ex["step"])
    if float(ex["t_end"]) != PROBLEMS[name][2] or n != PROBLEMS[name][1]:
        raise Skip(f"validation/exudyn/{name}.npz is for another problem set-up "
                   f"(n = {n}, t_end = {float(ex['t_end'])}); regenerate it")
    h = 2 * h_exu
    coarse, _, _ = reference_run(name, n, h)
    fine, res, arm = reference_run(name, n, h / 2)
    refined, _, _ = reference_run(name, 2 * n, h / 2)
    d_time, d_space = differences(coarse, fine), differences(refined, fine)
    d = differences(fine, ex)
    slope, uf = slopes_and_foreshortening(res, arm)
    eps = 1.5 * float(np.max(slope)) ** 2
    omega = float(np.max(np.abs(np.gradient(np.cumsum(fine["angles"], axis=1), fine["t"],
                                            axis=0))))
    stretch = 0.0
    for j, link in enumerate(arm.links):
        outboard = sum(lk.rho_A * lk.length for lk in arm.links[j + 1:]) + arm.payload.mass
        N = (link.rho_A * link.length + outboard) * (arm.gravity + omega**2 * link.length)
        stretch += N * link.length / (section_properties(link).E * section_properties(link).A)
    tip_range = float(np.max(np.ptp(ex["tip"], axis=0)))
    rows, ratios, plotdata = [], [], []
    measures = [("tip", "tip position (m)", d["tip"], tip_range, float(np.sum(uf)) + stretch)]
    for j in range(ex["angles"].shape[1]):
        measures.append((f"angles[{j}]", f"joint {j + 1} angle (rad)", d["angles"][j],
                         float(np.ptp(ex["angles"][:, j])), 0.0))
    for j in range(ex["deflections"].shape[1]):
        measures.append((f"deflections[{j}]", f"link {j + 1} tip deflection (m)",
                         d["deflections"][j], float(np.max(np.abs(ex["deflections"][:, j]))),
                         0.0))
    for key, label, diff, span, extra in measures:
        base, _, idx = key.partition("[")
        k = int(idx[:-1]) if idx else 0
        pick = lambda a: float(np.atleast_1d(a)[k])  # noqa: E731
        conv = (pick(d_time[base]) * 4.0 / 3.0 + pick(d_space[base])
                + pick(ex[f"time_{base}"]) + pick(ex[f"space_{base}"]))
        model = eps * span + extra
        allowed = conv + model
        ratios.append(diff / allowed)
        rows.append(f"{label}: |reference - Exudyn| = {diff:.3g}; allowed {allowed:.3g} = "
                    f"convergence {conv:.3g} (reference time {pick(d_time[base]) * 4 / 3:.2g}, "
                    f"space {pick(d_space[base]):.2g}; Exudyn time "
                    f"{pick(ex['time_' + base]):.2g}, space {pick(ex['space_' + base]):.2g}) "
                    f"+ model {model:.3g}")
        plotdata.append((label, diff, conv, model))
    rows.append(f"model bound: max |w'| = {np.max(slope):.3g} (eps = {eps:.3g}), "
                f"foreshortening u_f = {', '.join(f'{u:.3g}' for u in uf)} m, axial "
                f"stretch <= {stretch:.2g} m; Exudyn {ex['exudyn_version']}, {n} elements, "
                f"step {h_exu:g} s (reference: the same elements and step)")

    def plot(fig):
        ax = fig.add_subplot(2, 1, 1)
        t = ex["t"]
        m = min(len(t), len(fine["t"]))
        for j in range(ex["angles"].shape[1]):
            ax.plot(t, ex["angles"][:, j], "-", color=f"C{j}", lw=2.5, alpha=0.4,
                    label=f"joint {j + 1}, Exudyn")
            ax.plot(fine["t"], fine["angles"][:, j], "--", color=f"C{j}",
                    label=f"joint {j + 1}, reference")
        ax.set(xlabel="t (s)", ylabel="joint angle (rad)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6, ncol=4, loc="lower center", bbox_to_anchor=(0.5, 1.0))
        ax2 = ax.twinx()
        ax2.plot(t[:m], 1e3 * (fine["deflections"][:m, 0]), "k-", lw=0.8)
        ax2.plot(t[:m], 1e3 * ex["deflections"][:m, 0], "k:", lw=1.5)
        ax2.set_ylabel("link 1 tip deflection (mm): ref -, Exudyn :", fontsize=7)
        ax = fig.add_subplot(2, 1, 2)
        k = np.arange(len(plotdata))
        ax.bar(k - 0.25, [p[1] for p in plotdata], 0.25, label="|reference - Exudyn|")
        ax.bar(k, [p[2] for p in plotdata], 0.25, label="both codes' convergence")
        ax.bar(k + 0.25, [p[3] for p in plotdata], 0.25, label="model bound")
        ax.set_yscale("log")
        ax.set_xticks(k, [p[0] for p in plotdata], fontsize=7)
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=7)

    return Outcome(float(np.max(ratios)), plot=plot, details=rows,
                   data=dict(ratios=ratios, eps=eps, foreshortening=uf.tolist()))


def _register(name, title):
    source = (f"Exudyn ANCF Cable2D, validation/exudyn/{name}.npz "
              "(validation/scripts/exudyn_references.py)")

    @case(f"exudyn.{name}",
          quantity=f"{title}: tip position, joint angles and tip deflections of the "
          "reference engine against Exudyn's ANCF cable at the matched resolution (the same "
          "elements, generalized-alpha at the same step)",
          tolerance=1.0, engines=("reference", "exudyn"), source=source)
    def run(ctx):
        """Metric: max over the measures of |reference - Exudyn| / (both codes' convergence
            errors + the model bound)

        Reason: each code converged against itself (time: step h vs h/2, Richardson 4/3 for
            second order; space: n vs 2n elements) bounds its own error; the models differ
            by the tip's foreshortening 1/2 int w'^2 dx (the reference keeps x = L), terms
            of relative order 3/2 w'^2 (exact vs second-order curvature) and the cable's
            axial stretch N L / EA; the difference must lie within the sum"""
        return compare(name)

    return run


_register("pendulum", "a flexible pendulum (Kozlowski's link) released horizontal under "
          "gravity, 1.5 s")
_register("tip-mass", "a torque-driven [B] link with a 0.1 kg tip mass (pulse 0.4 N m over "
          "2 s), 3 s")
_register("two-link", "[B]'s two-link flexible arm, payload 0.15 kg, torque pulses (0.2, "
          "0.05) N m over 2 s, 3 s")
