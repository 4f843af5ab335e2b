"""A SpatialArm built from Chrono's beams and bodies (chrono_flex.chrono.spatial_beams.
arm_from_beams): the built geometry against the reference engine's kinematics, the joints'
sense, the readers, and bad input. The modes and the prescribed motion of a tree against
the reference engine are the validation cases spatial-link.chrono-beam-tree*."""

import numpy as np
import pytest

from chrono_flex.errors import ParameterError, SimulationError

pytestmark = pytest.mark.pychrono

from chrono_flex.chrono.spatial_beams import arm_from_beams, static_system  # noqa: E402
from chrono_flex.spatial import equations as mdl  # noqa: E402
from chrono_flex.validation.cases import spatial_chrono as sc  # noqa: E402

#: Joint values to build at: turned joints, so that a wrong axis or sense moves the nodes.
THETA0 = (0.3, -0.5)


def _q(arm, theta):
    q = np.zeros(arm.nq)
    q[arm.joint_index] = theta
    return q


def test_built_nodes_lie_on_the_reference_centrelines():
    arm = sc.beam_tree_arm(4)
    tree = arm_from_beams(static_system(), arm, joint_values0=THETA0)
    # centrelines at n_elements + 1 equal stations: the nodes of equal elements
    cl, _ = mdl.centerlines(arm.model, _q(arm, THETA0), 5)
    for k, i in enumerate(tree.links):
        # the same frames composed in two codes: round-off of unit-size coordinates
        assert tree.node_positions(i) == pytest.approx(cl[k], abs=1e-14)
    assert tree.joint_coordinates() == pytest.approx(THETA0, abs=1e-14)
    assert tree.tip_vw_phi() == pytest.approx(np.zeros((3, 3)), abs=1e-14)
    tip = arm.tip_frame(_q(arm, THETA0))[0]
    assert tree.tip_position() == pytest.approx(tip, abs=1e-14)


def test_rigid_bodies_and_hubs_carry_the_arm_s_inertia():
    import pychrono as chrono

    arm = sc.beam_tree_arm(2)
    tree = arm_from_beams(static_system(), arm)
    hub = tree.bodies[0]
    assert isinstance(hub, chrono.ChBody)
    assert hub.GetMass() == pytest.approx(arm.bodies[0].mass)
    pay = tree.bodies[4]
    xx, xy = pay.GetInertiaXX(), pay.GetInertiaXY()
    I = arm.bodies[4].inertia_matrix
    assert [xx.x, xx.y, xx.z, xy.x, xy.y, xy.z] == pytest.approx(
        [I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]])
    jt = arm.joints[3]
    h = tree.hubs[3]                    # the second link's hub at its root
    assert h.GetMass() == pytest.approx(jt.hub_mass)
    a = jt.mount.T @ np.asarray(jt.axis)
    hx, hy = h.GetInertiaXX(), h.GetInertiaXY()
    Ih = jt.hub_inertia * np.outer(a, a)
    assert [hx.x, hx.y, hx.z, hy.x, hy.y, hy.z] == pytest.approx(
        [Ih[0, 0], Ih[1, 1], Ih[2, 2], Ih[0, 1], Ih[0, 2], Ih[1, 2]])
    assert tree.hubs[1] is None and tree.hubs[0] is None


