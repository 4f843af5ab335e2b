"""Geared joint drive: DC motor, elastic gear with backlash, LuGre-family friction.

The model of docs/drive.md (after Serebrenny, Boshlyakov, Ogorodnik 2019, [S]). The data
flow reads top to bottom: friction and backlash laws (pure functions) -> a gear stage -> the
drive module (:class:`GearDrive`, the coupling contract used by the arm engines) ->
integrators (stiff reference :func:`simulate_drive`, real-time :class:`FixedStepDrive`) ->
results, scenarios and parameter identification.
"""

from .backlash import (dead_zone, dead_zone_slope, friction_torque, load_factor, spring_energy,
                       transmitted_torque)
from .fixed_step import FixedStepDrive, simulate_fixed
from .friction import (
    STRIBECK_SHAPES,
    DissipativeLuGre,
    LuGre,
    ModifiedLuGre,
    StaticFriction,
    classic_static,
    coulomb,
    gaussian,
    generalized,
    lorentzian,
    modified_coulomb,
    modified_stribeck,
    stribeck,
    stribeck_curve,
    tustin,
    viscous,
)
from .gear import GearStage, GearTrain
from .identify import (
    EfficiencyFit,
    PreslidingFit,
    StribeckFit,
    breakaway_ms,
    efficiency_input,
    efficiency_output,
    fit_stribeck,
    identify_command,
    identify_efficiency,
    identify_efficiency_output,
    identify_presliding,
    presliding_curve,
    read_efficiency_csv,
)
from .motor import DCMotor, current_rate, motor_torque
from .simulate import DriveResult, simulate_drive
from .stability import FIXED_STEP_METHODS, stable_step
from .gear_drive import DriveParams, GearDrive
from .linearize import linearize_drive

__all__ = [
    "dead_zone", "dead_zone_slope", "friction_torque", "load_factor", "spring_energy",
    "transmitted_torque", "FixedStepDrive", "simulate_fixed",
    "STRIBECK_SHAPES", "DissipativeLuGre", "LuGre", "ModifiedLuGre", "StaticFriction",
    "classic_static", "coulomb", "gaussian", "generalized", "lorentzian", "modified_coulomb",
    "modified_stribeck", "stribeck", "stribeck_curve", "tustin", "viscous", "GearStage",
    "GearTrain", "EfficiencyFit", "StribeckFit", "breakaway_ms", "efficiency_input",
    "efficiency_output", "fit_stribeck", "identify_command", "identify_efficiency",
    "identify_efficiency_output", "identify_presliding", "presliding_curve", "PreslidingFit",
    "read_efficiency_csv", "DCMotor", "current_rate",
    "motor_torque", "DriveResult",
    "simulate_drive", "FIXED_STEP_METHODS", "stable_step", "DriveParams", "GearDrive",
    "linearize_drive",
]


def __getattr__(name):
    from .._compat import moved_attribute

    return moved_attribute(__name__, name)
