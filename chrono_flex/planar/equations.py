"""The assembled Lagrange model of a planar flexible-link chain (docs/planar-link.md §2-4).

:class:`ArmModel` compiles the parameters into shape bases, a coordinate layout,
quadrature rules and the constant matrices K and D. The functions below evaluate, at a
state (q, q_dot), the terms of the equations of motion in the virtual-power form
(docs/planar-link.md eqs. (4.4)-(4.7)):

    M(q)      = sum over material points of  rho A J^T J   (+ payload, hubs, joint masses)
    h(q, q_d) = sum over material points of  rho A J^T (J_dot q_d)
    Q_g(q)    = sum rho A J^T g                           (g = (0, -g) in the arm plane)

    M q_dd = Q - h + Q_g - K q - D q_d [- K_geo e]

The second, independent form (Kozlowski's eq. 18, with the extended assembly of [B])
lives in :mod:`chrono_flex.planar.assembly`; both call the kinematics of
:mod:`chrono_flex.planar.kinematics`, which is also what the Chrono element evaluates.
"""

from dataclasses import dataclass

import numpy as np

from . import invariants as inv
from . import kernels
from . import kinematics as kin
from .shapes import basis_for


@dataclass(frozen=True)
class PointItem:
    """A lumped inertia: a point ``mass`` at the root (``where="root"``) or tip of a link,
    or a ``rotary`` inertia turning with the root frame or the tip tangent."""

    link: int
    where: str
    kind: str
    value: float


@dataclass
class LinkQuadrature:
    x: np.ndarray
    w: np.ndarray
    element: np.ndarray
    N: np.ndarray
    dN: np.ndarray
    d2N: np.ndarray
    mw: np.ndarray = None    # mass weights rho_A(x_p) w_p of the points
    beyond: tuple = None     # (int_x^L rho_A, int_x^L rho_A s ds) at the points, or None


def mass_weights(link, x, w):
    """rho_A(x_p) w_p at the quadrature points: the weights of every mass integral
    (docs/planar-link.md eq. (2.5)); ``rho_A * w`` for a uniform link."""
    if np.ndim(link.rho_A) == 0 and not callable(link.rho_A):
        return link.rho_A * w
    return link.section("rho_A", x) * w


class ArmModel:
    """Compiled model of a chain: layout, bases, quadrature, K, D, lumped inertias.

    With ``extended=True`` Hermite links keep their root dofs u1, u2 (the numbering of
    [B] before the boundary condition); :mod:`chrono_flex.planar.assembly` uses that.
    """

    def __init__(self, links, joints, payload, gravity, hub_inertia=0.0,
                 geometric_stiffening=False, extended=False):
        self.links = tuple(links)
        self.joints = tuple(joints)
        self.payload = payload
        self.gravity = float(gravity)
        self.g_vec = np.array([0.0, -self.gravity])
        self.geometric_stiffening = bool(geometric_stiffening)
        self.extended = bool(extended)
        self.bases = tuple(basis_for(lk, clamped=not extended) for lk in self.links)
        self.layout = kin.Layout.build(self.joints, self.bases)
        self.nq = self.layout.nq
        self.n_links = len(self.links)
        self.quad = []
        for lk, b in zip(self.links, self.bases):
            x, w, el = b.quadrature()
            N, dN, d2N = b.values(x)
            uniform = np.ndim(lk.rho_A) == 0 and not callable(lk.rho_A)
            qu = LinkQuadrature(x, w, el, N, dN, d2N, mass_weights(lk, x, w),
                                None if uniform else lk.beyond(x))
            tN, tdN, _ = b.tip_values
            qu.x_all = np.append(x, b.length)
            qu.shapes_all = (np.vstack([N, tN]), np.vstack([dN, tdN]))
            self.quad.append(qu)
        self.tip_shapes = [b.values(np.array([b.length])) for b in self.bases]
        items = []
        for i, jt in enumerate(self.joints):
            J = jt.hub_inertia + (hub_inertia if i == 0 else 0.0)
            if J > 0:
                items.append(PointItem(i, "root", "rotary", J))
            if jt.hub_mass > 0:
                items.append(PointItem(i, "root", "mass", jt.hub_mass))
        last = self.n_links - 1
        if payload is not None and payload.mass > 0:
            items.append(PointItem(last, "tip", "mass", payload.mass))
        if payload is not None and payload.inertia > 0:
            items.append(PointItem(last, "tip", "rotary", payload.inertia))
        self.items = tuple(items)
        self.K = np.zeros((self.nq, self.nq))
        self.D = np.zeros((self.nq, self.nq))
        self.M_struct = np.zeros((self.nq, self.nq))
        for lk, b, ll in zip(self.links, self.bases, self.layout.links):
            ix = np.ix_(ll.elastic_index, ll.elastic_index)
            Kl, Ml = b.stiffness_matrix(lk.EI), b.mass_matrix(lk.rho_A)
            self.K[ix] = Kl
            self.M_struct[ix] = Ml
            self.D[ix] = lk.damping_alpha * Ml + lk.damping_beta * Kl
        self.elastic_index = self.layout.elastic_indices
        self.joint_index = self.layout.joint_indices
        # mass carried outboard of each link's tip (geometric stiffening, lumped at the tip)
        outboard = []
        for i in range(self.n_links):
            m = sum(lk.mass for lk in self.links[i + 1:])
            m += sum(jt.hub_mass for jt in self.joints[i + 1:])
            m += payload.mass if payload is not None else 0.0
            outboard.append(m)
        self.outboard_mass = tuple(outboard)
        self.invariants = tuple(
            inv.link_invariants(lk.rho_A if qu.beyond is None else lk.section("rho_A", qu.x),
                                lk.length,
                                qu.x, qu.w, qu.N, qu.dN, m_out, qu.beyond)
            for lk, qu, m_out in zip(self.links, self.quad, outboard))
        self.kernel = kernels.backend()
        self.packed = kernels.pack(self) if self.kernel == "numba" else None


