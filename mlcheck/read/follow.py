"""Follow a file that is still being written, like ``tail -F``: complete lines as they arrive.

The file may not exist yet (the job has not started), may be rotated (renamed and replaced by a
new file) or truncated (rewritten from the start); both of the latter are reported as a
:data:`RESTART` so that the reader starts again from line 1. Between reads the follower sleeps
``poll`` seconds; when nothing new arrived it yields :data:`IDLE`, so the caller can update its
progress, check its deadlines and decide to stop.

What is held of one line is bounded: a line longer than ``max_line`` bytes (16 MiB, as in the batch
reader) is not kept; its length is yielded instead once it ends, so that the reader can report it
(MLC014) and memory stays flat whatever the job writes.

A log whose lines end in a CR alone is read as ``check`` reads it (:mod:`mlcheck.read.follow_line_ends`). A
console a Windows shell saved as UTF-16 or UTF-32 is read as UTF-8 text, as ``check`` reads it
(:mod:`mlcheck.read.utf16_lines`).
"""

from __future__ import annotations

import codecs
import os
import time
from stat import S_ISREG
from typing import IO, Iterator, Union

from mlcheck.read.cr_line_ends import PROBE_BYTES, lf_after
from mlcheck.read.follow_line_ends import UTF8_BOM, LineEnds
from mlcheck.read.long_lines import LongLine, LongLineScan
from mlcheck.read.unended_record import MARKER, whole_run_stop
from mlcheck.read.utf16_lines import wide_encoding, wide_undecided

IDLE = "idle"
RESTART = "restart"
COMPRESSED = "compressed"
"""The file is gzip: a compressed stream is not followed line by line (:func:`mlcheck.cli.watch_end.gzip_complete`)."""
Signal = Union[bytes, LongLine, str]
"""A complete line (bytes, with its ``\\n``), what is kept of an over-long line (its length, the
pieces that hold a record, the markers lost: as ``check`` reads it), :data:`IDLE`, :data:`RESTART`
or :data:`COMPRESSED`."""

_CHUNK = 1 << 16
_GZIP_MAGIC = b"\x1f\x8b"
_TAIL = 256


