"""MkDocs hook: the gallery of examples (``gallery/index.md``), with the figures of the
quick examples produced while the site builds.

Each script of ``examples/`` gets a section: its docstring (the problem and the expected
result), what it prints and the figures it writes. Examples that need PyChrono, or that
take too long for a docs build (``SLOW``), are not run; their section says so and shows
a figure committed under ``docs/gallery/`` if there is one (``<stem>*.png``). The others
run, two at a time, each as ``python examples/NAME.py OUTDIR`` in a scratch directory;
one that fails stops the build with its error output. Their outputs are kept under
``.cache/docs-gallery/`` keyed by the example's and the package's sources, so a rebuild
with nothing changed does not rerun them (``CHRONO_FLEX_DOCS_RERUN=1`` reruns anyway).
"""

import ast
import concurrent.futures
import hashlib
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
COMMITTED = REPO / "docs" / "gallery"
CACHE = REPO / ".cache" / "docs-gallery"

#: Examples left out of the docs build for their run time (stem -> reason shown).
SLOW = {"spatial_rrrp": "about 35 s of CPU for its 5 s slew under gravity (rtol 1e-7)",
        "control_servo_limit_cycle": "about two minutes of CPU for its four servos",
        "control_servo_hunting": "several minutes of CPU for its five servos and its map",
        "screw_spatial_tree": "about 30 s of CPU for two exact mixed problems (Radau)"}

NEEDS_PYCHRONO = re.compile(r"^\s*(import pychrono|from pychrono|from chrono_flex\.chrono\b|"
                            r"import chrono_flex\.chrono\b)", re.M)

FIGURE_SUFFIXES = (".png", ".gif", ".svg")


def examples():
    """(stem, path) of every example script, in name order."""
    return [(p.stem, p) for p in sorted(EXAMPLES.glob("*.py"))]


def why_not_run(stem, source):
    """None if the example runs in the docs build, else the reason shown on its page."""
    if NEEDS_PYCHRONO.search(source):
        return "needs PyChrono"
    if stem in SLOW:
        return f"too slow for a docs build: {SLOW[stem]}"
    return None


def _key(source):
    digest = hashlib.sha256(source.encode())
    for path in sorted((REPO / "chrono_flex").rglob("*.py")):
        digest.update(path.read_bytes())
    digest.update(sys.version.encode())
    return digest.hexdigest()[:16]


def run_example(stem, path):
    """Run one example into its cache directory (reused when its key matches); return
    the directory, holding ``stdout.txt`` and the figures."""
    source = path.read_text(encoding="utf-8")
    out = CACHE / f"{stem}-{_key(source)}"
    if (out / "stdout.txt").exists() and not os.environ.get("CHRONO_FLEX_DOCS_RERUN"):
        return out
    for old in CACHE.glob(f"{stem}-*"):
        shutil.rmtree(old, ignore_errors=True)
    scratch = pathlib.Path(tempfile.mkdtemp(prefix=f"gallery-{stem}-"))
    # this checkout's package, whatever else is installed: the site documents this source
    pythonpath = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=pythonpath)
    try:
        proc = subprocess.run([sys.executable, str(path), str(scratch)], cwd=scratch, env=env,
                              capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            raise PluginError(f"examples/{path.name} failed (exit {proc.returncode}):\n"
                              + proc.stderr[-3000:])
        text = proc.stdout.replace(str(scratch) + os.sep, "").replace(str(scratch), ".")
        (scratch / "stdout.txt").write_text(text, encoding="utf-8")
        CACHE.mkdir(parents=True, exist_ok=True)
        shutil.copytree(scratch, out)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return out


def _docstring(source):
    doc = ast.get_docstring(ast.parse(source)) or ""
    title, _, body = doc.partition("\n\n")
    body = re.sub(r":(?:class|func|meth|mod|attr|data):`~?([^`]+)`", r"`\1`", body)
    return " ".join(title.split()), body.replace("``", "`")


def _section(stem, path, source, ran, figures):
    title, body = _docstring(source)
    lines = [f"## {stem}\n", f"**{title}**\n",
             f"Source: `examples/{path.name}`; run it as `python examples/{path.name} [DIR]`.\n",
             body + "\n"]
    if ran is not None:
        printed = (ran / "stdout.txt").read_text(encoding="utf-8").strip()
        if printed:
            lines.append("What it printed when this site was built:\n")
            lines.append("```text\n" + printed + "\n```\n")
    for uri in figures:
        lines.append(f"![{stem}: {pathlib.PurePosixPath(uri).name}]({pathlib.PurePosixPath(uri).name})\n")
    return "\n".join(lines)


def on_files(files, config):
    todo, skipped = {}, {}
    for stem, path in examples():
        reason = why_not_run(stem, path.read_text(encoding="utf-8"))
        (skipped.__setitem__(stem, reason) if reason else todo.__setitem__(stem, path))
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        done = dict(zip(todo, pool.map(lambda item: run_example(*item), todo.items())))

    sections = ["# Examples\n",
                "The scripts of `examples/`, each opening with the problem it solves and the "
                "answer to expect. The examples below that run without PyChrono in seconds ran "
                "when this site was built: their printed output and figures are from that run. "
                "The others follow, each saying why it did not run.\n"]
    order = list(done) + [stem for stem, _ in examples() if stem in skipped]
    paths = dict(examples())
    for stem in order:                  # those that ran first, then those that did not
        path = paths[stem]
        source = path.read_text(encoding="utf-8")
        uris = []
        if stem in done:
            found = sorted(p for p in done[stem].iterdir() if p.suffix in FIGURE_SUFFIXES)
        else:
            found = sorted(p for p in COMMITTED.glob(f"{stem}*") if p.suffix in FIGURE_SUFFIXES)
        for fig in found:
            uri = f"gallery/{fig.name}"
            if files.get_file_from_path(uri) is None:
                files.append(File.generated(config, uri, abs_src_path=str(fig)))
            uris.append(uri)
        section = _section(stem, path, source, done.get(stem), uris)
        if stem in skipped:
            note = (f"This example was not run when this site was built: {skipped[stem]}. ")
            note += ("The figure below is committed under docs/gallery/, from an earlier run "
                     "of the script."
                     if uris else "No figure of it is committed; run it to see its output.")
            title_end = section.index("**\n") + 3
            section = (section[:title_end] + f"\n!!! note \"Not run here\"\n    {note}\n"
                       + section[title_end:])
        sections.append(section)
    files.append(File.generated(config, "gallery/index.md", content="\n".join(sections)))
    return files
