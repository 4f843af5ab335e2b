"""[L]'s weak coupling on branched spatial arms split into base-to-tip chains
(chrono_flex.formulations.screw_flex_tree): step 3 against the FEM/Lagrange joint rows, the
spatial tree against the planar chain recursion, a branch against the same body in the
chain, and the argument checks."""

import math

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex.errors import ParameterError
from chrono_flex.formulations import screw as sc
from chrono_flex.formulations import screw_flex_tree as sft
from chrono_flex.formulations.screw_tree import base_to_tip_chains, chain_owners
from chrono_flex.spatial.arm import SpatialArm
from chrono_flex.spatial.params import (FixedJoint, PrismaticJoint, RevoluteJoint, RigidBody,
                                        SpatialLink)
from chrono_flex.validation.cases.screw_spatial import step3_error, tree_robot

# Step 3 and the Lagrange rows are both exact for a given deformation (the same Gauss
# points, the tip rotation written exactly on both sides): O(1000) operations of round-off.
ROUND_OFF = 1e-12


def _skew_tree(gravity=9.81):
    """A tree with skew revolute and prismatic axes, offsets, rotors, a rigid body between
    links, and a flexible link carrying two children (a branch point on a link's tip)."""
    lk = SpatialLink(0.8, 2, EI_y=3.0, EI_z=2.0, GJ=1.0, rho_A=0.5, rho_Ip=1e-3)
    short = SpatialLink(0.4, 1, EI_y=5.0, EI_z=4.0, GJ=2.0, rho_A=0.4, rho_Ip=5e-4)
    return SpatialArm(
        [lk, RigidBody(0.3, (1e-3, 2e-3, 3e-3)), lk, short, RigidBody(0.2, (1e-4,) * 3)],
        joints=[RevoluteJoint((0.3, 0.2, 1), hub_inertia=0.01, hub_mass=0.2),
                FixedJoint(offset=(0.05, 0.02, 0)),
                PrismaticJoint((1, 0.3, 0.1), slider_mass=0.3, offset=(0.01, 0, 0.02)),
                RevoluteJoint((0, 1, 0.4), hub_inertia=3e-3, hub_mass=0.1, x_axis=(0, 0, 1),
                              y_axis=(1, 0, 0)),
                FixedJoint(offset=(0.0, 0.1, 0.0))],
        parents=[-1, 0, 1, 0, 0], gravity=gravity)


def test_chains_of_a_tree_and_their_owners():
    chains = base_to_tip_chains([-1, 0, 1, 2, 3, 0, 5])
    assert chains == [[0, 1, 2, 3, 4], [0, 5, 6]]
    assert chain_owners(chains) == {0: 0, 1: 0, 2: 0, 3: 0, 4: 0, 5: 1, 6: 1}
    assert base_to_tip_chains([-1, -1, 0]) == [[1], [0, 2]]


@pytest.mark.parametrize("gravity", [0.0, 9.81])
def test_deformed_tree_recursion_equals_the_lagrange_joint_rows(gravity):
    rng = np.random.default_rng(7)
    for arm in (_skew_tree(gravity), tree_robot()):
        assert step3_error(arm, rng, n_states=3) <= ROUND_OFF


def test_rigid_pass_equals_lagrange_with_the_links_undeformed():
    arm = _skew_tree()
    tree = sft.FlexibleTree(arm)
    rng = np.random.default_rng(3)
    q, qd, qdd = (rng.normal(size=arm.nq) for _ in range(3))
    for x in (q, qd, qdd):
        x[arm.elastic_index] = 0.0
    M, f = arm.forcing(0.0, q, qd)
    ref = (M @ qdd - f)[arm.joint_index]
    assert np.max(np.abs(tree.recursion(q, qd, qdd).tau - ref)) <= ROUND_OFF * np.max(np.abs(ref))


def _cycloid(stroke, T=1.0):
    s, w = np.array(stroke, dtype=float), 2 * math.pi / T

    def motion(t):
        if t >= T:
            return s.copy(), 0 * s, 0 * s
        return (s * (t / T - math.sin(w * t) / (2 * math.pi)), s * (1 - math.cos(w * t)) / T,
                s * w * math.sin(w * t) / T)
    return motion


