"""What checking produces: each run's verdict, each benchmark folder's score and RCP test, the
system information, waived findings, and the :class:`CheckResult` every reporter renders."""

from __future__ import annotations

import re
import sys
from dataclasses import replace
from typing import Any, Mapping

from mlcheck.records import dataclass, field
from mlcheck.model import Evaluation, Event, FirstRecords, Finding, Severity, once


NOT_HYPERPARAMETERS = frozenset({"cache_clear", "init_start", "init_stop", "weights_initialization"})
"""Keys logged before ``run_start`` that are not the run's configuration: the HTML report does not
list them, nor does a summary keep them."""


@dataclass(frozen=True, slots=True)
class RunSummary(FirstRecords):
    """What a judged run leaves for its folder's checks, the package checks and the reports, in
    place of its records (built by :func:`mlcheck.judge.summary.summarise`): the first record of
    each key they read, the last ``global_batch_size`` and at most 200 evaluations. A folder of
    thousands of runs then holds a few kilobytes per run (issue 12)."""

    path: str
    index: int
    first_line: int
    last_line: int
    events: tuple[Event, ...]
    """The first record of each kept key, in log order; metadata only where it is read."""
    evaluations: tuple[Evaluation, ...]
    batch_size: Any
    """The value of the last ``global_batch_size`` record (None: none)."""
    positions: Mapping[str, int]
    """Each kept key's place in ``events`` (one mapping shared by the runs that keep the same keys)."""
    more_seeds: tuple[Event, ...] = ()
    """The ``seed`` records after the first (the seed checker reads every one), with ``file`` and
    ``lineno``."""
    train_samples: Any = None
    """The value of the last ``train_samples`` record before the last ``run_stop`` (the BERT RCP
    test reads it with ``--rcp-bert-train-samples``; None: none)."""
    last_stop: tuple[int, Any] | None = None
    """The line and ``status`` of the last ``run_stop`` when the run logs more than one: the RCP
    checker reads the status of each, the last one stands (None: the first is the last)."""
    last_named: tuple[Any] | None = None
    """``(value,)`` of the last ``submission_benchmark`` when the run logs more than one: the RCP
    checker keeps a file's last (None: the first is the last)."""

    def first(self, key: str) -> Event | None:
        at = self.positions.get(key)
        return None if at is None else self.events[at]

    @property
    def keys(self) -> tuple[str, ...]:
        """The kept keys, in log order."""
        return tuple(self.positions)


@dataclass(frozen=True, slots=True)
class RunResult:
    """A run's summary with its findings and the verdicts derived from them."""

    run: RunSummary | None
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
    tolerated: bool = False
    """A non-converged run its benchmark folder tolerates (counted as the slowest run of a valid
    score): its non-convergence findings are warnings, and the official checker still fails it."""
    duration_ms: float | None = None
    """``run_stop`` less the ``run_start`` it is timed from, in milliseconds (finite), as the
    summarizer reads them: the benchmark's score is made from these (:func:`~mlcheck.score.scoring.published_minutes`)."""
    withheld: tuple[Finding, ...] = ()
    """Findings a waiver or ``select``/``ignore`` took out of the report: what the checker of record
    says of the file does not depend on the configuration (:meth:`official_failures` counts them)."""

    def __post_init__(self) -> None:
        # The runs of a folder name the same org, system, round...: one string each per process.
        for name in ("org", "system", "benchmark", "division", "ruleset", "ruleset_source", "status"):
            value = getattr(self, name)
            if type(value) is str:
                object.__setattr__(self, name, sys.intern(value))

    @property
    def verdict(self) -> str:
        """mlcheck's verdict on the run: a tolerated non-converged run still failed."""
        failed = self.tolerated or any(f.severity is Severity.ERROR for f in self.findings)
        return "fail" if failed else "pass"

    def official_failures(self) -> tuple[Finding, ...]:
        """The findings for which the round's checker of record fails the file (a tolerated
        non-convergence too: the folder tolerates it, the checker still fails the file)."""
        return tuple(f for f in self.findings + self.withheld if f.official and (
            f.severity is Severity.ERROR or (self.tolerated and f.code in TOLERATED_CODES)))

    @property
    def official_verdict(self) -> str:
        """What the round's checker of record says about the file."""
        return "fail" if self.official_failures() else "pass"


