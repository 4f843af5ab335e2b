"""Visual shapes for an arm in a Chrono system, for Chrono's exporters and live windows.

Chrono's Blender exporter and its Irrlicht/VSG windows draw only the visual shapes of
physics items. The two Chrono engines have different items, so :class:`ArmVisuals`
gives each what it lacks:

* custom element ("chrono" engine, :class:`~chrono_flex.chrono.element.FlexibleLink`):
  the links are shafts, with nothing to draw. Each link gets a fixed, collision-free
  body ``link<i>`` carrying a deformable (``SetMutable(True)``) triangle-mesh tube
  around its centreline, which :meth:`ArmVisuals.update` recomputes with the model's
  shape functions (:meth:`FlexibleLink.centerlines`, as the reference engine's
  Result), the deformation drawn ``scale`` times; bodies ``joint<j>`` (cylinder along
  the plane normal) and ``payload`` (box) follow the drawn roots and tip;
* Chrono beams ("chrono-beam" engine): the mesh gets a ``ChVisualShapeFEA`` (Chrono
  sweeps the beam sections along the deformed elements itself, at true size), the
  hub bodies a joint cylinder and the payload body a box.

The extra bodies are fixed: they add no coordinates and exert nothing on the arm.
"""

import numpy as np

from ..errors import ParameterError
from ._detect import require_fea, require_pychrono
from ._quiet import quiet_swig
from .element import FlexibleLink
from .system import REGISTRY_ATTR, matrix_to_quat

#: Colours (r, g, b) of the drawn parts.
LINK_COLOR = (0.25, 0.45, 0.80)
JOINT_COLOR = (0.30, 0.30, 0.30)
PAYLOAD_COLOR = (0.95, 0.55, 0.10)

_MIN_RADIUS = 0.004       # tube radius floor, fraction of the arm length (visibility)


def tube_mesh(points, normal, radius, sides=12):
    """Vertices and triangles of a closed tube around a polyline.

    Args:
        points: (m, 3) centreline, m >= 2.
        normal: (3,) a direction never along the centreline (the arm plane's normal).
        radius: tube radius.
        sides: vertices per ring.

    Returns (vertices (m * sides + 2, 3), faces (2 (m - 1) sides + 2 sides, 3) int):
    ring k holds vertices k*sides .. k*sides + sides - 1; the last two vertices are the
    centres of the end caps. Faces are wound counter-clockwise seen from outside.
    """
    pts = np.asarray(points, dtype=float)
    n = np.asarray(normal, dtype=float)
    n = n / np.linalg.norm(n)
    m = pts.shape[0]
    tang = np.gradient(pts, axis=0)
    tang /= np.maximum(np.linalg.norm(tang, axis=1, keepdims=True), 1e-300)
    side = np.cross(n, tang)
    side /= np.maximum(np.linalg.norm(side, axis=1, keepdims=True), 1e-300)
    up = np.cross(tang, side)
    phi = 2 * np.pi * np.arange(sides) / sides
    ring = (np.cos(phi)[None, :, None] * side[:, None, :]
            + np.sin(phi)[None, :, None] * up[:, None, :])
    verts = np.concatenate([(pts[:, None, :] + radius * ring).reshape(-1, 3),
                            pts[:1], pts[-1:]])
    k = np.arange(m - 1)[:, None] * sides
    s = np.arange(sides)[None, :]
    a, b = k + s, k + (s + 1) % sides
    c, d = b + sides, a + sides
    faces = [np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, d], -1).reshape(-1, 3)]
    start, end = m * sides, m * sides + 1
    ring0, ring1 = np.arange(sides), (m - 1) * sides + np.arange(sides)
    faces.append(np.column_stack([np.full(sides, start), np.roll(ring0, -1), ring0]))
    faces.append(np.column_stack([np.full(sides, end), ring1, np.roll(ring1, -1)]))
    return verts, np.concatenate(faces).astype(int)


def _beam_nodes(mesh):
    """The beam nodes (ChNodeFEAxyzrot) of a ChMesh."""
    fea = require_fea()
    return [fea.CastToChNodeFEAxyzrot(fea.CastToChNodeFEAbase(mesh.GetNode(i)))
            for i in range(mesh.GetNumNodes())]


def _colormap_lines(chrono):
    """The line Chrono prints when its colormap file is missing (ChVisualShapeFEA())."""
    path = chrono.GetChronoDataFile("colormaps/jet-table-float-0512.csv")
    return (f"Cannot open colormap data file {path}".encode(),)


_FEA_SHAPES = []


