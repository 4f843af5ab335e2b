"""Shape bases w(x) = N(x) e of a clamped link, behind one interface.

Two families run through the same equations of motion (docs/planar-link.md §1,
docs/rrrp-arm.md §1):

* :class:`HermiteBasis`: cubic Hermite finite elements, nodal dofs (displacement, slope);
  with ``clamped=False`` it keeps the root node's two dofs, which is the "extended"
  numbering of [B] before the boundary condition removes u1, u2.
* :class:`ModesBasis` (clamped-free eigenfunctions) and :class:`PowerBasis` ((x/L)^p
  shapes of [W]): assumed modes, one "element" spanning the link.

Every basis gives N, N', N'' at any abscissae, a quadrature rule over [0, L] that
integrates its mass integrands (exactly for Hermite), its element list with local dof
indices (for the extended assembly), and the dofs that move the tip.
"""

import math

import numpy as np
from scipy.optimize import brentq

from ..errors import ParameterError
from .params import SECTION_POINTS

_GAUSS4 = np.polynomial.legendre.leggauss(4)


def hermite_stiffness(EI, l):
    """Element stiffness of a cubic Hermite beam element (docs/planar-link.md eq. (2.3)).

    K_e = EI / l^3 [[12, 6l, -12, 6l], [6l, 4l^2, -6l, 2l^2], [-12, -6l, 12, -6l],
    [6l, 2l^2, -6l, 4l^2]] for dofs [w_a, phi_a, w_b, phi_b] (Przemieniecki; [B], [K]).
    """
    return EI / l**3 * np.array([
        [12.0, 6 * l, -12.0, 6 * l],
        [6 * l, 4 * l * l, -6 * l, 2 * l * l],
        [-12.0, -6 * l, 12.0, -6 * l],
        [6 * l, 2 * l * l, -6 * l, 4 * l * l]])


def hermite_mass(rho_A, l):
    """Consistent element mass of a cubic Hermite beam element (docs/planar-link.md eq. (2.4)).

    M_e = rho A l / 420 [[156, 22l, 54, -13l], [22l, 4l^2, 13l, -3l^2],
    [54, 13l, 156, -22l], [-13l, -3l^2, -22l, 4l^2]] (transverse inertia only).
    """
    return rho_A * l / 420.0 * np.array([
        [156.0, 22 * l, 54.0, -13 * l],
        [22 * l, 4 * l * l, 13 * l, -3 * l * l],
        [54.0, 13 * l, 156.0, -22 * l],
        [-13 * l, -3 * l * l, -22 * l, 4 * l * l]])


def hermite_functions(xi, l):
    """Cubic Hermite shape functions on an element of length l at xi = (x - x_a)/l.

    H1 = 1 - 3xi^2 + 2xi^3, H2 = l(xi - 2xi^2 + xi^3), H3 = 3xi^2 - 2xi^3,
    H4 = l(xi^3 - xi^2). Returns (H, dH/dx, d2H/dx2), each (len(xi), 4).
    """
    xi = np.asarray(xi, dtype=float)
    x2, x3 = xi * xi, xi * xi * xi
    H = np.stack([1 - 3 * x2 + 2 * x3, l * (xi - 2 * x2 + x3), 3 * x2 - 2 * x3, l * (x3 - x2)], -1)
    dH = np.stack([(-6 * xi + 6 * x2) / l, 1 - 4 * xi + 3 * x2, (6 * xi - 6 * x2) / l,
                   -2 * xi + 3 * x2], -1)
    d2H = np.stack([(-6 + 12 * xi) / l**2, (-4 + 6 * xi) / l, (6 - 12 * xi) / l**2,
                    (-2 + 6 * xi) / l], -1)
    return H, dH, d2H


def clamped_free_roots(k):
    """The first k roots beta_r L of 1 + cos(bL) cosh(bL) = 0 (clamped-free beam).

    beta_1 L = 1.8751, beta_2 L = 4.6941, beta_3 L = 7.8548, ... (Blevins, Formulas for
    natural frequency and mode shape, table 8-1).
    """
    f = lambda b: math.cos(b) + 1.0 / math.cosh(b)  # noqa: E731 (same roots, no overflow)
    roots = []
    for r in range(1, k + 1):
        c = (2 * r - 1) * math.pi / 2
        roots.append(brentq(f, c - 1.2, c + 1.2) if r == 1 else brentq(f, c - 0.5, c + 0.5))
    return np.array(roots)


