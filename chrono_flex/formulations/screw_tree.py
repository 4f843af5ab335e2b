"""Lin's screw recursion on branched (tree) arms of rigid bodies ([L]; docs/screw-recursion.md §5).

[L] claims the 6x6 screw recursion for tree-shaped multibody systems: the outward
recursion runs from the base along every branch, the inward one gathers at each body
the joint wrenches of all its children. :class:`RigidTree` holds such an arm: bodies in
any order in which a parent comes before its children, each on one joint (revolute about
any axis, or prismatic along any axis) mounted anywhere on its parent.

Two independent formulations of the same tree:

* :meth:`RigidTree.inverse_dynamics`, the recursion ([L] eqs. (10)-(13), docs eqs.
  (5.1)-(5.3)): twists and their rates outward, Newton-Euler wrenches per body, joint
  wrenches inward summed over the children;
* :meth:`RigidTree.lagrange_inverse_dynamics`, Lagrange's equations in the virtual-power
  form ``tau = M(q) q'' + sum_p m_p J_p^T (J_p' q') - Q_g`` over an equivalent cloud of
  point masses per body (same mass, centre of mass and inertia tensor, so the same
  kinetic energy), with ``J_p`` by complex-step differentiation and ``J_p' q'`` by a
  Cauchy contour integral of the positions along ``q'`` (exact to round-off: the
  positions are entire functions of the joint coordinates).

Frames: body j has its origin O_j at its joint. At q_j = 0 its axes are those of its
mounting frame (``rotation`` in the parent's axes, at ``origin`` in the parent's frame);
a revolute joint turns it about ``axis`` (body components, unchanged by the turn), a
prismatic joint slides O_j along ``axis``. Gravity is a world vector.
"""

from dataclasses import dataclass
import math

import numpy as np

from .. import _checks as ck
from ..errors import ParameterError
from .screw_algebra import DELTA, cross3, cross6, screw_matrix, screw_matrix_inv

_H_CS = 1e-30           # complex step: exact first derivatives to round-off
_N_CONTOUR = 24         # points of the contour integral for the second derivative


def _rotation(axis, angle):
    """Rodrigues' rotation about the unit ``axis`` by ``angle`` (dtype-generic: complex
    angles for the complex-step and contour derivatives)."""
    k = np.asarray(axis, dtype=float)
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + np.sin(angle) * K + (1.0 - np.cos(angle)) * (K @ K)