TOLERATED_CODES = frozenset({"MLC004", "MLC023", "MLC102", "MLC301", "MLC302"})
"""Errors that make a run non-converged (cut by a crash, no run_stop, target not reached,
aborted though it reached the target): the round tolerates one such run per benchmark folder
(U-Net3D four), counted as the slowest."""


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
    batch_size: float | None = None
    """The submission's global batch size (an integer unless the runs logged a fraction)."""
    reference: str | None = None
    reference_batch_sizes: tuple[int, ...] = ()
    reference_mean: float | None = None
    min_acceptable_mean: float | None = None
    submission_mean: float | None = None
    margin_pct: float | None = None
    normalization_factor: float | None = None
    source: str | None = None
    reference_precision: str | None = None
    """The numerical precision the reference runs used (RCP records of 5.1 and later)."""
    today: RcpResult | None = None
    """The same test as today's mlperf-logging computes it (full-list stdev since 2024, pruning
    by RCP mean, the installed RCP data; :mod:`mlcheck.score.rcp.today`); None when not computed.
    The verdict of record (``verdict``) is what the round accepted."""
    unordered: tuple[str, ...] = ()
    """The runs whose convergence point is NaN (named as in :class:`RunConvergence`): the checker's
    sort places them by the order its file system lists the files, so its verdict may differ."""
    stops: bool = False
    """The round's RCP checker raises on the folder's runs (names or batch sizes that differ), and
    the package checker stops with it: no score is published."""
    order_note: str = ""
    """Why else the checker's verdict depends on the order its file system lists the files in
    (1.0-2.0: runs of different batch sizes, the last one read tested); ``""``: it does not."""

    def order_dependent(self) -> bool:
        return bool(self.unordered or self.order_note)


@dataclass(frozen=True)
class EnergyScore:
    """The energy of a benchmark folder with a ``power/`` folder, as the round's summarizer
    scores it (3.1+), in joules; ``run_joules`` per run, by position in the folder's runs (None:
    not scored, or the run's logs cannot be scored)."""

    joules: float | None
    valid: bool
    reason: str
    run_joules: tuple[float | None, ...] = ()
    scaling_factor: float | None = None
    stops_summarizer: bool = False
    """The summarizer raises on a run's power logs (MLC543): it publishes no result of the package."""

    def within(self, score: Score) -> EnergyScore:
        """This energy in a folder whose result is ``score``: not valid when the result is not
        (a package rule, a power log the package checker rejects), as the time score."""
        if score.valid or not self.valid:
            return self
        return replace(self, valid=False, reason=f"{self.reason}; the folder's result is not valid")


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
    number_of_nodes: int | None = None
    host_processors: int | None = None
    """nodes x host processors per node."""
    notes: str | None = None
    """``hw_notes`` and ``sw_notes``, the ones not empty, joined by ``;`` (the summarizer's notes)."""


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
    energy: EnergyScore | None = None
    """The energy score of a folder with ``power/`` measurements (None without them)."""
    published: bool = True
    """Whether the official result summarizer makes a row of it (not for logs in a folder inside a
    benchmark folder: the results table leaves it out too)."""
    withheld: tuple[Finding, ...] = field(default=())
    """Findings a waiver or ``select``/``ignore`` took out of the report: a score's RCP refusal and
    the package checker's refusals do not depend on the configuration (:meth:`all_findings`)."""

    def all_findings(self) -> tuple[Finding, ...]:
        """The folder's findings, reported and withheld: what the scores are judged by."""
        return self.findings + self.withheld


@dataclass(frozen=True, slots=True)
class WaivedFinding:
    """A finding moved out of the verdict by a configured waiver (``mlcheck.settings.waivers``)."""

    finding: Finding
    reason: str
    waiver: str
    """Where the waiver is written, ``path:line`` of the config file."""
    expires: str | None = None


@dataclass(frozen=True)
class CheckResult:
    """Everything a reporter needs: runs, benchmarks, findings that belong to neither.

    ``waived`` holds the findings that waivers took out of the verdict (none unless
    :func:`mlcheck.settings.waivers.apply_waivers` was applied).
    """

    runs: tuple[RunResult, ...]
    benchmarks: tuple[BenchmarkResult, ...]
    findings: tuple[Finding, ...]
    waived: tuple[WaivedFinding, ...] = ()

    def all_findings(self) -> tuple[Finding, ...]:
        """Every finding once: run, benchmark and top-level ones, sorted."""
        return self._all_findings

    @once
    def _all_findings(self) -> tuple[Finding, ...]:
        # (made once: the reports, the summary line and the exit code each ask for it, and the
        # result is immutable)
        found: list[Finding] = list(self.findings)
        for run in self.runs:
            found.extend(run.findings)
        for bench in self.benchmarks:
            found.extend(bench.findings)
        return tuple(sorted(set(found), key=Finding.sort_key))

    def worst_severity(self) -> Severity | None:
        found = self.all_findings()
        return max((f.severity for f in found), default=None)


_CUT_TEXT = re.compile(r"… \(([\d,]+) characters, digest \w+\)\Z")


def text_length(text: str) -> int:
    """The length of a logged string before a summary cut it (``… (200,000 characters, digest X)`` at its end:
    :mod:`mlcheck.judge.bounded_values`), else its length."""
    found = _CUT_TEXT.search(text) if len(text) > 4096 else None
    return int(found.group(1).replace(",", "")) if found is not None else len(text)
