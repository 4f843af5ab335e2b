"""Named scenarios: every configuration of docs/planar-link.md §6, spin-up benchmark, drives.

A :class:`Case` builds a :class:`PlanarArm` and the keyword arguments of
``simulate``; every engine (reference, Chrono custom element, Chrono beams) runs it.

Input profiles the papers do not give numerically (documented choices):

* [B] revolute cases: joint torque tau(t) = tau0 sin(w t)(1 - cos(w t))/2 for t < T,
  then 0 (one smooth accelerate-brake cycle, T = 2 s, w = 2 pi/T; see :func:`pulse`),
  tau0 = 0.1 N m (one link) and (0.2, 0.05) N m (two links), which keep the tip
  deflections at a few percent of the link length. Section I = A^2/12 (solid square,
  docs/planar-link.md eq. (6.1)).
* [B] prismatic case: slider force of the same shape, F0 = 0.5 N, T = 2 s;
  the link stands across the slide axis (link_angle = 90 deg, a gantry arm), so the
  slider's acceleration bends it; slider mass 0.5 kg.
* Kane-Ryan-Banerjee spin-up: hub angle prescribed,
  omega(t) = (Omega/T)(t - (T/2 pi) sin(2 pi t/T)) for t < T, Omega afterwards.
"""

from dataclasses import dataclass
import math

from ..inputs import bang_bang, pulse, spin_up
from ..planar.arm import PlanarArm
from ..errors import ParameterError
from ..planar.params import Link, Payload, PrismaticJoint


@dataclass(frozen=True)
class Case:
    """A named scenario.

    name, description, source: identification. build: callable() -> (PlanarArm, dict of
    simulate() keyword arguments including t_end). engines: the engines that can run it.
    """

    name: str
    description: str
    source: str
    build: object
    engines: tuple = ("reference", "chrono", "chrono-beam")
    tags: tuple = ()
    model_file: object = None
    allow_code: bool = False

    def arm_and_kwargs(self, t_end=None):
        arm, kw = self.build()
        kw = dict(kw)
        if self.model_file is not None:     # the code its inputs name, if trusted
            kw.update(self.model_file.loaded_inputs(self.allow_code))
        if t_end is not None:
            kw["t_end"] = t_end
        if "t_end" not in kw:
            if self.model_file is not None:
                raise self.model_file.error("simulation.t_end", None, "must be given to run "
                                            "the model (or --t-end on the command line)")
            raise ParameterError("t_end", None, f"must be given: case {self.name!r} has none")
        return arm, kw

    def to_file(self, path):
        """Write the case as a model file (docs/model-files.md): its arm, inputs,
        simulation settings, description, source and engines; return ``path``.
        ``chrono-flex run path`` then runs the same as ``chrono-flex run NAME``."""
        from ..planar.model_file import INPUT_KEYS, write_model

        arm, kw = self.arm_and_kwargs()
        inputs = {k: kw.pop(k) for k in INPUT_KEYS if k in kw}
        return write_model(path, arm, inputs, kw, description=self.description,
                           source=self.source, engines=self.engines)


def case_from_file(path, allow_code=False):
    """The :class:`Case` of a model file (named after the file's stem; engines from its
    ``engines`` key, else all). Errors name the file, the key and the line. Reading it
    runs no code; running it imports the code its inputs name under the rule of
    :meth:`~chrono_flex.planar.model_file.ModelFile.loaded_inputs` (``allow_code``)."""
    from ..planar.model_file import read_model

    model = read_model(path)

    def build():
        return model.arm, dict(model.simulation, **model.inputs)
    return Case(model.name, model.description or f"model file {path}", model.source, build,
                engines=model.engines or Case.engines, model_file=model,
                allow_code=bool(allow_code))


def bien_link(L, n):
    """[B] Table 2 section: A = 2.5e-5 m^2, rho = 7850, E = 2e10, I = A^2/12."""
    A = 2.5e-5
    return Link.from_material(L, n, E=2e10, I=A * A / 12, rho=7850.0, A=A)


def kozlowski_link(n=2):
    """[K]: L = 1 m, 5 kg/m, I = 5e-9 m^4, E = 2e11 Pa."""
    return Link(1.0, n, EI=2e11 * 5e-9, rho_A=5.0, thickness=0.01)


def _bien_single(n):
    def build():
        arm = PlanarArm([bien_link(1.0, n)], payload=Payload(0.1))
        return arm, dict(t_end=10.0, torque=pulse(0.1, 2.0), dt_out=0.02)
    return build


def _bien_prismatic():
    arm = PlanarArm([bien_link(1.0, 20)], joints=[PrismaticJoint(slider_mass=0.5)],
                    payload=Payload(0.1))
    return arm, dict(t_end=10.0, torque=pulse(0.5, 2.0), dt_out=0.02)


def _bien_two():
    arm = PlanarArm([bien_link(1.0, 1), bien_link(0.5, 1)], payload=Payload(0.15))
    return arm, dict(t_end=10.0, torque=pulse([0.2, 0.05], 2.0), dt_out=0.02)


def _kozlowski_one():
    arm = PlanarArm([kozlowski_link()], gravity=True)
    return arm, dict(t_end=5.0, q0=[math.radians(-80)], dt_out=0.01)


