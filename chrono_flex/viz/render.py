"""Headless 3D pictures and animations of a deforming arm (matplotlib mplot3d, Agg).

Every picture is drawn from the :class:`~chrono_flex.result.Result` centrelines alone, so
all engines look alike:

    drawn = centerline_rigid + scale * (centerline - centerline_rigid)

``scale`` exaggerates the elastic deformation (the label on every frame states it);
:func:`suggest_scale` picks one that makes the largest deflection about 10 % of the arm.
Links are shaded tubes coloured by the surface bending strain h/2 w'' or by the true
(unexaggerated) |deflection|; the undeformed arm is a translucent grey ghost, the arm
plane a faint gridded rectangle with its x/y axes, joints and hub are markers and the
last tip (the payload, if any) a square. Axis limits are fixed for the whole run and the aspect
is equal, so frames neither jump nor distort.

Figures are plain :class:`matplotlib.figure.Figure` objects on an Agg canvas, not
registered with pyplot: nothing here opens a window or needs a display.
"""

import math
import os
import shutil

import numpy as np

from .. import _checks as ck
from .._files import atomic_path
from ..errors import ParameterError
from ..planar.params import Plane
from ..stepping import Progress
from .plotting import save_figure

#: What the tubes can be coloured by.
COLOR_BY = ("strain", "deflection")

_TUBE_SIDES = 10          # facets around a tube
_MAX_SAMPLES = 41         # centreline points drawn per link (more are subsampled)
_MIN_TUBE_RADIUS = 0.012  # drawn tube radius floor, fraction of the arm length
FIG_SIZE = (8.0, 6.0)    # inches; 800 x 600 pixels at the default dpi
DPI = 100


# ----------------------------------------------------------------------------- helpers

def frame_box(ax, centre, half, zoom):
    """Limits, ticks, labels (m) and an equal aspect for a 3D axes showing the box
    ``centre`` +- ``half`` (3,)."""
    from matplotlib.ticker import MaxNLocator

    for name, c, h in zip("xyz", centre, half):
        getattr(ax, f"set_{name}lim")(c - h, c + h)
        ax.tick_params(axis=name, labelsize=7, pad=0)
        nbins = int(np.clip(np.round(8 * h / half.max()), 2, 6))
        getattr(ax, f"{name}axis").set_major_locator(MaxNLocator(nbins))
        getattr(ax, f"set_{name}label")(f"{name.upper()} (m)", fontsize=8, labelpad=1)
        getattr(ax, f"{name}axis").set_pane_color((0.97, 0.97, 0.97, 1.0))
    try:                                  # equal aspect: box edges ~ axis ranges
        ax.set_box_aspect(tuple(2 * half), zoom=zoom)
    except TypeError:                     # matplotlib < 3.6 has no zoom
        ax.set_box_aspect(tuple(2 * half))


def nice_number(x, mantissas=(1.0, 2.0, 5.0)):
    """The number m * 10^k (m in ``mantissas``) nearest to x > 0 on a log scale."""
    k = math.floor(math.log10(x))
    cands = [m * 10.0**e for e in (k - 1, k, k + 1) for m in mantissas]
    return min(cands, key=lambda c: abs(math.log(c / x)))


def checked_centerlines(result):
    """(centerline, centerline_rigid) as float arrays (nt, nl, ns, 3), or raise."""
    c, r = result.centerline, result.centerline_rigid
    for name, a in (("result.centerline", c), ("result.centerline_rigid", r)):
        if a is None:
            raise ParameterError(name, None, f"is needed to draw the arm in 3D (engine "
                                             f"{result.engine!r} did not fill it)")
    c, r = np.asarray(c, dtype=float), np.asarray(r, dtype=float)
    nt = len(result.t)
    if c.ndim != 4 or c.shape[0] != nt or c.shape[3] != 3 or c.shape[2] < 2:
        raise ParameterError("result.centerline", f"array of shape {c.shape}",
                             f"must have shape (nt={nt}, nlinks, ns>=2, 3)")
    if r.shape != c.shape:
        raise ParameterError("result.centerline_rigid", f"array of shape {r.shape}",
                             f"must have the shape of centerline {c.shape}")
    return c, r


