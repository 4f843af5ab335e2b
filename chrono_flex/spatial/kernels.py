"""Compiled terms of the spatial model (optional, numba; docs/spatial-link.md §4).

:func:`chrono_flex.spatial.equations.terms` evaluates the virtual-power form of a tree
with numpy: per link a few dozen array operations over its quadrature points, so for the
papers' arms Python's per-operation overhead sets the price. Here the same terms are
written as scalar loops, compiled by numba where it is installed (the ``fast`` extra,
the backend of :func:`chrono_flex.planar.kernels.backend`); the numpy functions stay the
reference this module is tested against (tests/spatial/test_spatial_kernels.py: the
two agree to round-off).

The physics is written once, in :func:`_link`: one link's contribution at its root frame.
In the link's frame (rotation R; U = [R^T Jp; R^T Jw] the frame's 6 x nq Jacobian) the
velocity Jacobian of the section at x is R^T J = [I, -[s]x] U + N E (s = [x, v, w], N =
[0; Nv; Nw], E the link's elastic coordinates), so the quadrature sums of
:mod:`chrono_flex.spatial.equations` become

    M_link = U^T C U + U^T G E + E^T G^T U + E^T M_ee E
    r_link = U^T F + E^T f_e       (r = h - Q_g [+ K_geo e])

with C = [[m I, -[c]x], [[c]x, J + I_p e_x e_x^T]] the link's rigid inertia at its
deformed shape, G = sum [I; [s]x] N rho_A w (+ the twist's row), M_ee the constant
elastic mass, F and f_e the point accelerations less gravity (and the sections' spin
terms) summed the same way. :func:`_tree_pass` walks the tree (frames of
:mod:`chrono_flex.spatial.kinematics`, lumped items of the equations) and asks each
link for M (the full pass, :func:`tree_terms`) or for the product M a (the force-only
pass, :func:`tree_forces`, O(nq) per link); both passes are the same loop.
"""

from collections import namedtuple

import numpy as np

from ..errors import ParameterError
from ..planar.kernels import _jit, _mv, backend

Packed = namedtuple("Packed", "nq parent jkind jidx offset axis mount is_link e0 ne length "
                              "npts px pwA pwIp pw plo pNv pNw pNphi pdNv pdNw m0 m1 mout "
                              "tlo tNv tNw tdNv tdNw tNphi Mee "
                              "item_body item_tip item_rot item_mass item_I g_model")

#: Columns of one point's shape values: the ten dofs of its element.
WIDTH = 10

#: Half-bandwidth of a link's elastic mass M_ee: two nodes of five dofs in an element.
BAND = WIDTH - 1


def _sparse(rows):
    """Per row of the equally shaped dense ``rows`` (npts, n): the first column of the
    nonzero range of any of them and their values over :data:`WIDTH` columns from it."""
    nz = np.zeros(rows[0].shape, dtype=bool)
    for A in rows:
        nz |= A != 0.0
    lo = np.where(nz.any(axis=1), nz.argmax(axis=1), 0)
    lo = np.minimum(lo, max(rows[0].shape[1] - WIDTH, 0)).astype(np.int64)
    hi = np.where(nz.any(axis=1), nz.shape[1] - nz[:, ::-1].argmax(axis=1), 0)
    if np.any(hi - lo > WIDTH):
        raise ParameterError("basis", int((hi - lo).max()), f"a point's shape functions span "
                             f"more than {WIDTH} columns")
    out = []
    for A in rows:
        V = np.zeros((A.shape[0], WIDTH))
        for p in range(A.shape[0]):
            seg = A[p, lo[p]:lo[p] + WIDTH]
            V[p, :seg.size] = seg
        out.append(V)
    return lo, out


