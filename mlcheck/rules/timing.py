"""Timing: initialisation limit and the order of the run's clock events (family MLC4xx).

Rules text: training_rules.adoc §Run Results (maximum untimed initialisation: 30 min in v1.0, 20 min in
v1.1, 30 min closed / 4 h open from v2.0); checker: training_X.Y.Z/common.yaml, which measures
``init_stop`` minus the first ``init_start`` and allowed 30 min in 1.0.0 and 1.1.0.

- MLC401 init-time-exceeded: initialisation took longer than the checker of record allows (``watch``: a warning
  while it runs past the limit by the clock, before a record says so). On IPU systems graph compilation counts
  towards init. Fix: cache the compiled executable, or start the clock (``run_start``) when the limit is reached.
- MLC402 init-time-over-rules-limit: init stays within the checker's limit but exceeds the rules
  text of the round (v1.1: 20 min). A warning: results were accepted under the checker.
- MLC403 run-stop-before-run-start: ``run_stop`` is earlier than ``run_start``; the time-to-train
  would be negative. The official tools accept it and score a negative time.
- MLC404 clock-order: ``init_start``, ``init_stop``, ``run_start`` and ``run_stop`` are not logged in
  this order (by line, as the checker reads them), or an ``init_start`` is logged after ``init_stop``,
  or an ``init_stop`` after ``run_start`` (a second one: every rank's copy in raw output saved as a
  result file; the checker's ``not s['run_started']`` fails each).
- MLC405 clock-implausible: a ``time_ms`` lies outside 2015-2100 (seconds or microseconds logged
  instead of milliseconds, or a corrupted value). An error when it is the time of ``run_start`` or
  ``run_stop``: the score is computed from them and is meaningless (the official tools score such a
  log without a word: a ``run_stop`` at 1e30 ms gives a time-to-train of 1.7e25 minutes;
  training_rules §Run Results). A warning on ``init_start`` or ``init_stop`` (the init time is
  meaningless, but the official checker passes it where it comes out within its limit: else MLC401),
  and on any other record (no time is computed from it, but the clock or unit that wrote it is wrong), except
  ``time_ms: 0`` on a ``submission_*`` record or one logged before ``run_start`` (a
  hyper-parameter): written without a clock (``"file": "N/A"``, as accepted packages of several
  submitters have them), it times nothing.
  Fix: log milliseconds since the Unix epoch, as ``mllog`` does.
"""

from __future__ import annotations

import math
from itertools import chain
from typing import Iterator, Sequence

from mlcheck.model import NO_INIT_START, EVENT_LINE, EVENT_TIME_MS, PLAUSIBLE_MS, Event, Finding, Severity
from mlcheck.rule import Rule, RunContext
from mlcheck.rules.clock_values import shown_name, shown_time as _shown_time, unit_hint as _unit_hint, within as _within

INIT_TIME_EXCEEDED = Rule("MLC401", "init-time-exceeded", Severity.ERROR,
                          "initialisation took longer than the round allows", official=True, also=(Severity.WARNING,))
INIT_OVER_RULES_LIMIT = Rule("MLC402", "init-time-over-rules-limit", Severity.WARNING,
                             "initialisation exceeds the rules text, not the checker of record")
RUN_STOP_BEFORE_START = Rule("MLC403", "run-stop-before-run-start", Severity.ERROR,
                             "run_stop is earlier than run_start")
CLOCK_ORDER = Rule("MLC404", "clock-order", Severity.ERROR,
                   "init_start, init_stop, run_start, run_stop are out of order", official=True)

CLOCK_IMPLAUSIBLE = Rule("MLC405", "clock-implausible", Severity.ERROR,
                         "a time_ms is not a plausible date in milliseconds", also=(Severity.WARNING,))

RULES = (INIT_TIME_EXCEEDED, INIT_OVER_RULES_LIMIT, RUN_STOP_BEFORE_START, CLOCK_ORDER, CLOCK_IMPLAUSIBLE)


_INIT_KEYS, _RUN_KEYS = ("init_start", "init_stop"), ("run_start", "run_stop")
_CLOCK_KEYS = _INIT_KEYS + _RUN_KEYS


