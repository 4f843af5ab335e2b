"""Checks and helpers shared by the commands of ``chrono-flex`` (chrono_flex.cli):
output paths, option values, the model a command names, the progress switch."""

import os

from . import _checks as ck
from ._files import check_output_file
from .errors import ParameterError


def _existing(*paths):
    """The set of ``paths`` that exist now (before the run writes them)."""
    return {p for p in paths if p is not None and os.path.exists(p)}


def _report_written(path, existed):
    """Print "wrote PATH", or "overwrote PATH" when the file was there before the run."""
    print(f"{'overwrote' if path in existed else 'wrote'} {path}")


def _check_animation_path(name, path):
    if os.path.splitext(path)[1].lower() not in (".gif", ".mp4"):
        raise ParameterError(name, path, "must end with .gif or .mp4")
    return check_output_file(name, path)


#: `render --frames` and `bench render --frames` above this are refused (a GIF of
#: 10 000 frames at 20 frames/s lasts over 8 minutes; each frame is a full render).
MAX_FRAMES = 10_000

#: `--scale` above this is refused: a deformation drawn a million times larger than it
#: is already turns a micrometre into a metre; beyond, the coordinates overflow.
MAX_SCALE = 1e6


def _refuse_unused(args, options, why):
    """Refuse each of ``options`` (argparse destinations) that was given (not None or
    False), naming it: an option a command or case cannot use is an error, not ignored."""
    for dest in options:
        value = getattr(args, dest, None)
        if value is not None and value is not False:
            flag = "--" + dest.replace("_", "-")
            raise ParameterError(flag, value, f"cannot be used {why}")


def _check_out(args, name="--out"):
    """``--out`` given as an empty or blank string is an error (not the default)."""
    if args.out is not None and not str(args.out).strip():
        raise ParameterError(name, args.out, "must name a directory (empty given)")


def _check_scale(name, value):
    if value is not None:
        x = ck.non_negative(name, value)    # 0: the arm drawn undeformed
        if x > MAX_SCALE:
            raise ParameterError(name, value, f"must be at most {MAX_SCALE:g}")


def _check_frames(name, value):
    n = ck.positive_int(name, value)
    if n > MAX_FRAMES:
        raise ParameterError(name, value, f"must be at most {MAX_FRAMES} (MAX_FRAMES)")
    return n


def _say_code(case):
    """Check, before any work, that the code a model file's inputs name may run (beside
    the file, or --allow-code), import it, and say what will run."""
    if case.model_file is None:
        return
    code = case.model_file.code()
    case.model_file.loaded_inputs(case.allow_code)
    for key, what in code.items():
        print(f"{case.model_file.path}: {key} runs the {what}")


def _check_t_end(args):
    if getattr(args, "t_end", None) is not None:
        ck.positive("--t-end", args.t_end)


def _drive_scenarios():
    from .scenarios.drive import SCENARIOS

    return SCENARIOS


def _quietly(command):
    """``command(args)`` with the progress reports silenced when ``--quiet`` was given."""
    def run(args):
        from .stepping import quiet

        with quiet(args.quiet):
            return command(args)
    run.__doc__ = command.__doc__
    return run


def _model_case(name):
    """The Case of a built-in case or a model file (``name`` ending with .toml)."""
    from . import scenarios

    if name in _drive_scenarios() and name not in scenarios.all_cases():
        raise ParameterError("MODEL", name, "is a drive scenario, not an arm (see "
                                            "`chrono-flex cases`)")
    return scenarios.get(name)
