"""Shared helpers of the Chrono step-study tests (chrono/test_element.py,
chrono/test_drive.py): see the module docstring of chrono/test_element.py."""

import numpy as np

#: Safety factor S on the Richardson error model.
SAFETY = 3.0


def step_study(ys, hs, y_ref, rtol_ref, atol_ref, safety=SAFETY):
    """Observed orders p (per column) and, per step, the worst ratio of the actual error
    to the allowed one (must be <= 1).

    Runs ``ys`` at steps ``hs`` = (h, h/2, h/4): p = log2(d1 / d2) from the self-differences
    d1 = max|y(h) - y(h/2)|, d2 = max|y(h/2) - y(h/4)| (p clipped to [0.5, 4] in the error
    model), e(h_k) = C h_k^p with C = d2 / ((h/4)^p (2^p - 1)), and every run must satisfy
    |y(h_k) - y_ref| <= safety e(h_k) + atol_ref + rtol_ref max|y_ref|.
    """
    ys = [np.asarray(y) for y in ys]
    d1 = np.max(np.abs(ys[0] - ys[1]), axis=0)
    d2 = np.max(np.abs(ys[1] - ys[2]), axis=0)
    scale = np.max(np.abs(y_ref), axis=0)
    floor = 1e-13 * np.maximum(scale, 1e-300)
    p = np.log2(np.maximum(d1, floor) / np.maximum(d2, floor))
    pc = np.clip(p, 0.5, 4.0)
    C = d2 / (hs[2] ** pc * (2.0 ** pc - 1.0))
    ratios = [np.max(np.abs(y - y_ref), axis=0)
              / (safety * C * h ** pc + atol_ref + rtol_ref * scale + floor)
              for y, h in zip(ys, hs)]
    return p, np.array(ratios)


def assert_step_study(ys, hs, y_ref, rtol_ref, atol_ref, min_order):
    """:func:`step_study` asserted: every observed order above ``min_order`` and every run
    within its bound (ratios <= 1). Returns (p, ratios)."""
    p, ratios = step_study(ys, hs, y_ref, rtol_ref, atol_ref)
    assert np.all(p > min_order), p
    assert np.all(ratios <= 1.0), (p, ratios)
    return p, ratios


def falling_system(chrono, position=None):
    """A system with gravity -9.81 along world Z (the sparse LU and HHT of
    configure_system) and a 1e6 kg body falling freely in it, with an initial
    velocity (0.5, -1, 2) m/s: a moving parent whose frame, seen by an arm on it, is
    inertial (Einstein's lift). Returns (system, body)."""
    from chrono_flex.chrono import configure_system

    system = chrono.ChSystemNSC()
    system.SetGravitationalAcceleration(chrono.ChVector3d(0, 0, -9.81))
    configure_system(system)
    body = chrono.ChBody()
    body.SetMass(1e6)
    body.SetInertiaXX(chrono.ChVector3d(1e6, 1e6, 1e6))
    if position is not None:
        body.SetPos(chrono.ChVector3d(*position))
    body.SetPosDt(chrono.ChVector3d(0.5, -1.0, 2.0))
    body.SetPosDt2(chrono.ChVector3d(0, 0, -9.81))
    system.Add(body)
    return system, body


def sample(system, h, t_end, dt, read):
    """Step ``system`` by h up to t_end (chrono_flex.chrono.step, SWIG's leak lines
    dropped) and return the array of ``read()`` taken every dt."""
    from chrono_flex.chrono import quiet_swig, step

    every = int(round(dt / h))
    out = []
    with quiet_swig():
        for k in range(1, int(round(t_end / h)) + 1):
            step(system, h)
            if k % every == 0:
                out.append(read())
    return np.array(out)
