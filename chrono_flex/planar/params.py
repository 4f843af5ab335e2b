"""Parameters of planar flexible-link arms, as validated frozen dataclasses (SI units).

The data flow of chrono_flex starts here: parameters -> shape bases and element matrices
-> assembled Lagrange equations -> an engine (reference integrator or Chrono) -> one
trajectory type (:class:`chrono_flex.result.Result`).
"""

from dataclasses import dataclass
import math

import numpy as np

from .. import _checks as ck
from ..errors import ParameterError

#: Standard gravity used when ``gravity=True`` is given (m/s^2).
STANDARD_GRAVITY = 9.81

BASES = ("fem", "modes", "power")

#: Gauss-Legendre points per element that integrate a section given as a callable: an
#: n-point rule is exact for polynomials of degree 2n - 1, so 6 points integrate the
#: element mass int rho_A(x) H^T H dx exactly for rho_A of degree up to 5 (H cubic, H^T H
#: of degree 6) and the stiffness int EI(x) H''^T H'' dx for EI of degree up to 9 (a
#: cone: EI ~ r^4, rho_A ~ r^2, both polynomials of x). docs/planar-link.md §2.5.
SECTION_POINTS = 6

#: Relative mismatch allowed between sum(element_lengths) and length (round-off of the
#: lengths as written in decimal).
ELEMENT_LENGTHS_RTOL = 1e-9

#: Largest ratio of the longest to the shortest element of a link: the element
#: stiffnesses (EI/l^3) then span 1e9, which in double precision (1e-16) leaves about
#: 1e-7 of relative accuracy, the order of the Newton iteration's tolerance.
MAX_ELEMENT_RATIO = 1e3

#: Most cubic Hermite elements a link may have. Matrices are dense (2 coordinates per
#: element), so 2000 elements already mean 4000 x 4000 matrices per link (128 MB each);
#: a million would ask for terabytes and end in a MemoryError.
MAX_ELEMENTS = 2000


def _is_number(v):
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


def _is_varying(v):
    """A section given per element (list, tuple, 1-D array) or as a callable of x."""
    return callable(v) or isinstance(v, (list, tuple)) or (
        isinstance(v, np.ndarray) and v.ndim == 1)


class SectionFunction:
    """A section property given as a callable of the arc length x (m) from the root,
    checked at every call: each value must be a finite number > 0, else ParameterError
    naming the property, the abscissa and the value. ``function`` is the callable given."""

    def __init__(self, name, function):
        self.name = name
        self.function = function

    def __call__(self, x):
        x = np.atleast_1d(np.asarray(x, dtype=float))
        out = np.empty(x.shape)
        for k, xi in enumerate(x.ravel().tolist()):
            try:
                raw = self.function(xi)
            except Exception as exc:  # noqa: BLE001 - the user's function: named, chained
                raise ParameterError(self.name, self.function,
                                     f"raised {type(exc).__name__} at x = {xi!r} ({exc})"
                                     ) from exc
            try:
                ck.numeric(self.name, raw)
                v = float(raw)
            except (ParameterError, TypeError, ValueError):
                raise ParameterError(self.name, self.function, f"must return a number at "
                                     f"x = {xi!r}, returned {raw!r}") from None
            if not math.isfinite(v) or v <= 0:
                raise ParameterError(self.name, self.function,
                                     f"must return a finite value > 0, returned {v!r} at "
                                     f"x = {xi!r}")
            out.flat[k] = v
        return out

    def __eq__(self, other):
        return isinstance(other, SectionFunction) and (self.name, self.function) == (
            other.name, other.function)

    def __hash__(self):
        return hash((self.name, self.function))

    def __repr__(self):
        return f"SectionFunction({self.name!r}, {self.function!r})"


def element_lengths_checked(element_lengths, length, n_elements):
    """(element lengths as a tuple, their number) for ``element_lengths`` given: each
    > 0, summing to ``length`` (to :data:`ELEMENT_LENGTHS_RTOL`) and as many as
    ``n_elements`` when that is given too; else ParameterError naming the parameter."""
    le = ck.vector("element_lengths", element_lengths)
    if np.any(le <= 0):
        raise ParameterError("element_lengths", element_lengths, "must all be > 0")
    ratio = float(le.max() / le.min())
    if ratio > MAX_ELEMENT_RATIO:
        raise ParameterError("element_lengths", element_lengths,
                             f"must not differ by more than a factor {MAX_ELEMENT_RATIO:g} "
                             f"(longest / shortest = {ratio:.3g}): the element stiffness "
                             "EI/l^3 would span more than the Newton iteration can resolve")
    if not math.isclose(float(le.sum()), length, rel_tol=ELEMENT_LENGTHS_RTOL):
        raise ParameterError("element_lengths", element_lengths,
                             f"must sum to length = {length!r} (they sum to "
                             f"{float(le.sum())!r})")
    if n_elements is not None and n_elements != le.size:
        raise ParameterError("n_elements", n_elements,
                             f"contradicts element_lengths ({le.size} elements)")
    return tuple(float(v) for v in le), le.size


