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
