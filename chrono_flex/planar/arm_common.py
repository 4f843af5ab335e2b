"""What an arm built on an assembled model answers the same way, planar
(:class:`chrono_flex.planar.arm.PlanarArm`) or spatial
(:class:`chrono_flex.spatial.arm.SpatialArm`): its sizes and coordinates, M(q), K, the
energies and its model file, written once."""

import numpy as np

from .. import _checks as ck
from .model_file import write_model


class AssembledArm:
    """The base of the arms: a subclass sets ``model`` (``nq``, ``joint_index``,
    ``elastic_index``, ``K``), ``assembly`` (its extended assembly: ``mass_matrix(q)``)
    and :attr:`equations`, the module of its equations (``terms``, ``kinetic_energy``,
    ``elastic_potential``, ``gravity_potential``)."""

    #: The module of the arm's equations (:mod:`chrono_flex.planar.equations`,
    #: :mod:`chrono_flex.spatial.equations`).
    equations = None

    def to_file(self, path, inputs=None, simulation=None, description=None):
        """Write the arm as a model file at ``path`` (TOML, atomically, docs/model-files.md),
        with ``inputs`` ({"torque" | "joint_motion" | "drive_input": a profile of
        :mod:`chrono_flex.inputs`}) and ``simulation`` (simulate's settings) when given,
        so that ``chrono-flex run path`` runs it; return ``path``."""
        return write_model(path, self, inputs, simulation, description)

    # -- sizes and coordinates ----------------------------------------------------------
    @property
    def nq(self):
        """Number of generalized coordinates."""
        return self.model.nq

    @property
    def joint_index(self):
        """Indices of the joint coordinates in q (fixed joints have none)."""
        return self.model.joint_index

    @property
    def elastic_index(self):
        """Indices of the elastic coordinates in q."""
        return self.model.elastic_index

    def _q(self, q, name="q"):
        return ck.vector(name, q, self.nq)

    # -- the equations ------------------------------------------------------------------
    def mass_matrix(self, q, method="assembly"):
        """M(q): by [B]'s extended assembly (default) or the virtual-power quadrature."""
        q = self._q(q)
        ck.choice("method", method, ("assembly", "virtual_power"))
        if method == "assembly":
            return self.assembly.mass_matrix(q)
        return self.equations.terms(self.model, q, np.zeros(self.nq))[0]

    def stiffness_matrix(self):
        """K (constant; elastic coordinates only)."""
        return self.model.K.copy()

    def energies(self, q, qd):
        """(kinetic, elastic, gravity) energies at a state, J."""
        q, qd = self._q(q), self._q(qd, "qd")
        m = self.equations
        return (m.kinetic_energy(self.model, q, qd), m.elastic_potential(self.model, q),
                float(m.gravity_potential(self.model, q)))


__all__ = ["AssembledArm"]