class SectionAlong:
    """The section properties of a link along its arc length x (docs/planar-link.md
    §2.5), shared by the planar :class:`Link` and the spatial link: each property named
    in ``section_names`` is a number (uniform), a tuple with one value per element, or a
    :class:`SectionFunction`; the elements run between :attr:`nodes`. The class using it
    has the fields ``length``, ``n_elements``, ``element_lengths`` and the properties
    named, and calls :meth:`_varying` and :meth:`_check_callables` when it validates them.
    """

    section_names = ()
    max_elements = None

    def _check_mesh(self):
        """Validate ``length``, ``element_lengths`` and ``n_elements`` (default 4, or as
        many as ``element_lengths``; at most ``max_elements``) in place."""
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731 (frozen dataclass)
        set_("length", ck.positive("length", self.length))
        if self.element_lengths is not None:
            le, n = element_lengths_checked(self.element_lengths, self.length, self.n_elements)
            set_("element_lengths", le)
            set_("n_elements", n)
        elif self.n_elements is None:
            set_("n_elements", 4)
        set_("n_elements", ck.positive_int("n_elements", self.n_elements))
        if self.n_elements > self.max_elements:
            raise ParameterError("n_elements", self.n_elements,
                                 f"must be at most {self.max_elements} (MAX_ELEMENTS: the "
                                 "matrices are dense and would not fit in memory)")

    def _varying(self, name, value):
        """A per-element tuple or a checked :class:`SectionFunction` for ``name``."""
        if callable(value):
            return value if isinstance(value, SectionFunction) else SectionFunction(name, value)
        vals = list(np.ravel(value)) if isinstance(value, np.ndarray) else list(value)
        if len(vals) != self.n_elements:
            raise ParameterError(name, value, f"must have one value per element "
                                 f"({self.n_elements}; has {len(vals)})")
        return tuple(ck.positive(f"{name}[{k}]", v) for k, v in enumerate(vals))

    def _check_callables(self):
        """Ask every section callable for the values the model will need (the quadrature
        points): a bad value fails here, naming the property."""
        for k in self.section_names:
            if callable(getattr(self, k)):
                getattr(self, k)(self.quadrature_points())

    @property
    def mass(self):
        """Link mass int rho_A dx, kg (rho_A * L when uniform)."""
        if _is_number(self.rho_A):
            return self.rho_A * self.length
        return float(self.integral("rho_A", 0.0, self.length))

    @property
    def uniform(self):
        """True when every section property is a number and the elements are equal."""
        return self.element_lengths is None and all(
            _is_number(getattr(self, k)) for k in self.section_names)

    @property
    def nodes(self):
        """Abscissae of the element nodes, root (0) to tip (``length``), (n_elements + 1,)."""
        if self.element_lengths is None:
            return np.linspace(0.0, self.length, self.n_elements + 1)
        x = np.concatenate([[0.0], np.cumsum(self.element_lengths)])
        x[-1] = self.length
        return x

    def element_of(self, x):
        """Element index of each abscissa x (the last element holds the tip)."""
        x = np.atleast_1d(np.asarray(x, dtype=float))
        return np.clip(np.searchsorted(self.nodes, x, side="right") - 1, 0,
                       self.n_elements - 1)

    def quadrature_points(self, points=SECTION_POINTS):
        """Gauss-Legendre abscissae, ``points`` per element (n_elements * points,)."""
        g, _ = np.polynomial.legendre.leggauss(points)
        a = self.nodes
        return (a[:-1, None] + (g[None, :] + 1) / 2 * np.diff(a)[:, None]).ravel()

    def section(self, name, x):
        """Values of the section property ``name`` at the abscissae x (array)."""
        ck.choice("name", name, self.section_names)
        v = getattr(self, name)
        x = np.atleast_1d(np.asarray(x, dtype=float))
        if _is_number(v):
            return np.full(x.shape, float(v))
        if callable(v):
            return v(x)
        return np.asarray(v)[self.element_of(x)]

    def integral(self, name, a, b, power=0):
        """int_a^b s^power f(s) ds of the section property ``name``, by Gauss-Legendre
        quadrature of :data:`SECTION_POINTS` points on each piece of an element inside
        [a, b] (exact for piecewise-constant values and for polynomial callables up to
        degree 11 - power)."""
        g, gw = np.polynomial.legendre.leggauss(SECTION_POINTS)
        nodes = self.nodes
        cuts = np.unique(np.concatenate([[a, b], nodes[(nodes > a) & (nodes < b)]]))
        lo, hi = cuts[:-1], cuts[1:]
        xs = (lo[:, None] + (g[None, :] + 1) / 2 * (hi - lo)[:, None]).ravel()
        ws = (gw[None, :] * (hi - lo)[:, None] / 2).ravel()
        return float(np.sum(ws * xs**power * self.section(name, xs))) if xs.size else 0.0

    def element_average(self, name, a, b):
        """Mean of the section property ``name`` over [a, b] (b > a)."""
        return self.integral(name, a, b) / (b - a)

    def beyond(self, x):
        """(int_x^L rho_A ds, int_x^L rho_A s ds) at each abscissa x: the mass outboard
        of x and its first moment about the root, for the axial force of geometric
        stiffening (docs/planar-link.md §2.5). Closed form when uniform."""
        x = np.asarray(x, dtype=float)
        L = self.length
        if _is_number(self.rho_A):
            return self.rho_A * (L - x), self.rho_A * (L * L - x * x) / 2
        g, gw = np.polynomial.legendre.leggauss(SECTION_POINTS)
        nodes = self.nodes
        xf = np.clip(x.ravel(), 0.0, L)
        out = []
        for power in (0, 1):
            # whole elements, tip first: tail[j] = int over elements j+1 .. n-1
            lo, hi = nodes[:-1], nodes[1:]
            xs = lo[:, None] + (g[None, :] + 1) / 2 * (hi - lo)[:, None]
            per = (self.section("rho_A", xs.ravel()).reshape(xs.shape) * xs**power
                   @ gw) * (hi - lo) / 2
            tail = np.concatenate([np.cumsum(per[::-1])[::-1][1:], [0.0]])
            # the rest of each point's own element, [x, x_b]
            j = self.element_of(xf)
            b = nodes[j + 1]
            xs = xf[:, None] + (g[None, :] + 1) / 2 * (b - xf)[:, None]
            part = (self.section("rho_A", xs.ravel()).reshape(xs.shape) * xs**power
                    @ gw) * (b - xf) / 2
            out.append((part + tail[j]).reshape(x.shape))
        return out[0], out[1]

    def per_element(self):
        """This link with each section property given as a callable replaced by its
        averages over each element (a callable cannot be written as data; the averages
        can). The mass and each element's mean stiffness are kept; the variation inside
        an element is not."""
        from dataclasses import replace

        nodes = self.nodes
        avg = lambda k: tuple(self.element_average(k, a, b)   # noqa: E731
                              for a, b in zip(nodes[:-1], nodes[1:]))
        return replace(self, **{k: avg(k) for k in self.section_names
                                if callable(getattr(self, k))})


