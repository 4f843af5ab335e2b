"""Natural modes of an arm linearised about a configuration at rest (numpy/scipy).

About q0 with q_d = 0 the equations M(q) q_dd = Q - h - K q + Q_g(q) reduce to
M(q0) dq_dd + K_l dq = 0 with K_l = K - dQ_g/dq (q0): the elastic stiffness and the
Hessian of the gravity potential (taken here by central differences of Q_g). The modes
solve the symmetric generalized eigenproblem K_l phi = omega^2 M phi (scipy's ``eigh``),
over the elastic coordinates when the joints are locked (each link clamped at its hub)
or over all coordinates when they are free (pinned, with hub inertia and payload);
rigid-body modes of zero frequency are left out. A mode's shape is what it does to the
centrelines: d(points)/dq . phi, by central differences of the kinematics
(docs/planar-link.md §1).
"""

from dataclasses import dataclass

import numpy as np
from scipy.linalg import eigh

from .. import _checks as ck
from . import equations as mdl
from . import kernels
from ..errors import ParameterError

JOINTS = ("locked", "free")

#: With free joints, omega^2 below this times the lowest omega^2 of the same arm with its
#: joints locked is a rigid-body mode. Locked, every link is clamped and has no rigid
#: mode. (A threshold relative to the largest omega^2 would drop real modes of fine
#: meshes: omega_1^2 / omega_max^2 ~ 0.017 / n^4 for a link of n Hermite elements,
#: 1e-9 at n = 64.)
RIGID_BODY_TOLERANCE = 1e-6


def vibrating(w2, Kl, M, elastic, joints):
    """Mask of the vibration modes among eigenvalues ``w2`` of (Kl, M). Non-positive
    omega^2 are left out (a configuration that gravity makes unstable in that mode has no
    vibration there). With free joints, rigid-body modes are left out too: omega^2 below
    RIGID_BODY_TOLERANCE times the lowest positive one of the elastic block ``elastic``
    (the joints locked). Shared by the planar and spatial modes."""
    if joints != "free":
        return w2 > 0.0
    locked = eigh(Kl[np.ix_(elastic, elastic)], M[np.ix_(elastic, elastic)], eigvals_only=True)
    positive = locked[locked > 0.0]
    floor = RIGID_BODY_TOLERANCE * positive[0] if positive.size else 0.0
    return w2 > floor


@dataclass(frozen=True)
class Modes:
    """The lowest natural modes of an arm about a configuration at rest.

    Attributes:
        frequencies: natural frequencies, Hz (n,), increasing.
        vectors: each mode in the arm's generalized coordinates (n, nq), mass-normalised
            (phi^T M phi = 1); zero at the joints when ``joints == "locked"``.
        joints: "locked" (each link clamped at its hub) or "free".
        q: the configuration (nq,).
        centerline: the arm's centrelines at q in its plane, m (nl, ns, 2).
        shapes: each mode's displacement of those points (n, nl, ns, 2), scaled so that
            the largest displacement is 1 and positive (a shape: multiply by an
            amplitude in m).
    """

    frequencies: np.ndarray
    vectors: np.ndarray
    joints: str
    q: np.ndarray
    centerline: np.ndarray
    shapes: np.ndarray


def _gravity_force(model, q):
    """Q_g(q): by the compiled chain kernel where numba is present (its r = h - Q_g
    [+ K_geo e] at rest, without the stiffening term, is -Q_g: h is quadratic in the
    rates; without M, O(nq) per link), else from
    :func:`chrono_flex.planar.equations.terms`."""
    zero = np.zeros(model.nq)
    if model.packed is not None:
        return -kernels.chain_forces(model.packed, q, zero, model.g_vec, False)[1]
    return mdl.terms(model, q, zero)[2]


def linear_stiffness(arm, q):
    """K_l = K - dQ_g/dq at q (nq, nq), symmetric: the stiffness of small motions at rest."""
    Kl = arm.model.K.copy()
    if arm.gravity:
        h = 1e-6                   # central differences of Q_g: error ~h^2, far below K
        if arm.model.packed is not None:     # the same differences in one compiled call
            Kl -= kernels.gravity_stiffness(arm.model.packed, q, arm.model.g_vec, h)
            return 0.5 * (Kl + Kl.T)
        for k in range(arm.nq):
            qp, qm = q.copy(), q.copy()
            qp[k] += h
            qm[k] -= h
            Kl[:, k] -= (_gravity_force(arm.model, qp)
                         - _gravity_force(arm.model, qm)) / (2 * h)
        Kl = 0.5 * (Kl + Kl.T)
    return Kl


