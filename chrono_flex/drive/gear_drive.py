"""The whole drive module: DC motor + elastic gear with backlash + friction ([S] eq. 24).

:class:`GearDrive` is the coupling contract shared by the reference arm engine and the
Chrono plugin: the drive owns four states (motor current, motor angle, motor speed,
friction state z); the output (load-side) shaft belongs to whoever integrates the load,
which passes its angle and speed in and receives the torque the drive applies to it.

    u  = L di/dt + R i + k_E Omega1                   (armature; or i = u, current mode)
    J1 dOmega1/dt = k_M i - M1'/i                      (eqs. 13, 18)
    theta = alpha1/i - alpha2,  dtheta = Omega1/i - Omega2                    (eq. 14)
    M1'  = transmitted torque (eq. 15 with the ElastoBacklash contact, backlash.py)
    M_F' = (|M1'| K_ML + 1) M_F(Omega2, z) + K_V2 Omega2                       (eq. 20)
    tau_out = M1' - M_F'   (eq. 19 without J2 and M_out:  J2 dOmega2/dt = tau_out + M_out)

Every torque is a function of states, so there is no algebraic loop.
"""

from dataclasses import dataclass, fields
import math

import numpy as np

from .. import _checks as ck
from ..errors import ParameterError, SimulationError
from . import stability
from .backlash import CONTACT_LAWS, GAP_EPS, dead_zone, spring_energy
from .friction import MODIFIED_DAMPING, STRIBECK_SHAPES, ModifiedLuGre, StaticFriction
from .gear import GearStage
from .motor import MOTOR_MODES, DCMotor, current_rate, motor_torque

FRICTION_KINDS = ("dynamic", "static", "none")

STATE_NAMES = ("current", "motor_angle", "motor_speed", "z")


