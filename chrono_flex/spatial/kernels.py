"""Compiled terms of the spatial model (optional, numba; docs/spatial-link.md §4).

:func:`chrono_flex.spatial.equations.terms` evaluates the virtual-power form of a tree
with numpy: per link a few dozen array operations over its quadrature points, so for the
papers' arms Python's per-operation overhead sets the price. Here the same terms are
written as scalar loops, compiled by numba where it is installed (the ``fast`` extra,
the backend of :func:`chrono_flex.planar.kernels.backend`); the numpy functions stay the
reference this module is tested against (tests/spatial/test_spatial_kernels.py: the
two agree to round-off).

The physics is written once, in :func:`~chrono_flex.spatial.link_coef._link`: one
link's contribution at its root frame. In the link's frame (rotation R; U = [R^T Jp;
R^T Jw] the frame's 6 x nq Jacobian) the velocity Jacobian of the section at x is R^T J
= [I, -[s]x] U + N E (s = [x, v, w], N = [0; Nv; Nw], E the link's elastic
coordinates), so the quadrature sums of :mod:`chrono_flex.spatial.equations` become

    M_link = U^T C U + U^T G E + E^T G^T U + E^T M_ee E
    r_link = U^T F + E^T f_e       (r = h - Q_g [+ K_geo e])

with C the link's rigid inertia at its deformed shape, G its coupling with the elastic
coordinates, M_ee the constant elastic mass, F and f_e the point accelerations less
gravity (and the sections' spin terms) summed the same way; each is a polynomial of
degree two at most in the elastic coordinates and rates whose coefficients, sums over
the link's points, are computed once when the model is packed
(:mod:`chrono_flex.spatial.link_coef`). :func:`_tree_pass` walks the tree (frames of
:mod:`chrono_flex.spatial.kinematics`, lumped items of the equations) and asks each
link for M (the full pass, :func:`tree_terms`) or for the product M a (the force-only
pass, :func:`tree_forces`, O(nq) per link); both passes are the same loop.
"""

from collections import namedtuple

import numpy as np

from ..errors import ParameterError
from ..planar.kernels import _jit, backend, numba
from .link_coef import FAP, FAW, FJ, FP, FR, FW, WORK_ROWS, _link, pack_links

def _inline(fn):
    """:func:`chrono_flex.planar.kernels._jit`, the function inlined where it is called:
    these take the packed arrays, a tuple of some forty arrays, and a call that passes it
    costs about a microsecond (its members' reference counts), more than most of them
    compute."""
    return fn if numba is None else numba.njit(cache=True, inline="always")(fn)


#: The most columns of a link's tip values (the nonzero ones: the dofs of its last node,
#: at most its last element's ten).
WIDTH = 10


#: The packed tree model of :func:`pack`: a few arrays, not one per quantity (a compiled
#: function receiving the tuple counts a reference of every array in it on entry and
#: exit, two atomic operations each, which cost more than much of the pass's arithmetic:
#: docs/performance.md). Per body b: ``bint[b]`` (integers: parent, joint kind, joint
#: coordinate or -1, a link or not, first elastic coordinate, elastic count, tip
#: coordinates' count, ncol0 and ncol1 of :func:`frame_columns`, then the tip
#: coordinates, :data:`WIDTH` of them), ``bflt[b]`` (floats: the joint's offset and
#: axis, the link's length, the joint's mount rotation row by row, then the tip values of
#: Nv, Nw, Nv', Nw', Nphi, :data:`WIDTH` each) and ``fcol[b]`` (:func:`frame_columns`);
#: the links' coefficients lsc, lvec, cptr, ccol, cval and nemax
#: (:func:`chrono_flex.spatial.link_coef.pack_links`); per lumped item t: ``iint[t]``
#: (body, at the tip, rotor) and ``iflt[t]`` (mass, then the rotor's inertia row by
#: row); the model's gravity ``g_model``. The columns are named by the constants below;
#: the kernels index these arrays directly (a view bound to a name costs its reference
#: counts again).
Packed = namedtuple("Packed", "nq bint bflt fcol lsc lvec cptr ccol cval nemax iint iflt "
                              "g_model")
BI_PARENT, BI_JKIND, BI_JIDX, BI_LINK, BI_E0, BI_NE, BI_TN = 0, 1, 2, 3, 4, 5, 6
BI_NCOL0, BI_NCOL1, BI_TCOL = 7, 8, 9
BF_OFF, BF_AXIS, BF_LEN, BF_MOUNT, BF_TN = 0, 3, 6, 7, 16
IT_BODY, IT_TIP, IT_ROT = 0, 1, 2
IF_MASS, IF_I = 0, 1


