"""Compiled twin of :func:`chrono_flex.planar.floating.spatial_terms` (optional, numba).

The custom Chrono element evaluates the planar arm on a moving parent body at every
``ComputeQ`` and, for its stiffness and damping Jacobians, at every perturbed state. The
numpy reference (:func:`~chrono_flex.planar.floating.spatial_terms`) sums the body's
blocks over the quadrature points with a few hundred small-array operations; here the
same sums are scalar loops compiled by numba (:func:`chrono_flex.planar.kernels._jit`),
and the arm's own rows come from the compiled chain kernel
(:func:`chrono_flex.planar.kernels.chain_terms`, inertia invariants). The formulas are
those of :mod:`chrono_flex.planar.floating` (Kane's equations over the mass points,
docs/planar-link.md §1 for the point kinematics); the numpy path stays the reference and
a test holds the two equal to round-off.

:func:`moving_terms` picks the compiled path when the model carries packed arrays (the
numba backend, :func:`chrono_flex.planar.kernels.backend`) and the numpy reference
otherwise.
"""

from collections import namedtuple

import numpy as np

from . import floating, kernels
from .kernels import (IT_LINK, IT_ROT, IT_TIP, LF_AXIS_ANGLE, LF_LENGTH, LF_LINK_ANGLE,
                      LF_OFFSET, LI_E0, LI_JIDX, LI_KIND, LI_NE, SH_DNL, SH_NL, _inline, _jit)

#: The quadrature points of every link, padded to the longest: abscissa x (nl, np),
#: mass weights mw (nl, np), shape values N (nl, np, nmax), and the count per link.
Points = namedtuple("Points", "x mw N n")


def pack_points(model):
    """The :class:`Points` of ``model``'s quadrature (kept on the model after the first call)."""
    cached = getattr(model, "_floating_points", None)
    if cached is not None:
        return cached
    nl = model.n_links
    npts = np.array([qu.x.size for qu in model.quad], dtype=np.int64)
    nmax = int(max(max(ll.elastic_index.size for ll in model.layout.links), 1))
    X = np.zeros((nl, int(npts.max())))
    MW = np.zeros_like(X)
    N = np.zeros((nl, int(npts.max()), nmax))
    for i, qu in enumerate(model.quad):
        k = npts[i]
        X[i, :k], MW[i, :k] = qu.x, qu.mw
        N[i, :k, :qu.N.shape[1]] = qu.N
    model._floating_points = Points(X, MW, N, npts)
    return model._floating_points


#: A v by loops (numba's ``@`` calls BLAS, whose overhead dominates 3 x 3 products):
#: the chain kernel's :func:`chrono_flex.planar.kernels._mv`.
_mv = kernels._mv


@_jit
def _mm(A, B):
    """A B by loops (as :func:`_mv`)."""
    n, m = A.shape
    k = B.shape[1]
    out = np.zeros((n, k))
    for i in range(n):
        for j in range(k):
            acc = 0.0
            for r in range(m):
                acc += A[i, r] * B[r, j]
            out[i, j] = acc
    return out


@_jit
def _dot(a, b):
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[i] * b[i]
    return acc


