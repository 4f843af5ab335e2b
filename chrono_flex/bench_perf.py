"""Work-precision benchmark (``chrono-flex bench perf``): error against wall time of every
engine, and of Exudyn where it is installed, on two planar flexible-link problems.

The problems, built from the package's own pieces:

* ``P1``, torque-driven link: one [B] link (:func:`chrono_flex.scenarios.bien_link`,
  L = 1 m), tip mass 0.1 kg, no gravity, the torque pulse
  :func:`chrono_flex.scenarios.pulse` (0.4 N m over 2 s), 3 s, 4 elements. Measure: the
  largest distance, over time, between the tip and the converged tip, divided by the
  range of the tip position (the larger side of the box the converged tip sweeps).
* ``P2``, gravity pendulum: the Kozlowski link (:func:`chrono_flex.scenarios.kozlowski_link`,
  the arm of the ``kozlowski-1link`` case) released at rest at -80 deg, with geometric
  stiffening, 2 s, 16 elements. Measures: the largest joint angle error (rad) and the
  largest tip deflection error divided by the range (max - min) of the converged tip
  deflection.

Each tool is measured against its own converged solution (its finest run), so the
errors are numerical errors of that tool; the difference between a tool's converged
solution and the reference engine's is reported apart, as the model difference (an
extensible beam, lumped masses, a different beam theory), which no step size removes.

Tools: the reference engine with Radau at several ``rtol`` and with generalized-alpha
(rho_inf = 0.8) at several steps; the Chrono custom element (engine ``chrono``) and
Chrono's own beams (``chrono-beam``) at several steps, when PyChrono is present; and
Exudyn's ANCF cable elements (:func:`exudyn_cable_run`), when ``exudyn`` is installed
(the ``bench`` extra). Every timing is the wall time of the whole call (building the
model, integrating, reading the outputs), all in one process after one warm-up run of
every tool (numba compiles its kernels on first use, PyChrono and Exudyn load).

The summary gives, per problem, the cheapest run of each tool that reaches the accuracy
target (P1: 1 % tip position; P2: 1e-3 rad and 1 % tip deflection) and the wall-time
ratios reference engine / Exudyn and Chrono element / Chrono beams; then the growth of
the reference engine's cost with the element count (fixed-step generalized-alpha on a
short P2, exponent of a log-log least-squares fit) and the Chrono element / Chrono
beams ratio at 4, 8 and 16 elements.

Two lines time user laws (:func:`user_laws`): ``P3``, P1's link turned by a bang-bang
torque that a Python controller sampled at 1 kHz computes, at the reference engine's
default settings against Exudyn with its torque a Python user function; and Bien's
8-element link over 10 s with a plain Python torque f(t, q, qd), at the default
settings, in times faster than real time, each with its tip error.

This module sits at the top with the command line: it may use the scenario catalogue
and every engine; nothing imports it.
"""

from dataclasses import dataclass, field
import math
import time

import numpy as np

from . import _checks as ck
from . import engines, inputs, scenarios
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


@dataclass
class Row:
    """One line of a work-precision table."""

    tool: str
    setting: float
    wall: float
    errors: dict
    note: str = ""


@dataclass
class ProblemReport:
    """The table of one problem: its rows, each tool's model difference to the
    reference engine (converged against converged), the cheapest run reaching the
    target per tool, and the wall-time ratios."""

    problem: Problem
    rows: list
    model_difference: dict
    cheapest: dict
    skipped: dict
    converged: dict = field(default_factory=dict)


def _problems(quick):
    if quick:
        return [torque_driven_link(t_end=0.5), gravity_pendulum(t_end=0.3, n_elements=4)]
    return [torque_driven_link(), gravity_pendulum()]


