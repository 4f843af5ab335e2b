"""The spatial element's compiled load (chrono_flex.spatial.load_kernels) against its
numpy path (SpatialFlexibleLink._load_terms, i.e. chrono_flex.spatial.floating on the
equations of chrono_flex.spatial.equations, and the Python loop of compute_jacobian):
forces, mass matrix, K and R, on a tree on the ground (a hub on a tilted axis with two
links and a tip mass, under gravity, with geometric stiffening) and on an arm carried by
a free body, at a perturbed state."""

import numpy as np
import pytest

from chrono_flex.planar import kernels

pytestmark = [pytest.mark.pychrono,
              pytest.mark.skipif(kernels.backend() != "numba",
                                 reason="the compiled path needs the numba backend")]
chrono = pytest.importorskip("pychrono", reason="PyChrono is not installed")


class _Jac:
    K = R = M = None


class _Load:
    def __init__(self, jac):
        self.jac = jac

    def GetJacobians(self):
        return self.jac


class _Grab:
    """Stands in for pychrono in compute_jacobian: keeps K and R as arrays."""

    def ChMatrixDynamicd(self, A):
        return np.array(A)


def _link(n=2):
    from chrono_flex.spatial.params import SpatialLink

    return SpatialLink(0.8, n, EI_y=3.0, EI_z=2.0, GJ=1.0, rho_A=0.5, rho_Ip=1e-3)


def _system(gravity):
    from chrono_flex.chrono import configure_system

    sys_ = chrono.ChSystemNSC()
    sys_.SetGravitationalAcceleration(chrono.ChVector3d(*gravity))
    configure_system(sys_)
    return sys_


def _ground_tree(torque):
    from chrono_flex.chrono.spatial_element import SpatialFlexibleLink
    from chrono_flex.spatial.arm import SpatialArm
    from chrono_flex.spatial.params import FixedJoint, RevoluteJoint, RigidBody

    joints = [RevoluteJoint(axis=(0.3, -0.2, 1.0)),
              RevoluteJoint(axis=(0, 1, 0), offset=(0.05, 0, 0)),
              RevoluteJoint(axis=(0, 0, 1), offset=(-0.05, 0, 0), x_axis=(-1, 0, 0),
                            y_axis=(0, -1, 0)),
              FixedJoint()]
    arm = SpatialArm([RigidBody(1.0, (0.02, 0.02, 0.05)), _link(), _link(3),
                      RigidBody(0.1, (1e-3, 2e-3, 3e-3))], joints, parents=[-1, 0, 0, 2],
                     geometric_stiffening=True)
    sys_ = _system((0.5, -1.0, -9.81))
    frame = (np.array([0.2, -0.1, 0.3]), np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1.0]]))
    return SpatialFlexibleLink(sys_, arm, joint_frame=frame, torque=torque)


def _free_body(torque):
    from chrono_flex.chrono.spatial_element import SpatialFlexibleLink
    from chrono_flex.spatial.arm import SpatialArm
    from chrono_flex.spatial.params import RevoluteJoint, RigidBody, turned

    x_axis, y_axis = turned(0.4, (0, 1, 0))
    arm = SpatialArm([_link(), RigidBody(0.2, (1e-3, 1e-3, 2e-3)), _link()],
                     joints=[RevoluteJoint(axis=(0, 0, 1), x_axis=x_axis, y_axis=y_axis),
                             RevoluteJoint(axis=(0, 1, 0)), RevoluteJoint(axis=(1, 0, 0))],
                     parents=[-1, 0, 1])
    sys_ = _system((0.0, -9.81, 0.0))
    body = chrono.ChBody()
    body.SetMass(2.0)
    body.SetInertiaXX(chrono.ChVector3d(0.1, 0.2, 0.15))
    body.SetPos(chrono.ChVector3d(0.3, -0.2, 0.1))
    body.SetRot(chrono.QuatFromAngleAxis(0.7, chrono.ChVector3d(1, 2, 3).GetNormalized()))
    body.SetPosDt(chrono.ChVector3d(0.1, 0.0, -0.05))
    body.SetAngVelLocal(chrono.ChVector3d(0.3, -0.2, 0.5))
    sys_.Add(body)
    return SpatialFlexibleLink(sys_, arm, parent_body=body,
                               joint_frame=(np.array([0.1, 0.05, 0.0]), np.eye(3)),
                               torque=torque)


def _states(link, rng):
    """Chrono's x, w of the load with every arm coordinate moved off its rest state."""
    from chrono_flex.chrono.attachment import body_state
    from chrono_flex.chrono.system import matrix_to_quat

    parts_x, parts_w = [], []
    if link._moving:
        p, A, v, om = body_state(link.parent_body)
        parts_x += [p, matrix_to_quat(A)]
        parts_w += [v, om]
    parts_x.append(0.05 * rng.normal(size=link.nq))
    parts_w.append(0.5 * rng.normal(size=link.nq))
    return (np.concatenate([np.asarray(a, dtype=float) for a in parts_x]),
            np.concatenate([np.asarray(a, dtype=float) for a in parts_w]))


def _state_torque(t, q, qd):
    """A joint law that reads the state (its K and R are differenced in Python)."""
    return [0.3 * np.sin(3 * t) - 2.0 * q[0] - 0.1 * qd[0], 0.3 * q[5], -0.2 * qd[4]]


