"""chrono_flex.chrono.linearize: a Chrono system's linear model from its own M, K, R and
Cq, against PlanarArm.linearize on the same arm (docs/chrono.md §10.1)."""

import numpy as np
import pytest
from scipy.linalg import eigh

import chrono_flex as cf
from chrono_flex.errors import ParameterError
from chrono_flex.scenarios.arms import bien_link

pytestmark = pytest.mark.pychrono
chrono = pytest.importorskip("pychrono", reason="PyChrono is not installed")

HUB, PAYLOAD = 0.01, 0.1          # kg m^2 at the hub, kg at the tip


def pinned_link(n, gravity=0.0):
    return cf.PlanarArm([bien_link(1.0, n)], hub_inertia=HUB, payload=cf.Payload(PAYLOAD),
                        gravity=gravity)


def _system(gravity=0.0):
    from chrono_flex.chrono import configure_system
    s = chrono.ChSystemNSC()
    configure_system(s)
    s.SetGravitationalAcceleration(chrono.ChVector3d(0.0, -gravity, 0.0))
    return s


def _link(arm, gravity=0.0, **kw):
    from chrono_flex.chrono import FlexibleLink
    return FlexibleLink(_system(gravity), arm, **kw)


def test_flexible_link_gives_the_reference_model():
    from chrono_flex.chrono import linearize
    arm = pinned_link(6)
    ref = arm.linearize(inputs="torque1", outputs=["theta1", "tip_lateral"])
    lm = linearize(_link(arm), inputs="torque1", outputs=["theta1", "tip_lateral"])
    assert lm.state_names == ref.state_names and lm.output_names == ref.output_names
    # Chrono's M is the shafts' inertia plus the injected M(q) (the same numbers), its K
    # and R the element's one-sided differences with step 1e-8 of forces that are linear
    # here (no gravity, at rest): exact up to ~1e-8 / 1 relative round-off, far below 1e-6
    scale = np.abs(ref.A).max()
    assert np.abs(lm.A - ref.A).max() <= 1e-6 * scale
    np.testing.assert_allclose(lm.B, ref.B, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(lm.C, ref.C, rtol=1e-12, atol=1e-15)
    p, pr = np.sort(np.abs(lm.poles())), np.sort(np.abs(ref.poles()))
    assert np.sum(pr < 1e-6) == 2 and np.sum(p < 1e-3 * pr[2]) == 2   # the rigid rotation
    np.testing.assert_allclose(p[2:], pr[2:], rtol=1e-6)
    z = np.sort(np.abs(lm.select("torque1", "theta1").zeros()))
    zr = np.sort(np.abs(ref.select("torque1", "theta1").zeros()))
    np.testing.assert_allclose(z, zr, rtol=1e-6)


def test_hanging_link_under_gravity_carries_gravity_stiffness():
    """The link horizontal under gravity, the hub held by its torque at the static
    deflection: K carries gravity's Hessian; the equilibrium balanced by torque1."""
    from chrono_flex.chrono import linearize
    from chrono_flex.planar.statics import static_equilibrium
    arm = pinned_link(4, gravity=9.81)
    eq = static_equilibrium(arm, joints="held")
    ref = arm.linearize(inputs="torque1", outputs="theta1", pose=eq)
    e0 = np.delete(eq.q, arm.joint_index)
    link = _link(arm, 9.81, elastic0=e0)
    lm = linearize(link, inputs="torque1", outputs="theta1")
    p, pr = np.sort(np.abs(lm.poles())), np.sort(np.abs(ref.poles()))
    # gravity's terms differenced by the element (step 1e-8, one-sided: error ~1e-8 of
    # the O(1) second derivatives) and by the reference (central, 1e-6): 1e-6 relative
    np.testing.assert_allclose(p[2:], pr[2:], rtol=1e-6)
    with pytest.raises(ParameterError, match="item"):        # nothing holds the hub
        linearize(_link(arm, 9.81, elastic0=e0), inputs=[], outputs="theta1")


def test_not_an_equilibrium_names_the_item():
    from chrono_flex.chrono import linearize
    arm = pinned_link(2)
    e0 = np.zeros(arm.nq - 1)
    e0[0] = 1e-3                                 # deflected, nothing holds it
    with pytest.raises(ParameterError, match="item.*not an equilibrium"):
        linearize(_link(arm, elastic0=e0))
    with pytest.raises(ParameterError, match="item.*not at rest"):
        linearize(_link(arm, joint_rates0=[0.5]))
    lm = linearize(_link(arm, elastic0=e0), equilibrium=False)      # asked for
    assert lm.A.shape == (2 * arm.nq, 2 * arm.nq)
    with pytest.raises(ParameterError, match="inputs"):
        linearize(_link(arm), inputs="voltage1")
    with pytest.raises(ParameterError, match="outputs"):
        linearize(_link(arm), outputs="elbow")


def _excited(lm):
    """Natural frequencies (rad/s) of the modes that the first input moves (the in-plane
    ones: the beams' out-of-plane bending is decoupled from the hub torque), from the
    model's own M_r, K_r (modal participation above 1e-3 of the largest)."""
    Mr, Kr = lm.info["mass_matrix"], lm.info["stiffness"]
    w2, P = eigh(0.5 * (Kr + Kr.T), 0.5 * (Mr + Mr.T))
    r = Mr.shape[0]
    part = np.abs(P.T @ (Mr @ lm.B[r:, 0]))
    return np.sqrt(np.maximum(w2[part > 1e-3 * part.max()], 0.0))


def _beams_model(arm, consistent):
    from chrono_flex.chrono import linearize
    from chrono_flex.chrono.beam_scene import build_beams
    from chrono_flex.chrono.linearization import body_rotation_row
    ba = build_beams(arm, consistent_mass=consistent, rayleigh_beta=0.0, rayleigh_alpha=0.0)
    row = body_rotation_row(ba.system, ba.links[0].hub, arm.plane.normal)
    return linearize(ba.system, inputs={"torque1": row}, outputs={"theta1": row})


def test_chrono_beams_arm_has_the_reference_poles():
    arm = pinned_link(4)
    lm = _beams_model(arm, consistent=True)
    assert lm.info["n_constraints"] > 0 and lm.state_names[0] == "xi1"
    w = _excited(lm)
    ref = np.sort(np.abs(arm.linearize(inputs="torque1").poles()))[2::2]
    # consistent-mass Timoshenko elements with shear parameter 1e-6 and rotary inertia
    # 1e-9 mu: the reference's Hermite element up to O(1e-6) in frequency
    assert w[0] < 1e-3 * w[1]                               # the hub's free rotation
    np.testing.assert_allclose(w[1:5], ref[:4], rtol=1e-6)


def test_chrono_lumped_beams_converge_at_second_order():
    errs = []
    for n in (4, 8):
        arm = pinned_link(n)
        ref = np.sort(np.abs(arm.linearize(inputs="torque1").poles()))[2::2][:2]
        w = _excited(_beams_model(arm, consistent=False))[1:3]
        errs.append(np.abs(w - ref) / ref)
    rate = np.log2(errs[0] / errs[1])
    # lumped against consistent mass: the lumped error is O(h^2) in frequency (the
    # consistent one is O(h^4)); the two lowest modes, which 4 elements already resolve
    # (the third is pre-asymptotic there: 2.8), give 1.91 and 1.96
    assert np.all((rate > 1.6) & (rate < 2.6)), rate


def test_chrono_system_inputs_must_be_vectors():
    from chrono_flex.chrono import linearize
    with pytest.raises(ParameterError, match="inputs"):
        linearize(_system(), inputs="torque1")
    with pytest.raises(ParameterError, match="item"):
        linearize(object())
