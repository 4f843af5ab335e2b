"""Chrono bodies welded to a FlexibleLink at any station (docs/chrono.md §8).

:meth:`FlexibleLink.attach <chrono_flex.chrono.element.FlexibleLink.attach>` welds a
free ``ChBody`` to the link at arc length s of one of its links through a stiff bushing
(a spring-damper in all six relative directions) whose generalized forces join the
element's ``ComputeQ`` (:func:`chrono_flex.planar.floating.attachment_terms`). The body
is one of the element load's loadables, so Chrono's finite-difference Jacobian
(``IsStiff``) couples it implicitly with the link: whatever Chrono applies to the body
(joints, motors, springs, contacts, gravity, ``AddForce``) bends the link, and the link
carries the body. :class:`Attachment` is what ``attach`` returns: the weld's
parameters and what it reports (the gap, the force and moment it transmits, its energy).
"""

import numpy as np

from ..errors import ParameterError
from ..planar import floating
from .system import REGISTRY_ATTR, quat_to_matrix


def body_state(body):
    """(position, rotation matrix, velocity (world), angular velocity (local)) of a body."""
    return (np.asarray(body.GetPos().to_numpy(), dtype=float),
            np.asarray(body.GetRotMat().to_numpy(), dtype=float),
            np.asarray(body.GetPosDt().to_numpy(), dtype=float),
            np.asarray(body.GetAngVelLocal().to_numpy(), dtype=float))


def body_state_from(x, w):
    """The same from a body's 7 entries of Chrono's state x and 6 of w (docs/chrono.md
    eq. (2.1))."""
    return x[0:3], quat_to_matrix(*x[3:7]), w[0:3], w[3:6]


def system_address(item):
    """Address of the ``ChSystem`` an item belongs to (None when in none): SWIG hands out
    a new proxy per call, so systems are compared by address."""
    sys_ = item.GetSystem()
    return None if sys_ is None else int(sys_)


class Attachment:
    """A body welded to a :class:`FlexibleLink` by a stiff bushing (docs/chrono.md §8).

    Made by :meth:`FlexibleLink.attach`; not built directly. The bushing pulls the
    body's attachment frame (``offset``, ``frame_rot`` in the body frame) onto the
    link's station frame (origin on the deformed centreline at abscissa ``s`` of link
    ``link``, X along its tangent, Z along the plane normal), with the stiffness and
    damping of :func:`chrono_flex.planar.floating.bushing_stiffness` and
    :func:`chrono_flex.planar.floating.bushing_wrench`.

    Attributes:
        body, link, s: the body and the station (link number, abscissa in m).
        offset (3,), frame_rot (3, 3): the attachment frame in the body frame.
        stiffness: (k_p N/m, k_r N m/rad); damping: (c_p N s/m, c_r N m s/rad).
        dissipated: energy taken by the bushing's dampers since it was attached (J),
            summed (trapezoidal rule) after every step.
    """

    def __init__(self, owner, body, link, s, offset, frame_rot, stiffness, damping):
        self.owner = owner
        self.body = body
        self.link = int(link)
        self.s = float(s)
        self.offset = np.asarray(offset, dtype=float)
        self.frame_rot = np.asarray(frame_rot, dtype=float)
        self.stiffness = tuple(float(k) for k in stiffness)
        self.damping = tuple(float(c) for c in damping)
        self.dissipated = 0.0
        self._last = None           # (time, power) at the last step
        self._shapes = owner.model.bases[self.link].values(np.array([self.s]))[:2]
        self.index = None           # the body's place among the load's bodies (set by the link)
        self._kin_key, self._kin = None, None

    @property
    def gains(self):
        return self.stiffness + self.damping

    def terms(self, q=None, qd=None, body=None, placement=None):
        """:func:`chrono_flex.planar.floating.attachment_terms` now (or at given states)."""
        lk = self.owner
        q = lk.q() if q is None else np.asarray(q, dtype=float)
        qd = lk.qd() if qd is None else np.asarray(qd, dtype=float)
        # the station's kinematics depend on (q, qd) only: kept for the Jacobian's
        # perturbations of the body's coordinates
        key = q.tobytes() + qd.tobytes()
        if key != self._kin_key:
            self._kin = floating.station(lk.model, q, qd, self.link, self.s, self._shapes)
            self._kin_key = key
        return floating.attachment_terms(
            lk.model, q, qd, self.link, self.s,
            lk._placement_state() if placement is None else placement,
            body_state(self.body) if body is None else body, self.offset, self.frame_rot,
            self.gains, kinematics=self._kin)

    def error(self):
        """(position gap |e| in m, angle of the relative rotation in rad) now."""
        t = self.terms()
        return float(np.linalg.norm(t["gap"])), floating.rotation_angle(t["rot_rel"])

    @property
    def position_error(self):
        """|e|: distance between the body's attachment point and the link's station, m."""
        return self.error()[0]

    @property
    def angle_error(self):
        """Angle of the rotation between the body's attachment frame and the station's, rad."""
        return self.error()[1]

    @property
    def force(self):
        """Force (3,) the link applies to the body through the weld, world, N."""
        return self.terms()["force"]

    @property
    def moment(self):
        """Moment (3,) the link applies to the body through the weld, about the
        attachment point, world, N m."""
        return self.terms()["moment"]

    def energy(self):
        """Elastic energy stored in the bushing, J."""
        return self.terms()["energy"]

    def _after_step(self, time):
        """Add the dampers' work over the last step (trapezoidal rule in time)."""
        if self.damping == (0.0, 0.0):
            return
        power = self.terms()["power"]
        if self._last is not None:
            t0, p0 = self._last
            self.dissipated += 0.5 * (p0 + power) * (time - t0)
        self._last = (time, power)