def _tip_columns(rows):
    """The columns where any of the equally shaped rows (1, n) (a link's tip values) is
    nonzero, and the values of each there, (WIDTH,) zero-padded."""
    nz = np.zeros(rows[0].shape[1], dtype=bool)
    for A in rows:
        nz |= A[0] != 0.0
    cols = np.nonzero(nz)[0]
    if cols.size > WIDTH:
        raise ParameterError("basis", int(cols.size), f"a link's tip values span more than "
                             f"{WIDTH} columns")
    out = []
    for A in rows:
        V = np.zeros(WIDTH)
        V[:cols.size] = A[0, cols]
        out.append(V)
    return cols, out


def frame_columns(model, tcols):
    """The columns of q that the frame Jacobians of each body can fill, as (ncol0 (nb,),
    ncol1 (nb,), fcol (nb, nmax)): the body's root frame depends on the columns of its
    parent's attachment frame and its own joint (ncol0 of them), its attachment frame
    (a link's tip) on those and the link's tip coordinates ``tcols[b]`` (ncol1); fcol[b]
    lists them in that order, so that a child's list begins with its parent's and a
    frame's Jacobians are kept as these columns only (:func:`_tree_pass`)."""
    lay = model.layout.bodies
    lists = []
    ncol0 = np.zeros(len(lay), dtype=np.int64)
    ncol1 = np.zeros(len(lay), dtype=np.int64)
    for b, bl in enumerate(lay):
        if bl.parent >= b:
            raise ParameterError("parents", bl.parent, f"body {b}'s parent must come before it")
        cols = [] if bl.parent < 0 else list(lists[bl.parent])
        if bl.joint_index is not None:
            cols.append(int(bl.joint_index))
        ncol0[b] = len(cols)
        cols += [int(c) for c in tcols[b]]
        ncol1[b] = len(cols)
        lists.append(cols)
    fcol = np.zeros((len(lay), max(int(ncol1.max(initial=0)), 1)), dtype=np.int64)
    for b, cols in enumerate(lists):
        fcol[b, :len(cols)] = cols
    return ncol0, ncol1, fcol


def pack(model):
    """Flat arrays of a :class:`~chrono_flex.spatial.equations.SpatialModel` (reduced:
    links clamped at their joints) for :func:`tree_terms` and :func:`tree_forces`."""
    if model.extended:
        raise ParameterError("model", "extended", "must be the reduced model (links clamped)")
    lay = model.layout.bodies
    nb = len(lay)
    bint = np.zeros((nb, BI_TCOL + WIDTH), dtype=np.int64)
    bflt = np.zeros((nb, BF_TN + 5 * WIDTH))
    tcols = []
    for i, bl in enumerate(lay):
        cols = np.zeros(0, dtype=np.int64)
        if bl.is_link:
            Nv, dNv, _, Nw, dNw, _, Nphi, _ = bl.basis.tip_values
            cols, vals = _tip_columns((Nv, Nw, dNv, dNw, Nphi))
            cols = np.asarray(bl.elastic_index)[cols]
            bint[i, BI_TN] = cols.size
            bint[i, BI_TCOL:BI_TCOL + cols.size] = cols
            bflt[i, BF_TN:] = np.concatenate(vals)
            bflt[i, BF_LEN] = bl.basis.length
        tcols.append(cols)
        bint[i, BI_PARENT] = bl.parent
        bint[i, BI_JKIND] = ("revolute", "prismatic", "fixed").index(bl.joint.kind)
        bint[i, BI_JIDX] = -1 if bl.joint_index is None else bl.joint_index
        bint[i, BI_LINK] = 1 if bl.is_link else 0
        bint[i, BI_E0] = bl.elastic_index[0] if bl.elastic_index.size else 0
        bint[i, BI_NE] = bl.elastic_index.size
        bflt[i, BF_OFF:BF_OFF + 3] = bl.joint.offset
        bflt[i, BF_AXIS:BF_AXIS + 3] = getattr(bl.joint, "axis", (1.0, 0.0, 0.0))
        bflt[i, BF_MOUNT:BF_MOUNT + 9] = np.asarray(bl.joint.mount, dtype=float).ravel()
    ncol0, ncol1, fcol = frame_columns(model, tcols)
    bint[:, BI_NCOL0], bint[:, BI_NCOL1] = ncol0, ncol1
    lsc, lvec, cptr, ccol, cval, nemax = pack_links(model)
    its = model.items
    iint = np.zeros((len(its), 3), dtype=np.int64)
    iflt = np.zeros((len(its), IF_I + 9))
    for k, it in enumerate(its):
        iint[k] = it.body, it.where != "root", it.kind == "rotor"
        if it.kind == "rotor":
            iflt[k, IF_I:] = np.asarray(it.value, dtype=float).ravel()
        elif it.kind == "mass":
            iflt[k, IF_MASS] = it.value
    return Packed(model.nq, bint, bflt, fcol, lsc, lvec, cptr, ccol, cval, nemax, iint, iflt,
                  np.asarray(model.g_vec, dtype=float))


