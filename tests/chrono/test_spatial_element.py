"""The spatial custom element (SpatialFlexibleLink) against the reference engine.

Tolerances come from step studies (see tests/chrono/test_element.py): Chrono runs at
h, h/2, h/4, the error model is fitted to its own self-differences, and every run must
agree with the reference within S e(h) + the reference's tolerances. Both engines
evaluate the same equations (chrono_flex.spatial.floating), so what is left is the
time integration error.

The arm on a moving body is checked against the same arm hung, in the reference
engine, on three slides and three turns that give the body its motion (with the body's
mass and inertia on the last of them): a free body turning and drifting in space.
"""

import numpy as np
import pytest

from chrono_flex.errors import ParameterError
from chrono_flex.spatial.arm import SpatialArm
from chrono_flex.spatial.params import (FixedJoint, PrismaticJoint, RevoluteJoint, RigidBody, SpatialLink,
                                        turned)

from _chrono_helpers import sample, step_study

pytestmark = pytest.mark.pychrono
chrono = pytest.importorskip("pychrono", reason="PyChrono is not installed")

REF = dict(method="Radau", rtol=1e-7, atol=1e-10)
T_END, DT = 0.1, 0.01
STEPS = (5e-3, 2.5e-3, 1.25e-3)
E = np.eye(3)
X_AXIS, Y_AXIS = turned(0.4, (0, 1, 0))
ORIGIN = np.array([0.1, 0.05, 0.0])
BODY_MASS, BODY_INERTIA = 2.0, (0.1, 0.2, 0.15)
V0, W0 = np.array([0.1, 0.0, -0.05]), np.array([0.3, -0.2, 0.5])


def _link(n=2):
    return SpatialLink(0.8, n, EI_y=3.0, EI_z=2.0, GJ=1.0, rho_A=0.5, rho_Ip=1e-3)


def _torque(t):
    return 0.2 * np.sin(4.0 * t)


def _hub_tree():
    """A hub on a tilted revolute joint carrying two links at 180 degrees, one of them
    with a tip mass: a tree, under gravity."""
    hub = RigidBody(1.0, (0.02, 0.02, 0.05))
    joints = [RevoluteJoint(axis=(0.3, -0.2, 1.0)),
              RevoluteJoint(axis=(0, 1, 0), offset=(0.05, 0, 0)),
              RevoluteJoint(axis=(0, 0, 1), offset=(-0.05, 0, 0), x_axis=(-1, 0, 0),
                            y_axis=(0, -1, 0)),
              FixedJoint()]
    return SpatialArm([hub, _link(), _link(), RigidBody(0.1, (1e-3, 1e-3, 1e-3))], joints,
                      parents=[-1, 0, 0, 2], gravity=(0, 0, -9.81))


def _system(gravity):
    from chrono_flex.chrono import configure_system

    sys_ = chrono.ChSystemNSC()
    sys_.SetGravitationalAcceleration(chrono.ChVector3d(*gravity))
    configure_system(sys_)
    return sys_


def test_tree_on_the_ground_agrees_with_the_reference():
    from chrono_flex.chrono.spatial_element import SpatialFlexibleLink

    arm = _hub_tree()

    def torque(t, q, qd):
        return [_torque(t), -0.5 * _torque(t), 0.1 * _torque(t)]

    ref = arm.simulate(T_END, torque=torque, dt_out=DT, **REF)
    y_ref = np.column_stack([ref.q[1:], ref.extra["tip_vw_phi"][1:, :, :2].reshape(len(ref.t) - 1, -1)])
    runs = []
    for h in STEPS:
        sys_ = _system((0, 0, -9.81))
        el = SpatialFlexibleLink(sys_, arm, torque=torque)
        runs.append(sample(sys_, h, T_END, DT, lambda: np.concatenate(
            [el.q(), el.tip_coordinates()[:, :2].ravel()])))
    p, ratios = step_study(runs, STEPS, y_ref, REF["rtol"], REF["atol"])
    assert np.max(ratios) <= 1.0, (p, ratios.max(axis=1))


def _floating_reference():
    chain = SpatialArm(
        [RigidBody()] * 5 + [RigidBody(BODY_MASS, BODY_INERTIA), _link()],
        joints=[PrismaticJoint(axis=E[k], x_axis=E[0], y_axis=E[1]) for k in range(3)]
        + [RevoluteJoint(axis=E[k]) for k in range(3)]
        + [RevoluteJoint(axis=(0, 0, 1), offset=tuple(ORIGIN), x_axis=X_AXIS, y_axis=Y_AXIS)])
    qd0 = np.zeros(chain.nq)
    qd0[:3], qd0[3:6] = V0, W0
    return chain.simulate(T_END, qd0=qd0, dt_out=DT, **REF,
                          torque=lambda t, q, qd: [0.0] * 6 + [_torque(t)])