def clamped_free_frequencies(EI, rho_A, L, k=3):
    """Natural frequencies (Hz) of a uniform clamped-free Euler-Bernoulli beam.

    f_r = (beta_r L)^2 / (2 pi L^2) sqrt(EI / rho_A).
    """
    b = clamped_free_roots(k)
    return b**2 / (2 * math.pi * L**2) * math.sqrt(EI / rho_A)


def clamped_pinned_roots(k):
    """The first k roots beta_r L of tan(bL) = tanh(bL) (clamped root, pinned tip).

    beta_1 L = 3.9266, beta_2 L = 7.0686, beta_3 L = 10.2102, ... (Blevins, Formulas for
    natural frequency and mode shape, table 8-1); omega_r = (beta_r L)^2
    sqrt(EI / (rho_A L^4)).
    """
    f = lambda b: math.sin(b) * math.cosh(b) - math.cos(b) * math.sinh(b)  # noqa: E731
    g = lambda b: f(b) / math.cosh(b)                                      # noqa: E731
    return np.array([brentq(g, (r + 0.25) * math.pi - 0.3, (r + 0.25) * math.pi + 0.3)
                     for r in range(1, k + 1)])


def tapered_cantilever_coefficient(m):
    """First-frequency coefficient c = omega_1 L^2 sqrt(rho A_0 / (E I_0)) of a cantilever
    clamped at its thick end whose section shrinks to a point at the tip:
    EI(x) = E I_0 (1 - x/L)^(m+2), rho A(x) = rho A_0 (1 - x/L)^m (root values I_0, A_0).

    m = 1 is the wedge (constant width, depth linear to zero), m = 2 the cone (radius
    linear to zero). With s = L - x the bounded solutions are
    w = s^(-m/2) [C_1 J_m(z) + C_2 I_m(z)], z = 2 k sqrt(s), omega = k^2 (for L = E I_0 =
    rho A_0 = 1), and the clamp w = w' = 0 at s = L gives the frequency equation

        J_m(z) I_(m+1)(z) + I_m(z) J_(m+1)(z) = 0,      c = z_1^2 / 4

    (Kirchhoff 1879 for the wedge and the cone; Conway, Becker & Dubil, J. Appl. Mech.
    31, 1964, for the family). c = 5.31510 (wedge), 8.71926 (cone), the classical
    4-figure values 5.315 and 8.719.
    """
    from scipy.special import iv, jv

    f = lambda z: jv(m, z) * iv(m + 1, z) + iv(m, z) * jv(m + 1, z)   # noqa: E731
    grid = np.linspace(0.5, 12.0, 231)
    vals = f(grid)
    k = int(np.flatnonzero(np.sign(vals[:-1]) != np.sign(vals[1:]))[0])
    z = brentq(f, grid[k], grid[k + 1], xtol=1e-15, rtol=4 * np.finfo(float).eps)
    return z * z / 4.0


def elastica_tip_deflection(P, L, EI):
    """Transverse tip deflection of a cantilever under a tip force P of fixed direction,
    normal to the unloaded beam: the inextensible elastica (Bisshopp & Drucker 1945).

    EI theta'(s) = P (x(L) - x(s)), so theta'' = -(P/EI) cos(theta), theta(0) = 0,
    theta'(L) = 0, and w(L) = int_0^L sin(theta) ds (solved by shooting on theta'(0)).
    For small alpha = P L^2 / EI it is P L^3 / (3 EI) (1 - c alpha^2 + ...), c ~ 1/9.
    """
    from scipy.integrate import solve_ivp

    a = abs(float(P)) * L * L / EI
    if a == 0.0:
        return 0.0

    def shoot(k):
        sol = solve_ivp(lambda s, y: [y[1], -a * math.cos(y[0]), math.sin(y[0])],
                        (0.0, 1.0), [0.0, k, 0.0], rtol=1e-12, atol=1e-14)
        return sol.y[1, -1], sol.y[2, -1]

    k = brentq(lambda k: shoot(k)[0], 0.0, a + 1.0)
    return math.copysign(shoot(k)[1] * L, P)


