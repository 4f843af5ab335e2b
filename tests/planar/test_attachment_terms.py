"""The weld's pure physics (chrono_flex.planar.floating: station, bushing_wrench,
attachment_terms) against finite differences and the virtual-power balance."""

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex.planar import floating

RNG = np.random.default_rng(11)


def rot(v):
    """exp([v]x) (Rodrigues)."""
    v = np.asarray(v, dtype=float)
    t = np.linalg.norm(v)
    if t == 0:
        return np.eye(3)
    k = v / t
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(t) * K + (1 - np.cos(t)) * K @ K


def two_link_model():
    links = [cf.Link(length=0.8, n_elements=3, EI=3.0, rho_A=0.4),
             cf.Link(length=0.6, n_elements=2, EI=2.0, rho_A=0.3)]
    return cf.PlanarArm(links).model


def test_station_at_the_tip_is_the_tip_frame():
    model = two_link_model()
    q = RNG.normal(scale=0.1, size=model.nq)
    r, _, phi, _ = floating.station(model, q, np.zeros(model.nq), 1, 0.6)
    p, psi = cf.planar.equations.tip_state(model, q)
    assert np.allclose(r, p, rtol=0, atol=1e-14) and abs(phi - psi) < 1e-14


def test_station_jacobians_are_the_derivatives_of_position_and_angle():
    model = two_link_model()
    q = RNG.normal(scale=0.1, size=model.nq)
    zero = np.zeros(model.nq)
    r, J, phi, Jphi = floating.station(model, q, zero, 1, 0.37)
    d = 1e-6                     # central differences: error ~ d^2 |r'''| ~ 1e-12
    for k in range(model.nq):
        e = np.zeros(model.nq)
        e[k] = d
        rp, _, pp, _ = floating.station(model, q + e, zero, 1, 0.37)
        rm, _, pm, _ = floating.station(model, q - e, zero, 1, 0.37)
        assert np.allclose((rp - rm) / (2 * d), J[:, k], atol=1e-8)
        assert abs((pp - pm) / (2 * d) - Jphi[k]) < 1e-8


def test_bushing_force_and_moment_are_minus_the_gradient_of_its_energy():
    k_p, k_r = 7.0, 3.0
    e = RNG.normal(size=3)
    R = rot(RNG.normal(scale=0.4, size=3))
    F, M, V, P = floating.bushing_wrench(e, R, np.zeros(3), np.zeros(3), k_p, k_r)
    assert P == 0.0
    d = 1e-6                     # central differences: truncation ~ d^2 V''' ~ 1e-12
    for i in range(3):
        u = np.zeros(3)
        u[i] = d
        Vp = floating.bushing_wrench(e + u, R, np.zeros(3), np.zeros(3), k_p, k_r)[2]
        Vm = floating.bushing_wrench(e - u, R, np.zeros(3), np.zeros(3), k_p, k_r)[2]
        assert abs(-(Vp - Vm) / (2 * d) - F[i]) < 1e-7
        # a world rotation u of the body: R_rel -> exp(u) R_rel
        Vp = floating.bushing_wrench(e, rot(u) @ R, np.zeros(3), np.zeros(3), k_p, k_r)[2]
        Vm = floating.bushing_wrench(e, rot(-u) @ R, np.zeros(3), np.zeros(3), k_p, k_r)[2]
        assert abs(-(Vp - Vm) / (2 * d) - M[i]) < 1e-7
    assert V > 0


def test_dampers_dissipate_their_stated_power():
    ed, wr = RNG.normal(size=3), RNG.normal(size=3)
    F, M, _, P = floating.bushing_wrench(np.zeros(3), np.eye(3), ed, wr, 0.0, 0.0, 2.0, 0.5)
    assert np.isclose(P, -(F @ ed + M @ wr), rtol=1e-14)
    assert P > 0


