"""A slider-crank whose connecting rod is a flexible link, in one Chrono system.

Problem: a rigid crank (radius 0.15 m, inertia 2e-3 kg m^2 about its pivot) turns at a
constant 2 pi rad/s, its angle prescribed by a ``ChLinkMotorRotationAngle`` to the
ground. The connecting rod (0.5 m, EI = 5 N m^2, rho A = 0.5 kg/m, 4 elements) is
carried by the crank, its joint a free revolute at the crank pin. ``--formulation``
chooses what the rod is made of: "element" (default), the papers' element as a
:class:`chrono_flex.chrono.FlexibleLink` whose tip is welded
(:meth:`~chrono_flex.chrono.FlexibleLink.attach`, stiffness ratio 100) to a small pin
body; or "beam", Chrono's own Euler beams (``ChElementBeamEuler``) with the pin welded
to the tip node by a ``ChLinkMateFix``. The pin (20 g) turns on a
``ChLinkLockRevolute`` in a 0.3 kg slider, which runs on a ``ChLinkLockPrismatic`` along
the world X axis. Gravity is off (the mechanism is horizontal). The run starts at top
dead centre (crank along X) with consistent velocities
(:class:`chrono_flex.chrono.scenes.SliderCrank`).

Expected result: the slider moves between l - r and l + r (0.35 and 0.65 m from the
pivot) once per revolution, within a fraction of a millimetre of the rigid mechanism;
the rod's midpoint bends off its chord by a fraction of a millimetre (its first
pinned-pinned mode, ~20 Hz, lies far above the 1 Hz crank); the element's weld stays
closed to about a micrometre (the beams' weld is an exact constraint); and the energy
balance closes: the motor's work equals the change of the mechanism's energy to ~1e-4
of the work, the integrator's accuracy at 1 ms. The two formulations agree within the
bound that validation case ``scene.slider-crank-formulations`` derives (at 2 Hz: the
slider to 2e-5 m, the midpoint to 15 % of its deflection, the element's step error and
the axial force's effect on the beams' bending being the largest parts).

Run: ``python chrono_flexible_slider_crank.py [OUTPUT_DIR] [T_END] [--formulation
element|beam] [--no-gif]``; the figure (and the GIF) go to OUTPUT_DIR (default the
current directory) and their absolute paths are printed.
"""

import argparse
import os
import sys

import numpy as np

from chrono_flex.errors import PyChronoUnavailable

#: Deflection exaggeration in the GIF (the rod bends by ~0.2 % of its length).
EXAGGERATION = 100.0
#: GIF frames per simulated second.
FRAMES_PER_SECOND = 40


def run(t_end=1.0, step=1e-3, stiffness_ratio=100.0, jacobian="auto", formulation="element",
        frame_every=None):
    """Simulate; returns a dict of arrays over the steps: t (s), crank (rad), slider (m,
    X of the slider; ``jacobian``: the element's, "auto" keeps it while Newton converges
    fast, docs/chrono.md §9), midpoint (m, the rod's midpoint off its chord), gap (m) and angle
    (rad) of the weld, energy (J: crank, rod, pin, slider and weld), motor_work (J),
    rigid_slider (m, the rigid mechanism's slider X at the same crank angle); with
    ``frame_every`` (s), frames: t_frames (s) and rod (nf, 21, 2) world points of the
    rod, crank_pin (nf, 2)."""
    from chrono_flex.chrono import scenes

    sc = scenes.SliderCrank(stiffness_ratio=stiffness_ratio, jacobian=jacobian,
                            formulation=formulation)
    every = None if frame_every is None else max(1, int(round(frame_every / step)))
    frames = []

    def read():
        row = sc.read()
        if every is not None and int(round(row[0] / step)) % every == 0:
            frames.append((row[0], sc.rod_points(), sc.crank_pin()[:2]))
        return row

    rows = np.array([read()] + list(scenes.run(sc.system, step, t_end, read)))
    t, power = rows[:, 0], rows[:, 7]
    work = np.concatenate([[0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(t))])
    out = dict(t=t, crank=rows[:, 1], slider=rows[:, 2], midpoint=rows[:, 3],
               gap=rows[:, 4], angle=rows[:, 5], energy=rows[:, 6], motor_work=work,
               rigid_slider=sc.rigid_slider(rows[:, 1]), formulation=sc.formulation)
    if frames:
        out.update(t_frames=np.array([f[0] for f in frames]),
                   rod=np.array([f[1] for f in frames]),
                   crank_pin=np.array([f[2] for f in frames]))
    return out


