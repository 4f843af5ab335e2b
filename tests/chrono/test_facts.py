"""The facts about PyChrono 10 that the custom element relies on (docs/chrono.md), each run.

Every test names the fact and where chrono_flex.chrono.element depends on it.
"""

import math
import subprocess
import sys

import numpy as np
import pytest
from scipy.linalg import eigh

pytestmark = pytest.mark.pychrono


def shaft(chrono, system, inertia=1.0, pos=0.0, speed=0.0):
    sh = chrono.ChShaft()
    sh.SetInertia(inertia)
    sh.SetSleepingAllowed(False)
    sh.SetPos(pos)
    sh.SetPosDt(speed)
    system.Add(sh)
    return sh


def load_class(chrono, compute, stiff=True, on_update=None):
    """A ChLoadCustomMultiple subclass calling compute(load, x (array), w (array))."""

    class Load(chrono.ChLoadCustomMultiple):
        def __init__(self, items):
            super().__init__(items)
            self.calls = []

        def Update(self, time, flags):
            flags.disown()
            if on_update is not None:
                on_update(self, time)
            chrono.ChLoadCustomMultiple.Update(self, time, flags)

        def ComputeQ(self, x, w):
            xa = np.array(x.GetVectorData(x.Size()))
            wa = np.array(w.GetVectorData(w.Size()))
            self.calls.append((xa, wa, self.GetJacobians() is not None))
            self.load_Q.SetVect(list(compute(self, xa, wa)))

        def IsStiff(self):
            return stiff() if callable(stiff) else stiff

    return Load


def add_load(chrono, system, cls, items, configure=True):
    """Add a load of class ``cls`` over ``items`` (with a direct solver and HHT)."""
    if configure:
        chrono_flex_configure(chrono, system)
    vec = chrono.vector_ChLoadable()
    for it in items:
        vec.append(it)
    load = cls(vec)
    container = chrono.ChLoadContainer()
    container.Add(load)
    system.Add(container)
    return load, container


def test_shafts_are_added_with_add_not_addshaft(chrono):
    """element.FlexibleLink adds its shafts with system.Add."""
    system = chrono.ChSystemNSC()
    sh = chrono.ChShaft()
    with pytest.raises(TypeError):
        system.AddShaft(sh)
    system.Add(sh)
    sh.SetAppliedLoad(2.0)
    system.DoStepDynamics(0.1)
    assert system.GetNumShafts() == 1 and abs(sh.GetPosDt() - 0.2) < 1e-12


def test_the_default_solver_refuses_stiff_loads(chrono):
    """Chrono's default PSOR solver cannot take the load's K, R matrices (element:
    configure_system sets a sparse direct solver)."""
    system = chrono.ChSystemNSC()
    sh = shaft(chrono, system)
    keep = add_load(chrono, system, load_class(chrono, lambda s, x, w: [0.0]), [sh],  # noqa
                    configure=False)
    with pytest.raises(RuntimeError, match="PSOR"):
        system.DoStepDynamics(1e-3)


def test_state_layout_of_a_body_and_a_shaft_in_compute_q(chrono):
    """x = body position (3) + quaternion (4) + shaft angle; w = ABSOLUTE linear velocity
    (3) + LOCAL angular velocity (3) + shaft speed (element._state_from)."""
    system = chrono.ChSystemNSC()
    body = chrono.ChBody()
    body.SetPos(chrono.ChVector3d(1, 2, 3))
    rot = chrono.QuatFromAngleAxis(0.7, chrono.ChVector3d(0.3, -0.5, 0.8).GetNormalized())
    body.SetRot(rot)
    body.SetPosDt(chrono.ChVector3d(0.1, 0.2, 0.3))
    body.SetAngVelLocal(chrono.ChVector3d(0.4, 0.5, 0.6))
    system.Add(body)
    sh = shaft(chrono, system, pos=0.25, speed=0.7)
    load, _ = add_load(chrono, system, load_class(chrono, lambda s, x, w: np.zeros(7)),
                       [body, sh])
    system.DoStepDynamics(1e-3)
    x, w, _ = load.calls[0]
    assert np.allclose(x[:3], [1, 2, 3]) and x[7] == 0.25
    assert np.allclose(x[3:7], [rot.e0, rot.e1, rot.e2, rot.e3])
    assert np.allclose(w[:3], [0.1, 0.2, 0.3]) and w[6] == 0.7
    assert np.allclose(w[3:6], [0.4, 0.5, 0.6])        # local, although the body is turned
    parent = np.asarray(body.GetAngVelParent().to_numpy())
    assert not np.allclose(w[3:6], parent)