def _seconds(value: float) -> str:
    """Seconds to the millisecond; a span no clock gives (``time_ms`` 1e300) in four digits."""
    return f"{value:.3f}" if abs(value) < 1e9 else f"{value:.4g}"


def check(ctx: RunContext) -> Iterator[Finding]:
    """Findings about init duration and clock order."""
    yield from _init_time(ctx)
    run = ctx.run
    start, stop = run.run_start, run.run_stop
    if start is not None and stop is not None and stop.time_ms < start.time_ms:
        gap = (start.time_ms - stop.time_ms) / 1000  # (infinite where a time is: MLC405 says which)
        yield ctx.at(RUN_STOP_BEFORE_START, stop.line,
                     f"run_stop (line {stop.line}) is {_seconds(gap) + ' s ' if math.isfinite(gap) else ''}before "
                     f"run_start (line {start.line}); the time-to-train would be negative")
    yield from _order(ctx)
    yield from _clock_range(ctx)




def _clock_range(ctx: RunContext) -> Iterator[Finding]:
    low, high = PLAUSIBLE_MS  # (plausible_time inlined: this looks at every record kept)
    events = ctx.run.events
    if not events or _within(list(map(EVENT_TIME_MS, events)), low, high):
        return  # (the common run: its extremes found in C; a time_ms is finite, MLC005 says so of others)
    odd = [e for e in events if not low <= e.time_ms < high and math.isfinite(e.time_ms)]  # (NaN, inf: MLC007's)
    for group, severity, effect in (
            ([e for e in odd if e.key in _RUN_KEYS], Severity.ERROR, "the time-to-train computed from it is meaningless"),
            ([e for e in odd if e.key in _INIT_KEYS], Severity.WARNING, "the init time computed from it is meaningless "
             "(the official checker compares it with the limit and passes it; MLC401 where it fails)"),
            ([e for e in odd if e.key not in _CLOCK_KEYS and not _unclocked(e, ctx.run.run_start)], Severity.WARNING,
             "no time is computed from this record, but the clock that wrote it is wrong")):
        if group:
            first = group[0]
            more = f" ({len(group) - 1} more record(s) too)" if len(group) > 1 else ""
            yield ctx.at(CLOCK_IMPLAUSIBLE, first.line,
                         f"{shown_name(first.key)} has time_ms {_shown_time(first.time_ms)}, not a date between 2015 "
                         f"and 2100 in milliseconds since the Unix epoch{_unit_hint(first.time_ms)}{more}; "
                         f"{effect}", severity=severity)


def _unclocked(event: Event, start: Event | None) -> bool:
    """``time_ms: 0`` on a ``submission_*`` record or one before ``run_start``: no clock wrote it."""
    return event.time_ms == 0 and (event.key.startswith("submission_") or (start is not None and event.line < start.line))


def _init_time(ctx: RunContext) -> Iterator[Finding]:
    run = ctx.run
    duration = run.init_duration_ms
    stop = run.first("init_stop")
    if duration is None or stop is None:
        return
    division = "open" if run.division == "open" else "closed"
    minutes = duration / 60000
    checker_limit = ctx.ruleset.init_limit_checker[division]
    rules_limit = ctx.ruleset.init_limit_rules[division]
    over = _over_limit(run.occurrences("init_start"), run.occurrences("init_stop"), checker_limit)
    if over is not None:  # (as the checker compares: a time NaN fails it too)
        late, minutes = over
        took = f"took {_minutes(minutes, checker_limit)} min" if math.isfinite(minutes) else \
            "cannot be timed (a time of init_start or init_stop is not a finite number)"
        which = "" if late is stop else f" to the init_stop at line {late.line} (the checker checks each init_stop)"
        yield ctx.at(INIT_TIME_EXCEEDED, late.line,
                     f"init {took}{which}; the {ctx.ruleset.round} {division} division allows {checker_limit:g} min")
    elif minutes >= rules_limit:
        yield ctx.at(INIT_OVER_RULES_LIMIT, stop.line,
                     f"init took {_minutes(minutes, rules_limit)} min; the {ctx.ruleset.round} rules text allows "
                     f"{rules_limit:g} min (training_rules §Run Results: the clock must start once it is exceeded, "
                     f"{minutes - rules_limit:.1f} min more on this run's time) while its checker of record allowed "
                     f"{checker_limit:g}, under which the round's results were accepted: the score keeps the time logged")


