"""The RRRP arm of [W] as a finite-element tree (a SpatialArm), and its comparison with
the assumed-modes model (docs/rrrp-arm.md §6).

[W] Wang Lei, Wang Sanmin, Niu Zhiyong, "Rigid-flexible coupling nonlinear dynamics of a
space RRRP manipulator". :mod:`chrono_flex.formulations.rrrp` states [W]'s Lagrange model
with one assumed mode per arm and direction; this module builds the same arm from the
project's spatial beam elements (docs/spatial-link.md), so the two discretisations can be
run side by side:

* body 0, the turret: a massless rigid body on R1 about the vertical Z (theta1);
* body 1, arm 1: a :class:`SpatialLink` of length l1 on R2 about the turret's -y axis
  (theta2 lifts it towards +Z, as [W]'s ``A1 = Rz(theta1) Ry(-theta2)``);
* body 2, arm 2: a link of length l2 on R3 at arm 1's deformed tip, about -y, with the
  joint mass m_A; its coordinate is the *relative* angle theta3 - theta2 when theta3 is
  measured from the horizontal ([W] eq. 24);
* body 3, arm 3: a link of length ``a_layout`` (the part of the telescopic arm outside
  arm 2 at the layout extension) on a prismatic joint along arm 2's tip axis, offset by
  ``-a_layout``: its coordinate d is the extension a, and at d = a_layout its root is at
  arm 2's mouth;
* body 4, the end effector: a rigid body of mass m_B welded to arm 3's tip.

The hidden part of arm 3 (length l3 - a inside arm 2) is folded into arm 2's section: on
the overlap [l2 - (l3 - a_layout), l2] arm 2 carries EI2 + EI3 and rho_A2 + rho_A3 (the
tubes bend together, as in [W]'s stiffness of arms 2+3, docs/rrrp-arm.md §4). That layout
is right at the extension it is built for and off by 0.34 % of the gravity sag per 0.1 m
away from it (docs/rrrp-arm.md §6), so a manoeuvre in a takes the middle of its stroke.

Torsion, absent from [W], is given from the round tube: GJ = EI / (1 + nu) (J = 2 I,
G = E / (2 (1 + nu))), rho_Ip = rho_A (d_o^2 + d_i^2) / 8, both multiplied by
``torsion_factor``.
"""

from dataclasses import dataclass
import math
import time

import numpy as np
from scipy.linalg import eigh

from .. import _checks as ck
from ..errors import ParameterError, SimulationError
from ..integrators.ivp import integrate
from ..inputs import smooth_step
from ..spatial.arm import SpatialArm
from ..spatial.modes import Modes, linear_stiffness
from ..spatial.params import (FixedJoint, PrismaticJoint, RevoluteJoint, RigidBody,
                              SpatialLink)
from .rrrp import ACTUATED, ELASTIC, RRRPArm, RRRPParams

#: Poisson's ratio of the aluminium tubes (torsion only; [W] has no torsion).
POISSON = 0.33
#: Bodies of the tree, in order.
BODIES = ("turret", "arm1", "arm2", "arm3", "end effector")


def split_elements(n, lengths):
    """Element lengths for ``n`` elements over consecutive segments of the given
    ``lengths`` (zero-length segments dropped): each segment gets at least one element,
    the rest go to the segment with the longest elements. Returns a tuple of floats."""
    n = ck.positive_int("n_elements", n)
    segs = [float(s) for s in lengths if s > 0]
    if n < len(segs):
        raise ParameterError("n_elements", n,
                             f"must be at least {len(segs)}, one per section of the link")
    counts = [1] * len(segs)
    for _ in range(n - len(segs)):
        k = max(range(len(segs)), key=lambda i: segs[i] / counts[i])
        counts[k] += 1
    return tuple(s / c for s, c in zip(segs, counts) for _ in range(c))


def tube_polar_gyration(tube):
    """Squared polar radius of gyration (d_o^2 + d_i^2) / 8 of a round tube, m^2."""
    return (tube[0] ** 2 + tube[1] ** 2) / 8.0


