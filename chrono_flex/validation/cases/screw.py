"""The screw / recursive Newton-Euler formulation of [L] (docs/screw-recursion.md) against
the Lagrange model.

``formulations.screw-rigid-limit``: the 6x6 outward/inward recursions of a rigid chain
(chrono_flex.formulations.screw) against the joint rows of the Lagrange inverse dynamics at zero elastic
coordinates, rates and accelerations, on random states of revolute/prismatic chains with
hubs, sliders, payload and gravity. Both sides are exact: round-off only.

``formulations.screw-tree``: the same recursion on branched arms of rigid bodies
(chrono_flex.formulations.screw_tree) against Lagrange's equations of the tree.

``formulations.screw-weak-coupling``: [L]'s weak-coupling flexible inverse dynamics (rigid
wrenches -> clamped-free link deformation -> corrected joint torques) on a spin-up of a
slender link, against the exact mixed problem (PlanarArm.simulate with the joint motion
prescribed). The weak coupling is an approximation: it leaves out the centrifugal
softening theta_dot^2 M_e e of the exact elastic equation (and terms quadratic in e), so
its error relative to the flexible part of the torque is of order Omega^2/omega_1^2.
"""

import functools
import math

import numpy as np

from ..core import Outcome, case, labels

_SEED = 2024
CHAINS = ("R", "P", "RR", "RP", "PR", "RRR", "RPR", "PRR")
OMEGA, T_UP, T_END = 3.0, 1.5, 3.0
EIS = (10.0, 40.0)
RHO_A = 0.5


def random_arm(kinds, rng, basis="fem"):
    """A random gravity-loaded chain of joint ``kinds`` ("R"/"P" per link): hubs, sliders,
    payload (also used by tests/formulations/test_screw.py)."""
    import chrono_flex as cf

    links = [cf.Link(rng.uniform(0.4, 1.2), 2, EI=2.0, rho_A=rng.uniform(0.2, 1.0), basis=basis,
                     n_modes=2) for _ in kinds]
    joints = [cf.RevoluteJoint(hub_inertia=rng.uniform(0, 0.01), hub_mass=rng.uniform(0, 0.5),
                               angle_offset=rng.uniform(-1, 1)) if k == "R"
              else cf.PrismaticJoint(axis_angle=rng.uniform(-1, 1), link_angle=rng.uniform(0, 2),
                                     slider_mass=rng.uniform(0, 0.5)) for k in kinds]
    return cf.PlanarArm(links, joints, payload=cf.Payload(0.2, 0.003), gravity=True,
                        hub_inertia=0.02 if kinds[0] == "R" else 0.0)


def rigid_torque_error(arm, q, qd, qdd):
    """max |tau_screw - tau_Lagrange| / max |tau_Lagrange| of the rigid chain's joint
    torques at one state (the elastic coordinates zero)."""
    from chrono_flex.formulations import screw as sc

    Q = arm.inverse_dynamics(arm.coordinates(q), arm.coordinates(qd),
                             arm.coordinates(qdd))[arm.joint_index]
    tau = sc.rigid_inverse_dynamics(arm, q, qd, qdd)
    return float(np.max(np.abs(tau - Q)) / np.max(np.abs(Q)))


@case("formulations.screw-rigid-limit", tolerance=1e-13, engines=("reference",))
def screw_rigid_limit(ctx):
    """Quantity: joint torques/forces of rigid serial chains (R, P, RR, RP, PR, RRR, RPR, PRR;
        hubs, sliders, payload, gravity; 4 random states each, FEM and modes bases): screw
        recursive Newton-Euler vs Lagrange M q_dd - f at zero elastic coordinates

    Metric: max |tau_screw - tau_Lagrange| / max |tau_Lagrange| over all states

    Reason: both are exact for the rigid chain (Gauss rules integrate the rigid rod's
        degree-<=2 integrands exactly; the screw side uses m L/2, m L^2/3); what is left is
        round-off of O(10) operations: a few eps

    Source: Lin Ruilin 1995 (docs/screw-recursion.md section 3, step 1)"""
    from chrono_flex.formulations import screw as sc

    rng = np.random.default_rng(_SEED)
    worst, worst_flex, rows = 0.0, 0.0, []
    for kinds in CHAINS:
        e_chain = 0.0
        for basis in ("fem", "modes"):
            arm = random_arm(kinds, rng, basis)
            for _ in range(4):
                q, qd, qdd = (rng.normal(size=arm.n_joints) for _ in range(3))
                e_chain = max(e_chain, rigid_torque_error(arm, q, qd, qdd))
                E = [[0.05 * rng.normal(size=lk.n_coordinates) for _ in range(3)]
                     for lk in arm.links]
                full = [arm.coordinates(x, np.concatenate([e[k] for e in E]))
                        for k, x in enumerate((q, qd, qdd))]
                Qf = arm.inverse_dynamics(*full)[arm.joint_index]
                tf = sc.flexible_recursion(arm, q, qd, qdd, E).tau
                worst_flex = max(worst_flex, float(np.max(np.abs(tf - Qf)) / np.max(np.abs(Qf))))
        rows.append(f"{kinds}: {e_chain:.2e}")
        worst = max(worst, e_chain)
    return Outcome(worst, details=["per chain: " + ", ".join(rows),
                                   f"deformed-link recursion (step 3 of [L]) with a given "
                                   f"deformation vs Lagrange: {worst_flex:.2e} (also exact)"],
                   data=dict(flexible_recursion_error=worst_flex))


