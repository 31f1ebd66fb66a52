"""``mlcheck watch``: judge a run while it is being written, and say as early as possible what is wrong.

The log is followed like ``tail -F`` (:mod:`mlcheck.follow`) and read line by line with the reader
every command uses. At each *checkpoint* (``init_stop``, ``run_start``, every ``eval_accuracy``,
``run_stop``, a new run) the run rules of ``mlcheck check`` are run on the partial run, and every
finding that can no longer change is reported at once: configuration keys and closed-division
hyper-parameters are complete at ``run_start``; a key or a target that is *missing* is only
decided at ``run_stop``. While init is still running, the init-time limit is checked against the
clock (the wall clock when the log is live, the log's own clock when it is replayed). The watch
ends at the ``run_stop`` of the last run asked for (``runs``), with the report ``check`` gives.
Raw job output is read as ``check`` reads it; the logging rank of each job is chosen from the
first burst of lines (what is in the file when the watch starts, or the first poll's lines).
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field, replace
from itertools import chain
from typing import Callable, Iterable

from mlcheck.checker import choose_ruleset, judge_run
from mlcheck.read.file_names import RESULT_FILE
from mlcheck.package.discover import LogRef
from mlcheck.read.follow import IDLE, RESTART, Follower
from mlcheck.model import Evaluation, Event, Finding, Run, Severity
from mlcheck.read.live_reader import LiveReader
from mlcheck.read.reader import AnyItem
from mlcheck.rules import find_rule
from mlcheck.rules.package_runs import is_hyperparameter
from mlcheck.rules.timing import INIT_TIME_EXCEEDED
from mlcheck.rules.convergence import first_reaching
from mlcheck.facts.rulesets import BenchmarkFacts, Condition, Ruleset, RulesetError
from mlcheck.read.runs import RunBoundaries, RunBuilder
from mlcheck.score.scoring import time_to_train_min

CHECKPOINT_KEYS = frozenset({"init_stop", "run_start", "eval_accuracy", "run_stop"})
#: A key that is missing at run_start will not come later when it configures the run.
_CONFIG_KEY = re.compile(r"^(?:n?one of )?(submission_\w+|cache_clear|init_start|init_stop|seed|"
                         r"global_batch_size|gradient_accumulation_steps|opt_\w+|train_samples|"
                         r"eval_samples)\b")
#: Findings a closed-division value decides by itself, reported as soon as its line is read.
_VALUE_CODES = frozenset({"MLC202", "MLC203"})
#: Closed hyper-parameters and weight initialisation are logged during init.
_CONFIG_CODES = frozenset({"MLC201", "MLC205"})
_LIVE_CLOCK_MS = 24 * 3600 * 1000

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
    reading: list[Finding] = field(default_factory=list)
    reported: set[tuple[str, int | None, str]] = field(default_factory=set)
    runs_done: int = 0
    init_alarm: bool = False
    boundaries: RunBoundaries = field(default_factory=RunBoundaries)
    """Where a new job begins (a watched ``result_<i>.txt`` is one run, as ``check`` reads it)."""


@dataclass(frozen=True)
class WatchOutcome:
    """How the watch ended: ``complete`` (the runs asked for stopped), ``idle`` (no new line for
    ``idle_timeout``), ``missing`` (the file never appeared) or ``stopped`` (a sink stopped it)."""

    reason: str
    runs_done: int
    lines: int


def watch(path: str, on_finding: FindingSink, on_progress: ProgressSink, forced: Ruleset | None = None,
          runs: int = 1, poll: float = 0.1, idle_timeout: float | None = None) -> WatchOutcome:
    """Follow ``path`` until ``runs`` runs have stopped; report findings and progress as they come."""
    follower = Follower(path, poll)
    live = LiveReader(path)
    state = _new_state(path, forced, 0)
    last_data = time.monotonic()

    def take(items: Iterable[AnyItem]) -> bool:
        for item in items:
            _take(state, item, on_finding, on_progress)
            if state.runs_done >= runs:
                return True
        return False

    try:
        for signal in follower.signals():
            if signal == RESTART:
                on_progress(f"{path} was rotated or truncated; reading it again from line 1")
                live, state = LiveReader(path), _new_state(path, forced, 0)
                continue
            if signal == IDLE:
                if idle_timeout is not None and time.monotonic() - last_data > idle_timeout:
                    rest = follower.rest()
                    take(chain(live.add(rest) if rest else (), live.flush()))
                    seen = live.line_no or os.path.exists(path)  # (an empty file exists)
                    return WatchOutcome("idle" if seen else "missing", state.runs_done, live.line_no)
                if live.pending and live.ready() and take(live.flush()):
                    return WatchOutcome("complete", state.runs_done, live.line_no)
                _check_init_clock(state, on_finding)
                continue
            last_data = time.monotonic()
            assert not isinstance(signal, str)
            if live.line_no == 0:
                on_progress(f"reading {path} from line 1")
            if take(live.add(signal)):
                return WatchOutcome("complete", state.runs_done, live.line_no)
    except StopWatching:
        return WatchOutcome("stopped", state.runs_done, live.line_no)
    raise AssertionError("the follower never ends")  # pragma: no cover


def _new_state(path: str, forced: Ruleset | None, index: int) -> WatchState:
    one_run = RESULT_FILE.match(os.path.basename(path)) is not None
    return WatchState(path=path, forced=forced, builder=RunBuilder(path, index),
                      boundaries=RunBoundaries(one_run))


def _take(state: WatchState, item: AnyItem, on_finding: FindingSink,
          on_progress: ProgressSink) -> None:
    if isinstance(item, Finding):
        state.boundaries.note(item)
        state.reading.append(item)
        _report(state, item, on_finding)
        return
    event = item if isinstance(item, Event) else item.event
    builder = state.builder
    if state.boundaries.opens_new_run(builder.counts):
        if not builder.counts["run_stop"]:  # a run cut off by the next: its end is now known
            _checkpoint(state, on_finding, on_progress, final=True)
        state.builder = RunBuilder(state.path, builder.index + 1)
        state.reading, state.init_alarm = [], False
    state.builder.add(event)
    if event.key in CHECKPOINT_KEYS:
        _checkpoint(state, on_finding, on_progress, final=event.key == "run_stop")
        if event.key == "run_stop":
            state.runs_done += 1
    elif not state.builder.counts["run_start"] and (is_hyperparameter(event.key) or event.key == "opt_name"):
        # A closed-division value is decided by its own line: say so now, not at init_stop,
        # which comes after the graph compiled (minutes later on a POD).
        _checkpoint(state, on_finding, on_progress, final=False, progress=False, only=_VALUE_CODES)


def _checkpoint(state: WatchState, on_finding: FindingSink, on_progress: ProgressSink,
                final: bool, progress: bool = True, only: frozenset[str] | None = None) -> None:
    run = state.builder.build()
    result = judge_run(run, LogRef(state.path), state.forced, state.reading)
    started = run.run_start is not None
    for found in result.findings:
        if only is not None and found.code not in only:
            continue
        if final or _decided(found, started):
            _report(state, found, on_finding)
        elif started and found.items and _undecided(found):
            decided = [item for item in found.items if _CONFIG_KEY.match(item)]
            if decided:  # the keys of a grouped finding that configure the run are decided
                _report(state, replace(found, message=f"{', '.join(decided)}: not logged by run_start; a "
                                       "key that configures the run cannot come later", items=tuple(decided),
                                       item_count=len(decided)), on_finding)
    if not progress:
        return
    try:
        facts = choose_ruleset(run, LogRef(state.path), state.forced).ruleset.facts(result.benchmark or "")
    except RulesetError:
        facts = None
    on_progress(_progress_line(run, facts))


def _undecided(found: Finding) -> bool:
    """Whether a finding says something is missing or not reached, which may still come."""
    found_rule = find_rule(found.code)
    name = found_rule[0].name if found_rule else found.name
    return "missing" in name or "not-reached" in name


def _decided(found: Finding, started: bool) -> bool:
    """Whether a finding on a partial run can no longer change (see the module docstring); of a
    finding that lists several keys, :func:`_checkpoint` reports the decided ones."""
    if _undecided(found):
        return started and not found.items[1:] and (
            found.code in _CONFIG_CODES or _CONFIG_KEY.match(found.message) is not None)
    return True


def _report(state: WatchState, found: Finding, on_finding: FindingSink) -> None:
    key = (found.code, found.line, found.message)
    if key not in state.reported:
        state.reported.add(key)
        on_finding(found)


def _check_init_clock(state: WatchState, on_finding: FindingSink) -> None:
    """MLC401 while init is still running, once the round's limit has passed."""
    run_events = state.builder
    if state.init_alarm or not run_events.counts["init_start"] or run_events.counts["init_stop"]:
        return
    start = next(e for e in run_events.events if e.key == "init_start")
    latest = max(e.time_ms for e in run_events.events)
    now_ms = time.time() * 1000
    clock = now_ms if abs(now_ms - latest) < _LIVE_CLOCK_MS else latest
    run = run_events.build()
    ruleset = choose_ruleset(run, LogRef(state.path), state.forced).ruleset
    division = "open" if run.division == "open" else "closed"
    limit = ruleset.init_limit_checker[division]
    minutes = (clock - start.time_ms) / 60000
    if minutes >= limit:
        state.init_alarm = True
        _report(state, INIT_TIME_EXCEEDED.at(
            state.path, start.line, f"init has been running for {minutes:.1f} min and has not stopped "
            f"yet; the {ruleset.round} {division} division allows {limit:g} min", run_index=run.index),
            on_finding)


