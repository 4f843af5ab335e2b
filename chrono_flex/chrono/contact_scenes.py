"""Contact scenes of a flexible link in either formulation (docs/chrono.md §13).

* :class:`PostStrike`: a link on a free revolute joint swings, without gravity, into a
  fixed post that its tip meets and rebounds (NSC, Newton's restitution): the contact
  impulse, the rebound (angular momentum about the pivot after the strike against
  before) and the mechanical energy through each contact;
* :class:`TablePush`: a flexible link on a carriage (a prismatic joint along the table,
  then a revolute joint) is lowered onto a table until its tip presses on it, then the
  carriage drives it along the table so that the link pushes a box (NSC, friction).

Both build the same scene with the papers' element (``formulation="element"``: station
bodies welded to a :class:`~chrono_flex.chrono.element.FlexibleLink`) or with Chrono's
beams (``"beam"``: spheres at the nodes of a
:class:`~chrono_flex.chrono.beam_scene.BeamArm`), and record a run with :meth:`run`.
"""

import numpy as np

from ..errors import ParameterError
from ..inputs import smooth_step
from ._quiet import quiet_swig
from .attachment import body_kinetic_energy
from .scenes import _formulation, contact_system, flexible_link
from .system import step


def _box(chrono, system, material, centre, size, envelope, margin, fixed=True, mass=None):
    """A box body of ``size`` (3,) centred at ``centre`` (world), with ``material``."""
    body = chrono.ChBody()
    body.SetFixed(bool(fixed))
    if mass is not None:
        sx, sy, sz = size
        body.SetMass(float(mass))
        body.SetInertiaXX(chrono.ChVector3d(mass * (sy * sy + sz * sz) / 12,
                                            mass * (sx * sx + sz * sz) / 12,
                                            mass * (sx * sx + sy * sy) / 12))
    body.SetPos(chrono.ChVector3d(*(float(v) for v in centre)))
    body.AddCollisionShape(chrono.ChCollisionShapeBox(material, *(float(v) for v in size)))
    body.GetCollisionModel().SetEnvelope(float(envelope))
    body.GetCollisionModel().SetSafeMargin(float(margin))
    body.EnableCollision(True)
    system.Add(body)
    return body


def box_corners(body, size):
    """World (x, y) of a box body's outline in the plane z = 0, (5, 2)."""
    A = np.asarray(body.GetRotMat().to_numpy(), dtype=float)
    c = np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0], [-1, -1, 0]]) \
        * 0.5 * np.array([size[0], size[1], 0.0])
    return (np.asarray(body.GetPos().to_numpy(), dtype=float) + c @ A.T)[:, :2]


class _ContactLink:
    """The link of a contact scene in either formulation, and what the scenes read."""

    def __init__(self, system, arm, formulation, material, radius, stations, **kw):
        self.formulation = _formulation(formulation)
        self.system = system
        self._origin = np.asarray(arm.plane.origin, dtype=float)[:2]
        if self.formulation == "beam":
            self.link = flexible_link(system, arm, "beam", consistent_mass=True,
                                      rayleigh_alpha=0.0, rayleigh_beta=0.0, **kw)
            self.contact = self.link.enable_contact(material, radius)
        else:
            self.link = flexible_link(system, arm, "element", **kw)
            self.contact = self.link.enable_contact(material, 2.0 * radius,
                                                    stations=stations, shape="sphere")

    def energy(self):
        """Kinetic and elastic energy of the link (and gravity's, from the world
        origin), J; for the element with its station bodies and welds."""
        if self.formulation == "beam":
            return float(sum(self.link.energies()))
        return float(sum(self.link.energy())
                     + sum(body_kinetic_energy(b) for b in self.contact.bodies)
                     + sum(w.energy() for w in self.contact.welds))

    def points(self):
        """World positions of the contact shapes' centres (n_stations, 3)."""
        items = (self.link.links[-1].nodes if self.formulation == "beam"
                 else self.contact.bodies)
        return np.array([np.asarray(b.GetPos().to_numpy(), dtype=float) for b in items])

    def centreline(self, n_samples=21):
        """World (x, y) of the deformed centre line, (n_samples, 2)."""
        if self.formulation == "beam":      # the beams' are in the plane, from its origin
            return self.link.centrelines(n_samples)[0][-1] + self._origin
        return self.link.centerlines(n_samples)[-1][:, :2]