def arm_length(result):
    """Sum of the link lengths, m, measured along the undeformed centrelines at t[0]."""
    _, r = checked_centerlines(result)
    return float(np.sum(np.linalg.norm(np.diff(r[0], axis=1), axis=-1)))


def max_deflection_frame(result):
    """Index of the output time with the largest |centerline - centerline_rigid|."""
    c, r = checked_centerlines(result)
    d = np.linalg.norm(c - r, axis=-1).reshape(len(result.t), -1)
    return int(np.argmax(np.max(d, axis=1)))


def suggest_scale(result):
    """An exaggeration that shows the largest deflection as about 10 % of the arm length.

    The raw factor 0.1 * arm_length / max|centerline - centerline_rigid| is rounded to the
    nearest 1, 2 or 5 x 10^k (on a log scale). It is never below 1: deflections already
    larger than ~10 % of the arm are shown at true size. A rigid run gives 1.
    """
    c, r = checked_centerlines(result)
    dmax = float(np.max(np.linalg.norm(c - r, axis=-1)))
    if not np.isfinite(dmax) or dmax <= 0.0:
        return 1.0
    return max(1.0, nice_number(0.1 * arm_length(result) / dmax))


def _check_scale(scale):
    return ck.non_negative("scale", scale)


def frame_index(result, k=None, time=None):
    """Output index for a frame index ``k`` (negative counts from the end) or the output
    time nearest to ``time`` (s); neither: the frame of largest deflection."""
    nt = len(result.t)
    if k is not None and time is not None:
        raise ParameterError("time", time, f"cannot be given together with k={k!r}")
    if time is not None:
        t = ck.real("time", time)
        t0, t1 = float(result.t[0]), float(result.t[-1])
        slack = 1e-9 * max(abs(t1 - t0), 1.0)   # round-off in times computed by the caller
        if not t0 - slack <= t <= t1 + slack:
            raise ParameterError("time", time, f"must lie in the run [{t0:.6g}, {t1:.6g}] s")
        return int(np.argmin(np.abs(np.asarray(result.t) - t)))
    if k is None:
        return max_deflection_frame(result)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise ParameterError("k", k, "must be an integer frame index")
    if not -nt <= k < nt:
        raise ParameterError("k", k, f"must be a frame index in [{-nt}, {nt - 1}] "
                                     f"({nt} output times)")
    return int(k) % nt


def _view_angles(normal):
    """(elev, azim) in degrees: matplotlib's default view, tilted towards the plane normal
    until the line of sight is at most 55 degrees from it (the arm is never seen edge-on)."""
    c = np.array([math.cos(math.radians(30)) * math.cos(math.radians(-60)),
                  math.cos(math.radians(30)) * math.sin(math.radians(-60)),
                  math.sin(math.radians(30))])
    n = np.asarray(normal, dtype=float)
    n = n if n @ c >= 0 else -n
    limit = math.radians(55.0)
    if math.acos(min(1.0, n @ c)) > limit:
        u = c - (n @ c) * n
        u /= np.linalg.norm(u)
        c = math.cos(limit) * n + math.sin(limit) * u
    return math.degrees(math.asin(np.clip(c[2], -1, 1))), math.degrees(math.atan2(c[1], c[0]))


def format_scale(scale):
    s = f"{scale:g}"
    return f"deformation x {s}" + (" (true size)" if scale == 1.0 else "")


# ------------------------------------------------------------------------------- scene