def pack(model):
    """Flat arrays of a :class:`~chrono_flex.spatial.equations.SpatialModel` (reduced:
    links clamped at their joints) for :func:`tree_terms` and :func:`tree_forces`."""
    if model.extended:
        raise ParameterError("model", "extended", "must be the reduced model (links clamped)")
    lay = model.layout.bodies
    nb = len(lay)
    npts = np.array([0 if q is None else q.x.size for q in model.quad], dtype=np.int64)
    P = int(max(npts.max(), 1))
    px, pwA, pwIp, pw, m0, m1 = (np.zeros((nb, P)) for _ in range(6))
    plo = np.zeros((nb, P), dtype=np.int64)
    pN = [np.zeros((nb, P, WIDTH)) for _ in range(5)]
    tlo = np.zeros(nb, dtype=np.int64)
    tN = [np.zeros((nb, WIDTH)) for _ in range(5)]
    for i, (bl, qu) in enumerate(zip(lay, model.quad)):
        if qu is None:
            continue
        k = qu.x.size
        px[i, :k], pwA[i, :k], pwIp[i, :k], pw[i, :k] = qu.x, qu.w_rho_A, qu.w_rho_Ip, qu.w
        m0[i, :k], m1[i, :k] = bl.body.beyond(qu.x)
        lo, vals = _sparse((qu.Nv, qu.Nw, qu.Nphi, qu.dNv, qu.dNw))
        plo[i, :k] = lo
        for A, V in zip(pN, vals):
            A[i, :k] = V
        Nv, dNv, _, Nw, dNw, _, Nphi, _ = bl.basis.tip_values
        lo, vals = _sparse((Nv, Nw, dNv, dNw, Nphi))
        tlo[i] = lo[0]
        for A, V in zip(tN, vals):
            A[i] = V[0]
    # the constant elastic block M_ee = sum w (rho_A (Nv^T Nv + Nw^T Nw) + rho_Ip Nphi^T
    # Nphi), row a in Mee[b, a, c] for column a - BAND + c
    nmax = int(max(max(bl.elastic_index.size for bl in lay), 1))
    Mee = np.zeros((nb, nmax, 2 * BAND + 1))
    for i, qu in enumerate(model.quad):
        if qu is None:
            continue
        A = (qu.Nv.T @ (qu.w_rho_A[:, None] * qu.Nv) + qu.Nw.T @ (qu.w_rho_A[:, None] * qu.Nw)
             + qu.Nphi.T @ (qu.w_rho_Ip[:, None] * qu.Nphi))
        rows, cols = np.nonzero(A)
        if rows.size and np.abs(rows - cols).max() > BAND:
            raise ParameterError("basis", int(np.abs(rows - cols).max()),
                                 f"M_ee wider than its band {BAND}")
        Mee[i, rows, cols - rows + BAND] = A[rows, cols]
    its = model.items
    item_I = np.zeros((len(its), 3, 3))
    for k, it in enumerate(its):
        if it.kind == "rotor":
            item_I[k] = it.value
    return Packed(
        model.nq, np.array([bl.parent for bl in lay], dtype=np.int64),
        np.array([("revolute", "prismatic", "fixed").index(bl.joint.kind) for bl in lay],
                 dtype=np.int64),
        np.array([-1 if bl.joint_index is None else bl.joint_index for bl in lay],
                 dtype=np.int64),
        np.array([bl.joint.offset for bl in lay], dtype=float),
        np.array([getattr(bl.joint, "axis", (1.0, 0.0, 0.0)) for bl in lay], dtype=float),
        np.array([bl.joint.mount for bl in lay], dtype=float),
        np.array([1 if bl.is_link else 0 for bl in lay], dtype=np.int64),
        np.array([bl.elastic_index[0] if bl.elastic_index.size else 0 for bl in lay],
                 dtype=np.int64),
        np.array([bl.elastic_index.size for bl in lay], dtype=np.int64),
        np.array([bl.basis.length if bl.is_link else 0.0 for bl in lay]),
        npts, px, pwA, pwIp, pw, plo, *pN, m0, m1, np.asarray(model.outboard_mass, float),
        tlo, *tN, Mee,
        np.array([it.body for it in its], dtype=np.int64),
        np.array([it.where != "root" for it in its], dtype=np.int64),
        np.array([it.kind == "rotor" for it in its], dtype=np.int64),
        np.array([it.value if it.kind == "mass" else 0.0 for it in its], dtype=float),
        item_I, np.asarray(model.g_vec, dtype=float))


@_jit
def _mm(A, B):
    """A B by plain loops (numba's ``@`` calls the BLAS: :func:`chrono_flex.planar.kernels._mv`)."""
    n, m = A.shape
    out = np.zeros((n, B.shape[1]))
    for i in range(n):
        for k in range(m):
            a = A[i, k]
            if a != 0.0:
                for j in range(B.shape[1]):
                    out[i, j] += a * B[k, j]
    return out


