"""The Python director classes Chrono calls back for a FlexibleLink.

PyChrono lets Python subclass a few Chrono classes (docs/chrono.md §1): the element's
``ChLoadCustomMultiple`` (generalized forces in ``ComputeQ``, mass injected through its
Jacobians) and a ``ChFunction`` for prescribed joint motion. The classes are defined on
first use, since PyChrono is imported lazily. No exception may travel through Chrono's
C++ solver: each is stored on its owner with the time and re-raised after the step by
:func:`chrono_flex.chrono.system.step`.
"""

import numpy as np

from .. import _checks as ck
from .._callbacks import call_vector, loop_input
from ..errors import ParameterError

_LOAD_CLASS = None


def guarded_compute_q(load, state_x, state_w):
    """ComputeQ of the custom loads: ``load.link.compute_q`` fills Q; an exception (from
    a user callback or the physics) is stored on the owner (``record_error``), to be
    re-raised with its time after the step (:func:`step`, ``raise_pending``), and Q is
    zeroed so that Chrono can finish the step instead of crashing in C++."""
    owner = load.link
    try:
        owner.compute_q(load, state_x, state_w)
    except BaseException as exc:          # noqa: BLE001 - re-raised after the step
        owner.record_error(exc)
        load.load_Q.SetVect([0.0] * load.load_Q.Size())


def guarded_compute_jacobian(load):
    """K and R of the custom loads (``load.link.compute_jacobian``), at the state of the
    Update's ComputeQ, guarded as :func:`guarded_compute_q`: an exception is stored on
    the owner, and K and R are left as they were."""
    owner = load.link
    try:
        owner.compute_jacobian(load)
    except BaseException as exc:          # noqa: BLE001 - re-raised after the step
        owner.record_error(exc)


def flexible_link_load_class(chrono):
    """The ChLoadCustomMultiple subclass (defined on first use: PyChrono is lazy)."""
    global _LOAD_CLASS
    if _LOAD_CLASS is not None:
        return _LOAD_CLASS

    class FlexibleLinkLoad(chrono.ChLoadCustomMultiple):
        """Director object: evaluates f and injects M for its :class:`FlexibleLink`.

        Every exception is caught here (it must not travel through Chrono's C++ solver),
        stored on the link with the time, and re-raised by :func:`step`.
        """

        def __init__(self, link, loadables):
            super().__init__(loadables)
            self.link = link
            # the load's sizes, fixed by its loadables (answered here: see
            # LoadGetNumCoordsVelLevel)
            base = chrono.ChLoadCustomMultiple
            self._n_pos = base.LoadGetNumCoordsPosLevel(self)
            self._n_vel = base.LoadGetNumCoordsVelLevel(self)
            # the state vectors of Update's ComputeQ, kept (see Update; the link lays
            # numpy views over them, chrono.element_views)
            self.state_x, self.state_w = chrono.ChState(), chrono.ChStateDelta()
            self.state_x.SetVect([0.0] * self._n_pos)
            self.state_w.SetVect([0.0] * self._n_vel)

        # Every virtual method of a director is called through Python, overridden or
        # not (a method left to the base crosses back into C++). Chrono asks for the
        # load's sizes twice in each residual M v: answered from Python directly.
        def LoadGetNumCoordsPosLevel(self):
            return self._n_pos

        def LoadGetNumCoordsVelLevel(self):
            return self._n_vel

        def Update(self, time, update_flags):
            # SWIG wraps `update_flags` in an object it owns but cannot delete, and prints
            # a "memory leak" line when it is released (docs/chrono.md §2). Disowning it stops the
            # message; the (few bytes of) memory is not freed either way.
            try:
                update_flags.disown()
            except AttributeError:
                pass
            link = self.link
            link.note_update(time)
            missing = link._jacobians(self) is None
            if missing and link.differences != "chrono":
                self.CreateJacobianMatrices()        # M, K, R: filled from Python
            own_jacobian = link.begin_update(time, missing)
            if link.chrono_differences:
                chrono.ChLoadCustomMultiple.Update(self, time, update_flags)
            else:
                # what ChLoadBase::Update does for a load that is not stiff, without its
                # crossings back into Python (ComputeQ, IsStiff): Q at the current state
                self.LoadGetStateBlock_x(self.state_x)
                self.LoadGetStateBlock_w(self.state_w)
                guarded_compute_q(self, self.state_x, self.state_w)
            if own_jacobian:
                guarded_compute_jacobian(self)

        def ComputeQ(self, state_x, state_w):
            guarded_compute_q(self, state_x, state_w)

        def IsStiff(self):
            # True: Chrono's own ComputeJacobian runs in this Update (2n + 2 ComputeQ
            # calls). The bindings do not let Python override ComputeJacobian, so with
            # FlexibleLink.differences "arrays" this stays False and Update sets K and R
            # itself (guarded_compute_jacobian). See FlexibleLink `jacobian`.
            return self.link.chrono_differences

    _LOAD_CLASS = FlexibleLinkLoad
    return _LOAD_CLASS


