"""Friction laws: static curves and the LuGre family (docs/drive.md §1-2).

Every function takes the sliding velocity ``v`` as a float or a numpy array (the result
has the same kind) and is pure. The symbols are generic (force N and velocity m/s, or
torque N m and speed rad/s for a rotary joint): ``Fc`` Coulomb level, ``Fs`` static
(breakaway) level, ``vs`` Stribeck velocity, ``delta`` Stribeck exponent, ``dv`` half-width
of the linear zone of [S]'s modified laws.

Sources:
    [S]   Serebrenny, Boshlyakov, Ogorodnik, "Drive unit mathematical model of robot
          gripping devices", Bulletin of BSTU named after V.G. Shukhov, 2019, No. 6,
          pp. 123-135 (equation numbers refer to it).
    [CW]  Canudas de Wit, Olsson, Astrom, Lischinsky, "A new model for control of systems
          with friction", IEEE TAC 40(3), 1995, pp. 419-425.
    [AC]  Astrom, Canudas de Wit, "Revisiting the LuGre friction model", IEEE Control
          Systems Magazine 28(6), 2008, pp. 101-114.
    [BO]  Barabanov, Ortega, "Necessary and sufficient conditions for passivity of the
          LuGre friction model", IEEE TAC 45(4), 2000, pp. 830-832.
"""

from dataclasses import dataclass
import math

import numpy as np
from scipy.optimize import brentq

from .. import _checks as ck
from ..errors import ParameterError
from . import _elementwise as ew

# ---------------------------------------------------------------------------------------
# Static curves


def coulomb(v, Fc):
    """Coulomb friction F = Fc sign(v) ([S] section 1; sign(0) = 0)."""
    return Fc * ew.sign(ew.as_input(v))


def viscous(v, sigma2):
    """Viscous friction F = sigma2 v (the f(v) of LuGre, [CW] eq. 1; K_V2 Omega2 in [S] eq. 20)."""
    return sigma2 * ew.as_input(v)


def lorentzian(v, Fc, Fs, vs):
    """Lorentzian Stribeck magnitude g(v) = Fc + (Fs - Fc) / (1 + (v/vs)^2) ([S] Table 1)."""
    x = ew.as_input(v) / vs
    return Fc + (Fs - Fc) / (1.0 + x * x)


def tustin(v, Fc, Fs, vs):
    """Tustin Stribeck magnitude g(v) = Fc + (Fs - Fc) exp(-|v|/vs) ([S] Table 1)."""
    return Fc + (Fs - Fc) * ew.exp(-ew.absolute(ew.as_input(v)) / vs)


def gaussian(v, Fc, Fs, vs):
    """Gaussian Stribeck magnitude g(v) = Fc + (Fs - Fc) exp(-(v/vs)^2) ([S] Table 1;
    [CW] eq. 3)."""
    x = ew.as_input(v) / vs
    return Fc + (Fs - Fc) * ew.exp(-x * x)


def generalized(v, Fc, Fs, vs, delta):
    """Generalized Stribeck magnitude g(v) = Fc + (Fs - Fc) exp(-(|v|/vs)^delta) ([S] Table 1;
    delta = 1 is Tustin's curve, delta = 2 the Gaussian one)."""
    return Fc + (Fs - Fc) * ew.exp(-((ew.absolute(ew.as_input(v)) / vs) ** delta))


STRIBECK_SHAPES = ("lorentzian", "tustin", "gaussian", "generalized")


def stribeck_curve(v, Fc, Fs, vs, shape="gaussian", delta=2.0):
    """The Stribeck magnitude g(v) > 0 of the named ``shape`` (one of :data:`STRIBECK_SHAPES`;
    ``delta`` is used by "generalized" only)."""
    if shape == "generalized":
        return generalized(v, Fc, Fs, vs, delta)
    if shape == "gaussian":
        return gaussian(v, Fc, Fs, vs)
    if shape == "tustin":
        return tustin(v, Fc, Fs, vs)
    if shape == "lorentzian":
        return lorentzian(v, Fc, Fs, vs)
    raise ParameterError("shape", shape, f"must be one of {list(STRIBECK_SHAPES)}")


