"""Silence the SWIG "memory leak" lines that PyChrono's directors print, and nothing else.

Each time Chrono calls ``Update`` on a Python subclass of a director class (a
``ChLoadCustomMultiple``, say), the SWIG wrapper wraps its ``UpdateFlags`` argument in a
Python object it owns but has no destructor for, and on releasing it the wrapper
``printf``\\ s::

    swig/python detected a memory leak of type 'UpdateFlags *', no destructor found.

to the process's C-level standard output (file descriptor 1), tens of thousands of
times per simulated second. Python's ``sys.stdout`` cannot see or stop these lines.

:func:`quiet_swig` redirects file descriptor 1 into a pipe for the duration of a
``with`` block and drops exactly those lines; every other byte (the user's ``print``,
C++ messages from Chrono) is forwarded unchanged and in order to where descriptor 1
pointed before. The filter runs in a small child process, not a thread: the lines are
printed while the C++ side holds Python's GIL, so a thread that needed the GIL to drain
a full pipe could deadlock the simulation; a separate process cannot.

:class:`chrono_flex.chrono.element.FlexibleLink` also removes the cause for its own
director (it disowns the flags object; the memory behaviour is unchanged), so
:func:`quiet_swig` is the safety net for other directors (user subclasses, callbacks).
"""

import contextlib
import ctypes
import ctypes.util
import os
import subprocess
import sys
import threading

#: The exact lines (without the newline) that :func:`quiet_swig` removes by default.
LEAK_LINES = (
    b"swig/python detected a memory leak of type 'UpdateFlags *', no destructor found.",
)

# The child process: read fd 0, write fd 1, drop the given lines. A line whose start
# cannot be a dropped line is forwarded at once, even before its newline arrives, so
# progress output written with "\r" and flush() shows up live.
_FILTER_SOURCE = r"""
import os, sys
drop = [bytes.fromhex(a) for a in sys.argv[1:]]
def write(data):
    while data:
        data = data[os.write(1, data):]
pending = b""       # start of a line that might still become a dropped line
passing = False     # the current line was already (partly) forwarded
while True:
    chunk = os.read(0, 1 << 16)
    if not chunk:
        break
    out = []
    data = pending + chunk
    pending = b""
    while data:
        newline = data.find(b"\n")
        if passing:
            end = len(data) if newline < 0 else newline + 1
            out.append(data[:end])
            passing = newline < 0
            data = data[end:]
        elif newline < 0:
            if any(d.startswith(data) for d in drop):
                pending = data
            else:
                out.append(data)
                passing = True
            data = b""
        else:
            line = data[:newline]
            if line.rstrip(b"\r") not in drop:
                out.append(data[:newline + 1])
            data = data[newline + 1:]
    if out:
        write(b"".join(out))
if pending and pending not in drop:
    write(pending)
"""

#: Seconds to wait for the filter to drain at the end of a block. It only takes longer
#: when a process started inside the block still holds the pipe open; the filter then
#: keeps forwarding that process's output on its own.
_DRAIN_TIMEOUT = 10.0

_lock = threading.Lock()
_depth = 0


def _libc_fflush():
    """Flush C stdio buffers (``fflush(NULL)``) so C output lands before the switch."""
    try:
        name = ctypes.util.find_library("c")
        libc = ctypes.CDLL(name) if name else ctypes.CDLL(None)
        libc.fflush(None)
    except (OSError, AttributeError, TypeError):
        pass


def _flush_python():
    for stream in (sys.stdout, sys.__stdout__):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass


@contextlib.contextmanager
def quiet_swig(lines=LEAK_LINES):
    """Within the block, drop ``lines`` (exact matches) from file descriptor 1.

    Everything else written to descriptor 1, by Python or by C/C++, is forwarded
    unchanged and in order. Nested uses are cheap (only the outermost filters). If
    descriptor 1 is not usable or the filter cannot start, the block runs unfiltered.

    Example::

        with quiet_swig():
            for _ in range(n):
                system.DoStepDynamics(dt)
    """
    global _depth
    with _lock:
        _depth += 1
        outermost = _depth == 1
    try:
        if not outermost:
            yield
            return
        _flush_python()
        _libc_fflush()
        try:
            saved = os.dup(1)
        except OSError:
            yield
            return
        try:
            read_end, write_end = os.pipe()
            try:
                child = subprocess.Popen(
                    [sys.executable, "-S", "-c", _FILTER_SOURCE] + [line.hex() for line in lines],
                    stdin=read_end, stdout=saved, close_fds=True)
            except OSError:
                os.close(read_end)
                os.close(write_end)
                yield
                return
            os.close(read_end)
            os.dup2(write_end, 1)
            os.close(write_end)
            try:
                yield
            finally:
                _flush_python()
                _libc_fflush()
                os.dup2(saved, 1)   # closes the last write end of the pipe: EOF to the child
                try:
                    child.wait(timeout=_DRAIN_TIMEOUT)
                except subprocess.TimeoutExpired:
                    pass    # a process started inside the block still holds the pipe
        finally:
            os.close(saved)
    finally:
        with _lock:
            _depth -= 1


__all__ = ["quiet_swig", "LEAK_LINES"]
