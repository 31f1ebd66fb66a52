"""What the text in front of a record decides, remembered per distinct text: which process printed
it, whether the record is kept or is another rank's copy, whether it opens a job whose logging
rank is not known yet. Rank tags repeat on every line, so each is read once (at most 4096 are
remembered: timestamps and progress bars do not repeat).
"""

from __future__ import annotations

import dataclasses
import re
from bisect import bisect_left, bisect_right

from mlcheck.read.job_starts import JOB_END, JOB_END_HINT
from mlcheck.read.rank_copies import RankCopies
from mlcheck.read.rank_labels import LOCAL_RANKS, number
from mlcheck.read.rawlog import ANSI, TAG, Prefix, Source, read_prefix, second_stream

_MARKER = b":::MLLOG"
_REMEMBERED = 4096
SRUN_JOB = -1
"""The job of ``srun --label``'s tasks (:func:`mlcheck.read.rank_labels.label_source`)."""
_SRUN_TASKS = re.compile(rb"srun: error: \S+: tasks? \[?([\d,-]{1,512})\]?: ")
"""srun's word that some of its tasks exited (``srun: error: node002: tasks 4-7: Exited with exit
code 1``; one line per node): the others may print on. A longer list is no task list (the job's end)."""
_SPANS = 256
"""Spans of a task list read, at most (each is a lookup among the tasks that print)."""


def srun_tasks_ended(raw: bytes) -> list[tuple[int, int]] | None:
    """The spans of tasks that srun's line says exited (``task 3``, ``tasks 0-3,6``, ``tasks
    [4-7]``), each once, the first :data:`_SPANS` in order; None for another line. Spans, not a
    set of tasks: a line may name a range of billions."""
    found = _SRUN_TASKS.match(raw)
    if found is None:
        return None
    spans = set()
    for part in found.group(1).split(b","):
        low, _, high = part.partition(b"-")
        if low.isdigit() and (not high or high.isdigit()):
            spans.add((number(low), number(high or low)))
    return sorted(spans)[:_SPANS]


