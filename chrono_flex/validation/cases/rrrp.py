"""The RRRP arm of [W] in two discretisations: [W]'s assumed modes
(chrono_flex.formulations.rrrp) and the project's spatial beam elements
(chrono_flex.formulations.rrrp_fem); docs/rrrp-arm.md §6.

``rrrp.fem-static``: the FEM arm held straight and horizontal, sagging under its own
weight (linear statics), against the unit-load closed form of the same stepped
cantilever; the assumed-modes sags and the Ritz check of their work are reported.

``rrrp.fem-vs-assumed-modes``: both models on one prescribed manoeuvre without gravity
(a slew of theta1 by 0.5 rad with theta2 up and theta3 down by 0.1 rad and arm 3 out
from 2.3 to 2.6 m in 6 s, quintic; the FEM arm laid out for the middle extension
2.45 m); the end effector's difference against the bound (6.3) derived from the two
models' first frequencies.

``rrrp.fem-chrono``: the FEM arm in Chrono through the custom element (its telescopic
joint prescribed like the others) against the reference engine on the first half of
that manoeuvre.
"""

import functools

import numpy as np

from ..core import Outcome, case, labels, step_error
from ...formulations import rrrp_fem as rf
from ...formulations.rrrp import ACTUATED, RRRPArm, RRRPParams

A_STATIC = 2.3
START = np.array([0.0, 0.2, -0.2, 2.3])
GOAL = np.array([0.5, 0.3, -0.3, 2.6])
#: the FEM arm's layout extension: the middle of the manoeuvre's, so its overlap is at
#: most 0.15 m off (docs/rrrp-arm.md §6: 0.34 % of the sag per 0.1 m)
A_LAYOUT = 0.5 * (START[3] + GOAL[3])
T_MOVE = 6.0
N_ELEMENTS = 3


@case("rrrp.fem-static", tolerance=1e-10, engines=("reference", "closed form"))
def fem_static(ctx):
    """Quantity: tip sag of the FEM RRRP arm held straight and horizontal (a = 2.3 m, 4
        elements per arm, linear statics under gravity) against the unit-load closed form of
        the stepped cantilever (arm 1, arm 2, both tubes over the overlap, arm 3; m_A and
        m_B)

    Metric: |delta_FEM - delta_closed| / delta_closed

    Reason: cubic Hermite elements with consistent loads are nodally exact for a beam whose
        sections change at nodes (every change is a node here): only round-off remains
        (~1e-15 relative; 1e-10 leaves room for the solve's conditioning)

    Source: [W]; docs/rrrp-arm.md §6; Timoshenko & Gere (unit-load method)"""
    p = RRRPParams(phi1z="power")
    fem = rf.fem_arm(p, a=A_STATIC, n_elements=4)
    joints = [0.4, 0.0, 0.0, A_STATIC]
    delta = rf.cantilever_sag(*rf.straight_arm_sections(p, A_STATIC), p.gravity)
    u = rf.linear_sag(fem, joints)
    W_fem = rf.fem_linear_work(fem, joints)
    rows = [f"closed form {delta:.6f} m, FEM {-u[2]:.6f} m (horizontal components "
            f"{abs(u[0]):.1e}, {abs(u[1]):.1e} m)"]
    for shape in ("power", "sine"):
        uA, WA = rf.am_linear_sag(RRRPArm(RRRPParams(phi1z=shape)), joints)
        rows.append(f"assumed modes, arm 1's z mode {shape}: sag {-uA[2]:.4f} m "
                    f"({-uA[2] / delta:.3f} of the FEM), gravity work {WA:.1f} J "
                    f"({WA / W_fem:.3f} of the FEM's {W_fem:.1f} J)")
    return Outcome(abs(-u[2] - delta) / delta, details=rows,
                   data=dict(delta=delta, fem=float(-u[2])))


@functools.lru_cache(maxsize=None)
def _comparison():
    # 8 Gauss points per arm for [W]'s mass integrals (smooth products of (x/L)^lambda):
    # B moves by 3e-8 m against 16; Radau's rtol 1e-3 moves it by 3e-5 m against 1e-4
    p = RRRPParams(phi1z="power", gravity=0.0, n_gauss=8)
    return rf.compare_manoeuvre(rf.fem_arm(p, a=A_LAYOUT, n_elements=N_ELEMENTS),
                                RRRPArm(p), rf.quintic_motion(START, GOAL, T_MOVE),
                                T_MOVE, goal=GOAL, n_out=121, rtol=1e-3)