def stribeck(v, Fc, Fs, vs, shape="gaussian", delta=2.0):
    """Signed Stribeck friction Ff(v) = g(v) sign(v) ([S] Table 1), for v != 0."""
    v = ew.as_input(v)
    return stribeck_curve(v, Fc, Fs, vs, shape, delta) * ew.sign(v)


def classic_static(v, f_ext, Fc, Fs, vs, shape="gaussian", delta=2.0):
    """The switching static model ([S] section 1): F = Ff(v) for v != 0, and at v = 0
    F = min(|F_E|, Fs) sign(F_E) with F_E the external force.

    Given for reference and plots: in a simulation v is never exactly 0, so the force
    chatters between +-Fc; use :func:`modified_stribeck` or a LuGre model instead.
    """
    v = ew.as_input(v)
    f_ext = ew.as_input(f_ext)
    stuck = ew.minimum(ew.absolute(f_ext), Fs) * ew.sign(f_ext)
    return ew.where(v == 0.0, stuck, stribeck(v, Fc, Fs, vs, shape, delta))


def modified_coulomb(v, Fc, dv):
    """Modified (linearised) Coulomb friction, [S] eq. 2: F = Fc min(k|v|, 1) sign(v), k = 1/dv.

    The line through the origin inside |v| < dv removes the switch at v = 0 and with it
    the chattering and the algebraic loop of the classic model.
    """
    v = ew.as_input(v)
    return Fc * ew.minimum(ew.absolute(v) / dv, 1.0) * ew.sign(v)


def modified_stribeck(v, Fc, Fs, vs, dv, shape="gaussian", delta=2.0):
    """Modified Stribeck friction, [S] eq. 3 (and eq. 21 for the drive):

        F = F0(|v| - dv) sign(v)   for |v| > dv
        F = Fs k v                 for |v| <= dv,   k = 1/dv

    with F0 = g the Stribeck magnitude of ``shape``. Continuous at |v| = dv since g(0) = Fs;
    the slope Fs/dv of the linear zone is a viscous damper that sets the explicit step
    bound of [S] eq. 29.
    """
    v = ew.as_input(v)
    av = ew.absolute(v)
    outside = stribeck_curve(ew.maximum(av - dv, 0.0), Fc, Fs, vs, shape, delta) * ew.sign(v)
    return ew.where(av > dv, outside, Fs * v / dv)


# ---------------------------------------------------------------------------------------
# Parameter objects


def _check_stribeck(obj):
    set_ = lambda k, v: object.__setattr__(obj, k, v)  # noqa: E731 (frozen dataclass)
    set_("Fc", ck.non_negative("Fc", obj.Fc))
    set_("Fs", ck.real("Fs", obj.Fs))
    if obj.Fs < obj.Fc:
        raise ParameterError("Fs", obj.Fs, f"must be >= Fc = {obj.Fc!r}")
    if obj.Fs <= 0.0:
        raise ParameterError("Fs", obj.Fs, "must be > 0")
    set_("vs", ck.positive("vs", obj.vs))
    ck.choice("shape", obj.shape, STRIBECK_SHAPES)
    set_("delta", ck.positive("delta", obj.delta))


@dataclass(frozen=True)
class StaticFriction:
    """Static friction as the modified Stribeck law ([S] eqs. 3 and 21) plus viscous sigma2 v.

    Shares the interface of the LuGre models (``dzdt``, ``force``, ``rates``) with a
    state z that never moves, so a drive can switch between static and dynamic friction.

    Attributes:
        Fc: Coulomb level (N or N m).  Fs: static level, >= Fc.  vs: Stribeck velocity.
        dv: half-width of the linear zone (m/s or rad/s).  sigma2: viscous coefficient.
        shape, delta: Stribeck curve (see :func:`stribeck_curve`).
    """

    Fc: float
    Fs: float
    vs: float
    dv: float
    sigma2: float = 0.0
    shape: str = "gaussian"
    delta: float = 2.0

    def __post_init__(self):
        _check_stribeck(self)
        object.__setattr__(self, "dv", ck.positive("dv", self.dv))
        object.__setattr__(self, "sigma2", ck.non_negative("sigma2", self.sigma2))

    def g(self, v):
        return stribeck_curve(v, self.Fc, self.Fs, self.vs, self.shape, self.delta)

    def force(self, v, z=0.0):
        v = ew.as_input(v)
        return modified_stribeck(v, self.Fc, self.Fs, self.vs, self.dv, self.shape,
                                 self.delta) + self.sigma2 * v

    def dzdt(self, v, z=0.0):
        return 0.0 * ew.as_input(v) * ew.as_input(z)

    def rates(self, v, z=0.0):
        """(dz/dt, F) in one call (the drive's hot path)."""
        return self.dzdt(v, z), self.force(v, z)

    def steady_state_force(self, v):
        return self.force(v)


