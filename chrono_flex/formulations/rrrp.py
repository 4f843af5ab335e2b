"""The spatial RRRP arm with a telescopic link, by Lagrange's equations with assumed modes.

Model of [W] (Wang Lei, Wang Sanmin, Niu Zhiyong, "Rigid-flexible coupling nonlinear
dynamics of a space RRRP manipulator"; restated in docs/rrrp-arm.md):

* joints R1 (about the vertical Z, ``theta1``), R2 (elevation of arm 1, ``theta2``), R3 at
  the end of arm 1 (elevation of arm 2, ``theta3``) and the prismatic joint P (extension
  ``a`` of the telescopic arm 3 inside arm 2). As in [W] (its eq. 24), ``theta3`` is
  measured from the horizontal by default; ``theta3_from="arm1"`` measures it from arm 1
  (the relative joint angle ``theta3 - theta2``);
* two bending directions per arm, one assumed mode each (docs/rrrp-arm.md eqs. (3.1)-(3.2)):
  arm 1 ``phi_1y = (x/l1)^1.5522`` and ``phi_1z = sin(pi x/l1)``; arms 2+3 as one beam of
  length ``L = l2 + a``, ``phi_2y = phi_2z = (x/L)^lambda(a)``;
* generalized coordinates ``eta = [theta1, theta2, theta3, q1y, q1z, q2y, q2z, a]``.

Kinematics (docs/rrrp-arm.md §2). Arm 1: ``r1(x) = A1 [x, phi_1y q1y, phi_1z q1z]`` with
``A1 = Rz(theta1) Ry(-theta2)`` (x1 along the arm, theta2 lifts it towards +Z). Joint A:
``r_A = r1(l1)``. Arm 2+3: ``r(x) = r_A + A2 [x, phi_2 q2y, phi_2 q2z]`` with
``A2 = A1 Rz(alpha) Ry(-beta) Ry(-theta3_rel)``, ``theta3_rel = theta3 - theta2`` (or
``theta3`` itself with ``theta3_from="arm1"``), where ``alpha = phi_1y'(l1) q1y`` and
``beta = phi_1z'(l1) q1z`` are the tip slopes of arm 1 (the joint is clamped to the
deformed tip; ``slope_coupling=False`` drops them). Arm 2's material points sit at fixed
``x in [0, l2]``, arm 3's at ``x = L - l3 + xi l3`` (they slide with ``a``), the joint mass
``m_A`` at A and the end-effector mass ``m_B`` at the tip B (``x = L``).

Kinetic energy ``T = 1/2 sum_p m_p |r_p'|^2`` over Gauss points of each arm (weights
``rho A l w_g``) and the two point masses, so ``M(eta) = sum_p m_p J_p^T J_p`` with
``J = dr/deta`` by complex-step differentiation of the (dtype-generic, batched) position
function. The velocity terms follow from the virtual-power form of Lagrange's equations,
``M eta'' = Q - sum_p m_p J_p^T (J_p' eta') - dV/deta``, where
``J' eta' = d^2/de^2 r(eta + e eta')`` is the central difference (in e) of the complex-step
directional derivative ``J(eta + e eta') eta'``.

Potential energy (docs/rrrp-arm.md §4): elastic ``V = 1/2 sum K q^2`` with
``K = int EI (phi'')^2 dx`` per arm over its own range and with its own EI (arm 3 over
``[L - l3, L]``; where arms 2 and 3 overlap both tubes bend together). For the power
shapes ``int_{s0 L}^{s1 L} (phi'')^2 dx = p^2 (p-1)^2 (s1^(2p-3) - s0^(2p-3)) / ((2p-3) L^3)``;
for ``p = 1.5522`` on [0, l] this is ``7.037 EI / l^3`` (:func:`power_stiffness_factor`).
``K_1z = EI pi^4 / (2 l1^3)``. Gravity acts along -Z with the XOY plane as zero level,
``V_g = g sum_p m_p z_p``. [W] ignores the elastic deflection in it; that drops gravity's
load on the modal coordinates (the arms are never bent by their weight, and with free
joints the chain's collapse throws the modal coordinates about: at the default state
eta = [0, 0.3, -0.3, 0, 0, 0, 0, 2.6] at rest, q2z'' = 1042 m/s^2 instead of 13), so the
default here includes it (``gravity_deflection=True``); ``False`` reproduces [W].
``K_2`` depends on ``a`` through ``L`` and ``lambda(a)``, so the elastic energy also pushes
on the prismatic coordinate.

Departures from clamped-free modes, kept because [W] states them (docs/rrrp-arm.md §3;
``phi1z="power"`` replaces the sine mode by the power law, docs/rrrp-arm.md §6.1):

* ``phi_1z = sin(pi x/l1)`` does NOT satisfy the clamped root condition (slope pi/l1 at
  x = 0) and vanishes at the tip: arm 1's out-of-plane mode moves the middle of the arm
  but not joint A. Its tip slope -pi/l1 q1z tilts arm 2, so it acts as a compliance of
  joint R3 (under gravity the middle of arm 1 rises while arm 2 droops).
* [W]'s fit ``lambda(a) = 0.0167 a^2 - 0.0227 a + 1.4952`` (docs/rrrp-arm.md eq. (3.3),
  for the default geometry) is below 1.5 for a < 1.545 m, where ``(x/L)^lambda`` has
  infinite bending energy (``phi''^2 ~ x^(2 lambda - 4)`` is not integrable at the root).
  The parameters therefore carry a stroke ``[a_min, a_max]`` over which lambda(a) > 1.5 is
  required; the default stroke is [2.0, 3.5] m (lambda from 1.517 to 1.620).

Defaults (the material pages of [W] are missing, docs/rrrp-arm.md §5): aluminium tubes,
E = 70 GPa, rho = 2700 kg/m^3; l1 = l2 = 5 m, l3 = 4 m; arm 2 tube 80/60 mm, arm 3 tube
60/40 mm ([W], the geometry of docs/rrrp-arm.md eq. (3.3)); arm 1 tube 80/60 mm like
arm 2 (our choice); m_A = 5 kg (motor and housing of joint R3), m_B = 2 kg (gripper and
payload); g = 9.81 m/s^2. This arm is very flexible: at eta = [0, 0.2, -0.2, 0, 0, 0, 0,
2.3] the lowest modal frequencies with the joints held are 0.73, 1.37, 5.96 and 11.2 Hz,
and under its own weight the tip B sinks by 0.18 m (q2z = -0.071 m, q1z = +0.024 m: see
the sin mode below).
"""

