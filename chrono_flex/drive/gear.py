"""Gear stages and chains of them ([S] section 2, eqs. 13-20; docs/drive.md §3).

A stage joins an input shaft (angle alpha_in) to an output shaft (alpha_out) with ratio
i = alpha_in / alpha_out. Its twist referred to the output is theta = alpha_in/i - alpha_out
(eq. 14); it transmits M1' (eq. 15, :func:`~chrono_flex.drive.backlash.transmitted_torque`)
to the output and loads its input with M1 = M1'/i (eq. 18); its friction M_F' (eq. 20)
acts on the output shaft at the output speed. In a chain, the input load of stage k+1 is
the reaction M2 of stage k (eq. 19).
"""

from dataclasses import dataclass
import math

import numpy as np

from .. import _checks as ck
from ..errors import ParameterError
from .backlash import CONTACT_LAWS, friction_torque, spring_energy, transmitted_torque


def _nonzero(name, value):
    x = ck.real(name, value)
    if x == 0.0:
        raise ParameterError(name, value, "must be non-zero")
    return x


@dataclass(frozen=True)
class GearStage:
    """One gear stage with elasticity, backlash and load-dependent friction.

    Attributes:
        ratio: i = input angle / output angle (non-zero; negative reverses the direction).
        J_out: inertia of the output shaft (load side of this stage), kg m^2 (> 0).
        c: stiffness of the link referred to the output, N m/rad (> 0).
        K_V1: internal (material) damping referred to the output, N m s/rad.
        theta_b: backlash half-width referred to the output, rad.
        K_ML: load factor of friction, 1/(N m) ([S] eq. 20).
        K_V2: viscous friction on the output shaft, N m s/rad.
        friction: a friction law with ``rates(v, z) -> (dz/dt, M_F)`` in output speed
            (:class:`~chrono_flex.drive.friction.StaticFriction`, a LuGre model), or None.
        contact: "modelica" (ElastoBacklash, default) or "linear" ([S] eq. 15 as printed).
    """

    ratio: float
    J_out: float
    c: float
    K_V1: float = 0.0
    theta_b: float = 0.0
    K_ML: float = 0.0
    K_V2: float = 0.0
    friction: object = None
    contact: str = "modelica"

    def __post_init__(self):
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731 (frozen dataclass)
        set_("ratio", _nonzero("ratio", self.ratio))
        set_("J_out", ck.positive("J_out", self.J_out))
        set_("c", ck.positive("c", self.c))
        for k in ("K_V1", "theta_b", "K_ML", "K_V2"):
            set_(k, ck.non_negative(k, getattr(self, k)))
        if self.friction is not None and not callable(getattr(self.friction, "rates", None)):
            raise ParameterError("friction", self.friction,
                                 "must be None or have a rates(v, z) method")
        ck.choice("contact", self.contact, CONTACT_LAWS)

    def torques(self, theta, dtheta, omega_out, z=0.0):
        """(M1', M_F', dz/dt): transmitted torque (eq. 15), friction torque on the output
        (eq. 20) and the friction state rate, all from states (no algebraic loop)."""
        M1p = transmitted_torque(theta, dtheta, self.c, self.K_V1, self.theta_b, self.contact)
        if self.friction is None:
            dz, M_F = 0.0 * z, 0.0
        else:
            dz, M_F = self.friction.rates(omega_out, z)
        return M1p, friction_torque(M1p, M_F, omega_out, self.K_ML, self.K_V2), dz


class GearTrain:
    """A chain of gear stages driven by a torque on its input shaft.

    Shaft 0 (inertia ``J_in``) is the input; shaft k (k = 1..n) is the output of stage k,
    with inertia ``stages[k-1].J_out``. State layout (n_states = 3 n + 2):
    [alpha_0 .. alpha_n, Omega_0 .. Omega_n, z_1 .. z_n].

        J_in  dOmega_0/dt = M_in - M1'_1 / i_1
        J_k   dOmega_k/dt = M1'_k - M_F'_k - M1'_{k+1} / i_{k+1}     (k < n; the last term is M2)
        J_n   dOmega_n/dt = M1'_n - M_F'_n + M_out
    """

    def __init__(self, stages, J_in):
        stages = tuple(stages)
        if not stages or not all(isinstance(s, GearStage) for s in stages):
            raise ParameterError("stages", stages, "must be a non-empty sequence of GearStage")
        self.stages = stages
        self.J_in = ck.positive("J_in", J_in)
        self.n_stages = len(stages)
        self.n_states = 3 * self.n_stages + 2
        self.inertias = np.array([self.J_in] + [s.J_out for s in stages])

    @property
    def total_ratio(self):
        return math.prod(s.ratio for s in self.stages)

    def initial_state(self, alpha_out=0.0):
        """Zero twist in every stage, at rest, with the last shaft at ``alpha_out``."""
        n = self.n_stages
        x = np.zeros(self.n_states)
        x[n] = alpha_out
        for k in range(n, 0, -1):
            x[k - 1] = self.stages[k - 1].ratio * x[k]
        return x

    def _split(self, x):
        n = self.n_stages
        x = np.asarray(x, dtype=float)
        return x[: n + 1], x[n + 1: 2 * n + 2], x[2 * n + 2:]

    def stage_torques(self, x):
        """Per stage (M1', M_F', dz/dt), as three arrays of length n."""
        a, w, z = self._split(x)
        out = np.zeros((3, self.n_stages))
        for k, s in enumerate(self.stages):
            theta = a[k] / s.ratio - a[k + 1]
            dtheta = w[k] / s.ratio - w[k + 1]
            out[:, k] = s.torques(float(theta), float(dtheta), float(w[k + 1]), float(z[k]))
        return out

    def rates(self, t, x, M_in, M_out=0.0):
        """dx/dt of the chain under input torque M_in and output torque M_out."""
        a, w, z = self._split(x)
        M1p, MFp, dz = self.stage_torques(x)
        torque = np.zeros(self.n_stages + 1)
        torque[0] = M_in - M1p[0] / self.stages[0].ratio
        for k in range(1, self.n_stages + 1):
            reaction = M1p[k] / self.stages[k].ratio if k < self.n_stages else -M_out
            torque[k] = M1p[k - 1] - MFp[k - 1] - reaction
        return np.concatenate([w, torque / self.inertias, dz])

    def energy(self, x):
        """Kinetic energy of all shafts plus elastic energy of all links, J."""
        a, w, _ = self._split(x)
        e = 0.5 * float(np.sum(self.inertias * w * w))
        for k, s in enumerate(self.stages):
            e += float(spring_energy(float(a[k] / s.ratio - a[k + 1]), s.c, s.theta_b))
        return e
