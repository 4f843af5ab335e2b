"""Model-file trust: reading a model never runs code; running one that names code needs
``allow_code`` (``--allow-code``) unless the code is a file beside the model file, and
says what it runs; ``table`` inputs are read relative to the model file and their errors
quote no content of the file."""

import os
import sys

import pytest

import chrono_flex as cf
from chrono_flex import cli
from chrono_flex.errors import ModelFileError, ParameterError
from chrono_flex.planar.model_file import read_model

ARM = """\
[simulation]
t_end = 0.01
dt_out = 0.005

[[links]]
length = 1.0
n_elements = 1
EI = 10.0
rho_A = 0.5

[inputs]
"""

CODE = """\
import pathlib
pathlib.Path(__file__).with_name("RAN").write_text("ran")
def torque(t, q, qd):
    return [0.0]
"""


@pytest.fixture
def tree(tmp_path, monkeypatch):
    (tmp_path / "sub").mkdir()
    for where in (tmp_path, tmp_path / "sub"):
        (where / "marker_code.py").write_text(CODE)
    (tmp_path / "beside.toml").write_text(ARM + 'torque = "marker_code.py:torque"\n')
    (tmp_path / "sub" / "far.toml").write_text(ARM + 'torque = "../marker_code.py:torque"\n')
    (tmp_path / "module.toml").write_text(ARM + 'torque = "marker_code:torque"\n')
    monkeypatch.syspath_prepend(str(tmp_path))      # "marker_code" is importable,
    monkeypatch.delitem(sys.modules, "marker_code", raising=False)   # and not yet imported
    monkeypatch.chdir(tmp_path)
    return tmp_path


def ran(tree):
    return (tree / "RAN").exists() or (tree / "sub" / "RAN").exists()


@pytest.mark.parametrize("name", ["beside.toml", "sub/far.toml", "module.toml"])
def test_reading_a_model_runs_no_code(tree, name, capsys):
    read_model(tree / name)
    cf.PlanarArm.from_file(tree / name)
    assert cli.main(["modes", name, "--out", "out"]) == 0
    assert not ran(tree)


@pytest.mark.parametrize("name,what", [("sub/far.toml", "marker_code.py"),
                                       ("module.toml", "module 'marker_code'")])
def test_code_not_beside_the_file_needs_allow_code(tree, name, what, capsys):
    model = read_model(tree / name)
    with pytest.raises(ModelFileError) as e:
        model.simulate_kwargs()
    assert "`inputs.torque`" in str(e.value) and what in str(e.value)
    assert "allow_code=True" in str(e.value) and e.value.line == 12
    assert not ran(tree)
    assert cli.main(["run", name, "--engine", "reference", "--out", "out", "-q"]) == 2
    assert "--allow-code" in capsys.readouterr().err and not ran(tree)
    assert not os.path.exists("out")
    model.arm.simulate(**model.simulate_kwargs(allow_code=True))
    assert ran(tree)


def test_cli_allow_code_says_what_it_runs(tree, capsys):
    assert cli.main(["run", "module.toml", "--engine", "reference", "--out", "out", "-q",
                     "--allow-code"]) == 0
    out = capsys.readouterr().out
    assert "inputs.torque runs the function `torque` of the Python module 'marker_code'" \
        in out and ran(tree)


def test_code_beside_the_file_runs_and_is_named(tree, capsys):
    assert cli.main(["run", "beside.toml", "--engine", "reference", "--out", "out",
                     "-q"]) == 0
    assert f"of the file {tree / 'marker_code.py'}" in capsys.readouterr().out
    assert ran(tree)


def test_an_unloaded_input_refuses_to_run(tree):
    model = read_model(tree / "module.toml")
    with pytest.raises(ParameterError):
        model.arm.simulate(**model.simulation, **model.inputs)
    assert not ran(tree)


def test_table_is_read_relative_to_the_model_file(tree):
    (tree / "sub" / "m.toml").write_text(ARM + 'torque = { profile = "table", '
                                               'file = "/etc/passwd" }\n')
    with pytest.raises(ModelFileError) as e:
        read_model(tree / "sub" / "m.toml")
    assert "`inputs.torque.file`" in str(e.value) and "relative to the model file" in \
        str(e.value)
    (tree / "u.csv").write_text("t,a\n0,0\n1,2\n")
    (tree / "sub" / "m.toml").write_text(ARM + 'torque = { profile = "table", '
                                               'file = "../u.csv" }\n')
    assert list(read_model(tree / "sub" / "m.toml").inputs["torque"](0.5)) == [1.0]


def test_table_errors_quote_no_content(tree):
    (tree / "data.csv").write_text("t,a\n0,0\nsecret:x:1:1,daemon\n")
    (tree / "m.toml").write_text(ARM + 'torque = { profile = "table", file = "data.csv" }\n')
    with pytest.raises(ModelFileError) as e:
        read_model(tree / "m.toml")
    assert "row 3" in str(e.value) and "secret" not in str(e.value) \
        and "daemon" not in str(e.value)
    (tree / "m2.toml").write_text(ARM + 'torque = { profile = "table", file = "data.csv", '
                                        'columns = ["zz"] }\n')
    (tree / "data.csv").write_text("t,hidden_name\n0,0\n1,1\n")
    with pytest.raises(ModelFileError) as e:
        read_model(tree / "m2.toml")
    assert "hidden_name" not in str(e.value)


def test_sweep_runs_keep_a_table_input(tree):
    from chrono_flex import campaign

    (tree / "u.csv").write_text("t,a\n0,0\n1,2\n")
    (tree / "m.toml").write_text(ARM + 'torque = { profile = "table", file = "u.csv" }\n')
    _, runs = campaign.write_runs(str(tree / "m.toml"), [("links[0].EI", [1.0, 2.0])],
                                  str(tree / "out"))
    for r in runs:                          # relative to the run's file, and readable
        assert list(read_model(r["model"]).inputs["torque"](0.5)) == [1.0]
