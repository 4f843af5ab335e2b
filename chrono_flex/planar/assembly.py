"""The extended assembly of [B] and Kozlowski's full Lagrange equations [K].

Extended assembly (docs/planar-link.md §3, Bien & My 2018 after Usoro et al. 1986). In a
moving robot an element's kinetic energy depends on its own nodal dofs and on the joint
variables (and, for link 2, on link 1's tip dofs). Each element therefore carries an
extended local vector and an explicit index map local position -> global index:

    link 1, element j: [theta_1, u_{2j-1}, u_{2j}, u_{2j+1}, u_{2j+2}]             -> 5 x 5
    link 2, element k: [theta_1, u_{2n1+1}, u_{2n1+2}, theta_2, v_{2k-1} .. v_{2k+2}] -> 8 x 8

and its generalized matrix M_e(q) = int_element rho A J_e^T J_e dx (4-point Gauss, exact
for the cubic-Hermite integrands). Assembly is a scatter-add through the maps in the
numbering that still holds the root dofs u1, u2 (v1, v2); the root boundary condition
then removes them. For a chain of any length the map of an element is: every joint of
its ancestors, the tip dofs of its ancestor links, its own joint and its own nodal dofs
(kinematics.frame_dependencies).

Kozlowski's equations ([K] eq. 18):

    M(q) q_dd + M_dot q_d - 1/2 q_d^T (dM/dq) q_d + dV/dq + D q_d = Q

evaluated here with dM/dq and dV_g/dq from complex-step differentiation of the
assembled M(q) and of the gravity potential (Squire & Trapp, SIAM Rev. 40(1) 1998:
f'(x) = Im f(x + i h)/h, free of subtractive cancellation, so exact to round-off). This
form shares no code path with the convective accelerations of the virtual-power form
in :mod:`chrono_flex.planar.equations`; the two agreeing to round-off checks both.
"""

from dataclasses import dataclass

import numpy as np

from . import kinematics as kin
from . import equations as mdl
from .shapes import HermiteBasis

_CSTEP = 1e-30


@dataclass(frozen=True)
class ElementMap:
    """One entry of the extended assembly.

    link: link number (0-based); element: element number in the link, or -1 for a lumped
    item (payload, hub); index_map: extended global index of each local position;
    points: the link's quadrature points in this element; item: the lumped item.
    """

    link: int
    element: int
    index_map: np.ndarray
    points: np.ndarray = None
    item: object = None


class ClampedCoordinates:
    """The root boundary condition of an extended assembly, shared by the planar and
    spatial ones: ``ext.nq`` extended coordinates, of which ``keep`` survive the clamp."""

    def expand(self, q):
        """Reduced q -> extended q (root dofs set to zero, as the clamp requires)."""
        q = np.asarray(q)
        out = np.zeros(self.ext.nq, dtype=q.dtype)
        out[self.keep] = q
        return out

    def reduce(self, A):
        """Apply the root boundary condition: delete the rows/columns of the root dofs."""
        return A[self.keep] if A.ndim == 1 else A[np.ix_(self.keep, self.keep)]


