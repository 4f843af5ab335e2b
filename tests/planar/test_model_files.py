"""Model files (TOML): every built-in case ships as one and runs the same from it; a model
written and read back simulates identically; errors name the file, the key and the line.

"The same" is bit for bit: a file holds every number as Python wrote it (repr), so the
arm, the inputs and the settings read back are the ones that were written.
"""

import filecmp
import math
import pathlib

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex import cli, engines, inputs, scenarios
from chrono_flex.drive import DriveParams, GearDrive
from chrono_flex.errors import ModelFileError, ParameterError
from chrono_flex.planar.model_file import INPUT_KEYS, key_lines, read_model, write_model

MODELS = pathlib.Path(__file__).resolve().parents[2] / "examples" / "models"
REGENERATE = ("regenerate them: python -c \"from chrono_flex import scenarios; "
              "scenarios.write_case_files('examples/models')\"")


def test_every_case_ships_as_the_file_it_writes(tmp_path):
    written = scenarios.write_case_files(tmp_path)
    names = sorted(p.name for p in MODELS.glob("*.toml"))
    assert names == sorted(pathlib.Path(p).name for p in written), REGENERATE
    for p in written:
        assert filecmp.cmp(p, MODELS / pathlib.Path(p).name, shallow=False), \
            f"{pathlib.Path(p).name} differs from its case; {REGENERATE}"


@pytest.mark.parametrize("name", sorted(scenarios.all_cases()))
def test_case_file_reads_back_to_the_case(name):
    arm, kw = scenarios.get(name).arm_and_kwargs()
    model = read_model(MODELS / f"{name}.toml")
    assert model.arm.to_dict() == arm.to_dict()
    settings = {k: v for k, v in kw.items() if k not in INPUT_KEYS}
    assert model.simulation == {k: (list(v) if isinstance(v, (list, tuple)) else v)
                                for k, v in settings.items()}
    assert set(model.inputs) == {k for k in kw if k in INPUT_KEYS}
    for k, p in model.inputs.items():
        if not inputs.is_time_only(kw[k]):      # reads the state: the same function by name
            assert p.spec == kw[k].spec
            continue
        for t in np.linspace(0.0, kw["t_end"], 37):
            np.testing.assert_array_equal(np.asarray(p(t, None, None)),
                                          np.asarray(kw[k](t, None, None) if k == "torque"
                                                     else kw[k](t)))
    assert model.engines == scenarios.get(name).engines


@pytest.mark.parametrize("name", ["bien-2link", "spinup-4-stiffening", "drive-bien-1link"])
def test_running_the_file_gives_the_case_s_trajectory(name):
    # one of each input kind: joint torques, a prescribed motion, a drive input
    from_case = engines.run_case(name, "reference", t_end=0.03)
    from_file = engines.run_case(str(MODELS / f"{name}.toml"), "reference", t_end=0.03)
    np.testing.assert_array_equal(from_file.q, from_case.q)
    np.testing.assert_array_equal(from_file.joint_torque, from_case.joint_torque)
    assert from_file.info["case"] == name and from_file.model == from_case.model


