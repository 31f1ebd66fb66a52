"""The evaluation records a round's target is judged on, built once per run before the rules run.

Most benchmarks are judged on their ``eval_accuracy`` records as logged. Stable Diffusion (3.1-5.0)
logs FID and CLIP as separate ``eval_accuracy`` records, each naming its ``metric``; the
checker's BEGIN code merges those of one position (``step_num`` in 3.1, ``samples_count`` from
4.0) into one virtual ``aggregated_eval_accuracy`` record ``{position, FID, CLIP}``, timed at the
latest of them, and judges the target (and ``AT_LEAST(2)``) on the merged records. mlcheck does the
same from the ruleset's ``target.aggregate`` data: the merged records join the run's events (at
the line of the record that completed them) and replace its evaluations. The 5.1 open FLUX.1 file
judges another key (``averaged_validation_loss``): its records become the evaluations.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Iterator

from mlcheck.facts.checks import show_repr
from mlcheck.facts.rulesets import Aggregate, BenchmarkFacts, Target
from mlcheck.model import Evaluation, Event, Finding, Run, Severity
from mlcheck.read.run_builder import position_number
from mlcheck.rules.eval_values import all_plain_floats, is_nan
from mlcheck.rules.target_comparison import CHECKER_RAISES, comparison_raises, fields_absent, nan_compared

if TYPE_CHECKING:
    from mlcheck.rule import Rule, RunContext


def target_for(facts: BenchmarkFacts, division: str | None) -> Target:
    """The target the run's division is judged on (the open file's, where the round has one)."""
    if division == "open" and facts.open_target is not None:
        return facts.open_target
    return facts.target


def judged_run(run: Run, facts: BenchmarkFacts | None) -> Run:
    """The run with the evaluation records its round's target is judged on."""
    if facts is None:
        return run
    target = target_for(facts, run.division)
    if target.aggregate is not None:
        return _aggregated(run, target.aggregate)
    if target.metric != "eval_accuracy":
        return replace(run, evaluations=tuple(_evaluation(e, e.value) for e in run.occurrences(target.metric)))
    return run


def unmergeable(run: Run, aggregate: Aggregate) -> tuple[tuple[Event, str], ...]:
    """Records that name their metric but not their position, or whose position or metric is no
    dict key (a list, an object), with what is wrong: the checker's BEGIN code fails on them
    (``KeyError``, ``TypeError: unhashable``) and the whole file with it."""
    found = []
    for event in run.occurrences(aggregate.key):
        if aggregate.name_from not in event.metadata:
            continue
        if event.metadata[aggregate.name_from] is math.nan:  # (as_checked_metadata: no object)
            found.append((event, "its metadata is no object"))
        elif aggregate.by not in event.metadata:
            found.append((event, f"has no {aggregate.by} in its metadata"))
        elif not _hashable(event.metadata[aggregate.by]):
            found.append((event, f"has a {aggregate.by} of {show_repr(event.metadata[aggregate.by])}, which "
                                 "cannot be a dict key"))
        elif not _hashable(event.metadata[aggregate.name_from]):
            found.append((event, f"names a {aggregate.name_from} that cannot be a dict key"))
    return tuple(found)


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _aggregated(run: Run, aggregate: Aggregate) -> Run:
    merged: dict[Any, dict[str, Any]] = {}
    for event in run.occurrences(aggregate.key):
        if aggregate.name_from not in event.metadata or aggregate.by not in event.metadata \
                or event.metadata[aggregate.name_from] is math.nan:  # (no object: unmergeable)
            continue
        position = event.metadata[aggregate.by]
        try:
            group = merged.setdefault(position, {"value": {aggregate.by: position}, "time": event.time_ms,
                                                 "line": event.line})
        except TypeError:  # an unhashable position: the checker's dict lookup fails too
            continue
        group["time"] = max(group["time"], event.time_ms)
        group["line"] = event.line
        try:
            group["value"][event.metadata[aggregate.name_from]] = event.value
        except TypeError:
            continue
    virtual = tuple(Event(key=aggregate.into, value=g["value"], metadata={}, time_ms=g["time"], line=g["line"])
                    for g in merged.values())
    counts = dict(run.key_counts)
    counts[aggregate.into] = len(virtual)
    evaluations = tuple(_evaluation(e, e.value, aggregate.by, e.value.get(aggregate.by)) for e in virtual)
    return replace(run, events=run.events + virtual, key_counts=counts, evaluations=evaluations)


