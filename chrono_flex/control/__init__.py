"""Closing the loop: controllers, sensors, describing functions and a torque observer
(docs/control.md).

The data flow: sensors (:mod:`.sensors`) read a plant's state, a controller
(:mod:`.controllers`) turns the measurements into an actuator input that an engine
applies (``torque=`` or ``drive_input=`` of ``PlanarArm.simulate``, ``u=`` of
``simulate_drive``), :func:`record` turns a finished run into named channels with units.
"""

from .controllers import ANTI_WINDUP, Controller, FrictionCompensation, PID, StateFeedback
from .describing import (backlash_df, coulomb_df, dead_zone_df, harmonic_ratio, numerical_df,
                         servo_limit_cycle, servo_matrix, stribeck_df)
from .observer import TorqueObserver
from .sensors import (Accelerometer, CurrentSensor, Encoder, Sensor, StrainGauge, Tachometer,
                      TipPosition, TipVelocity, quantise, record, surface_strain)

__all__ = [
    "ANTI_WINDUP", "Controller", "FrictionCompensation", "PID", "StateFeedback",
    "backlash_df", "coulomb_df", "dead_zone_df", "harmonic_ratio", "numerical_df",
    "servo_limit_cycle", "servo_matrix", "stribeck_df", "TorqueObserver",
    "Accelerometer", "CurrentSensor", "Encoder", "Sensor", "StrainGauge", "Tachometer",
    "TipPosition", "TipVelocity", "quantise", "record", "surface_strain",
]
