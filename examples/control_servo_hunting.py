"""Hunting of a PID position servo on the gripper drive of Serebrenny et al. 2019 and
model-based friction compensation (docs/control.md §4.1).

The drive is [S]'s without play, its friction falling from Ms to Mc at low speed
(Stribeck speed 1e-3 rad/s, bristle stiffness 1e6 N m/rad: ``hunting_params``). The law
u = kp (r - alpha2) + ki int (r - alpha2) dt - kd Omega2 (kp = 1000 V/rad, kd = 3 V s/rad)
reads an ideal output encoder and tachometer; the setpoint is 0.05 rad.

Expected (t from 1 to 2 s; one count of a 2^20-count encoder is 6.0e-6 rad):

* PD (ki = 0): the output sticks 0.25 mrad short of the setpoint, no cycle;
* PID, ki = 1e5 V/(rad s): hunting, a stick-slip square wave of +-0.037 mrad (6 counts)
  and period 0.33 s: the integrator winds up while the output sticks, the friction falls
  after breakaway and the output overshoots the setpoint;
* the same PID on [S]'s own friction curve (Stribeck speed 10.47 rad/s, bristles
  100 N m/rad): no hunting, the friction does not fall at the servo's slip speeds;
* with the steady-state (Stribeck-curve) compensation or the LuGre-observer
  compensation the hunting shrinks (to 0.013 mrad, 10 ms and 0.022 mrad, 40 ms) but a
  faster cycle stays: the compensating torque reaches the output through the motor
  inertia and the gear spring, slower than the breakaway.

Run as a script (``python examples/control_servo_hunting.py [DIR]``) to simulate the five
servos (several minutes) and write ``control_servo_hunting.png`` into DIR (default: the
current directory); its path is printed.
"""

import os
import sys

from chrono_flex.control.servo import (HUNT_THRESHOLD, T_HUNT, hunting_figure, hunting_params,
                                       oscillation, run_pid_servo)
from chrono_flex.drive import DriveParams

KP, KI, KD = 1000.0, 1e5, 3.0
HUNTING = hunting_params()
#: (label, params, ki, compensation)
SERVOS = [("PD (ki = 0)", HUNTING, 0.0, None),
          ("PID, ki = 1e5", HUNTING, KI, None),
          ("PID, [S]'s friction curve", DriveParams.serebrenny2019(theta_b=0.0), KI, None),
          ("PID + steady-state compensation", HUNTING, KI, "steady"),
          ("PID + LuGre-observer compensation", HUNTING, KI, "dynamic")]
#: the presliding range Ms/sigma0 of both frictions, rad (the hunting's must be far below
#: its amplitude, [S]'s swallows it)
PRESLIDING = {"hunting": HUNTING.Ms / HUNTING.sigma0,
              "[S]": DriveParams.serebrenny2019().Ms / DriveParams.serebrenny2019().sigma0}


def output_path(name):
    folder = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.getcwd())
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, name)


if __name__ == "__main__":
    from chrono_flex.viz.plotting import draw_figure

    runs = []
    for label, p, ki, comp in SERVOS:
        res = run_pid_servo(p, KP, ki, KD, compensate=comp)
        amp, period = oscillation(res.t, res.state("output_angle"), T_HUNT)
        print(f"{label}: half peak-to-peak {1e3 * amp:.4f} mrad "
              f"({amp / HUNT_THRESHOLD:.2f} counts), period {1e3 * period:.0f} ms", flush=True)
        runs.append((f"{label}: {1e3 * amp:.4f} mrad"
                     + (f", period {1e3 * period:.0f} ms" if amp > HUNT_THRESHOLD else ""), res))
    path = output_path("control_servo_hunting.png")
    draw_figure(hunting_figure(runs, "PID servo on the [S] drive (friction falling at 1e-3 "
                               "rad/s): error r - alpha2"), path, size=(9, 10))
    print(f"wrote {path}")
