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
"""

import numpy as np

from ..errors import ParameterError
from ..planar.shapes import hermite_functions, hermite_mass, hermite_stiffness

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


def element_stiffness(link, l):
    """10 x 10 stiffness of one element of ``link`` (length l) for
    [v, v', w, w', phi]_a + [v, v', w, w', phi]_b: Hermite bending with EI_z on v, with
    EI_y on w, linear torsion with GJ on phi (module docstring)."""
    K = np.zeros((10, 10))
    K[np.ix_(V_DOFS, V_DOFS)] = hermite_stiffness(link.EI_z, l)
    K[np.ix_(W_DOFS, W_DOFS)] = hermite_stiffness(link.EI_y, l)
    K[np.ix_(PHI_DOFS, PHI_DOFS)] = torsion_stiffness(link.GJ, l)
    return K


def element_mass(link, l):
    """10 x 10 structural mass of one element (the deflection's and the twist's own
    inertia, without the frame's motion): consistent Hermite mass rho_A on v and w,
    consistent polar inertia rho_Ip on phi. Used for Rayleigh damping and for checks; the
    equations of motion integrate the full M(q) (:mod:`chrono_flex.spatial.equations`)."""
    M = np.zeros((10, 10))
    M[np.ix_(V_DOFS, V_DOFS)] = hermite_mass(link.rho_A, l)
    M[np.ix_(W_DOFS, W_DOFS)] = hermite_mass(link.rho_A, l)
    M[np.ix_(PHI_DOFS, PHI_DOFS)] = torsion_mass(link.rho_Ip, l)
    return M


def element_functions(xi, l):
    """Shape functions of one element at xi = (x - x_a)/l, each (len(xi), 10):
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
    out[7][:, PHI_DOFS] = np.array([-1.0, 1.0]) / l
    return tuple(out)


class SpatialBasis:
    """The link's elements: n equal elements on [0, L], nodes 0..n, 5 dofs per node.

    Dof order of the full link: [v_0, v'_0, w_0, w'_0, phi_0, v_1, ...];
    ``clamped=True`` drops node 0 (the root), the extended numbering keeps it
    (docs/spatial-link.md §3).

    Attributes:
        n: number of coordinates. elements: list of (x_a, x_b, local dof indices (10,)),
        the indices counted after the clamp (negative ones are the removed root dofs).
        tip_dofs: the dofs of the tip node. root_dofs: the root node's (empty if clamped).
    """

    def __init__(self, link, clamped=True):
        self.link = link
        self.length = float(link.length)
        self.n_elements = int(link.n_elements)
        if self.n_elements < 1:
            raise ParameterError("n_elements", self.n_elements, "must be >= 1")
        self.l = self.length / self.n_elements
        self.clamped = bool(clamped)
        self._off = NODE_DOFS if clamped else 0
        self.n_full = NODE_DOFS * (self.n_elements + 1)
        self.n = self.n_full - self._off
        self.root_dofs = () if clamped else tuple(range(NODE_DOFS))
        self.elements = [(j * self.l, (j + 1) * self.l,
                          NODE_DOFS * j + np.arange(10) - self._off)
                         for j in range(self.n_elements)]
        self.tip_dofs = tuple(range(self.n - NODE_DOFS, self.n))
        self.tip_values = self.values(np.array([self.length]))

    def values(self, x):
        """(Nv, dNv, d2Nv, Nw, dNw, d2Nw, Nphi, dNphi) at abscissae x, each (len(x), n)."""
        x = np.atleast_1d(np.asarray(x, dtype=float))
        j = np.clip(np.floor(x / self.l).astype(int), 0, self.n_elements - 1)
        local = element_functions(x / self.l - j, self.l)
        cols = NODE_DOFS * j[:, None] + np.arange(10)[None, :]
        rows = np.arange(x.size)[:, None]
        out = []
        for f in local:
            full = np.zeros((x.size, self.n_full))
            full[rows, cols] = f
            out.append(full[:, self._off:])
        return tuple(out)

    def quadrature(self):
        """(x, weights, element id): 4-point Gauss per element, exact for the degree-6
        integrands of the Hermite mass."""
        g, gw = _GAUSS4
        xs = ((g[None, :] + 1) / 2 + np.arange(self.n_elements)[:, None]) * self.l
        ws = np.broadcast_to(gw * self.l / 2, xs.shape)
        return xs.ravel(), ws.ravel().copy(), np.repeat(np.arange(self.n_elements), 4)

    def _assemble(self, Ae):
        A = np.zeros((self.n_full, self.n_full))
        for j in range(self.n_elements):
            s = slice(NODE_DOFS * j, NODE_DOFS * j + 10)
            A[s, s] += Ae
        return A[self._off:, self._off:]

    def stiffness_matrix(self):
        """K of the link (n x n): element stiffnesses scattered into the nodal dofs."""
        return self._assemble(element_stiffness(self.link, self.l))

    def mass_matrix(self):
        """Structural mass of the link (n x n), for Rayleigh damping."""
        return self._assemble(element_mass(self.link, self.l))


__all__ = ["NODE_DOFS", "PHI_DOFS", "SpatialBasis", "V_DOFS", "W_DOFS", "element_functions",
           "element_mass", "element_stiffness", "torsion_mass", "torsion_stiffness"]