def test_stiff_update_calls_compute_q_2n_plus_2_times_with_jacobians_after_the_first(chrono):
    """Per stiff Update: ComputeQ at (x, w), again at (x, w) [Jacobians now exist], then
    at x + 1e-8 e_i for each velocity coordinate i, then at w + 1e-8 e_i. GetJacobians()
    is None in the very first call. (element: the mass is injected on the second call
    of a stiff Update.)"""
    system = chrono.ChSystemNSC()
    shafts = [shaft(chrono, system, pos=0.1 * k, speed=0.2 * k) for k in range(3)]
    calls = []

    def on_update(load, t):
        calls.append(len(load.calls))

    load, _ = add_load(chrono, system, load_class(chrono, lambda s, x, w: np.zeros(3),
                                                  on_update=on_update), shafts)
    system.DoStepDynamics(1e-3)
    n = 3
    first = load.calls[:2 * n + 2]
    (x0, w0, jac0), (x1, w1, jac1) = first[0], first[1]
    assert jac0 is False and jac1 is True
    assert np.array_equal(x0, x1) and np.array_equal(w0, w1)
    for i in range(n):
        x, w, _ = first[2 + i]
        assert np.allclose(x - x0, 1e-8 * np.eye(n)[i], rtol=0, atol=1e-15)
        assert np.array_equal(w, w0)
        x, w, _ = first[2 + n + i]
        assert np.array_equal(x, x0)
        assert np.allclose(w - w0, 1e-8 * np.eye(n)[i], rtol=0, atol=1e-15)
    counts = np.diff(calls + [len(load.calls)])
    assert np.all(counts == 2 * n + 2)


def test_non_stiff_update_calls_once_and_keeps_the_injected_mass(chrono):
    """IsStiff() False: one ComputeQ per Update, and the Jacobians (K, R and the injected
    M) built by an earlier stiff Update stay in use (element: jacobian="step")."""
    def run(native):
        system = chrono.ChSystemNSC()
        chrono_flex_configure(chrono, system)
        sh = shaft(chrono, system, inertia=2.0 if native else 1e-3, pos=1.0)
        sh.SetPosDt2(-50.0 / 2.0)
        state = {"updates": 0}

        def on_update(load, t):
            state["updates"] += 1

        def compute(load, x, w):
            jac = load.GetJacobians()
            if not native and jac is not None:
                jac.M = chrono.ChMatrixDynamicd(np.array([[2.0 - 1e-3]]))
            return [-50.0 * x[0]]

        cls = load_class(chrono, compute, stiff=lambda: state["updates"] <= 2,
                         on_update=on_update)
        load, _ = add_load(chrono, system, cls, [sh])
        for _ in range(200):
            system.DoStepDynamics(1e-3)
        return sh.GetPos(), load, state["updates"]

    x_native, _, _ = run(True)
    x_injected, load, updates = run(False)
    assert len(load.calls) == 2 * (2 * 1 + 2) + (updates - 2)
    assert abs(x_native - x_injected) < 1e-12


