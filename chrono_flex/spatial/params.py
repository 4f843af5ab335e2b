"""Parameters of spatial flexible-link arms, as validated frozen dataclasses (SI units).

A spatial arm is a tree of bodies (docs/spatial-link.md §1): flexible links
(:class:`SpatialLink`) and rigid bodies (:class:`RigidBody`: hubs, payloads). Every body
hangs on its parent (or the base) through one joint: :class:`RevoluteJoint` about an
axis, :class:`PrismaticJoint` along an axis, or :class:`FixedJoint` (a weld). The joint
sits at the parent's attachment frame (a link's deformed tip, a rigid body's own frame)
shifted by ``offset``; ``x_axis`` and ``y_axis`` give the child's frame in the joint's
frame at zero joint value (the link's axis is its x axis).
"""

from dataclasses import dataclass

import numpy as np

from .. import _checks as ck
from ..errors import ParameterError
from ..planar.params import SectionAlong, _is_varying

#: Most elements a spatial link may have: 5 coordinates per node, dense matrices.
MAX_ELEMENTS = 800

#: Standard gravity used when ``gravity=True`` is given (m/s^2), along -Z.
STANDARD_GRAVITY = 9.81


@dataclass(frozen=True)
class SpatialLink(SectionAlong):
    """One Euler-Bernoulli link with torsion, clamped at its joint (docs/spatial-link.md §2).

    The link's axis is x of its frame. It bends in the x-y plane (deflection v, stiffness
    EI_z) and in the x-z plane (deflection w, stiffness EI_y), both with cubic Hermite
    elements, and twists by phi about x (stiffness GJ, linear elements). Each node carries
    [v, v', w, w', phi].

    The section may vary along the link (docs/spatial-link.md §2.1), as the planar
    link's does (docs/planar-link.md §2.5): each of ``EI_y``, ``EI_z``, ``GJ``, ``rho_A``
    and ``rho_Ip`` is a number (uniform), one value per element (a list or tuple), or a
    callable ``f(x) -> float`` of the arc length x from the root (m), integrated over
    each element by Gauss-Legendre quadrature of
    :data:`chrono_flex.planar.params.SECTION_POINTS` (6) points and asked for its values
    at those points only (finite, > 0). ``element_lengths`` (positive, summing to
    ``length``) gives elements of different lengths and sets ``n_elements``.
    :meth:`per_element` replaces the callables by their element averages, which
    :meth:`to_dict` can write.

    Attributes:
        length: L, m.
        n_elements: number of elements, 1 to :data:`MAX_ELEMENTS` (default 4).
        EI_y: bending stiffness for deflection along z (about y), N m^2.
        EI_z: bending stiffness for deflection along y (about z), N m^2.
        GJ: torsional stiffness, N m^2.
        rho_A: mass per unit length, kg/m.
        rho_Ip: polar mass moment of inertia per unit length (rho times the polar second
            moment of the section), kg m.
        damping_alpha, damping_beta: Rayleigh coefficients on the elastic coordinates
            (mass-proportional 1/s, stiffness-proportional s).
        thickness: section size for drawing, m (default L/100).
        element_lengths: lengths of the elements from the root, m (default: n_elements
            equal ones).
    """

    length: float
    n_elements: int = None
    EI_y: float = None
    EI_z: float = None
    GJ: float = None
    rho_A: float = None
    rho_Ip: float = None
    damping_alpha: float = 0.0
    damping_beta: float = 0.0
    thickness: float = None
    element_lengths: tuple = None
    section_names = ("EI_y", "EI_z", "GJ", "rho_A", "rho_Ip")
    max_elements = MAX_ELEMENTS

    def __post_init__(self):
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731 (frozen dataclass)
        self._check_mesh()
        for k in self.section_names:
            v = getattr(self, k)
            if v is None:
                raise ParameterError(k, None, "must be given (> 0)")
            set_(k, self._varying(k, v) if _is_varying(v) else ck.positive(k, v))
        set_("damping_alpha", ck.non_negative("damping_alpha", self.damping_alpha))
        set_("damping_beta", ck.non_negative("damping_beta", self.damping_beta))
        set_("thickness", self.length / 100.0 if self.thickness is None
             else ck.positive("thickness", self.thickness))
        self._check_callables()                 # every value the model will ask for

    def to_dict(self):
        """The link as plain data (its fields). A section given as a callable is not
        data: ParameterError naming it (:meth:`per_element` gives the element averages,
        which are)."""
        from dataclasses import fields

        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if callable(v):
                raise ParameterError(f.name, v, "is a callable, which cannot be written as "
                                     "data; give one value per element "
                                     "(SpatialLink.per_element() averages it over each "
                                     "element)")
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out

    @classmethod
    def from_section(cls, length, n_elements, E, G, rho, A, I_y, I_z, J, I_p=None, **kw):
        """A link from Young's and shear moduli E, G (Pa), density rho (kg/m^3), area A
        (m^2), second moments I_y, I_z (m^4), torsion constant J (m^4) and polar moment
        I_p (m^4, default I_y + I_z: rho_Ip = rho I_p)."""
        I_p = I_y + I_z if I_p is None else I_p
        return cls(length=length, n_elements=n_elements, EI_y=E * I_y, EI_z=E * I_z,
                   GJ=G * J, rho_A=rho * A, rho_Ip=rho * I_p, **kw)

    @property
    def n_coordinates(self):
        """Elastic coordinates after the clamped root: 5 per element."""
        return 5 * self.n_elements


