"""Every validation case; importing this package registers them (order = report order)."""

from . import beam, dynamics, formulations, integrators, spinup, drive, engines, spatial, screw  # noqa: F401
from .. import regression  # noqa: F401
