"""Standard input, copied once to a temporary file, so that it is read as a log file is: as often
as the reading needs (the MPI jobs of a console read apart, MLC030; the records only another rank
printed, read again, MLC028), gzip and CR line ends alike, and never held in memory. A pipe named
by its path (``<(zcat job.log.gz)``, a FIFO) is copied so too, at its first opening; a pipe that is
standard input (``/dev/stdin``, ``/proc/self/fd/0``) is read from standard input's copy.

Where the system shows a process its open files (``/proc/self/fd``: Linux), the copy is a file
without a name (``O_TMPFILE``; where the file system has none, a named file whose name is removed
at once), read through a descriptor kept open: nothing is left however mlcheck ends, SIGKILL and
the OOM killer included. Elsewhere the named copy is removed when mlcheck ends, on SIGTERM and
SIGHUP too. Standard input is copied once per process (a later copy in threads waits for it); a
copy that failed read part of it, so a later one fails as it did, not on the rest.
"""

from __future__ import annotations

import atexit
import errno
import os
import signal
import stat
import sys
import tempfile
import threading
from typing import IO, Any, Iterator, NamedTuple

from mlcheck.read.held_signals import WAKE_MS, signals_held


class _Copy(NamedTuple):
    owner: object
    """Standard input's stream, or the path of the pipe (a test runner swaps stdin)."""
    path: str
    """What a reading opens: ``/proc/self/fd/N`` for a copy without a name."""
    held: int
    """The descriptor that holds a copy without a name, else -1."""
    pid: int
    """The process that made it (a forked one leaves its parent's named copy alone)."""


_copies: dict[object, _Copy] = {}
"""id of the standard input object, or (the thread that read it, the path of a pipe) -> its copy
(a check in each of two threads reads its pipes, and forgets them, on its own)."""
_failed: dict[int, tuple[object, str]] = {}
"""id of a standard input whose copy failed -> (it, what the failure said)."""
_LOCK = threading.Lock()
"""Held while standard input is copied (a thread that also reads it waits for the copy; pipes
are copied without it: one thread's slow pipe must not hold the others')."""
_OPEN_FILES = "/proc/self/fd"
_HANDLERS: list[bool] = []
"""Set once the exit and signal handlers are (once per process: a fork inherits them)."""


def _reset_after_fork() -> None:
    global _LOCK
    _LOCK = threading.Lock()  # (a fork while another thread copied stdin: the child's lock is its own)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


class StdinCopyError(OSError):
    """Standard input (or a pipe) could not be copied (the temporary folder full or not writable):
    said as such, not as a log that cannot be opened."""


