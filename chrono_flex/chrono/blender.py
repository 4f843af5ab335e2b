"""Chrono runs as files for Blender, written by Chrono's own exporter (``ChBlender`` of
``pychrono.postprocess``) while the "chrono" or "chrono-beam" engine steps::

    exporter = BlenderExporter("out/blender", scale=20, dt=0.05)
    res = simulate_chrono(arm, 5.0, torque=tau, on_output=exporter)   # or simulate_beams
    # or in one call:
    res, exporter = chrono_flex.engines.export_case("bien-2link", "out/blender", n_frames=100)

Files (what Chrono's Blender add-on reads: install ``chrono_import.py`` from
``src/importer_blender/`` of Chrono's sources, then File > Import > Chrono import and
pick the ``.assets.py``; Blender frame N shows ``output/stateN.py``)::

    DIR/<stem>.assets.py        shapes that never change, camera, label; import this
    DIR/output/state00000.py    frame 0: deformable meshes and the pose of every named item
    DIR/output/state00001.py    frame 1, ...
    DIR/anim/                   where Blender renders pictures to

Named items (:class:`~chrono_flex.chrono.visual.ArmVisuals`): ``link1``, ``link2``, ...
(tube around the deformed centreline, deformation drawn ``scale`` times), ``joint1``, ...,
``payload`` for the chrono engine; ``beams`` (Chrono's FEA surface of the beams, true
size), ``hub1``, ..., ``payload`` for chrono-beam. The assets file sets
``chrono_flex_deformation_scale`` and adds a text object ``chrono_flex_label`` stating
case, engine and exaggeration; each state file sets ``chrono_flex_time`` (s) and writes
the time into that label.
"""

import importlib
import os

import numpy as np

from .. import _checks as ck
from ..errors import ParameterError, PyChronoUnavailable
from ._detect import HOW_TO_GET_IT, require_pychrono
from .visual import ArmVisuals, prepare_fea_shapes

#: Sub-directory and file name pattern of the per-frame files (set by ChBlender).
STATE_DIR = "output"
STATE_FILE = "state{:05d}.py"


def require_postprocess():
    """Return ``pychrono.postprocess`` (ChBlender), or raise PyChronoUnavailable saying
    what is missing."""
    try:
        require_pychrono()
    except PyChronoUnavailable as exc:
        raise PyChronoUnavailable(f"the Blender export runs Chrono's ChBlender exporter and "
                                  f"needs PyChrono: {exc}") from exc
    try:
        return importlib.import_module("pychrono.postprocess")
    except ImportError as exc:
        raise PyChronoUnavailable(
            f"the Blender export needs PyChrono's postprocess module (pychrono.postprocess, "
            f"Chrono's ChBlender), which does not import here ({exc}); build Chrono with "
            f"CH_ENABLE_MODULE_POSTPROCESS, or install the conda package, which has it. "
            f"{HOW_TO_GET_IT}") from exc


def _blender_up(exporter, up):
    """Make Chrono's Y or Z axis, whichever is nearer to ``up``, Blender's vertical; return
    the rotation matrix from Chrono's world to Blender's. (PyChrono 10 cannot call
    ``SetBlenderFrame``: its SWIG wrapper rejects every ChFramed.)"""
    if abs(up[2]) >= abs(up[1]):
        exporter.SetBlenderUp_is_ChronoZ()
        return np.eye(3)
    exporter.SetBlenderUp_is_ChronoY()
    return np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])    # Y -> Z


def _py_str(text):
    return repr(str(text))