class Follower:
    """Yields the lines of ``path`` as they are written; see the module docstring."""

    def __init__(self, path: str, poll: float = 0.1, max_line: int = 16 * 1024 * 1024) -> None:
        self.path = path
        self.poll = poll
        self.max_line = max_line
        self._handle: IO[bytes] | None = None
        self._identity: tuple[int, int] | None = None
        self._position = 0
        self._parts: list[bytes] = []
        """The start of the line being written (held while it is at most ``max_line`` bytes)."""
        self._held = 0
        self._scan: LongLineScan | None = None
        """An over-long line whose bytes are no longer held: what is kept of it so far."""
        self._tail = b""
        self._head = b""  # (the first bytes read: compared as the tail is)
        self._ends = LineEnds()
        self.grew = time.monotonic()
        """When a read last brought bytes (a line may not have ended: a long progress bar)."""
        self._magic_read = False
        self._utf16: codecs.IncrementalDecoder | None = None
        """The decoder of a UTF-16 file."""
        self._encoding_known = False
        self._handed = False  # (a record was handed over without its line end: :meth:`quiet_record`)
        self._previous: int | None = None  # (the file rotated away at the last restart: :meth:`gone`)

    def signals(self) -> Iterator[Signal]:
        """Lines, :data:`IDLE` after each poll that brought nothing, :data:`RESTART` on rotation or
        truncation. Never ends by itself; the file stays open until :meth:`close`."""
        while True:
            got_line = False
            for signal in self._read_available():
                got_line = True
                yield signal
            for signal in self._lines(self._ends.settle()) if not got_line else ():
                got_line = True
                yield signal
            if not got_line:
                yield IDLE
                time.sleep(self.poll)

    def rest(self) -> bytes | LongLine:
        """The unterminated text after the last complete line (a record being written, or cut),
        or what is kept of it when it is over-long (the start still held, undecided: as it is)."""
        return self._scan.finish() if self._scan is not None else b"".join(self._parts) + self._ends.held()

    def line_ends(self) -> bool | None:
        """Whether the file's lines were read as ending in a CR alone, as ``check``'s test of its start
        says (None: not known yet)."""
        return self._ends.cr_ends

    def gone(self) -> int | None:
        """A new descriptor of the file read when its path no longer names it (removed, moved, replaced); else None."""
        if self._handle is None:  # (the file rotated away at the last restart, if the watch ends there)
            return os.dup(self._previous) if self._previous is not None else None
        try:
            stat = os.stat(self.path)
            if (stat.st_dev, stat.st_ino) == self._identity:
                return None
        except OSError:
            pass
        return os.dup(self._handle.fileno())

    def close(self) -> None:
        """Close the file being followed."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None
        if self._previous is not None:
            os.close(self._previous)
            self._previous = None

    def _read_available(self) -> Iterator[Signal]:
        if self._handle is None and not self._open():
            return
        assert self._handle is not None
        if self._rewritten():
            yield from self._restarted()
            return
        chunk = self._read_chunk()
        while chunk:
            self._position += len(chunk)
            if not self._magic_read and self._position >= 2:  # (a gzip's first bytes hold no line end)
                self._magic_read = True
                if os.pread(self._handle.fileno(), 2, 0) == _GZIP_MAGIC:
                    yield COMPRESSED
                    return
            if not self._encoding_known:  # (the first chunk: the file's start)
                head = chunk[:8]  # (as check peeks it: a start that may still be a byte order mark, UTF-8's too
                if wide_undecided(head) or len(head) < 3 and UTF8_BOM[:len(head)] == head:  # (read off apart)
                    self._position -= len(chunk)  # or UTF-16 text, read again with what follows it)
                    self._handle.seek(self._position)
                    return
                self._encoding_known = True
                wide = wide_encoding(head)
                if wide is not None:
                    self._utf16 = codecs.getincrementaldecoder(wide.lower())(errors="replace")
                    self._ends.wide = True
            self.grew = time.monotonic()  # (not for a byte order mark read again: the file did not grow)
            self._tail = (self._tail + chunk)[-_TAIL:]
            self._head = self._head if len(self._head) >= _TAIL else (self._head + chunk)[:_TAIL]
            if self._utf16 is not None:
                chunk = self._utf16.decode(chunk).encode("utf-8", errors="replace")
            yield from self._lines(self._ends.take(chunk, self._lf_later))
            chunk = self._read_chunk()
        if self._replaced():
            yield from self._restarted()

    def _read_chunk(self) -> bytes:
        """The next bytes of the file; an error reading it names the file (EIO on a network file
        system: the log's failure, not the output's)."""
        assert self._handle is not None
        try:
            return self._handle.read(_CHUNK)
        except OSError as error:
            if error.filename is not None:
                raise
            raise OSError(error.errno, error.strerror or str(error), self.path) from error

    def _lines(self, chunk: bytes) -> Iterator[bytes | LongLine]:
        if not chunk:
            return
        if self._handed:  # (the rest of the line of a record handed over at a quiet spell: no line of its own,
            own = chunk.find(b"\n") + 1 if chunk[:1] not in b"\r\n" else 2 if chunk.startswith(b"\r\n") else 1
            if chunk[:1] in b"\r\n" or MARKER not in (chunk[:own] if own else chunk):  # text written on after
                self._handed = chunk == b"\r" or not own  # the record: check drops it, MLC020; a record: check
                chunk = chunk[own:] if own else b""  # reads it (MLC010), and so does the watch, rv300)
            else:
                self._handed = False
            if not chunk:
                return
        end = chunk.find(b"\n")
        if end < 0:
            self._hold(chunk)
            return
        first = chunk[:end + 1]
        if self._scan is not None or self._held + len(first) > self.max_line:
            scan = self._scanning()
            scan.add(first)
            yield scan.finish()
        else:
            yield b"".join(self._parts) + first if self._parts else first
        self._parts, self._held, self._scan = [], 0, None
        lines = chunk[end + 1:].split(b"\n")
        rest = lines.pop()
        for line in lines:
            yield line + b"\n" if len(line) < self.max_line else _long_line(line + b"\n", self.max_line)
        if rest:
            self._hold(rest)

    def _lf_later(self) -> bool:
        """Whether the records written after the first MiB begin LF-ended lines more often than not
        (``check``'s look past a progress bar's first MiB, :func:`lf_after`; a UTF-16 file: not looked at)."""
        if self._utf16 is not None or self._handle is None:
            return False
        descriptor = self._handle.fileno()
        offsets = iter(range(PROBE_BYTES, max(self._position, os.fstat(descriptor).st_size), PROBE_BYTES))
        return lf_after(os.pread(descriptor, PROBE_BYTES, offset) for offset in offsets)

    def _hold(self, data: bytes) -> None:
        """Keep the start of an unfinished line, or only its length once it is over-long."""
        if self._scan is not None:
            self._scan.add(data)
            return
        self._parts.append(data)
        self._held += len(data)
        if self._held >= self.max_line:
            self._scanning()

    def _restarted(self) -> Iterator[Signal]:
        """The lines the old file still held here (a start whose line ends were not decided, read as ``check``
        reads the file as it was; the last line, which no LF ended), then :data:`RESTART`."""
        yield from self._lines(self._ends.settle(final=True))
        if rest := self.rest():
            yield rest
        previous = self.gone()  # (rotated: the file read, for a report of it should the watch end here)
        self.close()
        self._previous = previous
        self._parts, self._held, self._scan, self._handed = [], 0, None, False
        self._ends.forget()
        yield RESTART

    def quiet_record(self) -> bytes | None:
        """The line being written when it is a whole ``run_stop`` record that no line end followed (at a
        quiet spell: the last line of a log its job ended without an LF, which ``check`` reads; the watch
        waited for ever), handed over once; the line end that may still come is then no line of its own.
        None: no such line (a record a pause cut holds no whole JSON; any other record waits for its end)."""
        tail = self._ends.tail() or (self._parts[-1][-64:] if self._parts else b"")
        if self._scan is not None or not tail.rstrip().endswith(b"}"):  # (looked at before the bytes are joined)
            return None
        line = b"".join(self._parts) + self._ends.held()
        if b"\r" in line.rstrip(b"\r") or not whole_run_stop(line):  # (a CRLF's CR, its LF to come: the line's)
            return None
        self._parts, self._held, self._handed = [], 0, True
        self._ends.forget()
        return line

    def _scanning(self) -> LongLineScan:
        """The scan of the over-long line being read, begun with the start held so far."""
        if self._scan is None:
            self._scan = LongLineScan(self.max_line)
            self._scan.add(b"".join(self._parts))
            self._parts = []
        return self._scan

    def _rewritten(self) -> bool:
        """True when the bytes already read are no longer there: the file was truncated and
        written again, perhaps past the old end, between two polls."""
        if not self._position or self._handle is None:
            return False
        start = self._position - len(self._tail)
        try:  # (the head too: copytruncate between two polls, its writer on at its own offset, leaves NULs there)
            if os.pread(self._handle.fileno(), len(self._tail), start) != self._tail:
                return True
            head = os.pread(self._handle.fileno(), len(self._head), 0)
            return head != self._head and not head.strip(b"\0")  # (a header rewritten in place is no truncation)
        except OSError:
            return False

    def _open(self) -> bool:
        """Open the path when it names a regular file. A FIFO or a device (a rotation, a link made
        after the start) is as no file: opened without waiting for a writer, closed, and the
        follower idles (``--idle-timeout`` ends it) instead of blocking or reading forever."""
        try:
            descriptor = os.open(self.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except OSError:
            return False
        stat = os.fstat(descriptor)
        if not S_ISREG(stat.st_mode):
            os.close(descriptor)
            return False
        handle = os.fdopen(descriptor, "rb")
        self.close()  # (a file rotated away before: no longer reported)
        self._handle, self._identity, self._position = handle, (stat.st_dev, stat.st_ino), 0
        self._tail, self._head, self._magic_read, self._utf16, self._encoding_known = b"", b"", False, None, False
        self._ends = LineEnds()  # (a new file: its own start)
        return True

    def _replaced(self) -> bool:
        """True when the path now names another file (rotation) or a shorter one (truncation)."""
        try:
            stat = os.stat(self.path)
        except OSError:
            return False  # removed: keep the handle, a new file may appear under the name
        if (stat.st_dev, stat.st_ino) != self._identity:
            return True
        return stat.st_size < self._position


def _long_line(line: bytes, limit: int) -> LongLine:
    """What is kept of a whole over-long line read at once."""
    scan = LongLineScan(limit)
    scan.add(line)
    return scan.finish()
