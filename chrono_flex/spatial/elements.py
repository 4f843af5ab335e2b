"""Element matrices and shape functions of the spatial link (docs/spatial-link.md §2).

A spatial link element carries, at each of its two nodes, [v, v', w, w', phi]: the
deflections along y and z of the link frame, their slopes, and the twist about x. The
axial stretch is left out (inextensible link, as in the planar link). The element is the
standard three-dimensional Euler-Bernoulli beam element (Przemieniecki, Theory of Matrix
Structural Analysis, 1968: the beam element's stiffness in ch. 5 and its consistent
mass in ch. 11) without its axial dofs:

* bending in x-y (v) and in x-z (w): cubic Hermite shape functions, stiffness EI_z and
  EI_y (the planar link's element, docs/planar-link.md eqs. (2.3)-(2.4));
* torsion (phi): linear shape functions, stiffness GJ / l [[1, -1], [-1, 1]] and
  consistent polar inertia rho_Ip l / 6 [[2, 1], [1, 2]].

Slopes are kept as w' (not the rotation theta_y = -w' of Przemieniecki's numbering), so
the two bending blocks are the same Hermite matrices.

A varying section (docs/spatial-link.md §2.1) makes each block the integral whose
closed form the above is: int EI(x) H''^T H'' dx and int rho_A(x) H^T H dx for bending
(the planar link's element integrals, docs/planar-link.md eq. (2.5)), int GJ(x) N'^T N' dx
and int rho_Ip(x) N^T N dx for torsion, N = [1 - xi, xi]. Per-element values take the
closed forms with each element's own value and length; callables take Gauss-Legendre
quadrature of SECTION_POINTS (6) points per element.
"""

import numpy as np

from ..errors import ParameterError
from ..planar.params import SECTION_POINTS
from ..planar.shapes import HermiteBasis, hermite_functions, hermite_mass, hermite_stiffness

#: Coordinates per node: v, v', w, w', phi.
NODE_DOFS = 5
#: Positions of the bending and twist dofs in an element's 10 local coordinates.
V_DOFS = np.array([0, 1, 5, 6])
W_DOFS = np.array([2, 3, 7, 8])
PHI_DOFS = np.array([4, 9])

_GAUSS4 = np.polynomial.legendre.leggauss(4)


def torsion_stiffness(GJ, l):
    """K_t = GJ / l [[1, -1], [-1, 1]]: linear torsion element (Przemieniecki 1968,
    ch. 5) for dofs [phi_a, phi_b]."""
    return GJ / l * np.array([[1.0, -1.0], [-1.0, 1.0]])


def torsion_mass(rho_Ip, l):
    """M_t = rho_Ip l / 6 [[2, 1], [1, 2]]: consistent polar inertia of a linear torsion
    element (Przemieniecki 1968, ch. 11), int rho_Ip N^T N dx with N = [1 - xi, xi]."""
    return rho_Ip * l / 6.0 * np.array([[2.0, 1.0], [1.0, 2.0]])


def _value(link, name, j):
    """The section property ``name`` of element j: its number, its element's value or
    (a callable) the callable itself."""
    v = getattr(link, name)
    return v if callable(v) or np.ndim(v) == 0 else v[j]


def _element(link, l, j):
    """A one-element Hermite basis on element j of ``link`` (length l) with the section
    rule, for the integrals of callable sections."""
    a = float(link.nodes[j])
    return HermiteBasis(l, 1, nodes=(a, a + l), points=SECTION_POINTS)


def _torsion_integral(f, a, l, order):
    """int_a^{a+l} f(x) D^T D dx, D the linear torsion functions (order 0) or their
    slopes (order 1), by Gauss-Legendre quadrature of SECTION_POINTS points."""
    g, gw = np.polynomial.legendre.leggauss(SECTION_POINTS)
    xi = (g + 1) / 2
    D = (np.stack([1.0 - xi, xi], -1) if order == 0
         else np.broadcast_to(np.array([-1.0, 1.0]) / l, (xi.size, 2)))
    return np.einsum("p,pi,pj->ij", gw * l / 2 * f(a + xi * l), D, D)


def element_stiffness(link, l, j=0):
    """10 x 10 stiffness of element j of ``link`` (length l) for
    [v, v', w, w', phi]_a + [v, v', w, w', phi]_b: Hermite bending with EI_z on v, with
    EI_y on w, linear torsion with GJ on phi (module docstring); the section of element j
    (a number, its per-element value, or a callable integrated over the element)."""
    K = np.zeros((10, 10))
    for dofs, name in ((V_DOFS, "EI_z"), (W_DOFS, "EI_y")):
        v = _value(link, name, j)
        K[np.ix_(dofs, dofs)] = (_element(link, l, j).element_stiffness(v, 0) if callable(v)
                                 else hermite_stiffness(v, l))
    v = _value(link, "GJ", j)
    K[np.ix_(PHI_DOFS, PHI_DOFS)] = (_torsion_integral(v, link.nodes[j], l, 1) if callable(v)
                                     else torsion_stiffness(v, l))
    return K


def element_mass(link, l, j=0):
    """10 x 10 structural mass of element j (the deflection's and the twist's own
    inertia, without the frame's motion): consistent Hermite mass rho_A on v and w,
    consistent polar inertia rho_Ip on phi. Used for Rayleigh damping and for checks; the
    equations of motion integrate the full M(q) (:mod:`chrono_flex.spatial.equations`)."""
    M = np.zeros((10, 10))
    v = _value(link, "rho_A", j)
    Mb = _element(link, l, j).element_mass(v, 0) if callable(v) else hermite_mass(v, l)
    M[np.ix_(V_DOFS, V_DOFS)] = Mb
    M[np.ix_(W_DOFS, W_DOFS)] = Mb
    v = _value(link, "rho_Ip", j)
    M[np.ix_(PHI_DOFS, PHI_DOFS)] = (_torsion_integral(v, link.nodes[j], l, 0) if callable(v)
                                     else torsion_mass(v, l))
    return M


