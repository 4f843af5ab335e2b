"""Compiled twin of :func:`chrono_flex.planar.invariants.terms` (optional, numba).

The right-hand side of the reference engine and the custom Chrono element's generalized
forces come from :func:`chrono_flex.planar.invariants.terms`: the floating-frame
equations of docs/planar-link.md §4.3 evaluated from inertia invariants. In numpy each
evaluation costs a few hundred small-array operations, so for the papers' arms (3 to 20
coordinates) Python's per-operation overhead, not arithmetic, sets its price. This module
holds the same computation written as scalar loops over the chain, compiled by numba
when it is installed (the ``fast`` extra); the numpy path stays the fallback and the
reference the compiled one is tested against (they agree to round-off).

:func:`pack` turns an :class:`~chrono_flex.planar.equations.ArmModel` into flat arrays;
:func:`chain_terms` evaluates (M, r) with r = h - Q_g [+ K_geo e] at (q, q_dot), as
:func:`chrono_flex.planar.invariants.terms` does; :func:`chain_forces` the same r with the
product M a instead of M (O(nq) per link, for the time integration of long chains). The
backend is chosen once per process:
numba when importable, unless the environment variable ``CHRONO_FLEX_KERNELS=numpy``
says otherwise (:func:`backend`).
"""

import os
from collections import namedtuple

import numpy as np

from ..errors import ParameterError

try:                                     # the optional compiler (the ``fast`` extra)
    import numba
except ImportError:                      # pragma: no cover - exercised without numba
    numba = None


def _jit(fn):
    """numba.njit (compiled on first call, cached on disk) where numba is present.

    A compiled function called from another with a literal argument (``f(x, 0)``,
    ``f(x, True)``) is compiled once more for that value, and with it everything it
    calls; callers pass ``np.int64(0)``, ``np.bool_(True)`` instead, which share the
    compiled code of the runtime-typed call."""
    return fn if numba is None else numba.njit(cache=True)(fn)


def _inline(fn):
    """:func:`_jit`, the function inlined (numba IR) where it is called: each caller
    gets a copy compiled for its own arguments."""
    return fn if numba is None else numba.njit(cache=True, inline="always")(fn)

BACKENDS = ("numba", "numpy")

#: The packed chain model of :func:`pack`: a few arrays, not one per quantity (a compiled
#: function receiving the tuple counts a reference of every array in it on entry and
#: exit, two atomic operations each, which cost more than the pass's arithmetic on short
#: chains: docs/performance.md). Per link i: ``lint[i]`` (integers: joint kind, joint
#: coordinate, first elastic coordinate, elastic count), ``lflt[i]`` (joint offset, axis
#: and link angles, length, m, m_x, I_xx), ``shp[i]`` (Phi_1, Phi_x and the tip's N, N'
#: over the elastic coordinates), ``mat[i]`` (M_e, G_a, G_w), ``band[i]`` (the row
#: ranges of :func:`row_ranges`); per lumped item t: ``iint[t]`` (link, at the tip,
#: rotary) and ``ival[t]``; the model's gravity ``g_model``. The rows and planes are
#: named by the constants below.
Packed = namedtuple("Packed", "nq lint lflt shp mat band iint ival g_model")
LI_KIND, LI_JIDX, LI_E0, LI_NE = 0, 1, 2, 3
LF_OFFSET, LF_AXIS_ANGLE, LF_LINK_ANGLE, LF_LENGTH, LF_M, LF_MX, LF_IXX = range(7)
SH_PHI1, SH_PHIX, SH_NL, SH_DNL = 0, 1, 2, 3
MT_ME, MT_GA, MT_GW = 0, 1, 2
BD_LO, BD_HI = 0, 1
IT_LINK, IT_TIP, IT_ROT = 0, 1, 2


def row_ranges(*matrices):
    """Per row a, the first and one past the last column where any of the (equally
    shaped, square) ``matrices`` is nonzero: (lo, hi) int arrays, lo = hi for an empty
    row. The loops over M_e, G_a, G_w, K and D run over these ranges only, which makes
    their products O(n) for banded finite-element matrices; the terms left out are
    exact zeros, so the sums are the full loops' sums."""
    nz = np.zeros(matrices[0].shape, dtype=bool)
    for A in matrices:
        nz |= A != 0.0
    has = nz.any(axis=1)
    lo = np.where(has, nz.argmax(axis=1), 0).astype(np.int64)
    hi = np.where(has, nz.shape[1] - nz[:, ::-1].argmax(axis=1), 0).astype(np.int64)
    return lo, hi