def test_prescribed_joints_follow_their_motion_in_the_reference_sense():
    # both joints turn by (0.2, -0.3) rad along a quintic in 0.2 s: the built tree's nodes
    # follow the reference kinematics of the straight arm at the new joint values
    from chrono_flex.chrono.system import configure_system, step

    arm = sc.beam_tree_arm(2, stiffness=1e3)
    turn, T = np.array([0.2, -0.3]), 0.2

    def motion(t):
        s = min(t / T, 1.0)
        p = 10 * s**3 - 15 * s**4 + 6 * s**5
        pd = (30 * s**2 - 60 * s**3 + 30 * s**4) / T
        pdd = (60 * s - 180 * s**2 + 120 * s**3) / T**2
        return np.asarray(THETA0) + turn * p, turn * pd, turn * pdd

    sys_ = static_system()
    configure_system(sys_, "hht")
    tree = arm_from_beams(sys_, arm, joint_values0=THETA0, joint_motion=motion)
    for _ in range(100):
        step(sys_, 2e-3)
    th = motion(sys_.GetChTime())[0]
    assert tree.joint_coordinates() == pytest.approx(th, abs=1e-9)   # Newton tolerance
    cl, _ = mdl.centerlines(arm.model, _q(arm, th), 3)
    for k, i in enumerate(tree.links):
        # peak joint acceleration 5.8 * 0.3 / T^2 ~ 45 rad/s^2 bends the links by about
        # rho_A a L^4 / (8 EI) ~ 1e-3 m at most; a wrong axis or sense moves a tip by
        # ~ 0.2 m
        assert tree.node_positions(i) == pytest.approx(cl[k], abs=5e-3)


def test_free_joints_read_their_relative_motion():
    arm = sc.beam_tree_arm(2)
    tree = arm_from_beams(static_system(), arm, joint_values0=THETA0)
    assert type(tree.joints[0]).__name__ == "ChLinkMateRevolute"
    assert tree.joint_rates() == pytest.approx(np.zeros(2), abs=1e-14)
    assert len(tree.joints) == len(arm.bodies)


def test_a_failing_motion_is_reported_as_a_simulation_error():
    from chrono_flex.chrono.system import configure_system, step

    def motion(t):
        if t > 1e-3:
            raise ValueError("no data")
        return np.zeros(2), np.zeros(2), np.zeros(2)

    sys_ = static_system()
    configure_system(sys_, "hht")
    arm_from_beams(sys_, sc.beam_tree_arm(2), joint_motion=motion)
    with pytest.raises(SimulationError, match="no data"):
        for _ in range(3):
            step(sys_, 1e-3)


def test_torque_motors_turn_the_joints_and_report_a_failing_callback():
    from chrono_flex.chrono.system import configure_system, step

    calls = []

    def torque(t, q, qd):
        calls.append(t)
        if t > 3e-3:
            raise ValueError("sensor lost")
        return [0.5, 0.0]

    sys_ = static_system()
    configure_system(sys_, "hht")
    tree = arm_from_beams(sys_, sc.beam_tree_arm(2, stiffness=1e3),
                          joint_values0=THETA0, torque=torque)
    assert type(tree.joints[0]).__name__ == "ChLinkMotorRotationTorque"
    step(sys_, 1e-3)
    # a positive torque about the axis turns the hub the positive way (the reference
    # engine's sense); the free second joint barely moves in 1 ms
    assert tree.joint_coordinates()[0] > THETA0[0] and tree.joint_rates()[0] > 0
    assert calls
    with pytest.raises(SimulationError, match="sensor lost"):
        for _ in range(5):
            step(sys_, 1e-3)


@pytest.mark.parametrize("kw, name", [
    (dict(n_elements=0), "n_elements"), (dict(n_elements=(2, 2)), "n_elements"),
    (dict(joint_values0=(0.0,)), "joint_values0"), (dict(joint_motion="spin"), "joint_motion"),
    (dict(torque=0.1), "torque"),
    (dict(joint_values0=(0.1, 0.0),
          joint_motion=lambda t: (np.zeros(2), np.zeros(2), np.zeros(2))), "joint_values0"),
    (dict(torque=lambda t, q, qd: [0.0, 0.0],
          joint_motion=lambda t: (np.zeros(2), np.zeros(2), np.zeros(2))), "torque"),
    (dict(base_frame=((0, 0, 0), np.diag([1.0, 1.0, -1.0]))), "base_frame"),
    (dict(base_frame="world"), "base_frame")])
