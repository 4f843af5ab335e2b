"""A spatial link's terms from constant coefficients (docs/spatial-link.md §4).

The terms of one link at its root frame (:mod:`chrono_flex.spatial.kernels`: rotation
R, U = [R^T Jp; R^T Jw] the frame's 6 x nq Jacobian, ap, aw, w its acceleration terms
and angular velocity in the link's axes, E and E_d the link's elastic coordinates and
rates) are

    M_link = U^T C U + U^T G E + E^T G^T U + E^T M_ee E
    r_link = U^T F + E^T f_e

(in these two, E stands for the selection of those coordinates among the nq)

with the quadrature sums over the link's points (section s = [x, v, w], s_d = [0, v_d,
w_d], d = ap + aw x s + w x (w x s) + 2 w x s_d - g the point's acceleration less
gravity, v = Nv E, w = Nw E):

    C   = [[m I, -[c]x], [[c]x, J_s + I_p e_x e_x^T]],  c = sum rho_A s,
          J_s = sum rho_A [s]x^T [s]x,  I_p = sum rho_Ip
    G   = sum rho_A [I; [s]x] [0; Nv; Nw] + [0; e_x] sum rho_Ip Nphi
    F   = sum rho_A [d; s x d] + the sections' spin: [0; I_p (aw . e_x) e_x + S w x e_x]
    f_e = sum rho_A (Nv^T d_y + Nw^T d_z) + (aw . e_x) sum rho_Ip Nphi^T
          [+ sum N(x) (Nv'^T Nv' + Nw'^T Nw') E]   (geometric stiffening)

(S = sum rho_Ip (w . e_x + phi_d); N(x) the axial force of
:func:`chrono_flex.spatial.equations.axial_force`). Every one of these is a polynomial
of degree two at most in (E, E_d) whose coefficients are the frame's quantities times
sums over the points that do not change: with the constant vectors and matrices of
:func:`link_coefficients` (n_v = sum rho_A Nv, M_vw = sum rho_A Nv^T Nw, ...),

    c   = [sum rho_A x, n_v . E, n_w . E]
    J_s = [[E.M_vv E + E.M_ww E, -n_vx . E, -n_wx . E], [., J_xx + E.M_ww E, -E.M_vw E],
           [., ., J_xx + E.M_vv E]]
    sum rho_A s x (w x s_d) = w (E_d.M_vv E + E_d.M_ww E) - [0; w . (n_vx.E_d, E_d.M_vv E,
           E_d.M_vw E); w . (n_wx.E_d, E_d.M_wv E, E_d.M_ww E)]
    f_e = A_y n_v + B_y n_vx + C_y M_vv E + D_y M_vw E + (the same in z)
          - 2 w_x (M_vw - M_wv) E_d + (aw . e_x) n_phi
          [+ (g_x - a_x) K_0 E + w_perp^2 K_1 E]

where d_y = A_y + B_y x + C_y v + D_y w - 2 w_x w_d (A_y = ap_y - g_y, B_y = aw_z + w_x
w_y, C_y = -(w_x^2 + w_z^2), D_y = w_y w_z - aw_x; in z: d_z = A_z + B_z x + C_z v + D_z
w + 2 w_x v_d with A_z = ap_z - g_z, B_z = w_x w_z - aw_y, C_z = aw_x + w_y w_z, D_z =
-(w_x^2 + w_y^2)). The axial force N(x) = (g_x - a_x) m_0(x) + w_perp^2 m_1(x) + m_out
(g_x - a_x + w_perp^2 L) is linear in its two frame factors, so K_0 = sum N_0-weighted
(Nv'^T Nv' + Nw'^T Nw') with N_0 = m_0 + m_out, K_1 the same with m_1 + m_out L. The
rewriting is exact: the sums are the same quadrature sums taken in another order (no
term is dropped or linearised; the results differ by round-off), and the per-link work
is a few sparse products over the link's coordinates in place of a loop over its
points. tests/spatial/test_spatial_kernels.py holds it to the numpy equations
(:func:`chrono_flex.spatial.equations.terms`, the quadrature form) at random states.
"""

import numpy as np

from ..planar.kernels import _inline, _jit