def pack(model):
    """The arrays of a chain model for :func:`chain_terms` (:data:`Packed`; the module
    docstring)."""
    nl = model.n_links
    ne = np.array([ll.elastic_index.size for ll in model.layout.links], dtype=np.int64)
    nmax = int(max(ne.max(), 1))
    shp = np.zeros((nl, 4, nmax))
    mat = np.zeros((nl, 3, nmax, nmax))
    band = np.zeros((nl, 2, nmax), dtype=np.int64)
    for i, (inv, b) in enumerate(zip(model.invariants, model.bases)):
        k = ne[i]
        shp[i, SH_PHI1, :k], shp[i, SH_PHIX, :k] = inv.Phi_1, inv.Phi_x
        mat[i, MT_ME, :k, :k], mat[i, MT_GA, :k, :k] = inv.M_e, inv.G_a
        mat[i, MT_GW, :k, :k] = inv.G_w
        band[i, BD_LO], band[i, BD_HI] = row_ranges(mat[i, MT_ME], mat[i, MT_GA],
                                                    mat[i, MT_GW])
        N, dN, _ = b.tip_values
        shp[i, SH_NL, :k], shp[i, SH_DNL, :k] = N[0], dN[0]
    joints = model.joints
    its = model.items
    lint = np.zeros((nl, 4), dtype=np.int64)
    lint[:, LI_KIND] = [0 if jt.kind == "revolute" else 1 for jt in joints]
    lint[:, LI_JIDX] = [ll.joint_index for ll in model.layout.links]
    lint[:, LI_E0] = [ll.elastic_index[0] if ll.elastic_index.size else 0
                      for ll in model.layout.links]
    lint[:, LI_NE] = ne
    lflt = np.zeros((nl, 7))
    lflt[:, LF_OFFSET] = [getattr(jt, "angle_offset", 0.0) for jt in joints]
    lflt[:, LF_AXIS_ANGLE] = [getattr(jt, "axis_angle", 0.0) for jt in joints]
    lflt[:, LF_LINK_ANGLE] = [getattr(jt, "link_angle", 0.0) for jt in joints]
    lflt[:, LF_LENGTH] = [lk.length for lk in model.links]
    lflt[:, LF_M] = [inv.m for inv in model.invariants]
    lflt[:, LF_MX] = [inv.m_x for inv in model.invariants]
    lflt[:, LF_IXX] = [inv.I_xx for inv in model.invariants]
    iint = np.zeros((len(its), 3), dtype=np.int64)
    iint[:, IT_LINK] = [it.link for it in its]
    iint[:, IT_TIP] = [it.where == "tip" for it in its]
    iint[:, IT_ROT] = [it.kind == "rotary" for it in its]
    return Packed(model.nq, lint, lflt, shp, mat, band, iint,
                  np.array([it.value for it in its], dtype=float),
                  np.asarray(model.g_vec, dtype=float))


@_inline
def _root_frame(kind, j, offset, axis_angle, link_angle, q, qd, p, Jp, ap, Jpsi, psi, apsi,
                psid):
    """A link's root frame from its parent's tip frame across its joint (kinematics.child_frame;
    ``kind`` 0 revolute, 1 prismatic, coordinate j): p (2,), Jp (2, nq), ap (2,) and Jpsi
    (nq,) in place; returns the new (psi, psid) (a joint adds no angular acceleration)."""
    nq = q.shape[0]
    if kind == 0:
        Jpsi[j] += 1.0
        psi = psi + q[j] + offset
        psid = 0.0
        for k in range(nq):
            psid += Jpsi[k] * qd[k]
    else:
        ang = psi + axis_angle
        ux, uy = np.cos(ang), np.sin(ang)
        d, dd = q[j], qd[j]
        p[0] += d * ux
        p[1] += d * uy
        for k in range(nq):
            Jp[0, k] += -d * uy * Jpsi[k]
            Jp[1, k] += d * ux * Jpsi[k]
        Jp[0, j] += ux
        Jp[1, j] += uy
        ap[0] += 2.0 * dd * psid * (-uy) + d * (apsi * (-uy) - psid * psid * ux)
        ap[1] += 2.0 * dd * psid * ux + d * (apsi * ux - psid * psid * uy)
        psi = ang + link_angle
    return psi, psid