def work_precision(problem, settings, tools, repeat=1, log=None, budget=RUN_BUDGET):
    """The work-precision table of ``problem`` for ``tools`` with ``settings`` (a dict
    as :data:`FULL` ["P1"]), each row the best wall time of ``repeat`` runs; a run of a
    chrono_flex engine that needs more than ``budget`` s becomes a row without errors.
    ``log``: callable(str) told of every run. Returns a :class:`ProblemReport`."""
    rows, converged = [], {}
    ref_tool, ref_value = settings["reference"]
    if log:
        log(f"{problem.key} reference engine: converged run, {ref_tool} {ref_value:g}")
    ref = run_tool(problem, ref_tool, ref_value)[0]
    for tool in tools:
        if tool in ("radau", "galpha"):
            converged[tool] = ref
        else:
            fine = settings["converged"][tool]
            if log:
                log(f"{problem.key} {tool}: converged run at {fine:g}")
            converged[tool] = run_tool(problem, tool, fine)[0]
        for v in settings[tool]:
            best, traj = math.inf, None
            try:
                for _ in range(repeat):
                    traj, wall = run_tool(problem, tool, v, budget=budget)
                    best = min(best, wall)
            except SimulationError as exc:     # over budget: a row without errors
                rows.append(Row(tool, v, math.inf, None, str(exc)))
            else:
                rows.append(Row(tool, v, best, errors(problem, traj, converged[tool])))
            if log:
                log(f"{problem.key} {tool} {v:g}: {best:.3f} s {rows[-1].errors}")
    model = {tool: errors(problem, converged[tool], ref)
             for tool in tools if tool not in ("radau", "galpha")}
    cheapest = {}
    for r in rows:
        if r.errors is None or not meets(problem, r.errors):
            continue
        if r.tool not in cheapest or r.wall < cheapest[r.tool].wall:
            cheapest[r.tool] = r
    fine = {t: settings["converged"][t] for t in tools if t not in ("radau", "galpha")}
    return ProblemReport(problem, rows, model, cheapest, {},
                         dict(reference=settings["reference"], **fine))


def _ref_cheapest(report):
    """The cheapest reference-engine run (either method) reaching the target."""
    runs = [report.cheapest[k] for k in ("radau", "galpha") if k in report.cheapest]
    return min(runs, key=lambda r: r.wall) if runs else None


def element_scaling(n_list=(2, 4, 8, 16, 32, 64), t_end=0.2, step=1e-3, repeat=1):
    """Wall time of the reference engine (generalized-alpha, fixed ``step``) on the
    gravity pendulum for ``t_end`` s, per element count; returns (list of (n, wall s),
    exponent p of wall ~ n^p by least squares on the logarithms)."""
    problem = gravity_pendulum(t_end=t_end)
    out = []
    for n in n_list:
        n = ck.positive_int("n_list[]", n)
        out.append((n, min(run_tool(problem, "galpha", step, n_elements=n)[1]
                           for _ in range(repeat))))
    ns, ws = np.array(out, dtype=float).T
    p = float(np.polyfit(np.log(ns), np.log(ws), 1)[0]) if len(ns) > 1 else math.nan
    return out, p


def chrono_ratio(n_list=(4, 8, 16), t_end=0.5, step=1e-3, repeat=1):
    """Wall times of the Chrono element and Chrono's beams on the gravity pendulum for
    ``t_end`` s at ``step``, per element count: list of (n, element s, beams s)."""
    problem = gravity_pendulum(t_end=t_end)
    out = []
    for n in n_list:
        n = ck.positive_int("n_list[]", n)
        el = min(run_tool(problem, "chrono", step, n_elements=n)[1] for _ in range(repeat))
        bm = min(run_tool(problem, "chrono-beam", step, n_elements=n)[1] for _ in range(repeat))
        out.append((n, el, bm))
    return out


def _single_link(t_end):
    """[B]'s single link (`bien-1link-n3`: three elements, torque pulse), as its scenario."""
    arm, kw = scenarios.get("bien-1link-n3").arm_and_kwargs(t_end=t_end)
    return arm, kw


