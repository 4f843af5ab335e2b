"""Contact along a flexible link: Chrono's beams (node spheres) and the element (welded
station bodies), docs/chrono.md §13."""

import math
import warnings

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex.errors import ParameterError
from chrono_flex.planar.shapes import propped_cantilever_reaction

pytestmark = pytest.mark.pychrono

from chrono_flex.chrono import scenes  # noqa: E402
from chrono_flex.validation.cases import contact as C  # noqa: E402


def test_propped_reaction_is_three_eighths_qL_and_a_series_spring_lowers_it():
    q, L, EI = 2.0, 1.5, 30.0
    assert propped_cantilever_reaction(q, L, EI) == pytest.approx(3 * q * L / 8, rel=1e-15)
    k = 3 * EI / L ** 3          # a support as stiff as the tip: the reaction halves
    assert propped_cantilever_reaction(q, L, EI, k) == pytest.approx(3 * q * L / 16,
                                                                     rel=1e-15)


@pytest.mark.parametrize("formulation", ["beam", "element"])
def test_nsc_contact_props_the_tip_with_three_eighths_qL(formulation):
    r = C.propped_by_contact(formulation, "nsc")
    # tolerance: the validation case's (nodally exact meshes; ADMM, weld and settling
    # below 1e-6; the beams' geometric terms ~1e-5)
    assert r["R"] == pytest.approx(r["R_rigid"], rel=2e-5)
    w_free = C.RHO_A * C.G * C.L ** 4 / (8 * C.EI)
    assert abs(r["tip"]) < 2e-5 * w_free
    F = np.array(r["forces"])
    # only the tip station touches: every other station's force is exactly zero
    assert np.all(F[:-1] == 0.0) and F[-1, 1] > 0


def _nsc(collision=True):
    import pychrono.core as chrono

    system = chrono.ChSystemNSC()
    if collision:
        system.SetCollisionSystemType(chrono.ChCollisionSystem.Type_BULLET)
    return chrono, system, chrono.ChContactMaterialNSC()


def _arm(n=4):
    return cf.PlanarArm([cf.Link(length=1.0, n_elements=n, EI=20.0, rho_A=1.0)])


def _negative_restitution(chrono, mat):
    mat.SetRestitution(-0.2)
    return mat


#: Contact set-ups that are refused, and the words the refusal must use: (with a collision
#: system, the material handed over from (chrono, the scene's NSC material), message).
REFUSED = {"no collision system": (False, lambda chrono, mat: mat, "no collision system"),
           "negative coefficient": (True, _negative_restitution, "material.Restitution"),
           "other contact method": (True, lambda chrono, mat: chrono.ChContactMaterialSMC(),
                                    "ChContactMaterialNSC")}


@pytest.mark.parametrize("formulation", ["beam", "element"])
@pytest.mark.parametrize("refused", list(REFUSED))
def test_a_contact_set_up_that_cannot_work_is_refused_by_name(formulation, refused):
    collision, material, message = REFUSED[refused]
    chrono, system, mat = _nsc(collision=collision)
    link = scenes.clamped_link(system, _arm(), formulation)
    with pytest.raises(ParameterError, match=message):
        link.enable_contact(material(chrono, mat), 0.01)


@pytest.mark.parametrize("formulation, size, name", [("beam", 0.13, "radius"),
                                                     ("element", 0.26, "thickness")])
def test_a_shape_larger_than_the_element_is_refused(formulation, size, name):
    chrono, system, mat = _nsc()
    link = scenes.clamped_link(system, _arm(4), formulation)    # elements of 0.25 m
    with pytest.raises(ParameterError, match=f"`{name}`.*larger than the element"):
        link.enable_contact(mat, size)


def test_element_stations_out_of_the_link_are_refused():
    chrono, system, mat = _nsc()
    link = scenes.clamped_link(system, _arm(), "element")
    with pytest.raises(ParameterError, match="stations"):
        link.enable_contact(mat, 0.02, stations=[0.5, 1.2])


def test_station_spans_cover_the_link_without_exceeding_half_an_element():
    from chrono_flex.chrono.contact import station_spans

    sp = station_spans([0.0, 0.25, 0.5, 0.75, 1.0], 1.0, 0.125)
    assert np.allclose(sp, [[0, 0.125], [0.125, 0.375], [0.375, 0.625], [0.625, 0.875],
                            [0.875, 1.0]], atol=1e-15)
    sp = station_spans([1.0], 1.0, 0.125)
    assert np.allclose(sp, [[0.875, 1.0]], atol=1e-15)


def test_element_station_boxes_follow_the_link_and_do_not_touch_each_other():
    chrono, system, mat = _nsc()
    system.SetGravitationalAcceleration(chrono.ChVector3d(0, -9.81, 0))
    solver = chrono.ChSolverADMM(chrono.ChSolverSparseLU())
    solver.SetMaxIterations(300)
    system.SetSolver(solver)
    system.SetTimestepperType(chrono.ChTimestepper.Type_EULER_IMPLICIT_LINEARIZED)
    link = scenes.clamped_link(system, _arm(2), "element")
    ct = link.enable_contact(mat, 0.02)              # stations at the three nodes
    assert len(ct.bodies) == 3
    scenes.settle(system, 1e-2, 20)
    # the overlapping neighbours are one collision family: no contact, the link sags
    assert system.GetContactContainer().GetNumContacts() == 0
    assert np.all(ct.forces() == 0.0)
    tip = ct.bodies[-1].GetPos().y
    assert tip == pytest.approx(float(link.tip_deflections()[0]), abs=1e-6)   # weld gap
    assert tip < -1e-3


