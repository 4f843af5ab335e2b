"""Spatial flexible links and trees of bodies (docs/spatial-link.md).

    from chrono_flex.spatial import SpatialArm, SpatialLink, RigidBody, RevoluteJoint
"""

from .params import (FixedJoint, PrismaticJoint, RevoluteJoint, RigidBody, SpatialLink,
                     turned)
from .arm import SpatialArm



def __getattr__(name):
    """The RRRP arm's names of the 0.1 module ``chrono_flex.spatial``, with a warning
    naming :mod:`chrono_flex.formulations.rrrp`."""
    from .._compat import moved_attribute

    return moved_attribute(__name__, name)


__all__ = ["FixedJoint", "PrismaticJoint", "RevoluteJoint", "RigidBody", "SpatialArm",
           "SpatialLink", "turned"]