@functools.lru_cache(maxsize=None)
def _spin_up(EI):
    import chrono_flex as cf
    from chrono_flex import scenarios
    from chrono_flex.formulations import screw as sc

    arm = cf.PlanarArm([cf.Link(1.0, 3, EI=EI, rho_A=RHO_A)], payload=cf.Payload(0.1))
    motion = scenarios.spin_up(OMEGA, T_UP)
    exact = arm.simulate(T_END, joint_motion=motion, dt_out=0.01, method="Radau", rtol=1e-9, progress=False)
    weak = sc.weak_coupling(arm, motion, T_END, dt_out=0.01)
    w1 = 2 * math.pi * arm.natural_frequencies(1)[0]
    te = exact.joint_torque[:, 0]
    up = exact.t <= T_UP
    d_w = np.abs(weak.joint_torque[:, 0] - te)
    d_r = np.abs(weak.joint_torque_rigid[:, 0] - te)
    return dict(exact=exact, weak=weak, w1=w1, up=up, d_w=d_w, d_r=d_r,
                ratio=float(d_w[up].max() / d_r[up].max()), soft=OMEGA**2 / w1**2)


@case("formulations.screw-weak-coupling", tolerance=0.33, engines=("reference",))
def screw_weak_coupling(ctx):
    """Quantity: hub torque of a slender link (L = 1 m, rho A = 0.5 kg/m, EI = 10 and 40 N m^2,
        payload 0.1 kg) spun up to 3 rad/s in 1.5 s (Kane-Ryan-Banerjee profile), 3 s: [L]'s
        weak coupling vs the exact mixed problem, rigid model for scale

    Metric: max over t <= T of |tau_weak - tau_exact| / max |tau_rigid - tau_exact|
        (fraction of the flexible torque the weak coupling misses), EI = 10 N m^2

    Reason: the weak coupling drops the centrifugal softening theta_dot^2 M_e e, which
        changes the deformation at relative order Omega^2/omega_1^2 = 0.066 for EI = 10; 5x
        that (0.33) leaves room for the dynamic part of the response (measured factor ~3).
        After T the free vibration drifts in phase by the same softening and is reported,
        not bounded

    Source: Lin Ruilin 1995 (docs/screw-recursion.md section 3, steps 1-3)"""
    runs = {}
    for EI in EIS:
        ctx.note(f"EI = {EI:g}")
        runs[EI] = _spin_up(EI)
    details = []
    for EI, r in runs.items():
        details.append(
            f"EI = {EI:g}: omega_1 = {r['w1']:.2f} rad/s, Omega^2/omega_1^2 = {r['soft']:.3f}; "
            f"max |tau| = {np.max(np.abs(r['exact'].joint_torque)):.3f} N m; t <= T: rigid "
            f"error {r['d_r'][r['up']].max():.2e}, weak {r['d_w'][r['up']].max():.2e} N m "
            f"(ratio {r['ratio']:.3f}); whole run: rigid {r['d_r'].max():.2e}, weak "
            f"{r['d_w'].max():.2e} N m")
    a, b = runs[EIS[0]], runs[EIS[1]]
    k = math.log(EIS[1] / EIS[0])
    details.append(f"observed rate with EI over t <= T: rigid "
                   f"{math.log(a['d_r'][a['up']].max() / b['d_r'][b['up']].max()) / k:.2f} "
                   f"(theory 1), weak "
                   f"{math.log(a['d_w'][a['up']].max() / b['d_w'][b['up']].max()) / k:.2f} "
                   "(theory 2)")

    def plot(fig):
        ax = fig.add_subplot(2, 1, 1)
        t = a["exact"].t
        ax.plot(t, a["exact"].joint_torque[:, 0], color="k", lw=2.2, alpha=0.5,
                label="exact mixed problem (Lagrange)")
        ax.plot(t, a["weak"].joint_torque[:, 0], color="C0", lw=1.1, label="weak coupling [L]")
        ax.plot(t, a["weak"].joint_torque_rigid[:, 0], color="C3", lw=1.0, ls="--",
                label="rigid (screw recursion)")
        ax.axvline(T_UP, color="0.5", lw=0.8, ls="-.")
        ax.set_ylabel("hub torque (N m)")
        ax.set_title(f"spin-up to {OMEGA:g} rad/s, EI = {EIS[0]:g} N m^2", fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6)
        bx = fig.add_subplot(2, 1, 2, sharex=ax)
        for c, (EI, r) in zip(("C0", "C2"), runs.items()):
            bx.semilogy(t, r["d_w"] + 1e-12, color=c, lw=1.0, label=f"|weak - exact|, EI = {EI:g}")
            bx.semilogy(t, r["d_r"] + 1e-12, color=c, lw=0.8, ls="--",
                        label=f"|rigid - exact|, EI = {EI:g}")
        bx.axvline(T_UP, color="0.5", lw=0.8, ls="-.")
        bx.set_ylim(1e-5, 1.0)
        labels(bx, "t (s)", "torque error (N m)")
        bx.grid(alpha=0.3)
        bx.legend(fontsize=6, ncol=2)

    return Outcome(a["ratio"], plot=plot, details=details,
                   data={f"ratio_EI{EI:g}": r["ratio"] for EI, r in runs.items()})