def _double_pendulum(t_end):
    """[K]'s double pendulum with 4 + 4 elements, released at (-90, 5) deg under gravity."""
    arm = PlanarArm([scenarios.kozlowski_link(4), scenarios.kozlowski_link(4)], gravity=True)
    return arm, dict(t_end=t_end, q0=[math.radians(-90.0), math.radians(5.0)],
                     dt_out=0.01)


#: the cases of the real-time line: (label, builder(t_end) -> (arm, simulate arguments))
REAL_TIME_CASES = (("[B] single link, bien-1link-n3", _single_link),
                   ("[K] double pendulum, 4 + 4 elements", _double_pendulum))


def real_time(t_end=10.0, repeat=1):
    """Wall time of ``t_end`` s of each of :data:`REAL_TIME_CASES` on the reference engine
    at its default settings (``simulate`` given only the scenario's own arguments: the
    default method and tolerance), best of ``repeat``; returns a list of (label, method,
    rtol, wall s, t_end / wall: times faster than real time)."""
    t_end = ck.positive("t_end", t_end)
    repeat = ck.positive_int("repeat", repeat)
    out = []
    for label, build in REAL_TIME_CASES:
        walls = []
        for _ in range(repeat):
            arm, kw = build(t_end)
            start = time.perf_counter()
            res = arm.simulate(progress=False, **kw)
            walls.append(time.perf_counter() - start)
        wall = min(walls)
        out.append((label, res.info["method"], res.info["rtol"], wall, t_end / wall))
    return out


# -- user laws: a sampled Python controller, a plain Python torque ----------------------

#: The bang-bang torque of the user-law lines: +0.1 N m for 1 s, -0.1 N m for 1 s, then
#: none ([B]'s link, the amplitude of its torque pulse).
BANG_BANG = (0.1, 2.0)

#: The sample period of the controller line, s (1 kHz).
CONTROLLER_PERIOD = 1e-3


def bang_bang_link(n_elements=4, t_end=3.0):
    """A [B] link (L = 1 m) with a 0.1 kg tip mass, no gravity, turned by the bang-bang
    torque :data:`BANG_BANG` (an input profile: ``problem.torque``)."""
    torque = inputs.bang_bang(*BANG_BANG)
    return Problem("P3", "bang-bang link, tip mass, no gravity",
                   lambda n: PlanarArm([scenarios.bien_link(1.0, n)], payload=Payload(0.1)),
                   t_end, n_elements, dict(torque=torque), ("tip",), {"tip": 0.01}, 0.0,
                   torque)


def _default_run(problem, torque):
    """(Trajectory, wall s) of the reference engine at its default settings with
    ``torque``."""
    start = time.perf_counter()
    res = problem.arm().simulate(problem.t_end, torque=torque, dt_out=DT_OUT, progress=False)
    return Trajectory.of(res), time.perf_counter() - start, res.info