def test_injected_mass_equals_native_inertia_on_a_coupled_system(chrono):
    """Two shafts of tiny inertia with an injected 2x2 M and a coupling stiffness K give
    the trajectory of the closed-form modal solution (element: M(q) injection)."""
    M = np.array([[2.0, 0.5], [0.5, 1.0]])
    K = np.array([[40.0, -10.0], [-10.0, 20.0]])
    q0 = np.array([0.3, -0.1])
    eps = 1e-6
    system = chrono.ChSystemNSC()
    chrono_flex_configure(chrono, system)
    a0 = np.linalg.solve(M, -K @ q0)
    shafts = [shaft(chrono, system, inertia=eps, pos=q0[k]) for k in range(2)]
    for sh, a in zip(shafts, a0):
        sh.SetPosDt2(float(a))

    def compute(load, x, w):
        jac = load.GetJacobians()
        if jac is not None:
            jac.M = chrono.ChMatrixDynamicd(M - eps * np.eye(2))
        return -K @ x

    keep = add_load(chrono, system, load_class(chrono, compute), shafts)  # noqa: F841
    h, n = 5e-4, 2000
    for _ in range(n):
        system.DoStepDynamics(h)
    w2, V = eigh(K, M)
    q_exact = V @ (np.cos(np.sqrt(w2) * h * n) * (V.T @ M @ q0))
    q = np.array([sh.GetPos() for sh in shafts])
    # trapezoidal rule (HHT, alpha 0): phase error T w^3 h^2 / 12 per mode, times the
    # amplitude; w_max = 6.5 rad/s, T = 1 s, |q| 0.3 -> 6e-6. Bound 3x.
    assert np.max(np.abs(q - q_exact)) < 3 * 6.5**3 * h * h / 12 * 0.3


def chrono_flex_configure(chrono, system):
    from chrono_flex.chrono.system import configure_system

    return configure_system(system, "hht")


def test_hht_needs_consistent_initial_accelerations_for_second_order(chrono):
    """HHT takes the accelerations stored in the items as a_n at its first step (zero by
    default). With a wrong a_0 a linear oscillator converges at first order; with
    a_0 = M^-1 f(x_0) at second order (element.FlexibleLink.initialize_accelerations)."""
    k, J, T = 50.0, 2.0, 1.0

    def error(h, set_acc):
        system = chrono.ChSystemNSC()
        chrono_flex_configure(chrono, system)
        sh = shaft(chrono, system, inertia=J, pos=1.0)
        if set_acc:
            sh.SetPosDt2(-k / J)
        keep = add_load(chrono, system, load_class(chrono, lambda s, x, w: [-k * x[0]]),
                        [sh])  # a Python reference to the director: docs/chrono.md §2
        for _ in range(int(round(T / h))):
            system.DoStepDynamics(h)
        return abs(sh.GetPos() - math.cos(math.sqrt(k / J) * T))

    hs = (4e-3, 2e-3, 1e-3)
    for set_acc, order in ((False, 1.0), (True, 2.0)):
        e = [error(h, set_acc) for h in hs]
        p = np.log2(np.array(e[:-1]) / np.array(e[1:]))
        assert np.all(np.abs(p - order) < 0.1), (set_acc, p)


def test_update_time_is_the_time_of_the_state_being_evaluated(chrono):
    """In a step from t to t + h every Update after the first step carries t + h
    (element: the torque callable gets the Update time)."""
    system = chrono.ChSystemNSC()
    chrono_flex_configure(chrono, system)
    sh = shaft(chrono, system)
    times = []
    keep = add_load(chrono, system, load_class(chrono, lambda s, x, w: [0.0],  # noqa: F841
                                               on_update=lambda load, t: times.append(t)),
                    [sh])
    system.DoStepDynamics(1e-3)
    times.clear()
    system.DoStepDynamics(1e-3)
    assert times and all(abs(t - 2e-3) < 1e-15 for t in times)


def test_set_vect_takes_a_list(chrono):
    """load_Q.SetVect accepts a Python list (element passes f.tolist()), not an array."""
    v = chrono.ChVectorDynamicd(2)
    v.SetVect([1.0, 2.0])
    assert v.GetVectorData(2) == [1.0, 2.0]
    with pytest.raises(TypeError):
        v.SetVect(np.array([1.0, 2.0]))


