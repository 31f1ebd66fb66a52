"""``mlcheck watch``: judge a run while it is being written, and say as early as possible what is wrong.

The log is followed like ``tail -F`` (:mod:`mlcheck.read.follow`), read with the reader every command uses. At
each *checkpoint* (``init_stop``, ``run_start``, every ``eval_accuracy``, ``run_stop``, a new run) the run rules of
``check`` judge the partial run, and each finding no later line can change is reported at once
(:data:`DECIDED_EARLY`, and what the reader finds in the lines); a *missing* key or target is only decided at
``run_stop`` (logs put no order on most keys, and the official checker judges the whole log). While init runs,
its limit is checked against the log's own times (an error) and, live, the wall clock (a warning: records may
arrive late). A run ends at its first ``run_stop``, or dies (the launcher's word that the job ended): it counts
for ``runs`` once no record came for ``relaunch_wait`` after it; a relaunch then makes it an attempt. Report: check's."""

from __future__ import annotations

import os
import time
from dataclasses import replace
from itertools import chain
from typing import Iterable

from mlcheck.checker import judge_run
from mlcheck.package.discover import LogRef
from mlcheck.read.follow import COMPRESSED, IDLE, RESTART, Follower
from mlcheck.model import Event, Finding, Severity
from mlcheck.read.live_reader import LiveReader
from mlcheck.read.raw_output_rules import RECORD_CUT
from mlcheck.read.reader import AnyItem
from mlcheck.read.items import RefusedRecordText
from mlcheck.rules.internal import crash_finding
from mlcheck.rules.package_runs import is_hyperparameter
from mlcheck.facts.rulesets import Ruleset
from mlcheck.rules.timing import INIT_TIME_EXCEEDED
from mlcheck.raw.watch_progress import progress_line as _progress_line, say_not_logged_at_start
from mlcheck.score.rcp.policy import round_policy
from mlcheck.raw.mixed_jobs import MixedJobs  # (MPI jobs in one console)
from mlcheck.raw.watch_tolerance import run_facts, tolerated_while_watched
from mlcheck.raw.watch_state import (FindingSink, Lost, ProgressSink, StopWatching, WatchOutcome,
                                     WatchState, check_init_clock, new_state, report_once)

CHECKPOINT_KEYS = frozenset({"init_stop", "run_start", "eval_accuracy", "run_stop"})
_VALUE_CODES = frozenset({"MLC202", "MLC203"})  # (a closed-division value decides them alone, as its line is read)
DECIDED_EARLY = frozenset({*_VALUE_CODES, "MLC106", "MLC108", "MLC109", "MLC401"})
"""The findings of a partial run that no later line can take back: a logged value that breaks a fixed value or the
optimizer list, two values of a key required once, a bad submission value, the division after init_stop, init too long."""

AFTER_STOP_POLLS = 20
"""Polls of quiet after a run's run_stop before it is judged whole (2 s at the default poll): HugeCTR
and TPU loggers print records after run_stop, a moment later on a busy job."""
BLOCK_WAIT_S = 20.0
"""The quiet after run_stop (at least) for a run whose submission_* block is not whole: TPU loggers print it later."""
_BLOCK = ("submission_benchmark", "submission_division", "submission_org", "submission_platform", "submission_status")


def watch(path: str, on_finding: FindingSink, on_progress: ProgressSink, forced: Ruleset | None = None,
          runs: int = 1, poll: float = 0.1, idle_timeout: float | None = None,
          forced_source: str = "--ruleset", relaunch_wait: float | None = None) -> WatchOutcome:
    """Follow ``path`` until ``runs`` runs have ended; report findings and progress as they come (``forced_source``
    says where ``forced`` was set, as in ``check``). A run that died counts once no record came for ``relaunch_wait``
    seconds after it (default: :data:`AFTER_STOP_POLLS` polls): a relaunch within it makes it an attempt."""
    follower, lost = Follower(path, poll), Lost(on_finding)
    wait = AFTER_STOP_POLLS * poll if relaunch_wait is None else relaunch_wait
    jobs = MixedJobs(path, lost.sink, on_progress, wait)  # (MPI jobs that run at once: MLC030, then quiet)
    try:
        outcome = jobs.after(_follow(follower, path, jobs, (forced, forced_source), runs, poll, idle_timeout, lost, wait))
        return replace(outcome, held=follower.gone(), cr_ends=follower.line_ends())
    except KeyboardInterrupt as stop:  # (what was held is said: the interrupted watch names the failing findings
        jobs.release(quietly=True)  # said; the file read, for its report where the job moved it away: ``held``)
        stop.held = follower.gone()  # type: ignore[attr-defined]
        raise
    finally:
        follower.close()


