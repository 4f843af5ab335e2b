"""The gear drive of docs/drive.md (Serebrenny et al. 2019, eq. 24) inside Chrono: on a FlexibleLink joint, or between two bodies.

Two ways in, one formula: both call :meth:`chrono_flex.drive.GearDrive.rates` (the
reference engine's own function) inside a ``ChLoadCustomMultiple`` and let Chrono
integrate the drive's four states [i, alpha1, Omega1, z] implicitly with the rest of the
scene, each state on the speed of a unit-inertia ``ChShaft`` (docs/chrono.md §1: a shaft's speed
can carry any first-order state y of J dy/dt = Q).

* On an arm joint: :func:`chrono_flex.chrono.simulate_chrono` passes each drive of
  ``arm.drives`` through :meth:`FlexibleLink.add_joint_actuator` as a
  :class:`ScaledDrive`.
* Between any two bodies: :class:`GearDriveLink` (housing/stator on ``body1``, output
  on ``body2``), usable on any revolute joint of a Chrono scene.

Design of :class:`GearDriveLink`, and why:

* A ``ChLoadCustomMultiple`` over [body1, body2, 4 shafts] (fixed bodies left out), not
  ``ChShaftBodyRotation`` couplings: the relative angle theta_out and speed omega_out
  about the joint axis are read straight from the bodies' states (quaternions and
  local angular velocities), so they have no drift (ChShaftBodyRotation ties speeds
  only, docs/chrono.md §1) and no extra constraints; the torques enter as generalized forces
  with a finite-difference Jacobian (``IsStiff()``), so the stiff gear, motor circuit
  and LuGre bristles couple implicitly with the bodies in Newton's iteration. No
  Python-subclassable link exists that could own states (docs/chrono.md §1), hence the shafts.
* Torques: +tau_out about the axis on body2, and on body1 the reactions of the
  housing: -tau_out - J1 dOmega1/dt (the stator takes -k_M i, the gear housing
  M1'/i - M1' + M_F'; their sum is minus the output torque minus the rotor's
  acceleration torque), so body1 + body2 + rotor conserve angular momentum about the
  axis. ``stator_reaction=False`` applies the plain equal and opposite pair +-tau_out.
  The rotor turns relative to body1 (its own inertia J1 does not feel body1's rotation,
  as in [S]'s one-dimensional model).
* The drive's output inertia J2 is NOT added: the bodies carry their own inertia. Give
  body2 the output-side gear inertia if it matters (the reference
  :func:`chrono_flex.drive.simulate_drive` integrates J2 as the whole load).
* States are scaled (:func:`drive_scales`): Chrono's Jacobian perturbs every coordinate
  by an absolute 1e-8.
* Errors inside the callbacks are caught (they must not cross Chrono's C++ solver) and
  re-raised, as a :class:`~chrono_flex.errors.SimulationError` chained to the original,
  by :func:`chrono_flex.chrono.step` (or :meth:`GearDriveLink.raise_pending`).

Example::

    system = chrono.ChSystemNSC()
    configure_system(system)
    drive = GearDrive(DriveParams.serebrenny2019())
    link = GearDriveLink(system, ground, wheel, chrono.ChFramed(), drive,
                         drive_input=lambda t: 1.5)
    while system.GetChTime() < 0.5:
        step(system, 1e-4)
    print(link.angle(), link.current, link.output_torque)
"""

import math

import numpy as np

from .. import _checks as ck
from .._callbacks import loop_input, takes_state
from ..errors import ParameterError, SimulationError
from ._detect import require_pychrono
from .directors import guarded_compute_q
from .system import REGISTRY_ATTR, CallbackState, quat_to_matrix