class PostStrike:
    """A flexible link swinging into a post (docs/chrono.md §13, eq. (13.2)).

    The link (``length``, ``EI``, ``rho_A``, ``n_elements``) turns freely about world Z
    on a revolute joint at the origin, no gravity. It starts straight at angle
    ``theta0`` (rad, below the X axis) turning at ``omega0`` (rad/s) towards a fixed
    box whose lower face is the plane y = ``radius`` over x in [L - 4 cm, L + 6 cm]:
    the sphere of ``radius`` at the tip meets it when the link is along X. NSC contact,
    frictionless, restitution ``restitution``; linearised implicit Euler with ADMM
    (:func:`~chrono_flex.chrono.scenes.contact_system`). ``post=False``: the same swing
    without the post (the integrator's energy error without contact).
    """

    def __init__(self, formulation="element", restitution=0.5, length=1.0, EI=20.0,
                 rho_A=1.0, n_elements=4, radius=0.01, theta0=-0.025, omega0=0.5, post=True,
                 jacobian=None):
        import chrono_flex as cf

        chrono, system, mat = contact_system("nsc", (0.0, 0.0, 0.0))
        e = float(restitution)
        if not 0.0 <= e <= 1.0:
            raise ParameterError("restitution", restitution, "must lie in [0, 1]")
        mat.SetRestitution(e)
        self.system, self.material = system, mat
        self.L, self.rho_A, self.omega0 = float(length), float(rho_A), float(omega0)
        self.radius = float(radius)
        arm = cf.PlanarArm([cf.Link(length=length, n_elements=n_elements, EI=EI,
                                    rho_A=rho_A)], gravity=0.0)
        self.link = _ContactLink(system, arm, formulation, mat, radius, [self.L],
                                 joint_angles0=[float(theta0)], joint_rates0=[self.omega0],
                                 **({"jacobian": jacobian} if jacobian else {}))
        self.formulation = self.link.formulation
        self.post_size = (0.1, 0.1, 0.1)
        self.post = None
        if post:
            self.post = _box(chrono, system, mat, (self.L + 0.01, radius + 0.05, 0.0),
                             self.post_size, 0.5 * radius, 0.2 * radius)

    def momentum0(self):
        """Angular momentum about the pivot at the start, kg m^2/s: the straight link
        turning rigidly, rho_A L^3 omega0 / 3."""
        return self.rho_A * self.L ** 3 * self.omega0 / 3.0

    def remove_post(self):
        """Take the post out of reach (10 m up): the link swings on without contact."""
        p = self.post.GetPos()
        self.post.SetPos(type(p)(p.x, p.y + 10.0, p.z))

    def run(self, h, t_end, frame_every=None, free_after_first_contact=False):
        """Step by ``h`` to ``t_end``; returns a dict of arrays over the steps: t (s),
        energy (J), force (n, 3: the contact force on the tip's shape, N, the impulse
        of the step over h for NSC), point (n, 3: the tip shape's centre, m); with
        ``frame_every`` (s) also t_frames and link (nf, 21, 2) centre lines.
        ``free_after_first_contact``: the post is taken away (:meth:`remove_post`) when
        the first contact ends, and ``t_free`` says when; the link then vibrates as
        after the strike, without contact (the integrator's energy error there)."""
        every = None if frame_every is None else max(1, int(round(frame_every / h)))
        rows, frames, tf = [], [], []
        n = int(round(t_end / h))
        ct = self.link.contact
        touched, t_free = False, None
        with quiet_swig():
            for k in range(n + 1):
                if k:
                    step(self.system, h)
                F = ct.forces()[-1]
                if free_after_first_contact and t_free is None:
                    if np.linalg.norm(F) > CONTACT_THRESHOLD:
                        touched = True
                    elif touched:
                        self.remove_post()
                        t_free = self.system.GetChTime()
                rows.append([self.system.GetChTime(), self.link.energy(), *F,
                             *self.link.points()[-1]])
                if every is not None and k % every == 0:
                    tf.append(self.system.GetChTime())
                    frames.append(self.link.centreline())
        r = np.array(rows)
        out = dict(t=r[:, 0], energy=r[:, 1], force=r[:, 2:5], point=r[:, 5:8], h=float(h),
                   H0=self.momentum0(), formulation=self.formulation, t_free=t_free)
        out.update(strike_measures(out["force"], out["point"], h, out["H0"]))
        if frames:
            out.update(t_frames=np.array(tf), link=np.array(frames))
            if self.post is not None:
                out["post"] = box_corners(self.post, self.post_size)
        return out


