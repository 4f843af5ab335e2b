"""The compiled generalized-alpha step of a spatial tree (chrono_flex.spatial.tree_ga:
chain_ga's step bound to the spatial kernels) against the numpy path (the numpy
equations and the Python iteration, chrono_flex.spatial.reference.COMPILED off).

Both solve the same equations of every step in the same order with the same tests;
their residuals differ by round-off (the kernels sum in another order, tested in
test_spatial_kernels.py), so their iterates differ by round-off while they take the
same iterations, and by up to Newton's tolerance (1e-8 of the velocities) where one
stops an iteration before the other. Bounds: 1e-8 of each coordinate's range at a fixed
step (measured: a few 1e-12); 1e-6 under the step control, whose step sizes follow
the iterates (as tests/planar/test_chain_ga.py)."""

import math

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex import inputs
from chrono_flex.integrators.choice import GA_RTOL
from chrono_flex.integrators.generalized_alpha import GeneralizedAlpha
from chrono_flex.planar import chain_ga, chain_linalg
from chrono_flex.spatial import params as sp
from chrono_flex.spatial import reference, tree_ga

needs_numba = pytest.mark.skipif(not chain_ga.available(),
                                 reason="numba is not installed (the `fast` extra)")


def tree():
    """A hub about z with two links on it (one about y, one about x turned by 180
    degrees), a prismatic joint with a payload at the first link's tip; gravity."""
    l1 = sp.SpatialLink(1.0, 2, EI_y=2.0, EI_z=1.5, GJ=1.0, rho_A=0.2, rho_Ip=1e-3)
    l2 = sp.SpatialLink(0.5, 2, EI_y=2.0, EI_z=1.5, GJ=1.0, rho_A=0.2, rho_Ip=1e-3)
    xb, yb = sp.turned(math.pi)
    return cf.SpatialArm(
        [sp.RigidBody(1.0, (0.1, 0.1, 0.2)), l1, sp.RigidBody(0.1, (1e-3, 1e-3, 1e-3)), l2],
        joints=[sp.RevoluteJoint(axis=(0, 0, 1), hub_inertia=0.05),
                sp.RevoluteJoint(axis=(0, 1, 0), offset=(0.1, 0, 0)),
                sp.PrismaticJoint(axis=(1, 0, 0)),
                sp.RevoluteJoint(axis=(1, 0, 0), offset=(-0.1, 0, 0), x_axis=xb, y_axis=yb)],
        parents=[-1, 0, 1, 0], gravity=True)


def run(arm, compiled, monkeypatch, **kw):
    monkeypatch.setattr(reference, "COMPILED", compiled)
    res = arm.simulate(progress=False, method="generalized_alpha", **kw)
    assert res.info["newton"] == ("compiled" if compiled else "python")
    return res


def agree(a, b, tol):
    span = np.maximum(np.ptp(b, axis=0), 1e-3)
    return np.all(np.abs(a - b).max(axis=0) <= tol * span)


KW = dict(t_end=0.1, dt_out=0.01, qd0=[1.0, 0.5, 0.0, -0.5],
          torque=inputs.pulse([0.05, -0.02, 0.1, 0.01], 0.1))


@needs_numba
def test_compiled_step_equals_the_numpy_path_at_a_fixed_step(monkeypatch):
    arm = tree()
    a = run(arm, True, monkeypatch, step=2e-3, **KW)
    b = run(arm, False, monkeypatch, step=2e-3, **KW)
    assert a.info["n_steps"] == b.info["n_steps"] == 50
    # each iteration stops within Newton's tolerance (1e-8 of the velocities) from its
    # own first iterate (the compiled one extrapolated), and the stop on the error
    # estimated from the contraction leaves up to that tolerance: 100 times it, as the
    # planar runs compared (tests/planar/test_chain_ga.py, AGREE)
    assert agree(a.q, b.q, 1e-6) and agree(a.qd, b.qd, 1e-6)
    assert agree(a.energy.input_work[:, None], b.energy.input_work[:, None], 1e-6)
    assert np.ptp(a.q[:, 0]) > 0.05 and np.ptp(a.q[:, arm.elastic_index]) > 1e-4


@needs_numba
def test_compiled_step_control_takes_the_python_steps(monkeypatch):
    """Default settings (the step control): the same accepted and rejected steps."""
    arm = tree()
    a, b = run(arm, True, monkeypatch, **KW), run(arm, False, monkeypatch, **KW)
    assert a.info["n_steps"] == b.info["n_steps"]
    assert a.info["rejected"] == b.info["rejected"]
    # 100 times the Newton tolerance under the step control (NEWTON_FRACTION of its
    # rtol), as the planar runs compared (tests/planar/test_chain_ga.py, agree)
    tol = 100 * GeneralizedAlpha.NEWTON_FRACTION * GA_RTOL
    assert agree(a.q, b.q, tol) and agree(a.qd, b.qd, tol)


@needs_numba
def test_state_feedback_is_held_and_other_problems_keep_python(monkeypatch):
    """A torque that may read the state is held over the compiled step (the run says
    so); prescribed joints keep the Python iteration."""
    arm = tree()
    monkeypatch.setattr(reference, "COMPILED", True)
    res = arm.simulate(0.02, torque=lambda t, q, qd: -0.1 * qd[arm.joint_index],
                       qd0=[1.0, 0.0, 0.0, 0.0], step=1e-3, progress=False)
    assert res.info["newton"] == "compiled"
    assert res.info["torque_evaluation"] == "predicted"
    assert res.joint_rates[-1, 0] < 1.0                      # the feedback brakes
    motion = lambda t: (np.full(4, 0.1 * t), np.full(4, 0.1), np.zeros(4))  # noqa: E731
    res = arm.simulate(0.01, joint_motion=motion, step=1e-3, progress=False)
    assert res.info["newton"] == "python"


@needs_numba
def test_sparse_lu_gives_the_dense_lu_factors():
    """The tree's LU over the nonzeros (tree_ga._lu_factor_sparse) returns the planar
    dense LU's pivots and factors bit for bit (the same operations on every nonzero):
    on sparse matrices whose pivoting swaps rows, on a dense one, and a singular one
    reported as such by both."""
    rng = np.random.default_rng(3)
    for density in (0.08, 0.2, 1.0):
        for _ in range(20):
            n = 44
            A = rng.standard_normal((n, n)) * (rng.random((n, n)) < density)
            A[np.arange(n), np.arange(n)] += 0.1 * rng.standard_normal(n)
            A1, A2 = A.copy(), A.copy()
            p1, p2 = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
            assert chain_linalg._lu_factor(A1, p1) and tree_ga._lu_factor_sparse(A2, p2)
            assert np.array_equal(p1, p2) and np.array_equal(A1, A2)
            assert np.any(p1 != np.arange(n))                    # rows were swapped
    A = np.eye(6)
    A[3, 3] = 0.0
    assert not chain_linalg._lu_factor(A.copy(), np.zeros(6, dtype=np.int64))
    assert not tree_ga._lu_factor_sparse(A.copy(), np.zeros(6, dtype=np.int64))