from dataclasses import dataclass, replace
import math

import numpy as np

from .. import _checks as ck
from ..errors import ParameterError, SimulationError
from .._aliases import canonical_arguments
from ..integrators.choice import DEFAULT_METHOD
from ..planar.description import _build, _fields_of
from .rrrp_run import ACTUATED, COORDINATES, ELASTIC, RRRPResult, simulate_rrrp  # noqa: F401

#: [W]'s three fits of the exponent lambda(a) = c2 a^2 + c1 a + c0 of arms 2+3, as
#: (c2, c1, c0) (docs/rrrp-arm.md eq. (3.3)). "W-80/60-60/40" is the geometry [W] states
#: (l1 = l2 = 5 m, l3 = 4 m, arm 2 tube 80/60 mm, arm 3 tube 60/40 mm); the tubes of the
#: other two are on the missing pages of [W], so only their fits are known.
LAMBDA_PRESETS = {
    "W-80/60-60/40": (0.0167, -0.0227, 1.4952),
    "W-geometry-2": (0.0402, -0.0710, 1.6537),
    "W-geometry-3": (0.0127, -0.0206, 1.5095),
}
#: Conventions for theta3: "horizontal" ([W] eq. 24) or "arm1" (relative to arm 1).
THETA3_CONVENTIONS = ("horizontal", "arm1")
#: Shapes of arm 1's z mode: "sine" ([W]'s sin(pi x/l1)) or "power" ((x/l1)^p1y, the
#: clamped-free fit of the y mode).
PHI1Z_SHAPES = ("sine", "power")

_H_CS = 1e-30            # complex step: no subtraction, any tiny h is exact to round-off
_FD_SHIFT = 1e-5         # |e eta'| of the central difference for J' eta' (error ~ 1e-10)


def power_stiffness_factor(p, s0=0.0, s1=1.0):
    """k with ``int_{s0 L}^{s1 L} (d^2/dx^2 (x/L)^p)^2 dx = k / L^3`` (docs/rrrp-arm.md eq. (4.3)).

    k = p^2 (p-1)^2 (s1^(2p-3) - s0^(2p-3)) / (2p-3), finite for p > 1.5; p = 1.5522 on
    [0, L] gives 7.037 ([W]). Works for complex p and s (complex-step derivatives).
    """
    e = 2 * p - 3
    top = s1**e
    bottom = 0.0 if np.all(np.asarray(s0) == 0) else s0**e
    return p * p * (p - 1) ** 2 * (top - bottom) / e


