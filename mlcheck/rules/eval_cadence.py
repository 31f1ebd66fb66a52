"""Evaluation frequency of a closed run (family MLC3xx), a rule the official checker leaves out.

Rules text: training_rules.adoc §Quality measure: "The quality measure must be evaluated at the
same frequency (in terms of number of training items between test sets) ... as in the reference
implementation", with a table per benchmark (facts in ``schemas/rulesets/<round>/ruleset.json``,
``eval_cadence``): ResNet every 4 epochs with offset 0-3, RNN-T every epoch, BERT every
``FLOOR(0.05*(230.23*GBS+3000000), 25000)`` samples skipping 0 (a point may be rounded up to the
next batch). Evaluating less often makes the measured time-to-train depend on when the target
happens to be checked; evaluating more often gives it an advantage over the reference.

- MLC307 eval-cadence: a closed-division run evaluates off the round's schedule. Reported once,
  at the first eval off the schedule; a warning, as the official checker does not check it
  (``official: false``). Fix: evaluate as the reference does.
"""

from __future__ import annotations

import math
from typing import Iterator

from mlcheck.model import Evaluation, Finding, Severity
from mlcheck.rule import Rule, RunContext
from mlcheck.facts.rulesets import EvalCadence

EVAL_CADENCE = Rule("MLC307", "eval-cadence", Severity.WARNING,
                    "a closed run evaluates off the round's schedule")

RULES = (EVAL_CADENCE,)


def check(ctx: RunContext) -> Iterator[Finding]:
    """At most one finding: the first eval that is off the schedule of the round."""
    cadence = ctx.facts.eval_cadence if ctx.facts is not None else None
    if cadence is None or not ctx.closed:
        return
    samples = cadence.unit == "samples"
    points = [(e, e.epoch_num if e.epoch_num is not None or not samples else e.samples_count)
              for e in ctx.run.evaluations]
    counted = [(e, n) for e, n in points if n is not None]
    if len(counted) < len(points) or not counted:
        return  # evals without a position: nothing to compare (the key checks report them)
    name = ctx.facts.name if ctx.facts is not None else "the benchmark"
    if cadence.formula == "bert":
        found = _off_bert_schedule(ctx, counted, cadence, name)
    else:
        found = _off_fixed_schedule(ctx, counted, cadence, name)
    if found is not None:
        yield found


def _off_fixed_schedule(ctx: RunContext, evals: list[tuple[Evaluation, float]],
                        cadence: EvalCadence, name: str) -> Finding | None:
    step = cadence.every or 1.0
    for (_before, previous), (current, position) in zip(evals, evals[1:]):
        if not math.isclose(position - previous, step, abs_tol=1e-6):
            return ctx.at(EVAL_CADENCE, current.line, (
                f"this eval at {cadence.unit[:-1]} {_shown(position)} comes {_shown(position - previous)} "
                f"{cadence.unit} after the one before ({_shown(previous)}); the rules evaluate {name} "
                f"{cadence.text} ({cadence.source}). Evaluate as the reference does"))
    return None


def _off_bert_schedule(ctx: RunContext, evals: list[tuple[Evaluation, float]],
                       cadence: EvalCadence, name: str) -> Finding | None:
    batch = ctx.run.value_of("global_batch_size")
    if isinstance(batch, bool) or not isinstance(batch, (int, float)) or batch <= 0:
        return None  # the key checks report a missing or broken global_batch_size
    interval = math.floor(0.05 * (230.23 * batch + 3_000_000) / 25_000) * 25_000
    for number, (current, samples) in enumerate(evals, start=1):
        due = number * interval
        if not due <= samples < due + batch:
            return ctx.at(EVAL_CADENCE, current.line, (
                f"eval {number} is at {_shown(samples)} samples; with global_batch_size {_shown(batch)} "
                f"the rules evaluate {name} every {interval:,} samples, so eval {number} is due at "
                f"{due:,} (rounded up to a batch at most: below {_shown(due + batch)}) "
                f"({cadence.source}). Evaluate as the reference does"))
    return None


def _shown(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,}"
