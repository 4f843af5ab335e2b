"""The compiled spatial terms (chrono_flex.spatial.kernels) against the numpy
equations (chrono_flex.spatial.equations.terms) at random states: M, r = h - Q_g
[+ K_geo e] and the product M a of the force-only pass, on a chain and on a tree with
revolute, prismatic and fixed joints, offsets, rotors, hub masses, rigid bodies,
gravity along a skew direction and varying sections."""


import numpy as np
import pytest
from _arms import numpy_terms, skew_tree_joints

from chrono_flex.planar import kernels as planar_kernels
from chrono_flex.spatial import equations as mdl
from chrono_flex.spatial import kernels as sk
from chrono_flex.spatial import params as sp
from chrono_flex.spatial.arm import SpatialArm

pytestmark = pytest.mark.skipif(planar_kernels.numba is None, reason="needs numba")
rng = np.random.default_rng(23)


def tree_arm(stiffening=False):
    """Hub about z; a link on a skew revolute joint (offset, rotor, hub mass); a link on
    a skew prismatic joint at its tip; a payload welded there; a second link on the hub
    about x (three elements of unequal sections); gravity skew."""
    l1 = sp.SpatialLink(1.0, 2, EI_y=3.0, EI_z=2.0, GJ=1.0, rho_A=0.5, rho_Ip=2e-2)
    l2 = sp.SpatialLink(0.7, 2, EI_y=1.0, EI_z=2.0, GJ=0.5, rho_A=0.4, rho_Ip=1e-2)
    l3 = sp.SpatialLink(0.6, 3, EI_y=1.0, EI_z=2.0, GJ=0.5, rho_A=(0.4, 0.3, 0.2),
                        rho_Ip=lambda x: 1e-2 * (1 + x))
    bodies = [sp.RigidBody(1.0, (0.1, 0.2, 0.3)), l1, l2,
              sp.RigidBody(0.2, ((0.01, 0.002, 0.0), (0.002, 0.02, 0.001), (0.0, 0.001, 0.03))),
              l3]
    joints = skew_tree_joints()
    return SpatialArm(bodies, joints, parents=[-1, 0, 1, 2, 0], gravity=(1.0, -2.0, -9.81),
                      geometric_stiffening=stiffening)


def chain_arm():
    """Two links about z and y in a chain, a payload welded at the tip, gravity."""
    links = [sp.SpatialLink(1.0, 4, EI_y=2.0, EI_z=1.0, GJ=1.0, rho_A=0.2, rho_Ip=1e-3),
             sp.SpatialLink(0.5, 1, EI_y=2.0, EI_z=1.0, GJ=1.0, rho_A=0.2, rho_Ip=1e-3)]
    return SpatialArm(links + [sp.RigidBody(0.1, (1e-3, 1e-3, 1e-3))],
                      joints=[sp.RevoluteJoint(axis=(0, 0, 1)), sp.RevoluteJoint(axis=(0, 1, 0)),
                              sp.FixedJoint()], parents=[-1, 0, 1], gravity=True)


def planar_case_arm():
    """The planar special case (docs/spatial-link.md §5.2): a hub with two links about
    z and a payload, as the spatial engine's benchmark (bench._planar_and_spatial), with
    geometric stiffening and gravity across the plane."""
    links = [sp.SpatialLink(L, 4, EI_y=2.0, EI_z=1.04, GJ=1.0, rho_A=0.196, rho_Ip=1e-3)
             for L in (1.0, 0.5)]
    return SpatialArm(links + [sp.RigidBody(0.1, (0.0, 0.0, 1e-3))],
                      joints=[sp.RevoluteJoint(axis=(0, 0, 1), hub_inertia=0.05),
                              sp.RevoluteJoint(axis=(0, 0, 1)), sp.FixedJoint()],
                      parents=[-1, 0, 1], gravity=True, geometric_stiffening=True)


def numpy_r(model, q, qd):
    """r = h - Q_g [+ K_geo e] and M of the numpy equations."""
    return numpy_terms(mdl, model, q, qd)


@pytest.mark.parametrize("make", [chain_arm, tree_arm, lambda: tree_arm(True),
                                  planar_case_arm],
                         ids=["chain", "tree", "tree_stiffening", "planar_case"])
