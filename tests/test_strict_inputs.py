"""Strict types and errors that name the culprit.

Text and booleans are not numbers (no implicit typing, in the API, model files and the
values callbacks return); a plane's axes must be perpendicular, not made so; callbacks
see the state read-only; a section function's own exception, a badly graded mesh and a
load the static solver cannot carry are each refused naming the parameter and value.
"""

import numpy as np
import pytest

import chrono_flex as cf
from chrono_flex import engines
from chrono_flex.errors import ModelFileError, ParameterError, SimulationError
from chrono_flex.planar import model_file
from chrono_flex.planar.model_file import read_model

ARM_FILE = """\
[[links]]
length = 1.0
n_elements = 2
EI = {EI}
rho_A = 0.5
"""


@pytest.fixture(scope="module")
def arm():
    return cf.PlanarArm([cf.Link(1.0, 2, EI=10.0, rho_A=0.5)])


def assert_names(exc, name, value):
    text = str(exc)
    assert f"`{name}`" in text and repr(value) in text, text


@pytest.mark.parametrize("build,name,value", [
    (lambda: cf.Link(1.0, 2, EI="1.04", rho_A=0.5), "EI", "1.04"),
    (lambda: cf.Link(1.0, 2, EI=1.0, rho_A=True), "rho_A", True),
    (lambda: cf.Payload(mass="0.1"), "mass", "0.1"),
    (lambda: cf.Plane(origin=("0", 0, 0)), "origin", ("0", 0, 0)),
    (lambda: cf.Plane(x_axis=[True, False, False]), "x_axis", [True, False, False]),
])
def test_text_and_booleans_are_not_numbers(build, name, value):
    with pytest.raises(ParameterError) as e:
        build()
    assert_names(e.value, name, value)


@pytest.mark.parametrize("kw,name", [(dict(q0="0"), "q0"),
                                     (dict(qd0=[True]), "qd0"),
                                     (dict(t_end="1"), "t_end")])
def test_simulate_refuses_text_and_booleans(arm, kw, name):
    args = dict(t_end=0.01)
    args.update(kw)
    with pytest.raises(ParameterError) as e:
        arm.simulate(**args)
    assert_names(e.value, name, kw[name])


def test_model_file_value_in_quotes_is_refused_with_key_and_line(tmp_path):
    path = tmp_path / "arm.toml"
    path.write_text(ARM_FILE.format(EI='"1.04"'))
    with pytest.raises(ModelFileError) as e:
        read_model(path)
    assert e.value.line == 4 and e.value.parameter == "links[0].EI", str(e.value)
    assert "'1.04'" in str(e.value)


def test_unknown_engine_in_a_model_file_is_named_with_its_line(tmp_path):
    path = tmp_path / "arm.toml"
    path.write_text('engines = ["reference", "warp-drive"]\n' + ARM_FILE.format(EI=1.0))
    with pytest.raises(ModelFileError) as e:
        read_model(path)
    assert e.value.line == 1 and e.value.parameter == "engines"
    assert "'warp-drive'" in str(e.value)


def test_model_file_engines_are_the_engines():
    assert model_file.ENGINES == engines.ENGINES


def test_model_file_with_byte_order_mark_is_read(tmp_path):
    path = tmp_path / "arm.toml"
    path.write_bytes(b"\xef\xbb\xbf" + ARM_FILE.format(EI=2.5).encode())
    assert read_model(path).arm.links[0].EI == 2.5


def test_model_file_without_suffix_is_recognised(tmp_path):
    from chrono_flex import scenarios

    path = tmp_path / "good.txt"
    path.write_text(ARM_FILE.format(EI=2.5) + "[simulation]\nt_end = 0.1\n")
    assert scenarios.get(str(path)).arm_and_kwargs(None)[0].links[0].EI == 2.5
    with pytest.raises(ParameterError) as e:            # neither a case nor a file
        scenarios.get(str(tmp_path / "missing.txt"))
    assert "is not a known case" in str(e.value)


def test_plane_axes_must_be_perpendicular():
    with pytest.raises(ParameterError) as e:
        cf.Plane(y_axis=(1, 1, 0))
    assert_names(e.value, "y_axis", (1, 1, 0))
    assert "0.707" in str(e.value)                       # the cosine between them
    p = cf.Plane(x_axis=(0.0, 0.0, 2.0), y_axis=(1.0, 1.0, 0.0))   # unit length is made
    np.testing.assert_allclose(p.y_axis, np.array([1.0, 1.0, 0.0]) / np.sqrt(2), rtol=0,
                               atol=1e-15)               # round-off of the division


@pytest.mark.parametrize("out,kind", [([True], ParameterError), (True, ParameterError),
                                      (["1"], ParameterError), ([1e300], SimulationError),
                                      ([-1e200], SimulationError)])
def test_torque_callback_results_are_checked(arm, out, kind):
    with pytest.raises(kind) as e:
        arm.simulate(t_end=0.01, torque=lambda t, q, qd: out)
    assert "`torque`" in str(e.value) and "t = 0" in str(e.value), str(e.value)


def test_callbacks_see_the_state_read_only(arm):
    def torque(t, q, qd):
        q[0] = 5.0                          # would corrupt the integrator's state
        return [0.0]

    with pytest.raises(SimulationError) as e:
        arm.simulate(t_end=0.01, torque=torque)
    assert "`torque`" in str(e.value) and "read-only" in str(e.value), str(e.value)
    seen = []
    arm.simulate(t_end=0.01, dt_out=0.01, torque=lambda t, q, qd: seen.append(q.copy())
                 or [0.0])
    assert seen and all(np.all(np.isfinite(s)) for s in seen)


def test_section_function_exception_is_wrapped_naming_the_parameter():
    with pytest.raises(ParameterError) as e:
        cf.Link(1.0, 2, EI=lambda x: 1 / 0, rho_A=0.5)
    assert "`EI`" in str(e.value) and "ZeroDivisionError" in str(e.value)
    assert isinstance(e.value.__cause__, ZeroDivisionError)
    with pytest.raises(ParameterError) as e:
        cf.Link(1.0, 2, EI=1.0, rho_A=lambda x: "0.5")
    assert "`rho_A`" in str(e.value) and "'0.5'" in str(e.value)


def test_element_length_ratio_is_refused_with_the_ratio():
    with pytest.raises(ParameterError) as e:
        cf.Link(1.0, element_lengths=[1e-9, 1 - 1e-9], EI=1.0, rho_A=0.5)
    assert "`element_lengths`" in str(e.value) and "1e+09" in str(e.value)
    cf.Link(1.0, element_lengths=[0.001, 0.999], EI=1.0, rho_A=0.5)   # 999: accepted


def test_static_deflection_under_an_impossible_load_names_it(arm):
    q = arm.static_deflection(tip_force=(0.0, 0.01))
    # a small load: the Hermite element's tip deflection is the beam's P L^3 / (3 EI)
    assert q[arm.elastic_index][-2] == pytest.approx(0.01 / (3 * 10.0), rel=1e-6)
    with pytest.raises(ParameterError) as e:
        arm.static_deflection(tip_force=(0.0, 1e9))
    assert "`tip_force`" in str(e.value) and "1000000000.0" in str(e.value)