@_jit
def _cross(a, b):
    return np.array((a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]))


@_jit
def _cross_columns(J, v, out, scale):
    """out[:, k] += scale * (J[:, k] x v) for every column k (J, out (3, nq))."""
    for k in range(J.shape[1]):
        j0, j1, j2 = J[0, k], J[1, k], J[2, k]
        if j0 == 0.0 and j1 == 0.0 and j2 == 0.0:
            continue
        out[0, k] += scale * (j1 * v[2] - j2 * v[1])
        out[1, k] += scale * (j2 * v[0] - j0 * v[2])
        out[2, k] += scale * (j0 * v[1] - j1 * v[0])


@_jit
def _rotation(a, t):
    """Rot(a, t) (Rodrigues; :func:`chrono_flex.spatial.params.rotation`)."""
    c, s = np.cos(t), np.sin(t)
    R = np.empty((3, 3))
    ax = np.array(((0.0, -a[2], a[1]), (a[2], 0.0, -a[0]), (-a[1], a[0], 0.0)))
    for i in range(3):
        for j in range(3):
            R[i, j] = (1 - c) * a[i] * a[j] + s * ax[i, j] + (c if i == j else 0.0)
    return R


@_jit
def _child_frame(P, b, q, qd, p, Jp, ap, R, Jw, aw, w):
    """The parent's attachment frame (p, Jp, ap, R, Jw, aw, w; copies) made body b's root
    frame in place (:func:`chrono_flex.spatial.kinematics.child_frame`: the shift by the
    joint's offset, then the revolute, prismatic or fixed joint)."""
    off = P.offset[b]
    if off[0] != 0.0 or off[1] != 0.0 or off[2] != 0.0:
        o = _mv(R, off)
        p += o
        _cross_columns(Jw, o, Jp, 1.0)
        ap += _cross(aw, o) + _cross(w, _cross(w, o))
    kind, j = P.jkind[b], P.jidx[b]
    u = _mv(R, P.axis[b])
    if kind == 0:
        for r in range(3):
            Jw[r, j] += u[r]
        aw += _cross(w, u) * qd[j]
        w += u * qd[j]
        Rn = _mm(_mm(R, _rotation(P.axis[b], q[j])), P.mount[b])
    else:
        if kind == 1:
            d, dd = q[j], qd[j]
            wu = _cross(w, u)
            _cross_columns(Jw, u, Jp, d)
            for r in range(3):
                Jp[r, j] += u[r]
            ap += d * (_cross(aw, u) + _cross(w, wu)) + 2.0 * dd * wu
            p += d * u
        Rn = _mm(R, P.mount[b])
    R[:, :] = Rn


