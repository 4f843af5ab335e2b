"""The problems, measures and tools of the work-precision benchmark
(:mod:`chrono_flex.bench_perf` describes them): each problem as data, the trajectories
and their errors, Exudyn's ANCF cable model, and one run of any tool at one setting."""

from dataclasses import dataclass, field
import math
import time

import numpy as np

from . import _checks as ck
from . import engines, scenarios
from .chrono.corotational import section_properties
from .errors import ParameterError, SimulationError
from .planar.arm import PlanarArm
from .planar.params import Payload

#: Output interval of every run, s: errors are taken at these times.
DT_OUT = 0.01

#: Spectral radius at infinite frequency of every generalized-alpha run (reference
#: engine and Exudyn).
RHO_INF = 0.8

#: Exudyn's Newton stops when the residual has dropped by the factor
#: EXUDYN_NEWTON_RTOL or its RMS is below EXUDYN_NEWTON_ATOL (N). Exudyn's defaults, 1e-8
#: and 1e-10, are below what the round-off of the cable's axial stiffness (EA / EI ~ 1e5
#: to 1e11 here) lets the residual reach: Newton then fails and the solver halves the
#: step, which makes the 4-element P1 at 1 ms about ten times dearer. With 1e-6 and 1e-8 N
#: (forces here are 0.1 to 50 N) the tip of P1 moves by 1e-4 of its range against the
#: defaults, far below the 1 % target.
EXUDYN_NEWTON_RTOL = 1e-6
EXUDYN_NEWTON_ATOL = 1e-8

#: Wall-time budget of one run, s: a run that needs more is reported as not finished.
RUN_BUDGET = 150.0


@dataclass(frozen=True)
class Problem:
    """A benchmark problem: the arm (``build(n)`` with n elements), its inputs and how
    its accuracy is measured.

    Attributes:
        key, title: short name ("P1") and description.
        build: callable(n_elements) -> PlanarArm.
        t_end: simulated time, s.
        n_elements: elements of the link.
        inputs: keyword arguments of every engine (torque or initial angles).
        measures: names of the error measures (:func:`errors`).
        targets: {measure: the accuracy target}.
        angle0: initial joint angle, rad (for the Exudyn model).
        torque: the joint torque callable, or None.
    """

    key: str
    title: str
    build: object
    t_end: float
    n_elements: int
    inputs: dict = field(default_factory=dict)
    measures: tuple = ()
    targets: dict = field(default_factory=dict)
    angle0: float = 0.0
    torque: object = None

    def arm(self, n=None):
        return self.build(self.n_elements if n is None else n)


def torque_driven_link(t_end=3.0, n_elements=4):
    """P1: a [B] link with a 0.1 kg tip mass turned by the torque pulse 0.4 N m over 2 s
    (no gravity)."""
    torque = scenarios.pulse(0.4, 2.0)
    return Problem("P1", "torque-driven link, tip mass, no gravity",
                   lambda n: PlanarArm([scenarios.bien_link(1.0, n)], payload=Payload(0.1)),
                   t_end, n_elements, dict(torque=torque), ("tip",), {"tip": 0.01},
                   0.0, torque)


def gravity_pendulum(t_end=2.0, n_elements=16):
    """P2: the Kozlowski link released at rest at -80 deg under gravity, with geometric
    stiffening."""
    angle0 = math.radians(-80.0)
    return Problem("P2", "gravity pendulum released at -80 deg, geometric stiffening",
                   lambda n: PlanarArm([scenarios.kozlowski_link(n)], gravity=True,
                                       geometric_stiffening=True),
                   t_end, n_elements, dict(q0=[angle0]),
                   ("angle", "deflection"), {"angle": 1e-3, "deflection": 0.01}, angle0, None)