def tube_section(outer, inner):
    """(area m^2, second moment m^4) of a round tube of diameters outer > inner >= 0 (m)."""
    return math.pi / 4 * (outer**2 - inner**2), math.pi / 64 * (outer**4 - inner**4)


def _tube(name, value):
    d = ck.vector(name, value, size=2)
    if not (d[0] > d[1] >= 0):
        raise ParameterError(name, value,
                             "must be (outer, inner) diameters with outer > inner >= 0")
    return (float(d[0]), float(d[1]))


@dataclass(frozen=True)
class RRRPParams:
    """Parameters of the spatial RRRP arm (SI units; defaults in the module docstring).

    Attributes:
        l1, l2, l3: lengths of arm 1, arm 2 and the telescopic arm 3, m.
        E: Young's modulus of the tubes, Pa. rho: density, kg/m^3.
        tube1, tube2, tube3: (outer, inner) tube diameters, m.
        EI1, EI2, EI3: bending stiffness, N m^2 (default from E and the tube).
        rho_A1, rho_A2, rho_A3: mass per unit length, kg/m (default from rho and the tube).
        m_A: mass lumped at joint A (end of arm 1), kg. m_B: end-effector mass at B, kg.
        gravity: g, m/s^2, acting along -Z (0 switches gravity off).
        lambda_coeffs: (c2, c1, c0) of lambda(a) = c2 a^2 + c1 a + c0 (docs/rrrp-arm.md
            eq. (3.3)), or the name of one of [W]'s fits in :data:`LAMBDA_PRESETS`.
        theta3_from: "horizontal" (default, [W] eq. 24: theta3 is arm 2's elevation above
            the horizontal, and the joint torque tau3 acts on theta3 - theta2) or "arm1"
            (theta3 is the joint angle between arm 1 and arm 2).
        p1y: exponent of arm 1's y mode (x/l1)^p1y.
        phi1z: arm 1's z mode: "sine" (default, [W]'s sin(pi x/l1), which does not
            satisfy the clamped root and leaves joint A still) or "power" ((x/l1)^p1y,
            the clamped-free fit used for the y mode; docs/rrrp-arm.md §6).
        stroke: (a_min, a_max), m: the range of the extension; lambda(a) > 1.5 is
            required on it, and l3 - l2 <= a_min, a_max <= l3 (arm 3 stays inside arm 2's
            span). A simulation leaving it stops with SimulationError.
        slope_coupling: carry arm 1's tip slopes into arm 2's frame (clamped joint).
        gravity_deflection: include elastic deflections in the gravity potential (default;
            [W] ignores them: False, see the module docstring).
        n_gauss: Gauss-Legendre points per arm for the kinetic and gravity integrals.
        max_deflection: a modal coordinate (tip deflection, m) beyond this stops the run
            as divergent (default l1/4: far outside small-deflection theory).
    """

    l1: float = 5.0
    l2: float = 5.0
    l3: float = 4.0
    E: float = 70e9
    rho: float = 2700.0
    tube1: tuple = (0.08, 0.06)
    tube2: tuple = (0.08, 0.06)
    tube3: tuple = (0.06, 0.04)
    EI1: float = None
    EI2: float = None
    EI3: float = None
    rho_A1: float = None
    rho_A2: float = None
    rho_A3: float = None
    m_A: float = 5.0
    m_B: float = 2.0
    gravity: float = 9.81
    lambda_coeffs: tuple = (0.0167, -0.0227, 1.4952)
    p1y: float = 1.5522
    stroke: tuple = (2.0, 3.5)
    slope_coupling: bool = True
    gravity_deflection: bool = True
    n_gauss: int = 16
    max_deflection: float = None
    theta3_from: str = "horizontal"
    phi1z: str = "sine"

    def __post_init__(self):
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731 (frozen dataclass)
        for k in ("l1", "l2", "l3", "E", "rho"):
            set_(k, ck.positive(k, getattr(self, k)))
        for i in (1, 2, 3):
            tube = _tube(f"tube{i}", getattr(self, f"tube{i}"))
            set_(f"tube{i}", tube)
            area, inertia = tube_section(*tube)
            EI, rA = getattr(self, f"EI{i}"), getattr(self, f"rho_A{i}")
            set_(f"EI{i}", self.E * inertia if EI is None else ck.positive(f"EI{i}", EI))
            set_(f"rho_A{i}", self.rho * area if rA is None else ck.positive(f"rho_A{i}", rA))
        for k in ("m_A", "m_B", "gravity"):
            set_(k, ck.non_negative(k, getattr(self, k)))
        if isinstance(self.lambda_coeffs, str):
            if self.lambda_coeffs not in LAMBDA_PRESETS:
                raise ParameterError("lambda_coeffs", self.lambda_coeffs,
                                     f"must be (c2, c1, c0) or one of {tuple(LAMBDA_PRESETS)}")
            set_("lambda_coeffs", LAMBDA_PRESETS[self.lambda_coeffs])
        set_("lambda_coeffs", tuple(ck.vector("lambda_coeffs", self.lambda_coeffs, size=3)))
        if self.theta3_from not in THETA3_CONVENTIONS:
            raise ParameterError("theta3_from", self.theta3_from,
                                 f"must be one of {THETA3_CONVENTIONS}")
        if self.phi1z not in PHI1Z_SHAPES:
            raise ParameterError("phi1z", self.phi1z, f"must be one of {PHI1Z_SHAPES}")
        set_("p1y", ck.real("p1y", self.p1y))
        if self.p1y <= 1.5:
            raise ParameterError("p1y", self.p1y, "must be > 1.5 (finite bending energy)")
        s = ck.vector("stroke", self.stroke, size=2)
        if not s[0] < s[1]:
            raise ParameterError("stroke", self.stroke, "must be (a_min, a_max) with a_min < a_max")
        if s[0] < self.l3 - self.l2:
            raise ParameterError("stroke", self.stroke,
                                 f"must have a_min >= l3 - l2 = {self.l3 - self.l2:g} "
                                 "(arm 3 would reach behind joint A)")
        if s[1] > self.l3:
            raise ParameterError("stroke", self.stroke,
                                 f"must have a_max <= l3 = {self.l3:g} (arm 3 would leave arm 2)")
        set_("stroke", (float(s[0]), float(s[1])))
        c2, c1, c0 = self.lambda_coeffs
        cand = [s[0], s[1]]
        if c2 != 0 and s[0] < -c1 / (2 * c2) < s[1]:
            cand.append(-c1 / (2 * c2))
        lam_min = min(c2 * a * a + c1 * a + c0 for a in cand)
        if lam_min <= 1.5:
            raise ParameterError("lambda_coeffs", self.lambda_coeffs,
                                 f"must give lambda(a) > 1.5 over the stroke {self.stroke} "
                                 f"(minimum {lam_min:.4f}: infinite bending energy of "
                                 "(x/L)^lambda at the root)")
        set_("n_gauss", ck.positive_int("n_gauss", self.n_gauss))
        set_("max_deflection", 0.25 * self.l1 if self.max_deflection is None
             else ck.positive("max_deflection", self.max_deflection))
        set_("slope_coupling", ck.boolean("slope_coupling", self.slope_coupling))
        set_("gravity_deflection", ck.boolean("gravity_deflection", self.gravity_deflection))

    def lam(self, a):
        """lambda(a) = c2 a^2 + c1 a + c0 (dtype-generic)."""
        c2, c1, c0 = self.lambda_coeffs
        return (c2 * a + c1) * a + c0


