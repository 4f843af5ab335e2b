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
(:func:`hub_with_links`). :func:`arm_from_beams` builds a whole
:class:`chrono_flex.SpatialArm` (links, rigid bodies, hubs, revolute, prismatic and
fixed joints, a chain or a tree) at the frames the reference engine's kinematics gives,
its joints free, prescribed or driven by torques::

    tree = arm_from_beams(system, arm, n_elements=16, joint_motion=motion)
    step(system, 1e-3)
    tree.joint_coordinates(), tree.tip_vw_phi()
"""

from dataclasses import dataclass
import math

import numpy as np

from .. import _checks as ck
from ..errors import ParameterError
from ._detect import require_fea, require_pychrono
from .system import matrix_to_quat, quat_to_matrix
from .beam_section import (AXIAL_RATIO, PROPERTIES, SpatialBeamLink,  # noqa: F401
                           SpatialSection, _beam, _chframe, _frame, _v3, _weld, add_link,
                           clamped_link, static_system)


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
    chrono = require_pychrono()
    fea = require_fea()

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


# -- a whole SpatialArm from Chrono's beams ------------------------------------------------

@dataclass
class BeamTree:
    """A :class:`chrono_flex.SpatialArm` built from Chrono's beams and bodies
    (:func:`arm_from_beams`).

    Attributes:
        system, mesh: the ``ChSystem`` and the ``ChMesh`` holding every link's beam.
        arm: the SpatialArm it was built from.
        bodies: per arm body, a :class:`SpatialBeamLink` (a link) or a ``ChBody`` (a
            rigid body; its frame is the body's frame, its centre of mass at the origin).
        hubs: per arm body, the ``ChBody`` carrying the joint's ``hub_mass`` and
            ``hub_inertia`` (``slider_mass``) at a link's root, or None (no hub on a link;
            a rigid body carries its hub itself).
        joints: per arm body, the Chrono link of its joint: ``ChLinkMotorRotationAngle``
            or ``ChLinkMotorLinearPosition`` (prescribed), ``ChLinkMotorRotationTorque``
            or ``ChLinkMotorLinearForce`` (torque input), ``ChLinkMateRevolute`` or
            ``ChLinkMatePrismatic`` (free), ``ChLinkMateGeneric`` (fixed).
        base_body: the body the arm's base is fixed to.
        joint_values0: the joint coordinates the tree was built at (n_joints,).
        driven: whether the joints are motors (prescribed or torque input).
    """

    system: object
    mesh: object
    arm: object
    bodies: list
    hubs: list
    joints: list
    base_body: object
    joint_values0: np.ndarray
    driven: bool
    keep: list = None    # Python directors held for Chrono (the motion functions)

    @property
    def links(self):
        """Indices of the arm's links among its bodies."""
        return [i for i, b in enumerate(self.bodies) if isinstance(b, SpatialBeamLink)]

    def _joint_links(self):
        return [self.joints[i] for i, jt in enumerate(self.arm.joints) if jt.kind != "fixed"]

    def joint_coordinates(self):
        """Joint coordinates (n_joints,): angles (rad) and slides (m), in the arm's order.
        A free revolute joint reads its angle to within a turn of the start value
        (Chrono's relative angle is wrapped); a motor keeps count of turns."""
        out = []
        kinds = [jt.kind for jt in self.arm.joints if jt.kind != "fixed"]
        for q0, kind, lk in zip(self.joint_values0, kinds, self._joint_links()):
            if self.driven:
                v = lk.GetMotorAngle() if kind == "revolute" else lk.GetMotorPos()
            else:
                v = lk.GetRelativeAngle() if kind == "revolute" else lk.GetRelativePos()
            out.append(q0 + v)
        return np.array(out)

    def joint_rates(self):
        """Joint rates (n_joints,): rad/s and m/s."""
        out = []
        kinds = [jt.kind for jt in self.arm.joints if jt.kind != "fixed"]
        for kind, lk in zip(kinds, self._joint_links()):
            if self.driven:
                out.append(lk.GetMotorAngleDt() if kind == "revolute" else lk.GetMotorPosDt())
            else:
                out.append(lk.GetRelativeAngleDt() if kind == "revolute"
                           else lk.GetRelativePosDt())
        return np.array(out)

    def node_positions(self, body):
        """World positions (n_elements + 1, 3) of the nodes of link ``body``, root first."""
        lk = self._link(body)
        return np.array([_xyz(n.GetPos()) for n in lk.nodes])

    def _link(self, body):
        if not (isinstance(body, (int, np.integer)) and 0 <= body < len(self.bodies)
                and isinstance(self.bodies[body], SpatialBeamLink)):
            raise ParameterError("body", body, f"must be the index of a link, one of "
                                 f"{self.links}")
        return self.bodies[body]

    def tip_vw_phi(self):
        """(v, w, phi) of each link's tip in its own root frame (n_links, 3): the
        transverse displacements along the root's y and z axes (m) and the twist (rad,
        the axial component of the tip's rotation vector relative to the root), as the
        reference engine's ``Result.extra["tip_vw_phi"]``."""
        from scipy.spatial.transform import Rotation

        out = []
        for i in self.links:
            lk = self.bodies[i]
            p0, R0 = _pose(lk.nodes[0])
            p1, R1 = _pose(lk.nodes[-1])
            d = R0.T @ (p1 - p0)
            out.append([d[1], d[2], Rotation.from_matrix(R0.T @ R1).as_rotvec()[0]])
        return np.array(out)

    def tip_positions(self):
        """World positions of every link's tip node (n_links, 3)."""
        return np.array([_xyz(self.bodies[i].nodes[-1].GetPos()) for i in self.links])

    def tip_position(self):
        """World position of the last link's tip (the reference engine's
        ``tip_position``)."""
        return self.tip_positions()[-1]

    def raise_pending(self):
        """Raise the first exception caught in a motion or torque function since the last
        call, as a SimulationError chained to it (called by
        :func:`chrono_flex.chrono.system.step`)."""
        from ..errors import SimulationError

        for fn in self.keep or ():
            if fn.error is not None:
                (exc, t), fn.error = fn.error, None
                text = f"{type(exc).__name__}: {exc}"
                if isinstance(exc, SimulationError):     # a checked callback: named already
                    text = str(exc)
                raise SimulationError(f"a joint input of the beam tree failed: {text}",
                                      time=t) from exc

    def sync(self):
        """Nothing to move after a step (the items are Chrono's own)."""


