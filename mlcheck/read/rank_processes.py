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
after every record of the one before (:func:`first_of_sequential_ranks`); ranks of one run
overlap in time whatever order their output reaches the console in.
"""

from __future__ import annotations

import re
from typing import Iterable

from mlcheck.read.rawlog import Source, read_prefix

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


_Span = list[float]  # [first line, last line, first time, last time]


def first_of_sequential_ranks(lines: Iterable[bytes], ranks: dict[int, set[int]]) -> dict[int, int]:
    """Job -> its first rank to print, for the jobs of ``ranks`` (a lookahead's) whose ranks
    printed one after the other (each rank's records dated after every record of the rank
    before, in the order they come)."""
    several = {job for job, seen in ranks.items() if len(seen) > 1}
    if not several:
        return {}
    spans: dict[Source, _Span] = {}
    sources: dict[bytes, Source | None] = {}
    for index, raw in enumerate(lines):
        at = raw.find(_MARKER)
        if at <= 0 or raw.find(_MARKER, at + 8) >= 0:
            continue
        head = raw[:at]
        if head not in sources:
            sources[head] = read_prefix(head.decode("utf-8", errors="replace")).source if len(sources) < 4096 else None
        source = sources[head]
        time = record_time(raw[at:])
        if source is None or source[0] not in several or time is None:
            continue
        span = spans.get(source)
        if span is None:
            spans[source] = [index, index, time, time]
        else:
            span[1], span[2], span[3] = index, min(span[2], time), max(span[3], time)
    first: dict[int, int] = {}
    for job in sorted(several):
        ordered = sorted((span, source[1]) for source, span in spans.items() if source[0] == job)
        if len(ordered) > 1 and all(later[0][0] > earlier[0][1] and later[0][2] > earlier[0][3]
                                    for earlier, later in zip(ordered, ordered[1:])):
            first[job] = ordered[0][1]
    return first