@dataclass(frozen=True)
class RRRPFem:
    """The finite-element RRRP arm: the :class:`SpatialArm` ``arm``, the parameters it was
    built from, the layout extension ``a_layout`` and the index maps between the two
    models' coordinates (module docstring; docs/rrrp-arm.md §6)."""

    arm: SpatialArm
    params: RRRPParams
    a_layout: float

    # ------------------------------------------------------------------ coordinates
    @property
    def joint_index(self):
        """Indices in q of (theta1, theta2, R3's angle, d)."""
        return self.arm.joint_index

    def joint_coordinates(self, joints):
        """FEM joint coordinates (theta1, theta2, R3's relative angle, d) from the assumed
        -modes actuated coordinates (theta1, theta2, theta3, a) (..., 4): the relative
        angle is theta3 - theta2 for ``theta3_from="horizontal"``, theta3 for "arm1"."""
        j = np.array(joints, dtype=float)
        if j.shape[-1:] != (4,):
            raise ParameterError("joints", f"array of shape {j.shape}",
                                 "must end in (theta1, theta2, theta3, a)")
        if self.params.theta3_from == "horizontal":
            j[..., 2] = j[..., 2] - j[..., 1]
        return j

    def am_joint_coordinates(self, joints):
        """The inverse of :meth:`joint_coordinates`."""
        j = np.array(joints, dtype=float)
        if j.shape[-1:] != (4,):
            raise ParameterError("joints", f"array of shape {j.shape}",
                                 "must end in the four FEM joint coordinates")
        if self.params.theta3_from == "horizontal":
            j[..., 2] = j[..., 2] + j[..., 1]
        return j

    def _node_x(self, body):
        return np.asarray(self.arm.bodies[body].nodes)[1:]

    def fem_coordinates(self, eta):
        """q (nq,) of the FEM arm for the assumed-modes state ``eta`` (8,).

        The joints map by :meth:`joint_coordinates`. Each link's nodal values and slopes
        are those of [W]'s deflection field at the nodes: arm 1 phi_1y q1y and
        phi_1z q1z; arm 2 (x/L)^lambda q2 with L = l2 + a; arm 3 the same field beyond
        arm 2's tip, less arm 2's tip deflection and slope (arm 3 hangs on arm 2's tip
        frame; first order in the deflection). Torsion is zero. The sine mode's slope
        at the clamped root is lost (the root node is not a coordinate).
        """
        p = self.params
        eta = ck.vector("eta", eta, 8)
        am = _Shapes(p)
        q = np.zeros(self.arm.nq)
        q[self.joint_index] = self.joint_coordinates(eta[list(ACTUATED)])
        q1y, q1z, q2y, q2z, a = eta[3], eta[4], eta[5], eta[6], eta[7]
        L, lam = p.l2 + a, float(p.lam(a))

        def put(body, vals):
            q[self.arm.elastic_indices(body)] = vals

        x1 = self._node_x(1)
        f, df = am.phi1y(x1), am.dphi1y(x1)
        g, dg = am.phi1z(x1), am.dphi1z(x1)
        put(1, np.stack([f * q1y, df * q1y, g * q1z, dg * q1z, 0 * x1], -1))

        def phi2(x):
            return (x / L) ** lam, lam / L * (x / L) ** (lam - 1)

        x2 = self._node_x(2)
        f, df = phi2(x2)
        put(2, np.stack([f * q2y, df * q2y, f * q2z, df * q2z, 0 * x2], -1))
        s = self._node_x(3)
        f, df = phi2(p.l2 + (a - self.a_layout) + s)
        f0, df0 = phi2(p.l2)
        rel, drel = f - f0 - df0 * (s + a - self.a_layout), df - df0
        put(3, np.stack([rel * q2y, drel * q2y, rel * q2z, drel * q2z, 0 * s], -1))
        return q

    def am_coordinates(self, q):
        """The assumed-modes state eta (8,) matched to the FEM state ``q``: the same
        joints, joint A where the FEM puts it (arm 1's tip deflection in arm 1's frame:
        q1y, q1z; with [W]'s sine mode, which leaves A still, q1z matches arm 1's tip
        slope instead) and the end effector B's deflection across arm 2 in the
        assumed-modes frame of arm 2 (q2y, q2z: (x/L)^lambda is 1 at the tip)."""
        p = self.params
        q = ck.vector("q", q, self.arm.nq)
        eta = np.zeros(8)
        eta[list(ACTUATED)] = self.am_joint_coordinates(q[self.joint_index])
        v, dv, w, dw, _ = self.arm.elastic_indices(1)[-1]
        eta[3] = q[v]
        eta[4] = q[w] if p.phi1z == "power" else -q[dw] * p.l1 / math.pi
        am = RRRPArm(p)
        r_b = self.tip_position(q)
        # arm 2's frame in the assumed-modes model: from A along the rigid chord to B at
        # zero q2, i.e. A2 [L, 0, 0] = r_B(eta with q2 = 0) - r_A
        r_a = np.real(am.positions(eta))[-2]
        d = _frame_of(am, eta).T @ (r_b - r_a)
        eta[5], eta[6] = d[1], d[2]
        return eta

    # ------------------------------------------------------------------ positions
    def tip_position(self, q):
        """End effector B (the last body's frame) in space, (3,)."""
        return self.arm.tip_frame(q, body=len(BODIES) - 1)[0]

    def joint_a_position(self, q):
        """Joint A (arm 1's deformed tip) in space, (3,)."""
        return self.arm.tip_frame(q, body=1)[0]

    def rigid(self, q):
        """q with the elastic coordinates set to zero."""
        q = np.array(q, dtype=float)
        q[self.arm.elastic_index] = 0.0
        return q

    # ------------------------------------------------------------------ statics, modes
    def static_deflection(self, q, tol=1e-12, max_iter=30):
        """q with the elastic coordinates at the static equilibrium under gravity (joints
        held): Newton on the elastic rows of f(q, 0) = Q_g(q) - K q, with the tangent
        K - dQ_g/dq (complex step, :func:`chrono_flex.spatial.modes.linear_stiffness`)."""
        q = ck.vector("q", q, self.arm.nq).copy()
        e = self.arm.elastic_index
        zero = np.zeros(self.arm.nq)
        step = np.inf
        for _ in range(max_iter):
            f = self.arm.forcing(0.0, q, zero)[1][e]
            Kl = linear_stiffness(self.arm.model, q)[np.ix_(e, e)]
            dq = np.linalg.solve(Kl, f)
            q[e] += dq
            step = float(np.max(np.abs(dq)))
            if step < tol:
                return q
        raise SimulationError(f"static_deflection did not converge in {max_iter} Newton "
                              f"steps (last step {step:.3g} > tol = {tol})", time=0.0)

    def frequencies(self, q, n=4):
        """The n lowest natural frequencies (Hz) about q at rest, joints held."""
        return self.arm.natural_frequencies(n, q, joints="locked")


