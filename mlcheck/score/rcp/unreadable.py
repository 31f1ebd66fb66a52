"""MLC535: the evals of a closed run whose metadata would make the round's RCP checker raise
(``rcp_checker.py read_submission_file``; the rule's documentation is in
:mod:`mlcheck.rules.rcp_check`). Only runs the package checker RCP-tests: closed division, a
benchmark with RCPs in the round."""

from __future__ import annotations

import math

from typing import Any, Mapping

from mlcheck.facts.checks import show
from mlcheck.model import Event, Finding, Run
from mlcheck.rules.rcp_check import RCP_POINT_UNREADABLE
from mlcheck.score.rcp import NO_RCP
from mlcheck.score.rcp.policy import ConvergenceRule, round_policy
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
    point = _averaged_point(evals, stops[-1]) if stops and rule.round_to is None else None
    for event in evals:
        why = _raises(event, rule, event is point)
        if why:
            return [RCP_POINT_UNREADABLE.at(run.path, event.line, (
                f"eval_accuracy {why}: training {ruleset}'s RCP checker raises on it "
                f"({rule.source}), and the package checker stops with it, so the package cannot be "
                f"accepted as it is. Log {rule.metadata} as a number in every eval's metadata"),
                run_index=run.index)]
    return []


def _averaged_point(evals: tuple[Event, ...], last_stop: Event) -> Event | None:
    """The eval whose unrounded point the checker averages: the last before a successful last
    ``run_stop``; None when the run did not succeed."""
    metadata: Any = last_stop.metadata
    if not isinstance(metadata, Mapping) or metadata.get("status") != "success":
        return None
    before = [e for e in evals if e.line < last_stop.line]
    return before[-1] if before else None


def _raises(event: Event, rule: ConvergenceRule, averaged: bool) -> str:
    """Why the checker raises on this eval ("" when it does not); ``averaged``: it is the run's
    point the checker averages unrounded."""
    metadata: Any = event.metadata
    if not isinstance(metadata, Mapping) or any(value is math.nan for value in metadata.values()):
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
