"""Controllers in the loop: PID, state feedback, model-based friction compensation
(docs/control.md).

A controller is a system with its own state (python-control's ``NonlinearIOSystem``
idea). It reads its sensors (or the state the engine hands it) and returns the actuator
input: a joint torque (``torque=`` of the arm engines) or a drive input, motor voltage or
current (``drive_input=``, ``simulate_drive(u=...)``). The engine calls it with the
engine's state arguments, ``(t, q, qd)`` for an arm, ``(t, x)`` for
:func:`~chrono_flex.drive.simulate_drive` (x the drive's six states).

Two kinds:

* **sampled** (``period`` > 0; the digital controller): called once per sample instant
  t_k = k period as ``ctrl(t_k, *state)``, it updates its discrete state and returns the
  output the engine holds from t_k + ``delay`` (zero-order hold). This is the
  ``SampledInput`` protocol of the engines (attributes ``period``, ``delay``, a call
  ``f(t, *state)`` made at the sample instants only). An engine that calls its inputs
  at any time wraps it in :class:`chrono_flex._callbacks.held`.
* **continuous** (``period`` = 0): ``output(t, xc, *state)`` and, with ``n_states`` > 0,
  ``rates(t, xc, *state)``: the engine integrates the controller states xc with its own
  (``simulate_drive`` does; a stateless one, ``n_states`` = 0, is also a plain callable
  ``ctrl(t, *state)`` usable by every engine).

Sources: Astrom & Hagglund, *Advanced PID Control*, ISA 2006, sec. 3.5 (integrator
windup: back-calculation and conditional integration); Astrom & Murray, *Feedback
Systems*, 2nd ed. 2021, sec. 11.3 (the same in state-space form); Armstrong-Helouvry,
Dupont, Canudas de Wit, "A survey of models, analysis tools and compensation methods for
the control of machines with friction", Automatica 30(7), 1994, sec. 5.2 (model-based
friction compensation).
"""

import math

import numpy as np

from .. import _checks as ck
from ..errors import ParameterError, SimulationError

ANTI_WINDUP = ("back-calculation", "clamping", "none")


def _signal(name, value):
    """A reference: a number, or a callable of t returning a number or an array."""
    if callable(value):
        return value
    v = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(v)):
        raise ParameterError(name, value, "must be finite (a number, an array or a callable of t)")
    return lambda t: v


def _finite(name, value, t):
    a = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(a)):
        raise SimulationError(f"`{name}` gave a non-finite value {a.tolist()}", t)
    return a


