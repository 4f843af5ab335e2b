"""The validation report's summary table keeps its columns whatever the cells hold."""

from pathlib import Path
import re

import pytest

from chrono_flex.validation.report import cell, write_report

COLUMNS = 8


def row(name, metric, tolerance_text="<= 0.1", message=""):
    return dict(name=name, kind="verification", status="passed", value=0.05,
                tolerance_text=tolerance_text, metric=metric, engines=["reference"],
                seconds=1.0, quantity="q", reason="r", needs_pychrono=False, message=message)


ROWS = [row("plain.case", "max relative error"),
        row("pipes.case", "max |e| / max |y|", tolerance_text="|x| <= 0.1"),
        row("break.case", "first line\nsecond line | with a pipe"),
        row("backslash.case", "a \\| b, a \\ c")]


def table_rows(path):
    lines = path.read_text().splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("| case |"))
    end = lines.index("", start)
    return lines[start + 2:end]


def test_every_row_has_the_header_s_columns(tmp_path):
    rows = table_rows(Path(write_report(ROWS, {}, str(tmp_path))))
    assert len(rows) == len(ROWS)
    for line in rows:
        # unescaped pipes: not preceded by an odd number of backslashes
        bars = re.findall(r"(?<!\\)(?:\\\\)*\|", line)
        assert len(bars) == COLUMNS + 1, line


def test_cell_escapes_pipes_and_joins_lines():
    assert cell("max |e|") == "max \\|e\\|"
    assert cell("one\ntwo") == "one two"
    assert cell("a \\| b") == "a \\\\\\| b"


def test_a_markdown_reader_sees_the_cells_as_written(tmp_path):
    markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py reads the table")
    md = markdown_it.MarkdownIt("commonmark").enable("table")
    path = write_report(ROWS, {}, str(tmp_path))
    tokens = md.parse(open(path).read())
    cells, current = [], None
    for tok in tokens:
        if tok.type == "tr_open":
            current = []
        elif tok.type == "inline" and current is not None:
            current.append("".join(c.content for c in tok.children if c.type == "text"))
        elif tok.type == "tr_close":
            cells.append(current)
            current = None
    assert all(len(c) == COLUMNS for c in cells)
    body = {c[0]: c for c in cells[1:]}
    assert body["pipes.case"][5] == "max |e| / max |y|"
    assert body["pipes.case"][4] == "|x| <= 0.1"
    assert body["break.case"][5] == "first line second line | with a pipe"
    assert body["backslash.case"][5] == "a \\| b, a \\ c"


def test_step_error_is_exact_for_a_pure_power_law():
    """y(h) = y* + C h^p: the estimate from y(h) and y(h/2) is C h^p exactly, up to the
    round-off of differencing O(1) values (1e-16 / 1e-9 of the smallest difference: 1e-6)."""
    import numpy as np

    from chrono_flex.validation.core import step_error

    t = np.linspace(0.0, 1.0, 11)
    exact = np.column_stack([np.sin(t), np.cos(t)])
    C, h = np.array([0.3, -2.0]), 0.01
    for p in (1, 2, 4):
        y_h = exact + C * h**p * (1 + t[:, None])
        y_half = exact + C * (h / 2) ** p * (1 + t[:, None])
        np.testing.assert_allclose(step_error(y_h, y_half, order=p), 2 * np.abs(C) * h**p,
                                   rtol=1e-6)