@_jit
def _tip_frame(P, b, q, qd, p, Jp, ap, R, Jw, aw, w):
    """Link b's root frame made its deformed tip frame in place
    (:func:`chrono_flex.spatial.kinematics.station_frame` at x = L)."""
    e0, lo = P.e0[b], P.tlo[b]
    vL = wL = vd = wd = 0.0
    th = np.zeros(3)
    thd = np.zeros(3)
    for k in range(WIDTH):
        i = e0 + lo + k
        if i >= e0 + P.ne[b]:
            break
        vL += P.tNv[b, k] * q[i]
        wL += P.tNw[b, k] * q[i]
        vd += P.tNv[b, k] * qd[i]
        wd += P.tNw[b, k] * qd[i]
        th[0] += P.tdNv[b, k] * q[i]
        th[1] -= P.tdNw[b, k] * q[i]
        th[2] += P.tNphi[b, k] * q[i]
        thd[0] += P.tdNv[b, k] * qd[i]
        thd[1] -= P.tdNw[b, k] * qd[i]
        thd[2] += P.tNphi[b, k] * qd[i]
    Rs = _mv(R, np.array((P.length[b], vL, wL)))
    Rsd = _mv(R, np.array((0.0, vd, wd)))
    p += Rs
    _cross_columns(Jw, Rs, Jp, 1.0)
    ap += _cross(aw, Rs) + _cross(w, _cross(w, Rs)) + 2.0 * _cross(w, Rsd)
    ca, sa, cb, sb = np.cos(th[0]), np.sin(th[0]), np.cos(th[1]), np.sin(th[1])
    cc, sc = np.cos(th[2]), np.sin(th[2])
    Rz = np.array(((ca, -sa, 0.0), (sa, ca, 0.0), (0.0, 0.0, 1.0)))
    Ry = np.array(((cb, 0.0, sb), (0.0, 1.0, 0.0), (-sb, 0.0, cb)))
    Rx = np.array(((1.0, 0.0, 0.0), (0.0, cc, -sc), (0.0, sc, cc)))
    T = np.array(((0.0, -sa, ca * cb), (0.0, ca, sa * cb), (1.0, 0.0, -sb)))
    RT = _mm(R, T)
    for k in range(WIDTH):
        i = e0 + lo + k
        if i >= e0 + P.ne[b]:
            break
        for r in range(3):
            Jp[r, i] += R[r, 1] * P.tNv[b, k] + R[r, 2] * P.tNw[b, k]
            Jw[r, i] += (RT[r, 0] * P.tdNv[b, k] - RT[r, 1] * P.tdNw[b, k]
                         + RT[r, 2] * P.tNphi[b, k])
    wrel = _mv(RT, thd)
    ez = np.array((0.0, 0.0, 1.0))
    t2, t3 = T[:, 1].copy(), T[:, 2].copy()
    rate = thd[0] * thd[1] * _cross(ez, t2) + thd[2] * _cross(thd[0] * ez + thd[1] * t2, t3)
    aw += _cross(w, wrel) + _mv(R, rate)
    w += wrel
    R[:, :] = _mm(R, _mm(_mm(Rz, Ry), Rx))


