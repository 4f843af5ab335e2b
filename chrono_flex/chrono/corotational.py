"""Corotational formulas of Chrono's planar beam elements, without Chrono.

The chrono-beam engine builds a PlanarArm from Chrono's ``ChElementBeamEuler`` (or,
for a consistent mass, ``ChElementBeamTaperedTimoshenko``) elements and reads their
nodes back. Everything it computes from those nodes lives here as pure functions of
the nodal positions, angles and velocities: the section Chrono is given, the rigid
chain, the Hermite centreline between nodes, the element mass and stiffness in the
chord frame, the strain and kinetic energies and the projection of the beams'
deflection onto the arm's own shape functions (so that the engine returns the arm's
generalized coordinates, as every engine does). See docs/chrono.md §4.
"""

from dataclasses import dataclass
import math

import numpy as np

from ..planar.shapes import hermite_functions, hermite_mass, hermite_stiffness

#: Poisson ratio used only for the torsion rigidity (out of the plane, never excited).
POISSON = 0.3


@dataclass(frozen=True)
class BeamSection:
    """A Link's section as Chrono wants it (SI units).

    E, A, Izz, density reproduce the Link exactly: E Izz = EI and density A = rho_A.
    Izz is the in-plane bending moment (bending about the plane normal = local Z of the
    beam), Iyy the out-of-plane one, J the torsion constant, G the shear modulus.
    """

    E: float
    A: float
    Izz: float
    Iyy: float
    J: float
    G: float
    density: float

    @property
    def EI(self):
        return self.E * self.Izz

    @property
    def EA(self):
        return self.E * self.A

    @property
    def mass_per_length(self):
        return self.density * self.A


def section_properties(link, EI=None, rho_A=None):
    """Split a Link's EI and rho_A (or the values ``EI``, ``rho_A`` given, for one
    element of a varying section) into E, A, I, density for Chrono.

    When the Link was given A and I, they are kept; otherwise the section is a solid
    square of side ``link.thickness`` (A = h^2, I = h^4/12). Either way E = EI/I and
    density = rho_A/A, so EI and rho_A are exact; the decomposition only sets the axial
    rigidity EA = 12 EI/h^2 for the square (the reference is inextensible) and the
    out-of-plane properties (Iyy = Izz, torsion constant 0.1406 h^4 of a square,
    Roark), which planar motion does not excite.
    """
    if link.A is not None and link.I is not None:
        A, Izz = float(link.A), float(link.I)
    else:
        h = float(link.thickness)
        A, Izz = h * h, h ** 4 / 12.0
    E = (link.EI if EI is None else EI) / Izz
    return BeamSection(E=E, A=A, Izz=Izz, Iyy=Izz, J=0.1406 * A * A,
                       G=E / (2.0 * (1.0 + POISSON)),
                       density=(link.rho_A if rho_A is None else rho_A) / A)


def element_sections(link, n):
    """One :class:`BeamSection` per element of ``n`` equal beam elements of ``link``.

    Uniform link: n copies of :func:`section_properties`. Varying section
    (docs/planar-link.md §2.5): each element gets the MEAN of EI and of rho_A over its
    own length, (1/l) int EI dx and (1/l) int rho_A dx (Gauss-Legendre, exact for the
    link's per-element values and for polynomial callables). The mass of every element
    is then exact; the variation inside an element is lost, which costs an O(h^2)
    relative error in the frequencies (validation case sections.piecewise-convergence).
    A, Izz (hence the split into E and density) are the link's, as for a uniform link.
    """
    if link.uniform:
        return [section_properties(link)] * n
    x = np.linspace(0.0, link.length, n + 1)
    return [section_properties(link, link.element_average("EI", a, b),
                               link.element_average("rho_A", a, b))
            for a, b in zip(x[:-1], x[1:])]


def rigid_chain(arm, joint_coords):
    """Root frames (p, psi) of every link with zero deformation, their tips, and the
    slide axis of each prismatic joint (None for revolute ones), in the arm plane.

    The same chain as :func:`chrono_flex.planar.kinematics.child_frame` with w = 0: revolute
    psi = parent angle + theta + offset at the parent tip; prismatic: axis angle
    a = parent angle + axis_angle, p = parent tip + d (cos a, sin a), psi = a + link_angle.
    """
    p, ang = np.zeros(2), 0.0
    roots, tips, axes = [], [], []
    for lk, jt, qj in zip(arm.links, arm.joints, joint_coords):
        if jt.kind == "revolute":
            root, psi, axis = p, ang + qj + jt.angle_offset, None
        else:
            a = ang + jt.axis_angle
            axis = np.array([math.cos(a), math.sin(a)])
            root, psi = p + qj * axis, a + jt.link_angle
        tip = root + lk.length * np.array([math.cos(psi), math.sin(psi)])
        roots.append((root, psi))
        tips.append((tip, psi))
        axes.append(axis)
        p, ang = tip, psi
    return roots, tips, axes


