"""The assembled equations of motion of a spatial arm (docs/spatial-link.md §4).

:class:`SpatialModel` compiles bodies, joints and parents into shape bases, the
coordinate layout, quadrature rules, the constant matrices K and D and the lumped
inertias. At a state (q, q_d) the terms of the virtual-power form (Kane's form) are

    M(q)      = sum_points rho_A J^T J + sum_points rho_Ip j_t^T j_t
                + sum_masses m Jp^T Jp + sum_rotors Jw^T I Jw
    h(q, q_d) = sum_points rho_A J^T a
                + sum_points rho_Ip (j_t^T (t . aw) + Omega_t Jw^T (omega x t))
                + sum_masses m Jp^T ap + sum_rotors Jw^T (I aw + omega x I omega)
    Q_g       = sum_points rho_A J^T g + sum_masses m Jp^T g

    M q_dd = Q - h + Q_g - K q - D q_d

with t = R e_x the link axis, j_t = t^T Jw + Nphi the Jacobian of the section's spin
Omega_t = t . omega + phi_dot (the section turns as R Rx(phi), so its polar inertia
rho_Ip t t^T is exact: the gyroscopic term omega x I omega is kept). The bending
rotary inertia of the sections is left out, as in the planar link (Euler-Bernoulli).
"""

from dataclasses import dataclass

import numpy as np

from . import kinematics as kin
from .elements import SpatialBasis


@dataclass(frozen=True)
class Item:
    """A lumped inertia on body ``body``: a point ``mass`` (value m) or a ``rotor``
    (value: inertia tensor in the frame, 3 x 3) at the body's ``root`` frame or its
    ``attach`` (tip) frame."""

    body: int
    where: str
    kind: str
    value: object


@dataclass
class Quadrature:
    x: np.ndarray
    w: np.ndarray
    element: np.ndarray
    Nv: np.ndarray
    Nw: np.ndarray
    Nphi: np.ndarray
    dNv: np.ndarray
    dNw: np.ndarray
    w_rho_A: np.ndarray = None      # w times rho_A at each point
    w_rho_Ip: np.ndarray = None     # w times rho_Ip at each point


class SpatialModel:
    """Compiled model of a tree: layout, bases, quadrature, K, D, lumped inertias.

    ``extended=True`` keeps each link's root node (the numbering before the clamp) for
    the extended assembly (:mod:`chrono_flex.spatial.assembly`).
    """

    def __init__(self, bodies, joints, parents, gravity, geometric_stiffening=False,
                 extended=False):
        self.bodies, self.joints, self.parents = tuple(bodies), tuple(joints), tuple(parents)
        self.g_vec = np.asarray(gravity, dtype=float)
        self.geometric_stiffening = bool(geometric_stiffening)
        self.extended = bool(extended)
        self.bases = tuple(SpatialBasis(b, clamped=not extended) if hasattr(b, "EI_y")
                           else None for b in self.bodies)
        self.layout = kin.Layout.build(self.bodies, self.joints, self.parents, self.bases)
        self.nq = self.layout.nq
        self.quad = []
        for b in self.bases:
            if b is None:
                self.quad.append(None)
                continue
            x, w, el = b.quadrature()
            Nv, dNv, _, Nw, dNw, _, Nphi, _ = b.values(x)
            # the weights times the section at each point: the mass integrals' rho_A dx
            # and rho_Ip dx (docs/spatial-link.md §2.1)
            qu = Quadrature(x, w, el, Nv, Nw, Nphi, dNv, dNw, w * b.link.section("rho_A", x),
                            w * b.link.section("rho_Ip", x))
            tip = b.tip_values
            qu.x_all = np.append(x, b.length)
            qu.Nv_all, qu.Nw_all = np.vstack([Nv, tip[0]]), np.vstack([Nw, tip[3]])
            self.quad.append(qu)
        items = []
        for i, (body, jt) in enumerate(zip(self.bodies, self.joints)):
            if jt.hub_inertia > 0:
                a = jt.mount.T @ np.asarray(jt.axis)         # the axis in the child frame
                items.append(Item(i, "root", "rotor", jt.hub_inertia * np.outer(a, a)))
            if jt.hub_mass > 0:
                items.append(Item(i, "root", "mass", jt.hub_mass))
            if self.bases[i] is None:
                if body.mass > 0:
                    items.append(Item(i, "root", "mass", body.mass))
                if np.any(body.inertia_matrix):
                    items.append(Item(i, "root", "rotor", body.inertia_matrix))
        self.items = tuple(items)
        self.K = np.zeros((self.nq, self.nq))
        self.D = np.zeros((self.nq, self.nq))
        for bl in self.layout.bodies:
            if bl.is_link:
                ix = np.ix_(bl.elastic_index, bl.elastic_index)
                Kl, Ml = bl.basis.stiffness_matrix(), bl.basis.mass_matrix()
                self.K[ix] = Kl
                self.D[ix] = bl.body.damping_alpha * Ml + bl.body.damping_beta * Kl
        self.joint_index = self.layout.joint_indices
        self.elastic_index = self.layout.elastic_indices
        self.links = tuple(i for i, bl in enumerate(self.layout.bodies) if bl.is_link)
        # mass carried by each body's attachment frame: its descendants (geometric stiffening)
        own = [b.mass + jt.hub_mass for b, jt in zip(self.bodies, self.joints)]
        out = [0.0] * len(self.bodies)
        for i in reversed(range(len(self.bodies))):
            p = self.parents[i]
            if p >= 0:
                out[p] += own[i] + out[i]
        self.outboard_mass = tuple(out)