class Controller:
    """The common part: period, delay, sensors and the measurement.

    Args:
        period: sample period, s (0: continuous).
        delay: computation delay, s, from the sample instant to the instant its output
            takes effect (sampled controllers only); the sensors' own delays add to it
            (one loop delay).
        sensors: a sensor of :mod:`chrono_flex.control.sensors`, a list of them, or a
            callable ``measure(t, *state) -> array``; None reads the engine's state as
            it comes: ``x`` for a drive, ``[q, qd]`` for an arm.
    """

    n_states = 0

    def __init__(self, period=0.0, delay=0.0, sensors=None):
        self.period = ck.non_negative("period", period)
        own_delay = ck.non_negative("delay", delay)
        if own_delay > 0.0 and self.period == 0.0:
            raise ParameterError("delay", delay, "is for sampled controllers (give a period)")
        if sensors is None or callable(sensors) and not hasattr(sensors, "read"):
            self.sensors = sensors
        else:
            self.sensors = list(sensors) if isinstance(sensors, (list, tuple)) else [sensors]
            for s in self.sensors:
                if not hasattr(s, "read"):
                    raise ParameterError("sensors", s, "must be sensors of "
                                         "chrono_flex.control.sensors or a callable")
                if self.period == 0.0 and (s.noise > 0.0 or s.period > 0.0 or s.delay > 0.0):
                    raise ParameterError("sensors", s, "with noise, a sample period or a "
                                         "delay must be read by a sampled controller (give "
                                         "the controller a period)")
                if self.period > 0.0 and 0.0 < s.period < self.period * (1 - 1e-9):
                    raise ParameterError("period", s.period, f"of sensor {s.name!r} is below "
                                         f"the controller's period {self.period:g} s (it "
                                         "would sample values the controller never reads)")
        sensor_delay = max([s.delay for s in self.sensors], default=0.0) \
            if isinstance(self.sensors, list) else 0.0
        self.delay = own_delay + sensor_delay

    @property
    def reads_drive_states(self):
        """Whether a sensor reads the motor side of an arm's drive: an arm engine then
        calls the controller with the drives' states z after q and qd."""
        return any(getattr(s, "needs_drive_states", False)
                   for s in (self.sensors if isinstance(self.sensors, list) else ()))

    def measure(self, t, *state):
        """The measured signals y at t (1-D array)."""
        if self.sensors is None:
            return np.concatenate([np.ravel(np.asarray(s, dtype=float)) for s in state])
        if callable(self.sensors):
            return _finite("sensors", np.ravel(self.sensors(t, *state)), t)
        values = [s.read(t, *state) for s in self.sensors]
        try:
            return np.array(values, dtype=float).ravel()
        except ValueError:                  # scalars and vectors mixed
            return np.concatenate([np.ravel(v) for v in values])

    def initial_state(self):
        return np.zeros(self.n_states)

    def reset(self):
        """Forget the discrete state (integrators, last measurement) and sensor holds."""
        for s in self.sensors if isinstance(self.sensors, list) else ():
            s.reset()

    def __repr__(self):
        kind = f"period={self.period:g}" if self.period else "continuous"
        return f"{type(self).__name__}({kind})"