def user_laws(quick=False, tools=(), repeat=2):
    """The two user-law lines; returns a dict:

    * ``controller``: the bang-bang link (:func:`bang_bang_link`, 4 elements, 3 s; quick
      0.5 s) with the torque a Python controller sampled at 1 kHz
      (:func:`chrono_flex.inputs.sampled` of a function of (t, q, qd) returning the
      bang-bang value) on the reference engine at its default settings, against Exudyn
      (when "exudyn" is in ``tools``) with the same torque as its Python load user
      function, at the steps of :data:`FULL` ["P1"] (quick: :data:`QUICK`); each
      against its own converged run (Radau rtol 1e-9; Exudyn at 1e-5 s, quick 1e-4),
      and the ratio of the wall times of the reference run and of Exudyn's cheapest run
      within 1 % of the tip's range;
    * ``plain``: Bien's link with 8 elements over 10 s (quick 1 s) with a plain Python
      torque f(t, q, qd) (the bang-bang value; the engine cannot know it reads no
      state) at the default settings, against generalized-alpha at a fixed 1e-4 s with
      the torque as a profile (quick: 2e-4 s; second order: over the first 2 s, 1e-4 s
      is within 6e-4 of the tip's range of 5e-5 s); wall time, times faster than
      real time, tip error / range.
    """
    bb = inputs.bang_bang(*BANG_BANG)
    out = {}
    p = bang_bang_link(4, 0.5 if quick else 3.0)
    law = inputs.sampled(lambda t, q, qd: bb(t), CONTROLLER_PERIOD)
    ref = run_tool(p, "radau", 1e-9)[0]
    runs = [_default_run(p, law) for _ in range(repeat)]
    traj, info = runs[0][0], runs[0][2]
    row = dict(wall=min(r[1] for r in runs), error=errors(p, traj, ref)["tip"],
               n_steps=info["n_steps"], samples=info["n_samples_taken"], exudyn=[])
    if "exudyn" in tools:
        table = (QUICK if quick else FULL)["P1"]
        fine = run_tool(p, "exudyn", table["converged"]["exudyn"])[0]
        for h in table["exudyn"]:
            tr, wall = run_tool(p, "exudyn", h)
            wall = min([wall] + [run_tool(p, "exudyn", h)[1] for _ in range(repeat - 1)])
            row["exudyn"].append((h, wall, errors(p, tr, fine)["tip"]))
    out["controller"] = (p, row)
    p = bang_bang_link(8, 1.0 if quick else 10.0)
    ref = run_tool(p, "galpha", 2e-4 if quick else 1e-4)[0]
    runs = [_default_run(p, lambda t, q, qd: bb(t)) for _ in range(repeat)]
    traj, info = runs[0][0], runs[0][2]
    wall = min(r[1] for r in runs)
    out["plain"] = (p, dict(wall=wall, error=errors(p, traj, ref)["tip"],
                            n_steps=info["n_steps"], realtime=p.t_end / wall))
    return out


def _format_user_laws(laws):
    lines = []
    p, row = laws["controller"]
    lines.append(f"{p.key}: {p.title}, {p.t_end:g} s, {p.n_elements} elements; torque a "
                 f"Python controller sampled at {1 / CONTROLLER_PERIOD:g} Hz")
    lines.append(f"  reference engine, default settings: {row['wall']:.3f} s, tip err / "
                 f"range {row['error']:.2e}, {row['n_steps']} steps, {row['samples']} "
                 "samples")
    ok = [r for r in row["exudyn"] if r[2] <= p.targets["tip"]]
    for h, wall, err in row["exudyn"]:
        lines.append(f"  Exudyn, Python user function, h {h:.2e} s: {wall:.3f} s, tip err "
                     f"/ range {err:.2e}" + ("  *" if err <= p.targets["tip"] else ""))
    if ok:
        best = min(ok, key=lambda r: r[1])
        lines.append(f"  reference engine / Exudyn (cheapest within 1 %, h {best[0]:g} s): "
                     f"{row['wall'] / best[1]:.2f}")
    p, row = laws["plain"]
    lines.append(f"Bien's link, {p.n_elements} elements, {p.t_end:g} s, plain Python torque "
                 f"f(t, q, qd), default settings: {row['wall']:.3f} s, "
                 f"{row['realtime']:.1f} times faster than real time, tip err / range "
                 f"{row['error']:.2e}, {row['n_steps']} steps")
    return lines


def _warm_up(tools):
    """One short run of every tool: numba compiles, PyChrono and Exudyn load."""
    for problem in (torque_driven_link(t_end=0.02), gravity_pendulum(t_end=0.02, n_elements=2)):
        for tool in tools:
            run_tool(problem, tool, 1e-3)