def start_body_acceleration(chrono, system, body):
    """Give an attached body the accelerations of gravity and of every weld on it.

    Chrono's HHT starts from the accelerations stored in the items; a body left at zero
    acceleration makes the whole run first order in the step (docs/chrono.md §2), and a
    welded payload shows it. Newton-Euler for the body's centre of mass, with the
    bushing forces F_k and moments M_k of every :class:`Attachment` on it (every
    FlexibleLink of the system, so a body closing a loop gets all of them):

        m a = m g + sum F_k,     J alpha = A^T sum (M_k + (A d_k) x F_k) - omega x J omega

    (J, omega, alpha in the body frame). Forces of Chrono joints, motors and ChForces
    are not known here.
    """
    g = np.asarray(system.GetGravitationalAcceleration().to_numpy(), dtype=float)
    m = body.GetMass()
    x, A, _, w = body_state(body)
    J = np.asarray(body.GetInertia().to_numpy(), dtype=float)
    F = m * g
    T = -np.cross(w, J @ w)
    for owner in getattr(system, REGISTRY_ATTR, ()):
        for att in getattr(owner, "attachments", ()):
            if att.body.GetIdentifier() != body.GetIdentifier():
                continue
            t = att.terms()
            F = F + t["Q_body"][:3]
            T = T + t["Q_body"][3:]
    body.SetPosDt2(chrono.ChVector3d(*(F / m)))
    body.SetAngAccLocal(chrono.ChVector3d(*np.linalg.solve(J, T)))


def check_attachment(chrono, owner, body, link, s, frame):
    """Checked (body, link, s, offset, frame_rot) for :meth:`FlexibleLink.attach`; the
    default frame welds the body where it is now."""
    if not isinstance(body, chrono.ChBody):
        raise ParameterError("body", body, "must be a chrono ChBody (a body to weld to the link)")
    if system_address(body) is None or system_address(body) != system_address(owner.shafts[0]):
        raise ParameterError("body", body, "is not in the flexible link's system (add it to "
                             "the same ChSystem first)")
    if body.IsFixed():
        raise ParameterError("body", body, "is fixed: weld a free body (fix the link to the "
                             "ground with a Chrono joint on a free body instead)")
    if body is owner.tip_body or (owner.parent_body is not None and _same(body, owner.parent_body)):
        raise ParameterError("body", body, "is the link's own parent or tip marker body")
    nl = len(owner.arm.links)
    if isinstance(link, bool) or not isinstance(link, (int, np.integer)) or not -nl <= link < nl:
        raise ParameterError("link", link, f"must be a link number in {-nl}..{nl - 1}")
    link = int(link) % nl
    L = owner.model.bases[link].length
    if s is None:
        s = L
    try:
        s = float(s)
    except (TypeError, ValueError):
        raise ParameterError("s", s, "must be an arc length in m") from None
    if not 0.0 <= s <= L:
        raise ParameterError("s", s, f"must lie on link {link}: 0 <= s <= {L} m")
    Ab = np.asarray(body.GetRotMat().to_numpy(), dtype=float)
    xb = np.asarray(body.GetPos().to_numpy(), dtype=float)
    if frame is None:
        pos, rot = owner._station_pose(link, s)
        return body, link, s, Ab.T @ (pos - xb), Ab.T @ rot
    if not isinstance(frame, chrono.ChFramed):
        raise ParameterError("frame", frame, "must be a ChFramed (the attachment frame in "
                             "the body's frame) or None")
    return (body, link, s, np.asarray(frame.GetPos().to_numpy(), dtype=float),
            np.asarray(frame.GetRotMat().to_numpy(), dtype=float))


def _same(a, b):
    """Whether two SWIG proxies wrap the same Chrono item."""
    return a is b or a.GetIdentifier() == b.GetIdentifier()


__all__ = ["Attachment", "body_state", "body_state_from", "check_attachment",
           "start_body_acceleration", "system_address"]