@dataclass(frozen=True)
class Link(SectionAlong):
    """One Euler-Bernoulli link, clamped at its joint (docs/planar-link.md §1).

    Give the section either as ``EI`` and ``rho_A`` or as ``E``, ``I``, ``rho`` and ``A``
    (or mix: ``E`` and ``I`` for the bending stiffness, ``rho`` and ``A`` for the mass).

    A section that varies along the link (``basis="fem"`` only; docs/planar-link.md §2.5)
    is given through ``EI`` and ``rho_A``, each as one of

    * a number: uniform;
    * one value per element (a list or tuple of ``n_elements`` positive numbers): constant
      within each element;
    * a callable ``f(x) -> float`` of the arc length x from the root (m): integrated
      over each element by Gauss-Legendre quadrature of :data:`SECTION_POINTS` (6)
      points, exact for polynomial rho_A up to degree 5 and EI up to degree 9. It must
      return finite values > 0 at the quadrature points (it is never asked at the
      nodes, so a section that vanishes at the tip, as a wedge's, is fine). A callable
      cannot be written as data (``to_dict``, model files); :meth:`per_element` gives
      the link with element averages, which can.

    Elements may have different lengths: ``element_lengths`` (positive, summing to
    ``length``) sets them and ``n_elements`` to their number.
    ``thickness`` stays one number per link (the drawn tube, and the h/2 of
    ``Result.bending_strain``): for a varying section give the height where the strain
    matters (the root's, for a link tapering outwards).

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
        element_lengths: lengths of the elements from the root, m (default: n_elements
            equal ones).
    """

    length: float
    n_elements: int = None
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
    element_lengths: tuple = None
    section_names = ("EI", "rho_A")
    max_elements = MAX_ELEMENTS

    #: Largest EI / (rho_A L^4), 1/s^2: the square of the bending frequency scale (the
    #: first clamped-free frequency is 3.52 times its root). 1e24 is 1e12 rad/s, a
    #: period below any step a double-precision clock resolves over a run of seconds.
    MAX_FREQUENCY_SCALE2 = 1e24

    def _check_frequency_scale(self):
        """ParameterError naming ``rho_A`` (and EI) when the section's bending frequency
        scale sqrt(EI / (rho_A L^4)) is not finite or above 1e12 rad/s: a mass per
        length underflowing against the stiffness (``rho_A=1e-300``), which no
        integrator can step."""
        L = self.length
        EI = self.EI if _is_number(self.EI) else float(self.integral("EI", 0.0, L)) / L
        with np.errstate(all="ignore"):
            scale = float(EI) / (self.mass / L * L ** 4)
        if not (math.isfinite(scale) and scale <= self.MAX_FREQUENCY_SCALE2):
            raise ParameterError("rho_A", self.rho_A, f"is too small for EI = {EI:.4g} N m^2 "
                                 f"on a {L:g} m link: EI / (rho_A L^4) = {scale:.3g} 1/s^2, "
                                 f"above {self.MAX_FREQUENCY_SCALE2:.0e} (bending frequencies "
                                 "beyond 1e12 rad/s, which no time step resolves)")

    def _section_product(self, name, a, b):
        """The checked section value ``name`` (EI or rho_A) given itself or as the product
        of its factors ``a`` and ``b`` (E and I, rho and A); both ways must agree, and a
        value varying along the link is given without the factors."""
        value, fa, fb = getattr(self, name), getattr(self, a), getattr(self, b)
        factors = fa is not None and fb is not None
        if value is None:
            if not factors:
                raise ParameterError(name, None, f"must be given, or both {a} and {b}")
            return fa * fb
        if _is_varying(value):
            varying = self._varying(name, value)
            if factors:
                raise ParameterError(name, varying, f"varies along the link: give it without "
                                     f"{a} and {b} ({a}*{b} would be a second, uniform value)")
            return varying
        value = ck.positive(name, value)
        if factors and not math.isclose(fa * fb, value, rel_tol=1e-12):
            raise ParameterError(name, value, f"contradicts {a}*{b} = {fa * fb!r}")
        return value

    def __post_init__(self):
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731 (frozen dataclass)
        self._check_mesh()
        for k in ("E", "I", "rho", "A"):
            if getattr(self, k) is not None:
                set_(k, ck.positive(k, getattr(self, k)))
        set_("EI", self._section_product("EI", "E", "I"))
        set_("rho_A", self._section_product("rho_A", "rho", "A"))
        self._check_frequency_scale()
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
        if self.basis != "fem" and not self.uniform:
            which = "element_lengths" if self.element_lengths is not None else (
                "EI" if not _is_number(self.EI) else "rho_A")
            raise ParameterError(which, getattr(self, which), "needs basis='fem' (a varying "
                                 f"section or element lengths are finite-element data; "
                                 f"basis is {self.basis!r})")
        self._check_callables()                 # every value the model will ask for

    @classmethod
    def from_material(cls, length, n_elements, E, I, rho, A, **kw):
        """A link from Young's modulus E (Pa), second moment I (m^4), density rho (kg/m^3)
        and area A (m^2)."""
        return cls(length=length, n_elements=n_elements, E=E, I=I, rho=rho, A=A, **kw)

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
        if np.linalg.norm(y) < 1e-12:
            raise ParameterError("y_axis", self.y_axis, "must be non-zero")
        x = x / np.linalg.norm(x)
        y = y / np.linalg.norm(y)
        # unit vectors written with 16 digits are orthogonal to round-off (1e-16); a
        # cosine above 1e-9 is a different plane, not a rounding
        if abs(x @ y) > 1e-9:
            raise ParameterError("y_axis", self.y_axis, f"must be perpendicular to x_axis "
                                 f"{tuple(self.x_axis)} (the cosine between them is "
                                 f"{x @ y:.3g}); it is not made so silently")
        y = y - x * (x @ y)
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
