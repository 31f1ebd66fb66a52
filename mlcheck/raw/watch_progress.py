"""The progress line of ``mlcheck watch`` (elapsed time, the last eval and a projected
time-to-train) and its init alarm (split from :mod:`mlcheck.raw.watch`)."""

from __future__ import annotations

import math
import time
from typing import Callable, Sequence

from mlcheck.checker import choose_ruleset
from mlcheck.facts.rulesets import BenchmarkFacts, Condition, Ruleset
from mlcheck.model import Evaluation, Finding, Run, Severity
from mlcheck.package.discover import LogRef
from mlcheck.read.run_builder import RunBuilder
from mlcheck.rules.timing import INIT_TIME_EXCEEDED
from mlcheck.rules.eval_values import first_reaching
from mlcheck.rules.eval_records import judged_run
from mlcheck.score.scoring import time_to_train_min


def progress_line(run: Run, facts: BenchmarkFacts | None, unit: str = "epochs") -> str:
    """Elapsed time, last eval and projected time-to-train of the run being written (``unit``:
    what the evals' ``epoch_num`` counts, samples for BERT)."""
    start, stop = run.run_start, run.run_stop
    head = f"run {run.index}, line {run.last_line}"
    if start is None:
        return f"{head}: initialising ({len(run.events)} records so far)"
    latest = max(e.time_ms for e in run.events)
    if stop is not None:
        minutes = time_to_train_min(start.time_ms, stop.time_ms)
        return f"{head}: run_stop ({run.status or 'no status'}), time-to-train {minutes:.2f} min"
    parts = [f"{head}: {time_to_train_min(start.time_ms, latest):.2f} min since run_start"]
    run = judged_run(run, facts)  # the records the target is judged on (merged FID/CLIP ones)
    if run.evaluations:
        last = run.evaluations[-1]
        epoch = "" if last.epoch_num is None else f" (epoch {last.epoch_num:g})" if unit == "epochs" else (
            f" ({unit} {last.epoch_num:,.0f})")
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
                    parts.append(f"projected time-to-train "  # (a straight line: no bound either way)
                                 f"{time_to_train_min(start.time_ms, projected):.1f} min if the last two evals' "
                                 "trend held (curves usually flatten near the target: likely longer)")
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


_LIVE_CLOCK_MS = 24 * 3600 * 1000
"""A log whose last record is further from the machine's clock than this is not being written
now (a replay, a copy): init is timed to its last record instead."""


def init_overrun(builder: RunBuilder, path: str, forced: Ruleset | None, held_until: float | None = None) -> Finding | None:
    """MLC401 for a run whose init is still running past the round's limit; None otherwise. By the
    log's own times (its last record, ``held_until`` too: one held until it is known whether
    another attempt begins, :mod:`mlcheck.read.next_run`) the overrun is certain: an error. By the
    wall clock alone it is a warning: records may arrive late (a copied log, block-buffered
    output), and init's length is judged at init_stop by the log's times."""
    if not builder.counts["init_start"] or builder.counts["init_stop"]:
        return None
    start = next(e for e in builder.events if e.key == "init_start")
    latest = max(max(e.time_ms for e in builder.events), held_until if held_until is not None else -math.inf)
    now_ms = time.time() * 1000
    live = abs(now_ms - latest) < _LIVE_CLOCK_MS
    run = builder.build()
    ruleset = choose_ruleset(run, LogRef(path), forced).ruleset
    division = "open" if run.division == "open" else "closed"
    limit = ruleset.init_limit_checker[division]
    logged, clocked = (latest - start.time_ms) / 60000, (now_ms - start.time_ms) / 60000
    allows = f"the {ruleset.round} {division} division allows {limit:g} min"
    if logged >= limit:
        return INIT_TIME_EXCEEDED.at(path, start.line, f"init has been running for {logged:.1f} min by the log's "
                                     f"own times and has not stopped yet; {allows}", run_index=run.index)
    if not live or clocked < limit:
        return None
    return INIT_TIME_EXCEEDED.at(path, start.line, f"init has been running for {clocked:.1f} min by the clock "
                                 f"(its last record is {logged:.1f} min in) and has not stopped yet; {allows}; "
                                 "records may arrive late: init_stop's time decides", severity=Severity.WARNING,
                                 official=False, run_index=run.index)  # (no checker reads a clock)


_BEFORE_START = ("submission_", "init_start", "init_stop", "seed")
"""The required keys that the runs of almost every log hold before run_start: the others come later
in some (epochs, evals; RNN-T's and MiniGo's hyper-parameters, U-Net3D's sample counts and batch
size, a HugeCTR log's cache_clear: a review of session 47 met the note on 26 of 153 valid logs);
TPU loggers print the submission_* block after run_stop (the note says it is judged there)."""


def say_not_logged_at_start(run: Run, findings: Sequence[Finding], noted: set[tuple[str, int | None, str]],
                            say: Callable[[str], None]) -> None:
    """Once a run, at its first checkpoint after ``run_start``: the configuration keys not logged yet
    (:data:`_BEFORE_START` of MLC105 and MLC201 of the partial run), said as a progress line.
    Not a finding: the official checker takes a key anywhere in the log (TPU loggers print the
    submission block after run_stop), so they are judged at run_stop."""
    start = run.run_start
    if start is None or ("not logged at run_start", start.line, "") in noted:
        return
    noted.add(("not logged at run_start", start.line, ""))
    keys = [item.split(" ")[0] for found in findings if found.code in ("MLC105", "MLC201")
            for item in (found.items or (found.message,))
            if item.startswith(_BEFORE_START)]
    if keys:
        shown = ", ".join(dict.fromkeys(keys[:8])) + (", ..." if len(keys) > 8 else "")
        say(f"run {run.index}: at run_start (line {start.line}) not logged yet: {shown}; judged at run_stop "
            "(the official checker takes a key anywhere in the log)")
