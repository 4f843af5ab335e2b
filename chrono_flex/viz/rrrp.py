"""Headless 3D pictures and animations of the spatial RRRP arm (matplotlib mplot3d, Agg).

The arm is drawn from :meth:`chrono_flex.formulations.rrrp.RRRPArm.centerlines`, i.e. from the
model's own position function, with the elastic displacement exaggerated linearly:

    drawn = rigid + scale * (deformed - rigid)

(``rigid``: the same joint coordinates with the modal coordinates zero). Arm 1 (R1/R2 at
the origin to joint A) and arm 2 (A to its end) are thick blue lines, the telescopic arm
3 a thinner orange line over its whole range (its inner part runs inside arm 2), joint A
(m_A) a white disc and the end effector B (m_B) an orange square; the undeformed pose is
grey and dashed, its shadow and the arm's are faint lines on the floor of the box. The
frame states the time and, when ``scale != 1``, the exaggeration in red. Axis limits are
fixed over the run, the aspect is equal and Z (against gravity) is up.

Figures are plain :class:`matplotlib.figure.Figure` objects on an Agg canvas, not
registered with pyplot: nothing here opens a window or needs a display.
"""

import os

import numpy as np

from .. import _checks as ck
from ..errors import ParameterError
from .plotting import save_figure
from .render import (DPI, FIG_SIZE, animation_frames, animation_writer, format_scale,
                     frame_box, frame_index, nice_number, save_animation)

#: Largest true deflection drawn as this fraction of the arm's reach by the automatic scale.
TARGET_FRACTION = 0.05
_N_SAMPLES = 31            # centreline points per arm
_ARM_COLOR = "tab:blue"
_TELE_COLOR = "tab:orange"


def _check_inputs(arm, result):
    from ..formulations.rrrp import RRRPArm

    if not isinstance(arm, RRRPArm):
        raise ParameterError("arm", arm, "must be a chrono_flex.formulations.rrrp.RRRPArm")
    q = np.asarray(getattr(result, "q", None), dtype=float)
    if q.ndim != 2 or q.shape[1] != arm.n or q.shape[0] != len(result.t):
        raise ParameterError("result", result, "must be an RRRPResult of this arm "
                                               "(q of shape (nt, 8))")
    return q


def _lines(arm, result, scale, n_samples=_N_SAMPLES):
    """Centrelines of all output times (dict of (nt, ...) arrays, see RRRPArm.centerlines)."""
    return arm.centerlines(_check_inputs(arm, result), n_samples=n_samples, scale=scale)


def _reach(arm, result):
    """l1 + l2 + largest extension a of the run, m (the arm's length along its centreline)."""
    p = arm.params
    return p.l1 + p.l2 + float(np.max(np.asarray(result.q, dtype=float)[:, 7]))


def _true_deflection(arm, result):
    """Largest |deformed - rigid| over the arm's points at each output time (nt,), m."""
    c = _lines(arm, result, 1.0)
    d = [np.linalg.norm(c[key] - c["rigid"][key], axis=-1).max(axis=-1)
         for key in ("arm1", "arm2", "arm3")]
    return np.max(d, axis=0)


def suggest_spatial_scale(arm, result, fraction=TARGET_FRACTION):
    """An exaggeration that shows the run's largest deflection as ``fraction`` (default
    5 %) of the arm's reach l1 + l2 + max a, rounded like
    :func:`chrono_flex.viz.render.suggest_scale` to 1, 2 or 5 x 10^k and never below 1
    (larger deflections are shown at true size; a rigid run gives 1)."""
    fraction = ck.positive("fraction", fraction)
    dmax = float(np.max(_true_deflection(arm, result)))
    if not np.isfinite(dmax) or dmax <= 0.0:
        return 1.0
    return max(1.0, nice_number(fraction * _reach(arm, result) / dmax))


def max_deflection_frame(arm, result):
    """Output index of the largest true deflection."""
    return int(np.argmax(_true_deflection(arm, result)))


