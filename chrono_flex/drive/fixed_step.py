"""Fixed-step explicit integration of a drive on its output inertia: the real-time use of [S].

The step is checked against ``drive.max_stable_step(method)`` (stability of the electrical,
gear and friction modes, [S] eq. 29); the inputs u and M_out are held over each step (as a
controller sampling at 1/h would). The loop uses plain floats (``GearDrive.rates_tuple``).
"""

import math
import time

import numpy as np

from .. import _checks as ck
from ..errors import ParameterError, SimulationError
from . import stability
from .simulate import DIVERGENCE_LIMIT, DriveResult, as_signal, collect_outputs, full_initial_state


class FixedStepDrive:
    """A drive and its output shaft advanced by a fixed step ``h`` with Euler or RK4.

    Args:
        drive: a :class:`~chrono_flex.drive.gear_drive.GearDrive`.
        h: step, s. Raises ParameterError naming ``h`` when above
            ``drive.max_stable_step(method, safety, torque)``, unless ``check=False``.
        method: "rk4" (default) or "euler".
        x0, theta_out0, omega_out0: initial state as in :func:`simulate_drive`.
        safety, torque: passed to ``drive.max_stable_step``.

    Attributes: ``t`` (s), ``y`` (list of 6 floats: [i, alpha1, Omega1, z, alpha2, Omega2]),
    ``h_max`` (the bound), ``tau_out`` (drive torque on the output at the last step start).
    """

    def __init__(self, drive, h, method="rk4", x0=None, theta_out0=0.0, omega_out0=0.0,
                 t0=0.0, safety=stability.DEFAULT_SAFETY, torque=0.0, check=True):
        self.method = ck.choice("method", method, stability.FIXED_STEP_METHODS)
        self.h = ck.positive("h", h)
        self.h_max = drive.max_stable_step(method, safety, torque)
        if check and self.h > self.h_max:
            raise ParameterError("h", h, f"must be <= {self.h_max:.6g} s, the stable step of "
                                         f"{method} for this drive (safety factor {safety:g})")
        self.drive = drive
        self.t = ck.real("t0", t0)
        self.y = [float(v) for v in full_initial_state(drive, x0, theta_out0, omega_out0)]
        self.tau_out = 0.0
        self._inv_J2 = 1.0 / drive.output_inertia
        self._kern = drive.rates_tuple
        self._advance = self._rk4 if method == "rk4" else self._euler

    @property
    def state(self):
        return np.array(self.y)

    @property
    def x(self):
        """The drive's own state [i, alpha1, Omega1, z]."""
        return np.array(self.y[:4])

    @property
    def theta_out(self):
        return self.y[4]

    @property
    def omega_out(self):
        return self.y[5]

    def _f(self, y0, y1, y2, y3, y4, y5, u, m):
        di, da, dw, dz, tau = self._kern(y0, y1, y2, y3, y4, y5, u)
        return di, da, dw, dz, y5, (tau + m) * self._inv_J2, tau

    def _euler(self, y, u, m, h):
        k = self._f(*y, u, m)
        self.tau_out = k[6]
        return [y[0] + h * k[0], y[1] + h * k[1], y[2] + h * k[2], y[3] + h * k[3],
                y[4] + h * k[4], y[5] + h * k[5]]

    def _rk4(self, y, u, m, h):
        f = self._f
        y0, y1, y2, y3, y4, y5 = y
        a = f(y0, y1, y2, y3, y4, y5, u, m)
        hh = 0.5 * h
        b = f(y0 + hh * a[0], y1 + hh * a[1], y2 + hh * a[2], y3 + hh * a[3], y4 + hh * a[4],
              y5 + hh * a[5], u, m)
        c = f(y0 + hh * b[0], y1 + hh * b[1], y2 + hh * b[2], y3 + hh * b[3], y4 + hh * b[4],
              y5 + hh * b[5], u, m)
        d = f(y0 + h * c[0], y1 + h * c[1], y2 + h * c[2], y3 + h * c[3], y4 + h * c[4],
              y5 + h * c[5], u, m)
        self.tau_out = a[6]
        h6 = h / 6.0
        return [y0 + h6 * (a[0] + 2.0 * (b[0] + c[0]) + d[0]),
                y1 + h6 * (a[1] + 2.0 * (b[1] + c[1]) + d[1]),
                y2 + h6 * (a[2] + 2.0 * (b[2] + c[2]) + d[2]),
                y3 + h6 * (a[3] + 2.0 * (b[3] + c[3]) + d[3]),
                y4 + h6 * (a[4] + 2.0 * (b[4] + c[4]) + d[4]),
                y5 + h6 * (a[5] + 2.0 * (b[5] + c[5]) + d[5])]

    def step(self, u, m_out=0.0):
        """Advance by h with the input u and the output torque M_out held. Returns tau_out
        at the start of the step. Raises SimulationError on NaN or divergence."""
        y = self._advance(self.y, float(u), float(m_out), self.h)
        s = abs(y[0]) + abs(y[1]) + abs(y[2]) + abs(y[3]) + abs(y[4]) + abs(y[5])
        if not s < DIVERGENCE_LIMIT:  # also catches NaN
            raise SimulationError(f"{self.method} step h = {self.h:g} s diverged", self.t)
        self.y = y
        self.t += self.h
        return self.tau_out


def simulate_fixed(drive, t_end, h, u=0.0, m_out=0.0, method="rk4", x0=None, theta_out0=0.0,
                   omega_out0=0.0, dt_out=None, safety=stability.DEFAULT_SAFETY, torque=0.0,
                   check=True):
    """Run a :class:`FixedStepDrive` from 0 to ``t_end`` and return a
    :class:`~chrono_flex.drive.simulate.DriveResult` sampled every ``dt_out`` (rounded to
    whole steps; default about 1000 points). The step used is t_end / ceil(t_end / h) <= h,
    so the run ends exactly at t_end. u, m_out: floats or callables of t, sampled at each
    step start."""
    t_end = ck.positive("t_end", t_end)
    h = ck.positive("h", h)
    n = max(1, math.ceil(t_end / h * (1.0 - 1e-12)))
    stepper = FixedStepDrive(drive, h, method, x0, theta_out0, omega_out0, 0.0, safety, torque,
                             check)
    stepper.h = t_end / n  # <= h: whole steps that end exactly at t_end
    every = 1 if dt_out is None else max(1, int(round(ck.positive("dt_out", dt_out) / stepper.h)))
    if dt_out is None:
        every = max(1, n // 1000)
    u_f = as_signal("u", u)
    m_f = as_signal("m_out", m_out)
    times, rows = [0.0], [list(stepper.y)]
    t0 = time.perf_counter()
    for k in range(1, n + 1):
        t = (k - 1) * stepper.h
        stepper.step(u_f(t), m_f(t))
        if k % every == 0 or k == n:
            times.append(k * stepper.h)
            rows.append(list(stepper.y))
    wall = time.perf_counter() - t0
    t_arr = np.array(times)
    states = np.array(rows)
    info = dict(method=f"fixed-step {method}", h=stepper.h, h_max=stepper.h_max, steps=n,
                wall_time=wall, us_per_step=1e6 * wall / n, drive=repr(drive), ratio=drive.ratio)
    outputs = collect_outputs(drive, t_arr, states, u_f, m_f)
    return DriveResult(t=t_arr, states=states, outputs=outputs,
                       info=info)
