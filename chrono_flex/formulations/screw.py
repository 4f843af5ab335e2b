"""Screw (6x6) recursive Newton-Euler dynamics of a serial chain ([L]; docs/screw-recursion.md).

[L] Lin Ruilin, "Dynamic equation of flexible manipulator", J. Huaqiao University (1995).
A third formulation beside the virtual-power and Kozlowski forms of :mod:`chrono_flex.planar.equations`:

* screw algebra (docs/screw-recursion.md §1) in :mod:`chrono_flex.formulations.screw_algebra`:
  every screw is written primary-part first, S_hat = [S; S'] (a twist V = [omega; v], a
  wrench F = [F; M]);
* rigid inverse dynamics (docs/screw-recursion.md §3, step 1): outward recursion of
  twists and their rates, Newton-Euler wrench of each body about its joint origin, inward
  recursion of joint wrenches. It runs in 3D although the arm is planar (the arm plane is XY,
  rotation axes along Z);
* the weak-coupling flexible inverse dynamics of [L] (docs/screw-recursion.md §3, steps 2-3):
  the rigid motion loads each clamped-free link, whose small deformation is integrated
  along the trajectory and then fed back into the recursions. **This is an
  approximation**: the deformation does not act back on the loads that produce it
  (no centrifugal softening theta_dot^2 M_e a), and the links vibrate uncoupled in step
  2 (the outboard chain rides on a link's tip as a rigid body: its rigid wrench, and by
  default its composite rigid inertia). Step 3 itself is exact for a given deformation
  (it reproduces the Lagrange joint rows to round-off). Measured against the exact mixed
  problem of :meth:`chrono_flex.PlanarArm.simulate` in
  ``tests/formulations/test_screw.py`` and ``validation/cases/screw.py``: for one link
  its torque error falls as 1/EI^2 (the rigid model's as 1/EI); for two links it is a
  few times smaller than the rigid model's but does not vanish with EI (uncoupled
  vibration frequencies).

Frames: body j has its origin O_j at the root of link j, its x axis along the undeformed
link, z normal to the arm plane. All twists and wrenches of body j are expressed in
body-j coordinates about O_j; rates of twists are the time derivatives of those body
components.
"""

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .. import _checks as ck
from ..integrators.choice import check_times
from ..integrators.ivp import integrate
from ..errors import ParameterError
from ..planar.shapes import basis_for
from ..result import SeriesFiles
from .screw_algebra import (DELTA, EX, EZ, cross3, cross6, rot_z, screw_matrix,
                            screw_matrix_inv, spatial_inertia)
# the public screw algebra, still reachable here as in 0.1 (chrono_flex.screw.skew, ...)
from .screw_algebra import (cross_matrix, gravity_wrench, newton_euler_wrench,  # noqa: F401
                            screw_inverse, screw_transform, skew)

# -- the chain ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Body:
    """Rigid data of one link body j (body coordinates, about O_j).

    mass, com, inertia (about O_j): the uniform rod (rho_A L, line along x, so
    J = diag(0, m L^2/3, m L^2/3)) plus the joint's hub mass (at O_j) and hub inertia
    (about z), plus the payload at the tip of the last link. tip: the link tip (L, 0, 0).
    """

    mass: float
    com: np.ndarray
    inertia: np.ndarray
    tip: np.ndarray
    hub_mass: float
    hub_inertia: float
    tip_mass: float
    tip_inertia: float

    @cached_property
    def O(self):
        """The body's :func:`spatial_inertia` O_j."""
        return spatial_inertia(self.mass, self.com, self.inertia)