def drive_scales(drive):
    """Scale factors s (n_states,) of a :class:`~chrono_flex.drive.GearDrive`'s states
    [i, alpha1, Omega1, z]: Chrono carries y = x / s.

    * i: s = Ms / (|i_g| k_M), the motor current that holds the static friction torque
      at the output (1 A without friction);
    * alpha1, Omega1: s = |i_g| (the gear ratio): the shafts carry the motor angle and
      speed referred to the output, of the size of the joint's own coordinates, which
      Chrono perturbs by the same 1e-8 (so the twist alpha1/i_g - alpha2 sees equal
      perturbations from both sides);
    * z: s = Ms / sigma0, the largest bristle deflection at rest (1 rad without
      dynamic friction).

    Each y is then of order one, and Chrono's perturbation of 1e-8 is about 1e-8 of the
    state, the usual step of forward differences (sqrt of the machine epsilon).
    """
    p = drive.params
    r = abs(p.ratio)
    Ms = max(p.Ms, p.Mc)
    if p.friction == "none" or Ms <= 0.0:
        return np.array([1.0, r, r, 1.0])
    s_z = Ms / p.sigma0 if p.friction == "dynamic" else 1.0
    return np.array([Ms / (r * p.k_M), r, r, s_z])


def _check_drive(drive):
    from ..drive.gear_drive import GearDrive

    if not isinstance(drive, GearDrive):
        raise ParameterError("drive", drive, "must be a chrono_flex.drive.GearDrive")
    return drive


class ScaledDrive:
    """A drive seen through scaled states y = x / s (the same actuator protocol).

    ``rates`` calls the drive's own ``rates``: no formula is repeated here. ``scales``:
    None for :func:`drive_scales`, or n_states positive numbers.
    """

    def __init__(self, drive, scales=None):
        self.drive = _check_drive(drive)
        self.n_states = int(drive.n_states)
        s = drive_scales(drive) if scales is None else np.asarray(scales, dtype=float)
        if s.shape != (self.n_states,) or not np.all(np.isfinite(s)) or np.any(s <= 0):
            raise ParameterError("scales", scales,
                                 f"must be {self.n_states} finite positive numbers")
        self.scales = s
        self._inv = 1.0 / s

    def __repr__(self):
        return f"ScaledDrive({self.drive!r}, scales={self.scales.tolist()})"

    def initial_state(self, theta_out=0.0, omega_out=0.0):
        return np.asarray(self.drive.initial_state(theta_out, omega_out), dtype=float) * self._inv

    def rates(self, t, y, theta_out, omega_out, u):
        dx, tau = self.drive.rates(t, np.asarray(y, dtype=float) * self.scales, theta_out,
                                   omega_out, u)
        return dx * self._inv, tau

    def unscale(self, y):
        """Drive states x = s y (last axis)."""
        return np.asarray(y, dtype=float) * self.scales


def arm_drive_states(actuators, z):
    """The states of an element's actuators as an arm's controller reads them
    (:func:`chrono_flex._callbacks.reads_drive_states`): each actuator's slice of the
    element's actuator states ``z`` unscaled (:meth:`ScaledDrive.unscale`, where the
    actuator has it), in the order of their joints, as the reference engines hand them.
    ``actuators``: :attr:`FlexibleLink.actuators`, (joint, actuator, input, shafts)."""
    parts, i = [], 0
    for joint, act, _, shafts in actuators:
        zi = np.asarray(z[i:i + len(shafts)], dtype=float)
        parts.append((joint, act.unscale(zi) if hasattr(act, "unscale") else zi))
        i += len(shafts)
    parts.sort(key=lambda jz: jz[0])
    return np.concatenate([zi for _, zi in parts] or [np.zeros(0)])


_LOAD_CLASS = None


def _load_class(chrono):
    global _LOAD_CLASS
    if _LOAD_CLASS is not None:
        return _LOAD_CLASS

    class GearDriveLoad(chrono.ChLoadCustomMultiple):
        """Director object of a :class:`GearDriveLink`; stores exceptions on it."""

        def __init__(self, link, loadables):
            super().__init__(loadables)
            self.link = link

        def Update(self, time, update_flags):
            try:
                update_flags.disown()       # stops SWIG's "memory leak" line (docs/chrono.md §2)
            except AttributeError:
                pass
            self.link.note_update(time)
            chrono.ChLoadCustomMultiple.Update(self, time, update_flags)

        def ComputeQ(self, state_x, state_w):
            guarded_compute_q(self, state_x, state_w)

        def IsStiff(self):
            return True

    _LOAD_CLASS = GearDriveLoad
    return _LOAD_CLASS


