"""Spatial flexible links from Chrono's beams: two bending planes and torsion, on any body.

A spatial link (docs/chrono.md §11) is a straight Euler-Bernoulli beam clamped at its
root to a Chrono body, with bending stiffnesses ``EI_y`` (about the section's y axis:
deflection along z) and ``EI_z`` (about z: deflection along y), torsional stiffness
``GJ``, mass per length ``rho_A`` and polar mass moment per length ``rho_Ip``. It is
made of ``ChElementBeamEuler`` elements (corotational, lumped mass: frequencies converge
at order 2 in the element count) with a ``ChBeamSectionEulerAdvancedGeneric`` section,
which takes these five numbers directly. The axial rigidity, which the papers' links do
not have (they are inextensible), defaults to :data:`AXIAL_RATIO` times the larger
bending rigidity over the element length squared, so the axial modes lie far above the
bending ones.

Links hang from any body (a hub on a revolute joint, another link's tip body, a free
body), so branched arms are built by mounting several links on one body
(:func:`hub_with_links`).
"""

from dataclasses import dataclass
import math

import numpy as np

from .. import _checks as ck
from ..errors import ParameterError
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
        import pychrono as chrono

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
    import pychrono as chrono
    import pychrono.fea as fea

    if not isinstance(section, SpatialSection):
        raise ParameterError("section", section, "must be a SpatialSection")
    if system_address(mesh) is None:
        raise ParameterError("mesh", mesh, "must be added to the system first")
    if system_address(body) != system_address(mesh):
        raise ParameterError("body", body, "must be a body of the mesh's system")
    o = ck.vector("origin", origin, 3)
    R = _frame(x_axis, y_axis)
    builder = fea.ChBuilderBeamEuler()
    builder.BuildBeam(mesh, section.chrono_section(fea), section.n_elements,
                      _v3(chrono, o), _v3(chrono, o + section.length * R[:, 0]),
                      _v3(chrono, R[:, 1]))
    nodes, elements = list(builder.GetLastBeamNodes()), list(builder.GetLastBeamElements())
    if not section.uniform:                  # one section per element
        for e, el in enumerate(elements):
            el.SetSection(section.chrono_section(fea, e))
    clamp = chrono.ChLinkMateGeneric(True, True, True, True, True, True)
    clamp.Initialize(nodes[0], body, False, nodes[0].Frame(), nodes[0].Frame())
    system.Add(clamp)
    return SpatialBeamLink(section, nodes, elements, clamp, o, R)


def static_system():
    """A Chrono SMC system without gravity, with the direct sparse solver
    (:func:`chrono_flex.chrono.system.configure_system`), for modal and static checks."""
    import pychrono as chrono

    from .system import configure_system

    sys_ = chrono.ChSystemSMC()
    sys_.SetGravitationalAcceleration(chrono.ChVector3d(0.0, 0.0, 0.0))
    configure_system(sys_, "euler")
    return sys_


def clamped_link(section, origin=(0.0, 0.0, 0.0), x_axis=(1.0, 0.0, 0.0),
                 y_axis=(0.0, 1.0, 0.0), system=None):
    """A spatial link clamped to a fixed ground body: (system, link). A new
    :func:`static_system` unless ``system`` is given."""
    import pychrono as chrono
    import pychrono.fea as fea

    sys_ = static_system() if system is None else system
    ground = chrono.ChBody()
    ground.SetFixed(True)
    sys_.Add(ground)
    mesh = fea.ChMesh()
    mesh.SetAutomaticGravity(False)
    sys_.Add(mesh)
    return sys_, add_link(sys_, mesh, section, ground, origin, x_axis, y_axis)