def propped_cantilever_reaction(q, L, EI, k_support=math.inf):
    """Tip reaction of a cantilever under a uniform load q (N/m) propped at its tip by a
    support of stiffness ``k_support`` (N/m; infinite: rigid), N.

    The tip would sink q L^4 / (8 EI) unpropped and rises R L^3 / (3 EI) under the
    reaction R (Roark, Young & Budynas 2002, table 8.1); the support gives way by
    R / k_support, so q L^4 / (8 EI) - R L^3 / (3 EI) = R / k_support and
    R = (3 q L / 8) / (1 + 3 EI / (k_support L^3)): the link's tip stiffness 3EI/L^3 and
    the support in series. Rigid: 3 q L / 8.
    """
    return 3.0 * q * L / 8.0 / (1.0 + 3.0 * EI / (k_support * L ** 3))


class ShapeBasis:
    """Interface of a clamped link's shape basis (see the module docstring).

    Attributes:
        length: L.
        n: number of coordinates e of this basis.
        elements: list of (x_a, x_b, local dof indices) used by the extended assembly.
        tip_dofs: local dofs that move the tip displacement or slope.
        root_dofs: local dofs the clamped root removes (empty once clamped).
    """

    length = None
    n = None
    elements = ()
    tip_dofs = ()
    root_dofs = ()

    def values(self, x):
        """(N, N', N'') at abscissae x, each (len(x), n)."""
        raise NotImplementedError

    @property
    def tip_values(self):
        """(N, N', N'') at x = L (cached)."""
        if "_tip" not in self.__dict__:
            self._tip = self.values(np.array([self.length]))
        return self._tip

    def quadrature(self):
        """(x, weights, element id) of a rule over [0, L] for this basis' integrands."""
        raise NotImplementedError

    def stiffness_matrix(self, EI):
        """K = int EI N''^T N'' dx (n x n)."""
        raise NotImplementedError

    def mass_matrix(self, rho_A):
        """Structural mass int rho_A N^T N dx (n x n), used for Rayleigh damping."""
        x, w, _ = self.quadrature()
        N = self.values(x)[0]
        return rho_A * np.einsum("p,pi,pj->ij", w, N, N)


