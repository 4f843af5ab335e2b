"""Spatial links from Chrono's beams (chrono_flex.chrono.spatial_beams) and the natural
modes of a Chrono system (chrono_flex.chrono.modal): an exact check of both against a
hand-assembled lumped-mass model, the section's axes, and bad input. The closed-form
checks are the validation cases spatial-link.chrono-beam-*."""

import math

import numpy as np
import pytest
from scipy.linalg import eigh

from chrono_flex.errors import ParameterError
from chrono_flex.planar.shapes import hermite_stiffness

pytestmark = pytest.mark.pychrono

from chrono_flex.chrono.modal import system_modes  # noqa: E402
from chrono_flex.chrono.spatial_beams import SpatialSection, add_link, hub_with_links  # noqa: E402
from chrono_flex.validation.cases import spatial_chrono as sc  # noqa: E402


def _lumped_frequencies(EI, rho_A, L, n):
    """Bending frequencies (Hz) of a clamped-free beam of n Hermite elements with the
    mass lumped at the nodes (rho_A l/2 from each element) and massless rotations
    condensed out: the model ChElementBeamEuler uses, assembled by hand."""
    le = L / n
    K = np.zeros((2 * n + 2, 2 * n + 2))
    for e in range(n):
        K[2 * e:2 * e + 4, 2 * e:2 * e + 4] += hermite_stiffness(EI, le)
    K = K[2:, 2:]
    w = np.arange(0, 2 * n, 2)          # translations; rotations are massless
    r = np.arange(1, 2 * n, 2)
    Kc = K[np.ix_(w, w)] - K[np.ix_(w, r)] @ np.linalg.solve(K[np.ix_(r, r)], K[np.ix_(r, w)])
    m = np.full(n, rho_A * le)
    m[-1] = rho_A * le / 2
    return np.sqrt(eigh(Kc, np.diag(m), eigvals_only=True)) / (2 * math.pi)


def test_system_modes_equal_the_lumped_model_to_round_off():
    sys_, link = sc._clamped(3)
    f = system_modes(sys_).frequencies
    ref = np.sort(np.concatenate([_lumped_frequencies(sc.EI_Y, sc.RHO_A, sc.L, 3),
                                  _lumped_frequencies(sc.EI_Z, sc.RHO_A, sc.L, 3)]))
    # the bending modes are among Chrono's (torsion and axial modes also present)
    for x in ref:
        assert np.min(np.abs(f - x)) <= 1e-9 * x        # dense eigen-solves: round-off
    assert link.tip_displacement() == pytest.approx(np.zeros(3), abs=1e-15)


def test_section_axes_follow_the_frame():
    # a force along the section's z axis bends the link about y: stiffness EI_y
    sys_, link = sc._clamped(2)
    link.load_tip(force=(0.0, 0.0, 0.1))
    sys_.DoStaticLinear()
    d = link.axes.T @ link.tip_displacement()
    assert d[2] == pytest.approx(0.1 * sc.L**3 / (3 * sc.EI_Y), rel=1e-8)
    assert abs(d[1]) <= 1e-12


def test_hub_carries_its_links_and_turns_freely():
    sys_ = sc._new_system()
    arm = hub_with_links(sys_, sc._section(4), 0.05, 3, axis=(0, 0, 1))
    assert len(arm.links) == 3
    roots = np.array([lk.origin for lk in arm.links])
    assert np.allclose(roots, 0.0)                      # radius 0: roots on the axis
    dirs = np.array([lk.axes[:, 0] for lk in arm.links])
    assert np.allclose(dirs.sum(0), 0.0, atol=1e-12)    # equal angles
    f = system_modes(sys_, 2).frequencies
    assert f[0] < 1e-2 * f[1]                           # the hub's free rotation


@pytest.mark.parametrize("kw, name", [(dict(EI_y=0.0), "EI_y"), (dict(GJ=-1.0), "GJ"),
                                      (dict(rho_Ip=float("nan")), "rho_Ip"),
                                      (dict(n_elements=0), "n_elements"), (dict(EA=-1.0), "EA")])
def test_bad_section_names_the_parameter(kw, name):
    args = dict(length=1.0, n_elements=2, EI_y=1.0, EI_z=1.0, GJ=1.0, rho_A=1.0, rho_Ip=1e-3)
    with pytest.raises(ParameterError, match=name):
        SpatialSection(**{**args, **kw})