class _Shapes:
    """[W]'s mode shapes of arm 1 and their slopes (docs/rrrp-arm.md eq. (3.1), §6)."""

    def __init__(self, p):
        self.p = p

    def phi1y(self, x):
        return (x / self.p.l1) ** self.p.p1y

    def dphi1y(self, x):
        p = self.p
        return p.p1y / p.l1 * (x / p.l1) ** (p.p1y - 1)

    def phi1z(self, x):
        p = self.p
        return np.sin(math.pi * x / p.l1) if p.phi1z == "sine" else self.phi1y(x)

    def dphi1z(self, x):
        p = self.p
        return math.pi / p.l1 * np.cos(math.pi * x / p.l1) if p.phi1z == "sine" else self.dphi1y(x)


def _frame_of(am, eta):
    """Arm 2's frame A2 of the assumed-modes model at eta (3, 3): x from A to B at
    q2 = 0, y and z the moves of B under unit q2y and q2z (B = A + A2 [L, q2y, q2z] is
    linear in q2 with phi_2(L) = 1, so these are A2's columns exactly)."""
    base = np.array(eta, dtype=float)
    base[5] = base[6] = 0.0
    r = lambda e: np.real(am.positions(e))[-1]  # noqa: E731
    rb = r(base)
    ra = np.real(am.positions(base))[-2]
    cols = []
    for k in (5, 6):
        e = base.copy()
        e[k] = 1.0           # phi_2(L) = 1: B moves by exactly the frame's y (z) axis
        cols.append(r(e) - rb)
    x = (rb - ra) / np.linalg.norm(rb - ra)
    return np.column_stack([x, cols[0], cols[1]])


