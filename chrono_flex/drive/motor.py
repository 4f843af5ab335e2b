"""Permanent-magnet DC motor, the electrical part of [S] eq. 24:

    u = L di/dt + R i + k_E dalpha1/dt,    M_motor = k_M i

Power balance (what the motor tests check): u i = R i^2 + d/dt(L i^2 / 2) + k_E i Omega1,
and the mechanical power delivered to the rotor is k_M i Omega1 (equal to k_E i Omega1
when k_E = k_M in SI units, as for an ideal machine; [S] identifies them separately).
"""

from dataclasses import dataclass

from .. import _checks as ck

MOTOR_MODES = ("voltage", "current")


def current_rate(u, i, omega, L, R, k_E):
    """di/dt = (u - R i - k_E Omega1) / L (armature circuit of [S] eq. 24)."""
    return (u - R * i - k_E * omega) / L


def motor_torque(i, k_M):
    """Electromagnetic torque M_motor = k_M i ([S] eq. 24)."""
    return k_M * i


@dataclass(frozen=True)
class DCMotor:
    """A DC motor driven by its terminal voltage (mode="voltage") or by an ideal current
    controller (mode="current": the current follows the command u at once, L plays no role).

    Attributes:
        L: armature inductance, H.  R: armature resistance, Ohm.
        k_E: back-EMF constant, V s/rad.  k_M: torque constant, N m/A.
        mode: "voltage" or "current".
    """

    L: float
    R: float
    k_E: float
    k_M: float
    mode: str = "voltage"

    def __post_init__(self):
        for k in ("L", "R", "k_E", "k_M"):
            object.__setattr__(self, k, ck.positive(k, getattr(self, k)))
        ck.choice("motor", self.mode, MOTOR_MODES)

    @property
    def electrical_time_constant(self):
        """L / R, s."""
        return self.L / self.R

    def steady_speed(self, u, load_slope=0.0, load_offset=0.0):
        """Rotor speed under constant voltage u with a load torque on the rotor
        M_load = load_offset + load_slope Omega1 (closed form of R i + k_E Omega1 = u,
        k_M i = M_load)."""
        return (self.k_M * u - self.R * load_offset) / (self.k_E * self.k_M + self.R * load_slope)
