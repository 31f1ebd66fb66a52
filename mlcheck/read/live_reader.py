"""The reader for a log that is still being written (``mlcheck watch``): the lines the
follower (:mod:`mlcheck.read.follow`) brings go through the line reader every command uses,
after a short lookahead that finds the logging rank of each job, as ``check`` finds it; lines a
log driver wrapped in JSON are taken out first (:mod:`mlcheck.read.json_envelopes`). A rank's
line that mpirun's chunks cut, which ``check`` joins again, is read as it is: a follower cannot
wait for a line's rest without holding back what it reports.
"""

from __future__ import annotations

from typing import Iterator

from mlcheck.read.json_envelopes import Envelopes
from mlcheck.read.rank_processes import first_of_sequential_ranks
from mlcheck.read.rawlog import duplicate_streams, logging_ranks
from mlcheck.read.reader import MARKER_BYTES, AnyItem, LineReader, feed_line


class LiveReader:
    """The reader, after a short lookahead: the first burst of lines (up to the first poll that
    brings nothing new) tells which rank of each job is the logging rank, as in ``check``."""

    LOOKAHEAD = 4000
    RANK_ZERO_POLLS = 20
    """Idle polls a lookahead waits for the rank 0 of each job (2 s at the default poll)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.pending: list[bytes | int] = []
        """Lines of the lookahead; an over-long line is held as its length only."""
        self.reader: LineReader | None = None
        self.pending_records = 0
        self.idle_polls = 0
        self.envelopes = Envelopes()

    @property
    def line_no(self) -> int:
        return (self.reader.line_no if self.reader is not None else 0) + len(self.pending)

    def add(self, line: bytes | int) -> Iterator[AnyItem]:
        """One line from the follower: its bytes, or the length of an over-long line."""
        if isinstance(line, bytes):  # (Docker's json-file lines, logging exports: as check reads them)
            line = self.envelopes.line(line)
            if self.reader is not None:
                self.reader.stats.unwrapped_lines = self.envelopes.count
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
        texts = self._texts()
        ranks = logging_ranks(texts)
        first = first_of_sequential_ranks(texts, ranks)
        duplicates = duplicate_streams(texts, ranks)
        if self.reader is None:
            self.reader = LineReader(self.path, ranks, duplicates=duplicates, first=first)
            self.reader.stats.unwrapped_lines = self.envelopes.count
        else:
            self.reader.copies.add_jobs(ranks, first)
            self.reader.prefixes.duplicates |= {d for d in duplicates if d[0] in ranks}
        pending, self.pending, self.pending_records, self.idle_polls = self.pending, [], 0, 0
        for line in pending:
            yield from feed_line(self.reader, line)

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
        return all(0 in ranks for ranks in logging_ranks(self._texts()).values())

    def _texts(self) -> list[bytes]:
        return [line for line in self.pending if isinstance(line, bytes)]