#: The constant matrices of a link, in this order in :func:`pack_links`' CSR arrays.
MATRICES = ("M_vv", "M_ww", "M_vw", "M_wv", "A_vw", "K_0", "K_1", "M_ee")
MVV, MWW, MVW, MWV, AVW, K0, K1, MEE = range(len(MATRICES))
#: The constant vectors: n_v, n_w, n_vx, n_wx, n_phi.
VECTORS = ("n_v", "n_w", "n_vx", "n_wx", "n_phi")
#: The constant scalars: m, sum rho_A x, J_xx = sum rho_A x^2, I_p.
SCALARS = ("m", "m_x", "J_xx", "I_p")


def link_coefficients(qu, m0, m1, m_out, length):
    """The constant sums of one link (module docstring) from its quadrature ``qu``
    (:class:`chrono_flex.spatial.equations.Quadrature`: points x, weights w, w rho_A,
    w rho_Ip, Nv, Nw, Nphi, Nv', Nw' at the points), the outboard mass and first moment
    m0(x), m1(x) at the points (``SpatialLink.beyond``), the mass m_out at the tip and
    the link's length: (scalars (4,), vectors (5, n), matrices (8, n, n)) in the order of
    :data:`SCALARS`, :data:`VECTORS`, :data:`MATRICES`."""
    wA, wIp, x, w = qu.w_rho_A, qu.w_rho_Ip, qu.x, qu.w

    def mass(f, A, B):
        return A.T @ (f[:, None] * B)

    def slopes(f):
        return mass(f, qu.dNv, qu.dNv) + mass(f, qu.dNw, qu.dNw)

    Mvv, Mww, Mvw = mass(wA, qu.Nv, qu.Nv), mass(wA, qu.Nw, qu.Nw), mass(wA, qu.Nv, qu.Nw)
    K2 = slopes(w)
    scalars = np.array([wA.sum(), wA @ x, wA @ (x * x), wIp.sum()])
    vectors = np.array([wA @ qu.Nv, wA @ qu.Nw, (wA * x) @ qu.Nv, (wA * x) @ qu.Nw,
                        wIp @ qu.Nphi])
    matrices = np.array([Mvv, Mww, Mvw, Mvw.T, Mvw - Mvw.T,
                         slopes(w * m0) + m_out * K2, slopes(w * m1) + m_out * length * K2,
                         Mvv + Mww + mass(wIp, qu.Nphi, qu.Nphi)])
    return scalars, vectors, matrices


def pack_links(model):
    """The coefficients of every link of ``model`` (reduced), padded to the largest
    link: scalars (nb, 4), vectors (nb, 5, nmax) and the matrices in compressed rows,
    row pointers (8, nb, nmax + 1), columns and values (8, nb, nnz_max) (zero rows for
    rigid bodies)."""
    lay = model.layout.bodies
    nb = len(lay)
    nmax = int(max(max(bl.elastic_index.size for bl in lay), 1))
    scal, vec = np.zeros((nb, len(SCALARS))), np.zeros((nb, len(VECTORS), nmax))
    rows = [[None] * nb for _ in MATRICES]
    for i, (bl, qu) in enumerate(zip(lay, model.quad)):
        if qu is None:
            continue
        m0, m1 = bl.body.beyond(qu.x)
        s, v, mats = link_coefficients(qu, m0, m1, model.outboard_mass[i], bl.basis.length)
        scal[i], vec[i, :, :v.shape[1]] = s, v
        for k, A in enumerate(mats):
            rows[k][i] = [np.nonzero(row)[0] for row in A], A
    nnz = max([sum(c.size for c in r[i][0]) for r in rows for i in range(nb)
               if r[i] is not None] + [1])
    ptr = np.zeros((len(MATRICES), nb, nmax + 1), dtype=np.int64)
    col = np.zeros((len(MATRICES), nb, nnz), dtype=np.int64)
    val = np.zeros((len(MATRICES), nb, nnz))
    for k, r in enumerate(rows):
        for i in range(nb):
            if r[i] is None:
                continue
            cols, A = r[i]
            t = 0
            for a, c in enumerate(cols):
                col[k, i, t:t + c.size], val[k, i, t:t + c.size] = c, A[a, c]
                t += c.size
                ptr[k, i, a + 1] = t
            ptr[k, i, len(cols) + 1:] = t
    return scal, vec, ptr, col, val, nmax


@_inline
def _csr_mv(ptr, col, val, k, b, ne, x, x0, scale, out, row):
    """out[row, a] += scale sum_c A[a, c] x[x0 + c] over the rows a < ne of matrix k of
    link b (:func:`pack_links`' compressed rows)."""
    for a in range(ne):
        s = 0.0
        for t in range(ptr[k, b, a], ptr[k, b, a + 1]):
            s += val[k, b, t] * x[x0 + col[k, b, t]]
        out[row, a] += scale * s