def test_disowning_the_update_flags_stops_the_leak_message():
    """The element's Update disowns SWIG's UpdateFlags object; no leak line is printed."""
    code = """
import pychrono as chrono
system = chrono.ChSystemNSC()
sh = chrono.ChShaft(); system.Add(sh)
class Load(chrono.ChLoadCustomMultiple):
    def Update(self, t, flags):
        flags.disown()
        chrono.ChLoadCustomMultiple.Update(self, t, flags)
    def ComputeQ(self, x, w):
        self.load_Q.SetVect([0.0])
    def IsStiff(self):
        return True
items = chrono.vector_ChLoadable(); items.append(sh)
load = Load(items); c = chrono.ChLoadContainer(); c.Add(load); system.Add(c)
system.SetSolver(chrono.ChSolverSparseLU())
for _ in range(20):
    system.DoStepDynamics(1e-3)
print("done")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout
    assert out == "done\n"


def test_an_uncaught_exception_in_compute_q_loses_its_type(chrono):
    """An exception escaping ComputeQ reaches the caller of DoStepDynamics as a bare
    RuntimeError naming the director method, not the original: the element catches and
    re-raises it itself."""
    system = chrono.ChSystemNSC()
    sh = shaft(chrono, system)

    def compute(load, x, w):
        raise KeyError("lost")

    keep = add_load(chrono, system, load_class(chrono, compute), [sh])  # noqa: F841
    with pytest.raises(RuntimeError, match="SWIG director method error") as info:
        system.DoStepDynamics(1e-3)
    assert not isinstance(info.value, KeyError)


def test_motor_position_load_is_the_torque_on_its_first_shaft(chrono):
    """ChShaftsMotorPosition(shaft, fixed truss) prescribing theta = sin(3 t) on a free
    shaft of inertia J: GetMotorLoad() = J theta_dd (the torque on the first shaft). With
    HHT alpha = 0 the reaction carries an undamped step-to-step oscillation that grows;
    alpha = -0.1 damps it (engine: alpha = -0.1 by default with a prescribed motion)."""
    from chrono_flex.chrono.system import configure_system

    J = 2.5

    class Sine(chrono.ChFunction):
        def GetVal(self, t):
            return math.sin(3 * t)

        def GetDer(self, t):
            return 3 * math.cos(3 * t)

        def GetDer2(self, t):
            return -9 * math.sin(3 * t)

        def Clone(self):
            return Sine()

    def worst_error(alpha):
        system = chrono.ChSystemNSC()
        configure_system(system, "hht", alpha=alpha)
        sh = shaft(chrono, system, inertia=J, speed=3.0)   # consistent initial state
        truss = chrono.ChShaft()
        truss.SetFixed(True)
        system.Add(truss)
        motor = chrono.ChShaftsMotorPosition()
        motor.Initialize(sh, truss)
        fun = Sine()
        motor.SetPositionFunction(fun)
        system.Add(motor)
        err = []
        for _ in range(1000):
            system.DoStepDynamics(1e-3)
            t = system.GetChTime()
            err.append(motor.GetMotorLoad() - J * (-9 * math.sin(3 * t)))
        assert abs(sh.GetPos() - math.sin(3 * t)) < 1e-9
        return np.max(np.abs(err[-100:]))

    assert worst_error(-0.1) < 1e-4 * 9 * J       # seen: 1.8e-5 N m
    assert worst_error(0.0) > 1.0                  # seen: 22 N m after 1 s


def test_gravity_and_numpy_conversions(chrono):
    """SetGravitationalAcceleration is what GetGravitationalAcceleration returns (element
    reads the system's gravity); to_numpy() on vectors and matrices, and
    ChMatrixDynamicd(ndarray), round-trip (element: state, pose and M transfers)."""
    system = chrono.ChSystemNSC()
    system.SetGravitationalAcceleration(chrono.ChVector3d(0.5, -9.0, 1.5))
    assert np.array_equal(system.GetGravitationalAcceleration().to_numpy(), [0.5, -9.0, 1.5])
    R = chrono.ChMatrix33d(chrono.QuatFromAngleAxis(0.3, chrono.ChVector3d(0, 0, 1)))
    Rn = np.asarray(R.to_numpy())
    assert np.allclose(Rn @ Rn.T, np.eye(3)) and abs(Rn[0, 1] + math.sin(0.3)) < 1e-15
    A = np.arange(12.0).reshape(3, 4)
    assert np.array_equal(np.asarray(chrono.ChMatrixDynamicd(A).to_numpy()), A)


def test_removing_a_load_container_removes_its_load(chrono):
    """system.Remove(container) detaches the load (element.add_joint_actuator rebuilds
    the load that way)."""
    system = chrono.ChSystemNSC()
    sh = shaft(chrono, system)
    load, container = add_load(chrono, system, load_class(chrono, lambda s, x, w: [1.0]), [sh])
    system.DoStepDynamics(1e-3)
    n = len(load.calls)
    system.Remove(container)
    system.DoStepDynamics(1e-3)
    assert n > 0 and len(load.calls) == n
