"""A position servo on the drive and the measures of its self-sustained oscillation
(the demonstrations of docs/control.md §4, shared by the validation cases and the
examples)."""

import math

import numpy as np

from ..drive import GearDrive, simulate_drive
from .controllers import PID, FrictionCompensation
from .sensors import Encoder, Tachometer


T_SETTLE = 0.6       #: s, the oscillation is measured after this (transient decayed)
#: rad: an output amplitude below this (1 % of [S]'s play, 1e-3 rad) counts as at rest
AT_REST = 1e-5


def servo(drive, kp, kd, setpoint=0.05, compensate=False, u_limit=24.0, period=0.0,
          counts=None):
    """The PD law u = kp (r - alpha2) - kd Omega2 on the output shaft (link-side encoder
    and tachometer; ``counts`` None: an ideal encoder), limited to +-``u_limit`` V,
    continuous or sampled; with ``compensate``, plus the drive's model-based friction
    compensation (:class:`~chrono_flex.control.FrictionCompensation`)."""
    kw = dict(period=period) if period else {}
    enc = Encoder(drive, counts or 2**40, **kw)
    tach = Tachometer(drive, **kw)
    law = PID(kp, 0.0, kd, setpoint=setpoint, sensor=enc, rate_sensor=tach, u_min=-u_limit,
              u_max=u_limit, period=period)
    return FrictionCompensation(law, drive, Tachometer(drive, **kw)) if compensate else law


def run_servo(params, kp, kd, t_end=1.0, compensate=False, dt_out=1e-4, setpoint=0.05):
    """simulate_drive of :func:`servo` from rest (LSODA: the run alternates stiff contact
    and free flight in the play; rtol 1e-7, steps of at most 1 ms)."""
    drive = GearDrive(params)
    law = servo(drive, kp, kd, setpoint=setpoint, compensate=compensate)
    return simulate_drive(drive, t_end, u=law, method="LSODA", rtol=1e-7, atol=1e-10,
                          dt_out=dt_out, max_step=1e-3)


def oscillation(t, y, t_from):
    """(amplitude, period) of y after t_from: half the peak-to-peak range, and the mean
    spacing of the upward crossings of its mean (NaN without two of them); the amplitude
    is 0 for a signal at rest."""
    t, y = np.asarray(t), np.asarray(y)
    sel = t >= t_from
    ts, ys = t[sel], y[sel]
    amp = 0.5 * float(ys.max() - ys.min())
    x = ys - ys.mean()
    up = np.nonzero((x[:-1] < 0.0) & (x[1:] >= 0.0))[0]
    if up.size < 3 or amp == 0.0:
        return amp, math.nan
    tc = ts[up] - x[up] * (ts[up + 1] - ts[up]) / (x[up + 1] - x[up])   # linear roots
    return amp, float(np.mean(np.diff(tc)))


def servo_figure(runs, title):
    """draw(fig) of servo runs side by side: ``runs`` = [(label, DriveResult, prediction
    of servo_limit_cycle)], the output angle after the transient with the predicted
    +-amplitude about its mean (for chrono_flex.viz.plotting.draw_figure or a
    validation case)."""
    def plot(fig):
        axes = fig.subplots(1, len(runs), squeeze=False)[0]
        for ax, (label, res, pred) in zip(axes, runs):
            t = res.t
            sel = t >= T_SETTLE - 0.1
            ax.plot(t[sel], 1e3 * res.state("output_angle")[sel], lw=0.8, label="simulated")
            if pred.get("exists"):
                mean = float(np.mean(res.state("output_angle")[t >= T_SETTLE]))
                for sgn in (1, -1):
                    ax.axhline(1e3 * (mean + sgn * pred["output"]), color="k", ls="--", lw=0.8,
                               label="describing function +-A" if sgn > 0 else None)
            ax.set_xlabel("t, s")
            ax.set_ylabel("output angle alpha2, mrad")
            ax.set_title(label, fontsize=8)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=6, loc="lower right")
        fig.suptitle(title, fontsize=9)
    return plot


__all__ = ["AT_REST", "T_SETTLE", "oscillation", "run_servo", "servo", "servo_figure"]
