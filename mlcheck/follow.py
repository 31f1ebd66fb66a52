"""Follow a file that is still being written, like ``tail -F``: complete lines as they arrive.

The file may not exist yet (the job has not started), may be rotated (renamed and replaced by a
new file) or truncated (rewritten from the start); both of the latter are reported as a
:data:`RESTART` so that the reader starts again from line 1. Between reads the follower sleeps
``poll`` seconds; when nothing new arrived it yields :data:`IDLE`, so the caller can update its
progress, check its deadlines and decide to stop.
"""

from __future__ import annotations

import os
import time
from typing import IO, Iterator, Union

IDLE = "idle"
RESTART = "restart"
Signal = Union[bytes, str]
"""A complete line (bytes, with its ``\\n``), :data:`IDLE` or :data:`RESTART`."""

_CHUNK = 1 << 16
_TAIL = 256


class Follower:
    """Yields the lines of ``path`` as they are written; see the module docstring."""

    def __init__(self, path: str, poll: float = 0.1) -> None:
        self.path = path
        self.poll = poll
        self._handle: IO[bytes] | None = None
        self._identity: tuple[int, int] | None = None
        self._position = 0
        self._pending = b""
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

    def rest(self) -> bytes:
        """The unterminated text after the last complete line (a record being written, or cut)."""
        return self._pending

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
            self.close()
            self._pending = b""
            yield RESTART
            return
        chunk = self._handle.read(_CHUNK)
        while chunk:
            self._position += len(chunk)
            self._tail = (self._tail + chunk)[-_TAIL:]
            data = self._pending + chunk
            lines = data.split(b"\n")
            self._pending = lines.pop()
            for line in lines:
                yield line + b"\n"
            chunk = self._handle.read(_CHUNK)
        if self._replaced():
            self.close()
            self._pending = b""
            yield RESTART

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