def _follow(follower: Follower, path: str, jobs: MixedJobs, forced: tuple[Ruleset | None, str], wanted: int,
            poll: float, idle_timeout: float | None, lost: Lost, relaunch_wait: float) -> WatchOutcome:
    on_finding, on_progress = jobs.finding, jobs.progress
    live = LiveReader(path)
    state = new_state(path, forced, wanted)
    runs, outcome = wanted, lost.outcome  # (runs: those still to stop in the file as it is now)
    last_data, told = time.monotonic(), -1  # (told: the run whose wait for its submission block was said)

    def take(items: Iterable[AnyItem]) -> bool:
        try:
            for item in items:
                _take(state, item, on_finding, on_progress)
                if state.runs_done >= runs:
                    return True
        except StopWatching:
            raise
        except Exception as error:  # a bug met on one line must not end the watch (as in check)
            on_finding(crash_finding("watching this log", path, error))
        return False

    def ended(final: bool = False) -> bool:
        """Judge the run whose run_stop came whole (nothing more to read now); whether all stopped.
        The records held after its run_stop (a block repeated: the next trial's, if one begins) are its
        own only where the file ends (``final``); else they stay held, the run ending at its last own record."""
        if state.stop_pending:
            for event in state.next_run.rest() if final else ():  # (held after run_stop, and no next run began)
                _add(state, event, on_finding, on_progress)
            _finish_ended(state, on_finding, on_progress)
        elif final and state.next_run.held and state.builder.counts["run_stop"]:  # (judged after a quiet spell:
            for event in state.next_run.rest():  # what it held is its own where the file ends, as check reads it)
                _add(state, event, on_finding, on_progress)
            state.end_line = max(e.line for e in state.builder.events)
            _checkpoint(state, on_finding, on_progress, final=True, progress=False)
        return state.runs_done >= runs

    try:
        for signal in follower.signals():
            if signal == COMPRESSED:  # (not followed: the caller judges it once it is whole)
                return outcome("compressed", state.runs_done, live.line_no)
            if signal == RESTART:  # (a run that logged its run_stop is judged whole on what was read)
                done = take(live.finish()) | ended(final=True)
                jobs.release(quietly=True)  # (what was held: said of the lines the file no longer holds, which fail
                on_progress(lost.restart(path, live.line_no, state.runs_done))  # the watch at its end, --fail-fast too)
                if done:  # (every run watched is in what the file no longer holds: its findings are said)
                    return outcome("replaced", 0, 0)
                runs -= state.runs_done
                live, state = LiveReader(path), new_state(path, forced, runs)
                continue
            if signal == IDLE:
                jobs.tick(time.monotonic())
                waits, still = AFTER_STOP_POLLS * poll, time.monotonic() - max(last_data, follower.grew)  # (held: a
                timed_out = idle_timeout is not None and still > idle_timeout  # last run_stop no LF ends; at the end, all)
                held = (follower.quiet_record() if still >= waits else None) or (follower.rest() if timed_out else None)
                if jobs.mixed:  # (jobs that ran at once: the report at the end judges each; end at their stops)
                    if held:
                        jobs.line(held, time.monotonic())
                    quiet = time.monotonic() - last_data
                    ended_runs = jobs.stopped + (jobs.died() if quiet >= relaunch_wait else 0)  # (a job that died)
                    if ended_runs >= runs and quiet >= waits or timed_out:
                        return outcome("complete" if ended_runs >= runs else "idle", min(ended_runs, runs), jobs.lines)
                    continue
                if timed_out:
                    take(chain(live.add(held) if held else (), live.finish()))
                    if ended(final=True):
                        return outcome("complete", state.runs_done, live.line_no)
                    flush_pending(state, on_finding, on_progress)
                    seen = live.line_no or os.path.exists(path)  # (an empty file exists)
                    return outcome("idle" if seen else "missing", state.runs_done, live.line_no)
                if take(chain(live.add(held) if held else (), live.idle())) or (live.pending and live.ready() and take(
                        live.flush())):  # (a line held back behind a rank's chunk)
                    return outcome("complete", state.runs_done, state.end_line or live.line_no)
                if any(not state.builder.counts[k] for k in _BLOCK):
                    waits = max(waits, BLOCK_WAIT_S)
                    if state.stop_pending and told != state.runs_done:
                        told = state.runs_done
                        on_progress(f"run_stop read; waiting up to {BLOCK_WAIT_S:.0f} s for the submission_* records "
                                    "the run has not logged (some loggers print them after run_stop)")
                quiet = time.monotonic() - last_data >= waits
                if relaunch_wait >= 1 and (note := state.death_note(relaunch_wait, live.line_no)) is not None:
                    on_progress(note)
                if time.monotonic() - last_data >= relaunch_wait and not live.pending and state.count_death(
                        lambda: _checkpoint(state, on_finding, on_progress, final=True)) and state.runs_done >= runs:
                    return outcome("complete", state.runs_done, state.end_line or live.line_no)
                if not live.pending and (quiet or not state.stop_pending) and ended():
                    # (all that was written with run_stop is read, and what follows it: some loggers
                    # print the submission_* and hyper-parameter records after run_stop)
                    return outcome("complete", state.runs_done, state.end_line or live.line_no)
                flush_pending(state, on_finding, on_progress)
                check_init_clock(state, on_finding)
                continue
            last_data = time.monotonic()
            assert not isinstance(signal, str)
            if live.begins():
                on_progress(f"reading {path} from line 1")
            if jobs.line(signal, last_data):  # (MPI jobs that run at once: not judged as one stream)
                continue
            if take(live.add(signal)):
                return outcome("complete", state.runs_done, state.end_line or live.line_no)
    except StopWatching:  # (stopped judging a run whole: the lines read ahead of it, the next run's, left out)
        return outcome("stopped", state.runs_done, state.judged_to or live.line_no)
    raise AssertionError("the follower never ends")  # pragma: no cover