@dataclass(frozen=True)
class DriveParams:
    """Parameters of one drive module, SI units, [S]'s symbols (docs/drive.md §6).

    Attributes:
        L: armature inductance, H.  R: armature resistance, Ohm.
        k_E: back-EMF constant, V s/rad.  k_M: torque constant, N m/A.
        J1: motor-side inertia (rotor + first gear part), kg m^2.
        ratio: gear ratio i = alpha1/alpha2 (non-zero).
        K_V1: internal damping of the gear, referred to the output, N m s/rad.
        c: gear stiffness referred to the output, N m/rad.
        J2: output-side inertia (second gear part + load), kg m^2.
        K_ML: load factor of friction, 1/(N m).
        Mc, Ms: Coulomb and static friction torques at the output, N m (Ms >= Mc).
        dOmega2: half-width of the linear zone of static friction, rad/s.
        Omega2s: Stribeck speed, rad/s.
        K_V2: viscous friction at the output, N m s/rad.
        sigma0: bristle stiffness, N m/rad.  sigma1: bristle damping, N m s/rad.
        T_min: smallest friction time constant of the modified LuGre model, s.
        theta_b: backlash half-width referred to the output, rad.
        delta: exponent of the generalized Stribeck curve (shape="generalized").
        shape: Stribeck curve (friction.STRIBECK_SHAPES).
        friction: "dynamic" (modified LuGre, [S] eq. 22), "static" (modified Stribeck,
            [S] eq. 21) or "none" (K_V2 only).
        motor: "voltage" (input u in V) or "current" (ideal current control, u in A).
        contact: "modelica" (ElastoBacklash, no pulling torque) or "linear" ([S] eq. 15).
        sigma1_damping: "cap" (sigma1(v) = min(sigma1, 4 g/|v|), [S] eq. 12 in force
            units), "constant", or "printed" ([S] eq. 12 as printed, 4 sigma0(v) g/|v|;
            not passive, docs/drive.md §2).
    """

    L: float
    R: float
    k_E: float
    k_M: float
    J1: float
    ratio: float
    K_V1: float
    c: float
    J2: float
    K_ML: float = 0.0
    Mc: float = 0.0
    Ms: float = 0.0
    dOmega2: float = 1e-4
    Omega2s: float = 1.0
    K_V2: float = 0.0
    sigma0: float = 100.0
    sigma1: float = 0.0
    T_min: float = 1e-5
    theta_b: float = 0.0
    delta: float = 2.0
    shape: str = "generalized"
    friction: str = "dynamic"
    motor: str = "voltage"
    contact: str = "modelica"
    sigma1_damping: str = "cap"

    def __post_init__(self):
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731 (frozen dataclass)
        for k in ("L", "R", "k_E", "k_M", "J1", "c", "J2", "dOmega2", "Omega2s", "sigma0",
                  "T_min", "delta"):
            set_(k, ck.positive(k, getattr(self, k)))
        for k in ("K_V1", "K_ML", "Mc", "Ms", "K_V2", "sigma1", "theta_b"):
            set_(k, ck.non_negative(k, getattr(self, k)))
        ratio = ck.real("ratio", self.ratio)
        if ratio == 0.0:
            raise ParameterError("ratio", self.ratio, "must be non-zero")
        set_("ratio", ratio)
        ck.choice("shape", self.shape, STRIBECK_SHAPES)
        ck.choice("friction", self.friction, FRICTION_KINDS)
        ck.choice("motor", self.motor, MOTOR_MODES)
        ck.choice("contact", self.contact, CONTACT_LAWS)
        ck.choice("sigma1_damping", self.sigma1_damping, MODIFIED_DAMPING)
        if self.friction != "none":
            if self.Mc <= 0.0:
                raise ParameterError("Mc", self.Mc, f"must be > 0 with friction={self.friction!r}")
            if self.Ms < self.Mc:
                raise ParameterError("Ms", self.Ms, f"must be >= Mc = {self.Mc!r}")

    @classmethod
    def serebrenny2019(cls, **changes):
        """The gripper drive identified in [S] (docs/drive.md §6), with ``changes`` applied.

        [S] gives no backlash and no Stribeck exponent; the defaults here are
        theta_b = 1e-3 rad (total play 2 theta_b = 0.11 deg at the output, typical of a
        small precision planetary gearhead) and delta = 2 (the Gaussian curve of [CW]).
        """
        values = dict(L=0.746e-3, R=7.25, k_E=0.0453, k_M=0.0452, J1=9.49e-7, ratio=28.0,
                      K_V1=0.146, c=1003.0, J2=0.0021, K_ML=3.266, Mc=0.0405, Ms=0.0467,
                      dOmega2=1e-4, Omega2s=10.47, K_V2=0.0, sigma0=100.0, sigma1=0.923,
                      T_min=2e-6, theta_b=1e-3, delta=2.0)
        unknown = set(changes) - {f.name for f in fields(cls)}
        if unknown:
            name = sorted(unknown)[0]
            raise ParameterError(name, changes[name], "is not a DriveParams field")
        values.update(changes)
        return cls(**values)

    @property
    def motor_model(self):
        return DCMotor(self.L, self.R, self.k_E, self.k_M, self.motor)

    @property
    def friction_model(self):
        """The friction law M_F(Omega2, z) in output speed (None for friction="none")."""
        if self.friction == "static":
            return StaticFriction(Fc=self.Mc, Fs=self.Ms, vs=self.Omega2s, dv=self.dOmega2,
                                  shape=self.shape, delta=self.delta)
        if self.friction == "dynamic":
            return ModifiedLuGre(sigma0=self.sigma0, sigma1=self.sigma1, sigma2=0.0,
                                 Fc=self.Mc, Fs=self.Ms, vs=self.Omega2s, shape=self.shape,
                                 delta=self.delta, T_min=self.T_min,
                                 damping=self.sigma1_damping)
        return None

    @property
    def stage(self):
        """The gear as a :class:`~chrono_flex.drive.gear.GearStage` (output inertia J2)."""
        return GearStage(ratio=self.ratio, J_out=self.J2, c=self.c, K_V1=self.K_V1,
                         theta_b=self.theta_b, K_ML=self.K_ML, K_V2=self.K_V2,
                         friction=self.friction_model, contact=self.contact)