@_inline
def _add_point(m, r0, r1, J, a0, a1, qd, w, o, Pax, acc_s, ms, SVq, Iww, Mwq, macc,
               fW, fq, g_b):
    """Add one mass point (mass m, planar r, J (2, nq), a) to the body's sums
    (:func:`chrono_flex.planar.floating.spatial_terms`: s = o + P r, P J, the convective
    acceleration c = omega x (omega x s) + 2 omega x (P J q_dot) + P a). Scalars only:
    no array is allocated per point."""
    nq = qd.shape[0]
    s0 = o[0] + Pax[0, 0] * r0 + Pax[0, 1] * r1
    s1 = o[1] + Pax[1, 0] * r0 + Pax[1, 1] * r1
    s2 = o[2] + Pax[2, 0] * r0 + Pax[2, 1] * r1
    jq0, jq1 = 0.0, 0.0
    for k in range(nq):
        jq0 += J[0, k] * qd[k]
        jq1 += J[1, k] * qd[k]
    v0 = Pax[0, 0] * jq0 + Pax[0, 1] * jq1
    v1 = Pax[1, 0] * jq0 + Pax[1, 1] * jq1
    v2 = Pax[2, 0] * jq0 + Pax[2, 1] * jq1
    w0, w1, w2 = w[0], w[1], w[2]
    ws0, ws1, ws2 = w1 * s2 - w2 * s1, w2 * s0 - w0 * s2, w0 * s1 - w1 * s0
    c0 = w1 * ws2 - w2 * ws1 + 2.0 * (w1 * v2 - w2 * v1)
    c1 = w2 * ws0 - w0 * ws2 + 2.0 * (w2 * v0 - w0 * v2)
    c2 = w0 * ws1 - w1 * ws0 + 2.0 * (w0 * v1 - w1 * v0)
    acc0 = c0 + Pax[0, 0] * a0 + Pax[0, 1] * a1
    acc1 = c1 + Pax[1, 0] * a0 + Pax[1, 1] * a1
    acc2 = c2 + Pax[2, 0] * a0 + Pax[2, 1] * a1
    acc_s[0] += m
    ss = s0 * s0 + s1 * s1 + s2 * s2
    ms[0] += m * s0
    ms[1] += m * s1
    ms[2] += m * s2
    macc[0] += m * acc0
    macc[1] += m * acc1
    macc[2] += m * acc2
    Iww[0, 0] += m * (ss - s0 * s0)
    Iww[1, 1] += m * (ss - s1 * s1)
    Iww[2, 2] += m * (ss - s2 * s2)
    Iww[0, 1] -= m * s0 * s1
    Iww[1, 0] -= m * s0 * s1
    Iww[0, 2] -= m * s0 * s2
    Iww[2, 0] -= m * s0 * s2
    Iww[1, 2] -= m * s1 * s2
    Iww[2, 1] -= m * s1 * s2
    d0, d1, d2 = g_b[0] - acc0, g_b[1] - acc1, g_b[2] - acc2
    fW[0] += m * (s1 * d2 - s2 * d1)
    fW[1] += m * (s2 * d0 - s0 * d2)
    fW[2] += m * (s0 * d1 - s1 * d0)
    for k in range(nq):
        j0, j1 = J[0, k], J[1, k]
        if j0 == 0.0 and j1 == 0.0:
            continue
        p0 = Pax[0, 0] * j0 + Pax[0, 1] * j1
        p1 = Pax[1, 0] * j0 + Pax[1, 1] * j1
        p2 = Pax[2, 0] * j0 + Pax[2, 1] * j1
        SVq[0, k] += m * p0
        SVq[1, k] += m * p1
        SVq[2, k] += m * p2
        Mwq[0, k] += m * (s1 * p2 - s2 * p1)
        Mwq[1, k] += m * (s2 * p0 - s0 * p2)
        Mwq[2, k] += m * (s0 * p1 - s1 * p0)
        fq[k] -= m * (p0 * c0 + p1 * c1 + p2 * c2)


@_inline
def _child_frame(P, i, q, qd, p, Jp, ap, Jpsi, ang):
    """Link i's root frame from its parent's tip frame, in place (the chain kernel's
    :func:`chrono_flex.planar.kernels._root_frame`): p (2,), Jp (2, nq), ap (2,), Jpsi
    (nq,) and ang = [psi, apsi, psid]."""
    ang[0], ang[2] = kernels._root_frame(P.lint[i, LI_KIND], P.lint[i, LI_JIDX],
                                         P.lflt[i, LF_OFFSET], P.lflt[i, LF_AXIS_ANGLE],
                                         P.lflt[i, LF_LINK_ANGLE], q, qd, p, Jp, ap, Jpsi,
                                         ang[0], ang[1], ang[2])