def fem_arm(params=None, a=None, n_elements=4, poisson=POISSON, torsion_factor=1.0):
    """The RRRP arm as a :class:`SpatialArm` (module docstring): an :class:`RRRPFem`.

    Args:
        params: :class:`RRRPParams` (default ``RRRPParams()``): lengths, sections, m_A,
            m_B, gravity, theta3 convention. The assumed-mode settings (lambda, p1y,
            phi1z, n_gauss) play no part in the FEM model.
        a: the layout extension, m (default the middle of the stroke): arm 3 is a link of
            length a outside arm 2, and arm 2 carries both tubes over the overlap
            l3 - a. Must lie in ``params.stroke`` and be > 0.
        n_elements: elements per arm (arm 2 gets at least one on each side of the
            overlap's start).
        poisson: Poisson's ratio for the torsional stiffness GJ = EI / (1 + nu).
        torsion_factor: multiplies GJ and rho_Ip ([W] has no torsion; a large factor
            makes the links torsionally rigid like [W]'s).
    """
    p = RRRPParams() if params is None else params
    if not isinstance(p, RRRPParams):
        raise ParameterError("params", params, "must be an RRRPParams")
    a = 0.5 * (p.stroke[0] + p.stroke[1]) if a is None else ck.positive("a", a)
    if not p.stroke[0] <= a <= p.stroke[1]:
        raise ParameterError("a", a, f"must lie in the stroke {p.stroke}")
    n = ck.positive_int("n_elements", n_elements)
    nu = ck.real("poisson", poisson)
    if not 0.0 <= nu < 0.5:
        raise ParameterError("poisson", poisson, "must be in [0, 0.5)")
    tf = ck.positive("torsion_factor", torsion_factor)

    def torsion(EI, rA, tube):
        return dict(GJ=tf * EI / (1 + nu), rho_Ip=tf * rA * tube_polar_gyration(tube))

    link1 = SpatialLink(p.l1, n, EI_y=p.EI1, EI_z=p.EI1, rho_A=p.rho_A1,
                        **torsion(p.EI1, p.rho_A1, p.tube1))
    x_b = p.l2 - (p.l3 - a)               # where arm 3's inner end sits in arm 2
    lengths2 = split_elements(n, (x_b, p.l2 - x_b))
    nodes, in3 = np.cumsum((0.0,) + lengths2), []
    for x0, x1 in zip(nodes[:-1], nodes[1:]):
        in3.append(0.5 * (x0 + x1) > x_b)
    sec2 = {k: [] for k in ("EI_y", "EI_z", "GJ", "rho_A", "rho_Ip")}
    t2, t3 = torsion(p.EI2, p.rho_A2, p.tube2), torsion(p.EI3, p.rho_A3, p.tube3)
    for both in in3:
        sec2["EI_y"].append(p.EI2 + both * p.EI3)
        sec2["EI_z"].append(p.EI2 + both * p.EI3)
        sec2["GJ"].append(t2["GJ"] + both * t3["GJ"])
        sec2["rho_A"].append(p.rho_A2 + both * p.rho_A3)
        sec2["rho_Ip"].append(t2["rho_Ip"] + both * t3["rho_Ip"])
    link2 = SpatialLink(p.l2, element_lengths=lengths2,
                        **{k: tuple(v) if len(set(v)) > 1 else v[0] for k, v in sec2.items()})
    link3 = SpatialLink(a, n, EI_y=p.EI3, EI_z=p.EI3, rho_A=p.rho_A3, **t3)
    down = (0.0, -1.0, 0.0)               # Rot(-y, t) = Ry(-t) lifts x towards +z
    bodies = [RigidBody(0.0), link1, link2, link3, RigidBody(p.m_B)]
    joints = [RevoluteJoint(axis=(0.0, 0.0, 1.0)), RevoluteJoint(axis=down),
              RevoluteJoint(axis=down, hub_mass=p.m_A),
              PrismaticJoint(axis=(1.0, 0.0, 0.0), offset=(-a, 0.0, 0.0),
                             x_axis=(1.0, 0.0, 0.0), y_axis=(0.0, 1.0, 0.0)),
              FixedJoint()]
    arm = SpatialArm(bodies, joints, gravity=p.gravity)
    return RRRPFem(arm, p, float(a))