def chain_bodies(arm):
    """The rigid :class:`Body` of every link of a :class:`chrono_flex.PlanarArm`."""
    bodies = []
    n = arm.n_joints
    for j, (lk, jt) in enumerate(zip(arm.links, arm.joints)):
        if not lk.uniform:
            name = "element_lengths" if lk.element_lengths is not None else (
                "EI" if not isinstance(lk.EI, float) else "rho_A")
            raise ParameterError(f"links[{j}].{name}", getattr(lk, name),
                                 "varies along the link, which the screw recursion's rigid "
                                 "bodies (uniform rods) do not model; use the reference, "
                                 "chrono or chrono-beam engine")
        L, m_rod = lk.length, lk.mass
        J_hub = jt.hub_inertia + (arm.hub_inertia if j == 0 else 0.0)
        m_tip = arm.payload.mass if j == n - 1 else 0.0
        J_tip = arm.payload.inertia if j == n - 1 else 0.0
        tip = np.array([L, 0.0, 0.0])
        m = m_rod + jt.hub_mass + m_tip
        mP = m_rod * tip / 2 + m_tip * tip
        J = np.diag([0.0, m_rod * L * L / 3, m_rod * L * L / 3])
        J = J + np.diag([0.0, m_tip * L * L, m_tip * L * L]) + np.diag([0.0, 0.0, J_hub + J_tip])
        bodies.append(Body(m, mP / m if m > 0 else np.zeros(3), J, tip, jt.hub_mass, J_hub,
                           m_tip, J_tip))
    return bodies


def joint_transform(joint, q):
    """(A, r) of the child body frame in the parent's tip frame, for joint coordinate q.

    Revolute: A = Rz(q + offset), r = 0. Prismatic: the slide axis u = Rz(axis_angle) e_x,
    r = q u, A = Rz(axis_angle + link_angle) (docs/planar-link.md eq. (1.6),
    :class:`PrismaticJoint`).
    """
    if joint.kind == "revolute":
        return rot_z(q + joint.angle_offset), np.zeros(3)
    return rot_z(joint.axis_angle + joint.link_angle), q * rot_z(joint.axis_angle)[:, 0]


def joint_screw(joint):
    """Unit joint screw S_j in child-body components ([L]'s mu_hat, q_j = (1-mu) Z + mu theta):
    revolute [e_z; 0], prismatic [0; u] with u = Rz(-link_angle) e_x."""
    S = np.zeros(6)
    if joint.kind == "revolute":
        S[2] = 1.0
    else:
        S[3:] = rot_z(-joint.link_angle)[:, 0]
    return S


@dataclass
class Recursion:
    """What the recursions produced at one instant (lists over bodies, body components).

    V, V_dot: twists and their rates; g: gravity in body components; F: body wrenches
    (inertial minus gravity); f: joint wrenches (from the parent onto body j, about O_j);
    tau: joint torques / forces S_j . DELTA f_j; X_tip: A_hat of the tip frame in body j;
    X_joint: A_hat of body j+1 in that tip frame.
    """

    V: list
    V_dot: list
    g: list
    F: list = field(default_factory=list)
    f: list = field(default_factory=list)
    tau: np.ndarray = None
    X_tip: list = field(default_factory=list)
    X_joint: list = field(default_factory=list)


def _tip_frame(body, e_state, basis_tip):
    """(A_hat^{j,tip}, tip relative twist U_dot, its rate U_ddot) in tip components.

    Rigid (e_state None): A = E, r = (L, 0, 0), no relative motion. Deformed ([L] eq. (5),
    A' = A beta_hat, r' = r + U): A = Rz(beta), r = (L, w_L, 0), beta = w'(L); the tip
    frame moves relative to body j with the twist [beta_dot e_z; A^T w_L_dot e_y].
    """
    if e_state is None:
        return screw_matrix(np.eye(3), body.tip), np.zeros(6), np.zeros(6)
    (N, dN), (e, ed, edd) = basis_tip, e_state
    w, wd, wdd = N @ e, N @ ed, N @ edd
    b, bd, bdd = dN @ e, dN @ ed, dN @ edd
    A = rot_z(b)
    lin = A.T @ np.array([0.0, wd, 0.0])
    U = np.concatenate([bd * EZ, lin])
    U_dot = np.concatenate([bdd * EZ, A.T @ np.array([0.0, wdd, 0.0]) - cross3(bd * EZ, lin)])
    return screw_matrix(A, body.tip + np.array([0.0, w, 0.0])), U, U_dot