def available_tools(tools=None):
    """(the tools to run, {tool: why it is skipped}): ``tools`` (default all of
    :data:`TOOLS`) less those whose software is missing (PyChrono, Exudyn)."""
    tools = list(TOOLS) if tools is None else list(tools)
    for t in tools:
        if t not in TOOLS:
            raise ParameterError("tools", tools, f"must be keys of {sorted(TOOLS)}")
    skipped = {}
    if "chrono" in tools or "chrono-beam" in tools:
        ok, why = engines.pychrono_available()
        if not ok:
            for t in ("chrono", "chrono-beam"):
                if t in tools:
                    skipped[t] = f"PyChrono is not available: {why}"
    if "exudyn" in tools:
        ok, why = exudyn_available()
        if not ok:
            skipped["exudyn"] = why
    return [t for t in tools if t not in skipped], skipped


def perf_benchmark(quick=False, tools=None, repeat=1, log=None):
    """Run the whole benchmark; returns a dict: problems (list of ProblemReport),
    scaling ((n, wall) list, exponent), ratio ((n, element s, beams s) list, or None
    without the Chrono tools), real_time (:func:`real_time`, 1 s quick, else 10 s), skipped ({tool: reason}), tools (those run), quick,
    exudyn_version.

    ``quick``: short runs with coarse settings (:data:`QUICK`, P2 with 4 elements) for
    tests and a first look; ``tools``: keys of :data:`TOOLS` (default all, those whose
    software is missing skipped with the reason); ``repeat``: runs per table row (the
    best wall time counts); ``log``: callable(str) told of every run."""
    repeat = ck.positive_int("repeat", repeat)
    tools, skipped = available_tools(tools)
    _warm_up(tools)
    table = QUICK if quick else FULL
    reports = []
    for problem in _problems(quick):
        rep = work_precision(problem, table[problem.key], tools, repeat, log)
        rep.skipped = skipped
        reports.append(rep)
    if quick:
        scaling = element_scaling((2, 4, 8), t_end=0.05, repeat=repeat)
    else:
        scaling = element_scaling(repeat=max(repeat, 2))
    realtime = real_time(1.0 if quick else 10.0, repeat=max(repeat, 2))
    ratio = None
    if "chrono" in tools and "chrono-beam" in tools:
        ratio = chrono_ratio(*(((4, 8), 0.05) if quick else ()), repeat=repeat)
    version = exudyn_available()[1] if "exudyn" in tools else None
    laws = user_laws(quick, tools, repeat=max(repeat, 2))
    return dict(problems=reports, scaling=scaling, ratio=ratio, real_time=realtime,
                skipped=skipped, tools=tools, quick=quick, exudyn_version=version,
                user_laws=laws)


# -- the printed report ------------------------------------------------------------------

_MEASURE_LABEL = {"tip": "tip pos. err / range", "angle": "angle err (rad)",
                  "deflection": "defl. err / range"}


def _setting(tool, v):
    return f"rtol {v:.0e}" if TOOLS[tool][1] == "rtol" else f"h {v:.2e} s"


