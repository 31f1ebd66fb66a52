"""The data model shared by every stage: events read from a log, findings, runs and their scores."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping, NamedTuple


class Severity(enum.IntEnum):
    """How bad a finding is; ordered so that ``max()`` gives the worst."""

    INFO = 0
    WARNING = 1
    ERROR = 2

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        try:
            return cls[text.upper()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r}; use one of info, warning, error") from None


class Event(NamedTuple):
    """One ``:::MLLOG`` record, with the physical 1-based line it was read from.

    A named tuple rather than a frozen dataclass: as immutable, and about three times cheaper to
    create, which matters for the reader (one per record of every log).
    """

    key: str
    value: Any
    metadata: Mapping[str, Any]
    time_ms: float
    line: int
    event_type: str | None = None
    namespace: str | None = None


@dataclass(frozen=True, slots=True)
class Finding:
    """A problem (or a note) about a log, a run, a benchmark folder or a package.

    ``official`` says whether the round's official compliance checker of record flags the same
    problem; ``run_index`` is the run's position in its file when the finding belongs to one run.
    """

    code: str
    name: str
    severity: Severity
    message: str
    path: str
    line: int | None = None
    official: bool = False
    run_index: int | None = None

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.run_index if self.run_index is not None else -1,
                self.line if self.line is not None else 0, self.code, self.message)


@dataclass(frozen=True, slots=True)
class Evaluation:
    """One ``eval_accuracy`` event, reduced to what convergence and reports need."""

    time_ms: float
    value: Any
    line: int
    epoch_num: float | None
    samples_count: float | None


@dataclass(frozen=True)
class Run:
    """One training run read from a log: the events kept for rules plus what is derived once.

    To keep memory flat on very long logs, at most ``Run.KEEP_PER_KEY`` events of each key are
    kept in ``events``; ``key_counts`` holds the true number of occurrences of every key.
    """

    path: str
    index: int
    events: tuple[Event, ...]
    key_counts: Mapping[str, int]
    evaluations: tuple[Evaluation, ...]
    first_line: int
    last_line: int

    KEEP_PER_KEY = 2000

    @cached_property
    def _by_key(self) -> Mapping[str, tuple[Event, ...]]:
        # Built once per run: rules ask for keys many times, a scan each time was quadratic.
        grouped: dict[str, list[Event]] = {}
        for event in self.events:
            grouped.setdefault(event.key, []).append(event)
        return {key: tuple(events) for key, events in grouped.items()}

    def occurrences(self, key: str) -> tuple[Event, ...]:
        """The kept events with this key, in log order."""
        return self._by_key.get(key, ())

    def first(self, key: str) -> Event | None:
        """The first event with this key, or None."""
        events = self._by_key.get(key)
        return events[0] if events else None

    def count(self, key: str) -> int:
        return self.key_counts.get(key, 0)

    def value_of(self, key: str) -> Any:
        """The value of the first event with this key, or None."""
        event = self.first(key)
        return None if event is None else event.value

    def text_of(self, key: str) -> str | None:
        """The first value of a key when it is a non-empty string (``submission_*`` keys)."""
        value = self.value_of(key)
        return value if isinstance(value, str) and value else None

    @property
    def benchmark(self) -> str | None:
        return self.text_of("submission_benchmark")

    @property
    def division(self) -> str | None:
        return self.text_of("submission_division")

    @property
    def org(self) -> str | None:
        return self.text_of("submission_org")

    @property
    def platform(self) -> str | None:
        return self.text_of("submission_platform")

    @property
    def run_start(self) -> Event | None:
        return self.first("run_start")

    @property
    def run_stop(self) -> Event | None:
        return self.first("run_stop")

    @property
    def status(self) -> str | None:
        """``run_stop`` metadata status (``success`` / ``aborted``), or None when absent."""
        stop = self.run_stop
        if stop is None:
            return None
        status = stop.metadata.get("status")
        return status if isinstance(status, str) else None

    @property
    def init_duration_ms(self) -> float | None:
        """``init_stop`` minus the first ``init_start``, as the official checker measures init."""
        starts = self.occurrences("init_start")
        stop = self.first("init_stop")
        if not starts or stop is None:
            return None
        return stop.time_ms - min(e.time_ms for e in starts)

    @property
    def duration_ms(self) -> float | None:
        start, stop = self.run_start, self.run_stop
        if start is None or stop is None:
            return None
        return stop.time_ms - start.time_ms


@dataclass(frozen=True)
class RunResult:
    """A run with its findings and the verdicts derived from them."""

    run: Run | None
    path: str
    index: int
    org: str | None
    system: str | None
    benchmark: str | None
    division: str | None
    ruleset: str | None
    ruleset_source: str | None
    status: str | None
    converged: bool
    time_to_train_min: float | None
    duration_min: float | None
    findings: tuple[Finding, ...]

    @property
    def verdict(self) -> str:
        return "fail" if any(f.severity is Severity.ERROR for f in self.findings) else "pass"

    @property
    def official_verdict(self) -> str:
        failed = any(f.official and f.severity is Severity.ERROR for f in self.findings)
        return "fail" if failed else "pass"


@dataclass(frozen=True)
class Score:
    """The benchmark result of a folder of runs, as the round defines it."""

    score_min: float | None
    valid: bool
    reason: str
    runs_counted: tuple[int, ...] = ()
    runs_dropped: tuple[int, ...] = ()
    scaling_factor: float | None = None
    unscaled_min: float | None = None


@dataclass(frozen=True)
class RcpResult:
    """The RCP test of a benchmark folder, as the round's record checker computes it.

    ``verdict`` is ``pass``, ``fail``, ``missing`` (no usable reference for the batch size) or
    ``skipped`` (open division, MiniGo, a round or benchmark without RCPs). Means are in the
    benchmark's convergence unit (epochs, or samples for BERT); ``margin_pct`` is how far the
    submission mean lies above (+) or below (-) the minimum acceptable mean.
    """

    verdict: str
    reason: str
    unit: str = "epochs"
    batch_size: int | None = None
    reference: str | None = None
    reference_batch_sizes: tuple[int, ...] = ()
    reference_mean: float | None = None
    min_acceptable_mean: float | None = None
    submission_mean: float | None = None
    margin_pct: float | None = None
    normalization_factor: float | None = None
    source: str | None = None


@dataclass(frozen=True)
class SystemInfo:
    """The fields of a system description the results table shows."""

    path: str
    system_name: str | None = None
    submitter: str | None = None
    division: str | None = None
    status: str | None = None
    accelerator_model_name: str | None = None
    accelerators: int | None = None
    host_processor_model_name: str | None = None
    framework: str | None = None


@dataclass(frozen=True)
class BenchmarkResult:
    """A group of runs sharing (org, system, benchmark), its score and folder-level findings."""

    org: str | None
    system: str | None
    benchmark: str | None
    division: str | None
    ruleset: str | None
    folder: str | None
    runs: tuple[RunResult, ...]
    score: Score
    findings: tuple[Finding, ...] = field(default=())
    rcp: RcpResult | None = None
    """The reference-convergence-point test of the folder (None when not run, e.g. no ruleset)."""
    system_info: SystemInfo | None = None
    """What ``systems/<system>.json`` says, for the results table (None outside a package)."""


@dataclass(frozen=True, slots=True)
class WaivedFinding:
    """A finding moved out of the verdict by a configured waiver (``mlcheck.waivers``)."""

    finding: Finding
    reason: str
    waiver: str
    """Where the waiver is written, ``path:line`` of the config file."""
    expires: str | None = None


@dataclass(frozen=True)
class CheckResult:
    """Everything a reporter needs: runs, benchmarks, findings that belong to neither.

    ``waived`` holds the findings that waivers took out of the verdict (none unless
    :func:`mlcheck.waivers.apply_waivers` was applied).
    """

    runs: tuple[RunResult, ...]
    benchmarks: tuple[BenchmarkResult, ...]
    findings: tuple[Finding, ...]
    waived: tuple[WaivedFinding, ...] = ()

    def all_findings(self) -> tuple[Finding, ...]:
        """Every finding once: run, benchmark and top-level ones, sorted."""
        found: list[Finding] = list(self.findings)
        for run in self.runs:
            found.extend(run.findings)
        for bench in self.benchmarks:
            found.extend(bench.findings)
        return tuple(sorted(set(found), key=Finding.sort_key))

    def worst_severity(self) -> Severity | None:
        found = self.all_findings()
        return max((f.severity for f in found), default=None)
