"""Model files: an arm, its inputs and its simulation settings in one TOML file.

The layout (docs/model-files.md)::

    description = "two flexible links ..."      # optional: description, source, engines
    version = 1
    gravity = 0.0                                # the arm's own keys (planar.description)
    [simulation]                                 # PlanarArm.simulate's settings
    t_end = 10.0
    dt_out = 0.02
    [inputs]                                     # torque, joint_motion, drive_input
    torque = { profile = "pulse", amplitude = [0.2, 0.05], period = 2.0 }
    [payload]
    mass = 0.15
    [[links]]                                    # one table per link, in order
    length = 1.0
    ...
    [[joints]]
    type = "revolute"

Files are read with the standard library's ``tomllib`` (``tomli`` before Python 3.11).
An error names the file, the key (``links[1].EI``) and, where the key is in the file,
its line: :class:`~chrono_flex.errors.ModelFileError`. Files are written atomically.
"""

from dataclasses import dataclass, field
import importlib
import inspect
import os
import re

import numpy as np

from .._files import atomic_write
from ..errors import ModelFileError, ParameterError
from ..inputs import profile

try:
    import tomllib
except ModuleNotFoundError:              # Python < 3.11: the same parser, as a package
    import tomli as tomllib

#: Keys of a model file besides the arm's.
META_KEYS = ("description", "source", "engines")

#: The engines a model file may name (those of :mod:`chrono_flex.engines`).
ENGINES = ("reference", "chrono", "chrono-beam")
INPUT_KEYS = ("torque", "joint_motion", "drive_input")
#: Old names of simulation settings a model file may still hold.
OLD_SIMULATION_KEYS = ("joint_angles0", "joint_rates0")


def simulation_keys(cls=None):
    """The keys of ``[simulation]``: the arm class's ``simulate`` arguments but the inputs
    (default PlanarArm's, which also reads the old names ``joint_angles0``,
    ``joint_rates0``, with a DeprecationWarning)."""
    cls = cls or arm_class("planar")
    params = inspect.signature(cls.simulate).parameters.values()
    return tuple(p.name for p in params if p.kind != p.VAR_KEYWORD
                 and p.name not in ("self", "progress") + INPUT_KEYS) + (
        OLD_SIMULATION_KEYS if cls is arm_class("planar") else ())


@dataclass
class ModelFile:
    """A model file, read: the arm, its input profiles and simulation settings.

    Attributes:
        path: the file. name: its stem (the run's name).
        arm: the :class:`~chrono_flex.planar.arm.PlanarArm`.
        inputs: {"torque" | "joint_motion" | "drive_input": a
            :class:`~chrono_flex.inputs.Profile`}.
        simulation: PlanarArm.simulate's keyword arguments from ``[simulation]``.
        description, source: text; engines: the engines it runs on (empty: any).
        lines: key -> line number in the file (for messages).
    """

    path: str
    arm: object
    inputs: dict = field(default_factory=dict)
    simulation: dict = field(default_factory=dict)
    description: str = ""
    source: str = ""
    engines: tuple = ()
    lines: dict = field(default_factory=dict)

    @property
    def name(self):
        return os.path.splitext(os.path.basename(self.path))[0]

    def error(self, key, value, requirement):
        """A ModelFileError for ``key`` with its line (or its table's) in this file."""
        return ModelFileError(self.path, find_line(self.lines, key), key, value, requirement)

    def code(self):
        """{input key: what it runs} for the inputs that name Python code
        ("module:function", "file.py:function"); reading the file imported none of it."""
        return {f"inputs.{k}": p.code() for k, p in self.inputs.items()
                if hasattr(p, "load")}

    def loaded_inputs(self, allow_code=False):
        """The inputs, with the code they name imported: code in a file beside the model
        file or in this package's own modules always, other code (a module, a file
        elsewhere) only with ``allow_code``;
        else a ModelFileError naming the input and what it would run."""
        here = os.path.dirname(os.path.abspath(self.path))
        for k, p in self.inputs.items():
            if not hasattr(p, "load"):
                continue
            if not (allow_code or p.trusted(here)):
                raise self.error(f"inputs.{k}", p.spec, f"would run the {p.code()}, which is "
                                 "not beside the model file: allow it with --allow-code "
                                 "(allow_code=True in Python) if you trust it")
            try:
                p.load()
            except ParameterError as exc:
                raise self.error(f"inputs.{k}", exc.value, exc.requirement) from None
        return dict(self.inputs)

    def simulate_kwargs(self, t_end=None, allow_code=False):
        """The settings and inputs as PlanarArm.simulate's keyword arguments (``t_end``
        replaces the file's); code the inputs name is imported here, under the rule of
        :meth:`loaded_inputs` (``allow_code``)."""
        kw = dict(self.simulation, **self.loaded_inputs(allow_code))
        if t_end is not None:
            kw["t_end"] = t_end
        if "t_end" not in kw:
            raise self.error("simulation.t_end", None, "must be given to run the model")
        return kw

    def located(self, exc):
        """``exc`` (a ParameterError from a run of this model) as a ModelFileError when it
        names a key of ``[simulation]`` or ``[inputs]``; else ``exc`` itself."""
        for table, keys in (("simulation", self.simulation), ("inputs", self.inputs)):
            if isinstance(exc, ParameterError) and exc.parameter in keys:
                return self.error(f"{table}.{exc.parameter}", exc.value, exc.requirement)
        return exc