@_jit
def _mm(A, B):
    """A B by plain loops, a new array (numba's ``@`` calls the BLAS)."""
    out = np.zeros((A.shape[0], B.shape[1]))
    for i in range(A.shape[0]):
        for k in range(A.shape[1]):
            for j in range(B.shape[1]):
                out[i, j] += A[i, k] * B[k, j]
    return out


@_jit
def _cross(a, b):
    return np.array((a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]))


@_inline
def _tdot(R, v, i):
    """(R^T v)[i] for a 3 x 3 R and a 3-vector v."""
    return R[0, i] * v[0] + R[1, i] * v[1] + R[2, i] * v[2]


@_inline
def _cross_columns(F, v0, v1, v2, scale, nc):
    """Jp[:, k] += scale * (Jw[:, k] x v) for the columns k < nc of frame F (its
    Jacobians' columns of :data:`FJ`; :func:`_frame_array`)."""
    nf = (F.shape[1] - FJ) // 2
    for k in range(nc):
        j0, j1, j2 = F[0, FJ + nf + k], F[1, FJ + nf + k], F[2, FJ + nf + k]
        if j0 == 0.0 and j1 == 0.0 and j2 == 0.0:
            continue
        F[0, FJ + k] += scale * (j1 * v2 - j2 * v1)
        F[1, FJ + k] += scale * (j2 * v0 - j0 * v2)
        F[2, FJ + k] += scale * (j0 * v1 - j1 * v0)


@_inline
def _times(F, E, e):
    """F's rotation R <- R E[e] in place (E (n, 3, 3))."""
    for i in range(3):
        a0, a1, a2 = F[i, FR], F[i, FR + 1], F[i, FR + 2]
        for j in range(3):
            F[i, FR + j] = a0 * E[e, 0, j] + a1 * E[e, 1, j] + a2 * E[e, 2, j]


