"""A report's file written whole or not at all: a write that fails (a full disk, a signal) leaves
the file it was to replace as it was, never a cut-off report that a CI step would upload as if it
were complete (review of session 41: ``-o sarif:out.sarif`` on a full disk left 64 KiB of a SARIF
file over the good one)."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
from typing import Iterator, TextIO


@contextlib.contextmanager
def replaced_file(path: str) -> Iterator[TextIO]:
    """A text file (UTF-8, ``\\n`` line ends) to write the contents of ``path`` into. A new file, or
    one of ours that may be written and has no other name (hard link), is written beside it, then
    renamed over it once complete, with the permissions of the file it replaces (the umask's for a
    new one); through a link, its target is. Anything else is written in place as ``open`` writes
    it (a device, a pipe, another user's file in ``/tmp``, a read-only file: refused as before, a
    folder where no other file can be made). A SIGTERM while it is written removes the part."""
    from mlcheck.read.held_signals import signals_held  # (imported where a report is written)

    target = os.path.realpath(path)
    try:
        status = os.stat(target)
    except FileNotFoundError:  # (a new file)
        status = None
    except OSError:  # (a loop of links: open says so)
        status = os.stat(path)
    replaceable = status is None or (stat.S_ISREG(status.st_mode) and status.st_nlink == 1
                                     and os.access(target, os.W_OK) and status.st_uid == os.geteuid())
    with _terminated_as_exit():  # (from before the part is made until it is renamed: none is left, rv297)
        part = None
        try:
            with signals_held():  # (a signal as the part is made: raised once its name is known)
                part = _part_beside(target) if replaceable else None
            if part is not None:
                with os.fdopen(part[0], "w", encoding="utf-8", errors="backslashreplace", newline="\n") as handle:
                    yield handle
                os.chmod(part[1], status.st_mode & 0o7777 if status is not None else 0o666 & ~_umask())
                os.replace(part[1], target)
                return
        except BaseException:
            if part is not None:
                with contextlib.suppress(OSError):
                    os.unlink(part[1])
            raise
    with open(path, "w", encoding="utf-8", errors="backslashreplace", newline="\n") as handle:
        yield handle


def _part_beside(target: str) -> tuple[int, str] | None:
    """A new file beside ``target`` to write its contents into; None in a folder where no other
    file can be made (a writable file there is written over in place)."""
    import tempfile  # (imported when a report is written: `mlcheck --help` needs none of it)

    try:
        return tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".part", dir=os.path.dirname(target) or ".")
    except OSError:
        return None


@contextlib.contextmanager
def _terminated_as_exit() -> Iterator[None]:
    """SIGTERM (a CI job's timeout) and SIGHUP raised as ``SystemExit(128 + signal)`` meanwhile, so the
    part is removed; the exit status is the one the signal gives (143, 129)."""
    def exit_on(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    numbers = [signal.SIGTERM] + ([signal.SIGHUP] if hasattr(signal, "SIGHUP") else [])  # (SIGHUP: a closed terminal)
    try:
        befores = [(number, signal.getsignal(number)) for number in numbers]
        for number, before in befores:
            if before is not signal.SIG_IGN:  # (nohup: ignored, and so it stays)
                signal.signal(number, exit_on)
    except ValueError:  # (not the main thread: left as it is)
        yield
        return
    try:
        yield
    finally:
        for number, before in befores:
            if before is not None:
                signal.signal(number, before)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
