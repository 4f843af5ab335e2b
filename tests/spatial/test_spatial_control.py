"""Controllers and sensors on spatial arms (docs/control.md): the same controller object
on a planar arm and on the spatial tree of it with its joint axis along z
(examples/planar_as_spatial.py's construction) gives the same run, and the spatial
sensors read what the planar ones read, or a closed form."""

import math

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex.control import (PID, Accelerometer, Encoder, StrainGauge, Tachometer,
                                 TipPosition, TipVelocity, record)
from chrono_flex.errors import ParameterError
from chrono_flex.spatial import FixedJoint, RevoluteJoint, RigidBody, SpatialLink

L, EI, RHO_A, THICK = 1.0, 1.04, 0.196, 0.01
PAYLOAD = (0.1, 1e-3)                                    # kg, kg m^2
#: generalized-alpha at a fixed step: both engines solve each step's Newton iteration to
#: 1e-8 of the update (docs/spatial-link.md §5.2)
SETTINGS = dict(dt_out=0.01, method="generalized_alpha", step=5e-4, progress=False)
NEWTON = 1e-8


def planar_arm():
    return cf.PlanarArm([cf.Link(L, 2, EI=EI, rho_A=RHO_A, thickness=THICK)],
                        payload=cf.Payload(*PAYLOAD))


def spatial_arm():
    link = SpatialLink(L, 2, EI_y=2.0, EI_z=EI, GJ=1.0, rho_A=RHO_A, rho_Ip=1e-3,
                       thickness=THICK)
    return cf.SpatialArm([link, RigidBody(PAYLOAD[0], (0.0, 0.0, PAYLOAD[1]))],
                         joints=[RevoluteJoint(axis=(0, 0, 1)), FixedJoint()],
                         parents=[-1, 0])


def in_plane(spatial):
    """Index in the spatial q of each planar coordinate (the joint, then v, v' per node)."""
    return np.array([spatial.model.layout.bodies[0].joint_index]
                    + list(spatial.elastic_indices(0)[:, :2].ravel()))


def law(arm, **kw):
    """A joint servo to 0.2 rad: PD with a tachometer (no state), or PID with states."""
    r = lambda t: 0.2 * min(t / 0.1, 1.0)  # noqa: E731
    return PID(2.0, kw.pop("ki", 0.0), 0.3, setpoint=r, sensor=Encoder(arm, 2**40), **kw)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["pd", "pid-states", "sampled"])
def test_the_same_controller_on_the_planar_arm_and_its_z_axis_tree(kind):
    kws = {"pd": lambda a: dict(rate_sensor=Tachometer(a)),
           "pid-states": lambda a: dict(ki=3.0, Tf=0.01),        # integral and filter
           "sampled": lambda a: dict(ki=3.0, rate_sensor=Tachometer(a), period=1e-3)}[kind]
    P, S = planar_arm(), spatial_arm()
    rp = P.simulate(0.2, torque=law(P, **kws(P)), **SETTINGS)
    rs = S.simulate(0.2, torque=law(S, **kws(S)), **SETTINGS)
    idx = in_plane(S)
    scale = np.max(np.abs(rp.q))
    # the two engines' Newton tolerance, relative to the largest coordinate
    np.testing.assert_allclose(rs.q[:, idx], rp.q, rtol=0, atol=10 * NEWTON * scale)
    np.testing.assert_allclose(rs.joint_torque, rp.joint_torque, rtol=0,
                               atol=10 * NEWTON * np.max(np.abs(rp.joint_torque)))
    out = np.setdiff1d(np.arange(S.nq), idx)
    assert np.max(np.abs(rs.q[:, out])) < 1e-12          # out of plane: round-off
    assert rp.joint_angles[-1, 0] > 0.05                 # the loop moves the arm (0.076 PD)
    if kind == "pid-states":
        np.testing.assert_allclose(rs.extra["torque_controller_states"],
                                   rp.extra["torque_controller_states"], rtol=0,
                                   atol=10 * NEWTON)
    if kind == "sampled":
        # t_k = k ms, k = 0..200 (the step reaching t_end takes the last sample)
        assert rs.info["n_samples_taken"] == rp.info["n_samples_taken"] == 201
    # the sensors of the two arms read the same (the spatial tip in the plane z = 0)
    sp = record(rp, [TipPosition(P), TipVelocity(P, station=0.5),
                     StrainGauge(P, station=0.3)])
    ss = record(rs, [TipPosition(S), TipVelocity(S, station=0.5),
                     StrainGauge(S, station=0.3, direction="y"),
                     StrainGauge(S, station=0.3, direction="z", name="strain_z")])
    for name in ("tip_position", "tip_velocity"):
        assert ss[name].shape == (rs.t.size, 3)
        np.testing.assert_allclose(ss[name][:, :2], sp[name], rtol=0,
                                   atol=10 * NEWTON * np.max(np.abs(sp[name])))
        assert np.max(np.abs(ss[name][:, 2])) < 1e-12
    np.testing.assert_allclose(ss["strain"], sp["strain"], rtol=0,
                               atol=10 * NEWTON * np.max(np.abs(sp["strain"])))
    assert np.max(np.abs(ss["strain_z"])) < 1e-12