def rigid_velocity(arm, joint_coords, joint_rates, link, r):
    """Velocity (2,) and angular rate of a point r (2,) carried by ``link`` when the
    joints move at ``joint_rates`` (rigid links): sum over the joints up to ``link`` of
    theta_d S (r - p_j) (revolute) or d_d u_j (prismatic)."""
    roots, _, axes = rigid_chain(arm, joint_coords)
    v, w = np.zeros(2), 0.0
    for j in range(link + 1):
        rate = joint_rates[j]
        if arm.joints[j].kind == "revolute":
            d = np.asarray(r, dtype=float) - roots[j][0]
            v += rate * np.array([-d[1], d[0]])
            w += rate
        else:
            v += rate * axes[j]
    return v, w


def _hermite_basis(xi):
    """Cubic Hermite basis on [0, 1] and its first two derivatives in xi (each (4, n)):
    :func:`chrono_flex.planar.shapes.hermite_functions` on a unit element."""
    return tuple(a.T for a in hermite_functions(xi, 1.0))


def hermite_centreline(nodes_xy, node_angles, length, n_samples):
    """Points (ns, 2) and curvature (ns,) of a beam from its nodes, at s = linspace(0, L).

    Between two nodes the centreline is the cubic Hermite curve through the nodes'
    positions with the nodes' tangents (cos theta, sin theta) scaled by the chord
    length: the shape functions of Chrono's corotational Euler element in its chord
    frame. Curvature = (r' x r'') / |r'|^3 of that curve.
    """
    P = np.asarray(nodes_xy, dtype=float)
    th = np.asarray(node_angles, dtype=float)
    n = P.shape[0] - 1
    s = np.linspace(0.0, length, n_samples)
    le = length / n
    e = np.minimum((s / le).astype(int), n - 1)
    xi = s / le - e
    h, dh, ddh = _hermite_basis(xi)
    A, B = P[e], P[e + 1]
    chord = np.linalg.norm(B - A, axis=1)[:, None]
    TA = np.stack([np.cos(th[e]), np.sin(th[e])], axis=1) * chord
    TB = np.stack([np.cos(th[e + 1]), np.sin(th[e + 1])], axis=1) * chord
    r = h[0][:, None] * A + h[1][:, None] * TA + h[2][:, None] * B + h[3][:, None] * TB
    d1 = dh[0][:, None] * A + dh[1][:, None] * TA + dh[2][:, None] * B + dh[3][:, None] * TB
    d2 = ddh[0][:, None] * A + ddh[1][:, None] * TA + ddh[2][:, None] * B + ddh[3][:, None] * TB
    speed = np.linalg.norm(d1, axis=1)
    curv = (d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]) / speed ** 3
    return r, curv


def _wrap(a):
    return (a + np.pi) % (2 * np.pi) - np.pi


def element_stiffness(EI, EA, le):
    """Planar local stiffness of an Euler-Bernoulli element, dofs [u, v, theta] x 2."""
    K = np.zeros((6, 6))
    K[np.ix_([0, 3], [0, 3])] = EA / le * np.array([[1, -1], [-1, 1]])
    K[np.ix_([1, 2, 4, 5], [1, 2, 4, 5])] = hermite_stiffness(EI, le)
    return K


def element_mass(mu, Jzz, le, consistent):
    """Planar local mass of a beam element, dofs [u, v, theta] x 2.

    Lumped (ChElementBeamEuler): mu le/2 on each node's translations and Jzz le/2 on its
    rotation. Consistent (Euler-Bernoulli limit of ChElementBeamTaperedTimoshenko):
    axial mu le [1/3 1/6], the Hermite matrix mu le/420 [156 22le 54 -13le ...] and the
    rotary-inertia matrix Jzz/(30 le) [36 3le -36 3le ...].
    """
    M = np.zeros((6, 6))
    if not consistent:
        M[[0, 1, 3, 4], [0, 1, 3, 4]] = mu * le / 2
        M[[2, 5], [2, 5]] = Jzz * le / 2
        return M
    M[np.ix_([0, 3], [0, 3])] = mu * le / 6 * np.array([[2, 1], [1, 2]])
    ix = np.ix_([1, 2, 4, 5], [1, 2, 4, 5])
    M[ix] = hermite_mass(mu, le)
    M[ix] += Jzz / (30 * le) * np.array(
        [[36, 3 * le, -36, 3 * le], [3 * le, 4 * le ** 2, -3 * le, -le ** 2],
         [-36, -3 * le, 36, -3 * le], [3 * le, -le ** 2, -3 * le, 4 * le ** 2]])
    return M


def local_velocities(P, th, V, W):
    """Nodal velocities of every element of a link in its chord frame: (ne, 6)."""
    c = P[1:] - P[:-1]
    beta = np.arctan2(c[:, 1], c[:, 0])
    cb, sb = np.cos(beta), np.sin(beta)
    out = np.empty((c.shape[0], 6))
    for k, (a, b) in enumerate(((0, slice(None, -1)), (3, slice(1, None)))):
        v = V[b]
        out[:, a] = cb * v[:, 0] + sb * v[:, 1]
        out[:, a + 1] = -sb * v[:, 0] + cb * v[:, 1]
        out[:, a + 2] = W[b]
    return out


