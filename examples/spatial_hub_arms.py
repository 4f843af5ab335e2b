"""A free hub carrying two flexible arms at 180 degrees (docs/spatial-link.md §5.3).

The hub (inertia 0.05 kg m^2 about z) turns freely about z; each arm (L = 1.2 m,
EI_z = 1.2 and EI_y = 3.0 N m^2, GJ = 0.8 N m^2, rho_A = 0.5 kg/m, rho_Ip = 2e-3 kg m,
8 elements) is welded to it at 0.1 m from the axis. Expected:

* the modes that leave the hub still are clamped-free: in the plane 0.60 Hz and 3.77 Hz
  (EI_z; the arms bending opposite ways round, once), out of the plane 0.95 Hz and
  5.97 Hz (EI_y) and twist 4.17 Hz (each twice: the arms in and out of phase);
* the modes that turn the hub (both arms bending the same way round) follow the
  hub-and-links equation with two links: 1.737 Hz and 4.720 Hz.

Run as a script, it also spins the hub up with a torque of 0.01 N m for 0.5 s, with 4
elements per arm (seconds rather than minutes), and prints the arms' tip deflections.
"""

import math

import numpy as np

from chrono_flex.spatial import FixedJoint, RevoluteJoint, RigidBody, SpatialArm, SpatialLink, turned
from chrono_flex.spatial.closed_forms import hub_links_frequencies

J_HUB, RADIUS, L = 0.05, 0.1, 1.2
link = SpatialLink(L, 8, EI_y=3.0, EI_z=1.2, GJ=0.8, rho_A=0.5, rho_Ip=2e-3)
x_b, y_b = turned(math.pi)
arm = SpatialArm([RigidBody(2.0, (0.5 * J_HUB, 0.5 * J_HUB, J_HUB)), link, link],
                 joints=[RevoluteJoint(axis=(0, 0, 1)), FixedJoint(offset=(RADIUS, 0, 0)),
                         FixedJoint(offset=(-RADIUS, 0, 0), x_axis=x_b, y_axis=y_b)],
                 parents=[-1, 0, 0])
modes = arm.modes(10, joints="free")
turns_hub = np.abs(modes.vectors[:, arm.joint_index[0]]) > 1e-8
hub_modes = modes.frequencies[turns_hub]
hub_exact = hub_links_frequencies(2, link.EI_z, link.rho_A, L, J_HUB, 2, RADIUS)

if __name__ == "__main__":
    for f, t in zip(modes.frequencies, turns_hub):
        print(f"{f:9.5f} Hz  {'turns the hub' if t else 'hub still'}")
    print("hub-and-links equation:", np.round(hub_exact, 5), "Hz")
    arm4 = SpatialLink(L, 4, EI_y=3.0, EI_z=1.2, GJ=0.8, rho_A=0.5, rho_Ip=2e-3)
    coarse = SpatialArm([arm.bodies[0], arm4, arm4], arm.joints, arm.parents)
    res = coarse.simulate(0.5, torque=lambda t, q, qd: [0.01], dt_out=0.01)
    print(res)
    print("tip (v, w, phi) of each arm at the end:", res.extra["tip_vw_phi"][-1])
