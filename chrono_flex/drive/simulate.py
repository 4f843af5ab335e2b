"""Standalone simulation of one drive on its own output inertia (stiff reference solver).

State y = [i, alpha1, Omega1, z, alpha2, Omega2]: the drive's four states, then the output
shaft, J2 dOmega2/dt = tau_out + M_out ([S] eq. 19 with M2 = 0).

The input u is a number, a function of time u(t), a function of the state u(t, x) (x the
six states above: a feedback law), a continuous controller with its own states (appended
to y and integrated with it) or a sampled one (integrated from sample to sample with the
output held); the controllers are those of :mod:`chrono_flex.control` (docs/control.md).
The run goes through the shared loop (:func:`chrono_flex.stepping.run`) on one of
scipy's solvers, checked as every such run (:class:`~chrono_flex.integrators.ivp.OdeStepper`).
"""

from dataclasses import dataclass, field
import bisect
import csv
import json
import math
import time

import numpy as np

from .. import _checks as ck
from .._aliases import canonical_arguments
from .._callbacks import call_vector, is_sampled, sample_index, takes_state
from .._files import atomic_write
from ..errors import ParameterError, SimulationError
from ..integrators.choice import default_method
from ..integrators.ivp import EXPLICIT, STIFF, OdeStepper
from ..stepping import Stepper, run

FULL_STATE_NAMES = ("current", "motor_angle", "motor_speed", "z", "output_angle", "output_speed")

#: Units of the drive's states and outputs (GearDrive.outputs), for the CSV's units row.
DRIVE_UNITS = dict(
    t="s", current="A", motor_angle="rad", motor_speed="rad/s", z="rad", dz="rad/s",
    output_angle="rad", output_speed="rad/s", voltage="V", motor_torque="N m",
    twist="rad", twist_rate="rad/s", transmitted_torque="N m", motor_load_torque="N m",
    friction_torque="N m", load_factor="-", tau_out="N m", electrical_power="W",
    copper_loss="W", magnetic_energy="J", emf_power="W", mechanical_power="W",
    motor_kinetic_energy="J", spring_energy="J", gear_loss="W", friction_power="W",
    output_power="W", m_out="N m")

#: |state| above this is taken as divergence.
DIVERGENCE_LIMIT = 1e12

#: The methods of scipy's solvers that :func:`simulate_drive` accepts.
METHODS = STIFF + EXPLICIT


def as_signal(name, value):
    """A callable of t from a callable or a constant (validated).

    A callable is wrapped so that every fault names it (``name``) and the time: if it
    raises, SimulationError chained to the user's exception; if it returns something
    other than one real number (None, a string, an array of another shape),
    ParameterError; if it returns NaN or an infinity, SimulationError."""
    if callable(value):
        return checked_signal(name, value)
    c = ck.real(name, value)
    return lambda t: c


def checked_signal(name, fn):
    """``fn`` as a function of t that returns a finite float or raises naming ``name``
    and t (see :func:`as_signal`)."""
    def value(t):
        try:
            v = fn(t)
        except (ParameterError, SimulationError):
            raise
        except Exception as exc:  # noqa: BLE001 - re-raised with the callback's name and time
            raise SimulationError(f"the `{name}` callback raised {type(exc).__name__}: {exc}",
                                  t) from exc
        if isinstance(v, (float, int, np.floating, np.integer)):
            x = float(v)
        else:                   # not a plain number: one real in an array, or refused
            try:
                raw = np.asarray(v)
            except (TypeError, ValueError):
                raw = np.asarray(None)
            if raw.dtype.kind in "biuf" and raw.shape in ((), (1,)):
                x = float(raw.reshape(-1)[0])
            else:
                x = float(call_vector(name, lambda _t: v, 1, t)[0])  # raises, naming `name`
        if not math.isfinite(x):
            raise SimulationError(f"the `{name}` callback returned {v!r}, not a finite number",
                                  t)
        return x

    return value