def test_bad_input_names_the_parameter(kw, name):
    with pytest.raises(ParameterError, match=name):
        arm_from_beams(static_system(), sc.beam_tree_arm(2), **kw)


def test_bad_arm_and_foreign_base_are_refused():
    import pychrono as chrono

    with pytest.raises(ParameterError, match="arm"):
        arm_from_beams(static_system(), "arm")
    other = chrono.ChSystemSMC()
    stranger = chrono.ChBody()
    other.Add(stranger)
    with pytest.raises(ParameterError, match="base_body"):
        arm_from_beams(static_system(), sc.beam_tree_arm(2), base_body=stranger)
    tree = arm_from_beams(static_system(), sc.beam_tree_arm(2))
    with pytest.raises(ParameterError, match="body"):
        tree.node_positions(0)                       # the hub: a rigid body


def test_a_base_frame_moves_the_whole_tree():
    from chrono_flex.spatial.params import rotation

    arm = sc.beam_tree_arm(2)
    o, R = np.array([0.5, -0.2, 1.0]), rotation(np.array([0.6, 0.0, 0.8]), 0.7)
    tree = arm_from_beams(static_system(), arm, base_frame=(o, R))
    cl, _ = mdl.centerlines(arm.model, np.zeros(arm.nq), 3)
    for k, i in enumerate(tree.links):
        assert tree.node_positions(i) == pytest.approx(o + cl[k] @ R.T, abs=1e-14)


def _slide_arm(n):
    """A link on a revolute joint carrying, at its tip, a second link on a prismatic joint
    along a skew axis (with a slider mass, an offset and a skew mounting)."""
    from chrono_flex.spatial import PrismaticJoint, RevoluteJoint, SpatialArm, SpatialLink

    l1 = SpatialLink(1.0, n, EI_y=2.0, EI_z=5.0, GJ=1.0, rho_A=0.5, rho_Ip=1e-3)
    l2 = SpatialLink(0.6, n, EI_y=1.0, EI_z=1.5, GJ=0.6, rho_A=0.3, rho_Ip=5e-4)
    joints = [RevoluteJoint(axis=(0.0, 0.3, 1.0)),
              PrismaticJoint(axis=(0.6, 0.8, 0.1), slider_mass=0.2, offset=(0.05, 0.0, 0.0),
                             x_axis=(0.0, 0.6, 0.8), y_axis=(1.0, 0.0, 0.0))]
    return SpatialArm([l1, l2], joints)


def test_a_prismatic_joint_is_placed_and_slides_as_in_the_reference_engine():
    from chrono_flex.chrono.modal import system_modes

    q0 = (0.4, 0.15)                     # the slide already out by 0.15 m
    arm = _slide_arm(4)
    tree = arm_from_beams(static_system(), arm, joint_values0=q0)
    assert type(tree.joints[1]).__name__ == "ChLinkMatePrismatic"
    cl, _ = mdl.centerlines(arm.model, _q(arm, q0), 5)
    for k, i in enumerate(tree.links):
        assert tree.node_positions(i) == pytest.approx(cl[k], abs=1e-14)  # round-off
    assert tree.joint_coordinates() == pytest.approx(q0, abs=1e-14)
    # modes with both joints free (two zero frequencies left out) converge to the
    # reference engine's at the lumped mass's order 2; a slide placed or loaded
    # differently (axis, slider mass) would stall the error
    ref = _slide_arm(16)
    exact = ref.natural_frequencies(4, q=_q(ref, q0), joints="free")
    errs = []
    for n in (4, 8):
        sys_ = static_system()
        arm_from_beams(sys_, _slide_arm(n), joint_values0=q0)
        f = system_modes(sys_, 6).frequencies[2:]
        errs.append(np.abs(f - exact) / exact)
    order = np.log2(errs[0] / errs[1])
    assert np.all(order > 1.7), order       # 1.7: pre-asymptotic room at 4 -> 8 elements