class PrefixDecisions:
    """The decisions for one file; ``copies`` knows the logging rank of each job."""

    def __init__(self, copies: RankCopies, duplicates: set[tuple[int, int, str]] | None = None) -> None:
        self.copies = copies
        self.duplicates = set(duplicates or ())
        """``(job, rank, stream)`` whose records repeat the rank's other stream (read as copies)."""
        self.known: dict[bytes, tuple[Prefix, bool]] = {}
        """Prefix text -> (what it says, whether its record is kept)."""
        self.copy_sources: dict[bytes, Source] = {}
        """Bare tags of sources whose records are copies (the reader's fast path)."""
        self._heads_of_known_jobs: set[bytes] = set()
        self.relaunched = False
        """A launcher line made the jobs' logging ranks forgotten, and no lookahead told them since."""
        self.ended: dict[int, set[int]] = {}
        """The ranks of each job that said their end (:meth:`job_ended`), till they are forgotten."""

    def decide(self, text: bytes, record: bytes = b"") -> tuple[Prefix, bool]:
        """What ``text`` (the bytes before a record) says, and whether the record is kept
        (``record``: its text, where it may begin a process under a rank label)."""
        found = self.known.get(text)
        if found is not None:
            return found
        prefix = self.mapped(read_prefix(text.decode("utf-8", errors="replace")))
        # The logging rank of a job changes only where another process begins: the decision is kept till then.
        decided = (prefix, self.kept_or_new(prefix.source, record))
        if len(self.known) < _REMEMBERED:
            self.known[text] = decided
            if not decided[1] and not prefix.timestamp and not prefix.extra_text:
                assert prefix.source is not None  # untagged records are always kept
                self.copy_sources[text] = prefix.source
        return decided

    def kept_or_new(self, source: Source | None, record: bytes) -> bool:
        """Whether a record of ``source`` is kept: it is the logging rank's, or it begins another
        process under the label (:mod:`mlcheck.read.rank_processes`; the decisions remembered
        are then forgotten)."""
        if self.copies.is_kept(source):
            return True
        if not record or source is None or not self.copies.new_process(source, record):
            return False
        self.known.clear()
        self.copy_sources.clear()
        return True

    def forget_jobs(self) -> None:
        """A launcher line began another job: its labels are decided again (:meth:`RankCopies.forget_jobs`)."""
        self.copies.forget_jobs()
        self.relaunched = True
        self.ended.clear()
        self.known.clear()
        self.copy_sources.clear()
        self._heads_of_known_jobs.clear()

    def job_ended(self, raw: bytes, boundary: bool) -> None:
        """At a launcher line or a job's end (``boundary``: MLC024 there) the jobs' logging ranks
        are forgotten (chosen again); but where one of several ranks ended (:meth:`one_rank_ended`),
        only once every rank that printed records since has said its end (the ranks' output after
        the first end line is still their copies; the next trial's is compared afresh). The caller
        asks it of a line that is no boundary too while some ranks said theirs (:attr:`ended`)."""
        source = self.one_rank_ended(raw)
        tasks = srun_tasks_ended(raw) if source is None and self.copies.knows_job(SRUN_JOB) else None
        if source is None and tasks is None:
            if boundary:
                self.forget_jobs()
            return
        job = SRUN_JOB if source is None else source[0]
        printing = self.copies.ranks.get(job, set()) | {  # (the lookahead's, and those decided since)
            p.source[1] for p, _kept in self.known.values() if p.source is not None and p.source[0] == job}
        ended = self.ended.setdefault(job, set())
        if source is not None:
            ended.add(source[1])
        elif tasks is not None:  # (srun names the tasks that exited: the others print on, their copies still copies)
            # (torchrun in a task: (task + 1) * LOCAL_RANKS + local)
            by_task = sorted((rank // LOCAL_RANKS - 1 if rank >= LOCAL_RANKS else rank, rank) for rank in printing)
            numbers = [task for task, _ in by_task]
            for low, high in tasks:
                ended.update(rank for _, rank in by_task[bisect_left(numbers, low):bisect_right(numbers, high)])
        if printing <= ended:
            self.forget_jobs()

    def one_rank_ended(self, raw: bytes) -> Source | None:
        """The rank whose label a job's end (:data:`~mlcheck.read.job_starts.JOB_END`) is said
        behind, of a job whose other ranks print copies: the run script that each task runs
        (``srun``, ``mpirun``) prints ``ENDING TIMING RUN AT`` when its own process exits, and the
        other ranks' output (a block-buffered stdout flushed at exit) may come after it. Only that
        process ended: the copies after it are still copies (a run that begins again is told by
        its records, :mod:`mlcheck.read.next_run`). None for another line."""
        found = JOB_END.search(raw) if JOB_END_HINT(raw) else None
        if found is None or found.start() == 0:
            return None
        source = read_prefix(ANSI.sub("", raw[:found.start()].decode("utf-8", errors="replace"))).source
        return source if source is not None and self.copies.knows_job(source[0]) and self.copies.expects_copies(source) \
            else None

    def mapped(self, prefix: Prefix) -> Prefix:
        """A rank's duplicate stream is compared as copies, under a source of its own."""
        source = prefix.source
        if source is not None and self.duplicates and (*source, prefix.stream) in self.duplicates:
            return dataclasses.replace(prefix, source=second_stream(source))
        return prefix

    def starts_a_job(self, raw: bytes) -> bool:
        """Whether this line holds a record of a job (or ``srun`` task set) whose logging rank is
        not decided yet: the caller then looks ahead again before feeding it (a second run of
        the file started by another mpirun, after the first lookahead)."""
        at = raw.find(_MARKER)
        if at < 0:
            return False
        if raw.find(_MARKER, at + 8) >= 0:  # several records: look at every tag
            text = raw.decode("utf-8", errors="replace")
            return any(not self.copies.knows_job(number(tag.group(1))) for tag in TAG.finditer(text))
        head = raw[:at]
        if at == 0 or head in self.known or head in self._heads_of_known_jobs:
            return False
        source = read_prefix(ANSI.sub("", head.decode("utf-8", errors="replace"))).source
        if source is None or self.copies.knows_job(source[0]):
            if len(self._heads_of_known_jobs) < _REMEMBERED:  # colour codes, timestamps
                self._heads_of_known_jobs.add(head)
            return False
        return True
