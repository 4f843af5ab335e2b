"""A 12 V step on the gripper drive of Serebrenny et al. 2019 (docs/drive.md), simulated twice:
with the stiff reference solver (Radau) and with the real-time fixed-step RK4 at the step
bound the drive computes for itself ([S] eq. 29 generalised: T_min, L/R, gear mode).

Expected: the output settles near 9.22 rad/s within ~0.1 s (no-load speed
12 V / k_E / i = 9.46 rad/s, less the friction drop); the fixed-step run at
h = 0.93 us stays within ~1e-9 (relative) of the reference, at ~10 us of CPU per step.

Run as a script (``python examples/drive_step_realtime.py [DIR]``) to also write the
figure of a 0.1 s run, ``drive_step_realtime.png``, into DIR (default: the current
directory); its path is printed.
"""

import os
import sys

import numpy as np

from chrono_flex.drive import DriveParams, GearDrive, simulate_drive, simulate_fixed

T_END = 0.02        # s
VOLTAGE = 12.0      # V


def output_path(name):
    """Where the script writes ``name``: the directory given as its first argument, else
    the current directory (made if missing), as an absolute path to print."""
    folder = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.getcwd())
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, name)


drive = GearDrive(DriveParams.serebrenny2019())
h = drive.max_stable_step("rk4")
reference = simulate_drive(drive, T_END, drive_input=VOLTAGE, rtol=1e-10, atol=1e-13)
realtime = simulate_fixed(drive, T_END, h, u=VOLTAGE, method="rk4")
speed_error = float(np.max(np.abs(realtime.outputs["output_speed"][-1]
                                  - reference.outputs["output_speed"][-1])))
end_speed = float(reference.outputs["output_speed"][-1])

if __name__ == "__main__":
    print(f"step bound h = {h:.3g} s, {realtime.info['steps']} steps, "
          f"{realtime.info['us_per_step']:.1f} us per step")
    print(f"output speed at {T_END} s: reference {end_speed:.6f} rad/s, "
          f"fixed-step error {speed_error:.2e} rad/s")
    long_run = simulate_drive(drive, 0.1, drive_input=VOLTAGE)
    print(long_run.summary())
    path = output_path("drive_step_realtime.png")
    long_run.plot(path, title="12 V step, [S] drive")
    print(f"wrote {path}")
