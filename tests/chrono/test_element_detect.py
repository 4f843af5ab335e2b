"""Finding PyChrono (real, missing, or the unrelated PyPI package) and silencing SWIG's
leak lines. Only the last test needs the real PyChrono."""

import importlib.metadata
import sys
import types

import pytest

from chrono_flex.chrono import _detect
from chrono_flex.chrono._quiet import LEAK_LINES
from chrono_flex.errors import PyChronoUnavailable

LEAK = LEAK_LINES[0].decode()


def _no_distribution(name):
    raise importlib.metadata.PackageNotFoundError(name)


def test_missing_pychrono_says_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pychrono", None)      # import raises ImportError
    ok, message = _detect.pychrono_status()
    assert not ok
    assert "conda install -c projectchrono pychrono" in message
    assert "CH_ENABLE_MODULE_PYTHON" in message and "bin directory" in message
    with pytest.raises(PyChronoUnavailable, match="not importable"):
        _detect.require_pychrono()


def test_the_unrelated_pypi_package_is_recognised(monkeypatch):
    fake = types.ModuleType("pychrono")
    fake.__file__ = "/site-packages/pychrono/__init__.py"
    monkeypatch.setitem(sys.modules, "pychrono", fake)

    class Dist:
        version = "0.3.1"
        metadata = {"Summary": "Tools for chronological data"}

    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: Dist())
    with pytest.raises(PyChronoUnavailable) as info:
        _detect.require_pychrono()
    message = str(info.value)
    assert "not Project Chrono's PyChrono" in message
    assert "ChSystemNSC" in message                        # what it lacks
    assert "pychrono 0.3.1" in message and "chronological" in message   # what was found
    assert "/site-packages/pychrono/__init__.py" in message
    assert "conda install -c projectchrono pychrono" in message
    assert "pip install pychrono` does NOT" in message


def test_a_module_with_the_chrono_classes_is_accepted(monkeypatch):
    fake = types.ModuleType("pychrono")
    for name in _detect.REQUIRED_ATTRIBUTES:
        setattr(fake, name, object)
    fake.__file__ = "/opt/build/bin/pychrono/__init__.py"
    monkeypatch.setitem(sys.modules, "pychrono", fake)
    monkeypatch.setattr(importlib.metadata, "distribution", _no_distribution)
    assert _detect.require_pychrono() is fake
    ok, message = _detect.pychrono_status()
    assert ok and "/opt/build/bin/pychrono" in message


def test_importing_chrono_flex_does_not_import_pychrono():
    import subprocess

    code = ("import sys, chrono_flex, chrono_flex.chrono, chrono_flex.planar.floating; "
            "print('pychrono' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False"


def run_python(code):
    """stdout of a fresh interpreter running ``code`` (the filter works on the process's
    file descriptor 1, which pytest's own capturing would bypass for print())."""
    import subprocess

    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=120).stdout


PRELUDE = """
import os, sys
from chrono_flex.chrono._quiet import LEAK_LINES, quiet_swig
LEAK = LEAK_LINES[0].decode()
raw = lambda text: os.write(1, text.encode())
"""


def test_quiet_swig_drops_exactly_the_leak_lines_and_keeps_the_rest_in_order():
    out = run_python(PRELUDE + """
print("before", flush=True)
with quiet_swig():
    print("user 1", flush=True)
    raw(LEAK + "\\n")
    raw("c-level line\\n")
    raw(LEAK + "\\n" + LEAK + "\\n")
    print("user 2", end="", flush=True)          # a partial line, finished below
    raw(" continued\\n")
    raw("swig/python detected")                  # a prefix of the leak line ...
    raw(" something else\\n")                   # ... that turns out different
    raw(LEAK + " but longer\\n")
    print("buffered, flushed by the context")    # no flush: the context flushes it
    raw("no newline at the end")
print("\\nafter")
""")
    assert out == ("before\nuser 1\nc-level line\nuser 2 continued\n"
                   "swig/python detected something else\n" + LEAK + " but longer\n"
                   "buffered, flushed by the context\nno newline at the end\nafter\n")


def test_quiet_swig_restores_stdout_after_an_exception():
    out = run_python(PRELUDE + """
try:
    with quiet_swig():
        raw(LEAK + "\\nkept\\n")
        1 / 0
except ZeroDivisionError:
    pass
raw(LEAK + "\\n")                   # outside: not filtered any more
""")
    assert out == "kept\n" + LEAK + "\n"


@pytest.mark.pychrono
def test_quiet_swig_silences_real_director_leak_lines(chrono):
    """A bare ChLoadCustomMultiple subclass makes SWIG print the leak line at every
    Update (docs/chrono.md §2); inside quiet_swig only the user's output remains."""
    scene = PRELUDE + """
import pychrono as chrono
system = chrono.ChSystemNSC()
shaft = chrono.ChShaft()
system.Add(shaft)

class Load(chrono.ChLoadCustomMultiple):
    def ComputeQ(self, x, w):
        self.load_Q.SetVect([1.0])

    def IsStiff(self):
        return False

items = chrono.vector_ChLoadable()
items.append(shaft)
load = Load(items)
container = chrono.ChLoadContainer()
container.Add(load)
system.Add(container)
"""
    loud = run_python(scene + "system.DoStepDynamics(1e-3)\n")
    assert loud.count(LEAK) >= 1                      # the fact: the lines are printed
    quiet = run_python(scene + """
with quiet_swig():
    print("start")
    for _ in range(200):
        system.DoStepDynamics(1e-3)
    print("end")
""")
    assert quiet == "start\nend\n"