def _am_hessian(am, eta):
    """The potential's Hessian over the modal coordinates (4, 4), symmetrised: central
    differences of its complex-step gradient, step ~ eps^(1/3) scaled by the coordinate
    (as :meth:`RRRPArm.static_deflection`)."""
    e = list(ELASTIC)
    H = np.empty((len(e), len(e)))
    for j, k in enumerate(e):
        h = 6e-6 * max(1.0, abs(eta[k]))
        d = np.zeros(8)
        d[k] = h
        H[:, j] = (am.potential_gradient(eta + d)[e] - am.potential_gradient(eta - d)[e]) / (2 * h)
    return 0.5 * (H + H.T)


def am_frequencies(am, eta, n=4):
    """The n lowest natural frequencies (Hz) of the assumed-modes arm about ``eta`` at
    rest with the joints held: K_l phi = omega^2 M_ee phi over the modal coordinates,
    K_l the Hessian of the potential (central differences of its complex-step gradient,
    as :meth:`RRRPArm.static_deflection` does)."""
    return am_modes(am, eta, n).frequencies


def am_modes(am, eta, n=4):
    """The n lowest natural modes of :func:`am_frequencies` as a
    :class:`chrono_flex.spatial.modes.Modes` (``joints`` "locked"; mass-normalised
    vectors over the eight coordinates, zero at the actuated ones)."""
    eta = ck.vector("eta", eta, 8)
    n = ck.positive_int("n", n)
    if n > len(ELASTIC):
        raise ParameterError("n", n, f"must be at most {len(ELASTIC)}")
    e = list(ELASTIC)
    M = am.mass_matrix(eta)[np.ix_(e, e)]
    w2, phi = eigh(_am_hessian(am, eta), M)
    vectors = np.zeros((n, 8))
    vectors[:, e] = phi[:, :n].T
    return Modes(np.sqrt(np.maximum(w2[:n], 0.0)) / (2 * np.pi), vectors, "locked", eta)