@_inline
def _point(P, i, x, N, q, qd, p, Jp, ap, Jpsi, ang, J):
    """The material point at abscissa x (shape values N (ne,)) of link i on its root
    frame (kinematics.points): fills J (2, nq), returns (r0, r1, a0, a1)."""
    nq = q.shape[0]
    psi, apsi, psid = ang[0], ang[1], ang[2]
    c, sn = np.cos(psi), np.sin(psi)
    e0 = P.lint[i, LI_E0]
    wv, wdv = 0.0, 0.0
    for a in range(P.lint[i, LI_NE]):
        wv += N[a] * q[e0 + a]
        wdv += N[a] * qd[e0 + a]
    Rs0 = c * x - sn * wv
    Rs1 = sn * x + c * wv
    for k in range(nq):
        J[0, k] = Jp[0, k] - Rs1 * Jpsi[k]
        J[1, k] = Jp[1, k] + Rs0 * Jpsi[k]
    for a in range(P.lint[i, LI_NE]):
        J[0, e0 + a] -= sn * N[a]
        J[1, e0 + a] += c * N[a]
    return (p[0] + Rs0, p[1] + Rs1,
            ap[0] - apsi * Rs1 - psid * psid * Rs0 - 2.0 * psid * c * wdv,
            ap[1] + apsi * Rs0 - psid * psid * Rs1 - 2.0 * psid * sn * wdv)


@_inline
def _tip_frame(P, i, q, qd, p, Jp, ap, Jpsi, ang, J):
    """Link i's tip frame from its root frame, in place (kinematics.tip_frame: r(L),
    angle psi + w'(L)); J is work space (2, nq)."""
    nq = q.shape[0]
    r0, r1, a0, a1 = _point(P, i, P.lflt[i, LF_LENGTH], P.shp[i, SH_NL], q, qd, p, Jp, ap,
                            Jpsi, ang, J)
    p[0], p[1], ap[0], ap[1] = r0, r1, a0, a1
    Jp[:, :] = J
    e0 = P.lint[i, LI_E0]
    for a in range(P.lint[i, LI_NE]):
        ang[0] += P.shp[i, SH_DNL, a] * q[e0 + a]
        Jpsi[e0 + a] += P.shp[i, SH_DNL, a]
    psid = 0.0
    for k in range(nq):
        psid += Jpsi[k] * qd[k]
    ang[2] = psid