def test_planar_chain_as_a_spatial_tree_equals_the_planar_weak_coupling():
    # the same two FEM links in the plane: the spatial tree's steps 1-3 reduce to the planar
    # chain's (screw.weak_coupling); both integrate step 2 with Radau at rtol 1e-7, so they
    # agree to that order: 1e-5 of the torque leaves a factor 100 (the rigid steps 1 agree
    # to round-off)
    L = [(0.4, 2e4, 2.0, 1), (0.8, 80.0, 0.6, 2)]
    parm = cf.PlanarArm([cf.Link(l, n, EI=ei, rho_A=ra, basis="fem") for l, ei, ra, n in L],
                        [cf.RevoluteJoint(hub_inertia=0.05),
                         cf.RevoluteJoint(hub_mass=1.0, hub_inertia=2e-3)],
                        payload=cf.Payload(0.3, 1e-3))
    sarm = SpatialArm([SpatialLink(l, n, EI_y=ei, EI_z=ei, GJ=50.0, rho_A=ra, rho_Ip=1e-5)
                       for l, ei, ra, n in L] + [RigidBody(0.3, (1e-3, 1e-3, 1e-3))],
                      [RevoluteJoint(hub_inertia=0.05),
                       RevoluteJoint(hub_mass=1.0, hub_inertia=2e-3), FixedJoint()])
    motion = _cycloid((1.2, -1.5))
    a = sc.weak_coupling(parm, motion, 0.25, dt_out=0.025, rtol=1e-7, atol=1e-9)
    b = sft.weak_coupling(sarm, motion, 0.25, dt_out=0.025, rtol=1e-7, atol=1e-9)
    scale = np.max(np.abs(a.joint_torque))
    assert np.max(np.abs(a.joint_torque_rigid - b.joint_torque_rigid)) <= ROUND_OFF * scale
    assert np.max(np.abs(a.joint_torque - b.joint_torque)) <= 1e-5 * scale
    # and the flexible torques do differ from the rigid ones (the check is not empty)
    assert np.max(np.abs(b.joint_torque - b.joint_torque_rigid)) > 1e-3 * scale


def test_a_branch_on_a_link_tip_loads_it_as_the_same_body_in_the_chain():
    # a payload welded to link 1's tip as its own chain (a branch point on a flexible link:
    # its step-2 tip load is the sum of both chains' base wrenches) or between link 1 and
    # link 2 in one chain: the same arm, so the same torques up to the integrator (the same
    # equations, summed in another order; Radau at rtol 1e-7: 1e-5 of the torque)
    l1 = SpatialLink(0.5, 1, EI_y=30.0, EI_z=50.0, GJ=20.0, rho_A=0.8, rho_Ip=2e-3)
    l2 = SpatialLink(0.6, 1, EI_y=20.0, EI_z=25.0, GJ=15.0, rho_A=0.5, rho_Ip=2e-3)
    pay = RigidBody(0.4, (1e-3, 2e-3, 3e-3))
    j1, j2 = RevoluteJoint((0, 0, 1), hub_inertia=0.02), RevoluteJoint((0, 1, 0), hub_mass=0.2)
    chain = SpatialArm([l1, pay, l2], [j1, FixedJoint(), j2], parents=[-1, 0, 1])
    tree = SpatialArm([l1, l2, pay], [j1, j2, FixedJoint()], parents=[-1, 0, 0])
    assert sft.FlexibleTree(tree).chains == [[0, 1], [0, 2]]
    motion = _cycloid((0.8, -0.6), T=0.5)
    a = sft.weak_coupling(chain, motion, 0.3, dt_out=0.02, rtol=1e-7, atol=1e-9)
    b = sft.weak_coupling(tree, motion, 0.3, dt_out=0.02, rtol=1e-7, atol=1e-9)
    scale = np.max(np.abs(a.joint_torque))
    assert np.max(np.abs(a.joint_torque - b.joint_torque)) <= 1e-5 * scale
    assert np.max(np.abs(a.joint_torque - a.joint_torque_rigid)) > 1e-3 * scale


def test_order_of_the_neglected_terms_of_the_robot():
    from chrono_flex.validation.cases.screw_spatial import COMPLIANT, TREE_T, tree_motion

    arm = tree_robot()
    o = sft.weak_coupling_order(arm, tree_motion(), TREE_T, links=COMPLIANT)
    fore, boom = o["links"][2], o["links"][5]
    # the boom on the turret only yaws: no spin about its own axis, no inboard flexible link
    assert boom["gyroscopic"] == 0.0 and boom["coupling"] == 0.0
    assert fore["gyroscopic"] > 0.0 and fore["coupling"] > 0.0
    assert o["bound"] == max(fore["bound"], boom["bound"])
    # omega: the step-2 forearm vibrates at the arm's first natural frequency (joints locked:
    # the forearm's mode), within the upper arm's compliance it leaves out
    f1 = arm.natural_frequencies(1)[0]
    assert abs(fore["omega"] / (2 * math.pi) - f1) <= 2 * fore["coupling"] * f1


def test_bad_arguments_are_named():
    arm = tree_robot()
    with pytest.raises(ParameterError, match="joint_motion"):
        sft.weak_coupling(arm, 1.0, 1.0)
    with pytest.raises(ParameterError, match="t_end"):
        sft.weak_coupling(arm, _cycloid((0, 0, 0, 0)), 0.0)
    with pytest.raises(ParameterError, match="links"):
        sft.weak_coupling_order(arm, _cycloid((0, 0, 0, 0)), 1.0, links=[0])
    with pytest.raises(ParameterError, match="arm"):
        sft.FlexibleTree("arm")
    with pytest.raises(ParameterError, match="joint_motion"):
        sft.weak_coupling(arm, lambda t: (np.zeros(3),) * 3, 0.1)
