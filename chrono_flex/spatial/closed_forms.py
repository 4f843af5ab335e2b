"""Closed forms of beam theory the spatial link is checked against (docs/spatial-link.md §5).

* bending in each principal plane: clamped-free frequencies
  f_r = (beta_r L)^2 / (2 pi L^2) sqrt(EI / rho_A), 1 + cos(bL) cosh(bL) = 0
  (:func:`chrono_flex.planar.shapes.clamped_free_frequencies`; Blevins, Formulas for
  natural frequency and mode shape, table 8-1), with EI_z for v and EI_y for w;
* torsion of a clamped-free shaft (Blevins table 8-19; Timoshenko, Vibration problems in
  engineering, §4.4): omega_n = (2n - 1) pi / (2L) sqrt(GJ / rho_Ip);
* static cantilever under a tip force (P_y, P_z) and a tip torque T (Roark's formulas
  for stress and strain, 7th ed., table 8.1 case 1a; Saint-Venant torsion):
  v(x) = P_y x^2 (3L - x) / (6 EI_z), w(x) = P_z x^2 (3L - x) / (6 EI_y),
  phi(x) = T x / GJ;
* n identical links clamped to a free hub of inertia J_h at radius r, turning about the
  hub axis (:func:`hub_links_frequencies`, derived in docs/spatial-link.md §5.3).
"""

import math

import numpy as np
from scipy.optimize import brentq

from ..planar.shapes import clamped_free_frequencies


def torsion_frequencies(GJ, rho_Ip, L, k=3):
    """First k torsional frequencies (Hz) of a clamped-free uniform shaft:
    omega_n = (2n - 1) pi / (2L) sqrt(GJ / rho_Ip) (module docstring)."""
    n = np.arange(1, k + 1)
    return (2 * n - 1) * math.pi / (2 * L) * math.sqrt(GJ / rho_Ip) / (2 * math.pi)


def bending_frequencies(EI, rho_A, L, k=3):
    """First k clamped-free bending frequencies (Hz) for one plane's EI."""
    return clamped_free_frequencies(EI, rho_A, L, k)


def cantilever_deflection(x, L, EI_y, EI_z, GJ, force=(0.0, 0.0), torque=0.0):
    """(v, v', w, w', phi) at abscissae x of a cantilever under a tip force
    (P_y, P_z) in its frame and a tip torque T about its axis (module docstring)."""
    x = np.asarray(x, dtype=float)
    Py, Pz = force
    shape = x * x * (3 * L - x) / 6.0
    slope = x * (2 * L - x) / 2.0
    return (Py * shape / EI_z, Py * slope / EI_z, Pz * shape / EI_y, Pz * slope / EI_y,
            torque * x / GJ)


def hub_links_determinant(beta_L, EI, rho_A, L, J_hub, n_links, radius=0.0):
    """The characteristic function of n links on a free hub (docs/spatial-link.md §5.3).

    With the absolute deflection Y(x) = A cosh bx + B sinh bx + C cos bx + D sin bx of
    each link and the hub angle Theta (Theta_L = Theta L):

        Y(0) = r Theta,  Y'(0) = Theta,  Y''(L) = 0,  Y'''(L) = 0,
        -J_h omega^2 Theta = n EI (Y''(0) - r Y'''(0)),   omega^2 = b^4 EI / rho_A,

    a 5 x 5 homogeneous system in (A, B, C, D, Theta_L) whose determinant (the tip rows
    divided by cosh bL) vanishes at the natural frequencies of the modes that turn the hub.
    """
    b = beta_L / L
    c, s = math.cos(beta_L), math.sin(beta_L)
    ch, th = 1.0, math.tanh(beta_L)            # cosh and sinh divided by cosh bL
    sc = 1.0 / math.cosh(beta_L)
    A = np.array([
        [1.0, 0.0, 1.0, 0.0, -radius / L],
        [0.0, beta_L, 0.0, beta_L, -1.0],
        [ch, th, -c * sc, -s * sc, 0.0],
        [th, ch, s * sc, -c * sc, 0.0],
        [n_links, -n_links * radius * b, -n_links, n_links * radius * b,
         J_hub * b * b / (rho_A * L)]])
    return np.linalg.det(A)


def hub_links_frequencies(k, EI, rho_A, L, J_hub, n_links=2, radius=0.0):
    """First k frequencies (Hz) of the modes of n identical clamped-free links on a free
    hub of inertia J_hub (links at radius r) that turn the hub: the roots of
    :func:`hub_links_determinant`. n links on J_h with r = 0 are one link on J_h / n:
    1 + cos cosh for J_h -> infinity (clamped-free), tan bL = tanh bL for J_h -> 0
    (pinned-free)."""
    f = lambda bl: hub_links_determinant(bl, EI, rho_A, L, J_hub, n_links, radius)  # noqa: E731
    grid = np.linspace(0.3, (k + 2) * math.pi, 4000)
    vals = [f(b) for b in grid]
    roots = []
    for a, b, fa, fb in zip(grid[:-1], grid[1:], vals[:-1], vals[1:]):
        if fa * fb < 0:
            roots.append(brentq(f, a, b, xtol=1e-14))
            if len(roots) == k:
                break
    bl = np.array(roots)
    return (bl / L) ** 2 * math.sqrt(EI / rho_A) / (2 * math.pi)


__all__ = ["bending_frequencies", "cantilever_deflection", "hub_links_determinant",
           "hub_links_frequencies", "torsion_frequencies"]
