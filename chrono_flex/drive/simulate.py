"""Standalone simulation of one drive on its own output inertia (stiff reference solver).

State y = [i, alpha1, Omega1, z, alpha2, Omega2]: the drive's four states, then the output
shaft, J2 dOmega2/dt = tau_out + M_out ([S] eq. 19 with M2 = 0).
"""

from dataclasses import dataclass, field
import math
import time

import numpy as np
from scipy.integrate import solve_ivp

from .. import _checks as ck
from ..errors import ParameterError, SimulationError

FULL_STATE_NAMES = ("current", "motor_angle", "motor_speed", "z", "output_angle", "output_speed")

#: |state| above this is taken as divergence.
DIVERGENCE_LIMIT = 1e12


def as_signal(name, value):
    """A callable of t from a callable or a constant (validated)."""
    if callable(value):
        return value
    c = ck.real(name, value)
    return lambda t: c


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

    def state(self, name):
        return self.states[:, self.state_names.index(name)]

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
    rows = [drive.outputs(tk, y[:4], y[4], y[5], u(tk)) for tk, y in zip(t, states)]
    out = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    out["m_out"] = np.array([float(m_out(tk)) for tk in t])
    return out


def simulate_drive(drive, t_end, u=0.0, m_out=0.0, x0=None, theta_out0=0.0, omega_out0=0.0,
                   method="Radau", rtol=1e-6, atol=1e-9, dt_out=None, max_step=math.inf):
    """Integrate the drive on its output inertia J2 from t = 0 to ``t_end``.

    Args:
        drive: a :class:`~chrono_flex.drive.gear_drive.GearDrive`.
        u: input (V, or A in current mode): a float or a callable u(t).
        m_out: disturbance torque on the output M_out, N m: a float or a callable m_out(t).
        x0: None (``drive.initial_state``), the drive state (4) or the full state (6).
        method: a scipy.integrate.solve_ivp method; stiff ones (Radau, BDF) by default since
            the friction and gear modes are fast (see ``drive.stiff_modes()``).
        rtol, atol: solver tolerances (atol for every state).
        dt_out: spacing of the output times (default t_end/1000).

    Returns:
        :class:`DriveResult`. Raises SimulationError (with the time) on NaN, divergence or
        solver failure.
    """
    t_end = ck.positive("t_end", t_end)
    u = as_signal("u", u)
    m_out = as_signal("m_out", m_out)
    y0 = full_initial_state(drive, x0, theta_out0, omega_out0)
    dt_out = t_end / 1000.0 if dt_out is None else ck.positive("dt_out", dt_out)
    n_out = int(round(t_end / dt_out))
    t_eval = np.linspace(0.0, t_end, n_out + 1)
    inv_J2 = 1.0 / drive.output_inertia
    kern = drive.rates_tuple

    def rhs(t, y):
        i, a1, w1, z, a2, w2 = (float(v) for v in y)
        di, da, dw, dz, tau = kern(i, a1, w1, z, a2, w2, float(u(t)))
        dy = np.array([di, da, dw, dz, w2, (tau + float(m_out(t))) * inv_J2])
        if not np.all(np.isfinite(dy)):
            raise SimulationError("non-finite state derivative (NaN or overflow)", t)
        if np.max(np.abs(y)) > DIVERGENCE_LIMIT:
            raise SimulationError(f"state exceeds {DIVERGENCE_LIMIT:g} (divergence)", t)
        return dy

    t0 = time.perf_counter()
    sol = solve_ivp(rhs, (0.0, t_end), y0, method=method, t_eval=t_eval, rtol=rtol, atol=atol,
                    max_step=max_step)
    wall = time.perf_counter() - t0
    if not sol.success:
        t_fail = float(sol.t[-1]) if sol.t.size else 0.0
        raise SimulationError(f"{method} failed: {sol.message}", t_fail)
    states = sol.y.T
    info = dict(method=method, rtol=rtol, atol=atol, nfev=int(sol.nfev), njev=int(sol.njev),
                nlu=int(sol.nlu), wall_time=wall, drive=repr(drive), ratio=drive.ratio)
    return DriveResult(t=sol.t, states=states,
                       outputs=collect_outputs(drive, sol.t, states, u, m_out), info=info)
