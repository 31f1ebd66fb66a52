"""Standard input, copied once to a temporary file, so that it is read as a log file is: as often
as the reading needs (the MPI jobs of a console read apart, MLC030; the records only another rank
printed, read again, MLC028), gzip and CR line ends alike, and never held in memory. A pipe named
by its path (``<(zcat job.log.gz)``, a FIFO) is copied so too, at its first opening.

Where the system shows a process its open files (``/proc/self/fd``: Linux), the copy's name is
removed as soon as it is made, and the copy read through a descriptor kept open: nothing is left
however mlcheck ends, SIGKILL and the OOM killer included. Elsewhere the named copy is removed
when mlcheck ends, on SIGTERM and SIGHUP too."""

from __future__ import annotations

import atexit
import os
import signal
import sys
import tempfile
import threading
from contextlib import contextmanager
from typing import IO, Any, Iterator

_copies: dict[object, tuple[object, str, int]] = {}
"""id of the standard input object, or the path of a pipe -> (it, the path of its copy, the
descriptor that holds a copy whose name is removed, else -1): a test runner swaps stdin."""
_OPEN_FILES = "/proc/self/fd"
_OWNER = os.getpid()


class StdinCopyError(OSError):
    """Standard input (or a pipe) could not be copied (the temporary folder full or not writable):
    said as such, not as a log that cannot be opened."""


def stdin_copy() -> str:
    """The path of the copy of standard input, made at the first call (OSError when standard
    input cannot be read, StdinCopyError when the copy cannot be written; a partial copy is
    removed)."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise OSError("standard input is closed")
    known = _copies.get(id(stream))
    if known is not None and known[0] is stream:
        return known[1]
    return _copied(id(stream), stream, stream, "standard input")


def copied_path(path: str) -> str | None:
    """The copy of the pipe ``path`` once :func:`stream_copy` made it, else None."""
    known = _copies.get(path)
    return known[1] if known is not None else None


def stream_copy(path: str, handle: IO[bytes]) -> str:
    """The path of a copy of what ``handle`` (the pipe ``path`` opened, no copy of it made yet)
    gives until its end (errors as :func:`stdin_copy`'s)."""
    return _copied(path, path, handle, path)


def forget_pipes() -> None:
    """Remove the copies of pipes (not of standard input, read once whatever is checked)."""
    for key in [key for key in _copies if isinstance(key, str)]:
        _remove(*_copies.pop(key)[1:])


def _copied(key: object, owner: object, stream: IO[bytes], what: str) -> str:
    if not _copies:  # (before the file is made: a SIGTERM from then on removes it)
        atexit.register(_remove_all)
        _remove_on_sigterm()
    with _signals_held():  # (a SIGTERM between the file's making and its entry here would leave it)
        try:
            handle = tempfile.NamedTemporaryFile(prefix="mlcheck-stdin-", delete=False)
        except OSError as error:
            raise _copy_error(error, what) from None
        held = _held_nameless(handle.name)
        _copies[key] = (owner, f"{_OPEN_FILES}/{held}" if held >= 0 else handle.name, held)
    try:
        with handle:
            while True:
                chunk = stream.read(1 << 20)
                if not chunk:
                    break
                try:
                    handle.write(chunk)
                except OSError as error:
                    raise _copy_error(error, what) from None
    except BaseException:
        _remove(*_copies.pop(key)[1:])
        raise
    return _copies[key][1]


@contextmanager
def _signals_held() -> Iterator[None]:
    """SIGTERM and SIGHUP held back meanwhile (in the main thread, where they are handled), then
    delivered: their handler then finds every copy made."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    held = {number for number in (signal.SIGTERM, getattr(signal, "SIGHUP", None)) if number is not None}
    before = mask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, before)


def _held_nameless(path: str) -> int:
    """A descriptor that reads the new file ``path``, whose name is then removed (-1, the name kept,
    where the system does not show a process its open files, or the file cannot be opened)."""
    if not os.path.isdir(_OPEN_FILES):
        return -1
    try:
        held = os.open(path, os.O_RDONLY)
    except OSError:
        return -1
    if not os.path.exists(f"{_OPEN_FILES}/{held}"):
        os.close(held)
        return -1
    try:
        os.unlink(path)
    except OSError:  # (removed when mlcheck ends, as without the descriptor)
        os.close(held)
        return -1
    return held


def _copy_error(error: OSError, what: str) -> StdinCopyError:
    return StdinCopyError(error.errno, f"cannot copy {what} to a temporary file in {tempfile.gettempdir()} "
                          f"({error.strerror or error}); set TMPDIR to a folder with room" +
                          (", or give the log a path" if what == "standard input" else ""))


def _remove_on_sigterm() -> None:
    """SIGTERM (a CI job's time-out while a job's console is piped in), and SIGHUP (its terminal
    closed, an ssh session dropped), remove the copies, then end mlcheck as the signal does; a
    handler set before is kept and called (a signal ignored, ``nohup``, stays so)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for number in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if number is not None:
            _remove_on(number)


def _remove_on(number: int) -> None:
    before = signal.getsignal(number)

    def on_signal(signum: int, frame: Any) -> None:
        _remove_all()
        if callable(before):
            before(signum, frame)
            return
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    if before in (signal.SIG_DFL, None) or callable(before):
        signal.signal(number, on_signal)


def _remove_all() -> None:
    for _stream, path, held in list(_copies.values()):
        _remove(path, held)


def _remove(path: str, held: int) -> None:
    if os.getpid() != _OWNER:  # (a forked worker leaves the copy to mlcheck)
        return
    try:
        if held >= 0:
            os.close(held)  # (its name removed when it was made: closed, the copy is gone)
        else:
            os.unlink(path)
    except OSError:
        pass
