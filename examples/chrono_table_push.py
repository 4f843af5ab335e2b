"""A flexible link is lowered onto a table, then pushes a box along it (Chrono contact).

Problem: a link (L = 0.5 m, EI = 5 N m^2, rho A = 0.5 kg/m, four cubic elements, no
damping, gravity -Y) hangs forwards and down on a revolute joint from a carriage 0.4 m
above a table; both are prescribed (Chrono motors). Over 0.4 s the joint lowers the
link by 0.3 rad along a quintic smooth step, to where the rigid link's tip would sit
5 mm below the table top: the tip lands on the table and the link's compliance takes
the difference. Then the carriage draws back 0.25 m (0.4 s to 1.2 s, smooth step) and
the link, its tip sliding on the table, sweeps a low box (4 x 2.5 cm, 0.1 kg) that
stands under it 1.5 cm behind the tip, like a broom. NSC contact everywhere (friction
0.3, no restitution): spheres of 1 cm radius at the link's nodes
(:meth:`FlexibleLink.enable_contact
<chrono_flex.chrono.element.FlexibleLink.enable_contact>` for the element,
:meth:`BeamArm.enable_contact <chrono_flex.chrono.beam_scene.BeamArm.enable_contact>`
for Chrono's beams), linearised implicit Euler with ADMM at 2 ms
(:class:`chrono_flex.chrono.contact_scenes.TablePush`). Both formulations run.

Expected result: the tip touches down at about 0.3 s and presses on the table with
about 1.65 N; while the carriage draws it back the tip slides, the table's friction on
it 0.3 times the normal force. The tip meets the box at about 0.6 s and then pushes it
along, in touch (the box's centre a tip radius and half its width, 3 cm, from the tip),
so the contact force on the box is its mass times the carriage's acceleration; the box
moves 0.229 m, the travel less the gap at touch-down. The two formulations agree to
0.1 mm.

Run: ``python chrono_table_push.py [OUTPUT_DIR] [--t-end T] [--no-gif]``; the plot and
the GIF go to OUTPUT_DIR (default the current directory) and their absolute paths are
printed.
"""

import argparse
import os
import sys

import numpy as np

from chrono_flex.errors import PyChronoUnavailable

#: The step (s), the end of the run (s), GIF frames per simulated second.
STEP, T_END, FRAMES_PER_SECOND = 2e-3, 1.4, 25


def run(t_end=T_END, step=STEP, frame_every=None, formulations=("element", "beam"), **kw):
    """The scene in each formulation; returns {formulation: the record of
    :meth:`~chrono_flex.chrono.contact_scenes.TablePush.run`}; ``kw`` go to
    :class:`~chrono_flex.chrono.contact_scenes.TablePush`."""
    from chrono_flex.chrono.contact_scenes import TablePush

    return {f: TablePush(f, **kw).run(step, t_end, frame_every=frame_every)
            for f in formulations}


def plot(res, path):
    from matplotlib import pyplot as plt

    fig, ax = plt.subplots(3, 1, sharex=True, figsize=(7, 7.5))
    styles = {"element": dict(color="tab:blue"), "beam": dict(color="tab:orange", ls="--")}
    for f, r in res.items():
        t, st = r["t"], styles[f]
        ax[0].plot(t, r["carriage"], color="0.5", ls=st.get("ls", "-"),
                   label=f"carriage ({f})")
        ax[0].plot(t, r["tip"][:, 0], label=f"link tip ({f})", **st)
        ax[0].plot(t, r["box"][:, 0], color="tab:red", ls=st.get("ls", "-"),
                   label=f"box's centre ({f})")
        F = r["forces"].sum(axis=1)
        ax[1].plot(t, F[:, 1], label=f"normal ({f})", **st)
        ax[1].plot(t, F[:, 0], alpha=0.6, lw=1, color=st["color"], ls=":",
                   label=f"horizontal ({f})")
        ax[2].plot(t, r["box_force"][:, 0], label=f"{f}", **st)
    r = next(iter(res.values()))
    ax[2].plot(r["t"], r["box_mass"] * r["carriage_acceleration"], color="k", lw=3,
               alpha=0.25, label="box mass x carriage acceleration")
    ax[0].set_ylabel("x (m)")
    ax[1].set_ylabel("contact force on\nthe link (N)")
    ax[1].set_ylim(-1, 4)
    ax[2].set_ylabel("contact force on\nthe box, x (N)")
    ax[2].set_ylim(-1, 1)
    ax[2].set_xlabel("t (s)")
    for a in ax:
        a.axvline(res[next(iter(res))]["t_lower"], color="tab:green", lw=0.8, alpha=0.6)
        a.grid(alpha=0.3)
        a.legend(fontsize=7, loc="upper left")
    ax[0].set_title("flexible link lowered onto a table sweeps a box (NSC, friction 0.3; "
                    "green: the carriage starts)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_gif(res, path):
    from chrono_flex.viz.mechanism import render_mechanism

    e = res["element"] if "element" in res else next(iter(res.values()))
    nf = len(e["t_frames"])
    lines = {"table": np.tile(e["table"], (nf, 1, 1)), "box": e["box_outline"],
             "link (element)": e["link"]}
    styles = {"table": dict(color="0.4", lw=2), "box": dict(color="tab:red", lw=2),
              "link (element)": dict(color="tab:blue", lw=3, marker="o", ms=2)}
    if "beam" in res and "element" in res:
        lines["link (Chrono beams)"] = res["beam"]["link"]
        styles["link (Chrono beams)"] = dict(color="tab:orange", lw=1.5, ls="--")
    # the view: the table's top and what moves on it
    lines["table"] = np.clip(lines["table"], [-0.3, -0.05], [0.5, 0.0])
    return render_mechanism(e["t_frames"], lines, path, styles=styles,
                            title="flexible link lowered onto a table sweeps a box "
                                  "(NSC contact)", n_frames=nf)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output_dir", nargs="?", default=os.getcwd())
    parser.add_argument("--t-end", type=float, default=T_END)
    parser.add_argument("--no-gif", action="store_true", help="write the plot only")
    args = parser.parse_args(argv)
    folder = os.path.abspath(args.output_dir)
    try:
        res = run(args.t_end, frame_every=None if args.no_gif else 1.0 / FRAMES_PER_SECOND)
    except PyChronoUnavailable as exc:
        sys.exit(f"{os.path.basename(__file__)}: {exc}")
    for f, r in res.items():
        landed = r["forces"][:, -1, 1] > 1e-3
        pressed = (r["t"] > r["t_lower"] + 0.05) & (r["t"] < r["t_lower"] + 0.15)
        print(f"{f}: tip lands at {r['t'][np.argmax(landed)]:.3f} s, presses with "
              f"{r['forces'][pressed, -1, 1].mean():.3f} N; the box moves "
              f"{r['box'][-1, 0] - r['x_box0']:.4f} m")
    os.makedirs(folder, exist_ok=True)
    print(f"wrote {plot(res, os.path.join(folder, 'chrono_table_push.png'))}")
    if not args.no_gif:
        print(f"wrote {write_gif(res, os.path.join(folder, 'chrono_table_push.gif'))}")


if __name__ == "__main__":
    main()
