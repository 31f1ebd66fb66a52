"""MLC535: the evals of a closed run whose metadata would make the round's RCP checker raise
(``rcp_checker.py read_submission_file``; the rule's documentation is in
:mod:`mlcheck.rules.rcp_check`). Only runs the package checker RCP-tests: closed division, a
benchmark with RCPs in the round.

Stable Diffusion (a ``first_passing_step`` rule, 3.1-5.0): at a successful ``run_stop`` the checker
groups the evals before it by step, tests each step with ``FID <= 90.0 and CLIP >= 0.15`` (a step
without FID, or whose FID passes without CLIP, raises KeyError; a value that is not a number raises
TypeError) and takes ``min()`` of the passing steps, which raises ValueError when none passes: a run
that says ``success`` without reaching the target stops the package checker."""

from __future__ import annotations

import math

from typing import Any, Mapping

from mlcheck.facts.checks import show
from mlcheck.model import Event, Finding, Run
from mlcheck.rules.rcp_check import RCP_POINT_UNREADABLE
from mlcheck.score.rcp import NO_RCP
from mlcheck.score.rcp.named_late import LATE_ADVICE
from mlcheck.score.rcp.policy import DEFAULT_CONVERGENCE, ConvergenceRule, round_policy
from mlcheck.score.rcp.reference import load_references

_ROUNDABLE = (int, float)  # (bool is an int: round(True, 3) is 1, as the checker computes)


def unreadable_points(run: Run, ruleset: str, benchmark: str | None) -> list[Finding]:
    """At most one finding: the first eval the round's RCP checker would raise on."""
    if run.division != "closed" or benchmark is None or benchmark in NO_RCP:
        return []
    policy = round_policy(ruleset)
    if policy is None or load_references(benchmark, ruleset, policy.runs_of(benchmark, 5)) is None:
        return []
    rule = policy.convergence_of(benchmark)
    evals = run.occurrences("eval_accuracy")
    stops = run.occurrences("run_stop")
    before = _Before(run)  # (one order of the run's records, made where two share a line)
    point = _averaged_point(evals, stops[-1], before) if stops and rule.round_to is None else None
    named = run.first("submission_benchmark")  # (records before it are read as epochs: named_late)

    def reader_of(event: Event) -> ConvergenceRule:  # (before: on an earlier line or earlier on it)
        return DEFAULT_CONVERGENCE if named is None or before(event, named) else rule

    for event in evals:
        reader = reader_of(event)
        why = _raises(event, reader, event is point)
        if why:
            return [RCP_POINT_UNREADABLE.at(run.path, event.line, (
                f"eval_accuracy {why}: training {ruleset}'s RCP checker raises on it "
                f"({reader.source}), and the package checker stops with it, so the package cannot be "
                f"accepted as it is. Log {reader.metadata} as a number in every eval's metadata"
                + (LATE_ADVICE if reader is not rule else "")), run_index=run.index)]
    statusless = next((stop for stop in stops if not _has_status(stop.metadata)), None)
    if statusless is not None:  # (the checker reads json.loads(line)["metadata"]["status"] of every run_stop)
        return [RCP_POINT_UNREADABLE.at(run.path, statusless.line, (
            f"run_stop has no status in its metadata: training {ruleset}'s RCP checker reads the status of every "
            "run_stop (its json.loads(line)['metadata']['status'] raises a KeyError, or a TypeError where the metadata "
            "is no object), and the package checker stops with it, so the package cannot be accepted as it is. "
            "Log run_stop with metadata status success or aborted"), run_index=run.index)]
    first_success = next((stop for stop in stops if _succeeded(stop)), None)
    at_success = rule if first_success is None else reader_of(first_success)
    if at_success.point != "first_passing_step" and first_success is not None and not any(
            before(e, first_success) for e in (*evals, *run.occurrences("eval_error"))):  # (see MLC535's known limit)
        return [RCP_POINT_UNREADABLE.at(run.path, first_success.line, (
            f"run_stop says success but no eval_accuracy comes before it: training {ruleset}'s RCP checker "
            f"takes the run's convergence point from the last eval before it, has none (UnboundLocalError: "
            "conv_epoch), and the package checker stops with it, so the package cannot be accepted as it is. "
            "Log every eval, or run_stop with status aborted for a run that did not reach the target"),
            run_index=run.index)]
    if rule.point == "first_passing_step":
        for stop in stops:
            if _succeeded(stop) and reader_of(stop) is rule:  # (named by then)
                line, why = _no_passing_step([e for e in evals if before(e, stop) and reader_of(e) is rule], rule, stop)
                if why:
                    return [RCP_POINT_UNREADABLE.at(run.path, line, (
                        f"{why}: training {ruleset}'s RCP checker raises there ({rule.source}), and the "
                        "package checker stops with it, so the package cannot be accepted as it is. Log "
                        "run_stop with status aborted for a run that did not reach the target, and FID and "
                        "CLIP at every eval step"), run_index=run.index)]
    return []


