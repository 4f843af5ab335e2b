"""Standalone simulation of one drive on its own output inertia (stiff reference solver).

State y = [i, alpha1, Omega1, z, alpha2, Omega2]: the drive's four states, then the output
shaft, J2 dOmega2/dt = tau_out + M_out ([S] eq. 19 with M2 = 0).
"""

from dataclasses import dataclass, field
import csv
import json
import math
import time

import numpy as np
from scipy.integrate import solve_ivp

from .. import _checks as ck
from .._aliases import canonical
from .._callbacks import call_vector
from .._files import atomic_write
from ..errors import ParameterError, SimulationError

FULL_STATE_NAMES = ("current", "motor_angle", "motor_speed", "z", "output_angle", "output_speed")

#: |state| above this is taken as divergence.
DIVERGENCE_LIMIT = 1e12

#: The methods of scipy.integrate.solve_ivp that :func:`simulate_drive` accepts.
METHODS = ("Radau", "BDF", "LSODA", "RK45", "RK23", "DOP853")


class _Budget(Exception):
    """max_nfev right-hand-side evaluations are spent (caught in simulate_drive)."""


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

    def to_csv(self, path):
        """Write :meth:`series` to a CSV file at ``path`` (atomically, as
        :meth:`chrono_flex.result.Result.to_csv`); return ``path``."""
        cols = self.series()
        with atomic_write(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(list(cols))
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
    """Evaluate :meth:`GearDrive.outputs` along a trajectory into arrays."""
    u, m_out = as_signal("u", u), as_signal("m_out", m_out)
    rows = [drive.outputs(tk, y[:4], y[4], y[5], u(tk)) for tk, y in zip(t, states)]
    out = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    out["m_out"] = np.array([m_out(tk) for tk in t])
    return out


def simulate_drive(drive, t_end, drive_input=None, m_out=0.0, x0=None, q0=None, qd0=None,
                   method="Radau", rtol=1e-6, atol=1e-9, dt_out=None, max_step=math.inf,
                   max_nfev=None, **old_names):
    """Integrate the drive on its output inertia J2 from t = 0 to ``t_end``.

    The keywords are those of every ``simulate`` (:mod:`chrono_flex._aliases`); the old
    names ``u``, ``theta_out0`` and ``omega_out0`` still work, with a DeprecationWarning.

    Args:
        drive: a :class:`~chrono_flex.drive.gear_drive.GearDrive`.
        drive_input: input (V, or A in current mode): a float or a callable
            drive_input(t) returning one finite real (default zero).
        m_out: disturbance torque on the output M_out, N m: a float or a callable m_out(t).
        x0: None (``drive.initial_state``), the drive state (4) or the full state (6).
        q0, qd0: the output shaft's initial angle (rad) and speed (rad/s), with a drive
            state or none (default at rest at zero).
        method: a scipy.integrate.solve_ivp method (one of :data:`METHODS`); stiff ones
            (Radau, BDF) by default since the friction and gear modes are fast (see
            ``drive.stiff_modes()``).
        rtol, atol: solver tolerances (atol: one value, or one per state); rtol at least
            100 machine epsilons.
        dt_out: spacing of the output times (default t_end/1000), at most ``t_end``; the
            outputs are 0, dt_out, 2 dt_out, ... with t_end appended when dt_out does not
            divide it.
        max_step: largest solver step, s (> 0; default none).
        max_nfev: budget of right-hand-side evaluations (default none); SimulationError
            naming it when spent before t_end.

    Returns:
        :class:`DriveResult`. Raises ParameterError (naming the argument) for bad
        settings or a callback returning something other than one real number, and
        SimulationError (with the time) on NaN, divergence, solver failure, a callback
        that raises or returns NaN, or a spent budget.
    """
    named = canonical(dict(drive_input=drive_input, q0=q0, qd0=qd0, **old_names),
                      "simulate_drive", ("u", "theta_out0", "omega_out0"))
    drive_input, q0, qd0 = named.pop("drive_input"), named.pop("q0"), named.pop("qd0")
    if named:
        raise TypeError(f"simulate_drive() got an unexpected keyword argument "
                        f"{next(iter(named))!r}")
    theta_out0, omega_out0 = (0.0 if q0 is None else q0), (0.0 if qd0 is None else qd0)
    t_end = ck.positive("t_end", t_end)
    u = as_signal("drive_input", 0.0 if drive_input is None else drive_input)
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
    count = [0, 0.0]

    def rhs(t, y):
        count[0] += 1
        count[1] = t
        if max_nfev is not None and count[0] > max_nfev:
            raise _Budget()
        i, a1, w1, z, a2, w2 = (float(v) for v in y)
        di, da, dw, dz, tau = kern(i, a1, w1, z, a2, w2, u(t))
        dy = np.array([di, da, dw, dz, w2, (tau + m_out(t)) * inv_J2])
        if not np.all(np.isfinite(dy)):
            raise SimulationError("non-finite state derivative (NaN or overflow)", t)
        if np.max(np.abs(y)) > DIVERGENCE_LIMIT:
            raise SimulationError(f"state exceeds {DIVERGENCE_LIMIT:g} (divergence)", t)
        return dy

    t0 = time.perf_counter()
    try:
        sol = solve_ivp(rhs, (0.0, t_end), y0, method=method, t_eval=t_eval, rtol=rtol,
                        atol=atol, max_step=max_step)
    except _Budget:
        hint = "raise max_nfev or loosen rtol/atol" + \
            ("" if method in ("Radau", "BDF", "LSODA") else ", or use Radau or BDF")
        raise SimulationError(f"{method} used up its evaluation budget max_nfev = {max_nfev} "
                              f"right-hand-side evaluations before t_end ({hint})",
                              count[1]) from None
    wall = time.perf_counter() - t0
    if not sol.success:
        t_fail = float(sol.t[-1]) if sol.t.size else 0.0
        raise SimulationError(f"{method} failed: {sol.message}", t_fail)
    states = sol.y.T
    info = dict(method=method, rtol=rtol, atol=atol, nfev=int(sol.nfev), njev=int(sol.njev),
                nlu=int(sol.nlu), wall_time=wall, drive=repr(drive), ratio=drive.ratio,
                max_nfev=max_nfev)
    return DriveResult(t=sol.t, states=states,
                       outputs=collect_outputs(drive, sol.t, states, u, m_out), info=info)