@dataclass(frozen=True)
class LuGre:
    """Classic LuGre model with constant sigma0, sigma1 ([CW] eqs. 1-3; [S] eq. 4):

        dz/dt = v - sigma0 |v| z / g(v)
        F     = sigma0 z + sigma1 dz/dt + sigma2 v

    z is the mean bristle deflection (m, or rad for a rotary joint). Steady state
    (dz/dt = 0): F = g(v) sign(v) + sigma2 v. For |z(0)| <= Fs/sigma0, |z| <= Fs/sigma0 for
    ever ([CW] property 1). Passive (dissipative with storage sigma0 z^2/2) only while
    sigma1 <= 4 g(v)/|v| ([BO]; docs/drive.md eq. (2.3)), i.e. below :attr:`passivity_speed`.

    Attributes (SI; torque/angle units for a rotary joint):
        sigma0: bristle stiffness, N/m (> 0).  sigma1: bristle damping, N s/m (>= 0).
        sigma2: viscous coefficient, N s/m (>= 0).  Fc, Fs, vs, shape, delta: Stribeck
        curve g(v) (:func:`stribeck_curve`), Fs >= Fc.
    """

    sigma0: float
    sigma1: float
    sigma2: float
    Fc: float
    Fs: float
    vs: float
    shape: str = "gaussian"
    delta: float = 2.0

    def __post_init__(self):
        object.__setattr__(self, "sigma0", ck.positive("sigma0", self.sigma0))
        object.__setattr__(self, "sigma1", ck.non_negative("sigma1", self.sigma1))
        object.__setattr__(self, "sigma2", ck.non_negative("sigma2", self.sigma2))
        _check_stribeck(self)
        if self.Fc <= 0.0:
            raise ParameterError("Fc", self.Fc,
                                 "must be > 0 (g(v) > 0 in the LuGre state equation)")

    # -- the velocity-dependent coefficients (overridden by the variants) ---------------
    def g(self, v):
        """Stribeck magnitude g(v) > 0."""
        return stribeck_curve(v, self.Fc, self.Fs, self.vs, self.shape, self.delta)

    def sigma0_eff(self, v, g=None):
        """Bristle stiffness at velocity v (constant here)."""
        return self.sigma0 + 0.0 * ew.as_input(v)

    def sigma1_eff(self, v, g=None):
        """Bristle damping at velocity v (constant here)."""
        return self.sigma1 + 0.0 * ew.as_input(v)

    # -- the model ----------------------------------------------------------------------
    def rates(self, v, z):
        """(dz/dt, F) in one evaluation of g(v): the hot path of a drive."""
        v = ew.as_input(v)
        z = ew.as_input(z)
        g = self.g(v)
        s0 = self.sigma0_eff(v, g)
        zdot = v - s0 * ew.absolute(v) * z / g
        return zdot, s0 * z + self.sigma1_eff(v, g) * zdot + self.sigma2 * v

    def dzdt(self, v, z):
        """dz/dt = v - sigma0(v) |v| z / g(v)."""
        return self.rates(v, z)[0]

    def force(self, v, z):
        """F = sigma0(v) z + sigma1(v) dz/dt + sigma2 v."""
        return self.rates(v, z)[1]

    def steady_state_z(self, v):
        """z with dz/dt = 0: g(v) sign(v) / sigma0(v)."""
        v = ew.as_input(v)
        g = self.g(v)
        return g * ew.sign(v) / self.sigma0_eff(v, g)

    def steady_state_force(self, v):
        """Steady sliding force g(v) sign(v) + sigma2 v (the Stribeck curve plus viscous part)."""
        v = ew.as_input(v)
        return stribeck(v, self.Fc, self.Fs, self.vs, self.shape, self.delta) + self.sigma2 * v

    def time_constant(self, v):
        """Lag of F behind a slowly varying v: T_v = g(v) / (sigma0(v) |v|) (inf at v = 0)."""
        v = ew.as_input(v)
        g = self.g(v)
        den = self.sigma0_eff(v, g) * ew.absolute(v)
        if isinstance(den, float):
            return g / den if den > 0.0 else math.inf
        with np.errstate(divide="ignore"):
            return g / den

    def stored_energy(self, z):
        """Storage function sigma0 z^2 / 2 of the passivity argument ([BO])."""
        z = ew.as_input(z)
        return 0.5 * self.sigma0 * z * z

    def presliding_damping_ratio(self, m):
        """zeta = (sigma1(0) + sigma2) / (2 sqrt(sigma0 m)) of the presliding oscillation of a
        mass (inertia) m; [S] asks for zeta > 0.5."""
        m = ck.positive("m", m)
        return (self.sigma1_eff(0.0) + self.sigma2) / (2.0 * math.sqrt(self.sigma0 * m))

    @property
    def passivity_speed(self):
        """Speed below which sigma1(v) <= 4 g(v)/|v| surely holds: 4 Fc / sigma1
        (docs/drive.md §2, after eq. (2.3): 0.0126 m/s with the [CW] parameters). Infinite
        for the dissipative variants."""
        return math.inf if self.sigma1 == 0.0 else 4.0 * self.Fc / self.sigma1

    def z_max(self, v_max=math.inf):
        """Bound on |z| along trajectories started with |z| <= Fs/sigma0: Fs / sigma0."""
        return self.Fs / self.sigma0