@_jit
def _link(P, b, q, qd, g, stiff, Jp, ap, R, Jw, aw, w, M, a_in, Ma, r):
    """Link b's terms at its root frame (the module docstring's M_link, r_link), added
    to r and to M (when M is nq x nq) and to Ma = M a_in (when a_in has nq entries)."""
    nq = q.shape[0]
    e0, ne = P.e0[b], P.ne[b]
    full = M.shape[0] == nq
    prod = a_in.shape[0] == nq
    RT = R.T.copy()
    U = np.zeros((6, nq))
    U[:3] = _mm(RT, Jp)
    U[3:] = _mm(RT, Jw)
    cols = np.empty(nq, dtype=np.int64)
    nc = 0
    for k in range(nq):
        if (U[0, k] != 0.0 or U[1, k] != 0.0 or U[2, k] != 0.0 or U[3, k] != 0.0
                or U[4, k] != 0.0 or U[5, k] != 0.0):
            cols[nc] = k
            nc += 1
    apl, awl, wl, gl = _mv(RT, ap), _mv(RT, aw), _mv(RT, w), _mv(RT, g)
    w0, w1, w2 = wl[0], wl[1], wl[2]
    G = np.zeros((6, ne))
    fe = np.zeros(ne)
    F = np.zeros(6)
    m = c0 = c1 = c2 = J00 = J11 = J22 = J01 = J02 = J12 = Ip = S = 0.0
    # axial force N(x) = ga m0(x) + wp2 m1(x) + tip_N (equations.axial_force)
    wp2 = w1 * w1 + w2 * w2
    ga = gl[0] - apl[0]
    tip_N = P.mout[b] * (ga + wp2 * P.length[b])
    wN = sv = sw = 0.0
    for pt in range(P.npts[b]):
        lo = e0 + P.plo[b, pt]
        wA, wIp, x = P.pwA[b, pt], P.pwIp[b, pt], P.px[b, pt]
        v = wv = vd = wd = phd = 0.0
        hi = min(WIDTH, e0 + ne - lo)
        for k in range(hi):
            v += P.pNv[b, pt, k] * q[lo + k]
            wv += P.pNw[b, pt, k] * q[lo + k]
            vd += P.pNv[b, pt, k] * qd[lo + k]
            wd += P.pNw[b, pt, k] * qd[lo + k]
            phd += P.pNphi[b, pt, k] * qd[lo + k]
        s0, s1, s2 = x, v, wv
        # a = ap + aw x s + w x (w x s) + 2 w x sd, less gravity (kinematics.points)
        ws0, ws1, ws2 = w1 * s2 - w2 * s1, w2 * s0 - w0 * s2, w0 * s1 - w1 * s0
        d0 = (apl[0] + awl[1] * s2 - awl[2] * s1 + w1 * ws2 - w2 * ws1
              + 2.0 * (w1 * wd - w2 * vd) - gl[0])
        d1 = (apl[1] + awl[2] * s0 - awl[0] * s2 + w2 * ws0 - w0 * ws2
              + 2.0 * (-w0 * wd) - gl[1])
        d2 = (apl[2] + awl[0] * s1 - awl[1] * s0 + w0 * ws1 - w1 * ws0
              + 2.0 * (w0 * vd) - gl[2])
        F[0] += wA * d0
        F[1] += wA * d1
        F[2] += wA * d2
        F[3] += wA * (s1 * d2 - s2 * d1)
        F[4] += wA * (s2 * d0 - s0 * d2)
        F[5] += wA * (s0 * d1 - s1 * d0)
        m += wA
        c0 += wA * s0
        c1 += wA * s1
        c2 += wA * s2
        J00 += wA * (s1 * s1 + s2 * s2)
        J11 += wA * (s0 * s0 + s2 * s2)
        J22 += wA * (s0 * s0 + s1 * s1)
        J01 -= wA * s0 * s1
        J02 -= wA * s0 * s2
        J12 -= wA * s1 * s2
        Ip += wIp
        S += wIp * (w0 + phd)
        if stiff:
            N = ga * P.m0[b, pt] + wp2 * P.m1[b, pt] + tip_N
            sv = sw = 0.0
            for k in range(hi):
                sv += P.pdNv[b, pt, k] * q[lo + k]
                sw += P.pdNw[b, pt, k] * q[lo + k]
            wN = P.pw[b, pt] * N
        for k in range(hi):
            nv, nw, nph = P.pNv[b, pt, k], P.pNw[b, pt, k], P.pNphi[b, pt, k]
            a = lo - e0 + k
            fe[a] += wA * (nv * d1 + nw * d2) + wIp * nph * awl[0]
            G[1, a] += wA * nv
            G[2, a] += wA * nw
            G[3, a] += wA * (s1 * nw - s2 * nv) + wIp * nph
            G[4, a] -= wA * s0 * nw
            G[5, a] += wA * s0 * nv
            if stiff:
                fe[a] += wN * (P.pdNv[b, pt, k] * sv + P.pdNw[b, pt, k] * sw)
    if full or prod:              # the constant elastic block E^T M_ee E (packed)
        for a in range(ne):
            for c in range(max(0, BAND - a), min(2 * BAND + 1, ne - a + BAND)):
                mab = P.Mee[b, a, c]
                if full:
                    M[e0 + a, e0 + a - BAND + c] += mab
                if prod:
                    Ma[e0 + a] += mab * a_in[e0 + a - BAND + c]
    # the sections' spin: h += Ip (t . aw) j_t + S Jw^T (w x t), t = R e_x
    F[3] += Ip * awl[0]
    F[4] += S * w2
    F[5] -= S * w1
    C = np.array(((m, 0.0, 0.0, 0.0, c2, -c1), (0.0, m, 0.0, -c2, 0.0, c0),
                  (0.0, 0.0, m, c1, -c0, 0.0), (0.0, -c2, c1, J00 + Ip, J01, J02),
                  (c2, 0.0, -c0, J01, J11, J12), (-c1, c0, 0.0, J02, J12, J22)))
    for n in range(nc):
        k = cols[n]
        r[k] += (U[0, k] * F[0] + U[1, k] * F[1] + U[2, k] * F[2] + U[3, k] * F[3]
                 + U[4, k] * F[4] + U[5, k] * F[5])
    for a in range(ne):
        r[e0 + a] += fe[a]
    if full:
        CU = np.zeros((6, nq))
        for n in range(nc):
            k = cols[n]
            for i in range(6):
                s = 0.0
                for j in range(6):
                    s += C[i, j] * U[j, k]
                CU[i, k] = s
        for n1 in range(nc):
            k1 = cols[n1]
            for n2 in range(nc):
                k2 = cols[n2]
                s = 0.0
                for i in range(6):
                    s += U[i, k1] * CU[i, k2]
                M[k1, k2] += s
            for a in range(ne):
                s = 0.0
                for i in range(6):
                    s += U[i, k1] * G[i, a]
                M[k1, e0 + a] += s
                M[e0 + a, k1] += s
    if prod:
        ua = np.zeros(6)
        for n in range(nc):
            k = cols[n]
            for i in range(6):
                ua[i] += U[i, k] * a_in[k]
        v6 = _mv(C, ua)
        for i in range(6):
            for a in range(ne):
                v6[i] += G[i, a] * a_in[e0 + a]
        for n in range(nc):
            k = cols[n]
            for i in range(6):
                Ma[k] += U[i, k] * v6[i]
        for a in range(ne):
            s = 0.0
            for i in range(6):
                s += G[i, a] * ua[i]
            Ma[e0 + a] += s


