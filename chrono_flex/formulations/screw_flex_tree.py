"""[L]'s weak-coupling flexible inverse dynamics on a branched spatial arm, split into
base-to-tip chains (Lin Ruilin 1995; docs/screw-recursion.md §5.2).

The arm is a :class:`chrono_flex.SpatialArm`: rigid bodies and flexible links (bending in
two planes and twisting, docs/spatial-link.md) on revolute, prismatic or fixed joints, any
body carrying several children. [L]'s remark: a tree of flexible links splits into chains
from the base to each tip and the recursion runs on each chain unchanged. Here the chains
are those of :func:`chrono_flex.formulations.screw_tree.base_to_tip_chains`, each body
owned by the first chain through it, and every step of [L]'s algorithm (docs §3) runs
chain by chain:

1. rigid pass: twists and their rates outward along the chain's whole path (a shared body
   gets the same twist from every chain through it), Newton-Euler wrenches, joint wrenches
   inward over the bodies the chain owns; at a branching body the base wrenches of the
   chains that branch off it are added (docs eq. (5.4)), so a shared trunk carries the
   summed loads of all its branches once;
2. deformation: each flexible link's clamped-free equation
   ``M_e a'' + C a' + K a = Q`` (its own elements, Rayleigh damping; the composite rigid
   inertia of everything outboard on its tip), loaded by the rigid acceleration field and
   by the wrench its children exert on its tip, the sum of the base wrenches of every chain
   that leaves it (the chain through it and those branching off), integrated from rest;
3. flexible pass: the recursions again with the deformed links (tip frames moved and
   turned by the deflection, wrenches of the deformed links by quadrature).

Step 3 is exact for a given deformation: it equals the joint rows of the FEM/Lagrange
model's ``M q'' + h - Q_g`` (docs/spatial-link.md §4) to round-off. Step 2 is [L]'s
approximation (no centrifugal softening, links vibrating uncoupled);
:func:`weak_coupling_order` gives the order of what it neglects.

Frames and components are those of :mod:`chrono_flex.spatial.kinematics`: body i's frame
at its joint (a link's x axis along it), a child hanging on its parent's attachment frame
(a link's deformed tip, R_tip = R Rz(v'_L) Ry(-w'_L) Rx(phi_L), or a rigid body's frame).
Every twist and wrench of body i is in body-i components about its origin O_i; rates are
the time derivatives of those components.
"""

from dataclasses import dataclass

import numpy as np

from .. import _checks as ck
from ..integrators.choice import check_times
from ..integrators.ivp import integrate
from ..errors import ParameterError
from ..spatial.kinematics import tip_rotation
from ..spatial.params import rotation
from .screw_algebra import DELTA, cross3, cross6, screw_matrix, screw_matrix_inv
from .screw_tree import base_to_tip_chains, chain_owners

_EX, _EZ = np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])


def _spatial_inertia(m, mP, J):
    """O about the body origin (docs eq. (1.5)) from the mass, first moment m P and the
    inertia tensor J about the origin."""
    Pt = np.array([[0.0, -mP[2], mP[1]], [mP[2], 0.0, -mP[0]], [-mP[1], mP[0], 0.0]])
    return np.block([[m * np.eye(3), Pt.T], [Pt, J]])