def test_arm_on_a_free_body_agrees_with_the_six_joint_reference():
    """Free body in space: its position and the arm's coordinates. (The chain's angles
    are Euler angles, not comparable to Chrono's quaternion beyond small rotations, so
    the body's orientation is checked through the arm's tip position instead.)"""
    from chrono_flex.chrono.spatial_element import SpatialFlexibleLink

    ref = _floating_reference()
    y_ref = np.column_stack([ref.q[1:, :3], ref.q[1:, 6:], ref.tip_position[1:]])
    arm = SpatialArm([_link()], joints=[RevoluteJoint(axis=(0, 0, 1), x_axis=X_AXIS,
                                                      y_axis=Y_AXIS)])
    runs = []
    for h in STEPS:
        sys_ = _system((0, 0, 0))
        body = chrono.ChBody()
        body.SetMass(BODY_MASS)
        body.SetInertiaXX(chrono.ChVector3d(*BODY_INERTIA))
        body.SetPosDt(chrono.ChVector3d(*V0))
        body.SetAngVelLocal(chrono.ChVector3d(*W0))
        sys_.Add(body)
        el = SpatialFlexibleLink(sys_, arm, parent_body=body, joint_frame=(ORIGIN, np.eye(3)),
                                 torque=lambda t, q, qd: [_torque(t)])

        def read():
            p = body.GetPos()
            tip = el.tip_frame()
            t = tip.GetPos()
            return np.concatenate([[p.x, p.y, p.z], el.q(), [t.x, t.y, t.z]])

        runs.append(sample(sys_, h, T_END, DT, read))
    p, ratios = step_study(runs, STEPS, y_ref, REF["rtol"], REF["atol"])
    assert np.max(ratios) <= 1.0, (p, ratios.max(axis=1))


def test_modes_of_the_element_are_the_reference_modes():
    """Chrono's M (shafts + injected M) and K (the load's finite-difference Jacobian) of
    a hub with two links, joints free: the system's modes are the reference arm's.
    Tolerance: the Jacobian's finite differences (absolute 1e-8 on O(1e-1) forces)."""
    from chrono_flex.chrono.modal import system_modes
    from chrono_flex.chrono.spatial_element import SpatialFlexibleLink

    arm = SpatialArm([RigidBody(2.0, (0.02, 0.02, 0.05)), _link(4), _link(4)],
                     [RevoluteJoint(), RevoluteJoint(axis=(0, 0, 1), offset=(0.1, 0, 0)),
                      RevoluteJoint(axis=(0, 0, 1), offset=(-0.1, 0, 0), x_axis=(-1, 0, 0),
                                    y_axis=(0, -1, 0))], parents=[-1, 0, 0])
    sys_ = _system((0, 0, 0))
    SpatialFlexibleLink(sys_, arm)
    f = system_modes(sys_).frequencies
    f_ref = arm.natural_frequencies(8, joints="free")
    elastic = f[f > 1e-3 * f_ref[0]][:8]          # the three joints' rigid motions: zero
    np.testing.assert_allclose(elastic, f_ref, rtol=1e-6)


def test_bad_inputs_name_the_parameter():
    import chrono_flex as cf
    from chrono_flex import scenarios
    from chrono_flex.chrono.spatial_element import SpatialFlexibleLink

    sys_ = _system((0, 0, 0))
    arm = SpatialArm([_link()])
    with pytest.raises(ParameterError, match="SpatialArm"):
        SpatialFlexibleLink(sys_, cf.PlanarArm([scenarios.kozlowski_link()]))
    with pytest.raises(ParameterError, match="joint_frame"):
        SpatialFlexibleLink(sys_, arm, joint_frame=((0, 0, 0), np.diag([1.0, 1.0, -1.0])))
    with pytest.raises(ParameterError, match="elastic0"):
        SpatialFlexibleLink(sys_, arm, elastic0=[0.0, 1.0])
    el = SpatialFlexibleLink(sys_, arm)
    with pytest.raises(ParameterError, match="system"):       # welds: test_spatial_attachment.py
        el.attach(chrono.ChBody())
