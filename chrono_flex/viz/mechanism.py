"""Planar pictures of a mechanism run: lines and boxes moving over time, as a GIF.

The arm renderer (:mod:`chrono_flex.viz.render`) draws a :class:`chrono_flex.Result`; a
Chrono scene with other bodies (a crank, a slider, a table, a payload) is drawn here from
what the scene recorded: for every frame, the points of each named polyline in the
plane. The writer, the frame selection and the atomic write are the arm renderer's
(:func:`~chrono_flex.viz.render.animation_writer`,
:func:`~chrono_flex.viz.render.save_animation`).
"""

import numpy as np

from .. import _checks as ck
from ..errors import ParameterError
from .render import DPI, animation_frames, animation_writer, save_animation


def _tracks(lines):
    """The polylines as float arrays (nt, npts, 2), all with the same nt."""
    if not isinstance(lines, dict) or not lines:
        raise ParameterError("lines", lines,
                             "must be a non-empty dict name -> (nt, npts, 2) points")
    out, nt = {}, None
    for name, pts in lines.items():
        a = np.asarray(pts, dtype=float)
        if a.ndim != 3 or a.shape[2] != 2 or a.shape[1] < 1:
            raise ParameterError(f"lines[{name!r}]", a.shape, "must have shape (nt, npts, 2)")
        if not np.all(np.isfinite(a)):
            raise ParameterError(f"lines[{name!r}]", "non-finite points", "must be finite")
        if nt is not None and a.shape[0] != nt:
            raise ParameterError(f"lines[{name!r}]", a.shape,
                                 f"must have {nt} frames like the others")
        nt = a.shape[0]
        out[name] = a
    return out, nt


class _MechanismScene:
    """One figure whose lines move to frame k on ``update(k)``."""

    def __init__(self, t, lines, styles, title, labels):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        self.t, self.lines, self.labels = t, lines, labels
        self.fig = Figure(figsize=(6.4, 4.0))
        FigureCanvasAgg(self.fig)
        ax = self.fig.add_subplot(1, 1, 1)
        allp = np.concatenate([a.reshape(-1, 2) for a in lines.values()])
        lo, hi = allp.min(axis=0), allp.max(axis=0)
        pad = 0.06 * max(hi - lo)
        ax.set_xlim(lo[0] - pad, hi[0] + pad)
        ax.set_ylim(lo[1] - pad, hi[1] + pad)
        ax.set_aspect("equal")
        ax.set_xlabel("x (m)")
        ax.set_ylabel("y (m)")
        ax.grid(alpha=0.3)
        self.artists = {}
        for name, a in lines.items():
            kw = dict(styles.get(name, {}))
            kw.setdefault("label", name)
            (self.artists[name],) = ax.plot(a[0, :, 0], a[0, :, 1], **kw)
        ax.legend(loc="upper right", fontsize=7)
        self.text = ax.text(0.02, 0.03, "", transform=ax.transAxes, va="bottom", fontsize=8)
        if title:
            ax.set_title(title, fontsize=9)

    def update(self, k):
        for name, a in self.lines.items():
            self.artists[name].set_data(a[k, :, 0], a[k, :, 1])
        extra = self.labels(k) if self.labels is not None else ""
        self.text.set_text(f"t = {self.t[k]:.3f} s" + (f"\n{extra}" if extra else ""))


def render_mechanism(t, lines, path, styles=None, title=None, labels=None, fps=20,
                     n_frames=100, dpi=DPI):
    """Write a GIF (or .mp4) of planar polylines moving over time.

    Args:
        t: output times (nt,), s.
        lines: {name: points (nt, npts, 2)}: each polyline at every output time, in the
            plane (m); drawn in this order, named in the legend.
        path: the file (.gif: Pillow; .mp4: ffmpeg); written atomically.
        styles: {name: keyword arguments of ``Axes.plot``} (colour, line width, marker).
        title: the figure's title.
        labels: callable(k) -> str, a line of text under the time for frame k.
        fps, n_frames: playback rate and the most frames (spread evenly over t).

    Returns ``path``.
    """
    t = np.asarray(t, dtype=float)
    tracks, nt = _tracks(lines)
    if t.ndim != 1 or len(t) != nt:
        raise ParameterError("t", t.shape, f"must be one time per frame ({nt})")
    if styles is not None and not isinstance(styles, dict):
        raise ParameterError("styles", styles, "must be a dict name -> plot keywords")
    if labels is not None and not callable(labels):
        raise ParameterError("labels", labels, "must be callable(k) -> str")
    writer = animation_writer(path, ck.positive("fps", fps))
    scene = _MechanismScene(t, tracks, styles or {}, title, labels)
    return save_animation(scene, writer, path, animation_frames(nt, n_frames), dpi)


def box_outline(centre, half, angle=0.0):
    """Closed outline (5, 2) of a rectangle: ``centre`` (2,), half sizes ``half`` (2,),
    turned by ``angle`` (rad)."""
    c, s = np.cos(angle), np.sin(angle)
    corners = (np.array([[-1, -1], [1, -1], [1, 1], [-1, 1], [-1, -1]])
               * np.asarray(half, dtype=float))
    return np.asarray(centre, dtype=float) + corners @ np.array([[c, s], [-s, c]])


__all__ = ["box_outline", "render_mechanism"]