@pytest.mark.parametrize("build", [_ground_tree, _free_body])
def test_compiled_load_matches_the_numpy_path(build):
    from chrono_flex.inputs import pulse

    link = build(pulse([0.1, -0.05, 0.02], 0.5))
    link._time = 0.2
    pack = link._compiled_load()
    assert pack is not None and pack.moving == link._moving
    x, w = _states(link, np.random.default_rng(3))
    Q = link._joint_forces_at(x, w)
    assert np.abs(Q).max() > 0.0                     # the torque enters the forces
    M_c, f_c = link._kernels.load_forces(pack, x, w, Q, link._gravity)
    M_a, f_a, _ = link._load_terms(x, w)
    # the same formulas summed in another order: round-off of the largest terms
    scale = np.abs(f_a).max()
    assert np.abs(f_c - f_a).max() < 1e-12 * scale
    assert M_c.shape == M_a.shape
    assert np.abs(M_c - M_a).max() < 1e-12 * np.abs(M_a).max()

    # K and R: both one-sided differences with step 1e-8, so they agree to the
    # round-off of the differenced forces over the step: 1e-16 scale / 1e-8 (and a
    # margin of 100 for the sums' length)
    link._last_state = (x, w, f_a)
    K_c, R_c, K_a, R_a = _compiled_and_numpy_jacobians(link)
    tol = 1e-6 * scale
    assert np.abs(K_c - K_a).max() < tol
    assert np.abs(R_c - R_a).max() < tol
    assert np.abs(K_a).max() > 1e3 * tol and np.abs(R_a).max() > 1e2 * tol


def _compiled_and_numpy_jacobians(link):
    """(K, R) of the link's compute_jacobian on its compiled path, then (K, R) on its
    numpy path, at the link's last state (Chrono's own calls replaced by _Grab)."""
    jac = _Jac()
    link._chrono, real = _Grab(), link._chrono
    try:
        link.compute_jacobian(_Load(jac))
        K_c, R_c = jac.K, jac.R
        link._load_pack = None                      # the numpy path
        link.compute_jacobian(_Load(jac))
        return K_c, R_c, jac.K, jac.R
    finally:
        link._chrono = real


def test_a_state_torque_enters_k_and_r():
    """A torque callback that reads q and q_dot: its -dQ/dq and -dQ/dq_dot are added
    to the compiled K and R (the numpy path differences it with the rest)."""
    link = _ground_tree(_state_torque)
    link._time = 0.1
    pack = link._compiled_load()
    x, w = _states(link, np.random.default_rng(7))
    _, f_a, _ = link._load_terms(x, w)
    link._last_state = (x, w, f_a)
    K_arm, R_arm = link._kernels.load_jacobian(pack, x, w, link._joint_forces_at(x, w),
                                               link._gravity, link.JACOBIAN_DELTA)
    K_c, R_c, K_a, R_a = _compiled_and_numpy_jacobians(link)
    tol = 1e-6 * np.abs(f_a).max()                 # as above
    assert np.abs(K_c - K_a).max() < tol and np.abs(R_c - R_a).max() < tol
    # the law's gains (the arm's own K and R held apart): joint 0 (row 0) 2.0 in K and
    # 0.1 in R; joint 1 -0.3 in K on column 5, joint 2 0.2 in R on column 4 (an elastic
    # coordinate each); differences of a linear law: exact to round-off / step
    rows = link.arm.joint_index
    dK, dR = (K_c - K_arm)[rows], (R_c - R_arm)[rows]
    expect_K, expect_R = np.zeros_like(dK), np.zeros_like(dR)
    expect_K[0, 0], expect_R[0, 0], expect_K[1, 5], expect_R[2, 4] = 2.0, 0.1, -0.3, 0.2
    assert np.abs(dK - expect_K).max() < 1e-6 and np.abs(dR - expect_R).max() < 1e-6


def test_compute_q_reports_non_finite_forces():
    link = _free_body(None)
    pack = link._compiled_load()
    x, w = _states(link, np.random.default_rng(5))
    Q, g = link._joint_forces_at(x, w), link._gravity
    M, f, finite, K_w, R_w = link._kernels.compute_q(pack, x, w, Q, g, False, False)
    M1, f1 = link._kernels.load_forces(pack, x, w, Q, g)
    assert finite and np.array_equal(f, f1) and np.array_equal(M, M1)
    assert K_w is None and R_w is None
    w_bad = w.copy()
    w_bad[8] = np.nan
    assert not link._kernels.compute_q(pack, x, w_bad, Q, g, False, False)[2]


def test_the_numpy_path_stays_where_the_compiled_load_does_not_apply():
    """Welded bodies keep the numpy path (the compiled load carries no welds)."""
    link = _free_body(None)
    assert link._compiled_load() is not None
    body = chrono.ChBody()
    body.SetMass(0.1)
    body.SetInertiaXX(chrono.ChVector3d(1e-4, 1e-4, 1e-4))
    link.system.Add(body)
    link.attach(body)
    assert link._compiled_load() is None


@pytest.mark.parametrize("build", [_ground_tree, _free_body])
def test_compiled_tip_motion_matches_the_numpy_path(build):
    """The tip body's pose and velocity (sync) from the compiled frames equal the numpy
    frames (world_tip_frames, and the tip's Jacobian of equations.evaluate)."""
    link = build(None)
    rng = np.random.default_rng(11)
    for k, sh in enumerate(link.shafts):
        sh.SetPos(0.05 * rng.normal())
        sh.SetPosDt(0.5 * rng.normal())
    pos_c, R_c, v_c = link._tip_motion()
    link._load_pack = None
    pos_a, R_a, v_a = link._tip_motion()
    # the same products in another order: round-off of metres and m/s of order one
    assert np.abs(pos_c - pos_a).max() < 1e-14 and np.abs(R_c - R_a).max() < 1e-14
    assert np.abs(v_c - v_a).max() < 1e-13 and np.abs(v_a).max() > 0.1