def _outward(arm, bodies, q, qd, qdd, elastic=None, tips=None):
    """Outward recursion ([L] eqs. (5)-(6), (10)-(11)) in body components:

        V_tip = X_tip^-1 V_j + U_dot,         V_tip_dot = X_tip^-1 V_j_dot + U_ddot + H(V_tip) U_dot
        V_j+1 = X_joint^-1 V_tip + S q_dot,   V_j+1_dot = X_joint^-1 V_tip_dot + S q_dd + H(V_j+1) S q_dot
    """
    g_world = np.array([0.0, -arm.gravity, 0.0])
    R = np.eye(3)
    V_tip, Vd_tip = np.zeros(6), np.zeros(6)
    rec = Recursion([], [], [])
    for j, (body, jt) in enumerate(zip(bodies, arm.joints)):
        A, r = joint_transform(jt, q[j])
        Xj = screw_matrix(A, r)
        S = joint_screw(jt)
        Xi = screw_matrix_inv(Xj)
        V = Xi @ V_tip + S * qd[j]
        Vd = Xi @ Vd_tip + S * qdd[j] + cross6(V) @ S * qd[j]
        R = R @ A
        rec.V.append(V)
        rec.V_dot.append(Vd)
        rec.g.append(R.T @ g_world)
        if j > 0:
            rec.X_joint.append(Xj)
        X_tip, U, Ud = _tip_frame(body, None if elastic is None else elastic[j],
                                  None if tips is None else tips[j])
        Xi = screw_matrix_inv(X_tip)
        V_tip = Xi @ V + U
        Vd_tip = Xi @ Vd + Ud + cross6(V_tip) @ U
        R = R @ X_tip[:3, :3]
        rec.X_tip.append(X_tip)
    return rec


def _inward(arm, rec):
    """Inward recursion ([L] eq. (13)): f_j = F_j + A_hat^{j,tip} A_hat^{tip,j+1} f_j+1 and the
    joint torques tau_j = S_j^T DELTA f_j (the reciprocal product with the joint screw)."""
    n = len(rec.F)
    f = [None] * n
    child = np.zeros(6)
    for j in range(n - 1, -1, -1):
        f[j] = rec.F[j] + child
        if j > 0:
            child = rec.X_tip[j - 1] @ rec.X_joint[j - 1] @ f[j]
    rec.f = f
    rec.tau = np.array([joint_screw(jt) @ DELTA @ fj for jt, fj in zip(arm.joints, f)])
    return rec


def _states(arm, q, qd, qdd):
    n = arm.n_joints
    return (ck.vector("q", q, n), ck.vector("qd", qd, n), ck.vector("qdd", qdd, n))


def rigid_recursion(arm, q, qd, qdd, bodies=None):
    """Rigid Newton-Euler recursions (docs/screw-recursion.md §3, step 1) at state (q, qd, qdd).

    q, qd, qdd: joint coordinates, rates, accelerations (n_joints,) -- joint angles (rad)
    or slides (m). Body wrench F_j = O_j DELTA V_dot_j + H(V_j) O_j DELTA V_j - F_G_j.
    Returns a :class:`Recursion`.
    """
    q, qd, qdd = _states(arm, q, qd, qdd)
    return _rigid(arm, chain_bodies(arm) if bodies is None else bodies, q, qd, qdd)


def _rigid(arm, bodies, q, qd, qdd):
    rec = _outward(arm, bodies, q, qd, qdd)
    for b, V, Vd, g in zip(bodies, rec.V, rec.V_dot, rec.g):
        OD = b.O @ DELTA        # F = O DELTA V_dot + H(V) O DELTA V - F_G  ([L] eq. (12))
        F_G = np.concatenate([b.mass * g, b.mass * cross3(b.com, g)])
        rec.F.append(OD @ Vd + cross6(V) @ (OD @ V) - F_G)
    return _inward(arm, rec)


def rigid_inverse_dynamics(arm, q, qd, qdd):
    """Joint torques (N m) / forces (N) of the arm treated as rigid, by the screw recursions.

    Equals ``arm.inverse_dynamics`` at zero elastic coordinates, rates and accelerations
    (its joint rows): the same physics by an independent formulation.
    """
    return rigid_recursion(arm, q, qd, qdd).tau


