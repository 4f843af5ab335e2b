"""Compute the Exudyn references of validation/exudyn/ (one file per problem).

    python3 validation/scripts/exudyn_references.py            # all three
    python3 validation/scripts/exudyn_references.py pendulum   # one

Each problem (chrono_flex.validation.exudyn_refs.PROBLEMS) is run in Exudyn with ANCF
Cable2D elements at the matched resolution, at twice the step (Exudyn's time error) and
with twice the elements (its discretisation error); the results and Exudyn's version go
to validation/exudyn/<problem>.npz. Needs exudyn (pip install -e ".[validation]").
"""

import argparse
from pathlib import Path

import numpy as np

from chrono_flex.validation.exudyn_refs import PROBLEMS, generate

OUT = Path(__file__).resolve().parents[1] / "exudyn"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("problems", nargs="*", default=[],
                    help=f"problems to compute, of {', '.join(PROBLEMS)} (default: all)")
    ap.add_argument("--out", default=str(OUT), help="folder of the .npz files")
    args = ap.parse_args(argv)
    for name in args.problems:
        if name not in PROBLEMS:
            ap.error(f"unknown problem {name!r}; the problems are {', '.join(PROBLEMS)}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in args.problems or PROBLEMS:
        data = generate(name)
        path = out / f"{name}.npz"
        np.savez_compressed(path, **data)
        print(f"wrote {path} (Exudyn {data['exudyn_version']}, {path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
