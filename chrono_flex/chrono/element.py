"""The papers' finite-element link as a Chrono item (the "custom element").

A :class:`FlexibleLink` puts a :class:`chrono_flex.PlanarArm` (one or more flexible links
on revolute/prismatic joints, docs/planar-link.md) into a ``ChSystem``:

* one ``ChShaft`` per generalized coordinate q_k (joint angles/slides and the elastic
  nodal coordinates) carries q_k as its "angle" and q_dot_k as its speed;
* a ``ChLoadCustomMultiple`` over those shafts (and over the parent body, when it moves)
  computes, in ``ComputeQ``, the generalized forces f of :mod:`chrono_flex.planar.floating`
  (the reference engine's kinematics lifted onto the parent) and injects the mass matrix
  M(q) through ``GetJacobians().M``; Chrono adds K = -dQ/dx and R = -dQ/dv by finite
  differences (``IsStiff()`` is True) and integrates everything implicitly with the rest
  of the scene (docs/chrono.md §2).

So M(q) q_dd = f(q, q_dot) with exactly the reference engine's terms, integrated by
Chrono's timestepper. Build it, step it with :func:`step` (which also re-raises errors
from the callbacks and moves :attr:`FlexibleLink.tip_body`), read it back::

    import pychrono as chrono
    system = chrono.ChSystemNSC()
    configure_system(system)                       # sparse LU + HHT (docs/chrono.md §5)
    link = FlexibleLink(system, arm, torque=lambda t, q, qd: [0.1])
    while system.GetChTime() < 1.0:
        step(system, 1e-3)
    print(link.joint_angles(), link.tip_deflections())

Mass split: each shaft keeps, as its own inertia, the diagonal entry of M at the initial
state; the load injects M(q) minus that constant diagonal, so the sum is M(q) exactly.

Any free body of the scene can be welded to the link at any station, both ways, with
:meth:`FlexibleLink.attach` (a stiff bushing inside the same load;
:mod:`chrono_flex.chrono.attachment`, docs/chrono.md §8).
"""


import numpy as np

from ..planar import floating, floating_kernels, load_kernels
from ..planar import equations as mdl
from .. import _checks as ck
from .._callbacks import loop_input, reads_drive_states, takes_state
from ..errors import ParameterError, SimulationError
from ..planar.params import Plane
from ._detect import require_pychrono
from .attachment import Welds, body_inertia, body_state, start_body_acceleration
from .directors import PositionFunction, flexible_link_load_class
from .drive import arm_drive_states
from .element_load import LoadEvaluation, _LoadCalls, _quat_times_axis_rotation  # noqa: F401
from .system import REGISTRY_ATTR, CallbackState, matrix_to_quat, vector

