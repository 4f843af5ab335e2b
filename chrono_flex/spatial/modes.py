"""Natural modes of a spatial arm linearised about a configuration at rest.

About q0 with q_d = 0, M(q) q_dd = Q - h - K q + Q_g(q) reduces to
M(q0) dq_dd + K_l dq = 0 with K_l = K - dQ_g/dq (q0), the elastic stiffness and the
Hessian of the gravity potential (here by complex-step differentiation of Q_g, exact to
round-off; Squire & Trapp 1998). The modes solve K_l phi = omega^2 M phi (scipy's
``eigh``) over the elastic coordinates with the joints locked, or over all coordinates
with them free; rigid-body modes (zero frequency) are left out
(docs/spatial-link.md §4.2).
"""

from dataclasses import dataclass

import numpy as np
from scipy.linalg import eigh

from .. import _checks as ck
from ..errors import ParameterError
from . import equations as mdl

JOINTS = ("locked", "free")

#: omega^2 below this times the largest |omega^2| is a rigid-body mode (eigh's round-off
#: is ~1e-16 of the largest).
RIGID_BODY_TOLERANCE = 1e-9

_CSTEP = 1e-30


@dataclass(frozen=True)
class Modes:
    """The lowest natural modes: ``frequencies`` (Hz, increasing), mass-normalised
    ``vectors`` (n, nq), ``joints`` ("locked" or "free") and the configuration ``q``."""

    frequencies: np.ndarray
    vectors: np.ndarray
    joints: str
    q: np.ndarray


def linear_stiffness(model, q):
    """K_l = K - dQ_g/dq at q (nq, nq), symmetrised."""
    Kl = model.K.copy()
    if np.any(model.g_vec):
        zero = np.zeros(model.nq)
        for k in range(model.nq):
            qc = q.astype(complex)
            qc[k] += 1j * _CSTEP
            Kl[:, k] -= mdl.terms(model, qc, zero)[2].imag / _CSTEP
        Kl = 0.5 * (Kl + Kl.T)
    return Kl


def natural_modes(arm, n=3, q=None, joints="locked"):
    """The n lowest natural modes of ``arm`` about q at rest (default q = 0): a
    :class:`Modes`. ParameterError when ``n`` exceeds the number of vibration modes."""
    n = ck.positive_int("n", n)
    ck.choice("joints", joints, JOINTS)
    q = np.zeros(arm.nq) if q is None else ck.vector("q", q, arm.nq)
    M = arm.mass_matrix(q)
    Kl = linear_stiffness(arm.model, q)
    keep = arm.elastic_index if joints == "locked" else np.arange(arm.nq)
    w2, phi = eigh(Kl[np.ix_(keep, keep)], M[np.ix_(keep, keep)])
    vibrating = w2 > RIGID_BODY_TOLERANCE * max(np.max(np.abs(w2)), 1.0)
    w2, phi = w2[vibrating], phi[:, vibrating]
    if n > w2.size:
        raise ParameterError("n", n, f"must be at most {w2.size}, the number of vibration "
                             f"modes of this model with joints {joints}")
    vectors = np.zeros((n, arm.nq))
    vectors[:, keep] = phi[:, :n].T
    return Modes(np.sqrt(w2[:n]) / (2 * np.pi), vectors, joints, q)


__all__ = ["JOINTS", "Modes", "linear_stiffness", "natural_modes"]
