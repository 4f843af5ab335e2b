"""K and R of the custom element differenced on arrays (FlexibleLink.differences
"arrays", the default) against Chrono's own loop over ComputeQ calls ("chrono").

Both take one-sided differences with Chrono's step 1e-8 and increment the state as
Chrono does (a body's rotation by a local rotation vector), so the Jacobians, and hence
the trajectories, agree to round-off; the array path needs one ComputeQ call from
Chrono per Jacobian instead of 2n + 2."""

import numpy as np
import pytest

from chrono_flex.chrono.element import FlexibleLink, _quat_times_axis_rotation

pytestmark = pytest.mark.pychrono


def _slider_crank(differences, jacobian, steps=30, step=1e-3):
    from chrono_flex.chrono import scenes

    sc = scenes.SliderCrank(jacobian=jacobian)
    sc.link.differences = differences
    scenes.run(sc.system, step, steps * step, lambda: 0.0)
    return sc


@pytest.mark.parametrize("jacobian", ["step", "iteration"])
def test_array_differences_match_chrono_differences(jacobian):
    a = _slider_crank("arrays", jacobian)
    c = _slider_crank("chrono", jacobian)
    # The two K, R differ by the round-off of the differenced forces (1e-16 / 1e-8 of
    # their scale); Newton converges to 1e-9 (configure_system's rel_tol) either way, so
    # the states agree far below the step's own error (1e-6 of the coordinates).
    scale = np.abs(c.link.q()).max()
    assert np.abs(np.asarray(a.link.q()) - c.link.q()).max() < 1e-8 * scale
    assert np.abs(np.asarray(a.link.qd()) - c.link.qd()).max() < 1e-6 * np.abs(c.link.qd()).max()
    # the array path: ComputeQ once per Update; Chrono's: 2 nw + 2 more per Jacobian
    assert a.link.n_jacobians > 0
    assert a.link.n_compute_q < c.link.n_compute_q - a.link.n_jacobians * 2 * a.link._nw


def test_jacobian_matches_chrono_on_a_spatial_tree_with_a_weld(chrono):
    """The spatial element (SpatialFlexibleLink shares the load) with a welded body."""
    import chrono_flex as cf
    from chrono_flex.chrono import configure_system, step
    from chrono_flex.chrono.spatial_element import SpatialFlexibleLink
    from chrono_flex.spatial import SpatialArm, SpatialLink

    def run(differences):
        system = chrono.ChSystemNSC()
        configure_system(system)
        arm = SpatialArm([SpatialLink(length=0.6, n_elements=2, EI_y=2.0, EI_z=3.0, GJ=1.5,
                                      rho_A=0.3, rho_Ip=1e-4)])
        link = SpatialFlexibleLink(system, arm, torque=lambda t, q, qd: [0.2],
                                   jacobian="step")
        link.differences = differences
        body = chrono.ChBody()
        body.SetPos(chrono.ChVector3d(0.6, 0, 0))
        body.SetMass(0.1)
        body.SetInertiaXX(chrono.ChVector3d(1e-4, 1e-4, 1e-4))
        system.Add(body)
        link.attach(body)
        for _ in range(20):
            step(system, 1e-3)
        return np.asarray(link.q())

    qa, qc = run("arrays"), run("chrono")
    # as above: round-off in K and R, Newton to 1e-9
    assert np.abs(qa - qc).max() < 1e-8 * np.abs(qc).max()


def test_rotation_increment_is_chronos():
    """quat * exp(d e_k / 2): Chrono's ChBody::IntStateIncrement, local axis k."""
    from scipy.spatial.transform import Rotation

    r = Rotation.from_euler("xyz", [0.3, -1.1, 2.0])
    xyzw = r.as_quat()
    quat = np.r_[xyzw[3], xyzw[:3]]
    for k in range(3):
        rv = np.zeros(3)
        rv[k] = 0.37
        ref = (r * Rotation.from_rotvec(rv)).as_quat()
        out = _quat_times_axis_rotation(quat, k, 0.37)
        assert np.allclose(out, np.r_[ref[3], ref[:3]], atol=1e-14)


def test_differences_default_is_arrays():
    assert FlexibleLink.differences == "arrays"
