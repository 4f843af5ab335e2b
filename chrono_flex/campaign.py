"""Campaigns: parameter sweeps and the validation suite spread over Dask workers.

``chrono-flex sweep MODEL --vary KEY=V1,V2,... [--vary ...] --out DIR`` runs the
cartesian product of the varied values of a model (a model file or a built-in case,
docs/model-files.md); ``chrono-flex validate --parallel [N]`` runs the validation cases
on N workers (docs/campaigns.md).

Both use ``dask.distributed`` (the optional ``dist`` extra): by default a LocalCluster
on this machine (one process per worker, one thread each, so that runs do not share an
interpreter), or the cluster whose scheduler is at ``scheduler``. Without Dask a sweep
runs serially and says so; ``--parallel`` says what is missing.

A sweep writes into DIR, atomically (:mod:`chrono_flex._files`):

    runs/run-000.toml ...   the model file of each run (the varied keys set)
    runs/run-000.npz ...    each run's Result (Result.to_npz: model and engine kept)
    summary.csv, summary.json   one row per run: the varied keys, status, error, the
                                first natural frequency (joints locked), final joint
                                coordinates, peak tip deflection, wall time
    summary.png                 those against the first varied key (viz.sweep)

A run that fails is a row with status "failed" and its error; the others go on.
"""

import csv
import itertools
import json
import logging
import math
import os
import re
import time

from ._files import atomic_write, check_output_dir
from .errors import ParameterError

#: What to install for the parallel campaigns (named in messages).
DIST_EXTRA = "pip install 'chrono_flex[dist]' (dask[distributed])"

#: How long to try to reach a scheduler given by its address.
CONNECT_TIMEOUT = "20s"

#: A link's product keys and the factors a model may give beside them: varying the
#: product drops the factors from that link (else they would contradict it).
DERIVED = {"EI": ("E", "I"), "rho_A": ("rho", "A")}

_PART = re.compile(r"^([A-Za-z_][A-Za-z0-9_\-]*)(?:\[(\d+)\])?$")


def dask_status():
    """(True, "") when dask.distributed imports, else (False, the reason)."""
    try:
        import dask.distributed  # noqa: F401
    except ImportError as exc:
        return False, f"dask.distributed is not installed ({exc}); {DIST_EXTRA}"
    return True, ""


def require_dask(option, value=None):
    """Raise a ParameterError naming ``option`` (given ``value``) when dask.distributed
    is missing."""
    ok, why = dask_status()
    if not ok:
        raise ParameterError(option, value, f"needs the optional 'dist' extra: {why}")


# -- the varied values ---------------------------------------------------------------------
def _split_top(text):
    """Split ``text`` at commas outside brackets and quotes."""
    parts, depth, quote, cur = [], 0, None, ""
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        cur += ch
    parts.append(cur.strip())
    return parts


def parse_value(key, text):
    """One value of ``--vary``: a TOML value (number, true/false, "string", [list]);
    a bare word is taken as a string. ParameterError naming the key otherwise."""
    from .planar.model_file import tomllib

    if not text:
        raise ParameterError(f"--vary {key}", text, "has an empty value")
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        if re.match(r"^[A-Za-z_][A-Za-z0-9_.:\-]*$", text):
            return text
        raise ParameterError(f"--vary {key}", text, "is not a value (a number, true/false, "
                                                    "a \"string\" or a [list])") from None


def parse_vary(spec):
    """``"links[0].EI=1,2,4"`` -> ("links[0].EI", [1, 2, 4])."""
    key, sep, values = spec.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ParameterError("--vary", spec, "must be KEY=V1,V2,... (e.g. payload.mass=0.1,0.2)")
    key_path(key)
    vals = [parse_value(key, v) for v in _split_top(values)]
    return key, vals


def key_path(key):
    """``links[0].EI`` -> [("links", 0), ("EI", None)]; ParameterError for a malformed key."""
    out = []
    for part in key.split("."):
        m = _PART.match(part.strip())
        if not m:
            raise ParameterError("--vary", key, "is not a key (e.g. payload.mass, "
                                                "links[0].EI, simulation.t_end)")
        out.append((m.group(1), None if m.group(2) is None else int(m.group(2))))
    return out