class _Body:
    """One body of the arm as the recursion sees it: its joint (screw, placement), its
    rigid inertia about O_i (mass, first moment, tensor: rod, sections' polar inertia, hub
    mass and rotor, or the rigid body's own) and, for a link, its elastic data."""

    def __init__(self, arm, i):
        model = arm.model
        bl = model.layout.bodies[i]
        jt, body = bl.joint, bl.body
        self.parent, self.kind, self.qi = bl.parent, jt.kind, bl.joint_index
        self.mount, self.offset = np.asarray(jt.mount), np.asarray(jt.offset, dtype=float)
        self.axis = np.asarray(getattr(jt, "axis", (0.0, 0.0, 1.0)), dtype=float)
        a = self.mount.T @ self.axis                      # the axis in the body's components
        self.S = (np.concatenate([a, np.zeros(3)]) if jt.kind == "revolute" else
                  np.concatenate([np.zeros(3), a]) if jt.kind == "prismatic" else None)
        self.m_lump = jt.hub_mass                       # point masses at O_i
        self.J_lump = jt.hub_inertia * np.outer(a, a) if jt.kind == "revolute" else np.zeros((3, 3))
        self.link = bl.is_link
        if not self.link:
            self.m_lump += body.mass
            self.J_lump = self.J_lump + body.inertia_matrix
            self.L = 0.0
            m, mP, J = self.m_lump, np.zeros(3), self.J_lump.copy()
        else:
            qu, basis = model.quad[i], bl.basis
            self.L = basis.length
            self.x, self.wA, self.wI = qu.x, qu.w_rho_A, qu.w_rho_Ip
            self.Nv, self.Nw, self.Nphi = qu.Nv, qu.Nw, qu.Nphi
            Nv, dNv, _, Nw, dNw, _, Nphi, _ = basis.tip_values
            # rows of the tip's elastic displacement [v_L, w_L] and rotation theta = (a, b, c)
            # = (v'_L, -w'_L, phi_L), the angles of Rz(a) Ry(b) Rx(c)
            self.tip_v, self.tip_w = Nv[0], Nw[0]
            self.tip_th = np.stack([dNv[0], -dNw[0], Nphi[0]])
            # G: a_dot -> the tip's elastic twist [omega_rel; r_dot] at a = 0 (omega_rel =
            # (c_dot, b_dot, a_dot) about x, y, z)
            self.G = np.zeros((6, basis.n))
            self.G[0], self.G[1], self.G[2] = Nphi[0], -dNw[0], dNv[0]
            self.G[4], self.G[5] = Nv[0], Nw[0]
            self.K = basis.stiffness_matrix()
            Ms = basis.mass_matrix()
            self.C = body.damping_alpha * Ms + body.damping_beta * self.K
            self.M = Ms
            self.n = basis.n
            m = float(np.sum(self.wA)) + self.m_lump
            mP = np.array([float(self.wA @ self.x), 0.0, 0.0])
            Jt = float(self.wA @ self.x ** 2)
            J = np.diag([float(np.sum(self.wI)), Jt, Jt]) + self.J_lump
        self.mass, self.mP = m, mP
        self.O = _spatial_inertia(m, mP, J) @ DELTA        # twist -> momentum

    def placement(self, q):
        """(A, r) of the body frame in its parent's attachment frame (docs/spatial-link.md
        eqs. (1.2)-(1.3))."""
        if self.kind == "revolute":
            return rotation(self.axis, q[self.qi]) @ self.mount, self.offset
        if self.kind == "prismatic":
            return self.mount, self.offset + q[self.qi] * self.axis
        return self.mount, self.offset

    def attachment(self, e=None, ed=None, edd=None):
        """(X_att, U, U_dot): the attachment frame in body components (6x6 screw
        transformation), its twist relative to the body and that twist's rate, in
        attachment components. A rigid body's own frame: E. A rigid link: the tip (L, 0, 0).
        A deformed link ([L] eq. (5), A' = A beta_hat, r' = r + U): A = Rz(a) Ry(b) Rx(c),
        r = (L, v_L, w_L), omega_rel = T theta_dot (T of
        :func:`chrono_flex.spatial.kinematics.tip_rotation`), its rate T theta_ddot +
        a_dot b_dot e_z x t2 + c_dot (a_dot e_z + b_dot t2) x t3, and
        U = [A^T omega_rel; A^T r_dot],
        U_dot = [A^T omega_rel_dot; A^T r_ddot - (A^T omega_rel) x (A^T r_dot)]."""
        if not self.link:
            return np.eye(6), np.zeros(6), np.zeros(6)
        if e is None:
            return screw_matrix(np.eye(3), np.array([self.L, 0.0, 0.0])), np.zeros(6), np.zeros(6)
        th, thd, thdd = self.tip_th @ e, self.tip_th @ ed, self.tip_th @ edd
        A, T = tip_rotation(*th)
        r = np.array([self.L, self.tip_v @ e, self.tip_w @ e])
        rd = np.array([0.0, self.tip_v @ ed, self.tip_w @ ed])
        rdd = np.array([0.0, self.tip_v @ edd, self.tip_w @ edd])
        t2, t3 = T[:, 1], T[:, 2]
        w_rel = T @ thd
        wd_rel = T @ thdd + thd[0] * thd[1] * cross3(_EZ, t2) + thd[2] * cross3(
            thd[0] * _EZ + thd[1] * t2, t3)
        wa, va = A.T @ w_rel, A.T @ rd
        U = np.concatenate([wa, va])
        Ud = np.concatenate([A.T @ wd_rel, A.T @ rdd - cross3(wa, va)])
        return screw_matrix(A, r), U, Ud

    def rigid_wrench(self, V, Vd, g):
        """F = O DELTA V_dot + H(V) O DELTA V - F_G ([L] eq. (12), docs eq. (5.2))."""
        F_G = np.concatenate([self.mass * g, cross3(self.mP, g)])
        return self.O @ Vd + cross6(V) @ (self.O @ V) - F_G

    def flexible_wrench(self, V, Vd, g, e, ed, edd):
        """Wrench about O_i of the deformed link ([L] eq. (8)), by the model's quadrature:
        F = sum dm (a - g), M = sum s x dm (a - g) over the points s = (x, v, w),
        a = v_dot + omega x v + omega_dot x s + omega x (omega x s) + 2 omega x s_dot + s_ddot;
        the sections' spin about x, rho_Ip [(omega_dot_x + phi_ddot) e_x + (omega_x + phi_dot)
        omega x e_x] (docs/spatial-link.md §4.1); the hub mass and rotor at O_i."""
        w, v, wd, vd = V[:3], V[3:], Vd[:3], Vd[3:]
        a0 = vd + cross3(w, v) - g
        s = np.stack([self.x, self.Nv @ e, self.Nw @ e], -1)
        sd = np.stack([0 * self.x, self.Nv @ ed, self.Nw @ ed], -1)
        sdd = np.stack([0 * self.x, self.Nv @ edd, self.Nw @ edd], -1)
        a = a0 + np.cross(wd, s) + np.cross(w, np.cross(w, s)) + 2 * np.cross(w, sd) + sdd
        F = self.wA @ a + self.m_lump * a0
        M = self.wA @ np.cross(s, a)
        phd, phdd = self.Nphi @ ed, self.Nphi @ edd
        M = M + self.wI @ (wd[0] + phdd) * _EX + (self.wI @ (w[0] + phd)) * cross3(w, _EX)
        M = M + self.J_lump @ wd + cross3(w, self.J_lump @ w)
        return np.concatenate([F, M])

    def load(self, V, Vd, g, tip_wrench):
        """Q of step 2 ([L] eq. (14)): minus the rigid inertial and gravity load on the
        elastic coordinates, -sum dm [Nv; Nw]^T (a - g)_{y,z} - sum rho_Ip dx Nphi^T
        omega_dot_x (a = v_dot + omega x v + omega_dot x s + omega x (omega x s) along the
        rigid link, s = (x, 0, 0)), plus the tip wrench [F; M] acting on the link (tip
        components, about the tip): [Nv_L; Nw_L]^T F_{y,z} + theta_rows^T M, theta the tip
        rotation about (z, y, x) = (v'_L, -w'_L, phi_L)."""
        w, v, wd, vd = V[:3], V[3:], Vd[:3], Vd[3:]
        a0 = vd + cross3(w, v) - g
        c = cross3(wd, _EX) + cross3(w, cross3(w, _EX))       # a(x) - g = a0 + x c
        ay, az = a0[1] + self.x * c[1], a0[2] + self.x * c[2]
        Q = -(self.Nv.T @ (self.wA * ay) + self.Nw.T @ (self.wA * az)
              + self.Nphi.T @ (self.wI * wd[0]))
        F, M = tip_wrench[:3], tip_wrench[3:]
        return (Q + self.tip_v * F[1] + self.tip_w * F[2] + self.tip_th[0] * M[2]
                + self.tip_th[1] * M[1] + self.tip_th[2] * M[0])


