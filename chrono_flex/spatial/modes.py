"""Natural modes of a spatial arm linearised about a configuration at rest.

About q0 with q_d = 0, M(q) q_dd = Q - h - K q + Q_g(q) reduces to
M(q0) dq_dd + K_l dq = 0 with K_l = K - dQ_g/dq (q0), the elastic stiffness and the
Hessian of the gravity potential (here by complex-step differentiation of Q_g, exact to
round-off; Squire & Trapp 1998). The modes solve K_l phi = omega^2 M phi (scipy's
``eigh``) over the elastic coordinates with the joints locked, or over all coordinates
with them free; rigid-body modes (zero frequency) are left out
(docs/spatial-link.md §4.2).
"""

from dataclasses import dataclass, replace

import numpy as np
from scipy.linalg import eigh

from .. import _checks as ck
from ..errors import ParameterError
from ..planar.modes import vibrating
from . import equations as mdl

JOINTS = ("locked", "free")


_CSTEP = 1e-30


@dataclass(frozen=True)
class Modes:
    """The lowest natural modes: ``frequencies`` (Hz, increasing), mass-normalised
    ``vectors`` (n, nq), ``joints`` ("locked" or "free") and the configuration ``q``."""

    frequencies: np.ndarray
    vectors: np.ndarray
    joints: str
    q: np.ndarray
    centerline: np.ndarray = None      # (nl, ns, 3) at q, m (:func:`with_shapes`)
    shapes: np.ndarray = None          # (n, nl, ns, 3), largest displacement 1


def with_shapes(modes, centerlines, n_samples=41):
    """``modes`` with the centrelines at q and each mode's shape: the central difference
    of ``centerlines(q, n_samples)`` -> (nl, ns, 3) along the mode's vector (error
    ~h^2 of the rotations' curvature), scaled so that its largest displacement is 1 and
    positive (the vector's sign with it), as :func:`chrono_flex.planar.modes.mode_shape`."""
    n_samples = ck.n_samples(n_samples)
    vectors, shapes = modes.vectors.copy(), []
    for k, v in enumerate(vectors):
        h = 1e-6 / np.max(np.abs(v))
        s = (centerlines(modes.q + h * v, n_samples)
             - centerlines(modes.q - h * v, n_samples)) / (2 * h)
        largest = s.reshape(-1)[np.argmax(np.abs(s))]
        shapes.append(s / largest)
        vectors[k] *= np.sign(largest)
    return replace(modes, vectors=vectors, centerline=centerlines(modes.q, n_samples),
                   shapes=np.array(shapes))


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
    mask = vibrating(w2, Kl, M, arm.elastic_index, joints)   # planar.modes.vibrating
    w2, phi = w2[mask], phi[:, mask]
    if n > w2.size:
        raise ParameterError("n", n, f"must be at most {w2.size}, the number of vibration "
                             f"modes of this model with joints {joints}")
    vectors = np.zeros((n, arm.nq))
    vectors[:, keep] = phi[:, :n].T
    return Modes(np.sqrt(w2[:n]) / (2 * np.pi), vectors, joints, q)


def steady_spin_frequencies(arm, joint_rates, n=3, q=None):
    """The n lowest frequencies (Hz) of the elastic coordinates about a steady motion:
    joints held at constant rates ``joint_rates`` (prescribed, no joint acceleration), the
    elastic state at q (default zero; it must be an equilibrium of that motion, as e = 0
    is for a straight link spinning about an axis across it).

    With f_e(e, e_d) the elastic rows of the forcing, the small motions obey
    M_ee de_dd = A de + B de_d, A = df_e/de, B = df_e/de_d (complex step, exact to
    round-off); the frequencies are |Im lambda| of the eigenvalues of
    [[0, I], [M_ee^-1 A, M_ee^-1 B]] (B holds the gyroscopic coupling and damping).
    Geometric stiffening, when the arm has it, enters through A
    (docs/spatial-link.md §4.3).
    """
    n = ck.positive_int("n", n)
    q = np.zeros(arm.nq) if q is None else ck.vector("q", q, arm.nq)
    qd = np.zeros(arm.nq)
    qd[arm.joint_index] = ck.vector("joint_rates", joint_rates, arm.n_joints)
    e = arm.elastic_index
    Q = np.zeros(arm.nq)
    A = np.empty((e.size, e.size))
    B = np.empty((e.size, e.size))
    for c, k in enumerate(e):
        for target, x, xd in ((A, q.astype(complex), qd), (B, q, qd.astype(complex))):
            (x if target is A else xd)[k] += 1j * _CSTEP
            target[:, c] = mdl.forcing(arm.model, x, xd, Q)[1][e].imag / _CSTEP
    M = arm.mass_matrix(q)[np.ix_(e, e)]
    Minv = np.linalg.inv(M)
    S = np.block([[np.zeros_like(M), np.eye(e.size)], [Minv @ A, Minv @ B]])
    w = np.sort(np.abs(np.linalg.eigvals(S).imag))[::2]      # the +- pairs, once each
    if n > w.size:
        raise ParameterError("n", n, f"must be at most {w.size}")
    return w[:n] / (2 * np.pi)


__all__ = ["JOINTS", "Modes", "linear_stiffness", "natural_modes", "steady_spin_frequencies",
           "with_shapes"]
