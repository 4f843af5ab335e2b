"""Bodies welded to a spatial arm (SpatialFlexibleLink.attach, docs/chrono.md §8, §12):
statics against the reference arm carrying the same payload as a RigidBody, dynamics
against the element with the payload inside the arm, energy, and bad input."""

import math

import numpy as np
import pytest

from chrono_flex.errors import ParameterError
from chrono_flex.spatial import equations as mdl
from chrono_flex.spatial.arm import SpatialArm
from chrono_flex.spatial.params import FixedJoint, RevoluteJoint, RigidBody, SpatialLink

from _chrono_helpers import sample

pytestmark = pytest.mark.pychrono
chrono = pytest.importorskip("pychrono", reason="PyChrono is not installed")

L = 0.8
MASS, INERTIA = 0.2, (2e-3, 3e-3, 4e-3)
OFFSET = np.array([0.03, 0.02, -0.01])     # the payload's centre from the tip, link frame
AXIS = (0.0, 0.3, 1.0)                     # a tilted joint: the arm bends in both planes


def _link(n=2, EI=(3.0, 2.0)):
    return SpatialLink(L, n, EI_y=EI[0], EI_z=EI[1], GJ=1.0, rho_A=0.5, rho_Ip=1e-3)


def _new(gravity, arm, **kw):
    from chrono_flex.chrono import scenes
    from chrono_flex.chrono.spatial_element import SpatialFlexibleLink

    system = scenes.new_system(gravity=tuple(gravity))
    return system, SpatialFlexibleLink(system, arm, **kw)


def _payload(system, position=None):
    from chrono_flex.chrono import scenes

    return scenes.free_body(system, MASS, INERTIA, (L, 0, 0) + OFFSET
                            if position is None else position)


# -- statics -----------------------------------------------------------------------------

def _reference_equilibrium(arm):
    """The reference arm's static equilibrium K e = Q_g(e) by fixed-point iteration (the
    offset payload's weight turns with the tip: the load depends on the deflection)."""
    model = arm.model
    ei = model.elastic_index
    q = np.zeros(model.nq)
    for _ in range(60):
        Qg = mdl.terms(model, q, np.zeros(model.nq))[2]
        q_new = q.copy()
        q_new[ei] = np.linalg.solve(model.K[np.ix_(ei, ei)], Qg[ei])
        if np.max(np.abs(q_new - q)) < 1e-15:
            break
        q = q_new
    return q_new


def test_welded_payload_bends_a_cantilever_as_the_payload_inside_the_arm():
    """Skew gravity on a clamped link with an offset payload at its tip: it bends in both
    planes and twists. Chrono's static solve of the welded scene meets the reference
    arm's equilibrium with the payload as a RigidBody on a FixedJoint."""
    g = np.array([0.3, -4.0, -8.9])
    link = _link(4, EI=(30.0, 20.0))
    ref = SpatialArm([link, RigidBody(MASS, INERTIA)],
                     [FixedJoint(), FixedJoint(offset=tuple(OFFSET))], gravity=g)
    q_ref = _reference_equilibrium(ref)
    system, el = _new(g, SpatialArm([link], [FixedJoint()]), jacobian="iteration")
    body = _payload(system)
    att = el.attach(body)
    assert system.DoStaticNonlinear(10)
    q = el.q()
    scale = np.max(np.abs(q_ref))
    # the weld carries the payload's weight and moment, so the link's equilibrium is the
    # reference's up to the weld's relative rotation theta = |M| / k_r (it turns the
    # payload's lever, and so its moment, by a relative theta; 1e-8 here) and Newton's
    # tolerance on the static residual (1e-9 relative); seen: 4e-9 of the deflection
    theta = att.error()[1]
    assert np.max(np.abs(q - q_ref[:el.nq])) <= (2 * theta + 1e-9) * scale, (theta, scale)
    tip_v, tip_w, tip_phi = el.tip_coordinates()[0]
    assert abs(tip_v) > 1e-3 and abs(tip_w) > 1e-3 and abs(tip_phi) > 1e-4   # 3D, loaded
    # the weld holds the weight, opening by |F| / k_p (the stiffness rule, eq. (8.4)), to
    # the round-off of the positions (50 eps of the 1 m reach: 1e-14 m, k_p = 4.5e8 N/m
    # makes it 5e-6 N; the bound of configure_system's weld_tolerance_floor)
    W = MASS * g
    eps_x = 50 * np.finfo(float).eps * 1.0
    assert np.allclose(att.force, -W, rtol=0, atol=att.stiffness[0] * eps_x)
    gap_rule = np.linalg.norm(W) / att.stiffness[0]
    assert abs(att.error()[0] - gap_rule) <= eps_x
    # and the body's centre sits where the reference payload's is
    p_ref = ref.tip_frame(q_ref, 1)[0]
    p = body.GetPos().to_numpy()
    assert np.linalg.norm(p - p_ref) <= 2 * gap_rule + att.error()[1] * np.linalg.norm(OFFSET)


