"""Run every named drive scenario (docs/drive.md §7) and save its figure.

Expected: presliding loops of ~5e-4 rad for the dynamic friction and a nearly vertical
line for the static one ([S] Fig. 7); a Stribeck drop from 0.0467 to 0.0405 N m with a
frictional-lag loop ([S] Fig. 8); stick-slip with breakaway at the static force 1.5 N
(Canudas de Wit et al. 1995); a 12 V step reaching ~9.22 rad/s.

Run as a script (``python examples/drive_scenarios.py [DIR]``) to write one figure per
scenario, ``<scenario>.png``, into DIR (default: the current directory); each path is
printed.
"""

import os
import sys

from chrono_flex.scenarios import DRIVE_SCENARIOS as SCENARIOS

results = {}


def output_path(name):
    """Where the script writes ``name``: the directory given as its first argument, else
    the current directory (made if missing), as an absolute path to print."""
    folder = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.getcwd())
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, name)

if __name__ == "__main__":
    for name, (description, run) in SCENARIOS.items():
        results[name] = run()
        print(results[name].summary())
        path = output_path(f"{name}.png")
        results[name].plot(path)
        print(f"wrote {path}\n")
