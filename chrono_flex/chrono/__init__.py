"""The Chrono side of chrono_flex: the only package that imports PyChrono (lazily).

* :class:`~chrono_flex.chrono.element.FlexibleLink`: the papers' finite-element arm as a
  Chrono item (shafts + a custom load with injected mass), on the ground or a body;
  :func:`~chrono_flex.chrono.system.configure_system`, :func:`~chrono_flex.chrono.system.step`;
  ``FlexibleLink.attach`` welds Chrono bodies to it at any station, both ways
  (:class:`~chrono_flex.chrono.attachment.Attachment`; small scenes in
  :mod:`chrono_flex.chrono.scenes`).
* :class:`~chrono_flex.chrono.spatial_element.SpatialFlexibleLink`: the same for a
  :class:`chrono_flex.SpatialArm` (links bending in two planes and twisting, trees), on
  the ground or a moving body.
* :func:`~chrono_flex.chrono.engine.simulate_chrono`: run a :class:`chrono_flex.PlanarArm`
  in Chrono and get the reference engine's :class:`chrono_flex.Result`;
* :class:`~chrono_flex.chrono.drive.GearDriveLink`: the gear drive of docs/drive.md on a revolute
  axis between any two Chrono bodies; :class:`~chrono_flex.chrono.drive.ScaledDrive`,
  :func:`~chrono_flex.chrono.drive.drive_scales` (how the engine puts ``arm.drives`` on
  a FlexibleLink).
* :func:`~chrono_flex.chrono._detect.require_pychrono`,
  :func:`~chrono_flex.chrono._detect.pychrono_status`: find the real PyChrono or say how
  to get it; :func:`~chrono_flex.chrono._quiet.quiet_swig`: drop SWIG's leak messages.

Importing this package does not import PyChrono; the names below load their modules
on first use (PEP 562), so ``chrono_flex.chrono.pychrono_status()`` works without it.
"""

from ._detect import pychrono_status, require_pychrono
from ._quiet import quiet_swig

_LAZY = {
    "FlexibleLink": "element", "SpatialFlexibleLink": "spatial_element",
    "configure_system": "system", "step": "system",
    "simulate_chrono": "engine", "Attachment": "attachment",
    "GearDriveLink": "drive", "ScaledDrive": "drive", "drive_scales": "drive",
    "linearize": "linearization",
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        module = importlib.import_module(f".{_LAZY[name]}", __name__)
        return getattr(module, name)
    from .._compat import moved_attribute

    return moved_attribute(__name__, name)


__all__ = ["pychrono_status", "require_pychrono", "quiet_swig", *_LAZY]