def test_command_line_runs_a_model_file(tmp_path, capsys):
    path = str(MODELS / "bien-1link-n1.toml")
    assert cli.main(["run", path, "--engine", "reference", "--t-end", "0.2", "--quiet",
                     "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"model file {path}" in out
    res = cf.Result.from_npz(tmp_path / "bien-1link-n1_reference.npz")
    case = engines.run_case("bien-1link-n1", "reference", t_end=0.2)
    np.testing.assert_array_equal(res.q, case.q)
    assert cli.main(["modes", path, "--n", "2", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "bien-1link-n1_modes.png").stat().st_size > 10_000


def arm_with_everything():
    return cf.PlanarArm(
        [cf.Link.from_material(1.0, 2, E=2e10, I=5.2e-11, rho=7850.0, A=2.5e-5,
                               damping_beta=1e-3),
         cf.Link(0.5, 1, EI=3.0, rho_A=0.4, basis="modes", n_modes=2, thickness=0.02)],
        joints=[cf.RevoluteJoint(hub_inertia=1e-3, angle_offset=0.1), cf.RevoluteJoint()],
        payload=cf.Payload(0.15, 2e-4), hub_inertia=2e-3, gravity=True,
        drives={1: GearDrive(DriveParams.serebrenny2019(theta_b=2e-3))})


def test_written_model_simulates_identically(tmp_path):
    arm = arm_with_everything()
    ins = {"torque": inputs.sine([0.05, 0.0], 2.0, phase=0.3),
           "drive_input": inputs.step(0.8, t_start=0.01)}
    settings = dict(t_end=0.02, dt_out=0.005, q0=[-0.2, 0.4], method="Radau",
                    rtol=1e-7,
                    n_samples=5)
    path = arm.to_file(tmp_path / "arm.toml", inputs=ins, simulation=settings)
    model = read_model(path)
    assert cf.PlanarArm.from_file(path).to_dict() == arm.to_dict()
    first = arm.simulate(**settings, **ins, progress=False)
    again = model.arm.simulate(**model.simulate_kwargs(), progress=False)
    np.testing.assert_array_equal(again.q, first.q)
    np.testing.assert_array_equal(again.extra["drive2_states"], first.extra["drive2_states"])


def test_every_profile_is_rebuilt_from_its_spec(tmp_path):
    table = tmp_path / "u.csv"
    table.write_text("t,a,b\n0,0,1\n1,2,1\n3,2,-1\n")
    made = [inputs.step([1.0, -2.0], 0.5), inputs.pulse(0.3, 2.0),
            inputs.sine(1.5, 0.7, phase=0.2, offset=0.1), inputs.bang_bang([1.0, 2.0], 1.0),
            inputs.spin_up(4.0, 15.0), inputs.table("u.csv", base_dir=str(tmp_path))]
    for p in made:
        again = inputs.profile(p.spec, base_dir=str(tmp_path))
        for t in (-1.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.9, 2.5, 20.0):
            np.testing.assert_array_equal(np.asarray(again(t), dtype=float),
                                          np.asarray(p(t), dtype=float))


def test_profiles_have_the_values_their_docstrings_state(tmp_path):
    assert list(inputs.step(2.0, 1.0)(0.99)) == [0.0] and list(inputs.step(2.0, 1.0)(1.0)) == [2.0]
    assert inputs.sine(2.0, 0.25, offset=1.0)(1.0)[0] == pytest.approx(3.0, abs=1e-15)
    bb = inputs.bang_bang(1.5, 2.0)
    assert [bb(t)[0] for t in (0.0, 0.99, 1.0, 1.99, 2.0)] == [1.5, 1.5, -1.5, -1.5, 0.0]
    (tmp_path / "u.csv").write_text("t,a,b\n0,0,1\n1,2,1\n3,2,-1\n")
    tb = inputs.table("u.csv", base_dir=str(tmp_path))
    np.testing.assert_array_equal(tb(0.5), [1.0, 1.0])        # linear between rows
    np.testing.assert_array_equal(tb(2.0), [2.0, 0.0])
    np.testing.assert_array_equal(tb(-5.0), [0.0, 1.0])       # end values hold outside
    np.testing.assert_array_equal(inputs.table("u.csv", columns=["b"],
                                               base_dir=str(tmp_path))(9.0), [-1.0])


def test_a_python_function_is_an_input(tmp_path):
    (tmp_path / "my_inputs.py").write_text(
        "def torque(t, q, qd):\n    return [0.01 * t - 0.1 * qd[0]]\n")
    path = tmp_path / "m.toml"
    path.write_text(GOOD + '\n[inputs]\ntorque = "my_inputs.py:torque"\n')
    model = read_model(path)
    res = model.arm.simulate(**model.simulate_kwargs(), progress=False)
    direct = model.arm.simulate(**model.simulation, progress=False,
                                torque=lambda t, q, qd: [0.01 * t - 0.1 * qd[0]])
    np.testing.assert_array_equal(res.q, direct.q)
    with pytest.raises(ParameterError) as e:
        inputs.profile("my_inputs.py:nothing", str(tmp_path))
    assert "nothing" in str(e.value)


# -- errors name the file, the key and the line -------------------------------------------

GOOD = """\
description = "one link"
gravity = 0.0

[simulation]
t_end = 0.05
dt_out = 0.01

[[links]]
length = 1.0
n_elements = 2
EI = 2.0
rho_A = 0.5
"""


def line_of(text, needle, nth=1):
    lines = [k + 1 for k, line in enumerate(text.splitlines()) if needle in line]
    return lines[nth - 1]


@pytest.mark.parametrize("edit,key,needle", [
    (lambda s: s + "\n[[links]]\nlength = 0.5\nEI = -1.0\nrho_A = 0.5\n",
     "links[1].EI", ("EI = -1.0", 1)),
    (lambda s: s.replace("n_elements = 2", "n_elemnts = 2"), "links[0].n_elemnts",
     ("n_elemnts", 1)),
    (lambda s: s + "\n[[joints]]\ntype = \"ball\"\n", "joints[0].type", ('type = "ball"', 1)),
    (lambda s: s + "\n[inputs]\ntorque = { profile = \"pulze\", amplitude = 1.0 }\n",
     "inputs.torque.profile", ("pulze", 1)),
    (lambda s: s + "\n[inputs]\ntorque = { profile = \"pulse\", amplitude = 1.0 }\n",
     "inputs.torque.period", ("profile = \"pulse\"", 1)),
    (lambda s: s.replace("dt_out = 0.01", "dt_out = 0.01\nrtoll = 1e-6"), "simulation.rtoll",
     ("rtoll", 1)),
    (lambda s: s.replace('description = "one link"', 'descripton = "one link"'), "descripton",
     ("descripton", 1)),
])
def test_bad_key_or_value_names_file_key_and_line(tmp_path, edit, key, needle):
    text = edit(GOOD)
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ModelFileError) as e:
        read_model(path)
    line = line_of(text, *needle)
    assert e.value.parameter == key and e.value.line == line, str(e.value)
    assert str(e.value).startswith(f"{path}, line {line}: `{key}`")


def test_toml_syntax_error_names_the_line(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(GOOD.replace("EI = 2.0", "EI = 2..0"))
    with pytest.raises(ModelFileError) as e:
        read_model(path)
    assert e.value.line == line_of(GOOD, "EI = 2.0") and "EI = 2..0" in str(e.value)


def test_a_bad_setting_is_named_with_its_line_when_the_run_refuses_it(tmp_path, capsys):
    path = tmp_path / "bad.toml"
    text = GOOD.replace("dt_out = 0.01", "dt_out = 0.01\nrtol = -1.0")
    path.write_text(text)
    assert cli.main(["run", str(path), "--engine", "reference", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}, line {line_of(text, 'rtol')}: `simulation.rtol`" in err, err
    no_end = tmp_path / "no_end.toml"
    no_end.write_text(GOOD.replace("t_end = 0.05\n", ""))
    assert cli.main(["run", str(no_end), "--engine", "reference", "--out", str(tmp_path)]) == 2
    assert "`simulation.t_end` must be given" in capsys.readouterr().err
    assert cli.main(["run", str(no_end), "--engine", "reference", "--t-end", "0.02", "--quiet",
                     "--out", str(tmp_path)]) == 0


def test_key_lines_follow_tables_and_inline_tables():
    text = GOOD + '\n[inputs]\ntorque = { profile = "pulse", amplitude = [1.0], period = 2.0 }\n'
    lines = key_lines(text)
    assert lines["links[0]"] == line_of(text, "[[links]]")
    assert lines["links[0].EI"] == line_of(text, "EI =")
    assert lines["inputs.torque.period"] == lines["inputs.torque"] == line_of(text, "torque =")


def test_an_input_that_is_not_data_cannot_be_written(tmp_path):
    arm = cf.PlanarArm([cf.Link(1.0, 1, EI=1.0, rho_A=1.0)])
    with pytest.raises(ParameterError) as e:
        arm.to_file(tmp_path / "m.toml", inputs={"torque": lambda t, q, qd: [0.0]})
    assert e.value.parameter == "inputs.torque"
    assert list(tmp_path.iterdir()) == []                      # nothing half-written


def test_special_numbers_survive_the_file(tmp_path):
    arm = cf.PlanarArm([cf.Link(1.0, 1, EI=1.0, rho_A=1.0)])
    path = write_model(tmp_path / "m.toml", arm,
                       simulation=dict(t_end=0.1, max_step=math.inf, rtol=1e-300))
    sim = read_model(path).simulation
    assert sim["max_step"] == math.inf and sim["rtol"] == 1e-300


def test_profiles_pickle_as_their_description(tmp_path):
    import pickle

    (tmp_path / "u.csv").write_text("t,a\n0,0\n1,2\n")
    (tmp_path / "f.py").write_text("def u(t):\n    return [3.0 * t]\n")
    for p in (inputs.pulse([0.2, 0.05], 2.0), inputs.spin_up(4.0, 15.0),
              inputs.table("u.csv", base_dir=str(tmp_path)),
              inputs.profile("f.py:u", base_dir=str(tmp_path))):
        again = pickle.loads(pickle.dumps(p))
        assert again.spec == p.spec
        for t in (0.0, 0.5, 1.7):
            np.testing.assert_array_equal(np.asarray(again(t), dtype=float),
                                          np.asarray(p(t), dtype=float))


def test_a_broken_input_module_is_named_not_a_traceback(tmp_path, capsys):
    (tmp_path / "broken.py").write_text("def torque(t, q, qd)\n    return [0.0]\n")
    path = tmp_path / "m.toml"
    text = GOOD + '\n[inputs]\ntorque = "broken.py:torque"\n'
    path.write_text(text)
    assert cli.main(["run", str(path), "--engine", "reference", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}, line {line_of(text, 'torque =')}: `inputs.torque`" in err
    assert "SyntaxError" in err and "Traceback" not in err


def test_toml_writer_round_trips_awkward_values():
    """dumps (tomlkit) and tomllib: strings with quotes, backslashes, newlines and
    non-ASCII letters, keys that need quoting, nan and infinities, numpy scalars and
    arrays, nested and listed tables all read back as written (None left out)."""
    from chrono_flex.planar.model_file import dumps

    try:
        import tomllib
    except ModuleNotFoundError:
        import tomli as tomllib
    data = {"description": 'Kozłowski\'s "arm"\\ \n second line', "version": 1,
            "weird key.with dots": np.float64(0.1), "flag": np.bool_(True),
            "none": None, "nan": math.nan, "big": -math.inf,
            "simulation": {"t_end": np.int64(3), "dt_out": 1e-300,
                           "torque": {"profile": "sine", "amplitude": np.array([0.2, 0.05])}},
            "links": [{"length": 1.0, "EI": [1.0, 2.0], "skip": None},
                      {"length": 0.5, "EI": 3.0}]}
    back = tomllib.loads(dumps(data, header=["a comment", ""]))
    assert math.isnan(back.pop("nan"))
    assert back == {"description": data["description"], "version": 1,
                    "weird key.with dots": 0.1, "flag": True, "big": -math.inf,
                    "simulation": {"t_end": 3, "dt_out": 1e-300,
                                   "torque": {"profile": "sine", "amplitude": [0.2, 0.05]}},
                    "links": [{"length": 1.0, "EI": [1.0, 2.0]}, {"length": 0.5, "EI": 3.0}]}
    with pytest.raises(ParameterError) as e:
        dumps({"simulation": {"f": object()}})
    assert e.value.parameter == "simulation.f"
