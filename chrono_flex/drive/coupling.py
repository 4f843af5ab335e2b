"""Drives on the joints of an arm, their states appended to an engine's state vector.

A drive on a revolute joint (docs/drive.md) sees the joint's angle and rate as its output
shaft's (theta_out = the joint coordinate, omega_out its rate) and returns the rates of
its own states and the torque tau_out = M1' - M_F' it applies to the joint ([S] eq. 19);
its output inertia J2 turns with the joint's hub (the arm adds it there). The planar and
the spatial reference engines hold their drives through :class:`JointDrives`, and their
joint forces (torque callback, drives, continuous controllers with states) through
:class:`ArmInputs`, so the coupling is written once.
"""

import numpy as np

from .._callbacks import (ControllerBlock, call_vector, has_states, reads_drive_states,
                          takes_state)
from ..errors import ParameterError

#: What an object needs to be used as a drive on a joint.
DRIVE_METHODS = ("rates", "n_states", "initial_state", "output_inertia")


def check_drive(key, drive):
    """``drive`` if it has the methods of a drive (:data:`DRIVE_METHODS`), else
    ParameterError naming ``drives[key]``."""
    for attr in DRIVE_METHODS:
        if not hasattr(drive, attr):
            raise ParameterError(f"drives[{key}]", drive, f"has no `{attr}` (not a drive)")
    return drive


class JointDrives:
    """The drives of an arm as a block of the engine's state vector.

    Args:
        drives: {key: drive}; the keys (joint numbers) are taken in increasing order,
            which is the order of the entries of ``drive_input``.
        places: {key: (p, i)}: ``p`` the joint's entry in the joint-force vector (nj,),
            ``i`` its coordinate's index in q.
        start: index of the first drive state in the engine's state vector.
    """

    def __init__(self, drives, places, start):
        self.keys = sorted(drives)
        self.drives = [drives[k] for k in self.keys]
        self.places = [places[k] for k in self.keys]
        self.slices = []
        self.start = k = start
        for d in self.drives:
            self.slices.append(slice(k, k + d.n_states))
            k += d.n_states
        self.stop = k

    def __len__(self):
        return len(self.keys)

    def initial_state(self, x, q0, qd0):
        """Write each drive's initial state (at its joint's q0, qd0) into ``x``."""
        for d, (_, i), s in zip(self.drives, self.places, self.slices):
            x[s] = d.initial_state(q0[i], qd0[i])

    def atol(self, a):
        """Write each drive's absolute tolerance (its ``atol``, else 1e-8) into ``a``."""
        for d, s in zip(self.drives, self.slices):
            a[s] = getattr(d, "atol", 1e-8)

    def add_torques(self, t, x, q, qd, tau, drive_input, reads_state=False):
        """Add each drive's output torque at time t (state x, joint coordinates q and
        rates qd) to ``tau`` (nj,) and return the list of its state rates. ``drive_input``:
        callable(t), or callable(t, q, qd) when ``reads_state`` (a feedback law, the
        convention of the torque), -> one input per drive (V, or A in current mode), or
        None for zero."""
        n = len(self.keys)
        if drive_input is None:
            u = np.zeros(n)
        elif reads_state:
            u = call_vector("drive_input", drive_input, n, t, q, qd)
        else:
            u = call_vector("drive_input", drive_input, n, t)
        rates = []
        for k, (d, (p, i), s) in enumerate(zip(self.drives, self.places, self.slices)):
            dx, tau_k = d.rates(t, x[s], q[i], qd[i], u[k])
            tau[p] += tau_k
            rates.append(dx)
        return rates

    def extra(self, X, names):
        """{name: the drive's states (nt, n_states)} for a Result's ``extra`` from the
        sampled states X; ``names[key]`` the name of each drive's series."""
        return {names[k]: X[:, s] for k, s in zip(self.keys, self.slices)}


class ArmInputs:
    """The joint forces of an arm engine: the ``torque`` callback (t, q, qd), the drives
    (:class:`JointDrives`) with their ``drive_input`` (u(t) or u(t, q, qd)), and the
    states xc of continuous controllers with states given as either
    (:class:`~chrono_flex._callbacks.ControllerBlock`, docs/control.md §1.2), appended
    to the engine's state vector after the drives' (torque's first).

    Args:
        torque, drive_input: the inputs (None for none).
        drives: the arm's :class:`JointDrives`.
        n_joints: number of joint forces.
    """

    def __init__(self, torque, drive_input, drives, n_joints):
        self.torque, self.drive_input, self.drives = torque, drive_input, drives
        self.n_joints = int(n_joints)
        self.reads_state = drive_input is not None and takes_state("drive_input",
                                                                   drive_input, 2)
        self.controllers, k = {}, drives.stop
        for name, fn, n in (("torque", torque, n_joints), ("drive_input", drive_input,
                                                            len(drives))):
            if has_states(fn):
                self.controllers[name] = ControllerBlock(name, fn, n, k)
                k = self.controllers[name].stop
        self.stop = k
        self.slices = drives.slices + [c.slice for c in self.controllers.values()]

    def initial_state(self, x, q0, qd0):
        """Write the drives' and the controllers' initial states into ``x``."""
        self.drives.initial_state(x, q0, qd0)
        for c in self.controllers.values():
            x[c.slice] = c.x0

    def atol(self, a):
        """The drives' absolute tolerances, and 1e-8 on the controllers' states."""
        self.drives.atol(a)
        for c in self.controllers.values():
            a[c.slice] = 1e-8

    def _state(self, fn, x, q, qd):
        """The state arguments of an input: (q, qd), and the drives' states z (in the
        order of their joints) for one whose sensors read a drive's motor side
        (:func:`~chrono_flex._callbacks.reads_drive_states`)."""
        if reads_drive_states(fn):
            return q, qd, x[self.drives.start:self.drives.stop]
        return q, qd

    def joint_forces(self, t, x, q, qd):
        """(tau (n_joints,), the rates of the states in the order of :attr:`slices`) at
        time t and the engine's state x (joint coordinates q, rates qd)."""
        tau = np.zeros(self.n_joints)
        ctrl_rates = []
        if "torque" in self.controllers:
            c = self.controllers["torque"]
            u, dxc = c.evaluate(t, x, *self._state(c.ctrl, x, q, qd))
            tau += u
            ctrl_rates.append(dxc)
        elif self.torque is not None:
            tau += call_vector("torque", self.torque, self.n_joints, t,
                               *self._state(self.torque, x, q, qd))
        rates = []
        if len(self.drives):
            fn, reads = self.drive_input, self.reads_state
            if "drive_input" in self.controllers:
                c = self.controllers["drive_input"]
                u, dxc = c.evaluate(t, x, *self._state(c.ctrl, x, q, qd))
                fn, reads = (lambda *_: u), False
                ctrl_rates.append(dxc)
            elif reads_drive_states(fn):
                u = call_vector("drive_input", fn, len(self.drives), t,
                                *self._state(fn, x, q, qd))
                fn, reads = (lambda *_: u), False
            rates = self.drives.add_torques(t, x, q, qd, tau, fn, reads_state=reads)
        return tau, rates + ctrl_rates

    def extra(self, X):
        """{name: states (nt, n)} for a Result's ``extra``: each drive's
        (``drive<j+1>_states``) and each controller's (``<input>_controller_states``)."""
        out = self.drives.extra(X, {j: f"drive{j + 1}_states" for j in self.drives.keys})
        out.update({f"{name}_controller_states": X[:, c.slice]
                    for name, c in self.controllers.items()})
        return out


__all__ = ["ArmInputs", "DRIVE_METHODS", "JointDrives", "check_drive"]