class HermiteBasis(ShapeBasis):
    """Cubic Hermite finite elements on [0, L]: ``n_elements`` equal elements, or the
    elements between ``nodes`` (abscissae from 0 to L) when given.

    Dof order (0-based) of the full link: [w_0, phi_0, w_1, phi_1, ..., w_n, phi_n]
    ([B]/[K]'s u1, u2, ..., u_{2n+2}); ``clamped=True`` drops w_0, phi_0 (the root).
    ``points`` Gauss-Legendre points per element make the quadrature rule (4: exact for
    the uniform mass integrands of degree 6; 6 for sections given as callables,
    :data:`chrono_flex.planar.params.SECTION_POINTS`).

    The section in :meth:`stiffness_matrix` and :meth:`mass_matrix` is a number (uniform;
    the closed forms (2.3), (2.4)), one number per element (closed forms element by
    element) or a callable of x returning an array (Gauss-Legendre quadrature of
    ``points`` points per element, docs/planar-link.md eq. (2.5)).
    """

    def __init__(self, length, n_elements, clamped=True, nodes=None, points=4):
        if n_elements < 1:
            raise ParameterError("n_elements", n_elements, "must be >= 1")
        self.length = float(length)
        self.n_elements = int(n_elements)
        self.clamped = bool(clamped)
        self.points = int(points)
        self.l = self.length / self.n_elements
        if nodes is None:
            self.nodes = None
            self.lengths = np.full(self.n_elements, self.l)
            bounds = [(j * self.l, (j + 1) * self.l) for j in range(self.n_elements)]
        else:
            self.nodes = np.asarray(nodes, dtype=float)
            if self.nodes.shape != (self.n_elements + 1,) or np.any(np.diff(self.nodes) <= 0):
                raise ParameterError("nodes", nodes, f"must be {self.n_elements + 1} "
                                     "increasing abscissae")
            self.lengths = np.diff(self.nodes)
            bounds = list(zip(self.nodes[:-1], self.nodes[1:]))
        self._off = 2 if clamped else 0
        self.n = 2 * self.n_elements + 2 - self._off
        self.root_dofs = () if clamped else (0, 1)
        self.elements = [(a, b, np.array([2 * j, 2 * j + 1, 2 * j + 2, 2 * j + 3]) - self._off)
                         for j, (a, b) in enumerate(bounds)]
        self.tip_dofs = (self.n - 2, self.n - 1)

    def values(self, x):
        x = np.atleast_1d(np.asarray(x, dtype=float))
        if self.nodes is None:
            j = np.clip(np.floor(x / self.l).astype(int), 0, self.n_elements - 1)
            xi = x / self.l - j
            H, dH, d2H = hermite_functions(xi, self.l)
        else:
            j = np.clip(np.searchsorted(self.nodes, x, side="right") - 1, 0,
                        self.n_elements - 1)
            xi = (x - self.nodes[j]) / self.lengths[j]
            H, dH, d2H = hermite_functions(xi, self.lengths[j])     # l per point
        out = []
        for h in (H, dH, d2H):
            full = np.zeros((x.size, 2 * self.n_elements + 2))
            rows = np.arange(x.size)[:, None]
            full[rows, 2 * j[:, None] + np.arange(4)[None, :]] = h
            out.append(full[:, self._off:])
        return tuple(out)

    def quadrature(self):
        g, gw = _GAUSS4 if self.points == 4 else np.polynomial.legendre.leggauss(self.points)
        if self.nodes is None:
            xs = ((g[None, :] + 1) / 2 + np.arange(self.n_elements)[:, None]) * self.l
            ws = np.broadcast_to(gw * self.l / 2, xs.shape)
        else:
            xs = self.nodes[:-1, None] + (g[None, :] + 1) / 2 * self.lengths[:, None]
            ws = gw[None, :] * self.lengths[:, None] / 2
        el = np.repeat(np.arange(self.n_elements), g.size)
        return xs.ravel(), ws.ravel().copy(), el

    def _assemble(self, element_matrices):
        m = 2 * self.n_elements + 2
        A = np.zeros((m, m))
        for j, Ae in enumerate(element_matrices):
            s = slice(2 * j, 2 * j + 4)
            A[s, s] += Ae
        return A[self._off:, self._off:]

    def _element_integral(self, j, f, order):
        """int over element j of f(x) D^T D dx, D the Hermite functions' derivative of
        ``order`` (0: values, 2: curvatures), by the element's Gauss-Legendre rule."""
        if "_rule" not in self.__dict__:
            self._rule = np.polynomial.legendre.leggauss(self.points)
        g, gw = self._rule
        a, le = self.elements[j][0], self.lengths[j]
        xi = (g + 1) / 2
        D = hermite_functions(xi, le)[order]
        return np.einsum("p,pi,pj->ij", gw * le / 2 * f(a + xi * le), D, D)

    def element_stiffness(self, EI, j):
        """K_e of element j for a section ``EI`` (number, per-element values or callable)."""
        if callable(EI):
            return self._element_integral(j, EI, 2)
        return hermite_stiffness(EI if np.ndim(EI) == 0 else EI[j], self.lengths[j])

    def element_mass(self, rho_A, j):
        """M_e of element j for a section ``rho_A`` (number, per-element values or callable)."""
        if callable(rho_A):
            return self._element_integral(j, rho_A, 0)
        return hermite_mass(rho_A if np.ndim(rho_A) == 0 else rho_A[j], self.lengths[j])

    def stiffness_matrix(self, EI):
        if np.ndim(EI) == 0 and not callable(EI) and self.nodes is None:
            Ke = hermite_stiffness(EI, self.l)
            return self._assemble([Ke] * self.n_elements)
        return self._assemble([self.element_stiffness(EI, j) for j in range(self.n_elements)])

    def mass_matrix(self, rho_A):
        if np.ndim(rho_A) == 0 and not callable(rho_A) and self.nodes is None:
            Me = hermite_mass(rho_A, self.l)
            return self._assemble([Me] * self.n_elements)
        return self._assemble([self.element_mass(rho_A, j) for j in range(self.n_elements)])


class _QuadratureOnLink(ShapeBasis):
    """Assumed-modes bases: one element over [0, L], composite Gauss quadrature."""

    segments = 24
    order = 6

    def quadrature(self):
        g, gw = np.polynomial.legendre.leggauss(self.order)
        h = self.length / self.segments
        xs = ((g[None, :] + 1) / 2 + np.arange(self.segments)[:, None]) * h
        ws = np.broadcast_to(gw * h / 2, xs.shape)
        return xs.ravel(), ws.ravel().copy(), np.zeros(xs.size, dtype=int)

    def _finish(self):
        self.elements = [(0.0, self.length, np.arange(self.n))]
        self.tip_dofs = tuple(range(self.n))