# -- flexible links -----------------------------------------------------------------------
class FlexLink:
    """Small-deformation equation of one clamped-free link in its body frame ([L] eq. (14)):

        M_e a_dd + C a_d + K a = Q(t)

    M_e = int rho_A N^T N dx (+ payload m_t N_L^T N_L + J_t N'_L^T N'_L on the last link),
    K = int EI N''^T N'' dx, C = alpha M_s + beta K (the link's Rayleigh damping), N: the
    link's own shape basis (:func:`chrono_flex.planar.shapes.basis_for`, clamped root).
    """

    def __init__(self, link, body):
        self.link, self.body = link, body
        self.basis = basis_for(link)
        self.n = self.basis.n
        Ms = self.basis.mass_matrix(link.rho_A)
        self.K = self.basis.stiffness_matrix(link.EI)
        self.C = link.damping_alpha * Ms + link.damping_beta * self.K
        N, dN, _ = self.basis.tip_values
        self.tip = (N[0], dN[0])
        self.M = Ms + body.tip_mass * np.outer(N[0], N[0]) + body.tip_inertia * np.outer(dN[0], dN[0])
        self.x, self.w, _ = self.basis.quadrature()
        self.Nq = self.basis.values(self.x)[0]
        self.G = np.zeros((6, self.n))
        self.G[2], self.G[4] = dN[0], N[0]
        self.N_int = self.Nq.T @ self.w                 # int N dx
        self.xN_int = self.Nq.T @ (self.w * self.x)     # int x N dx

    def load(self, V, V_dot, g, tip_wrench):
        """Q = -int rho_A N^T (a_y(x) - g_y) dx - m_t N_L^T (a_y(L) - g_y) - J_t N'_L^T omega_dot_z
        + N_L^T F_y + N'_L^T M_z: the rigid inertial load and the outboard chain's wrench
        [F; M] acting on the tip (tip components, about the tip point).
        """
        w, v = V[:3], V[3:]
        wd, vd = V_dot[:3], V_dot[3:]
        a0 = vd + cross3(w, v) - g            # a(x) - g = a0 + x c along the rigid link
        c = cross3(wd, EX) + cross3(w, cross3(w, EX))
        Q = -self.link.rho_A * (self.N_int * a0[1] + self.xN_int * c[1])
        NL, dNL = self.tip
        Q -= self.body.tip_mass * NL * (a0[1] + self.body.tip[0] * c[1]) + self.body.tip_inertia * dNL * wd[2]
        return Q + NL * tip_wrench[1] + dNL * tip_wrench[5]

    def mass(self, outboard=None):
        """M_e, plus G^T DELTA I_out G when the outboard chain's composite rigid inertia
        I_out (twist -> momentum, tip components) rides on the tip: G maps a_dot to the
        tip's elastic twist [w'_L e_z; w_L e_y]."""
        if outboard is None:
            return self.M
        return self.M + self.G.T @ DELTA @ outboard @ self.G

    def accelerations(self, a, ad, Q, M=None):
        return np.linalg.solve(self.M if M is None else M, Q - self.C @ ad - self.K @ a)

    def wrench(self, V, V_dot, g, e, ed, edd):
        """Body wrench of the deformed link about O_j ([L] eq. (8)), by quadrature:
        F = sum dm (a - g), M = sum s x dm (a - g), with s = (x, w, 0) and
        a = v_dot + omega x v + omega_dot x s + omega x (omega x s) + 2 omega x s_dot + s_ddot;
        plus the hub (at O_j) and the payload (at the deformed tip, turning with the slope).
        """
        w_, v = V[:3], V[3:]
        wd, vd = V_dot[:3], V_dot[3:]
        a0 = vd + np.cross(w_, v) - g
        b = self.body

        def points(x, N):
            s = np.zeros((x.size, 3))
            s[:, 0], s[:, 1] = x, N @ e
            sd = np.zeros_like(s)
            sd[:, 1] = N @ ed
            sdd = np.zeros_like(s)
            sdd[:, 1] = N @ edd
            a = (a0 + np.cross(wd, s) + np.cross(w_, np.cross(w_, s)) + 2 * np.cross(w_, sd)
                 + sdd)
            return s, a

        s, a = points(self.x, self.Nq)
        dm = self.link.rho_A * self.w
        F = dm @ a
        M = dm @ np.cross(s, a)
        F = F + b.hub_mass * a0
        M = M + b.hub_inertia * (wd[2] * EZ) + np.cross(w_, b.hub_inertia * w_[2] * EZ)
        if b.tip_mass or b.tip_inertia:
            NL, dNL = self.tip
            sL, aL = points(np.array([b.tip[0]]), NL[None, :])
            F = F + b.tip_mass * aL[0]
            M = M + b.tip_mass * np.cross(sL[0], aL[0])
            wt = w_ + (dNL @ ed) * EZ
            wdt = wd + (dNL @ edd) * EZ
            M = M + b.tip_inertia * (wdt[2] * EZ) + np.cross(wt, b.tip_inertia * wt[2] * EZ)
        return np.concatenate([F, M])