# compiled once and called, not inlined: numba's typing of the passes that inlined it took
# most of the kernels' compile time (it was typed again in every pass and in each of
# their literal-argument variants)
#: The columns of a frame's (3, 7 + 2 nf) array (kernels._frame_array): position,
#: acceleration terms ap and aw, angular velocity, rotation (three columns), then the
#: Jacobians Jp and Jw (nf columns each).
FP, FAP, FAW, FW, FR, FJ = 0, 1, 2, 3, 4, 7

#: The rows of the work array of :func:`_link` (kernels._scratch): U = [R^T Jp; R^T Jw]
#: over its nonzero columns (rows 0-5), C U (CU..CU+5), C (C..C+5, first six columns),
#: G (G..G+5), f_e (FE), U a_in (UA), (C U + G E) a_in (V6), and the products of the
#: constant matrices with E: M_vv E (ZV), M_ww E (ZW), M_vw E (TVW), M_wv E (TWV).
CU, C, G, FE, UA, V6, ZV, ZW, TVW, TWV = 6, 12, 18, 24, 26, 27, 28, 29, 30, 31
WORK_ROWS = 32


@_jit
def _link(e0, ne, lsc, lvec, cptr, ccol, cval, b, q, qd, g, stiff, nc_b, fcol, Fb, M,
          a_in, Ma, r, W, cols):
    """Link b's terms at its root frame (the module docstring's M_link, r_link from the
    coefficients of :func:`pack_links`: its scalars lsc and vectors lvec, all links'
    matrices cptr, ccol, cval; its elastic coordinates e0 to e0 + ne), added to r (when
    r has nq entries: an empty r asks for M a_in alone, as the kinetic energy does) and
    to M (when M is nq x nq) and to
    Ma = M a_in (when a_in has nq entries); the root frame Fb one array (3, 7 + 2 nf) of
    :func:`chrono_flex.spatial.kernels._frame_array` (one argument: each array passed
    costs reference counts), its Jacobians over nc_b columns, those of q listed in fcol
    (:func:`chrono_flex.spatial.kernels.frame_columns`); W, cols:
    :func:`chrono_flex.spatial.kernels._scratch`."""
    nf = (Fb.shape[1] - FJ) // 2
    nq = q.shape[0]
    full = M.shape[0] == nq
    prod = a_in.shape[0] == nq
    forces = r.shape[0] == nq
    nc = 0                         # U = [R^T Jp; R^T Jw] over its nonzero columns, their
    for k in range(nc_b):          # q's in cols
        if e0 <= fcol[k] < e0 + ne:    # the root frame does not move with the link's own E
            continue
        nz = False
        for i in range(3):
            up = (Fb[0, FR + i] * Fb[0, FJ + k] + Fb[1, FR + i] * Fb[1, FJ + k]
                  + Fb[2, FR + i] * Fb[2, FJ + k])
            uw = (Fb[0, FR + i] * Fb[0, FJ + nf + k] + Fb[1, FR + i] * Fb[1, FJ + nf + k]
                  + Fb[2, FR + i] * Fb[2, FJ + nf + k])
            W[i, nc], W[3 + i, nc] = up, uw
            nz = nz or up != 0.0 or uw != 0.0
        if nz:
            cols[nc] = fcol[k]
            nc += 1
    # R^T (ap - g), R^T aw, R^T w: the frame's terms in the link's axes
    A0 = A1 = A2 = aw0 = aw1 = aw2 = w0 = w1 = w2 = 0.0
    for i in range(3):
        d, x, y = Fb[i, FAP] - g[i], Fb[i, FAW], Fb[i, FW]
        A0, aw0, w0 = A0 + Fb[i, FR] * d, aw0 + Fb[i, FR] * x, w0 + Fb[i, FR] * y
        A1, aw1, w1 = A1 + Fb[i, FR + 1] * d, aw1 + Fb[i, FR + 1] * x, w1 + Fb[i, FR + 1] * y
        A2, aw2, w2 = A2 + Fb[i, FR + 2] * d, aw2 + Fb[i, FR + 2] * x, w2 + Fb[i, FR + 2] * y
    # the products of the constant matrices with E (z_v = M_vv E, z_w, t_vw = M_vw E,
    # t_wv = M_wv E)
    for a in range(ne):
        W[ZV, a] = W[ZW, a] = W[TVW, a] = W[TWV, a] = 0.0
    _csr_mv(cptr, ccol, cval, MVV, b, ne, q, e0, 1.0, W, ZV)
    _csr_mv(cptr, ccol, cval, MWW, b, ne, q, e0, 1.0, W, ZW)
    _csr_mv(cptr, ccol, cval, MVW, b, ne, q, e0, 1.0, W, TVW)
    _csr_mv(cptr, ccol, cval, MWV, b, ne, q, e0, 1.0, W, TWV)
    nv, nw, nvx, nwx, nph = lvec[0], lvec[1], lvec[2], lvec[3], lvec[4]
    ev = ew = evd = ewd = exv = exw = xvd = xwd = phd = 0.0
    vv = ww = vw = vvd = wwd = wvd = vwd = 0.0
    for a in range(ne):
        e, ed = q[e0 + a], qd[e0 + a]
        ev += nv[a] * e                # sum rho_A v
        ew += nw[a] * e
        evd += nv[a] * ed              # sum rho_A v_d
        ewd += nw[a] * ed
        exv += nvx[a] * e              # sum rho_A x v
        exw += nwx[a] * e
        xvd += nvx[a] * ed
        xwd += nwx[a] * ed
        phd += nph[a] * ed             # sum rho_Ip phi_d
        vv += W[ZV, a] * e             # sum rho_A v v
        ww += W[ZW, a] * e
        vw += W[TVW, a] * e            # sum rho_A v w
        vvd += W[ZV, a] * ed           # sum rho_A v v_d
        wwd += W[ZW, a] * ed
        wvd += W[TVW, a] * ed          # sum rho_A w v_d
        vwd += W[TWV, a] * ed          # sum rho_A v w_d
    m, Ip = lsc[0], lsc[3]
    c0, c1, c2 = lsc[1], ev, ew
    J00, J11, J22 = vv + ww, lsc[2] + ww, lsc[2] + vv
    J01, J02, J12 = -exv, -exw, -vw
    # F = sum rho_A [d; s x d]: d = A + aw x s + w x (w x s) + 2 w x s_d
    x0, x1, x2 = w1 * c2 - w2 * c1, w2 * c0 - w0 * c2, w0 * c1 - w1 * c0        # w x c
    F0 = m * A0 + aw1 * c2 - aw2 * c1 + w1 * x2 - w2 * x1 + 2.0 * (w1 * ewd - w2 * evd)
    F1 = m * A1 + aw2 * c0 - aw0 * c2 + w2 * x0 - w0 * x2 - 2.0 * w0 * ewd
    F2 = m * A2 + aw0 * c1 - aw1 * c0 + w0 * x1 - w1 * x0 + 2.0 * w0 * evd
    # J_s w, then c x A + J_s aw + w x J_s w + 2 (w (s . s_d) - s_d (s . w)) summed
    j0 = J00 * w0 + J01 * w1 + J02 * w2
    j1 = J01 * w0 + J11 * w1 + J12 * w2
    j2 = J02 * w0 + J12 * w1 + J22 * w2
    ssd = vvd + wwd
    q1 = w0 * xvd + w1 * vvd + w2 * wvd
    q2 = w0 * xwd + w1 * vwd + w2 * wwd
    F3 = (c1 * A2 - c2 * A1 + J00 * aw0 + J01 * aw1 + J02 * aw2 + w1 * j2 - w2 * j1
            + 2.0 * w0 * ssd)
    F4 = (c2 * A0 - c0 * A2 + J01 * aw0 + J11 * aw1 + J12 * aw2 + w2 * j0 - w0 * j2
            + 2.0 * (w1 * ssd - q1))
    F5 = (c0 * A1 - c1 * A0 + J02 * aw0 + J12 * aw1 + J22 * aw2 + w0 * j1 - w1 * j0
            + 2.0 * (w2 * ssd - q2))
    # the sections' spin: h += Ip (t . aw) j_t + S Jw^T (w x t), t = R e_x
    S = Ip * w0 + phd
    F3 += Ip * aw0
    F4 += S * w2
    F5 -= S * w1
    # f_e and G (module docstring)
    By, Cy, Dy = aw2 + w0 * w1, -(w0 * w0 + w2 * w2), w1 * w2 - aw0
    Bz, Cz, Dz = w0 * w2 - aw1, aw0 + w1 * w2, -(w0 * w0 + w1 * w1)
    for a in range(ne):
        if forces:
            W[FE, a] = (A1 * nv[a] + By * nvx[a] + Cy * W[ZV, a] + Dy * W[TVW, a]
                        + A2 * nw[a] + Bz * nwx[a] + Cz * W[TWV, a] + Dz * W[ZW, a]
                        + aw0 * nph[a])
        W[G, a] = 0.0
        W[G + 1, a] = nv[a]
        W[G + 2, a] = nw[a]
        W[G + 3, a] = W[TWV, a] - W[TVW, a] + nph[a]
        W[G + 4, a] = -nwx[a]
        W[G + 5, a] = nvx[a]
    if forces:
        _csr_mv(cptr, ccol, cval, AVW, b, ne, qd, e0, -2.0 * w0, W, FE)
    if stiff and forces:           # N(x) = (g_x - a_x) (m_0 + m_out) + w_perp^2 (...)
        _csr_mv(cptr, ccol, cval, K0, b, ne, q, e0, -A0, W, FE)
        _csr_mv(cptr, ccol, cval, K1, b, ne, q, e0, w1 * w1 + w2 * w2, W, FE)
    if full or prod:              # the constant elastic block M_ee
        for a in range(ne):
            for t in range(cptr[MEE, b, a], cptr[MEE, b, a + 1]):
                c, mab = ccol[MEE, b, t], cval[MEE, b, t]
                if full:
                    M[e0 + a, e0 + c] += mab
                if prod:
                    Ma[e0 + a] += mab * a_in[e0 + c]
    # C = [[m I, -[c]x], [[c]x, J + I_p e_x e_x^T]]
    for i in range(6):
        for j in range(6):
            W[C + i, j] = 0.0
    for i in range(3):
        W[C + i, i] = m
    W[C, 4], W[C, 5], W[C + 1, 3] = c2, -c1, -c2
    W[C + 1, 5], W[C + 2, 3], W[C + 2, 4] = c0, c1, -c0
    W[C + 4, 0], W[C + 5, 0], W[C + 3, 1] = c2, -c1, -c2
    W[C + 5, 1], W[C + 3, 2], W[C + 4, 2] = c0, c1, -c0
    W[C + 3, 3], W[C + 4, 4], W[C + 5, 5] = J00 + Ip, J11, J22
    W[C + 3, 4], W[C + 3, 5], W[C + 4, 5] = J01, J02, J12
    W[C + 4, 3], W[C + 5, 3], W[C + 5, 4] = J01, J02, J12
    for n in range(nc if forces else 0):
        r[cols[n]] += (W[0, n] * F0 + W[1, n] * F1 + W[2, n] * F2 + W[3, n] * F3
                       + W[4, n] * F4 + W[5, n] * F5)
    for a in range(ne if forces else 0):
        r[e0 + a] += W[FE, a]
    if full:
        for n in range(nc):
            for i in range(6):
                s = 0.0
                for j in range(6):
                    s += W[C + i, j] * W[j, n]
                W[CU + i, n] = s
        for n1 in range(nc):
            k1 = cols[n1]
            for n2 in range(nc):
                s = 0.0
                for i in range(6):
                    s += W[i, n1] * W[CU + i, n2]
                M[k1, cols[n2]] += s
            for a in range(ne):
                s = 0.0
                for i in range(1, 6):          # G's first row is zero
                    s += W[i, n1] * W[G + i, a]
                M[k1, e0 + a] += s
                M[e0 + a, k1] += s
    if prod:
        for i in range(6):
            W[UA, i] = 0.0
        for n in range(nc):
            x = a_in[cols[n]]
            for i in range(6):
                W[UA, i] += W[i, n] * x
        for i in range(6):
            s = 0.0
            for j in range(6):
                s += W[C + i, j] * W[UA, j]
            for a in range(ne):
                s += W[G + i, a] * a_in[e0 + a]
            W[V6, i] = s
        for n in range(nc):
            k = cols[n]
            for i in range(6):
                Ma[k] += W[i, n] * W[V6, i]
        for a in range(ne):
            s = 0.0
            for i in range(6):
                s += W[G + i, a] * W[UA, i]
            Ma[e0 + a] += s


__all__ = ["MATRICES", "SCALARS", "VECTORS", "link_coefficients", "pack_links"]