@_jit
def _item(P, t, Jp, ap, R, Jw, aw, w, g, M, a_in, Ma, r):
    """A lumped item on its frame (equations.terms): a mass m (M += m Jp^T Jp, r += m
    Jp^T (ap - g)) or a rotor I = R I_0 R^T (M += Jw^T I Jw, r += Jw^T (I aw + w x I w))."""
    nq = r.shape[0]
    full = M.shape[0] == nq
    prod = a_in.shape[0] == nq
    if P.item_rot[t] == 1:
        I = _mm(_mm(R, P.item_I[t]), R.T.copy())
        J, acc = Jw, _mv(I, aw) + _cross(w, _mv(I, w))
    else:
        I = P.item_mass[t] * np.eye(3)
        J, acc = Jp, P.item_mass[t] * (ap - g)
    IJ = _mm(I, J)
    for k in range(nq):
        if J[0, k] == 0.0 and J[1, k] == 0.0 and J[2, k] == 0.0:
            continue
        r[k] += J[0, k] * acc[0] + J[1, k] * acc[1] + J[2, k] * acc[2]
        if full:
            for l in range(nq):
                M[k, l] += J[0, k] * IJ[0, l] + J[1, k] * IJ[1, l] + J[2, k] * IJ[2, l]
    if prod:
        v = _mv(IJ, a_in)
        for k in range(nq):
            Ma[k] += J[0, k] * v[0] + J[1, k] * v[1] + J[2, k] * v[2]


@_jit
def _tree_pass(P, q, qd, g, stiff, full, a_in, terms):
    """(M or an empty matrix, M a_in or zeros, r, positions (2, nb, 3), rotations (2, nb,
    3, 3)) of the tree at (q, q_d): the frames from the base to the leaves (root: 0,
    attachment: 1), each link's :func:`_link` and the lumped items (when ``terms``)."""
    nq = P.nq
    nb = P.parent.shape[0]
    M = np.zeros((nq, nq)) if full else np.zeros((0, 0))
    Ma = np.zeros(nq)
    r = np.zeros(nq)
    # the root (0) and attachment (1) frame of every body
    fp, fap = np.zeros((2, nb, 3)), np.zeros((2, nb, 3))
    faw, fw = np.zeros((2, nb, 3)), np.zeros((2, nb, 3))
    fJp, fJw = np.zeros((2, nb, 3, nq)), np.zeros((2, nb, 3, nq))
    fR = np.zeros((2, nb, 3, 3))
    for b in range(nb):
        pa = P.parent[b]
        if pa < 0:
            p, ap, aw, w = np.zeros(3), np.zeros(3), np.zeros(3), np.zeros(3)
            Jp, Jw, R = np.zeros((3, nq)), np.zeros((3, nq)), np.eye(3)
        else:
            p, ap, aw, w = fp[1, pa].copy(), fap[1, pa].copy(), faw[1, pa].copy(), \
                fw[1, pa].copy()
            Jp, Jw, R = fJp[1, pa].copy(), fJw[1, pa].copy(), fR[1, pa].copy()
        _child_frame(P, b, q, qd, p, Jp, ap, R, Jw, aw, w)
        for f in range(2):
            if f == 1 and P.is_link[b] == 1:
                if terms:
                    _link(P, b, q, qd, g, stiff, Jp, ap, R, Jw, aw, w, M, a_in, Ma, r)
                _tip_frame(P, b, q, qd, p, Jp, ap, R, Jw, aw, w)
            fp[f, b], fap[f, b], faw[f, b], fw[f, b] = p, ap, aw, w
            fJp[f, b], fJw[f, b], fR[f, b] = Jp, Jw, R
    for t in range(P.item_body.shape[0] if terms else 0):
        f, b = P.item_tip[t], P.item_body[t]
        _item(P, t, fJp[f, b], fap[f, b], fR[f, b], fJw[f, b], faw[f, b], fw[f, b], g, M,
              a_in, Ma, r)
    return M, Ma, r, fp, fR


