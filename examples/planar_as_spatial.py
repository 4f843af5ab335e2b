"""One two-link arm, built twice: as a planar arm and as a spatial tree with its joint
axes along z (docs/spatial-link.md §5.2), run through the same ``simulate``.

The arm: two flexible links (1.0 m and 0.5 m, EI = 1.04 N m^2, rho_A = 0.196 kg/m, two
elements each) and a 0.1 kg payload, in the plane z = 0 (no gravity). The spatial arm
has the same links with an out-of-plane stiffness and torsion of their own, a rigid
payload welded to the last tip, and revolute joints about z. Expected:

* driven by joint torques, and again with a gear drive of Serebrenny et al. (2019) on
  each joint (motor voltages 1.5 V and 0.5 V), both engines give the same joint
  angles, in-plane deflections and drive states to the Newton tolerance of
  generalized-alpha's steps (1e-8), here with a fixed step of 2 ms over 0.1 s;
* the out-of-plane coordinates of the spatial arm stay at round-off (below 1e-12).
"""

import math

import numpy as np

import chrono_flex as cf
from chrono_flex.drive import DriveParams, GearDrive
from chrono_flex.spatial import FixedJoint, RevoluteJoint, RigidBody, SpatialLink

LINKS = ((1.0, 1.04, 0.196), (0.5, 1.04, 0.196))       # length m, EI N m^2, rho_A kg/m
PAYLOAD = (0.1, 1e-3)                                   # kg, kg m^2
T_END, STEP = 0.1, 2e-3
SETTINGS = dict(dt_out=0.01, method="generalized_alpha", step=STEP, progress=False)


def planar_arm(drives=None):
    return cf.PlanarArm([cf.Link(L, 2, EI=EI, rho_A=rho_A) for L, EI, rho_A in LINKS],
                        payload=cf.Payload(*PAYLOAD), drives=drives)


def spatial_arm(drives=None):
    """The same arm as a tree: link, link, payload; joints about z, the payload welded."""
    links = [SpatialLink(L, 2, EI_y=2.0, EI_z=EI, GJ=1.0, rho_A=rho_A, rho_Ip=1e-3)
             for L, EI, rho_A in LINKS]
    return cf.SpatialArm(links + [RigidBody(PAYLOAD[0], (0.0, 0.0, PAYLOAD[1]))],
                         joints=[RevoluteJoint(axis=(0, 0, 1)), RevoluteJoint(axis=(0, 0, 1)),
                                 FixedJoint()],
                         parents=[-1, 0, 1], drives=drives)


def in_plane(spatial):
    """Index in the spatial q of each planar coordinate: per link its joint, then v, v'
    of every node (the planar link's w, w')."""
    idx = []
    for b in range(len(LINKS)):
        idx.append(spatial.model.layout.bodies[b].joint_index)
        idx += list(spatial.elastic_indices(b)[:, :2].ravel())
    return np.array(idx)


def torque(t, q, qd):
    return [0.05 * math.sin(5 * t), 0.01]


def drive_input(t):
    return [1.5, 0.5]


def drives():
    return {0: GearDrive(DriveParams.serebrenny2019()), 1: GearDrive(DriveParams.serebrenny2019())}


def run_both(with_drives):
    """(planar result, spatial result, in-plane index) of the torque run or the drive run."""
    d = drives() if with_drives else None
    planar, spatial = planar_arm(d), spatial_arm(d)
    inputs = dict(drive_input=drive_input) if with_drives else dict(torque=torque)
    return (planar.simulate(T_END, **inputs, **SETTINGS),
            spatial.simulate(T_END, **inputs, **SETTINGS), in_plane(spatial))


def difference(rp, rs, idx):
    """max |q_spatial - q_planar| over the in-plane coordinates / max |q_planar|, and the
    largest out-of-plane coordinate."""
    out = np.setdiff1d(np.arange(rs.q.shape[1]), idx)
    return (float(np.max(np.abs(rs.q[:, idx] - rp.q)) / np.max(np.abs(rp.q))),
            float(np.max(np.abs(rs.q[:, out]))))


torque_run = run_both(False)
drive_run = run_both(True)

if __name__ == "__main__":
    for name, (rp, rs, idx) in (("torques", torque_run), ("drives", drive_run)):
        d, leak = difference(rp, rs, idx)
        print(f"{name}: in-plane difference {d:.2e} (relative), out of plane {leak:.1e}; "
              f"final joints {np.round(rp.joint_angles[-1], 6)} (planar), "
              f"{np.round(rs.joint_angles[-1], 6)} (spatial)")
    rp, rs, _ = drive_run
    print("drive 1 states, planar :", rp.extra["drive1_states"][-1])
    print("drive 1 states, spatial:", rs.extra["drive1_states"][-1])