@dataclass
class HubArm:
    """A hub on a revolute joint to the ground carrying spatial links (a tree)."""

    system: object
    mesh: object
    hub: object
    joint: object
    links: list
    keep: list = None    # Python directors (the hub's motion function) held for Chrono

    def __post_init__(self):
        self._R0 = self._hub_rotation()

    def _hub_rotation(self):
        q = self.hub.GetRot()
        return quat_to_matrix(q.e0, q.e1, q.e2, q.e3)

    def tip_deflection(self, k=0):
        """Elastic displacement (m) of link k's tip in that link's frame as the hub has
        carried it (x along the undeformed link, y, z of its section)."""
        lk = self.links[k]
        R = self._hub_rotation() @ self._R0.T              # the hub's turn since the start
        p = self.links[k].nodes[-1].GetPos()
        rest = R @ (lk.origin + lk.section.length * lk.axes[:, 0])
        return (R @ lk.axes).T @ (np.array([p.x, p.y, p.z]) - rest)


def hub_with_links(system, section, hub_inertia, n_links=2, axis=(0.0, 0.0, 1.0),
                   hub_mass=1.0, radius=0.0, elevation=0.0, motion=None):
    """A hub turning about ``axis`` through the origin with ``n_links`` identical spatial
    links at equal angles around it, their roots at ``radius`` from the axis, each link's
    section y axis normal to the axis (so EI_z resists bending in the plane of rotation).

    ``elevation`` (rad): the links lean out of the plane normal to the axis by this angle,
    towards +axis (0: in the plane; a spin then also bends them out of their plane of
    rotation).
    ``motion``: None for a hub turning freely (``ChLinkLockRevolute`` to a fixed ground
    body), or a callable t -> (angle, rate, acceleration) of the hub, imposed by a
    ``ChLinkMotorRotationAngle``. ``hub_inertia``: the hub's moment of inertia about the
    axis, kg m^2 (positive). Returns a :class:`HubArm`.
    """
    import pychrono as chrono
    import pychrono.fea as fea

    J = ck.positive("hub_inertia", hub_inertia)
    n = ck.positive_int("n_links", n_links)
    r = ck.non_negative("radius", radius)
    m = ck.positive("hub_mass", hub_mass)
    gam = ck.real("elevation", elevation)
    if not abs(gam) < math.pi / 2:
        raise ParameterError("elevation", elevation, "must lie in (-pi/2, pi/2)")
    if motion is not None and not callable(motion):
        raise ParameterError("motion", motion, "must be None or callable(t) -> (angle, rate, "
                             "acceleration)")
    a = ck.vector("axis", axis, 3)
    if np.linalg.norm(a) == 0:
        raise ParameterError("axis", axis, "must be a non-zero vector")
    a = a / np.linalg.norm(a)
    e1 = np.cross(a, [1.0, 0.0, 0.0])
    if np.linalg.norm(e1) < 1e-6:
        e1 = np.cross(a, [0.0, 1.0, 0.0])
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(a, e1)
    ground = chrono.ChBody()
    ground.SetFixed(True)
    system.Add(ground)
    hub = chrono.ChBody()
    hub.SetMass(m)
    # the hub's frame has its z along the axis: the inertia about z is the one that acts
    Rh = np.column_stack([e1, e2, a])
    hub.SetRot(chrono.ChQuaterniond(*matrix_to_quat(Rh)))
    hub.SetInertiaXX(_v3(chrono, (J, J, J)))
    system.Add(hub)
    frame = chrono.ChFramed(chrono.VNULL, hub.GetRot())
    keep = []
    if motion is None:
        joint = chrono.ChLinkLockRevolute()
        joint.Initialize(hub, ground, frame)
    else:
        from .directors import PositionFunction

        joint = chrono.ChLinkMotorRotationAngle()
        joint.Initialize(hub, ground, frame)
        fn = PositionFunction.make(chrono, lambda t: tuple(np.atleast_1d(v) for v in motion(t)), 0)
        joint.SetAngleFunction(fn)
        keep.append(fn)                          # the director must outlive the step calls
    system.Add(joint)
    mesh = fea.ChMesh()
    mesh.SetAutomaticGravity(False)
    system.Add(mesh)
    links = []
    for k in range(n):
        phi = 2 * math.pi * k / n
        d = math.cos(phi) * e1 + math.sin(phi) * e2
        y = np.cross(a, d)
        along = math.cos(gam) * d + math.sin(gam) * a
        links.append(add_link(system, mesh, section, hub, r * d, along, y))
    return HubArm(system, mesh, hub, joint, links, keep)
