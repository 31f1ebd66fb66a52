"""The lines without a record of a result file, counted a stretch at a time in C: how many, how
many are noise (not blank), how many end in CRLF, and where the launcher lines among them are.

The block reader (:mod:`mlcheck.read.result_blocks`) counts the stretch of whole lines before each
record line here, as the line reader counts each line (``tests/test_lean_reading.py`` holds the
two to the same statistics): a stretch is made lower case without its blanks in one pass, which
both the noise count and the cheap launcher test read, and only the lines of a stretch that name
a launcher (``run``, ``mpiexec`` or ``deepspeed``, ASCII case ignored) where a blank or a colon
follows the name are matched with :data:`~mlcheck.read.job_starts.LAUNCH_LINE`.
"""

from __future__ import annotations

from typing import Iterator

from mlcheck.read.job_starts import LAUNCH_LINE, LAUNCHER_PARTS, RUN_SCRIPT
from mlcheck.read.line_reader import AnyItem, LineReader

BLANKS = b" \t\r\x0b\x0c"
"""ASCII whitespace but the line end: a line is blank (not noise) when it holds nothing else,
as ``bytes.strip`` and ``bytes.isspace`` decide."""
_LINE_ENDS_AND_TEXT = bytes(0x0A if byte == 0x0A else 0x78 for byte in range(256))
"""Every byte but the line end made ``x``: with the blanks deleted, each line that is not blank
starts a run of ``x`` (one pass and one count, no list of the lines)."""
SQUEEZE = bytes(range(256)).lower().replace(b":", b"-")
"""ASCII letters in lower case, and a colon read as a hyphen: with the blanks deleted, one pass
makes the text both the noise count and the cheap launcher test read (a launcher name is found
where it is, followed by ``-`` for both its option and its ``: launch`` message; deleting blanks
may only join words into one, which the exact test then refuses)."""


class StretchCounts:
    """Lines counted in bulk and not yet added to the reader's statistics."""

    __slots__ = ("lines", "records", "noise", "crlf")

    def __init__(self) -> None:
        self.lines = self.records = self.noise = self.crlf = 0

    def stretch(self, text: bytes) -> None:
        """Count whole lines without a record (the last one may lack its line end: end of file)."""
        self.lines += text.count(b"\n") + (not text.endswith(b"\n"))
        self.crlf += text.count(b"\r\n")
        marked = text.translate(_LINE_ENDS_AND_TEXT, BLANKS)
        self.noise += marked.count(b"\nx") + marked.startswith(b"x")

    def squeezed_stretch(self, text: bytes, squeezed: bytes, crlf_ends: bool) -> None:
        """:meth:`stretch`, given ``squeezed``: ``text`` in lower case without its blanks (see
        :data:`SQUEEZE`; it holds the line ends of ``text``), and whether the chunk has any
        CRLF line end. A blank line is an empty line of ``squeezed``: with no two line ends in a
        row there, only the first and the last line may be one."""
        ended = text.endswith(b"\n")
        lines = squeezed.count(b"\n") + (not ended)
        self.lines += lines
        if crlf_ends:
            self.crlf += text.count(b"\r\n")
        if b"\n\n" in squeezed:
            self.noise += len(squeezed.split())  # (only line ends are left)
        else:
            self.noise += lines - squeezed.startswith(b"\n") - (
                not ended and (not squeezed or squeezed.endswith(b"\n")))

    def add_clean(self, lines: int, crlf: int) -> None:
        """Clean record lines (a record each) counted in the caller's locals."""
        self.lines += lines
        self.records += lines
        self.crlf += crlf

    def add_region(self, lines: int, records: int, noise: int, crlf: int) -> None:
        """A region of record lines (a record each) and lines without one, counted in bulk."""
        self.lines += lines
        self.records += records
        self.noise += noise
        self.crlf += crlf

    def flush(self, reader: LineReader) -> None:
        stats = reader.stats
        stats.lines += self.lines
        stats.records += self.records
        stats.kept += self.records
        stats.noise_lines += self.noise
        stats.crlf_lines += self.crlf
        reader.line_no += self.lines
        self.lines = self.records = self.noise = self.crlf = 0


_AFTER_A_LAUNCHER = (b" ", b"\t", b":")
"""What follows a launcher's name in :data:`~mlcheck.read.job_starts.LAUNCH_LINE` (an option
after blanks, or a colon); every name that holds ``run`` ends with it."""


def launcher_lines(text: bytes, lowered: bytes) -> list[tuple[int, int]]:
    """Where the lines of ``text`` (lines without a record; ``lowered``: its ASCII letters in
    lower case) that launch a job start and end."""
    starts: set[int] = set()
    for part in LAUNCHER_PARTS:
        at = lowered.find(part)
        while at >= 0:
            after = at + len(part)
            if lowered[after:after + 1] not in _AFTER_A_LAUNCHER:  # (running, run_and_time.sh)
                at = lowered.find(part, after)
                continue
            start = lowered.rfind(b"\n", 0, at) + 1
            end = lowered.find(b"\n", at) + 1 or len(text)
            starts.add(start)
            at = lowered.find(part, end)
    at = lowered.find(RUN_SCRIPT)  # (the run script run as a command: LAUNCH_LINE's other form)
    while at >= 0:  # (once a line: each line's start looked for once)
        starts.add(lowered.rfind(b"\n", 0, at) + 1)
        end = lowered.find(b"\n", at) + 1
        at = lowered.find(RUN_SCRIPT, end) if end else -1
    found = []
    for start in sorted(starts):
        end = text.find(b"\n", start) + 1 or len(text)
        if LAUNCH_LINE.match(text[start:end]) is not None:  # (not match(text, start): "^")
            found.append((start, end))
    return found


def counted_and_fed(text: bytes, launches: list[tuple[int, int]], counts: StretchCounts, reader: LineReader) -> Iterator[AnyItem]:
    """A stretch of whole lines without a record that launches a job (``launches``: where its
    launcher lines are, :func:`launcher_lines`): counted, and its launcher lines fed."""
    done = 0
    for start, end in launches:
        if start > done:
            counts.stretch(text[done:start])
        counts.flush(reader)
        yield from reader.feed(text[start:end])
        done = end
    if done < len(text):
        counts.stretch(text[done:])