def element_strain_energy(P, th, le, EI, EA):
    """Corotational strain energy of the elements of a link, J (summed).

    In the chord frame of each element the nodes' rotations relative to the chord
    are theta_a, theta_b and the stretch is delta = |chord| - le:
    U = EA delta^2/(2 le) + EI/le (2 theta_a^2 + 2 theta_a theta_b + 2 theta_b^2),
    i.e. 1/2 d^T K d with the element stiffness of :func:`element_stiffness` on the
    local displacements Chrono's corotational element uses (``GetStateBlock``).
    """
    c = P[1:] - P[:-1]
    beta = np.arctan2(c[:, 1], c[:, 0])
    ta, tb = _wrap(th[:-1] - beta), _wrap(th[1:] - beta)
    delta = np.linalg.norm(c, axis=1) - le
    return float(np.sum(EA * delta ** 2 / (2 * le)
                        + EI / le * (2 * ta ** 2 + 2 * ta * tb + 2 * tb ** 2)))



def centreline_integral_y(P, th, length, n_gauss=4, weights=None):
    """int y ds over a link's Hermite centreline (Gauss-Legendre per element); with
    ``weights`` (one per element) the sum over elements of weight * int_e y ds."""
    n = P.shape[0] - 1
    le = length / n
    xg, wg = np.polynomial.legendre.leggauss(n_gauss)
    xi = 0.5 * (xg + 1)
    h = _hermite_basis(xi)[0]
    chord = np.linalg.norm(P[1:] - P[:-1], axis=1)
    total = 0.0
    for e in range(n):
        y = (h[0] * P[e, 1] + h[1] * chord[e] * math.sin(th[e])
             + h[2] * P[e + 1, 1] + h[3] * chord[e] * math.sin(th[e + 1]))
        total += 0.5 * le * float(wg @ y) * (1.0 if weights is None else weights[e])
    return total


def hub_frame_deflection(P, th, V, W, hub, length, x):
    """Transverse deflection w(x) and its rate at material points ``x`` of one link made
    of beam elements, in the link's hub frame (the clamped root's tangent frame).

    Args:
        P, th, V, W: nodal positions (n+1, 2), angles (n+1,), velocities (n+1, 2) and
            angular rates (n+1,) in the arm plane.
        hub: (p, a, v, w) of the hub body: position (2,), angle, velocity (2,), rate.
        length: the link length; node k sits at material coordinate k length / n.
        x: (m,) material coordinates.

    In the hub frame a node's deflection is the transverse component of its position
    relative to the hub, its slope is its angle relative to the hub's, and their rates
    follow from d/dt [R(-a) d] = R(-a) (V - v) - w S R(-a) d (S the 90 degree turn).
    Between nodes, w(x) is the cubic Hermite interpolant of the nodal deflections and
    slopes (the shape functions of the element itself).
    """
    p, a, v, w = hub
    c, s = math.cos(a), math.sin(a)
    R = np.array([[c, s], [-s, c]])                      # R(-a): plane -> hub frame
    d = (np.asarray(P, dtype=float) - p) @ R.T
    dv = (np.asarray(V, dtype=float) - v) @ R.T
    wn = d[:, 1]
    wn_rate = dv[:, 1] - w * d[:, 0]
    slope = np.tan(_wrap(np.asarray(th, dtype=float) - a))
    slope_rate = (np.asarray(W, dtype=float) - w) * (1.0 + slope ** 2)
    n = len(wn) - 1
    le = length / n
    x = np.asarray(x, dtype=float)
    e = np.minimum((x / le).astype(int), n - 1)
    h = _hermite_basis(x / le - e)[0]
    out = []
    for val, der in ((wn, slope), (wn_rate, slope_rate)):
        out.append(h[0] * val[e] + h[1] * le * der[e] + h[2] * val[e + 1]
                   + h[3] * le * der[e + 1])
    return out[0], out[1]


def project_onto_basis(basis, x, w):
    """Least-squares coordinates e of ``basis`` with N(x) e ~ w(x): the arm's elastic
    coordinates that best reproduce a sampled deflection (exact when w lies in the
    basis's span, e.g. Hermite nodal values on the same mesh)."""
    N = basis.values(np.asarray(x, dtype=float))[0]
    return np.linalg.lstsq(N, np.asarray(w, dtype=float), rcond=None)[0]


__all__ = ["BeamSection", "POISSON", "centreline_integral_y", "element_mass", "element_sections", "element_stiffness", "element_strain_energy", "hermite_centreline", "hub_frame_deflection", "local_velocities", "project_onto_basis", "rigid_chain", "rigid_velocity", "section_properties"]