@dataclass
class Trajectory:
    """What the measures need of a run: times, joint angle, tip position (nt, 2) and tip
    deflection in the link's root frame (nt,)."""

    t: np.ndarray
    angle: np.ndarray
    tip: np.ndarray
    deflection: np.ndarray

    @classmethod
    def of(cls, result):
        """From a :class:`~chrono_flex.result.Result` of any engine."""
        return cls(np.asarray(result.t), np.asarray(result.joint_angles)[:, 0],
                   np.asarray(result.tip_position), np.asarray(result.tip_deflection)[:, 0])

    def at(self, t):
        """The trajectory linearly interpolated to the times ``t``."""
        if self.t.shape == np.shape(t) and np.allclose(self.t, t, rtol=0, atol=1e-9):
            return self
        f = lambda y: np.interp(t, self.t, y)  # noqa: E731
        return Trajectory(np.asarray(t), f(self.angle),
                          np.column_stack([f(self.tip[:, 0]), f(self.tip[:, 1])]),
                          f(self.deflection))


def errors(problem, run, ref):
    """{measure: error} of the trajectory ``run`` against ``ref`` (both Trajectory), at
    the reference's output times.

    * "tip": max_t |p(t) - p_ref(t)| / R, R = the larger of the ranges (max - min) of
      the reference tip's x and y;
    * "angle": max_t |theta(t) - theta_ref(t)|, rad;
    * "deflection": max_t |w(t) - w_ref(t)| / (max w_ref - min w_ref).
    """
    run = run.at(ref.t)
    out = {}
    for m in problem.measures:
        if m == "tip":
            span = float(np.max(np.ptp(ref.tip, axis=0)))
            out[m] = float(np.max(np.linalg.norm(run.tip - ref.tip, axis=1))) / span
        elif m == "angle":
            out[m] = float(np.max(np.abs(run.angle - ref.angle)))
        elif m == "deflection":
            out[m] = float(np.max(np.abs(run.deflection - ref.deflection))
                           / np.ptp(ref.deflection))
        else:
            raise ParameterError("problem.measures", m, "must be tip, angle or deflection")
    return out


def meets(problem, errs):
    """True when every error is within its target."""
    return all(errs[m] <= problem.targets[m] for m in problem.measures)


# -- the tools ---------------------------------------------------------------------------

def exudyn_available():
    """(True, version) when Exudyn imports, else (False, reason)."""
    try:
        import exudyn
    except ImportError as exc:
        return False, (f"Exudyn is not installed ({exc}); pip install 'chrono_flex[bench]' "
                       "adds it")
    return True, getattr(exudyn, "__version__", "?")


def exudyn_cable_run(problem, step, n_elements=None, t_end=None):
    """Run ``problem`` in Exudyn with ANCF Cable2D elements (:func:`exudyn_cable_chain`);
    returns (Trajectory, wall s)."""
    n = problem.n_elements if n_elements is None else ck.positive_int("n_elements", n_elements)
    t_end = problem.t_end if t_end is None else ck.positive("t_end", t_end)
    t_wall = time.perf_counter()
    out = exudyn_cable_chain(problem.arm(n), step, t_end, [problem.angle0], problem.torque,
                             what=problem.key)
    wall = time.perf_counter() - t_wall
    return Trajectory(out["t"], out["angles"][:, 0], out["tip"], out["deflections"][:, 0]), wall