class ModesBasis(_QuadratureOnLink):
    """Clamped-free eigenfunctions (docs/rrrp-arm.md eq. (3.4)), normalised to tip value 1.

    phi_r(x) = cosh(b x/L) - cos(b x/L) - s_r (sinh(b x/L) - sin(b x/L)),
    s_r = (cosh b + cos b)/(sinh b + sin b), b = beta_r L (Blevins table 8-1). The
    cosh - s sinh part is evaluated as ((1 - s) e^z + (1 + s) e^-z)/2 to avoid
    cancellation for the higher modes.
    """

    def __init__(self, length, n_modes):
        self.length = float(length)
        self.n = int(n_modes)
        self.beta = clamped_free_roots(self.n) / self.length
        b = self.beta * self.length
        self._s = (np.cosh(b) + np.cos(b)) / (np.sinh(b) + np.sin(b))
        self._one_minus_s = (-np.exp(-b) + np.sin(b) - np.cos(b)) / (np.sinh(b) + np.sin(b))
        self._scale = np.ones(self.n)
        self._scale = 1.0 / self._raw(np.array([self.length]))[0][0]
        self.segments = max(24, 8 * self.n)
        self._finish()

    def _raw(self, x):
        z = np.outer(x, self.beta)
        s, oms = self._s[None, :], self._one_minus_s[None, :]
        ez, emz = np.exp(z), np.exp(-z)
        ch_sh = (oms * ez + (1 + s) * emz) / 2        # cosh z - s sinh z
        sh_ch = (oms * ez - (1 + s) * emz) / 2        # sinh z - s cosh z
        c, sn = np.cos(z), np.sin(z)
        phi = ch_sh - c + s * sn
        dphi = self.beta * (sh_ch + sn + s * c)
        d2phi = self.beta**2 * (ch_sh + c - s * sn)
        return phi * self._scale, dphi * self._scale, d2phi * self._scale

    def values(self, x):
        return self._raw(np.atleast_1d(np.asarray(x, dtype=float)))

    def stiffness_matrix(self, EI):
        x, w, _ = self.quadrature()
        d2 = self.values(x)[2]
        return EI * np.einsum("p,pi,pj->ij", w, d2, d2)


class PowerBasis(_QuadratureOnLink):
    """Power-law assumed shapes phi_k(x) = (x/L)^p_k ([W], docs/rrrp-arm.md §3).

    The stiffness is integrated in closed form, int EI phi_a'' phi_b'' dx =
    EI p_a(p_a-1) p_b(p_b-1) / (L^3 (p_a + p_b - 3)), finite for p > 1.5 (for
    p = 1.5522: 7.037 EI/L^3, docs/rrrp-arm.md eq. (4.2)).
    """

    def __init__(self, length, exponents):
        self.length = float(length)
        self.p = np.asarray(exponents, dtype=float)
        if np.any(self.p <= 1.5):
            raise ParameterError("power_exponents", tuple(self.p),
                                 "must all be > 1.5 (finite bending energy)")
        self.n = self.p.size
        self._finish()

    def values(self, x):
        s = np.atleast_1d(np.asarray(x, dtype=float))[:, None] / self.length
        p, L = self.p[None, :], self.length
        with np.errstate(divide="ignore", invalid="ignore"):
            phi = s**p
            dphi = p / L * s ** (p - 1)
            d2phi = np.where(s > 0, p * (p - 1) / L**2 * s ** (p - 2), 0.0)
        return phi, dphi, d2phi

    def stiffness_matrix(self, EI):
        pa, pb = self.p[:, None], self.p[None, :]
        return EI * pa * (pa - 1) * pb * (pb - 1) / (self.length**3 * (pa + pb - 3))


def basis_for(link, clamped=True):
    """The shape basis a :class:`chrono_flex.planar.params.Link` asks for."""
    if link.basis == "fem":
        varying = callable(link.EI) or callable(link.rho_A)
        nodes = None if link.element_lengths is None else link.nodes
        return HermiteBasis(link.length, link.n_elements, clamped=clamped, nodes=nodes,
                            points=SECTION_POINTS if varying else 4)
    if link.basis == "modes":
        return ModesBasis(link.length, link.n_modes)
    return PowerBasis(link.length, link.power_exponents)