@_inline
def _store_frame(fr_Jp, fr_ap, fr_Jpsi, fr_apsi, f, Jp, ap, Jpsi, apsi):
    """Frame f (2 i: link i's root, 2 i + 1: its tip) kept for the lumped items."""
    for k in range(Jp.shape[1]):
        fr_Jp[f, 0, k] = Jp[0, k]
        fr_Jp[f, 1, k] = Jp[1, k]
        fr_Jpsi[f, k] = Jpsi[k]
    fr_ap[f, 0] = ap[0]
    fr_ap[f, 1] = ap[1]
    fr_apsi[f] = apsi


@_inline
def _chain_pass(P, q, qd, g, stiff, a_in):
    """The one pass of the chain kernel at (q, q_dot), in-plane gravity ``g`` (scalar loops;
    the formulas of :mod:`chrono_flex.planar.invariants`, frames of
    :mod:`chrono_flex.planar.kinematics`): (M, M a_in, r). With ``a_in`` None it
    assembles M (M a_in zeros); with an array it forms no M (an empty one) and takes
    M a_in term by term from the structure of (4.11), U^T C (U a) + U^T B E a + E^T B^T
    U a + E^T M_e E a (plus the lumped items), O(nq) per link, zeros when a_in has another
    length than nq. r comes from the same operations either way. Inlined into
    :func:`_chain_terms` (a_in None) and :func:`_chain_forces`: ``a_in is None`` is known
    from the type when each is compiled, so neither carries the other's branches (a pass
    called through a runtime switch ran up to three times slower on short chains)."""
    nq = P.nq
    nl = P.lint.shape[0]
    # every array of the pass is a view of one zeroed block (one heap allocation, not
    # fourteen: each costs about as much as a dozen multiply-adds of the pass,
    # docs/performance.md); M, M a_in and r, returned, keep the block alive
    nf = 2 * nl
    size = 2 * nq + 4 + 3 * nq + nf * (3 * nq + 3) + 6 * nq + P.shp.shape[2]
    if a_in is None:
        nm = nq * nq
        w = np.zeros(nm + size)
        M = w[:nm].reshape((nq, nq))
        with_Ma = False
    else:
        nm = 0
        w = np.zeros(size)
        M = w[:0].reshape((0, 0))
        with_Ma = a_in.shape[0] == nq
    o = nm
    Ma = w[o:o + nq]
    r = w[o + nq:o + 2 * nq]
    o += 2 * nq
    # running parent (tip) frame
    p = w[o:o + 2]
    ap = w[o + 2:o + 4]
    Jp = w[o + 4:o + 4 + 2 * nq].reshape((2, nq))
    Jpsi = w[o + 4 + 2 * nq:o + 4 + 3 * nq]
    o += 4 + 3 * nq
    psi = 0.0
    apsi = 0.0
    psid = 0.0
    n_items = P.iint.shape[0]
    # lumped items need the root (where=root) or tip frame of their link: stored here
    fr_Jp = w[o:o + 2 * nf * nq].reshape((nf, 2, nq))
    fr_Jpsi = w[o + 2 * nf * nq:o + 3 * nf * nq].reshape((nf, nq))
    o += 3 * nf * nq
    fr_ap = w[o:o + 2 * nf].reshape((nf, 2))
    fr_apsi = w[o + 2 * nf:o + 3 * nf]
    o += 3 * nf
    U = w[o:o + 3 * nq].reshape((3, nq))
    CU = w[o + 3 * nq:o + 6 * nq].reshape((3, nq))
    Mee = w[o + 6 * nq:]
    for i in range(nl):
        psi, psid = _root_frame(P.lint[i, LI_KIND], P.lint[i, LI_JIDX], P.lflt[i, LF_OFFSET],
                                P.lflt[i, LF_AXIS_ANGLE], P.lflt[i, LF_LINK_ANGLE], q, qd, p,
                                Jp, ap, Jpsi, psi, apsi, psid)
        _store_frame(fr_Jp, fr_ap, fr_Jpsi, fr_apsi, 2 * i, Jp, ap, Jpsi, apsi)
        # -- the link's terms from its invariants (invariants.link_terms)
        c, s = np.cos(psi), np.sin(psi)
        e0, ne = P.lint[i, LI_E0], P.lint[i, LI_NE]
        apl0 = c * ap[0] + s * ap[1]
        apl1 = -s * ap[0] + c * ap[1]
        gl0 = c * g[0] + s * g[1]
        gl1 = -s * g[0] + c * g[1]
        p1e = 0.0
        p1ed = 0.0
        eMe = 0.0
        eMed = 0.0
        for a in range(ne):
            p1e += P.shp[i, SH_PHI1, a] * q[e0 + a]
            p1ed += P.shp[i, SH_PHI1, a] * qd[e0 + a]
            acc = 0.0
            for b in range(P.band[i, BD_LO, a], P.band[i, BD_HI, a]):
                acc += P.mat[i, MT_ME, a, b] * q[e0 + b]
            Mee[a] = acc
        for a in range(ne):
            eMe += q[e0 + a] * Mee[a]
            eMed += qd[e0 + a] * Mee[a]
        m, mx = P.lflt[i, LF_M], P.lflt[i, LF_MX]
        c0, c1 = -p1e, mx
        In = P.lflt[i, LF_IXX] + eMe
        for k in range(nq):
            U[0, k] = c * Jp[0, k] + s * Jp[1, k]
            U[1, k] = -s * Jp[0, k] + c * Jp[1, k]
            U[2, k] = Jpsi[k]
        if a_in is None:
            for k in range(nq):
                CU[0, k] = m * U[0, k] + c0 * U[2, k]
                CU[1, k] = m * U[1, k] + c1 * U[2, k]
                CU[2, k] = c0 * U[0, k] + c1 * U[1, k] + In * U[2, k]
            for a in range(nq):
                if U[0, a] == 0.0 and U[1, a] == 0.0 and U[2, a] == 0.0:
                    continue
                for b in range(nq):
                    M[a, b] += U[0, a] * CU[0, b] + U[1, a] * CU[1, b] + U[2, a] * CU[2, b]
            # couplings U^T B E and the elastic block
            for a in range(nq):
                u1, u2 = U[1, a], U[2, a]
                if u1 == 0.0 and u2 == 0.0:
                    continue
                for b in range(ne):
                    v = u1 * P.shp[i, SH_PHI1, b] + u2 * P.shp[i, SH_PHIX, b]
                    M[a, e0 + b] += v
                    M[e0 + b, a] += v
            for a in range(ne):
                for b in range(P.band[i, BD_LO, a], P.band[i, BD_HI, a]):
                    M[e0 + a, e0 + b] += P.mat[i, MT_ME, a, b]
        elif with_Ma:
            ua0 = 0.0
            ua1 = 0.0
            ua2 = 0.0
            for k in range(nq):
                ua0 += U[0, k] * a_in[k]
                ua1 += U[1, k] * a_in[k]
                ua2 += U[2, k] * a_in[k]
            pa1 = 0.0
            pax = 0.0
            for b in range(ne):
                pa1 += P.shp[i, SH_PHI1, b] * a_in[e0 + b]
                pax += P.shp[i, SH_PHIX, b] * a_in[e0 + b]
            v0 = m * ua0 + c0 * ua2
            v1 = m * ua1 + c1 * ua2 + pa1
            v2 = c0 * ua0 + c1 * ua1 + In * ua2 + pax
            for k in range(nq):
                Ma[k] += U[0, k] * v0 + U[1, k] * v1 + U[2, k] * v2
            for a in range(ne):
                acc = P.shp[i, SH_PHI1, a] * ua1 + P.shp[i, SH_PHIX, a] * ua2
                for b in range(P.band[i, BD_LO, a], P.band[i, BD_HI, a]):
                    acc += P.mat[i, MT_ME, a, b] * a_in[e0 + b]
                Ma[e0 + a] += acc
        da0, da1 = apl0 - gl0, apl1 - gl1
        lin0 = m * da0 + apsi * c0 - psid * psid * mx - 2.0 * psid * p1ed
        lin1 = m * da1 + apsi * c1 - psid * psid * p1e
        rot = c0 * da0 + c1 * da1 + apsi * In + 2.0 * psid * eMed
        for k in range(nq):
            r[k] += U[0, k] * lin0 + U[1, k] * lin1 + U[2, k] * rot
        for a in range(ne):
            r[e0 + a] += (P.shp[i, SH_PHI1, a] * da1 + apsi * P.shp[i, SH_PHIX, a]
                          - psid * psid * Mee[a])
        if stiff:
            a0 = c * ap[0] + s * ap[1]
            gx = c * P.g_model[0] + s * P.g_model[1]
            fa, fw = gx - a0, psid * psid
            for a in range(ne):
                acc = 0.0
                for b in range(P.band[i, BD_LO, a], P.band[i, BD_HI, a]):
                    acc += (fa * P.mat[i, MT_GA, a, b] + fw * P.mat[i, MT_GW, a, b]) * q[e0 + b]
                r[e0 + a] += acc
        # -- tip frame (kinematics.tip_frame): r(L), angle psi + w'(L)
        L = P.lflt[i, LF_LENGTH]
        w = 0.0
        wd = 0.0
        slope = 0.0
        for a in range(ne):
            w += P.shp[i, SH_NL, a] * q[e0 + a]
            wd += P.shp[i, SH_NL, a] * qd[e0 + a]
            slope += P.shp[i, SH_DNL, a] * q[e0 + a]
        Rs0 = c * L - s * w
        Rs1 = s * L + c * w
        p[0] += Rs0
        p[1] += Rs1
        for k in range(nq):
            Jp[0, k] += -Rs1 * Jpsi[k]
            Jp[1, k] += Rs0 * Jpsi[k]
        for a in range(ne):
            Jp[0, e0 + a] -= s * P.shp[i, SH_NL, a]
            Jp[1, e0 + a] += c * P.shp[i, SH_NL, a]
        ap0 = ap[0] + apsi * (-Rs1) - psid * psid * Rs0 - 2.0 * psid * c * wd
        ap1 = ap[1] + apsi * Rs0 - psid * psid * Rs1 - 2.0 * psid * s * wd
        ap[0] = ap0
        ap[1] = ap1
        psi = psi + slope
        for a in range(ne):
            Jpsi[e0 + a] += P.shp[i, SH_DNL, a]
        psid = 0.0
        for k in range(nq):
            psid += Jpsi[k] * qd[k]
        _store_frame(fr_Jp, fr_ap, fr_Jpsi, fr_apsi, 2 * i + 1, Jp, ap, Jpsi, apsi)
    for t in range(n_items):
        f = 2 * P.iint[t, IT_LINK] + P.iint[t, IT_TIP]
        val = P.ival[t]
        if P.iint[t, IT_ROT] == 1:
            if with_Ma:
                s0 = 0.0
                for k in range(nq):
                    s0 += fr_Jpsi[f, k] * a_in[k]
                for k in range(nq):
                    Ma[k] += val * fr_Jpsi[f, k] * s0
            for a in range(nq):
                ja = fr_Jpsi[f, a]
                if ja == 0.0:
                    continue
                if a_in is None:
                    for b in range(nq):
                        M[a, b] += val * ja * fr_Jpsi[f, b]
                r[a] += val * ja * fr_apsi[f]
        else:
            if with_Ma:
                s0 = 0.0
                s1 = 0.0
                for k in range(nq):
                    s0 += fr_Jp[f, 0, k] * a_in[k]
                    s1 += fr_Jp[f, 1, k] * a_in[k]
                for k in range(nq):
                    Ma[k] += val * (fr_Jp[f, 0, k] * s0 + fr_Jp[f, 1, k] * s1)
            for a in range(nq):
                j0, j1 = fr_Jp[f, 0, a], fr_Jp[f, 1, a]
                if j0 == 0.0 and j1 == 0.0:
                    continue
                if a_in is None:
                    for b in range(nq):
                        M[a, b] += val * (j0 * fr_Jp[f, 0, b] + j1 * fr_Jp[f, 1, b])
                r[a] += val * (j0 * (fr_ap[f, 0] - g[0]) + j1 * (fr_ap[f, 1] - g[1]))
    return M, Ma, r


