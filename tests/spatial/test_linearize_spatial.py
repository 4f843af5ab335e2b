"""SpatialArm.linearize: the planar results on the spatial equations."""

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex.errors import ParameterError
from chrono_flex.spatial import RevoluteJoint, SpatialArm, SpatialLink


def arms():
    spatial = SpatialArm([SpatialLink(1.0, 4, EI_y=3.0, EI_z=1.2, GJ=0.8, rho_A=0.5,
                                      rho_Ip=2e-3)], joints=[RevoluteJoint(axis=(0, 0, 1))])
    planar = cf.PlanarArm([cf.Link(1.0, 4, EI=1.2, rho_A=0.5)])
    return spatial, planar


def test_zeros_poles_and_the_planar_special_case():
    spatial, planar = arms()
    hub = spatial.linearize(inputs="torque1", outputs="joint1")
    z = hub.zeros()
    # every locked mode is a zero: the in-plane ones as for the planar link, the others
    # (out of the plane, torsion) because the torque does not reach them; eigh against the
    # balanced QZ: round-off amplified by omega_max / omega_k
    n = spatial.elastic_index.size
    np.testing.assert_allclose(np.sort(z.imag[z.imag > 0])[:8] / (2 * np.pi),
                               spatial.natural_frequencies(8, joints="locked"), rtol=1e-8)
    assert z.size == 2 * n
    p = hub.poles()
    np.testing.assert_allclose(np.sort(p.imag[p.imag > 1e-6])[:8] / (2 * np.pi),
                               spatial.natural_frequencies(8, joints="free"), rtol=1e-8)
    # the tip's in-plane motion: the planar link's real zero pairs (the planar arm is the
    # spatial one's special case to round-off)
    zs = spatial.linearize(inputs="torque1", outputs="tip_y").zeros()
    zp = planar.linearize(inputs="torque1", outputs="tip_lateral").zeros()
    real = lambda z: np.sort(z.real[(z.real > 0) & (np.abs(z.imag) < 1e-9 * np.abs(z))])  # noqa: E731
    np.testing.assert_allclose(real(zs), real(zp), rtol=1e-8)
    assert real(zs).size >= 2


def test_bad_names_and_poses():
    spatial, _ = arms()
    with pytest.raises(ParameterError, match="`inputs`.*'torque2'"):
        spatial.linearize(inputs="torque2")
    with pytest.raises(ParameterError, match="`outputs`.*'tip_w'"):
        spatial.linearize(outputs="tip_w")
    q = np.zeros(spatial.nq)
    q[spatial.elastic_index[0]] = 1e-3                 # a deflection nothing holds
    with pytest.raises(ParameterError, match="`pose`.*not a static equilibrium.*body1.e1"):
        spatial.linearize(pose=q)
