"""Every fenced Python block of the README runs as written, each on its own (a reader
copies one block, not the page), in a scratch directory."""

import pathlib
import re

import pytest

from chrono_flex.engines import pychrono_available

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", README.read_text(), re.S | re.M)


def test_the_readme_has_python_blocks():
    # the four of today: the API, drives, a drive in Chrono, the other formulations
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{k + 1}" for k in range(len(BLOCKS))])
def test_readme_block_runs_as_written(code, tmp_path, monkeypatch):
    if re.search(r"^\s*import pychrono|^\s*from pychrono|chrono_flex\.chrono\b", code, re.M):
        ok, why = pychrono_available()
        if not ok:
            pytest.skip(f"the block builds a Chrono system: needs the real PyChrono: {why}")
    monkeypatch.chdir(tmp_path)                  # files the block writes land here
    exec(compile(code, "README.md python block", "exec"), {"__name__": "__readme__"})
