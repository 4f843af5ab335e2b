"""Writing files so that a failure never leaves a half-written one, and checking output
paths before a long run.

Every file chrono_flex writes (CSV, NPZ, PNG, GIF, MP4, VTK, JSON) is first written to a
temporary file in the target's own directory and moved over the target with
:func:`os.replace` only once it is complete: a write that fails part-way (an exception,
a full disk) leaves the previous file byte for byte as it was. An existing file is
replaced (the command line says "overwrote PATH" when it did so).

    with atomic_write(path, "w", newline="") as f:   # a file object
        f.write(...)
    with atomic_path(path) as tmp:                   # a path, for writers that open it
        fig.savefig(tmp)                             # themselves (tmp keeps the suffix)

:func:`check_output_dir` and :func:`check_output_file` refuse, before any work, an
output path that cannot be written (a directory under a file, a file name too long, a
missing or read-only directory), with a ParameterError naming the option.
"""

import contextlib
import errno
import os
import tempfile

from .errors import ParameterError

#: Longest file name assumed where the system does not say (bytes).
DEFAULT_NAME_MAX = 255


def _tmp_name_parts(path):
    """(directory, prefix, suffix) of a temporary file next to ``path``: hidden, short
    enough for any file name limit, with the target's extension (writers that pick the
    format from the suffix, e.g. matplotlib, see the right one)."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    base = os.path.basename(path)
    ext = os.path.splitext(base)[1]
    if len(ext) > 16:
        ext = ""
    return directory, f".{base[:40]}.", f".tmp{ext}"


def new_file_mode(path):
    """The mode the target would get from a plain open(): the old file's mode when it
    exists, else 0o666 less the umask (mkstemp creates 0o600)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def _discard(tmp):
    with contextlib.suppress(OSError):
        os.unlink(tmp)


@contextlib.contextmanager
def atomic_path(path):
    """Yield a temporary path in ``path``'s directory; when the block ends without an
    exception the temporary file replaces ``path`` (os.replace), otherwise it is removed
    and ``path`` is left untouched."""
    path = os.fspath(path)
    if not str(path).strip():
        raise ParameterError("path", path, "must name a file (empty given)")
    if os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a file", path)
    directory, prefix, suffix = _tmp_name_parts(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=prefix, suffix=suffix)
    except OSError as exc:              # named by the user's path, not the temporary one
        raise OSError(exc.errno, f"cannot be written ({exc.strerror})", path) from None
    os.close(fd)
    try:
        yield tmp
        os.chmod(tmp, new_file_mode(path))
        os.replace(tmp, path)
    except OSError as exc:
        _discard(tmp)
        if exc.filename == tmp or exc.filename2 == tmp:
            raise OSError(exc.errno, f"cannot be written ({exc.strerror})", path) from None
        raise
    except BaseException:
        _discard(tmp)
        raise


@contextlib.contextmanager
def atomic_write(path, mode="w", **open_kwargs):
    """Yield an open file (``mode`` "w" or "wb", further arguments as for open()) that
    becomes ``path`` only when the block completes; on an exception ``path`` keeps its
    previous content and the temporary file is removed."""
    if mode not in ("w", "wb", "wt"):
        raise ParameterError("mode", mode, "must be 'w' or 'wb'")
    with atomic_path(path) as tmp:
        with open(tmp, mode, **open_kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())


def _name_max(directory):
    try:
        return os.pathconf(directory, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        return DEFAULT_NAME_MAX


def _probe(name, path, directory):
    """Refuse a directory in which no file can be created."""
    try:
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as exc:
        raise ParameterError(name, os.fspath(path), f"cannot be written: no file can be created "
                             f"in {directory!r} ({exc.strerror or exc})") from None


def check_output_dir(name, path, create=True):
    """Make sure ``path`` is (or, with ``create``, becomes) a writable directory; return it.

    ParameterError naming ``name`` (the option, e.g. "--out") when a component is a
    file, a name is too long, the directory is missing (``create=False``) or read-only.
    """
    path = os.fspath(path)
    if os.path.exists(path) and not os.path.isdir(path):
        raise ParameterError(name, path, "must be a directory, but a file of that name exists")
    if create:
        try:
            os.makedirs(path, exist_ok=True)
        except OSError as exc:
            why = exc.strerror or str(exc)
            if isinstance(exc, (FileExistsError, NotADirectoryError)):
                why = "a component of the path is a file, not a directory"
            raise ParameterError(name, path, f"must be a directory that can be created "
                                 f"({why})") from None
    elif not os.path.isdir(path):
        raise ParameterError(name, path, "must be an existing directory")
    _probe(name, path, path)
    return path


def check_output_file(name, path, create_dir=False):
    """Make sure a file can be written at ``path``; return the path.

    The name must fit the file system's limit and must not be a directory; its directory
    must exist (or, with ``create_dir``, be creatable) and accept new files. Raises
    ParameterError naming ``name``.
    """
    path = os.fspath(path)
    base = os.path.basename(path)
    if not base or os.path.isdir(path):
        raise ParameterError(name, path, "must be a file name, not a directory")
    directory = os.path.dirname(os.path.abspath(path))
    if create_dir:
        try:
            check_output_dir(name, directory, create=True)
        except ParameterError as exc:
            raise ParameterError(name, path, f"must be in a writable directory ({directory!r} "
                                             f"{exc.requirement})") from None
    elif not os.path.isdir(directory):
        what = "is a file" if os.path.exists(directory) else "does not exist"
        raise ParameterError(name, path, f"must be in an existing directory ({directory!r} "
                                         f"{what})")
    limit = _name_max(directory)
    if len(os.fsencode(base)) > limit:
        raise ParameterError(name, path, f"has a file name of {len(os.fsencode(base))} bytes; "
                                         f"the file system allows at most {limit}")
    _probe(name, path, directory)
    return path


__all__ = ["atomic_path", "atomic_write", "check_output_dir", "check_output_file"]