@_jit
def _body_terms(P, X, MW, NQ, npts, K, D, stiff, q, qd, Q, A, w, o, Pax, g):
    """(M_full, f_full) of :func:`chrono_flex.planar.floating.spatial_terms`: the arm's
    own block and rows from the chain kernel (:func:`chrono_flex.planar.kernels._chain_terms`,
    in-plane gravity P^T A^T g) with -K q - D q_dot + Q, the frames of
    :mod:`chrono_flex.planar.kinematics` (:func:`_child_frame`, :func:`_point`,
    :func:`_tip_frame`), and the body's sums over every quadrature point and lumped item."""
    nq = P.nq
    nl = P.lint.shape[0]
    g_b = _mv(A.T, g)
    g_p = np.array([Pax[0, 0] * g_b[0] + Pax[1, 0] * g_b[1] + Pax[2, 0] * g_b[2],
                    Pax[0, 1] * g_b[0] + Pax[1, 1] * g_b[1] + Pax[2, 1] * g_b[2]])
    Mqq, rq = kernels._chain_terms(P, q, qd, g_p, stiff)
    fq_arm = Q - rq - _mv(K, q) - _mv(D, qd)
    n = np.array([Pax[1, 0] * Pax[2, 1] - Pax[2, 0] * Pax[1, 1],
                  Pax[2, 0] * Pax[0, 1] - Pax[0, 0] * Pax[2, 1],
                  Pax[0, 0] * Pax[1, 1] - Pax[1, 0] * Pax[0, 1]])
    acc_s = np.zeros(1)
    ms = np.zeros(3)
    SVq = np.zeros((3, nq))
    Iww = np.zeros((3, 3))
    Mwq = np.zeros((3, nq))
    macc = np.zeros(3)
    fW = np.zeros(3)
    fq = np.zeros(nq)
    Jw = np.zeros((2, nq))
    p = np.zeros(2)
    Jp = np.zeros((2, nq))
    ap = np.zeros(2)
    Jpsi = np.zeros(nq)
    ang = np.zeros(3)
    # root (2 i) and tip (2 i + 1) frames of every link, for the lumped items
    fr_p = np.zeros((2 * nl, 2))
    fr_Jp = np.zeros((2 * nl, 2, nq))
    fr_ap = np.zeros((2 * nl, 2))
    fr_Jpsi = np.zeros((2 * nl, nq))
    fr_apsi = np.zeros(2 * nl)
    for i in range(nl):
        for t in range(2):
            if t == 0:
                _child_frame(P, i, q, qd, p, Jp, ap, Jpsi, ang)
                for kp in range(npts[i]):
                    r0, r1, a0, a1 = _point(P, i, X[i, kp], NQ[i, kp], q, qd, p, Jp, ap,
                                            Jpsi, ang, Jw)
                    _add_point(MW[i, kp], r0, r1, Jw, a0, a1, qd, w, o, Pax, acc_s, ms, SVq,
                               Iww, Mwq, macc, fW, fq, g_b)
            else:
                _tip_frame(P, i, q, qd, p, Jp, ap, Jpsi, ang, Jw)
            fr_p[2 * i + t] = p
            fr_Jp[2 * i + t] = Jp
            fr_ap[2 * i + t] = ap
            fr_Jpsi[2 * i + t] = Jpsi
            fr_apsi[2 * i + t] = ang[1]
    M = np.zeros((6 + nq, 6 + nq))
    f = np.zeros(6 + nq)
    nw = n[0] * w[0] + n[1] * w[1] + n[2] * w[2]
    wxn = np.array([w[1] * n[2] - w[2] * n[1], w[2] * n[0] - w[0] * n[2],
                    w[0] * n[1] - w[1] * n[0]])
    for t in range(P.iint.shape[0]):
        fi = 2 * P.iint[t, IT_LINK] + P.iint[t, IT_TIP]
        val = P.ival[t]
        if P.iint[t, IT_ROT] == 1:
            u = nw
            for k in range(nq):
                u += fr_Jpsi[fi, k] * qd[k]
            for a in range(3):
                for b in range(3):
                    M[3 + a, 3 + b] += val * n[a] * n[b]
                for k in range(nq):
                    M[3 + a, 6 + k] += val * n[a] * fr_Jpsi[fi, k]
                f[3 + a] -= val * (n[a] * fr_apsi[fi] + u * wxn[a])
        else:
            _add_point(val, fr_p[fi, 0], fr_p[fi, 1], fr_Jp[fi], fr_ap[fi, 0],
                       fr_ap[fi, 1], qd, w, o, Pax, acc_s, ms, SVq, Iww, Mwq, macc, fW,
                       fq, g_b)
    mtot = acc_s[0]
    ASV = _mm(A, SVq)
    Amacc = _mv(A, macc)
    for a in range(3):
        M[a, a] = mtot
        f[a] = mtot * g[a] - Amacc[a]
        f[3 + a] += fW[a]
        for b in range(3):
            M[3 + a, 3 + b] += Iww[a, b]
        for k in range(nq):
            M[a, 6 + k] = ASV[a, k]
            M[6 + k, a] = ASV[a, k]
            M[3 + a, 6 + k] += Mwq[a, k]
    for a in range(3):
        for k in range(nq):
            M[6 + k, 3 + a] = M[3 + a, 6 + k]
    # M[v, omega] = -A S(ms), S the cross-product matrix
    S = np.array([[0.0, -ms[2], ms[1]], [ms[2], 0.0, -ms[0]], [-ms[1], ms[0], 0.0]])
    AS = _mm(A, S)
    for a in range(3):
        for b in range(3):
            M[a, 3 + b] = -AS[a, b]
            M[3 + b, a] = -AS[a, b]
    for k in range(nq):
        f[6 + k] = fq[k] + fq_arm[k]
        for l in range(nq):
            M[6 + k, 6 + l] = Mqq[k, l]
    return M, f


