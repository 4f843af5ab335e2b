"""chrono_flex: flexible robot links and geared joint drives, for Project Chrono.

The reference engine (numpy/scipy) builds the finite-element / Lagrange equations of
planar flexible-link arms; :mod:`chrono_flex.chrono` (needs PyChrono) puts the same
physics into a Chrono system. See README.md.
"""

from . import _compat
from ._version import __version__
from .errors import ChronoFlexError, ParameterError, PyChronoUnavailable, SimulationError
from .planar.params import Link, Payload, Plane, PrismaticJoint, RevoluteJoint
from .result import Energy, Result, plot
from .planar.arm import PlanarArm
from .spatial.arm import SpatialArm
from .planar.shapes import clamped_free_frequencies, clamped_free_roots
from .linear import LinearModel
from .planar.model_file import arm_from_dict


_compat.install()

__all__ = [
    "ChronoFlexError", "ParameterError", "PyChronoUnavailable", "SimulationError",
    "Link", "Payload", "Plane", "PrismaticJoint", "RevoluteJoint", "Energy", "Result",
    "plot", "PlanarArm", "SpatialArm", "clamped_free_frequencies", "clamped_free_roots",
    "LinearModel", "arm_from_dict",
]