def _xyz(v):
    return np.array([v.x, v.y, v.z])


def _pose(item):
    """(position, rotation matrix) of a node or body in the world."""
    p, q = item.GetPos(), item.GetRot()
    return _xyz(p), quat_to_matrix(q.e0, q.e1, q.e2, q.e3)


def _base_frame(chrono, base_frame):
    """(origin, rotation) of ``base_frame``: None (identity), a ``ChFramed`` or (origin
    (3,), rotation (3, 3)), checked."""
    if base_frame is None:
        return np.zeros(3), np.eye(3)
    if isinstance(base_frame, chrono.ChFramed):
        pos, rot = base_frame.GetPos(), base_frame.GetRot()
        return _xyz(pos), quat_to_matrix(rot.e0, rot.e1, rot.e2, rot.e3)
    try:
        o, R = base_frame
        o = np.asarray(o, dtype=float).reshape(3)
        R = np.asarray(R, dtype=float).reshape(3, 3)
    except (TypeError, ValueError):
        raise ParameterError("base_frame", base_frame, "must be a ChFramed or (origin "
                             "(3,), rotation (3, 3))") from None
    if not (np.all(np.isfinite(o)) and np.all(np.isfinite(R))
            and np.allclose(R.T @ R, np.eye(3), atol=1e-9) and np.linalg.det(R) > 0):
        raise ParameterError("base_frame", base_frame,
                             "must hold a finite origin and a proper rotation matrix")
    return o, R