@_jit
def _station(P, q, qd, link, x, N, dN):
    """(r (2,), J (2, nq), phi, J_phi (nq,)) of the point at abscissa x of link ``link``
    (shape values N, N' (ne,)): :func:`chrono_flex.planar.floating.station`."""
    nq = q.shape[0]
    p = np.zeros(2)
    Jp = np.zeros((2, nq))
    ap = np.zeros(2)
    Jpsi = np.zeros(nq)
    ang = np.zeros(3)
    J = np.zeros((2, nq))
    for i in range(link):
        _child_frame(P, i, q, qd, p, Jp, ap, Jpsi, ang)
        _tip_frame(P, i, q, qd, p, Jp, ap, Jpsi, ang, J)
    _child_frame(P, link, q, qd, p, Jp, ap, Jpsi, ang)
    r0, r1, _, _ = _point(P, link, x, N, q, qd, p, Jp, ap, Jpsi, ang, J)
    phi = ang[0]
    Jphi = Jpsi.copy()
    e0 = P.lint[link, LI_E0]
    for a in range(P.lint[link, LI_NE]):
        phi += dN[a] * q[e0 + a]
        Jphi[e0 + a] += dN[a]
    return np.array([r0, r1]), J, phi, Jphi


@_jit
def _cross(a, b):
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


@_jit
def _weld(r, J, phi, Jphi, qd, pB, AB, vB, wB, o, Pax, xb, Ab, vb, wb, d, Fr, gains):
    """The bushing of :func:`chrono_flex.planar.floating.attachment_terms` (its formulas,
    with :func:`~chrono_flex.planar.floating.bushing_wrench`): (Q_parent, Q_q, Q_body,
    gap, rot_rel, F, M, [V, P], gap_rate, omega_rel)."""
    n = _cross(Pax[:, 0], Pax[:, 1])
    sL = o + _mv(Pax, r)
    RL = pB + _mv(AB, sL)
    vL = vB + _mv(AB, _cross(wB, sL) + _mv(Pax, _mv(J, qd)))
    c, s = np.cos(phi), np.sin(phi)
    ex = Pax[:, 0] * c + Pax[:, 1] * s
    ey = Pax[:, 1] * c - Pax[:, 0] * s
    Rloc = np.empty((3, 3))
    Rloc[:, 0], Rloc[:, 1], Rloc[:, 2] = ex, ey, _cross(ex, ey)
    AL = _mm(AB, Rloc)
    wL = _mv(AB, wB + n * _dot(Jphi, qd))
    Rb = xb + _mv(Ab, d)
    vbp = vb + _mv(Ab, _cross(wb, d))
    gap, gap_rate, omega_rel = Rb - RL, vbp - vL, _mv(Ab, wb) - wL
    R = _mm(_mm(Ab, Fr), AL.T)
    k_p, k_r, c_p, c_r = gains[0], gains[1], gains[2], gains[3]
    sigma = 0.5 * np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    F = -k_p * gap - c_p * gap_rate
    M = -k_r * sigma - c_r * omega_rel
    VP = np.array([0.5 * k_p * _dot(gap, gap) + 0.5 * k_r * (3.0 - (R[0, 0] + R[1, 1] + R[2, 2])),
                   c_p * _dot(gap_rate, gap_rate) + c_r * _dot(omega_rel, omega_rel)])
    f = -_mv(AB.T, F)
    m = -_mv(AB.T, M)
    Qp = np.empty(6)
    Qp[:3], Qp[3:] = -F, _cross(sL, f) + m
    Qb = np.empty(6)
    Qb[:3], Qb[3:] = F, _mv(Ab.T, M) + _cross(d, _mv(Ab.T, F))
    Qq = _mv(J.T, _mv(Pax.T, f)) + Jphi * _dot(n, m)
    return Qp, Qq, Qb, gap, R, F, M, VP, gap_rate, omega_rel


@_jit
def _weld_g(r, J, Jphi, AB, o, Pax, Ab, d):
    """G (6, 6 + nq + 6) of :func:`chrono_flex.planar.floating.attachment_jacobians` over
    [parent (v_B, omega_B local), q_dot, body (v_b, omega_b local)]: [de; dtheta] = G dw."""
    nq = J.shape[1]
    n = _cross(Pax[:, 0], Pax[:, 1])
    sL = o + _mv(Pax, r)
    G = np.zeros((6, 12 + nq))
    ASs = _mm(AB, np.array([[0.0, -sL[2], sL[1]], [sL[2], 0.0, -sL[0]], [-sL[1], sL[0], 0.0]]))
    ASd = _mm(Ab, np.array([[0.0, -d[2], d[1]], [d[2], 0.0, -d[0]], [-d[1], d[0], 0.0]]))
    APJ = _mm(AB, _mm(Pax, J))
    An = _mv(AB, n)
    b = 6 + nq
    for a in range(3):
        G[a, a] = -1.0
        G[a, b + a] = 1.0
        for c in range(3):
            G[a, 3 + c] = ASs[a, c]
            G[3 + a, 3 + c] = -AB[a, c]
            G[a, b + 3 + c] = -ASd[a, c]
            G[3 + a, b + 3 + c] = Ab[a, c]
        for k in range(nq):
            G[a, 6 + k] = -APJ[a, k]
            G[3 + a, 6 + k] = -An[a] * Jphi[k]
    return G