def am_prescribed(am, joint_motion, t_eval, e0=None, ed0=None, rtol=1e-8, atol=1e-10,
                  method="DOP853"):
    """The assumed-modes arm with its actuated coordinates (theta1, theta2, theta3, a)
    prescribed: the modal coordinates integrated from
    ``M_ee e'' = f_e - M_ej theta''`` (the mixed problem of the FEM engine,
    docs/spatial-link.md §6). ``joint_motion(t) -> (theta, theta_d, theta_dd)``, each (4,)
    in the assumed-modes convention. Returns eta (nt, 8) and eta_d (nt, 8) at ``t_eval``.
    ``method``: a scipy method (DOP853 by default, not the engines' generalized-alpha: the
    difference from the FEM run is the result, so the integrator's error must stay far
    below it).
    """
    if not callable(joint_motion):
        raise ParameterError("joint_motion", joint_motion, "must be callable(t)")
    t_eval = np.asarray(t_eval, dtype=float)
    e0 = np.zeros(4) if e0 is None else ck.vector("e0", e0, 4)
    ed0 = np.zeros(4) if ed0 is None else ck.vector("ed0", ed0, 4)
    a_idx, b_idx = list(ACTUATED), list(ELASTIC)

    def state(t, x):
        th, thd, thdd = (ck.vector("joint_motion", v, 4) for v in joint_motion(t))
        eta, eta_d = np.empty(8), np.empty(8)
        eta[a_idx], eta_d[a_idx] = th, thd
        eta[b_idx], eta_d[b_idx] = x[:4], x[4:]
        return eta, eta_d, thdd

    def rhs(t, x):
        eta, eta_d, thdd = state(t, x)
        f, M = am.forcing(t, eta, eta_d)
        edd = np.linalg.solve(M[np.ix_(b_idx, b_idx)],
                              f[b_idx] - M[np.ix_(b_idx, a_idx)] @ thdd)
        return np.concatenate([x[4:], edd])

    sol = integrate(rhs, (t_eval[0], t_eval[-1]), np.concatenate([e0, ed0]), t_eval,
                    method=method, rtol=rtol, atol=atol, name="the assumed-modes equations")
    eta = np.empty((t_eval.size, 8))
    eta_d = np.empty_like(eta)
    for k, (t, x) in enumerate(zip(t_eval, sol.y.T)):
        eta[k], eta_d[k], _ = state(t, x)
    return eta, eta_d


def quintic_motion(start, goal, duration):
    """joint_motion(t) -> (theta, theta_d, theta_dd) of a quintic rest-to-rest move from
    ``start`` to ``goal`` (4 actuated coordinates each) in ``duration`` s, then held:
    theta = start + (goal - start) s(t/T), s = 10 u^3 - 15 u^4 + 6 u^5."""
    start, goal = ck.vector("start", start, 4), ck.vector("goal", goal, 4)
    T = ck.positive("duration", duration)
    d = goal - start

    def motion(t):
        s, sd, sdd = smooth_step(t, 0.0, T)
        return start + d * s, d * sd, d * sdd

    return motion


def difference_bound(t, u_am, omega_am, omega_fem):
    """B(t) = (omega_am^2 - omega_fem^2) / omega_fem int_0^t |u_am| dt (docs/rrrp-arm.md
    eq. (6.3)): a bound on |u_fem(t) - u_am(t)| when each model's elastic tip
    displacement u responds as one mode to the same load per unit modal mass, both start
    at rest undeformed, and omega_am >= omega_fem. ``u_am`` (nt, 3) or (nt,)."""
    t = np.asarray(t, dtype=float)
    u = np.asarray(u_am, dtype=float)
    n = np.linalg.norm(u.reshape(t.size, -1), axis=1)
    integral = np.concatenate([[0.0], np.cumsum(0.5 * (n[1:] + n[:-1]) * np.diff(t))])
    return abs(omega_am**2 - omega_fem**2) / omega_fem * integral


@dataclass
class Comparison:
    """Both models on one prescribed manoeuvre (:func:`compare_manoeuvre`).

    t (nt,); tip_am, tip_fem (nt, 3) the end effector B; u_am, u_fem (nt, 3) its elastic
    displacement (B less B of the rigid arm at the same joints, the same for both);
    f_am, f_fem the two lowest joint-locked frequencies (Hz) of each model at the start
    and at the goal (2, 2); bound (nt,) the bound B(t) of eq. (6.3); eta (nt, 8) and
    q (nt, nq) the two models' states; info (wall times, evaluations).
    """

    t: np.ndarray
    tip_am: np.ndarray
    tip_fem: np.ndarray
    u_am: np.ndarray
    u_fem: np.ndarray
    f_am: np.ndarray
    f_fem: np.ndarray
    bound: np.ndarray
    eta: np.ndarray
    q: np.ndarray
    info: dict

    @property
    def difference(self):
        """|r_B,fem - r_B,am| (nt,), m."""
        return np.linalg.norm(self.tip_fem - self.tip_am, axis=1)