#: Contact force (N) above which a step counts as in contact: ADMM leaves forces of
#: about 1e-8 N on shapes within the collision envelope that do not touch.
CONTACT_THRESHOLD = 1e-3


def strike_measures(force, point, h, H0, threshold=CONTACT_THRESHOLD):
    """Contact impulse and rebound of a strike from the per-step contact forces.

    The impulse J = sum_k F_k h (world, N s; an NSC step's force is its impulse over h),
    its moment about the pivot M = sum_k (r_k x F_k)_z h, the angular momentum after
    the strike H = H0 + M (the joint is free and nothing else acts), and the rebound
    ratio -H / H0 (the mean angular velocity after the strike over that before, eq.
    (13.2)). Contacts: steps whose force exceeds ``threshold`` N."""
    F = np.asarray(force, dtype=float)
    P = np.asarray(point, dtype=float)
    on = np.linalg.norm(F, axis=1) > threshold
    M = float(np.sum(P[:, 0] * F[:, 1] - P[:, 1] * F[:, 0]) * h)
    return dict(impulse=F.sum(axis=0) * h, moment=M, H_after=H0 + M,
                rebound=-(H0 + M) / H0, in_contact=on)


def contact_events(in_contact):
    """(first, last) step indices of each run of consecutive steps in contact."""
    on = np.asarray(in_contact, dtype=bool)
    edges = np.diff(np.concatenate([[0], on.astype(int), [0]]))
    return list(zip(np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0] - 1))


def energy_through_contacts(energy, in_contact):
    """The change of mechanical energy across each contact event, J: E just after the
    event's last step minus E just before its first (the contact's own work and the
    integrator's over those steps)."""
    E = np.asarray(energy, dtype=float)
    return np.array([E[min(b + 1, len(E) - 1)] - E[max(a - 1, 0)]
                     for a, b in contact_events(in_contact)])


def largest_rise(energy):
    """The largest increase of ``energy`` over any interval of the record,
    max_{i <= j} (E_j - E_i), J: the integrator's energy error without contact."""
    E = np.asarray(energy, dtype=float)
    return float(np.max(E - np.minimum.accumulate(E)))


