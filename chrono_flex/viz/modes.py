"""Mode shapes of an arm (matplotlib): one panel per mode, a row per joint condition;
3D panels for a spatial arm's shapes.

Each panel draws the arm at rest (grey) and displaced by the mode at +-amplitude (the
shape of :class:`chrono_flex.planar.modes.Modes` is scaled to 1 at its largest point;
the amplitude is a fraction of the arm's reach, stated in the figure), with the
frequency in the panel's title.
"""

import numpy as np

from .plotting import save_figure
from .render import frame_box

#: Drawn amplitude of a mode as a fraction of the arm's reach.
AMPLITUDE = 0.15


def plot_modes(rows, path=None, title=None, amplitude=AMPLITUDE):
    """A figure of mode shapes: ``rows`` is a sequence of
    :class:`~chrono_flex.planar.modes.Modes` (e.g. joints locked, then free), each drawn
    as one row of panels. Returns the Figure; saves it to ``path`` when given."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = list(rows)
    n_cols = max(len(m.frequencies) for m in rows)
    fig = Figure(figsize=(2.6 * n_cols + 0.6, 2.4 * len(rows) + 0.8), dpi=100,
                 layout="constrained")
    FigureCanvasAgg(fig)
    dim = rows[0].centerline.shape[-1]               # 2: a planar arm, 3: a spatial one
    axes = fig.subplots(len(rows), n_cols, squeeze=False,
                        subplot_kw={"projection": "3d"} if dim == 3 else None)
    for r, modes in enumerate(rows):
        base = modes.centerline                          # (nl, ns, dim), m
        pts = base.reshape(-1, dim)
        reach = max(float(np.max(np.linalg.norm(pts, axis=1))), 1e-12)
        a = amplitude * reach
        for k in range(n_cols):
            ax = axes[r, k]
            if k >= len(modes.frequencies):
                ax.set_axis_off()
                continue
            for link in base:
                ax.plot(*link.T, color="0.6", lw=2.5, solid_capstyle="round")
            drawn = [base + sign * a * modes.shapes[k] for sign in (1.0, -1.0)]
            for lines, style in zip(drawn, ("-", "--")):
                for i, link in enumerate(lines):
                    ax.plot(*link.T, style, color=f"C{i}", lw=1.6)
            ax.plot(*np.zeros((dim, 1)), "ko", ms=4)
            ax.set_title(f"joints {modes.joints}: mode {k + 1}\n"
                         f"{modes.frequencies[k]:.4g} Hz", fontsize=9)
            if dim == 3:                # equal aspect, a flat direction given some depth
                p = np.concatenate([pts, *(d.reshape(-1, 3) for d in drawn)])
                lo, hi = p.min(axis=0), p.max(axis=0)
                frame_box(ax, 0.5 * (lo + hi), np.maximum(0.5 * (hi - lo), 0.1 * reach),
                          zoom=1.0)
            else:
                ax.set_aspect("equal", adjustable="datalim")
                ax.grid(True, alpha=0.3)
            ax.tick_params(labelsize=7)
        if dim == 2:
            axes[r, 0].set_ylabel("y (m)")
    for ax in axes[-1] if dim == 2 else ():
        ax.set_xlabel("x (m)")
    note = f"amplitude {amplitude:g} of the reach (solid +, dashed -); grey: at rest"
    fig.suptitle(f"{title}\n{note}" if title else note, fontsize=10)
    if path is not None:
        save_figure(fig, path, 110)
    return fig


__all__ = ["AMPLITUDE", "plot_modes"]