def exudyn_cable_chain(arm, step, t_end, angles0=None, torque=None, what="the arm",
                       dt_out=DT_OUT):
    """Run the planar chain ``arm`` (revolute joints, one Hermite link each) in Exudyn with
    ANCF Cable2D elements; returns {"t", "angles" (nt, nj), "tip" (nt, 2),
    "deflections" (nt, nl)} sampled every ``dt_out``.

    The same links as the reference engine: each link's elements (as many as the link
    has) take its rho_A and EI; the axial stiffness EA is the one the Chrono beams get
    (:func:`chrono_flex.chrono.corotational.section_properties`: the reference is
    inextensible, the cable is not). The first root is pinned to the ground and each
    further root to the previous link's tip (ObjectJointRevolute2D), so joint j's angle
    is the direction of link j's root slope less that of link j-1's tip slope ([B]'s
    joint turns with the deformed tip). Joint j's torque acts on link j's root and its
    reaction on link j-1's tip (LoadTorqueVector on MarkerBodyRigid); gravity is a
    mass-proportional load on each element; the payload is a MassPoint2D on the last
    node (arms with hub masses or inertias or a payload inertia are refused). The links
    start straight at the joint angles ``angles0`` (rad) and at rest. Exudyn's
    generalized-alpha (rho_inf = 0.8, modified Newton, :data:`EXUDYN_NEWTON_RTOL` and
    :data:`EXUDYN_NEWTON_ATOL`) at the fixed ``step``. A link's deflection is its tip's
    offset from its root across its root slope.
    """
    import exudyn as exu
    from exudyn import itemInterface as ei

    step = ck.positive("step", step)
    t_end = ck.positive("t_end", t_end)
    nl = len(arm.links)
    if any(j.kind != "revolute" or j.hub_inertia or j.hub_mass or j.angle_offset
           for j in arm.joints) or arm.payload.inertia:
        raise ParameterError("arm", what, "must have plain revolute joints and a point "
                             "payload for the Exudyn cable model")
    angles0 = np.zeros(nl) if angles0 is None else ck.vector("angles0", angles0, size=nl)
    absolute = np.cumsum(angles0)
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground = mbs.AddObject(ei.ObjectGround())
    start = np.zeros(2)
    roots, tips, first, last = [], [], [], []
    for j, link in enumerate(arm.links):
        n = link.n_elements
        sec = section_properties(link)
        c, s = math.cos(absolute[j]), math.sin(absolute[j])
        le = link.length / n
        nodes = [mbs.AddNode(ei.NodePoint2DSlope1(referenceCoordinates=[
            start[0] + k * le * c, start[1] + k * le * s, c, s])) for k in range(n + 1)]
        cables = []
        for k in range(n):
            cables.append(mbs.AddObject(ei.ObjectANCFCable2D(
                length=le, massPerLength=link.rho_A, bendingStiffness=link.EI,
                axialStiffness=sec.E * sec.A, nodeNumbers=[nodes[k], nodes[k + 1]])))
            if arm.gravity:
                m = mbs.AddMarker(ei.MarkerBodyMass(bodyNumber=cables[-1]))
                mbs.AddLoad(ei.LoadMassProportional(markerNumber=m,
                                                    loadVector=[0.0, -arm.gravity, 0.0]))
        if j == 0:
            pin = [mbs.AddMarker(ei.MarkerBodyPosition(bodyNumber=ground,
                                                       localPosition=[0.0, 0.0, 0.0]))]
        else:
            pin = [mbs.AddMarker(ei.MarkerBodyPosition(bodyNumber=last[-1][0],
                                                       localPosition=[last[-1][1], 0.0, 0.0]))]
        pin.append(mbs.AddMarker(ei.MarkerBodyPosition(bodyNumber=cables[0],
                                                       localPosition=[0.0, 0.0, 0.0])))
        mbs.AddObject(ei.ObjectJointRevolute2D(markerNumbers=pin))
        roots.append((nodes[0], c, s))
        tips.append((nodes[-1], c, s))
        first.append(cables[0])
        last.append((cables[-1], le))
        start = start + link.length * np.array([c, s])
    if arm.payload.mass > 0:
        mbs.AddObject(ei.ObjectMassPoint2D(mass=arm.payload.mass, nodeNumber=tips[-1][0]))
    if torque is not None:
        for j in range(nl):
            on = [(mbs.AddMarker(ei.MarkerBodyRigid(bodyNumber=first[j],
                                                    localPosition=[0.0, 0.0, 0.0])), 1.0)]
            if j > 0:
                on.append((mbs.AddMarker(ei.MarkerBodyRigid(
                    bodyNumber=last[j - 1][0], localPosition=[last[j - 1][1], 0.0, 0.0])), -1.0))
            for marker, sign in on:
                mbs.AddLoad(ei.LoadTorqueVector(
                    markerNumber=marker,
                    loadVectorUserFunction=lambda mbs_, t, load, j=j, sign=sign:
                        [0.0, 0.0, sign * float(np.atleast_1d(torque(t))[j])]))
    sensor = lambda node, kind: mbs.AddSensor(ei.SensorNode(  # noqa: E731
        nodeNumber=node, storeInternal=True, outputVariableType=kind))
    coords, pos = exu.OutputVariableType.Coordinates, exu.OutputVariableType.Position
    root_s = [(sensor(r[0], coords), sensor(r[0], pos), r[1:]) for r in roots]
    tip_s = [(sensor(r[0], coords), sensor(r[0], pos), r[1:]) for r in tips]
    mbs.Assemble()
    ss = exu.SimulationSettings()
    ss.timeIntegration.numberOfSteps = max(1, int(round(t_end / step)))
    ss.timeIntegration.endTime = t_end
    ss.timeIntegration.generalizedAlpha.spectralRadius = RHO_INF
    ss.timeIntegration.newton.useModifiedNewton = True
    ss.timeIntegration.newton.relativeTolerance = EXUDYN_NEWTON_RTOL
    ss.timeIntegration.newton.absoluteTolerance = EXUDYN_NEWTON_ATOL
    ss.timeIntegration.verboseMode = 0
    ss.show.statistics = False              # the names of Exudyn 1.13 (the 'bench' extra)
    ss.show.computationTime = False
    ss.solution.file.write = False
    ss.solution.sensors.writePeriod = dt_out
    ss.parallel.numberOfThreads = 1
    if not exu.SolveDynamic(mbs, ss):
        raise SimulationError(f"Exudyn's solver failed on {what} at step {step}")

    def read(sensors):
        out = []
        for sc_, sp, (c, s) in sensors:
            q = np.asarray(mbs.GetSensorStoredData(sc_))
            p = np.asarray(mbs.GetSensorStoredData(sp))
            slope = q[:, 3:5] + [c, s]
            out.append((q[:, 0], p[:, 1:3], np.unwrap(np.arctan2(slope[:, 1], slope[:, 0]))))
        return out

    r, tp = read(root_s), read(tip_s)
    t = r[0][0]
    psi_root = np.column_stack([x[2] for x in r])
    psi_tip = np.column_stack([x[2] for x in tp])
    angles = psi_root.copy()
    angles[:, 1:] -= psi_tip[:, :-1]
    defl = np.column_stack([np.sum((tp[j][1] - r[j][1]) * np.column_stack(
        [-np.sin(psi_root[:, j]), np.cos(psi_root[:, j])]), axis=1) for j in range(nl)])
    return dict(t=t, angles=angles, tip=tp[-1][1], deflections=defl)


