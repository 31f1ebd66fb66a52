"""A log opened for binary reading, whatever holds it: a file, a file ``mlcheck watch`` holds
(:mod:`mlcheck.read.held_logs`), standard input (``-``), or a pipe named by its path
(``<(zcat job.log.gz)``, a piped ``/dev/stdin``, a FIFO a job writes): the last two are read once, into a
temporary copy (:mod:`mlcheck.read.stdin_copy`), which every later reading opens, as a reading
can happen more than once (gzip is told by its first bytes, MPI jobs and rank files are read
apart) and a pipe gives its bytes to one reader only. gzip is read through, and a file with CR
line ends alone is read with LF ends (:mod:`mlcheck.read.cr_line_ends`)."""

from __future__ import annotations

import io
import os
import stat
import sys
from types import ModuleType
from typing import IO

from mlcheck.read.cr_line_ends import cr_line_ended
from mlcheck.read.held_logs import open_held

__all__ = ["forget_pipes", "link_to_nothing", "open_log", "readable_path"]

_GZIP_MAGIC = b"\x1f\x8b"
_UTF8_BOM = b"\xef\xbb\xbf"


def readable_path(path: str) -> str:
    """The path that holds the bytes of ``path``: the copy of standard input or of a pipe once made
    (what a second reading opens), else ``path`` itself."""
    if path == "-":
        from mlcheck.read.stdin_copy import stdin_copy  # (imported when it is read: it imports tempfile)

        return stdin_copy()
    copies = _pipe_copies()
    copy: str | None = copies.copied_path(path) if copies is not None else None
    if copy is None and path.startswith(_STDIN_NAMES) and _names_stdin_pipe(path):
        from mlcheck.read.stdin_copy import stdin_copy

        return stdin_copy()  # (/dev/stdin on a pipe: never opened, which waits for a writer, nor read twice)
    return copy or path


_STDIN_NAMES = ("/dev/", "/proc/")
"""Where the names of standard input live (``/dev/stdin``, ``/dev/fd/0``, ``/proc/self/fd/0``)."""


def _names_stdin_pipe(path: str) -> bool:
    from mlcheck.read.stdin_copy import is_standard_input_pipe

    try:
        return is_standard_input_pipe(os.stat(path))
    except (OSError, ValueError):
        return False


def forget_pipes() -> None:
    """Remove the copies of the pipes read so far (at the end of a check: a pipe named again by
    the next one is read again, as it gives new bytes)."""
    copies = _pipe_copies()
    if copies is not None:
        copies.forget_pipes()


def _pipe_copies() -> ModuleType | None:
    """:mod:`mlcheck.read.stdin_copy` once imported (None: not yet, nothing was copied). Imported here
    again: a thread that finds it half imported by another (a check in each) waits for it, as import does
    (``sys.modules`` alone gave the half-made module: AttributeError, the check's thread ended)."""
    if "mlcheck.read.stdin_copy" not in sys.modules:
        return None
    from mlcheck.read import stdin_copy

    return stdin_copy


def open_log(path: str) -> IO[bytes]:
    """Open a log for binary reading (see the module): the bytes under a gzip header, after a UTF-8
    byte order mark, with LF line ends."""
    handle = open_held(path) or open(readable_path(path), "rb")
    if _pipe(handle):  # (read once, into a copy that is read instead; a device is read as it is: /dev/zero never ends)
        from mlcheck.read.stdin_copy import stream_copy

        with handle:
            copy = stream_copy(path, handle)
        handle = open(copy, "rb")
    head = handle.peek(3)[:3]
    if head[:2] == _GZIP_MAGIC:
        import gzip  # (imported where a gzip log is opened)

        reader = gzip.GzipFile(fileobj=handle, mode="rb")
        reader.myfileobj = handle  # type: ignore[assignment]  # (the file it closes on close, as one it opened)
        return reader  # type: ignore[return-value]
    if head == _UTF8_BOM:  # (the parser's cut at the marker drops it from the first line: so here)
        handle.read(3)
    return cr_line_ended(handle)  # (a file with CR line ends alone: read as the parser reads it)


def link_to_nothing(path: str) -> str | None:
    """Where ``path`` links to, when it is a link to nothing (a dangling link); else None."""
    try:
        return os.readlink(path) if not os.path.exists(path) else None
    except (OSError, ValueError):  # (no link; a NUL in the name)
        return None


def _pipe(handle: io.BufferedReader) -> bool:
    try:
        return stat.S_ISFIFO(os.fstat(handle.fileno()).st_mode)
    except (OSError, ValueError):
        return False
