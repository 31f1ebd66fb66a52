"""Turn the stream of events of one file into runs, keeping memory bounded.

A file is one run, as the official checker reads a result file: every rank's ``cache_clear`` and
``init_start``, a repeated ``submission_*`` block, the records after ``run_stop`` (final evals,
``submission_*`` lines written by an evaluation process) all belong to it; duplicates and order
problems are findings of the rules the round has (MLC106/MLC107, MLC305, ...). Only raw job
output holds several runs, and only where the reader found evidence that a new job began (an
MLC024 note: a launcher line or another MPI job number, see :mod:`mlcheck.read.job_starts`; before
a run has begun, at the record that repeats its preparation, :class:`~mlcheck.read.run_boundaries.RunBoundaries`) or a
run began after the last one's run_stop (:mod:`mlcheck.read.next_run`); a file named
``result_<i>.txt`` is one run even then.
"""

from __future__ import annotations

import dataclasses
from operator import attrgetter
from typing import Iterable, Iterator, Mapping, Protocol, Sequence, cast

from mlcheck.model import Event, Finding, Run
from mlcheck.read import raw_output_rules as raw_output
from mlcheck.read.job_starts import ANOTHER_RUN
from mlcheck.read.next_run import NextRunStart
from mlcheck.read.run_boundaries import JOB_STARTED as _JOB_STARTED, RunBoundaries
from mlcheck.read.run_windows import WATCHED_KEYS
from mlcheck.read.finding_cap import FindingCap
from mlcheck.read.reader import Batch, LogItem
from mlcheck.read.run_builder import RunBuilder

_CUT_RECORD = frozenset({"MLC023", "MLC003"})
"""A record cut (raw output; MLC003 where the output has no rank tags) on the line where the next
run's first record follows it: the run before's."""


def split_runs(items: Iterable[LogItem], path: str, one_run: bool = False) -> tuple[list[Run], list[Finding]]:
    """Group the events of a file into runs; return the runs and the file's reading findings.

    ``one_run`` reads the whole file as one run (a submitted result file), whatever it holds.
    """
    findings: list[Finding] = []
    runs = list(iter_runs(items, path, findings, one_run))
    return runs, findings


def iter_runs(items: Iterable[LogItem | Batch], path: str, findings: list[Finding],
              one_run: bool = False, first_index: int = 0) -> Iterator[Run]:
    """The runs of a file, each as soon as it ends (so that a file of many runs is judged one run
    at a time); the file's reading findings are added to ``findings``, all of them once the runs are
    exhausted (:func:`assign_findings` then places them)."""
    boundaries = RunBoundaries(one_run)
    current = RunBuilder(path, first_index)
    cap = FindingCap()
    if one_run:  # no boundary to watch for: every event goes to the one run
        current.add_all(items, lambda found: _one_run_finding(found, boundaries, current.counts, cap, findings))
        findings.extend(cap.summaries())
        if current.counts:
            yield current.build()
        return
    add = current.add
    after_finding = False  # a finding (MLC024), or a record after run_stop (mlcheck.read.next_run), opens a run

    def logged(key: str) -> bool:  # (the current run logged a record of the key)
        return bool(current.counts.get(key))

    next_run: NextRunStart[Event] = NextRunStart(logged, _VALUE)
    ended: Finding | None = None  # (a job's end, said once the next record begins a run)
    for item in _one_at_a_time(items, boundaries):
        if isinstance(item, Finding):
            if not boundaries.note(item, current.counts):
                continue
            if boundaries.waits(item):
                ended = item
            elif cap.keep(item):
                findings.append(item)
            after_finding = True
            continue
        events = item if type(item) is list else [cast(Event, item)]
        if after_finding or boundaries.lingering:
            after_finding = False
            first = events[0].key if events else ""
            opens = boundaries.opens_new_run(current.counts, first, next_run.repeats_a_setting(first),
                                             events[0].time_ms - next_run.latest if events else float("inf"),
                                             next_run.repeats_a_setting(first, True))
            if opens:
                note = boundaries.attempt_note(path, events[0].line, events[0].key) if events else None
                said = ended if ended is not None else note  # (one note a boundary)
                if said is not None and cap.keep(said):
                    findings.append(said)
            ended = None
            if opens:
                for event in next_run.before_restart():  # (a run killed in its initialisation: its own)
                    add(event)
                run = current.build()
                current = RunBuilder(path, run.index + 1)
                add = current.add
                yield run
                del run  # (the next run is built without this one)
                for event in next_run.restart():
                    add(event)
        if not next_run.watching and WATCHED_KEYS.isdisjoint(map(_KEY, events)):
            for event in events:
                add(event)
            continue
        for event in events:
            opens, now = next_run.take(event.key, event.time_ms, event)
            if opens:
                at = now[0].line if now else event.line  # (the next run's first record: a block held comes first)
                said = raw_output.JOB_STARTED.at(path, at, f"the next run begins here ({next_run.why}): {ANOTHER_RUN}")
                if cap.keep(said):
                    findings.append(said)
                for copy in next_run.before_open():  # (copies of the run, held until a later start)
                    add(copy)
                run = current.build()
                current = RunBuilder(path, run.index + 1)
                add = current.add
                yield run
                del run
            for taken in now:
                add(taken)
    for event in next_run.rest():
        add(event)
    findings.extend(cap.summaries())
    if current.counts:
        yield current.build()


_KEY, _VALUE = attrgetter("key"), attrgetter("value")


def _one_at_a_time(items: Iterable[LogItem | Batch], boundaries: RunBoundaries) -> Iterator[LogItem | Batch]:
    """The items, a batch of events given one event at a time while any record may open a run
    (:attr:`RunBoundaries.lingering`)."""
    for item in items:
        if type(item) is list and boundaries.lingering:
            yield from item
        else:
            yield item


def _one_run_finding(found: Finding, boundaries: RunBoundaries, counts: Mapping[str, int], cap: FindingCap,
                     findings: list[Finding]) -> None:
    """A reading finding of a file read as one run (:meth:`RunBoundaries.said`)."""
    said = boundaries.said(found, counts)
    if said is not None and cap.keep(said):
        findings.append(said)


class Placed(Protocol):
    """A run or its summary: where it begins in its file."""

    @property
    def index(self) -> int: ...

    @property
    def first_line(self) -> int: ...


def assign_findings(runs: Sequence[Placed], findings: list[Finding]) -> dict[int, list[Finding]]:
    """Attach each reading finding to the run whose lines it falls in (the previous run when it
    falls between two, the first run when it comes before all)."""
    by_run: dict[int, list[Finding]] = {run.index: [] for run in runs}
    for found in findings:
        target = runs[0].index if runs else 0
        opened = False  # (the run found begins at the finding's line)
        for run in runs:
            if found.line is not None and found.line >= run.first_line:
                if found.line == run.first_line and found.code in _CUT_RECORD:
                    continue  # the cut record ends the run before; the next one starts on its line
                target, opened = run.index, found.line == run.first_line
            elif found.code == _JOB_STARTED and found.line is not None and found.line < run.first_line:
                if not opened:  # the start of a job belongs to the run it opens: the next one, or one at its line
                    target = run.index
                break
        if target and found.run_index is None:  # (a later run of a raw log: said, as its rules say it)
            found = dataclasses.replace(found, run_index=target)
        by_run.setdefault(target, []).append(found)
    return by_run