@case("formulations.screw-tree", tolerance=1e-12, engines=("reference",))
def screw_tree(ctx):
    """Quantity: joint torques/forces of rigid trees (6 random trees of 3 to 8 bodies:
        branches, revolute and prismatic joints about random axes, random mounts and
        inertias, gravity; 4 random states each) by the screw recursion vs Lagrange's
        equations of the same tree; and the serial planar chains of
        formulations.screw-rigid-limit rebuilt as trees vs the chain recursion

    Metric: max |tau_screw - tau_Lagrange| / max |tau_Lagrange| over all states

    Reason: both are exact: complex-step Jacobians, a 24-point contour integral for J' q'
        (truncation ~ rho^24 / 24!), and O(100) operations per torque: a few hundred eps at
        most

    Source: Lin Ruilin 1995 (docs/screw-recursion.md section 5)"""
    from chrono_flex.formulations import screw as sc
    from chrono_flex.formulations.screw_tree import random_tree, tree_from_planar_arm

    rng = np.random.default_rng(_SEED)
    worst, rows = 0.0, []
    for k, n in enumerate((3, 4, 5, 6, 7, 8)):
        tree = random_tree(rng, n_bodies=n)
        e = 0.0
        for _ in range(4):
            q, qd, qdd = (rng.normal(size=tree.n) for _ in range(3))
            ref = tree.lagrange_inverse_dynamics(q, qd, qdd)
            tau = tree.inverse_dynamics(q, qd, qdd)
            e = max(e, float(np.max(np.abs(tau - ref)) / np.max(np.abs(ref))))
        branches = sum(len(c) > 1 for c in tree.children) + (sum(b.parent < 0 for b in tree.bodies) > 1)
        kinds = "".join("R" if b.kind == "revolute" else "P" for b in tree.bodies)
        rows.append(f"tree {k + 1}: {n} bodies ({kinds}), parents "
                    f"{[b.parent for b in tree.bodies]}, {branches} branch points: {e:.2e}")
        worst = max(worst, e)
    e_chain = 0.0
    for kinds in CHAINS:
        arm = random_arm(kinds, rng)
        tree = tree_from_planar_arm(arm)
        for _ in range(2):
            q, qd, qdd = (rng.normal(size=arm.n_joints) for _ in range(3))
            ch = sc.rigid_inverse_dynamics(arm, q, qd, qdd)
            e_chain = max(e_chain, float(np.max(np.abs(tree.inverse_dynamics(q, qd, qdd) - ch))
                                         / np.max(np.abs(ch))))
    rows.append(f"serial planar chains {', '.join(CHAINS)} as trees vs the chain recursion: "
                f"{e_chain:.2e}")
    return Outcome(max(worst, e_chain), details=rows)


