"""Contact along a flexible link (docs/chrono.md §13).

Two routes, one per formulation, both switched on by one call with a user material
(``ChContactMaterialNSC`` or ``ChContactMaterialSMC``, matching the system):

* Chrono's beams (:meth:`BeamArm.enable_contact
  <chrono_flex.chrono.beam_scene.BeamArm.enable_contact>`): a
  ``ChContactSurfaceNodeCloud`` on the beam mesh, one sphere of the given radius at every
  node of the link. Contact forces act on the nodes' own coordinates.
* The element (:meth:`Welds.enable_contact
  <chrono_flex.chrono.attachment.Welds.enable_contact>`, for the planar and the spatial
  element): one light body per station, welded to the link by :meth:`attach`, carrying
  a box of the section's thickness along the station's tangent over the stretch of
  centre line nearest that station. Contact forces act on the bodies and reach the
  link's coordinates through the welds.

:class:`LinkContact` reads the contact force at each station (world, N). The checks
here stop bad input (a system without a collision system, a material of the wrong
method or with a negative coefficient, a shape larger than an element) with an error
that names it.
"""

import warnings

import numpy as np

from ..errors import ParameterError
from ._detect import require_pychrono

#: Each station body's mass relative to the link's mass per station: light enough that
#: the link's inertia is unchanged to this fraction, heavy enough to keep the weld's
#: matrices well scaled.
STATION_MASS_FRACTION = 1e-6
#: The same in an SMC system (docs/chrono.md §13): Chrono's Hooke damping is g_n times
#: the pair's effective mass, the station body's, so a station of 1e-6 of the link
#: leaves the touch undamped; at 1e-3 the station's own mode sqrt(k_p / m_s) (about
#: 4e5 rad/s for a weld of 1.5e8 N/m at 1 g) stays far above the contact's.
SMC_STATION_MASS_FRACTION = 1e-3

_NSC_COEFFICIENTS = ("SlidingFriction", "StaticFriction", "RollingFriction",
                     "SpinningFriction", "Restitution", "Cohesion", "Compliance",
                     "ComplianceT", "ComplianceRolling", "ComplianceSpinning", "DampingF")
_SMC_COEFFICIENTS = ("SlidingFriction", "StaticFriction", "RollingFriction",
                     "SpinningFriction", "Restitution", "YoungModulus", "PoissonRatio",
                     "Kn", "Kt", "Gn", "Gt", "Adhesion", "AdhesionMultDMT",
                     "AdhesionSPerko")


def check_system(system, owner="link"):
    """The system must have a collision system (``SetCollisionSystemType``) before the
    link's contact shapes can be added to it."""
    if system.GetCollisionSystem() is None:
        raise ParameterError(f"{owner}.system", system,
                             "has no collision system: call system.SetCollisionSystemType("
                             "chrono.ChCollisionSystem.Type_BULLET) before enable_contact")


def check_material(system, material):
    """A ``ChContactMaterialNSC`` in an NSC system or a ``ChContactMaterialSMC`` in an
    SMC system, every coefficient >= 0 and finite; returns the material."""
    chrono = require_pychrono()
    smc = isinstance(system, chrono.ChSystemSMC)
    want = chrono.ChContactMaterialSMC if smc else chrono.ChContactMaterialNSC
    if not isinstance(material, want):
        raise ParameterError("material", material,
                             f"must be a chrono.{want.__name__} (the system is "
                             f"{'SMC' if smc else 'NSC'})")
    for name in (_SMC_COEFFICIENTS if smc else _NSC_COEFFICIENTS):
        value = float(getattr(material, "Get" + name)())
        if not np.isfinite(value) or value < 0:
            raise ParameterError(f"material.{name}", value, "must be a finite number >= 0")
    return material


def check_size(name, size, element_length, what):
    """A contact shape of extent ``size`` (m) must fit in one element (``element_length``):
    a larger one could not follow the link's deformation."""
    size = float(size)
    if not np.isfinite(size) or size <= 0:
        raise ParameterError(name, size, "must be a length > 0 m")
    if size > element_length:
        raise ParameterError(name, size, f"gives a {what} of {size:.6g} m, larger than the "
                             f"element ({element_length:.6g} m): the contact shape could "
                             "not follow the link's deformation")
    return size


