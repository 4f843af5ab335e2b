"""The "chrono-beam" engine: a PlanarArm made of Chrono's own beams, stepped by Chrono.

The reference engine integrates the floating-frame Lagrange equations of
docs/planar-link.md. This engine builds the same arm from Chrono's own finite elements
(:mod:`chrono_flex.chrono.beam_scene`) and lets Chrono integrate it, so a comparison
checks the formulation, not a second copy of it. The run goes through the shared
stepping loop (:mod:`chrono_flex.stepping`) and returns the same
:class:`~chrono_flex.result.Result` as every engine.

Two section defaults of Chrono change the physics silently (docs/chrono.md §4,
covered by tests): Rayleigh damping beta = 0.01 and an "artificial" rotary inertia of the section,
1/500 of the mass per length. Both are set explicitly here, from the Link (damping) and
from ``jyy_factor`` (default 1e-9). Body inertias default to 1 kg m^2 in Chrono: every
body's mass and inertia are set here; bodies with no physical mass or inertia (the tip
connectors, a hub without hub inertia) get 1e-9 of their link's mass and of its moment
of inertia about the root, a change far below every tolerance in use.

The consistent-mass section has a third silent default: the tapered Timoshenko section
computes its consistent mass matrix with its own length, 1 m unless ``SetLength`` is
called (the element does not set it); it is set to the element length here.

Differences from the reference that are physics, not bugs (measured in the tests and
reported there): the corotational beams carry the stiffening or softening of axial
loads (centrifugal, gravity) whatever ``arm.geometric_stiffening`` says, so they stay
bounded in a fast spin-up where the papers' linear model diverges, and they part from
the reference when axial load times L^2/EI is not small; they are geometrically exact,
so large deflections (several % of L) differ from the linear floating-frame model;
lumped mass lowers the bending frequencies and raises the links' moment of inertia
about the joint by 1/(2 n^2) (errors fall as h^2); Chrono's beams are extensible (axial
stiffness EA from the section decomposition of :func:`section_properties`).

Every Chrono object handed to a Chrono call is kept referenced from Python
(``BeamArm.keep``): SWIG does not keep temporaries alive, and a reference into a
destroyed ``ChFramed`` reads garbage.

Only this package imports pychrono; import cost is paid on first use.
"""

import time

import numpy as np

from .. import _checks as ck
from .._aliases import joint_and_elastic
from ..errors import ParameterError, SimulationError
from ..planar.post import check_n_samples, describe
from ..result import Energy, Result
from ..stepping import Progress, Stepper, fixed_step_output_times, fixed_substep, run
from ._quiet import quiet_swig
from .beam_scene import (COARSE_LUMPED_MESH, DEFAULT_HHT_ALPHA, DEFAULT_JYY_FACTOR, ENGINE,
                         SHEAR_PHI, BeamArm, build_beams)
from .corotational import hermite_centreline, rigid_chain, section_properties


class BeamStepper(Stepper):
    """The shared loop's view of a :class:`~chrono_flex.chrono.beam_scene.BeamArm`."""

    label = ENGINE

    def __init__(self, scene, lengths, n_samples):
        self.scene, self.lengths, self.n_samples = scene, lengths, n_samples
        self.damped = any(lb.beta or lb.alpha for lb in scene.links)
        self.t = scene.system.GetChTime()

    def advance(self, t_target):
        h = fixed_substep(self.t, t_target, self.scene.step)
        try:
            self.scene.system.DoStepDynamics(h)
        except Exception as exc:  # noqa: BLE001 (Chrono raises RuntimeError)
            self.scene.check_callbacks()
            raise SimulationError(f"Chrono failed: {exc}", self.t) from exc
        self.scene.check_callbacks()
        self.t = self.scene.system.GetChTime()
        return self.t

    def deflection_ratio(self):
        q, _ = self.scene.joint_state()
        d = self.scene.tip_deflections()
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(d))):
            return float("nan")
        return float(np.max(np.abs(d) / self.lengths))

    def powers(self):
        _, qd = self.scene.joint_state()
        tau = self.scene.joint_torques(self.t)
        return float(tau @ qd), (self.scene.dissipation_power() if self.damped else 0.0)

    def record(self, t):
        scene, arm = self.scene, self.scene.arm
        q, qd = scene.arm_state()
        pts, curv = scene.centrelines(self.n_samples)
        s = np.linspace(0.0, 1.0, self.n_samples)
        roots, _, _ = rigid_chain(arm, q[arm.joint_index])
        rigid = np.array([p + L * s[:, None] * np.array([np.cos(psi), np.sin(psi)])
                          for (p, psi), L in zip(roots, self.lengths)])
        kin, el, gr = scene.energies()
        return dict(q=q, qd=qd, tau=scene.joint_torques(t), tip=scene.tip_position(),
                    deflection=scene.tip_deflections(), centerline=arm.plane.to_world(pts),
                    centerline_rigid=arm.plane.to_world(rigid), curvature=curv,
                    kinetic=kin, elastic=el, gravity=gr)

    def system(self):
        return self.scene.system


