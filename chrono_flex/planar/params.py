"""Parameters of planar flexible-link arms, as validated frozen dataclasses (SI units).

The data flow of chrono_flex starts here: parameters -> shape bases and element matrices
-> assembled Lagrange equations -> an engine (reference integrator or Chrono) -> one
trajectory type (:class:`chrono_flex.result.Result`).
"""

from dataclasses import dataclass
import math

from .. import _checks as ck
from ..errors import ParameterError

#: Standard gravity used when ``gravity=True`` is given (m/s^2).
STANDARD_GRAVITY = 9.81

BASES = ("fem", "modes", "power")

#: Most cubic Hermite elements a link may have. Matrices are dense (2 coordinates per
#: element), so 2000 elements already mean 4000 x 4000 matrices per link (128 MB each);
#: a million would ask for terabytes and end in a MemoryError.
MAX_ELEMENTS = 2000


@dataclass(frozen=True)
class Link:
    """One Euler-Bernoulli link, clamped at its joint (docs/planar-link.md §1).

    Give the section either as ``EI`` and ``rho_A`` or as ``E``, ``I``, ``rho`` and ``A``
    (or mix: ``E`` and ``I`` for the bending stiffness, ``rho`` and ``A`` for the mass).

    Attributes:
        length: L, m.
        n_elements: number of cubic Hermite elements (``basis="fem"``), 1 to
            :data:`MAX_ELEMENTS` (2000).
        EI: bending stiffness, N m^2.
        rho_A: mass per unit length, kg/m.
        damping_alpha: Rayleigh mass-proportional coefficient on the elastic coordinates, 1/s.
        damping_beta: Rayleigh stiffness-proportional coefficient, s.
        basis: "fem" (cubic Hermite elements), "modes" (clamped-free eigenfunctions,
            ``n_modes`` of them) or "power" (shapes (x/L)^p for ``power_exponents``).
        n_modes: number of assumed modes for ``basis="modes"``.
        power_exponents: exponents p of the power-law shapes for ``basis="power"``.
        thickness: section height h in the bending plane, m (bending strain = h/2 * w'';
            also the drawn tube size). Defaults to sqrt(A) when A is known, else L/100.
    """

    length: float
    n_elements: int = 4
    EI: float = None
    rho_A: float = None
    E: float = None
    I: float = None
    rho: float = None
    A: float = None
    damping_alpha: float = 0.0
    damping_beta: float = 0.0
    basis: str = "fem"
    n_modes: int = 3
    power_exponents: tuple = (1.5522,)
    thickness: float = None

    def __post_init__(self):
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731 (frozen dataclass)
        set_("length", ck.positive("length", self.length))
        set_("n_elements", ck.positive_int("n_elements", self.n_elements))
        if self.n_elements > MAX_ELEMENTS:
            raise ParameterError("n_elements", self.n_elements,
                                 f"must be at most {MAX_ELEMENTS} (MAX_ELEMENTS: the matrices "
                                 "are dense and would not fit in memory)")
        for k in ("E", "I", "rho", "A"):
            if getattr(self, k) is not None:
                set_(k, ck.positive(k, getattr(self, k)))
        if self.EI is None:
            if self.E is None or self.I is None:
                raise ParameterError("EI", None, "must be given, or both E and I")
            set_("EI", self.E * self.I)
        else:
            set_("EI", ck.positive("EI", self.EI))
            if self.E is not None and self.I is not None and not math.isclose(
                self.E * self.I, self.EI, rel_tol=1e-12
            ):
                raise ParameterError("EI", self.EI, f"contradicts E*I = {self.E * self.I!r}")
        if self.rho_A is None:
            if self.rho is None or self.A is None:
                raise ParameterError("rho_A", None, "must be given, or both rho and A")
            set_("rho_A", self.rho * self.A)
        else:
            set_("rho_A", ck.positive("rho_A", self.rho_A))
            if self.rho is not None and self.A is not None and not math.isclose(
                self.rho * self.A, self.rho_A, rel_tol=1e-12
            ):
                raise ParameterError("rho_A", self.rho_A, f"contradicts rho*A = {self.rho * self.A!r}")
        set_("damping_alpha", ck.non_negative("damping_alpha", self.damping_alpha))
        set_("damping_beta", ck.non_negative("damping_beta", self.damping_beta))
        ck.choice("basis", self.basis, BASES)
        set_("n_modes", ck.positive_int("n_modes", self.n_modes))
        exps = tuple(ck.vector("power_exponents", self.power_exponents))
        for p in exps:
            if p <= 1.5:
                raise ParameterError("power_exponents", self.power_exponents,
                                     "must all be > 1.5 (w'(0) = 0 and finite bending energy)")
        set_("power_exponents", exps)
        if self.thickness is None:
            set_("thickness", math.sqrt(self.A) if self.A is not None else self.length / 100.0)
        else:
            set_("thickness", ck.positive("thickness", self.thickness))

    @classmethod
    def from_material(cls, length, n_elements, E, I, rho, A, **kw):
        """A link from Young's modulus E (Pa), second moment I (m^4), density rho (kg/m^3)
        and area A (m^2)."""
        return cls(length=length, n_elements=n_elements, E=E, I=I, rho=rho, A=A, **kw)

    @property
    def mass(self):
        """Link mass rho_A * L, kg."""
        return self.rho_A * self.length

    @property
    def n_coordinates(self):
        """Number of elastic coordinates of this link (after the root boundary condition)."""
        if self.basis == "fem":
            return 2 * self.n_elements
        if self.basis == "modes":
            return self.n_modes
        return len(self.power_exponents)