@dataclass
class Evaluation:
    """Kinematics of every quadrature point and lumped item at one state."""

    roots: list
    tips: list
    r: list       # per link (npts, 2)
    J: list       # per link (npts, 2, nq)
    a: list       # per link (npts, 2)


def evaluate(model, q, qd):
    """Kinematics of all links' quadrature points at (q, q_dot).

    One pass over the chain: each link's quadrature points and its tip are evaluated
    together, and the tip frame becomes the next link's parent.
    """
    q = np.asarray(q)
    qd = np.asarray(qd)
    parent = kin.base_frame(model.nq, np.result_type(q, qd, float))
    roots, tips, rs, Js, as_ = [], [], [], [], []
    for ll, qu in zip(model.layout.links, model.quad):
        f = kin.child_frame(parent, ll, q, qd)
        r, J, a, phi, Jphi, aphi = kin.points(f, ll, qu.x_all, qu.shapes_all, q, qd)
        parent = kin.Frame(r[-1], J[-1], a[-1], phi[-1], Jphi[-1], aphi[-1], Jphi[-1] @ qd)
        roots.append(f)
        tips.append(parent)
        rs.append(r[:-1])
        Js.append(J[:-1])
        as_.append(a[:-1])
    return Evaluation(roots, tips, rs, Js, as_)


def _item_kinematics(model, ev, item):
    """(Jacobian rows, convective acceleration, position or angle) of a lumped item."""
    f = ev.roots[item.link] if item.where == "root" else ev.tips[item.link]
    if item.kind == "mass":
        return f.Jp, f.ap, f.p
    return f.Jpsi[None, :], np.atleast_1d(f.apsi), f.psi


def terms(model, q, qd):
    """(M, h, Q_g) of the virtual-power form at (q, q_dot) (module docstring)."""
    ev = evaluate(model, q, qd)
    M = np.zeros((model.nq, model.nq))
    h = np.zeros(model.nq)
    Qg = np.zeros(model.nq)
    for qu, J, a in zip(model.quad, ev.J, ev.a):
        wJ = (qu.mw[:, None, None] * J).reshape(-1, model.nq)
        M += wJ.T @ J.reshape(-1, model.nq)
        h += wJ.T @ a.ravel()
        if model.gravity:
            Qg += wJ.T @ np.tile(model.g_vec, J.shape[0])
    for it in model.items:
        Jr, ar, _ = _item_kinematics(model, ev, it)
        M += it.value * Jr.T @ Jr
        h += it.value * Jr.T @ ar
        if it.kind == "mass" and model.gravity:
            Qg += it.value * Jr.T @ model.g_vec
    return M, h, Qg


def gravity_potential(model, q):
    """V_g(q) = - sum rho A g.r - sum m g.r_item (docs/planar-link.md eq. (2.2)). dtype-generic."""
    if not model.gravity:
        return 0.0 * q[0]
    ev = evaluate(model, q, np.zeros(model.nq))
    V = 0.0 * q[0]
    for lk, qu, r in zip(model.links, model.quad, ev.r):
        if qu.beyond is None:
            V = V - lk.rho_A * np.sum(qu.w * (r @ model.g_vec))
        else:
            V = V - np.sum(qu.mw * (r @ model.g_vec))
    for it in model.items:
        if it.kind == "mass":
            V = V - it.value * (_item_kinematics(model, ev, it)[2] @ model.g_vec)
    return V


