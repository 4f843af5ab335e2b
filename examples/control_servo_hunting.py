"""Hunting of a PID position servo on the gripper drive of Serebrenny et al. 2019 and
model-based friction compensation through the gear (docs/control.md §4.1).

The drive is [S]'s without play, its friction falling from Ms to Mc at low speed
(Stribeck speed 1e-3 rad/s, bristle stiffness 1e4 N m/rad: ``hunting_params``). The law
u = kp (r - alpha2) + ki int (r - alpha2) dt - kd Omega2 (kp = 300 V/rad, ki = 1e4
V/(rad s), kd = 1 V s/rad) reads an ideal output encoder and tachometer; the setpoint is
0.05 rad.

Expected (t from 1.5 to 3 s; one count of a 2^20-count encoder is 6.0e-6 rad):

* PD (ki = 0): the output sticks 0.06 mrad past the setpoint, no cycle;
* PID: hunting, a stick-slip square wave of +-0.098 mrad (16 counts), period ~1.3 s: the
  integrator winds up while the output sticks, the friction falls after breakaway and
  the output overshoots the setpoint;
* the same PID on [S]'s own friction curve (Stribeck speed 10.47 rad/s, bristles
  100 N m/rad): no hunting, the friction does not fall at the servo's slip speeds;
* PID + the steady-state (Stribeck-curve) compensation: a faster cycle of its own (the
  Coulomb level switched with the sign of the inner law at rest is a relay);
* PID + the LuGre-observer compensation: no hunting (below 0.01 count): the friction
  falls at breakaway in ~1.9 ms (:func:`breakaway_fall_time`), slower than the gear
  passes the compensating torque to the output (1.35 ms, :func:`gear_lag`).

The map (the right-hand panel) repeats the PID with and without the observer
compensation for bristle stiffnesses from 3e3 to 1e6 N m/rad: with stiffer bristles the
fall at breakaway is faster than the gear's lag and the compensation leaves a cycle of
about 2 to 3 counts; with softer ones (3e3) the PID's stick-slip dies out (1.5 counts
still from 1.5 to 3 s, falling).

Run as a script (``python examples/control_servo_hunting.py [DIR]``) to simulate the
servos and the map (about fifteen minutes) and write ``control_servo_hunting.png`` into DIR
(default: the current directory); its path is printed.
"""

import os
import sys

import numpy as np

from chrono_flex.control.servo import (HUNT_GAINS, HUNT_THRESHOLD, T_HUNT, breakaway_fall_time,
                                       gear_lag, hunting_params, oscillation, plot_hunting,
                                       run_pid_servo)
from chrono_flex.drive import DriveParams

KP, KI, KD = HUNT_GAINS
HUNTING = hunting_params()
#: (label, params, ki, compensation)
SERVOS = [("PD (ki = 0)", HUNTING, 0.0, None),
          ("PID, ki = 1e4", HUNTING, KI, None),
          ("PID, [S]'s friction curve", DriveParams.serebrenny2019(theta_b=0.0), KI, None),
          ("PID + steady-state compensation", HUNTING, KI, "steady"),
          ("PID + LuGre-observer compensation", HUNTING, KI, "dynamic")]
#: the presliding range Ms/sigma0 of both frictions, rad (the hunting's must be far below
#: its amplitude, [S]'s swallows it)
PRESLIDING = {"hunting": HUNTING.Ms / HUNTING.sigma0,
              "[S]": DriveParams.serebrenny2019().Ms / DriveParams.serebrenny2019().sigma0}
#: bristle stiffnesses of the map, N m/rad
MAP_SIGMA0 = (3e3, 1e4, 2e4, 3e4, 1e5, 1e6)
#: the fall time at breakaway and the gear's lag of the demonstration's drive, s
FALL_TIME, GEAR_LAG = breakaway_fall_time(HUNTING), gear_lag(HUNTING)


def output_path(name):
    folder = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.getcwd())
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, name)