@_jit
def _tree_terms(P, q, qd, g, stiff):
    """(M, r) at (q, q_d): the full pass (the signature of the planar chain kernel)."""
    M, _, r, _, _ = _tree_pass(P, q, qd, g, stiff, True, np.zeros(0), True)
    return M, r


@_jit
def _tree_forces(P, q, qd, g, stiff, a_in):
    """(M a_in, r) at (q, q_d) without forming M (zeros for M a_in when a_in is empty)."""
    _, Ma, r, _, _ = _tree_pass(P, q, qd, g, stiff, False, a_in, True)
    return Ma, r


def _f(v):
    return np.ascontiguousarray(v, dtype=float)


def tree_terms(packed, q, qd, g, stiff):
    """(M, r) with r = h - Q_g [+ K_geo e] at (q, q_d), gravity g (3,) (needs numba; the
    numpy twin is :func:`chrono_flex.spatial.equations.terms`)."""
    return _tree_terms(packed, _f(q), _f(qd), _f(g), bool(stiff))


def tree_forces(packed, q, qd, g, stiff, a=None):
    """(M a, r) at (q, q_d) without forming M; without ``a``, (zeros, r)."""
    return _tree_forces(packed, _f(q), _f(qd), _f(g), bool(stiff),
                        np.zeros(0) if a is None else _f(a))


def packed_model(model):
    """The model's packed arrays (made once and kept on it), or None where the kernels
    do not run: the numpy backend (:func:`chrono_flex.planar.kernels.backend`) or an
    extended model."""
    if backend() != "numba" or model.extended:
        return None
    if getattr(model, "_packed", None) is None:
        model._packed = pack(model)
    return model._packed





@_jit
def _tree_frames(P, Q, QD):
    """Positions (nt, 2, nb, 3) and rotations (nt, 2, nb, 3, 3) of the root (0) and
    attachment (1) frames of every body at each row of Q (nt, nq), from
    :func:`_tree_pass`; with rows in QD also the kinetic energy T = 1/2 q_d . M q_d at
    each (the same pass), else zeros."""
    nt, nq = Q.shape
    nb = P.parent.shape[0]
    pos = np.zeros((nt, 2, nb, 3))
    rot = np.zeros((nt, 2, nb, 3, 3))
    T = np.zeros(nt)
    no_g = np.zeros(3)
    for t in range(nt):
        kinetic = QD.shape[0] == nt
        qd = QD[t].copy() if kinetic else np.zeros(nq)
        _, Mqd, _, fp, fR = _tree_pass(P, Q[t].copy(), qd, no_g, False, False,
                                       qd if kinetic else np.zeros(0), kinetic)
        pos[t], rot[t] = fp, fR
        s = 0.0
        for j in range(nq if kinetic else 0):
            s += qd[j] * Mqd[j]
        T[t] = 0.5 * s
    return pos, rot, T


def tree_frames(packed, Q, QD=None):
    """(positions (nt, 2, nb, 3), rotations (nt, 2, nb, 3, 3), kinetic energies (nt,))
    of the root (index 0) and attachment (1) frames of every body at the rows of Q
    (nt, nq), the kinetic energies at the rates QD (zeros without them) (needs numba;
    the numpy twins are :func:`chrono_flex.spatial.kinematics.tree_frames` and
    :func:`chrono_flex.spatial.equations.kinetic_energy`)."""
    Q = np.ascontiguousarray(np.atleast_2d(Q), dtype=float)
    QD = np.zeros((0, Q.shape[1])) if QD is None else np.ascontiguousarray(QD, dtype=float)
    return _tree_frames(packed, Q, QD)


__all__ = ["pack", "packed_model", "tree_forces", "tree_frames", "tree_terms"]
