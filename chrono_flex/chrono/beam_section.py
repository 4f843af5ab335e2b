"""Sections and single links of Chrono's beams for spatial flexible links (the pieces
:mod:`chrono_flex.chrono.spatial_beams` assembles): the section of a link
(:class:`SpatialSection`), a link clamped to a body (:func:`add_link`,
:class:`SpatialBeamLink`) and a link clamped to the ground in a static system
(:func:`clamped_link`)."""

from dataclasses import dataclass

import numpy as np

from .. import _checks as ck
from ..errors import ParameterError
from ._detect import require_fea, require_pychrono
from .attachment import system_address
from .system import matrix_to_quat, quat_to_matrix

#: EA = AXIAL_RATIO * max(EI_y, EI_z) / l_e^2: the first axial frequency of an element
#: then sits ~sqrt(AXIAL_RATIO) times above its bending frequencies.
AXIAL_RATIO = 1e4


PROPERTIES = ("EI_y", "EI_z", "GJ", "rho_A", "rho_Ip")


@dataclass(frozen=True)
class SpatialSection:
    """Section and mesh of a spatial link (SI units; see the module docstring).

    Attributes: length (m), n_elements, EI_y, EI_z (N m^2), GJ (N m^2), rho_A (kg/m),
    rho_Ip (kg m: polar mass moment of the section per length), EA (N; default from
    :data:`AXIAL_RATIO` with the largest bending stiffness). Each of the five section
    properties is one number, or one value per element (a varying section: each element
    gets its own Chrono section; :meth:`from_link` takes a
    :class:`chrono_flex.spatial.SpatialLink`'s element means).
    """

    length: float
    n_elements: int
    EI_y: float
    EI_z: float
    GJ: float
    rho_A: float
    rho_Ip: float
    EA: float = None

    def __post_init__(self):
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731 (frozen dataclass)
        set_("length", ck.positive("length", self.length))
        set_("n_elements", ck.positive_int("n_elements", self.n_elements))
        for k in PROPERTIES:
            v = getattr(self, k)
            if isinstance(v, (list, tuple, np.ndarray)):
                vals = ck.vector(k, v)
                if vals.size != self.n_elements:
                    raise ParameterError(k, v, f"must hold one value per element "
                                         f"({self.n_elements})")
                for e, x in enumerate(vals):
                    ck.positive(f"{k}[{e}]", x)
                set_(k, tuple(float(x) for x in vals))
            else:
                set_(k, ck.positive(k, v))
        le = self.length / self.n_elements
        EI_max = max(np.max(self.values("EI_y")), np.max(self.values("EI_z")))
        set_("EA", AXIAL_RATIO * EI_max / le**2 if self.EA is None
             else ck.positive("EA", self.EA))

    @classmethod
    def from_link(cls, link, EA=None):
        """The section of a :class:`chrono_flex.spatial.SpatialLink` (equal elements): its
        numbers, or for a varying section each property's mean over each element (Chrono's
        element has one section; the averaging errs by O(h^2) in the frequencies)."""
        if getattr(link, "element_lengths", None) is not None:
            le = np.asarray(link.element_lengths, dtype=float)
            if np.ptp(le) > 1e-12 * le.max():
                raise ParameterError("link", link, "must have equal elements for Chrono's "
                                     "beam builder (element_lengths differ)")
        pe = link if link.uniform else link.per_element()
        return cls(link.length, link.n_elements, *(getattr(pe, k) for k in PROPERTIES), EA=EA)

    @property
    def uniform(self):
        return all(not isinstance(getattr(self, k), tuple) for k in PROPERTIES)

    def values(self, name):
        """The property ``name`` per element (n_elements,)."""
        v = getattr(self, name)
        return np.array(v, dtype=float) if isinstance(v, tuple) else np.full(self.n_elements, v)

    def chrono_section(self, fea, element=0):
        """The ``ChBeamSectionEulerAdvancedGeneric`` of element ``element`` (no damping;
        no artificial rotary inertia of the nodes: Chrono's lumped element gives the
        nodes translational mass and the torsional inertia rho_Ip l_e / 2)."""
        v = {k: float(self.values(k)[element]) for k in PROPERTIES}
        s = fea.ChBeamSectionEulerAdvancedGeneric()
        s.SetAxialRigidity(self.EA)
        s.SetTorsionRigidityX(v["GJ"])
        s.SetBendingRigidityY(v["EI_y"])
        s.SetBendingRigidityZ(v["EI_z"])
        s.SetMassPerUnitLength(v["rho_A"])
        s.SetInertiaJxxPerUnitLength(v["rho_Ip"])
        s.SetRayleighDamping(0.0, 0.0)
        s.SetArtificialJyyJzzFactor(0.0)
        return s


