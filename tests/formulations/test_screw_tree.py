"""The screw recursion on trees (chrono_flex.formulations.screw_tree) against Lagrange's
equations of the same tree, and against the serial-chain recursion."""

import numpy as np
import pytest

from chrono_flex.errors import ParameterError
from chrono_flex.formulations.screw import rigid_inverse_dynamics
from chrono_flex.formulations.screw_tree import (RigidTree, TreeBody, random_tree,
                                                 tree_from_planar_arm)
from chrono_flex.validation.cases.screw import random_arm

# Both sides are exact: complex-step Jacobians, a contour integral whose truncation is
# ~rho^24/24!, and O(100) floating-point operations per torque: a few hundred eps at most.
ROUND_OFF = 1e-12


@pytest.mark.parametrize("seed", range(6))
def test_tree_recursion_equals_lagrange(seed):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n_bodies=3 + seed)
    for _ in range(3):
        q, qd, qdd = (rng.normal(size=tree.n) for _ in range(3))
        tau = tree.inverse_dynamics(q, qd, qdd)
        ref = tree.lagrange_inverse_dynamics(q, qd, qdd)
        assert np.max(np.abs(tau - ref)) <= ROUND_OFF * np.max(np.abs(ref))


def test_hub_with_two_arms_branches_and_is_exact():
    # a hub about z carrying two arms at 180 degrees (pitch joints), one with a finger
    J = np.diag([0.02, 0.03, 0.04])
    flip = np.diag([-1.0, -1.0, 1.0])               # the second arm's mount, turned by pi
    tree = RigidTree([TreeBody(-1, "revolute", (0, 0, 1), mass=2.0, inertia=J),
                      TreeBody(0, "revolute", (0, 1, 0), (0.2, 0, 0), None, 1.0, (0.3, 0, 0), J),
                      TreeBody(0, "revolute", (0, 1, 0), (-0.2, 0, 0), flip, 1.0, (0.3, 0, 0), J),
                      TreeBody(1, "prismatic", (1, 0, 0), (0.6, 0, 0), None, 0.3, (0, 0, 0), J)],
                     gravity=(0, 0, -9.81))
    assert tree.children[0] == [1, 2]
    rng = np.random.default_rng(11)
    q, qd, qdd = (rng.normal(size=4) for _ in range(3))
    tau, ref = tree.inverse_dynamics(q, qd, qdd), tree.lagrange_inverse_dynamics(q, qd, qdd)
    assert np.max(np.abs(tau - ref)) <= ROUND_OFF * np.max(np.abs(ref))
    # at rest at q = 0: the hub (vertical axis) carries no gravity torque; the second arm's
    # pitch joint (world axis -y) holds its 1 kg at 0.3 m: the moment of gravity about the
    # axis is +0.3 m g, so the joint torque is -0.3 m g
    tau0 = tree.inverse_dynamics(np.zeros(4), np.zeros(4), np.zeros(4))
    assert tau0[0] == pytest.approx(0.0, abs=1e-14)
    assert tau0[2] == pytest.approx(-0.3 * 1.0 * 9.81, rel=1e-14)


@pytest.mark.parametrize("kinds", ["R", "RP", "PRR", "RRR"])
def test_serial_planar_chain_is_the_special_case(kinds):
    rng = np.random.default_rng(len(kinds))
    arm = random_arm(kinds, rng)
    tree = tree_from_planar_arm(arm)
    for _ in range(3):
        q, qd, qdd = (rng.normal(size=arm.n_joints) for _ in range(3))
        chain = rigid_inverse_dynamics(arm, q, qd, qdd)
        assert np.max(np.abs(tree.inverse_dynamics(q, qd, qdd) - chain)) <= ROUND_OFF * np.max(
            np.abs(chain))


def test_point_cloud_has_the_body_inertia():
    rng = np.random.default_rng(5)
    b = random_tree(rng, 1).bodies[0]
    m, pts = b.point_cloud()
    d = pts - b.com
    J = sum(mi * (di @ di * np.eye(3) - np.outer(di, di)) for mi, di in zip(m, d))
    assert m.sum() == pytest.approx(b.mass, rel=1e-15)
    assert np.allclose(m @ pts / m.sum(), b.com, atol=1e-15)
    assert np.allclose(J, b.inertia, rtol=0, atol=1e-14 * np.abs(b.inertia).max())


@pytest.mark.parametrize("kw, name", [(dict(parent=-2), "parent"), (dict(kind="ball"), "kind"),
                                      (dict(axis=(0, 0, 0)), "axis"),
                                      (dict(rotation=np.diag([1.0, 1.0, -1.0])), "rotation"),
                                      (dict(mass=-1.0), "mass"),
                                      (dict(inertia=np.diag([1.0, 0.1, 0.1])), "inertia")])
def test_bad_bodies_name_the_parameter(kw, name):
    with pytest.raises(ParameterError, match=name):
        TreeBody(**{"parent": -1, **kw})


def test_parent_must_come_first():
    with pytest.raises(ParameterError, match=r"bodies\[0\].parent"):
        RigidTree([TreeBody(1), TreeBody(-1)])


# -- [L]'s split of a tree into base-to-tip chains -----------------------------------------
def test_chains_of_the_hub_with_two_arms():
    J = np.diag([0.02, 0.03, 0.04])
    tree = RigidTree([TreeBody(-1, mass=1.0, inertia=J), TreeBody(0, mass=1.0, inertia=J),
                      TreeBody(0, mass=1.0, inertia=J), TreeBody(1, mass=1.0, inertia=J),
                      TreeBody(-1, mass=1.0, inertia=J)])
    assert tree.chains() == [[0, 2], [0, 1, 3], [4]]


@pytest.mark.parametrize("seed", range(8))
def test_chain_split_equals_the_tree_recursion(seed):
    """Both compute the same sums of the same wrenches in another order: round-off only
    (the trees' torques are O(1..10) N m; 1e-13 relative is a few hundred eps)."""
    rng = np.random.default_rng(100 + seed)
    tree = random_tree(rng, n_bodies=3 + seed)
    assert len(tree.chains()) == sum(not c for c in tree.children)
    for _ in range(3):
        q, qd, qdd = (rng.normal(size=tree.n) for _ in range(3))
        ref = tree.inverse_dynamics(q, qd, qdd)
        tau = tree.chain_inverse_dynamics(q, qd, qdd)
        assert np.all(np.isfinite(tau))
        assert np.max(np.abs(tau - ref)) <= 1e-13 * np.max(np.abs(ref))


def test_chain_split_counts_the_branch_loads_once():
    """A hub carrying two identical arms at 180 degrees: at rest under gravity along the hub
    axis nothing loads the hub; spinning at rest (qdd on the hub only) its torque is the
    hub's own inertia plus both arms' (each counted once), J_z + 2 (J_arm,z + m d^2)."""
    J = np.diag([0.02, 0.03, 0.04])
    flip = np.diag([-1.0, -1.0, 1.0])
    arm = dict(kind="revolute", axis=(0, 1, 0), mass=1.0, com=(0.3, 0, 0), inertia=J)
    tree = RigidTree([TreeBody(-1, "revolute", (0, 0, 1), mass=2.0, inertia=J),
                      TreeBody(0, origin=(0.2, 0, 0), **arm),
                      TreeBody(0, origin=(-0.2, 0, 0), rotation=flip, **arm)])
    tau = tree.chain_inverse_dynamics(np.zeros(3), np.zeros(3), np.array([1.0, 0.0, 0.0]))
    assert tau[0] == pytest.approx(0.04 + 2 * (0.04 + 1.0 * 0.5 ** 2), rel=1e-14)