@_jit
def _add_weld_matrices(G, g0, gains, cols, K, R):
    """K[cols, cols] += G'^T diag(k_p, k_p, k_p, k_r, k_r, k_r) G' and R likewise with
    (c_p, c_r), G' the columns g0, g0 + 1, ... of G: the weld's matrices
    (:func:`attachment_jacobians`) scattered into the load's."""
    n = cols.shape[0]
    for a in range(n):
        for b in range(a, n):
            # symmetric: each entry above the diagonal is also the one below it
            kk, rr = 0.0, 0.0
            for r in range(6):
                gg = G[r, g0 + a] * G[r, g0 + b]
                kk += gains[0 if r < 3 else 1] * gg
                rr += gains[2 if r < 3 else 3] * gg
            K[cols[a], cols[b]] += kk
            R[cols[a], cols[b]] += rr
            if b != a:
                K[cols[b], cols[a]] += kk
                R[cols[b], cols[a]] += rr


def add_weld_matrices(model, q, link, s, placement, body, offset, gains, cols, K, R,
                      kinematics=None):
    """Add the weld's K and R (:func:`attachment_jacobians`) into the load's K and R at
    ``cols`` (the load's columns of [parent, q_dot, body], or of [q_dot, body] for a
    parent at rest: 6 + nq + 6 or nq + 6 of them), compiled. Returns False (and adds
    nothing) without packed arrays."""
    G = attachment_g(model, q, link, s, placement, body, offset, kinematics)
    if G is None:
        return False
    _add_weld_matrices(G, G.shape[1] - cols.shape[0], np.asarray(gains, dtype=float),
                       cols, K, R)
    return True


def station(model, q, qd, link, s, shapes=None):
    """:func:`chrono_flex.planar.floating.station`, compiled when the model carries
    packed arrays."""
    if model.packed is None:
        return floating.station(model, q, qd, link, s, shapes)
    N, dN = model.bases[link].values(np.array([float(s)]))[:2] if shapes is None else shapes
    return _station(model.packed, np.asarray(q, dtype=float), np.asarray(qd, dtype=float),
                    int(link), float(s), N[0], dN[0])


def tip_kinematics(model, q, qd):
    """(r (2,), J (2, nq), phi, J_phi (nq,)) of the deformed tip of the last link in the
    plane (position, velocity Jacobian, tangent angle and its Jacobian): :func:`station`
    at the last link's length."""
    last = model.n_links - 1
    N, dN, _ = model.tip_shapes[last]
    return station(model, q, qd, last, model.bases[last].length, (N, dN))


