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

from .errors import ParameterError

#: canonical name -> the old names it replaces (each used by one of the front doors:
#: PlanarArm.simulate, RRRPArm.simulate, simulate_drive).
SIMULATE_ALIASES = {
    "q0": ("joint_angles0", "eta0", "theta_out0"),
    "qd0": ("joint_rates0", "eta_d0", "omega_out0"),
    "torque": ("inputs",),
    "drive_input": ("u",),
}


def canonical(kwargs, where, accepted, table=SIMULATE_ALIASES):
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
                          "removed in the next release", DeprecationWarning, stacklevel=3)
            out[new] = out.pop(old)
    return out


__all__ = ["SIMULATE_ALIASES", "canonical"]