def _engine_run(problem, engine, value, n_elements=None, t_end=None, budget=None):
    """One run of a chrono_flex engine ("radau", "galpha", "chrono", "chrono-beam") at
    the setting ``value`` (rtol for Radau, else the step); returns (Trajectory, wall s)."""
    n = problem.n_elements if n_elements is None else n_elements
    t_end = problem.t_end if t_end is None else t_end
    kw = dict(problem.inputs, t_end=t_end, dt_out=DT_OUT, progress=False,
              max_wall_time=budget)
    if engine == "radau":
        kw.update(method="Radau", rtol=value, atol=value * 1e-3)
        engine = "reference"
    elif engine == "galpha":
        kw.update(method="generalized_alpha", step=value, rho_inf=RHO_INF)
        engine = "reference"
    elif engine == "chrono-beam":
        kw.update(step=value, n_elements=n)
    else:
        kw.update(step=value)
    t0 = time.perf_counter()
    res = engines.simulate(problem.arm(n), engine, **kw)
    return Trajectory.of(res), time.perf_counter() - t0


#: The tools: key -> (label, what the setting is).
TOOLS = {
    "radau": ("reference, Radau", "rtol"),
    "galpha": ("reference, gen.-alpha 0.8", "step"),
    "chrono": ("Chrono element", "step"),
    "chrono-beam": ("Chrono beams", "step"),
    "exudyn": ("Exudyn ANCF cable", "step"),
}