@_inline
def _child_frame(Bf, b, kind, j, q, qd, nc, F, E):
    """The parent's attachment frame F (3, 7 + 2 nf) (a copy: position, ap, aw, angular
    velocity w, rotation R, Jacobians Jp and Jw over the nc columns of
    :func:`frame_columns`; :func:`_frame_array`) made body b's root frame in place
    (:func:`chrono_flex.spatial.kinematics.child_frame`: the shift by the joint's offset,
    then the revolute (``kind`` 0), prismatic (1) or fixed joint (2) of coordinate j and
    axis a, whose column is the next, nc, and the joint's mount rotation; the offset,
    axis and mount read from row b of the packed floats Bf (:data:`Packed`'s ``bflt``),
    not the packed tuple, and the frame as one array read by index, not as views of its
    parts: every array passed or view taken costs its reference counts); E a (2, 3, 3)
    scratch."""
    f0, f1, f2 = Bf[b, BF_OFF], Bf[b, BF_OFF + 1], Bf[b, BF_OFF + 2]
    if f0 != 0.0 or f1 != 0.0 or f2 != 0.0:
        o0 = F[0, FR] * f0 + F[0, FR + 1] * f1 + F[0, FR + 2] * f2
        o1 = F[1, FR] * f0 + F[1, FR + 1] * f1 + F[1, FR + 2] * f2
        o2 = F[2, FR] * f0 + F[2, FR + 1] * f1 + F[2, FR + 2] * f2
        F[0, FP], F[1, FP], F[2, FP] = F[0, FP] + o0, F[1, FP] + o1, F[2, FP] + o2
        _cross_columns(F, o0, o1, o2, 1.0, nc)
        w0, w1, w2 = F[0, FW], F[1, FW], F[2, FW]
        x0, x1, x2 = w1 * o2 - w2 * o1, w2 * o0 - w0 * o2, w0 * o1 - w1 * o0
        F[0, FAP] += F[1, FAW] * o2 - F[2, FAW] * o1 + w1 * x2 - w2 * x1
        F[1, FAP] += F[2, FAW] * o0 - F[0, FAW] * o2 + w2 * x0 - w0 * x2
        F[2, FAP] += F[0, FAW] * o1 - F[1, FAW] * o0 + w0 * x1 - w1 * x0
    a0, a1, a2 = Bf[b, BF_AXIS], Bf[b, BF_AXIS + 1], Bf[b, BF_AXIS + 2]
    u0 = F[0, FR] * a0 + F[0, FR + 1] * a1 + F[0, FR + 2] * a2
    u1 = F[1, FR] * a0 + F[1, FR + 1] * a1 + F[1, FR + 2] * a2
    u2 = F[2, FR] * a0 + F[2, FR + 1] * a1 + F[2, FR + 2] * a2
    w0, w1, w2 = F[0, FW], F[1, FW], F[2, FW]
    wu0, wu1, wu2 = w1 * u2 - w2 * u1, w2 * u0 - w0 * u2, w0 * u1 - w1 * u0
    nf = (F.shape[1] - FJ) // 2
    if kind == 0:
        d = qd[j]
        F[0, FJ + nf + nc], F[1, FJ + nf + nc], F[2, FJ + nf + nc] = u0, u1, u2
        F[0, FJ + nc] = F[1, FJ + nc] = F[2, FJ + nc] = 0.0
        F[0, FAW], F[1, FAW], F[2, FAW] = (F[0, FAW] + wu0 * d, F[1, FAW] + wu1 * d,
                                           F[2, FAW] + wu2 * d)
        F[0, FW], F[1, FW], F[2, FW] = w0 + u0 * d, w1 + u1 * d, w2 + u2 * d
        # R <- R Rot(a, t) mount, Rot = (1 - c) a a^T + s [a]x + c I (params.rotation)
        c, s = np.cos(q[j]), np.sin(q[j])
        for i in range(3):
            for k in range(3):
                E[0, i, k] = ((1 - c) * Bf[b, BF_AXIS + i] * Bf[b, BF_AXIS + k]
                              + (c if i == k else 0.0))
        E[0, 0, 1] -= s * a2
        E[0, 0, 2] += s * a1
        E[0, 1, 0] += s * a2
        E[0, 1, 2] -= s * a0
        E[0, 2, 0] -= s * a1
        E[0, 2, 1] += s * a0
        _times(F, E, 0)
    elif kind == 1:
        d, dd = q[j], qd[j]
        _cross_columns(F, u0, u1, u2, d, nc)
        F[0, FJ + nc], F[1, FJ + nc], F[2, FJ + nc] = u0, u1, u2
        F[0, FJ + nf + nc] = F[1, FJ + nf + nc] = F[2, FJ + nf + nc] = 0.0
        aw0, aw1, aw2 = F[0, FAW], F[1, FAW], F[2, FAW]
        F[0, FAP] += d * (aw1 * u2 - aw2 * u1 + w1 * wu2 - w2 * wu1) + 2.0 * dd * wu0
        F[1, FAP] += d * (aw2 * u0 - aw0 * u2 + w2 * wu0 - w0 * wu2) + 2.0 * dd * wu1
        F[2, FAP] += d * (aw0 * u1 - aw1 * u0 + w0 * wu1 - w1 * wu0) + 2.0 * dd * wu2
        F[0, FP], F[1, FP], F[2, FP] = F[0, FP] + d * u0, F[1, FP] + d * u1, F[2, FP] + d * u2
    for i in range(3):
        for k in range(3):
            E[1, i, k] = Bf[b, BF_MOUNT + 3 * i + k]
    _times(F, E, 1)


