"""A PD position servo on the gripper drive of Serebrenny et al. 2019 (docs/control.md §4):
the output encoder and tachometer feed u = kp (r - alpha2) - kd Omega2 (kd = 1 V s/rad);
the gear's play (theta_b = 1e-3 rad) makes the loop oscillate by itself.

Expected (the describing-function prediction, computed at import): without friction an
oscillation at kp = 1000 V/rad of output amplitude ~0.80 mrad and period ~19.5 ms (the
simulation gives 0.92 mrad and 22.5 ms: the prediction neglects a third harmonic of
relative size eps = 0.16); with [S]'s friction none at kp = 1000, one at kp = 3000;
with model-based friction compensation at kp = 1000 the oscillation comes back.

Run as a script (``python examples/control_servo_limit_cycle.py [DIR]``) to simulate the
four servos (about two minutes) and write ``control_servo_limit_cycle.png`` into DIR
(default: the current directory); its path is printed.
"""

import os
import sys

from chrono_flex.control import servo_limit_cycle
from chrono_flex.control.servo import T_SETTLE, oscillation, run_servo, servo_figure
from chrono_flex.drive import DriveParams

PLAY_ONLY = DriveParams.serebrenny2019(friction="none")
WITH_FRICTION = DriveParams.serebrenny2019()
KD = 1.0
#: (label, params, kp, compensate, friction in the prediction)
SERVOS = [("play only, kp = 1000", PLAY_ONLY, 1000.0, False, False),
          ("play + friction, kp = 1000", WITH_FRICTION, 1000.0, False, True),
          ("play + friction, kp = 3000", WITH_FRICTION, 3000.0, False, True),
          ("kp = 1000, friction compensated", WITH_FRICTION, 1000.0, True, False)]
predictions = {label: servo_limit_cycle(p, kp, KD, friction=fr)
               for label, p, kp, _, fr in SERVOS}


def output_path(name):
    folder = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.getcwd())
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, name)


if __name__ == "__main__":
    from chrono_flex.viz.plotting import draw_figure

    runs = []
    for label, p, kp, comp, _ in SERVOS:
        res = run_servo(p, kp, KD, compensate=comp)
        amp, period = oscillation(res.t, res.state("output_angle"), T_SETTLE)
        pred = predictions[label]
        df = (f"DF {1e3 * pred['output']:.3f} mrad, {1e3 * pred['period']:.1f} ms"
              if pred["exists"] else "DF: none")
        print(f"{label}: amplitude {1e3 * amp:.4f} mrad, period {1e3 * period:.1f} ms; {df}")
        runs.append((f"{label}\nsim {1e3 * amp:.3f} mrad; {df}", res, pred))
    path = output_path("control_servo_limit_cycle.png")
    draw_figure(servo_figure(runs, "PD servo on the [S] drive: output angle after the "
                             "transient"), path, size=(14, 4))
    print(f"wrote {path}")
