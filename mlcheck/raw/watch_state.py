"""What ``mlcheck watch`` knows while it follows a log, and how it ended (split from
:mod:`mlcheck.raw.watch`)."""

from __future__ import annotations

from typing import Callable

from mlcheck.records import dataclass, field
from mlcheck.facts.rulesets import Ruleset
from mlcheck.model import Event, Finding, Severity
from mlcheck.read.run_builder import RunBuilder
from mlcheck.read.next_run import NextRunStart
from mlcheck.read.runs import RunBoundaries

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
    next_run: NextRunStart[Event] = field(default_factory=NextRunStart)
    """Where raw output begins the job's next run without a launcher line."""
    waiting: Finding | None = None
    """A job's end, or its start met before the run began: reported if the next record opens a run."""


@dataclass(frozen=True)
class WatchOutcome:
    """How the watch ended: ``complete`` (the runs asked for stopped), ``idle`` (no new line for
    ``idle_timeout``), ``missing`` (the file never appeared), ``stopped`` (a sink stopped it) or
    ``compressed`` (the file is gzip: not followed).
    ``held``: a descriptor of the file read, when its path no longer names it at the end (the job
    removed or moved it): the final report reads it (:mod:`mlcheck.read.held_logs`)."""

    reason: str
    runs_done: int
    lines: int
    held: int | None = None
