"""The documentation site (mkdocs.yml, docs/): it builds in strict mode without a warning,
its API reference covers every public name, its gallery shows the figures the quick
examples made during the build, and strict mode does stop on a broken link."""

import html
import importlib
import pathlib
import pkgutil
import re
import subprocess
import sys

import pytest

import chrono_flex

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def _mkdocs(*args, cwd=ROOT, timeout=900):
    # ``python -m mkdocs``: the docs tools come with the test extra, so a missing one fails
    return subprocess.run([sys.executable, "-m", "mkdocs", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def public_packages():
    """chrono_flex and each of its subpackages with no private part in its name that
    declares ``__all__`` (what ``from package import *`` and the README offer)."""
    found = [chrono_flex]
    for info in pkgutil.walk_packages(chrono_flex.__path__, "chrono_flex."):
        if info.ispkg and not any(p.startswith("_") for p in info.name.split(".")):
            module = importlib.import_module(info.name)
            if hasattr(module, "__all__"):
                found.append(module)
    return found


def _ids(page):
    return set(re.findall(r'\bid="([^"]+)"', page.read_text(encoding="utf-8")))


def _sections(page):
    """stem -> the HTML of its section on the gallery page (h2 id to the next h2)."""
    text = page.read_text(encoding="utf-8")
    parts = re.split(r'(<h2 id="[^"]+")', text)
    return {re.search(r'id="([^"]+)"', parts[k]).group(1): parts[k + 1]
            for k in range(1, len(parts) - 1, 2)}


@pytest.mark.slow
def test_the_site_builds_strict_and_complete(tmp_path):
    """One build (the slowest part: the quick examples run in it) checked four ways."""
    site = tmp_path / "site"
    out = _mkdocs("build", "--strict", "--site-dir", str(site))
    log = out.stdout + out.stderr
    assert out.returncode == 0, log[-4000:]
    warnings = [line for line in log.splitlines() if "WARNING" in line]
    assert not warnings, "\n".join(warnings)

    # 1. the API reference: every name of every public __all__ is an entry of its
    # package's page under the path a user imports it from; a name the package loads
    # lazily from a module (PEP 562, its ``_LAZY`` table) under that module's path
    missing = []
    for package in public_packages():
        page = site / "api" / package.__name__ / "index.html"
        assert page.exists(), f"no API page for {package.__name__}"
        ids = _ids(page)
        lazy = getattr(package, "_LAZY", {})
        for name in package.__all__:
            path = (f"{package.__name__}.{lazy[name]}.{name}" if name in lazy
                    else f"{package.__name__}.{name}")
            if path not in ids:
                missing.append(path)
    assert not missing, f"public names without an entry in the API reference: {missing}"

    # 2. the physics pages are in the site, with their equations marked for MathJax
    for name in ("planar-link", "spatial-link", "drive", "rrrp-arm", "screw-recursion",
                 "chrono", "model-files", "campaigns", "performance", "references",
                 "architecture", "linear-models", "control"):
        assert (site / name / "index.html").exists(), name
    planar = (site / "planar-link" / "index.html").read_text(encoding="utf-8")
    assert planar.count('class="arithmatex"') > 50            # the page's numbered equations

    # 3. the gallery: a section per example; each image is a file of the site; an
    # example that ran and writes figures shows at least one; one that did not run says why
    gallery = site / "gallery" / "index.html"
    sections = _sections(gallery)
    for script in sorted(EXAMPLES.glob("*.py")):
        stem = script.stem
        assert stem in sections, f"no gallery section for examples/{script.name}"
        body = sections[stem]
        images = re.findall(r'<img[^>]*src="([^"]+)"', body)
        for src in images:
            assert (gallery.parent / html.unescape(src)).is_file(), src
        writes_figures = re.search(r"\.(png|gif)\b", script.read_text(encoding="utf-8"))
        if "Not run here" in body:
            assert "needs PyChrono" in body or "too slow" in body, stem
        elif writes_figures:
            assert images, f"examples/{script.name} ran but its figures are not shown"
    ran = [s for s, body in sections.items() if "Not run here" not in body]
    assert {"drive_scenarios", "drive_step_realtime"} <= set(ran)

    # 4. a figure made during this build is a real PNG, not an empty file
    png = site / "gallery" / "drive_step_realtime.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


def test_strict_mode_stops_on_a_broken_link(tmp_path):
    # the site's own settings (validation, strict) on a page with a link to nowhere:
    # the build must fail and name the link, or the test above proves nothing
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Page\n\nSee [the guide](guide/nowhere.md).\n")
    config = tmp_path / "mkdocs.yml"
    config.write_text(f"INHERIT: {ROOT / 'mkdocs.yml'}\ndocs_dir: {docs}\n"
                      f"site_dir: {tmp_path / 'site'}\nhooks: []\nplugins: [search]\n"
                      "nav: [index.md]\nextra_javascript: []\n")
    out = _mkdocs("build", "-f", str(config), cwd=tmp_path, timeout=300)
    assert out.returncode != 0
    assert "guide/nowhere.md" in out.stdout + out.stderr
