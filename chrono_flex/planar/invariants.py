"""The equations of motion from inertia invariants: one pass over the chain, cost linear
in the number of elements per link (docs/planar-link.md §4.3).

A material point of link i sits at r = p + R(psi) s, s = [x, w], w = N(x) e. In the
link frame its velocity Jacobian and convective acceleration are

    R^T J = A + (S s) b^T + e_y N E,         A = R^T J_p (2 x nq),  b = J_psi (nq,)
    R^T a = a_p' + a_psi S s - psi_dot^2 s - 2 psi_dot (N e_dot) e_x,   a_p' = R^T a_p

(S the quarter turn, E the selection of e from q; docs/planar-link.md eqs. (1.3)-(1.4)).
Integrated over the link with the weight rho A dx, everything reduces to the shape
integrals of the link, the inertia invariants of the floating-frame formulation
(Shabana, Dynamics of Multibody Systems, 3rd ed. 2005, §5.5):

    m = int rho A,  m_x = int rho A x,  I_xx = int rho A x^2,
    Phi_1 = int rho A N,  Phi_x = int rho A x N,  M_e = int rho A N^T N.

With U = [A; b^T] (3 x nq), c = int rho A S s = [-Phi_1.e, m_x], I = I_xx + e^T M_e e
and B = [0; Phi_1^T; Phi_x^T] (3 x n_e):

    M_i = U^T C U + U^T B E + E^T B^T U + E^T M_e E,     C = [[m, 0, c_0], [0, m, c_1],
                                                              [c_0, c_1, I]]
    h_i = U^T [m a_p' + a_psi c - psi_dot^2 s_1 - 2 psi_dot (Phi_1.e_dot) e_x;
               c.a_p' + a_psi I + 2 psi_dot e^T M_e e_dot]
          + E^T (Phi_1 a_p'_y + a_psi Phi_x - psi_dot^2 M_e e),   s_1 = [m_x, Phi_1.e]
    Q_g,i = U^T [m g'; c.g'] + E^T Phi_1 g'_y,                     g' = R^T g

These are the integrals :func:`chrono_flex.planar.equations.terms_by_points` sums point
by point, with the same quadrature, so the two agree to round-off (a test). The
geometric stiffness K_geo = int N_ax(x) N'^T N' dx is linear in the two state-dependent
factors of the axial force (:func:`chrono_flex.planar.equations.axial_force`):
N_ax = (g_x - a_0) [rho A (L - x) + m_out] + psi_dot^2 [rho A (L^2 - x^2)/2 + m_out L], so
K_geo = (g_x - a_0) G_a + psi_dot^2 G_w with two constant matrices per link.
"""

from dataclasses import dataclass

import numpy as np

from . import kinematics as kin


@dataclass(frozen=True)
class LinkInvariants:
    """The shape integrals of one link (module docstring), from its quadrature rule."""

    m: float
    m_x: float
    I_xx: float
    Phi_1: np.ndarray
    Phi_x: np.ndarray
    M_e: np.ndarray
    B: np.ndarray           # (3, n_e): [0; Phi_1; Phi_x]
    G_a: np.ndarray         # geometric stiffness per unit (g_x - a_0)
    G_w: np.ndarray         # geometric stiffness per unit psi_dot^2


def weighted_gram(wt, A):
    """sum_p wt_p A_p^T A_p (n, n) over the rows A_p of A (npts, n): the integral of
    wt A^T A by a quadrature rule. A finite-element basis has few nonzero functions at
    a point (four for cubic Hermite elements), so each row contributes a small dense
    block: O(npts k^2) for k nonzero columns per row, where the product of the dense
    arrays is O(npts n^2) (64 elements: a thousand times fewer operations). Small
    bases (up to 16 functions, where the plain sum costs less than finding the nonzero
    columns) and rows with nonzeros spread over more than half the columns (a modal
    basis) take the plain sum."""
    npts, n = A.shape
    if n <= 16:
        return np.einsum("p,pi,pj->ij", wt, A, A)
    nz = A != 0.0
    has = nz.any(axis=1)
    lo = np.where(has, nz.argmax(axis=1), 0)
    hi = np.where(has, n - nz[:, ::-1].argmax(axis=1), 0)
    k = int((hi - lo).max()) if npts else 0
    if 2 * k > n:
        return np.einsum("p,pi,pj->ij", wt, A, A)
    if k == 0:
        return np.zeros((n, n))
    cols = lo[:, None] + np.arange(k)                       # (npts, k)
    inside = cols < n
    cols = np.minimum(cols, n - 1)
    V = np.take_along_axis(A, cols, axis=1) * inside
    blocks = wt[:, None, None] * (V[:, :, None] * V[:, None, :])     # exactly symmetric
    flat = (cols[:, :, None] * n + cols[:, None, :]).ravel()
    return np.bincount(flat, weights=blocks.ravel(), minlength=n * n).reshape(n, n)