def test_spatial_strain_gauge_in_a_chosen_direction_against_beam_theory():
    # a cantilever with tip forces Py along the link frame's y and Pz along z: the root
    # curvatures v''(0) = Py L / EI_z and w''(0) = Pz L / EI_y (beam theory; cubic
    # Hermite elements hold the static cubic exactly: round-off of a linear solve)
    S = spatial_arm()
    Py, Pz, c = 0.01, 0.02, 0.004
    q = S.static_deflection({0: ((0.0, Py, Pz), (0.0, 0.0, 0.0))})
    ky, kz = Py * L / EI, Pz * L / 2.0
    n = (0.6, 0.8)
    got = StrainGauge(S, station=0.0, half_thickness=c, direction=n).value(0.0, q)
    assert got == pytest.approx((n[0] * ky + n[1] * kz) * c, rel=1e-10)
    mid = StrainGauge(S, station=0.25, half_thickness=c, direction="z").value(0.0, q)
    assert mid == pytest.approx(Pz * (L - 0.25) / 2.0 * c, rel=1e-10)
    # the tip position against the tip frame of the arm
    tip = TipPosition(S).value(0.0, q, np.zeros(S.nq))
    np.testing.assert_allclose(tip, S.tip_frame(q, body=0)[0], rtol=0, atol=1e-15)


def test_spatial_accelerometer_reads_the_planar_one_and_gravity():
    """The accelerometer on the z-axis tree reads, in the link's frame, what the planar
    one reads in its plane and 0 across it (no gravity); with gravity along -Z, at the
    root on the joint's axis (a point at rest) it reads the specific force (0, 0, g)
    whatever the link's turn about z."""
    P, S = planar_arm(), spatial_arm()
    kw = dict(torque=lambda t, q, qd: [0.02 * math.sin(20.0 * t)], **SETTINGS)
    rp, rs = P.simulate(0.2, **kw), S.simulate(0.2, **kw)
    sp = record(rp, [Accelerometer(P, station=0.7)])["accelerometer"]
    ss = record(rs, [Accelerometer(S, station=0.7)])["accelerometer"]
    assert ss.shape == (rs.t.size, 3)
    # the states agree to the two engines' Newton tolerance (as above); the
    # accelerations, from the same equations at those states, to it relative to their
    # range (seen: 3.3e-9 m/s^2 of 0.94)
    np.testing.assert_allclose(ss[:, :2], sp, rtol=0, atol=10 * NEWTON * np.max(np.abs(sp)))
    assert np.max(np.abs(ss[:, 2])) < 1e-12                  # out of plane: round-off
    assert np.max(np.abs(sp)) > 0.05                         # the point accelerates
    g = 9.81
    link = SpatialLink(L, 2, EI_y=2.0, EI_z=EI, GJ=1.0, rho_A=RHO_A, rho_Ip=1e-3,
                       thickness=THICK)
    G = cf.SpatialArm([link, RigidBody(PAYLOAD[0], (0.0, 0.0, PAYLOAD[1]))],
                      joints=[RevoluteJoint(axis=(0, 0, 1)), FixedJoint()], parents=[-1, 0],
                      gravity=g)
    rg = G.simulate(0.2, **kw)
    root = record(rg, [Accelerometer(G, station=0.0)])["accelerometer"]
    np.testing.assert_allclose(root, np.tile([0.0, 0.0, g], (rg.t.size, 1)), rtol=0,
                               atol=1e-10)                   # round-off of the solve
    assert np.ptp(rg.joint_angles[:, 0]) > 1e-3              # while the link turns


def test_bad_spatial_sensors_and_loops_are_named():
    S = spatial_arm()
    with pytest.raises(ParameterError, match="station"):
        StrainGauge(S, station=1.2)                          # off the 1 m link
    with pytest.raises(ParameterError, match="station"):
        TipPosition(S, station=-0.1)
    with pytest.raises(ParameterError, match="link"):
        TipPosition(S, link=1)                               # the payload, a rigid body
    with pytest.raises(ParameterError, match="direction"):
        StrainGauge(S, direction=(1.0, 1.0))
    with pytest.raises(ParameterError, match="direction"):
        StrainGauge(planar_arm(), direction="z")
    with pytest.raises(ParameterError, match="period"):          # below the fixed step
        S.simulate(0.01, torque=law(S, rate_sensor=Tachometer(S), period=1e-4),
                   method="generalized_alpha", step=1e-3)
    with pytest.raises(ParameterError, match="torque"):
        S.simulate(0.01, torque=lambda t, q, qd: [1.0, 2.0])
    bad = law(S, ki=1.0, Tf=0.01)
    bad.output = lambda t, xc, q, qd: [math.nan]
    from chrono_flex.errors import SimulationError
    with pytest.raises(SimulationError, match=r"torque\.output"):
        S.simulate(0.01, torque=bad)
