"""The extended assembly of the spatial link (docs/spatial-link.md §3).

As for the planar link (docs/planar-link.md §3, after Bien & My 2018 and Usoro et al.
1986), every element carries an extended local vector and an explicit index map from
local position to global coordinate: the joint coordinates of its ancestors, the tip
node dofs of its ancestor links (which turn and move its root), its own joint and its own
ten nodal dofs [v, v', w, w', phi] of both nodes. Its generalized mass matrix

    M_e(q) = int_element (rho_A J_e^T J_e + rho_Ip j_e^T j_e) dx

(4-point Gauss, j the Jacobian of the section's spin about the link axis) is
scatter-added through the map in the numbering that still holds each link's root node;
the clamp then removes those five dofs per link. Lumped items (hubs, rotors, rigid
bodies) enter as one more element each, with the map of the frame they sit on. In a tree
the ancestors are the path to the base (:func:`chrono_flex.spatial.kinematics.frame_dependencies`).
"""

from dataclasses import dataclass

import numpy as np

from ..planar.assembly import ClampedCoordinates
from . import equations as mdl
from . import kinematics as kin


@dataclass(frozen=True)
class ElementMap:
    """One entry of the extended assembly: body number, element number (-1 for a lumped
    item), the extended global index of each local position, the link's quadrature
    points in the element, the lumped item."""

    body: int
    element: int
    index_map: np.ndarray
    points: np.ndarray = None
    item: object = None


class ExtendedAssembly(ClampedCoordinates):
    """The extended assembly of a spatial tree: ``ext`` the model with root nodes,
    ``red`` after the clamp."""

    def __init__(self, bodies, joints, parents, gravity, geometric_stiffening=False):
        args = (bodies, joints, parents, gravity, geometric_stiffening)
        self.ext = mdl.SpatialModel(*args, extended=True)
        self.red = mdl.SpatialModel(*args, extended=False)
        removed = [int(bl.elastic_index[d]) for bl in self.ext.layout.bodies if bl.is_link
                   for d in bl.basis.root_dofs]
        self.keep = np.setdiff1d(np.arange(self.ext.nq), removed)
        roots, attach = kin.frame_dependencies(self.ext.layout)
        maps = []
        for i in self.ext.links:
            bl, qu = self.ext.layout.bodies[i], self.ext.quad[i]
            for j, (_, _, dofs) in enumerate(bl.basis.elements):
                idx = sorted(roots[i] | {int(bl.elastic_index[d]) for d in dofs})
                maps.append(ElementMap(i, j, np.array(idx), np.flatnonzero(qu.element == j)))
        for it in self.ext.items:
            deps = roots[it.body] if it.where == "root" else attach[it.body]
            maps.append(ElementMap(it.body, -1, np.array(sorted(deps), dtype=int), item=it))
        self.maps = tuple(maps)

    def element_matrices(self, q_ext):
        """[(ElementMap, M_e)] at the extended state q_ext."""
        q_ext = np.asarray(q_ext, dtype=float)
        zero = np.zeros(self.ext.nq)
        m = self.ext
        roots, attach = kin.tree_frames(m.layout, q_ext, zero)
        out = []
        for em in self.maps:
            if em.item is None:
                bl, qu = m.layout.bodies[em.body], m.quad[em.body]
                p = em.points
                J = kin.points(roots[em.body], bl, qu.x[p], qu.Nv[p], qu.Nw[p], q_ext, zero)[1]
                jt = mdl.spin_rows(m, em.body, roots[em.body], q_ext, zero)[0][p]
                Je, je = J[:, :, em.index_map], jt[:, em.index_map]
                Me = (np.einsum("p,pai,paj->ij", qu.w_rho_A[p], Je, Je)
                      + np.einsum("p,pi,pj->ij", qu.w_rho_Ip[p], je, je))
            else:
                it = em.item
                f = roots[it.body] if it.where == "root" else attach[it.body]
                if it.kind == "mass":
                    Je = f.Jp[:, em.index_map]
                    Me = it.value * Je.T @ Je
                else:
                    Je = f.Jw[:, em.index_map]
                    Me = Je.T @ (f.R @ it.value @ f.R.T) @ Je
            out.append((em, Me))
        return out

    def mass_matrix(self, q):
        """M(q) of the reduced coordinates: scatter-add of the element matrices into the
        extended numbering, then the clamp."""
        M = np.zeros((self.ext.nq, self.ext.nq))
        for em, Me in self.element_matrices(self.expand(q)):
            np.add.at(M, (em.index_map[:, None], em.index_map[None, :]), Me)
        return self.reduce(M)

    def stiffness_matrix(self):
        """K by scatter-add of the 10 x 10 element stiffnesses, then the clamp."""
        K = np.zeros((self.ext.nq, self.ext.nq))
        for i in self.ext.links:
            bl = self.ext.layout.bodies[i]
            for j, (_, _, dofs) in enumerate(bl.basis.elements):
                g = bl.elastic_index[dofs]
                np.add.at(K, (g[:, None], g[None, :]), bl.basis.element_stiffness(j))
        return self.reduce(K)


__all__ = ["ElementMap", "ExtendedAssembly"]
