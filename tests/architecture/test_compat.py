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