def simulate_beams(arm, t_end, joint_angles0=None, joint_rates0=None, torque=None,
                   joint_motion=None, dt_out=None, step=1e-3, n_elements=None,
                   consistent_mass=False, rayleigh_beta=None, rayleigh_alpha=None,
                   jyy_factor=DEFAULT_JYY_FACTOR, hht_alpha=DEFAULT_HHT_ALPHA,
                   n_samples=21, max_deflection_ratio=0.5, progress=None, on_output=None,
                   max_wall_time=None, **unsupported):
    """Simulate ``arm`` with Chrono's beam elements; returns a :class:`Result`.

    Same inputs and output type as ``PlanarArm.simulate`` (see :func:`build_beams` for
    the beam options). Fixed-step HHT (``step``, shortened so that every output time
    is hit) with the sparse LU direct solver, through the shared stepping loop
    (:mod:`chrono_flex.stepping`). ``q``/``qd`` of the result are the arm's generalized
    coordinates, as on every engine: the joint values, and each link's elastic
    coordinates fitted to the beams' deflection in its hub frame
    (:meth:`~chrono_flex.chrono.beam_scene.BeamArm.arm_state`); tip deflections are
    measured in each link's hub frame (tangent to the root); centrelines follow the
    Hermite shape functions between the beams' nodes; energies are computed from the elements' corotated
    strains and Chrono's (lumped or consistent) mass; input work and Rayleigh
    dissipation are accumulated every step (trapezoidal rule), so the energy balance
    error shows the integrator's own dissipation (HHT alpha < 0).

    ``max_wall_time``: budget of wall-clock seconds (default none); SimulationError
    when spent. ``on_output``: callable(system, t) called at t = 0 and at every output
    time (e.g.
    :class:`chrono_flex.chrono.blender.BlenderExporter`).

    Raises:
        ParameterError: for arguments this engine does not support (named).
        SimulationError: NaN, a Chrono failure, or a tip deflection above
            ``max_deflection_ratio`` of its link length, with the time.
    """
    joint_angles0, joint_rates0, elastic0, _ = joint_and_elastic(arm, unsupported,
                                                                 joint_angles0, joint_rates0)
    if elastic0 is not None:                   # the beams start straight
        unsupported["q0"] = elastic0
    if unsupported:
        names = sorted(unsupported)
        raise ParameterError(", ".join(names), [unsupported[k] for k in names],
                             "is not supported by the chrono-beam engine")
    t_end = ck.positive("t_end", t_end)
    if dt_out is not None:
        dt_out = ck.positive("dt_out", dt_out)
    check_n_samples(n_samples)
    max_deflection_ratio = ck.positive("max_deflection_ratio", max_deflection_ratio)
    scene = build_beams(arm, joint_angles0, joint_rates0, torque, joint_motion, n_elements,
                        consistent_mass, rayleigh_beta, rayleigh_alpha, jyy_factor,
                        hht_alpha, step)
    lengths = np.array([lk.length for lk in arm.links])
    t_wall = time.perf_counter()
    with quiet_swig():
        rec = run(BeamStepper(scene, lengths, n_samples),
                  fixed_step_output_times(t_end, dt_out, scene.step),
                  max_deflection_ratio=max_deflection_ratio, on_output=on_output,
                  progress=Progress(t_end, ENGINE, progress), max_wall_time=max_wall_time)
    ts = scene.timestepper
    notes = [
        "Chrono's corotational beams include geometric (centrifugal) stiffening whatever "
        "arm.geometric_stiffening says",
        "beams are extensible: EA = E*A of chrono_flex.chrono.beams.section_properties",
    ]
    if any(lb.alpha for lb in scene.links):
        notes.append("Chrono's mass-proportional Rayleigh damping (alpha) acts on absolute "
                     "nodal velocities: it also damps rigid-body motion, unlike the "
                     "reference's alpha on elastic coordinates")
    if not scene.consistent_mass and min(lb.n_elements for lb in scene.links) < COARSE_LUMPED_MESH:
        notes.append("coarse lumped mesh: ChElementBeamEuler lumps the mass on the nodes' "
                     "translations only, so with few elements the bending modes are poorly "
                     "represented (with 1 element and no hub inertia the bending follows "
                     "the joint torque quasi-statically); use n_elements >= 8 or "
                     "consistent_mass=True")
    if any(lk.basis != "fem" for lk in arm.links):
        notes.append("links with basis 'modes'/'power' are meshed with n_elements beam "
                     "elements")
    n_el = [lb.n_elements for lb in scene.links]
    info = dict(
        engine=ENGINE,
        coordinates="the arm's generalized coordinates: joint values from the motors, "
                    "elastic coordinates fitted to the beams' deflection in each hub frame",
        element=("ChElementBeamTaperedTimoshenko (consistent mass, phi=%g)" % SHEAR_PHI
                 if scene.consistent_mass else "ChElementBeamEuler (lumped mass)"),
        mass_matrix="consistent" if scene.consistent_mass else "lumped",
        n_elements=n_el, step=scene.step,
        timestepper="HHT", hht_alpha=scene.hht_alpha, solver="SparseLU",
        jyy_factor=scene.jyy_factor,
        rayleigh_beta=[lb.beta for lb in scene.links],
        rayleigh_alpha=[lb.alpha for lb in scene.links],
        newton_iterations=int(ts.GetNumIterations()),
        newton_not_converged=int(ts.GetNumTerminated()),
        energy="kinetic from Chrono's element mass and the bodies; elastic from the "
               "elements' corotated strains (Chrono's ChElementBeamEuler exposes no "
               "strain energy); work and Rayleigh dissipation summed every step",
        notes=notes,
        wall_time=round(time.perf_counter() - t_wall, 4),
    )
    model, info = describe(arm, info)
    Q, QD = rec["q"], rec["qd"]
    ji = arm.joint_index
    energy = Energy(rec["kinetic"], rec["elastic"], rec["gravity"], rec["work_in"],
                    rec["work_diss"])
    return Result(t=rec.t, q=Q, qd=QD, joint_angles=Q[:, ji].copy(),
                  joint_rates=QD[:, ji].copy(), tip_position=rec["tip"],
                  tip_deflection=rec["deflection"], energy=energy, joint_torque=rec["tau"],
                  centerline=rec["centerline"], centerline_rigid=rec["centerline_rigid"],
                  curvature=rec["curvature"], plane=arm.plane,
                  link_thickness=np.array([lk.thickness for lk in arm.links]), info=info,
                  model=model)



def __getattr__(name):
    from .._compat import moved_attribute

    return moved_attribute(__name__, name)

__all__ = ["BeamArm", "BeamStepper", "DEFAULT_HHT_ALPHA", "DEFAULT_JYY_FACTOR", "build_beams",
           "hermite_centreline", "rigid_chain", "section_properties", "simulate_beams"]