class ExtendedAssembly(ClampedCoordinates):
    """[B]'s extended assembly for a chain (see the module docstring).

    ``ext`` is the model in the numbering with root dofs (size 10 for n1 = n2 = 1),
    ``red`` the model after the boundary condition (size 2 n1 + 2 n2 + 2).
    """

    def __init__(self, links, joints, payload, gravity, hub_inertia=0.0,
                 geometric_stiffening=False):
        kw = dict(hub_inertia=hub_inertia, geometric_stiffening=geometric_stiffening)
        self.ext = mdl.ArmModel(links, joints, payload, gravity, extended=True, **kw)
        self.red = mdl.ArmModel(links, joints, payload, gravity, extended=False, **kw)
        removed = []
        for ll, b in zip(self.ext.layout.links, self.ext.bases):
            removed += [int(ll.elastic_index[d]) for d in b.root_dofs]
        self.removed = np.array(removed, dtype=int)
        self.keep = np.setdiff1d(np.arange(self.ext.nq), self.removed)
        roots, tips = kin.frame_dependencies(self.ext.layout)
        maps = []
        for i, (ll, b, qu) in enumerate(zip(self.ext.layout.links, self.ext.bases,
                                             self.ext.quad)):
            for j, (_, _, dofs) in enumerate(b.elements):
                idx = sorted(roots[i] | {int(ll.elastic_index[d]) for d in dofs})
                maps.append(ElementMap(i, j, np.array(idx), np.flatnonzero(qu.element == j)))
        for it in self.ext.items:
            deps = roots[it.link] if it.where == "root" else tips[it.link]
            maps.append(ElementMap(it.link, -1, np.array(sorted(deps)), item=it))
        self.maps = tuple(maps)

    # -- element matrices and assembly -----------------------------------------------
    def element_matrices(self, q_ext):
        """[(ElementMap, M_e)] at the extended state q_ext: 5x5 for link-1 elements,
        8x8 for link-2 elements (Hermite links), lumped items likewise."""
        q_ext = np.asarray(q_ext)
        zero = np.zeros(self.ext.nq)
        roots, tips = kin.chain_frames(self.ext.layout, q_ext, zero)
        out = []
        for m in self.maps:
            if m.item is None:
                ll, qu = self.ext.layout.links[m.link], self.ext.quad[m.link]
                p = m.points
                J = kin.points(roots[m.link], ll, qu.x[p], (qu.N[p], qu.dN[p]), q_ext, zero)[1]
                Je = J[:, :, m.index_map]
                w = qu.mw[p]
                Me = np.einsum("p,pai,paj->ij", w, Je, Je)
            else:
                it = m.item
                f = roots[it.link] if it.where == "root" else tips[it.link]
                Jr = f.Jp if it.kind == "mass" else f.Jpsi[None, :]
                Je = Jr[:, m.index_map]
                Me = it.value * Je.T @ Je
            out.append((m, Me))
        return out

    def assemble(self, q_ext):
        """Scatter-add of all element matrices into the extended M (before the BC)."""
        q_ext = np.asarray(q_ext)
        M = np.zeros((self.ext.nq, self.ext.nq), dtype=np.result_type(q_ext, float))
        for m, Me in self.element_matrices(q_ext):
            np.add.at(M, (m.index_map[:, None], m.index_map[None, :]), Me)
        return M

    def mass_matrix(self, q):
        """M(q) of the reduced coordinates by extended assembly + boundary condition."""
        return self.reduce(self.assemble(self.expand(q)))

    def stiffness_matrix(self):
        """K by element scatter-add (it touches only nodal dofs), then the BC."""
        K = np.zeros((self.ext.nq, self.ext.nq))
        for ll, lk, b in zip(self.ext.layout.links, self.ext.links, self.ext.bases):
            if isinstance(b, HermiteBasis):
                for j, (_, _, dofs) in enumerate(b.elements):
                    g = ll.elastic_index[dofs]
                    np.add.at(K, (g[:, None], g[None, :]), b.element_stiffness(lk.EI, j))
            else:
                g = ll.elastic_index
                K[np.ix_(g, g)] += b.stiffness_matrix(lk.EI)
        return self.reduce(K)

    # -- Kozlowski's full equations ------------------------------------------------------
    def mass_matrix_derivatives(self, q):
        """dM/dq_k for every k (nq, nq, nq), by complex step on the assembled M."""
        q = np.asarray(q, dtype=float)
        n = q.size
        out = np.empty((n, n, n))
        for k in range(n):
            qc = q.astype(complex)
            qc[k] += 1j * _CSTEP
            out[k] = self.mass_matrix(qc).imag / _CSTEP
        return out

    def mdot_qd(self, q, qd):
        """M_dot q_d = (dM/dq . q_d) q_d by one directional complex step on the assembly."""
        qc = np.asarray(q, dtype=float) + 1j * _CSTEP * np.asarray(qd, dtype=float)
        return (self.mass_matrix(qc).imag / _CSTEP) @ qd

    def potential_gradient(self, q):
        """dV/dq = K q + dV_g/dq (complex step on the gravity potential)."""
        q = np.asarray(q, dtype=float)
        g = self.red.K @ q
        if self.red.gravity:
            for k in range(q.size):
                qc = q.astype(complex)
                qc[k] += 1j * _CSTEP
                g[k] += mdl.gravity_potential(self.red, qc).imag / _CSTEP
        return g

    def lagrange_forcing(self, q, qd, Q, keep_mdot=True):
        """(M, f) with M q_dd = f = Q - M_dot q_d + 1/2 q_d^T dM/dq q_d - dV/dq - D q_d.

        [K] eq. 18; geometric stiffening, when switched on, is added as in the other form.
        ``keep_mdot=False`` drops the M_dot q_d term, as the simplified models [K] criticises
        do: the equations then no longer conserve energy (a demonstration, not a model).
        """
        q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
        dM = self.mass_matrix_derivatives(q)
        Mdot = np.einsum("kij,k->ij", dM, qd)
        quad = 0.5 * np.einsum("i,kij,j->k", qd, dM, qd)
        f = Q + quad - self.potential_gradient(q) - self.red.D @ qd
        if keep_mdot:
            f -= Mdot @ qd
        if self.red.geometric_stiffening:
            f += mdl.geometric_stiffness_force(self.red, q, qd)
        return self.mass_matrix(q), f