def exaggerated(rod, scale):
    """Rod points with their offset from the chord multiplied by ``scale``."""
    a, b = rod[:, :1, :], rod[:, -1:, :]
    u = (b - a) / np.linalg.norm(b - a, axis=2, keepdims=True)
    rel = rod - a
    along = np.sum(rel * u, axis=2, keepdims=True) * u
    return a + along + scale * (rel - along)


def write_gif(res, path):
    """The mechanism moving: crank, rod (deflection exaggerated), slider block."""
    from chrono_flex.viz.mechanism import box_outline, render_mechanism

    rod = exaggerated(res["rod"], EXAGGERATION)
    nf = len(res["t_frames"])
    crank = np.stack([np.zeros((nf, 2)), res["crank_pin"]], axis=1)
    slider = np.array([box_outline(p[-1], (0.04, 0.025)) for p in res["rod"]])
    guide = np.tile([[0.25, -0.03], [0.75, -0.03]], (nf, 1, 1))
    styles = {"crank": dict(color="0.3", lw=4, marker="o"),
              "rod": dict(color="tab:blue", lw=2.5,
                          label=f"rod ({res['formulation']}), deflection x{EXAGGERATION:g}"),
              "slider": dict(color="tab:red", lw=2), "guide": dict(color="0.6", lw=1)}
    k_of = np.searchsorted(res["t"], res["t_frames"] - 1e-12)
    mid = res["midpoint"][k_of]
    return render_mechanism(res["t_frames"], dict(guide=guide, crank=crank, rod=rod,
                                                  slider=slider), path, styles=styles,
                            title="flexible slider-crank",
                            labels=lambda k: f"midpoint off chord {mid[k] * 1e3:+.3f} mm",
                            n_frames=nf)


def plot(res, path):
    from matplotlib import pyplot as plt

    t = res["t"]
    balance = res["energy"] - res["energy"][0] - res["motor_work"]
    fig, ax = plt.subplots(3, 1, sharex=True, figsize=(7, 7))
    ax[0].plot(t, res["slider"], label=f"flexible rod ({res['formulation']})")
    ax[0].plot(t, res["rigid_slider"], "k:", label="rigid rod")
    ax[0].set_ylabel("slider x (m)")
    ax[0].legend(fontsize=7)
    ax[1].plot(t, res["midpoint"] * 1e3)
    ax[1].set_ylabel("rod midpoint off\nits chord (mm)")
    ax[2].plot(t, balance * 1e6, label="E - E0 - motor work (uJ)")
    ax[2].plot(t, res["gap"] * 1e6, label="weld gap (um)")
    ax[2].set_xlabel("t (s)")
    ax[2].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output_dir", nargs="?", default=os.getcwd())
    parser.add_argument("t_end", nargs="?", type=float, default=2.0)
    parser.add_argument("--formulation", choices=("element", "beam"), default="element")
    parser.add_argument("--no-gif", action="store_true", help="write the plot only")
    args = parser.parse_args(argv)
    folder = os.path.abspath(args.output_dir)
    try:
        res = run(t_end=args.t_end, formulation=args.formulation,
                  frame_every=None if args.no_gif else 1.0 / FRAMES_PER_SECOND)
    except PyChronoUnavailable as exc:
        sys.exit(f"{os.path.basename(__file__)}: {exc}")
    balance = res["energy"] - res["energy"][0] - res["motor_work"]
    print(f"{res['formulation']}: slider between {res['slider'].min():.4f} and "
          f"{res['slider'].max():.4f} m (rigid mechanism: off by at most "
          f"{np.max(np.abs(res['slider'] - res['rigid_slider'])) * 1e3:.4f} mm); "
          f"midpoint off the chord up to {np.max(np.abs(res['midpoint'])) * 1e3:.3f} mm; "
          f"weld gap up to {res['gap'].max():.2e} m, angle {res['angle'].max():.2e} rad; "
          f"energy balance error {np.max(np.abs(balance)):.2e} J "
          f"(motor work up to {np.max(np.abs(res['motor_work'])):.3e} J)")
    os.makedirs(folder, exist_ok=True)
    stem = "chrono_flexible_slider_crank" + ("" if args.formulation == "element" else "_beam")
    print(f"wrote {plot(res, os.path.join(folder, stem + '.png'))}")
    if not args.no_gif:
        print(f"wrote {write_gif(res, os.path.join(folder, stem + '.gif'))}")


if __name__ == "__main__":
    main()
