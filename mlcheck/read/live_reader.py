"""The reader for a log that is still being written (``mlcheck watch``): the lines the
follower (:mod:`mlcheck.read.follow`) brings go through the line reader every command uses,
after a short lookahead that finds the logging rank of each job, as ``check`` finds it; lines a
log driver wrapped in JSON are taken out first (:mod:`mlcheck.read.json_envelopes`), the lines
below a rank file's ``tail -v`` header are given its name (:mod:`mlcheck.read.file_headers`), and a
rank's line that mpirun's chunks cut is joined again (:mod:`mlcheck.read.tag_chunks`), and so is
a record that another stream's line cut (:mod:`mlcheck.read.cut_records`), as ``check`` reads
them: while a chunk or a cut record waits for its line's rest the lines after it are held back.
"""

from __future__ import annotations

from typing import Iterator

from mlcheck.read.json_envelopes import Envelopes
from mlcheck.read.file_headers import FileHeaders
from mlcheck.read.tag_chunks import TagChunks
from mlcheck.read.cut_records import CutRecords
from mlcheck.read.rank_processes import job_segments, last_job_start
from mlcheck.read.rawlog import logging_ranks
from mlcheck.read.reader import MARKER_BYTES, AnyItem, LineReader, feed_line, looked_ahead, replay_lookahead
from mlcheck.read.long_lines import LongLine


class LiveReader:
    """The reader, after a short lookahead: the first burst of lines (up to the first poll that
    brings nothing new) tells which rank of each job is the logging rank, as in ``check``."""

    LOOKAHEAD = 4000
    RANK_ZERO_POLLS = 100
    """Idle polls a lookahead waits for the rank 0 of each job (10 s at the default poll: the
    ranks of a job may start printing seconds apart)."""
    CUT_POLLS = 20
    """Idle polls a cut record waits for its rest (2 s at the default poll): a block-buffered
    stdout brings it with its next block, a process that died (MLC023) never does."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.pending: list[bytes | LongLine] = []
        """Lines of the lookahead; an over-long line as what is kept of it."""
        self.reader: LineReader | None = None
        self.pending_records = 0
        self.idle_polls = 0
        self.envelopes = Envelopes()
        self.headers = FileHeaders()
        self.chunks = TagChunks()
        self.cuts = CutRecords()
        self.cut_polls = 0
        self._begun = False
        self.whole = True
        """The next :meth:`flush` ends the whole lookahead (else it keeps the last job's lines, whose
        rank 0 has not printed yet, as a lookahead of their own)."""

    def begins(self) -> bool:
        """True at the first line given, once (the watch says where it begins reading)."""
        begins, self._begun = not self._begun, True
        return begins

    @property
    def line_no(self) -> int:
        return (self.reader.line_no if self.reader is not None else 0) + len(self.pending)

    def add(self, line: bytes | LongLine) -> Iterator[AnyItem]:
        """One line from the follower: its bytes, or what is kept of an over-long line. As ``check``
        reads them: out of a log driver's envelope, a rank's chunks joined (a chunk held back
        until its rank's line ends)."""
        self.cut_polls = 0
        if not isinstance(line, bytes):
            for released in self.chunks.release():
                yield from self._cut(released)
            for released in self.cuts.release():
                yield from self._add(released)
            yield from self._add(line)
            return
        for joined in self.chunks.line(self.headers.line(self.envelopes.line(line))):
            yield from self._cut(joined)
        if self.reader is not None:
            self.reader.stats.note_joins(self.chunks.joined, self.envelopes.count, self.cuts.joined)

    def _cut(self, line: bytes) -> Iterator[AnyItem]:
        for joined in self.cuts.line(line):
            yield from self._add(joined)

    def idle(self) -> Iterator[AnyItem]:
        """At an idle poll: the line held back behind a chunk waiting for its rest, and a cut
        record after :data:`CUT_POLLS` idle polls without its rest."""
        for line in self.chunks.hand_over():
            yield from self._cut(line)
        self.cut_polls = self.cut_polls + 1 if self.cuts.held else 0
        if self.cut_polls >= self.CUT_POLLS:
            for released in self.cuts.release():
                yield from self._add(released)

    def finish(self) -> Iterator[AnyItem]:
        """At the end of the watch: what is held back, then the end of the lookahead."""
        for released in self.chunks.release():
            yield from self._cut(released)
        for released in self.cuts.release():
            yield from self._add(released)
        yield from self.flush()

    def _add(self, line: bytes | LongLine) -> Iterator[AnyItem]:
        reader = self.reader
        if reader is not None and not self.pending and not (
                isinstance(line, bytes) and reader.prefixes.starts_a_job(line)):
            yield from feed_line(reader, line)
            return
        self.pending.append(line)  # the first lines, or those from a new job's first record
        if isinstance(line, bytes) and MARKER_BYTES in line:
            self.pending_records += 1
        if self.pending_records >= self.LOOKAHEAD or len(self.pending) >= 25 * self.LOOKAHEAD:
            yield from self.flush()

    def flush(self) -> Iterator[AnyItem]:
        """End a lookahead (at an idle poll once a record was seen, or at the end)."""
        if self.reader is not None and not self.pending:
            return
        cut = len(self.pending) if self.whole else last_job_start(self.pending)
        pending, self.pending, self.idle_polls, self.whole = self.pending[:cut], self.pending[cut:], 0, True
        self.pending_records = sum(1 for line in self.pending if isinstance(line, bytes) and MARKER_BYTES in line)
        fresh = self.reader is None
        self.reader = looked_ahead(self.reader, self.path, pending, keep_text=False)
        if fresh:
            self.reader.stats.note_joins(self.chunks.joined, self.envelopes.count, self.cuts.joined)
        # (as check replays it: after a launcher line, the next job's ranks are chosen from the lines left)
        yield from replay_lookahead(self.reader, pending, self.path, keep_text=False, keep_copies=False, promote=None)

    def ready(self) -> bool:
        """Whether an idle poll may end the lookahead: records came, and every job in them has
        shown its rank 0 (a rank that prints first is not taken for the logging rank), or
        :data:`RANK_ZERO_POLLS` idle polls passed without it (output without a rank 0: the lowest
        rank is the logging rank, as in ``check``)."""
        if not self.pending_records:
            return False
        self.idle_polls += 1
        if self.idle_polls >= self.RANK_ZERO_POLLS:
            return True
        # (each job of the lookahead: a seed loop's next job, after a launcher line, has its own rank 0;
        # the jobs before one still without it end their lookahead, its lines begin one of their own)
        shown = [all(0 in ranks for ranks in logging_ranks(segment).values()) for segment in job_segments(self._texts())]
        partial = not all(shown) and len(shown) > 1 and all(shown[:-1])
        self.whole = not partial
        return all(shown) or partial

    def _texts(self) -> list[bytes]:
        return [line for line in self.pending if isinstance(line, bytes)]
