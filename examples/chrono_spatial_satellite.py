"""A satellite bus in free space turning two flexible booms (the spatial custom element).

A bus (50 kg, principal inertias 5, 5, 4 kg m^2) floats in Chrono without gravity. On it
a hub (0.5 kg m^2 about its axis) turns about the bus's z axis, driven by a motor
torque between bus and hub: 0.4 sin(pi t / 3) N m for 6 s (a smooth spin-up, then a
brake), then none. The hub carries two
identical 2 m booms at 180 degrees that bend in both planes and twist
(:class:`chrono_flex.spatial.SpatialLink`, 4 elements each). The whole arm is one
:class:`chrono_flex.chrono.SpatialFlexibleLink` on the moving bus, so the motor's
reaction turns the bus the other way and the booms' bending acts on it.

What it prints, and what physics says it must be:

* the bus turns opposite to the hub (its z rate is minus the motor's angular impulse
  over its inertia: the revolute joint passes no other moment about z), and the total
  angular momentum about the world
  origin (bus + arm, from the element's mass matrix: docs/spatial-link.md §7) stays at
  its initial value, zero, to the integrator's accuracy;
* the work of the motor equals the energy the bus and the arm hold at the end
  (kinetic + elastic), to the same accuracy;
* the booms bend in the plane of rotation while the hub accelerates (peak tip
  deflections of a few millimetres) and ring after the torque reverses.

Run: ``python examples/chrono_spatial_satellite.py`` (needs PyChrono).
"""

import os
import sys

import numpy as np

from chrono_flex.chrono import SpatialFlexibleLink, quiet_swig, step
from chrono_flex.chrono.attachment import body_kinetic_energy, body_state
from chrono_flex.chrono.scenes import free_body, new_system
from chrono_flex.errors import PyChronoUnavailable
from chrono_flex.spatial import (FixedJoint, RevoluteJoint, RigidBody, SpatialArm,
                                 SpatialLink, turned)

BUS_MASS, BUS_INERTIA = 50.0, (5.0, 5.0, 4.0)
HUB_INERTIA, HUB_RADIUS, TORQUE, T_HALF = 0.5, 0.3, 0.4, 3.0
STEP, T_END = 5e-3, 8.0


def boom():
    """A 2 m boom: an aluminium-like tube, 6.9 N m^2 in both planes, light torsion."""
    return SpatialLink(2.0, 4, EI_y=6.9, EI_z=6.9, GJ=5.2, rho_A=0.35, rho_Ip=1.2e-4)


def satellite_arm():
    hub = RigidBody(2.0, (0.5 * HUB_INERTIA, 0.5 * HUB_INERTIA, HUB_INERTIA))
    back_x, back_y = turned(np.pi)
    joints = [RevoluteJoint(axis=(0, 0, 1)),
              FixedJoint(offset=(HUB_RADIUS, 0, 0)),
              FixedJoint(offset=(-HUB_RADIUS, 0, 0), x_axis=back_x, y_axis=back_y)]
    return SpatialArm([hub, boom(), boom()], joints, parents=[-1, 0, 0])


def motor_torque(t):
    """Continuous in time: a torque that jumps costs the trapezoidal rule an O(h) error
    in the work at each jump (it averages the two sides over the step)."""
    return TORQUE * np.sin(np.pi * t / T_HALF) if t < 2 * T_HALF else 0.0


def angular_momentum(element, bus):
    """Total angular momentum about the world origin, N m s: the bus's own and the arm's
    (its momentum rows M w: forces in the world, moments about the bus's origin in the
    bus's axes)."""
    p, A, v, w = body_state(bus)
    momentum = element.mass_matrix() @ np.concatenate([v, w, element.qd()])
    own = A @ (np.diag(BUS_INERTIA) @ w) + np.cross(p, BUS_MASS * v)
    return own + A @ momentum[3:6] + np.cross(p, momentum[0:3])


def run(t_end=T_END, h=STEP):
    system = new_system()
    bus = free_body(system, BUS_MASS, BUS_INERTIA, (0.0, 0.0, 0.0))
    arm = satellite_arm()
    element = SpatialFlexibleLink(system, arm, parent_body=bus,
                                  torque=lambda t, q, qd: [motor_torque(t)])
    # the bus is free: start it with its consistent acceleration too (the motor's
    # reaction), or the first step leaves a momentum error of the torque times h / 2
    element.initialize_accelerations(include_parent=True)
    out = dict(t=[0.0], bus_rate=[0.0], hub_rate=[0.0], tips=[np.zeros(2)],
               momentum=[angular_momentum(element, bus)], work=[0.0], arm_momentum=[0.0])
    power = 0.0
    with quiet_swig():
        for k in range(int(round(t_end / h))):
            step(system, h)
            t = system.GetChTime()
            w_bus = bus.GetAngVelLocal().z
            rate = element.joint_rates()[0]
            # the motor's power on the relative rotation, by the trapezoidal rule
            new_power = motor_torque(t) * rate
            out["work"].append(out["work"][-1] + 0.5 * h * (power + new_power))
            power = new_power
            out["t"].append(t)
            out["bus_rate"].append(w_bus)
            out["hub_rate"].append(w_bus + rate)
            vw = element.tip_coordinates()
            out["tips"].append(vw[:, 0])
            out["momentum"].append(angular_momentum(element, bus))
            out["arm_momentum"].append(BUS_INERTIA[2] * -w_bus)
    out = {k: np.array(v) for k, v in out.items()}
    kinetic, elastic, _ = element.energy()
    out["energy"] = kinetic + elastic + body_kinetic_energy(bus)
    out["element"] = element
    return out


if __name__ == "__main__":
    try:
        r = run()
    except PyChronoUnavailable as exc:
        sys.exit(f"{os.path.basename(__file__)}: {exc}")
    H = np.linalg.norm(r["momentum"], axis=1)
    print(f"bus spin at the end {r['bus_rate'][-1]:+.5f} rad/s, hub spin "
          f"{r['hub_rate'][-1]:+.5f} rad/s (world z)")
    print(f"peak bus spin {r['bus_rate'].min():+.4f} rad/s while the hub reached "
          f"{r['hub_rate'].max():+.4f} rad/s")
    print(f"peak in-plane tip deflection of the booms {np.abs(r['tips']).max() * 1e3:.2f} mm")
    print(f"angular momentum: largest |H| over the run {H.max():.2e} N m s "
          f"(the arm's largest angular momentum about z {np.max(np.abs(r['arm_momentum'])):.3f} N m s)")
    print(f"motor work {r['work'][-1]:.6f} J, energy held at the end {r['energy']:.6f} J")