def full_initial_state(drive, x0, theta_out0, omega_out0):
    """[drive states, alpha2, Omega2] from x0 = None, a drive state (4) or a full state (6)."""
    if x0 is None:
        return np.concatenate([drive.initial_state(theta_out0, omega_out0),
                               [theta_out0, omega_out0]])
    x0 = ck.vector("x0", x0)
    if x0.size == drive.n_states:
        return np.concatenate([x0, [ck.real("theta_out0", theta_out0),
                                    ck.real("omega_out0", omega_out0)]])
    if x0.size == drive.n_states + 2:
        return x0.copy()
    raise ParameterError("x0", x0, f"must have {drive.n_states} or {drive.n_states + 2} entries")


@dataclass
class DriveResult:
    """A simulated drive trajectory.

    Attributes:
        t: output times, s (nt,).
        states: (nt, 6) [i, alpha1, Omega1, z, alpha2, Omega2] (:data:`FULL_STATE_NAMES`).
        outputs: name -> (nt,) array of :meth:`GearDrive.outputs` plus "m_out".
        info: solver, tolerances or step, evaluation counts, wall time.
    """

    t: np.ndarray
    states: np.ndarray
    outputs: dict
    info: dict = field(default_factory=dict)

    state_names = FULL_STATE_NAMES

    def __repr__(self):
        o = self.outputs
        return (f"<DriveResult on {self.info.get('method', '?')}: t = {self.t[0]:.4g} .. "
                f"{self.t[-1]:.4g} s, {self.t.size} samples, final output speed "
                f"{o['output_speed'][-1]:+.4g} rad/s, current {o['current'][-1]:+.4g} A>")

    def state(self, name):
        return self.states[:, self.state_names.index(name)]

    def series(self):
        """Flat dict name -> (nt,) array: ``t``, the states by name, the outputs."""
        cols = {"t": self.t}
        cols.update({n: self.states[:, k] for k, n in enumerate(self.state_names)})
        cols.update({f"out_{k}": np.asarray(v, dtype=float) for k, v in self.outputs.items()})
        return cols

    def units(self):
        """The unit of every column of :meth:`series` (SI; "-" dimensionless, "?" for a
        quantity this table does not know)."""
        return {n: DRIVE_UNITS.get(n[4:] if n.startswith("out_") else n, "?")
                for n in self.series()}

    def to_csv(self, path):
        """Write :meth:`series` to a CSV file at ``path`` (atomically, as
        :meth:`chrono_flex.result.Result.to_csv`: names, then units, then one row per
        output time); return ``path``."""
        cols = self.series()
        units = self.units()
        with atomic_write(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(list(cols))
            w.writerow([units[n] for n in cols])
            for row in np.column_stack(list(cols.values())):
                w.writerow([repr(float(v)) for v in row])
        return path

    def to_npz(self, path):
        """Write the arrays and ``info`` (as JSON) to a compressed NPZ file at ``path``
        (atomically); :meth:`from_npz` reads it back. Returns ``path``."""
        arrays = {"t": self.t, "states": self.states,
                  **{f"out_{k}": np.asarray(v) for k, v in self.outputs.items()},
                  "meta_json": np.array(json.dumps({"info": self.info, "outputs":
                                                    list(self.outputs)}, default=repr))}
        with atomic_write(path, "wb") as f:
            np.savez_compressed(f, **arrays)
        return path

    @classmethod
    def from_npz(cls, path):
        """The DriveResult written by :meth:`to_npz` at ``path``."""
        with np.load(path) as d:
            meta = json.loads(str(d["meta_json"]))
            return cls(t=d["t"], states=d["states"],
                       outputs={k: d[f"out_{k}"] for k in meta["outputs"]}, info=meta["info"])

    def summary(self):
        o = self.outputs
        lines = [f"drive run: t = {self.t[0]:.4g} .. {self.t[-1]:.4g} s, {len(self.t)} points, "
                 f"{self.info.get('method', '?')}"]
        lines.append(f"output speed: end {o['output_speed'][-1]:+.6g} rad/s, "
                     f"max |.| {np.max(np.abs(o['output_speed'])):.6g} rad/s")
        lines.append(f"current: end {o['current'][-1]:+.6g} A, max |.| "
                     f"{np.max(np.abs(o['current'])):.6g} A")
        lines.append(f"transmitted torque M1': end {o['transmitted_torque'][-1]:+.6g} N m; "
                     f"friction M_F': end {o['friction_torque'][-1]:+.6g} N m")
        if "wall_time" in self.info:
            lines.append(f"wall time {self.info['wall_time']:.3g} s")
        return "\n".join(lines)

    def plot(self, path=None, title=None):
        """Current, speeds, torques and twist in one figure
        (:func:`chrono_flex.viz.plotting.plot_drive`); saved to ``path`` if given."""
        from ..viz.plotting import plot_drive

        return plot_drive(self, path, title)


def collect_outputs(drive, t, states, u, m_out):
    """Evaluate :meth:`GearDrive.outputs` along a trajectory into arrays; ``u`` is the
    input as a signal of t (a callable or a number) or its values at the times t."""
    m_out = as_signal("m_out", m_out)
    if callable(u) or np.ndim(u) == 0:
        u = as_signal("u", u)
        u = [u(tk) for tk in t]
    rows = [drive.outputs(tk, y[:4], y[4], y[5], uk) for tk, y, uk in zip(t, states, u)]
    out = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    out["m_out"] = np.array([m_out(tk) for tk in t])
    return out


def _state_signal(fn):
    """u(t, x) as a function of (t, x) that returns a finite float or raises naming `u`."""
    def value(t, x):
        return checked_signal("drive_input", lambda tt: fn(tt, x))(t)
    return value


class _Input:
    """The input of :func:`simulate_drive` in one of its forms: ``kind`` "time" (u(t) or
    a number), "state" (u(t, x)), "continuous" (a controller with ``n_states`` states:
    ``output(t, xc, x)`` and ``rates(t, xc, x)``) or "sampled" (``period`` > 0: called
    as u(t_k, x) at the sample instants, held from t_k + ``delay``)."""

    def __init__(self, u):
        self.n_states = 0
        if callable(getattr(u, "reset", None)):
            u.reset()                       # a controller starts each run afresh
        if is_sampled(u):
            self.kind = "sampled"
            self.fn = _state_signal(u)
            self.period = float(u.period)
            self.delay = ck.non_negative("delay", getattr(u, "delay", 0.0) or 0.0)
        elif callable(u) and int(getattr(u, "n_states", 0) or 0) > 0:
            self.kind = "continuous"
            self.ctrl = u
            self.n_states = int(u.n_states)
            self.x0 = ck.vector("controller initial state", u.initial_state(), self.n_states)
        elif callable(u) and takes_state("drive_input", u, 1):
            self.kind = "state"
            self.fn = _state_signal(u)
        else:
            self.kind = "time"
            self.fn = as_signal("drive_input", u)

    def continuous(self, t, y):
        """(u, dxc/dt) of a continuous controller at the augmented state y."""
        xc, x = y[6:], y[:6]
        name = type(self.ctrl).__name__
        u = checked_signal(f"{name}.output", lambda tt: self.ctrl.output(tt, xc, x))(t)
        dxc = call_vector(f"{name}.rates", lambda tt: self.ctrl.rates(tt, xc, x),
                          self.n_states, t)
        return u, dxc


def simulate_drive(drive, t_end, drive_input=None, m_out=0.0, x0=None, q0=None, qd0=None,
                   method=default_method("drive"), rtol=1e-6, atol=1e-9, dt_out=None, max_step=math.inf,
                   max_nfev=None, **old_names):
    """Integrate the drive on its output inertia J2 from t = 0 to ``t_end``.

    The keywords are those of every ``simulate`` (:mod:`chrono_flex._aliases`); the old
    names ``u``, ``theta_out0`` and ``omega_out0`` still work, with a DeprecationWarning.

    Args:
        drive: a :class:`~chrono_flex.drive.gear_drive.GearDrive`.
        drive_input: input (V, or A in current mode; default zero): a float; a
            callable u(t) or u(t, x) (x the full state (6,), :data:`FULL_STATE_NAMES`:
            a feedback law) returning one
            finite real; or a controller of :mod:`chrono_flex.control`: continuous with
            its own states (integrated with the drive's), or sampled (``period`` > 0,
            ``delay``): called at t_k = k period with the state there, its value held
            from t_k + delay (zero-order hold; before the first value, 0), the drive
            integrated from one switching instant to the next.
        m_out: disturbance torque on the output M_out, N m: a float or a callable m_out(t).
        x0: None (``drive.initial_state``), the drive state (4) or the full state (6).
        q0, qd0: the output shaft's initial angle (rad) and speed (rad/s), with a drive
            state or none (default at rest at zero).
        method: one of scipy's solvers (:data:`METHODS`), stepped by the shared loop
            (:func:`chrono_flex.stepping.run`) through
            :class:`~chrono_flex.integrators.ivp.OdeStepper`; stiff ones (Radau, BDF)
            since the friction and gear modes are fast (see ``drive.stiff_modes()``).
            Radau by default (:func:`chrono_flex.integrators.choice.default_method`
            ``("drive")``), not the arms' generalized-alpha, whose step control
            measures positions only, leaving the current 2 % of its range off at
            rtol 1e-3 (docs/architecture.md, "Default integrators").
        rtol, atol: solver tolerances (atol: one value, or one per state); rtol at least
            100 machine epsilons.
        dt_out: spacing of the output times (default t_end/1000), at most ``t_end``; the
            outputs are 0, dt_out, 2 dt_out, ... with t_end appended when dt_out does not
            divide it.
        max_step: largest solver step, s (> 0; default none).
        max_nfev: budget of right-hand-side evaluations (default none);
            :class:`~chrono_flex.errors.BudgetExceeded` (a SimulationError) naming it
            when spent before t_end.

    Returns:
        :class:`DriveResult` (``outputs["voltage"]`` or ``["current"]``: the input as
        applied, held values included; a continuous controller's states in
        ``info["controller_states"]``). Raises ParameterError (naming the argument) for
        bad settings or a callback returning something other than one real number, and
        SimulationError (with the time) on NaN, divergence, solver failure, a callback
        that raises or returns NaN, or a spent budget.
    """
    drive_input, q0, qd0 = canonical_arguments(
        "simulate_drive", ("u", "theta_out0", "omega_out0"),
        dict(drive_input=drive_input, q0=q0, qd0=qd0), old_names)
    theta_out0, omega_out0 = (0.0 if q0 is None else q0), (0.0 if qd0 is None else qd0)
    t_end = ck.positive("t_end", t_end)
    law = _Input(0.0 if drive_input is None else drive_input)
    m_out = as_signal("m_out", m_out)
    y0 = full_initial_state(drive, x0, theta_out0, omega_out0)
    ck.solver_settings(method, rtol, atol, max_step, max_nfev, y0.size, METHODS)
    if dt_out is None:
        dt_out = t_end / 1000.0
    else:
        dt_out = ck.positive("dt_out", dt_out)
        if dt_out > t_end * (1.0 + 1e-12):
            raise ParameterError("dt_out", dt_out, f"must not exceed t_end = {t_end:g} s "
                                 "(there would be no output between the ends)")
    t_eval = ck.output_times(0.0, t_end, dt_out)
    inv_J2 = 1.0 / drive.output_inertia
    kern = drive.rates_tuple
    sampled = _SampledLaw(law, t_end) if law.kind == "sampled" else None

    def rhs(t, y):
        i, a1, w1, z, a2, w2 = (float(v) for v in y[:6])
        if law.kind == "time":
            uk = law.fn(t)
        elif law.kind == "state":
            uk = law.fn(t, y)
        elif law.kind == "sampled":
            uk = sampled.held
        else:
            uk, dxc = law.continuous(t, y)
        di, da, dw, dz, tau = kern(i, a1, w1, z, a2, w2, uk)
        dy = np.array([di, da, dw, dz, w2, (tau + m_out(t)) * inv_J2])
        if law.n_states:
            dy = np.concatenate([dy, dxc])
        if np.all(np.isfinite(dy)) and np.max(np.abs(y)) > DIVERGENCE_LIMIT:
            raise SimulationError(f"state exceeds {DIVERGENCE_LIMIT:g} (divergence)", t)
        return dy

    if law.n_states:
        y0 = np.concatenate([y0, law.x0])
        if np.ndim(atol) == 1:
            raise ParameterError("atol", atol, "must be one value with a controller that has "
                                 "states (the controller's states are appended)")
    t0 = time.perf_counter()
    if sampled is not None:
        sampled.fire(0.0, y0)               # the samples at t = 0, the first segment's end
    ode = OdeStepper(rhs, 0.0, y0, t_end if sampled is None else sampled.next_event(0.0),
                     method=method, rtol=rtol, atol=atol, max_nfev=max_nfev,
                     max_step=max_step, name="the drive's equations")
    rec = run(_DriveStepper(ode, sampled, t_end), t_eval)
    wall = time.perf_counter() - t0
    t, Y = rec.t, rec["y"]
    states = Y[:, :6]
    info = dict(method=method, rtol=rtol, atol=atol, **ode.counters(), wall_time=wall,
                drive=repr(drive), ratio=drive.ratio, max_nfev=max_nfev, input=law.kind)
    if law.kind == "time":
        u_values = law.fn
    elif law.kind == "state":
        u_values = [law.fn(tk, y) for tk, y in zip(t, Y)]
    elif law.kind == "sampled":
        u_values = [sampled.value(tk) for tk in t]
        info.update(period=law.period, delay=law.delay, samples=sampled.k)
    else:
        u_values = [law.continuous(tk, y)[0] for tk, y in zip(t, Y)]
        info["controller_states"] = Y[:, 6:]
    return DriveResult(t=t, states=states,
                       outputs=collect_outputs(drive, t, states, u_values, m_out), info=info)


class _SampledLaw:
    """A sampled input in a run: called at t_k = k period (k = 0 ... while t_k <=
    t_end) with the state there, its value held from t_k + delay (zero before the
    first); instants closer than 1e-12 max(1, t_end) count as one."""

    def __init__(self, law, t_end):
        self.fn, self.period, self.delay, self.t_end = law.fn, law.period, law.delay, t_end
        self.tol = 1e-12 * max(1.0, t_end)
        self.n_samples = sample_index(t_end, self.period) + 1
        self.k = 0                     # the next sample's number (= samples taken)
        self.pending = []              # (t_on, value) computed, not yet applied
        self.held = 0.0
        self.times, self.values = [0.0], [0.0]

    def fire(self, t, y):
        """At time t with the state y: take every sample due and apply every value due."""
        while self.k < self.n_samples and self.k * self.period <= t + self.tol:
            t_k = self.k * self.period
            self.pending.append((t_k + self.delay, self.fn(t_k, y)))
            self.k += 1
        while self.pending and self.pending[0][0] <= t + self.tol:
            self.held = self.pending.pop(0)[1]
            self.times.append(t)
            self.values.append(self.held)

    def next_event(self, t):
        """The next sample or switching instant after t (t_end at the latest)."""
        later = [e for e in ([self.k * self.period] if self.k < self.n_samples else [])
                 + [p[0] for p in self.pending[:1]] if e > t + self.tol]
        nxt = min(later, default=self.t_end)
        return self.t_end if nxt > self.t_end - self.tol else nxt

    def value(self, t):
        """The value acting at time t (from its instant on)."""
        return self.values[bisect.bisect_right(self.times, t + self.tol) - 1]


class _DriveStepper(Stepper):
    """The shared loop's view of the drive's run: one step of the scipy solver at a time
    (:class:`~chrono_flex.integrators.ivp.OdeStepper`); with a sampled input the solver
    stops at each sample and switching instant, the input is sampled or switched there
    and the solver started afresh from the state it reached (a zero-order hold: the
    equations jump, so no step crosses an instant, as solve_ivp run from one to the
    next)."""

    label = "drive"

    def __init__(self, ode, sampled, t_end):
        self.ode, self.sampled, self.t_end = ode, sampled, t_end

    @property
    def t(self):
        return self.ode.t

    def advance(self, t_target):
        ode, law = self.ode, self.sampled
        if law is not None and ode.finished:       # at an instant: the new segment
            ode.restart(ode.t, ode.current, law.next_event(ode.t))
        t = ode.advance(t_target)
        if law is not None and ode.finished and t < self.t_end:
            law.fire(t, ode.current)               # its value from t on (record, rhs)
        return t

    def deflection_ratio(self):
        """0 (the drive has no links), NaN for a state that is not finite."""
        return 0.0 if np.all(np.isfinite(self.ode.current)) else float("nan")

    def record(self, t):
        return {"y": self.ode.state(t)}
