"""Screw algebra for the recursive Newton-Euler formulation (docs/screw-recursion.md §1).

Every screw is written primary part first, S_hat = [S; S']: a twist V = [omega; v], a
wrench F = [F; M]. With this ordering the same 6x6 matrices transform twists and wrenches
(:func:`screw_transform`), and the same cross-product matrix :func:`cross_matrix`
differentiates both in a moving frame. The functions without argument checks (``hat``,
``cross3``, ``screw_matrix``, ``screw_matrix_inv``, ``cross6``) are the recursion's
inner loop; the checked ones are the public face.
"""

import numpy as np

from .. import _checks as ck
from ..errors import ParameterError

#: Screw polarity: swaps the primary and moment parts, [S; S'] -> [S'; S]. The reciprocal
#: product (power) of a twist V and a wrench F is V^T DELTA F = omega.M + v.F.
DELTA = np.block([[np.zeros((3, 3)), np.eye(3)], [np.eye(3), np.zeros((3, 3))]])

EZ = np.array([0.0, 0.0, 1.0])
EX = np.array([1.0, 0.0, 0.0])


def skew(r):
    """Skew matrix r~ with r~ u = r x u (B^ij = r~ A of [L]; docs/screw-recursion.md eq. (1.3)).

    r~ = [[0, -r3, r2], [r3, 0, -r1], [-r2, r1, 0]].
    """
    return hat(ck.vector("r", r, 3))


def rot_z(angle):
    """Rotation matrix about z by ``angle`` (rad): the planar joint rotations in 3D."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def hat(r):
    """Unchecked kernel of :func:`skew` (r: a 3-vector)."""
    return np.array([[0.0, -r[2], r[1]], [r[2], 0.0, -r[0]], [-r[1], r[0], 0.0]])


def cross3(a, b):
    """a x b for 3-vectors (np.cross is slow on tiny arrays)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def screw_matrix(A, r):
    """Unchecked kernel of :func:`screw_transform` (A: 3x3 rotation, r: 3-vector)."""
    X = np.zeros((6, 6))
    X[:3, :3] = A
    X[3:, 3:] = A
    X[3:, :3] = hat(r) @ A
    return X


def screw_matrix_inv(X):
    """Unchecked kernel of :func:`screw_inverse` (X: 6x6 screw transformation)."""
    A, B = X[:3, :3], X[3:, :3]
    out = np.zeros((6, 6))
    out[:3, :3] = A.T
    out[3:, 3:] = A.T
    out[3:, :3] = -A.T @ B @ A.T
    return out


def cross6(V):
    """Unchecked kernel of :func:`cross_matrix` (V: 6-vector twist)."""
    H = np.zeros((6, 6))
    H[:3, :3] = hat(V[:3])
    H[3:, 3:] = H[:3, :3]
    H[3:, :3] = hat(V[3:])
    return H


def rotation_part(A):
    A = np.asarray(A, dtype=float)
    if A.shape != (3, 3) or not np.all(np.isfinite(A)):
        raise ParameterError("A", A, "must be a finite 3x3 rotation matrix")
    if np.max(np.abs(A.T @ A - np.eye(3))) > 1e-9:
        raise ParameterError("A", A, "must be orthogonal (A^T A = E)")
    return A


def screw_transform(A, r):
    """Screw transformation A_hat^ij = [[A, 0], [r~ A, A]] ([L] section 1;
    docs/screw-recursion.md eq. (1.3)).

    A = A^ij turns frame-j components into frame-i components; r = r^ij is the origin
    of frame j seen from the origin of frame i, in frame-i components. It maps a screw
    [S; S'] about O_j in frame j to the same screw about O_i in frame i
    (S' -> A S' + r x A S): a twist [omega; v] (v the velocity of the reference point)
    and a wrench [F; M] (M the moment about the reference point) alike. Chains multiply:
    A_hat^ik = A_hat^ij A_hat^jk.
    """
    return screw_matrix(rotation_part(A), ck.vector("r", r, 3))