def link_invariants(rho_A, length, x, w, N, dN, outboard_mass, beyond=None):
    """Inertia invariants of a link from a quadrature rule (points ``x``, weights ``w``,
    shape values ``N`` and slopes ``dN`` at the points) for ``rho_A`` (a number, or its
    values at the points) and the mass ``outboard_mass`` carried beyond its tip (module
    docstring). ``beyond``: (int_x^L rho_A ds, int_x^L rho_A s ds) at the points for a
    varying section (default: the uniform closed forms rho_A (L - x), rho_A (L^2 - x^2)/2)."""
    mw = rho_A * w
    Phi_1 = mw @ N
    Phi_x = (mw * x) @ N
    M_e = weighted_gram(mw, N)
    B = np.vstack([np.zeros_like(Phi_1), Phi_1, Phi_x])
    L = length
    if beyond is None:
        wa = w * (rho_A * (L - x) + outboard_mass)
        ww = w * (rho_A * (L * L - x * x) / 2 + outboard_mass * L)
    else:
        wa = w * (beyond[0] + outboard_mass)
        ww = w * (beyond[1] + outboard_mass * L)
    G_a = weighted_gram(wa, dN)
    G_w = weighted_gram(ww, dN)
    return LinkInvariants(float(mw.sum()), float(mw @ x), float(mw @ (x * x)), Phi_1, Phi_x,
                          M_e, B, G_a, G_w)


def _frame_rows(frame):
    """U = [R^T J_p; J_psi] (3, nq), R = R(psi), and R^T (2, 2)."""
    c, s = np.cos(frame.psi), np.sin(frame.psi)
    Rt = np.array([[c, s], [-s, c]])
    U = np.empty((3, frame.Jpsi.size))
    U[:2] = Rt @ frame.Jp
    U[2] = frame.Jpsi
    return U, Rt


def link_terms(inv, frame, e, ed, g):
    """(U, C, B-rows, r_U, r_E) of one link: its contributions to M, h and Q_g are

        M += U^T C U + U^T B E + E^T B^T U + E^T M_e E,
        h - Q_g += U^T r_U + E^T r_E

    (module docstring; ``g`` is the gravity vector in the arm plane)."""
    U, Rt = _frame_rows(frame)
    ap = Rt @ frame.ap
    gl = Rt @ g
    Mee = inv.M_e @ e
    p1e = inv.Phi_1 @ e
    c = np.array([-p1e, inv.m_x])
    I = inv.I_xx + e @ Mee
    C = np.array([[inv.m, 0.0, c[0]], [0.0, inv.m, c[1]], [c[0], c[1], I]])
    wd = frame.psid
    s1 = np.array([inv.m_x, p1e])
    lin = inv.m * (ap - gl) + frame.apsi * c - wd * wd * s1
    lin[0] -= 2.0 * wd * (inv.Phi_1 @ ed)
    rot = c @ (ap - gl) + frame.apsi * I + 2.0 * wd * (Mee @ ed)
    r_U = np.array([lin[0], lin[1], rot])
    r_E = inv.Phi_1 * (ap[1] - gl[1]) + frame.apsi * inv.Phi_x - wd * wd * Mee
    return U, C, r_U, r_E


def _item_rows(frame, item):
    if item.kind == "mass":
        return frame.Jp, frame.ap
    return frame.Jpsi[None, :], np.atleast_1d(frame.apsi)


def terms(model, q, qd, g=None, with_stiffening=None):
    """(M, h - Q_g, frames) at (q, q_dot): the mass matrix, the velocity terms minus the
    gravity forces (in-plane gravity ``g``, default the model's) and the root frames of
    the links, by one pass over the chain (module docstring).

    ``with_stiffening`` (default: the model's setting) adds K_geo e to the second output.
    """
    q = np.asarray(q, dtype=float)
    qd = np.asarray(qd, dtype=float)
    g = model.g_vec if g is None else np.asarray(g, dtype=float)
    stiff = model.geometric_stiffening if with_stiffening is None else with_stiffening
    nq = model.nq
    M = np.zeros((nq, nq))
    r = np.zeros(nq)
    parent = kin.base_frame(nq)
    roots, tips = [], []
    for i, (ll, inv) in enumerate(zip(model.layout.links, model.invariants)):
        f = kin.child_frame(parent, ll, q, qd)
        ei = ll.elastic_slice
        e, ed = q[ei], qd[ei]
        U, C, r_U, r_E = link_terms(inv, f, e, ed, g)
        UB = U.T @ inv.B
        M += U.T @ (C @ U)
        M[:, ei] += UB
        M[ei, :] += UB.T
        M[ei, ei] += inv.M_e
        r += U.T @ r_U
        r[ei] += r_E
        if stiff:
            c, s = np.cos(f.psi), np.sin(f.psi)
            a0 = c * f.ap[0] + s * f.ap[1]
            gx = c * model.g_vec[0] + s * model.g_vec[1]
            r[ei] += ((gx - a0) * inv.G_a + f.psid**2 * inv.G_w) @ e
        parent = kin.tip_frame(f, ll, q, qd)
        roots.append(f)
        tips.append(parent)
    for it in model.items:
        fr = roots[it.link] if it.where == "root" else tips[it.link]
        Jr, ar = _item_rows(fr, it)
        M += it.value * (Jr.T @ Jr)
        r += it.value * (Jr.T @ ar)
        if it.kind == "mass":
            r -= it.value * (Jr.T @ g)
    return M, r, roots


__all__ = ["LinkInvariants", "link_invariants", "link_terms", "terms"]
