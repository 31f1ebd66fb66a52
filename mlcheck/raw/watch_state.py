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
from mlcheck.read.file_names import RESULT_FILE
from mlcheck.read.job_starts import JOB_ENDS
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
    wanted: int = 1
    """The runs the watch waits for in the file as it is (``--runs``, less those a rotation took)."""
    non_converged: set[int] = field(default_factory=set)
    """The runs judged whole that did not converge (:mod:`mlcheck.raw.watch_tolerance`)."""
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
    judged_to: int | None = None
    """The last line of the run being judged whole (None: none is): where a stop's report ends."""
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
    the file was truncated or rotated: what it holds now is none of them), ``idle`` (the file did not grow for
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
    """The findings reported on the lines read before the file was truncated or rotated: the final
    report (of the file as it is) does not hold them."""
    restarts: tuple[int, ...] = ()
    """The lines after which the file was truncated or rotated (read again from line 1)."""
    cr_ends: bool | None = None
    """Whether the file's lines were read as ending in a CR alone (None: not known; a UTF-16 file)."""


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


def new_state(path: str, forced: tuple[Ruleset | None, str], wanted: int) -> WatchState:
    """The state of a watch of ``path`` (read from line 1) for ``wanted`` more runs."""
    one_run = RESULT_FILE.match(os.path.basename(path)) is not None
    return WatchState(path=path, forced=forced[0], forced_source=forced[1], builder=RunBuilder(path, 0),
                      boundaries=RunBoundaries(one_run), wanted=wanted)


def report_once(state: WatchState, found: Finding, on_finding: FindingSink) -> None:
    """``found`` to the sink unless the watch reported it already (a partial run is judged again
    at each checkpoint)."""
    key = (found.code, found.line, found.message)
    if key not in state.reported:
        state.reported.add(key)
        on_finding(found)


def check_init_clock(state: WatchState, on_finding: FindingSink) -> None:
    """MLC401 while init is still running, once the round's limit has passed: a warning by the
    wall clock, then an error once the log's own times show it (each once a run)."""
    if state.init_alarm is Severity.ERROR:
        return
    found = init_overrun(state.builder, state.path, state.forced, state.next_run.held_until)
    if found is not None and found.severity is not state.init_alarm:
        state.init_alarm = found.severity
        report_once(state, found, on_finding)
