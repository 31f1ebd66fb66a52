"""How ``watch`` (:mod:`mlcheck.read.follow`) reads the line ends of a file still being written: as ``check``
reads them (:mod:`mlcheck.read.cr_line_ends`, its tests of the first 4 KiB and the first MiB).

From the first CR of the start on, what comes is held (the whole lines before it are the same lines either
way) until the test can be made: once 4 KiB have come whose cheap test says LF, once the MiB has come (and
what follows it, as far as it is written), or at a poll that brings nothing new (not while no record's line
has ended: a progress bar's CRs, or a CRLF whose LF is yet to come). At such a poll, what has come is read as
``check`` would read it once the file is written: its cheap test, when the first 4 KiB have come; before, the
records' own line ends (a job that pauses after a banner and its first records, CR-ended: CR line ends, as
``check`` reads the whole file, where the cheap test of that start would say LF). A UTF-8 byte order mark is
not tested (``check`` reads it off first). A first MiB of progress bar drawn with CRs and no record is not
decided on: what follows it is held (16 MiB at most) until a record comes, for ``check``'s look past the MiB.
A UTF-16 or UTF-32 console (``wide``) is decided as ``check`` reads one (:mod:`mlcheck.read.utf16_lines`: a CR,
and no LF or records that end in a CR alone; no cheap test). :attr:`LineEnds.cr_ends` is the outcome: a file
whose start was decided before it was all written may still be read otherwise by ``check``
(:func:`mlcheck.cli.watch_end.report_limits`).
"""

from __future__ import annotations

import re
from typing import Callable

from mlcheck.read.cr_line_ends import HEAD_BYTES, PROBE_BYTES, cr_ends_in, crs_end_lines, lf_start, records_end_in_crs

_ENDED_RECORD = re.compile(rb":::MLLOG[^\r\n]*[\r\n]")  # (a record and its line's end)
UTF8_BOM = b"\xef\xbb\xbf"
_MARKER = b":::MLLOG"
_HELD_BAR = 16 << 20
"""How much of a progress bar without a record is held past the first MiB before the test is made."""


class LineEnds:
    """The line ends of one file followed from its start (a new one for a rotated or truncated file)."""

    def __init__(self) -> None:
        self.cr_ends: bool | None = None
        """Whether lines end in a CR alone (None: not known yet)."""
        self._after_cr = False  # (the last byte given was a CR: an LF first in the next is its pair)
        self._started = False  # (the file's first bytes were taken: a byte order mark is no longer looked for)
        self._record_seen = False  # (a record came while the line ends are not known)
        self._probe_says: bool | None = None  # (the test of the whole first MiB)
        self._characters = 0  # (of a wide file's probe)
        self.wide = False
        """The file is UTF-16 or UTF-32, taken here as its UTF-8 text."""
        self._probe, self._waiting = bytearray(), bytearray()
        """(the file's first MiB; what was read while ``cr_ends`` is not known, not yet given)"""

    def held(self) -> bytes:
        """What is held while the line ends are not known."""
        return bytes(self._waiting)

    def tail(self) -> bytes:
        """The last bytes held (b"": none)."""
        return bytes(self._waiting[-64:])

    def forget(self) -> None:
        """Drop what is held (a truncated or rotated file: read again from its start)."""
        self._waiting = bytearray()

    def take(self, chunk: bytes, lf_later: Callable[[], bool]) -> bytes:
        """``chunk`` with CR line ends turned into LF once the file is known to use them; while that is
        not known, its whole lines before the first CR, the rest held (``lf_later``: ``check``'s look
        past a whole first MiB, :func:`mlcheck.read.cr_line_ends.lf_after`)."""
        if self.cr_ends is None:
            tested = chunk[3:] if not self._started and chunk.startswith(UTF8_BOM) else chunk
            self._started = True
            whole = self._add_to_probe(tested)
            self._waiting += chunk
            self._record_seen = self._record_seen or _MARKER in self._waiting[-len(chunk) - len(_MARKER):]
            if whole and self._probe_says is None:
                self._probe_says = self._tested(bytes(self._probe))  # (once: the first MiB is whole)
            if self._probe_says is not None and (self._record_seen or len(self._waiting) >= _HELD_BAR
                                                 or not self._probe_says or self.wide):  # (check looks past no wide start)
                self.cr_ends = self._probe_says and (self.wide or not lf_later())
            elif whole:  # (a bar's first MiB: held until a record comes)
                return b""
            elif len(self._probe) >= HEAD_BYTES and not self.wide and lf_start(bytes(self._probe[:HEAD_BYTES])):
                self.cr_ends = False
            else:
                cr = self._waiting.find(b"\r")
                end = self._waiting.rfind(b"\n", 0, cr if cr >= 0 else len(self._waiting)) + 1
                released = bytes(self._waiting[:end])
                del self._waiting[:end]
                return released
            chunk, self._waiting, self._probe = bytes(self._waiting), bytearray(), bytearray()
        if not self.cr_ends:
            return chunk
        if self._after_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        self._after_cr = chunk.endswith(b"\r")
        return chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")

    def _add_to_probe(self, tested: bytes) -> bool:
        """Add the start of ``tested`` to the probe; whether it is whole: the first MiB, or a wide file's first
        512 Ki characters (check reads so many of its text; each ``tested`` is whole characters of UTF-8)."""
        if not self.wide:
            self._probe += tested[:PROBE_BYTES - len(self._probe)]
            return len(self._probe) >= PROBE_BYTES
        text = tested.decode("utf-8", "replace")[:PROBE_BYTES // 2 - self._characters]
        self._probe += text.encode("utf-8")
        self._characters += len(text)
        return self._characters >= PROBE_BYTES // 2

    def settle(self, final: bool = False) -> bytes:
        """At a quiet poll, the start held, read as ``check`` would read the file as it is now (b"": nothing
        held, or not yet: no record whose line has ended, or a CR whose LF may follow, see the module);
        ``final``: the file will not grow (rotated away), read as ``check`` reads it."""
        if self.cr_ends is not None or b"\r" not in self._waiting:  # (no CR: the lines are the same either way)
            return b""
        probe = bytes(self._probe[:-1] if self._probe.endswith(b"\r") and not final else self._probe)  # (a last CR:
        if not final and not _ENDED_RECORD.search(probe):  # CRLF's LF may come)
            return b""
        self.cr_ends = self._tested(probe) if len(probe) >= HEAD_BYTES or self.wide or final else records_end_in_crs(probe)
        held, self._waiting, self._probe = bytes(self._waiting), bytearray(), bytearray()
        return self.take(held, lambda: False)

    def _tested(self, probe: bytes) -> bool:
        """``check``'s test of the start ``probe`` (a wide file's: :class:`mlcheck.read.utf16_lines.Utf16Lines`)."""
        return crs_end_lines(probe) if self.wide else cr_ends_in(probe)