class FlexibleLink(Welds, LoadEvaluation, CallbackState):
    """A planar flexible-link arm (docs/planar-link.md) as a Chrono item, on the ground or a body.

    Args:
        system: the ``ChSystem``. Its gravity acts on the arm (and the solver and
            timestepper should come from :func:`configure_system`).
        arm: a :class:`chrono_flex.PlanarArm`: links, joints, payload (``arm.payload``),
            hub inertias. ``arm.gravity`` is NOT used: the system's gravity is.
        parent_body: a ``ChBody`` carrying the arm's plane, or None for the ground. A
            fixed body is treated as ground at its pose when the link is built; a moving
            one joins the element's coordinates (its 6 velocities), so the arm's inertia,
            gravity and joint reactions act on it.
        joint_frame: where the arm's plane sits in the parent's frame (world for the
            ground): a ``ChFramed`` (origin and its X, Y axes), a tuple (origin, x axis,
            y axis) or a :class:`chrono_flex.Plane`; default ``arm.plane``.
        torque: joint torques/forces: callable(t, q, qd) -> (nj,) evaluated in the
            element with the current state, or a sequence of nj ``ChFunction`` of time.
        joint_motion: callable(t) -> (theta, theta_d, theta_dd), each (nj,): prescribed
            joints (a ``ChShaftsMotorPosition`` per joint; the joint torques come from the
            motors' reactions). Excludes ``torque``.
        joint_angles0, joint_rates0, elastic0, elastic_rates0: initial state.
        jacobian: "auto" (default): Chrono's finite-difference K and R (2n + 2 calls of
            ComputeQ, n velocity coordinates) are kept across Newton iterations and
            steps, and rebuilt when the last step needed more than
            ``AUTO_MAX_ITERATIONS`` ComputeQ calls or ``AUTO_MAX_AGE`` steps have passed (a
            modified Newton method: the residual, with the current Q and M(q), is
            exact, so the solution is the same to the Newton tolerance, at a fraction
            of the cost; docs/chrono.md §2). "step": rebuilt at the first Newton
            iteration of each step; an integer N: every N steps; "iteration": at every
            Newton iteration (full Newton).

    Counters: :attr:`n_compute_q` (ComputeQ calls) and :attr:`n_retries` (Newton attempts
    that failed and that Chrono retried with a halved step, see :func:`configure_system`).

    Out-of-plane deformation is not modelled (each link is rigid out of its plane) and
    the payload's rotary inertia acts about the plane normal only
    (:mod:`chrono_flex.planar.floating`).
    """

    #: jacobian="auto": rebuild K and R after a step that needed more ComputeQ calls
    #: than this outside a Jacobian build (with Chrono's HHT a converging step takes 4
    #: or 5, whatever the Jacobian's age: measured on the Kozlowski link with 16
    #: elements), or after AUTO_MAX_AGE steps.
    AUTO_MAX_ITERATIONS = 8
    AUTO_MAX_AGE = 50

    def __init__(self, system, arm, parent_body=None, joint_frame=None, torque=None,
                 joint_motion=None, joint_angles0=None, joint_rates0=None, elastic0=None,
                 elastic_rates0=None, jacobian="auto"):
        chrono = require_pychrono()
        self._chrono = chrono
        self.system = system
        self.arm = arm
        self.model = arm.model
        nq = self.nq = arm.nq
        self._place(joint_frame, chrono)
        if torque is not None and joint_motion is not None:
            raise ParameterError("joint_motion", joint_motion,
                                 "excludes `torque` (the joints are prescribed)")
        self._torque_fn, self._torque_functions = None, None
        if torque is not None:
            if callable(torque):
                # a controller (chrono_flex.control) reset; a sampled one held, one with
                # states advanced from step to step (chrono_flex._callbacks.stepped)
                self._torque_fn = loop_input("torque", torque)
            else:
                funcs = list(torque)
                if len(funcs) != arm.n_joints:
                    raise ParameterError("torque", torque,
                                         f"must be callable or hold {arm.n_joints} ChFunction(s)")
                self._torque_functions = funcs
        if joint_motion is not None and not callable(joint_motion):
            raise ParameterError("joint_motion", joint_motion, "must be callable")
        self._joint_motion = joint_motion
        if jacobian not in ("auto", "step", "iteration") and not (
                isinstance(jacobian, (int, np.integer)) and not isinstance(jacobian, bool)
                and jacobian >= 1):
            raise ParameterError("jacobian", jacobian,
                                 "must be 'auto', 'step', 'iteration' or a whole number of "
                                 "steps >= 1")

        self.parent_body = parent_body
        self._moving = parent_body is not None and not parent_body.IsFixed()
        if parent_body is not None and not self._moving:
            A = np.asarray(parent_body.GetRotMat().to_numpy(), dtype=float)
            p = np.asarray(parent_body.GetPos().to_numpy(), dtype=float)
            self._ground_o = p + A @ self._o
            self._ground_P = A @ self._P
        else:
            self._ground_o, self._ground_P = self._o, self._P

        q0 = self._coordinates("joint_angles0", joint_angles0, "elastic0", elastic0)
        qd0 = self._coordinates("joint_rates0", joint_rates0, "elastic_rates0", elastic_rates0)
        M0 = self._mass_at(q0)
        self._shaft_inertia = np.diag(M0).copy()
        if np.any(self._shaft_inertia <= 0):
            raise ParameterError("arm", arm, "has a coordinate without inertia (M(q0) has a "
                                 "zero diagonal entry)")
        self.shafts = []
        for k in range(nq):
            sh = chrono.ChShaft()
            sh.SetInertia(float(self._shaft_inertia[k]))
            sh.SetSleepingAllowed(False)
            sh.SetPos(float(q0[k]))
            sh.SetPosDt(float(qd0[k]))
            system.Add(sh)                  # sys.AddShaft raises a TypeError (docs/chrono.md §2)
            self.shafts.append(sh)

        self.motors, self._motion_functions, self._truss = [], [], None
        if joint_motion is not None:
            self._truss = chrono.ChShaft()
            self._truss.SetFixed(True)
            system.Add(self._truss)
            th, thd, _ = (np.atleast_1d(np.asarray(v, dtype=float)) for v in joint_motion(0.0))
            for j, k in enumerate(arm.joint_index):
                self.shafts[k].SetPos(float(th[j]))
                self.shafts[k].SetPosDt(float(thd[j]))
                fun = PositionFunction.make(chrono, joint_motion, j)
                motor = chrono.ChShaftsMotorPosition()
                motor.Initialize(self.shafts[k], self._truss)
                motor.SetPositionFunction(fun)
                system.Add(motor)
                self.motors.append(motor)
                self._motion_functions.append(fun)

        self.actuators = []        # (joint, actuator, input, shafts) - see add_joint_actuator
        self._error = None
        self._time = system.GetChTime()
        self._injected_key = None
        self._last_key = None
        self.jacobian = jacobian
        self._every = (self.AUTO_MAX_AGE if jacobian == "auto" else
                       1 if jacobian in ("step", "iteration") else int(jacobian))
        self._calls_at_step = 0
        self._built_last_step = True
        self._stiff_now = True
        self._step_time = None
        self._steps_since_jacobian = 0
        self.n_compute_q = 0
        self.n_jacobians = 0           # K and R built (see compute_jacobian)
        self._last_state = None        # (x, w, f) of the last ComputeQ
        self._chrono_differences = True
        self.n_retries = 0             # failed Newton attempts retried with a halved step
        self._last_update_time = None
        self._gravity = self._system_gravity()
        self.attachments = []       # see attach
        self._bodies = []           # the attached bodies, each once, in the load's order
        self._arm_key, self._arm_terms = None, None
        self._weld_at_rebuild, self._weld_rest = None, None
        self._build_load()

        self.tip_body = chrono.ChBody()
        self.tip_body.SetFixed(True)
        self.tip_body.EnableCollision(False)
        self.tip_body.SetMass(1e-6)
        self.tip_body.SetInertiaXX(chrono.ChVector3d(1e-9, 1e-9, 1e-9))
        system.Add(self.tip_body)
        self.initialize_accelerations()
        if not hasattr(system, REGISTRY_ATTR):
            setattr(system, REGISTRY_ATTR, [])
        getattr(system, REGISTRY_ATTR).append(self)
        self.sync()

    # -- the model's hooks (a spatial arm overrides these, chrono.spatial_element) -----------
    def _place(self, joint_frame, chrono):
        """Where the arm's base sits in the parent: ``_o`` (3,) and the axes ``_P``."""
        self.plane = _plane_from(joint_frame, self.arm.plane, chrono)
        self._o = np.asarray(self.plane.origin, dtype=float)
        self._P = np.column_stack([self.plane.x_axis, self.plane.y_axis])

    def _coordinates(self, joints_name, joints, elastic_name, elastic):
        """q (nq,) from joint values (default zero) and elastic coordinates (default
        zero), each checked under its argument's name."""
        arm = self.arm
        q = np.zeros(self.nq)
        if joints is not None:
            q[arm.joint_index] = ck.vector(joints_name, joints, arm.n_joints)
        if elastic is not None:
            q[arm.elastic_index] = ck.vector(elastic_name, elastic, len(arm.elastic_index))
        return q

    def _mass_at(self, q):
        return mdl.terms(self.model, q, np.zeros(self.nq))[0]

    def _model_terms(self, q, qd, body, g, Q):
        """(M, f) of the arm over [body velocities (when it moves), q_dot]."""
        if body is None:
            return floating.plane_terms(self.model, q, qd, self._ground_P.T @ g, Q)
        return floating_kernels.moving_terms(self.model, q, qd, body[1], body[3], self._o,
                                             self._P, g, Q)

    # -- building -----------------------------------------------------------------------
    def _build_load(self):
        chrono = self._chrono
        items = chrono.vector_ChLoadable()
        if self._moving:
            items.append(self.parent_body)
        for sh in self.shafts:
            items.append(sh)
        for _, _, _, shafts in self.actuators:
            for sh in shafts:
                items.append(sh)
        for b in self._bodies:
            items.append(b)
        self._n_body = floating.N_BODY if self._moving else 0
        self._n_act = sum(len(s) for _, _, _, s in self.actuators)
        self._nw_arm = self._n_body + self.nq + self._n_act
        self._nx_arm = (7 if self._moving else 0) + self.nq + self._n_act
        self._nw = self._nw_arm + 6 * len(self._bodies)
        self._nx = self._nx_arm + 7 * len(self._bodies)
        # (x offset, w offset, kind) of the load's loadables, in order (see _increment)
        self._n_shaft_coords = self.nq + self._n_act
        self._blocks = ([(0, 0, "body")] if self._moving else [])
        self._blocks.append((self._nx_arm - self._n_shaft_coords,
                             self._nw_arm - self._n_shaft_coords, "shafts"))
        self._blocks += [(self._nx_arm + 7 * k, self._nw_arm + 6 * k, "body")
                         for k in range(len(self._bodies))]
        self.load = flexible_link_load_class(chrono)(self, items)
        self._weld_at_rebuild, self._weld_rest = None, None
        if getattr(self, "container", None) is not None:
            self.system.Remove(self.container)
        self.container = chrono.ChLoadContainer()
        self.container.Add(self.load)
        self.system.Add(self.container)
        # what the shafts carry themselves: subtracted from the injected M
        self._diag_index = self._n_body + np.arange(self.nq + self._n_act)
        self._diag_inertia = np.concatenate([self._shaft_inertia, np.ones(self._n_act)])
        self._injected_key = None
        self._load_pack = False        # packed again at the first ComputeQ (_pack_load)
        self._jacobian_at = None       # (state, K, R) formed in ComputeQ (compute_jacobian)
        self._jac_object = None        # the load's ChLoadJacobians (_jacobians)
        self._views = False            # views over its storage (_load_views), made once
        self._calls = None             # its compiled calls (_compiled_load)
        self._zero_q = np.zeros(self.nq)

    #: the compiled load (:meth:`_pack_load`)
    _kernels = load_kernels

    def _pack_load(self):
        """The arrays of the compiled load (:mod:`chrono_flex.planar.load_kernels`), or
        None without the numba backend or with actuator states (the array path)."""
        if self.weld_physics is not floating_kernels or self.model.packed is None or self.actuators:
            return None
        o, P = (self._o, self._P) if self._moving else (self._ground_o, self._ground_P)
        self._weld_damped = any(a.damping != (0.0, 0.0) for a in self.attachments)
        return load_kernels.pack_load(self.model, o, P, self._moving, len(self._bodies),
                                      self.attachments, [a._shapes for a in self.attachments])

    def _load_calls(self):
        """The planar load's compiled calls (:class:`chrono_flex.planar.load_kernels.Compiled`:
        ComputeQ's terms, the differenced K and R, the tip's motion); None for a subclass
        with its own kernel module."""
        k = self._kernels
        if k is not load_kernels:
            return None
        return _LoadCalls(k.Compiled(k._compute_q), k.Compiled(k._jacobian),
                          k.Compiled(k._tip_motion))

    def add_joint_actuator(self, joint, actuator, drive_input=None):
        """Hook: drive joint ``joint`` (0-based) by an actuator with internal states.

        An actuator (e.g. a gear drive of :mod:`chrono_flex.drive`) follows the protocol

        1. ``actuator.n_states``: number of first-order states z (motor current, gear
           angles and speeds, LuGre bristle states, ...);
        2. ``actuator.initial_state(theta, omega)`` -> z0 (n_states,);
        3. ``actuator.rates(t, z, theta, omega, u)`` -> (dz/dt (n_states,), torque on the
           joint), a pure function of its arguments; ``u = drive_input(t)`` or
           ``drive_input(t, q, qd)`` (the arm's state, as a torque reads it; default 0).

        Each state z_i rides on the speed of one extra ``ChShaft`` of unit inertia, its
        "force" being dz_i/dt, so Chrono integrates dz/dt = rates implicitly together
        with the arm (docs/chrono.md §1: a shaft's speed can carry any first-order state); the
        torque joins Q of the joint. :class:`chrono_flex.drive.GearDrive` follows this
        protocol; :func:`chrono_flex.chrono.engine.simulate_chrono` wires an arm's drives
        this way, scaled by :class:`chrono_flex.chrono.drive.ScaledDrive`.
        Scale the states sensibly: Chrono's Jacobian uses absolute differences of 1e-8.
        Call it before the first step; the load is rebuilt with the new states.
        """
        chrono = self._chrono
        if not 0 <= int(joint) < self.arm.n_joints:
            raise ParameterError("joint", joint, f"must be in 0..{self.arm.n_joints - 1}")
        for attr in ("n_states", "initial_state", "rates"):
            if not hasattr(actuator, attr):
                raise ParameterError("actuator", actuator, f"has no `{attr}` (see the protocol)")
        k = self.arm.joint_index[int(joint)]
        z0 = np.atleast_1d(np.asarray(actuator.initial_state(self.shafts[k].GetPos(),
                                                             self.shafts[k].GetPosDt()),
                                      dtype=float))
        if z0.shape != (int(actuator.n_states),):
            raise ParameterError("actuator.initial_state", z0.tolist(),
                                 f"must return {actuator.n_states} value(s)")
        shafts = []
        for z in z0:
            sh = chrono.ChShaft()
            sh.SetInertia(1.0)
            sh.SetSleepingAllowed(False)
            sh.SetPosDt(float(z))
            self.system.Add(sh)
            shafts.append(sh)
        self.actuators.append((int(joint), actuator, _state_input(drive_input), shafts))
        self._build_load()
        self.initialize_accelerations()

    def initialize_accelerations(self, include_parent=False):
        """Give the shafts the accelerations q_dd consistent with the current state.

        Chrono's HHT starts each step from the accelerations stored in the items; at the
        first step they are zero unless set. A wrong initial acceleration a0 leaves a
        velocity error of h (a0 - 0)/2, which makes the whole run first-order accurate
        (a pendulum released under gravity shows it). This solves M q_dd = f (or,
        with prescribed joints, the elastic rows with theta_dd given) with the parent
        body's current acceleration, and stores q_dd in the shafts. Called when the link
        is built; call it again after changing the state by hand.

        Attached bodies (:meth:`attach`) get the accelerations of gravity and of the
        welds' bushings (:func:`~chrono_flex.chrono.attachment.start_body_acceleration`);
        give a body that Chrono joints or forces also hold its consistent acceleration
        by hand (``SetPosDt2``, ``SetAngAccLocal``) after this call.

        ``include_parent=True``: a moving parent body that nothing else holds (a free
        body: a satellite's bus, a vehicle in flight) gets its consistent acceleration
        too, from the arm's terms plus the body's own mass, inertia, gravity and
        gyroscopic moment. Without it, the body's stored acceleration is used as given.
        """
        q, qd = self.q(), self.qd()
        body = self._body_state()
        z = np.concatenate(self.actuator_states() or [np.zeros(0)])
        g = self._system_gravity()
        M, f = self._terms(self.system.GetChTime(), q, qd, body, z, g)
        if self.attachments:
            f = f + self._attachment_forces(q, qd, body, [body_state(b) for b in self._bodies])[0]
        nb = self._n_body
        b = self.parent_body
        if include_parent and body is not None:
            m, I = body_inertia(b)
            w = body[3]
            M = M.copy()
            M[:3, :3] += m * np.eye(3)
            M[3:6, 3:6] += I
            f = f.copy()
            f[:3] += m * g
            f[3:6] -= np.cross(w, I @ w)
            free_body_rows = True
        else:
            free_body_rows = False
        if body is not None and not free_body_rows:
            wdot = np.concatenate([np.asarray(b.GetPosDt2().to_numpy(), dtype=float),
                                   np.asarray(b.GetAngAccLocal().to_numpy(), dtype=float)])
            f = f[nb:] - M[nb:, :nb] @ wdot
            M = M[nb:, nb:]
        off = nb if free_body_rows else 0
        free = np.arange(M.shape[0])
        acc = np.zeros(M.shape[0])
        if self._joint_motion is not None:
            a = off + np.asarray(self.arm.joint_index)
            acc[a] = np.atleast_1d(np.asarray(self._joint_motion(self.system.GetChTime())[2],
                                              dtype=float))
            free = np.setdiff1d(free, a)
        acc[free] = np.linalg.solve(M[np.ix_(free, free)],
                                    f[free] - M[np.ix_(free, a)] @ acc[a]
                                    if self._joint_motion is not None else f[free])
        if free_body_rows:
            acc_body, acc = acc[:nb], acc[nb:]
            M, f = M[nb:, nb:], f[nb:] - M[nb:, :nb] @ acc_body
            b.SetPosDt2(self._chrono.ChVector3d(*(float(v) for v in acc_body[:3])))
            b.SetAngAccLocal(self._chrono.ChVector3d(*(float(v) for v in acc_body[3:6])))
        shafts = self.shafts + [sh for _, _, _, ss in self.actuators for sh in ss]
        for sh, a_k in zip(shafts, acc):
            sh.SetPosDt2(float(a_k))
        if self.motors:
            # the motors' reactions at t0 (HHT with alpha != 0 uses the previous step's
            # reactions in its residual): tau = M_a. q_dd - f_a
            a = self.arm.joint_index
            tau = M[a] @ acc - f[a]
            for motor, tau_j in zip(self.motors, tau):
                motor.IntStateScatterReactions(0, vector(self._chrono, [tau_j]))
        for body in self._bodies:
            start_body_acceleration(self._chrono, self.system, body)
        return acc[:self.nq]

    # -- after each step ----------------------------------------------------------------
    def raise_pending(self):
        """Raise the first exception caught in a callback since the last call, as a
        :class:`SimulationError` chained to it (``from``), with the simulated time."""
        err = self._error
        if err is None:
            for fun in self._motion_functions:
                if fun.error is not None:
                    err, fun.error = fun.error, None
                    break
        if err is None:
            return
        self._error = None
        exc, t = err
        if isinstance(exc, KeyboardInterrupt):
            raise exc
        text = f"{type(exc).__name__}: {exc}"
        if isinstance(exc, SimulationError):        # from a checked callback: named already
            text = str(exc).split(": ", 1)[-1]
            exc = exc.__cause__ or exc              # chain to the user's own exception
        raise SimulationError(f"a callback of the flexible link failed: {text}",
                              time=t) from exc

    def sync(self):
        """Move :attr:`tip_body` to the deformed tip's pose and velocity.

        ``tip_body`` is a kinematic (fixed, collision-free) ``ChBody`` for
        visualisation and sensing (attach shapes, cameras, sensors to it); it exerts
        nothing on the arm. A body that should act on the arm (a payload, a joint, a
        contact) is welded with :meth:`attach` instead. :func:`step` calls this after every step.
        """
        chrono = self._chrono
        pos, quat, vel = self._tip_body_motion()
        vectors = getattr(self, "_tip_vectors", None)
        if vectors is None:
            # kept from step to step: the body copies them (a new vector each step
            # costs more than the body's setters)
            vectors = self._tip_vectors = (chrono.ChVector3d(), chrono.ChQuaterniond(),
                                           chrono.ChVector3d())
        p, r, v = vectors
        p.Set(*np.asarray(pos, dtype=float).tolist())
        r.Set(*np.asarray(quat, dtype=float).tolist())
        v.Set(*np.asarray(vel, dtype=float).tolist())
        self.tip_body.SetPos(p)
        self.tip_body.SetRot(r)
        self.tip_body.SetPosDt(v)
        t = self.system.GetChTime()
        for att in self.attachments:
            att.after_step(t)

    # -- reading the state --------------------------------------------------------------
    def q(self):
        """Generalized coordinates (nq,): [joint_1, e_1..., joint_2, e_2..., ...]."""
        return np.array([sh.GetPos() for sh in self.shafts])

    def qd(self):
        """Generalized rates (nq,)."""
        return np.array([sh.GetPosDt() for sh in self.shafts])

    def joint_angles(self):
        """Joint coordinates (rad, or m for a prismatic joint) (nj,)."""
        return self.q()[self.arm.joint_index]

    def joint_rates(self):
        return self.qd()[self.arm.joint_index]

    def actuator_states(self):
        """States z of each actuator added by :meth:`add_joint_actuator` (list of arrays)."""
        return [np.array([sh.GetPosDt() for sh in shafts]) for _, _, _, shafts in self.actuators]

    def tip_deflections(self, q=None):
        """Transverse tip deflection of each link in its own floating frame, m (nl,)
        (at the current state, or at the coordinates ``q``)."""
        return mdl.tip_deflections(self.model, self.q() if q is None else q)

    def joint_torques(self, q=None, qd=None):
        """Joint torques/forces now: from the torque input, the actuators, or (prescribed
        motion) the motors' reactions. ``q``, ``qd``: the current state if already read."""
        if self.motors:
            return np.array([m.GetMotorLoad() for m in self.motors])
        q = self.q() if q is None else q
        qd = self.qd() if qd is None else qd
        Q, _ = self._joint_forces(self.system.GetChTime(), q, qd,
                                  np.concatenate(self.actuator_states() or [np.zeros(0)]))
        return np.zeros(self.arm.n_joints) if Q is None else Q[self.arm.joint_index]

    def _body_state(self):
        b = self.parent_body
        if not self._moving:
            return None
        return (np.asarray(b.GetPos().to_numpy(), dtype=float),
                np.asarray(b.GetRotMat().to_numpy(), dtype=float),
                np.asarray(b.GetPosDt().to_numpy(), dtype=float),
                np.asarray(b.GetAngVelLocal().to_numpy(), dtype=float))

    def placement(self):
        """(body position, rotation, plane origin, plane axes) of the plane now."""
        return self._placement_of(self._body_state())

    def _placement_of(self, body):
        if body is None:
            return np.zeros(3), np.eye(3), self._ground_o, self._ground_P
        return body[0], body[1], self._o, self._P

    def _tip_pose(self):
        r, _, phi, _ = floating_kernels.tip_kinematics(self.model, self.q(), self.qd())
        return floating.plane_pose(r, phi, *self.placement())

    def centerlines(self, n_samples=21, rigid=False):
        """World points (nl, ns, 3) of the links' centrelines now: the shape functions of
        :func:`chrono_flex.planar.equations.centerlines` (as the reference engine's Result), placed
        in the plane and on the parent body; ``rigid=True``: zero elastic deformation."""
        pts, _ = mdl.centerlines(self.model, self.q(), n_samples, rigid=rigid)
        pos, A, o, P = self.placement()
        return pos + (o + pts @ P.T) @ A.T

    def tip_frame(self):
        """``ChFramed`` of the deformed tip in the world: X along the tangent of the last
        link at its tip, Z along the plane normal."""
        chrono = self._chrono
        pos, R = self._tip_pose()
        return chrono.ChFramed(chrono.ChVector3d(*pos), chrono.ChQuaterniond(*matrix_to_quat(R)))

    def _tip_body_motion(self):
        """(position, unit quaternion, velocity) of the tip in the world now: one compiled
        call where the load has one (:func:`chrono_flex.planar.load_kernels.tip_motion`),
        else :meth:`_tip_motion`."""
        if self._compiled_load() is None or self._calls is None:
            pos, R, vel = self._tip_motion()
            return pos, matrix_to_quat(R), vel
        # the load's state vectors (docs/chrono.md eq. (2.1)), read in two crossings into
        # Chrono instead of two per shaft and four for the parent body: the kernel reads
        # the arm's entries, the parent's first
        load = self.load
        sx, sw = load.state_x, load.state_w
        load.LoadGetStateBlock_x(sx)
        load.LoadGetStateBlock_w(sw)
        x, w, _ = self._state_arrays(load, sx, sw)
        out = self._calls.tip(self._load_pack, x, w)
        return out[:3], out[3:7], out[7:]

    def _tip_motion(self):
        """(position, rotation, velocity) of the tip in the world now, from one reading of
        the state (for :meth:`sync`)."""
        q, qd = self.q(), self.qd()
        r, J, phi, _ = floating_kernels.tip_kinematics(self.model, q, qd)
        body = self._body_state()
        pos, R = floating.plane_pose(r, phi, *self._placement_of(body))
        return pos, R, self._tip_velocity(r, J @ qd, body)

    def tip_velocity(self):
        """World velocity of the tip (3,), m/s."""
        q, qd = self.q(), self.qd()
        r, J, _, _ = floating_kernels.tip_kinematics(self.model, q, qd)
        return self._tip_velocity(r, J @ qd, self._body_state())

    def _tip_velocity(self, r, p_dot_plane, body):
        P = self._P if body is not None else self._ground_P
        if body is None:
            return P @ p_dot_plane
        _, A, v, w = body
        s = self._o + P @ r
        return v + A @ (floating_kernels.cross3(w, s) + P @ p_dot_plane)

    def mass_matrix(self):
        """The arm's mass matrix over the load's velocity coordinates at the current state."""
        body = self._body_state()
        M, _ = self._terms(self.system.GetChTime(), self.q(), self.qd(), body,
                           np.concatenate(self.actuator_states() or [np.zeros(0)]),
                           self._system_gravity())
        return M

    def energy(self):
        """(kinetic, elastic, gravity) energy of the arm, J (the parent body's own energy
        is not included; gravity potential -sum m g.R from the world origin)."""
        q, qd = self.q(), self.qd()
        g = np.asarray(self.system.GetGravitationalAcceleration().to_numpy(), dtype=float)
        body = self._body_state()
        if body is None:
            M, _ = floating.plane_terms(self.model, q, qd, np.zeros(2))
            kinetic = 0.5 * qd @ M @ qd
        else:
            M, _ = floating.spatial_terms(self.model, q, qd, *body, self._o, self._P, g)
            wv = np.concatenate([body[2], body[3], qd])
            kinetic = 0.5 * wv @ M @ wv
        elastic = float(mdl.elastic_potential(self.model, q))
        gravity = floating.gravity_potential(self.model, q, *self.placement(), g)
        return float(kinetic), elastic, gravity