def format_report(bench):
    """The lines ``chrono-flex bench perf`` prints for the dict of :func:`perf_benchmark`."""
    lines = [("Work-precision benchmark, --quick settings" if bench["quick"] else
              "Work-precision benchmark") + "; tools: " + ", ".join(
        TOOLS[t][0] for t in bench["tools"])
        + (f" (Exudyn {bench['exudyn_version']})" if bench["exudyn_version"] else ""), ""]
    for rep in bench["problems"]:
        p = rep.problem
        lines.append(f"{p.key}: {p.title}, {p.t_end:g} s, {p.n_elements} elements")
        head = "  {:<26s} {:>13s} {:>9s}".format("tool", "setting", "wall (s)")
        head += "".join(f" {_MEASURE_LABEL[m]:>21s}" for m in p.measures)
        lines.append(head)
        for r in rep.rows:
            line = f"  {TOOLS[r.tool][0]:<26s} {_setting(r.tool, r.setting):>13s}"
            if r.errors is None:
                lines.append(line + f"  not finished: {r.note}")
                continue
            line += f" {r.wall:9.3f}" + "".join(f" {r.errors[m]:21.2e}" for m in p.measures)
            lines.append(line + ("  *" if meets(p, r.errors) else ""))
        lines.append("  (* reaches the target: " + ", ".join(
            f"{m} <= {p.targets[m]:g}" for m in p.measures) + "; errors against each "
            "tool's own converged run)")
        conv = rep.converged
        if conv:
            rt, rv = conv["reference"]
            lines.append("  converged runs: reference engine " + _setting(rt, rv)
                         + f" ({TOOLS[rt][0].split(', ')[1]})" + "".join(
                             f"; {TOOLS[t][0]} {_setting(t, v)}" for t, v in conv.items()
                             if t != "reference"))
        lines.append("  model difference, converged run against the reference engine's:")
        for tool, errs in rep.model_difference.items():
            lines.append(f"    {TOOLS[tool][0]:<26s}" + "".join(
                f" {m} {errs[m]:.2e}" for m in p.measures))
        for tool, why in rep.skipped.items():
            lines.append(f"  {TOOLS[tool][0]}: skipped ({why})")
        lines.append("")
    lines.append("Summary: cheapest run reaching the target")
    for rep in bench["problems"]:
        p = rep.problem
        for tool in TOOLS:
            if not any(r.tool == tool for r in rep.rows):
                continue
            r = rep.cheapest.get(tool)
            what = (f"{_setting(tool, r.setting)}, {r.wall:.3f} s" if r is not None
                    else "none of its runs")
            lines.append(f"  {p.key} {TOOLS[tool][0]:<26s} {what}")
        ref, exu = _ref_cheapest(rep), rep.cheapest.get("exudyn")
        if ref is not None and exu is not None:
            lines.append(f"  {p.key} reference engine / Exudyn wall time: "
                         f"{ref.wall / exu.wall:.2f} ({TOOLS[ref.tool][0]}, "
                         f"{_setting(ref.tool, ref.setting)})")
        el = {r.setting: r.wall for r in rep.rows if r.tool == "chrono"}
        bm = {r.setting: r.wall for r in rep.rows if r.tool == "chrono-beam"}
        for h in sorted(set(el) & set(bm)):
            lines.append(f"  {p.key} Chrono element / Chrono beams, {p.n_elements} elements, "
                         f"h {h:g} s: {el[h] / bm[h]:.2f}")
    scaling, exponent = bench["scaling"]
    lines.append("")
    lines.append("Reference engine cost against element count (P2, generalized-alpha, "
                 "h 1e-3 s, " + ("0.05" if bench["quick"] else "0.2") + " s):")
    lines.append("  " + "  ".join(f"n={n}: {w:.3f} s" for n, w in scaling))
    lines.append(f"  wall ~ n^{exponent:.2f} (least squares on log-log)")
    span = "1" if bench["quick"] else "10"
    lines.append(f"Reference engine at default settings, {span} s of motion (best of two):")
    for label, method, rtol, wall, factor in bench["real_time"]:
        lines.append(f"  {label}: {method}, rtol {rtol:g}: {wall:.3f} s, "
                     f"{factor:.1f} times faster than real time")
    if bench.get("user_laws") is not None:
        lines.extend(_format_user_laws(bench["user_laws"]))
    if bench["ratio"] is not None:
        lines.append("Chrono element / Chrono beams (P2, h 1e-3 s, "
                     + ("0.05" if bench["quick"] else "0.5") + " s):")
        for n, el, bm in bench["ratio"]:
            lines.append(f"  n={n}: element {el:.3f} s, beams {bm:.3f} s, ratio {el / bm:.2f}")
    return lines


__all__ = ["torque_driven_link", "gravity_pendulum", "Problem", "Trajectory", "errors",
           "meets", "run_tool", "exudyn_cable_run", "exudyn_cable_chain", "exudyn_available",
           "work_precision",
           "element_scaling", "chrono_ratio", "real_time", "bang_bang_link", "user_laws", "REAL_TIME_CASES", "available_tools", "perf_benchmark",
           "format_report", "TOOLS", "FULL", "QUICK"]
