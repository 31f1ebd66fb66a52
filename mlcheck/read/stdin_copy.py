"""Standard input, copied once to a temporary file (removed when mlcheck ends), so that it is read
as a log file is: as often as the reading needs (the MPI jobs of a console read apart, MLC030; the
records only another rank printed, read again, MLC028), gzip and CR line ends alike, and never
held in memory."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile

_copies: dict[int, tuple[object, str]] = {}
"""id of the standard input object -> (it, the path of its copy): a test runner swaps stdin."""


def stdin_copy() -> str:
    """The path of the copy of standard input, made at the first call (OSError when standard
    input cannot be read or the copy cannot be written; the partial copy is removed)."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise OSError("standard input is closed")
    known = _copies.get(id(stream))
    if known is not None and known[0] is stream:
        return known[1]
    handle = tempfile.NamedTemporaryFile(prefix="mlcheck-stdin-", delete=False)
    try:
        with handle:
            shutil.copyfileobj(stream, handle, 1 << 20)
    except BaseException:
        _remove(handle.name, os.getpid())
        raise
    _copies[id(stream)] = (stream, handle.name)
    atexit.register(_remove, handle.name, os.getpid())
    return handle.name


def _remove(path: str, owner: int) -> None:
    if os.getpid() == owner:  # (a forked worker leaves the copy to mlcheck)
        try:
            os.unlink(path)
        except OSError:
            pass