def _link_sections(arm, n_elements, EA):
    """SpatialSection of each link (dict body -> section) with ``n_elements`` elements
    (None: the link's own; an int: every link; a sequence: one per link)."""
    import dataclasses

    from ..spatial.params import SpatialLink

    links = [i for i, b in enumerate(arm.bodies) if isinstance(b, SpatialLink)]
    if n_elements is None:
        counts = [arm.bodies[i].n_elements for i in links]
    elif np.ndim(n_elements) == 0:
        counts = [ck.positive_int("n_elements", n_elements)] * len(links)
    else:
        counts = list(n_elements)
        if len(counts) != len(links):
            raise ParameterError("n_elements", n_elements,
                                 f"must hold one count per link ({len(links)})")
        counts = [ck.positive_int(f"n_elements[{k}]", c) for k, c in enumerate(counts)]
    out = {}
    for i, n in zip(links, counts):
        link = arm.bodies[i]
        if n != link.n_elements:
            tabled = [k for k in PROPERTIES if isinstance(getattr(link, k), tuple)]
            if tabled or link.element_lengths is not None:
                raise ParameterError("n_elements", n_elements,
                                     f"cannot remesh link {i}: its section or element "
                                     "lengths are given per element (give its own count, "
                                     "or a uniform or callable section)")
            link = dataclasses.replace(link, n_elements=n)
        out[i] = SpatialSection.from_link(link, EA=EA)
    return out