@dataclass(frozen=True)
class TreeBody:
    """One rigid body of a :class:`RigidTree` and the joint that carries it.

    Attributes:
        parent: index of the parent body, -1 for the base (earlier in the list).
        kind: "revolute" or "prismatic".
        axis: joint axis in the body's (= mounting frame's) components; normalised.
        origin: position of the joint, O_j, in the parent's frame (the base frame for
            parent -1), m.
        rotation: 3x3 orientation of the mounting frame in the parent's axes (default E).
        mass: kg. com: centre of mass from O_j in body components, m.
        inertia: 3x3 inertia tensor about the centre of mass, body components, kg m^2.
    """

    parent: int
    kind: str = "revolute"
    axis: tuple = (0.0, 0.0, 1.0)
    origin: tuple = (0.0, 0.0, 0.0)
    rotation: tuple = None
    mass: float = 1.0
    com: tuple = (0.0, 0.0, 0.0)
    inertia: tuple = None

    def __post_init__(self):
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731 (frozen dataclass)
        if not isinstance(self.parent, (int, np.integer)) or self.parent < -1:
            raise ParameterError("parent", self.parent, "must be -1 (the base) or a body index")
        if self.kind not in ("revolute", "prismatic"):
            raise ParameterError("kind", self.kind, "must be 'revolute' or 'prismatic'")
        axis = ck.vector("axis", self.axis, 3)
        n = float(np.linalg.norm(axis))
        if n == 0.0:
            raise ParameterError("axis", self.axis, "must be a non-zero vector")
        set_("axis", axis / n)
        set_("origin", ck.vector("origin", self.origin, 3))
        R = np.eye(3) if self.rotation is None else np.asarray(self.rotation, dtype=float)
        if R.shape != (3, 3) or not np.all(np.isfinite(R)) or np.max(np.abs(R.T @ R - np.eye(3))) > 1e-9 \
                or np.linalg.det(R) < 0:
            raise ParameterError("rotation", self.rotation, "must be a 3x3 rotation matrix")
        set_("rotation", R)
        set_("mass", ck.non_negative("mass", self.mass))
        set_("com", ck.vector("com", self.com, 3))
        J = np.zeros((3, 3)) if self.inertia is None else np.asarray(self.inertia, dtype=float)
        if J.shape != (3, 3) or not np.all(np.isfinite(J)) or np.max(np.abs(J - J.T)) > 1e-12 * max(
                1.0, np.max(np.abs(J))):
            raise ParameterError("inertia", self.inertia, "must be a finite symmetric 3x3 matrix")
        ev = np.linalg.eigvalsh(J)
        tol = 1e-12 * max(1.0, ev.max())
        if ev.min() < -tol or ev[0] + ev[1] < ev[2] - tol:
            raise ParameterError("inertia", self.inertia,
                                 "must be positive semi-definite with principal moments "
                                 "obeying the triangle inequality (a physical body)")
        set_("inertia", J)

    @property
    def screw(self):
        """Unit joint screw S_j in body components: revolute [axis; 0] (O_j on the axis),
        prismatic [0; axis]."""
        return (np.concatenate([self.axis, np.zeros(3)]) if self.kind == "revolute"
                else np.concatenate([np.zeros(3), self.axis]))

    def placement(self, q):
        """(A, r) of the body frame in the parent's frame at joint coordinate q
        (dtype-generic): A = rotation Rot(axis, q), r = origin (revolute); A = rotation,
        r = origin + q rotation axis (prismatic)."""
        if self.kind == "revolute":
            return self.rotation @ _rotation(self.axis, q), self.origin + 0 * q
        return self.rotation + 0 * q, self.origin + q * (self.rotation @ self.axis)

    def spatial_inertia(self):
        """O_j about the joint origin (docs/screw-recursion.md eq. (1.5)): the tensor about
        O_j is J_c + m (|P|^2 E - P P^T) (parallel axes)."""
        m, P = self.mass, self.com
        J = self.inertia + m * (P @ P * np.eye(3) - np.outer(P, P))
        Pt = np.array([[0.0, -P[2], P[1]], [P[2], 0.0, -P[0]], [-P[1], P[0], 0.0]])
        return np.block([[m * np.eye(3), m * Pt.T], [m * Pt, J]])

    def point_cloud(self):
        """Six point masses m/6 at P +- d_k e_k (e_k the principal axes) with the body's
        mass, centre of mass and inertia: their second moment about P is
        S = tr(J)/2 E - J = sum (m/3) d_k^2 e_k e_k^T, so d_k = sqrt(3 s_k / m). Returns
        (masses (6,), points (6, 3) in body components)."""
        if self.mass == 0.0:
            return np.zeros(6), np.tile(self.com, (6, 1))
        S = 0.5 * np.trace(self.inertia) * np.eye(3) - self.inertia
        s, E = np.linalg.eigh(S)
        d = np.sqrt(np.maximum(3.0 * s / self.mass, 0.0))
        offsets = np.concatenate([E * d, -(E * d)], axis=1).T          # (6, 3)
        return np.full(6, self.mass / 6.0), self.com + offsets


def base_to_tip_chains(parents):
    """The base-to-tip chains of a tree ([L]'s split; docs/screw-recursion.md §5):
    ``parents[j]`` the parent of body j (-1: the base; parents before children). One list
    of body indices per tip (a body without children), from its root body to the tip, in
    the order of the tips. Branches share their common part."""
    parents = list(parents)
    has_child = {p for p in parents if p >= 0}
    out = []
    for tip in range(len(parents)):
        if tip in has_child:
            continue
        path = [tip]
        while parents[path[-1]] >= 0:
            path.append(parents[path[-1]])
        out.append(path[::-1])
    return out


