"""Arms and reference sums shared by the tests of the equations and their compiled twins
(planar and spatial)."""

import math

import chrono_flex as cf
from chrono_flex.spatial import params as sp


def planar_chain(n_elements=(3, 2, 2), stiffening=False):
    """Revolute, prismatic and offset revolute joints; hub masses and inertias; payload;
    ``n_elements`` per link."""
    links = [cf.Link(0.7, n_elements[0], EI=20.0, rho_A=0.5),
             cf.Link(0.5, n_elements[1], EI=10.0, rho_A=0.3),
             cf.Link(0.4, n_elements[2], EI=8.0, rho_A=0.3)]
    joints = [cf.RevoluteJoint(hub_inertia=0.01, hub_mass=0.2),
              cf.PrismaticJoint(axis_angle=0.3, link_angle=0.2),
              cf.RevoluteJoint(angle_offset=0.1, hub_mass=0.1)]
    return cf.PlanarArm(links, joints=joints, payload=cf.Payload(0.3, 0.01), gravity=9.81,
                        geometric_stiffening=stiffening)


def skew_tree_joints():
    """The joints of the spatial test trees: a hub about z; a skew revolute joint (offset,
    rotor, hub mass); a skew prismatic joint; a weld with an offset; a revolute joint
    about x turned by 180 degrees about z (parents [-1, 0, 1, 2, 0])."""
    x, y = sp.turned(0.4, (1.0, 1.0, 0.0))
    xb, yb = sp.turned(math.pi)
    return [sp.RevoluteJoint(axis=(0, 0, 1), hub_inertia=0.05),
            sp.RevoluteJoint(axis=(0, 1, 0), offset=(0.1, 0, 0.05), hub_inertia=0.02,
                             hub_mass=0.3),
            sp.PrismaticJoint(axis=(0.3, 0.2, 1), x_axis=x, y_axis=y, slider_mass=0.2),
            sp.FixedJoint(offset=(0.05, 0, 0)),
            sp.RevoluteJoint(axis=(1, 0, 0), offset=(-0.1, 0, 0), x_axis=xb, y_axis=yb)]


def numpy_terms(equations, model, q, qd):
    """(M, r) from the numpy equations module ``equations`` (planar or spatial): r = h -
    Q_g [+ K_geo e], what the compiled kernels return."""
    M, h, Qg = equations.terms(model, q, qd)
    r = h - Qg
    if model.geometric_stiffening:
        r = r - equations.geometric_stiffness_force(model, q, qd)
    return M, r


def hub_link_arm(EI):
    """One link (1 m, 4 elements, rho_A = 0.196 kg/m, 10 mm thick) of bending stiffness
    ``EI`` (N m^2) on a hub of 0.01 kg m^2, no gravity: the controllers' test arm."""
    link = cf.Link(length=1.0, n_elements=4, EI=EI, rho_A=0.196, thickness=0.01)
    return cf.PlanarArm(links=[link], joints=[cf.RevoluteJoint()], hub_inertia=0.01,
                        gravity=0.0)


def setpoint(t):
    """0 -> 0.1 rad over 0.2 s as (1 - cos)/2."""
    return 0.1 * (0.5 - 0.5 * math.cos(math.pi * t / 0.2)) if t < 0.2 else 0.1


def pi_law(arm, period=0.0):
    """PI with the rate from a tachometer (kp = 2 N m/rad, ki = 4 N m/(rad s), kd = 0.5
    N m s/rad) on :func:`setpoint`, limited to +-1 N m (not reached by these arms): one
    state, the integral; sampled every ``period`` s (0: continuous)."""
    from chrono_flex.control import PID, Encoder, Tachometer

    return PID(2.0, 4.0, 0.5, setpoint=setpoint, sensor=Encoder(arm, 2**40),
               rate_sensor=Tachometer(arm), u_min=-1.0, u_max=1.0, period=period)
