"""Record lines with lines of framework output between them, read in bulk: the block reader's path
for the rest of a block from its first record line (:mod:`mlcheck.read.result_blocks`).

Many result files interleave their records with a line or two of the framework's own output
(``DLL ... epoch 5 | took 55.97 s`` after each ``epoch_stop``): runs of fewer than
:data:`~mlcheck.read.record_runs.MIN_LINES` record lines, each of which the block reader would
read alone, with a count of the stretch of output before it. Here the lines of the rest of the
block are split once, told apart by whether they start with the marker (in C), the records
decoded as :func:`~mlcheck.read.record_runs.bulk_events` decodes a run of them, and the other
lines counted as the line reader counts them (lines, noise, CRLF ends).

It is only taken where it gives what the block reader's line-by-line path gives: every line holds
no marker or starts with one (and holds no other), nothing holds a colour code, no other line is
a launcher's (:func:`~mlcheck.read.noise_counts.launcher_lines`, the line reader's evidence of a
new job), no rank tag was met before (the reader then watches each line for a rank's progress
bar), and every record passes the bulk path's tests. Anything else leaves the rest of the block
to the path before, which reads it as before (``tests/test_mixed_runs.py``).
"""

from __future__ import annotations

import re
from itertools import compress
from operator import methodcaller, not_

from mlcheck.model import Event
from mlcheck.read.job_starts import may_name_a_launcher
from mlcheck.read.line_reader import MARKER_BYTES, TOKEN_BYTES
from mlcheck.read.noise_counts import BLANKS, SQUEEZE, launcher_lines
from mlcheck.read.record_runs import MIN_LINES, events_of_lines

_STARTS_WITH_TOKEN = methodcaller("startswith", TOKEN_BYTES)  # (the official parser's token)
MAX_GAP = 2
"""Lines without a record in a row that a region may hold: a longer stretch ends it (the block
reader counts such a stretch in C; here each line would be a bytes object of its own)."""
_LONG_GAP = re.compile(rb"\n" + rb"[^\n]*\n".join([rb"(?!" + re.escape(MARKER_BYTES) + rb")"] * (MAX_GAP + 1)))
"""The line end after which more than :data:`MAX_GAP` lines in a row do not start with the marker."""


def dense_region_end(chunk: bytes, at: int, last_end: int) -> int:
    """The end of the region from the record line at ``at``: the end of the last record line
    before a stretch of more than :data:`MAX_GAP` lines without a record, or ``last_end`` (the
    end of the chunk's last whole line); 0 when it would hold fewer than
    :data:`~mlcheck.read.record_runs.MIN_LINES` records."""
    gap = _LONG_GAP.search(chunk, at, last_end)
    end = last_end if gap is None else gap.start() + 1
    return end if chunk.count(MARKER_BYTES, at, end) >= MIN_LINES else 0


class MixedRegion:
    """What the lines of a region hold: the events of its records, in order, and its counts."""

    __slots__ = ("events", "lines", "noise")

    def __init__(self, events: list[Event], lines: int, noise: int) -> None:
        self.events, self.lines, self.noise = events, lines, noise


def mixed_region(region: bytes, first_line: int) -> MixedRegion | None:
    """The records and counts of ``region`` (whole lines, each with its line end, the first a
    record line at physical line ``first_line``); None when it must be read as before."""
    lines = region.split(b"\n")
    lines.pop()  # (what follows the last line end: nothing)
    starts = list(map(_STARTS_WITH_TOKEN, lines))
    records = list(compress(lines, starts))
    if len(records) < MIN_LINES or region.count(MARKER_BYTES) != len(records) or b"\x1b" in region:
        return None
    others = b"\n".join(compress(lines, map(not_, starts)))
    squeezed = others.translate(SQUEEZE, BLANKS)  # (as the block reader squeezes a stretch)
    lowered = others.lower()  # (raw output: every form of launcher line, ``srun python train.py`` too)
    if may_name_a_launcher(lowered) and launcher_lines(others, lowered):
        return None
    numbers = compress(range(first_line, first_line + len(lines)), starts)
    events = events_of_lines(records, b"\n".join(records), numbers)
    if events is None:
        return None
    # (blanks deleted, only line ends are white space: a line that is not blank is a word)
    return MixedRegion(events, len(lines), len(squeezed.split()))
