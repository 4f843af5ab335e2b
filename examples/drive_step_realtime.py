"""A 12 V step on the gripper drive of Serebrenny et al. 2019 (docs/drive.md), simulated twice:
with the stiff reference solver (Radau) and with the real-time fixed-step RK4 at the step
bound the drive computes for itself ([S] eq. 29 generalised: T_min, L/R, gear mode).

Expected: the output settles near 9.22 rad/s within ~0.1 s (no-load speed
12 V / k_E / i = 9.46 rad/s, less the friction drop); the fixed-step run at
h = 0.93 us stays within ~1e-9 (relative) of the reference, at ~10 us of CPU per step.
"""

import numpy as np

from chrono_flex.drive import DriveParams, GearDrive, simulate_drive, simulate_fixed

T_END = 0.02
VOLTAGE = 12.0

drive = GearDrive(DriveParams.serebrenny2019())
h = drive.max_stable_step("rk4")
reference = simulate_drive(drive, T_END, u=VOLTAGE, rtol=1e-10, atol=1e-13)
realtime = simulate_fixed(drive, T_END, h, u=VOLTAGE, method="rk4")
speed_error = float(np.max(np.abs(realtime.outputs["output_speed"][-1]
                                  - reference.outputs["output_speed"][-1])))
end_speed = float(reference.outputs["output_speed"][-1])

if __name__ == "__main__":
    print(f"step bound h = {h:.3g} s, {realtime.info['steps']} steps, "
          f"{realtime.info['us_per_step']:.1f} us per step")
    print(f"output speed at {T_END} s: reference {end_speed:.6f} rad/s, "
          f"fixed-step error {speed_error:.2e} rad/s")
    long_run = simulate_drive(drive, 0.1, u=VOLTAGE)
    print(long_run.summary())
    long_run.plot("drive_step_realtime.png", title="12 V step, [S] drive")