def elastic_potential(model, q):
    """V_e = 1/2 e^T K e (docs/planar-link.md eq. (2.2))."""
    return 0.5 * q @ model.K @ q


def kinetic_energy(model, q, qd):
    """T = 1/2 q_dot^T M(q) q_dot."""
    return 0.5 * qd @ terms(model, q, qd)[0] @ qd


def angular_momentum(model, q, qd):
    """H_z = sum rho A (r x r_dot) + sum m (p x p_dot) + sum J phi_dot, about the base."""
    ev = evaluate(model, q, qd)
    cross = lambda r, v: r[..., 0] * v[..., 1] - r[..., 1] * v[..., 0]  # noqa: E731
    H = 0.0
    for lk, qu, r, J in zip(model.links, model.quad, ev.r, ev.J):
        if qu.beyond is None:
            H += lk.rho_A * np.sum(qu.w * cross(r, J @ qd))
        else:
            H += np.sum(qu.mw * cross(r, J @ qd))
    for it in model.items:
        Jr, _, pos = _item_kinematics(model, ev, it)
        H += it.value * (cross(pos, Jr @ qd) if it.kind == "mass" else (Jr @ qd)[0])
    return float(H)


def axial_force(model, i, root, x):
    """Axial force N(x) in link i from the axial acceleration field of its frame (tension > 0).

    N(x) = rho A [(g_x - a_0)(L - x) + psi_dot^2 (L^2 - x^2)/2] + m_out (g_x - a_0 + psi_dot^2 L)

    (for a varying section, rho A (L - x) -> int_x^L rho A ds and rho A (L^2 - x^2)/2 ->
    int_x^L rho A s ds; docs/planar-link.md §2.5)

    a_0: convective acceleration of the root along the link axis, g_x: gravity along the
    axis, m_out: the mass outboard of the tip, lumped there. This is the centrifugal
    (geometric-stiffening) load of Kane, Ryan & Banerjee (J. Guidance 10(2) 1987), which
    the linear floating-frame model of [B]/[K] lacks. The part proportional to q_dd (the
    frame's tangential acceleration along the axis) is left out.
    """
    lk, L = model.links[i], model.links[i].length
    c, s = np.cos(root.psi), np.sin(root.psi)
    a0 = c * root.ap[0] + s * root.ap[1]
    gx = c * model.g_vec[0] + s * model.g_vec[1]
    w2 = root.psid**2
    if np.ndim(lk.rho_A) == 0 and not callable(lk.rho_A):
        return (lk.rho_A * ((gx - a0) * (L - x) + w2 * (L * L - x * x) / 2)
                + model.outboard_mass[i] * (gx - a0 + w2 * L))
    m_b, s_b = lk.beyond(x)
    return (gx - a0) * m_b + w2 * s_b + model.outboard_mass[i] * (gx - a0 + w2 * L)


def geometric_stiffness_force(model, q, qd, roots=None):
    """-K_geo e with K_geo = int N(x) N'(x)^T N'(x) dx per link (optional term)."""
    if roots is None:
        roots, _ = kin.chain_frames(model.layout, q, qd)
    f = np.zeros(model.nq)
    for i, (ll, qu) in enumerate(zip(model.layout.links, model.quad)):
        Nx = axial_force(model, i, roots[i], qu.x)
        Kg = np.einsum("p,pi,pj->ij", qu.w * Nx, qu.dN, qu.dN)
        f[ll.elastic_index] -= Kg @ q[ll.elastic_index]
    return f


def forcing(model, q, qd, Q):
    """(M, f) with M q_dd = f = Q - h + Q_g - K q - D q_d [- K_geo e] (virtual-power form),
    from the inertia invariants in one pass (:mod:`chrono_flex.planar.invariants`; the
    same integrals as :func:`terms`, which sums them point by point)."""
    M, r = chain_terms(model, q, qd)
    return M, Q - r - model.K @ q - model.D @ qd


def accelerations(model, q, qd, Q):
    """q_dd = M^-1 f of the virtual-power form (:func:`forcing`), in one compiled call
    where numba is present. ``q``, ``qd``, ``Q``: float arrays (nq,)."""
    if model.packed is not None:
        return kernels.chain_accelerations(model.packed, q, qd, Q, model.K, model.D,
                                           model.g_vec, model.geometric_stiffening)
    M, f = forcing(model, q, qd, Q)
    return np.linalg.solve(M, f)