def element_functions(xi, l):
    """Shape functions of one element at xi = (x - x_a)/l (l one length, or one per
    point), each (len(xi), 10):
    (Nv, dNv, d2Nv, Nw, dNw, d2Nw, Nphi, dNphi) with v = Nv e_local, v' = dNv e_local, ...
    """
    xi = np.atleast_1d(np.asarray(xi, dtype=float))
    H, dH, d2H = hermite_functions(xi, l)
    n = xi.size
    out = [np.zeros((n, 10)) for _ in range(8)]
    for k, h in enumerate((H, dH, d2H)):
        out[k][:, V_DOFS] = h
        out[3 + k][:, W_DOFS] = h
    out[6][:, PHI_DOFS] = np.stack([1.0 - xi, xi], -1)
    out[7][:, PHI_DOFS] = np.array([-1.0, 1.0]) / np.reshape(l, (-1, 1))
    return tuple(out)


class SpatialBasis:
    """The link's elements: n elements on [0, L] between the link's nodes (equal unless
    ``element_lengths`` is given), nodes 0..n, 5 dofs per node.

    Dof order of the full link: [v_0, v'_0, w_0, w'_0, phi_0, v_1, ...];
    ``clamped=True`` drops node 0 (the root), the extended numbering keeps it
    (docs/spatial-link.md §3).

    Attributes:
        n: number of coordinates. elements: list of (x_a, x_b, local dof indices (10,)),
        the indices counted after the clamp (negative ones are the removed root dofs).
        lengths: the element lengths (n_elements,). points: Gauss points per element of
        :meth:`quadrature` (4 for sections given as numbers, SECTION_POINTS for callables).
        tip_dofs: the dofs of the tip node. root_dofs: the root node's (empty if clamped).
    """

    def __init__(self, link, clamped=True):
        self.link = link
        self.length = float(link.length)
        self.n_elements = int(link.n_elements)
        if self.n_elements < 1:
            raise ParameterError("n_elements", self.n_elements, "must be >= 1")
        self.nodes = np.asarray(link.nodes, dtype=float)
        self.lengths = np.diff(self.nodes)
        if link.element_lengths is None:         # equal elements: the exact common length
            self.lengths[:] = self.length / self.n_elements
        self.points = SECTION_POINTS if any(
            callable(getattr(link, k)) for k in link.section_names) else 4
        self.clamped = bool(clamped)
        self._off = NODE_DOFS if clamped else 0
        self.n_full = NODE_DOFS * (self.n_elements + 1)
        self.n = self.n_full - self._off
        self.root_dofs = () if clamped else tuple(range(NODE_DOFS))
        self.elements = [(self.nodes[j], self.nodes[j + 1],
                          NODE_DOFS * j + np.arange(10) - self._off)
                         for j in range(self.n_elements)]
        self.tip_dofs = tuple(range(self.n - NODE_DOFS, self.n))
        self.tip_values = self.values(np.array([self.length]))

    def values(self, x):
        """(Nv, dNv, d2Nv, Nw, dNw, d2Nw, Nphi, dNphi) at abscissae x, each (len(x), n)."""
        x = np.atleast_1d(np.asarray(x, dtype=float))
        j = self.link.element_of(x)
        le = self.lengths[j]
        local = element_functions((x - self.nodes[j]) / le, le)
        cols = NODE_DOFS * j[:, None] + np.arange(10)[None, :]
        rows = np.arange(x.size)[:, None]
        out = []
        for f in local:
            full = np.zeros((x.size, self.n_full))
            full[rows, cols] = f
            out.append(full[:, self._off:])
        return tuple(out)

    def quadrature(self):
        """(x, weights, element id): Gauss-Legendre rule of :attr:`points` points per
        element (4: exact for the degree-6 integrands of the Hermite mass with a section
        constant in each element; 6 for callable sections)."""
        g, gw = _GAUSS4 if self.points == 4 else np.polynomial.legendre.leggauss(self.points)
        xs = self.nodes[:-1, None] + (g[None, :] + 1) / 2 * self.lengths[:, None]
        ws = gw[None, :] * self.lengths[:, None] / 2
        return xs.ravel(), ws.ravel().copy(), np.repeat(np.arange(self.n_elements), g.size)

    def _assemble(self, element_matrices):
        A = np.zeros((self.n_full, self.n_full))
        for j, Ae in enumerate(element_matrices):
            s = slice(NODE_DOFS * j, NODE_DOFS * j + 10)
            A[s, s] += Ae
        return A[self._off:, self._off:]

    def element_stiffness(self, j):
        """10 x 10 stiffness of element j (:func:`element_stiffness`)."""
        return element_stiffness(self.link, self.lengths[j], j)

    def element_mass(self, j):
        """10 x 10 structural mass of element j (:func:`element_mass`)."""
        return element_mass(self.link, self.lengths[j], j)

    def stiffness_matrix(self):
        """K of the link (n x n): element stiffnesses scattered into the nodal dofs."""
        return self._assemble([self.element_stiffness(j) for j in range(self.n_elements)])

    def mass_matrix(self):
        """Structural mass of the link (n x n), for Rayleigh damping."""
        return self._assemble([self.element_mass(j) for j in range(self.n_elements)])


__all__ = ["NODE_DOFS", "PHI_DOFS", "SpatialBasis", "V_DOFS", "W_DOFS", "element_functions",
           "element_mass", "element_stiffness", "torsion_mass", "torsion_stiffness"]