def _evaluation(event: Event, value: Any, by: str | None = None, position: Any = None) -> Evaluation:
    metadata = event.metadata if by is None else {by: position}
    return Evaluation(time_ms=event.time_ms, value=value, line=event.line,
                      epoch_num=position_number(metadata.get("epoch_num")),
                      samples_count=position_number(metadata.get("samples_count")),
                      step_num=position_number(metadata.get("step_num")))


_TOOLS_STOP = "the tools that run it on this file stop with it (the package checker, the summarizer)"


def invalid_values(ctx: RunContext, target: Target, rule: Rule) -> Iterator[Finding]:
    """MLC304 (:mod:`mlcheck.rules.convergence`) for each evaluation the target cannot be judged on."""
    comparable = target.plain is not None and all_plain_floats(ctx.run.evaluations)
    for evaluation in () if comparable else ctx.run.evaluations:  # (else each is compared once)
        value = evaluation.value
        what = (f"the {target.aggregate.into} record {show_repr(value)} (the {target.metric} records of one "
                f"{target.aggregate.by}, merged)" if target.aggregate is not None else f"eval_accuracy value {show_repr(value)}")
        absent = fields_absent(target, value)
        if absent:
            raised = f"; {CHECKER_RAISES}: {_TOOLS_STOP}" if comparison_raises(target, value) else ""
            yield ctx.at(rule, evaluation.line, f"{what} holds no {' and no '.join(absent)}: the round's checker "
                         f"requires each in every one (CHECK \"'{absent[0]}' in v['value']\") and fails the file{raised}")
            continue
        flags = [f for f in dict.fromkeys(c.field for c in target.conditions if c.field)
                 if isinstance(value, Mapping) and type(value.get(f)) is bool]  # (Mask R-CNN's BBOX: false)
        if isinstance(value, bool) or flags:
            said = " and ".join(f"{f} is {str(value[f]).lower()}" for f in flags)
            yield ctx.at(rule, evaluation.line, (f"eval_accuracy is {str(value).lower()}, a boolean: the official checker's "
                         f"Python compares it as {int(value)}" if not flags else f"eval_accuracy's {said}, a boolean: the "
                         "official checker's Python compares false as 0 and true as 1") + ", and so does mlcheck; log the metric",
                         severity=Severity.WARNING, official=False)
        if isinstance(value, float) and math.isinf(value):
            yield ctx.at(rule, evaluation.line,
                         f"eval_accuracy is {value!r}: an infinite value is no measurement (the metric "
                         "failed, or 1e400 was logged); the official checker compares it as it is",
                         severity=Severity.WARNING, official=False)
            continue
        if target.reached_by(value) is not None:
            continue
        if is_nan(value):
            yield ctx.at(rule, evaluation.line,
                         f"eval_accuracy is {value!r}: the model diverged at this eval, or the "
                         "metric failed (the official checker's comparison with the target is false: not reached)",
                         severity=Severity.WARNING, official=False)
            continue
        raises = comparison_raises(target, value)
        nan_field = nan_compared(target, value)
        why = f": {CHECKER_RAISES} (its ATLEAST_ONE_CHECK, outside any try): {_TOOLS_STOP}" if raises else (f": its {nan_field} is NaN (the model diverged, or the metric failed), which the "
                                 "official checker compares with the target and finds it not reached" if nan_field else
                                 ": the official checker stops at a condition this evaluation does not meet "
                                 "before it comes to the value, and reads it as not reaching the target")
        advice = "; log every metric of each evaluation" if target.aggregate is not None else ""
        yield ctx.at(rule, evaluation.line, f"{what} cannot be compared with the target ({target.text}){why}{advice}",
                     severity=Severity.ERROR if raises else Severity.WARNING, official=raises)
