"""Checks shared by the planar and the spatial weld terms (planar/test_attachment_terms.py,
spatial/test_spatial_weld_terms.py): both physics modules (chrono_flex.planar.floating,
chrono_flex.spatial.floating) offer station_motion, attachment_terms and
attachment_jacobians with the same arguments; only the arm model and the plane axes P
(3 x 2 planar, 3 x 3 spatial) differ."""

import numpy as np


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


def check_power_balance(floating, model, q, qd, placement, link, s, damped, rng):
    """Virtual power: Q_body . w_b + Q_q . q_dot + Q_parent . w_B = -dV/dt - P along any
    motion (moving parent, moving body, deforming link), dV/dt by central differences.
    Returns the terms at t = 0."""
    pB, AB, vB, wB, o, P = placement
    xb, Ab = rng.normal(size=3), rot(rng.normal(size=3))
    vb, wb = rng.normal(size=3), rng.normal(size=3)
    d, Fr = rng.normal(scale=0.1, size=3), rot(rng.normal(size=3))
    gains = (50.0, 20.0, 0.7, 0.3) if damped else (50.0, 20.0, 0.0, 0.0)

    def terms(dt):
        pl = (pB + vB * dt, AB @ rot(wB * dt), vB, wB, o, P)
        body = (xb + vb * dt, Ab @ rot(wb * dt), vb, wb)
        return floating.attachment_terms(model, q + qd * dt, qd, link, s, pl, body, d, Fr,
                                         gains)

    t0 = terms(0.0)
    h = 1e-6                     # central differences of V: error ~ h^2 V''' ~ 1e-10
    dVdt = (terms(h)["energy"] - terms(-h)["energy"]) / (2 * h)
    power = (t0["Q_body"] @ np.concatenate([vb, wb]) + t0["Q_q"] @ qd
             + t0["Q_parent"] @ np.concatenate([vB, wB]))
    scale = abs(dVdt) + t0["power"]
    assert abs(power + dVdt + t0["power"]) < 1e-6 * scale
    return t0


def check_weld_jacobians(floating, model, q, qd, placement, link, s, rng):
    """K = -dQ/dx and R = -dQ/dw by central differences over every coordinate (body
    rotations as Chrono increments them: A exp(S(delta)) in the body frame), for a
    loaded weld (gap 1e-6 of the lever): the left-out terms, force times curvature
    (~gap / lever = 1e-6 of k) and damping times the frames' turning (c |omega| |s| / k,
    ~1e-5 with these rates), stay below 1e-4 of each block."""
    pB, AB, vB, wB, o, P = placement
    nq = model.nq
    d, Fr = rng.normal(scale=0.1, size=3), rot(rng.normal(size=3))
    gains = (1e6, 3e5, 4.0, 0.7)
    # the body sits on the station to 1e-6 m / rad, moving with it to 1e-3 m/s
    R_L, A_L, v_L, w_L = floating.station_motion(model, q, qd, link, s, placement)
    Ab = A_L @ Fr.T @ rot(rng.normal(scale=1e-6, size=3))
    xb = R_L - Ab @ d + rng.normal(scale=1e-6, size=3)
    wb = Ab.T @ w_L + rng.normal(scale=1e-3, size=3)
    vb = v_L - np.cross(Ab @ wb, Ab @ d) + rng.normal(scale=1e-3, size=3)
    K, R = floating.attachment_jacobians(model, q, link, s, placement, (xb, Ab, vb, wb), d,
                                         gains)
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
                plus = Q(**{"d" + which: {b: e}})
                minus = Q(**{"d" + which: {b: -e}})
                for a in blocks:
                    fd = -(plus[a] - minus[a]) / (2 * h)
                    scale = np.max(np.abs(M[(a, b)])) + 1e-300
                    assert np.allclose(fd, M[(a, b)][:, i], rtol=0, atol=1e-4 * scale), \
                        (which, a, b, i)