def run_tool(problem, tool, value, n_elements=None, t_end=None, budget=None):
    """(Trajectory, wall time s) of one run of ``tool`` (a key of :data:`TOOLS`) at the
    setting ``value`` (rtol for "radau", else the step, s); the chrono_flex engines stop
    with SimulationError after ``budget`` s of wall time (default: none)."""
    if tool not in TOOLS:
        raise ParameterError("tool", tool, f"must be one of {sorted(TOOLS)}")
    if tool == "exudyn":
        return exudyn_cable_run(problem, value, n_elements, t_end)
    return _engine_run(problem, tool, value, n_elements, t_end, budget)


# -- settings ----------------------------------------------------------------------------

#: Per problem: the settings of each tool's rows and of its converged run ("converged");
#: the reference engine's converged run ("reference": method and setting) serves both
#: of its methods. Radau runs with atol = 1e-3 rtol on every state. On P2 the reference
#: engine converges with generalized-alpha at a small step: Radau at tight tolerances
#: resolves the undamped high bending modes of the 16 elements and takes minutes (rtol
#: 1e-4 had not reached 1.1 s of the 2 s after 120 s). P1 is smooth enough for every
#: tool to reach its target at the largest step, 10 ms, the output interval (the fixed-
#: step engines land on every output time). The release from rest excites P2's high
#: bending modes, which numerical damping (rho_inf, HHT alpha) removes at large steps:
#: its tip deflection needs steps of some 1e-4 s and less.
FULL = {
    "P1": {
        "reference": ("radau", 1e-10),
        "radau": (1e-2, 1e-3, 1e-4, 1e-6),
        "galpha": (1e-2, 5e-3, 2.5e-3, 1e-3),
        "chrono": (1e-2, 5e-3, 2.5e-3, 1e-3),
        "chrono-beam": (1e-2, 5e-3, 2.5e-3, 1e-3),
        "exudyn": (1e-2, 5e-3, 2.5e-3, 1e-3, 5e-4),
        "converged": {"chrono": 1e-4, "chrono-beam": 5e-5, "exudyn": 1e-5},
    },
    "P2": {
        "reference": ("galpha", 5e-6),
        "radau": (3e-3, 1e-3),
        "galpha": (1e-3, 5e-4, 2.5e-4, 1.25e-4, 6.25e-5, 3.125e-5),
        "chrono": (1e-3, 5e-4, 2.5e-4),
        "chrono-beam": (1e-3, 5e-4, 2.5e-4, 1.25e-4),
        "exudyn": (1e-3, 5e-4, 2.5e-4, 1.25e-4, 6.25e-5, 3.125e-5),
        "converged": {"chrono": 5e-5, "chrono-beam": 2.5e-5, "exudyn": 2.5e-6},
    },
}

#: --quick: short runs, coarse settings (seconds in all; for tests and a first look).
QUICK = {
    "P1": {
        "reference": ("radau", 1e-9),
        "radau": (1e-3, 1e-5),
        "galpha": (4e-3, 2e-3, 1e-3),
        "chrono": (4e-3, 2e-3),
        "chrono-beam": (4e-3, 2e-3),
        "exudyn": (4e-3, 2e-3, 1e-3),
        "converged": {"chrono": 5e-4, "chrono-beam": 5e-4, "exudyn": 1e-4},
    },
    "P2": {
        "reference": ("galpha", 1e-4),
        "radau": (),
        "galpha": (4e-3, 2e-3, 1e-3),
        "chrono": (4e-3, 2e-3),
        "chrono-beam": (4e-3, 2e-3),
        "exudyn": (4e-3, 2e-3, 1e-3),
        "converged": {"chrono": 5e-4, "chrono-beam": 5e-4, "exudyn": 1e-4},
    },
}