@_jit
def _chain_terms(P, q, qd, g, stiff):
    """(M, r) of the chain at (q, q_dot): :func:`_chain_pass` without a_in."""
    M, _, r = _chain_pass(P, q, qd, g, stiff, None)
    return M, r


@_jit
def _chain_forces(P, q, qd, g, stiff, a_in):
    """(M a_in, r) of the chain at (q, q_dot) without forming M: :func:`_chain_pass` with
    a_in (r by the same operations as :func:`_chain_terms`, so the same numbers); with an
    a_in of another length than nq, zeros for M a_in."""
    _, Ma, r = _chain_pass(P, q, qd, g, stiff, a_in)
    return Ma, r


@_jit
def _chain_accelerations(P, q, qd, Q, K, D, g, stiff):
    """q_dd = M^-1 (Q - r - K q - D q_dot) (docs/planar-link.md eq. (4.7)), one call."""
    M, r = _chain_terms(P, q, qd, g, stiff)
    f = Q - r - K @ q - D @ qd
    return np.linalg.solve(M, f)


@_jit
def _mv(A, x):
    """A x by plain loops (numba's ``@`` calls the BLAS, whose threads wait for each other
    on a busy machine far longer than these small products take; chain_ga uses it too)."""
    n, m = A.shape
    out = np.zeros(n)
    for i in range(n):
        s = 0.0
        for j in range(m):
            s += A[i, j] * x[j]
        out[i] = s
    return out


