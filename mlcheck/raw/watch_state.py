"""What ``mlcheck watch`` knows while it follows a log, and how it ended (split from
:mod:`mlcheck.raw.watch`)."""

from __future__ import annotations

import os
from operator import attrgetter
from typing import Callable

from mlcheck.records import dataclass, field
from mlcheck.facts.rulesets import Ruleset
from mlcheck.model import Event, Finding, Severity
from mlcheck.raw.watch_progress import init_overrun
from mlcheck.read.concurrent_jobs import JobOrder, tagged_record
from mlcheck.read.file_names import RESULT_FILE
from mlcheck.read.job_starts import JOB_END, JOB_END_HINT, JOB_ENDS
from mlcheck.read.run_builder import RunBuilder
from mlcheck.read.next_run import NextRunStart
from mlcheck.read.run_boundaries import RunBoundaries

FindingSink = Callable[[Finding], None]
ProgressSink = Callable[[str], None]


class StopWatching(Exception):
    """Raised by a sink to end the watch early (``--fail-fast``)."""


@dataclass
class WatchState:
    """What the watch knows about the run being written."""

    path: str
    forced: Ruleset | None
    builder: RunBuilder
    forced_source: str = "--ruleset"
    reading: list[Finding] = field(default_factory=list)
    reported: set[tuple[str, int | None, str]] = field(default_factory=set)
    runs_done: int = 0
    init_alarm: Severity | None = None
    """The MLC401 reported while init ran: a warning (the wall clock), an error (the log's times)."""
    judged_events: int = 0
    """Events of the run at its last judgment (checkpoints are judged geometrically:
    :func:`mlcheck.raw.watch._soon`)."""
    pending: frozenset[str] | None | bool = False
    """A checkpoint not judged yet (False: none; None: every code; a set: only those codes)."""
    boundaries: RunBoundaries = field(default_factory=RunBoundaries)
    """Where a new job begins (a watched ``result_<i>.txt`` is one run, as ``check`` reads it)."""
    stop_pending: bool = False
    """The run logged its run_stop: it is judged whole once the lines written with it are read
    (records may follow run_stop: some logs write ``train_samples``, ``cache_clear`` or the
    ``submission_*`` keys after it)."""
    end_line: int | None = None
    """The last line of the runs judged whole (when a later run began after them, or when the log
    went quiet after a run_stop: the run's last own record)."""
    next_run: NextRunStart[Event] = field(default_factory=lambda: NextRunStart(value_of=attrgetter("value")))
    """Where raw output begins the job's next run without a launcher line."""
    waiting: Finding | None = None
    """A job's end, or its start met before the run began: reported if the next record opens a run."""
    cut_at: Finding | None = None
    """A record of the run cut (MLC023, before any run_stop): the run ends there if the launcher then
    says the job ended; a later record of the run means the rank went on (another stream broke the
    line), as ``check`` reads it."""
    death_told: int = -1
    """The line at which the wait for a relaunch was said (:meth:`death_note`)."""
    dead: bool = False
    """A run died (its job ended before its run_stop) and was judged: it counts for ``--runs`` once no
    record came for the relaunch wait; a record after it (the job launched again) makes it an attempt."""

    def begin_next_run(self) -> None:
        """The builder of the next run of the file."""
        self.builder, self.reading, self.init_alarm = RunBuilder(self.path, self.builder.index + 1), [], None
        self.judged_events, self.pending = 0, False

    def _killed(self) -> bool:
        """Whether the run was killed between records: its job ended, the run began, no run_stop."""
        said, counts = self.waiting, self.builder.counts
        return said is not None and JOB_ENDS in said.message and not counts["run_stop"] and bool(
            counts["init_start"] or counts["run_start"])

    def death_note(self, wait: float, line_no: int) -> str | None:
        """The progress line, once per death, while a relaunch may still come (``wait`` seconds)."""
        if not (self.dead or self._killed()) or self.death_told == line_no:
            return None
        self.death_told = line_no
        return (f"the job ended without run_stop (by line {line_no}); waiting up to {wait:g} s (--relaunch-wait) "
                "for a relaunch before the run counts as ended")

    def count_death(self, judge: Callable[[], None]) -> bool:
        """Whether a run that died counts now (the log was quiet after its job's end: no relaunch);
        ``judge`` judges the run whole where it was killed between records (at its job's end)."""
        if self._killed():
            judge()
            self.died(max(e.line for e in self.builder.events))
        self.runs_done, counted, self.dead = self.runs_done + self.dead, self.dead, False
        return counted

    def died(self, last_line: int | None) -> None:
        """The run, judged, died at ``last_line``: the next run of the file is begun afresh."""
        self.dead, self.end_line = True, last_line
        self.begin_next_run()
        self.next_run.restart()
        self.boundaries.reset()