class PID(Controller):
    """PID law on one measured signal y (the first value the sensors give; with
    ``rate_sensor``, its rate from that sensor), with output limits and anti-windup.

    Sampled (``period`` T > 0), at each sample k (Astrom & Hagglund 2006, sec. 3.5 and
    the discrete forms of sec. 3.6, derivative on the measurement):

        e_k = r(t_k) - y_k
        D_k = -kd yd_k (rate sensor)  or  -kd (y_k - y_{k-1}) / T  (0 at k = 0)
        v_k = kp e_k + I_k + D_k,    u_k = min(u_max, max(u_min, v_k))
        I_{k+1} = I_k + T ki e_k + T (u_k - v_k) / Tt      ("back-calculation")
        I_{k+1} = I_k + T ki e_k, skipped when u_k != v_k and ki e_k pushes v further
                  out of the limits                        ("clamping": conditional
                                                            integration)
        I_{k+1} = I_k + T ki e_k                           ("none")

    Continuous (``period`` = 0): the same with dI/dt in place of (I_{k+1} - I_k)/T and,
    without a rate sensor, the derivative of a first-order filter of y,
    D = -kd (y - y_f)/Tf, dy_f/dt = (y - y_f)/Tf (states [I, y_f]; a PD with a rate
    sensor has no state).

    Args:
        kp, ki, kd: gains (u per unit of y; per unit time integral; per unit rate).
        setpoint: r, a number or a callable of t.
        sensor: what y is (see :class:`Controller`; default: the first state argument's
            first entry is not assumed: give one).
        rate_sensor: optional sensor of dy/dt (a tachometer).
        u_min, u_max: output limits (default none).
        anti_windup: "back-calculation" (default), "clamping" or "none".
        Tt: tracking time constant of back-calculation, s (default sqrt(Ti Td) with
            Ti = kp/ki, Td = kd/kp when both exist, else Ti; Astrom & Hagglund's rule).
        Tf: derivative filter time constant of the continuous law, s (default Td/10).
        period, delay: see :class:`Controller`.
    """

    def __init__(self, kp, ki=0.0, kd=0.0, setpoint=0.0, sensor=None, rate_sensor=None,
                 u_min=-math.inf, u_max=math.inf, anti_windup="back-calculation", Tt=None,
                 Tf=None, period=0.0, delay=0.0):
        self.kp, self.ki, self.kd = (ck.real(n, v) for n, v in (("kp", kp), ("ki", ki),
                                                                ("kd", kd)))
        if sensor is None:
            raise ParameterError("sensor", sensor, "must be given (what the PID measures)")
        self.rate_sensor = rate_sensor
        sensors = [sensor] if rate_sensor is None else [sensor, rate_sensor]
        if callable(sensor) and not hasattr(sensor, "read"):
            if rate_sensor is not None:
                raise ParameterError("rate_sensor", rate_sensor, "needs `sensor` to be a "
                                     "sensor object too")
            sensors = sensor
        super().__init__(period, delay, sensors)
        self.setpoint = _signal("setpoint", setpoint)
        self.u_min, self.u_max = float(u_min), float(u_max)
        if not self.u_min < self.u_max:
            raise ParameterError("u_max", u_max, f"must be > u_min = {u_min}")
        self.anti_windup = ck.choice("anti_windup", anti_windup, ANTI_WINDUP)
        Ti = abs(self.kp / self.ki) if self.ki and self.kp else None
        Td = abs(self.kd / self.kp) if self.kd and self.kp else None
        if Tt is None:
            Tt = math.sqrt(Ti * Td) if Ti and Td else (Ti or 1.0)
        self.Tt = ck.positive("Tt", Tt)
        needs_filter = self.period == 0.0 and self.kd != 0.0 and rate_sensor is None
        if Tf is None:
            Tf = (Td or 1e-3) / 10.0
        self.Tf = ck.positive("Tf", Tf)
        self.n_states = 0 if self.period > 0 else (
            2 if needs_filter else (1 if self.ki != 0.0 else 0))
        self._filter = needs_filter
        self.reset()

    def reset(self):
        super().reset()
        self.integral = 0.0
        self._y_prev = None

    def _y(self, t, state):
        y = self.measure(t, *state)
        if y.size < 1:
            raise ParameterError("sensor", self.sensors, "gives no value")
        return float(y[0]), (float(y[1]) if self.rate_sensor is not None else None)

    def _limit(self, v):
        return min(self.u_max, max(self.u_min, v))

    def _integrate(self, e, u, v):
        """dI/dt (continuous) or (I_{k+1} - I_k)/T (sampled)."""
        if self.anti_windup == "back-calculation":
            return self.ki * e + (u - v) / self.Tt
        if self.anti_windup == "clamping" and u != v and (self.ki * e) * (v - u) > 0.0:
            return 0.0
        return self.ki * e

    # -- sampled -----------------------------------------------------------------------
    def __call__(self, t, *state):
        if self.period == 0.0:
            if self.n_states:
                raise ParameterError("controller", self, "has states (integral or derivative "
                                     "filter): an engine integrates them through "
                                     "output()/rates(); give it a period to call it alone")
            return self.output(t, (), *state)
        y, yd = self._y(t, state)
        e = float(self.setpoint(t)) - y
        if yd is None:
            yd = 0.0 if self._y_prev is None else (y - self._y_prev) / self.period
        self._y_prev = y
        v = self.kp * e + self.integral - self.kd * yd
        u = self._limit(v)
        self.integral += self.period * self._integrate(e, u, v)
        return _finite(repr(self), u, t)

    # -- continuous --------------------------------------------------------------------
    def _parts(self, t, xc, state):
        y, yd = self._y(t, state)
        e = float(self.setpoint(t)) - y
        I = float(xc[0]) if self.n_states else 0.0
        if self._filter:
            yd = (y - float(xc[1])) / self.Tf
        v = self.kp * e + I - self.kd * (yd or 0.0)
        return y, e, v, self._limit(v)

    def output(self, t, xc, *state):
        return self._parts(t, xc, state)[3]

    def rates(self, t, xc, *state):
        y, e, v, u = self._parts(t, xc, state)
        out = [self._integrate(e, u, v)]
        if self._filter:
            out.append((y - float(xc[1])) / self.Tf)
        return np.array(out)

    def initial_state(self):
        return np.zeros(self.n_states)


