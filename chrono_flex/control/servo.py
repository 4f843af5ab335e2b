"""A position servo on the drive and the measures of its self-sustained oscillation
(the demonstrations of docs/control.md §4 and §4.1, shared by the validation cases and
the examples)."""

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
    return simulate_drive(drive, t_end, drive_input=law, method="LSODA", rtol=1e-7, atol=1e-10,
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


#: rad: hunting is seen when the output's half peak-to-peak exceeds one count of a
#: 2^20-count encoder on the output (6.0e-6 rad: what the servo's own sensor could show);
#: the integrator's error, rtol 1e-5 of the 0.05 rad setpoint (5e-7 rad), is 12 times below
HUNT_THRESHOLD = 2 * math.pi / 2**20
#: the PID of the hunting demonstration, u = kp e + ki int e dt - kd Omega2: kp (V/rad),
#: ki (V/(rad s)), kd (V s/rad); without friction its loop's slow pair has the damping
#: ratio 0.40 at 19 Hz (servo_matrix with the integrator)
HUNT_GAINS = (300.0, 1e4, 1.0)
T_HUNT = 1.5         #: s, hunting is measured after this (the step's transient decayed)
T_HUNT_END = 3.0     #: s, the end of the runs: the window holds more than one hunting period


def hunting_params(**changes):
    """[S]'s drive (``DriveParams.serebrenny2019``) without play, its friction falling
    from Ms to Mc at low speed: Stribeck speed 1e-3 rad/s (instead of [S]'s 10.47 rad/s,
    which no slip of the servo reaches) and bristle stiffness 1e4 N m/rad (presliding
    Ms/sigma0 = 4.7 urad, below one count of the 2^20 encoder, instead of 0.47 mrad with
    [S]'s 100 N m/rad, which would swallow the stick-slip); ``changes`` applied after.

    The bristle stiffness also sets how fast the friction falls at breakaway: the output
    slides about Ms/sigma0 before the bristles let go, which at the breakaway
    acceleration takes ~2 ms here, longer than the gear's lag to a motor torque (its
    mode with the output held, sqrt(c/(J1 i^2)) = 1161 rad/s): the regime where a
    compensation through the gear removes the hunting (docs/control.md §4.1)."""
    from ..drive import DriveParams
    values = dict(theta_b=0.0, Omega2s=1e-3, sigma0=1e4)
    values.update(changes)
    return DriveParams.serebrenny2019(**values)


def breakaway_fall_time(params):
    """Time (s) the LuGre friction of ``params`` takes to fall from Ms towards Mc after
    breakaway, estimated as the time the output needs to slide the bristles' presliding
    range Ms/sigma0 (Canudas de Wit et al. 1995, sec. II: the bristles let go over that
    deflection) under the torque the fall itself frees, dM = (1 + K_ML Ms)(Ms - Mc), on
    the output and the motor's inertia behind the gear, J = J2 + J1 i^2:

        t_f = sqrt(2 (Ms/sigma0) / a),   a = dM / J

    or the time to reach the Stribeck speed, Omega2s / a, when that is longer. An order
    of magnitude (the integral action and the gear's spring are left out), to compare
    with :func:`gear_lag`."""
    p = params
    a = (1.0 + p.K_ML * p.Ms) * (p.Ms - p.Mc) / (p.J2 + p.J1 * p.ratio ** 2)
    return max(math.sqrt(2.0 * p.Ms / (p.sigma0 * a)), p.Omega2s / a)


def gear_lag(params):
    """Quarter period (s) of the mode through which a motor torque reaches the gear's
    output while the output sticks: the motor inertia on the gear spring, w_g =
    sqrt(c / (J1 i^2)) ([S] eqs. 13-15, output held), t_g = pi / (2 w_g); a change of the
    motor torque is felt at the output after about t_g."""
    p = params
    return 0.5 * math.pi / math.sqrt(p.c / (p.J1 * p.ratio ** 2))


def pid_servo(drive, kp, ki, kd, setpoint=0.05, compensate=None, u_limit=24.0):
    """u = kp e + ki int e - kd Omega2 (continuous, ideal output encoder and tachometer),
    limited to +-``u_limit`` V; ``compensate`` None, "steady" or "dynamic": plus the
    drive's model-based friction compensation of that model."""
    law = PID(kp, ki, kd, setpoint=setpoint, sensor=Encoder(drive, 2**40),
              rate_sensor=Tachometer(drive), u_min=-u_limit, u_max=u_limit)
    if compensate is None:
        return law
    return FrictionCompensation(law, drive, Tachometer(drive), model=compensate)


def run_pid_servo(params, kp, ki, kd, t_end=T_HUNT_END, compensate=None, dt_out=2e-4,
                  setpoint=0.05):
    """simulate_drive of :func:`pid_servo` from rest (LSODA, rtol 1e-5, steps of at most
    10 ms; the hunting's amplitude agrees with rtol 1e-6 and 1 ms steps to 1e-5 of
    itself, and the stick-slip events, not the tolerance, set the cost)."""
    drive = GearDrive(params)
    law = pid_servo(drive, kp, ki, kd, setpoint=setpoint, compensate=compensate)
    return simulate_drive(drive, t_end, drive_input=law, method="LSODA", rtol=1e-5,
                          atol=1e-10, dt_out=dt_out, max_step=1e-2)


def hunting_figure(runs, title, setpoint=0.05):
    """draw(fig) of PID servo runs one above the other (:func:`plot_hunting` on a column
    of axes)."""
    def plot(fig):
        plot_hunting(fig.subplots(len(runs), 1, sharex=True, squeeze=False)[:, 0], runs,
                     setpoint)
        fig.suptitle(title, fontsize=9)
    return plot


def plot_hunting(axes, runs, setpoint=0.05):
    """On a column of matplotlib axes, one per run of ``runs`` = [(label, DriveResult)]:
    the output's error r - alpha2 in mrad with the detection threshold
    +-:data:`HUNT_THRESHOLD` shaded and the start of the measurement, :data:`T_HUNT`."""
    for ax, (label, res) in zip(axes, runs):
        e = setpoint - res.state("output_angle")
        ax.plot(res.t, 1e3 * e, lw=0.8)
        ax.axhspan(-1e3 * HUNT_THRESHOLD, 1e3 * HUNT_THRESHOLD, color="0.85", lw=0,
                   label="detection threshold (1 count of 2^20)")
        ax.axvline(T_HUNT, color="k", ls=":", lw=0.8,
                   label="measured from here" if ax is axes[0] else None)
        ax.set_ylim(-0.15, 0.15)
        ax.set_ylabel("r - alpha2, mrad", fontsize=7)
        ax.set_title(label, fontsize=8)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=6, loc="upper right")
    axes[-1].set_xlabel("t, s")


__all__ = ["AT_REST", "HUNT_GAINS", "HUNT_THRESHOLD", "T_HUNT", "T_HUNT_END", "T_SETTLE",
           "breakaway_fall_time", "gear_lag", "hunting_figure", "hunting_params",
           "oscillation", "pid_servo", "plot_hunting", "run_pid_servo", "run_servo", "servo",
           "servo_figure"]