def _progress_line(run: Run, facts: BenchmarkFacts | None) -> str:
    """Elapsed time, last eval and projected time-to-train of the run being written."""
    start, stop = run.run_start, run.run_stop
    head = f"run {run.index}, line {run.last_line}"
    if start is None:
        return f"{head}: initialising ({len(run.events)} records so far)"
    latest = max(e.time_ms for e in run.events)
    if stop is not None:
        minutes = time_to_train_min(start.time_ms, stop.time_ms)
        return f"{head}: run_stop ({run.status or 'no status'}), time-to-train {minutes:.2f} min"
    parts = [f"{head}: {time_to_train_min(start.time_ms, latest):.2f} min since run_start"]
    if run.evaluations:
        last = run.evaluations[-1]
        epoch = f" (epoch {last.epoch_num:g})" if last.epoch_num is not None else ""
        shown = f"{last.value:.5g}" if isinstance(last.value, float) else repr(last.value)
        parts.append(f"last eval {shown}{epoch}")
        if facts is not None:
            reached = first_reaching(run.evaluations, facts.target)
            if reached is not None:
                parts.append(f"target {facts.target.text} reached at line {reached.line}, "
                             f"{time_to_train_min(start.time_ms, reached.time_ms):.2f} min")
            else:
                projected = _projection(run.evaluations, facts.target.conditions)
                if projected is not None:
                    parts.append(f"projected time-to-train "
                                 f"{time_to_train_min(start.time_ms, projected):.1f} min")
    return "; ".join(parts)


def _projection(evals: tuple[Evaluation, ...], conditions: tuple[Condition, ...]) -> float | None:
    """When the target will be reached if the last two evals' trend goes on (None: no trend)."""
    numeric = [e for e in evals if isinstance(e.value, (int, float)) and not isinstance(e.value, bool)]
    goals = [c for c in conditions if not c.bound]
    if len(numeric) < 2 or len(goals) != 1 or goals[0].field is not None:
        return None
    (a, b), goal = numeric[-2:], goals[0].value
    rate = (float(b.value) - float(a.value)) / (b.time_ms - a.time_ms) if b.time_ms > a.time_ms else 0.0
    remaining = goal - float(b.value)
    if rate == 0 or remaining / rate < 0:
        return None
    return b.time_ms + remaining / rate


def is_error(found: Finding) -> bool:
    """True for a finding that fails the run (what ``--fail-fast`` stops on)."""
    return found.severity is Severity.ERROR