def compare_manoeuvre(fem, am, motion, t_end, goal=None, n_out=201, rtol=1e-4,
                      method="Radau"):
    """Run the FEM arm ``fem`` (:func:`fem_arm`) and the assumed-modes arm ``am``
    (:class:`RRRPArm`) on the same prescribed joint motion (assumed-modes convention,
    ``motion(t) -> (theta, theta_d, theta_dd)``), both from rest undeformed, and
    return a :class:`Comparison` with the bound (6.3) of docs/rrrp-arm.md. The joint
    frequencies enter the bound at their worst: the largest assumed-modes and smallest
    FEM value of the first two over the start and ``goal`` (4,) configurations."""
    t = np.linspace(0.0, ck.positive("t_end", t_end), ck.positive_int("n_out", n_out))
    th0 = motion(0.0)[0]
    goal = motion(t[-1])[0] if goal is None else ck.vector("goal", goal, 4)
    f_am, f_fem = np.empty((2, 2)), np.empty((2, 2))
    for k, th in enumerate((th0, goal)):
        eta = np.zeros(8)
        eta[list(ACTUATED)] = th
        f_am[k] = am_frequencies(am, eta, 2)
        f_fem[k] = fem.frequencies(fem.fem_coordinates(eta), 2)
    wall = time.perf_counter()
    eta, _ = am_prescribed(am, motion, t, rtol=1e-6, atol=1e-9)
    wall_am = time.perf_counter() - wall

    def fem_motion(s):
        # the map is linear, so it carries rates and accelerations too
        return np.concatenate([fem.joint_coordinates(v) for v in motion(s)])

    eta0 = np.zeros(8)
    eta0[list(ACTUATED)] = th0
    wall = time.perf_counter()
    res = fem.arm.simulate(t[-1], q0=fem.fem_coordinates(eta0), joint_motion=fem_motion,
                           dt_out=t[-1] / (t.size - 1), method=method, rtol=rtol,
                           progress=False)
    wall_fem = time.perf_counter() - wall
    if res.t.size != t.size:
        raise SimulationError(f"the FEM run returned {res.t.size} samples, not {t.size}",
                              time=float(res.t[-1]))
    tip_am = np.array([am.tip_position(e) for e in eta])
    rigid = eta.copy()
    rigid[:, list(ELASTIC)] = 0.0
    tip_rigid = np.array([am.tip_position(e) for e in rigid])
    w_am, w_fem = 2 * np.pi * f_am.max(), 2 * np.pi * f_fem.min()
    bound = difference_bound(t, tip_am - tip_rigid, w_am, w_fem)
    return Comparison(t, tip_am, res.tip_position, tip_am - tip_rigid,
                      res.tip_position - tip_rigid, f_am, f_fem, bound, eta, res.q,
                      dict(wall_am=wall_am, wall_fem=wall_fem, nfev_fem=res.info.get("nfev"),
                           method=method, rtol=rtol))


def straight_arm_sections(params, a):
    """The RRRP arm held straight (theta2 = theta3 - theta2 = 0) as one cantilever from
    the origin: a list of (x0, x1, EI, rho_A) pieces, arm 1 then arms 2+3 at extension
    ``a`` (both tubes over the overlap, docs/rrrp-arm.md §4), and the point masses
    [(x, m)] of m_A at l1 and m_B at the tip."""
    p = params
    x_b = p.l2 - (p.l3 - a)
    pieces = [(0.0, p.l1, p.EI1, p.rho_A1)]
    if x_b > 0:
        pieces.append((p.l1, p.l1 + x_b, p.EI2, p.rho_A2))
    pieces += [(p.l1 + max(x_b, 0.0), p.l1 + p.l2, p.EI2 + p.EI3, p.rho_A2 + p.rho_A3),
               (p.l1 + p.l2, p.l1 + p.l2 + a, p.EI3, p.rho_A3)]
    return pieces, [(p.l1, p.m_A), (p.l1 + p.l2 + a, p.m_B)]


