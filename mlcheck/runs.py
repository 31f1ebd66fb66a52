"""Turn the stream of events of one file into runs, keeping memory bounded.

A file usually holds one run. A new run begins when, after a ``run_stop``, the log opens another
block (``init_start``, ``cache_clear`` or a ``submission_*`` key), when an ``init_start`` or a
``cache_clear`` follows a ``run_start`` that never stopped (a run cut off by the next one), or when a
second ``cache_clear`` comes before any ``run_start`` (a run cut off during init). Any other key
repeated before ``run_start`` stays in the run (every rank logged the ``submission_*`` block, an
``init_start`` out of order): the duplicate is MLC106/MLC107 or an order finding, as for the
official checker, which reads a file as one run.
A ``submission_*`` key after a ``run_start`` without ``run_stop`` stays in the run:
that is one run written by two processes (e.g. RNN-T training, then evaluation in a new process
that logs its identity again).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from mlcheck.model import Evaluation, Event, Finding, Run
from mlcheck.reader import LogItem

_OPENING_KEYS = frozenset({"init_start", "cache_clear"})
_CUT_RECORD = "MLC023"
_REPEAT_OPENS = frozenset({"cache_clear"})


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


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
        if not self.counts:
            self.first_line = event.line
        self.last_line = event.line
        self.counts[event.key] += 1
        if self.counts[event.key] <= Run.KEEP_PER_KEY:
            self.events.append(event)
        if event.key == "eval_accuracy" and len(self.evaluations) < Run.KEEP_PER_KEY:
            self.evaluations.append(Evaluation(
                time_ms=event.time_ms, value=event.value, line=event.line,
                epoch_num=_number(event.metadata.get("epoch_num")),
                samples_count=_number(event.metadata.get("samples_count"))))

    def opens_new_run(self, event: Event) -> bool:
        return opens_new_run(self.counts, event.key)

    def build(self) -> Run:
        return Run(path=self.path, index=self.index, events=tuple(self.events),
                   key_counts=dict(self.counts), evaluations=tuple(self.evaluations),
                   first_line=self.first_line, last_line=self.last_line)


def opens_new_run(counts: Mapping[str, int], key: str) -> bool:
    """True when an event with ``key`` begins a new run, given the key counts of the current run."""
    if key not in _OPENING_KEYS and not key.startswith("submission_"):
        return False  # the common case, decided without looking at the counts
    if not counts:
        return False
    if counts.get("run_stop"):
        return key in _OPENING_KEYS or key.startswith("submission_")
    if counts.get("run_start"):
        return key in _OPENING_KEYS
    return key in _REPEAT_OPENS and counts.get(key, 0) > 0


def split_runs(items: Iterable[LogItem], path: str) -> tuple[list[Run], list[Finding]]:
    """Group the events of a file into runs; return the runs and the file's reading findings."""
    runs: list[Run] = []
    findings: list[Finding] = []
    current = RunBuilder(path, 0)
    for item in items:
        if isinstance(item, Finding):
            findings.append(item)
            continue
        if current.opens_new_run(item):
            runs.append(current.build())
            current = RunBuilder(path, len(runs))
        current.add(item)
    if current.counts:
        runs.append(current.build())
    return runs, findings


def assign_findings(runs: list[Run], findings: list[Finding]) -> dict[int, list[Finding]]:
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
        by_run.setdefault(target, []).append(found)
    return by_run