@dataclass
class Evaluation:
    """Kinematics of every quadrature point and frame at one state."""

    roots: list
    attach: list
    r: dict       # body -> (npts, 3)
    J: dict       # body -> (npts, 3, nq)
    a: dict       # body -> (npts, 3)


def evaluate(model, q, qd, base=None):
    """Frames of all bodies and kinematics of all links' quadrature points at (q, q_d).

    ``base``: the frame the tree hangs on (default the fixed base at the origin). A
    moving base (:func:`chrono_flex.spatial.floating.body_base`) brings its own velocity
    columns: q and q_d then carry them after the model's nq coordinates, and every
    Jacobian is as wide."""
    q, qd = np.asarray(q), np.asarray(qd)
    if base is None:
        base = kin.base_frame(model.nq, np.result_type(q, qd, float))
    roots, attach, rs, Js, as_ = [], [], {}, {}, {}
    for i, bl in enumerate(model.layout.bodies):
        f = kin.child_frame(base if bl.parent < 0 else attach[bl.parent], bl, q, qd)
        roots.append(f)
        if not bl.is_link:
            attach.append(f)
            continue
        qu = model.quad[i]           # the quadrature points and the tip in one pass
        r, J, a = kin.points(f, bl, qu.x_all, qu.Nv_all, qu.Nw_all, q, qd)
        rs[i], Js[i], as_[i] = r[:-1], J[:-1], a[:-1]
        attach.append(kin.tip_frame(f, bl, q, qd, (r[-1:], J[-1:], a[-1:])))
    return Evaluation(roots, attach, rs, Js, as_)


def spin_rows(model, i, frame, q, qd):
    """(j_t (npts, nq), Omega_t (npts,), t, omega x t) of link i's sections: the spin
    about the link axis t = R e_x and its Jacobian t^T Jw + Nphi (module docstring)."""
    bl, qu = model.layout.bodies[i], model.quad[i]
    t = frame.R[:, 0]
    jt = np.repeat((t @ frame.Jw)[None, :], qu.x.size, axis=0)
    jt[:, bl.elastic_slice] += qu.Nphi
    return jt, jt @ qd, t, kin.cross(frame.w, t)


