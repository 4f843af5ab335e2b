"""MkDocs hook: the API reference pages, generated from the package while the site builds.

One page per package of ``chrono_flex`` (``api/<package>.md``): the package's docstring,
then every name of its ``__all__`` (what ``from package import name`` offers), then each
public module in full. mkdocstrings renders them from the docstrings, read statically
(griffe: nothing is imported for the rendering, so ``chrono_flex.chrono`` is documented
without PyChrono). Packages and modules are found by walking the source tree, so a new
module or a new name in ``__all__`` appears without editing this file; names whose
modules a package loads lazily (PEP 562, a ``_LAZY`` table of name -> module) are
documented at their defining module.
"""

import importlib
import pkgutil

from mkdocs.structure.files import File

ROOT_PACKAGE = "chrono_flex"


def packages():
    """Every public package of chrono_flex, parents first (names with no ``_`` part)."""
    root = importlib.import_module(ROOT_PACKAGE)
    found = [ROOT_PACKAGE]
    for info in pkgutil.walk_packages(root.__path__, ROOT_PACKAGE + "."):
        if info.ispkg and not any(p.startswith("_") for p in info.name.split(".")):
            found.append(info.name)
    return found


def modules(package):
    """The public modules directly in ``package`` (not its subpackages), in name order."""
    mod = importlib.import_module(package)
    return sorted(f"{package}.{i.name}" for i in pkgutil.iter_modules(mod.__path__)
                  if not i.ispkg and not i.name.startswith("_"))


def public_names(package):
    """(name, identifier to render) for each name of ``package.__all__``."""
    mod = importlib.import_module(package)
    lazy = getattr(mod, "_LAZY", {})
    return [(name, f"{package}.{lazy[name]}.{name}" if name in lazy else f"{package}.{name}")
            for name in getattr(mod, "__all__", ())]


def page_uri(package):
    return f"api/{package}.md"


def _directive(identifier, **options):
    lines = [f"::: {identifier}"]
    if options:
        lines.append("    options:")
        lines += [f"      {key}: {str(value).lower() if isinstance(value, bool) else value}"
                  for key, value in options.items()]
    return "\n".join(lines) + "\n"


def package_page(package):
    """The Markdown of one package's page."""
    parts = [f"# `{package}`\n",
             _directive(package, members=False, show_root_heading=False,
                        show_root_toc_entry=False)]
    names = public_names(package)
    if names:
        parts.append(f"## Public names\n\nThe names of `{package}.__all__`.\n")
        parts += [_directive(identifier) for _, identifier in names]
    subs = [p for p in packages() if p.rsplit(".", 1)[0] == package and p != package]
    if subs:
        parts.append("## Subpackages\n")
        parts.append("\n".join(f"- [`{p}`]({p}.md)" for p in subs) + "\n")
    mods = modules(package)
    if mods:
        parts.append("## Modules\n")
        parts += [_directive(m) for m in mods]
    return "\n".join(parts)


def index_page():
    lines = ["# API reference\n",
             "Generated from the docstrings while the site builds. Each page holds a "
             "package: its public names (its `__all__`), then its modules in full. The "
             "physics behind the functions is in the pages under *Physics and design*; "
             "docstrings cite them and the papers by equation number.\n"]
    for package in packages():
        mod = importlib.import_module(package)
        first = (mod.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
        lines.append(f"- [`{package}`]({package}.md): {first}")
    return "\n".join(lines) + "\n"


def on_files(files, config):
    files.append(File.generated(config, "api/index.md", content=index_page()))
    for package in packages():
        files.append(File.generated(config, page_uri(package), content=package_page(package)))
    return files


def on_config(config):
    """The package pages under "API reference" in the navigation, after its index."""
    for k, item in enumerate(config.nav or []):
        if isinstance(item, dict) and item.get("API reference") == "api/index.md":
            config.nav[k] = {"API reference": ["api/index.md"] + [
                {p: page_uri(p)} for p in packages()]}
    return config