def _plane_from(joint_frame, default, chrono):
    """A Plane from None (default), a Plane, a ChFramed or (origin, x axis, y axis)."""
    if joint_frame is None:
        return default
    if isinstance(joint_frame, Plane):
        return joint_frame
    if isinstance(joint_frame, chrono.ChFramed):
        R = np.asarray(joint_frame.GetRotMat().to_numpy(), dtype=float)
        return Plane(tuple(joint_frame.GetPos().to_numpy()), tuple(R[:, 0]), tuple(R[:, 1]))
    try:
        origin, x_axis, y_axis = joint_frame
    except (TypeError, ValueError):
        raise ParameterError("joint_frame", joint_frame, "must be a ChFramed, a Plane or "
                             "(origin, x axis, y axis)") from None
    return Plane(tuple(origin), tuple(x_axis), tuple(y_axis))



def __getattr__(name):
    from .._compat import moved_attribute

    return moved_attribute(__name__, name)


def _state_input(fn):
    """An actuator's input as a function of (t, q, qd): u(t) or u(t, q, qd) as its
    signature says (:func:`chrono_flex._callbacks.takes_state`), a controller as
    :func:`chrono_flex._callbacks.loop_input` makes it; None stays None."""
    if fn is None:
        return None
    f = loop_input("drive_input", fn)
    if reads_drive_states(fn):              # the drives' states after q and qd
        return lambda t, q, qd, acts, z: f(t, q, qd, arm_drive_states(acts, z))
    reads = takes_state("drive_input", fn, 2)
    return (lambda t, q, qd, *_: f(t, q, qd)) if reads else (lambda t, q, qd, *_: f(t))

__all__ = ["FlexibleLink"]