class _Scene:
    """One figure whose artists are moved from frame to frame (never re-created).

    Built in steps: the data of the whole run (:meth:`_data`), the fixed limits and view
    (:meth:`_axes`), the static arm plane (:meth:`_plane_artists`), then the moving
    artists and texts; :meth:`update` moves them to one output time.
    """

    def __init__(self, result, scale, color_by, ax=None, title=None, view=None):
        self.result = result
        self.scale = _check_scale(scale)
        ck.choice("color_by", color_by, COLOR_BY)
        label = self._data(color_by)
        self._axes(ax, view)
        self._plane_artists()
        self._moving_artists()
        self._texts(title, label)

    def _data(self, color_by):
        """Subsampled centrelines, colour values, tube radii; return the colour-bar label."""
        from matplotlib import colormaps
        from matplotlib.colors import Normalize

        result = self.result
        c, r = checked_centerlines(result)
        ns = c.shape[2]
        idx = np.unique(np.linspace(0, ns - 1, min(ns, _MAX_SAMPLES)).round().astype(int))
        self.rigid = r[:, :, idx]                       # (nt, nl, m, 3)
        self.defl = c[:, :, idx] - self.rigid
        if color_by == "strain":
            strain = result.bending_strain
            if strain is None:
                raise ParameterError("color_by", color_by,
                                     f"needs result.curvature, which engine {result.engine!r} "
                                     f"did not fill; use color_by='deflection'")
            self.value = 1e6 * np.asarray(strain, dtype=float)[:, :, idx]     # microstrain
            vmax = float(np.max(np.abs(self.value))) or 1.0
            self.norm, self.cmap = Normalize(-vmax, vmax), colormaps["coolwarm"]
            label = "bending strain  h/2 w''  (µε)"
        else:
            self.value = 1e3 * np.linalg.norm(self.defl, axis=-1)              # mm
            vmax = float(np.max(self.value)) or 1.0
            self.norm, self.cmap = Normalize(0.0, vmax), colormaps["viridis"]
            label = "|deflection|, true size (mm)"

        plane = result.plane or Plane()      # a spatial arm's result: the ground is z = 0
        self.n = np.asarray(plane.normal, dtype=float)
        self.ex, self.ey, self.origin = (np.asarray(v, dtype=float) for v in
                                         (plane.x_axis, plane.y_axis, plane.origin))
        self.length = float(np.sum(np.linalg.norm(np.diff(r[0], axis=1), axis=-1)))
        self.reach = self.length if self.length > 0 else 1.0
        nl = self.rigid.shape[1]
        h = (np.full(nl, self.reach / 100.0) if result.link_thickness is None
             else np.asarray(result.link_thickness, dtype=float))
        self.radius = np.maximum(0.5 * h, _MIN_TUBE_RADIUS * self.reach)       # (nl,)
        phi = 2 * np.pi * np.arange(_TUBE_SIDES) / _TUBE_SIDES
        self.cos_phi, self.sin_phi = np.cos(phi), np.sin(phi)

        # the arm-plane rectangle (plane coordinates): the rigid arm's footprint, padded
        rel = self.rigid.reshape(-1, 3) - self.origin
        u, v = rel @ self.ex, rel @ self.ey
        pad = 0.12 * self.reach
        self.uv = (min(u.min(), 0.0) - pad, max(u.max(), 0.0) + pad,
                   min(v.min(), 0.0) - pad, max(v.max(), 0.0) + pad)
        return label

    def _in_plane(self, u, v):
        return self.origin + u * self.ex + v * self.ey

    def _axes(self, ax, view):
        """Figure and 3D axes with limits fixed over the run, equal aspect and the view."""
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        if ax is None:
            fig = Figure(figsize=FIG_SIZE, dpi=DPI)
            FigureCanvasAgg(fig)
            ax = fig.add_axes((-0.02, 0.0, 0.86, 0.93), projection="3d")
            self.cax = fig.add_axes((0.885, 0.22, 0.022, 0.56))
        elif getattr(ax, "name", None) != "3d":
            raise ParameterError("ax", ax, "must be a 3D axes (projection='3d')")
        else:
            fig, self.cax = ax.figure, None
        self.fig, self.ax = fig, ax

        # limits: plane rectangle, rigid arm and exaggerated arm over the whole run
        u0, u1, v0, v1 = self.uv
        rect = [self._in_plane(a, b) for a, b in ((u0, v0), (u1, v0), (u1, v1), (u0, v1))]
        drawn = self.rigid + self.scale * self.defl
        pts = np.concatenate([rect, self.rigid.reshape(-1, 3), drawn.reshape(-1, 3)])
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        centre, half = 0.5 * (lo + hi), 0.5 * (hi - lo) + 0.04 * self.reach
        half = np.maximum(half, 0.15 * self.reach)     # a flat axis still gets some depth
        frame_box(ax, centre, half, zoom=1.05)
        ax.computed_zorder = False      # fixed layers instead of per-artist depth sorting
        elev, azim = _view_angles(self.n) if view is None else view
        ax.view_init(elev=elev, azim=azim)
        # an axis seen end-on (within 20 degrees: a top view, say) has its tick labels
        # piled on one spot, over the time stamp: drop them
        el, az = math.radians(elev), math.radians(azim)
        sight = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
        for i, name in enumerate("xyz"):
            if abs(sight[i]) > math.cos(math.radians(20.0)):
                getattr(ax, f"set_{name}ticks")([])
                getattr(ax, f"set_{name}label")("")
        # the tube shading's light comes from over the viewer's shoulder
        light = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az),
                          math.sin(el) + 0.8])
        self.light = light / np.linalg.norm(light)

    def _plane_artists(self):
        """A faint rectangle of the arm plane with a grid and its x and y axes."""
        from mpl_toolkits.mplot3d.art3d import Line3DCollection, Poly3DCollection

        ax, (u0, u1, v0, v1) = self.ax, self.uv
        rect = [self._in_plane(a, b) for a, b in ((u0, v0), (u1, v0), (u1, v1), (u0, v1))]
        ax.add_collection3d(Poly3DCollection([rect], facecolors=(0.45, 0.55, 0.8, 0.07),
                                             edgecolors=(0.3, 0.4, 0.65, 0.5), linewidths=0.8,
                                             zorder=1))
        step = nice_number(max(u1 - u0, v1 - v0) / 8.0)
        us = np.arange(math.ceil(u0 / step), math.floor(u1 / step) + 1) * step
        vs = np.arange(math.ceil(v0 / step), math.floor(v1 / step) + 1) * step
        grid = ([[self._in_plane(a, v0), self._in_plane(a, v1)] for a in us]
                + [[self._in_plane(u0, b), self._in_plane(u1, b)] for b in vs])
        ax.add_collection3d(Line3DCollection(grid, colors=(0.3, 0.4, 0.65, 0.15),
                                             linewidths=0.5, zorder=1.1))
        arrow, base = 0.18 * self.reach, self._in_plane(u0, v0)
        for vec, name, col in ((self.ex, "x", "tab:red"), (self.ey, "y", "tab:green")):
            ax.plot(*np.transpose([base, base + arrow * vec]), color=col, lw=1.6, zorder=1.2)
            ax.text(*(base + 1.3 * arrow * vec), f"plane {name}", color=col, fontsize=7,
                    ha="center", va="center", zorder=1.2)

    def _moving_artists(self):
        """Ghost, tubes, hub, joints and payload, empty until :meth:`update`."""
        from mpl_toolkits.mplot3d.art3d import Poly3DCollection

        ax = self.ax
        self.ghost = Poly3DCollection([], facecolors=(0.5, 0.5, 0.5, 0.16), edgecolors="none",
                                      linewidths=0.0, zorder=2, gid="ghost")
        ax.add_collection3d(self.ghost)
        self.ghost_lines = [ax.plot([], [], [], ls="--", lw=0.8, color="0.35", alpha=0.8,
                                    zorder=2.1, gid=f"ghost_centerline_{i + 1}")[0]
                            for i in range(self.rigid.shape[1])]
        self.tubes = Poly3DCollection([], linewidths=0.3, zorder=3, gid="links")
        ax.add_collection3d(self.tubes)
        self.post, = ax.plot([], [], [], color="0.3", lw=5, solid_capstyle="butt",
                             zorder=2.5, gid="hub_post")
        self.hub, = ax.plot([], [], [], ls="none", marker="o", ms=13, mfc="0.25", mec="k",
                            zorder=4, gid="hub")
        self.joints, = ax.plot([], [], [], ls="none", marker="o", ms=8, mfc="0.85", mec="k",
                               mew=1.2, zorder=4, gid="joints")
        self.payload, = ax.plot([], [], [], ls="none", marker="s", ms=10, mfc="tab:orange",
                                mec="k", zorder=4, gid="payload")

    def _texts(self, title, label):
        """Title, time stamp, exaggeration label, key and colour bar (axes coordinates, so
        they also work in a caller's axes)."""
        from matplotlib.cm import ScalarMappable

        ax, tr = self.ax, self.ax.transAxes
        info = self.result.info or {}
        head = title if title is not None else f"{info.get('case', 'arm')}  ({self.result.engine})"
        self.title = ax.text2D(0.5, 0.985, head, transform=tr, ha="center", va="top",
                               fontsize=11)
        self.clock = ax.text2D(0.02, 0.985, "", transform=tr, ha="left", va="top",
                               fontsize=10, family="monospace")
        self.label = ax.text2D(0.02, 0.935, format_scale(self.scale), transform=tr,
                               ha="left", va="top", fontsize=10, color="tab:red",
                               gid="scale_label")
        ax.text2D(0.02, 0.02, "grey: undeformed   ■ tip (payload if any)   ● joints", transform=tr,
                  ha="left", va="bottom", fontsize=7, color="0.3")
        sm = ScalarMappable(norm=self.norm, cmap=self.cmap)
        if self.cax is not None:
            cb = self.fig.colorbar(sm, cax=self.cax)
        else:
            cb = self.fig.colorbar(sm, ax=ax, shrink=0.6, pad=0.08)
        cb.set_label(label, fontsize=9)
        cb.ax.tick_params(labelsize=8)
        self.colorbar = cb

    def _tube_faces(self, pts, radius):
        """Quads of tubes around polylines: pts (nl, m, 3) -> faces (nl, m-1, S, 4, 3) and the
        unit outward normal of each face (nl, m-1, S, 3)."""
        tang = np.gradient(pts, axis=1)
        tang /= np.maximum(np.linalg.norm(tang, axis=-1, keepdims=True), 1e-300)
        side = np.cross(self.n, tang)                       # in-plane, left of the link
        ring_dir = (self.cos_phi[None, None, :, None] * side[:, :, None, :]
                    + self.sin_phi[None, None, :, None] * self.n)          # (nl, m, S, 3)
        ring = pts[:, :, None, :] + radius[:, None, None, None] * ring_dir
        nxt = np.roll(ring, -1, axis=2)
        faces = np.stack([ring[:, :-1], nxt[:, :-1], nxt[:, 1:], ring[:, 1:]], axis=3)
        normal = ring_dir[:, :-1] + np.roll(ring_dir, -1, axis=2)[:, :-1]
        normal /= np.linalg.norm(normal, axis=-1, keepdims=True)
        return faces, normal

    def update(self, k):
        """Move every artist to output time index k."""
        rigid = self.rigid[k]
        drawn = rigid + self.scale * self.defl[k]
        faces, normal = self._tube_faces(drawn, self.radius)
        self.faces = faces               # (nl, m-1, sides, 4, 3), kept for inspection
        nl, nseg, nside = faces.shape[:3]
        val = 0.5 * (self.value[k][:, :-1] + self.value[k][:, 1:])          # (nl, m-1)
        rgba = self.cmap(self.norm(val))[:, :, None, :].repeat(nside, axis=2)
        light = 0.5 + 0.5 * np.clip(normal @ self.light, 0.0, 1.0)
        rgba[..., :3] *= light[..., None]
        rgba = rgba.reshape(-1, 4)
        self.tubes.set_verts(faces.reshape(-1, 4, 3))
        self.tubes.set_facecolor(rgba)
        self.tubes.set_edgecolor(rgba)
        ghost_faces, _ = self._tube_faces(rigid, 0.8 * self.radius)
        self.ghost.set_verts(ghost_faces.reshape(-1, 4, 3))
        for i, line in enumerate(self.ghost_lines):
            line.set_data_3d(*rigid[i].T)
        roots = drawn[:, 0, :]
        post = 0.08 * self.length
        self.post.set_data_3d(*np.transpose([roots[0], roots[0] - post * self.n]))
        self.hub.set_data_3d(*roots[:1].T)
        self.joints.set_data_3d(*roots[1:].T)
        self.payload.set_data_3d(*drawn[-1, -1:, :].T)
        self.clock.set_text(f"t = {float(self.result.t[k]):.3f} s")
        self.k = k