def _axis_frame(frame, chrono):
    """Rotation matrix (3, 3) in the world whose Z column is the joint axis, and the origin."""
    if isinstance(frame, chrono.ChFramed):
        return (np.asarray(frame.GetRotMat().to_numpy(), dtype=float),
                np.asarray(frame.GetPos().to_numpy(), dtype=float))
    try:
        a = np.asarray(frame, dtype=float)
    except (TypeError, ValueError):
        a = None
    if a is None or a.shape != (3,) or not np.all(np.isfinite(a)) or np.linalg.norm(a) == 0:
        raise ParameterError("frame", frame, "must be a ChFramed (Z = joint axis) or a "
                             "non-zero axis vector (3,) in the world")
    z = a / np.linalg.norm(a)
    helper = np.eye(3)[int(np.argmin(np.abs(z)))]
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z]), None


class GearDriveLink(CallbackState):
    """A :class:`~chrono_flex.drive.GearDrive` acting about a revolute axis between two
    Chrono bodies (see the module docstring for the design).

    Args:
        system: the ``ChSystem`` (a direct solver and an implicit timestepper, e.g. from
            :func:`chrono_flex.chrono.configure_system`, are needed: the drive is stiff).
        body1: the body carrying the housing and the motor's stator (e.g. the ground).
        body2: the output body. At least one of the two must be free.
        frame: ``ChFramed`` in the world whose Z axis is the joint axis (as for
            ``ChLinkLockRevolute.Initialize``), or an axis vector (3,) in the world. The
            relative angle theta_out is 0 in the configuration at construction.
        drive: the :class:`~chrono_flex.drive.GearDrive`.
        drive_input: the drive input u (V, or A in current mode): callable(t) -> float,
            callable(t, x) -> float with x = [i, alpha1, Omega1, z, theta_out,
            omega_out] (the state convention of ``simulate_drive``: a feedback law or a
            controller of :mod:`chrono_flex.control`; a sampled one is called once per
            period and held, :class:`chrono_flex._callbacks.held`; one with states is
            advanced from step to step, :class:`chrono_flex._callbacks.stepped`), a
            number, or None (0).
        revolute: also add a ``ChLinkLockRevolute`` at ``frame`` (:attr:`joint`); needs a
            ``ChFramed``. False if the scene already has the joint.
        stator_reaction: body1 takes -tau_out - J1 dOmega1/dt (True) or -tau_out.
        scales: state scale factors (default :func:`drive_scales`).

    Read the drive at any time with :meth:`states`, :meth:`outputs` (every named
    quantity of :meth:`GearDrive.outputs`) or the properties :attr:`current`,
    :attr:`motor_speed`, :attr:`z`, :attr:`output_torque`; the joint with
    :meth:`angle` and :meth:`speed`.
    """

    def __init__(self, system, body1, body2, frame, drive, drive_input=None, revolute=True,
                 stator_reaction=True, scales=None):
        chrono = require_pychrono()
        self._chrono = chrono
        if not isinstance(system, chrono.ChSystem):
            raise ParameterError("system", system, "must be a ChSystem")
        for name, body in (("body1", body1), ("body2", body2)):
            if not isinstance(body, chrono.ChBody):
                raise ParameterError(name, body, "must be a ChBody")
        if body1 is body2:
            raise ParameterError("body2", body2, "must differ from body1")
        if body1.IsFixed() and body2.IsFixed():
            raise ParameterError("body2", body2, "must be free when body1 is fixed "
                                 "(at least one of the two bodies must move)")
        self.drive = _check_drive(drive)
        self.scaled = ScaledDrive(drive, scales)
        self._reads_state = False
        if drive_input is None:
            self._input = lambda t: 0.0
        elif callable(drive_input):
            self._reads_state = takes_state("drive_input", drive_input, 1)
            self._input = loop_input("drive_input", drive_input)
        else:
            u0 = ck.real("drive_input", drive_input)
            self._input = lambda t: u0
        self.system, self.body1, self.body2 = system, body1, body2
        self.stator_reaction = bool(stator_reaction)
        self._J1 = drive.params.J1
        R, origin = _axis_frame(frame, chrono)
        self._R1 = self._rot(body1).T @ R         # joint frame in each body's frame
        self._R2 = self._rot(body2).T @ R
        self.joint = None
        if revolute:
            if origin is None:
                raise ParameterError("frame", frame, "must be a ChFramed with revolute=True "
                                     "(the joint needs a position)")
            self.joint = chrono.ChLinkLockRevolute()
            self.joint.Initialize(body1, body2, frame)
            system.Add(self.joint)

        self._moving = [b for b in (body1, body2) if not b.IsFixed()]
        self._fixed_rot = {id(b): self._rot(b) for b in (body1, body2) if b.IsFixed()}
        self._theta_ref = 0.0
        self._error = None
        self._time = system.GetChTime()
        self.n_compute_q = 0
        self.n_retries = 0             # failed Newton attempts Chrono retried (halved step)
        self._last_update_time = None

        theta, omega = self._joint_state(*self._body_states())
        y0 = self.scaled.initial_state(theta, omega)
        self.shafts = []
        for y in y0:
            sh = chrono.ChShaft()
            sh.SetInertia(1.0)
            sh.SetSleepingAllowed(False)
            sh.SetPosDt(float(y))
            system.Add(sh)
            self.shafts.append(sh)
        items = chrono.vector_ChLoadable()
        for b in self._moving:
            items.append(b)
        for sh in self.shafts:
            items.append(sh)
        self._nx = 7 * len(self._moving) + len(self.shafts)
        self._nw = 6 * len(self._moving) + len(self.shafts)
        self.load = _load_class(chrono)(self, items)
        self.container = chrono.ChLoadContainer()
        self.container.Add(self.load)
        system.Add(self.container)
        # the states' rates at t0 as the shafts' accelerations: HHT starts from them
        dy, _ = self._rates(self._time, y0, theta, omega)
        for sh, a in zip(self.shafts, dy):
            sh.SetPosDt2(float(a))
        if not hasattr(system, REGISTRY_ATTR):
            setattr(system, REGISTRY_ATTR, [])
        getattr(system, REGISTRY_ATTR).append(self)

    def __repr__(self):
        return f"GearDriveLink({self.drive!r}, angle={self.angle():.6g} rad)"

    # -- kinematics ---------------------------------------------------------------------
    @staticmethod
    def _rot(body):
        return np.asarray(body.GetRotMat().to_numpy(), dtype=float)

    def _body_states(self):
        """(A1, w1 local, A2, w2 local) from the bodies now."""
        out = []
        for b in (self.body1, self.body2):
            out += [self._rot(b), np.asarray(b.GetAngVelLocal().to_numpy(), dtype=float)]
        return out

    def _joint_state(self, A1, w1, A2, w2, update=True):
        """Relative angle theta_out (continuous over turns) and speed omega_out of body2
        with respect to body1 about the joint axis."""
        e1 = A1 @ self._R1
        e2 = A2 @ self._R2
        c = e1[:, 0] @ e2[:, 0]
        s = e1[:, 1] @ e2[:, 0]
        ref = self._theta_ref
        theta = ref + math.remainder(math.atan2(s, c) - ref, 2.0 * math.pi)
        if update:
            self._theta_ref = theta
        omega = e1[:, 2] @ (A2 @ w2 - A1 @ w1)
        return theta, float(omega)

    def _u(self, t, x_drive, theta, omega):
        """The input at t: u(t), or u(t, x) of the drive's states and the joint's."""
        if self._reads_state:
            x = np.concatenate([np.asarray(x_drive, dtype=float), [theta, omega]])
            return float(np.asarray(self._input(t, x), dtype=float).reshape(-1)[0])
        return float(self._input(t))

    def _rates(self, t, y, theta, omega):
        u = self._u(t, self.scaled.unscale(y), theta, omega)
        dy, tau = self.scaled.rates(t, y, theta, omega, u)
        return dy, float(tau)

    # -- the callback -------------------------------------------------------------------
    def compute_q(self, load, state_x, state_w):
        self.n_compute_q += 1
        x = np.asarray(state_x.GetVectorData(self._nx))
        w = np.asarray(state_w.GetVectorData(self._nw))
        rot, om, k = {}, {}, 0
        for b in self._moving:
            rot[id(b)] = quat_to_matrix(*x[7 * k + 3:7 * k + 7])
            om[id(b)] = w[6 * k + 3:6 * k + 6]
            k += 1
        for key, A in self._fixed_rot.items():
            rot[key], om[key] = A, np.zeros(3)
        b1, b2 = id(self.body1), id(self.body2)
        A1, A2 = rot[b1], rot[b2]
        theta, omega = self._joint_state(A1, om[b1], A2, om[b2])
        y = w[6 * len(self._moving):]
        dy, tau = self._rates(self._time, y, theta, omega)
        if not (np.all(np.isfinite(dy)) and math.isfinite(tau)):
            raise FloatingPointError("non-finite drive rates or torque (the state has diverged)")
        axis = A1 @ self._R1[:, 2]
        tau1 = -tau - (self._J1 * dy[2] * self.scaled.scales[2] if self.stator_reaction else 0.0)
        Q = []
        for b in self._moving:
            A, t_b = (A1, tau1) if id(b) == b1 else (A2, tau)
            Q += [0.0, 0.0, 0.0, *(A.T @ (t_b * axis)).tolist()]
        Q += dy.tolist()
        load.load_Q.SetVect(Q)

    # -- after each step ----------------------------------------------------------------
    def raise_pending(self):
        """Raise the first exception caught in a callback since the last call, as a
        :class:`SimulationError` chained to it, with the simulated time."""
        if self._error is None:
            return
        (exc, t), self._error = self._error, None
        if isinstance(exc, KeyboardInterrupt):
            raise exc
        raise SimulationError(f"a callback of the gear drive failed: "
                              f"{type(exc).__name__}: {exc}", time=t) from exc

    def sync(self):
        """Nothing to move (:func:`chrono_flex.chrono.step` calls it after each step)."""

    # -- reading the state --------------------------------------------------------------
    def states(self):
        """Drive states [i (A), alpha1 (rad), Omega1 (rad/s), z (rad)] now."""
        return self.scaled.unscale([sh.GetPosDt() for sh in self.shafts])

    def angle(self):
        """Relative angle of body2 about the joint axis, rad (0 at construction)."""
        return self._joint_state(*self._body_states(), update=False)[0]

    def speed(self):
        """Relative angular speed of body2 about the joint axis, rad/s."""
        return self._joint_state(*self._body_states(), update=False)[1]

    def outputs(self):
        """Every named quantity of :meth:`GearDrive.outputs` now (current, torques,
        powers, energies, SI)."""
        t = self.system.GetChTime()
        theta, omega = self._joint_state(*self._body_states(), update=False)
        x = self.states()
        return self.drive.outputs(t, x, theta, omega, self._u(t, x, theta, omega))

    @property
    def current(self):
        """Motor current i, A (the input itself in current mode)."""
        return self.outputs()["current"]

    @property
    def motor_speed(self):
        """Motor speed Omega1 relative to body1, rad/s."""
        return float(self.states()[2])

    @property
    def z(self):
        """LuGre bristle state z, rad."""
        return float(self.states()[3])

    @property
    def output_torque(self):
        """Torque tau_out = M1' - M_F' the drive applies to body2 about the axis, N m."""
        return self.outputs()["tau_out"]


__all__ = ["GearDriveLink", "ScaledDrive", "arm_drive_states", "drive_scales"]