def prepare_fea_shapes(n=1):
    """Make ``n`` ChVisualShapeFEA now, for :class:`ArmVisuals` to use later.

    Each one loads Chrono's colormap file when made and prints a line when the file is
    missing (a build without Chrono's data directory). Made here, outside the engines'
    :func:`~chrono_flex.chrono.quiet_swig` block (only the outermost block filters), that
    line is dropped; exporters call this when they are built.
    """
    chrono = require_pychrono()
    with quiet_swig(_colormap_lines(chrono)):
        while len(_FEA_SHAPES) < n:
            _FEA_SHAPES.append(chrono.ChVisualShapeFEA())


def _fea_shape(chrono):
    if _FEA_SHAPES:
        return _FEA_SHAPES.pop()
    with quiet_swig(_colormap_lines(chrono)):
        return chrono.ChVisualShapeFEA()


def _color(chrono, rgb):
    return chrono.ChColor(*(float(c) for c in rgb))


class ArmVisuals:
    """Give the arm(s) in a Chrono system shapes to draw; :meth:`update` moves them.

    Args:
        system: a ``ChSystem`` built by the "chrono" engine (holding
            :class:`~chrono_flex.chrono.element.FlexibleLink` s) or by the
            "chrono-beam" engine (a ``ChMesh`` of beams, bodies named ``hub<i>``,
            ``payload``).
        scale: exaggeration of the elastic deformation of the custom element's tubes
            (>= 0); the beams are drawn by Chrono at true size, so there it must be 1.
        n_samples, sides: centreline samples per link and vertices per tube ring.

    Attributes: ``items`` (the physics items with shapes, for an exporter),
    ``engine`` ("chrono" or "chrono-beam"), ``normal`` (unit normal of the (first)
    arm's plane) and ``points`` (world points along the arm when built, for cameras).
    """

    def __init__(self, system, scale=1.0, n_samples=21, sides=12):
        self.chrono = require_pychrono()
        self.system = system
        self.scale = float(scale)
        if not np.isfinite(self.scale) or self.scale < 0:
            raise ParameterError("scale", scale, "must be a finite number >= 0")
        self.n_samples, self.sides = int(n_samples), int(sides)
        self.items = []
        self._links = [x for x in getattr(system, REGISTRY_ATTR, ())
                       if isinstance(x, FlexibleLink)]     # not the GearDriveLinks
        if self._links:
            self.engine = "chrono"
            self._build_element()
        elif len(system.GetMeshes()):
            self.engine = "chrono-beam"
            if self.scale != 1.0:
                raise ParameterError("scale", scale, "must be 1 for the chrono-beam engine: "
                                     "Chrono's FEA visual shape draws the beams at true size")
            self._build_beams()
        else:
            raise ParameterError("system", system, "holds no chrono_flex arm (neither a "
                                 "FlexibleLink nor a mesh of beams)")
        self.update()

    # -- custom element -------------------------------------------------------------------
    def _fixed_body(self, name):
        chrono = self.chrono
        body = chrono.ChBody()
        body.SetName(name)
        body.SetFixed(True)
        body.EnableCollision(False)
        self.system.Add(body)
        self.items.append(body)
        return body

    def _build_element(self):
        chrono = self.chrono
        self._tubes, self._joints, self._payloads = [], [], []
        fl0 = self._links[0]
        _, A, _, P = fl0.placement()
        self.normal = A @ np.cross(P[:, 0], P[:, 1])
        self.points = np.concatenate([fl.centerlines(self.n_samples).reshape(-1, 3)
                                      for fl in self._links])
        for a, fl in enumerate(self._links):
            prefix = "" if len(self._links) == 1 else f"arm{a + 1}_"
            rig = fl.centerlines(2, rigid=True)
            reach = float(np.sum(np.linalg.norm(rig[:, 1] - rig[:, 0], axis=1))) or 1.0
            radii = [max(0.5 * lk.thickness, _MIN_RADIUS * reach) for lk in fl.arm.links]
            tubes = []
            for i, r in enumerate(radii):
                body = self._fixed_body(f"{prefix}link{i + 1}")
                mesh = chrono.ChTriangleMeshConnected()
                straight = np.linspace(0.0, 1.0, self.n_samples)[:, None] * [1.0, 0.0, 0.0]
                verts, faces = tube_mesh(straight, (0, 0, 1), r, self.sides)   # placeholder
                vv, ff = mesh.GetCoordsVertices(), mesh.GetIndicesVertexes()
                for v in verts:
                    vv.push_back(chrono.ChVector3d(*v))
                for f in faces:
                    ff.push_back(chrono.ChVector3i(*(int(x) for x in f)))
                shape = chrono.ChVisualShapeTriangleMesh()
                shape.SetMesh(mesh)
                shape.SetMutable(True)
                shape.SetName(f"{prefix}link{i + 1}_tube")
                shape.SetColor(_color(chrono, LINK_COLOR))
                body.AddVisualShape(shape)
                tubes.append((mesh, r))
            joints = []
            for j in range(fl.arm.n_joints):
                body = self._fixed_body(f"{prefix}joint{j + 1}")
                cyl = chrono.ChVisualShapeCylinder(2.0 * radii[j], 3.0 * radii[j])
                cyl.SetColor(_color(chrono, JOINT_COLOR))
                body.AddVisualShape(cyl)          # cylinder axis: the body's Z = plane normal
                joints.append(body)
            payload = None
            if fl.arm.payload.mass > 0 or fl.arm.payload.inertia > 0:
                payload = self._fixed_body(f"{prefix}payload")
                side = 4.0 * radii[-1]
                box = chrono.ChVisualShapeBox(side, side, side)
                box.SetColor(_color(chrono, PAYLOAD_COLOR))
                payload.AddVisualShape(box)
            self._tubes.append(tubes)
            self._joints.append(joints)
            self._payloads.append(payload)

    def drawn_centerlines(self, link):
        """World centrelines (nl, ns, 3) of a FlexibleLink as drawn: the rigid chain plus
        ``scale`` times the elastic displacement."""
        deformed = link.centerlines(self.n_samples)
        rigid = link.centerlines(self.n_samples, rigid=True)
        return rigid + self.scale * (deformed - rigid)

    def _update_element(self):
        chrono = self.chrono
        for fl, tubes, joints, payload in zip(self._links, self._tubes, self._joints,
                                              self._payloads):
            pts = self.drawn_centerlines(fl)
            pos, A, _, P = fl.placement()
            normal = A @ np.cross(P[:, 0], P[:, 1])
            R = A @ np.column_stack([P[:, 0], P[:, 1], np.cross(P[:, 0], P[:, 1])])
            rot = chrono.ChQuaterniond(*matrix_to_quat(R))
            for (mesh, r), p in zip(tubes, pts):
                verts, _ = tube_mesh(p, normal, r, self.sides)
                vv = mesh.GetCoordsVertices()
                for i, v in enumerate(verts):
                    vv[i] = chrono.ChVector3d(float(v[0]), float(v[1]), float(v[2]))
            for body, p in zip(joints, pts):
                body.SetPos(chrono.ChVector3d(*(float(x) for x in p[0])))
                body.SetRot(rot)
            if payload is not None:
                payload.SetPos(chrono.ChVector3d(*(float(x) for x in pts[-1, -1])))
                payload.SetRot(rot)

    # -- Chrono beams ---------------------------------------------------------------------
    def _build_beams(self):
        chrono = self.chrono
        nodes = np.array([n.GetPos().to_numpy() for mesh in self.system.GetMeshes()
                          for n in _beam_nodes(mesh)] or [[0.0, 0.0, 0.0]])
        size = float(np.linalg.norm(nodes.max(axis=0) - nodes.min(axis=0))) or 1.0
        self.points, self.normal = nodes, np.array([0.0, 0.0, 1.0])
        r = 3 * _MIN_RADIUS * size
        for k, mesh in enumerate(self.system.GetMeshes()):
            if not mesh.GetName():
                mesh.SetName("beams" if k == 0 else f"beams{k + 1}")
            fea_shape = _fea_shape(chrono)
            # SURFACE: plain colour. The false-colour data types read Chrono's colormap
            # files (data/colormaps), which a build without the data directory lacks.
            fea_shape.SetFEMdataType(chrono.ChVisualShapeFEA.DataType_SURFACE)
            fea_shape.SetDefaultMeshColor(_color(chrono, LINK_COLOR))
            fea_shape.SetSmoothFaces(True)
            mesh.AddVisualShapeFEA(fea_shape)
            self.items.append(mesh)
        for body in self.system.GetBodies():
            name = body.GetName()
            if name.startswith("hub"):
                if name == "hub1":
                    self.normal = np.asarray(body.GetRotMat().to_numpy(), dtype=float)[:, 2]
                cyl = chrono.ChVisualShapeCylinder(2.0 * r, 3.0 * r)
                cyl.SetColor(_color(chrono, JOINT_COLOR))
                body.AddVisualShape(cyl)              # hub Z = plane normal (beams.py)
                self.items.append(body)
            elif name == "payload":
                box = chrono.ChVisualShapeBox(4.0 * r, 4.0 * r, 4.0 * r)
                box.SetColor(_color(chrono, PAYLOAD_COLOR))
                body.AddVisualShape(box)
                self.items.append(body)
        # fill the FEA shape's triangles now (Chrono refreshes them at every step)
        self.system.Update()

    def update(self):
        """Move the shapes to the current state (the beams' FEA shape moves by itself)."""
        if self.engine == "chrono":
            self._update_element()


__all__ = ["ArmVisuals", "prepare_fea_shapes", "tube_mesh"]
