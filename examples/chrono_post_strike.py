"""A flexible link swings into a post and rebounds (Chrono contact along the link).

Problem: a link (L = 1 m, EI = 20 N m^2, rho A = 1 kg/m, four cubic elements, no
damping) turns freely about a vertical axis (no gravity) on a revolute joint at the
origin. It starts straight, 0.025 rad short of the X axis, turning at 0.5 rad/s, and
its tip meets a fixed post (NSC contact, frictionless, Newton restitution 0.5; a
sphere of 1 cm radius at the tip, :meth:`FlexibleLink.enable_contact
<chrono_flex.chrono.element.FlexibleLink.enable_contact>`). Linearised implicit Euler
with ADMM at 0.5 ms (:class:`chrono_flex.chrono.contact_scenes.PostStrike`). The same
scene runs with Chrono's beams (spheres at the nodes, consistent mass) for comparison.

Expected result: the tip strikes at t = 0.05 s, the link bends against the post and
its first mode (about 11 Hz pinned-free) throws it off again after a few touches; the
contact impulse is 0.261 N s in both formulations (to 1e-3 of each other) and the
link leaves turning backwards with 0.56 of the angular momentum it came with (a rigid
link would leave with the restitution, 0.5). The mechanical energy drops at each
contact and never rises (case ``scene.contact-post-energy``).

Run: ``python chrono_post_strike.py [OUTPUT_DIR] [--t-end T] [--no-gif]``; the plot
and the GIF go to OUTPUT_DIR (default the current directory) and their absolute paths
are printed.
"""

import argparse
import os
import sys

import numpy as np

from chrono_flex.errors import PyChronoUnavailable

#: The step (s), the end of the run (s) and GIF frames per simulated second (slowed
#: down: the strike lasts a tenth of a second).
STEP, T_END, FRAMES_PER_SECOND = 5e-4, 0.2, 400
#: The GIF draws y this many times larger than x (the link bends by about a centimetre).
Y_SCALE = 5.0


def run(t_end=T_END, step=STEP, frame_every=None):
    """Both formulations; returns {formulation: the record of
    :meth:`~chrono_flex.chrono.contact_scenes.PostStrike.run`}."""
    from chrono_flex.chrono.contact_scenes import PostStrike

    return {f: PostStrike(f).run(step, t_end, frame_every=frame_every)
            for f in ("element", "beam")}


def plot(res, path):
    from matplotlib import pyplot as plt

    fig, ax = plt.subplots(3, 1, sharex=True, figsize=(7, 7.5))
    styles = {"element": dict(color="tab:blue"), "beam": dict(color="tab:orange", ls="--")}
    for f, r in res.items():
        t = r["t"]
        ax[0].plot(t, -r["force"][:, 1], label=f"{f}", **styles[f])
        J = -np.cumsum(r["force"][:, 1]) * r["h"]
        ax[1].plot(t, J, label=f"{f}: impulse {J[-1]:.4f} N s", **styles[f])
        ax[2].plot(t, r["energy"] * 1e3, label=f"{f}: rebound {r['rebound']:.3f}",
                   **styles[f])
    ax[0].set_ylabel("contact force\non the tip (N)")
    ax[1].set_ylabel("contact impulse\nso far (N s)")
    ax[2].set_ylabel("mechanical\nenergy (mJ)")
    ax[2].set_xlabel("t (s)")
    for a in ax:
        a.grid(alpha=0.3)
        a.legend(fontsize=8, loc="best")
    ax[0].set_title("flexible link swinging into a post: the element and Chrono's beams "
                    "(NSC, e = 0.5)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_gif(res, path):
    from chrono_flex.viz.mechanism import render_mechanism

    e, b = res["element"], res["beam"]
    nf = len(e["t_frames"])
    # the post's face drawn where the centre line meets it (a sphere radius lower)
    post = np.tile(e["post"], (nf, 1, 1))
    face = e["post"][:, 1].min()
    post[:, :, 1] = np.where(post[:, :, 1] > face, 0.1, 0.0)
    lines = {"element": e["link"] * np.array([1.0, Y_SCALE]),
             "Chrono beams": b["link"] * np.array([1.0, Y_SCALE]),
             "post (face less the tip's radius)": post}
    styles = {"post (face less the tip's radius)": dict(color="0.3", lw=2),
              "element": dict(color="tab:blue", lw=3),
              "Chrono beams": dict(color="tab:orange", lw=1.5, ls="--")}
    k_of = np.searchsorted(e["t"], e["t_frames"] - 1e-12)
    touching = np.linalg.norm(e["force"], axis=1) > 1e-3
    return render_mechanism(e["t_frames"], lines, path, styles=styles,
                            title="flexible link swinging into a post (NSC contact; "
                                  f"y drawn {Y_SCALE:g} times larger)",
                            labels=lambda k: "in contact" if touching[k_of[k]] else "",
                            n_frames=nf, fps=10)


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
        print(f"{f}: contact impulse {-r['impulse'][1]:.5f} N s, rebound {r['rebound']:.4f}, "
              f"energy {r['energy'][0]:.5f} J -> {r['energy'][-1]:.5f} J")
    os.makedirs(folder, exist_ok=True)
    print(f"wrote {plot(res, os.path.join(folder, 'chrono_post_strike.png'))}")
    if not args.no_gif:
        print(f"wrote {write_gif(res, os.path.join(folder, 'chrono_post_strike.gif'))}")


if __name__ == "__main__":
    main()