def _take(state: WatchState, item: AnyItem, on_finding: FindingSink,
          on_progress: ProgressSink) -> None:
    state.judged_to = None
    if isinstance(item, Finding):
        if (said := state.boundaries.said(item, state.builder.counts)) is None:
            return  # (a job start that opens no run; a result file's findings as check says them)
        item = said
        if state.boundaries.waits(item):  # (a job's end, or a start before the run began: said if the
            if state.cut_at is not None:  # next record opens a run, as check says it)
                _end_at_cut(state, on_finding, on_progress)  # (the logging rank died while writing)
            state.waiting = item
            return
        state.reading.append(item)
        report_once(state, item, on_finding)
        if item.code == RECORD_CUT.code and item.severity is Severity.ERROR and not state.builder.counts["run_stop"]:
            state.cut_at = item  # (the run ends there only if the job ends next: the rank may go on)
        return
    if isinstance(item, RefusedRecordText):  # (only split reads them: its finding came before it)
        return
    event = item if isinstance(item, Event) else item.event
    state.cut_at, state.dead = None, False  # (a record after a cut one: the logging rank went on; after a dead run: relaunched)
    builder, next_run = state.builder, state.next_run
    pending: list[Event] = []  # (held after the run before stopped: the run a launcher line opens)
    if state.boundaries.opens_new_run(builder.counts, event.key, next_run.repeats_a_setting(event.key),
                                      event.time_ms - next_run.latest, next_run.repeats_a_setting(event.key, True)):
        for held in state.next_run.before_restart():  # (a run killed in its initialisation: its own)
            _add(state, held, on_finding, on_progress)
        _finish_ended(state, on_finding, on_progress)  # (a run cut off by the next: it ended)
        state.begin_next_run()
        pending = state.next_run.restart()
        said = state.boundaries.attempt_note(state.path, event.line, event.key)
        said = state.waiting if state.waiting is not None else said  # (one note a boundary, as check says it)
        if said is not None:
            state.reading.append(said)
            report_once(state, said, on_finding)
    state.waiting = None
    if state.boundaries.one_run:  # (a result file is one run, whatever it logs after run_stop)
        now = [event]
    else:  # (raw output: after run_stop, the job may begin its next run: mlcheck.read.next_run)
        opens, now = state.next_run.take(event.key, event.time_ms, event)
        if opens:
            for copy in state.next_run.before_open():  # (copies of the run, held until a later start)
                _add(state, copy, on_finding, on_progress)
            _finish_ended(state, on_finding, on_progress)  # (killed without run_stop, run again)
            state.begin_next_run()  # (a run judged whole after its run_stop is not judged again)
    for taken in pending + now:
        _add(state, taken, on_finding, on_progress)