# ----------------------------------------------------------------------------- public

def render_frame(result, k=None, scale=1.0, color_by="strain", path=None, ax=None, *,
                 time=None, title=None, view=None, dpi=DPI):
    """Draw the arm at one output time in 3D; return the matplotlib Figure.

    Args:
        result: a :class:`~chrono_flex.result.Result` with centrelines.
        k: output index (negative counts from the end). Give ``k`` or ``time``; with
            neither, the frame of largest deflection is drawn.
        scale: exaggeration of the elastic deformation (>= 0; 0 draws the rigid arm).
        color_by: "strain" (surface bending strain h/2 w'', needs ``curvature``) or
            "deflection" (true |centerline - centerline_rigid|).
        path: save the figure there (format from the extension, e.g. .png).
        ax: draw into this 3D axes instead of a new figure.
        time: draw the output time nearest to this time, s.
        title: text over the picture (default: case and engine).
        view: (elev, azim) in degrees (default: oblique to the arm plane).
        dpi: resolution of the saved file.
    """
    k = frame_index(result, k, time)
    scene = _Scene(result, scale, color_by, ax=ax, title=title, view=view)
    scene.update(k)
    if path is not None:
        save_figure(scene.fig, path, dpi)
    return scene.fig


def animation_frames(nt, n_frames=None):
    """Output indices of at most ``n_frames`` frames evenly spread over nt output times."""
    if n_frames is None:
        return np.arange(nt)
    n = ck.positive_int("n_frames", n_frames)
    return np.unique(np.linspace(0, nt - 1, min(n, nt)).round().astype(int))