@_jit
def _cholesky(A):
    """In-place lower Cholesky factor of a symmetric A (its lower triangle); False when A
    is not positive definite (a pivot not positive, or not finite)."""
    n = A.shape[0]
    for j in range(n):
        d = A[j, j]
        for k in range(j):
            d -= A[j, k] * A[j, k]
        if not d > 0.0 or not np.isfinite(d):
            return False
        d = np.sqrt(d)
        A[j, j] = d
        for i in range(j + 1, n):
            s = A[i, j]
            for k in range(j):
                s -= A[i, k] * A[j, k]
            A[i, j] = s / d
    return True


@_jit
def _cholesky_solve(L, b):
    """x with L L^T x = b."""
    n = L.shape[0]
    x = b.copy()
    for i in range(n):
        s = x[i]
        for k in range(i):
            s -= L[i, k] * x[k]
        x[i] = s / L[i, i]
    for i in range(n - 1, -1, -1):
        s = x[i]
        for k in range(i + 1, n):
            s -= L[k, i] * x[k]
        x[i] = s / L[i, i]
    return x


@_jit
def _lowest_eigenvalue(K, M, max_iter):
    """The lowest eigenvalue of K phi = lambda M phi (K, M symmetric, M positive
    definite) by inverse iteration with the Rayleigh quotient (Golub & Van Loan, Matrix
    Computations, 4th ed. 2013, §8.2.2: its error falls by (lambda_1/lambda_2)^2 per
    iteration; it stops when an iteration changes it by less than 1e-13 of itself), or
    NaN where it does not answer: K not positive definite (then the lowest is not
    positive), no convergence within ``max_iter``, or K - (1 - 1e-6) lambda M not
    positive definite (the iteration found a higher eigenvalue, its start being
    orthogonal to the lowest mode). Plain loops: no LAPACK call, whose threads wait
    long on a busy machine."""
    n = K.shape[0]
    L = K.copy()
    if n == 0 or not _cholesky(L):
        return np.nan
    x = np.ones(n)
    lam = np.nan
    for it in range(max_iter):
        Mx = _mv(M, x)
        y = _cholesky_solve(L, Mx)
        My = _mv(M, y)
        yMy = 0.0
        yKy = 0.0
        for k in range(n):
            yMy += y[k] * My[k]
            yKy += y[k] * Mx[k]              # y.K y = y.M x: no cancellation in K y
        new = yKy / yMy
        x = y / np.sqrt(yMy)
        if abs(new - lam) <= 1e-13 * abs(new):
            lam = new
            break
        lam = new
        if it == max_iter - 1:
            return np.nan
    S = K - (1.0 - 1e-6) * lam * M
    if not _cholesky(S):
        return np.nan
    return lam