@dataclass(frozen=True)
class WatchOutcome:
    """How the watch ended: ``complete`` (the runs asked for stopped), ``replaced`` (they stopped, then
    the file was truncated or rotated: what it holds now is none of them), ``idle`` (no new line for
    ``idle_timeout``), ``missing`` (the file never appeared), ``stopped`` (a sink stopped it) or
    ``compressed`` (the file is gzip: not followed).
    ``held``: a descriptor of the file read, when its path no longer names it at the end (the job
    removed or moved it): the final report reads it (:mod:`mlcheck.read.held_logs`)."""

    reason: str
    runs_done: int
    lines: int
    held: int | None = None
    earlier_runs: int = 0
    """Runs that stopped before the file was truncated or rotated (counted in ``runs_done``)."""
    earlier_findings: tuple[Finding, ...] = ()
    restarts: tuple[int, ...] = ()
    """The lines after which the file was truncated or rotated (read again from line 1)."""
    """The findings reported on the lines read before the file was truncated or rotated: the final
    report (of the file as it is) does not hold them."""


class Lost:
    """What a truncation or a rotation of the watched file took away: the runs that stopped in it
    (they count toward ``--runs``) and the findings reported on its lines (they stand, and the
    final report, of the file as it is, does not hold them)."""

    def __init__(self, on_finding: FindingSink) -> None:
        self.runs, self.found, self._sent, self._on_finding = 0, list[Finding](), list[Finding](), on_finding
        self.restarts: list[int] = []

    def sink(self, found: Finding) -> None:
        self._sent.append(found)
        self._on_finding(found)

    def restart(self, path: str, lines: int, stopped: int) -> str:
        """The file is read again from line 1 after ``lines`` lines in which ``stopped`` runs
        stopped; what to tell the user."""
        self.runs += stopped
        self.restarts.append(lines)
        self.found.extend(self._sent)
        self._sent.clear()
        counted = f" ({stopped} run{'s' if stopped != 1 else ''} stopped there: counted)" if stopped else ""
        return f"{path} was rotated or truncated after line {lines}{counted}; reading it again from line 1"

    def outcome(self, reason: str, runs_done: int, lines: int) -> WatchOutcome:
        return WatchOutcome(reason, self.runs + runs_done, lines, earlier_runs=self.runs, earlier_findings=tuple(self.found),
                            restarts=tuple(self.restarts))


def new_state(path: str, forced: tuple[Ruleset | None, str], index: int) -> WatchState:
    one_run = RESULT_FILE.match(os.path.basename(path)) is not None
    return WatchState(path=path, forced=forced[0], forced_source=forced[1], builder=RunBuilder(path, index),
                      boundaries=RunBoundaries(one_run))


def report_once(state: WatchState, found: Finding, on_finding: FindingSink) -> None:
    """``found`` to the sink unless the watch reported it already (a partial run is judged again
    at each checkpoint)."""
    key = (found.code, found.line, found.message)
    if key not in state.reported:
        state.reported.add(key)
        on_finding(found)