def _kozlowski_two():
    arm = PlanarArm([kozlowski_link(), kozlowski_link()], gravity=True)
    return arm, dict(t_end=5.0, q0=[math.radians(-90), math.radians(5)],
                     dt_out=0.01)


def krb_link(n=8):
    """Kane-Ryan-Banerjee beam: L = 10 m, rho A = 1.2 kg/m, EI = 1.4e4 N m^2."""
    return Link(10.0, n, EI=1.4e4, rho_A=1.2, thickness=0.05)


def _krb(Omega, stiffening, n=8):
    def build():
        arm = PlanarArm([krb_link(n)], geometric_stiffening=stiffening)
        return arm, dict(t_end=20.0, joint_motion=spin_up(Omega, 15.0), dt_out=0.05)
    return build


CASES = {}


def register(case):
    """Add a Case to the registry (name must be new)."""
    if case.name in CASES:
        raise ParameterError("case.name", case.name, "is already registered")
    CASES[case.name] = case
    return case


for _n in (1, 3, 5, 7):
    register(Case(f"bien-1link-n{_n}", f"[B] single flexible link, revolute joint, {_n} element(s), "
                  "payload 0.1 kg, horizontal plane, torque pulse 0.1 N m over 2 s, 10 s",
                  "Bien & My 2018, Table 2", _bien_single(_n), tags=("paper",)))
register(Case("bien-prismatic", "[B] single flexible link on a prismatic joint, 20 elements, "
              "payload 0.1 kg, force pulse 0.5 N over 2 s, 10 s", "Bien & My 2018, Table 2",
              _bien_prismatic, tags=("paper",)))
register(Case("bien-2link", "[B] two flexible links, one element each, payload 0.15 kg, "
              "torque pulses (0.2, 0.05) N m over 2 s, 10 s", "Bien & My 2018, Table 2",
              _bien_two, tags=("paper",)))
register(Case("kozlowski-1link", "[K] flexible pendulum under gravity, 2 elements, released "
              "at -80 deg, 5 s", "Kozlowski 1994", _kozlowski_one, tags=("paper",)))
register(Case("kozlowski-2link", "[K] flexible double pendulum under gravity, 2 elements per "
              "link, released at (-90, 5) deg, 5 s", "Kozlowski 1994", _kozlowski_two,
              tags=("paper",)))
for _Om in (4.0, 6.0, 10.0):
    register(Case(f"spinup-{_Om:g}", f"Kane-Ryan-Banerjee spin-up to {_Om:g} rad/s in 15 s, "
                  "the papers' linear model (no geometric stiffening)",
                  "Kane, Ryan & Banerjee 1987", _krb(_Om, False), tags=("spinup",)))
    register(Case(f"spinup-{_Om:g}-stiffening", f"Kane-Ryan-Banerjee spin-up to {_Om:g} rad/s, "
                  "with geometric stiffening", "Kane, Ryan & Banerjee 1987", _krb(_Om, True),
                  tags=("spinup",)))

def voltage_pulse(volts, period):
    """u(t) = +V for t < T/2, -V for T/2 <= t < T, then 0 (accelerate, brake, coast): the
    ``bang-bang`` profile of :mod:`chrono_flex.inputs`."""
    return bang_bang(volts, period)


def _drive_link():
    from ..drive import DriveParams, GearDrive

    drive = GearDrive(DriveParams.serebrenny2019())
    arm = PlanarArm([bien_link(1.0, 3)], payload=Payload(0.1), drives={0: drive})
    return arm, dict(t_end=3.0, drive_input=voltage_pulse(1.5, 2.0), dt_out=0.005)


register(Case("drive-bien-1link", "[B] single flexible link (3 elements) driven through the [S] "
              "gear drive (DC motor, backlash, modified LuGre): +-1.5 V pulse over 2 s, 3 s",
              "Bien & My 2018 + Serebrenny et al. 2019", _drive_link,
              engines=("reference", "chrono"), tags=("drive",)))

DEFAULT_CASE = "bien-2link"


#: Where the built-in cases are written as model files (:func:`write_case_files`).
MODEL_FILE_SUFFIX = ".toml"


def get(name, allow_code=False):
    """The Case called ``name``, or the model file ``name`` when it ends with ".toml" or
    is no case's name but an existing file (read as a model file, which names the file
    in its errors; :func:`case_from_file`); ParameterError listing the names otherwise."""
    import os

    if isinstance(name, str) and (name.endswith(MODEL_FILE_SUFFIX)
                                  or (name not in CASES and os.path.isfile(name))):
        return case_from_file(name, allow_code)
    if name not in CASES:
        raise ParameterError("case", name, f"is not a known case; known: {', '.join(sorted(CASES))}")
    return CASES[name]


def all_cases():
    """Name -> Case of every registered scenario."""
    return dict(CASES)


def write_case_files(directory):
    """Write every registered case as ``directory/<name>.toml``; return the paths."""
    import os

    os.makedirs(directory, exist_ok=True)
    return [case.to_file(os.path.join(directory, name + MODEL_FILE_SUFFIX))
            for name, case in sorted(CASES.items())]
