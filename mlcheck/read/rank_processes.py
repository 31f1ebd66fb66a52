"""Processes that one label names one after the other: runs, not ranks of one run.

A label in front of records is read as a rank (``[3] ``, `` 3: ``), but the same text may name
processes that ran one after the other: a ``for seed in ...`` loop whose logger prints the
process id (``[%(process)d]`` reads as ``[31337] ``), or a loop whose runs were logged by
different ranks (task 3 in the first run, task 0 in the next). The records of such a process are
no copies of the logging rank's: the ranks of one run print the same records at the same time,
and such a process printed its own records after the logging rank's run had stopped.

So a rank that has printed nothing yet in its job, whose record is dated after the ``run_stop``
the job's logging rank kept last (nothing kept since), begins a new process: it becomes the
job's logging rank (:meth:`mlcheck.read.rank_copies.RankCopies.new_process`), and its run is read
as the job's next run (:mod:`mlcheck.read.next_run`). A rank that printed only after the run, a
``run_stop`` of its own, is still a copy. The lookahead that chooses a job's logging rank (the
lowest) takes the first to print instead when the ranks it saw printed one after the other, each
after every record of the one before, or in groups one after the other (the workers of each run
of a seed loop, new process ids each time): the lowest of the first group
(:func:`first_of_sequential_ranks`); ranks of one run overlap in time whatever order their
output reaches the console in. And a lookahead stops at a launcher line after a ``run_stop``
(:func:`this_jobs_lines`): the next job's ranks are chosen after it.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator, Sequence

from mlcheck.read.job_starts import LAUNCH_LINE
from mlcheck.read.rawlog import ANSI, Source, read_prefix

_MARKER = b":::MLLOG"
_TIME_MS = re.compile(rb'"time_ms"\s*:\s*(-?[0-9][0-9.eE+-]*)')
_RUN_STOP = re.compile(rb'"key"\s*:\s*"run_stop"')


def record_time(record: bytes) -> float | None:
    """The ``time_ms`` of a record's text (None when it has none that reads as a number)."""
    found = _TIME_MS.search(record)
    if found is None:
        return None
    try:
        return float(found.group(1))
    except ValueError:
        return None


def begins_a_process(record: bytes, stopped_at: float) -> bool:
    """Whether a record of a rank that has printed nothing yet in its job is another process's:
    dated after the logging rank's ``run_stop`` (at ``stopped_at``), and not a ``run_stop``."""
    time = record_time(record)
    return time is not None and time > stopped_at and _RUN_STOP.search(record) is None


def this_jobs_lines(lines: list[bytes]) -> list[bytes]:
    """The lines of a lookahead up to the first launcher line after a ``run_stop`` record: a seed
    loop's next job, whose ranks are chosen again after that line (the next job may be logged by
    another rank than this one). A launcher line before a ``run_stop`` ends nothing here (a run
    script's own ``srun`` steps before it launches the training)."""
    return next(job_segments(lines))


def last_job_start(lines: Sequence[object]) -> int:
    """The index of the launcher line that begins the last job of :func:`job_segments` among
    ``lines`` (others than bytes, over-long lines, are skipped); 0 for one job."""
    start = 0
    for start in _job_starts(lines):
        pass
    return start


def job_segments(lines: list[bytes]) -> Iterator[list[bytes]]:
    """The lines of a lookahead cut at each launcher line after a ``run_stop`` record: the jobs
    whose ranks are chosen each on its own (the first, then each left when the one before is
    replayed: :func:`mlcheck.read.reader.replay_lookahead`)."""
    start = 0
    for index in _job_starts(lines):
        yield lines[start:index]
        start = index
    yield lines[start:]


def _job_starts(lines: Sequence[object]) -> Iterator[int]:
    """The index of each launcher line that follows a ``run_stop`` record (not the first)."""
    stopped = False
    for index, raw in enumerate(lines):
        if not isinstance(raw, bytes):
            continue
        if stopped and LAUNCH_LINE.match(raw) is not None:
            stopped = False
            yield index
        stopped = stopped or (_MARKER in raw and _RUN_STOP.search(raw) is not None)


_Span = list[float]  # [first line, last line, first time, last time]


def first_of_sequential_ranks(lines: Iterable[bytes], ranks: dict[int, set[int]]) -> dict[int, int]:
    """Job -> its first rank to print, for the jobs of ``ranks`` (a lookahead's) whose ranks
    printed one after the other (each rank's records dated after every record of the rank
    before, in the order they come), or in groups one after the other, each group but the last
    with a ``run_stop`` (the workers of each run of a seed loop)."""
    several = {job for job, seen in ranks.items() if len(seen) > 1}
    if not several:
        return {}
    spans: dict[Source, _Span] = {}
    stopped: set[int] = set()  # (the ranks that printed a run_stop)
    sources: dict[bytes, Source | None] = {}
    for index, raw in enumerate(lines):
        at = raw.find(_MARKER)
        if at <= 0 or raw.find(_MARKER, at + 8) >= 0:
            continue
        head = raw[:at]
        if head not in sources:
            sources[head] = read_prefix(ANSI.sub("", head.decode("utf-8", errors="replace"))).source \
                if len(sources) < 4096 else None  # (a coloured label: as the reader reads it)
        source = sources[head]
        time = record_time(raw[at:])
        if source is None or source[0] not in several or time is None:
            continue
        if _RUN_STOP.search(raw, at) is not None:
            stopped.add(source[1])
        span = spans.get(source)
        if span is None:
            spans[source] = [index, index, time, time]
        else:
            span[1], span[2], span[3] = index, min(span[2], time), max(span[3], time)
    first: dict[int, int] = {}
    for job in sorted(several):
        ordered = sorted((span, source[1]) for source, span in spans.items() if source[0] == job)
        groups = _overlapping(ordered)  # (each group after every record of the one before)
        if len(groups) > 1 and (len(groups) == len(ordered) or all(members & stopped for _, members in groups[:-1])):
            first[job] = min(groups[0][1])
    return first


def _overlapping(ordered: list[tuple[_Span, int]]) -> list[tuple[_Span, set[int]]]:
    """Spans (in the order of their first line) merged where they overlap in lines or in time:
    the ranks of one run (several workers of a seed loop's run, each run's process ids new)."""
    groups: list[tuple[_Span, set[int]]] = []
    for span, rank in ordered:
        if groups and (span[0] <= groups[-1][0][1] or span[2] <= groups[-1][0][3]):
            last, members = groups[-1]
            members.add(rank)
            groups[-1] = ([last[0], max(last[1], span[1]), min(last[2], span[2]), max(last[3], span[3])], members)
        else:
            groups.append((list(span), {rank}))
    return groups