def flexible_recursion(arm, q, qd, qdd, elastic, links=None):
    """Recursions with the links deformed (step 3 of [L]'s algorithm, docs/screw-recursion.md §3).

    elastic: per link (a, a_dot, a_ddot) of its elastic coordinates. The tip frames carry
    the deformation (r' = r + U, A' = A beta_hat, twist + U_hat_dot), the body wrenches
    are those of the deformed links (:meth:`FlexLink.wrench`). Returns a
    :class:`Recursion`; with zero deformation it equals :func:`rigid_recursion`.
    """
    q, qd, qdd = _states(arm, q, qd, qdd)
    if links is None:
        links = [FlexLink(lk, b) for lk, b in zip(arm.links, chain_bodies(arm))]
    if len(elastic) != len(links):
        raise ParameterError("elastic", elastic, f"must hold one (a, a_dot, a_ddot) per link ({len(links)})")
    el = []
    for k, (fl, st) in enumerate(zip(links, elastic)):
        el.append(tuple(ck.vector(f"elastic[{k}][{i}]", v, fl.n) for i, v in enumerate(st)))
    rec = _outward(arm, [fl.body for fl in links], q, qd, qdd, el, [fl.tip for fl in links])
    for fl, V, Vd, g, st in zip(links, rec.V, rec.V_dot, rec.g, el):
        rec.F.append(fl.wrench(V, Vd, g, *st))
    return _inward(arm, rec)


