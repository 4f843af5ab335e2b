"""Interactive 3D viewer of a run (PyVista, the optional ``viz`` extra; no Chrono needed).

    view(source)                       open a window: time and deformation-scale sliders
    ArmViewer(source, off_screen=True) the same scene without a window (screenshots)
    ViewSeries.load(source)            the frames to show, from a Result, a .npz or a VTK series

``source`` is a :class:`~chrono_flex.result.Result`, a ``.npz`` written by
:meth:`Result.to_npz`, a ``.pvd`` written by :func:`~chrono_flex.viz.write_vtk_series`, or a
directory holding exactly one such ``.pvd``.

The arm is drawn as its deformed centreline with the deformation exaggerated K times,

    x_shown = x_rigid + K (x - x_rigid),

(K = 1: true size; K = 0: the rigid arm), over the rigid arm in grey. The centreline is
coloured by the bending strain h/2 w'' when the run has it, else by |deflection|; the
colour range is that of the whole run, so colours compare between frames. Keys: space
plays the run once, Left/Right step one frame.
"""

import os
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import numpy as np

from .. import _checks as ck
from .._files import atomic_path
from ..errors import MissingExtra, ParameterError
from .render import checked_centerlines, nice_number


def require_pyvista():
    """The pyvista module, or :class:`~chrono_flex.errors.MissingExtra` naming the extra."""
    try:
        import pyvista
    except ImportError as exc:
        raise MissingExtra("viz", "pyvista", "the interactive 3D viewer") from exc
    return pyvista