def test_bad_mounts_are_refused():
    import pychrono as chrono
    import pychrono.fea as fea

    sys_, link = sc._clamped(2)
    other = chrono.ChSystemSMC()
    stranger = chrono.ChBody()
    other.Add(stranger)
    mesh = fea.ChMesh()
    sys_.Add(mesh)
    with pytest.raises(ParameterError, match="body"):
        add_link(sys_, mesh, sc._section(2), stranger, (0, 0, 0))
    with pytest.raises(ParameterError, match="y_axis"):
        add_link(sys_, mesh, sc._section(2), _ground(sys_),
                 (0, 0, 0), (1, 0, 0), (2, 0, 0))
    with pytest.raises(ParameterError, match="mesh"):
        add_link(sys_, fea.ChMesh(), sc._section(2), _ground(sys_), (0, 0, 0))
    with pytest.raises(ParameterError, match="hub_inertia"):
        hub_with_links(sys_, sc._section(2), 0.0)


def _ground(sys_):
    import pychrono as chrono

    g = chrono.ChBody()
    g.SetFixed(True)
    sys_.Add(g)
    return g


def test_driven_hub_follows_its_motion_and_carries_the_deflection():
    from chrono_flex.chrono.system import configure_system, step
    from chrono_flex.inputs import spin_up

    sys_ = sc._new_system()
    configure_system(sys_, "hht")
    motion = spin_up(1.0, 0.5)
    arm = hub_with_links(sys_, sc._section(4), 0.05, 1, elevation=0.3, motion=motion)
    for _ in range(200):
        step(sys_, 1e-3)
    t = sys_.GetChTime()
    assert arm.joint.GetMotorAngle() == pytest.approx(float(motion(t)[0][0]), abs=1e-9)
    d = arm.tip_deflection(0)
    # while the hub accelerates, the link lags behind the turn: its tip sits on the -y
    # side of the rotating frame (y = axis x link points along the motion), by far less
    # than L; a hub frame that did not follow the turn would show the hub's own swing
    assert d[1] < 0 and np.max(np.abs(d)) < 0.05 * sc.L


@pytest.mark.parametrize("kw, name", [(dict(elevation=2.0), "elevation"),
                                      (dict(motion="spin"), "motion")])
def test_bad_hub_options_are_refused(kw, name):
    with pytest.raises(ParameterError, match=name):
        hub_with_links(sc._new_system(), sc._section(2), 0.05, 2, **kw)


def _cone(n):
    from chrono_flex.spatial import SpatialLink

    return SpatialLink(1.0, n, EI_y=lambda x: 3.0 * (1 - x) ** 4, EI_z=lambda x: 1.2 * (1 - x) ** 4,
                       GJ=lambda x: 0.8 * (1 - x) ** 4, rho_A=lambda x: (1 - x) ** 2,
                       rho_Ip=lambda x: 1e-3 * (1 - x) ** 4)


def test_a_tapered_spatial_link_in_chrono_converges_to_the_cone():
    # a cone (EI ~ r^4, rho A ~ r^2) in both planes, one Chrono section per element (the
    # element means): lumped mass and piecewise-constant section both err by O(h^2), so
    # the first frequency in each plane converges at order ~2 to c sqrt(EI_0 / rho_A0)
    from chrono_flex.chrono.spatial_beams import clamped_link
    from chrono_flex.planar.shapes import tapered_cantilever_coefficient

    c = tapered_cantilever_coefficient(2)
    exact = np.sort([c * math.sqrt(1.2), c * math.sqrt(3.0)]) / (2 * math.pi)
    errs = []
    for n in (16, 32):
        section = SpatialSection.from_link(_cone(n))
        assert not section.uniform and len(section.EI_y) == n
        sys_, _ = clamped_link(section, (0, 0, 0), (1, 1, 0), (0, 0, 1))
        errs.append(np.abs(system_modes(sys_, 2).frequencies - exact) / exact)
    order = np.log2(errs[0] / errs[1])
    assert np.all(order > 1.8) and np.all(errs[1] < 0.01)


def test_uniform_link_from_link_is_the_number_section():
    from chrono_flex.spatial import SpatialLink

    lk = SpatialLink(1.0, 4, EI_y=2.0, EI_z=5.0, GJ=1.0, rho_A=0.5, rho_Ip=1e-3)
    assert SpatialSection.from_link(lk) == sc._section(4)
    with pytest.raises(ParameterError, match="EI_z"):
        SpatialSection(1.0, 2, EI_y=1.0, EI_z=(1.0, 2.0, 3.0), GJ=1.0, rho_A=1.0, rho_Ip=1e-3)
    with pytest.raises(ParameterError, match=r"rho_A\[1\]"):
        SpatialSection(1.0, 2, EI_y=1.0, EI_z=1.0, GJ=1.0, rho_A=(1.0, -1.0), rho_Ip=1e-3)