class _SpatialScene:
    """One figure whose artists are moved from frame to frame."""

    def __init__(self, arm, result, scale, title=None, view=None):
        self.arm, self.result = arm, result
        self.scale = float(suggest_spatial_scale(arm, result) if scale is None
                           else ck.non_negative("scale", scale))
        self.c = _lines(arm, result, self.scale)
        self.reach = _reach(arm, result)
        self._axes(view)
        self._artists()
        self._texts(title)

    def _axes(self, view):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        fig = Figure(figsize=(FIG_SIZE[0] * 1.15, FIG_SIZE[1]), dpi=DPI)
        FigureCanvasAgg(fig)
        ax = fig.add_axes((-0.05, -0.04, 1.1, 1.0), projection="3d")
        self.fig, self.ax = fig, ax
        c, r = self.c, self.c["rigid"]
        pts = np.concatenate([np.concatenate([d[k].reshape(-1, 3) for k in ("arm1", "arm2",
                                                                           "arm3")])
                              for d in (c, r)] + [np.zeros((1, 3))])
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        lo[2] -= 0.06 * self.reach                     # room for the base post
        centre, half = 0.5 * (lo + hi), 0.5 * (hi - lo) + 0.04 * self.reach
        half = np.maximum(half, 0.12 * self.reach)     # a flat axis still gets some depth
        self.lo, self.hi = centre - half, centre + half
        frame_box(ax, centre, half, zoom=1.2)
        ax.computed_zorder = False             # fixed layers: arm over ghost over floor
        if view is None:                       # oblique, from the side of the mean heading
            th1 = np.asarray(self.result.q, dtype=float)[:, 0]
            heading = float(np.degrees(np.arctan2(np.mean(np.sin(th1)),
                                                  np.mean(np.cos(th1)))))
            elev, azim = 28.0, heading - 62.0
        else:
            elev, azim = view
        ax.view_init(elev=elev, azim=azim)

    def _artists(self):
        ax, z0 = self.ax, self.lo[2]
        self.floor = z0
        line = lambda **kw: ax.plot([], [], [], **kw)[0]  # noqa: E731
        # shadows on the floor of the box (depth cue), then the ghost, then the arm
        self.shadow_ghost = line(color="0.75", lw=1.0, ls="--", zorder=1)
        self.shadow = line(color="0.55", lw=2.0, alpha=0.6, zorder=1.1)
        self.post = line(color="0.3", lw=6, solid_capstyle="butt", zorder=1.5)
        self.ghost = [line(color="0.45", lw=1.3, ls="--", zorder=2,
                           label="undeformed (rigid) pose" if i == 0 else None)
                      for i in range(3)]
        self.arm3 = line(color=_TELE_COLOR, lw=3.5, solid_capstyle="round", zorder=3,
                         label="arm 3 (telescopic)")
        self.arm12 = line(color=_ARM_COLOR, lw=6.5, solid_capstyle="round", zorder=3.5,
                          label="arms 1 and 2")
        self.base, = ax.plot([], [], [], ls="none", marker="o", ms=11, mfc="0.25", mec="k",
                             zorder=4, label="R1/R2")
        self.joint, = ax.plot([], [], [], ls="none", marker="o", ms=9, mfc="white", mec="k",
                              mew=1.3, zorder=4, label="joint A (R3, $m_A$)")
        self.tip, = ax.plot([], [], [], ls="none", marker="s", ms=9, mfc=_TELE_COLOR,
                            mec="k", zorder=4, label="end effector B ($m_B$)")

    def _texts(self, title):
        ax, tr = self.ax, self.ax.transAxes
        p = self.arm.params
        head = title if title is not None else (
            f"spatial RRRP arm  (l1 = {p.l1:g} m, l2 = {p.l2:g} m, l3 = {p.l3:g} m)")
        self.fig.text(0.5, 0.975, head, ha="center", va="top", fontsize=11)
        self.clock = ax.text2D(0.02, 0.985, "", transform=tr, ha="left", va="top",
                               fontsize=10, family="monospace")
        self.label = ax.text2D(0.02, 0.935, "" if self.scale == 1.0
                               else format_scale(self.scale), transform=tr, ha="left",
                               va="top", fontsize=10, color="tab:red", gid="scale_label")
        self.defl = ax.text2D(0.02, 0.885, "", transform=tr, ha="left", va="top",
                              fontsize=8, color="0.25")
        ax.legend(loc="upper right", fontsize=7, frameon=False, bbox_to_anchor=(1.0, 1.0))
        ax.text2D(0.02, 0.02, "gravity along -Z", transform=tr, ha="left",
                  va="bottom", fontsize=7, color="0.3")

    def update(self, k):
        c, r = self.c, self.c["rigid"]
        arm12 = np.concatenate([c["arm1"][k], c["arm2"][k]])
        self.arm12.set_data_3d(*arm12.T)
        self.arm3.set_data_3d(*c["arm3"][k].T)
        for line, key in zip(self.ghost, ("arm1", "arm2", "arm3")):
            line.set_data_3d(*r[key][k].T)
        floor = lambda a: (a[:, 0], a[:, 1], np.full(len(a), self.floor))  # noqa: E731
        self.shadow.set_data_3d(*floor(np.concatenate([arm12, c["arm3"][k]])))
        self.shadow_ghost.set_data_3d(*floor(np.concatenate([r["arm1"][k], r["arm2"][k],
                                                             r["arm3"][k]])))
        o = c["arm1"][k, 0]
        self.post.set_data_3d([o[0], o[0]], [o[1], o[1]], [o[2], self.floor])
        self.base.set_data_3d([o[0]], [o[1]], [o[2]])
        self.joint.set_data_3d(*c["joint_a"][k][:, None])
        self.tip.set_data_3d(*c["tip"][k][:, None])
        self.clock.set_text(f"t = {float(self.result.t[k]):.3f} s")
        true_tip = (c["tip"][k] - r["tip"][k]) / (self.scale or 1.0)
        if self.scale == 0.0:
            true_tip = np.zeros(3)
        self.defl.set_text("true tip offset  dx dy dz = "
                           + "  ".join(f"{1e3 * v:+.0f}" for v in true_tip) + " mm")
        self.k = k