# -- [L]'s four-joint robot: rigid vs weak-coupling flexible vs exact joint torques ---------
LIN_T, LIN_END = 1.0, 1.5
LIN_STROKE = (1.2, -1.5, 1.0, -0.8)          # rad, joints 1-4, rest to rest in LIN_T


def lin_robot(EI_upper=2.0e4):
    """A four-joint planar arm in the horizontal plane (SCARA-like: four parallel vertical
    joint axes, no gravity) with one slender flexible link, the parameters of
    docs/screw-recursion.md §5 ([L]'s own robot data are in a reference not at hand):
    upper arm 0.4 m (EI = ``EI_upper``, 2 kg/m), flexible forearm 0.8 m (EI = 80 N m^2,
    0.6 kg/m, 2 clamped-free modes as in [L]), wrist links 0.15 m and 0.1 m
    (EI = 500 N m^2, 0.5 kg/m), hubs at the joints, a 0.3 kg payload. The stiff links carry
    one mode each and stiffness-proportional damping beta = 2 ms, the forearm 1 ms."""
    import chrono_flex as cf

    stiff = dict(basis="modes", n_modes=1, damping_beta=2e-3)
    links = [cf.Link(0.4, EI=EI_upper, rho_A=2.0, **stiff),
             cf.Link(0.8, EI=80.0, rho_A=0.6, basis="modes", n_modes=2, damping_beta=1e-3),
             cf.Link(0.15, EI=500.0, rho_A=0.5, **stiff),
             cf.Link(0.1, EI=500.0, rho_A=0.5, **stiff)]
    joints = [cf.RevoluteJoint(hub_inertia=0.05), cf.RevoluteJoint(hub_mass=1.0, hub_inertia=2e-3),
              cf.RevoluteJoint(hub_mass=0.4, hub_inertia=5e-4),
              cf.RevoluteJoint(hub_mass=0.2, hub_inertia=2e-4)]
    return cf.PlanarArm(links, joints, payload=cf.Payload(0.3, 1e-3))


def lin_motion(t):
    """Cycloidal rest-to-rest move of all four joints by LIN_STROKE in LIN_T (zero rate and
    acceleration at both ends): (theta, theta_dot, theta_ddot)(t)."""
    s, w = np.array(LIN_STROKE), 2 * math.pi / LIN_T
    if t >= LIN_T:
        return s.copy(), 0 * s, 0 * s
    t = max(t, 0.0)
    return (s * (t / LIN_T - math.sin(w * t) / (2 * math.pi)), s * (1 - math.cos(w * t)) / LIN_T,
            s * w * math.sin(w * t) / LIN_T)


def lin_robot_run(EI_upper=2.0e4, t_end=LIN_END, dt_out=0.002, rtol=1e-8):
    """Exact mixed problem (PlanarArm.simulate with the joints prescribed), [L]'s weak
    coupling and its rigid step 1 on :func:`lin_robot`; errors over the move t <= LIN_T.
    Returns dict(exact, weak, order (screw.weak_coupling_order), ratio (per joint:
    max |tau_weak - tau_exact| / max |tau_rigid - tau_exact|), err_weak, err_rigid)."""
    from chrono_flex.formulations import screw as sc

    arm = lin_robot(EI_upper)
    exact = arm.simulate(t_end, joint_motion=lin_motion, dt_out=dt_out, method="Radau",
                         rtol=rtol * 0.1, progress=False)
    weak = sc.weak_coupling(arm, lin_motion, t_end, dt_out=dt_out, rtol=rtol, atol=rtol * 1e-2)
    move = exact.t <= LIN_T + 1e-12
    e_w = np.max(np.abs(weak.joint_torque - exact.joint_torque)[move], axis=0)
    e_r = np.max(np.abs(weak.joint_torque_rigid - exact.joint_torque)[move], axis=0)
    order = sc.weak_coupling_order(arm, lin_motion, LIN_T, link=1)
    return dict(arm=arm, exact=exact, weak=weak, order=order, ratio=e_w / e_r,
                err_weak=e_w, err_rigid=e_r, move=move)