def arm_from_beams(system, arm, n_elements=None, base_body=None, base_frame=None,
                   joint_values0=None, joint_motion=None, torque=None, EA=None):
    """Build ``arm`` (a :class:`chrono_flex.SpatialArm`) in ``system`` from Chrono's beams
    and bodies, in its configuration at ``joint_values0`` with straight links
    (docs/chrono.md §11). Returns a :class:`BeamTree`.

    Each link becomes a beam of ``ChElementBeamEuler`` (:class:`SpatialSection` from the
    link; ``n_elements``: None for each link's own count, one count for all links, or one
    per link) whose root node is the link's root frame. A rigid body becomes a ``ChBody``
    with its frame at the body's frame, its mass there and its inertia tensor about it.
    A joint's hub (``hub_mass``, ``hub_inertia`` about the axis, ``slider_mass``) goes into
    a rigid body's own mass, or onto a ``ChBody`` welded to a link's root node. The joints
    sit where the arm's kinematics puts them (chrono_flex.spatial.kinematics): at the
    parent's attachment frame (a link's tip node, a rigid body's frame, the base) shifted
    by ``offset``, their z axis along the joint axis; a child hangs on its parent's tip
    node directly.

    Args:
        system: the ``ChSystem``; its gravity acts on the tree (``arm.gravity`` is not
            used).
        base_body: the ``ChBody`` carrying the base (default: a new fixed ground body).
        base_frame: the arm's base frame in ``base_body``'s frame: a ``ChFramed`` or
            (origin, rotation 3 x 3); default the body's frame.
        joint_values0: joint coordinates to build at (n_joints,), default zeros, or with
            ``joint_motion`` its value at the system's time (which ``joint_values0``, if
            given, must equal).
        joint_motion: None for free joints (``ChLinkMateRevolute``, ``ChLinkMatePrismatic``),
            or callable(t) -> (theta, theta_d, theta_dd), each (n_joints,), as for
            ``SpatialArm.simulate``: every joint driven by a ``ChLinkMotorRotationAngle``
            or ``ChLinkMotorLinearPosition``.
        torque: None, or callable(t, q, qd) -> (n_joints,) joint torques (N m) and forces
            (N) of the joint coordinates q, qd (as ``SpatialArm.simulate`` takes it):
            every joint driven by a ``ChLinkMotorRotationTorque`` or
            ``ChLinkMotorLinearForce``. Excludes ``joint_motion``.
        EA: axial rigidity of the beams (default: :data:`AXIAL_RATIO`, see
            :class:`SpatialSection`).
    """
    chrono = require_pychrono()
    fea = require_fea()

    from ..spatial import kinematics as kin
    from ..spatial.arm import SpatialArm
    from .directors import PositionFunction

    if not isinstance(arm, SpatialArm):
        raise ParameterError("arm", arm, "must be a chrono_flex.SpatialArm")
    if joint_motion is not None and not callable(joint_motion):
        raise ParameterError("joint_motion", joint_motion,
                             "must be None or callable(t) -> (theta, theta_d, theta_dd)")
    if torque is not None and not callable(torque):
        raise ParameterError("torque", torque, "must be None or callable(t, q, qd) -> "
                             "(n_joints,)")
    if torque is not None and joint_motion is not None:
        raise ParameterError("torque", torque, "excludes `joint_motion` (the joints are "
                             "prescribed)")
    nj = arm.n_joints
    th0 = (np.zeros(nj) if joint_values0 is None
           else ck.vector("joint_values0", joint_values0, nj))
    if joint_motion is not None:
        # the motors count from the built pose: it must be the motion's start
        t = system.GetChTime()
        start = ck.vector("joint_motion(t)[0]", joint_motion(t)[0], nj)
        if joint_values0 is None:
            th0 = start
        elif np.max(np.abs(start - th0)) > 1e-9 * (1.0 + np.max(np.abs(th0))):
            raise ParameterError("joint_values0", joint_values0,
                                 f"must equal the joint motion's start {start.tolist()} "
                                 f"at t = {t} (the joints would jump)")
    sections = _link_sections(arm, n_elements, EA)
    o_base, R_base = _base_frame(chrono, base_frame)
    if base_body is None:
        base_body = chrono.ChBody()
        base_body.SetFixed(True)
        system.Add(base_body)
    elif not (hasattr(base_body, "GetIdentifier") and any(
            b.GetIdentifier() == base_body.GetIdentifier() for b in system.GetBodies())):
        raise ParameterError("base_body", base_body, "must be a body of ``system``")
    pb, Pb = _pose(base_body)
    ob, Rb = pb + Pb @ o_base, Pb @ R_base          # the arm's base frame in the world
    mesh = fea.ChMesh()
    system.Add(mesh)

    # the reference kinematics at q = (joint values, straight links): every frame
    layout = arm.model.layout
    q = np.zeros(arm.nq)
    q[arm.joint_index] = th0
    roots, attach = kin.tree_frames(layout, q)
    world = lambda f: (ob + Rb @ f.p, Rb @ f.R)  # noqa: E731 (reference frame -> world)

    bodies, hubs, joints, anchors, keep = [], [], [], [], []
    inputs = None if torque is None else _TreeInputs(torque, nj)
    for i, bl in enumerate(layout.bodies):
        jt, p = bl.joint, bl.parent
        o, R = world(roots[i])
        hub = None
        a_child = jt.mount.T @ np.asarray(getattr(jt, "axis", (0.0, 0.0, 1.0)))
        rotor = jt.hub_inertia * np.outer(a_child, a_child)    # in the child's frame
        if bl.is_link:
            nodes, elements = _beam(mesh, sections[i], o, R)
            child = nodes[0]
            if jt.hub_mass > 0 or jt.hub_inertia > 0:
                hub = _rigid(chrono, system, jt.hub_mass, rotor, o, R)
                _weld(system, nodes[0], hub, o, R)
                child = hub
            bodies.append(SpatialBeamLink(sections[i], nodes, elements, None, o, R))
            anchors.append(nodes[-1])
        else:
            child = _rigid(chrono, system, bl.body.mass + jt.hub_mass,
                           bl.body.inertia_matrix + rotor, o, R)
            bodies.append(child)
            anchors.append(child)
        hubs.append(hub)
        parent = base_body if p < 0 else anchors[p]
        # the joint frame: at the parent's attachment frame shifted by the offset (and by
        # the slide for a prismatic joint), z along the axis
        f = kin.shifted(kin.base_frame(arm.nq) if p < 0 else attach[p], jt.offset)
        if jt.kind == "fixed":
            joints.append(_weld(system, child, parent, o, R))
            continue
        u = Rb @ f.R @ np.asarray(jt.axis)
        Rj = _axis_frame(u)
        frame = _chframe(chrono, o, Rj)          # o: the child's root (the slide included)
        j = bl.joint_index
        k = int(np.flatnonzero(arm.joint_index == j)[0])
        if torque is not None:
            fn = inputs.function(chrono, k)
            keep.append(fn)
            lk = _motor(chrono, jt.kind, "force", child, parent, frame, fn)
        elif joint_motion is None:
            lk = chrono.ChLinkMateRevolute() if jt.kind == "revolute" \
                else chrono.ChLinkMatePrismatic()
            lk.Initialize(child, parent, False, frame, frame)
        else:
            fn = PositionFunction.make(chrono, _shifted_motion(joint_motion, th0), k)
            keep.append(fn)                  # the director must outlive the step calls
            lk = _motor(chrono, jt.kind, "motion", child, parent, frame, fn)
        system.Add(lk)
        joints.append(lk)
    tree = BeamTree(system, mesh, arm, bodies, hubs, joints, base_body, th0,
                    joint_motion is not None or torque is not None, keep)
    if inputs is not None:
        inputs.tree = tree
    if keep:
        from .system import REGISTRY_ATTR

        if not hasattr(system, REGISTRY_ATTR):
            setattr(system, REGISTRY_ATTR, [])
        getattr(system, REGISTRY_ATTR).append(tree)
    return tree