class LinkContact:
    """The contact shapes of one link and the forces on them.

    Attributes: ``stations`` (arc lengths along the undeformed link, m), ``contactables``
    (one Chrono contactable per station: a beam node's contact node, or the station
    body), ``material``, ``size`` (sphere radius for beams, section thickness for the
    element), ``bodies`` and ``welds`` (element only).
    """

    def __init__(self, system, stations, contactables, material, size, bodies=(),
                 welds=(), surface=None):
        self.system = system
        self.stations = np.asarray(stations, dtype=float)
        self.contactables = list(contactables)
        self.material = material
        self.size = float(size)
        self.bodies = list(bodies)
        self.welds = list(welds)
        self.surface = surface

    def forces(self):
        """Contact force on each station's shape after the last step, world, N
        (n_stations, 3): the sum over its contacts (Chrono's contact container)."""
        cc = self.system.GetContactContainer()
        return np.array([np.asarray(cc.GetContactableForce(c).to_numpy(), dtype=float)
                         for c in self.contactables]).reshape(len(self.contactables), 3)

    def total_force(self):
        """Sum of :meth:`forces` over the stations, world, N (3,)."""
        return self.forces().sum(axis=0)


def beam_contact(beam_arm, material, radius, link=-1):
    """Spheres of ``radius`` at the nodes of link ``link`` of a BeamArm (a
    ``ChContactSurfaceNodeCloud`` on its mesh); returns a :class:`LinkContact`."""
    from ._detect import require_fea

    fea = require_fea()
    system = beam_arm.system
    check_system(system, "beam_arm")
    check_material(system, material)
    try:
        lb = beam_arm.links[link]
    except (IndexError, TypeError):
        raise ParameterError("link", link, f"must index one of the {len(beam_arm.links)} "
                             "links") from None
    le = lb.length / lb.n_elements
    radius = check_size("radius", radius, 0.5 * le, "sphere radius (half a diameter)")
    surf = fea.ChContactSurfaceNodeCloud(material)
    beam_arm.mesh.AddContactSurface(surf)
    for node in lb.nodes:
        surf.AddNode(node, radius)
    stations = np.linspace(0.0, lb.length, lb.n_elements + 1)
    nodes = [surf.GetNodeRot(i) for i in range(surf.GetNumNodesRot())]
    return LinkContact(system, stations, nodes, material, radius, surface=surf)


def _warn_undamped_step(chrono, system):
    """Warn when an SMC system steps with HHT at alpha = 0: the station bodies' own mode
    (omega h >> 1) then rings undamped (the trapezoidal rule's amplification tends to
    -1), and the contact with it (docs/chrono.md §13)."""
    ts = system.GetTimestepper()
    if ts is None or ts.GetType() != chrono.ChTimestepper.Type_HHT:
        return
    alpha = chrono.CastToChTimestepperHHT(ts).GetAlpha()
    if alpha > -1e-3:
        warnings.warn(f"SMC contact on the element with HHT alpha = {alpha:g}: the station "
                      "bodies' mode is far above the step and will ring undamped; use "
                      "alpha < 0 (e.g. -0.3) or implicit Euler (docs/chrono.md §13)",
                      UserWarning, stacklevel=3)


def station_spans(stations, length, reach):
    """The stretch of centre line each station's box covers: up to the midpoint to
    the neighbouring stations, at most ``reach`` (half an element) either side, within
    [0, ``length``]; (n, 2) arc lengths."""
    s = np.asarray(stations, dtype=float)
    mid = 0.5 * (s[1:] + s[:-1])
    lo = np.maximum(np.concatenate([[0.0], mid]), s - reach)
    hi = np.minimum(np.concatenate([mid, [length]]), s + reach)
    return np.column_stack([np.maximum(lo, 0.0), np.minimum(hi, length)])


def _link_mass(lk):
    """A link's mass, kg (planar ``Link.mass``; a spatial link: mean rho_A times L)."""
    mass = getattr(lk, "mass", None)
    if mass is None:
        nodes = np.asarray(lk.nodes, dtype=float)
        mass = sum(lk.element_average("rho_A", a, c) * (c - a)
                   for a, c in zip(nodes[:-1], nodes[1:]))
    return float(mass)


#: Collision envelope and safe margin of the station boxes, relative to the thickness
#: (Chrono's defaults, 3 cm and 1 cm, would swallow a thin section).
ENVELOPE_FRACTION = 0.5
MARGIN_FRACTION = 0.1

#: Collision family of the element's station bodies: they overlap their neighbours and
#: do not collide with one another.
STATION_FAMILY = 3