def _item_frame(ev, item):
    return ev.roots[item.body] if item.where == "root" else ev.attach[item.body]


def terms(model, q, qd, base=None, gravity=None):
    """(M, h, Q_g) of the virtual-power form at (q, q_d) (module docstring).

    ``base``: as for :func:`evaluate` (the terms are then as wide as its Jacobians);
    ``gravity``: the gravity vector in the base's axes, default the model's."""
    ev = evaluate(model, q, qd, base)
    nq = np.shape(qd)[0]
    dtype = np.result_type(q, qd, float)
    M = np.zeros((nq, nq), dtype)
    h = np.zeros(nq, dtype)
    Qg = np.zeros(nq, dtype)
    g_vec = model.g_vec if gravity is None else np.asarray(gravity, dtype=float)
    gravity = bool(np.any(g_vec))
    for i in model.links:
        qu, J, a = model.quad[i], ev.J[i], ev.a[i]
        wJ = (qu.w_rho_A[:, None, None] * J).reshape(-1, nq)
        M += wJ.T @ J.reshape(-1, nq)
        h += wJ.T @ a.ravel()
        if gravity:
            Qg += wJ.T @ np.tile(g_vec, qu.x.size)
        f = ev.roots[i]
        jt, Om, t, wxt = spin_rows(model, i, f, q, qd)
        wt = qu.w_rho_Ip
        M += (wt[:, None] * jt).T @ jt
        h += (wt[:, None] * jt).T @ np.full(qu.x.size, t @ f.aw)
        h += np.sum(wt * Om) * (f.Jw.T @ wxt)
    for it in model.items:
        f = _item_frame(ev, it)
        if it.kind == "mass":
            M += it.value * f.Jp.T @ f.Jp
            h += it.value * f.Jp.T @ f.ap
            if gravity:
                Qg += it.value * f.Jp.T @ g_vec
        else:
            I = f.R @ it.value @ f.R.T
            M += f.Jw.T @ I @ f.Jw
            h += f.Jw.T @ (I @ f.aw + kin.cross(f.w, I @ f.w))
    return M, h, Qg


def forcing(model, q, qd, Q, gravity=None):
    """(M, f) with M q_dd = f = Q - h + Q_g - K q - D q_d [- K_geo e]; ``gravity``: in the
    base's axes, default the model's."""
    M, h, Qg = terms(model, q, qd, gravity=gravity)
    f = Q - h + Qg - model.K @ q - model.D @ qd
    if model.geometric_stiffening:
        f += geometric_stiffness_force(model, q, qd, gravity)
    return M, f


def gravity_potential(model, q, base=None, gravity=None):
    """V_g = - sum rho_A g . r - sum m g . r_item (works on complex q); ``base``: the
    frame the tree hangs on (a fixed frame: r then in the world), ``gravity``: default
    the model's."""
    g_vec = model.g_vec if gravity is None else np.asarray(gravity, dtype=float)
    if not np.any(g_vec):
        return 0.0 * q[0]
    ev = evaluate(model, q, np.zeros(model.nq), base)
    V = 0.0 * q[0]
    for i in model.links:
        V = V - np.sum(model.quad[i].w_rho_A * (ev.r[i] @ g_vec))
    for it in model.items:
        if it.kind == "mass":
            V = V - it.value * (_item_frame(ev, it).p @ g_vec)
    return V


def elastic_potential(model, q):
    """V_e = 1/2 q^T K q."""
    return 0.5 * q @ model.K @ q


def kinetic_energy(model, q, qd):
    """T = 1/2 q_d^T M(q) q_d."""
    return 0.5 * qd @ terms(model, q, qd)[0] @ qd