@dataclass
class Pass:
    """One pass of the recursions at an instant (dicts over bodies, body components).

    V, V_dot: twists and their rates; g: gravity; F: body wrenches; X: the body's screw
    transformation in its parent's attachment frame; X_att, U, U_dot: the attachment frame
    in the body and its relative twist and rate (:meth:`_Body.attachment`); W: the wrench
    the body applies to its children at its attachment frame, the sum of their base
    wrenches (about the attachment origin, its components); f: joint wrenches (from the
    parent onto the body, about O_j); tau: joint torques / forces (n_joints,), in the
    order of the joint coordinates in q.
    """

    V: dict
    V_dot: dict
    g: dict
    F: dict
    X: dict
    X_att: dict
    U: dict
    U_dot: dict
    W: dict
    f: dict
    tau: np.ndarray


class FlexibleTree:
    """A :class:`chrono_flex.SpatialArm` as [L]'s screw recursion sees it, split into
    base-to-tip chains (module docstring)."""

    def __init__(self, arm):
        from ..spatial.arm import SpatialArm

        if not isinstance(arm, SpatialArm):
            raise ParameterError("arm", arm, "must be a SpatialArm")
        if arm.drives:
            raise ParameterError("arm.drives", sorted(arm.drives),
                                 "the screw recursion takes the joints as prescribed; build "
                                 "the arm without drives")
        self.arm = arm
        self.n = len(arm.bodies)
        self.bodies = [_Body(arm, i) for i in range(self.n)]
        self.parents = list(arm.parents)
        self.chains = base_to_tip_chains(self.parents)
        self.owner = chain_owners(self.chains)
        self.links = [i for i, b in enumerate(self.bodies) if b.link]
        self.joint_index = np.asarray(arm.joint_index)
        self.gravity = np.asarray(arm.gravity, dtype=float)

    def recursion(self, q, qd, qdd, elastic=None):
        """Both passes at one instant, chain by chain (docs eqs. (5.1), (5.2), (5.4), (5.5)).

        q, qd, qdd: the arm's coordinates (nq,) -- only the joint entries are read when
        ``elastic`` is None (rigid pass); with ``elastic`` = {link body: (e, e_dot, e_ddot)}
        the links are deformed (step 3; a link not in it is rigid). Returns a :class:`Pass`.
        """
        P = Pass({}, {}, {}, {}, {}, {}, {}, {}, {}, {}, np.zeros(self.joint_index.size))
        branch = {j: np.zeros(6) for j in range(self.n)}      # base wrenches of branching chains
        R = {}
        for k in range(len(self.chains) - 1, -1, -1):
            path = self.chains[k]
            for j in path:                    # outward along the whole path from the base
                if j in P.V:
                    continue                  # done by a later chain: the same twist
                b = self.bodies[j]
                if b.parent < 0:
                    V_att, Vd_att, R_att = np.zeros(6), np.zeros(6), np.eye(3)
                else:
                    p = b.parent
                    Xi, U = screw_matrix_inv(P.X_att[p]), P.U[p]
                    V_att = Xi @ P.V[p] + U
                    Vd_att = Xi @ P.V_dot[p] + P.U_dot[p] + cross6(V_att) @ U
                    R_att = R[p] @ P.X_att[p][:3, :3]
                A, r = b.placement(q)
                P.X[j] = screw_matrix(A, r)
                Xi = screw_matrix_inv(P.X[j])
                V, Vd = Xi @ V_att, Xi @ Vd_att
                if b.S is not None:
                    i = b.qi
                    V = V + b.S * qd[i]
                    Vd = Vd + b.S * qdd[i] + cross6(V) @ b.S * qd[i]
                P.V[j], P.V_dot[j] = V, Vd
                R[j] = R_att @ A
                P.g[j] = R[j].T @ self.gravity
                st = None if elastic is None else elastic.get(j)
                P.X_att[j], P.U[j], P.U_dot[j] = b.attachment(*(st or ()))
            own = [j for j in path if self.owner[j] == k]        # the end of the path
            base = np.zeros(6)
            for j in reversed(own):
                b = self.bodies[j]
                st = None if elastic is None else elastic.get(j)
                P.F[j] = (b.flexible_wrench(P.V[j], P.V_dot[j], P.g[j], *st) if st is not None
                          else b.rigid_wrench(P.V[j], P.V_dot[j], P.g[j]))
                P.W[j] = base + branch[j]        # the next body's joint wrench + branches
                P.f[j] = P.F[j] + P.X_att[j] @ P.W[j]
                base = P.X[j] @ P.f[j]           # about the parent's attachment origin
            p = self.bodies[own[0]].parent
            if p >= 0:
                branch[p] = branch[p] + base     # this chain's base wrench, summed at p
        ji = list(self.joint_index)
        for j, b in enumerate(self.bodies):
            if b.S is not None:
                P.tau[ji.index(b.qi)] = b.S @ DELTA @ P.f[j]
        return P

    def composite_inertias(self, P):
        """Composite rigid inertia (twist -> momentum, about O_j in body components) of each
        body and everything outboard: I_j = O_j DELTA + X_att sum_c X_c I_c X_c^-1 X_att^-1
        (the composite-rigid-body recursion over the tree). Returns (I, I_tip) with I_tip[j]
        the outboard part about the attachment origin, attachment components."""
        I, tip = {}, {}
        for j in range(self.n - 1, -1, -1):
            b = self.bodies[j]
            out = np.zeros((6, 6))
            for c in range(j + 1, self.n):
                if self.parents[c] == j:
                    out = out + P.X[c] @ I[c] @ screw_matrix_inv(P.X[c])
            tip[j] = out
            Xa = P.X_att[j]
            I[j] = b.O + Xa @ out @ screw_matrix_inv(Xa)
        return I, tip

    def inverse_dynamics(self, q, qd, qdd):
        """Joint torques / forces of the arm with every elastic coordinate of q, qd, qdd
        taken as given (step 3 of [L]'s algorithm); with them zero, the rigid arm's."""
        arm = self.arm
        q, qd, qdd = (ck.vector(n, v, arm.nq) for n, v in (("q", q), ("qd", qd), ("qdd", qdd)))
        el = {}
        for j in self.links:
            ix = arm.model.layout.bodies[j].elastic_index
            el[j] = (q[ix], qd[ix], qdd[ix])
        return self.recursion(q, qd, qdd, el).tau