def screw_inverse(X):
    """Inverse of a screw transformation: (A_hat^ij)^-1 = A_hat^ji = [[A^T, 0], [-A^T r~, A^T]].

    Follows from r^ji = -A^T r^ij (docs/screw-recursion.md §1); no matrix inversion.
    """
    X = np.asarray(X, dtype=float)
    if X.shape != (6, 6):
        raise ParameterError("X", X, "must be a 6x6 screw transformation")
    return screw_matrix_inv(X)


def spatial_inertia(mass, com, inertia):
    """Generalized inertia of a body about its joint origin O_j ([L] section 1;
    docs/screw-recursion.md eq. (1.5)):

        O_j = [[m E, m P~^T], [m P~, J]]

    m: mass; P: centre of mass from O_j; J: 3x3 inertia tensor about O_j (not the centre
    of mass). O_j maps the ray-ordered twist [v; omega] to the momentum screw [Q; H]
    (Q = m(v + omega x P), H = m P x v + J omega); with [L]'s twist V = [omega; v] the
    momentum is O_j DELTA V (:data:`DELTA`). Block-diagonal when O_j is the centre of mass.
    """
    m = ck.non_negative("mass", mass)
    P = ck.vector("com", com, 3)
    J = np.asarray(inertia, dtype=float)
    if J.shape != (3, 3) or not np.all(np.isfinite(J)) or np.max(np.abs(J - J.T)) > 1e-12 * max(
            1.0, np.max(np.abs(J))):
        raise ParameterError("inertia", inertia, "must be a finite symmetric 3x3 matrix")
    Pt = skew(P)
    return np.block([[m * np.eye(3), m * Pt.T], [m * Pt, J]])


def cross_matrix(V):
    """6x6 cross-product (motion) matrix of a twist V = [omega; v]:

        H(V) = [[omega~, 0], [v~, omega~]]

    ("H_j" of [L] eq. 12, docs/screw-recursion.md eq. (3.1); Featherstone's crm in
    [omega; v] order). With primary-first screws it serves twists and wrenches alike: the
    rate of a screw of fixed body components, seen from the fixed frame, is H(V) S
    (covariant derivative D = d/dt + V_hat of [L]). H(V) V = 0 and H(V1) V2 = -H(V2) V1.
    """
    return cross6(ck.vector("V", V, 6))


def newton_euler_wrench(O, V, V_dot):
    """Newton-Euler wrench of a rigid body about its moving origin ([L] eq. 12;
    docs/screw-recursion.md eq. (3.1)):

        F_hat = O DELTA V_dot + H(V) O DELTA V

    O: :func:`spatial_inertia`; V, V_dot: body twist [omega; v] and the time derivative of
    its body components. Returns [F; M] = the resultant and the moment about O_j of the
    forces that produce the motion (gravity not included: see :func:`gravity_wrench`).
    The angular-velocity-only H of [L] is the case v = 0; with O_j moving, the v~ block
    supplies the v x Q term of the moment about a moving point.
    """
    O = np.asarray(O, dtype=float)
    V = ck.vector("V", V, 6)
    V_dot = ck.vector("V_dot", V_dot, 6)
    return O @ DELTA @ V_dot + cross_matrix(V) @ (O @ DELTA @ V)


def gravity_wrench(mass, com, g):
    """Gravity wrench F_hat_G = [m g; m P x g] about O_j ([L] eqs. 9 and 13, i.e.
    docs/screw-recursion.md eqs. (2.6), (3.3)); g in body components."""
    g = ck.vector("g", g, 3)
    P = ck.vector("com", com, 3)
    return np.concatenate([mass * g, mass * np.cross(P, g)])


__all__ = ["DELTA", "EX", "EZ", "cross3", "cross6", "cross_matrix", "gravity_wrench", "hat", "newton_euler_wrench", "rot_z", "rotation_part", "screw_inverse", "screw_matrix", "screw_matrix_inv", "screw_transform", "skew", "spatial_inertia"]