def eigenmodes(arm, n=3, q=None, joints="locked"):
    """(omega^2 (n,), vectors (n, nq)) of the n lowest vibration modes about q (all of
    them for ``n=None``).

    ParameterError when ``n`` exceeds the number of vibration modes the model has (one
    per elastic coordinate, with free joints one per coordinate, less rigid-body modes).
    """
    n = None if n is None else ck.positive_int("n", n)
    ck.choice("joints", joints, JOINTS)
    q = np.zeros(arm.nq) if q is None else ck.vector("q", q, arm.nq)
    M = arm.mass_matrix(q)
    Kl = linear_stiffness(arm, q)
    keep = arm.elastic_index if joints == "locked" else np.arange(arm.nq)
    w2, phi = eigh(Kl[np.ix_(keep, keep)], M[np.ix_(keep, keep)])
    mask = vibrating(w2, Kl, M, arm.elastic_index, joints)
    w2, phi = w2[mask], phi[:, mask]
    n = w2.size if n is None else n
    if n > w2.size:
        raise ParameterError("n", n, f"must be at most {w2.size}, the number of vibration "
                             f"modes this model has with joints {joints} (one per elastic "
                             f"coordinate{'' if joints == 'locked' else ' or joint'}, less "
                             "rigid-body modes; use more elements or modes per link)")
    vectors = np.zeros((n, arm.nq))
    vectors[:, keep] = phi[:, :n].T
    return w2[:n], vectors


def lowest_frequency_squared(arm, q=None):
    """omega_1^2 of the lowest vibration mode about q with the joints locked: what
    ``eigenmodes(arm, 1, q)`` gives, to round-off. With the compiled kernel, by inverse
    iteration on the elastic block (:func:`chrono_flex.planar.kernels.lowest_eigenvalue`:
    plain loops, where scipy's ``eigh`` computes all the modes and its LAPACK threads,
    on a machine busier than it has cores, can wait ten times longer than they
    compute); M from the kernel as well. Falls back to :func:`eigenmodes` where the
    iteration does not answer (no kernel, a stiffness that is not positive definite)."""
    q = np.zeros(arm.nq) if q is None else ck.vector("q", q, arm.nq)
    model = arm.model
    if model.packed is not None:
        M = kernels.chain_terms(model.packed, q, np.zeros(arm.nq), model.g_vec, False)[0]
        keep = np.ix_(arm.elastic_index, arm.elastic_index)
        w2 = kernels.lowest_eigenvalue(linear_stiffness(arm, q)[keep], M[keep])
        if w2 > 0.0:
            return w2
    return float(eigenmodes(arm, 1, q, joints="locked")[0][0])


def mode_shape(arm, q, vector, n_samples=41):
    """The centreline displacement (nl, ns, 2) of a small motion ``vector`` (nq,) about
    q: central differences of :func:`~chrono_flex.planar.equations.centerlines`."""
    size = np.max(np.abs(vector))
    h = 1e-6 / size                # error ~h^2 of the joint rotations' curvature
    plus = mdl.centerlines(arm.model, q + h * vector, n_samples)[0]
    minus = mdl.centerlines(arm.model, q - h * vector, n_samples)[0]
    return (plus - minus) / (2 * h)


def natural_modes(arm, n=3, q=None, joints="locked", n_samples=41):
    """The n lowest natural modes of ``arm`` about q at rest (default q = 0): a
    :class:`Modes` with the frequencies (Hz), the mass-normalised vectors and the
    shapes of the centrelines (``n_samples`` points per link)."""
    n_samples = ck.n_samples(n_samples)
    q = np.zeros(arm.nq) if q is None else ck.vector("q", q, arm.nq)
    w2, vectors = eigenmodes(arm, n, q, joints)
    shapes = np.array([mode_shape(arm, q, v, n_samples) for v in vectors])
    for k, s in enumerate(shapes):     # the largest displacement 1 and positive
        largest = s.reshape(-1)[np.argmax(np.abs(s))]
        s /= largest
        vectors[k] *= np.sign(largest)
    return Modes(frequencies=np.sqrt(w2) / (2 * np.pi), vectors=vectors, joints=joints, q=q,
                 centerline=mdl.centerlines(arm.model, q, n_samples)[0], shapes=shapes)


__all__ = ["JOINTS", "Modes", "eigenmodes", "linear_stiffness", "lowest_frequency_squared",
           "mode_shape", "natural_modes"]