@dataclass
class TreeWeakCouplingResult:
    """Joint torques along a prescribed motion by [L]'s weak coupling on a tree.

    t (nt,); joint_torque (nt, n_joints): step 3, with the deformation;
    joint_torque_rigid (nt, n_joints): step 1 alone; elastic: {link body: (nt, n) elastic
    coordinates}; tip_vw_phi: {link body: (nt, 3) v, w, phi at its tip}; info: solver
    statistics.
    """

    t: np.ndarray
    joint_torque: np.ndarray
    joint_torque_rigid: np.ndarray
    elastic: dict
    tip_vw_phi: dict
    info: dict


def _full(arm, th, thd, thdd):
    """(q, qd, qdd) of the arm (nq,) with the joints at the given values, elastic zero."""
    out = []
    for v in (th, thd, thdd):
        x = np.zeros(arm.nq)
        x[arm.joint_index] = v
        out.append(x)
    return out


def weak_coupling(arm, joint_motion, t_end, dt_out=None, t0=0.0, rtol=1e-8, atol=1e-10):
    """[L]'s flexible inverse dynamics of a :class:`chrono_flex.SpatialArm` (a chain or a
    tree) along a prescribed joint motion, split into base-to-tip chains (module
    docstring; docs/screw-recursion.md §5.2). An approximation.

    joint_motion: callable(t) -> (theta, theta_dot, theta_ddot), each (n_joints,), as for
    ``SpatialArm.simulate(joint_motion=...)``. Step 2 integrates every flexible link's
    clamped-free equation, with the composite rigid inertia of its outboard bodies (joints
    locked at their current values) on its tip, from rest (Radau, rtol, atol). Like the
    centrifugal softening, an arm's geometric stiffening (``geometric_stiffening=True``)
    is not in step 2. Returns :class:`TreeWeakCouplingResult`.
    """
    if not callable(joint_motion):
        raise ParameterError("joint_motion", joint_motion, "must be callable")
    t_end, t0, dt_out = check_times(t_end, t0, dt_out)
    rtol, atol = ck.positive("rtol", rtol), ck.positive("atol", atol)
    tree = FlexibleTree(arm)
    nj = arm.n_joints
    links = tree.links
    sizes = [tree.bodies[j].n for j in links]
    offs = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    ne = int(offs[-1])

    def motion(t):
        return tuple(ck.vector(f"joint_motion(t)[{k}]", v, nj)
                     for k, v in enumerate(joint_motion(t)))

    cache = {}

    def step1(t):
        # the rigid pass depends on t alone: Radau's Newton iterations revisit its stages
        if t in cache:
            return cache[t]
        if len(cache) > 64:
            cache.clear()
        cache[t] = out = _step1(t)
        return out

    def _step1(t):
        P = tree.recursion(*_full(arm, *motion(t)))
        _, tips = tree.composite_inertias(P)
        Q, M = [], []
        for j in links:
            b = tree.bodies[j]
            Q.append(b.load(P.V[j], P.V_dot[j], P.g[j], -P.W[j]))
            M.append(b.M + b.G.T @ DELTA @ tips[j] @ b.G)      # kinetic energy V^T DELTA I V / 2
        return P, Q, M

    def parts(x):
        return [(x[offs[k]:offs[k + 1]], x[ne + offs[k]:ne + offs[k + 1]])
                for k in range(len(links))]

    def accelerations(t, x):
        P, Q, M = step1(t)
        return P, [np.linalg.solve(Mk, Qk - tree.bodies[j].C @ ad - tree.bodies[j].K @ a)
                   for j, (a, ad), Qk, Mk in zip(links, parts(x), Q, M)]

    def rhs(t, x):
        return np.concatenate([x[ne:], np.concatenate(accelerations(t, x)[1])])

    def jac(t, x):
        Ms = step1(t)[2]
        J = np.zeros((2 * ne, 2 * ne))
        J[:ne, ne:] = np.eye(ne)
        for k, (j, M) in enumerate(zip(links, Ms)):
            r, c = slice(ne + offs[k], ne + offs[k + 1]), slice(offs[k], offs[k + 1])
            J[r, c] = -np.linalg.solve(M, tree.bodies[j].K)
            J[r, slice(ne + offs[k], ne + offs[k + 1])] = -np.linalg.solve(M, tree.bodies[j].C)
        return J

    motion(t0)                           # checks the shapes once, with named errors
    sol = integrate(rhs, (t0, t_end), np.zeros(2 * ne), ck.output_times(t0, t_end, dt_out),
                    method="Radau", rtol=rtol, atol=atol, jac=jac,
                    name="the weak-coupling elastic equations")
    nt = sol.t.size
    tau, tau_r = np.empty((nt, nj)), np.empty((nt, nj))
    tips = {j: np.empty((nt, 3)) for j in links}
    for i, (t, x) in enumerate(zip(sol.t, sol.y.T)):
        P, acc = accelerations(t, x)
        tau_r[i] = P.tau
        el = {j: (a, ad, add) for j, (a, ad), add in zip(links, parts(x), acc)}
        tau[i] = tree.recursion(*_full(arm, *motion(t)), el).tau
        for j, (a, _, _) in el.items():
            b = tree.bodies[j]
            tips[j][i] = (b.tip_v @ a, b.tip_w @ a, b.tip_th[2] @ a)
    elastic = {j: sol.y[offs[k]:offs[k + 1]].T.copy() for k, j in enumerate(links)}
    return TreeWeakCouplingResult(sol.t, tau, tau_r, elastic, tips,
                                  dict(nfev=int(sol.nfev), njev=int(sol.njev), nlu=int(sol.nlu),
                                       chains=tree.chains))


