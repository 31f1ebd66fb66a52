"""Follow a file that is still being written, like ``tail -F``: complete lines as they arrive.

The file may not exist yet (the job has not started), may be rotated (renamed and replaced by a
new file) or truncated (rewritten from the start); both of the latter are reported as a
:data:`RESTART` so that the reader starts again from line 1. Between reads the follower sleeps
``poll`` seconds; when nothing new arrived it yields :data:`IDLE`, so the caller can update its
progress, check its deadlines and decide to stop.

What is held of one line is bounded: a line longer than ``max_line`` bytes (16 MiB, as in the batch
reader) is not kept; its length is yielded instead once it ends, so that the reader can report it
(MLC014) and memory stays flat whatever the job writes.
"""

from __future__ import annotations

import os
import time
from typing import IO, Iterator, Union

IDLE = "idle"
RESTART = "restart"
Signal = Union[bytes, int, str]
"""A complete line (bytes, with its ``\\n``), the length of an over-long line that was not kept
(int), :data:`IDLE` or :data:`RESTART`."""

_CHUNK = 1 << 16
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
        self._skipped: int | None = None
        """The length so far of an over-long line whose bytes are no longer held."""
        self._tail = b""

    def signals(self) -> Iterator[Signal]:
        """Lines, :data:`IDLE` after each poll that brought nothing, :data:`RESTART` on rotation or
        truncation. Never ends by itself."""
        try:
            while True:
                got_line = False
                for signal in self._read_available():
                    got_line = True
                    yield signal
                if not got_line:
                    yield IDLE
                    time.sleep(self.poll)
        finally:
            self.close()

    def rest(self) -> bytes | int:
        """The unterminated text after the last complete line (a record being written, or cut),
        or its length when it is over-long."""
        return self._skipped if self._skipped is not None else b"".join(self._parts)

    def close(self) -> None:
        """Close the file being followed."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def _read_available(self) -> Iterator[Signal]:
        if self._handle is None and not self._open():
            return
        assert self._handle is not None
        if self._rewritten():
            self._restart()
            yield RESTART
            return
        chunk = self._handle.read(_CHUNK)
        while chunk:
            self._position += len(chunk)
            self._tail = (self._tail + chunk)[-_TAIL:]
            yield from self._lines(chunk)
            chunk = self._handle.read(_CHUNK)
        if self._replaced():
            self._restart()
            yield RESTART

    def _lines(self, chunk: bytes) -> Iterator[bytes | int]:
        end = chunk.find(b"\n")
        if end < 0:
            self._hold(chunk)
            return
        first = chunk[:end + 1]
        if self._skipped is not None or self._held + len(first) > self.max_line:
            yield (self._skipped or self._held) + len(first)
        else:
            yield b"".join(self._parts) + first if self._parts else first
        self._parts, self._held, self._skipped = [], 0, None
        lines = chunk[end + 1:].split(b"\n")
        rest = lines.pop()
        for line in lines:
            yield line + b"\n" if len(line) < self.max_line else len(line) + 1
        if rest:
            self._hold(rest)

    def _hold(self, data: bytes) -> None:
        """Keep the start of an unfinished line, or only its length once it is over-long."""
        if self._skipped is not None:
            self._skipped += len(data)
            return
        self._parts.append(data)
        self._held += len(data)
        if self._held >= self.max_line:
            self._parts, self._skipped = [], self._held

    def _restart(self) -> None:
        self.close()
        self._parts, self._held, self._skipped = [], 0, None

    def _rewritten(self) -> bool:
        """True when the bytes already read are no longer there: the file was truncated and
        written again, perhaps past the old end, between two polls."""
        if not self._position or self._handle is None:
            return False
        start = self._position - len(self._tail)
        try:
            return os.pread(self._handle.fileno(), len(self._tail), start) != self._tail
        except OSError:
            return False

    def _open(self) -> bool:
        try:
            handle = open(self.path, "rb")
        except OSError:
            return False
        stat = os.fstat(handle.fileno())
        self._handle, self._identity, self._position = handle, (stat.st_dev, stat.st_ino), 0
        self._tail = b""
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