def counts(params, ki, comp):
    """The hunting's half peak-to-peak after T_HUNT, in counts of the 2^20 encoder, and
    its period (s; NaN with fewer than three upward crossings in the window)."""
    res = run_pid_servo(params, KP, ki, KD, compensate=comp)
    amp, period = oscillation(res.t, res.state("output_angle"), T_HUNT)
    return res, amp / HUNT_THRESHOLD, period


def plot_map(ax, sigma0s, table):
    """The map on matplotlib axes ``ax``: counts against sigma0, PID and PID + observer
    compensation, and the sigma0 where the fall time at breakaway equals the gear's lag."""
    floor = 1e-3                       # a run at rest is drawn on the floor
    for key, style, label in (("pid", "o-", "PID"),
                              ("comp", "s--", "PID + LuGre-observer compensation")):
        ax.semilogx(sigma0s, np.maximum(floor, table[key]), style, label=label)
    ax.set_yscale("log")
    ax.axhline(1.0, color="k", lw=0.8, ls=":", label="1 count (hunting seen above)")
    s_star = [s for s in np.logspace(3, 6, 400)
              if breakaway_fall_time(hunting_params(sigma0=s)) < GEAR_LAG][0]
    ax.axvline(s_star, color="0.5", lw=0.8,
               label="fall time at breakaway = gear's lag (%.2g N m/rad)" % s_star)
    ax.axvline(HUNTING.sigma0, color="C2", lw=0.8, ls="-.", label="the demonstration")
    ax.set_ylim(floor / 2, 100.0)
    ax.set_xlabel("bristle stiffness sigma0, N m/rad")
    ax.set_ylabel("half peak-to-peak after 1.5 s, counts of 2^20")
    ax.set_title("hunting against the bristles' stiffness (Stribeck speed 1e-3 rad/s; "
                 "below 1e-3 count drawn at 1e-3)", fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6, loc="center right")


if __name__ == "__main__":
    from chrono_flex.viz.plotting import draw_figure

    print(f"fall time at breakaway {1e3 * FALL_TIME:.2f} ms, gear's lag {1e3 * GEAR_LAG:.2f} ms")
    runs = []
    for label, p, ki, comp in SERVOS:
        res, n, period = counts(p, ki, comp)
        shown = ("below one count: no hunting" if n < 1.0 else f"period {1e3 * period:.0f} ms"
                 if period == period else "period longer than half the window")
        print(f"{label}: {n:.3g} counts, {shown}", flush=True)
        runs.append((f"{label}: {n:.3g} counts", res))
    table = {"pid": [], "comp": []}
    for s0 in MAP_SIGMA0:
        p = hunting_params(sigma0=s0)
        for key, comp in (("pid", None), ("comp", "dynamic")):
            table[key].append(counts(p, KI, comp)[1])
        print(f"sigma0 = {s0:g} N m/rad (fall {1e3 * breakaway_fall_time(p):.2f} ms): PID "
              f"{table['pid'][-1]:.3g} counts, compensated {table['comp'][-1]:.3g} counts",
              flush=True)
    table = {k: np.array(v) for k, v in table.items()}

    def plot(fig):
        grid = fig.add_gridspec(len(runs), 2, width_ratios=(1.2, 1.0))
        column = [fig.add_subplot(grid[0, 0])]
        column += [fig.add_subplot(grid[k, 0], sharex=column[0]) for k in range(1, len(runs))]
        plot_hunting(column, runs)
        plot_map(fig.add_subplot(grid[:, 1]), np.array(MAP_SIGMA0), table)
        fig.suptitle("PID servo on the [S] drive without play, friction falling at 1e-3 "
                     "rad/s: error r - alpha2 (bristles 1e4 N m/rad), and the hunting "
                     "against the bristles' stiffness", fontsize=9)

    path = output_path("control_servo_hunting.png")
    draw_figure(plot, path, size=(15, 9))
    print(f"wrote {path}")