def weak_coupling_order(arm, joint_motion, t_end, links=None, t0=0.0, n_samples=201):
    """Order of the terms [L]'s weak coupling neglects on each flexible link of a
    :class:`chrono_flex.SpatialArm` (docs/screw-recursion.md eqs. (5.6)-(5.7) and §5.2),
    for arms whose flexible links are each far more compliant than the flexible links
    inboard of them:

    * softening = Omega_k^2 / omega_k^2: the centrifugal softening of link k's bending,
      Omega_k^2 = max_t (|omega|^2 - omega_x^2), the squared spin of its frame across its
      axis (from the rigid pass); omega_k: the lowest frequency of link k's step-2
      equation at t0 (its elements with the outboard bodies' composite rigid inertia on
      the tip), the frequency at which step 2 makes it vibrate;
    * gyroscopic = 2 max_t |omega_x| / omega_k + max_t |omega_dot_x| / omega_k^2: in space
      the frame also spins about the link's own axis (omega_x, e.g. a yaw rate seen by a
      pitched link), and the Coriolis and Euler forces -2 rho_A omega x s_dot and
      -rho_A omega_dot x s of the deflection s = (0, v, w) couple the two bending planes
      at these orders (zero in the plane); step 2 leaves them out, so the vibration of
      one plane does not feed the other;
    * coupling = c_s / c_f: the compliance of the flexible links inboard of k, seen at k's
      tip, which step 2 leaves out (link k vibrates on rigid inboard links) beside k's own
      c_f = L_k^3 / (3 EI_max,k). A tip force on the stretched-out path bends inboard link
      i by (L_i^3/3 + L_i^2 D + L_i D^2) / EI_min,i, D the distance from its tip to k's tip
      along the path (link lengths and joint offsets). Taking the softer plane of each
      inboard link and the stiffer plane of link k bounds the ratio over both bending
      directions;
    * phase = omega_k (t_end - t0) / 2: the vibration detuned by eps/2 drifts in phase by
      eps omega_k t / 2.

    eps = softening + gyroscopic + coupling.

    ``links``: the body numbers of the compliant links to bound (default every flexible
    link). A link far stiffer than those is better left out: its deflection, and with it
    its share of the flexible torque, is of the order c_s / c_f of theirs, while its high
    frequency makes its own phase term large.

    Returns dict(links={k: dict(softening,
    gyroscopic, coupling, eps, phase, bound = eps (1 + phase), omega, spin, spin_x)},
    bound = the largest bound): the expected order of the fraction of the
    flexible joint torque (exact minus rigid) the weak coupling misses over [t0, t_end].
    """
    if not callable(joint_motion):
        raise ParameterError("joint_motion", joint_motion, "must be callable")
    t_end, t0, _ = check_times(t_end, t0, None)
    tree = FlexibleTree(arm)
    nj = arm.n_joints
    for j in tree.links:
        for name in ("EI_y", "EI_z"):
            if not np.isscalar(getattr(arm.bodies[j], name)):
                raise ParameterError(f"bodies[{j}].{name}", getattr(arm.bodies[j], name),
                                     "weak_coupling_order needs uniform bending stiffnesses")
    spin = {j: 0.0 for j in tree.links}
    spin_x = {j: 0.0 for j in tree.links}
    acc_x = {j: 0.0 for j in tree.links}
    P0 = None
    for t in np.linspace(t0, t_end, ck.positive_int("n_samples", n_samples)):
        th = [ck.vector(f"joint_motion(t)[{k}]", v, nj) for k, v in enumerate(joint_motion(t))]
        P = tree.recursion(*_full(arm, *th))
        P0 = P if P0 is None else P0
        for j in tree.links:
            w = P.V[j][:3]
            spin[j] = max(spin[j], float(w @ w - w[0] ** 2))
            spin_x[j] = max(spin_x[j], abs(float(w[0])))
            acc_x[j] = max(acc_x[j], abs(float(P.V_dot[j][0])))
    _, tips = tree.composite_inertias(P0)
    chosen = tree.links if links is None else list(links)
    for k in chosen:
        if k not in tree.links:
            raise ParameterError("links", links, f"must name flexible links of the arm "
                                 f"(bodies {tree.links})")
    out = {}
    for k in chosen:
        b, lk = tree.bodies[k], arm.bodies[k]
        M = b.M + b.G.T @ DELTA @ tips[k] @ b.G
        w_k = float(np.sqrt(np.min(np.linalg.eigvals(np.linalg.solve(M, b.K)).real)))
        c_f = lk.length ** 3 / (3 * max(lk.EI_y, lk.EI_z))
        c_s, D, j = 0.0, lk.length, k
        while j >= 0:                   # down the path to the base
            D += float(np.linalg.norm(tree.bodies[j].offset))
            j = tree.parents[j]
            if j >= 0 and tree.bodies[j].link:
                L, EI = tree.bodies[j].L, min(arm.bodies[j].EI_y, arm.bodies[j].EI_z)
                c_s += (L ** 3 / 3 + L ** 2 * D + L * D ** 2) / EI
                D += L
        soft, coup = spin[k] / w_k ** 2, c_s / c_f
        gyro = 2 * spin_x[k] / w_k + acc_x[k] / w_k ** 2
        phase = w_k * (t_end - t0) / 2
        eps = soft + gyro + coup
        out[k] = dict(softening=soft, gyroscopic=gyro, coupling=coup, eps=eps, phase=phase,
                      bound=eps * (1 + phase), omega=w_k, spin=float(np.sqrt(spin[k])),
                      spin_x=spin_x[k])
    return dict(links=out, bound=max(v["bound"] for v in out.values()))