class TablePush:
    """A flexible link lowered onto a table that then pushes a box along it.

    A carriage (a body of ``carriage_mass``) slides along world X at height
    ``pivot_height`` above the table top (y = 0), driven by a
    ``ChLinkMotorLinearPosition``; the link (``length``, ``EI``, ``rho_A``,
    ``n_elements``, gravity -Y) hangs from it on a revolute joint, prescribed too (the
    element's shaft motor; the beams' ``ChLinkMotorRotationAngle``). From ``angle0``
    (rad from +X) the link is lowered along a quintic smooth step to ``angle1`` by
    ``t_lower``, where the rigid link's tip sphere would be ``press`` below the table top
    (the link's compliance takes it: the tip presses on the table); then the carriage
    moves by ``travel`` over [``t_lower``, ``t_push``] and the link pushes a box
    (``box_size``, ``box_mass``) that stands on the table ``gap`` from the tip in the
    direction of travel. With ``travel`` < 0 (the default) the carriage draws the link
    back towards it and the tip sweeps a low box that stands under the link like a
    broom; with ``travel`` > 0 the box must stand beyond where the tip starts (it is
    lowered along an arc that ends nearer the carriage). NSC
    contact with friction ``friction`` everywhere, linearised implicit Euler with ADMM;
    spheres of ``radius`` at the link's nodes (the element: at the same stations).
    """

    def __init__(self, formulation="element", length=0.5, EI=5.0, rho_A=0.5,
                 n_elements=4, radius=0.01, pivot_height=0.4, press=0.005, travel=-0.25,
                 t_lower=0.4, t_push=1.2, box_size=(0.04, 0.025, 0.04), box_mass=0.1,
                 friction=0.3, gap=0.015, carriage_mass=1.0):
        import chrono_flex as cf
        from .directors import PositionFunction

        chrono, system, mat = contact_system("nsc", (0.0, -9.81, 0.0))
        mat.SetFriction(float(friction))
        self.system, self.material = system, mat
        self.L, self.H = float(length), float(pivot_height)
        self.t_lower, self.t_push, self.travel = float(t_lower), float(t_push), float(travel)
        self.radius = float(radius)
        reach = self.H - self.radius + float(press)
        if not 0 < reach < self.L:
            raise ParameterError("pivot_height", pivot_height,
                                 f"must leave the link's tip able to reach the table "
                                 f"(0 < H - radius + press < L = {self.L:g} m)")
        # the rigid link's tip sphere `press` below the table top: L sin(-a1) = reach;
        # it starts 0.3 rad higher
        self.angle1 = -float(np.arcsin(reach / self.L))
        self.angle0 = self.angle1 + 0.3
        # the carriage, on a prescribed slide along world X (the frame's Z)
        self.carriage = chrono.ChBody()
        self.carriage.SetMass(float(carriage_mass))
        self.carriage.SetInertiaXX(chrono.ChVector3d(1e-3, 1e-3, 1e-3))
        self.carriage.SetPos(chrono.ChVector3d(0.0, self.H, 0.0))
        self.carriage.EnableCollision(False)
        system.Add(self.carriage)
        ground = chrono.ChBody()
        ground.SetFixed(True)
        ground.EnableCollision(False)
        system.Add(ground)
        self.slide = chrono.ChLinkMotorLinearPosition()
        self.slide.Initialize(self.carriage, ground,
                              chrono.ChFramed(chrono.ChVector3d(0.0, self.H, 0.0),
                                              chrono.QuatFromAngleY(np.pi / 2)))
        self._slide_fn = PositionFunction.make(chrono, self.carriage_motion, 0)
        self.slide.SetMotionFunction(self._slide_fn)
        system.Add(self.slide)
        self._keep = [ground]
        arm = cf.PlanarArm([cf.Link(length=length, n_elements=n_elements, EI=EI,
                                    rho_A=rho_A)],
                           plane=cf.Plane(origin=(0.0, self.H, 0.0)), gravity=9.81)
        stations = np.linspace(0.0, self.L, n_elements + 1)
        kw = dict(parent_body=self.carriage, joint_motion=self.joint_motion)
        if _formulation(formulation) == "element":
            kw["joint_frame"] = ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0))
        self.link = _ContactLink(system, arm, formulation, mat, radius, stations, **kw)
        self.formulation = self.link.formulation
        self.table_size = (2.0, 0.1, 0.4)
        env, margin = 0.5 * radius, 0.2 * radius
        self.table = _box(chrono, system, mat, (0.5, -0.05, 0.0), self.table_size, env,
                          margin)
        x_tip = self.L * np.cos(self.angle1)
        self.box_size = tuple(float(v) for v in box_size)
        self.box_mass = float(box_mass)
        side = 1.0 if self.travel >= 0 else -1.0
        x_box = x_tip + side * (radius + float(gap) + 0.5 * self.box_size[0])
        self.box = _box(chrono, system, mat, (x_box, 0.5 * self.box_size[1], 0.0),
                        self.box_size, env, margin, fixed=False, mass=box_mass)
        self.x_box0 = float(x_box)
        if self.formulation == "beam":
            self.link.link.initialize_accelerations()

    def joint_motion(self, t):
        """The revolute joint's angle, rate and acceleration (each (1,)): lowered from
        angle0 to angle1 over [0, t_lower] along a quintic smooth step."""
        a, ad, add = smooth_step(t, 0.0, self.t_lower)
        dth = self.angle1 - self.angle0
        return (np.array([self.angle0 + dth * a]), np.array([dth * ad]),
                np.array([dth * add]))

    def carriage_motion(self, t):
        """The carriage's X, rate and acceleration (each (1,)): ``travel`` over
        [t_lower, t_push] along a quintic smooth step."""
        d, dd, ddd = smooth_step(t, self.t_lower, self.t_push)
        return (np.array([self.travel * d]), np.array([self.travel * dd]),
                np.array([self.travel * ddd]))

    def run(self, h, t_end, frame_every=None):
        """Step by ``h`` to ``t_end``; returns a dict of arrays over the steps: t (s),
        box (n, 2: its centre, m), forces (n, n_stations, 3: contact force per station,
        N), box_force (n, 3, N: contact force on the box), carriage (n, m), tip (n, 2,
        m); with ``frame_every`` (s) also t_frames, link (nf, 21, 2), box_outline
        (nf, 5, 2), carriage_xy (nf, 2) and the table's outline."""
        every = None if frame_every is None else max(1, int(round(frame_every / h)))
        cc = self.system.GetContactContainer()
        rows, F, frames = [], [], []
        n = int(round(t_end / h))
        with quiet_swig():
            for k in range(n + 1):
                if k:
                    step(self.system, h)
                    if self._slide_fn.error is not None:
                        exc, t = self._slide_fn.error
                        raise exc
                t = self.system.GetChTime()
                p = self.box.GetPos()
                tip = self.link.points()[-1]
                rows.append([t, p.x, p.y, *np.asarray(
                    cc.GetContactableForce(self.box).to_numpy(), dtype=float),
                    self.carriage.GetPos().x, tip[0], tip[1]])
                F.append(self.link.contact.forces())
                if every is not None and k % every == 0:
                    frames.append((t, self.link.centreline(),
                                   box_corners(self.box, self.box_size)))
        r = np.array(rows)
        out = dict(t=r[:, 0], box=r[:, 1:3], box_force=r[:, 3:6], carriage=r[:, 6],
                   tip=r[:, 7:9], forces=np.array(F), stations=self.link.contact.stations,
                   x_box0=self.x_box0, formulation=self.formulation, h=float(h),
                   travel=self.travel, t_lower=self.t_lower, t_push=self.t_push,
                   box_mass=self.box_mass,
                   carriage_acceleration=np.array([self.carriage_motion(t)[2][0]
                                                   for t in r[:, 0]]))
        if frames:
            x0, (sx, sy, _) = 0.5, self.table_size
            out.update(t_frames=np.array([f[0] for f in frames]),
                       link=np.array([f[1] for f in frames]),
                       box_outline=np.array([f[2] for f in frames]),
                       table=np.array([[x0 - sx / 2, 0], [x0 + sx / 2, 0],
                                       [x0 + sx / 2, -sy], [x0 - sx / 2, -sy],
                                       [x0 - sx / 2, 0]]))
        return out


__all__ = ["CONTACT_THRESHOLD", "PostStrike", "TablePush", "box_corners", "contact_events",
           "energy_through_contacts", "largest_rise", "strike_measures"]