class BlenderExporter:
    """An ``on_output(system, t)`` hook for :func:`~chrono_flex.chrono.engine.simulate_chrono`
    and :func:`~chrono_flex.chrono.beams.simulate_beams` writing Blender files.

    At its first call it gives the arm visual shapes (:class:`ArmVisuals`), sets up
    ``ChBlender`` and writes the assets file; then it writes a state file for each
    output time at least ``dt`` after the previous frame (every output time with
    ``dt=None``).

    Args:
        directory: where the files go (created).
        scale: exaggeration of the custom element's deformation (>= 0; must be 1 with
            chrono-beam, whose beams Chrono draws itself).
        dt: minimum simulated time between frames, s (None: every output).
        stem: name of the assets file, ``<stem>.assets.py``.
        title: text of the label in Blender (default: "chrono_flex arm").
        camera: add a camera aimed at the arm (Blender's default camera otherwise).

    After the run: ``frames`` (times written), ``assets_path``, :meth:`state_path`.
    """

    def __init__(self, directory, scale=1.0, dt=None, stem="arm", title=None, camera=True):
        self._pp = require_postprocess()
        self.chrono = require_pychrono()
        prepare_fea_shapes()          # quietly, before the engine's loop (chrono-beam)
        self.directory = os.fspath(directory)
        self.scale = ck.non_negative("scale", scale)
        self.dt = None if dt is None else ck.positive("dt", dt)
        if not isinstance(stem, str) or not stem or os.sep in stem:
            raise ParameterError("stem", stem, "must be a non-empty file name without a "
                                               "directory")
        self.stem = stem
        self.title = "chrono_flex arm" if title is None else str(title)
        self.camera = bool(camera)
        self.frames = []
        self.visuals = None
        self._exporter = None
        self._system = None

    @property
    def assets_path(self):
        return os.path.join(self.directory, f"{self.stem}.assets.py")

    def state_path(self, k):
        """Path of the state file of frame ``k``."""
        return os.path.join(self.directory, STATE_DIR, STATE_FILE.format(k))

    def _label(self):
        return f"{self.title}   deformation x {self.scale:g}" + (
            " (true size)" if self.scale == 1.0 else "")

    def _start(self, system):
        chrono = self.chrono
        self.visuals = v = ArmVisuals(system, scale=self.scale)
        os.makedirs(self.directory, exist_ok=True)
        ex = self._pp.ChBlender(system)
        ex.SetBasePath(self.directory)
        ex.SetOutputScriptFile(self.stem)
        for item in v.items:
            ex.Add(item)
        g = np.asarray(system.GetGravitationalAcceleration().to_numpy(), dtype=float)
        up = -g if np.linalg.norm(g) > 0 else v.normal
        R = _blender_up(ex, up)
        pts = v.points
        centre = 0.5 * (pts.min(axis=0) + pts.max(axis=0))
        size = float(np.linalg.norm(pts.max(axis=0) - pts.min(axis=0))) or 1.0
        side = R[1] - (R[1] @ v.normal) * v.normal      # Blender's Y, in the arm plane
        if np.linalg.norm(side) < 1e-9:
            side = R[0] - (R[0] @ v.normal) * v.normal
        side /= np.linalg.norm(side)
        n = v.normal if v.normal @ up >= 0 else -v.normal
        if self.camera:
            eye = centre + 1.8 * size * (0.8 * n - 0.6 * side)
            ex.SetCamera(chrono.ChVector3d(*eye), chrono.ChVector3d(*centre), 40.0)
        label_at = R @ (centre - 0.6 * size * side)
        ex.SetCustomBlenderCommandsScript("\n".join([
            f"chrono_flex_deformation_scale = {self.scale!r}",
            "try:",
            f"    bpy.ops.object.text_add(location={tuple(float(x) for x in label_at)!r})",
            "    chrono_flex_label = bpy.context.object",
            "    chrono_flex_label.name = 'chrono_flex_label'",
            f"    chrono_flex_label.data.body = {_py_str(self._label())}",
            f"    chrono_flex_label.data.size = {0.06 * size!r}",
            "except Exception as chrono_flex_error:",
            "    print('chrono_flex: no label:', chrono_flex_error)",
            ""]))
        self._exporter = ex
        self._system = system
        ex.ExportScript()        # assets file (and a provisional frame 0, rewritten below)

    def _due(self, t):
        if self.dt is None or not self.frames:
            return True
        return t >= self.frames[0] + len(self.frames) * self.dt - 1e-6 * self.dt

    def __call__(self, system, t):
        if self._exporter is None:
            self._start(system)
        elif system is not self._system:
            raise ParameterError("system", system, "must be the system of the first call "
                                                   "(one BlenderExporter per run)")
        if not self._due(t):
            return
        self.visuals.update()
        k = len(self.frames)
        text = self._label() + f"   t = {t:.3f} s"
        self._exporter.SetCustomBlenderCommandsData("\n".join([
            f"chrono_flex_time = {float(t)!r}",
            "if 'chrono_flex_label' in bpy.data.objects:",
            f"    bpy.data.objects['chrono_flex_label'].data.body = {_py_str(text)}",
            ""]))
        self._exporter.SetFramenumber(k)
        self._exporter.ExportData()
        self.frames.append(float(t))


def __getattr__(name):
    from .._compat import moved_attribute

    return moved_attribute(__name__, name)


__all__ = ["BlenderExporter", "require_postprocess"]
