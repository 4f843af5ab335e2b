"""The 0.1 import paths keep working for one release, each with a DeprecationWarning
that names the new path, and hand out the very objects of the new layout."""

import importlib
import sys

import pytest

from chrono_flex import _compat


@pytest.mark.parametrize("old, new", sorted(_compat.MOVED_MODULES.items()))
def test_old_module_paths_warn_and_alias_the_new_module(old, new):
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=new.replace(".", r"\.")):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)


@pytest.mark.parametrize("where, to", sorted(_compat.MOVED_ATTRIBUTES.items()))
def test_moved_names_warn_and_forward(where, to):
    (package, name), (module, new_name) = where, to
    with pytest.warns(DeprecationWarning, match=f"{module}.{new_name}".replace(".", r"\.")):
        value = getattr(importlib.import_module(package), name)
    assert value is getattr(importlib.import_module(module), new_name)


def test_an_unknown_name_is_still_an_attribute_error():
    import chrono_flex.drive

    with pytest.raises(AttributeError, match="no_such_name"):
        chrono_flex.drive.no_such_name


def test_the_screw_algebra_is_still_reachable_from_the_screw_module():
    """0.1 users called chrono_flex.screw.skew and friends; the algebra moved to its own
    module but the names stay on the recursion's module too."""
    from chrono_flex.formulations import screw, screw_algebra

    for name in ("skew", "screw_transform", "screw_inverse", "spatial_inertia",
                 "cross_matrix", "newton_euler_wrench", "gravity_wrench", "DELTA"):
        assert getattr(screw, name) is getattr(screw_algebra, name)