@dataclass(frozen=True)
class DissipativeLuGre(LuGre):
    """LuGre with velocity-dependent damping sigma1(v) that keeps the model passive.

    damping = "cap" (default): sigma1(v) = min(sigma1, 4 g(v) / |v|), the passivity
    condition of [BO] in force units (docs/drive.md eq. (2.3); [S] eqs. 6 and 12 print
    4 sigma0 g / |v|, which is the same condition with g written as a displacement).
    Passive for every velocity history.

    damping = "exponential": sigma1(v) = sigma1 exp(-(v/vd)^2) ([CW] section II, [AC]).
    Passive when sigma1 vd / sqrt(2e) <= 4 Fc (then sigma1(v)|v| <= 4 g(v) everywhere);
    :attr:`passive` checks this sufficient condition.
    """

    damping: str = "cap"
    vd: float = None

    def __post_init__(self):
        super().__post_init__()
        ck.choice("damping", self.damping, ("cap", "exponential"))
        if self.damping == "exponential":
            object.__setattr__(self, "vd", ck.positive("vd", self.vd))

    def sigma1_eff(self, v, g=None):
        v = ew.as_input(v)
        if self.damping == "exponential":
            x = v / self.vd
            return self.sigma1 * ew.exp(-x * x)
        g = self.g(v) if g is None else g
        # min(sigma1, 4g/|v|) without a division by |v|; the ratio is exactly 1.0 below the cap
        return self.sigma1 * (4.0 * g / ew.maximum(4.0 * g, self.sigma1 * ew.absolute(v)))

    @property
    def passive(self):
        if self.damping == "cap":
            return True
        return self.sigma1 * self.vd / math.sqrt(2.0 * math.e) <= 4.0 * self.Fc

    @property
    def passivity_speed(self):
        return math.inf if self.passive else super().passivity_speed


#: The sigma1(v) laws of :class:`ModifiedLuGre`: the passivity cap (force units, the
#: default), a constant sigma1, and [S] eq. 12 as printed.
MODIFIED_DAMPING = ("cap", "constant", "printed")