# -- dynamics ----------------------------------------------------------------------------

def _torque(t, q, qd):
    return [0.2 * np.sin(4.0 * t)]


def _swing(h, ratio=None, t_end=0.1):
    """Joint angle, elastic coordinates and tip (v, w, phi) every 10 ms of a link on a
    tilted revolute joint driven by a torque, under gravity, carrying the offset payload:
    welded with ``ratio`` (None: inside the arm as a RigidBody)."""
    g = (0.0, 0.0, -9.81)
    if ratio is None:
        arm = SpatialArm([_link(), RigidBody(MASS, INERTIA)],
                         [RevoluteJoint(axis=AXIS), FixedJoint(offset=tuple(OFFSET))])
        system, el = _new(g, arm, torque=_torque)
    else:
        system, el = _new(g, SpatialArm([_link()], [RevoluteJoint(axis=AXIS)]), torque=_torque)
        el.attach(_payload(system), stiffness_ratio=ratio)
    return sample(system, h, t_end, 0.01,
                  lambda: np.concatenate([el.q(), el.tip_coordinates()[0]]))


def test_welded_payload_tends_to_the_internal_payload_as_the_weld_stiffens():
    """The welded payload and the payload inside the arm (the element checked against the
    reference engine in test_spatial_element.py) share the step h = 1.25 ms, so their
    time-stepping errors nearly cancel; what separates them is the bushing's compliance,
    first order in 1/kappa (docs/chrono.md eq. (8.4): gap |F| / k_p, relative rotation
    |M| / k_r), over a floor of ~1e-7 (h = 1.25 ms: the weld's own oscillation, far
    beyond the step, is stepped differently from the rigid payload; 7e-7 at 2.5 ms).
    Seen: 6.9e-6 and 6.3e-7 at kappa = 1e3 and 1e4, 3e-5 of the motion."""
    h, t_end = 1.25e-3, 0.05
    internal = _swing(h, t_end=t_end)
    d3 = np.max(np.abs(_swing(h, 1e3, t_end) - internal))
    d4 = np.max(np.abs(_swing(h, 1e4, t_end) - internal))
    scale = np.max(np.abs(internal))
    # ten times stiffer, ten times closer, but for the floor (seen: 10.9)
    assert d3 / d4 > 7.0, (d3, d4)
    # and the difference is the compliance's size: (l / L) / (4 kappa) with a factor 4
    # for the rotational compliance carried to the payload's centre and the floor
    # (2-element link, l / L = 1/2)
    assert d4 <= 4 * 0.5 / (4 * 1e4) * scale, (d4, scale)


# -- energy ------------------------------------------------------------------------------