def test_compiled_terms_equal_numpy_terms(make):
    arm = make()
    model = arm.model
    P = sk.pack(model)
    for _ in range(5):
        q = 0.3 * rng.normal(size=arm.nq)
        qd = rng.normal(size=arm.nq)
        a = rng.normal(size=arm.nq)
        M0, r0 = numpy_r(model, q, qd)
        M1, r1 = sk.tree_terms(P, q, qd, model.g_vec, model.geometric_stiffening)
        Ma, r2 = sk.tree_forces(P, q, qd, model.g_vec, model.geometric_stiffening, a)
        _, r3 = sk.tree_forces(P, q, qd, model.g_vec, model.geometric_stiffening)
        # round-off: the same sums of O(1e2) products of O(1) terms in another order
        tol = 1e-12
        np.testing.assert_allclose(M1, M0, rtol=0, atol=tol * np.abs(M0).max())
        for r in (r1, r2, r3):
            np.testing.assert_allclose(r, r0, rtol=0, atol=tol * np.abs(r0).max())
        np.testing.assert_allclose(Ma, M0 @ a, rtol=0, atol=tol * np.abs(M0 @ a).max())


def test_compiled_terms_hold_at_large_elastic_coordinates():
    """The link's terms are polynomials in its elastic coordinates (link_coef): the
    coefficient form stays exact where the quadratic terms dominate (deflections and
    twists of the order of the link's length), with stiffening."""
    arm = tree_arm(True)
    model = arm.model
    P = sk.pack(model)
    el = np.concatenate([bl.elastic_index for bl in model.layout.bodies])
    for _ in range(3):
        q = 0.3 * rng.normal(size=arm.nq)
        q[el] = 2.0 * rng.normal(size=el.size)
        qd = rng.normal(size=arm.nq)
        M0, r0 = numpy_r(model, q, qd)
        M1, r1 = sk.tree_terms(P, q, qd, model.g_vec, True)
        # round-off: as above, the terms now O(1e2) larger than at O(0.3) coordinates
        tol = 1e-12
        np.testing.assert_allclose(M1, M0, rtol=0, atol=tol * np.abs(M0).max())
        np.testing.assert_allclose(r1, r0, rtol=0, atol=tol * np.abs(r0).max())


if planar_kernels.numba is not None:
    @planar_kernels.numba.njit
    def _dirty_heap(n):
        """A heap block of n floats filled with NaN and freed: the next blocks of up to
        that size (kernels._arena's) come from memory that held NaNs."""
        A = np.empty(n)
        A[:] = np.nan
        return A.shape[0]


def test_pass_results_are_fresh_and_initialised():
    """A pass's arrays are views of one block (kernels._arena): M, M a and r do not
    overlap, results kept by the caller are not touched by later passes, and none of
    them reads what the heap held before (a pass after the heap was filled with NaNs
    gives the same bits as before)."""
    arm = tree_arm(True)
    model = arm.model
    P = sk.pack(model)
    states = [(0.3 * rng.normal(size=arm.nq), rng.normal(size=arm.nq),
               rng.normal(size=arm.nq)) for _ in range(2)]

    def passes(q, qd, a):
        _dirty_heap(10000)
        M, r1 = sk.tree_terms(P, q, qd, model.g_vec, True)
        _dirty_heap(10000)
        Ma, r2 = sk.tree_forces(P, q, qd, model.g_vec, True, a)
        return M, r1, Ma, r2

    first = passes(*states[0])
    kept = [x.copy() for x in first]
    assert all(np.isfinite(x).all() for x in first)
    assert not np.shares_memory(first[0], first[1])
    assert not np.shares_memory(first[2], first[3])
    other = passes(*states[1])
    again = passes(*states[0])
    for x, y, z, w in zip(first, kept, again, other):
        assert x.tobytes() == y.tobytes() == z.tobytes()
        assert not np.array_equal(x, w)        # the second state's results are others


