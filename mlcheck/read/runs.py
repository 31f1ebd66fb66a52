"""Turn the stream of events of one file into runs, keeping memory bounded.

A file is one run, as the official checker reads a result file: every rank's ``cache_clear`` and
``init_start``, a repeated ``submission_*`` block, the records after ``run_stop`` (final evals,
``submission_*`` lines written by an evaluation process) all belong to it; duplicates and order
problems are findings of the rules the round has (MLC106/MLC107, MLC305, ...). Only raw job
output holds several runs, and only where the reader found evidence that a new job began (an
MLC024 note: a launcher line or another MPI job number, see :mod:`mlcheck.read.job_starts`); a file
named ``result_<i>.txt`` is one run even then.
"""

from __future__ import annotations

from collections import Counter
from collections import _count_elements  # type: ignore[attr-defined]  # (Counter's counting loop, in C)
from itertools import compress
import dataclasses
from operator import itemgetter
from typing import Any, Callable, Iterable, Iterator, Mapping, Protocol, Sequence, cast

from mlcheck.records import dataclass, field
from mlcheck.model import Evaluation, Event, Finding, Run
from mlcheck.read.job_starts import ANOTHER_RUN, SAME_RUN
from mlcheck.read.reader import Batch, LogItem

_CUT_RECORD = "MLC023"
_JOB_STARTED = "MLC024"
_KEY = itemgetter(0)
_EVALUATION = "eval_accuracy"
_PREAMBLE = frozenset({"cache_clear"})
"""Keys a run script logs in its own step before it launches the training job of the run."""


_PLAIN_NUMBERS = frozenset({int, float})
"""The number types JSON gives (not bool): read as :func:`_number` reads them."""


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


@dataclass
class RunBuilder:
    """Collects the events of one run (at most ``Run.KEEP_PER_KEY`` of each key) and builds it."""

    path: str
    index: int
    events: list[Event] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    evaluations: list[Evaluation] = field(default_factory=list)
    first_line: int = 0
    last_line: int = 0

    def add(self, event: Event) -> None:
        counts, key = self.counts, event.key  # (once per record of every log: locals, one lookup)
        if not counts:
            self.first_line = event.line
        self.last_line = event.line
        seen = counts.get(key, 0) + 1
        counts[key] = seen
        if seen <= Run.KEEP_PER_KEY:
            self.events.append(event)
        if key == "eval_accuracy":
            self.add_evaluation(event)

    def add_evaluation(self, event: Event) -> None:
        if len(self.evaluations) < Run.KEEP_PER_KEY:
            metadata: Any = event[2]  # (a plain number or None read without a call: most of them)
            get = metadata.get
            epoch, samples, step = get("epoch_num"), get("samples_count"), get("step_num")
            self.evaluations.append(Evaluation(
                event[3], event[1], event[4],
                float(epoch) if type(epoch) in _PLAIN_NUMBERS else None if epoch is None else _number(epoch),
                float(samples) if type(samples) in _PLAIN_NUMBERS else None if samples is None else _number(samples),
                _text(get("metric")),
                float(step) if type(step) in _PLAIN_NUMBERS else None if step is None else _number(step)))

    def add_all(self, items: Iterable[LogItem | Batch], found: Callable[[Finding], None]) -> None:
        """On an empty builder, :meth:`add` every event of ``items`` (the whole file is this run)
        and pass every finding to ``found``: the same, in one loop without a call per record,
        and a list of events (a run of record lines read in bulk) without a step per record."""
        assert not self.counts
        counts, events, keep = self.counts, self.events, Run.KEEP_PER_KEY
        last: Event | None = None
        for item in items:
            kind = type(item)
            if kind is list:
                batch = cast(Batch, item)
                if self._add_batch(batch):
                    last = batch[-1]
                    continue
                for event in batch:  # (a key past its keep: one at a time)
                    self.add(event)
                last = batch[-1]
                continue
            if kind is not Event:
                found(cast(Finding, item))
                continue
            event = cast(Event, item)
            key = event[0]
            seen = counts.get(key, 0) + 1
            counts[key] = seen
            if seen <= keep:
                events.append(event)
            if key == "eval_accuracy":
                self.add_evaluation(event)
            last = event
        if last is not None:  # (the builder was empty: its first event is the first kept)
            self.first_line = events[0].line
            self.last_line = last.line

    def _add_batch(self, batch: Batch) -> bool:
        """Add a list of events when no key of it passes :attr:`Run.KEEP_PER_KEY` (else False,
        nothing added): counted in C, kept with one ``extend``, its evaluations picked in C.
        While the run holds all its events and fewer than the keep with this batch, no key can
        pass it: the batch is counted straight into the run's counts (a batch holds ~20 events,
        where making a Counter of them and merging it cost three times as much)."""
        counts, keep = self.counts, Run.KEEP_PER_KEY
        held = len(self.events)
        evaluations = counts.get(_EVALUATION, 0)
        if held + len(batch) <= keep and sum(counts.values()) == held:
            _count_elements(counts, map(_KEY, batch))
        else:
            added = Counter(map(_KEY, batch))
            if any(counts.get(key, 0) + count > keep for key, count in added.items()):
                return False
            counts.update(added)
        self.events.extend(batch)
        if counts.get(_EVALUATION, 0) != evaluations:
            for event in compress(batch, map(_EVALUATION.__eq__, map(_KEY, batch))):
                self.add_evaluation(event)
        return True

    def build(self) -> Run:
        return Run(path=self.path, index=self.index, events=tuple(self.events),
                   key_counts=dict(self.counts), evaluations=tuple(self.evaluations),
                   first_line=self.first_line, last_line=self.last_line)