@dataclass(frozen=True)
class ModifiedLuGre(LuGre):
    """[S]'s modified LuGre (eqs. 9-12): the time constant of z is bounded below by T_min.

        sigma0(v) = min(sigma0, g(v) / (|v| T_min))
        sigma1(v) = min(sigma1, 4 g(v) / |v|)        (damping="cap"; see DissipativeLuGre)
        dz/dt = v - sigma0(v) |v| z / g(v),   F = sigma0(v) z + sigma1(v) dz/dt + sigma2 v

    Below the transition speed v_t (g(v_t)/v_t = sigma0 T_min, :attr:`transition_speed`)
    sigma0(v) = sigma0 and the model is the (capped) LuGre model; above it the lag is
    exactly T_min and F follows the static curve g(v) sign(v) with that lag, so an explicit
    fixed step only has to resolve T_min. damping="constant" keeps sigma1 constant.
    damping="printed" is [S] eq. 12 as printed, sigma1(v) = min(sigma1, 4 sigma0(v) g(v)
    / |v|), with g in force units (docs/drive.md eq. (2.7)): its bound is sigma0(v) times
    the passivity bound, so it is not passive between the two (:attr:`passive` is False);
    it is there to run [S]'s law as written beside the cap.
    The bristle bound becomes |z| <= max(Fs/sigma0, v_max T_min) (:meth:`z_max`).

    Limitation: above v_t the model is not passive with the storage sigma0 z^2/2. A speed
    that drops from v1 > v_t to below v_t in less than ~T_min leaves z ~ v1 T_min, and then
    F = sigma0 z ~ (v1/v_t) g exceeds Fs until the bristles relax. It needs decelerations of
    order v_t / T_min; for the [S] drive (v_t = 202 rad/s, far above its no-load speed of
    9.5 rad/s) it does not occur.

    Attributes: those of :class:`LuGre`, and T_min: smallest time constant, s (> 0).
    """

    T_min: float = None
    damping: str = "cap"

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "T_min", ck.positive("T_min", self.T_min))
        ck.choice("damping", self.damping, MODIFIED_DAMPING)

    def sigma0_eff(self, v, g=None):
        v = ew.as_input(v)
        g = self.g(v) if g is None else g
        # min(sigma0, g/(|v| T_min)) without a division by |v|; exactly sigma0 below v_t
        return self.sigma0 * (g / ew.maximum(g, self.sigma0 * ew.absolute(v) * self.T_min))

    def sigma1_eff(self, v, g=None):
        v = ew.as_input(v)
        if self.damping == "constant":
            return self.sigma1 + 0.0 * v
        g = self.g(v) if g is None else g
        bound = 4.0 * g
        if self.damping == "printed":          # [S] eq. 12 as printed: 4 sigma0(v) g / |v|
            bound = bound * self.sigma0_eff(v, g)
        return self.sigma1 * (bound / ew.maximum(bound, self.sigma1 * ew.absolute(v)))

    @property
    def passive(self):
        """Whether sigma1(v) <= 4 g(v)/|v| holds at every speed (the cap does; "constant"
        only with sigma1 = 0; "printed" only when sigma0(v) <= 1 everywhere)."""
        if self.damping == "cap" or self.sigma1 == 0.0:
            return True
        return self.damping == "printed" and self.sigma0 <= 1.0

    @property
    def transition_speed(self):
        """v_t > 0 with g(v_t) / v_t = sigma0 T_min ([S] eqs. 10-11; ~ Fc/(sigma0 T_min)
        when v_t >> vs)."""
        k = self.sigma0 * self.T_min
        lo, hi = min(self.Fc, self.Fs) / k, max(self.Fc, self.Fs) / k
        if hi <= lo * (1.0 + 1e-15):
            return lo
        return brentq(lambda v: self.g(v) - k * v, lo, hi, xtol=1e-15 * hi, rtol=1e-14)

    @property
    def passivity_speed(self):
        return math.inf if self.passive else super().passivity_speed

    def z_max(self, v_max=math.inf):
        return max(self.Fs / self.sigma0, v_max * self.T_min)