def stdin_copy() -> str:
    """The path of the copy of standard input, made at the first call (OSError when standard
    input cannot be read, StdinCopyError when the copy cannot be written, then at every later
    call; a partial copy is removed)."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise OSError("standard input is closed")
    with _LOCK:
        known = _copies.get(id(stream))
        if known is not None and known.owner is stream:
            return known.path
        failed = _failed.get(id(stream))
        if failed is not None and failed[0] is stream:
            raise StdinCopyError(errno.EIO, f"{failed[1]} (an earlier copy of standard input failed after reading "
                                 "part of it: standard input cannot be read whole again in this process)")
        return _copied(id(stream), stream, stream, "standard input")


def copied_path(path: str) -> str | None:
    """The copy of the pipe ``path`` once :func:`stream_copy` made it in this thread, else None."""
    known = _copies.get((threading.get_ident(), path))
    return known.path if known is not None else None


def stream_copy(path: str, handle: IO[bytes]) -> str:
    """The path of a copy of what ``handle`` (the pipe ``path`` opened, no copy of it made yet)
    gives until its end (errors as :func:`stdin_copy`'s); standard input's copy when the pipe is
    standard input's (``handle`` is then left unread)."""
    if _is_standard_input(handle):
        return stdin_copy()
    return _copied((threading.get_ident(), path), path, handle, path)


def forget_pipes() -> None:
    """Remove the copies of pipes this thread made (not of standard input, read once whatever is
    checked; nor those of a check running in another thread)."""
    thread = threading.get_ident()
    for key in [key for key in _copies if isinstance(key, tuple) and key[0] == thread]:
        _release(_copies.pop(key))


def _copied(key: object, owner: object, stream: IO[bytes], what: str) -> str:
    _set_handlers()
    with signals_held():  # (a signal between the file's making and its entry here would leave it)
        copy, writer = _new_copy(owner, what)
        _copies[key] = copy
    read = False
    try:
        with writer:
            for chunk in _chunks(stream):
                read = True
                try:
                    writer.write(chunk)
                except OSError as error:
                    raise _copy_error(error, what) from None
    except BaseException as error:
        _release(_copies.pop(key))
        if read and not isinstance(owner, str):  # (standard input, read in part: not again)
            _failed[id(owner)] = (owner, error.strerror or str(error) if isinstance(error, OSError) else "interrupted")
        raise
    return copy.path


_CHUNK = 1 << 20


def _chunks(stream: IO[bytes]) -> Iterator[bytes]:
    """What ``stream`` gives until its end; a pipe (or terminal) is waited for ``WAKE_MS`` at a time,
    then read once (what its buffer holds, else what the pipe holds), so that a waiting signal's
    handler runs within that time. A stream without a descriptor (a test's) is read as it is."""
    import select

    try:
        fd = stream.fileno()
        poll = select.poll()  # (AttributeError where there is none: Windows)
        poll.register(fd, select.POLLIN)
    except (OSError, ValueError, AttributeError):
        yield from iter(lambda: stream.read(_CHUNK), b"")
        return
    read_once = getattr(stream, "read1", stream.read)
    while True:
        while not poll.poll(WAKE_MS):  # (Python code between the waits: a signal's handler runs)
            pass
        chunk = read_once(_CHUNK)
        if not chunk:
            return
        yield chunk


def _new_copy(owner: object, what: str) -> tuple[_Copy, IO[bytes]]:
    """An empty copy, and the file object that writes it."""
    try:
        folder = tempfile.gettempdir()
    except OSError as error:  # (no usable temporary folder at all)
        raise StdinCopyError(error.errno or errno.ENOENT, f"cannot copy {what} to a temporary file ({error}); set "
                             "TMPDIR to a folder with room" + _OR_A_PATH.get(what, "")) from None
    nameless = _nameless_file(folder)
    if nameless >= 0:
        return _Copy(owner, f"{_OPEN_FILES}/{nameless}", nameless, os.getpid()), open(nameless, "wb", closefd=False)
    try:
        handle = tempfile.NamedTemporaryFile(prefix="mlcheck-stdin-", delete=False)
    except OSError as error:
        raise _copy_error(error, what) from None
    held = _held_nameless(handle.name)
    return _Copy(owner, f"{_OPEN_FILES}/{held}" if held >= 0 else handle.name, held, os.getpid()), handle


def _nameless_file(folder: str) -> int:
    """A descriptor of a new file without a name in ``folder`` (``O_TMPFILE``), else -1."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None or not os.path.isdir(_OPEN_FILES):
        return -1
    try:
        return os.open(folder, flag | os.O_RDWR, 0o600)
    except OSError:  # (a file system without it: the named file, its name removed)
        return -1


def _held_nameless(path: str) -> int:
    """A descriptor that reads the new file ``path``, whose name is then removed (-1, the name kept,
    where the system does not show a process its open files, or the file cannot be opened)."""
    if not os.path.isdir(_OPEN_FILES):
        return -1
    try:
        held = os.open(path, os.O_RDONLY)
    except OSError:
        return -1
    try:
        os.unlink(path)
    except OSError:  # (removed when mlcheck ends, as without the descriptor)
        os.close(held)
        return -1
    return held


def _is_standard_input(handle: IO[bytes]) -> bool:
    """Whether ``handle`` reads the pipe standard input reads (not when it is descriptor 0
    itself: standard input was closed, and the pipe opened took its number)."""
    try:
        return handle.fileno() != 0 and is_standard_input_pipe(os.fstat(handle.fileno()))
    except (OSError, ValueError, AttributeError):
        return False


def is_standard_input_pipe(status: os.stat_result) -> bool:
    """Whether ``status`` is that of the pipe standard input reads (and it is open)."""
    try:
        return stat.S_ISFIFO(status.st_mode) and os.path.samestat(status, os.fstat(0)) and sys.stdin is not None
    except (OSError, ValueError):
        return False


_OR_A_PATH = {"standard input": ", or give the log a path"}


def _copy_error(error: OSError, what: str) -> StdinCopyError:
    return StdinCopyError(error.errno, f"cannot copy {what} to a temporary file in {tempfile.gettempdir()} "
                          f"({error.strerror or error}); set TMPDIR to a folder with room" + _OR_A_PATH.get(what, ""))


def _set_handlers() -> None:
    """At the first copy: named copies are removed at the exit, and on SIGTERM (a CI job's
    time-out while a job's console is piped in) and SIGHUP (its terminal closed, an ssh session
    dropped), which then end mlcheck as the signal does; a handler set before is called instead
    (and whatever it decides: a handler that returns leaves the copies in use), a signal
    ignored (``nohup``) stays so. Handlers are set from the main thread only."""
    if _HANDLERS:
        return
    _HANDLERS.append(True)
    atexit.register(_remove_named)
    if threading.current_thread() is not threading.main_thread():
        return
    for number in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if number is not None:
            _remove_on(number)


def _remove_on(number: int) -> None:
    before = signal.getsignal(number)

    def on_signal(signum: int, frame: Any) -> None:
        if callable(before):
            before(signum, frame)  # (its exit, if it exits, removes them)
            return
        _remove_named()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    if before in (signal.SIG_DFL, None) or callable(before):
        signal.signal(number, on_signal)


def _remove_named() -> None:
    """Remove the named copies this process made (one without a name goes with the process)."""
    for copy in list(_copies.values()):
        if copy.held < 0:
            _release(copy)


def _release(copy: _Copy) -> None:
    """Remove a copy no longer in ``_copies``: close its descriptor (this process's own, even
    inherited), or remove its name where this process made it."""
    try:
        if copy.held >= 0:
            os.close(copy.held)
        elif copy.pid == os.getpid():
            os.unlink(copy.path)
    except OSError:
        pass
