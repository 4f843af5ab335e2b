"""Every validation case; importing this package registers them (order = report order)."""

from . import beam, dynamics, formulations, integrators, spinup  # noqa: F401
from . import drive, drive_behaviour, drive_arm, engines, spatial, screw, screw_spatial  # noqa: F401
from . import scene, sections, spatial_chrono, published, stiffening, spatial_link  # noqa: F401
from . import rrrp, printed, exudyn, control  # noqa: F401
from . import linear  # noqa: F401
from . import contact  # noqa: F401
from .. import regression  # noqa: F401