def chain_owners(chains):
    """{body: index of the chain that owns it}: the first chain through it (the owned
    bodies of a chain are the end of its path, from its branch point to its tip)."""
    owner = {}
    for k, path in enumerate(chains):
        for j in path:
            owner.setdefault(j, k)
    return owner


class RigidTree:
    """A branched arm of rigid bodies (module docstring); one joint coordinate per body."""

    def __init__(self, bodies, gravity=(0.0, 0.0, 0.0)):
        bodies = list(bodies)
        if not bodies or not all(isinstance(b, TreeBody) for b in bodies):
            raise ParameterError("bodies", bodies, "must be a non-empty list of TreeBody")
        for j, b in enumerate(bodies):
            if b.parent >= j:
                raise ParameterError(f"bodies[{j}].parent", b.parent,
                                     "must be -1 or the index of an earlier body")
        self.bodies = bodies
        self.n = len(bodies)
        self.gravity = ck.vector("gravity", gravity, 3)
        self.children = [[k for k, c in enumerate(bodies) if c.parent == j] for j in range(self.n)]
        self._O = [b.spatial_inertia() @ DELTA for b in bodies]
        clouds = [b.point_cloud() for b in bodies]
        self._pm = np.concatenate([m for m, _ in clouds])
        self._pts = [p for _, p in clouds]

    def _states(self, q, qd, qdd):
        return (ck.vector("q", q, self.n), ck.vector("qd", qd, self.n),
                ck.vector("qdd", qdd, self.n))

    # ------------------------------------------------------------ the screw recursion
    def inverse_dynamics(self, q, qd, qdd):
        """Joint torques / forces by the screw recursion (docs/screw-recursion.md §5):

            V_j = X_j^-1 V_p + S_j q'_j,   V_j' = X_j^-1 V_p' + S_j q''_j + H(V_j) S_j q'_j
            F_j = O_j DELTA V_j' + H(V_j) O_j DELTA V_j - [m g_j; m P_j x g_j]
            f_j = F_j + sum_{c child of j} X_c f_c,      tau_j = S_j^T DELTA f_j

        X_j = A_hat of body j in its parent (p), g_j gravity in body-j components.
        """
        q, qd, qdd = self._states(q, qd, qdd)
        X, F = self._bodies_pass(range(self.n), q, qd, qdd)
        f = dict(F)
        for j in range(self.n - 1, -1, -1):         # children come after their parent
            for c in self.children[j]:
                f[j] = f[j] + X[c] @ f[c]
        return np.array([b.screw @ DELTA @ f[j] for j, b in enumerate(self.bodies)])

    def _bodies_pass(self, order, q, qd, qdd):
        """Outward recursion over the bodies ``order`` (each parent before its children,
        every parent in ``order``) and the Newton-Euler wrench of each body:

            V_j = X_j^-1 V_p + S_j q'_j,   V_j' = X_j^-1 V_p' + S_j q''_j + H(V_j) S_j q'_j
            F_j = O_j DELTA V_j' + H(V_j) O_j DELTA V_j - [m g_j; m P_j x g_j]

        Returns dicts {j: X_j} (the body's screw transform in its parent) and {j: F_j}."""
        V, Vd, X, R, F = {}, {}, {}, {}, {}
        for j in order:
            b = self.bodies[j]
            A, r = b.placement(q[j])
            X[j] = screw_matrix(A, r)
            Xi = screw_matrix_inv(X[j])
            if b.parent < 0:
                Vp, Vdp, Rp = np.zeros(6), np.zeros(6), np.eye(3)
            else:
                Vp, Vdp, Rp = V[b.parent], Vd[b.parent], R[b.parent]
            S = b.screw
            V[j] = Xi @ Vp + S * qd[j]
            Vd[j] = Xi @ Vdp + S * qdd[j] + cross6(V[j]) @ S * qd[j]
            R[j] = Rp @ A
            g = R[j].T @ self.gravity
            F_G = np.concatenate([b.mass * g, b.mass * cross3(b.com, g)])
            F[j] = self._O[j] @ Vd[j] + cross6(V[j]) @ (self._O[j] @ V[j]) - F_G
        return X, F

    # ------------------------------------------------------- split into base-to-tip chains
    def chains(self):
        """The base-to-tip chains of the tree ([L]'s split, :func:`base_to_tip_chains`)."""
        return base_to_tip_chains([b.parent for b in self.bodies])

    def chain_inverse_dynamics(self, q, qd, qdd):
        """Joint torques / forces by the serial chain recursion run on each base-to-tip chain
        ([L]: a tree of links splits into chains from the base to each tip;
        docs/screw-recursion.md §5, eqs. (5.4)-(5.5)).

        Each body belongs to the first chain (in the order of :meth:`chains`) through it;
        the bodies a chain owns are the end of its path, from a branch point to its tip.
        The chains run last to first. On each, the outward recursion runs along the whole
        path from the base (a shared body gets the same twist from every chain through it)
        and the inward one over the bodies it owns only:

            f_j = F_j + X_{j+1} f_{j+1} + B_j,    tau_j = S_j^T DELTA f_j,

        with B_j the base wrenches of the chains that branch off body j,
        B_j = sum_{c: p(c) = j, c starts a later chain} X_c f_c, expressed about O_j in
        body-j components: at a branching body the child chains' base wrenches add to the
        parent's joint wrench. Every joint torque is thus taken once, from the chain that
        owns the joint's body. Equals :meth:`inverse_dynamics` to round-off (the same sums
        in another order).
        """
        q, qd, qdd = self._states(q, qd, qdd)
        chains = self.chains()
        owner = chain_owners(chains)
        branch = [np.zeros(6) for _ in range(self.n)]
        tau = np.full(self.n, np.nan)
        for k in range(len(chains) - 1, -1, -1):
            path = chains[k]
            X, F = self._bodies_pass(path, q, qd, qdd)
            own = [j for j in path if owner[j] == k]          # the end of the path
            base = np.zeros(6)
            for j in reversed(own):
                f = F[j] + base + branch[j]
                tau[j] = self.bodies[j].screw @ DELTA @ f
                base = X[j] @ f                              # about O_p, parent components
            p = self.bodies[own[0]].parent
            if p >= 0:
                branch[p] = branch[p] + base                 # the chain's base wrench
        return tau

    # ------------------------------------------------------------ Lagrange's equations
    def frames(self, q):
        """World rotation (n, 3, 3) and origin (n, 3) of every body (dtype-generic)."""
        q = np.asarray(q)
        R, p = [], []
        for j, b in enumerate(self.bodies):
            A, r = b.placement(q[j])
            if b.parent < 0:
                R.append(A)
                p.append(r)
            else:
                R.append(R[b.parent] @ A)
                p.append(p[b.parent] + R[b.parent] @ r)
        return np.array(R), np.array(p)

    def point_positions(self, q):
        """World positions (P, 3) of the equivalent point masses (dtype-generic)."""
        R, p = self.frames(q)
        return np.concatenate([p[j] + pts @ R[j].T for j, pts in enumerate(self._pts)])

    def jacobian(self, q):
        """dr_p/dq (P, 3, n) by complex steps (exact to round-off)."""
        q = np.asarray(q, dtype=float)
        cols = [self.point_positions(q + 1j * _H_CS * e).imag / _H_CS for e in np.eye(self.n)]
        return np.stack(cols, -1)

    def _second_directional(self, q, v):
        """d^2/de^2 r_p(q + e v) at e = 0 by Cauchy's formula on a circle of radius rho:
        r''(0) = 2 / (N rho^2) sum_k r(rho w^k) w^-2k (w = exp(2 pi i / N)); the positions
        are entire in e, so the error falls like rho^N / N! (round-off here)."""
        nv = float(np.linalg.norm(v))
        if nv == 0.0:
            return np.zeros((self._pm.size, 3))
        rho = 1.0 / nv
        acc = 0.0
        for k in range(_N_CONTOUR):
            z = rho * np.exp(2j * math.pi * k / _N_CONTOUR)
            acc = acc + self.point_positions(q + z * v) * z ** -2
        return (2.0 / _N_CONTOUR * acc).real

    def mass_matrix(self, q):
        """M(q) = sum_p m_p J_p^T J_p."""
        J = self.jacobian(q)
        return np.einsum("p,pik,pil->kl", self._pm, J, J)

    def lagrange_inverse_dynamics(self, q, qd, qdd):
        """tau = M q'' + sum_p m_p J_p^T (J_p' q') - sum_p m_p J_p^T g (virtual power,
        docs/planar-link.md eqs. (4.4)-(4.7) applied to the point cloud)."""
        q, qd, qdd = self._states(q, qd, qdd)
        J = self.jacobian(q)
        a_vel = self._second_directional(q, qd)                      # J' q'
        M = np.einsum("p,pik,pil->kl", self._pm, J, J)
        c = np.einsum("p,pik,pi->k", self._pm, J, a_vel)
        g = np.einsum("p,pik,i->k", self._pm, J, self.gravity)
        return M @ qdd + c - g