def set_key(data, key, value):
    """Set ``key`` (dotted, with [i] indices) in the model data ``data`` to ``value``.
    Tables and list entries on the way must exist (a missing [simulation] or [payload]
    table is created); the last key may be new (read_model then checks it). Setting a
    link's ``EI`` (``rho_A``) drops its ``E`` and ``I`` (``rho`` and ``A``)."""
    path = key_path(key)
    node = data
    for depth, (name, index) in enumerate(path):
        last = depth == len(path) - 1
        if not isinstance(node, dict):
            raise ParameterError("--vary", key, f"is not a key of the model: "
                                                f"{'.'.join(p for p, _ in path[:depth])} "
                                                f"is a value, not a table")
        if index is not None:
            items = node.get(name)
            if not isinstance(items, list):
                raise ParameterError("--vary", key, f"is not a key of the model: it has no "
                                                    f"list {name!r} (known: {', '.join(sorted(node))})")
            if index >= len(items):
                raise ParameterError("--vary", key, f"is not a key of the model: {name} has "
                                                    f"{len(items)} entries (0..{len(items) - 1})")
            if last:
                items[index] = value
            else:
                node = items[index]
        elif last:
            node[name] = value
            for part in DERIVED.get(name, ()):   # the varied product wins over its factors
                node.pop(part, None)
        else:
            if name not in node and depth == 0 and name in ("simulation", "payload", "plane",
                                                            "inputs"):
                node[name] = {}
            if not isinstance(node.get(name), dict):
                raise ParameterError("--vary", key, f"is not a key of the model: no table "
                                                    f"{name!r} (known: {', '.join(sorted(node))})")
            node = node[name]
    return data


# -- the model -----------------------------------------------------------------------------
def model_source(model):
    """(name, plain data of the model file, its directory) of a model file or a case."""
    from . import scenarios
    from .planar.model_file import INPUT_KEYS, model_data, read_model, tomllib

    if isinstance(model, str) and model.endswith(".toml"):
        read_model(model)                  # a bad file is named with its key and line first
        with open(model, "rb") as f:
            data = tomllib.load(f)
        return (os.path.splitext(os.path.basename(model))[0], data,
                os.path.dirname(os.path.abspath(model)))
    case = scenarios.get(model)
    arm, kw = case.arm_and_kwargs()
    inputs = {k: kw.pop(k) for k in INPUT_KEYS if k in kw}
    data = model_data(arm, inputs, kw, description=case.description, source=case.source,
                      engines=case.engines)
    return case.name, {k: v for k, v in data.items() if v is not None}, os.getcwd()


def plan(varies):
    """The runs of a sweep: a list of {key: value} (cartesian product of ``varies``, a
    list of (key, values)); ParameterError when a key is given twice."""
    keys = [k for k, _ in varies]
    for k in keys:
        if keys.count(k) > 1:
            raise ParameterError("--vary", k, "is given more than once")
    return [dict(zip(keys, combo)) for combo in itertools.product(*(v for _, v in varies))]


def _relocate_inputs(data, base_dir, runs_dir):
    """Table inputs name a CSV relative to the model file: make them relative to the
    run's model file in ``runs_dir`` instead."""
    for spec in (data.get("inputs") or {}).values():
        if isinstance(spec, dict) and isinstance(spec.get("file"), str) \
                and not os.path.isabs(spec["file"]):
            spec["file"] = os.path.relpath(os.path.join(base_dir, spec["file"]),
                                           os.path.abspath(runs_dir))


def write_runs(model, varies, out):
    """Write the model file of every run into ``out/runs``; return (name, runs), runs a
    list of dicts (index, params, model path, npz path). Every run's model is read back
    before any run starts: a bad key or value is a ParameterError naming it."""
    import copy

    from .planar.model_file import dumps, read_model

    name, data, base_dir = model_source(model)
    runs_dir = check_output_dir("--out", os.path.join(out, "runs"))
    runs = []
    for i, params in enumerate(plan(varies)):
        d = copy.deepcopy(data)
        _relocate_inputs(d, base_dir, runs_dir)
        for k, v in params.items():
            set_key(d, k, v)
        stem = os.path.join(runs_dir, f"run-{i:03d}")
        try:
            text = dumps(d, [f"{name}, sweep run {i}: " +
                             ", ".join(f"{k} = {v!r}" for k, v in params.items())])
        except ParameterError as exc:
            raise ParameterError(f"--vary {exc.parameter}", exc.value, exc.requirement) from None
        with atomic_write(stem + ".toml", "w") as f:
            f.write(text)
        try:
            read_model(stem + ".toml")
        except ParameterError as exc:      # the file's key: one of the varied ones, or not
            raise ParameterError(f"--vary {exc.parameter}", exc.value,
                                 f"{exc.requirement} (run {i}: "
                                 + ", ".join(f"{k}={v!r}" for k, v in params.items()) + ")") \
                from None
        runs.append(dict(index=i, params=params, model=stem + ".toml", npz=stem + ".npz",
                         sweep_of=name))
    return name, runs