@_inline
def _tip_frame(Bi, Bf, b, q, qd, nc, F):
    """Link b's root frame F (:func:`_frame_array`) made its deformed tip frame in place
    (Jacobians over the nc columns of the root frame, the link's tip coordinates the
    next ones, their values of Nv, Nw, Nv', Nw', Nphi at x = L, the link's length: row b
    of the packed integers Bi and floats Bf, :data:`Packed`'s ``bint`` and ``bflt``;
    :func:`chrono_flex.spatial.kinematics.station_frame` at x = L), in scalars:
    s = R [L, v, w], s_d = R [0, v_d, w_d], the tip rotation R T(theta) (T's columns:
    the rates' axes) and R Rz Ry Rx."""
    nf = (F.shape[1] - FJ) // 2
    tn, L = Bi[b, BI_TN], Bf[b, BF_LEN]
    vL = wL = vd = wd = 0.0
    th0 = th1 = th2 = thd0 = thd1 = thd2 = 0.0
    for k in range(tn):
        i = Bi[b, BI_TCOL + k]
        n0, n1, n2 = Bf[b, BF_TN + k], Bf[b, BF_TN + WIDTH + k], Bf[b, BF_TN + 2 * WIDTH + k]
        n3, n4 = Bf[b, BF_TN + 3 * WIDTH + k], Bf[b, BF_TN + 4 * WIDTH + k]
        vL += n0 * q[i]
        wL += n1 * q[i]
        vd += n0 * qd[i]
        wd += n1 * qd[i]
        th0 += n2 * q[i]
        th1 -= n3 * q[i]
        th2 += n4 * q[i]
        thd0 += n2 * qd[i]
        thd1 -= n3 * qd[i]
        thd2 += n4 * qd[i]
    s0 = F[0, FR] * L + F[0, FR + 1] * vL + F[0, FR + 2] * wL
    s1 = F[1, FR] * L + F[1, FR + 1] * vL + F[1, FR + 2] * wL
    s2 = F[2, FR] * L + F[2, FR + 1] * vL + F[2, FR + 2] * wL
    u0 = F[0, FR + 1] * vd + F[0, FR + 2] * wd
    u1 = F[1, FR + 1] * vd + F[1, FR + 2] * wd
    u2 = F[2, FR + 1] * vd + F[2, FR + 2] * wd
    F[0, FP] += s0
    F[1, FP] += s1
    F[2, FP] += s2
    _cross_columns(F, s0, s1, s2, 1.0, nc)
    w0, w1, w2 = F[0, FW], F[1, FW], F[2, FW]
    aw0, aw1, aw2 = F[0, FAW], F[1, FAW], F[2, FAW]
    x0, x1, x2 = w1 * s2 - w2 * s1, w2 * s0 - w0 * s2, w0 * s1 - w1 * s0      # w x s
    F[0, FAP] += (aw1 * s2 - aw2 * s1) + (w1 * x2 - w2 * x1) + 2.0 * (w1 * u2 - w2 * u1)
    F[1, FAP] += (aw2 * s0 - aw0 * s2) + (w2 * x0 - w0 * x2) + 2.0 * (w2 * u0 - w0 * u2)
    F[2, FAP] += (aw0 * s1 - aw1 * s0) + (w0 * x1 - w1 * x0) + 2.0 * (w0 * u1 - w1 * u0)
    ca, sa, cb, sb = np.cos(th0), np.sin(th0), np.cos(th1), np.sin(th1)
    cc, sc = np.cos(th2), np.sin(th2)
    # T = [[0, -sa, ca cb], [0, ca, sa cb], [1, 0, -sb]], RT = R T, wrel = RT thd
    rate0 = -thd0 * thd1 * ca + thd2 * (thd1 * ca * (-sb) - thd0 * sa * cb)
    rate1 = -thd0 * thd1 * sa + thd2 * (thd0 * ca * cb - thd1 * sa * sb)
    rate2 = thd2 * (-thd1 * sa * sa * cb - thd1 * ca * ca * cb)
    wr0 = wr1 = wr2 = 0.0
    for r in range(3):
        R0, R1, R2 = F[r, FR], F[r, FR + 1], F[r, FR + 2]
        rt0 = R2
        rt1 = -sa * R0 + ca * R1
        rt2 = ca * cb * R0 + sa * cb * R1 - sb * R2
        for k in range(tn):
            F[r, FJ + nc + k] = R1 * Bf[b, BF_TN + k] + R2 * Bf[b, BF_TN + WIDTH + k]
            F[r, FJ + nf + nc + k] = (rt0 * Bf[b, BF_TN + 2 * WIDTH + k]
                                      - rt1 * Bf[b, BF_TN + 3 * WIDTH + k]
                                      + rt2 * Bf[b, BF_TN + 4 * WIDTH + k])
        wr = rt0 * thd0 + rt1 * thd1 + rt2 * thd2
        if r == 0:
            wr0 = wr
        elif r == 1:
            wr1 = wr
        else:
            wr2 = wr
    for r in range(3):
        F[r, FAW] += F[r, FR] * rate0 + F[r, FR + 1] * rate1 + F[r, FR + 2] * rate2
    F[0, FAW] += w1 * wr2 - w2 * wr1
    F[1, FAW] += w2 * wr0 - w0 * wr2
    F[2, FAW] += w0 * wr1 - w1 * wr0
    F[0, FW] += wr0
    F[1, FW] += wr1
    F[2, FW] += wr2
    # E = Rz(th0) Ry(th1) Rx(th2); R <- R E row by row
    e00, e01, e02 = ca * cb, -sa * cc + ca * sb * sc, sa * sc + ca * sb * cc
    e10, e11, e12 = sa * cb, ca * cc + sa * sb * sc, -ca * sc + sa * sb * cc
    e20, e21, e22 = -sb, cb * sc, cb * cc
    for r in range(3):
        a0, a1, a2 = F[r, FR], F[r, FR + 1], F[r, FR + 2]
        F[r, FR] = a0 * e00 + a1 * e10 + a2 * e20
        F[r, FR + 1] = a0 * e01 + a1 * e11 + a2 * e21
        F[r, FR + 2] = a0 * e02 + a1 * e12 + a2 * e22


#: The rows of the work array (:func:`_scratch`) that :func:`_item` uses: its
#: Jacobian J over its nonzero columns (IJ_J to IJ_J + 2), I J (IJ_IJ..), the 3 x 3
#: inertia I in the first three columns (IJ_I..) and the acceleration term (IJ_ACC).
IJ_J, IJ_IJ, IJ_I, IJ_ACC = 0, 6, 12, 25


