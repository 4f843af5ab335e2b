"""The package's layers (docs/architecture.md): imports point down, never up.

Every import in ``chrono_flex/`` (at module level or inside a function) is resolved to
the module it names and both ends are given their layer; an import from a lower layer
to a higher one fails the test, naming the file, the line and both layers. The few
allowed exceptions are listed with their reason.
"""

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "chrono_flex"

#: (module prefix, layer), the longest matching prefix wins. Bottom to top.
LAYERS = [
    ("chrono_flex._checks", 0), ("chrono_flex.errors", 0), ("chrono_flex._compat", 0),
    ("chrono_flex._callbacks", 0), ("chrono_flex._files", 0), ("chrono_flex._aliases", 0),
    ("chrono_flex._version", 0), ("chrono_flex._interrupts", 0),
    ("chrono_flex.planar.params", 1), ("chrono_flex.planar.shapes", 1),
    ("chrono_flex.planar.kinematics", 1), ("chrono_flex.drive", 1), ("chrono_flex.inputs", 1), ("chrono_flex.linear", 1),
    ("chrono_flex.spatial.params", 1), ("chrono_flex.spatial.elements", 1),
    ("chrono_flex.spatial.kinematics", 1), ("chrono_flex.spatial.closed_forms", 1),
    ("chrono_flex.planar.equations", 2), ("chrono_flex.planar.assembly", 2),
    ("chrono_flex.planar.floating", 2), ("chrono_flex.planar.invariants", 2),
    ("chrono_flex.planar.kernels", 2), ("chrono_flex.planar.chain_ga", 2),
    ("chrono_flex.planar.chain_linalg", 2), ("chrono_flex.planar.chain_newton", 2),
    ("chrono_flex.planar.chain_loop", 2),
    ("chrono_flex.spatial.equations", 2), ("chrono_flex.spatial.assembly", 2),
    ("chrono_flex.spatial.kernels", 2), ("chrono_flex.spatial.link_coef", 2),
    ("chrono_flex.spatial.tree_ga", 2),
    ("chrono_flex.stepping", 1), ("chrono_flex.integrators", 1),
    ("chrono_flex.result", 3),
    ("chrono_flex.planar", 4), ("chrono_flex.spatial", 4), ("chrono_flex.formulations", 4),
    ("chrono_flex.control", 4),
    ("chrono_flex.chrono", 5),
    ("chrono_flex.scenarios", 6),
    ("chrono_flex.engines", 7),
    ("chrono_flex.viz", 8), ("chrono_flex.bench", 8),
    ("chrono_flex.bench_perf", 8), ("chrono_flex.bench_tools", 8),
    ("chrono_flex.bench_user_laws", 8), ("chrono_flex.validation", 8),
    ("chrono_flex.campaign", 8), ("chrono_flex.warmup", 8),
    ("chrono_flex.cli", 9), ("chrono_flex.cli_common", 9), ("chrono_flex.cli_tools", 9),
    ("chrono_flex.__main__", 9),
]

#: Upward imports that are allowed, each a convenience method of a lower object that
#: hands its drawing to the view layer (imported inside the method, on first use).
ALLOWED = {
    ("chrono_flex.result", "chrono_flex.viz.plotting"): "Result.plot()",
    ("chrono_flex.drive.simulate", "chrono_flex.viz.plotting"): "DriveResult.plot()",
    ("chrono_flex.scenarios.drive", "chrono_flex.viz.plotting"): "ScenarioResult.plot()",
    ("chrono_flex.formulations.screw", "chrono_flex.viz.plotting"): "WeakCouplingResult.plot()",
}


def layer(module):
    best = None
    for prefix, n in LAYERS:
        if module == prefix or module.startswith(prefix + "."):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, n)
    return None if best is None else best[1]


def module_name(path):
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imports(path, name=None, text=None, prefix="chrono_flex"):
    """(line, imported module) of every import in ``path`` (module ``name``, source
    ``text``; both read from the path by default) that names a module of ``prefix``."""
    name = name or module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    tree = ast.parse(text if text is not None else path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == prefix or a.name.startswith(prefix + "."):
                    yield node.lineno, a.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not (target == prefix or target.startswith(prefix + ".")):
                continue
            for a in node.names:        # `from . import x` may import a module x
                sub = f"{target}.{a.name}"
                is_module = (PACKAGE.parent / (sub.replace(".", "/") + ".py")).exists() or \
                    (PACKAGE.parent / sub.replace(".", "/")).is_dir()
                yield node.lineno, sub if is_module else target


SOURCES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_has_a_layer():
    missing = [module_name(p) for p in SOURCES
               if p.name != "__init__.py" and layer(module_name(p)) is None]
    assert not missing, f"modules with no layer in LAYERS: {missing}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_imports_point_down(path):
    src = module_name(path)
    if path.name == "__init__.py":
        return          # a package's face re-exports its own modules and those below
    bad = []
    for line, target in imports(path):
        if target == "chrono_flex" or (src, target) in ALLOWED:
            continue
        if layer(target) is not None and layer(target) > layer(src):
            bad.append(f"line {line}: {src} (layer {layer(src)}) imports {target} "
                       f"(layer {layer(target)})")
    assert not bad, "\n".join(bad)


def _importers(prefix):
    return sorted({module_name(p) for p in SOURCES if list(imports(p, prefix=prefix))})


def test_only_the_chrono_package_imports_pychrono():
    bad = [m for m in _importers("pychrono") if not m.startswith("chrono_flex.chrono")]
    assert not bad, f"pychrono imported outside chrono_flex.chrono: {bad}"


@pytest.mark.parametrize("library", ["matplotlib", "pyvista"])
def test_only_the_view_layer_imports_plotting_libraries(library):
    bad = [m for m in _importers(library) if not m.startswith("chrono_flex.viz")]
    assert not bad, f"{library} imported outside chrono_flex.viz: {bad}"
    assert _importers(library), f"no module imports {library}: is the check looking?"


def test_the_checker_sees_upward_and_foreign_imports():
    """The checks can fail: an upward import and a pychrono import in a module of the
    planar layer are both found."""
    probe = PACKAGE / "planar" / "probe.py"           # never written: the text is given
    text = "def f():\n    from ..scenarios import arms\n    import pychrono.fea\n"
    found = list(imports(probe, "chrono_flex.planar.probe", text))
    assert found == [(2, "chrono_flex.scenarios.arms")]
    assert layer(found[0][1]) > layer("chrono_flex.planar.probe")
    assert list(imports(probe, "chrono_flex.planar.probe", text, prefix="pychrono")) == \
        [(3, "pychrono.fea")]