# -- reading -------------------------------------------------------------------------------
_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-\"' ]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-]+|\"[^\"]*\")\s*=")
_INLINE_KEY = re.compile(r"[{,]\s*([A-Za-z0-9_\-]+)\s*=")


def key_lines(text):
    """{full key: line number} of the keys and table headers in TOML ``text``: "gravity",
    "links[1]", "links[1].EI", "inputs.torque", "inputs.torque.amplitude"."""
    lines, counts, table = {}, {}, ""
    for number, line in enumerate(text.splitlines(), 1):
        m = _HEADER.match(line)
        if m:
            name = m.group(2).strip().strip("\"'")
            if m.group(1) == "[[":
                counts[name] = counts.get(name, -1) + 1
                table = f"{name}[{counts[name]}]"
            else:
                table = name
            lines.setdefault(table, number)
            continue
        m = _KEY.match(line)
        if m:
            key = m.group(1).strip('"')
            full = f"{table}.{key}" if table else key
            lines.setdefault(full, number)
            for sub in _INLINE_KEY.findall(line[m.end():]):
                lines.setdefault(f"{full}.{sub}", number)
    return lines


def find_line(lines, key):
    """The line of ``key``, else of the nearest enclosing key or table; None if none."""
    while key:
        if key in lines:
            return lines[key]
        cut = max(key.rfind("."), key.rfind("["))
        key = key[:cut] if cut > 0 else ""
    return None


def _syntax_line(exc):
    m = re.search(r"line (\d+)", str(exc))
    return int(m.group(1)) if m else getattr(exc, "lineno", None)