class GearDrive:
    """A drive module built from :class:`DriveParams`: the coupling contract.

    State x = [i (A), alpha1 (rad), Omega1 (rad/s), z (rad)]; z stays 0 unless
    friction="dynamic". The output shaft (alpha2, Omega2, inertia J2 = ``output_inertia``)
    is integrated by the caller: J2 dOmega2/dt = tau_out + M_out (+ whatever else it
    carries, e.g. an arm).
    """

    n_states = 4
    state_names = STATE_NAMES
    state_units = ("A", "rad", "rad/s", "rad")

    def __init__(self, params):
        if not isinstance(params, DriveParams):
            raise ParameterError("params", params, "must be a DriveParams")
        self.params = p = params
        self.motor = p.motor_model
        self.stage = p.stage
        self.friction = p.friction_model
        self.output_inertia = p.J2
        self.ratio = p.ratio
        self._voltage = p.motor == "voltage"
        # Bound methods and constants as attributes: the scalar path reads them once per call.
        self._torques = self.stage.torques

    def __repr__(self):
        p = self.params
        return (f"GearDrive(ratio={p.ratio:g}, friction={p.friction!r}, motor={p.motor!r}, "
                f"theta_b={p.theta_b:g})")

    # -- state ----------------------------------------------------------------------------
    def initial_state(self, theta_out=0.0, omega_out=0.0):
        """Zero current, zero twist (alpha1 = i alpha2, Omega1 = i Omega2), z at its
        steady-state value for ``omega_out`` (0 at rest)."""
        theta_out = ck.real("theta_out", theta_out)
        omega_out = ck.real("omega_out", omega_out)
        z = 0.0
        if self.params.friction == "dynamic" and omega_out != 0.0:
            z = float(self.friction.steady_state_z(omega_out))
        return np.array([0.0, self.ratio * theta_out, self.ratio * omega_out, z])

    def steady_state(self, torque=None, u=None, theta_out=0.0, omega_out=0.0):
        """(x, u, tau_out): the drive turning its output steadily at ``omega_out`` (0: at
        rest) from ``theta_out``, delivering the output torque ``torque`` (N m; the input
        u it needs is returned) or driven by the input ``u`` (V, or A in current mode;
        the torque is returned). Exactly one of ``torque`` and ``u`` is given.

        Steady means no current, speed or twist rate: Omega1 = i Omega2, dtheta = 0,
        k_M i = M1'/i_gear (eq. 18), u = R i + k_E Omega1 (armature); the friction state
        at its steady value z_ss(Omega2) (0 at rest: a drive at rest carries its load on
        the gear, its friction unloaded, the middle of the presliding range); the twist
        theta = M1'/c + s theta_b on the flank s = sign(M1') that carries the load
        (s = +1 for no load). Checked against :meth:`rates`: SimulationError when the
        rates do not vanish there."""
        p = self.params
        theta_out, omega_out = ck.real("theta_out", theta_out), ck.real("omega_out", omega_out)
        if (torque is None) == (u is None):
            raise ParameterError("torque", torque, "or `u` must be given, not both or neither")
        r = p.ratio
        z, MF = 0.0, 0.0
        if omega_out != 0.0 and self.friction is not None:
            if p.friction == "dynamic":
                z = float(self.friction.steady_state_z(omega_out))
            MF = float(self.friction.rates(omega_out, z)[1])
        omega1 = r * omega_out

        def friction_out(M1p):                 # eq. 20
            return (abs(M1p) * p.K_ML + 1.0) * MF + p.K_V2 * omega_out

        if torque is not None:
            torque = ck.real("torque", torque)
            # M1' - (|M1'| K_ML + 1) M_F - K_V2 Omega2 = torque, on either sign of M1'
            base = torque + MF + p.K_V2 * omega_out
            M1p = base / (1.0 - p.K_ML * MF) if base >= 0 else base / (1.0 + p.K_ML * MF)
            i = M1p / (r * p.k_M)
            u = p.R * i + p.k_E * omega1 if self._voltage else i
        else:
            u = ck.real("u", u)
            i = (u - p.k_E * omega1) / p.R if self._voltage else u
            M1p = r * p.k_M * i
            torque = M1p - friction_out(M1p)
        s = 1.0 if M1p >= 0.0 else -1.0
        theta = M1p / p.c + (s * p.theta_b if p.theta_b > GAP_EPS else 0.0)
        x = np.array([i if self._voltage else 0.0, r * (theta_out + theta), omega1, z])
        di, _, dw, dz, tau = self.rates_tuple(*x, theta_out, omega_out, u)
        scale = abs(M1p) + p.Ms + 1e-12
        if (abs(tau - torque) > 1e-9 * scale or abs(dw) * p.J1 > 1e-9 * scale
                or abs(di) * p.L > 1e-9 * (abs(u) + 1e-12)
                or abs(dz) > 1e-9 * (abs(omega_out) + 1e-12)):
            raise SimulationError(f"the drive's steady state is not steady: rates ({di:.3g}, "
                                  f"{dw:.3g}, {dz:.3g}), torque {tau:.6g} for {torque:.6g}")
        return x, float(u), float(torque)

    # -- the contract ---------------------------------------------------------------------
    def rates_tuple(self, i, alpha1, omega1, z, theta_out, omega_out, u):
        """Scalar hot path of :meth:`rates`: floats in, (di, dalpha1, dOmega1, dz, tau_out) out."""
        p = self.params
        r = p.ratio
        if self._voltage:
            di = current_rate(u, i, omega1, p.L, p.R, p.k_E)
        else:
            di, i = 0.0, u
        M1p, MFp, dz = self._torques(alpha1 / r - theta_out, omega1 / r - omega_out, omega_out, z)
        domega1 = (motor_torque(i, p.k_M) - M1p / r) / p.J1
        return di, omega1, domega1, dz, M1p - MFp

    def rates(self, t, x, theta_out, omega_out, u, m_out=0.0):
        """(dx/dt as ndarray(4), tau_out): the drive's state derivatives and the torque
        M1' - M_F' it applies to its output shaft, given the output angle and speed and the
        input u (V, or A in current mode). ``m_out`` acts on the output inertia, which the
        caller integrates; it is accepted for a uniform signature and does not enter here.
        """
        di, da, dw, dz, tau = self.rates_tuple(float(x[0]), float(x[1]), float(x[2]),
                                               float(x[3]), float(theta_out), float(omega_out),
                                               float(u))
        return np.array([di, da, dw, dz]), tau

    def outputs(self, t, x, theta_out, omega_out, u):
        """Named scalars at one instant: currents, torques, powers, energies (SI)."""
        p = self.params
        i, alpha1, omega1, z = (float(v) for v in x[:4])
        theta_out, omega_out, u = float(theta_out), float(omega_out), float(u)
        if not self._voltage:
            i = u
            voltage = p.R * i + p.k_E * omega1
        else:
            voltage = u
        theta = alpha1 / p.ratio - theta_out
        dtheta = omega1 / p.ratio - omega_out
        M1p, MFp, dz = self._torques(theta, dtheta, omega_out, z)
        spring_torque = p.c * float(dead_zone(theta, p.theta_b if p.theta_b > GAP_EPS else 0.0))
        return {
            "current": i,
            "voltage": voltage,
            "motor_torque": p.k_M * i,
            "motor_speed": omega1,
            "twist": theta,
            "twist_rate": dtheta,
            "transmitted_torque": M1p,
            "motor_load_torque": M1p / p.ratio,
            "friction_torque": MFp,
            "load_factor": abs(M1p) * p.K_ML + 1.0,
            "z": z,
            "dz": float(dz),
            "tau_out": M1p - MFp,
            "output_angle": theta_out,
            "output_speed": omega_out,
            "electrical_power": voltage * i,
            "copper_loss": p.R * i * i,
            "magnetic_energy": 0.5 * p.L * i * i,
            "emf_power": p.k_E * i * omega1,
            "mechanical_power": p.k_M * i * omega1,
            "motor_kinetic_energy": 0.5 * p.J1 * omega1 * omega1,
            "spring_energy": float(spring_energy(theta, p.c, p.theta_b)),
            "gear_loss": (M1p - spring_torque) * dtheta,
            "friction_power": MFp * omega_out,
            "output_power": (M1p - MFp) * omega_out,
        }

    # -- fixed-step bound -----------------------------------------------------------------
    def stiff_modes(self, torque=0.0):
        """Eigenvalues (1/s) of the modes that limit an explicit step, by name.

        "electromechanical": the motor circuit, the rotor and the gear stiffness with the
        output free (J2 alone: the stiffest case; an arm on the output only adds inertia).
        "friction": static: the linear zone, a damper (1 + K_ML torque) Ms / dOmega2 + K_V2
        on J2 ([S] eq. 29); dynamic: the bristle lag with its smallest time constant T_min,
        and the presliding oscillator J2 s^2 + lf (sigma1 s + sigma0) = 0.
        ``torque``: the largest |M1'| expected while the output sticks (load factor).
        """
        p = self.params
        r, J1, J2, c, d = p.ratio, p.J1, p.J2, p.c, p.K_V1
        # x = [i, alpha1, Omega1, alpha2, Omega2] linearised in contact (theta_b plays no role)
        A = np.zeros((5, 5))
        A[0, 0], A[0, 2] = -p.R / p.L, -p.k_E / p.L
        A[1, 2] = 1.0
        A[2, 0] = p.k_M / J1
        A[2, 1], A[2, 2] = -c / r**2 / J1, -d / r**2 / J1
        A[2, 3], A[2, 4] = c / r / J1, d / r / J1
        A[3, 4] = 1.0
        A[4, 1], A[4, 2], A[4, 3], A[4, 4] = c / r / J2, d / r / J2, -c / J2, -d / J2
        if not self._voltage:
            A = A[1:, 1:]
        lam = np.linalg.eigvals(A)
        scale = np.max(np.abs(lam))
        modes = {"electromechanical": lam[np.abs(lam) > 1e-9 * scale]}
        lf = 1.0 + p.K_ML * abs(ck.non_negative("torque", torque))
        if p.friction == "static":
            modes["friction"] = np.array([-(lf * p.Ms / p.dOmega2 + p.K_V2) / J2 + 0j])
        elif p.friction == "dynamic":
            presliding = np.roots([J2, lf * p.sigma1 + p.K_V2, lf * p.sigma0])
            modes["friction"] = np.concatenate([[-1.0 / p.T_min + 0j], presliding])
        elif p.K_V2 > 0.0:
            modes["friction"] = np.array([-p.K_V2 / J2 + 0j])
        return modes

    def max_stable_step(self, method="rk4", safety=stability.DEFAULT_SAFETY, torque=0.0):
        """Largest fixed step h (s) for ``method`` ("euler" or "rk4"):
        min over the :meth:`stiff_modes` of the method's linear stability limit, divided by
        ``safety`` (the k >= 6...10 of [S] eq. 29).

        For the static model with Euler this is [S] eq. 29, h < 2 dOmega2 J2 / (k Ms) (with
        Ms, the slope of the linear zone of eq. 3, where [S] prints Mc; Ms >= Mc).
        """
        ck.choice("method", method, stability.FIXED_STEP_METHODS)
        safety = ck.positive("safety", safety)
        h = math.inf
        for lam in self.stiff_modes(torque).values():
            for one in lam:
                h = min(h, stability.stable_step(method, one))
        return h / safety
