"""The standard streams and the terminal as mlcheck's entry point prepares them before any
report: buffered (a cut pipe is met, never a report cut silently), tolerant of text the encoding
cannot hold, and a usable width."""

from __future__ import annotations

import io
import os
import sys
from typing import TextIO, cast

MIN_COLUMNS = 40
"""The narrowest text report: ``COLUMNS=0`` drew none, ``COLUMNS=20`` tables of empty cells."""


def usable_columns() -> None:
    """A ``COLUMNS`` below :data:`MIN_COLUMNS` raised to it; one of digits that are not ASCII
    (``²``: rich's ``int()`` raises on it) dropped, for the terminal's width. Before any console."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isascii() and columns.isdigit() and int(columns) < MIN_COLUMNS:
        os.environ["COLUMNS"] = str(MIN_COLUMNS)
    elif columns.isdigit() and not columns.isascii():
        del os.environ["COLUMNS"]


def tolerant_streams() -> None:
    """Text that the output's encoding cannot hold (a lone surrogate that a log's JSON escapes,
    ``"\\ud800"``; any character under an ASCII locale) is written as a backslash escape, never a
    traceback that loses the report."""
    sys.stdout, sys.stderr = buffered(sys.stdout), buffered(sys.stderr)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")  # type: ignore[attr-defined]
        except (AttributeError, ValueError, OSError):  # (not a text file of io: left as it is)
            pass
    sys.stderr = cast(TextIO, _Lossy(sys.stderr))


class _Lossy:
    """stderr that drops what it cannot write (a full disk, a closed reader): its lines are notes
    beside the report (the summary, the progress, the warnings of settings), so the command goes
    on and its exit code stands (a pass on a full disk exited 2, then 120: a review of session 50).
    Its descriptor is then pointed at /dev/null: the interpreter's flush at exit fails no more."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:  # (or bytes, as the buffer's)
        try:
            return self._stream.write(text)
        except (OSError, ValueError):
            self._lost()
            return len(text)
        except (KeyboardInterrupt, SystemExit):  # (Ctrl-C, SIGTERM in a write that waited: the rest would wait too)
            drop_if_stalled(self._stream)
            raise

    def flush(self) -> None:
        try:
            self._stream.flush()
        except (OSError, ValueError):
            self._lost()
        except (KeyboardInterrupt, SystemExit):
            drop_if_stalled(self._stream)
            raise

    @property
    def buffer(self) -> _Lossy:
        """The binary stream under it, as lossy (click writes there where the text's encoding is
        not UTF-8: ``PYTHONIOENCODING=ascii``)."""
        return _Lossy(self._stream.buffer)  # type: ignore[arg-type]

    def _lost(self) -> None:
        to_devnull(self._stream)

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def buffered(stream: TextIO) -> TextIO:
    """``stream`` over a buffered writer. Under PYTHONUNBUFFERED (CI images set it) a standard
    stream's text layer writes to the file itself, and ignores how much of a large report a pipe
    took before its reader went away: the rest was lost silently, exit 0 (a review of session 47);
    a buffered writer writes the rest, and meets the closed pipe. Written through, as before."""
    raw = getattr(stream, "buffer", None)
    if not isinstance(stream, io.TextIOWrapper) or not isinstance(raw, io.RawIOBase):
        return stream
    return io.TextIOWrapper(io.BufferedWriter(raw), encoding=stream.encoding, errors=stream.errors,
                            line_buffering=stream.line_buffering, write_through=True)


def to_devnull(stream: object) -> None:
    """Point a standard stream's descriptor at /dev/null, so that what is still written to it,
    and the interpreter's own flush at exit, fail no more (Python then exits 120)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, stream.fileno())  # type: ignore[attr-defined]
        finally:
            os.close(devnull)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass


_STALLED_MS = 250
"""How long an output may take no byte before it counts as stalled (a slow reader frees room sooner)."""


def drop_if_stalled(stream: object) -> None:
    """Point ``stream`` at /dev/null (:func:`to_devnull`) when its descriptor takes no byte for
    :data:`_STALLED_MS`: a pipe whose reader stopped reading (``2>&1 | less`` left unread), a terminal
    held by Ctrl-S; a slow but live reader frees room sooner (rv300). Where an interrupted command met
    one, what it still had to say (its note, "Aborted!", the interpreter's flush at exit) waited for
    ever, Ctrl-C and SIGTERM again with it (rv297: three SIGTERMs, no -o report)."""
    import select

    try:
        poll = select.poll()
        poll.register(stream.fileno(), select.POLLOUT)  # type: ignore[attr-defined]
        writable = bool(poll.poll(_STALLED_MS))
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return
    if not writable:
        to_devnull(stream)
