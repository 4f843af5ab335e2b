"""The reference data of a source checkout's top-level ``validation/`` folder.

The papers' printed tables (``validation/papers/*.csv``) and the results of an
independent code (``validation/exudyn/*.npz``) live beside the package in a source
checkout, not in the installed package. The cases that compare with them find the
folder here; where it is absent (an installed package) they raise
:class:`~chrono_flex.validation.core.Skip` and are reported as skipped with the reason,
while every case that needs no external data runs as before.

The folder is ``<checkout>/validation`` next to ``chrono_flex/``, or the directory named
by the environment variable ``CHRONO_FLEX_VALIDATION_DIR``.
"""

import os
from pathlib import Path

from .core import Skip

#: Environment variable naming the validation data folder (else the checkout's).
ENV = "CHRONO_FLEX_VALIDATION_DIR"


def validation_dir():
    """The ``validation/`` folder (a Path), or None when there is none: the one named by
    ``CHRONO_FLEX_VALIDATION_DIR``, else ``validation/`` beside the package's folder
    when it holds a README.md (a source checkout)."""
    env = os.environ.get(ENV)
    folder = Path(env) if env else Path(__file__).resolve().parents[2] / "validation"
    return folder if (folder / "README.md").is_file() else None


def data_file(relpath):
    """The path of ``validation/<relpath>``; raises Skip naming it when it is absent."""
    folder = validation_dir()
    if folder is None or not (folder / relpath).is_file():
        where = "no validation/ folder" if folder is None else f"{folder} has no {relpath}"
        raise Skip(f"needs a source checkout's validation/ (validation/{relpath}; {where})")
    return folder / relpath


def read_table(relpath):
    """A printed table ``validation/<relpath>``: CSV with a header row, preceded by
    ``#`` lines (its source). Returns (columns {name: list of str}, source lines)."""
    import csv

    path = data_file(relpath)
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    source = [ln.lstrip("# ").rstrip() for ln in lines if ln.startswith("#")]
    rows = list(csv.reader(ln for ln in lines if ln.strip() and not ln.startswith("#")))
    head, body = rows[0], rows[1:]
    for k, r in enumerate(body):
        if len(r) != len(head):
            raise ValueError(f"{path}: row {k + 1} has {len(r)} cells, the header {len(head)}")
    return {h.strip(): [r[i].strip() for r in body] for i, h in enumerate(head)}, source


def read_npz(relpath):
    """``validation/<relpath>`` as a dict of arrays (Skip where it is absent)."""
    import numpy as np

    with np.load(data_file(relpath), allow_pickle=False) as z:
        return {k: z[k] for k in z.files}