class StateFeedback(Controller):
    """u = u_ff(t) - K (y - r(t)), limited to [u_min, u_max] entry by entry.

    y is what the sensors give, or the engine's state as it comes (``[q, qd]`` for an
    arm, x for a drive). K is (m, n) (a 1-D K is one row); the output has m entries (a
    scalar when m = 1). A y of another length than n stops the run with a ParameterError
    naming K. Stateless: continuous, or sampled with a period.
    """

    def __init__(self, K, reference=0.0, feedforward=0.0, sensors=None, u_min=-math.inf,
                 u_max=math.inf, period=0.0, delay=0.0):
        super().__init__(period, delay, sensors)
        K = np.atleast_2d(np.asarray(K, dtype=float))
        if K.ndim != 2 or not np.all(np.isfinite(K)):
            raise ParameterError("K", K, "must be a finite (m, n) gain matrix")
        self.K = K
        self.reference = _signal("reference", reference)
        self.feedforward = _signal("feedforward", feedforward)
        self.u_min, self.u_max = float(u_min), float(u_max)

    def output(self, t, xc, *state):
        y = self.measure(t, *state)
        if y.size != self.K.shape[1]:
            raise ParameterError("K", self.K.shape, f"must have {y.size} columns, one per "
                                 f"measured signal (at t = {t:.6g} s)")
        u = np.asarray(self.feedforward(t), dtype=float) - self.K @ (y - self.reference(t))
        u = np.clip(u, self.u_min, self.u_max)
        u = _finite(repr(self), u, t)
        return float(u[0]) if u.size == 1 else u

    def __call__(self, t, *state):
        return self.output(t, (), *state)