def read_model(path):
    """Read the model file at ``path``: a :class:`ModelFile`. ParameterError when the file
    cannot be read; ModelFileError (file, key, line) for bad TOML or a bad value."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as exc:
        raise ParameterError("model", path, f"cannot be read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8-sig")        # a byte-order mark, if any, is dropped
    except UnicodeDecodeError:
        raise ModelFileError(path, None, "model", path, "must be a text file (TOML, UTF-8)") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = _syntax_line(exc)
        shown = text.splitlines()[line - 1].strip() if line and line <= len(text.splitlines()) else ""
        raise ModelFileError(path, line, "TOML", shown, f"is not valid: {exc}") from None
    model = ModelFile(path=path, arm=None, lines=key_lines(text))
    base_dir = os.path.dirname(os.path.abspath(path))
    kind = data.get("kind", "planar")
    try:
        cls = arm_class(kind)
    except ParameterError as exc:
        raise model.error("kind", kind, exc.requirement) from None
    known = set(META_KEYS) | {"inputs", "simulation", "version", "kind"} | set(cls.model_keys)
    for k in data:
        if k not in known:
            raise model.error(k, data[k], f"is not a key of a model file (known: "
                                          f"{', '.join(sorted(known))})")
    for k in ("description", "source"):
        if not isinstance(data.get(k, ""), str):
            raise model.error(k, data[k], "must be a string")
    engines = data.get("engines", [])
    if not isinstance(engines, list) or not all(isinstance(e, str) for e in engines):
        raise model.error("engines", engines, "must be a list of engine names")
    for k, e in enumerate(engines):
        if e not in ENGINES:
            raise model.error("engines", e, f"must name engines among {', '.join(ENGINES)} "
                                            f"(entry {k})")
    model.description, model.source = data.get("description", ""), data.get("source", "")
    model.engines = tuple(engines)
    arm_data = {k: v for k, v in data.items() if k not in META_KEYS + ("inputs", "simulation")}
    try:
        model.arm = arm_from_dict(arm_data)
    except ModelFileError:
        raise
    except ParameterError as exc:
        raise model.error(exc.parameter, exc.value, exc.requirement) from None
    model.simulation = _simulation(model, data.get("simulation", {}))
    model.inputs = _inputs(model, data.get("inputs", {}), base_dir)
    return model


#: The kinds of arm a model file (or a result's ``model``) describes: the class of each,
#: by its import path (the arms import this module for their ``from_file`` and
#: ``to_file``; it finds them by name). Each class has ``from_dict``, ``to_dict``,
#: ``simulate`` and ``model_keys`` (the top-level keys of its description).
ARM_CLASSES = {"planar": "chrono_flex.planar.arm:PlanarArm",
               "spatial": "chrono_flex.spatial.arm:SpatialArm",
               "rrrp": "chrono_flex.formulations.rrrp:RRRPArm"}


def arm_class(kind):
    """The arm class of ``kind`` (:data:`ARM_CLASSES`); ParameterError naming ``kind``."""
    if kind not in ARM_CLASSES:
        raise ParameterError("kind", kind, f"must be one of {tuple(ARM_CLASSES)} "
                                           "(default planar)")
    module, name = ARM_CLASSES[kind].split(":")
    return getattr(importlib.import_module(module), name)


def arm_from_dict(data):
    """The arm described by the plain data ``data`` (``Result.model``, a model file's
    arm): its ``kind`` says which, "planar" (default; :class:`~.arm.PlanarArm`),
    "spatial" (:class:`~chrono_flex.spatial.arm.SpatialArm`) or "rrrp"
    (:class:`~chrono_flex.formulations.rrrp.RRRPArm`)."""
    data = dict(data)
    kind = data.get("kind", "planar")
    cls = arm_class(kind)
    if kind != "spatial":
        data.pop("kind", None)
    return cls.from_dict(data)


def _table(model, key, value):
    if not isinstance(value, dict):
        raise model.error(key, value, "must be a table")
    return value


def _simulation(model, table):
    table = _table(model, "simulation", table)
    keys = simulation_keys(type(model.arm))
    for k, v in table.items():
        if k not in keys:
            raise model.error(f"simulation.{k}", v, f"is not a simulation setting (known: "
                                                    f"{', '.join(keys)})")
    return dict(table)


def _inputs(model, table, base_dir):
    table = _table(model, "inputs", table)
    out = {}
    for k, spec in table.items():
        if k not in INPUT_KEYS:
            raise model.error(f"inputs.{k}", spec, f"is not an input (known: "
                                                   f"{', '.join(INPUT_KEYS)})")
        try:
            out[k] = profile(spec, base_dir, deferred=True)    # no code runs here
        except ParameterError as exc:
            name = f"inputs.{k}" if exc.parameter == "profile" and isinstance(spec, str) \
                else f"inputs.{k}.{exc.parameter}"
            raise model.error(name, exc.value, exc.requirement) from None
    return out


# -- writing -------------------------------------------------------------------------------
def _plain(v, where):
    """``v`` as the plain values tomlkit writes (numpy numbers and arrays as Python ones,
    tuples as lists; None left out of tables); a value TOML cannot hold raises a
    ParameterError naming ``where``."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v)
    if isinstance(v, str):
        return v
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        return [_plain(x, f"{where}[{i}]") for i, x in enumerate(v)]
    if isinstance(v, dict):
        return {str(k): _plain(x, f"{where}.{k}" if where else str(k))
                for k, x in v.items() if x is not None}
    raise ParameterError(where, v, "cannot be written to a model file (numbers, strings, "
                                   "lists and tables only)")