def chain_terms(model, q, qd, g=None):
    """(M, r) with r = h - Q_g [+ K_geo e] at (q, q_dot), in-plane gravity ``g`` (default
    the model's): by the compiled kernel where numba is present, else by numpy
    (:mod:`chrono_flex.planar.kernels`, :mod:`chrono_flex.planar.invariants`)."""
    g = model.g_vec if g is None else g
    if model.packed is not None:
        return kernels.chain_terms(model.packed, q, qd, g, model.geometric_stiffening)
    M, r, _ = inv.terms(model, q, qd, g)
    return M, r


def tip_state(model, q, qd=None):
    """Tip frame of the last link: (position (2,), tangent angle)."""
    _, tips = kin.chain_frames(model.layout, q, qd)
    return tips[-1].p, tips[-1].psi


def tip_deflections(model, q):
    """Transverse tip deflection w_i(L_i) of each link in its own frame."""
    return tip_rows(model) @ q


def tip_rows(model):
    """The matrix T (nl, nq) with T q = the tip deflections w_i(L_i) (built once)."""
    if getattr(model, "_tip_rows", None) is None:
        T = np.zeros((model.n_links, model.nq))
        for i, ll in enumerate(model.layout.links):
            T[i, ll.elastic_index] = model.tip_shapes[i][0][0]
        model._tip_rows = T
    return model._tip_rows


def centerlines(model, q, n_samples=21, rigid=False):
    """Centreline points of each link in the arm plane (nl, ns, 2) and curvature (nl, ns).

    With ``rigid=True`` the elastic coordinates are set to zero (the undeformed ghost at
    the same joint coordinates).
    """
    q = np.array(q, dtype=float)
    if rigid:
        q[model.elastic_index] = 0.0
    roots, _ = kin.chain_frames(model.layout, q, None)
    pts, curv = [], []
    zero = np.zeros(model.nq)
    for f, ll, b in zip(roots, model.layout.links, model.bases):
        x = np.linspace(0.0, b.length, n_samples)
        N, dN, d2N = b.values(x)
        r = kin.points(f, ll, x, (N, dN), q, zero)[0]
        pts.append(r)
        curv.append(d2N @ q[ll.elastic_index])
    return np.array(pts), np.array(curv)


# -- the same quantities over a whole series of states (post-processing) ------------------

def frames_series(model, Q):
    """Root and tip frames of every link at every sample of ``Q`` (nt, nq), positions
    and angles only: lists per link of (p (nt, 2), psi (nt,)) for the roots and the
    tips (the frames of :func:`chrono_flex.planar.kinematics.chain_frames`, vectorised
    over time)."""
    Q = np.asarray(Q, dtype=float)
    nt = Q.shape[0]
    p = np.zeros((nt, 2))
    psi = np.zeros(nt)
    roots, tips = [], []
    for ll, b in zip(model.layout.links, model.bases):
        j, jt = ll.joint_index, ll.joint
        if jt.kind == "revolute":
            psi = psi + Q[:, j] + jt.angle_offset
        else:
            ang = psi + jt.axis_angle
            p = p + Q[:, j:j + 1] * np.column_stack([np.cos(ang), np.sin(ang)])
            psi = ang + jt.link_angle
        roots.append((p, psi))
        N, dN, _ = b.tip_values
        e = Q[:, ll.elastic_index]
        p = p + _rotate(psi, b.length, e @ N[0])
        psi = psi + e @ dN[0]
        tips.append((p, psi))
    return roots, tips


@dataclass(frozen=True)
class RootMotion:
    """A link root's angle psi (nt,), angular rate psi_dot (nt,) and convective
    acceleration ap (2, nt) along a run: the fields of a
    :class:`~chrono_flex.planar.kinematics.Frame` that :func:`axial_force` reads, as
    series (so that it evaluates the whole run in one call)."""

    psi: np.ndarray
    psid: np.ndarray
    ap: np.ndarray


