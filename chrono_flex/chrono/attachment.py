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

The code is shared with the spatial element
(:class:`~chrono_flex.chrono.spatial_element.SpatialFlexibleLink`, docs/chrono.md §12):
what depends on the model (the module of the weld's pure functions, the links'
lengths, the shapes at a station, the bushing's stiffness, the damper's inertia, the
station's pose) sits in the hooks at the end of :class:`Welds`.
"""

import numpy as np

from ..errors import ParameterError
from ..planar import floating, floating_kernels
from .system import NEWTON_ATTR, REGISTRY_ATTR, quat_to_matrix, weld_tolerance_floor


def body_state(body):
    """(position, rotation matrix, velocity (world), angular velocity (local)) of a body."""
    return (np.asarray(body.GetPos().to_numpy(), dtype=float),
            np.asarray(body.GetRotMat().to_numpy(), dtype=float),
            np.asarray(body.GetPosDt().to_numpy(), dtype=float),
            np.asarray(body.GetAngVelLocal().to_numpy(), dtype=float))


def body_inertia(body):
    """(mass, inertia tensor 3 x 3 about the body's reference, in its axes) of a ChBody."""
    xx = np.asarray(body.GetInertiaXX().to_numpy(), dtype=float)
    xy = np.asarray(body.GetInertiaXY().to_numpy(), dtype=float)
    I = np.diag(xx)
    I[0, 1] = I[1, 0] = xy[0]
    I[0, 2] = I[2, 0] = xy[1]
    I[1, 2] = I[2, 1] = xy[2]
    return float(body.GetMass()), I


def body_kinetic_energy(body):
    """1/2 m |v|^2 + 1/2 omega^T I omega of a ChBody (its reference at its centre of
    mass, as a ChBody's is), J."""
    m, I = body_inertia(body)
    _, _, v, w = body_state(body)
    return float(0.5 * m * v @ v + 0.5 * w @ I @ w)


def body_state_from(x, w):
    """The same from a body's 7 entries of Chrono's state x and 6 of w (docs/chrono.md
    eq. (2.1))."""
    return x[0:3], quat_to_matrix(*x[3:7].tolist()), w[0:3], w[3:6]


def system_address(item):
    """Address of the ``ChSystem`` an item belongs to (None when in none): SWIG hands out
    a new proxy per call, so systems are compared by address."""
    sys_ = item.GetSystem()
    return None if sys_ is None else int(sys_)


def check_station(link, s, n_links, length_of):
    """(link, s) of a station given as a link number (negative counts from the last) and
    an arc length (None: the tip), checked; ``length_of(link)`` gives a link's length.
    Shared by the element's and the beams' welds."""
    nl = n_links
    if isinstance(link, bool) or not isinstance(link, (int, np.integer)) or not -nl <= link < nl:
        raise ParameterError("link", link, f"must be a link number in {-nl}..{nl - 1}")
    link = int(link) % nl
    L = length_of(link)
    s = L if s is None else s
    try:
        s = float(s)
    except (TypeError, ValueError):
        raise ParameterError("s", s, "must be an arc length in m") from None
    if not 0.0 <= s <= L:
        raise ParameterError("s", s, f"must lie on link {link}: 0 <= s <= {L} m")
    return link, s


class WeldErrors:
    """The two numbers of a weld's :meth:`error` as properties (element and beam welds)."""

    @property
    def position_error(self):
        """|e|: distance between the body's attachment point and the link's station, m."""
        return self.error()[0]

    @property
    def angle_error(self):
        """Angle of the rotation between the body's attachment frame and the station's, rad."""
        return self.error()[1]


class Attachment(WeldErrors):
    """A body welded to a :class:`FlexibleLink` by a stiff bushing (docs/chrono.md §8).

    Made by :meth:`FlexibleLink.attach`; not built directly. The bushing pulls the
    body's attachment frame (``offset``, ``frame_rot`` in the body frame) onto the
    link's station frame (origin on the deformed centreline at abscissa ``s`` of link
    ``link``, X along its tangent, Z along the plane normal; on a spatial arm the
    deformed section's frame, docs/chrono.md §12), with the stiffness and damping of
    :func:`chrono_flex.planar.floating.bushing_stiffness` and
    :func:`chrono_flex.planar.floating.bushing_wrench`.

    Attributes:
        body, link, s: the body and the station (link number, abscissa in m).
        offset (3,), frame_rot (3, 3): the attachment frame in the body frame.
        stiffness: (k_p N/m, k_r N m/rad); damping: (c_p N s/m, c_r N m s/rad).
        dissipated: energy taken by the bushing's dampers since it was attached (J),
            summed after every step with the step's mean relative rates,
            h (c_p |e_dot_mean|^2 + c_r |omega_rel_mean|^2): the dampers' work in the
            discrete energy balance of HHT with alpha = 0 (the trapezoidal rule: the
            damping force at the mean velocity), so an undamped-integrator balance closes
            to Newton's tolerance, not to O(h^2).
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
        self._last = None           # (time, gap rate, relative angular velocity) after a step
        self._physics = owner.weld_physics      # the model's weld functions (module)
        self._shapes = owner.station_shapes(self.link, self.s)
        self.index = None           # the body's place among the load's bodies (set by the link)
        self._kin_key, self._kin = None, None
        self.released_at = None     # time of release() (None while welded)

    @property
    def released(self):
        """Whether :meth:`release` has opened the weld."""
        return self.released_at is not None

    def release(self):
        """Open the weld: from the next step on the body moves freely (it keeps its
        position and velocity) and the link no longer carries it. The bushing's elastic
        energy at that moment (:meth:`energy`, |F|^2 / (2 k_p) + ..., micro-joules for a
        body at rest on its weld) leaves the model with it. Afterwards ``force``,
        ``moment`` and ``energy()`` are zero and ``error()`` measures how far the body
        has moved from the station. Releasing twice is an error."""
        if self.released:
            raise ParameterError("attachment", self, f"was already released at t = "
                                 f"{self.released_at} s")
        self.owner.detach(self)
        self.released_at = float(self.owner.system.GetChTime())

    @property
    def gains(self):
        return self.stiffness + self.damping

    def terms(self, q=None, qd=None, body=None, placement=None):
        """:func:`chrono_flex.planar.floating.attachment_terms` (a spatial arm's:
        :func:`chrono_flex.spatial.floating.attachment_terms`) now (or at given states)."""
        lk = self.owner
        q = lk.q() if q is None else np.asarray(q, dtype=float)
        qd = lk.qd() if qd is None else np.asarray(qd, dtype=float)
        # the station's kinematics depend on (q, qd) only: kept for the Jacobian's
        # perturbations of the body's coordinates
        key = q.tobytes() + qd.tobytes()
        if key != self._kin_key:
            self._kin = self._physics.station(lk.model, q, qd, self.link, self.s, self._shapes)
            self._kin_key = key
        return self._physics.attachment_terms(
            lk.model, q, qd, self.link, self.s,
            lk.placement_state() if placement is None else placement,
            body_state(self.body) if body is None else body, self.offset, self.frame_rot,
            self.gains, kinematics=self._kin)

    def station_kinematics(self):
        """The station's kinematics (r, J, phi, J_phi) of the last :meth:`terms`, or None
        before the first."""
        return self._kin if self._kin_key is not None else None

    def error(self):
        """(position gap |e| in m, angle of the relative rotation in rad) now."""
        t = self.terms()
        return float(np.linalg.norm(t["gap"])), floating.rotation_angle(t["rot_rel"])

    @property
    def force(self):
        """Force (3,) the link applies to the body through the weld, world, N (zero once
        released)."""
        return np.zeros(3) if self.released else self.terms()["force"]

    @property
    def moment(self):
        """Moment (3,) the link applies to the body through the weld, about the
        attachment point, world, N m (zero once released)."""
        return np.zeros(3) if self.released else self.terms()["moment"]

    def energy(self):
        """Elastic energy stored in the bushing, J (zero once released)."""
        return 0.0 if self.released else self.terms()["energy"]

    def after_step(self, time):
        """Add the dampers' work over the last step (mean relative rates, see
        :attr:`dissipated`)."""
        if self.damping == (0.0, 0.0):
            return
        t = self.terms()
        if self._last is not None:
            t0, ed0, wr0 = self._last
            ed, wr = 0.5 * (ed0 + t["gap_rate"]), 0.5 * (wr0 + t["omega_rel"])
            c_p, c_r = self.damping
            self.dissipated += (time - t0) * (c_p * ed @ ed + c_r * wr @ wr)
        self._last = (time, t["gap_rate"], t["omega_rel"])


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
    lengths = owner.link_lengths()
    link, s = check_station(link, s, len(lengths), lambda k: lengths[k])
    Ab = np.asarray(body.GetRotMat().to_numpy(), dtype=float)
    xb = np.asarray(body.GetPos().to_numpy(), dtype=float)
    if frame is None:
        pos, rot = owner.station_pose(link, s)
        return body, link, s, Ab.T @ (pos - xb), Ab.T @ rot
    if not isinstance(frame, chrono.ChFramed):
        raise ParameterError("frame", frame, "must be a ChFramed (the attachment frame in "
                             "the body's frame) or None")
    return (body, link, s, np.asarray(frame.GetPos().to_numpy(), dtype=float),
            np.asarray(frame.GetRotMat().to_numpy(), dtype=float))


def _same(a, b):
    """Whether two SWIG proxies wrap the same Chrono item."""
    return a is b or a.GetIdentifier() == b.GetIdentifier()


def _rotation(v):
    """exp(S(v)): the rotation by the vector v (Rodrigues)."""
    t = float(np.linalg.norm(v))
    if t == 0.0:
        return np.eye(3)
    k = np.asarray(v, dtype=float) / t
    S = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + np.sin(t) * S + (1.0 - np.cos(t)) * S @ S


class Welds:
    """The FlexibleLink's side of the welds (mixed into
    :class:`~chrono_flex.chrono.element.FlexibleLink`): :meth:`attach`, the welds'
    generalized forces in ComputeQ and their Jacobians (docs/chrono.md §8)."""

    def attach(self, body, link=-1, s=None, frame=None, stiffness_ratio=floating.BUSHING_RATIO,
               damping_ratio=0.0):
        """Weld a free ``ChBody`` to link ``link`` at arc length ``s``, both ways.

        The body (with its own mass and inertia, in the same system) is held by a stiff
        bushing (docs/chrono.md §8) in all six relative directions: whatever Chrono
        applies to it (joints, motors, springs, contacts, gravity, ``AddForce``) bends
        the link, and the link carries it. Several bodies may be welded to one link, and
        one body to several links (a closed loop).

        Args:
            body: a free ``ChBody`` of this link's system (not its parent, not fixed).
            link: link number (0-based; negative counts from the last), default the last.
            s: arc length along the undeformed link, 0 <= s <= L (m); default L, the tip.
            frame: the attachment frame in the body's frame, a ``ChFramed``: its origin
                is the welded point, its X axis meets the link's tangent, its Z axis the
                plane normal. Default None: the body is welded where it is now (no
                initial gap).
            stiffness_ratio: the bushing is this many times stiffer than one element of
                the link (:func:`chrono_flex.planar.floating.bushing_stiffness`); the gap
                is |F| / k_p.
            damping_ratio: zeta of the bushing's dampers, c = 2 zeta sqrt(k m) with the
                body's mass (and its inertia about the plane normal); 0 (default) keeps
                the bushing conservative; the dampers' work is
                :attr:`Attachment.dissipated`.

        Returns:
            an :class:`~chrono_flex.chrono.attachment.Attachment` (gap, angle, force and
            moment transmitted, energy). Call it before the first step, or after
            changing states by hand; the load is rebuilt with the body. The body takes
            the velocity and angular velocity of the station (a weld moves both as one;
            set the link's state first), and the accelerations of
            :meth:`initialize_accelerations`.
        """
        body, link, s, offset, rot = check_attachment(self._chrono, self, body, link, s, frame)
        ratio = float(stiffness_ratio)
        if not np.isfinite(ratio) or ratio <= 0:
            raise ParameterError("stiffness_ratio", stiffness_ratio, "must be a positive number")
        zeta = float(damping_ratio)
        if not np.isfinite(zeta) or zeta < 0:
            raise ParameterError("damping_ratio", damping_ratio, "must be >= 0")
        k_p, k_r = self._weld_stiffness(link, ratio)
        A = np.asarray(body.GetRotMat().to_numpy(), dtype=float)
        c_p = 2.0 * zeta * np.sqrt(k_p * body.GetMass())
        c_r = 2.0 * zeta * np.sqrt(k_r * self._weld_rotary_inertia(body))
        att = Attachment(self, body, link, s, offset, rot, (k_p, k_r), (c_p, c_r))
        # a weld moves the two as one: the body takes the station's velocity
        _, _, v, w = self.weld_physics.station_motion(self.model, self.q(), self.qd(), link,
                                                       s, self.placement_state())
        v_com = v + np.cross(w, -(A @ offset))
        body.SetPosDt(self._chrono.ChVector3d(*v_com))
        body.SetAngVelLocal(self._chrono.ChVector3d(*(A.T @ w)))
        settings = getattr(self.system, NEWTON_ATTR, None)
        if settings is not None:
            reach = np.linalg.norm(body.GetPos().to_numpy()) + sum(self.link_lengths())
            inertia = min(np.linalg.eigvalsh(np.asarray(body.GetInertia().to_numpy(), dtype=float)))
            settings.raise_floor(weld_tolerance_floor(k_p, k_r, body.GetMass(), inertia, reach))
        ids = [b.GetIdentifier() for b in self._bodies]
        if body.GetIdentifier() not in ids:
            self._bodies.append(body)
            ids.append(body.GetIdentifier())
        att.index = ids.index(body.GetIdentifier())
        self.attachments.append(att)
        self._build_load()
        self.initialize_accelerations()
        att.after_step(self.system.GetChTime())
        return att

    def enable_contact(self, material, thickness, stations=None, link=-1,
                       stiffness_ratio=None, shape="box", station_mass=None):
        """Contact along link ``link``: one light body per station (arc lengths
        ``stations``, default the element nodes), welded by :meth:`attach`, carrying a
        box of the section's ``thickness`` (height and width, at most one element) along
        the station's tangent over the centre line nearest the station, with the user's
        ``material`` (``ChContactMaterialNSC`` or ``SMC``, as the system; the system
        needs a collision system). The stations' bodies do not collide with one another
        (collision family :data:`~chrono_flex.chrono.contact.STATION_FAMILY`). Returns a
        :class:`~chrono_flex.chrono.contact.LinkContact` (contact force per station).
        ``shape="sphere"``: a sphere of diameter ``thickness`` per station instead;
        ``station_mass``: each station body's mass (kg; for SMC contact).
        What the contact sees and leaves out: docs/chrono.md §13."""
        from .contact import element_contact

        return element_contact(self, material, thickness, stations, link, stiffness_ratio,
                               shape, station_mass=station_mass)

    def detach(self, att):
        """Take ``att`` out of the load (:meth:`Attachment.release`): the body leaves the
        load's loadables unless another weld of this link holds it, the load is rebuilt,
        and every item gets consistent accelerations again."""
        if not any(a is att for a in self.attachments):
            raise ParameterError("attachment", att, "is not welded to this link")
        self.attachments = [a for a in self.attachments if a is not att]
        ident = att.body.GetIdentifier()
        if all(a.body.GetIdentifier() != ident for a in self.attachments):
            self._bodies = [b for b in self._bodies if b.GetIdentifier() != ident]
        ids = [b.GetIdentifier() for b in self._bodies]
        for a in self.attachments:
            a.index = ids.index(a.body.GetIdentifier())
        self._build_load()
        self.initialize_accelerations()
        # the released body's stored acceleration still holds this weld's force: HHT
        # would start its free flight from it (a velocity error h/2 (a_old - a_new))
        start_body_acceleration(self._chrono, self.system, att.body)

    def _attachment_forces(self, q, qd, parent, bodies):
        """Generalized forces of the attachments: (on the arm's rows (nw_arm,), on the
        attached bodies (6 per body)), from the states Chrono passes."""
        f_arm = np.zeros(self._nw_arm)
        f_bodies = np.zeros(6 * len(self._bodies))
        placement = self.placement_state(parent) if self._moving else self.placement_state()
        nb = self._n_body
        for att in self.attachments:
            k = att.index
            t = att.terms(q, qd, bodies[k], placement)
            f_arm[nb:nb + self.nq] += t["Q_q"]
            if self._moving:
                f_arm[:nb] += t["Q_parent"]
            f_bodies[6 * k:6 * k + 6] += t["Q_body"]
        return f_arm, f_bodies

    def _weld_matrices(self, q, parent, bodies):
        """The welds' K and R over the load's velocity coordinates
        (:func:`chrono_flex.planar.floating.attachment_jacobians`; added by the compiled
        :func:`chrono_flex.planar.floating_kernels.add_weld_matrices` where there is one)."""
        nw, nb, nq = self._nw, self._n_body, self.nq
        K, R = np.zeros((nw, nw)), np.zeros((nw, nw))
        placement = self.placement_state(parent) if self._moving else self.placement_state()
        damped = False
        add = getattr(self.weld_physics, "add_weld_matrices", None)
        for att in self.attachments:
            b0 = self._nw_arm + 6 * att.index
            kin = att.station_kinematics()
            damped = damped or att.damping != (0.0, 0.0)
            cols = np.concatenate([np.arange(6 if self._moving else 0),
                                   np.arange(nb, nb + nq), np.arange(b0, b0 + 6)])
            if add is not None and add(self.model, q, att.link, att.s, placement,
                                       bodies[att.index], att.offset, att.gains, cols, K, R,
                                       kinematics=kin):
                continue
            idx = {"q": slice(nb, nb + nq), "body": slice(b0, b0 + 6)}
            if self._moving:
                idx["parent"] = slice(0, 6)
            Kb, Rb = self.weld_physics.attachment_jacobians(
                self.model, q, att.link, att.s, placement, bodies[att.index], att.offset,
                att.gains, kinematics=kin)
            for (a, b), blk in Kb.items():
                if a in idx and b in idx:
                    K[idx[a], idx[b]] += blk
                    R[idx[a], idx[b]] += Rb[(a, b)]
        return K, (R if damped else None)

    def _weld_fd(self, q, qd, parent, bodies, h=1e-8):
        """-dQ_weld/dx of all welds by forward differences, the way Chrono forms K of the
        load (docs/chrono.md eq. (2.2)): shafts and body positions moved by h, body
        rotations by A exp(S(h e_i)) (a body-frame increment), velocities held."""
        def Q(q_, parent_, bodies_):
            f_arm, f_bodies = self._attachment_forces(q_, qd, parent_, bodies_)
            return np.concatenate([f_arm, f_bodies])

        def moved(state, i):
            p, A, v, w = state
            return ((p + h * np.eye(3)[i], A, v, w) if i < 3
                    else (p, A @ _rotation(h * np.eye(3)[i - 3]), v, w))

        Q0 = Q(q, parent, bodies)
        K = np.zeros((self._nw, self._nw))
        if self._moving:
            for i in range(6):
                K[:, i] = -(Q(q, moved(parent, i), bodies) - Q0) / h
        for i in range(self.nq):
            K[:, self._n_body + i] = -(Q(q + h * np.eye(self.nq)[i], parent, bodies) - Q0) / h
        for k in range(len(bodies)):
            for i in range(6):
                shifted = list(bodies)
                shifted[k] = moved(bodies[k], i)
                K[:, self._nw_arm + 6 * k + i] = -(Q(q, parent, shifted) - Q0) / h
        return K

    def _refresh_weld_jacobians(self, jac, q, qd, parent, bodies, matrices=None, fd=None,
                                views=None):
        """Keep the welds' part of K and R right while the rest of the Jacobian is kept
        over the step (``jacobian`` "step" or N; docs/chrono.md §8).

        Chrono builds K at Newton's first iterate, where a weld may be open by its
        predicted motion (micrometres, but kN through a stiff weld): its geometric
        stiffness there (force times the curvature of the station's path) is spurious
        once the weld closes, and a kept K with it misleads Newton. So, in an Update
        that rebuilds K, the welds' own finite-difference K_w(x0) is formed as Chrono
        forms it; at the next Update Chrono's K is read back and K_w(x0) taken out,
        and from then on every Update writes K_rest + G^T K_b G at the current state
        (:func:`chrono_flex.planar.floating.attachment_jacobians`; R likewise, exact).
        """
        # matrices, fd: the same (K, R) and K_w(x0), compiled (chrono.element_load);
        # views: numpy views over the Jacobians' K and R (chrono.element_views)
        K, R = self._weld_matrices(q, parent, bodies) if matrices is None else matrices
        if self._stiff_now:
            K_w = self._weld_fd(q, qd, parent, bodies) if fd is None else fd()
            self._weld_at_rebuild, self._weld_rest = (K_w, R), None
            return
        if self._weld_at_rebuild is None:
            return
        if self._weld_rest is None:
            K0, R0 = self._weld_at_rebuild
            K_fd = np.asarray(jac.K.to_numpy(), dtype=float)
            R_fd = np.asarray(jac.R.to_numpy(), dtype=float)
            self._weld_rest = (K_fd - K0, R_fd - R0 if R0 is not None else R_fd)
        K_rest, R_rest = self._weld_rest
        if views is not None:
            np.add(K_rest, K, out=views.K)
            if R is not None:
                np.add(R_rest, R, out=views.R)
            return
        jac.K = self._chrono.ChMatrixDynamicd(K_rest + K)
        if R is not None:
            jac.R = self._chrono.ChMatrixDynamicd(R_rest + R)

    # -- the model's side of the welds (a spatial arm overrides these) -----------------
    #: the module of the weld's pure functions: station, station_motion,
    #: attachment_terms, attachment_jacobians (compiled where numba is present)
    weld_physics = floating_kernels

    def link_lengths(self):
        """Lengths of the links a body can be welded to, in the order of ``link``."""
        return [lk.length for lk in self.arm.links]

    def contact_link(self, link):
        """(shape basis, link parameters) of a link, for its contact stations."""
        return self.model.bases[link], self.arm.links[link]

    def station_shapes(self, link, s):
        """The shape values at abscissa s of a link that the weld's ``station`` takes."""
        return self.model.bases[link].values(np.array([float(s)]))[:2]

    def _weld_stiffness(self, link, ratio):
        """(k_p, k_r) of a weld on a link (:func:`chrono_flex.planar.floating.bushing_stiffness`
        with the stiffest element: largest mean EI, shortest length)."""
        lk = self.arm.links[link]
        b = self.model.bases[link]
        ell = b.length / len(b.elements) if getattr(b, "elements", None) else b.length
        EI = lk.EI
        if not lk.uniform:
            nodes = lk.nodes
            EI = max(lk.element_average("EI", a, c) for a, c in zip(nodes[:-1], nodes[1:]))
            ell = float(np.min(np.diff(nodes)))
        return floating.bushing_stiffness(EI, ell, ratio)

    def _weld_rotary_inertia(self, body):
        """The body's inertia that sets the rotational damper, c_r = 2 zeta sqrt(k_r J):
        about the plane normal (the one rotation that bends a planar link)."""
        n = self.placement_state()[1] @ floating.plane_normal(self.placement_state()[5])
        A = np.asarray(body.GetRotMat().to_numpy(), dtype=float)
        return float(n @ A @ np.asarray(body.GetInertia().to_numpy(), dtype=float) @ A.T @ n)

    def placement_state(self, body=None):
        """(p_B, A_B, v_B, omega_B, o, P) of the plane (a parent at rest: the world), for
        :func:`chrono_flex.planar.floating.attachment_terms`; ``body``: the parent's state
        (default: now)."""
        body = self._body_state() if body is None else body
        if body is None:
            z = np.zeros(3)
            return z, np.eye(3), z, z, self._ground_o, self._ground_P
        return body[0], body[1], body[2], body[3], self._o, self._P

    def station_pose(self, link, s):
        """World position and rotation of the station frame at abscissa s of a link now."""
        r, _, phi, _ = floating.station(self.model, self.q(), self.qd(), link, s)
        return floating.plane_pose(r, phi, *self.placement())


__all__ = ["Attachment", "Welds", "body_state", "body_state_from", "check_attachment",
           "start_body_acceleration", "system_address"]