@dataclass(frozen=True)
class ViewSeries:
    """The frames of a run as the viewer shows them (world coordinates, m).

    t (nt,) times, s; rigid (nt, n, 3) undeformed centreline samples; deflection (nt, n, 3)
    deformed minus rigid; link_id (n,) link of each sample (1 = first link); color
    (nt, n) the colouring field named ``color_name``; title; up (3,) the world's
    vertical, against gravity: the arm plane's +Y for a result (the planar model's
    gravity acts along -Y), world +Z for a spatial arm's result (no plane), world +Y
    for a VTK series (Chrono's convention).
    """

    t: np.ndarray
    rigid: np.ndarray
    deflection: np.ndarray
    link_id: np.ndarray
    color: np.ndarray
    color_name: str
    title: str
    up: tuple = (0.0, 1.0, 0.0)

    @classmethod
    def from_result(cls, result):
        c, r = checked_centerlines(result)
        nt, nl, ns, _ = c.shape
        d = (c - r).reshape(nt, nl * ns, 3)
        if result.curvature is not None:
            color, name = np.asarray(result.bending_strain, float).reshape(nt, -1), \
                "bending strain"
        else:
            color, name = np.linalg.norm(d, axis=-1), "|deflection| (m)"
        return cls(np.asarray(result.t, float), r.reshape(nt, nl * ns, 3), d,
                   np.repeat(np.arange(1, nl + 1), ns), color, name,
                   f"{result.title} ({result.engine})",   # a spatial result: +Z is up
                   (0.0, 0.0, 1.0) if result.plane is None else tuple(result.plane.y_axis))

    @classmethod
    def from_vtk(cls, pvd):
        """Read a series written by :func:`~chrono_flex.viz.write_vtk_series` (the .vtu
        files through PyVista's VTK readers)."""
        pv = require_pyvista()
        try:
            root = ET.parse(pvd).getroot()
        except ET.ParseError as exc:
            raise ParameterError("source", os.fspath(pvd), f"is not a readable .pvd ({exc})") \
                from None
        entries = [(float(d.get("timestep")), d.get("file")) for d in root.iter("DataSet")]
        if not entries:
            raise ParameterError("source", os.fspath(pvd), "has no DataSet entries")
        frames = []
        for _, name in entries:
            path = os.path.join(os.path.dirname(os.fspath(pvd)), name)
            if not os.path.isfile(path):
                raise ParameterError("source", os.fspath(pvd), f"names {name!r}, which is missing")
            try:
                grid = pv.read(path)
            except Exception as exc:  # noqa: BLE001 - VTK's reader: any fault, named
                raise ParameterError("source", path, f"(named by {os.path.basename(pvd)}) "
                                     f"is not a readable VTK file ({type(exc).__name__}: "
                                     f"{exc})") from None
            if "deflection" not in grid.point_data:
                raise ParameterError("source", path, "has no point data 'deflection' (not "
                                                     "a series written by chrono_flex)")
            frames.append(grid)
        n = frames[0].n_points
        for (_, name), g in zip(entries, frames):
            if g.n_points != n:
                raise ParameterError("source", name, f"has {g.n_points} points, the first "
                                                     f"frame {n}")
        pts = np.array([g.points for g in frames], dtype=float)
        d = np.array([g.point_data["deflection"] for g in frames], dtype=float)
        link_id = np.zeros(n, dtype=int)
        cells = frames[0].cells.reshape(-1, 3)[:, 1:]          # (2, a, b) per line cell
        for cell_link, (a, b) in zip(frames[0].cell_data["link_id"], cells):
            link_id[a] = link_id[b] = cell_link
        if "bending_strain" in frames[0].point_data:
            color = np.array([g.point_data["bending_strain"] for g in frames], float)
            color_name = "bending strain"
        else:
            color = np.linalg.norm(d, axis=-1)
            color_name = "|deflection| (m)"
        stem = os.path.splitext(os.path.basename(os.fspath(pvd)))[0]
        return cls(np.array([t for t, _ in entries]), pts - d, d, link_id, color, color_name,
                   f"{stem} (VTK series)")

    @classmethod
    def load(cls, source):
        """From a Result, a .npz, a .pvd or a directory with one .pvd (see the module)."""
        from ..result import Result

        if isinstance(source, Result):
            return cls.from_result(source)
        if isinstance(source, ViewSeries):
            return source
        if not isinstance(source, (str, os.PathLike)):
            raise ParameterError("source", source, "must be a Result, a .npz file, a .pvd "
                                                   "file or a directory with one .pvd")
        path = os.fspath(source)
        if os.path.isdir(path):
            pvds = sorted(p for p in os.listdir(path) if p.endswith(".pvd"))
            if len(pvds) != 1:
                raise ParameterError("source", path, f"must hold exactly one .pvd file "
                                                     f"(holds {len(pvds)}: {pvds[:5]})")
            return cls.from_vtk(os.path.join(path, pvds[0]))
        if not os.path.isfile(path):
            raise ParameterError("source", path, "does not exist")
        ext = os.path.splitext(path)[1].lower()
        if ext == ".pvd":
            return cls.from_vtk(path)
        if ext == ".npz":
            return cls.from_result(Result.from_npz(path))
        raise ParameterError("source", path, "must be a .npz (Result.to_npz), a .pvd "
                                             "(write_vtk_series) or a directory with one .pvd")

    @property
    def n_frames(self):
        return len(self.t)

    def points(self, k, scale):
        """Centreline samples of frame ``k`` with the deformation scaled ``scale`` times."""
        return self.rigid[k] + scale * self.deflection[k]

    def lines(self):
        """VTK line cells (2, a, b) between consecutive samples of the same link."""
        a = np.nonzero(self.link_id[1:] == self.link_id[:-1])[0]
        return np.column_stack([np.full(len(a), 2), a, a + 1]).ravel()

    def arm_length(self):
        """Sum of the link lengths along the rigid centreline of the first frame, m."""
        same = self.link_id[1:] == self.link_id[:-1]
        seg = np.linalg.norm(np.diff(self.rigid[0], axis=0), axis=1)
        return float(np.sum(seg[same]))

    def suggest_scale(self):
        """The exaggeration of :func:`~chrono_flex.viz.suggest_scale` (largest deflection
        shown as about 10 % of the arm, rounded to 1, 2 or 5 x 10^k, never below 1)."""
        dmax = float(np.max(np.linalg.norm(self.deflection, axis=-1)))
        if not np.isfinite(dmax) or dmax <= 0.0:
            return 1.0
        return max(1.0, nice_number(0.1 * self.arm_length() / dmax))

    def max_deflection_frame(self):
        return int(np.argmax(np.max(np.linalg.norm(self.deflection, axis=-1), axis=1)))

    def view_directions(self):
        """(normal, up): the camera looks along the normal of the best-fit plane of the
        arm over the run (the plane of motion), made square to the world's vertical
        ``up``, which points up on the screen: a hanging pendulum is drawn hanging. An
        arm moving in a horizontal plane is seen from above, its plane's Y up."""
        up = np.asarray(self.up, dtype=float)
        up = up / np.linalg.norm(up)
        p = np.concatenate([self.rigid.reshape(-1, 3),
                            (self.rigid + self.deflection).reshape(-1, 3)])
        _, _, vt = np.linalg.svd(p - p.mean(axis=0), full_matrices=False)
        normal = vt[2] - up * (vt[2] @ up)               # in the horizontal plane
        if np.linalg.norm(normal) < 1e-6:                # the motion's plane is horizontal
            normal = up
            up = vt[1] - normal * (vt[1] @ normal)
            return normal, up / np.linalg.norm(up)
        normal = normal / np.linalg.norm(normal)
        return normal * np.sign(normal[np.argmax(np.abs(normal))]), up