@case("rrrp.fem-vs-assumed-modes", tolerance=1.0, engines=("reference",))
def fem_vs_assumed_modes(ctx):
    """Quantity: end effector B of the RRRP arm on a prescribed 6 s slew without gravity
        (theta1 0 -> 0.5 rad, theta2 0.2 -> 0.3, theta3 -0.2 -> -0.3 from the horizontal, a
        2.3 -> 2.6 m): FEM arm (3 elements per arm, laid out for a = 2.45 m) against [W]'s
        assumed modes (power-law z mode of arm 1)

    Metric: max over t of |r_B,FEM(t) - r_B,AM(t)| / B(t), with B(t) = (w_AM^2 - w_FEM^2) /
        w_FEM int_0^t |u_AM| dt (docs/rrrp-arm.md eq. (6.3))

    Reason: eq. (6.3) bounds the difference of two one-mode responses to the same load per
        unit modal mass from rest, the frequencies taken at their worst over the start and
        goal; it must hold (ratio <= 1) unless the models differ in more than their first
        frequency. The numerics are far below it: 4 elements per arm and Radau's rtol 1e-5
        instead of 3 and 1e-3 move B by < 1e-4 m of a 0.22 m difference; samples where B <
        1e-3 max B (the first instants) are left out

    Source: [W]; docs/rrrp-arm.md §6"""
    c = _comparison()
    D = c.difference
    keep = c.bound > 1e-3 * c.bound.max()
    ratio = D[keep] / c.bound[keep]
    k = int(np.argmax(ratio))
    uF, uA = (np.linalg.norm(u, axis=1) for u in (c.u_fem, c.u_am))
    rows = [f"first two joint-locked frequencies, start / goal: assumed modes "
            f"{c.f_am[0, 0]:.3f}, {c.f_am[0, 1]:.3f} / {c.f_am[1, 0]:.3f}, "
            f"{c.f_am[1, 1]:.3f} Hz; FEM {c.f_fem[0, 0]:.3f}, {c.f_fem[0, 1]:.3f} / "
            f"{c.f_fem[1, 0]:.3f}, {c.f_fem[1, 1]:.3f} Hz",
            f"max elastic displacement of B: FEM {uF.max():.4f} m, assumed modes "
            f"{uA.max():.4f} m; max difference {D.max():.4f} m",
            f"bound at the end B(T) = {c.bound[-1]:.4f} m; largest |difference| / B(t) "
            f"= {ratio[k]:.3f} at t = {c.t[keep][k]:.2f} s",
            f"wall: assumed modes {c.info['wall_am']:.1f} s, FEM {c.info['wall_fem']:.1f} s "
            f"({c.info['nfev_fem']} evaluations)"]

    def plot(fig):
        ax = fig.add_subplot(1, 2, 1)
        ax.plot(c.t, uF, label="|u_B| FEM")
        ax.plot(c.t, uA, label="|u_B| assumed modes")
        ax.plot(c.t, D, "k-", lw=1.5, label="|r_B,FEM - r_B,AM|")
        ax.plot(c.t, c.bound, "k:", label="bound B(t), eq. (6.3)")
        ax.set_ylim(0, 2.0 * max(D.max(), uF.max()))
        labels(ax, "t (s)", "m")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        bx = fig.add_subplot(1, 2, 2)
        for j, name in enumerate("XYZ"):
            bx.plot(c.t, c.u_fem[:, j], f"C{j}-", label=f"u_{name} FEM")
            bx.plot(c.t, c.u_am[:, j], f"C{j}--", label=f"u_{name} AM")
        labels(bx, "t (s)", "elastic displacement of B (m)")
        bx.grid(alpha=0.3)
        bx.legend(fontsize=6)

    return Outcome(float(ratio.max()), plot=plot, details=rows,
                   data=dict(f_am=c.f_am.tolist(), f_fem=c.f_fem.tolist(),
                             max_difference=float(D.max()), bound_end=float(c.bound[-1])))


