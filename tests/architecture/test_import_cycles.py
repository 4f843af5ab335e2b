"""No import circles between the package's modules (docs/architecture.md): every
import, at module level or inside a function, is an edge from the importing module to
the module it names; a package's ``__init__`` is left out (it re-exports its modules)."""

import importlib.util
import pathlib

import pytest

_spec = importlib.util.spec_from_file_location(        # the layer test's import reader
    "_layers", pathlib.Path(__file__).with_name("test_layers.py"))
_layers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_layers)
SOURCES, imports, module_name = _layers.SOURCES, _layers.imports, _layers.module_name

def graph():
    """{module: set of modules it imports} over the package's modules (no __init__)."""
    mods = {module_name(p): p for p in SOURCES if p.name != "__init__.py"}
    edges = {m: set() for m in mods}
    for m, path in mods.items():
        for _, target in imports(path):
            if target in mods and target != m:
                edges[m].add(target)
    return edges


def circles(edges):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(frozenset(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_no_import_circles():
    found = circles(graph())
    assert not found, "import circles: " + "; ".join(" <-> ".join(sorted(c)) for c in found)


def test_the_check_finds_a_circle():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(edges) == [frozenset("abc")]


@pytest.mark.parametrize("module", ["chrono_flex.planar.model_file",
                                    "chrono_flex.validation.running"])
def test_the_graph_sees_the_modules(module):
    assert module in graph()
