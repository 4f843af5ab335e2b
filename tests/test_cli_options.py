"""Every command-line option is checked before any work, and none is silently ignored:
an option the command or case cannot use, a value out of range and a cap exceeded each
stop with exit code 2 and one line naming the option and the value."""

import pytest

from chrono_flex import cli


@pytest.mark.parametrize("argv,option,value", [
    (["run", "drive-step", "--engine", "foo"], "--engine", "'foo'"),
    (["run", "drive-step", "--render"], "--render", "True"),
    (["run", "drive-step", "--elements", "4"], "--elements", "4"),
    (["run", "bien-1link-n1", "--engine", "reference", "--elements", "0"], "--elements", "0"),
    (["run", "bien-1link-n1", "--engine", "reference", "--elements", "-3"], "--elements",
     "-3"),
    (["run", "bien-1link-n1", "--engine", "reference", "--elements", "12"], "--elements",
     "12"),
    (["run", "bien-1link-n1", "--out", ""], "--out", "''"),
    (["run", "bien-1link-n1", "--t-end", "-1"], "--t-end", "-1.0"),
    (["render", "bien-1link-n1", "--frames", "1000000"], "--frames", "1000000"),
    (["render", "bien-1link-n1", "--frames", "0"], "--frames", "0"),
    (["render", "bien-1link-n1", "--scale", "1e308"], "--scale", "1e+308"),
    (["render", "bien-1link-n1", "--scale", "nan"], "--scale", "nan"),
    (["render", "bien-1link-n1", "--blender-scale", "5"], "--blender-scale", "5.0"),
    (["modes", "bien-1link-n1", "--out", " "], "--out", "' '"),
    (["view", "x.npz", "--scale", "1e308"], "--scale", "1e+308"),
    (["validate", "--engines", "foo", "--list"], "--engines", "'foo'"),
    (["validate", "--engines", "reference,warp", "--list"], "--engines", "'reference,warp'"),
    (["bench", "--quick"], "--quick", "True"),
    (["bench", "render", "--repeat", "3"], "--repeat", "3"),
    (["bench", "perf", "--frames", "5"], "--frames", "5"),
    (["bench", "render", "--frames", "100000"], "--frames", "100000"),
])
def test_bad_or_unusable_option_is_named(argv, option, value, capsys, tmp_path,
                                         monkeypatch):
    monkeypatch.chdir(tmp_path)             # nothing may be written here
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert f"`{option}`" in err and value in err, err
    assert not list(tmp_path.iterdir())


def test_validate_engines_accepts_the_cases_engines(capsys):
    assert cli.main(["validate", "--engines", "closed form,reference", "--list"]) == 0
    assert "reference" in capsys.readouterr().out
