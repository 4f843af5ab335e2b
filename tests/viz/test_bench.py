"""``chrono-flex bench render``: the timing it prints (a few frames, to stay quick)."""

from chrono_flex import cli


def test_bench_render_prints_its_figures(capsys):
    assert cli.main(["bench", "render", "--frames", "3"]) == 0
    out = capsys.readouterr().out
    assert "3 frames of bien-2link (reference engine)" in out
    assert "per frame" in out and "ms" in out and "GIF size" in out