def lowest_eigenvalue(K, M, max_iter=200):
    """The lowest eigenvalue of the symmetric pencil (K, M) when it is positive, by the
    compiled inverse iteration (:func:`_lowest_eigenvalue`), else NaN."""
    return float(_lowest_eigenvalue(np.ascontiguousarray(K, dtype=float),
                                    np.ascontiguousarray(M, dtype=float), int(max_iter)))


def _numba_available():
    return numba is not None


def backend():
    """The kernel backend of this process: "numba" (when importable) or "numpy"; the
    environment variable ``CHRONO_FLEX_KERNELS`` may ask for "numpy"."""
    want = os.environ.get("CHRONO_FLEX_KERNELS", "").strip().lower()
    if want and want not in BACKENDS:
        raise ParameterError("CHRONO_FLEX_KERNELS", want, f"must be one of {BACKENDS}")
    if want == "numpy" or not _numba_available():
        return "numpy"
    return "numba"


def chain_accelerations(packed, q, qd, Q, K, D, g, stiff):
    """q_dd at (q, q_dot) under generalized forces Q, by the compiled kernel."""
    return _chain_accelerations(packed, q, qd, Q, K, D, g, stiff)


def chain_forces(packed, q, qd, g, stiff, a=None):
    """(M a, r) at (q, q_dot) by the compiled kernel without forming M (needs numba);
    without ``a``, (zeros, r): O(nq) per link where (M, r) is O(nq^2)."""
    a = np.zeros(0) if a is None else np.asarray(a, dtype=float)
    return _chain_forces(packed, np.asarray(q, dtype=float), np.asarray(qd, dtype=float),
                         np.asarray(g, dtype=float), bool(stiff), a)


