"""`chrono-flex compile`: the numba kernels compiled ahead of use (chrono_flex.warmup)."""

import pytest

from chrono_flex.cli import main
from chrono_flex.errors import ParameterError
from chrono_flex.warmup import FAMILIES, warm_up, warm_up_parallel


def test_bad_family_and_jobs_are_named():
    with pytest.raises(ParameterError, match="family.*'beams'"):
        warm_up("beams")
    with pytest.raises(ParameterError, match="families.*'beams'"):
        warm_up_parallel(2, ("planar", "beams"))
    for jobs in (0, 1.5, True):
        with pytest.raises(ParameterError, match="jobs"):
            warm_up_parallel(jobs)
    with pytest.raises(SystemExit):          # argparse names the bad family itself
        main(["compile", "beams"])


def test_compile_runs_a_family_in_its_own_process_and_says_so(capsys, monkeypatch):
    """One family through the command line: the child process (on the numpy kernels, so
    that the test does not compile a family beside the suite's workers) runs the
    family's tiny simulations and exits 0; the command prints the family with its
    outcome. The compiled path of the same runs is every engine test's."""
    monkeypatch.setenv("CHRONO_FLEX_KERNELS", "numpy")
    assert main(["compile", "planar", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("planar: compiled or loaded in ") and "FAILED" not in out
    assert set(FAMILIES) == {"planar", "spatial"}


def test_a_family_that_fails_says_why_and_the_command_fails(capsys, monkeypatch):
    """A family whose process fails (here: a kernel backend that does not exist, which the
    child rejects naming the variable) makes the command exit 1 and print the child's
    error, so a set-up script stops with the reason instead of a bare exit code."""
    monkeypatch.setenv("CHRONO_FLEX_KERNELS", "bogus")
    assert main(["compile", "planar", "--jobs", "1"]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("planar: FAILED (exit 1)")
    assert "CHRONO_FLEX_KERNELS" in err and "'bogus'" in err