@dataclass
class WeakCouplingResult(SeriesFiles):
    """Joint torques along a prescribed trajectory by [L]'s weak coupling.

    t (nt,); joint_torque (nt, nj): step 3, with the deformation; joint_torque_rigid
    (nt, nj): step 1 alone; elastic: list per link of (nt, n_i) elastic coordinates;
    tip_deflection (nt, nl): w_i(L_i) in the link frame; info: solver statistics.
    ``to_csv``, ``to_npz``, ``from_npz``: :class:`chrono_flex.result.SeriesFiles`.
    """

    t: np.ndarray
    joint_torque: np.ndarray
    joint_torque_rigid: np.ndarray
    elastic: list
    tip_deflection: np.ndarray
    info: dict

    name = "weak coupling"
    description = "joint torques along a prescribed joint motion ([L]'s weak coupling)"

    def __repr__(self):
        tau = ", ".join(f"{v:+.4g}" for v in self.joint_torque[-1])
        return (f"<WeakCouplingResult: t = {self.t[0]:.4g} .. {self.t[-1]:.4g} s, "
                f"{self.t.size} samples, final joint torques [{tau}] N m>")

    def columns(self):
        nj, nl = self.joint_torque.shape[1], self.tip_deflection.shape[1]
        cols = {"t": self.t}
        for j in range(nj):
            cols[f"joint{j + 1}_torque"] = self.joint_torque[:, j]
            cols[f"joint{j + 1}_torque_rigid"] = self.joint_torque_rigid[:, j]
        for i in range(nl):
            cols[f"tip_deflection{i + 1}"] = self.tip_deflection[:, i]
        for i, e in enumerate(self.elastic):
            cols.update({f"elastic{i + 1}_{k + 1}": e[:, k] for k in range(e.shape[1])})
        return cols

    def units(self):
        """Time, torques, deflections (the elastic coordinates mix m and rad: none)."""
        return {n: "s" if n == "t" else "N m" if "torque" in n else "m"
                for n in self.columns() if not n.startswith("elastic")}

    def meta(self):
        return {"info": self.info, "n_elastic": [e.shape[1] for e in self.elastic]}

    @classmethod
    def from_parts(cls, columns, meta):
        def stack(prefix, n):
            return np.column_stack([columns[f"{prefix}{k + 1}"] for k in range(n)])
        nj = sum(1 for n in columns if n.endswith("_torque_rigid"))
        tau = np.column_stack([columns[f"joint{j + 1}_torque"] for j in range(nj)])
        rigid = np.column_stack([columns[f"joint{j + 1}_torque_rigid"] for j in range(nj)])
        nl = sum(1 for n in columns if n.startswith("tip_deflection"))
        elastic = [stack(f"elastic{i + 1}_", m) for i, m in enumerate(meta["n_elastic"])]
        return cls(columns["t"], tau, rigid, elastic, stack("tip_deflection", nl), meta["info"])

    @property
    def data(self):
        return self.columns()

    @property
    def panels(self):
        """The figure's panels (as a drive scenario's): joint torques, tip deflections."""
        nj, nl = self.joint_torque.shape[1], self.tip_deflection.shape[1]
        return [dict(title="joint torques (dashed: rigid arm)", xlabel="time t (s)",
                     ylabel="torque (N m)",
                     lines=[("t", f"joint{j + 1}_torque{s}", f"joint {j + 1}{label}",
                             f"C{j}{style}") for j in range(nj)
                            for s, label, style in (("", "", "-"), ("_rigid", ", rigid", "--"))]),
                dict(title="tip deflections", xlabel="time t (s)", ylabel="deflection (m)",
                     lines=[("t", f"tip_deflection{i + 1}", f"link {i + 1}", "-")
                            for i in range(nl)])]

    def summary(self):
        lines = [f"{self.description}: t = {self.t[0]:.4g} .. {self.t[-1]:.4g} s, "
                 f"{self.t.size} samples"]
        for j in range(self.joint_torque.shape[1]):
            d = self.joint_torque[:, j] - self.joint_torque_rigid[:, j]
            tau = np.max(np.abs(self.joint_torque[:, j]))
            lines.append(f"joint {j + 1}: torque max |.| {tau:.6g} N m, the deformation's "
                         f"share max |.| {np.max(np.abs(d)):.6g} N m")
        for i in range(self.tip_deflection.shape[1]):
            lines.append(f"link {i + 1}: tip deflection max |w| "
                         f"{np.max(np.abs(self.tip_deflection[:, i])):.4e} m")
        return "\n".join(lines)

    def plot(self, path=None):
        """Joint torques (with the rigid arm's) and tip deflections
        (:func:`chrono_flex.viz.plotting.plot_panels`); saved to ``path`` when given;
        returns the figure."""
        from ..viz.plotting import plot_panels

        return plot_panels(self, path)


def composite_inertias(bodies, rec):
    """Composite rigid inertia of each body and everything outboard, about O_j in body
    components, in twist -> momentum form: I_j = O_j DELTA + T I_j+1 T^-1 with
    T = A_hat^{j,tip} A_hat^{tip,j+1} (Featherstone's composite-rigid-body recursion in
    [L]'s screw notation)."""
    n = len(bodies)
    out = [None] * n
    for j in range(n - 1, -1, -1):
        out[j] = bodies[j].O @ DELTA
        if j + 1 < n:
            T = rec.X_tip[j] @ rec.X_joint[j]
            out[j] = out[j] + T @ out[j + 1] @ screw_matrix_inv(T)
    return out