def _inline(v):
    """Dicts inside a table as TOML inline tables (``{ profile = "pulse", ... }``)."""
    import tomlkit

    if isinstance(v, dict):
        table = tomlkit.inline_table()
        table.update({k: _inline(x) for k, x in v.items()})
        return table
    if isinstance(v, list):
        return [_inline(x) for x in v]
    return v


def dumps(data, header=()):
    """TOML text of ``data`` (written by tomlkit): ``header`` lines as comments, then
    top-level values, tables (``[name]``, their nested tables inline), then lists of
    tables (``[[name]]``). None values are left out."""
    import tomlkit

    data = _plain(data, "")
    doc = tomlkit.document()
    for line in header:
        doc.add(tomlkit.comment(line) if line else tomlkit.comment(""))

    def is_tables(v):
        return isinstance(v, list) and v and all(isinstance(x, dict) for x in v)

    for k, v in data.items():
        if not isinstance(v, dict) and not is_tables(v):
            doc.add(k, v)
    for k, v in data.items():
        if isinstance(v, dict):
            table = tomlkit.table()
            for kk, x in v.items():
                table.add(kk, _inline(x))
            doc.add(tomlkit.nl())
            doc.add(k, table)
    for k, v in data.items():
        if is_tables(v):
            tables = tomlkit.aot()
            for item in v:
                table = tomlkit.table()
                for kk, x in item.items():
                    table.add(kk, _inline(x))
                tables.append(table)
            doc.add(tomlkit.nl())
            doc.add(k, tables)
    return tomlkit.dumps(doc)


def model_data(arm, inputs=None, simulation=None, description=None, source=None,
               engines=None):
    """The plain data a model file holds (see :func:`write_model`)."""
    data = {"description": description, "source": source,
            "engines": list(engines) if engines else None}
    arm_data = arm.to_dict()
    data.update({k: v for k, v in arm_data.items() if not isinstance(v, (dict, list))})
    if simulation:
        keys = simulation_keys(type(arm))
        sim = {}
        for k, v in simulation.items():
            if k not in keys:
                raise ParameterError(f"simulation.{k}", v, f"is not a simulation setting "
                                                           f"(known: {', '.join(keys)})")
            sim[k] = v.tolist() if isinstance(v, np.ndarray) else v
        data["simulation"] = sim
    if inputs:
        spec = {}
        for k, p in inputs.items():
            if k not in INPUT_KEYS:
                raise ParameterError(f"inputs.{k}", p, f"is not an input (known: "
                                                       f"{', '.join(INPUT_KEYS)})")
            if p is None:
                continue
            if not hasattr(p, "spec"):
                raise ParameterError(f"inputs.{k}", p, "cannot be written to a model file: "
                                     "give a profile of chrono_flex.inputs (step, pulse, "
                                     "sine, bang_bang, table, spin_up, imported)")
            spec[k] = p.spec
        data["inputs"] = spec
    data.update({k: v for k, v in arm_data.items() if isinstance(v, dict) or
                 (isinstance(v, list) and v)})
    return data


def write_model(path, arm, inputs=None, simulation=None, description=None, source=None,
                engines=None):
    """Write ``arm`` (and optionally its ``inputs``, profiles of :mod:`chrono_flex.inputs`,
    and ``simulation`` settings) as a model file at ``path``, atomically; return ``path``.
    :func:`read_model` reads it back to the same arm, inputs and settings."""
    data = model_data(arm, inputs, simulation, description, source, engines)
    header = ["chrono_flex model file: an arm, its inputs and simulation settings",
              "(docs/model-files.md). Run it: chrono-flex run THIS_FILE"]
    with atomic_write(path, "w") as f:
        f.write(dumps(data, header))
    return path


__all__ = ["ARM_CLASSES", "arm_class", "INPUT_KEYS", "META_KEYS", "ModelFile", "arm_from_dict", "dumps",
           "find_line", "key_lines",
           "model_data", "read_model", "simulation_keys", "write_model"]