def axial_force(model, i, root, x, gravity=None):
    """Axial force N(x) (tension > 0) in link i from the axial acceleration field of its
    frame, the centrifugal load of Kane, Ryan & Banerjee (1987) extended to a frame turning
    about any axis:

    N(x) = (g_x - a_0) int_x^L rho_A ds + w_perp^2 int_x^L rho_A s ds
           + m_out (g_x - a_0 + w_perp^2 L)

    (for a uniform link rho_A [(g_x - a_0)(L - x) + w_perp^2 (L^2 - x^2)/2] + ...), with
    t the link axis, a_0 = t . ap the root's convective acceleration along it,
    g_x = t . g, w_perp^2 = |omega|^2 - (t . omega)^2 the squared spin across the axis,
    m_out the mass carried by the link's tip (its descendants), lumped there. The
    outboard mass and its first moment come from ``SpatialLink.beyond`` (closed forms
    when uniform, the section rule otherwise; docs/planar-link.md §2.5).
    """
    lk, L = model.bodies[i], model.bodies[i].length
    t = root.R[:, 0]
    a0, gx = t @ root.ap, t @ (model.g_vec if gravity is None else gravity)
    w2 = root.w @ root.w - (t @ root.w) ** 2
    m0, m1 = lk.beyond(x)
    return (gx - a0) * m0 + w2 * m1 + model.outboard_mass[i] * (gx - a0 + w2 * L)


def geometric_stiffness_force(model, q, qd, gravity=None):
    """-K_geo e, K_geo = int N(x) (Nv'^T Nv' + Nw'^T Nw') dx per link (optional term);
    ``gravity``: in the base's axes, default the model's."""
    roots, _ = kin.tree_frames(model.layout, q, qd)
    f = np.zeros(model.nq, np.result_type(q, qd, float))
    for i in model.links:
        bl, qu = model.layout.bodies[i], model.quad[i]
        wN = qu.w * axial_force(model, i, roots[i], qu.x, gravity)
        Kg = (np.einsum("p,pi,pj->ij", wN, qu.dNv, qu.dNv)
              + np.einsum("p,pi,pj->ij", wN, qu.dNw, qu.dNw))
        f[bl.elastic_index] -= Kg @ q[bl.elastic_index]
    return f


def tip_frames(model, q, qd=None):
    """Attachment (tip) frames of all bodies at q."""
    return kin.tree_frames(model.layout, q, qd)[1]


def tip_coordinates(model, q):
    """(v(L), w(L), phi(L)) of each link in its own frame, (n_links, 3)."""
    out = []
    for i in model.links:
        bl = model.layout.bodies[i]
        Nv, _, _, Nw, _, _, Nphi, _ = bl.basis.tip_values
        e = q[bl.elastic_index]
        out.append([(Nv @ e)[0], (Nw @ e)[0], (Nphi @ e)[0]])
    return np.array(out).reshape(-1, 3)


def centerlines(model, q, n_samples=21, rigid=False):
    """Centreline points of each link (n_links, ns, 3) and the bending curvature
    sqrt(v''^2 + w''^2) (n_links, ns); ``rigid=True``: elastic coordinates set to zero."""
    q = np.array(q, dtype=float)
    if rigid:
        q[model.elastic_index] = 0.0
    roots, _ = kin.tree_frames(model.layout, q, None)
    zero = np.zeros(model.nq)
    pts, curv = [], []
    for i in model.links:
        bl = model.layout.bodies[i]
        x = np.linspace(0.0, bl.basis.length, n_samples)
        Nv, _, d2Nv, Nw, _, d2Nw, _, _ = bl.basis.values(x)
        pts.append(kin.points(roots[i], bl, x, Nv, Nw, q, zero)[0])
        e = q[bl.elastic_index]
        curv.append(np.hypot(d2Nv @ e, d2Nw @ e))
    return np.array(pts), np.array(curv)


__all__ = ["Evaluation", "Item", "SpatialModel", "axial_force", "centerlines", "evaluate",
           "forcing", "geometric_stiffness_force", "gravity_potential", "kinetic_energy",
           "terms", "tip_coordinates", "tip_frames"]