def weak_coupling(arm, joint_motion, t_end, dt_out=None, t0=0.0, rtol=1e-8, atol=1e-10,
                  outboard_inertia=True, elastic0=None):
    """[L]'s flexible inverse dynamics for a prescribed joint motion (an approximation).

    1. rigid recursions at (theta, theta_dot, theta_ddot)(t) -> twist rates and wrenches;
    2. each link's clamped-free equation M_e a_dd + C a_d + K a = Q(rigid motion, rigid
       outboard wrench) (:class:`FlexLink`) integrated from rest (Radau to ``rtol``,
       ``atol``, constant Jacobian; not the engines' generalized-alpha: this model's
       difference from the exact run is the result, so the integrator's error must stay
       far below it) -- links are uncoupled here, the deformation does not change its load;
    3. the recursions again with the deformed links (:func:`flexible_recursion`).

    joint_motion: callable(t) -> (theta, theta_dot, theta_ddot), as for
    ``PlanarArm.simulate(joint_motion=...)``. outboard_inertia: add the composite rigid
    inertia of the outboard chain (joints locked at their current positions) to M_e of each
    link, so that the tip load of the outboard chain comes with its inertia (without it,
    [L]'s bare eq. (14), an inner link of a multi-link arm vibrates at the frequency of
    the link alone and its joint torque is far off). No effect on the last link.
    elastic0: None (undeformed, at rest) or "static": at rest in the deformation
    K a = Q(t0) of the step-2 equation (for comparison with a run started from
    ``PlanarArm.static_deflection``).
    Returns :class:`WeakCouplingResult`.
    """
    if elastic0 is not None and elastic0 != "static":
        raise ParameterError("elastic0", elastic0, "must be None or 'static'")
    if not callable(joint_motion):
        raise ParameterError("joint_motion", joint_motion, "must be callable")
    t_end, t0, dt_out = check_times(t_end, t0, dt_out)
    rtol, atol = ck.positive("rtol", rtol), ck.positive("atol", atol)
    nj = arm.n_joints
    bodies = chain_bodies(arm)
    links = [FlexLink(lk, b) for lk, b in zip(arm.links, bodies)]
    sizes = [fl.n for fl in links]
    offs = np.concatenate([[0], np.cumsum(sizes)])
    ne = int(offs[-1])

    def motion(t):
        return tuple(ck.vector(f"joint_motion(t)[{k}]", v, nj) for k, v in enumerate(joint_motion(t)))

    def loads(t):
        rec = _rigid(arm, bodies, *(np.asarray(v, dtype=float).reshape(nj) for v in joint_motion(t)))
        out = []
        for j, fl in enumerate(links):
            tip_w = (-(rec.X_joint[j] @ rec.f[j + 1]) if j + 1 < nj else np.zeros(6))
            out.append(fl.load(rec.V[j], rec.V_dot[j], rec.g[j], tip_w))
        return rec, out

    def split(x):
        return [(x[offs[k]:offs[k + 1]], x[ne + offs[k]:ne + offs[k + 1]]) for k in range(nj)]

    def masses(rec):
        if not outboard_inertia or nj == 1:
            return [fl.M for fl in links]
        Ic = composite_inertias(bodies, rec)
        return [fl.mass(rec.X_joint[j] @ Ic[j + 1] @ screw_matrix_inv(rec.X_joint[j]))
                if j + 1 < nj else fl.M for j, fl in enumerate(links)]

    def accelerations(t, x):
        rec, Q = loads(t)
        Ms = masses(rec)
        return rec, [fl.accelerations(a, ad, Qk, M)
                     for fl, (a, ad), Qk, M in zip(links, split(x), Q, Ms)]

    def rhs(t, x):
        return np.concatenate([x[ne:], np.concatenate(accelerations(t, x)[1])])

    def jac(t, x):
        Ms = masses(loads(t)[0]) if outboard_inertia and nj > 1 else [fl.M for fl in links]
        Jm = np.zeros((2 * ne, 2 * ne))
        Jm[:ne, ne:] = np.eye(ne)
        for k, (fl, M) in enumerate(zip(links, Ms)):
            r = slice(ne + offs[k], ne + offs[k + 1])
            Jm[r, offs[k]:offs[k + 1]] = -np.linalg.solve(M, fl.K)
            Jm[r, ne + offs[k]:ne + offs[k + 1]] = -np.linalg.solve(M, fl.C)
        return Jm

    Jac = jac(t0, None) if nj == 1 or not outboard_inertia else jac
    t_eval = ck.output_times(t0, t_end, dt_out)
    motion(t0)                            # checks the shapes once, with named errors
    x0 = np.zeros(2 * ne)
    if elastic0 == "static":
        x0[:ne] = np.concatenate([np.linalg.solve(fl.K, Qk) for fl, Qk in zip(links, loads(t0)[1])])
    sol = integrate(rhs, (t0, t_end), x0, t_eval, method="Radau", rtol=rtol, atol=atol,
                    jac=Jac, name="the weak-coupling elastic equations")
    nt = sol.t.size
    tau = np.empty((nt, nj))
    tau_r = np.empty((nt, nj))
    defl = np.empty((nt, nj))
    for i, (t, x) in enumerate(zip(sol.t, sol.y.T)):
        rec, acc = accelerations(t, x)
        tau_r[i] = rec.tau
        st = [(a, ad, add) for (a, ad), add in zip(split(x), acc)]
        tau[i] = flexible_recursion(arm, *motion(t), st, links).tau
        defl[i] = [fl.tip[0] @ a for fl, (a, _, _) in zip(links, st)]
    elastic = [sol.y[offs[k]:offs[k + 1]].T.copy() for k in range(nj)]
    return WeakCouplingResult(sol.t, tau, tau_r, elastic, defl,
                              dict(nfev=int(sol.nfev), njev=int(sol.njev), nlu=int(sol.nlu)))