@case("formulations.screw-four-joint", tolerance=0.10, engines=("reference",))
def screw_four_joint(ctx):
    """Quantity: joint torques of a four-joint planar arm with a flexible forearm
        (docs/screw-recursion.md section 5: upper arm 0.4 m EI 2e4, forearm 0.8 m EI 80 N
        m^2 with 2 modes, wrist 0.15 + 0.1 m, 0.3 kg payload), all joints moved rest to rest
        in 1 s: [L]'s weak coupling and its rigid step 1 against the exact mixed problem

    Metric: max over the joints of max_{t <= T} |tau_weak - tau_exact| / max_{t <= T}
        |tau_rigid - tau_exact| (fraction of the flexible torque missed)

    Reason: the weak coupling neglects terms of relative order eps = Omega^2/omega_1^2
        (centrifugal softening, 0.0013) + c_s/c_f (the upper arm's compliance at the forearm
        tip beside the forearm's own, 0.0095); the detuning eps/2 drifts the vibration in
        phase by eps omega_1 T/2 over the move: eps (1 + omega_1 T/2) = 0.101
        (screw.weak_coupling_order)

    Source: Lin Ruilin 1995 (docs/screw-recursion.md sections 3 and 5)"""
    ctx.note("EI upper arm = 2e4 and 2e3")
    runs = {EI: lin_robot_run(EI) for EI in (2.0e4, 2.0e3)}
    a, b = runs[2.0e4], runs[2.0e3]
    details = []
    for EI, r in runs.items():
        o = r["order"]
        details.append(
            f"EI upper = {EI:g}: omega_1 = {o['omega_1']:.2f} rad/s, softening "
            f"{o['softening']:.4f}, coupling {o['coupling']:.4f}, bound {o['bound']:.3f}; "
            "per joint rigid error " + ", ".join(f"{v:.3f}" for v in r["err_rigid"])
            + " N m, weak " + ", ".join(f"{v:.3f}" for v in r["err_weak"])
            + " N m, ratio " + ", ".join(f"{v:.3f}" for v in r["ratio"]))
    # [L]'s effect: the oscillation the rigid model lacks, at the forearm's frequency
    t, d = a["exact"].t, a["exact"].joint_torque[:, 1] - a["weak"].joint_torque_rigid[:, 1]
    spec = np.abs(np.fft.rfft((d - d.mean()) * np.hanning(d.size)))
    f_peak = float(np.fft.rfftfreq(d.size, t[1] - t[0])[np.argmax(spec)])
    details.append(f"exact - rigid torque on joint 2: spectral peak at {f_peak:.2f} Hz "
                   f"(first natural frequency {a['order']['omega_1'] / (2 * math.pi):.2f} Hz; "
                   f"resolution {1 / (t[-1] - t[0]):.2f} Hz)")
    details.append(f"softer upper arm (EI 2e3, the case's check that the coupling term "
                   f"dominates): worst ratio {b['ratio'].max():.3f} within its bound "
                   f"{b['order']['bound']:.3f}")
    if not np.all(b["ratio"] <= b["order"]["bound"]):
        return Outcome(float("inf"), details=details + ["EI 2e3 run exceeds its bound"])

    def plot(fig):
        r = a
        tt = r["exact"].t
        for j in range(4):
            ax = fig.add_subplot(4, 1, j + 1)
            ax.plot(tt, r["exact"].joint_torque[:, j], color="k", lw=2.2, alpha=0.45,
                    label="exact mixed problem (FEM/Lagrange)")
            ax.plot(tt, r["weak"].joint_torque[:, j], color="C0", lw=1.0, label="flexible, weak coupling [L]")
            ax.plot(tt, r["weak"].joint_torque_rigid[:, j], color="C3", lw=1.0, ls="--",
                    label="rigid (screw recursion)")
            ax.axvline(LIN_T, color="0.5", lw=0.8, ls="-.")
            ax.set_ylabel(f"tau_{j + 1} (N m)", fontsize=7)
            ax.grid(alpha=0.3)
            if j == 0:
                ax.legend(fontsize=6, ncol=3)
                ax.set_title("four-joint arm, flexible forearm: joint torques", fontsize=8)
        ax.set_xlabel("t (s)")

    return Outcome(float(a["ratio"].max()), plot=plot, details=details,
                   data=dict(ratio=a["ratio"].tolist(), bound=a["order"]["bound"],
                             ratio_soft=b["ratio"].tolist(), bound_soft=b["order"]["bound"],
                             f_peak=f_peak))