def element_contact(owner, material, thickness, stations=None, link=-1,
                    stiffness_ratio=None, shape="box", family=STATION_FAMILY,
                    station_mass=None):
    """Station bodies welded to a planar or spatial element, each with a box of the
    section's ``thickness`` along its tangent over its span (:func:`station_spans`: at
    most one element);
    returns a :class:`LinkContact` (docs/chrono.md §13). ``shape`` "sphere": a sphere of
    diameter ``thickness`` at each station instead (the beams' node cloud's shape).
    ``station_mass``: each station body's mass, kg (default
    :data:`STATION_MASS_FRACTION` of the link's mass per station, in an SMC system
    :data:`SMC_STATION_MASS_FRACTION`: Chrono's Hooke damping is proportional to it,
    docs/chrono.md §13). In an SMC system stepped by HHT with alpha = 0 a
    :class:`UserWarning` says that the station bodies' mode will not be damped."""
    chrono = require_pychrono()
    system = owner.system
    check_system(system, "link")
    check_material(system, material)
    lengths = owner.link_lengths()
    n_links = len(lengths)
    if not isinstance(link, (int, np.integer)) or not -n_links <= link < n_links:
        raise ParameterError("link", link, f"must index one of the {n_links} links")
    k = int(link) % n_links
    L = lengths[k]
    b, lk = owner.contact_link(k)
    n_el = len(b.elements) if getattr(b, "elements", None) else 1
    le = L / n_el
    thickness = check_size("thickness", thickness, le, "section thickness")
    if shape not in ("box", "sphere"):
        raise ParameterError("shape", shape, "must be 'box' or 'sphere'")
    if stations is None:
        stations = np.linspace(0.0, L, n_el + 1)
    stations = np.asarray(stations, dtype=float).ravel()
    if stations.size == 0 or not np.all(np.isfinite(stations)) or np.any(stations < 0) \
            or np.any(stations > L) or np.any(np.diff(stations) <= 0):
        raise ParameterError("stations", stations.tolist(),
                             f"must be increasing arc lengths in [0, {L:g}] m")
    spans = station_spans(stations, L, 0.5 * le)
    smc = isinstance(system, chrono.ChSystemSMC)
    if smc:
        _warn_undamped_step(chrono, system)
    if station_mass is None:
        fraction = SMC_STATION_MASS_FRACTION if smc else STATION_MASS_FRACTION
        mass = fraction * _link_mass(lk) / len(stations)
    else:
        mass = float(station_mass)
        if not np.isfinite(mass) or mass <= 0:
            raise ParameterError("station_mass", station_mass, "must be a mass > 0 kg")
    bodies, welds, kw = [], [], {}
    if stiffness_ratio is not None:
        kw["stiffness_ratio"] = stiffness_ratio
    for s, (lo, hi) in zip(stations, spans):
        p, A = owner.station_pose(k, s)
        body = chrono.ChBody()
        body.SetMass(mass)
        J = mass * max((hi - lo) ** 2, thickness ** 2) / 12.0
        body.SetInertiaXX(chrono.ChVector3d(J, J, J))
        body.SetPos(chrono.ChVector3d(*(float(v) for v in p)))
        R = chrono.ChMatrix33d()
        R.SetFromAxisX(chrono.ChVector3d(*A[:, 0]), chrono.ChVector3d(*A[:, 1]))
        body.SetRot(R.GetQuaternion())
        # a box along the station's tangent (the body's X), centred on the span, the
        # section's thickness high and wide (a capsule passes through boxes in
        # PyChrono 10's Bullet: docs/chrono.md §13)
        if shape == "box":
            geom = chrono.ChCollisionShapeBox(material, float(hi - lo), thickness, thickness)
            frame = chrono.ChFramed(chrono.ChVector3d(0.5 * (lo + hi) - s, 0.0, 0.0),
                                    chrono.QUNIT)
        else:
            geom = chrono.ChCollisionShapeSphere(material, 0.5 * thickness)
            frame = chrono.ChFramed(chrono.ChVector3d(0.0, 0.0, 0.0), chrono.QUNIT)
        body.AddCollisionShape(geom, frame)
        cm = body.GetCollisionModel()
        # Chrono's default envelope (3 cm) and safe margin (1 cm) exceed a thin section
        cm.SetEnvelope(ENVELOPE_FRACTION * thickness)
        cm.SetSafeMargin(MARGIN_FRACTION * thickness)
        cm.SetFamily(int(family))
        cm.DisallowCollisionsWith(int(family))
        body.EnableCollision(True)
        system.Add(body)
        welds.append(owner.attach(body, k, float(s), **kw))
        bodies.append(body)
    return LinkContact(system, stations, bodies, material, thickness, bodies=bodies,
                       welds=welds)


__all__ = ["LinkContact", "SMC_STATION_MASS_FRACTION", "STATION_FAMILY",
           "STATION_MASS_FRACTION", "beam_contact", "check_material",
           "check_size", "check_system", "element_contact", "station_spans"]
