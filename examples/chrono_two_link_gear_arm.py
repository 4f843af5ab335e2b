"""A two-link flexible arm driven through two gear drives, next to a geared turntable,
all inside one Chrono system.

Problem: Bien's two-link arm (links of 1 m and 0.5 m, one element each, payload
0.15 kg, cases.py "bien-2link") lies in a horizontal plane above a fixed rigid table.
Both joints are driven through the gripper drive of Serebrenny et al. 2019 (DC motor,
ratio 28, elastic gear with backlash, modified LuGre friction): +1.5 V on the shoulder
and -1.0 V on the elbow, each ramped in smoothly over 50 ms. The arm is a
:class:`chrono_flex.chrono.FlexibleLink`; its drives join it through
``add_joint_actuator`` (scaled as in the chrono engine). A rigid box (the "tool")
follows the arm's deformed tip frame. Beside the arm a rigid turntable (a cylinder of
inertia 0.0021 kg m^2, the drive's J2) turns on a revolute joint to the table, driven
by a third drive through :class:`chrono_flex.chrono.GearDriveLink` at 1.0 V.
Gravity is off (the arm's plane is horizontal, so gravity does no work in it).

Expected result: the shoulder turns forwards and the elbow backwards (the signs of the
voltages), and the joint angles are those of the reference engine (the same arm and
drives integrated by scipy's Radau) to the integrator's accuracy (~1e-4 of the angle at
a 0.5 ms step); the turntable spins up forwards.

Needs PyChrono (without it the script says so and exits with status 1). Run as a script
(``python examples/chrono_two_link_gear_arm.py [DIR]``) to write
``chrono_two_link_gear_arm.png`` into DIR (default: the current directory); its path is
printed.
"""

import math
import os
import sys

import numpy as np

from chrono_flex import scenarios
from chrono_flex.engines import pychrono_available
from chrono_flex.errors import PyChronoUnavailable
from chrono_flex.planar.arm import PlanarArm
from chrono_flex.drive import DriveParams, GearDrive
from chrono_flex.planar.params import Payload

TURNTABLE_VOLTAGE = 1.0  # V
VOLTAGES = (1.5, -1.0)   # V, shoulder and elbow
T_RAMP = 0.05            # s


def output_path(name):
    """Where the script writes ``name``: the directory given as its first argument, else
    the current directory (made if missing), as an absolute path to print."""
    folder = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.getcwd())
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, name)


def voltages(t):
    """Both drive inputs (V): (1 - cos)/2 ramps to VOLTAGES over T_RAMP."""
    s = 0.5 - 0.5 * math.cos(math.pi * t / T_RAMP) if t < T_RAMP else 1.0
    return [s * v for v in VOLTAGES]


def build_arm():
    drive = GearDrive(DriveParams.serebrenny2019())
    return PlanarArm([scenarios.bien_link(1.0, 1), scenarios.bien_link(0.5, 1)],
                     payload=Payload(0.15), drives={0: drive, 1: drive})


