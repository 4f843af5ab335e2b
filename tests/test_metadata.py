"""The package's metadata: one version (chrono_flex/_version.py) that pyproject.toml,
``chrono_flex.__version__`` and ``chrono-flex --version`` all report; the licence that
pyproject.toml names, in a LICENSE file; a changelog that knows the version."""

import pathlib
import re
import subprocess
import sys
import warnings

import chrono_flex
from chrono_flex._version import __version__ as DEFINED

ROOT = pathlib.Path(__file__).resolve().parents[1]

# PEP 440's public version form (release, optional pre/post/dev segments)
PEP440 = re.compile(r"^\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?$")


def _pyproject_project():
    """The [project] table as setuptools expands it (the dynamic version read from the
    attribute it names), without installing anything."""
    from setuptools.config.pyprojecttoml import read_configuration

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")         # "[tool.setuptools] is beta" on older setuptools
        return read_configuration(ROOT / "pyproject.toml", expand=True)["project"]


def test_one_version_everywhere():
    assert PEP440.match(DEFINED), DEFINED
    assert chrono_flex.__version__ == DEFINED
    assert _pyproject_project()["version"] == DEFINED


def test_the_version_is_written_once():
    # every other place reads chrono_flex/_version.py: no second literal to drift
    literals = [p.relative_to(ROOT).as_posix() for p in (ROOT / "chrono_flex").rglob("*.py")
                if re.search(r"^__version__\s*=", p.read_text(encoding="utf-8"), re.M)]
    assert literals == ["chrono_flex/_version.py"]
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert not re.search(r"^version\s*=\s*[\"']", text, re.M), "a static version in pyproject.toml"


def test_cli_version():
    out = subprocess.run([sys.executable, "-m", "chrono_flex", "--version"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"chrono-flex {DEFINED}"


def test_license_file_matches_the_metadata():
    assert _pyproject_project()["license"] == {"text": "BSD-3-Clause"}
    text = " ".join((ROOT / "LICENSE").read_text(encoding="utf-8").split())
    assert text.startswith("BSD 3-Clause License")
    assert "Copyright (c)" in text and "the chrono_flex developers" in text
    for clause in ("1. Redistributions of source code must retain the above copyright notice",
                   "2. Redistributions in binary form must reproduce the above copyright notice",
                   "3. Neither the name of the copyright holder nor the names of its contributors "
                   "may be used to endorse or promote products derived from this software "
                   "without specific prior written permission."):
        assert clause in text, clause
    assert "IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS \"AS IS\"" in text


def test_changelog_has_the_releases_and_an_unreleased_section():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[?([^\]\s]+)\]?", text, re.M)
    assert headings[0] == "Unreleased"          # where the next changes are added
    for release in ("0.2.0", "0.1.0"):
        assert release in headings, release