def cantilever_sag(pieces, masses, g):
    """Tip deflection of a straight horizontal cantilever under its weight, by the
    unit-load method (Timoshenko & Gere, *Mechanics of Materials*, virtual work):
    delta = int_0^L M(x) (L - x) / EI(x) dx with the bending moment
    M(x) = g [int_x^L rho_A(s) (s - x) ds + sum_k m_k (x_k - x)_+]. On each piece the
    integrand is a polynomial of degree <= 3, so 4-point Gauss-Legendre is exact."""
    L = pieces[-1][1]
    xg, wg = np.polynomial.legendre.leggauss(4)

    def moment(x):
        out = sum(m * max(xk - x, 0.0) for xk, m in masses)
        for x0, x1, _, rA in pieces:
            lo = max(x0, x)
            if x1 > lo:      # int_lo^x1 (s - x) ds
                out += rA * 0.5 * ((x1 - x) ** 2 - (lo - x) ** 2)
        return g * out

    delta = 0.0
    for x0, x1, EI, _ in pieces:
        xs = 0.5 * (x0 + x1) + 0.5 * (x1 - x0) * xg
        delta += 0.5 * (x1 - x0) * sum(w * moment(x) * (L - x) / EI for x, w in zip(xs, wg))
    return delta


def linear_sag(fem, joints):
    """Elastic displacement of B (3,) under gravity by the FEM arm's linear statics at the
    joints (theta1, theta2, theta3, a) (:meth:`SpatialArm.static_deflection`: K e = Q_g at
    the rigid configuration), linearised: J_B e."""
    eta = np.zeros(8)
    eta[list(ACTUATED)] = ck.vector("joints", joints, 4)
    q0 = fem.fem_coordinates(eta)
    e = fem.arm.static_deflection({}, q0) - q0
    return _linear_tip(fem, q0, e)


def _linear_tip(fem, q0, dq, h=1e-30):
    """J_B(q0) dq by complex step (the displacement of B to first order)."""
    from ..spatial import equations as mdl

    f = mdl.tip_frames(fem.arm.model, q0 + 1j * h * dq)[len(BODIES) - 1]
    return np.imag(f.p) / h


def am_linear_sag(am, joints):
    """Elastic displacement of B (3,) of the assumed-modes arm under gravity, linear:
    e = -H^-1 dV/de at the rigid configuration (H the potential's Hessian in the modal
    coordinates), displacement J_B e. Also returns the work of gravity on it,
    W = -dV/de . e (twice the elastic energy: a Ritz solution's W never exceeds the
    exact one for admissible shapes)."""
    eta = np.zeros(8)
    eta[list(ACTUATED)] = ck.vector("joints", joints, 4)
    el = list(ELASTIC)
    g = am.potential_gradient(eta)[el]
    e = -np.linalg.solve(_am_hessian(am, eta), g)
    d = np.zeros(8)
    d[el] = e
    J = am.jacobian(eta)[-1]
    return np.real(J @ d), float(-g @ e)


def fem_linear_work(fem, joints):
    """The work of gravity on the FEM arm's linear static deflection, W = Q_g . e (the
    FEM counterpart of :func:`am_linear_sag`'s W)."""
    from ..spatial import equations as mdl

    eta = np.zeros(8)
    eta[list(ACTUATED)] = ck.vector("joints", joints, 4)
    q0 = fem.fem_coordinates(eta)
    e = fem.arm.static_deflection({}, q0) - q0
    Qg = mdl.terms(fem.arm.model, q0, np.zeros(fem.arm.nq))[2]
    return float(Qg @ e)