# -- one run -------------------------------------------------------------------------------
def run_one(run, engine="reference", t_end=None):
    """Run one sweep entry (a dict from :func:`write_runs`) and save its Result; return
    its summary row. Any error is caught and returned as a failed row (on a worker too)."""
    import numpy as np

    from . import engines, scenarios
    from .planar.modes import eigenmodes
    from .stepping import quiet

    row = dict(run=run["index"], **{k: v for k, v in run["params"].items()},
               status="ok", error="", wall_s=math.nan, npz=os.path.basename(run["npz"]))
    t0 = time.perf_counter()
    try:
        case = scenarios.get(run["model"])
        try:
            w2, _ = eigenmodes(case.build()[0], 1, joints="locked")
            row["f1_locked_hz"] = float(np.sqrt(w2[0]) / (2 * np.pi))
        except ParameterError:          # no vibration mode (rigid links): an empty cell
            row["f1_locked_hz"] = math.nan
        with quiet(True):
            res = engines.run_case(case, engine, t_end=t_end)
        res.info["sweep"] = dict(model=run.get("sweep_of"), run=run["index"],
                                 params=run["params"])
        res.to_npz(run["npz"])
    except Exception as exc:  # a failed run is recorded, the others go on
        row.update(status="failed", error=f"{type(exc).__name__}: {exc}", npz="")
    else:
        for j, a in enumerate(res.joint_angles[-1]):
            row[f"joint{j + 1}_final"] = float(a)
        for i in range(res.n_links):
            row[f"peak_tip_deflection{i + 1}"] = float(abs(res.tip_deflection[:, i]).max())
    row["wall_s"] = round(time.perf_counter() - t0, 4)
    return row


# -- the cluster ---------------------------------------------------------------------------
def client(n_workers=None, scheduler=None):
    """A dask.distributed Client: to ``scheduler`` (an address) when given, else to a new
    LocalCluster of ``n_workers`` processes (default: the cores) of one thread each.
    Close it (and its cluster) with :func:`close`."""
    from dask.distributed import Client, LocalCluster

    if scheduler:
        try:
            return Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as exc:
            raise ParameterError("--scheduler", scheduler, f"cannot be reached ({exc})") from None
    n = n_workers or os.cpu_count() or 1
    cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=logging.ERROR)
    return Client(cluster)


def close(c):
    cluster = c.cluster if hasattr(c, "cluster") else None
    c.close()
    if cluster is not None:
        cluster.close()


def map_gather(c, fn, items, **kwargs):
    """``[fn(x, **kwargs) for x in items]`` on the cluster's workers, in order. A task that
    raises (a worker died) gives its exception in its place."""
    futures = c.map(fn, items, pure=False, **kwargs)
    out = []
    for f in futures:
        try:
            out.append(f.result())
        except Exception as exc:  # the worker went away or the task could not run
            out.append(exc)
    return out


