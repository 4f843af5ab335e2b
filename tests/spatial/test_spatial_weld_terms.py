"""The spatial weld's pure physics (chrono_flex.spatial.floating: station,
station_motion, attachment_terms, attachment_jacobians) against the tip frame, finite
differences and the virtual-power balance."""

import numpy as np
import pytest

from chrono_flex.spatial import equations as mdl
from chrono_flex.spatial import floating
from chrono_flex.spatial.arm import SpatialArm
from chrono_flex.spatial.params import PrismaticJoint, RevoluteJoint, RigidBody, SpatialLink

RNG = np.random.default_rng(23)


def rot(v):
    """exp([v]x) (Rodrigues)."""
    v = np.asarray(v, dtype=float)
    t = np.linalg.norm(v)
    if t == 0:
        return np.eye(3)
    k = v / t
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(t) * K + (1 - np.cos(t)) * K @ K


def vee(S):
    return 0.5 * np.array([S[2, 1] - S[1, 2], S[0, 2] - S[2, 0], S[1, 0] - S[0, 1]])


def tree_model():
    """A hub on a tilted revolute joint, a link on a turned revolute joint, a second link
    on a prismatic joint at its tip: every kind of parent frame on the path."""
    a = SpatialLink(0.8, 3, EI_y=3.0, EI_z=2.0, GJ=1.0, rho_A=0.5, rho_Ip=1e-3)
    b = SpatialLink(0.6, 2, EI_y=1.5, EI_z=2.5, GJ=0.7, rho_A=0.3, rho_Ip=1e-3,
                    element_lengths=(0.25, 0.35))
    joints = [RevoluteJoint(axis=(0.3, -0.2, 1.0)),
              RevoluteJoint(axis=(0, 1, 0), offset=(0.05, 0.01, 0)),
              PrismaticJoint(axis=(0.2, 1.0, 0.1), x_axis=(0, 1, 0), y_axis=(-1, 0, 0))]
    return SpatialArm([RigidBody(1.0, (0.02, 0.02, 0.05)), a, b], joints).model


def test_station_at_the_tip_is_the_tip_frame():
    model = tree_model()
    q, qd = RNG.normal(scale=0.1, size=model.nq), RNG.normal(size=model.nq)
    for link, body in enumerate(model.links):
        f = floating.station(model, q, qd, link, model.bases[body].length)
        tip = mdl.tip_frames(model, q, qd)[body]
        for name in ("p", "Jp", "R", "Jw", "w", "ap", "aw"):
            # the same arithmetic on the same path: round-off only
            assert np.allclose(getattr(f, name), getattr(tip, name), rtol=0, atol=1e-13), name


@pytest.mark.parametrize("link, s", [(0, 0.3), (1, 0.31), (1, 0.0)])
def test_station_jacobians_are_the_derivatives_of_position_and_rotation(link, s):
    model = tree_model()
    q = RNG.normal(scale=0.1, size=model.nq)
    zero = np.zeros(model.nq)
    f = floating.station(model, q, zero, link, s)
    d = 1e-6                     # central differences: error ~ d^2 |r'''| ~ 1e-12
    for k in range(model.nq):
        e = np.zeros(model.nq)
        e[k] = d
        fp = floating.station(model, q + e, zero, link, s)
        fm = floating.station(model, q - e, zero, link, s)
        assert np.allclose((fp.p - fm.p) / (2 * d), f.Jp[:, k], rtol=0, atol=1e-8)
        # dR/dq_k R^T = S(Jw[:, k])
        assert np.allclose(vee((fp.R - fm.R) / (2 * d) @ f.R.T), f.Jw[:, k], rtol=0,
                           atol=1e-8)


def _random_state(rng):
    model = tree_model()
    nq = model.nq
    q, qd = rng.normal(scale=0.1, size=nq), rng.normal(size=nq)
    placement = (rng.normal(size=3), rot(rng.normal(size=3)), rng.normal(size=3),
                 rng.normal(size=3), np.array([0.1, -0.2, 0.05]), rot(rng.normal(size=3)))
    return model, q, qd, placement


@pytest.mark.parametrize("link, s, damped", [(0, 0.5, False), (1, 0.6, False), (1, 0.2, True)])
def test_generalized_forces_do_the_work_the_bushing_loses(link, s, damped):
    """Virtual power: Q_body . w_b + Q_q . q_dot + Q_parent . w_B = -dV/dt - P along any
    motion (moving parent, moving body, deforming link), dV/dt by central differences."""
    model, q, qd, (pB, AB, vB, wB, o, P) = _random_state(RNG)
    xb, Ab = RNG.normal(size=3), rot(RNG.normal(size=3))
    vb, wb = RNG.normal(size=3), RNG.normal(size=3)
    d, Fr = RNG.normal(scale=0.1, size=3), rot(RNG.normal(size=3))
    gains = (50.0, 20.0, 0.7, 0.3) if damped else (50.0, 20.0, 0.0, 0.0)

    def terms(dt):
        placement = (pB + vB * dt, AB @ rot(wB * dt), vB, wB, o, P)
        body = (xb + vb * dt, Ab @ rot(wb * dt), vb, wb)
        return floating.attachment_terms(model, q + qd * dt, qd, link, s, placement, body,
                                         d, Fr, gains)

    t0 = terms(0.0)
    h = 1e-6                     # central differences of V: error ~ h^2 V''' ~ 1e-10
    dVdt = (terms(h)["energy"] - terms(-h)["energy"]) / (2 * h)
    power = (t0["Q_body"] @ np.concatenate([vb, wb]) + t0["Q_q"] @ qd
             + t0["Q_parent"] @ np.concatenate([vB, wB]))
    scale = abs(dVdt) + t0["power"]
    assert abs(power + dVdt + t0["power"]) < 1e-6 * scale
    assert np.linalg.norm(t0["force"]) > 0 and np.linalg.norm(t0["moment"]) > 0