def cross3(a, b):
    """a x b of two 3-vectors, as np.cross computes it (which costs ten times more on
    single vectors)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


def _floats(*arrays):
    return [np.ascontiguousarray(a, dtype=float) for a in arrays]


def attachment_terms(model, q, qd, link, s, placement, body, offset, frame_rot, gains,
                     shapes=None, kinematics=None):
    """:func:`chrono_flex.planar.floating.attachment_terms` (same arguments and dict),
    compiled when the model carries packed arrays."""
    if model.packed is None:
        return floating.attachment_terms(model, q, qd, link, s, placement, body, offset,
                                         frame_rot, gains, shapes, kinematics)
    qd = np.asarray(qd, dtype=float)
    r, J, phi, Jphi = (station(model, q, qd, link, s, shapes) if kinematics is None
                       else kinematics)
    Qp, Qq, Qb, gap, R, F, M, VP, ed, wr = _weld(
        r, J, float(phi), Jphi, qd, *_floats(*placement), *_floats(*body[:4]),
        *_floats(offset, frame_rot), np.asarray(gains, dtype=float))
    return dict(Q_parent=Qp, Q_q=Qq, Q_body=Qb, gap=gap, rot_rel=R, force=F, moment=M,
                energy=float(VP[0]), power=float(VP[1]), gap_rate=ed, omega_rel=wr)


def attachment_jacobians(model, q, link, s, placement, body, offset, gains,
                         kinematics=None):
    """:func:`chrono_flex.planar.floating.attachment_jacobians` (same arguments and
    blocks), compiled when the model carries packed arrays."""
    if model.packed is None:
        return floating.attachment_jacobians(model, q, link, s, placement, body, offset,
                                             gains, kinematics)
    r, J, _, Jphi = (station(model, q, np.zeros(model.nq), link, s) if kinematics is None
                     else kinematics)
    pB, AB, vB, wB, o, Pax = _floats(*placement)
    G = _weld_g(r, J, Jphi, AB, o, Pax, *_floats(body[1], offset))
    k_p, k_r, c_p, c_r = gains
    kw = np.array([k_p] * 3 + [k_r] * 3)
    cw = np.array([c_p] * 3 + [c_r] * 3)
    Kf, Rf = G.T @ (kw[:, None] * G), G.T @ (cw[:, None] * G)
    nq = J.shape[1]
    cols = {"parent": slice(0, 6), "q": slice(6, 6 + nq), "body": slice(6 + nq, 12 + nq)}
    K = {(a, b): Kf[cols[a], cols[b]] for a in cols for b in cols}
    R = {(a, b): Rf[cols[a], cols[b]] for a in cols for b in cols}
    return K, R


def attachment_g(model, q, link, s, placement, body, offset, kinematics=None):
    """The weld's G (6, 6 + nq + 6) of :func:`attachment_jacobians` over [parent, q_dot,
    body] velocities (K = G^T diag(k) G), compiled; None without packed arrays."""
    if model.packed is None:
        return None
    r, J, _, Jphi = (station(model, q, np.zeros(model.nq), link, s) if kinematics is None
                     else kinematics)
    _, AB, _, _, o, Pax = _floats(*placement)
    return _weld_g(r, J, Jphi, AB, o, Pax, *_floats(body[1], offset))


#: what the Chrono element's welds need besides the functions above (as in floating)
station_motion = floating.station_motion


def spatial_terms(model, q, qd, body_rot, body_omega_local, plane_origin_local,
                  plane_axes_local, gravity_world, Q=None):
    """(M_full, f_full) of :func:`chrono_flex.planar.floating.spatial_terms` by the
    compiled kernels, in one compiled call (the model must carry packed arrays: the
    numba backend)."""
    pts = pack_points(model)
    q = np.asarray(q, dtype=float)
    return _body_terms(model.packed, pts.x, pts.mw, pts.N, pts.n, model.K, model.D,
                       bool(model.geometric_stiffening), q, np.asarray(qd, dtype=float),
                       np.zeros(q.shape[0]) if Q is None else np.asarray(Q, dtype=float),
                       *_floats(body_rot, body_omega_local, plane_origin_local,
                                plane_axes_local, gravity_world))


def moving_terms(model, q, qd, body_rot, body_omega_local, plane_origin_local,
                 plane_axes_local, gravity_world, Q=None):
    """(M_full, f_full) of the arm on a moving body (the module doc of
    :mod:`chrono_flex.planar.floating`): compiled (:func:`spatial_terms`) when the model
    carries packed arrays, else the numpy reference
    :func:`chrono_flex.planar.floating.spatial_terms`."""
    if model.packed is not None:
        return spatial_terms(model, q, qd, body_rot, body_omega_local, plane_origin_local,
                             plane_axes_local, gravity_world, Q)
    z = np.zeros(3)
    return floating.spatial_terms(model, q, qd, z, body_rot, z, body_omega_local,
                                  plane_origin_local, plane_axes_local, gravity_world, Q)


__all__ = ["Points", "add_weld_matrices", "cross3", "tip_kinematics", "attachment_g", "attachment_jacobians", "attachment_terms", "moving_terms", "pack_points",
           "spatial_terms", "station", "station_motion"]