def _over_limit(starts: tuple[Event, ...] | list[Event], stops: tuple[Event, ...] | list[Event],
                limit: float) -> tuple[Event, float] | None:
    """The first ``init_stop`` that is not within ``limit`` minutes of the first ``init_start``
    logged before it, with its minutes, as common.yaml checks each (``ll.timestamp -
    s['first_init_start'] < limit``, from 9e99 until an ``init_start`` lowers it); else None."""
    for stop in stops:
        earliest: float = min(chain((NO_INIT_START,), (EVENT_TIME_MS(s) for s in starts if EVENT_LINE(s) <= stop.line)))
        minutes = (stop.time_ms - earliest) / 60000
        if not minutes < limit:
            return stop, minutes
    return None


def _minutes(minutes: float, limit: float) -> str:
    """``31.2``; with more digits where one would show the limit (``30.0002``, not ``30.0``)."""
    for digits in range(1, 7):
        shown = f"{minutes:.{digits}f}"
        if float(shown) != limit:
            return shown
    return repr(minutes)


_REVERSED = ("; their times run the other way: the lines are listed newest first (a log export in descending order, "
             "gcloud logging read without --order=asc, or tac): list them oldest first")


def _mostly_backwards(events: Sequence[Event]) -> bool:
    """Whether the records' times go down from line to line far more often than up (a log listed
    newest first), not only a few records out of place."""
    steps = [(b.time_ms > a.time_ms) - (b.time_ms < a.time_ms) for a, b in zip(events, events[1:])]
    return steps.count(-1) >= 3 and steps.count(-1) > 4 * steps.count(1)


def _order(ctx: RunContext) -> Iterator[Finding]:
    firsts = [(key, ctx.run.first(key)) for key in _CLOCK_KEYS]
    present = [(key, event) for key, event in firsts if event is not None]
    pairs = list(zip(present, present[1:]))
    reversed_lines = len(pairs) >= 2 and all(b.line < a.line and b.time_ms >= a.time_ms for (_, a), (_, b) in pairs) \
        and _mostly_backwards(ctx.run.events)
    for (key_a, a), (key_b, b) in pairs:
        if b.line < a.line:
            yield ctx.at(CLOCK_ORDER, b.line,
                         f"{key_b} (line {b.line}) is logged before {key_a} (line {a.line}); expected "
                         f"{' < '.join(_CLOCK_KEYS)}" + (_REVERSED if reversed_lines else ""))
    # common.yaml, every round: each init_stop (not only the first) checks not s['run_started'].
    start = ctx.run.first("run_start")
    again = _logged_after(ctx.run.occurrences("init_stop"), start) if start is not None else []
    if start is not None and again:
        yield ctx.at(CLOCK_ORDER, again[0].line,
                     f"init_stop (line {again[0].line}{f' and {len(again) - 1} more' if len(again) > 1 else ''}) "
                     f"is logged again after run_start (line {start.line}); the checker requires every "
                     "init_stop before run_start (common.yaml: not s['run_started'])")
    # common.yaml: every init_start (not only the first) must come before init_stop.
    stop = ctx.run.first("init_stop")
    if stop is None:
        return
    for late in _logged_after(ctx.run.occurrences("init_start"), stop):
        yield ctx.at(CLOCK_ORDER, late.line,
                     f"init_start (line {late.line}) is logged again after init_stop (line {stop.line}); "
                     "every init_start must come before init_stop")


def _logged_after(events: tuple[Event, ...], bound: Event) -> list[Event]:
    """The events logged after ``bound`` (by line); none is the common run, found in C."""
    if not events or max(map(EVENT_LINE, events)) <= bound.line:
        return []
    return [e for e in events if e.line > bound.line]
