"""A physical line longer than :data:`MAX_LINE_BYTES`, read past in bounded pieces: its length,
its pieces between carriage returns that hold a record, and how many records were lost. A line
followed while a job writes it (``mlcheck watch``) is known by its length alone.

Such a line is most often a progress bar redrawn with ``\\r`` hundreds of thousands of times
(``tqdm`` writing to a file), the record that followed the bar glued after its last ``\\r``. The
official checkers read their logs in Python's universal-newline mode, where each ``\\r`` ends a
line: for them the bar is many short lines of noise and the record after it a line of its own.
mlcheck holds at most the limit of one line, so the bar is skipped and the pieces between the
``\\r`` that hold a record are kept, within the limit all told, and read as the line (as a shorter
line with a bar is read). A piece over the limit (a line without ``\\r`` is one piece) keeps the
record after its last marker, if that is within the limit: the official parser reads a line from
its last marker (``re.sub(".*" + TOKEN, TOKEN, line)``), so it reads that record too. Only a record
on a piece not kept (before the last marker of a piece over the limit, or over the limit itself)
is lost: that is the MLC014 error; an over-long line that lost no record is a warning.
"""

from __future__ import annotations

from typing import NamedTuple

MARKER = b":::MLLOG"
_TOKEN = MARKER + b" "
MAX_LINE_BYTES = 16 * 1024 * 1024
"""A longer physical line is skipped but for its pieces that hold a record (MLC014): what is held
of one line stays bounded."""


class LongLine(NamedTuple):
    """What is kept of an over-long physical line."""

    length: int
    text: bytes | None
    """The pieces between its ``\\r`` that hold a record, each after a ``\\r``, and the line end;
    None when none is kept."""
    lost: int
    """How many ``:::MLLOG`` markers were on the pieces not kept."""


class LongLineScan:
    """Fed the bytes of one over-long line in order, in pieces of any size."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.length = 0
        self.markers = 0
        self.carry = b""  # (the last bytes of the previous piece: a marker split between two)
        self.part: list[bytes] | None = []  # (the text since the last \r; None: over the limit)
        self.part_size = 0
        self.tail: list[bytes] | None = None  # (a part over the limit: what follows its last marker)
        self.tail_size = 0
        self.edge = b""  # (a part over the limit: its last bytes, a marker split between two pieces)
        self.kept: list[bytes] = []
        self.kept_size = 0
        self.seen_return = False
        self.ends_line = False

    def add(self, piece: bytes) -> None:
        self.length += len(piece)
        if piece:
            self.ends_line = piece.endswith(b"\n")
        joined = self.carry + piece
        self.markers += joined.count(MARKER)
        self.carry = joined[-(len(MARKER) - 1):]
        start = 0
        at = piece.find(b"\r")
        while at >= 0:
            self.seen_return = True
            self._grow(piece[start:at])
            self._end_part()
            start = at + 1
            at = piece.find(b"\r", start)
        self._grow(piece[start:])

    def _grow(self, data: bytes) -> None:
        if not data:
            return
        if self.part is None:
            self._grow_tail(data)
            return
        self.part_size += len(data)
        if self.part_size > self.limit:
            held, self.part = self.part, None
            for piece in (*held, data):
                self._grow_tail(piece)
        else:
            self.part.append(data)

    def _grow_tail(self, data: bytes) -> None:
        joined = self.edge + data if self.edge else data
        at = joined.rfind(_TOKEN)  # (the parser's token, its space too: ``:::MLLOGger`` in a string is none)
        if at >= 0:
            after = joined[at + len(MARKER):]
            self.tail, self.tail_size = [after], len(after)
        elif self.tail is not None:
            self.tail.append(data)
            self.tail_size += len(data)
        if self.tail is not None and self.tail_size + len(MARKER) >= self.limit:
            self.tail = None
        self.edge = joined[-(len(_TOKEN) - 1):]

    def _end_part(self) -> None:
        if self.part is not None:
            part = b"".join(self.part)
        else:  # (over the limit: the record after its last marker, which the official parser reads)
            part = MARKER + b"".join(self.tail) if self.tail is not None else b""
        if MARKER in part and self.kept_size + len(part) < self.limit:
            self.kept.append(part)
            self.kept_size += len(part) + 1
        self.part, self.part_size, self.tail, self.tail_size, self.edge = [], 0, None, 0, b""

    def finish(self) -> LongLine:
        end = b""
        if self.seen_return:
            if self.part is not None and self.part[-1:] == [b"\n"] and self.part_size == 1:
                end = b"\n"  # (the line ends in \r\n)
            else:
                end = b"\n" if self.ends_line else b""
                self._end_part()
        elif self.part is None:  # (one piece over the limit: its last record, as the parser reads it)
            end = b"\n" if self.ends_line else b""
            self._end_part()
        if not self.kept:
            return LongLine(self.length, None, self.markers)
        text = b"".join(b"\r" + part.rstrip(b"\n") for part in self.kept) + end
        return LongLine(self.length, text, self.markers - text.count(MARKER))