class PositionFunction:
    """Factory of ChFunction directors giving one joint's prescribed motion."""

    _cls = None

    @classmethod
    def make(cls, chrono, motion, joint):
        if cls._cls is None:
            class JointMotionFunction(chrono.ChFunction):
                """theta_j(t) of a prescribed joint motion, with its derivatives. Pure
                evaluation of the user's callable(t) -> (theta, theta_d, theta_dd)."""

                def __init__(self, motion, joint):
                    super().__init__()
                    self.motion, self.joint = motion, joint
                    self.error = None

                def _eval(self, t, k):
                    try:
                        return float(np.atleast_1d(self.motion(t)[k])[self.joint])
                    except BaseException as exc:      # noqa: BLE001 - re-raised after the step
                        if self.error is None:
                            self.error = (exc, t)
                        return 0.0

                def GetVal(self, t):
                    return self._eval(t, 0)

                def GetDer(self, t):
                    return self._eval(t, 1)

                def GetDer2(self, t):
                    return self._eval(t, 2)

                def Clone(self):
                    return JointMotionFunction(self.motion, self.joint)

            cls._cls = JointMotionFunction
        return cls._cls(motion, joint)


class JointInputs:
    """Evaluates the joint torques/forces of ``torque(t, q, qd)`` for the motors.

    ``ChLinkMotor*`` call their ChFunction several times per step (residual and Newton
    iterations) with the time only; the joint state is read from the motors at each
    call, and the result is cached for one (t, state) so that a chain of n joints calls
    ``torque`` once, not n times. No state is integrated here (docs/chrono.md §1): a
    controller (:mod:`chrono_flex.control`) is reset, a sampled one held between its
    samples, one with states advanced from step to step, as on the custom element
    (:func:`chrono_flex._callbacks.loop_input`; docs/control.md §1.4).
    """

    def __init__(self, scene, torque):
        self.scene, self.torque = scene, loop_input("torque", torque)
        self.nj = len(scene.arm.joints)
        self._key = None
        self._value = np.zeros(self.nj)
        self.error = None

    def value(self, t):
        q, qd = self.scene.joint_state()
        key = (t, *q, *qd)
        if key != self._key:
            out = call_vector("torque", self.torque, self.nj, t, self.scene.arm_q(q),
                              self.scene.arm_q(qd))
            self._key, self._value = key, out
        return self._value

    def safe_component(self, t, k):
        """Called from C++: never let an exception cross the solver; keep the first."""
        if self.error is not None:
            return 0.0
        try:
            return float(self.value(t)[k])
        except Exception as exc:  # noqa: BLE001 (re-raised after the step)
            self.error = exc
            return 0.0


class JointMotion:
    """theta_k(t) - theta_k(t0) and its derivatives from ``joint_motion(t)`` (cached per t)."""

    def __init__(self, motion, nj, t0=0.0):
        self.motion, self.nj = motion, nj
        self._t, self._v = None, None
        self.error = None
        self.start = self(t0)[0].copy()

    def __call__(self, t):
        if t != self._t:
            vals = [ck.vector(f"joint_motion(t)[{k}]", v, self.nj)
                    for k, v in enumerate(self.motion(t))]
            if len(vals) != 3:
                raise ParameterError("joint_motion", self.motion,
                                     "must return (theta, theta_d, theta_dd)")
            self._t, self._v = t, vals
        return self._v

    def safe(self, t, k, order):
        if self.error is not None:
            return 0.0
        try:
            v = self(t)[order][k]
            return float(v - self.start[k]) if order == 0 else float(v)
        except Exception as exc:  # noqa: BLE001
            self.error = exc
            return 0.0


def beam_function_classes(chrono):
    """The ChFunction subclasses that feed the beam scene's joint motors from
    :class:`JointInputs` (torques, forces) and :class:`JointMotion` (prescribed motion)."""

    class TorqueFunction(chrono.ChFunction):
        def __init__(self, inputs, k):
            super().__init__()
            self.inputs, self.k = inputs, k

        def GetVal(self, x):
            return self.inputs.safe_component(x, self.k)

        def Clone(self):
            return self

    class MotionFunction(chrono.ChFunction):
        def __init__(self, motion, k):
            super().__init__()
            self.motion, self.k = motion, k

        def GetVal(self, x):
            return self.motion.safe(x, self.k, 0)

        def GetDer(self, x):
            return self.motion.safe(x, self.k, 1)

        def GetDer2(self, x):
            return self.motion.safe(x, self.k, 2)

        def Clone(self):
            return self

    return TorqueFunction, MotionFunction


__all__ = ["JointInputs", "JointMotion", "PositionFunction", "beam_function_classes",
           "flexible_link_load_class", "guarded_compute_q"]
