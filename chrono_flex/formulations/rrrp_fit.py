"""[W]'s exponent lambda(a) of arms 2+3, reproduced from a finite-element modal analysis.

[W] shapes the combined arm 2+3 of the RRRP arm as ``(x/L)^lambda(a)``, ``L = l2 + a``,
with lambda fitted to the first mode of a finite-element model of the arm at nine
extension states and then written as a quadratic in ``a`` (docs/rrrp-arm.md §3.1).
This module repeats that procedure with the project's own cubic Hermite elements:

1. the combined arm at extension ``a`` is a cantilever clamped at joint A, of length
   ``L`` and three sections: arm 2 alone on ``[0, L - l3)``, both tubes together on
   ``[L - l3, l2]`` (their EI and rho A add), arm 3 alone on ``(l2, L]``
   (:func:`combined_arm_sections`); element ends fall on the section changes, so every
   element is uniform and its matrices (docs/planar-link.md eqs. (2.3)-(2.4)) are exact;
2. its first bending mode (:func:`first_mode`), from ``K v = omega^2 M v`` with the root
   clamped, is sampled along the arm through the Hermite interpolation and scaled to a
   tip value of 1;
3. lambda(a) minimises ``sum_k ((x_k/L)^lambda - phi(x_k))^2`` over equally spaced
   samples (:func:`fit_exponent`);
4. ``c2 a^2 + c1 a + c0`` is the least-squares quadratic through the nine (a, lambda)
   pairs (:func:`fit_lambda`).

What [W] leaves open (its FE model and mesh, whether the end-effector mass sat on the arm,
how the fit was weighted) is chosen here as: no end-effector mass (``tip_mass=0``, a
parameter), twelve elements per metre, 10 samples per element. For the geometry [W]
states the result is lambda(a) = 0.0160 a^2 - 0.0164 a + 1.4770 against [W]'s 0.0167 a^2
- 0.0227 a + 1.4952: the two curves differ by at most 0.018 for a in [0, 4] m.
"""

from dataclasses import dataclass

import numpy as np
from scipy.linalg import eigh
from scipy.optimize import minimize_scalar

from .. import _checks as ck
from ..errors import ParameterError
from ..planar.shapes import hermite_functions, hermite_mass, hermite_stiffness
from .rrrp import RRRPParams

#: Elements per metre of the combined arm (the first mode's lambda changes by < 1e-5
#: from 12 to 24 per metre: Hermite elements converge at order 4 in the frequency).
ELEMENTS_PER_METRE = 12
#: Samples of the mode per element for the least-squares fit.
SAMPLES_PER_ELEMENT = 10


def combined_arm_sections(params, a):
    """Sections of the combined arm 2+3 at extension ``a``: a list of
    ``(x0, x1, EI, rho_A)`` from joint A (x = 0) to the tip (x = l2 + a), N m^2 and kg/m.

    Arm 2 covers [0, l2], arm 3 covers [L - l3, L]; where they overlap both tubes bend
    and move together, so their stiffnesses and masses per length add (docs/rrrp-arm.md §4).
    """
    p = params
    L = p.l2 + a
    cuts = sorted({0.0, L, *(c for c in (L - p.l3, p.l2) if 0.0 < c < L)})
    out = []
    for x0, x1 in zip(cuts[:-1], cuts[1:]):
        xm = 0.5 * (x0 + x1)
        in2, in3 = xm < p.l2, xm > L - p.l3
        out.append((x0, x1, p.EI2 * in2 + p.EI3 * in3, p.rho_A2 * in2 + p.rho_A3 * in3))
    return out