@dataclass(frozen=True)
class RevoluteJoint:
    """A revolute joint: the link is clamped to a hub that turns by the joint angle.

    Attributes:
        hub_inertia: rotary inertia turning with the link root (motor rotor, hub), kg m^2.
        hub_mass: point mass at the joint (motor housing carried by the parent link), kg.
        angle_offset: constant angle added to the joint angle, rad.
    """

    hub_inertia: float = 0.0
    hub_mass: float = 0.0
    angle_offset: float = 0.0
    kind = "revolute"

    def __post_init__(self):
        object.__setattr__(self, "hub_inertia", ck.non_negative("hub_inertia", self.hub_inertia))
        object.__setattr__(self, "hub_mass", ck.non_negative("hub_mass", self.hub_mass))
        object.__setattr__(self, "angle_offset", ck.real("angle_offset", self.angle_offset))


@dataclass(frozen=True)
class PrismaticJoint:
    """A prismatic joint: the link root slides by d along a fixed axis of the parent frame.

    The slide axis makes the angle ``axis_angle`` with the parent frame's X axis; the link
    is clamped to the slider at ``link_angle`` to that axis (docs/planar-link.md eq. (1.6):
    psi = parent angle + axis_angle + link_angle).

    Attributes:
        axis_angle: direction of the slide axis in the parent frame, rad.
        link_angle: angle of the link to the slide axis, rad (pi/2: the link stands
            across the axis, as a gantry arm).
        slider_mass: mass of the slider carriage that moves with d, kg.
    """

    axis_angle: float = 0.0
    link_angle: float = math.pi / 2
    slider_mass: float = 0.0
    kind = "prismatic"

    def __post_init__(self):
        object.__setattr__(self, "axis_angle", ck.real("axis_angle", self.axis_angle))
        object.__setattr__(self, "link_angle", ck.real("link_angle", self.link_angle))
        object.__setattr__(self, "slider_mass", ck.non_negative("slider_mass", self.slider_mass))

    @property
    def hub_inertia(self):
        return 0.0

    @property
    def hub_mass(self):
        return self.slider_mass


@dataclass(frozen=True)
class Payload:
    """A rigid payload at the tip of the last link.

    Attributes:
        mass: m_t, kg.
        inertia: J_t, rotary inertia about the tip, kg m^2.
    """

    mass: float = 0.0
    inertia: float = 0.0

    def __post_init__(self):
        object.__setattr__(self, "mass", ck.non_negative("mass", self.mass))
        object.__setattr__(self, "inertia", ck.non_negative("inertia", self.inertia))


def gravity_magnitude(gravity):
    """Gravity argument -> magnitude along -Y (m/s^2): True -> 9.81, False/None -> 0."""
    if gravity is None or gravity is False:
        return 0.0
    if gravity is True:
        return STANDARD_GRAVITY
    return ck.non_negative("gravity", gravity)


@dataclass(frozen=True)
class Plane:
    """Where the arm's plane sits in 3D: origin and the unit vectors of its X and Y axes.

    Engines compute in the plane; renderers and Chrono scenes use this to place it.
    """

    origin: tuple = (0.0, 0.0, 0.0)
    x_axis: tuple = (1.0, 0.0, 0.0)
    y_axis: tuple = (0.0, 1.0, 0.0)

    def __post_init__(self):
        import numpy as np

        o = ck.vector("origin", self.origin, 3)
        x = ck.vector("x_axis", self.x_axis, 3)
        y = ck.vector("y_axis", self.y_axis, 3)
        if np.linalg.norm(x) < 1e-12:
            raise ParameterError("x_axis", self.x_axis, "must be non-zero")
        x = x / np.linalg.norm(x)
        y = y - x * (x @ y)
        if np.linalg.norm(y) < 1e-9:
            raise ParameterError("y_axis", self.y_axis, "must not be parallel to x_axis")
        y = y / np.linalg.norm(y)
        object.__setattr__(self, "origin", tuple(o))
        object.__setattr__(self, "x_axis", tuple(x))
        object.__setattr__(self, "y_axis", tuple(y))

    @property
    def normal(self):
        import numpy as np

        return tuple(np.cross(self.x_axis, self.y_axis))

    def to_world(self, xy):
        """Planar points (..., 2) -> world points (..., 3)."""
        import numpy as np

        xy = np.asarray(xy, dtype=float)
        return (np.asarray(self.origin) + xy[..., :1] * np.asarray(self.x_axis)
                + xy[..., 1:2] * np.asarray(self.y_axis))