def _rz(t):
    c, s, z, o = np.cos(t), np.sin(t), np.zeros_like(t), np.ones_like(t)
    return np.stack([np.stack([c, -s, z], -1), np.stack([s, c, z], -1),
                     np.stack([z, z, o], -1)], -2)


def _ry_neg(t):
    """Ry(-t): rotates x towards +z by t."""
    c, s, z, o = np.cos(t), np.sin(t), np.zeros_like(t), np.ones_like(t)
    return np.stack([np.stack([c, z, -s], -1), np.stack([z, o, z], -1),
                     np.stack([s, z, c], -1)], -2)


class RRRPArm:
    """Equations of motion ``M(eta) eta'' = forcing(t, eta, eta')`` of the RRRP arm."""

    n = 8

    def __init__(self, params=None):
        self.params = p = RRRPParams() if params is None else params
        if not isinstance(p, RRRPParams):
            raise ParameterError("params", params, "must be an RRRPParams")
        g, gw = np.polynomial.legendre.leggauss(p.n_gauss)
        self._xi = (g + 1) / 2
        w = gw / 2
        self.masses = np.concatenate([p.rho_A1 * p.l1 * w, p.rho_A2 * p.l2 * w,
                                      p.rho_A3 * p.l3 * w, [p.m_A, p.m_B]])
        self.K1y = p.EI1 * power_stiffness_factor(p.p1y) / p.l1**3
        if p.phi1z == "sine":
            self._phi1z_tip, self._phi1z_tip_slope = 0.0, -math.pi / p.l1
            self.K1z = p.EI1 * math.pi**4 / (2 * p.l1**3)
        else:
            self._phi1z_tip, self._phi1z_tip_slope = 1.0, p.p1y / p.l1
            self.K1z = p.EI1 * power_stiffness_factor(p.p1y) / p.l1**3

    model_keys = ("params", "kind", "version")     # of its description (model files)

    def to_dict(self):
        """The arm as plain data: ``{"kind": "rrrp", "version": 1, "params": {...}}`` (the
        fields of :class:`RRRPParams`); :meth:`from_dict` rebuilds it."""
        return {"kind": "rrrp", "version": 1, "params": _fields_of(self.params)}

    @classmethod
    def from_dict(cls, data):
        """The arm of :meth:`to_dict`'s layout; errors name the key (``params.l1``)."""
        return cls(_build(RRRPParams, "params", dict(data).get("params", {})))

    # ---------------------------------------------------------------- kinematics
    def _phi1z(self, x):
        """Arm 1's z mode at x (docs/rrrp-arm.md eq. (3.1); ``phi1z="power"``: §6)."""
        p = self.params
        if p.phi1z == "sine":
            return np.sin(math.pi * x / p.l1)
        return (x / p.l1) ** p.p1y

    def positions(self, eta):
        """Positions (..., P, 3) of all mass points for eta (..., 8), any float/complex dtype.

        Points: n_gauss on arm 1, n_gauss on arm 2, n_gauss on arm 3, joint A, tip B.
        """
        p = self.params
        eta = np.asarray(eta)
        th1, th2, th3, q1y, q1z, q2y, q2z, a = np.moveaxis(eta, -1, 0)
        ex = lambda v: v[..., None]  # noqa: E731  (broadcast over points)
        A1 = _rz(th1) @ _ry_neg(th2)
        x1 = p.l1 * self._xi
        u1 = np.stack(np.broadcast_arrays(
            x1 + 0 * ex(q1y), (x1 / p.l1) ** p.p1y * ex(q1y),
            self._phi1z(x1) * ex(q1z)), -1)
        r1 = np.einsum("...ij,...nj->...ni", A1, u1)
        # joint A: phi_1y(l1) = 1; phi_1z(l1) = sin(pi) = 0 exactly (sine) or 1 (power)
        uA = np.stack([p.l1 + 0 * q1y, q1y, self._phi1z_tip * q1z], -1)
        rA = np.einsum("...ij,...j->...i", A1, uA)
        th3_rel = th3 - th2 if p.theta3_from == "horizontal" else th3
        if p.slope_coupling:
            A2 = A1 @ _rz(p.p1y / p.l1 * q1y) @ _ry_neg(self._phi1z_tip_slope * q1z + th3_rel)
        else:
            A2 = A1 @ _ry_neg(th3_rel)
        L = p.l2 + a
        lam = p.lam(a)
        x2 = p.l2 * self._xi * ex(1 + 0 * a)
        x3 = ex(L - p.l3) + p.l3 * self._xi
        xs = np.concatenate([x2, x3, ex(L)], -1)
        phi = (xs / ex(L)) ** ex(lam)
        u2 = np.stack([xs, phi * ex(q2y), phi * ex(q2z)], -1)
        r2 = rA[..., None, :] + np.einsum("...ij,...nj->...ni", A2, u2)
        n = p.n_gauss
        return np.concatenate([r1, r2[..., :2 * n, :], rA[..., None, :], r2[..., 2 * n:, :]], -2)

    def tip_position(self, eta):
        """Position of the end effector B (..., 3)."""
        return np.real(self.positions(eta)[..., -1, :])

    def joint_position(self, eta):
        """Position of joint A (..., 3)."""
        return np.real(self.positions(eta)[..., -2, :])

    def centerlines(self, eta, n_samples=21, scale=1.0):
        """Centrelines of the arms for drawing, from the same :meth:`positions` as the model.

        eta: (..., 8). Returns a dict of float arrays:

        * ``"arm1"`` (..., n_samples, 3): arm 1 at x in [0, l1] (R1/R2 at the origin to A);
        * ``"arm2"`` (..., n_samples, 3): arm 2 at x in [0, l2] from joint A;
        * ``"arm3"`` (..., n_samples, 3): the telescopic arm 3 over its range
          x in [L - l3, L] (L = l2 + a), the part inside arm 2 included; it ends at B;
        * ``"joint_a"``, ``"tip"`` (..., 3): joint A (m_A) and the end effector B (m_B);
        * ``"rigid"``: the same keys for eta with the modal coordinates set to zero (the
          undeformed ghost at the same joint coordinates).

        ``scale`` exaggerates the elastic displacement: every point is drawn at
        ``rigid + scale * (deformed - rigid)``, so at scale = 1 the points are the model's
        own (``tip`` equals :meth:`tip_position`) and the drawn elastic offset is exactly
        ``scale`` times the true one. (Multiplying the modal coordinates themselves by
        ``scale`` agrees to first order but is not linear: arm 1's tip slopes rotate arm 2.)
        """
        eta = np.asarray(eta, dtype=float)
        if eta.shape[-1:] != (self.n,):
            raise ParameterError("eta", f"array of shape {eta.shape}",
                                 f"must end in the {self.n} coordinates {COORDINATES}")
        n = ck.positive_int("n_samples", n_samples)
        if n < 2:
            raise ParameterError("n_samples", n_samples, "must be >= 2")
        scale = ck.non_negative("scale", scale)
        # the position function with evenly spaced points instead of Gauss points: a
        # copy of this arm with its own sample coordinates (self is left untouched)
        cache = self.__dict__.setdefault("_centerline_arms", {})
        if n not in cache:
            arm = object.__new__(type(self))
            arm.__dict__.update({k: v for k, v in self.__dict__.items()
                                 if k != "_centerline_arms"})
            arm.params = replace(self.params, n_gauss=n)
            arm._xi = np.linspace(0.0, 1.0, n)
            cache[n] = arm
        arm = cache[n]
        rigid_eta = eta.copy()
        rigid_eta[..., list(ELASTIC)] = 0.0
        true, rigid = np.real(arm.positions(eta)), np.real(arm.positions(rigid_eta))
        drawn = rigid + scale * (true - rigid)

        def split(r):
            return {"arm1": r[..., :n, :], "arm2": r[..., n:2 * n, :],
                    "arm3": r[..., 2 * n:3 * n, :], "joint_a": r[..., -2, :],
                    "tip": r[..., -1, :]}

        out = split(drawn)
        out["rigid"] = split(rigid)
        return out

    def jacobian(self, eta):
        """J = dr/deta (..., P, 3, 8) by complex step."""
        eta = np.asarray(eta, dtype=float)
        batch = eta[..., None, :] + 1j * _H_CS * np.eye(self.n)
        r = self.positions(batch)                          # (..., 8, P, 3)
        return np.moveaxis(r.imag / _H_CS, -3, -1)

    # ---------------------------------------------------------------- energies
    def stiffness(self, a):
        """Modal stiffness (K_1y, K_1z, K_2(a), K_2(a)); dtype-generic in a."""
        p = self.params
        L = p.l2 + a
        lam = p.lam(a)
        k2 = (p.EI2 * power_stiffness_factor(lam, 0.0, p.l2 / L)
              + p.EI3 * power_stiffness_factor(lam, (L - p.l3) / L, 1.0)) / L**3
        return self.K1y + 0 * a, self.K1z + 0 * a, k2, k2

    def elastic_energy(self, eta):
        eta = np.asarray(eta)
        K = self.stiffness(eta[..., 7])
        return 0.5 * sum(k * eta[..., i] ** 2 for k, i in zip(K, ELASTIC))

    def gravity_energy(self, eta):
        """g sum m z (XOY plane zero level, gravity along -Z)."""
        eta = np.asarray(eta)
        if not self.params.gravity_deflection:
            mask = np.ones(self.n)
            mask[list(ELASTIC)] = 0.0
            eta = eta * mask
        z = self.positions(eta)[..., 2]
        return self.params.gravity * (z @ self.masses)

    def potential(self, eta):
        return self.elastic_energy(eta) + self.gravity_energy(eta)

    def potential_gradient(self, eta):
        """dV/deta (8,) by complex step."""
        batch = np.asarray(eta, dtype=float)[..., None, :] + 1j * _H_CS * np.eye(self.n)
        return self.potential(batch).imag / _H_CS

    def static_deflection(self, eta, tol=1e-12, max_iter=20):
        """eta with the modal coordinates replaced by the static equilibrium under gravity
        (joints and a held): Newton on dV/dq = 0, Hessian by central differences of the
        complex-step gradient."""
        eta = np.array(ck.vector("eta", eta, size=self.n))
        e = list(ELASTIC)
        step = np.full(4, np.inf)
        for _ in range(max_iter):
            g = self.potential_gradient(eta)[e]
            H = np.empty((4, 4))
            for j, k in enumerate(e):
                # central difference of an exact (complex-step) gradient: truncation
                # O(h^2), rounding O(eps |g| / h); h ~ eps^(1/3) scaled by the coordinate
                h = 6e-6 * max(1.0, abs(eta[k]))
                d = np.zeros(self.n)
                d[k] = h
                H[:, j] = (self.potential_gradient(eta + d)[e]
                           - self.potential_gradient(eta - d)[e]) / (2 * h)
            step = np.linalg.solve(0.5 * (H + H.T), g)
            eta[e] -= step
            if np.max(np.abs(step)) < tol:
                return eta
        raise SimulationError(f"static_deflection did not converge in {max_iter} Newton "
                              f"steps (last step {np.max(np.abs(step)):.3g} > tol = {tol})",
                              time=0.0)

    def mass_matrix(self, eta):
        """M(eta) = sum_p m_p J_p^T J_p (8 x 8, or (..., 8, 8) for a batch)."""
        J = self.jacobian(eta)
        return np.einsum("p,...pik,...pil->...kl", self.masses, J, J)

    def kinetic_energy(self, eta, eta_d):
        M = self.mass_matrix(eta)
        eta_d = np.asarray(eta_d, dtype=float)
        return 0.5 * np.einsum("...k,...kl,...l->...", eta_d, M, eta_d)

    def velocity_terms(self, eta, eta_d, J=None):
        """c = sum_p m_p J_p^T (J_p' eta') (8,), the Coriolis/centrifugal forces."""
        eta = np.asarray(eta, dtype=float)
        v = np.asarray(eta_d, dtype=float)
        nv = float(np.max(np.abs(v)))
        if nv == 0.0:
            return np.zeros(self.n)
        if J is None:
            J = self.jacobian(eta)
        e = _FD_SHIFT / nv
        batch = np.stack([eta + e * v, eta - e * v]) + 1j * _H_CS * v
        g = self.positions(batch).imag / _H_CS               # J(eta +- e v) v, (2, P, 3)
        Jdv = (g[0] - g[1]) / (2 * e)
        return np.einsum("p,pik,pi->k", self.masses, J, Jdv)

    def generalized_force(self, inputs):
        """Map the joint inputs (tau1, tau2, tau3, F_a) (or a full 8-vector of generalized
        forces, zero on the modal coordinates) to Q (8,).

        tau3 is the torque of joint R3 between arm 1 and arm 2. With ``theta3_from=
        "horizontal"`` its virtual work tau3 (d theta3 - d theta2) gives Q2 = tau2 - tau3,
        Q3 = tau3; with "arm1" Q = (tau1, tau2, tau3)."""
        u = np.asarray(inputs, dtype=float).reshape(-1)
        Q = np.zeros(self.n)
        if u.size == 4:
            Q[list(ACTUATED)] = u
            if self.params.theta3_from == "horizontal":
                Q[1] -= u[2]
        elif u.size == 8:
            if np.any(u[list(ELASTIC)] != 0):
                raise ParameterError("inputs", inputs, "must be zero on the modal coordinates")
            Q[:] = u
        else:
            raise ParameterError("inputs", inputs,
                                 "must return (tau1, tau2, tau3, F_a) or a length-8 vector")
        return Q

    def joint_inputs(self, Q):
        """The joint inputs (tau1, tau2, tau3, F_a) whose generalized force on the actuated
        coordinates (theta1, theta2, theta3, a) is ``Q`` (4,): the inverse of
        :meth:`generalized_force`. A controller written in the coordinates (a PD law on
        eta plus dV/deta) returns ``arm.joint_inputs(Q)``."""
        Q = ck.vector("Q", Q, size=4)
        tau = Q.copy()
        if self.params.theta3_from == "horizontal":
            tau[1] = Q[1] + Q[2]               # Q2 = tau2 - tau3, Q3 = tau3
        return tau

    def forcing(self, t, eta, eta_d, Q=None):
        """Q - sum_p m_p J_p^T (J_p' eta') - dV/deta; also returns M (saves one Jacobian)."""
        J = self.jacobian(eta)
        M = np.einsum("p,pik,pil->kl", self.masses, J, J)
        f = -self.velocity_terms(eta, eta_d, J) - self.potential_gradient(eta)
        if Q is not None:
            f = f + Q
        return f, M

    def accelerations(self, t, eta, eta_d, Q=None):
        f, M = self.forcing(t, eta, eta_d, Q)
        try:
            return np.linalg.solve(M, f)
        except np.linalg.LinAlgError:
            raise SimulationError("singular mass matrix", t) from None

    # ---------------------------------------------------------------- simulation
    def tip_deflections(self, eta):
        """(..., 2) transverse tip deflections of arm 1 and of arms 2+3 (their modes are
        1 at the tip; arm 1's z mode has the tip value of its shape)."""
        eta = np.asarray(eta, dtype=float)
        return np.stack([np.hypot(eta[..., 3], self._phi1z_tip * eta[..., 4]),
                         np.hypot(eta[..., 5], eta[..., 6])], axis=-1)

    def simulate(self, t_end, q0=None, qd0=None, torque=None, dt_out=None, method=DEFAULT_METHOD,
                 rtol=None, atol=None, max_step=np.inf, progress=None, n_out=None,
                 max_nfev=None, max_wall_time=None, step=None, **old_names):
        """Integrate from t = 0 to ``t_end``; returns an :class:`RRRPResult`.

        The keywords are those of every ``simulate`` (:mod:`chrono_flex._aliases`); the
        old names ``eta0``, ``eta_d0`` and ``inputs`` still work, with a
        DeprecationWarning. The run goes through the engines' one plumbing
        (:mod:`chrono_flex.formulations.rrrp_run`).

        q0, qd0: the initial coordinates and rates eta, eta' (8,), in the order
        :data:`COORDINATES` (q0 is required: its ``a`` must lie in the stroke).
        torque: callable(t, eta, eta_d) -> (tau1, tau2, tau3, F_a) (N m, N m, N m, N), or
        None for free motion. The work done by the inputs is integrated as an extra state.
        dt_out: output interval, s (default t_end / 400); ``n_out`` instead gives the
        number of equally spaced outputs.
        method: "generalized_alpha" (default, as every reference engine: rho_inf 0.8,
        its step control to ``rtol`` 1e-3, or a fixed ``step``; it takes no ``atol``),
        any scipy method ("RK45", the variable-step 4(5) Runge-Kutta [W] used, "Radau",
        ...; rtol 1e-8 and atol 1e-10 by default) or "rk4" (a fixed ``step``).
        max_nfev, max_wall_time: budgets (a run stopped by one raises BudgetExceeded
        carrying the partial result). progress: None (on unless quiet), a bool, or a
        :class:`chrono_flex.stepping.Progress`. Raises SimulationError on NaN, a singular
        mass matrix, a modal coordinate beyond ``max_deflection`` or ``a`` leaving the stroke.
        """
        eta0, eta_d0, inputs = canonical_arguments(
            "RRRPArm.simulate", ("eta0", "eta_d0", "inputs"),
            dict(q0=q0, qd0=qd0, torque=torque), old_names)
        return simulate_rrrp(self, t_end, eta0, eta_d0, inputs, dt_out, method, rtol, atol,
                             max_step, progress, n_out, max_nfev, max_wall_time, step)


def simulate(t_end, q0=None, qd0=None, torque=None, params=None, **kw):
    """Build an :class:`RRRPArm` from ``params`` and call its :meth:`RRRPArm.simulate`."""
    return RRRPArm(params).simulate(t_end, q0, qd0, torque, **kw)


def __getattr__(name):
    """``SpatialResult``, the 0.2 name of :class:`RRRPResult`, with a DeprecationWarning."""
    from .._compat import moved_attribute

    return moved_attribute(__name__, name)