def animation_writer(path, fps):
    """The matplotlib writer for ``path``: Pillow for .gif, ffmpeg (H.264) for .mp4;
    ParameterError for another suffix or a missing ffmpeg."""
    from matplotlib.animation import FFMpegWriter, PillowWriter

    fps = ck.positive("fps", fps)
    ext = os.path.splitext(path)[1].lower()
    if ext == ".gif":
        writer = PillowWriter(fps=fps)
    elif ext == ".mp4":
        if shutil.which("ffmpeg") is None:
            raise ParameterError("path", path, "ends with .mp4 but ffmpeg is not on PATH "
                                               "(install ffmpeg, or write a .gif)")
        writer = FFMpegWriter(fps=fps, codec="libx264", extra_args=["-pix_fmt", "yuv420p"])
    else:
        raise ParameterError("path", path, "must end with .gif or .mp4")
    return writer


def render_animation(result, path, scale=1.0, fps=20, n_frames=None, color_by="strain", *,
                     title=None, view=None, dpi=DPI):
    """Write an animation of the run to ``path`` (.gif with Pillow, .mp4 with ffmpeg).

    One figure is built and its artists are moved frame by frame. ``n_frames`` caps the
    number of frames (evenly spread over the output times; None: all of them). ``fps`` is
    the playback rate in frames per second. Returns ``path``.

    The frames go to a temporary file beside ``path`` that replaces it only when the
    animation is complete: a failure part-way leaves an existing file untouched.
    """
    path = os.fspath(path)
    writer = animation_writer(path, fps)
    frames = animation_frames(len(result.t), n_frames)
    scene = _Scene(result, scale, color_by, title=title, view=view)
    return save_animation(scene, writer, path, frames, dpi)


def save_animation(scene, writer, path, frames, dpi):
    """Grab ``scene.update(k)`` for every k of ``frames`` with ``writer`` (from
    :func:`animation_writer`) into a temporary file beside ``path`` that replaces
    ``path`` only when the last frame is written; return ``path``. Long animations
    report their progress (:class:`chrono_flex.stepping.Progress`)."""
    progress = Progress(len(frames), "animation", unit="frames")
    try:
        with atomic_path(path) as tmp:
            with writer.saving(scene.fig, tmp, dpi):
                for done, k in enumerate(frames, 1):
                    scene.update(int(k))
                    writer.grab_frame()
                    progress(done)
    finally:
        progress.close()
    return path