def run(t_end=0.2, step=5e-4, reference=True):
    """Simulate the scene; returns a dict of numbers (see the module docstring).

    Keys: t (s), joint_angles (nt, 2) rad, currents (nt, 2) A, tip (nt, 3) world tip
    position (m, the tool box follows it), turntable_angle (nt,) rad; with
    ``reference``: reference_joint_angles (nt, 2), the same arm and inputs in the
    reference engine (Radau). PyChronoUnavailable without PyChrono.
    """
    ok, why = pychrono_available()
    if not ok:
        raise PyChronoUnavailable(f"this example builds a Chrono system and needs PyChrono "
                                  f"({why})")
    import pychrono as chrono

    from chrono_flex.chrono import (FlexibleLink, GearDriveLink, configure_system, quiet_swig,
                                    step as do_step)
    from chrono_flex.chrono.drive import ScaledDrive

    arm = build_arm()
    system = chrono.ChSystemNSC()
    system.SetGravitationalAcceleration(chrono.ChVector3d(0, 0, 0))
    configure_system(system)

    table = chrono.ChBodyEasyBox(2.0, 2.0, 0.05, 1000.0, True, False)   # rigid, fixed
    table.SetPos(chrono.ChVector3d(0.5, 0.0, -0.1))
    table.SetFixed(True)
    system.Add(table)
    link = FlexibleLink(system, arm, jacobian="iteration")    # plane XY at the origin
    scaled = [ScaledDrive(arm.drives[j]) for j in (0, 1)]
    for j, d in enumerate(scaled):
        link.add_joint_actuator(j, d, lambda t, j=j: voltages(t)[j])
    tool = chrono.ChBodyEasyBox(0.04, 0.02, 0.02, 1000.0, True, False)   # follows the tip
    tool.SetFixed(True)
    system.Add(tool)

    J2 = arm.drives[0].output_inertia
    turntable = chrono.ChBodyEasyCylinder(chrono.ChAxis_Z, 0.1, 0.02, 1000.0, True, False)
    turntable.SetMass(2.0 * J2 / 0.1 ** 2)                    # J = m r^2 / 2 = J2
    turntable.SetInertiaXX(chrono.ChVector3d(J2, J2, J2))
    turntable.SetPos(chrono.ChVector3d(0.5, -0.6, 0.0))
    system.Add(turntable)
    axis = chrono.ChFramed(chrono.ChVector3d(0.5, -0.6, 0.0))
    table_drive = GearDriveLink(system, table, turntable, axis, GearDrive(arm.drives[0].params),
                                drive_input=TURNTABLE_VOLTAGE)

    every = max(1, int(round(0.005 / step)))
    rows = []

    def sample():
        x = [d.unscale(y) for d, y in zip(scaled, link.actuator_states())]
        tip = link.tip_frame()
        p = tip.GetPos()
        rows.append([system.GetChTime(), *link.joint_angles(), x[0][0], x[1][0],
                     p.x, p.y, p.z, table_drive.angle()])

    sample()
    with quiet_swig():
        for k in range(1, int(round(t_end / step)) + 1):
            do_step(system, step)
            tip = link.tip_frame()
            tool.SetCoordsys(tip.GetCoordsys())
            if k % every == 0:
                sample()
    a = np.array(rows)
    out = dict(t=a[:, 0], joint_angles=a[:, 1:3], currents=a[:, 3:5], tip=a[:, 5:8],
               turntable_angle=a[:, 8])
    if reference:
        ref = arm.simulate(out["t"][-1], drive_input=voltages, dt_out=out["t"][1],
                           method="Radau", rtol=1e-8, atol=1e-10)
        out["reference_joint_angles"] = ref.joint_angles
    return out


def main():
    try:
        res = run()
    except PyChronoUnavailable as exc:
        sys.exit(f"{os.path.basename(__file__)}: {exc}")
    t = res["t"]
    deg = lambda a: ", ".join(f"{x:+.4f}" for x in np.degrees(a))  # noqa: E731
    print(f"two-link gear arm beside a geared turntable, {t[-1]:.3g} s simulated")
    print(f"joint angles at the end: {deg(res['joint_angles'][-1])} deg "
          f"(reference engine, fixed base: {deg(res['reference_joint_angles'][-1])} deg)")
    print("motor currents at the end: "
          + ", ".join(f"{i:+.4f}" for i in res["currents"][-1]) + " A")
    print("tip at the end: (" + ", ".join(f"{x:.4f}" for x in res["tip"][-1]) + ") m; "
          f"turntable: {res['turntable_angle'][-1]:+.4f} rad")
    from matplotlib import pyplot as plt

    fig, ax = plt.subplots(3, 1, sharex=True, figsize=(7, 7))
    ax[0].plot(t, res["joint_angles"], label=["shoulder", "elbow"])
    ax[0].plot(t, res["reference_joint_angles"], "k:", label="fixed base (reference)")
    ax[0].set_ylabel("joint angle, rad")
    ax[1].plot(t, res["currents"])
    ax[1].set_ylabel("motor current, A")
    ax[2].plot(t, res["turntable_angle"])
    ax[2].set_ylabel("turntable, rad")
    ax[2].set_xlabel("t, s")
    for a in ax:
        a.grid(True, alpha=0.3)
    ax[0].legend(fontsize=8)
    path = output_path("chrono_two_link_gear_arm.png")
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