class ArmViewer:
    """A PyVista scene of a run (see the module docstring) with two sliders: the output
    frame and the deformation scale K (0 .. ``max_scale``, default 5 times the suggested
    scale). ``off_screen=True`` builds it without a window (for :meth:`screenshot`)."""

    def __init__(self, source, scale=None, frame=None, off_screen=False, max_scale=None,
                 window_size=(1100, 750)):
        pv = require_pyvista()
        self.series = s = ViewSeries.load(source)
        self.scale = s.suggest_scale() if scale is None else ck.non_negative("scale", scale)
        self.frame = s.max_deflection_frame() if frame is None else self._index(frame)
        top = max(5.0 * s.suggest_scale(), 2.0 * self.scale, 1.0) if max_scale is None \
            else ck.non_negative("max_scale", max_scale)
        if top < self.scale:
            raise ParameterError("max_scale", max_scale, f"must be at least scale={self.scale}")
        self.mesh = pv.PolyData(s.points(self.frame, self.scale), lines=s.lines())
        self.mesh.point_data[s.color_name] = s.color[self.frame]
        self.rigid_mesh = pv.PolyData(s.rigid[self.frame].copy(), lines=s.lines())
        self.plotter = p = pv.Plotter(off_screen=off_screen, window_size=list(window_size))
        p.set_background("white")
        p.add_mesh(self.rigid_mesh, color="grey", opacity=0.5, line_width=3,
                   name="rigid arm")
        lim = float(np.max(np.abs(s.color))) or 1.0
        signed = bool(np.min(s.color) < 0)
        p.add_mesh(self.mesh, scalars=s.color_name, cmap="coolwarm" if signed else "viridis",
                   clim=(-lim, lim) if signed else (0.0, lim), line_width=10,
                   render_lines_as_tubes=True, name="arm",
                   scalar_bar_args={"title": s.color_name, "color": "black",
                                    "vertical": True, "position_x": 0.88, "position_y": 0.25})
        p.add_text(s.title, position="upper_left", font_size=11, color="black", name="title")
        self._label()
        self.scale_slider = p.add_slider_widget(
            self.set_scale, rng=[0.0, top], value=self.scale, title="deformation scale K",
            pointa=(0.55, 0.08), pointb=(0.95, 0.08), style="modern", color="black",
            fmt="%.3g")
        self.frame_slider = p.add_slider_widget(
            lambda v: self.set_frame(min(int(round(v)), s.n_frames - 1)),
            rng=[0, max(s.n_frames - 1, 1)],
            value=self.frame, title="frame", pointa=(0.05, 0.08), pointb=(0.45, 0.08),
            style="modern", color="black", fmt="%.0f")
        p.add_key_event("space", self.play)
        p.add_key_event("Right", lambda: self.set_frame(min(self.frame + 1, s.n_frames - 1)))
        p.add_key_event("Left", lambda: self.set_frame(max(self.frame - 1, 0)))
        normal, up = s.view_directions()
        p.view_vector(normal, viewup=up)
        p.reset_camera()
        p.camera.zoom(0.8)                      # room for the sliders below the arm

    def _index(self, k):
        nt = self.series.n_frames
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k < nt:
            raise ParameterError("frame", k, f"must be a frame index in [0, {nt - 1}]")
        return int(k)

    def _label(self):
        s = self.series
        self.plotter.add_text(f"t = {s.t[self.frame]:.4g} s   frame {self.frame} of "
                              f"0..{s.n_frames - 1}   deformation x {self.scale:.3g}",
                              position="upper_right", font_size=10, color="black",
                              name="label")

    def _update(self):
        s = self.series
        self.mesh.points = s.points(self.frame, self.scale)
        self.mesh.point_data[s.color_name] = s.color[self.frame]
        self.rigid_mesh.points = s.rigid[self.frame].copy()
        self._label()

    def set_scale(self, value):
        """Show the deformation ``value`` times (the scale slider's callback)."""
        self.scale = ck.non_negative("scale", value)
        self._update()

    def set_frame(self, k):
        """Show output frame ``k`` (the frame slider's callback)."""
        self.frame = self._index(k)
        self._update()

    def play(self, fps=20):
        """Step through every frame once, from the first (a timer of the open window)."""
        n = self.series.n_frames

        def step(i):
            self.set_frame(min(i, n - 1))
            self.frame_slider.GetRepresentation().SetValue(self.frame)

        if self.plotter.off_screen or self.plotter.iren is None:   # no event loop: just step
            for i in range(n):
                step(i)
            return
        self.plotter.add_timer_event(max_steps=n, duration=max(1, int(1000 / fps)),
                                     callback=step)

    def screenshot(self, path):
        """Render the scene into a PNG at ``path`` (written atomically), without the
        sliders (a picture, not a window: the label states frame, time and scale);
        return the path."""
        sliders = (self.scale_slider, self.frame_slider)
        for w in sliders:
            w.Off()
        try:
            self.plotter.render()
            with atomic_path(path) as tmp:
                self.plotter.screenshot(tmp + ".png" if not tmp.endswith(".png") else tmp)
                if not tmp.endswith(".png"):
                    os.replace(tmp + ".png", tmp)
        finally:
            for w in sliders:
                w.On()
        return os.fspath(path)

    def show(self):
        """Open the window (blocks until it is closed)."""
        self.plotter.show(title="chrono_flex viewer")

    def close(self):
        self.plotter.close()


def has_display():
    """(bool, reason): can a window open here? On Linux an X or Wayland display is needed."""
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY")
                                                 or os.environ.get("WAYLAND_DISPLAY")):
        return False, "no display (DISPLAY and WAYLAND_DISPLAY are unset)"
    return True, ""


def view(source, scale=None, screenshot=None, option="screenshot", frame=None):
    """Open the viewer on ``source`` at output ``frame`` (default: the frame of largest
    deflection); with ``screenshot`` a path, render off-screen to that PNG instead (no
    window, no display needed) and return the path. ``option`` names the screenshot
    parameter in the error raised when no window can open."""
    if screenshot is None:
        ok, why = has_display()
        if not ok:
            raise ParameterError(option, None, f"must be given here: {why}, so no window "
                                               f"can open")
    viewer = ArmViewer(source, scale=scale, frame=frame, off_screen=screenshot is not None)
    try:
        if screenshot is not None:
            return viewer.screenshot(screenshot)
        viewer.show()
    finally:
        viewer.close()