# -- the sweep -----------------------------------------------------------------------------
def sweep(model, varies, out, engine="reference", t_end=None, parallel=True, n_workers=None,
          scheduler=None, log=print):
    """Run a sweep (see the module's text); return the summary rows. ``varies``: a list of
    (key, values) or of "KEY=V1,V2" strings. ``parallel``: on Dask (a LocalCluster of
    ``n_workers``, or ``scheduler``); without Dask it runs serially and ``log`` says so."""
    from . import engines

    varies = [parse_vary(v) if isinstance(v, str) else (v[0], list(v[1])) for v in varies]
    if not varies:
        raise ParameterError("--vary", None, "must be given at least once (KEY=V1,V2,...)")
    engine = engines.resolve(engine)
    out = check_output_dir("--out", out)
    name, runs = write_runs(model, varies, out)
    use_dask = parallel or scheduler
    if use_dask and not dask_status()[0]:
        if scheduler:
            require_dask("--scheduler", scheduler)
        log(f"note: running the {len(runs)} runs one after the other: {dask_status()[1]}")
        use_dask = False
    t0 = time.perf_counter()
    if use_dask:
        c = client(n_workers, scheduler)
        try:
            rows = map_gather(c, run_one, runs, engine=engine, t_end=t_end)
        finally:
            close(c)
        rows = [r if isinstance(r, dict) else
                dict(run=run["index"], **run["params"], status="failed",
                     error=f"{type(r).__name__}: {r}", wall_s=math.nan, npz="")
                for run, r in zip(runs, rows)]
    else:
        rows = [run_one(run, engine, t_end) for run in runs]
    wall = time.perf_counter() - t0
    paths = write_summary(rows, out)
    from .viz.sweep import plot_sweep

    fig_path = os.path.join(out, "summary.png")
    plot_sweep(rows, [k for k, _ in varies], fig_path, title=f"{name}: sweep on {engine}")
    paths = (*paths, fig_path)
    n_fail = sum(r["status"] != "ok" for r in rows)
    log(f"{name}: {len(rows)} runs on {engine} ({len(rows) - n_fail} ok, {n_fail} failed) "
        f"in {wall:.1f} s wall")
    for p in paths:
        log(f"wrote {p}")
    return rows


def _columns(rows):
    cols = []
    for r in rows:
        cols += [k for k in r if k not in cols]
    return cols


def _cell(v):
    if isinstance(v, float) and math.isnan(v):
        return ""
    if isinstance(v, (list, dict)):
        return json.dumps(v)
    return v


def write_summary(rows, out):
    """summary.csv and summary.json in ``out``, atomically; return their paths."""
    cols = _columns(rows)
    csv_path, json_path = os.path.join(out, "summary.csv"), os.path.join(out, "summary.json")
    with atomic_write(csv_path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for r in rows:
            w.writerow([_cell(r.get(k, "")) for k in cols])
    safe = [{k: (None if isinstance(v, float) and not math.isfinite(v) else v)
             for k, v in r.items()} for r in rows]
    with atomic_write(json_path, "w") as f:
        json.dump(safe, f, indent=1)
    return csv_path, json_path


# -- the validation suite ------------------------------------------------------------------
def _validate_one(name, engines=None):
    from .validation.core import select
    from .validation.running import run_cases

    import cloudpickle

    case = [c for c in select(None, engines) if c.name == name]
    rows, outcomes = run_cases(case, progress=False)
    outcome = outcomes.get(name)
    try:                    # the outcome draws the report's figure; the verdict must not
        cloudpickle.dumps(outcome)          # depend on whether it can travel back
    except Exception as exc:  # an object that cannot be sent: the row says so
        rows[0]["message"] = (rows[0]["message"] + "; " if rows[0]["message"] else "") + \
            f"no report figure from the worker ({type(exc).__name__})"
        outcome = None
    return rows[0], outcome


def run_cases_parallel(cases, n_workers=None, scheduler=None, engines=None, log=None):
    """The validation ``cases`` run one per task on Dask workers; returns (rows, outcomes)
    as :func:`chrono_flex.validation.running.run_cases` does, in the cases' order."""
    c = client(n_workers, scheduler)
    try:
        if log:
            log(f"running {len(cases)} validation cases on "
                f"{len(c.scheduler_info().get('workers', {}))} Dask workers")
        results = map_gather(c, _validate_one, [case.name for case in cases], engines=engines)
    finally:
        close(c)
    rows, outcomes = [], {}
    for case, r in zip(cases, results):
        if isinstance(r, Exception):
            rows.append(dict(name=case.name, kind=case.kind, quantity=case.quantity,
                             metric=case.metric, tolerance=case.tolerance,
                             tolerance_text=case.tolerance_text(), reason=case.reason,
                             engines=list(case.engines), needs_pychrono=case.needs_pychrono,
                             source=case.source, value=None, passed=False, status="error",
                             seconds=0.0, message=f"worker: {type(r).__name__}: {r}"))
            continue
        rows.append(r[0])
        if r[1] is not None:
            outcomes[case.name] = r[1]
    return rows, outcomes


__all__ = ["DIST_EXTRA", "dask_status", "parse_vary", "require_dask", "run_cases_parallel",
           "run_one", "set_key", "sweep", "write_summary"]