def _has_status(metadata: Any) -> bool:
    """Whether ``metadata["status"]`` reads (math.nan: as_checked_metadata's stand-in for a name
    found in metadata that is no object, where the checker's indexing raises TypeError)."""
    return isinstance(metadata, Mapping) and "status" in metadata and math.nan not in metadata.values()


def _succeeded(stop: Event) -> bool:
    metadata: Any = stop.metadata
    return isinstance(metadata, Mapping) and metadata.get("status") == "success"


def _no_passing_step(evals: list[Event], rule: ConvergenceRule, stop: Event) -> tuple[int | None, str]:
    """Where and why the checker's search for the first passing step raises at ``stop`` (the
    evals before it, whose metadata :func:`_raises` found readable); ``""`` when it does not."""
    steps: dict[object, dict[object, object]] = {}
    first_line: dict[object, int | None] = {}
    for event in evals:
        metadata: Any = event.metadata
        step = metadata[rule.metadata]
        try:
            steps.setdefault(step, {})[metadata["metric"]] = event.value
        except TypeError:  # (an unhashable step or metric: the checker's dictionary raises on it)
            return event.line, f"eval_accuracy logs {rule.metadata} or metric {show(step)} as a list or object"
        first_line.setdefault(step, event.line)
    passing = False
    for step, values in steps.items():
        for condition in rule.conditions:
            if condition.metric not in values:
                return first_line[step], (f"the eval step {show(step)} logs no {condition.metric} "
                                          f"(KeyError where the checker tests {condition.text})")
            observed = values[condition.metric]
            if not isinstance(observed, (int, float)):
                return first_line[step], (f"the eval step {show(step)} logs {condition.metric} {show(observed)}, "
                                          f"which {condition.text} cannot compare (TypeError)")
            if not condition.holds(observed):
                break
        else:
            passing = True
    if not passing:
        meets = " and ".join(c.text for c in rule.conditions)
        return stop.line, (f"run_stop says success but no eval step before it meets {meets}: "
                           "min() of no passing step raises ValueError")
    return None, ""


def _averaged_point(evals: tuple[Event, ...], last_stop: Event, before: _Before) -> Event | None:
    """The eval whose unrounded point the checker averages: the last before a successful last
    ``run_stop``; None when the run did not succeed."""
    metadata: Any = last_stop.metadata
    if not isinstance(metadata, Mapping) or metadata.get("status") != "success":
        return None
    earlier = [e for e in evals if before(e, last_stop)]
    return earlier[-1] if earlier else None


class _Before:
    """Whether a record of the run comes before another: on an earlier line, or earlier on the same
    line (raw output whose records only a CR separates, on one physical line: the official parser's
    universal newlines read each on a line of its own, as ``split`` writes them)."""

    def __init__(self, run: Run) -> None:
        self._run = run
        self._order: dict[int, int] | None = None

    def __call__(self, first: Event, then: Event) -> bool:
        if first.line != then.line:
            return first.line < then.line
        if self._order is None:  # (made once, where two records share a line)
            self._order = {id(event): number for number, event in enumerate(self._run.events)}
        return self._order.get(id(first), -1) < self._order.get(id(then), -1)


def _raises(event: Event, rule: ConvergenceRule, averaged: bool) -> str:
    """Why the checker raises on this eval ("" when it does not); ``averaged``: it is the run's
    point the checker averages unrounded."""
    metadata: Any = event.metadata
    if (type(metadata) is not dict and not isinstance(metadata, Mapping)) \
            or math.nan in metadata.values():  # (a dict first: typing's isinstance is slow)
        return "has metadata that is not an object"  # (math.nan: as_checked_metadata's stand-in for a name found)
    keys = (rule.metadata, "metric") if rule.point == "first_passing_step" else (rule.metadata,)
    for key in keys:
        if key not in metadata:
            return f"has no {key} in its metadata"
    value = metadata[rule.metadata]
    if rule.point != "last_eval" or isinstance(value, _ROUNDABLE):
        return ""
    if rule.round_to is not None:
        return f"logs {rule.metadata} {show(value)}, which round() cannot take"
    if averaged:
        return f"logs {rule.metadata} {show(value)}, the run's convergence point, which cannot be averaged"
    return ""