class FrictionCompensation(Controller):
    """A controller plus the input that cancels the drive's friction, from the drive's
    own model (Armstrong-Helouvry et al. 1994, sec. 5.2: model-based compensation):

        M_F'^ = (1 + K_ML |M1'^|) F_ss(Omega2^) + K_V2 Omega2^     ([S] eq. 20)
        u_c   = M_F'^ / (k_M r) * (R in voltage mode, 1 in current mode)

    F_ss is the drive's friction law at steady sliding (``drive.friction.
    steady_state_force``, the Stribeck curve: the same function the drive integrates).
    The speed Omega2^ comes from ``speed`` (a tachometer on the output); at speeds below
    ``v_stick`` (default the friction's linear zone, dOmega2, or 1e-3 rad/s) the sign is
    taken from the inner controller's output (the direction it drives) and the level is
    Coulomb's, Mc (breakaway above it would overshoot). M1'^ is estimated as the
    compensated motor torque k_M r i^ with i^ = u/R (voltage) or u (current).
    ``scale`` (0..1, default 1) compensates a fraction.

    ``model="dynamic"`` (a drive with LuGre friction; continuous only) replaces F_ss by
    the drive's own dynamic law run as an observer on the measured speed (Canudas de
    Wit, Olsson, Astrom, Lischinsky, IEEE TAC 40(3), 1995, sec. IV):

        dz^/dt = Omega2^ - sigma0 |Omega2^| z^ / g(Omega2^),
        M_F^ = sigma0 z^ + sigma1 dz^/dt + sigma2 Omega2^        (``friction.rates``)

    z^ is a controller state (integrated by the engine with the plant); it follows the
    drive's z as the bristles' own dynamics (stable, time constant g/(sigma0 |v|)) make
    it, so the compensation holds the stiction and the breakaway too, where the
    steady-state curve must guess a direction. Its load factor takes the compensated
    torque M1'^ = T + M_F'^ (T the inner law's torque), solved exactly.
    """

    def __init__(self, inner, drive, speed, v_stick=None, scale=1.0, model="steady"):
        if not callable(inner):
            raise ParameterError("inner", inner, "must be a controller")
        super().__init__(getattr(inner, "period", 0.0), 0.0, [speed])
        self.delay = getattr(inner, "delay", 0.0) + speed.delay
        self.inner, self.drive = inner, drive
        p = drive.params
        if drive.friction is None and p.K_V2 == 0.0:
            raise ParameterError("drive", drive, "has no friction to compensate")
        self.v_stick = ck.positive("v_stick", v_stick if v_stick is not None
                                   else max(p.dOmega2, 1e-3))
        self.scale = ck.non_negative("scale", scale)
        self.model = ck.choice("model", model, ("steady", "dynamic"))
        self._inner_states = int(getattr(inner, "n_states", 0) or 0) if self.period == 0 else 0
        if self.model == "dynamic":
            if p.friction != "dynamic":
                raise ParameterError("model", model, f"needs a drive with dynamic (LuGre) "
                                     f"friction, not friction={p.friction!r}")
            if self.period:
                raise ParameterError("model", model, "is a continuous observer (its state "
                                     "is as stiff as the bristles): give the inner "
                                     "controller no period")
        self.n_states = self._inner_states + (self.model == "dynamic")
        self._gain = (p.R if p.motor == "voltage" else 1.0) / (p.k_M * p.ratio)

    @property
    def reads_drive_states(self):
        return super().reads_drive_states or getattr(self.inner, "reads_drive_states", False)

    def torque(self, omega, u_inner, z_hat=None):
        """Estimated friction torque M_F'^ at output speed ``omega`` (N m); with
        ``z_hat``, the dynamic law's (``model="dynamic"``)."""
        p, f = self.drive.params, self.drive.friction
        load = abs(u_inner / self._gain) * p.K_ML + 1.0
        if z_hat is not None:
            # the load factor of the compensated torque M = T + (1 + K_ML |M|) F^ (the
            # transmitted torque at rest, T the inner law's): solved exactly, the sign of
            # M being that of T + F^ since K_ML |F^| < 1
            F, T = float(f.force(omega, z_hat)), u_inner / self._gain
            M = (T + F) / (1.0 - p.K_ML * F * math.copysign(1.0, T + F))
            return M - T + p.K_V2 * omega
        direction = omega if abs(omega) > self.v_stick else u_inner
        if f is None:
            level = 0.0
        elif abs(omega) > self.v_stick:
            level = abs(float(f.steady_state_force(omega)))
        else:
            level = p.Mc
        return math.copysign(load * level, direction) * (direction != 0.0) + p.K_V2 * omega

    def _compensate(self, t, u_inner, state, z_hat=None):
        omega = float(self.measure(t, *state)[0])
        return u_inner + self.scale * self._gain * self.torque(omega, float(u_inner), z_hat)

    def __call__(self, t, *state):
        if self.model == "dynamic":
            raise ParameterError("controller", self, "has a state (the friction observer): "
                                 "an engine integrates it through output()/rates()")
        return _finite(repr(self), self._compensate(t, self.inner(t, *state), state), t)

    def _split(self, xc):
        xc = np.asarray(xc, dtype=float)
        k = self._inner_states
        return xc[:k], (float(xc[k]) if self.model == "dynamic" else None)

    def output(self, t, xc, *state):
        xi, z_hat = self._split(xc)
        return self._compensate(t, self.inner.output(t, xi, *state), state, z_hat)

    def rates(self, t, xc, *state):
        xi, z_hat = self._split(xc)
        inner = np.ravel(self.inner.rates(t, xi, *state)) if self._inner_states \
            else np.zeros(0)
        if z_hat is None:
            return inner
        omega = float(self.measure(t, *state)[0])
        return np.append(inner, float(self.drive.friction.dzdt(omega, z_hat)))

    def initial_state(self):
        inner = self.inner.initial_state() if self._inner_states else np.zeros(0)
        return np.append(inner, 0.0) if self.model == "dynamic" else inner

    def reset(self):
        super().reset()
        getattr(self.inner, "reset", lambda: None)()


__all__ = ["ANTI_WINDUP", "Controller", "FrictionCompensation", "PID", "StateFeedback"]