def random_tree(rng, n_bodies=6, prismatic_share=0.3, gravity=9.81):
    """A random rigid tree for checks: each body hangs from a random earlier one (or the
    base), on a revolute or prismatic joint about a random axis, mounted at a random
    offset and orientation, with a random box-like inertia (so physical); gravity -Z."""
    n = ck.positive_int("n_bodies", n_bodies)
    bodies = []
    for j in range(n):
        Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        Q = Q * np.sign(np.linalg.det(Q))
        P, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        P = P * np.sign(np.linalg.det(P))
        m = rng.uniform(0.2, 2.0)
        a, b, c = rng.uniform(0.05, 0.5, 3)
        Jc = P @ np.diag(m / 12 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])) @ P.T
        bodies.append(TreeBody(int(rng.integers(-1, j)) if j else -1,
                               "prismatic" if rng.uniform() < prismatic_share else "revolute",
                               rng.normal(size=3), rng.uniform(-0.5, 0.5, 3), Q, m,
                               rng.uniform(-0.3, 0.3, 3), 0.5 * (Jc + Jc.T)))
    return RigidTree(bodies, gravity=(0.0, 0.0, -gravity))


def tree_from_planar_arm(arm):
    """The rigid bodies of a serial :class:`chrono_flex.PlanarArm` as a :class:`RigidTree`
    (each link's rod, hub and, on the last, the payload; the arm plane is XY, gravity -Y),
    so the tree recursion can be checked against the chain recursion."""
    from .screw import chain_bodies, joint_screw, joint_transform

    out = []
    for j, (b, jt) in enumerate(zip(chain_bodies(arm), arm.joints)):
        A0, r0 = joint_transform(jt, 0.0)
        S = joint_screw(jt)
        origin = np.zeros(3) if j == 0 else np.array([arm.links[j - 1].length, 0.0, 0.0])
        m, P = b.mass, b.com
        Jzz = b.inertia[2, 2] - m * (P[0] ** 2 + P[1] ** 2)          # about the centre of mass
        # the planar joint torques see only Jzz; the chain's rod is a line (no moment about
        # its own axis), which the point cloud cannot represent, so the other moments are
        # set to Jzz (a physical tensor that leaves the planar dynamics unchanged)
        Jc = Jzz * np.eye(3)
        if jt.kind == "revolute":
            out.append(TreeBody(j - 1, "revolute", S[:3], origin, A0, m, P, Jc))
        else:
            out.append(TreeBody(j - 1, "prismatic", S[3:], origin, A0, m, P, Jc))
    return RigidTree(out, gravity=(0.0, -arm.gravity, 0.0))
