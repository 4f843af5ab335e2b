"""Drives on the joints of an arm, their states appended to an engine's state vector.

A drive on a revolute joint (docs/drive.md) sees the joint's angle and rate as its output
shaft's (theta_out = the joint coordinate, omega_out its rate) and returns the rates of
its own states and the torque tau_out = M1' - M_F' it applies to the joint ([S] eq. 19);
its output inertia J2 turns with the joint's hub (the arm adds it there). The planar and
the spatial reference engines hold their drives through :class:`JointDrives`, so the
coupling is written once.
"""

import numpy as np

from .._callbacks import call_vector
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
        k = start
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


__all__ = ["DRIVE_METHODS", "JointDrives", "check_drive"]