class _TreeInputs:
    """The joint torques of ``torque(t, q, qd)`` for a tree's motors: evaluated from the
    joint state read off the motors, once per (t, state) for all joints (Chrono calls each
    motor's function several times per step, with the time only)."""

    def __init__(self, torque, nj):
        self.torque, self.nj, self.tree = torque, nj, None
        self._key, self._value = None, np.zeros(nj)
        self.error = None

    def value(self, t):
        from .._callbacks import call_vector

        q, qd = self.tree.joint_coordinates(), self.tree.joint_rates()
        key = (t, *q, *qd)
        if key != self._key:
            self._value = call_vector("torque", self.torque, self.nj, t, q, qd)
            self._key = key
        return self._value

    def function(self, chrono, k):
        """A ChFunction giving component k; an exception is kept (on the function, as
        the motion functions keep theirs) and raised after the step."""
        inputs = self

        class TreeTorqueFunction(chrono.ChFunction):
            def __init__(self):
                super().__init__()
                self.error = None

            def GetVal(self, t):
                if self.error is not None:
                    return 0.0
                try:
                    return float(inputs.value(t)[k])
                except BaseException as exc:      # noqa: BLE001 - re-raised after the step
                    self.error = (exc, t)
                    return 0.0

            def Clone(self):
                return self

        return TreeTorqueFunction()


def _shifted_motion(joint_motion, th0):
    """t -> (theta - theta0, theta_d, theta_dd): the motors count from the built pose."""
    def motion(t):
        th, thd, thdd = joint_motion(t)
        return np.atleast_1d(th) - th0, np.atleast_1d(thd), np.atleast_1d(thdd)
    return motion


#: The Chrono motor of a driven joint, by joint kind and what drives it (a torque or force
#: input, or a prescribed motion), and the method that takes its function.
_MOTORS = {("revolute", "force"): ("ChLinkMotorRotationTorque", "SetTorqueFunction"),
           ("prismatic", "force"): ("ChLinkMotorLinearForce", "SetForceFunction"),
           ("revolute", "motion"): ("ChLinkMotorRotationAngle", "SetAngleFunction"),
           ("prismatic", "motion"): ("ChLinkMotorLinearPosition", "SetMotionFunction")}


def _motor(chrono, kind, driven_by, child, parent, frame, fn):
    """The motor of :data:`_MOTORS` between ``child`` and ``parent`` at ``frame`` (z the
    joint axis), driven by the Chrono function ``fn``."""
    name, setter = _MOTORS[kind, driven_by]
    lk = getattr(chrono, name)()
    lk.Initialize(child, parent, frame)
    getattr(lk, setter)(fn)
    return lk


def _axis_frame(u):
    """A rotation whose z column is the unit vector u (Chrono's joints act about z)."""
    e = np.array([1.0, 0.0, 0.0]) if abs(u[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(e, u)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(u, x), u])


def _rigid(chrono, system, mass, inertia, o, R):
    """A ``ChBody`` at (o, R) with ``mass`` at its origin and ``inertia`` (3 x 3, about
    the origin, in its frame). Chrono's direct solvers take a zero mass or a singular
    inertia (a hub's rotor a a^T) when constraints hold the motion they leave free."""
    b = chrono.ChBody()
    b.SetMass(float(mass))
    I = np.asarray(inertia, dtype=float)
    b.SetInertiaXX(_v3(chrono, np.diag(I)))
    b.SetInertiaXY(_v3(chrono, (I[0, 1], I[0, 2], I[1, 2])))
    b.SetPos(_v3(chrono, o))
    b.SetRot(chrono.ChQuaterniond(*matrix_to_quat(R)))
    system.Add(b)
    return b