class RunBoundaries:
    """Decides where a new run begins in one file: at the first record after a new job's start
    (MLC024), unless the file is read as exactly one run (a submitted result file)."""

    def __init__(self, one_run: bool = False) -> None:
        self.one_run = one_run
        self._pending = False

    def note(self, finding: Finding, counts: Mapping[str, int] | None = None) -> bool:
        """Take a reading finding; a new job's start makes the next record open a run. False for
        a job start that opens none, which the caller drops: the run so far (``counts``) only
        cleared the caches, so this launcher starts the training of the same run (a run script's
        ``srun ... cache_clear`` step, then ``srun ... train.py``)."""
        if finding.code != _JOB_STARTED:
            return True
        if counts and all(key in _PREAMBLE for key in counts):
            return False
        if not self.one_run:
            self._pending = True
        return True

    def opens_new_run(self, counts: Mapping[str, int]) -> bool:
        """Whether the next record begins a new run, given the key counts of the current run."""
        if not self._pending:
            return False
        self._pending = False
        return bool(counts)


def split_runs(items: Iterable[LogItem], path: str, one_run: bool = False) -> tuple[list[Run], list[Finding]]:
    """Group the events of a file into runs; return the runs and the file's reading findings.

    ``one_run`` reads the whole file as one run (a submitted result file), whatever it holds.
    """
    findings: list[Finding] = []
    runs = list(iter_runs(items, path, findings, one_run))
    return runs, findings


def iter_runs(items: Iterable[LogItem | Batch], path: str, findings: list[Finding],
              one_run: bool = False) -> Iterator[Run]:
    """The runs of a file, each as soon as it ends (so that a file of many runs is judged one run
    at a time); the file's reading findings are added to ``findings``, all of them once the runs are
    exhausted (:func:`assign_findings` then places them)."""
    boundaries = RunBoundaries(one_run)
    current = RunBuilder(path, 0)
    cap = FindingCap()
    if one_run:  # no boundary to watch for: every event goes to the one run
        current.add_all(items, lambda found: _one_run_finding(found, boundaries, current.counts, cap, findings))
        findings.extend(cap.summaries())
        if current.counts:
            yield current.build()
        return
    add = current.add
    after_finding = False  # only a finding can make the next record open a run
    for item in items:
        if isinstance(item, Finding):
            if not boundaries.note(item, current.counts):
                continue
            if cap.keep(item):
                findings.append(item)
            after_finding = True
            continue
        if after_finding:
            after_finding = False
            if boundaries.opens_new_run(current.counts):
                run = current.build()
                current = RunBuilder(path, run.index + 1)
                add = current.add
                yield run
                del run  # (the next run is built without this one)
        if type(item) is list:
            for event in item:
                add(event)
        else:
            add(cast(Event, item))
    findings.extend(cap.summaries())
    if current.counts:
        yield current.build()


def _one_run_finding(found: Finding, boundaries: RunBoundaries, counts: Mapping[str, int], cap: FindingCap,
                     findings: list[Finding]) -> None:
    """A reading finding of a file read as one run: a job start that opens no run is dropped, and
    MLC024 says the records after it stay in this run."""
    if not boundaries.note(found, counts):
        return
    if found.code == _JOB_STARTED:
        found = dataclasses.replace(found, message=found.message.replace(ANOTHER_RUN, SAME_RUN))
    if cap.keep(found):
        findings.append(found)


MAX_FINDINGS_PER_CODE = 100
"""Reading findings of one code listed per file; the rest are counted in one summary finding (a
line of 100,000 broken records gives 101 findings, not 100,000: memory and reports stay bounded)."""


@dataclass
class _Capped:
    listed: int = 0
    skipped: int = 0
    first: Finding | None = None
    last: Finding | None = None


class FindingCap:
    """Counts the reading findings of each code past :data:`MAX_FINDINGS_PER_CODE`."""

    def __init__(self) -> None:
        self.codes: dict[str, _Capped] = {}

    def keep(self, found: Finding) -> bool:
        """Whether ``found`` is listed; past the cap it is only counted."""
        entry = self.codes.setdefault(found.code, _Capped())
        if entry.listed < MAX_FINDINGS_PER_CODE:
            entry.listed += 1
            return True
        entry.skipped += 1
        entry.first = entry.first or found
        entry.last = found
        return False

    def summaries(self) -> list[Finding]:
        """One finding per capped code: how many more, and between which lines."""
        out = []
        for entry in self.codes.values():
            if entry.first is None or entry.last is None:
                continue
            lines = f" (lines {entry.first.line} to {entry.last.line})" if entry.first.line else ""
            out.append(dataclasses.replace(entry.first, message=(
                f"and {entry.skipped:,} more {entry.first.code} findings in this file{lines}, not listed: "
                f"only the first {MAX_FINDINGS_PER_CODE} are; the first of them: {entry.first.message}")))
        return out


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
        for run in runs:
            if found.line is not None and found.line >= run.first_line:
                if found.line == run.first_line and found.code == _CUT_RECORD:
                    continue  # the cut record ends the run before; the next one starts on its line
                target = run.index
            elif found.code == _JOB_STARTED and found.line is not None and found.line < run.first_line:
                target = run.index  # the start of a job belongs to the run it opens
                break
        by_run.setdefault(target, []).append(found)
    return by_run