class MixedJobs:
    """Watch's view of MPI jobs whose records interleave (:mod:`mlcheck.read.concurrent_jobs`):
    followed as one stream, their runs would mix, so from the line where they are found to run
    at once (within the first records) the watch judges nothing more as it reads: it counts each
    job's run_stops (of the job's lowest rank that prints one) and ends once ``runs`` stopped,
    and its report then reads each job apart, as ``check`` does.

    A job that begins while the job before it has an open run (no run_stop of its rank 0) and
    no launcher said that job ended may run beside it: what the watch finds from then on (the
    open run judged as ended) is held until the job before prints nothing for ``hold_s`` seconds
    (it died: the findings are said), or prints again until the jobs are found to run at once
    (the findings are dropped: the final report judges each job). A job that died beside others
    (its run open, no record of it after a launcher's word that a job ended) counts for ``runs``
    once the log was quiet for ``hold_s``."""

    def __init__(self, path: str, on_finding: FindingSink, on_progress: ProgressSink, hold_s: float = 0.0) -> None:
        self.path = path
        self.order = JobOrder()
        self.mixed = False
        self.lines = 0
        self._inits: dict[int, dict[int, int]] = {}
        self._starts: dict[int, dict[int, int]] = {}
        self._stops: dict[int, dict[int, int]] = {}
        """job -> rank -> the init_start (run_start, run_stop) records it printed."""
        self._last_line: dict[int, int] = {}
        self._job_ends: list[int] = []  # (the lines of launchers' words that a job ended, one an end)
        self._last_record = 0
        self._held: list[Finding] | None = None
        self._held_for, self._held_since, self._hold_s = -1, 0.0, hold_s
        self._on_finding, self._on_progress = on_finding, on_progress

    @property
    def stopped(self) -> int:
        """The runs stopped: each job's run_stops, as its lowest rank that prints them counts them."""
        return sum(ranks[min(ranks)] for ranks in self._stops.values())

    def died(self) -> int:
        """The jobs that died: those whose run is open and that printed no record after a launcher's
        word that a job ended, at most one a word (the jobs after it are the ones that go on)."""
        if not self._job_ends:
            return 0
        silent = [line for job, line in self._last_line.items() if line < self._job_ends[-1] and self._open(job)]
        return min(len(silent), sum(1 for line in self._job_ends if line > min(silent))) if silent else 0

    def _open(self, job: int) -> bool:
        """Whether the lowest rank of ``job`` that began a run (init_start or run_start) has not stopped it."""
        begun = self._inits.get(job, {}) | self._starts.get(job, {})
        if not begun:
            return False
        rank = min(begun)
        return max(self._inits.get(job, {}).get(rank, 0), self._starts.get(job, {}).get(rank, 0)) > \
            self._stops.get(job, {}).get(rank, 0)

    def line(self, line: object, now: float = 0.0) -> bool:
        """Take the next line; whether the jobs run at once (the watch then judges no line)."""
        self.lines += 1
        if not isinstance(line, bytes):
            return self.mixed
        if JOB_END_HINT(line) and JOB_END.search(line):
            if not self._job_ends or self._last_record > self._job_ends[-1]:  # (a launcher's lines on one end: one)
                self._job_ends.append(self.lines)
        if b"]<std" not in line or (source := tagged_record(line)) is None:
            return self.mixed
        job, rank = source
        self._last_line[job] = self._last_record = self.lines
        for key, counts in ((b'"init_start"', self._inits), (b'"run_start"', self._starts), (b'"run_stop"', self._stops)):
            if key in line:
                ranks = counts.setdefault(job, {})
                ranks[rank] = ranks.get(rank, 0) + 1
        if self.mixed:
            return True
        before, known = self.order.last, len(self.order.first)
        self.order.add(line, self.lines)
        if job == self._held_for:
            self._held_since = now  # (the job held for prints on: alive)
        elif len(self.order.first) > known and before is not None and not self.order.stopped(before) \
                and not any(end > self.order.first[before] for end in self._job_ends[-1:]) and self._held is None:
            self._held, self._held_for, self._held_since = [], before, now
        if self.order.concurrent():
            self.mixed, self._held = True, None
            self._on_finding(self.order.finding(self.path, live=True))
            return False
        self.tick(now)
        return False

    def tick(self, now: float) -> None:
        """Say what was held once the job it was held for printed nothing for the hold time."""
        if self._held is not None and now - self._held_since >= self._hold_s:
            held, self._held, self._held_for = self._held, None, -1
            for found in held:
                self._on_finding(found)

    def finding(self, found: Finding) -> None:
        if self.mixed:
            return
        if self._held is not None:
            self._held.append(found)
        else:
            self._on_finding(found)

    def progress(self, text: str) -> None:
        if not self.mixed:
            self._on_progress(text)


def check_init_clock(state: WatchState, on_finding: FindingSink) -> None:
    """MLC401 while init is still running, once the round's limit has passed: a warning by the
    wall clock, then an error once the log's own times show it (each once a run)."""
    if state.init_alarm is Severity.ERROR:
        return
    found = init_overrun(state.builder, state.path, state.forced, state.next_run.held_until)
    if found is not None and found.severity is not state.init_alarm:
        state.init_alarm = found.severity
        report_once(state, found, on_finding)
