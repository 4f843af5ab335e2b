"""A live Chrono window (Irrlicht or VSG) on a run of the "chrono" or "chrono-beam" engine.

    window = LiveWindow(scale=20)                      # raises LiveWindowUnavailable
    simulate_chrono(arm, 5.0, torque=tau, on_output=window)   # or simulate_beams

:class:`LiveWindow` is an ``on_output(system, t)`` hook: at its first call it gives the
arm visual shapes (:class:`~chrono_flex.chrono.visual.ArmVisuals`), opens the window on
the system and then draws a frame at every output time, paced to real time (``realtime``).
Closing the window stops the run with :class:`LiveWindowClosed`.

tests/chrono/test_live.py runs it with Irrlicht on a virtual X display (xvfb-run) where
those are installed. Whether a window can open is decided by
:func:`chrono_flex.chrono.window.live_window_available`.
"""

import importlib
import time

import numpy as np

from ..errors import ChronoFlexError
from .window import require_live_window
from ._detect import require_pychrono
from .visual import ArmVisuals, prepare_fea_shapes


def _camera_up(gravity, normal):
    """Camera "up": against gravity, made perpendicular to the arm's plane normal, so the
    view (from the normal's side) is never along the up direction; without gravity, or
    with gravity along the normal, the world axis Y or Z least aligned with the normal."""
    n = np.asarray(normal, dtype=float)
    n = n / np.linalg.norm(n)
    g = np.asarray(gravity, dtype=float)
    candidates = ([-g] if np.linalg.norm(g) > 0 else []) + [np.array([0.0, 1.0, 0.0]),
                                                             np.array([0.0, 0.0, 1.0])]
    for c in candidates:
        u = c - (c @ n) * n
        if np.linalg.norm(u) > 0.3 * np.linalg.norm(c):
            return u / np.linalg.norm(u)
    raise ValueError("no camera up direction")     # unreachable: Y and Z cannot both be along n


class LiveWindowClosed(ChronoFlexError):
    """The user closed the live window; ``time`` is the simulated time then."""

    def __init__(self, time):
        self.time = time
        super().__init__(f"the live window was closed at t = {time:.4g} s")


class LiveWindow:
    """``on_output(system, t)`` hook drawing the run in an Irrlicht or VSG window.

    Args:
        scale: exaggeration of the custom element's deformation (1 for chrono-beam).
        module: "pychrono.irrlicht" or "pychrono.vsg"; None picks the first available.
        title: window title.
        size: window size in pixels.
        realtime: wait so that simulated time runs no faster than the wall clock.
    """

    def __init__(self, scale=1.0, module=None, title="chrono_flex", size=(1024, 768),
                 realtime=True):
        available = require_live_window()          # raises, saying what is missing
        self.module_name = module or available
        self.chrono = require_pychrono()
        self.vis_module = importlib.import_module(self.module_name)
        prepare_fea_shapes()
        self.scale, self.title, self.size = scale, str(title), tuple(int(s) for s in size)
        self.realtime = bool(realtime)
        self.vis, self.visuals = None, None
        self._t0 = self._wall0 = None

    def _open(self, system):
        chrono, m = self.chrono, self.vis_module
        self.visuals = v = ArmVisuals(system, scale=self.scale)
        pts = v.points
        centre = 0.5 * (pts.min(axis=0) + pts.max(axis=0))
        size = float(np.linalg.norm(pts.max(axis=0) - pts.min(axis=0))) or 1.0
        up = _camera_up(system.GetGravitationalAcceleration().to_numpy(), v.normal)
        eye = centre + 1.6 * size * (0.8 * v.normal + 0.3 * up)
        if self.module_name.endswith("irrlicht"):
            vis = m.ChVisualSystemIrrlicht()
            vis.AttachSystem(system)
            vis.SetWindowSize(*self.size)
            vis.SetWindowTitle(self.title)
            if abs(up[2]) > abs(up[1]):
                vis.SetCameraVertical(chrono.CameraVerticalDir_Z)
            vis.Initialize()
            try:
                vis.AddSkyBox()             # needs Chrono's data directory
            except Exception:               # noqa: BLE001 - the sky is decoration
                pass
            vis.AddCamera(chrono.ChVector3d(*eye), chrono.ChVector3d(*centre))
            vis.AddTypicalLights()
        else:
            vis = m.ChVisualSystemVSG()
            vis.AttachSystem(system)
            vis.SetWindowSize(chrono.ChVector2i(*self.size))
            vis.SetWindowTitle(self.title)
            if abs(up[2]) > abs(up[1]):
                vis.SetCameraVertical(chrono.CameraVerticalDir_Z)
            vis.AddCamera(chrono.ChVector3d(*eye), chrono.ChVector3d(*centre))
            vis.Initialize()
        self.vis = vis

    def __call__(self, system, t):
        if self.vis is None:
            self._open(system)
            self._t0, self._wall0 = t, time.perf_counter()
        vis = self.vis
        if not vis.Run():
            raise LiveWindowClosed(t)
        self.visuals.update()
        if hasattr(vis, "BeginScene"):          # Irrlicht
            vis.BeginScene()
            vis.Render()
            vis.EndScene()
        else:                                   # VSG
            vis.Render()
        if self.realtime:
            ahead = (t - self._t0) - (time.perf_counter() - self._wall0)
            if ahead > 0:
                time.sleep(ahead)


__all__ = ["LiveWindow", "LiveWindowClosed"]