def _free_swing_energy(h, t_end=0.12):
    """A link on a free tilted revolute joint under gravity, the offset payload welded at
    its tip, released at rest, no damping: (total energy - its start) over time, and
    the largest kinetic energy."""
    g = np.array([0.0, 0.0, -9.81])
    system, el = _new(g, SpatialArm([_link()], [RevoluteJoint(axis=(1.0, 0.0, 0.2))]))
    body = _payload(system)
    J = np.diag(INERTIA)
    att = el.attach(body)

    def energy():
        v = body.GetPosDt().to_numpy()
        w = body.GetAngVelLocal().to_numpy()
        kin_b = 0.5 * MASS * v @ v + 0.5 * w @ J @ w
        return [sum(el.energy()) + kin_b - MASS * g @ body.GetPos().to_numpy() + att.energy(),
                el.energy()[0] + kin_b]

    from chrono_flex.chrono import scenes

    E0 = energy()[0]
    rows = scenes.run(system, h, t_end, energy)
    return rows[:, 0] - E0, np.max(rows[:, 1])


def test_undamped_welded_scene_conserves_energy_to_the_integrators_accuracy():
    """Kinetic + elastic + gravity + bushing energy: the drift falls with the step at the
    order of HHT (>= 1.5) and stays a small fraction of the kinetic energy, so the weld
    adds no energy."""
    drifts = []
    for h in (2e-3, 1e-3):
        dE, scale = _free_swing_energy(h)
        drifts.append(np.max(np.abs(dE)))
    p = math.log2(drifts[0] / drifts[1])
    assert p >= 1.5, drifts
    assert drifts[1] < 1e-4 * scale, (drifts, scale)


# -- bad input ---------------------------------------------------------------------------

def test_bad_attachments_are_named():
    from chrono_flex.chrono import scenes

    # a hub (a rigid body, not counted) and two links: link numbers -2..1
    arm = SpatialArm([RigidBody(1.0, (0.1, 0.1, 0.1)), _link(), _link()],
                     [RevoluteJoint(), RevoluteJoint(offset=(0.1, 0, 0)),
                      RevoluteJoint(offset=(-0.1, 0, 0))], parents=[-1, 0, 0])
    system, el = _new((0, 0, 0), arm)
    other = scenes.new_system()
    stranger = scenes.free_body(other, 1.0, (1, 1, 1), (L, 0, 0))
    loose = chrono.ChBody()
    body = scenes.free_body(system, 1.0, (1, 1, 1), (L, 0, 0))
    fixed = scenes.free_body(system, 1.0, (1, 1, 1), (L, 0, 0))
    fixed.SetFixed(True)
    cases = [
        (dict(body=stranger), "body", "system"),
        (dict(body=loose), "body", "system"),
        (dict(body="tip"), "body", "ChBody"),
        (dict(body=fixed), "body", "fixed"),
        (dict(body=el.tip_body), "body", "fixed"),
        (dict(body=body, s=1.5 * L), "s", "lie on link 1"),
        (dict(body=body, s=-0.1, link=0), "s", "lie on link 0"),
        (dict(body=body, s="end"), "s", "arc length"),
        (dict(body=body, link=2), "link", "-2..1"),
        (dict(body=body, link=-3), "link", "-2..1"),
        (dict(body=body, link=0.5), "link", "link number"),
        (dict(body=body, frame=(0, 0, 0)), "frame", "ChFramed"),
        (dict(body=body, stiffness_ratio=-1.0), "stiffness_ratio", "positive"),
        (dict(body=body, damping_ratio=float("nan")), "damping_ratio", ">= 0"),
    ]
    for kw, name, words in cases:
        with pytest.raises(ParameterError) as err:
            el.attach(**kw)
        assert err.value.parameter == name and words in str(err.value), (kw, str(err.value))
    assert el.attachments == []            # nothing was half-attached


def test_the_parent_body_cannot_be_welded_to_its_own_arm():
    from chrono_flex.chrono import scenes

    system = scenes.new_system()
    parent = scenes.free_body(system, 2.0, (0.1, 0.1, 0.1), (0, 0, 0))
    from chrono_flex.chrono.spatial_element import SpatialFlexibleLink

    el = SpatialFlexibleLink(system, SpatialArm([_link()]), parent_body=parent)
    with pytest.raises(ParameterError, match="parent"):
        el.attach(parent)
