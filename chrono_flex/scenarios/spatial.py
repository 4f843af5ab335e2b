"""Named scenarios of spatial arms and trees, run by the reference engine (``chrono-flex
run NAME``; each also a model file in ``examples/models/``):

* ``spatial-hub-2links``: a free hub (0.05 kg m^2 about z) carrying two flexible arms
  at 180 degrees (docs/spatial-link.md §5.3; examples/spatial_hub_arms.py with 4
  elements per arm), turned by a torque pulse of 0.02 N m over 1 s;
* ``spatial-satellite``: the satellite of examples/chrono_spatial_satellite.py as a tree:
  the bus (50 kg; 5, 5, 4 kg m^2) free to turn about z, the hub turning on it about z
  with two 2 m booms, the motor torque between bus and hub a smooth pulse of 0.4 N m
  over 6 s (the Chrono example's plain sine half-waves give the same impulse shape).
  The bus's centre is held: with the booms at 180 degrees and loads in the plane the
  centre of mass stays on the axis, so the hold carries no force;
* ``rrrp-slew``: the RRRP arm of Wang et al. slewing 30 degrees while arm 3 extends by
  0.6 m, under a PD law with gravity compensation (examples/spatial_rrrp.py): the
  profile :func:`rrrp_slew_torque`.
"""

import math

import numpy as np

from ..formulations.rrrp import ACTUATED, RRRPArm
from ..inputs import imported, pulse
from ..spatial import FixedJoint, RevoluteJoint, RigidBody, SpatialArm, SpatialLink, turned
from .arms import Case, register


def hub_two_links(n=4):
    """The free hub with two arms at 180 degrees (docs/spatial-link.md §5.3)."""
    link = SpatialLink(1.2, n, EI_y=3.0, EI_z=1.2, GJ=0.8, rho_A=0.5, rho_Ip=2e-3)
    x_b, y_b = turned(math.pi)
    return SpatialArm([RigidBody(2.0, (0.025, 0.025, 0.05)), link, link],
                      joints=[RevoluteJoint(axis=(0, 0, 1)), FixedJoint(offset=(0.1, 0, 0)),
                              FixedJoint(offset=(-0.1, 0, 0), x_axis=x_b, y_axis=y_b)],
                      parents=[-1, 0, 0])


def satellite():
    """The satellite bus, its hub and two booms as a tree (bus, hub, boom, boom)."""
    boom = SpatialLink(2.0, 4, EI_y=6.9, EI_z=6.9, GJ=5.2, rho_A=0.35, rho_Ip=1.2e-4)
    x_b, y_b = turned(math.pi)
    return SpatialArm([RigidBody(50.0, (5.0, 5.0, 4.0)), RigidBody(2.0, (0.25, 0.25, 0.5)),
                       boom, boom],
                      joints=[RevoluteJoint(axis=(0, 0, 1)), RevoluteJoint(axis=(0, 0, 1)),
                              FixedJoint(offset=(0.3, 0, 0)),
                              FixedJoint(offset=(-0.3, 0, 0), x_axis=x_b, y_axis=y_b)],
                      parents=[-1, 0, 1, 1])


#: The RRRP slew (examples/spatial_rrrp.py): start, strokes of theta1 and a, duration.
RRRP_START, RRRP_SLEW, RRRP_EXTENSION, RRRP_T_SLEW = (0.0, 0.2, -0.2, 0, 0, 0, 0, 2.3), \
    math.radians(30.0), 0.6, 4.0
#: PD gains per actuated joint (theta1, theta2, theta3, a), as the example's.
RRRP_KP = np.array([1.6e5, 1.6e5, 3.4e4, 2.0e4])
RRRP_KD = np.array([5.1e4, 5.1e4, 1.1e4, 1.2e3])
_RRRP = []


def _rrrp_arm():
    if not _RRRP:
        _RRRP.append(RRRPArm())
    return _RRRP[0]


def rrrp_slew_torque(t, eta, eta_d):
    """(tau1, tau2, tau3, F_a) of the slew: PD about a rest-to-rest 7th-order profile
    (theta1 by 30 degrees, a by 0.6 m in 4 s) plus the gravity compensation dV/deta."""
    arm, act = _rrrp_arm(), list(ACTUATED)
    x = min(max(t / RRRP_T_SLEW, 0.0), 1.0)
    s = x**4 * (35 - 84 * x + 70 * x**2 - 20 * x**3)
    ds = 140 * x**3 * (1 - x) ** 3 / RRRP_T_SLEW
    stroke = np.array([RRRP_SLEW, 0.0, 0.0, RRRP_EXTENSION])
    q_d = np.array(RRRP_START)[act] + s * stroke
    grav = arm.potential_gradient(eta)[act]
    return arm.joint_inputs(RRRP_KP * (q_d - eta[act]) + RRRP_KD * (ds * stroke - eta_d[act])
                            + grav)


def _hub():
    return hub_two_links(), dict(t_end=1.0, torque=pulse([0.02], 1.0), dt_out=0.01)


def _satellite():
    return satellite(), dict(t_end=8.0, torque=pulse([0.0, 0.4], 6.0), dt_out=0.02)


def _rrrp_slew():
    arm = _rrrp_arm()
    q0 = [float(v) for v in arm.static_deflection(RRRP_START)]
    return arm, dict(t_end=5.0, q0=q0, torque=imported(f"{__name__}:rrrp_slew_torque"),
                     dt_out=0.02)


register(Case("spatial-hub-2links", "a free hub with two flexible arms at 180 degrees "
              "(a spatial tree, 4 elements per arm), torque pulse 0.02 N m over 1 s, 1 s",
              "docs/spatial-link.md §5.3", _hub, engines=("reference",), tags=("spatial",)))
register(Case("spatial-satellite", "a satellite bus turning a hub with two 2 m booms "
              "(a spatial tree; the bus free about z), motor pulse 0.4 N m over 6 s, 8 s",
              "examples/chrono_spatial_satellite.py", _satellite, engines=("reference",),
              tags=("spatial",)))
register(Case("rrrp-slew", "[W] RRRP arm under gravity: 30 deg slew and 0.6 m extension "
              "in 4 s under PD control with gravity compensation, 5 s",
              "Wang, Wang & Niu; examples/spatial_rrrp.py", _rrrp_slew, engines=("reference",),
              tags=("spatial",)))

__all__ = ["hub_two_links", "rrrp_slew_torque", "satellite"]