def root_motion_series(model, Q, QD):
    """The root motion of every link at every sample of ``Q``, ``QD`` (nt, nq): a list of
    :class:`RootMotion`, the frames of :func:`chrono_flex.planar.kinematics.chain_frames`
    vectorised over time (same recursion, docs/planar-link.md eqs. (1.5)-(1.6)). The
    convective angular acceleration of every frame is zero (the angles are linear in q),
    so it is left out."""
    Q, QD = np.asarray(Q, dtype=float), np.asarray(QD, dtype=float)
    nt = Q.shape[0]
    phi, phid, a = np.zeros(nt), np.zeros(nt), np.zeros((nt, 2))
    out = []
    for ll, b in zip(model.layout.links, model.bases):
        j, jt = ll.joint_index, ll.joint
        if jt.kind == "revolute":
            psi, psid, ap = phi + Q[:, j] + jt.angle_offset, phid + QD[:, j], a
        else:                                   # kinematics.child_frame, prismatic
            ang = phi + jt.axis_angle
            u = np.column_stack([np.cos(ang), np.sin(ang)])
            Su = np.column_stack([-u[:, 1], u[:, 0]])
            d, dd = Q[:, j:j + 1], QD[:, j:j + 1]
            ap = a + 2.0 * dd * phid[:, None] * Su - d * phid[:, None] ** 2 * u
            psi, psid = ang + jt.link_angle, phid
        out.append(RootMotion(psi, psid, ap.T))
        N, dN, _ = b.tip_values                 # kinematics.points at x = L
        e, ed = Q[:, ll.elastic_index], QD[:, ll.elastic_index]
        c, s = np.cos(psi), np.sin(psi)
        w, wd = e @ N[0], ed @ N[0]
        Rs = np.column_stack([c * b.length - s * w, s * b.length + c * w])
        a = (ap - psid[:, None] ** 2 * Rs
             - 2.0 * (psid * wd)[:, None] * np.column_stack([c, s]))
        phi, phid = psi + e @ dN[0], psid + ed @ dN[0]
    return out


def _rotate(psi, x, w):
    """R(psi) [x, w] for arrays psi (nt,), w (nt, ...) and x broadcast with w: (..., 2)."""
    c, s = np.cos(psi), np.sin(psi)
    c = c.reshape(c.shape + (1,) * (np.ndim(w) - 1))
    s = s.reshape(c.shape)
    return np.stack([c * x - s * w, s * x + c * w], axis=-1)


def centerlines_series(model, Q, n_samples=21, rigid=False):
    """:func:`centerlines` at every sample of ``Q`` (nt, nq): points (nt, nl, ns, 2) and
    curvature (nt, nl, ns)."""
    Q = np.array(Q, dtype=float)
    if rigid:
        Q[:, model.elastic_index] = 0.0
    roots, _ = frames_series(model, Q)
    pts, curv = [], []
    for (p, psi), ll, b in zip(roots, model.layout.links, model.bases):
        x = np.linspace(0.0, b.length, n_samples)
        N, _, d2N = b.values(x)
        e = Q[:, ll.elastic_index]
        pts.append(p[:, None, :] + _rotate(psi, x, e @ N.T))
        curv.append(e @ d2N.T)
    return np.stack(pts, axis=1), np.stack(curv, axis=1)


def gravity_potential_series(model, Q):
    """:func:`gravity_potential` at every sample of ``Q`` (nt, nq)."""
    Q = np.asarray(Q, dtype=float)
    V = np.zeros(Q.shape[0])
    if not model.gravity:
        return V
    roots, tips = frames_series(model, Q)
    g = model.g_vec
    for (p, psi), ll, qu in zip(roots, model.layout.links, model.quad):
        # sum_p mw_p g.(p + R s_p) with s_p = (x_p, N_p e): the point sums taken first,
        # (sum mw, sum mw x, sum mw N), so the cost is linear in the elements
        m, mx = qu.mw.sum(), (qu.mw * qu.x).sum()
        mN = (qu.mw[:, None] * qu.N).sum(axis=0)
        sy = (Q[:, ll.elastic_index] * mN).sum(axis=1)
        c, s = np.cos(psi), np.sin(psi)
        V -= m * (p[:, 0] * g[0] + p[:, 1] * g[1]) + (c * mx - s * sy) * g[0] \
            + (s * mx + c * sy) * g[1]
    for it in model.items:
        if it.kind == "mass":
            p = (roots if it.where == "root" else tips)[it.link][0]
            V -= it.value * (p @ model.g_vec)
    return V


def kinetic_energy_series(model, Q, QD):
    """:func:`kinetic_energy` at every sample, from M(q) of :func:`chain_terms` (the
    inertia invariants; compiled in one call where numba is present)."""
    Q, QD = np.asarray(Q, dtype=float), np.asarray(QD, dtype=float)
    if model.packed is not None:
        return kernels.kinetic_energies(model.packed, Q, QD, model.g_vec)
    return np.array([0.5 * qd @ chain_terms(model, q, qd)[0] @ qd for q, qd in zip(Q, QD)])