def weak_coupling_order(arm, joint_motion, t_end, link, t0=0.0, n_samples=201):
    """Order of the terms [L]'s weak coupling neglects, for an arm whose flexibility sits
    in one link (index ``link``), the others far stiffer (docs/screw-recursion.md §5).

    * softening = Omega^2 / omega_1^2: the centrifugal softening theta_dot^2 M_e e of the
      link's elastic equation, Omega = max |sum of the revolute rates up to the link|
      (its frame's spin, planar arm), omega_1 = 2 pi x the arm's first natural frequency
      (joints locked, at the initial pose), the flexible link's mode;
    * coupling = c_s / c_f: in step 2 the link vibrates on rigid inboard links, so the
      compliance c_s of the inboard links seen at its tip is missing beside its own
      c_f = L^3 / (3 EI). A force at the tip, links stretched out (the worst case), bends
      inboard link i (length L_i, stiffness EI_i, distance D from its tip to the tip of
      the flexible link) by (L_i^3/3 + L_i^2 D + L_i D^2) / EI_i;
    * phase = omega_1 (t_end - t0) / 2: a stiffness error of relative order eps detunes
      the elastic vibration by eps/2, so the vibration part of the torque drifts in phase
      by eps omega_1 t / 2.

    Returns dict(softening, coupling, eps = softening + coupling, phase,
    bound = eps (1 + phase)): the expected order of max |tau_weak - tau_exact| /
    max |tau_rigid - tau_exact| (the fraction of the flexible torque the weak coupling
    misses) over [t0, t_end]. The outboard links' compliance is left out (they ride on
    the link's tip; their stiffness enters the flexible link's mode only through the
    payload's small rotary inertia).
    """
    n = len(arm.links)
    k = int(link) if isinstance(link, (int, np.integer)) and not isinstance(link, bool) else None
    if k is None or not 0 <= k < n:
        raise ParameterError("link", link, f"must be a link index 0..{n - 1}")
    t_end, t0, _ = check_times(t_end, t0, None)
    revolute = np.array([jt.kind == "revolute" for jt in arm.joints[:k + 1]])
    spin = 0.0
    for t in np.linspace(t0, t_end, ck.positive_int("n_samples", n_samples)):
        qd = ck.vector("joint_motion(t)[1]", joint_motion(t)[1], arm.n_joints)
        spin = max(spin, abs(float(np.sum(qd[:k + 1][revolute]))))
    q0 = arm.coordinates(ck.vector("joint_motion(t0)[0]", joint_motion(t0)[0], arm.n_joints))
    w1 = 2 * np.pi * float(arm.natural_frequencies(1, q=q0)[0])
    lk = arm.links[k]

    def ei(lnk):
        if not np.isscalar(lnk.EI) or callable(lnk.EI):
            raise ParameterError("link", link, "weak_coupling_order needs uniform EI on the "
                                 f"link and the inboard links, got EI = {lnk.EI!r}")
        return float(lnk.EI)

    c_f = lk.length ** 3 / (3 * ei(lk))
    c_s, D = 0.0, lk.length
    for i in range(k - 1, -1, -1):
        L = arm.links[i].length
        c_s += (L ** 3 / 3 + L ** 2 * D + L * D ** 2) / ei(arm.links[i])
        D += L
    soft, coup = spin ** 2 / w1 ** 2, c_s / c_f
    phase = w1 * (t_end - t0) / 2
    eps = soft + coup
    return dict(softening=soft, coupling=coup, eps=eps, phase=phase, bound=eps * (1 + phase),
                omega_1=w1, spin=spin)