def test_link_coefficients_equal_closed_forms():
    """The constant sums of a uniform link (rho_A, rho_Ip, length L, a tip mass m_out)
    against their integrals, with deflections v = x^2, w = x^3 (which the cubic
    Hermite elements interpolate exactly) and twist phi = x (linear elements): the
    4-point Gauss rule integrates these polynomials of degree <= 6 per element exactly,
    so they agree to round-off (1e-13 relative)."""
    from chrono_flex.spatial import link_coef

    rho, rIp, L, m_out = 0.3, 0.02, 1.2, 0.4
    arm = SpatialArm([sp.SpatialLink(L, 3, EI_y=1.0, EI_z=1.0, GJ=1.0, rho_A=rho,
                                     rho_Ip=rIp), sp.RigidBody(m_out, (0.0, 0.0, 0.0))],
                     joints=[sp.RevoluteJoint(axis=(0, 0, 1)), sp.FixedJoint()],
                     parents=[-1, 0])
    bl, qu = arm.model.layout.bodies[0], arm.model.quad[0]
    m0, m1 = bl.body.beyond(qu.x)
    sc, vec, mats = link_coef.link_coefficients(qu, m0, m1, m_out, L)
    x = bl.basis.nodes[1:]
    V, W, PHI = (np.zeros(bl.basis.n) for _ in range(3))   # v = x^2, w = x^3, phi = x
    V[0::5], V[1::5] = x ** 2, 2 * x
    W[2::5], W[3::5] = x ** 3, 3 * x ** 2
    PHI[4::5] = x
    C = dict(zip(link_coef.MATRICES, mats))
    n = dict(zip(link_coef.VECTORS, vec))
    got = [*sc, n["n_v"] @ V, n["n_w"] @ W, n["n_vx"] @ V, n["n_wx"] @ W, n["n_phi"] @ PHI,
           V @ C["M_vv"] @ V, W @ C["M_ww"] @ W, V @ C["M_vw"] @ W, W @ C["M_wv"] @ V,
           V @ C["A_vw"] @ W, V @ C["K_0"] @ V, W @ C["K_1"] @ W,
           (V + PHI) @ C["M_ee"] @ (V + PHI)]
    # A_vw = M_vw - M_wv: V has no w, so V A_vw W = V M_vw W; int_x^L rho_A ds = rho
    # (L - x), int_x^L rho_A s ds = rho (L^2 - x^2) / 2; K_0 carries m_out, K_1 m_out L
    want = [rho * L, rho * L ** 2 / 2, rho * L ** 3 / 3, rIp * L, rho * L ** 3 / 3,
            rho * L ** 4 / 4, rho * L ** 4 / 4, rho * L ** 5 / 5, rIp * L ** 2 / 2,
            rho * L ** 5 / 5, rho * L ** 7 / 7, rho * L ** 6 / 6, rho * L ** 6 / 6,
            rho * L ** 6 / 6,
            4 * (rho * L ** 4 / 12 + m_out * L ** 3 / 3),
            9 * (rho * (L ** 7 / 5 - L ** 7 / 7) / 2 + m_out * L * L ** 5 / 5),
            rho * L ** 5 / 5 + rIp * L ** 3 / 3]
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13 * max(want))


def test_compiled_terms_see_every_term():
    """The comparison can fail: a changed section, joint offset or gravity changes the
    compiled terms by far more than round-off."""
    arm = tree_arm()
    q, qd = 0.3 * rng.normal(size=arm.nq), rng.normal(size=arm.nq)
    M0, r0 = numpy_r(arm.model, q, qd)
    other = tree_arm(True)
    P = sk.pack(other.model)
    _, r1 = sk.tree_terms(P, q, qd, other.model.g_vec, True)
    assert np.abs(r1 - r0).max() > 1e-6 * np.abs(r0).max()
    _, r2 = sk.tree_terms(sk.pack(arm.model), q, qd, np.zeros(3), False)
    assert np.abs(r2 - r0).max() > 1e-3 * np.abs(r0).max()


@pytest.mark.parametrize("kernels", ["numba", "numpy"])
def test_result_series_equal_the_equations_sample_by_sample(kernels, monkeypatch):
    """The result's series, computed over all samples at once (chrono_flex.spatial.post:
    compiled frames, or numpy's), against the equations' functions at each sample."""
    from chrono_flex.spatial import post

    if kernels == "numpy":
        monkeypatch.setattr(post, "packed_model", lambda model: None)
    arm = tree_arm()
    m = arm.model
    nt = 4
    Q, QD = 0.3 * rng.normal(size=(nt, arm.nq)), rng.normal(size=(nt, arm.nq))
    res = post.spatial_result(arm, np.arange(nt) * 0.1, Q, QD, np.zeros((nt, arm.n_joints)),
                              np.zeros(nt), np.zeros(nt), 7)
    for k in range(nt):
        cl, curv = mdl.centerlines(m, Q[k], 7)
        # round-off: the same products in another order
        np.testing.assert_allclose(res.centerline[k], cl, rtol=0, atol=1e-13)
        np.testing.assert_allclose(res.curvature[k], curv, rtol=0, atol=1e-12)
        np.testing.assert_allclose(res.centerline_rigid[k],
                                   mdl.centerlines(m, Q[k], 7, rigid=True)[0], rtol=0,
                                   atol=1e-13)
        np.testing.assert_allclose(res.tip_position[k], mdl.tip_frames(m, Q[k])[m.links[-1]].p,
                                   rtol=0, atol=1e-13)
        np.testing.assert_allclose(res.extra["tip_vw_phi"][k], mdl.tip_coordinates(m, Q[k]),
                                   rtol=0, atol=1e-14)
        e = res.energy
        assert e.kinetic[k] == pytest.approx(mdl.kinetic_energy(m, Q[k], QD[k]), rel=1e-12)
        assert e.gravity[k] == pytest.approx(mdl.gravity_potential(m, Q[k]), rel=1e-12)
        assert e.elastic[k] == pytest.approx(mdl.elastic_potential(m, Q[k]), rel=1e-12)