def test_station_motion_is_the_time_derivative_of_the_station_pose():
    model, q, qd, (pB, AB, vB, wB, o, P) = _random_state(RNG)

    def pose(dt):
        pl = (pB + vB * dt, AB @ rot(wB * dt), vB, wB, o, P)
        return floating.station_motion(model, q + qd * dt, qd, 1, 0.4, pl)

    R0, A0, v0, w0 = pose(0.0)
    h = 1e-6                     # central differences: ~h^2 of the motion's third derivative
    Rp, Ap, _, _ = pose(h)
    Rm, Am, _, _ = pose(-h)
    assert np.allclose((Rp - Rm) / (2 * h), v0, rtol=0, atol=1e-8)
    assert np.allclose(vee((Ap - Am) / (2 * h) @ A0.T), w0, rtol=0, atol=1e-8)


def test_weld_jacobians_are_the_derivatives_of_its_forces_up_to_geometric_terms():
    """K = -dQ/dx and R = -dQ/dw by central differences over every coordinate (body
    rotations as Chrono increments them: A exp(S(delta)) in the body frame), for a
    weld loaded to a gap of 1e-6 of the lever: the left-out geometric terms (~gap /
    lever of k) and the dampers' forces turning with the frames (c |omega| |s| / k,
    ~1e-5 here) stay below 1e-4 of each block."""
    rng = np.random.default_rng(7)
    model, q, qd, placement = _random_state(rng)
    pB, AB, vB, wB, o, P = placement
    nq = model.nq
    d, Fr = rng.normal(scale=0.1, size=3), rot(rng.normal(size=3))
    link, s = 1, 0.45
    gains = (1e6, 3e5, 4.0, 0.7)
    R_L, A_L, v_L, w_L = floating.station_motion(model, q, qd, link, s, placement)
    Ab = A_L @ Fr.T @ rot(rng.normal(scale=1e-6, size=3))
    xb = R_L - Ab @ d + rng.normal(scale=1e-6, size=3)
    wb = Ab.T @ w_L + rng.normal(scale=1e-3, size=3)
    vb = v_L - np.cross(Ab @ wb, Ab @ d) + rng.normal(scale=1e-3, size=3)
    K, R = floating.attachment_jacobians(model, q, link, s, placement, (xb, Ab, vb, wb), d,
                                         gains)
    blocks = {"parent": 6, "q": nq, "body": 6}

    def Q(dx=None, dw=None):
        dx, dw = dx or {}, dw or {}
        zx = {k: dx.get(k, np.zeros(n)) for k, n in blocks.items()}
        zw = {k: dw.get(k, np.zeros(n)) for k, n in blocks.items()}
        pl = (pB + zx["parent"][:3], AB @ rot(zx["parent"][3:]), vB + zw["parent"][:3],
              wB + zw["parent"][3:], o, P)
        bd = (xb + zx["body"][:3], Ab @ rot(zx["body"][3:]), vb + zw["body"][:3],
              wb + zw["body"][3:])
        t = floating.attachment_terms(model, q + zx["q"], qd + zw["q"], link, s, pl, bd, d,
                                      Fr, gains)
        return {"parent": t["Q_parent"], "q": t["Q_q"], "body": t["Q_body"]}

    h = 1e-7                      # central differences: truncation ~ h^2 k |G''| << 1e-6 k
    for b, n in blocks.items():
        for i in range(n):
            e = np.zeros(n)
            e[i] = h
            for which, M in (("x", K), ("w", R)):
                plus = Q(**{"d" + which: {b: e}})
                minus = Q(**{"d" + which: {b: -e}})
                for a in blocks:
                    col = -(plus[a] - minus[a]) / (2 * h)
                    ref = M[(a, b)][:, i]
                    scale = np.max(np.abs(M[(a, b)])) + 1e-300
                    assert np.allclose(col, ref, rtol=0, atol=1e-4 * scale), (which, a, b, i)


def test_link_bushing_stiffness_takes_the_stiffer_plane_and_shortest_element():
    link = SpatialLink(0.6, 2, EI_y=1.5, EI_z=2.5, GJ=0.7, rho_A=0.3, rho_Ip=1e-3,
                       element_lengths=(0.25, 0.35))
    k_p, k_r = floating.link_bushing_stiffness(link, 10.0)
    assert np.isclose(k_p, 10 * 12 * 2.5 / 0.25 ** 3, rtol=1e-12)
    assert np.isclose(k_r, 10 * 4 * 2.5 / 0.25, rtol=1e-12)