def _end_at_cut(state: WatchState, on_finding: FindingSink, on_progress: ProgressSink) -> None:
    """The run whose record was cut, then the job's end: judged whole, ended at the cut."""
    cut, state.cut_at = state.cut_at, None
    assert cut is not None
    _checkpoint(state, on_finding, on_progress, final=True)
    state.died(cut.line)  # (counted once the log stays quiet after it)


def _finish_ended(state: WatchState, on_finding: FindingSink, on_progress: ProgressSink) -> None:
    """Judge the run the next one ends; count it for ``--runs`` where it logged its run_stop."""
    if state.stop_pending:
        state.end_line = max(e.line for e in state.builder.events)
        finish_run(state, on_finding, on_progress)
    elif not state.builder.counts["run_stop"]:  # (an attempt the job's relaunch ended: not counted)
        _checkpoint(state, on_finding, on_progress, final=True)


def _add(state: WatchState, event: Event, on_finding: FindingSink, on_progress: ProgressSink) -> None:
    state.builder.add(event)
    counts = state.builder.counts
    if event.key in CHECKPOINT_KEYS and event.key != "eval_accuracy":
        _checkpoint(state, on_finding, on_progress, final=False)
        stops = counts["run_stop"]  # (its first ends the run: a copy's is no second run)
        state.stop_pending = state.stop_pending or (event.key == "run_stop" and stops == 1)
    elif event.key == "eval_accuracy":
        _soon(state, on_finding, on_progress, None)
    elif (is_hyperparameter(event.key) or event.key == "opt_name") and (counts[event.key] == 1 or not counts["run_start"]):
        # A closed value is decided by its line: said now (or at the next idle poll), not at init_stop or the first eval.
        _soon(state, on_finding, on_progress, _VALUE_CODES)


def _soon(state: WatchState, on_finding: FindingSink, on_progress: ProgressSink,
          only: frozenset[str] | None) -> None:
    """A checkpoint that may wait: judged now when the run has grown by a quarter (at least 64 events) since
    its last judgment, else at the next idle poll (:func:`flush_pending`). Judging a partial run costs its
    length: at every eval of a long log, quadratic; with a geometric step, a few passes over the run."""
    grown = len(state.builder.events) - state.judged_events
    if grown >= max(64, state.judged_events // 4):
        _checkpoint(state, on_finding, on_progress, final=False, progress=only is None, only=only)
    elif state.pending is False or only is None:
        state.pending = only


def finish_run(state: WatchState, on_finding: FindingSink, on_progress: ProgressSink) -> None:
    state.stop_pending = False  # (the run that logged its run_stop, judged whole: what it still lacks is decided now)
    _checkpoint(state, on_finding, on_progress, final=True, progress=False)
    state.runs_done += 1


def flush_pending(state: WatchState, on_finding: FindingSink, on_progress: ProgressSink) -> None:
    """Judge the checkpoint that waited (the log went idle: nothing more to read for now)."""
    if state.pending is not False:
        only = state.pending if isinstance(state.pending, frozenset) else None
        _checkpoint(state, on_finding, on_progress, final=False, progress=only is None, only=only)


def _checkpoint(state: WatchState, on_finding: FindingSink, on_progress: ProgressSink,
                final: bool, progress: bool = True, only: frozenset[str] | None = None) -> None:
    run = state.builder.build()
    state.judged_events, state.pending, state.judged_to = len(run.events), False, run.last_line if final else None
    result = judge_run(run, LogRef(state.path), state.forced, state.reading, state.forced_source)
    facts = run_facts(run, state.path, state.forced, result.benchmark) if final or progress else None
    if final:  # (a run the benchmark result may still count as its slowest: its non-convergence, a warning)
        result = tolerated_while_watched(result, facts, state.wanted, state.non_converged)
    for found in result.findings:
        if only is not None and found.code not in only:
            continue
        if found.code == INIT_TIME_EXCEEDED.code and state.init_alarm is Severity.ERROR:
            continue  # (the overrun was reported while init ran: once a run)
        if final or found.code in DECIDED_EARLY:
            report_once(state, found, on_finding)
    if not progress:
        return
    say_not_logged_at_start(run, result.findings, state.reported, on_progress)
    policy = round_policy(result.ruleset) if result.ruleset else None
    on_progress(_progress_line(run, facts, policy.unit_of(facts.name) if policy and facts else "epochs"))