def test_frames_alone_and_stations_equal_the_full_pass_and_numpy():
    """The result's compiled helpers (chrono_flex.spatial.post_kernels): the frames
    without Jacobian columns against the frames of the full pass (kernels.tree_frames),
    and the centreline points against post's numpy products, at random states of the
    tree (prismatic and skew joints, offsets, rigid bodies)."""
    from chrono_flex.spatial import post, post_kernels

    arm = tree_arm()
    m = arm.model
    P = sk.pack(m)
    Q = 0.3 * rng.normal(size=(5, arm.nq))
    pos, rot = post_kernels.frames_only(P, Q)
    pos_full, rot_full, _ = sk.tree_frames(P, Q)
    # the same routines in the same order (only the Jacobian columns left out): the
    # positions and rotations agree to the last bit but for the compiler's contractions
    np.testing.assert_allclose(pos, pos_full, rtol=0, atol=1e-14)
    np.testing.assert_allclose(rot, rot_full, rtol=0, atol=1e-14)
    assert np.abs(pos[:, 1] - pos[:, 0]).max() > 0.1          # the frames move apart
    for i in m.links:
        bl = m.layout.bodies[i]
        x = np.linspace(0.0, bl.basis.length, 6)
        Nv, _, d2Nv, Nw, _, d2Nw, _, _ = bl.basis.values(x)
        E = Q[:, bl.elastic_index]
        pts, curv = post_kernels.stations(
            pos[:, 0, i], rot[:, 0, i], E, post_kernels.station_shapes(x, Nv, Nw, d2Nv, d2Nw))
        # round-off: the same sums, numpy's products in another order
        np.testing.assert_allclose(pts, post._points(pos, rot, i, x, Nv, Nw, E), rtol=0,
                                   atol=1e-14)
        np.testing.assert_allclose(curv, np.hypot(E @ d2Nv.T, E @ d2Nw.T), rtol=0,
                                   atol=1e-13)
        assert np.abs(curv).max() > 0.1


def test_frame_columns_list_what_the_frames_fill():
    """Each body's frame Jacobians are kept over fixed columns (kernels.frame_columns): a
    child's list begins with its parent's attachment frame's, then its joint, then a
    link's tip coordinates; every column the numpy frames move with is listed (a column
    left out would drop its terms), and every listed one is a coordinate of the body or
    of an ancestor (a tip value that is round-off rather than zero, as a node before
    the last one's at x = L, keeps its column: the numpy frames use it too)."""
    from chrono_flex.spatial import kinematics as kin
    for arm in (tree_arm(), chain_arm(), planar_case_arm()):
        m = arm.model
        P = sk.pack(m)
        lay = m.layout.bodies
        own = []
        for b, bl in enumerate(lay):
            cols = list(P.fcol[b, :P.bint[b, sk.BI_NCOL1]])
            mine = set(int(i) for i in bl.elastic_index)
            if bl.joint_index is not None:
                mine.add(int(bl.joint_index))
            if bl.parent >= 0:
                n = P.bint[bl.parent, sk.BI_NCOL1]
                assert cols[:n] == list(P.fcol[bl.parent, :n])
                mine |= own[bl.parent]
            own.append(mine)
            assert len(set(cols)) == len(cols) and set(cols) <= mine
        # the frames by differences of the numpy frames: a step of 1e-6 in a column
        # the frames depend on moves them by far more than 1e-9
        q = rng.normal(size=m.nq) * 0.1
        base = kin.tree_frames(m.layout, q)[1]
        for j in range(m.nq):
            dq = q.copy()
            dq[j] += 1e-6
            moved = kin.tree_frames(m.layout, dq)[1]
            for b in range(len(lay)):
                d = max(np.abs(moved[b].p - base[b].p).max(),
                        np.abs(moved[b].R - base[b].R).max())
                assert d <= 1e-9 or j in P.fcol[b, :P.bint[b, sk.BI_NCOL1]], (b, j, d)


def test_quadratic_forms_equal_einsum():
    """The compiled elastic energies' q^T K q (post_kernels.quadratic_forms, over the
    rows' nonzero ranges) equal numpy's einsum to round-off (1e-13 of the largest
    value: sums of a few dozen products in another order)."""
    from chrono_flex.spatial.post_kernels import quadratic_forms
    m = tree_arm().model
    Q = rng.normal(size=(7, m.nq))
    ref = np.einsum("ti,ij,tj->t", Q, m.K, Q)
    assert np.abs(quadratic_forms(Q, m.K) - ref).max() <= 1e-13 * np.abs(ref).max()