@pytest.mark.parametrize("formulation", ["beam", "element"])
def test_smc_contact_gives_the_reaction_of_a_support_in_series(formulation):
    r = C.propped_by_contact(formulation, "smc")
    # the series compliance 3EI/(k_c L^3) = 3e-3 must show: 1e-4 is 30 times below it
    # and above the settling left after 1 s (2e-5 beams, 8e-5 element, measured)
    # (the link's share: the element's station body, 1 g, rests on the support too)
    assert abs(r["R"] - r["W_station"] - r["R_rigid"]) / r["R_rigid"] > 2e-3
    assert abs(r["R"] - r["R_pred"]) < 1e-4 * r["R_rigid"]
    assert r["tip"] == pytest.approx(r["tip_pred"], rel=1e-4)


def test_the_spatial_element_rests_on_the_support_with_three_eighths_qL():
    from chrono_flex.chrono.spatial_element import SpatialFlexibleLink
    from chrono_flex.spatial.arm import SpatialArm
    from chrono_flex.spatial.params import FixedJoint, SpatialLink

    chrono, system, mat = C._system("nsc")
    link = SpatialLink(C.L, C.N_EL, EI_y=C.EI, EI_z=C.EI, GJ=10.0, rho_A=C.RHO_A,
                       rho_Ip=1e-3)
    fl = SpatialFlexibleLink(system, SpatialArm([link], [FixedJoint()],
                                                gravity=np.array([0.0, -C.G, 0.0])))
    ct = fl.enable_contact(mat, 2 * C.RADIUS, stations=[C.L], shape="sphere")
    C.support(chrono, system, mat, C.L, -C.RADIUS)
    scenes.settle(system, C.NSC_STEP, C.NSC_STEPS)
    R = 3 * C.RHO_A * C.G * C.L / 8
    # the planar case's tolerance (nodally exact mesh, ADMM, weld, settling)
    assert ct.forces()[0, 1] == pytest.approx(R, rel=2e-5)
    assert abs(ct.bodies[0].GetPos().y) < 1e-6


def test_a_station_mass_that_is_not_a_mass_is_named():
    chrono, system, mat = _nsc()
    link = scenes.clamped_link(system, _arm(), "element")
    for bad in (-1e-3, 0.0, float("nan")):
        with pytest.raises(ParameterError, match="`station_mass`"):
            link.enable_contact(mat, 0.02, station_mass=bad)


def _spatial(system):
    from chrono_flex.chrono.spatial_element import SpatialFlexibleLink
    from chrono_flex.spatial.arm import SpatialArm
    from chrono_flex.spatial.params import FixedJoint, SpatialLink

    link = SpatialLink(1.0, 4, EI_y=20.0, EI_z=20.0, GJ=10.0, rho_A=1.0, rho_Ip=1e-3)
    return SpatialFlexibleLink(system, SpatialArm([link], [FixedJoint()]))


def test_the_spatial_element_names_the_same_bad_input():
    chrono, system, mat = _nsc(collision=False)
    with pytest.raises(ParameterError, match="no collision system"):
        _spatial(system).enable_contact(mat, 0.01)
    chrono, system, mat = _nsc()
    fl = _spatial(system)
    with pytest.raises(ParameterError, match="`thickness`.*larger than the element"):
        fl.enable_contact(mat, 0.26)                     # elements of 0.25 m
    mat.SetFriction(-0.1)
    with pytest.raises(ParameterError, match="material.SlidingFriction"):
        fl.enable_contact(mat, 0.01)


def test_a_post_strike_restitution_outside_zero_to_one_is_named():
    from chrono_flex.chrono.contact_scenes import PostStrike

    with pytest.raises(ParameterError, match="`restitution`"):
        PostStrike("element", restitution=1.5)


def test_smc_stations_are_heavier_and_an_undamped_step_is_warned_about():
    import pychrono.core as chrono
    from chrono_flex.chrono.contact import SMC_STATION_MASS_FRACTION

    _, system, mat = scenes.contact_system("smc", (0.0, 0.0, 0.0))   # HHT, alpha = 0
    link = scenes.clamped_link(system, _arm(), "element")
    with pytest.warns(UserWarning, match="HHT alpha = 0"):
        ct = link.enable_contact(mat, 0.02, stations=[0.5, 1.0])
    # 1e-3 of the link's 1 kg over two stations (Chrono stores masses in double)
    assert [b.GetMass() for b in ct.bodies] == pytest.approx(
        [SMC_STATION_MASS_FRACTION * 1.0 / 2] * 2, rel=1e-15)
    _, system, mat = scenes.contact_system("smc", (0.0, 0.0, 0.0), smc_alpha=-0.3)
    link = scenes.clamped_link(system, _arm(), "element")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        link.enable_contact(mat, 0.02, station_mass=2e-3)
    assert isinstance(system, chrono.ChSystemSMC)
