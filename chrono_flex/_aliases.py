"""One vocabulary for ``simulate``: the canonical keyword names and the old ones they
replace, in one table (after python-control's ``_timeresp_aliases``).

Every ``simulate`` (``PlanarArm``, ``SpatialArm``, ``RRRPArm``) and
:func:`chrono_flex.drive.simulate_drive` takes the same names for the same things:

========================  =====================================================
``t_end``, ``t0``         the time span, s
``q0``, ``qd0``           initial generalized coordinates and rates (an arm's
                          coordinates; the drive's output shaft angle and speed)
``torque``                applied joint torques (N m) or forces (N): callable(t, q, qd)
``joint_motion``          prescribed joint motion: callable(t) -> (theta, theta_d,
                          theta_dd)
``drive_input``           the drives' inputs (motor voltage, or current): callable(t)
``dt_out``                the output interval, s
``method``, ``rtol``,     the integrator and its settings
``atol``, ``step``,
``max_step``, ``max_nfev``
``progress``              the progress report
========================  =====================================================

An old name still works for one release, with a DeprecationWarning naming its
replacement; giving both is a ParameterError.
"""

import warnings

import numpy as np

from . import _checks as ck
from .errors import ParameterError

#: canonical name -> the old names it replaces (each used by one of the front doors:
#: PlanarArm.simulate, RRRPArm.simulate, simulate_drive).
SIMULATE_ALIASES = {
    "q0": ("joint_angles0", "eta0", "theta_out0"),
    "qd0": ("joint_rates0", "eta_d0", "omega_out0"),
    "torque": ("inputs",),
    "drive_input": ("u",),
}


def canonical(kwargs, where, accepted, table=SIMULATE_ALIASES, stacklevel=3):
    """``kwargs`` with the old names of ``table`` replaced by their canonical names, each
    with a DeprecationWarning naming ``where`` (the function); ``accepted`` the old
    names this function understands (others are left for the function to refuse)."""
    out = dict(kwargs)
    for new, olds in table.items():
        for old in olds:
            if old not in accepted or old not in out:
                continue
            if out.get(new) is not None:
                raise ParameterError(old, out[old], f"is the old name of `{new}`, which is "
                                     f"given too; give `{new}` alone")
            warnings.warn(f"{where}: `{old}` is now called `{new}`; the old name will be "
                          "removed in the next release", DeprecationWarning,
                          stacklevel=stacklevel)
            out[new] = out.pop(old)
    return out


def canonical_arguments(where, accepted, given, old_names):
    """The values of ``given`` ({canonical name: value}, in order) with the old names
    among ``old_names`` (the function's ``**old_names``) put in their place
    (:func:`canonical`); TypeError, as Python's own, for any other keyword."""
    named = canonical(dict(given, **old_names), where, accepted, stacklevel=4)
    for name in named:
        if name not in given:
            raise TypeError(f"{where}() got an unexpected keyword argument {name!r}")
    return tuple(named[k] for k in given)


def initial_coordinates(arm, q0=None, qd0=None, elastic0=None, elastic_rates0=None):
    """(q0, qd0), each (nq,), of an arm (``nq``, ``n_joints``, ``joint_index``,
    ``elastic_index``) from the ``simulate`` arguments: ``q0``, ``qd0`` all coordinates
    (nq,) or the joints' alone (nj,), then the elastic ones from ``elastic0``,
    ``elastic_rates0`` (default zero). ParameterError naming the argument."""
    out = []
    for name, value, elastic_name, elastic in (("q0", q0, "elastic0", elastic0),
                                               ("qd0", qd0, "elastic_rates0", elastic_rates0)):
        full = np.zeros(arm.nq)
        if value is not None and np.size(value) == arm.nq and arm.nq != arm.n_joints:
            full[:] = ck.vector(name, value, arm.nq)
            if elastic is not None:
                raise ParameterError(elastic_name, elastic, f"is given with a full `{name}` "
                                     f"({arm.nq} coordinates); give one or the other")
        else:
            if value is not None:
                if np.size(value) != arm.n_joints:
                    raise ParameterError(name, value, f"must hold all {arm.nq} coordinates "
                                         f"or the {arm.n_joints} joints' values")
                full[arm.joint_index] = ck.vector(name, value, arm.n_joints)
            if elastic is not None:
                full[arm.elastic_index] = ck.vector(elastic_name, elastic,
                                                    arm.elastic_index.size)
        out.append(full)
    return tuple(out)


def joint_and_elastic(arm, extra, joint_angles0=None, joint_rates0=None, elastic0=None,
                      elastic_rates0=None):
    """(joint_angles0, joint_rates0, elastic0, elastic_rates0) of a planar arm's engine
    that speaks of them (the Chrono engines), with ``q0`` and ``qd0`` popped from
    ``extra`` (its other keyword arguments) and split: all coordinates (nq,) into the
    joints' and the elastic ones, the joints' alone (nj,) as they are. ParameterError when
    a part is given both ways."""
    out = dict(joint_angles0=joint_angles0, joint_rates0=joint_rates0, elastic0=elastic0,
               elastic_rates0=elastic_rates0)
    for new, joint, elastic in (("q0", "joint_angles0", "elastic0"),
                                ("qd0", "joint_rates0", "elastic_rates0")):
        value = extra.pop(new, None)
        if value is None:
            continue
        value = np.asarray(value, dtype=float).reshape(-1)
        parts = {joint: value}
        if value.size == arm.nq:
            parts = {joint: value[arm.joint_index]}
            if np.any(value[arm.elastic_index] != 0.0):
                parts[elastic] = value[arm.elastic_index]
        for k, v in parts.items():
            if out[k] is not None:
                raise ParameterError(k, out[k], f"is given with `{new}`; give one or the other")
            out[k] = v
    return out["joint_angles0"], out["joint_rates0"], out["elastic0"], out["elastic_rates0"]


__all__ = ["SIMULATE_ALIASES", "canonical", "initial_coordinates", "joint_and_elastic"]