def first_mode(params, a, tip_mass=0.0, elements_per_metre=ELEMENTS_PER_METRE):
    """First clamped-free bending mode of the combined arm at extension ``a``.

    Returns (x, phi, omega): samples x (m) from the root to the tip, the mode phi(x)
    scaled to phi(L) = 1, and its circular frequency omega (rad/s). ``tip_mass`` (kg) is
    a point mass at the tip (for example the end effector m_B).
    """
    p = params
    ck.non_negative("tip_mass", tip_mass)
    ck.positive_int("elements_per_metre", elements_per_metre)
    nodes, EI, rA = [0.0], [], []
    for x0, x1, ei, ra in combined_arm_sections(p, a):
        n = max(2, int(np.ceil((x1 - x0) * elements_per_metre)))
        nodes += list(np.linspace(x0, x1, n + 1)[1:])
        EI += [ei] * n
        rA += [ra] * n
    nodes = np.array(nodes)
    ne = nodes.size - 1
    K = np.zeros((2 * ne + 2, 2 * ne + 2))
    M = np.zeros_like(K)
    for e in range(ne):
        le = nodes[e + 1] - nodes[e]
        dofs = slice(2 * e, 2 * e + 4)
        K[dofs, dofs] += hermite_stiffness(EI[e], le)
        M[dofs, dofs] += hermite_mass(rA[e], le)
    M[-2, -2] += tip_mass
    w2, V = eigh(K[2:, 2:], M[2:, 2:], subset_by_index=(0, 0))     # clamped root
    v = np.concatenate([[0.0, 0.0], V[:, 0]])
    xi = np.arange(SAMPLES_PER_ELEMENT) / SAMPLES_PER_ELEMENT
    x, phi = [], []
    for e in range(ne):
        le = nodes[e + 1] - nodes[e]
        H, _, _ = hermite_functions(xi, le)
        x.append(nodes[e] + xi * le)
        phi.append(H @ v[2 * e:2 * e + 4])
    x = np.concatenate(x + [[nodes[-1]]])
    phi = np.concatenate(phi + [[v[-2]]])
    return x, phi / phi[-1], float(np.sqrt(w2[0]))


def fit_exponent(x, phi):
    """The exponent lambda of ``(x/L)^lambda`` (L = x[-1]) closest to ``phi`` in least
    squares over the samples (bounded search on [1, 3], to ~1e-7)."""
    x, phi = np.asarray(x, float), np.asarray(phi, float)
    s = x / x[-1]
    res = minimize_scalar(lambda lam: np.sum((s**lam - phi) ** 2), bounds=(1.0, 3.0),
                          method="bounded", options=dict(xatol=1e-9))
    return float(res.x)


@dataclass(frozen=True)
class LambdaFit:
    """The fit of :func:`fit_lambda`: extensions (m), the exponent at each, their
    first-mode frequencies (Hz) and the quadratic ``coeffs = (c2, c1, c0)`` through them
    (the form of RRRPParams.lambda_coeffs)."""

    extensions: np.ndarray
    exponents: np.ndarray
    frequencies: np.ndarray
    coeffs: tuple

    def lam(self, a):
        c2, c1, c0 = self.coeffs
        return (c2 * np.asarray(a) + c1) * np.asarray(a) + c0


def fit_lambda(params=None, extensions=None, tip_mass=0.0,
               elements_per_metre=ELEMENTS_PER_METRE):
    """[W]'s procedure (module docstring): lambda at each extension and the quadratic.

    extensions: the extension states a (m); default nine from max(0, l3 - l2) to l3: arm 3
    reaches past arm 2's end (a >= 0, so the combined arm is L = l2 + a long) and stays
    inside arm 2's span (a >= l3 - l2, a <= l3); 0, 0.5, ..., 4 m for [W]'s arm.
    """
    p = RRRPParams() if params is None else params
    if not isinstance(p, RRRPParams):
        raise ParameterError("params", params, "must be an RRRPParams")
    if extensions is None:
        extensions = np.linspace(max(0.0, p.l3 - p.l2), p.l3, 9)
    a = ck.vector("extensions", extensions)
    if a.size < 3:
        raise ParameterError("extensions", extensions, "must hold at least 3 states (a quadratic)")
    lo = max(0.0, p.l3 - p.l2)
    if np.any(a < lo) or np.any(a > p.l3):
        raise ParameterError("extensions", extensions,
                             f"must lie in [max(0, l3 - l2), l3] = [{lo:g}, {p.l3:g}] m "
                             "(arm 3 out of arm 2's end and inside its span)")
    lams, freqs = [], []
    for ai in a:
        x, phi, omega = first_mode(p, ai, tip_mass, elements_per_metre)
        lams.append(fit_exponent(x, phi))
        freqs.append(omega / (2 * np.pi))
    coeffs = tuple(float(c) for c in np.polyfit(a, lams, 2))
    return LambdaFit(a, np.array(lams), np.array(freqs), coeffs)