@dataclass(frozen=True)
class RigidBody:
    """A rigid body of the tree: a hub, a payload, a motor housing.

    Its mass sits at its frame's origin; ``inertia`` is its inertia tensor about that
    origin in its own frame: three principal values (I_xx, I_yy, I_zz) or a 3 x 3 matrix,
    kg m^2.
    """

    mass: float = 0.0
    inertia: tuple = (0.0, 0.0, 0.0)

    def __post_init__(self):
        object.__setattr__(self, "mass", ck.non_negative("mass", self.mass))
        I = np.asarray(self.inertia, dtype=float)
        if I.shape == (3,):
            I = np.diag(I)
        if I.shape != (3, 3) or not np.all(np.isfinite(I)):
            raise ParameterError("inertia", self.inertia,
                                 "must be 3 principal values or a finite 3 x 3 matrix")
        if not np.allclose(I, I.T, rtol=0, atol=1e-12 * max(1.0, np.max(np.abs(I)))):
            raise ParameterError("inertia", self.inertia, "must be symmetric")
        if np.min(np.linalg.eigvalsh(I)) < -1e-12 * max(1.0, np.max(np.abs(I))):
            raise ParameterError("inertia", self.inertia, "must be positive semi-definite")
        object.__setattr__(self, "inertia", tuple(map(tuple, I)))

    @property
    def inertia_matrix(self):
        return np.array(self.inertia)


def unit(name, value):
    """``value`` as a unit 3-vector, or ParameterError naming ``name``."""
    v = ck.vector(name, value, 3)
    n = np.linalg.norm(v)
    if n < 1e-12:
        raise ParameterError(name, value, "must be a non-zero 3-vector")
    return v / n


def mounting(x_axis, y_axis):
    """The rotation whose columns are x_axis, y_axis (made orthogonal to x) and their
    cross product: a child's frame in its joint's frame."""
    x = unit("x_axis", x_axis)
    y = ck.vector("y_axis", y_axis, 3)
    y = y - x * (x @ y)
    if np.linalg.norm(y) < 1e-9:
        raise ParameterError("y_axis", y_axis, "must not be parallel to x_axis")
    y = y / np.linalg.norm(y)
    return np.column_stack([x, y, np.cross(x, y)])


class _Joint:
    """Shared fields of the joints: where the joint sits and how the child is turned."""

    def _place(self):
        object.__setattr__(self, "offset", tuple(ck.vector("offset", self.offset, 3)))
        R = mounting(self.x_axis, self.y_axis)
        object.__setattr__(self, "x_axis", tuple(R[:, 0]))
        object.__setattr__(self, "y_axis", tuple(R[:, 1]))
        R.setflags(write=False)
        object.__setattr__(self, "_mount", R)

    @property
    def mount(self):
        """The child's frame in the joint frame at zero joint value (3 x 3, read-only)."""
        return self._mount


