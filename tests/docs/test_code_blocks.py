"""Every fenced Python block of the documentation pages (docs/**/*.md) runs as written,
each on its own, in a scratch directory that sees the repository's examples/ (as a reader
in a checkout does). Blocks that build a Chrono system are skipped where PyChrono is
absent; a block preceded by ``<!-- docs-test: skip REASON -->`` is skipped with that
reason. A block must not raise and must not set off a StiffeningWarning (a page's example
runs inside the model's range)."""

import pathlib
import re
import warnings

import pytest

from chrono_flex.engines import pychrono_available
from chrono_flex.errors import StiffeningWarning
from chrono_flex.validation import core

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

BLOCK = re.compile(r"(?:^<!-- docs-test: skip (?P<skip>.+?) -->\n)?^```python\n(?P<code>.*?)^```",
                   re.S | re.M)
CHRONO = re.compile(r"^\s*import pychrono|^\s*from pychrono|chrono_flex\.chrono\b", re.M)


def _blocks():
    found = []
    for page in sorted(DOCS.rglob("*.md")):
        rel = page.relative_to(DOCS).as_posix()
        if rel.startswith("_"):
            continue
        text = page.read_text(encoding="utf-8")
        for k, m in enumerate(BLOCK.finditer(text), 1):
            line = text.count("\n", 0, m.start("code"))
            found.append(pytest.param(rel, line, m.group("code"), m.group("skip"),
                                      id=f"{rel}:{k}"))
    return found


BLOCKS = _blocks()


def test_the_pages_have_python_blocks():
    pages = {p.values[0] for p in BLOCKS}
    # the getting-started page and every guide page that has Python to show
    assert {"getting-started.md", "guide/arm.md", "guide/drive.md", "guide/chrono-scene.md",
            "guide/validation.md", "guide/campaigns.md", "model-files.md"} <= pages


@pytest.mark.parametrize("page, line, code, skip", BLOCKS)
def test_docs_block_runs_as_written(page, line, code, skip, tmp_path, monkeypatch):
    if skip:
        pytest.skip(skip)
    if CHRONO.search(code):
        ok, why = pychrono_available()
        if not ok:
            pytest.skip(f"the block builds a Chrono system: needs the real PyChrono: {why}")
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)                    # files the block writes land here
    monkeypatch.setenv("MPLBACKEND", "Agg")
    # a block that registers a validation case registers it in a copy of the registry
    monkeypatch.setattr(core, "CASES", dict(core.CASES))
    with warnings.catch_warnings():
        warnings.simplefilter("error", StiffeningWarning)
        # the line numbers of a traceback are the page's
        exec(compile("\n" * line + code, str(DOCS / page), "exec"), {"__name__": "__docs__"})


def test_getting_started_shows_the_readmes_two_commands():
    # the site's first page and the README give a newcomer the same two commands
    def commands(text):
        return re.findall(r"^```bash\n(.*?)\n```", text, re.S | re.M)

    readme = commands((ROOT / "README.md").read_text(encoding="utf-8"))
    page = commands((DOCS / "getting-started.md").read_text(encoding="utf-8"))
    assert readme[:2] == page[1:3]
    assert "chrono-flex run" in page[1] and "pytest" in page[2]