@dataclass
class SpatialBeamLink:
    """A spatial link in a Chrono system: its nodes (root first), elements, the clamp of
    the root node to its body, and its frame (origin, axes x along the link, y, z)."""

    section: SpatialSection
    nodes: list
    elements: list
    clamp: object
    origin: np.ndarray
    axes: np.ndarray

    def load_tip(self, force=(0.0, 0.0, 0.0), torque=(0.0, 0.0, 0.0)):
        """Set a constant force (N) and torque (N m) on the tip node, both in the link's
        frame (x along the link, y, z of the section)."""
        chrono = require_pychrono()

        f = self.axes @ ck.vector("force", force, 3)          # Chrono: world components
        t = ck.vector("torque", torque, 3)                    # Chrono: node components
        self.nodes[-1].SetForce(chrono.ChVector3d(*f))
        self.nodes[-1].SetTorque(chrono.ChVector3d(*t))

    def tip_displacement(self):
        """Tip node displacement from its initial place, world components (m)."""
        p = self.nodes[-1].GetPos()
        return np.array([p.x, p.y, p.z]) - (self.origin + self.section.length * self.axes[:, 0])

    def tip_rotation(self):
        """Rotation matrix of the tip node's frame relative to the link's undeformed frame."""
        q = self.nodes[-1].GetRot()
        return self.axes.T @ quat_to_matrix(q.e0, q.e1, q.e2, q.e3)


def _v3(chrono, v):
    return chrono.ChVector3d(*(float(x) for x in v))


def _frame(x_axis, y_axis):
    x = ck.vector("x_axis", x_axis, 3)
    y = ck.vector("y_axis", y_axis, 3)
    nx = np.linalg.norm(x)
    if nx == 0:
        raise ParameterError("x_axis", x_axis, "must be a non-zero vector")
    x = x / nx
    y = y - (y @ x) * x
    ny = np.linalg.norm(y)
    if ny < 1e-9:
        raise ParameterError("y_axis", y_axis, "must not be parallel to x_axis")
    y = y / ny
    return np.column_stack([x, y, np.cross(x, y)])


def add_link(system, mesh, section, body, origin, x_axis=(1.0, 0.0, 0.0),
             y_axis=(0.0, 1.0, 0.0)):
    """Add a spatial link clamped to ``body`` at ``origin`` (world, m), running along
    ``x_axis`` with its section's y axis as close to ``y_axis`` as the link allows.

    ``mesh``: the ``ChMesh`` (already in ``system``) that receives the nodes and elements.
    Returns a :class:`SpatialBeamLink`.
    """
    if not isinstance(section, SpatialSection):
        raise ParameterError("section", section, "must be a SpatialSection")
    if system_address(mesh) is None:
        raise ParameterError("mesh", mesh, "must be added to the system first")
    if system_address(body) != system_address(mesh):
        raise ParameterError("body", body, "must be a body of the mesh's system")
    o = ck.vector("origin", origin, 3)
    R = _frame(x_axis, y_axis)
    nodes, elements = _beam(mesh, section, o, R)
    return SpatialBeamLink(section, nodes, elements, _weld(system, nodes[0], body, o, R), o, R)


def _beam(mesh, section, o, R):
    """Nodes and elements of a beam from ``o`` (world) along R's x axis, its section's y
    axis along R's y axis: the root node's frame is (o, R)."""
    chrono = require_pychrono()
    fea = require_fea()

    builder = fea.ChBuilderBeamEuler()
    builder.BuildBeam(mesh, section.chrono_section(fea), section.n_elements,
                      _v3(chrono, o), _v3(chrono, o + section.length * R[:, 0]),
                      _v3(chrono, R[:, 1]))
    nodes, elements = list(builder.GetLastBeamNodes()), list(builder.GetLastBeamElements())
    if not section.uniform:                  # one section per element
        for e, el in enumerate(elements):
            el.SetSection(section.chrono_section(fea, e))
    return nodes, elements


def _chframe(chrono, o, R):
    return chrono.ChFramed(_v3(chrono, o), chrono.ChQuaterniond(*matrix_to_quat(R)))


def _weld(system, item, body, o, R):
    """A ``ChLinkMateGeneric`` locking all six relative motions of ``item`` (a body or a
    node) to ``body``, its frames at (o, R) in the world."""
    chrono = require_pychrono()

    weld = chrono.ChLinkMateGeneric(True, True, True, True, True, True)
    frame = _chframe(chrono, o, R)
    weld.Initialize(item, body, False, frame, frame)
    system.Add(weld)
    return weld


def static_system():
    """A Chrono SMC system without gravity, with the direct sparse solver
    (:func:`chrono_flex.chrono.system.configure_system`), for modal and static checks."""
    chrono = require_pychrono()

    from .system import configure_system

    sys_ = chrono.ChSystemSMC()
    sys_.SetGravitationalAcceleration(chrono.ChVector3d(0.0, 0.0, 0.0))
    configure_system(sys_, "euler")
    return sys_


def clamped_link(section, origin=(0.0, 0.0, 0.0), x_axis=(1.0, 0.0, 0.0),
                 y_axis=(0.0, 1.0, 0.0), system=None):
    """A spatial link clamped to a fixed ground body: (system, link). A new
    :func:`static_system` unless ``system`` is given."""
    chrono = require_pychrono()
    fea = require_fea()

    sys_ = static_system() if system is None else system
    ground = chrono.ChBody()
    ground.SetFixed(True)
    sys_.Add(ground)
    mesh = fea.ChMesh()
    mesh.SetAutomaticGravity(False)
    sys_.Add(mesh)
    return sys_, add_link(sys_, mesh, section, ground, origin, x_axis, y_axis)
