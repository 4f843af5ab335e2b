"""Natural modes of a whole Chrono system about its current state (docs/chrono.md §10).

Chrono writes the matrices of its linearised equations (``ChSystem.WriteSystemMatrices``):
the mass matrix M, the stiffness K = -dF/dq of every item that gives one (Chrono's beams,
and the custom element through its Jacobian), and the constraint Jacobian Cq of the
joints, all at velocity level. :func:`system_modes` reads them back and solves

    Z^T K Z v = omega^2 Z^T M Z v,      Z an orthonormal basis of the null space of Cq,

i.e. the free vibration that the joints allow (fixed bodies are not coordinates at all).
Coordinates without mass (for example the rotary inertia of a lumped beam node, which
Chrono leaves at zero) are condensed out statically first (Guyan condensation, exact for
massless coordinates). The modes are those of Chrono's own discretisation, so they check
a scene's set-up against closed forms without any time integration.
"""

from dataclasses import dataclass
import os
import tempfile

import numpy as np
from scipy.linalg import eigh, null_space

from ..errors import SimulationError
from ._detect import require_pychrono

#: A diagonal mass entry below this fraction of the largest one counts as massless.
MASSLESS = 1e-14


@dataclass(frozen=True)
class SystemModes:
    """frequencies (Hz, ascending), vectors (n_coords x n_modes, velocity-level
    coordinates of the system, mass-normalised) and the sizes behind them."""

    frequencies: np.ndarray
    vectors: np.ndarray
    n_coordinates: int
    n_constraints: int
    n_condensed: int


def _read_coo(path, shape):
    A = np.zeros(shape)
    if os.path.getsize(path) > 0:
        data = np.loadtxt(path, ndmin=2)
        np.add.at(A, (data[:, 0].astype(int), data[:, 1].astype(int)), data[:, 2])
    return A


def system_matrices(system, damping=False):
    """(M, K, Cq) of ``system`` at its current state, dense numpy arrays (velocity-level
    coordinates; Cq has one row per scalar constraint); with ``damping``, (M, K, R, Cq),
    R = -dF/dv."""
    require_pychrono()
    system.Setup()
    system.Update(True)
    n, nc = system.GetNumCoordsVelLevel(), system.GetNumConstraints()
    with tempfile.TemporaryDirectory() as d:
        prefix = os.path.join(d, "sys")
        system.WriteSystemMatrices(True, True, bool(damping), True, prefix, False)
        M = _read_coo(prefix + "_M.dat", (n, n))
        K = _read_coo(prefix + "_K.dat", (n, n))
        R = _read_coo(prefix + "_R.dat", (n, n)) if damping else None
        Cq = _read_coo(prefix + "_Cq.dat", (nc, n)) if nc else np.zeros((0, n))
    return (M, K, R, Cq) if damping else (M, K, Cq)


def free_basis(M, K, Cq, R=None):
    """(T, n_condensed): a basis T (n, r) of the free coordinates v = T xi that the
    joints allow (the null space of Cq, turned to the principal axes of the mass), with
    the massless directions condensed out statically (v_s = G v_m, G = -K_ss^-1 K_sm;
    exact for coordinates without mass and without damping). T^T M T is diagonal.
    SimulationError when the massless stiffness is singular, or (``R`` given) when R acts
    on massless coordinates (they would be first-order states, not condensable)."""
    Z = null_space(Cq) if Cq.shape[0] else np.eye(M.shape[0])
    Mr = Z.T @ M @ Z
    d, U = np.linalg.eigh(0.5 * (Mr + Mr.T))
    # turn the free coordinates to the principal axes of the mass: massless directions
    # (lumped nodes' rotations, mixed by the null-space basis) separate from the rest
    Z = Z @ U
    Kr = Z.T @ K @ Z
    Kr = 0.5 * (Kr + Kr.T)
    s = d <= MASSLESS * d.max()
    m = ~s
    T = np.eye(d.size)[:, m]
    if s.any():
        try:
            G = -np.linalg.solve(Kr[np.ix_(s, s)], Kr[np.ix_(s, m)])
        except np.linalg.LinAlgError:
            raise SimulationError("system_modes: the massless coordinates have a singular "
                                  "stiffness (a mechanism without mass)", 0.0) from None
        T[s, :] = G
        if R is not None:
            Rz = Z.T @ R @ Z
            if np.abs(Rz[s]).max() > 1e-12 * max(np.abs(Rz).max(), 1e-300):
                raise SimulationError("linearize: damping acts on massless coordinates "
                                      "(e.g. Rayleigh damping of lumped beam nodes' "
                                      "rotations); they cannot be condensed out", 0.0)
    return Z @ T, int(s.sum())


def system_modes(system, n_modes=None):
    """Natural modes of ``system`` about its current state (module docstring).

    n_modes: how many of the lowest to return (default all). Raises SimulationError when
    the reduced stiffness of the massless coordinates is singular (a mechanism without
    mass) or the reduced mass matrix is not positive definite.
    """
    M, K, Cq = system_matrices(system)
    T, n_condensed = free_basis(M, K, Cq)
    Kmm = T.T @ K @ T
    Kmm = 0.5 * (Kmm + Kmm.T)
    d = np.einsum("ij,ik,kj->j", T, M, T)     # T^T M T is diagonal (free_basis)
    try:
        w2, V = eigh(Kmm, np.diag(d))
    except np.linalg.LinAlgError:
        raise SimulationError("system_modes: the mass matrix is not positive definite on the "
                              "free coordinates", 0.0) from None
    k = slice(None) if n_modes is None else slice(0, int(n_modes))
    f = np.sqrt(np.maximum(w2[k], 0.0)) / (2 * np.pi)
    return SystemModes(frequencies=f, vectors=T @ V[:, k], n_coordinates=M.shape[0],
                       n_constraints=Cq.shape[0], n_condensed=n_condensed)
