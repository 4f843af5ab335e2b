"""Chrono bodies welded to an arm of Chrono's beams (docs/chrono.md §8).

:meth:`BeamArm.attach <chrono_flex.chrono.beam_scene.BeamArm.attach>` is the
chrono-beam formulation's counterpart of
:meth:`FlexibleLink.attach <chrono_flex.chrono.element.FlexibleLink.attach>`, with the
same signature and the same report (:class:`BeamWeld`: gap, angle, force, moment), so a
scene switches formulation with one argument. The beam nodes are
``ChNodeFEAxyzrot``, which are ``ChBodyFrame``: the weld is Chrono's own
``ChLinkMateFix`` between the node at the station and the body, an exact constraint
(no bushing: the gap is the constraint residual, at Newton's tolerance). The station
must fall on a node (s = k L / n); a mesh with a node elsewhere is a different mesh,
and the link's ``n_elements`` chooses it.
"""

import numpy as np

from ..errors import ParameterError
from ..planar.floating import rotation_angle
from .attachment import WeldErrors, check_station, system_address
from .system import quat_to_matrix


def _pose(item):
    return (np.asarray(item.GetPos().to_numpy(), dtype=float),
            np.asarray(item.GetRotMat().to_numpy(), dtype=float))


class BeamWeld(WeldErrors):
    """A body welded to a beam node by a ``ChLinkMateFix`` (made by ``BeamArm.attach``).

    Attributes:
        body, link, s, node: the body, the station (link number, abscissa in m) and its
            beam node.
        joint: the ``ChLinkMateFix`` (frame 1 on the node, frame 2 on the body, both at
            the node's position and orientation when attached).
        offset (3,), frame_rot (3, 3): the weld frame in the body's frame.
    """

    stiffness = (np.inf, np.inf)    # an exact constraint: no bushing
    damping = (0.0, 0.0)
    dissipated = 0.0

    def __init__(self, owner, body, link, s, node, joint, offset, frame_rot):
        self.owner, self.body, self.link, self.s = owner, body, int(link), float(s)
        self.node, self.joint = node, joint
        self.offset, self.frame_rot = offset, frame_rot
        self.released_at = None

    @property
    def released(self):
        """Whether :meth:`release` has opened the weld."""
        return self.released_at is not None

    def release(self):
        """Open the weld: the ``ChLinkMateFix`` leaves the system, the body moves freely
        from the next step on (same as :meth:`Attachment.release
        <chrono_flex.chrono.attachment.Attachment.release>`); ``force`` and ``moment`` are
        zero afterwards. Releasing twice is an error."""
        if self.released:
            raise ParameterError("attachment", self, f"was already released at t = "
                                 f"{self.released_at} s")
        owner, body, chrono = self.owner, self.body, self.owner.chrono
        F, M = self._wrench()
        frame = self.joint.GetFrame2Abs()    # held: GetPos() refers into this frame
        p_weld = np.array(frame.GetPos().to_numpy(), dtype=float)
        xb, Ab = _pose(body)
        owner.system.Remove(self.joint)
        owner.welds = [w for w in owner.welds if w is not self]
        ident = body.GetIdentifier()
        if all(w.body.GetIdentifier() != ident for w in owner.welds):
            owner.count_body(body, welded=False)
        self.released_at = float(owner.system.GetChTime())
        # HHT starts the next step from the stored accelerations: take the weld's force
        # and moment (about the centre of mass) out of the body's. Chrono's acceleration
        # assembly (DoAssembly) would also move every velocity by a 1e-6 s step.
        J = np.asarray(body.GetInertia().to_numpy(), dtype=float)
        M_c = M + np.cross(p_weld - xb, F)
        a = np.asarray(body.GetPosDt2().to_numpy(), dtype=float) - F / body.GetMass()
        alpha = (np.asarray(body.GetAngAccLocal().to_numpy(), dtype=float)
                 - np.linalg.solve(J, Ab.T @ M_c))
        body.SetPosDt2(chrono.ChVector3d(*a))
        body.SetAngAccLocal(chrono.ChVector3d(*alpha))

    def error(self):
        """(position gap |e| in m, angle of the relative rotation in rad) now: the
        constraint's residual."""
        xn, An = _pose(self.node)
        xb, Ab = _pose(self.body)
        gap = xn - (xb + Ab @ self.offset)
        return float(np.linalg.norm(gap)), rotation_angle((Ab @ self.frame_rot).T @ An)

    def _wrench(self):
        if self.released:
            return np.zeros(3), np.zeros(3)
        w = self.joint.GetReaction2()
        fr = self.joint.GetFrame2Abs()
        R = quat_to_matrix(*fr.GetRot().to_numpy())
        return (R @ np.asarray(w.force.to_numpy(), dtype=float),
                R @ np.asarray(w.torque.to_numpy(), dtype=float))

    @property
    def force(self):
        """Force (3,) the link applies to the body through the weld, world, N."""
        return self._wrench()[0]

    @property
    def moment(self):
        """Moment (3,) the link applies to the body through the weld, about the weld
        point, world, N m."""
        return self._wrench()[1]

    def energy(self):
        """Elastic energy stored in the weld: none (a rigid constraint), J."""
        return 0.0


def attach(owner, body, link=-1, s=None, frame=None):
    """``BeamArm.attach``: weld ``body`` to the node at abscissa ``s`` of link ``link``
    (see :meth:`chrono_flex.chrono.beam_scene.BeamArm.attach`)."""
    chrono = owner.chrono
    if not isinstance(body, chrono.ChBody):
        raise ParameterError("body", body, "must be a chrono ChBody (a body to weld to the link)")
    if system_address(body) is None or system_address(body) != system_address(owner.ground):
        raise ParameterError("body", body, "is not in the beams' system (add it to the same "
                             "ChSystem first)")
    if body.IsFixed():
        raise ParameterError("body", body, "is fixed: weld a free body")
    link, s = check_station(link, s, len(owner.links), lambda k: owner.links[k].length)
    lb = owner.links[link]
    L = lb.length
    k = s * lb.n_elements / L
    node_k = int(round(k))
    if abs(k - node_k) > 1e-9 * max(1.0, k):
        stations = [round(j * L / lb.n_elements, 12) for j in range(lb.n_elements + 1)]
        raise ParameterError("s", s, f"must fall on a beam node of link {link} (stations "
                             f"{stations} m); choose n_elements to put a node there")
    node = lb.nodes[node_k]
    if frame is not None:
        raise ParameterError("frame", frame, "is not supported by the chrono-beam "
                             "formulation (the body is welded where it is now)")
    xn, An = _pose(node)
    xb, Ab = _pose(body)
    # a weld moves both as one: the body takes the node's velocity
    w = np.asarray(node.GetAngVelParent().to_numpy(), dtype=float)
    v = np.asarray(node.GetPosDt().to_numpy(), dtype=float) + np.cross(w, xb - xn)
    body.SetPosDt(owner.vector3(v))
    body.SetAngVelParent(owner.vector3(w))
    joint = chrono.ChLinkMateFix()
    fr = node.Frame()
    owner.keep(fr)
    joint.Initialize(node, body, fr)
    owner.system.Add(joint)
    owner.keep(joint)
    weld = BeamWeld(owner, body, link, s, node, joint, Ab.T @ (xn - xb), Ab.T @ An)
    owner.welds.append(weld)
    owner.count_body(body)
    owner.initialize_accelerations()
    return weld


__all__ = ["BeamWeld", "attach"]