#: The Chrono run: the first T_CHRONO s of the slew (the joints have their largest
#: acceleration at 0.21 T_MOVE and are at 79 % of their top speed at T_CHRONO) at
#: steps H_CHRONO and H_CHRONO / 2.
T_CHRONO, H_CHRONO, DT_CHRONO = 2.0, 0.01, 0.05


@functools.lru_cache(maxsize=None)
def _chrono_runs():
    from chrono_flex.chrono import SpatialFlexibleLink, step
    from chrono_flex.chrono.scenes import new_system

    p = RRRPParams(phi1z="power", gravity=0.0, n_gauss=8)
    fem = rf.fem_arm(p, a=A_LAYOUT, n_elements=N_ELEMENTS)
    motion = rf.quintic_motion(START, GOAL, T_MOVE)

    def fem_motion(s):
        return tuple(fem.joint_coordinates(v) for v in motion(s))

    eta0 = np.zeros(8)
    eta0[list(ACTUATED)] = motion(0.0)[0]
    q0 = fem.fem_coordinates(eta0)
    arm = fem.arm
    refs = [arm.simulate(T_CHRONO, q0=q0, joint_motion=fem_motion, dt_out=DT_CHRONO,
                         method="Radau", rtol=rtol, progress=False) for rtol in (1e-6, 1e-7)]

    def run(h):
        sys_ = new_system()
        el = SpatialFlexibleLink(sys_, arm, joint_motion=fem_motion,
                                 joint_angles0=q0[arm.joint_index],
                                 elastic0=q0[arm.elastic_index])
        every, out = int(round(DT_CHRONO / h)), [np.concatenate([el.tip_frames()[-1][0],
                                                                 el.joint_torques()])]
        for i in range(int(round(T_CHRONO / h))):
            step(sys_, h)
            if (i + 1) % every == 0:
                out.append(np.concatenate([el.tip_frames()[-1][0], el.joint_torques()]))
        return np.array(out)

    ys_ref = [np.column_stack([r.tip_position, r.joint_torque]) for r in refs]
    return ys_ref, run(H_CHRONO), run(H_CHRONO / 2)


@case("rrrp.fem-chrono", tolerance=1.0, engines=("reference", "chrono"), needs_pychrono=True)
def fem_chrono(ctx):
    """Quantity: end effector B and the four joint torques/force of the FEM RRRP arm (3
        elements per arm, its telescopic joint a ShaftsMotorPosition like the others) on the
        first 2 s of the prescribed slew, in Chrono through the custom element
        (SpatialFlexibleLink, HHT 10 ms) against the reference engine

    Metric: max over t and over B's position and each joint load of |y_Chrono - y_ref| /
        bound

    Reason: same equations in both engines: the bound is the time integration error 3 e(h),
        e(h) = 4/3 |y(h) - y(h/2)| (Richardson, order 2 of HHT with alpha = 0), plus the
        reference's own error, taken as 2 |y(rtol 1e-6) - y(rtol 1e-7)|

    Source: [W]; docs/rrrp-arm.md §6; docs/chrono.md §2"""
    (ref, ref_tight), y1, y2 = _chrono_runs()
    e_step = step_error(y1, y2)          # HHT with alpha = 0: order 2
    e_ref = 2.0 * np.max(np.abs(ref - ref_tight), axis=0)
    bound = 3.0 * e_step + e_ref + 1e-12 * np.max(np.abs(ref), axis=0)
    diff = np.max(np.abs(y1 - ref), axis=0)
    names = ["B_x", "B_y", "B_z", "tau1", "tau2", "tau3", "F_a"]
    return Outcome(float(np.max(diff / bound)), details=[
        f"{n}: max |Chrono - reference| {d:.2e} (bound {b:.2e}: step {3 * s:.1e}, "
        f"reference {r:.1e}); range {np.ptp(ref[:, k]):.3g}"
        for k, (n, d, b, s, r) in enumerate(zip(names, diff, bound, e_step, e_ref))],
        data=dict(diff=diff.tolist(), bound=bound.tolist()))