def render_spatial_frame(arm, result, k=None, scale=None, path=None, *, time=None,
                         title=None, view=None, dpi=DPI):
    """Draw the RRRP arm at one output time in 3D; return the matplotlib Figure.

    Args:
        arm: the :class:`~chrono_flex.formulations.rrrp.RRRPArm` that produced ``result``.
        result: a :class:`~chrono_flex.formulations.rrrp.RRRPResult`.
        k: output index (negative counts from the end); None (and no ``time``): the frame
            of largest deflection.
        scale: exaggeration of the elastic displacement (>= 0; 0 draws the rigid pose);
            None picks :func:`suggest_spatial_scale`. Stated on the frame when != 1.
        path: save the figure there (format from the extension, e.g. .png).
        time: draw the output time nearest to this time, s (instead of ``k``).
        title: text over the picture. view: (elev, azim) in degrees.
        dpi: resolution of the saved file.
    """
    _check_inputs(arm, result)
    k = max_deflection_frame(arm, result) if k is None and time is None \
        else frame_index(result, k, time)
    scene = _SpatialScene(arm, result, scale, title=title, view=view)
    scene.update(k)
    if path is not None:
        save_figure(scene.fig, os.fspath(path), dpi)
    return scene.fig


def render_spatial_animation(arm, result, path, frames=60, scale=None, fps=15, *,
                             title=None, view=None, dpi=DPI):
    """Write an animation of the run to ``path`` (.gif with Pillow, .mp4 with ffmpeg).

    ``frames``: at most this many frames, evenly spread over the output times (None: all
    of them). ``scale`` as in :func:`render_spatial_frame`, one value for the whole
    animation. ``fps``: playback rate. Returns ``path``.
    """
    _check_inputs(arm, result)
    path = os.fspath(path)
    writer = animation_writer(path, fps)
    scene = _SpatialScene(arm, result, scale, title=title, view=view)
    return save_animation(scene, writer, path, animation_frames(len(result.t), frames), dpi)