def chain_terms(packed, q, qd, g, stiff):
    """(M, r) at (q, q_dot) by the compiled kernel (needs numba)."""
    return _chain_terms(packed, np.asarray(q, dtype=float), np.asarray(qd, dtype=float),
                        np.asarray(g, dtype=float), bool(stiff))




@_jit
def _kinetic_energies(P, Q, QD, g):
    out = np.empty(Q.shape[0])
    for k in range(Q.shape[0]):
        Mqd, _ = _chain_forces(P, Q[k], QD[k], g, np.bool_(False), QD[k])
        s = 0.0
        for j in range(Mqd.shape[0]):
            s += QD[k, j] * Mqd[j]
        out[k] = 0.5 * s
    return out


@_jit
def _gravity_stiffness(P, q, g, h):
    """dQ_g/dq at q (nq, nq) by central differences of step h: column k is
    (Q_g(q + h e_k) - Q_g(q - h e_k)) / (2 h), Q_g = -r with r = h - Q_g at rest (no
    rates, no stiffening term)."""
    nq = q.shape[0]
    out = np.empty((nq, nq))
    zero = np.zeros(nq)
    no_a = np.zeros(0)
    qp = q.copy()
    qm = q.copy()
    for k in range(nq):
        qp[k] = q[k] + h
        qm[k] = q[k] - h
        _, rp = _chain_forces(P, qp, zero, g, np.bool_(False), no_a)
        _, rm = _chain_forces(P, qm, zero, g, np.bool_(False), no_a)
        for i in range(nq):
            out[i, k] = ((-rp[i]) - (-rm[i])) / (2 * h)
        qp[k] = q[k]
        qm[k] = q[k]
    return out


def gravity_stiffness(packed, q, g, h):
    """dQ_g/dq at q by central differences of step h, in one compiled call (O(nq) per
    evaluation of the kernel's forces, no M)."""
    return _gravity_stiffness(packed, np.asarray(q, dtype=float), np.asarray(g, dtype=float),
                              float(h))


def kinetic_energies(packed, Q, QD, g):
    """T = 1/2 q_dot^T M(q) q_dot at every row of Q, QD (nt, nq), by the compiled kernel."""
    return _kinetic_energies(packed, np.ascontiguousarray(Q, dtype=float),
                             np.ascontiguousarray(QD, dtype=float), np.asarray(g, dtype=float))


__all__ = ["BACKENDS", "Packed", "backend", "chain_forces", "chain_terms", "gravity_stiffness",
           "kinetic_energies", "lowest_eigenvalue", "pack", "row_ranges"]