@dataclass(frozen=True)
class RevoluteJoint(_Joint):
    """A revolute joint about ``axis`` (a unit vector of the parent's attachment frame).

    The child's frame is R_parent Rot(axis, theta) mount (docs/spatial-link.md eq. (1.2)).

    Attributes:
        axis: the joint axis in the parent's attachment frame.
        hub_inertia: rotor inertia about the axis turning with the child, kg m^2.
        hub_mass: point mass at the joint, kg.
        offset: the joint's position in the parent's attachment frame, m.
        x_axis, y_axis: the child's frame in the joint frame at theta = 0.
    """

    axis: tuple = (0.0, 0.0, 1.0)
    hub_inertia: float = 0.0
    hub_mass: float = 0.0
    offset: tuple = (0.0, 0.0, 0.0)
    x_axis: tuple = (1.0, 0.0, 0.0)
    y_axis: tuple = (0.0, 1.0, 0.0)
    kind = "revolute"

    def __post_init__(self):
        object.__setattr__(self, "axis", tuple(unit("axis", self.axis)))
        object.__setattr__(self, "hub_inertia", ck.non_negative("hub_inertia", self.hub_inertia))
        object.__setattr__(self, "hub_mass", ck.non_negative("hub_mass", self.hub_mass))
        self._place()


@dataclass(frozen=True)
class PrismaticJoint(_Joint):
    """A prismatic joint: the child slides by d along ``axis`` of the parent's attachment
    frame; its frame is R_parent mount (docs/spatial-link.md eq. (1.3)).

    Attributes:
        axis: the slide direction in the parent's attachment frame.
        slider_mass: mass of the carriage at the child's root, kg.
        offset, x_axis, y_axis: as for :class:`RevoluteJoint`; the default mounting puts
            the link along y, across the default axis x (the planar prismatic joint's
            default ``link_angle = pi/2``).
    """

    axis: tuple = (1.0, 0.0, 0.0)
    slider_mass: float = 0.0
    offset: tuple = (0.0, 0.0, 0.0)
    x_axis: tuple = (0.0, 1.0, 0.0)
    y_axis: tuple = (-1.0, 0.0, 0.0)
    kind = "prismatic"

    def __post_init__(self):
        object.__setattr__(self, "axis", tuple(unit("axis", self.axis)))
        object.__setattr__(self, "slider_mass", ck.non_negative("slider_mass", self.slider_mass))
        self._place()

    hub_inertia = 0.0

    @property
    def hub_mass(self):
        return self.slider_mass


@dataclass(frozen=True)
class FixedJoint(_Joint):
    """A weld: the child is fixed to the parent's attachment frame at ``offset``, turned
    by ``x_axis``, ``y_axis``. It has no coordinate."""

    offset: tuple = (0.0, 0.0, 0.0)
    x_axis: tuple = (1.0, 0.0, 0.0)
    y_axis: tuple = (0.0, 1.0, 0.0)
    kind = "fixed"
    hub_inertia = 0.0
    hub_mass = 0.0

    def __post_init__(self):
        self._place()


def turned(angle, axis=(0.0, 0.0, 1.0)):
    """(x_axis, y_axis) of a frame turned by ``angle`` about ``axis``: the ``x_axis`` and
    ``y_axis`` arguments of a joint whose child is mounted at that angle."""
    R = rotation(unit("axis", axis), ck.real("angle", angle))
    return tuple(R[:, 0]), tuple(R[:, 1])


def rotation(axis, angle):
    """Rot(a, t) = cos t I + (1 - cos t) a a^T + sin t [a]x (Rodrigues; a unit). Works on
    complex ``angle`` too (complex-step differentiation)."""
    a = np.asarray(axis, dtype=float)
    c, s = np.cos(angle), np.sin(angle)
    ax = np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
    return c * np.eye(3) + (1 - c) * np.outer(a, a) + s * ax


def gravity_vector(gravity):
    """Gravity argument -> vector (3,), m/s^2: True -> (0, 0, -9.81), False/None -> 0,
    a number g -> (0, 0, -g), a 3-vector as given."""
    if gravity is None or gravity is False:
        return np.zeros(3)
    if gravity is True:
        return np.array([0.0, 0.0, -STANDARD_GRAVITY])
    if np.ndim(gravity) == 0:
        return np.array([0.0, 0.0, -ck.non_negative("gravity", gravity)])
    return ck.vector("gravity", gravity, 3)


__all__ = ["FixedJoint", "MAX_ELEMENTS", "PrismaticJoint", "RevoluteJoint", "RigidBody",
           "STANDARD_GRAVITY", "SpatialLink", "gravity_vector", "mounting", "rotation",
           "turned", "unit"]
