"""Spatial flexible links and trees of bodies (docs/spatial-link.md).

    from chrono_flex.spatial import SpatialArm, SpatialLink, RigidBody, RevoluteJoint
"""

from .params import (FixedJoint, PrismaticJoint, RevoluteJoint, RigidBody, SpatialLink,
                     turned)
from .arm import SpatialArm

__all__ = ["FixedJoint", "PrismaticJoint", "RevoluteJoint", "RigidBody", "SpatialArm",
           "SpatialLink", "turned"]