@_inline
def _item(rot, If, t, nc_b, fcol, F, g, M, a_in, Ma, r, W, cols):
    """A lumped item on its frame F (:func:`_frame_array`; equations.terms): a mass mt
    (M += mt Jp^T Jp, r += mt Jp^T (ap - g)) or (``rot``) a rotor I = R I0 R^T (M += Jw^T
    I Jw, r += Jw^T (I aw + w x I w)), mt and I0 read from row t of the packed item
    floats If (:data:`Packed`'s ``iflt``),
    over the nonzero ones of its Jacobian J's nc_b columns (those of q: fcol; r only
    when it has nq entries, as Ma); W, cols:
    :func:`_scratch` (rows :data:`IJ_J` to +2 the nonzero columns of J, :data:`IJ_IJ`
    to +2 I J, :data:`IJ_I` to +2 I, :data:`IJ_ACC` the acceleration term), read by index
    (no views)."""
    nq = Ma.shape[0]
    forces = r.shape[0] == nq
    full = M.shape[0] == nq
    prod = a_in.shape[0] == nq
    nf = (F.shape[1] - FJ) // 2
    jo = FJ + nf if rot else FJ                 # J's first column in F
    for i in range(9):
        W[IJ_I + i // 3, i % 3] = 0.0
    if rot:
        for i in range(3):
            for j in range(3):
                s = 0.0
                for k in range(3):
                    for m in range(3):
                        s += F[i, FR + k] * If[t, IF_I + 3 * k + m] * F[j, FR + m]
                W[IJ_I + i, j] = s
        for i in range(3):
            W[IJ_ACC, i] = (W[IJ_I + i, 0] * F[0, FAW] + W[IJ_I + i, 1] * F[1, FAW]
                            + W[IJ_I + i, 2] * F[2, FAW])
        w0, w1, w2 = F[0, FW], F[1, FW], F[2, FW]
        Iw0 = W[IJ_I, 0] * w0 + W[IJ_I, 1] * w1 + W[IJ_I, 2] * w2
        Iw1 = W[IJ_I + 1, 0] * w0 + W[IJ_I + 1, 1] * w1 + W[IJ_I + 1, 2] * w2
        Iw2 = W[IJ_I + 2, 0] * w0 + W[IJ_I + 2, 1] * w1 + W[IJ_I + 2, 2] * w2
        W[IJ_ACC, 0] += w1 * Iw2 - w2 * Iw1
        W[IJ_ACC, 1] += w2 * Iw0 - w0 * Iw2
        W[IJ_ACC, 2] += w0 * Iw1 - w1 * Iw0
    else:
        mt = If[t, IF_MASS]
        for i in range(3):
            W[IJ_I + i, i] = mt
            W[IJ_ACC, i] = mt * (F[i, FAP] - g[i])
    nc = 0                  # the nonzero columns: J's in W rows IJ_J.., their q's in cols
    for k in range(nc_b):
        j0, j1, j2 = F[0, jo + k], F[1, jo + k], F[2, jo + k]
        if j0 != 0.0 or j1 != 0.0 or j2 != 0.0:
            W[IJ_J, nc], W[IJ_J + 1, nc], W[IJ_J + 2, nc] = j0, j1, j2
            cols[nc] = fcol[k]
            nc += 1
    acc0, acc1, acc2 = W[IJ_ACC, 0], W[IJ_ACC, 1], W[IJ_ACC, 2]
    for n in range(nc):
        for i in range(3):
            W[IJ_IJ + i, n] = (W[IJ_I + i, 0] * W[IJ_J, n] + W[IJ_I + i, 1] * W[IJ_J + 1, n]
                               + W[IJ_I + i, 2] * W[IJ_J + 2, n])
        if forces:
            r[cols[n]] += W[IJ_J, n] * acc0 + W[IJ_J + 1, n] * acc1 + W[IJ_J + 2, n] * acc2
    if full:
        for n1 in range(nc):
            k = cols[n1]
            for n2 in range(nc):
                M[k, cols[n2]] += (W[IJ_J, n1] * W[IJ_IJ, n2]
                                   + W[IJ_J + 1, n1] * W[IJ_IJ + 1, n2]
                                   + W[IJ_J + 2, n1] * W[IJ_IJ + 2, n2])
    if prod:
        v0 = v1 = v2 = 0.0
        for n in range(nc):
            x = a_in[cols[n]]
            v0 += W[IJ_IJ, n] * x
            v1 += W[IJ_IJ + 1, n] * x
            v2 += W[IJ_IJ + 2, n] * x
        for n in range(nc):
            Ma[cols[n]] += W[IJ_J, n] * v0 + W[IJ_J + 1, n] * v1 + W[IJ_J + 2, n] * v2


@_jit
def _frame_array(nb, nf):
    """The root (0) and attachment (1) frames of nb bodies, one (2, nb, 3, 7 + 2 nf)
    array (columns: :data:`FJ`): a frame passed as one argument and read by index, not
    as views of its parts (every array passed or view taken costs its reference
    counts). :func:`_tree_pass` takes the same array as a view of its block
    (:func:`_arena`)."""
    return np.zeros((2, nb, 3, FJ + 2 * nf))


@_inline
def _copy_frame(Fr, f0, b0, f1, b1, nc):
    """Frame (f0, b0) of Fr (:func:`_frame_array`) copied to (f1, b1), the Jacobians'
    first nc columns."""
    nf = (Fr.shape[3] - FJ) // 2
    for i in range(3):
        for j in range(FJ):
            Fr[f1, b1, i, j] = Fr[f0, b0, i, j]
        for k in range(nc):
            Fr[f1, b1, i, FJ + k] = Fr[f0, b0, i, FJ + k]
            Fr[f1, b1, i, FJ + nf + k] = Fr[f0, b0, i, FJ + nf + k]


@_inline
def _scratch(nq, nemax):
    """The work array of :func:`_link` and :func:`_item`, one (WORK_ROWS, max(nq, nemax,
    6)) array (one argument, one reference count, in place of nine; read by index, no
    views), its rows named in :mod:`chrono_flex.spatial.link_coef` (U, C U, C, G, f_e,
    ...); :func:`_tree_pass` takes the same array as a view of its block
    (:func:`_arena`)."""
    return np.empty((WORK_ROWS, max(nq, nemax, 6)))


@_inline
def _arena(nq, mq, nr, nb, nf, nemax):
    """The arrays of one :func:`_tree_pass` as views of one heap block, in this order:
    M (mq, mq), Ma (nq,), r (nr,), the frames (:func:`_frame_array`, nb bodies, nf
    Jacobian columns), these four zeros, then uninitialised E (2, 3, 3) (the joint's
    rotations of :func:`_child_frame`), W (:func:`_scratch`) and cols (nq,) (the columns
    of q of :func:`_link`'s and :func:`_item`'s nonzero Jacobian columns, int64, the
    block's last nq float64 entries viewed as integers: the same size)."""
    nw = max(nq, nemax, 6)
    nfr = 2 * nb * 3 * (FJ + 2 * nf)
    o_ma = mq * mq
    o_r = o_ma + nq
    o_fr = o_r + nr
    o_e = o_fr + nfr
    o_w = o_e + 18
    o_c = o_w + WORK_ROWS * nw
    A = np.empty(o_c + nq)
    for i in range(o_e):
        A[i] = 0.0
    return (A[:o_ma].reshape((mq, mq)), A[o_ma:o_r], A[o_r:o_fr],
            A[o_fr:o_e].reshape((2, nb, 3, FJ + 2 * nf)), A[o_e:o_w].reshape((2, 3, 3)),
            A[o_w:o_c].reshape((WORK_ROWS, nw)), A[o_c:].view(np.int64))


@_inline
def _tree_pass(P, q, qd, g, stiff, full, a_in, terms, forces=True):
    """(M or an empty matrix, M a_in or zeros, r (empty without ``forces``: M a_in
    alone), the frames (2, nb, 3, 7 + 2 nf) of :func:`_frame_array`) of the tree at (q,
    q_d): the frames from the base to the leaves (root: 0,
    attachment: 1), each link's :func:`_link` and the lumped items (when ``terms``).
    A frame's Jacobians are kept over the columns its body's frames can fill (its
    ancestors' joints and tip coordinates, :func:`frame_columns`), not all nq.

    All the pass's arrays are views of one heap block (:func:`_arena`): the results M,
    Ma, r (a view keeps the block alive, so the caller may keep them; each pass has its
    own block), the frames and the work arrays (E, W, cols), not an array each: one heap
    allocation per pass in place of seven. A heap allocation with its release costs
    about 45-120 ns in the compiled generalized-alpha step, where the heap is busy (about
    1 % to 2 % of a force-only pass, some 5 us on the arm of ``chrono-flex bench
    spatial``, each); a view costs a reference count only. In a loop of passes alone,
    where the allocator hands back the blocks just freed, the two ways take the same
    time within the timing's noise."""
    nq = P.nq
    nb = P.bint.shape[0]
    mq = nq if full else 0
    M, Ma, r, Fr, E, W, cols = _arena(nq, mq, nq if forces else 0, nb, P.fcol.shape[1],
                                      P.nemax)
    for b in range(nb):
        pa = P.bint[b, BI_PARENT]
        if pa < 0:
            for i in range(3):
                Fr[0, b, i, FR + i] = 1.0
        else:
            _copy_frame(Fr, 1, pa, 0, b, P.bint[pa, BI_NCOL1])
        _child_frame(P.bflt, b, P.bint[b, BI_JKIND], P.bint[b, BI_JIDX], q, qd,
                     0 if pa < 0 else P.bint[pa, BI_NCOL1], Fr[0, b], E)
        nc = P.bint[b, BI_NCOL0]
        _copy_frame(Fr, 0, b, 1, b, nc)
        if P.bint[b, BI_LINK] == 1:
            if terms:
                _link(P.bint[b, BI_E0], P.bint[b, BI_NE], P.lsc[b], P.lvec[b], P.cptr,
                      P.ccol, P.cval, b, q, qd, g, stiff, nc, P.fcol[b], Fr[1, b], M, a_in,
                      Ma, r, W, cols)
            _tip_frame(P.bint, P.bflt, b, q, qd, nc, Fr[1, b])
    for t in range(P.iint.shape[0] if terms else 0):
        f, b = P.iint[t, IT_TIP], P.iint[t, IT_BODY]
        _item(P.iint[t, IT_ROT] == 1, P.iflt, t,
              P.bint[b, BI_NCOL0] if f == 0 else P.bint[b, BI_NCOL1], P.fcol[b], Fr[f, b],
              g, M, a_in, Ma, r, W, cols)
    return M, Ma, r, Fr


@_jit
def _tree_terms(P, q, qd, g, stiff):
    """(M, r) at (q, q_d): the full pass (the signature of the planar chain kernel)."""
    M, _, r, _ = _tree_pass(P, q, qd, g, stiff, True, q[:0], True)   # no a_in: no array
    return M, r


@_jit
def _tree_forces(P, q, qd, g, stiff, a_in):
    """(M a_in, r) at (q, q_d) without forming M (zeros for M a_in when a_in is empty)."""
    _, Ma, r, _ = _tree_pass(P, q, qd, g, stiff, False, a_in, True)
    return Ma, r


def _f(v):
    return np.ascontiguousarray(v, dtype=float)


def tree_terms(packed, q, qd, g, stiff):
    """(M, r = h - Q_g [+ K_geo e]) at (q, q_d), gravity g (numpy twin: equations.terms)."""
    return _tree_terms(packed, _f(q), _f(qd), _f(g), bool(stiff))


def tree_forces(packed, q, qd, g, stiff, a=None):
    """(M a, r) at (q, q_d) without forming M; without ``a``, (zeros, r)."""
    a = np.zeros(0) if a is None else _f(a)
    return _tree_forces(packed, _f(q), _f(qd), _f(g), bool(stiff), a)


def packed_model(model):
    """The model's packed arrays (made once, kept on it), or None where the kernels do
    not run (the numpy backend, :func:`~chrono_flex.planar.kernels.backend`; extended)."""
    if backend() != "numba" or model.extended:
        return None
    if getattr(model, "_packed", None) is None:
        model._packed = pack(model)
    return model._packed


@_jit
def _tree_frames(P, Q, QD):
    """:func:`tree_frames` by :func:`_tree_pass` at each row of Q (with rows in QD also
    T = 1/2 q_d . M q_d by the same pass, else zeros)."""
    nt, nq = Q.shape
    nb = P.bint.shape[0]
    pos = np.zeros((nt, 2, nb, 3))
    rot = np.zeros((nt, 2, nb, 3, 3))
    T = np.zeros(nt)
    no_g = np.zeros(3)
    kinetic = QD.shape[0] == nt
    at_rest, no_a = np.zeros(nq), np.zeros(0)
    for t in range(nt):
        qd = QD[t] if kinetic else at_rest            # rows of C-ordered arrays: no copies
        _, Mqd, _, Fr = _tree_pass(P, Q[t], qd, no_g, False, False, qd if kinetic else no_a,
                                   kinetic, False)
        pos[t], rot[t] = Fr[:, :, :, FP], Fr[:, :, :, FR:FR + 3]
        s = 0.0
        for j in range(nq if kinetic else 0):
            s += qd[j] * Mqd[j]
        T[t] = 0.5 * s
    return pos, rot, T


def tree_frames(packed, Q, QD=None):
    """(positions (nt, 2, nb, 3), rotations (nt, 2, nb, 3, 3), kinetic energies (nt,))
    of the root (index 0) and attachment (1) frames of every body at the rows of Q
    (nt, nq), the kinetic energies at the rates QD (zeros without them) (numpy twins:
    kinematics.tree_frames, equations.kinetic_energy)."""
    Q = np.ascontiguousarray(np.atleast_2d(Q), dtype=float)
    QD = np.zeros((0, Q.shape[1])) if QD is None else np.ascontiguousarray(QD, dtype=float)
    return _tree_frames(packed, Q, QD)


__all__ = ["Packed", "frame_columns", "pack", "packed_model", "tree_forces", "tree_frames", "tree_terms"]
