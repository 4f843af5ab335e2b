"""Deprecated import paths of the 0.1 layout, kept for one release.

Version 0.2 moved the modules into folders named after the method (see
``docs/architecture.md``). The old paths still import, with a ``DeprecationWarning``
that names the new one: a finder on ``sys.meta_path`` returns the new module under
the old name, and packages that lost attributes forward them through
:func:`moved_attribute`. Everything here works by module *names* (strings), so this
module imports nothing of the package and sits below every layer.
"""

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

#: old module path -> new module path
MOVED_MODULES = {
    "chrono_flex.params": "chrono_flex.planar.params",
    "chrono_flex.shapes": "chrono_flex.planar.shapes",
    "chrono_flex.kinematics": "chrono_flex.planar.kinematics",
    "chrono_flex.model": "chrono_flex.planar.equations",
    "chrono_flex.assembly": "chrono_flex.planar.assembly",
    "chrono_flex.floating": "chrono_flex.planar.floating",
    "chrono_flex.arm": "chrono_flex.planar.arm",
    "chrono_flex.integrate": "chrono_flex.integrators.ivp",
    "chrono_flex.screw": "chrono_flex.formulations.screw",
    "chrono_flex.cases": "chrono_flex.scenarios.arms",
    "chrono_flex.plotting": "chrono_flex.viz.plotting",
    "chrono_flex.drive.unit": "chrono_flex.drive.gear_drive",
    "chrono_flex.drive.scenarios": "chrono_flex.scenarios.drive",
    "chrono_flex.drive.bench": "chrono_flex.bench",
    "chrono_flex.viz.spatial": "chrono_flex.viz.rrrp",
    "chrono_flex.viz.bench": "chrono_flex.bench",
    "chrono_flex.viz.interactive": "chrono_flex.chrono.window",
}

#: The RRRP arm's 0.1 module, ``chrono_flex.spatial``, is now the package of the spatial
#: link; the names the old module exported are forwarded from it one by one.
_RRRP_NAMES = ("RRRPArm", "RRRPParams", "SpatialResult", "simulate", "power_stiffness_factor",
               "tube_section", "COORDINATES", "ACTUATED", "ELASTIC")

#: (package, attribute) -> (module, attribute) for names a package no longer exports
MOVED_ATTRIBUTES = {
    **{("chrono_flex.spatial", n): ("chrono_flex.formulations.rrrp", n) for n in _RRRP_NAMES},
    ("chrono_flex.spatial", "SpatialResult"): ("chrono_flex.formulations.rrrp", "RRRPResult"),
    ("chrono_flex.formulations.rrrp", "SpatialResult"): ("chrono_flex.formulations.rrrp",
                                                         "RRRPResult"),
    ("chrono_flex.drive", "SCENARIOS"): ("chrono_flex.scenarios.drive", "SCENARIOS"),
    ("chrono_flex.drive", "ScenarioResult"): ("chrono_flex.scenarios.drive", "ScenarioResult"),
    ("chrono_flex.drive", "run_scenario"): ("chrono_flex.scenarios.drive", "run_scenario"),
    ("chrono_flex.drive", "bench_drive_step"): ("chrono_flex.bench", "bench_drive_step"),
    ("chrono_flex.chrono", "bench_chrono_element"): ("chrono_flex.bench", "bench_chrono_element"),
    ("chrono_flex.chrono.blender", "export_case"): ("chrono_flex.engines", "export_case"),
    ("chrono_flex.chrono.element", "configure_system"): ("chrono_flex.chrono.system", "configure_system"),
    ("chrono_flex.chrono.element", "step"): ("chrono_flex.chrono.system", "step"),
    ("chrono_flex.chrono.element", "TIMESTEPPERS"): ("chrono_flex.chrono.system", "TIMESTEPPERS"),
    ("chrono_flex.chrono.element", "MAX_HALVINGS"): ("chrono_flex.chrono.system", "MAX_HALVINGS"),
    ("chrono_flex.chrono.element", "ABS_TOL_FLOOR"): ("chrono_flex.chrono.system", "ABS_TOL_FLOOR"),
    ("chrono_flex.chrono.beams", "rigid_velocity"): ("chrono_flex.chrono.corotational", "rigid_velocity"),
    ("chrono_flex.chrono.beams", "element_stiffness"): ("chrono_flex.chrono.corotational", "element_stiffness"),
    ("chrono_flex.chrono.beams", "element_mass"): ("chrono_flex.chrono.corotational", "element_mass"),
    ("chrono_flex.chrono.beams", "element_strain_energy"): ("chrono_flex.chrono.corotational", "element_strain_energy"),
    ("chrono_flex.chrono.beams", "BeamSection"): ("chrono_flex.chrono.corotational", "BeamSection"),
    ("chrono_flex.chrono.beams", "MASS_FLOOR"): ("chrono_flex.chrono.beam_scene", "MASS_FLOOR"),
}


def _warn(old, new):
    warnings.warn(f"{old} moved to {new} in chrono_flex 0.2; the old path goes in 0.3",
                  DeprecationWarning, stacklevel=3)


class _MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the old module names and hands out the new modules under them."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in MOVED_MODULES:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        new = MOVED_MODULES[spec.name]
        _warn(spec.name, new)
        return importlib.import_module(new)

    def exec_module(self, module):
        pass


def install():
    """Put the finder on ``sys.meta_path`` once (called by ``chrono_flex/__init__``)."""
    if not any(isinstance(f, _MovedModuleFinder) for f in sys.meta_path):
        sys.meta_path.append(_MovedModuleFinder())


def moved_attribute(package, name):
    """The value of a name ``package`` used to export, with a DeprecationWarning; for a
    package's module-level ``__getattr__``. AttributeError for any other name."""
    where = MOVED_ATTRIBUTES.get((package, name))
    if where is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    _warn(f"{package}.{name}", f"{where[0]}.{where[1]}")
    return getattr(importlib.import_module(where[0]), where[1])