@pytest.mark.parametrize("link, s, damped", [(0, 0.5, False), (1, 0.6, False), (1, 0.2, True)])
def test_generalized_forces_do_the_work_the_bushing_loses(link, s, damped):
    """Virtual power: Q_body . w_b + Q_q . q_dot + Q_parent . w_B = -dV/dt - P along any
    motion (moving parent, moving body, deforming link), dV/dt by central differences."""
    model = two_link_model()
    nq = model.nq
    q, qd = RNG.normal(scale=0.1, size=nq), RNG.normal(size=nq)
    pB, AB, vB, wB = RNG.normal(size=3), rot(RNG.normal(size=3)), RNG.normal(size=3), RNG.normal(size=3)
    o, P = np.array([0.1, -0.2, 0.05]), rot(RNG.normal(size=3))[:, :2]
    xb, Ab, vb, wb = RNG.normal(size=3), rot(RNG.normal(size=3)), RNG.normal(size=3), RNG.normal(size=3)
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
    # the random states load the bushing: the balance above is not between zeros
    assert np.linalg.norm(t0["force"]) > 0


def test_bushing_stiffness_rule():
    k_p, k_r = floating.bushing_stiffness(EI=2.0, element_length=0.25, ratio=10.0)
    assert np.isclose(k_p, 10 * 12 * 2.0 / 0.25 ** 3) and np.isclose(k_r, 10 * 4 * 2.0 / 0.25)


def test_weld_jacobians_are_the_derivatives_of_its_forces_up_to_geometric_terms():
    """K = -dQ/dx and R = -dQ/dw by central differences over every coordinate (body
    rotations as Chrono increments them: A exp(S(delta)) in the body frame), for a
    loaded weld (gap 1e-6 of the lever): the left-out terms, force times curvature
    (~gap / lever = 1e-6 of k) and damping times the frames' turning (c |omega| |s| / k,
    ~1e-5 with these rates), stay below 1e-4 of each block."""
    rng = np.random.default_rng(7)            # its own draws: independent of test order
    model = two_link_model()
    nq = model.nq
    q, qd = rng.normal(scale=0.1, size=nq), rng.normal(size=nq)
    pB, AB, vB, wB = rng.normal(size=3), rot(rng.normal(size=3)), rng.normal(size=3), rng.normal(size=3)
    o, P = np.array([0.1, -0.2, 0.05]), rot(rng.normal(size=3))[:, :2]
    d, Fr = rng.normal(scale=0.1, size=3), rot(rng.normal(size=3))
    link, s = 1, 0.45
    gains = (1e6, 3e5, 4.0, 0.7)
    placement = (pB, AB, vB, wB, o, P)
    # the body sits on the station to 1e-6 m / rad, moving with it to 1e-3 m/s
    R_L, A_L, v_L, w_L = floating.station_motion(model, q, qd, link, s, placement)
    Ab = A_L @ Fr.T @ rot(rng.normal(scale=1e-6, size=3))
    xb = R_L - Ab @ d + rng.normal(scale=1e-6, size=3)
    wb = Ab.T @ w_L + rng.normal(scale=1e-3, size=3)
    vb = v_L - np.cross(Ab @ wb, Ab @ d) + rng.normal(scale=1e-3, size=3)
    K, R = floating.attachment_jacobians(model, q, link, s, placement, (xb, Ab, vb, wb), d, gains)
    blocks = {"parent": 6, "q": nq, "body": 6}

    def Q(dx=None, dw=None):
        """Stacked [Q_parent, Q_q, Q_body] at increments dx, dw (dicts of blocks)."""
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
                arg = {b: e}
                plus = Q(**{"d" + which: arg})
                minus = Q(**{"d" + which: {b: -e}})
                for a in blocks:
                    fd = -(plus[a] - minus[a]) / (2 * h)
                    scale = np.max(np.abs(M[(a, b)])) + 1e-300
                    assert np.allclose(fd, M[(a, b)][:, i], rtol=0, atol=1e-4 * scale), \
                        (which, a, b, i)
