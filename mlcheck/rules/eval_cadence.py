"""Evaluation frequency of a closed run (family MLC3xx), a rule the official checker leaves out.

Rules text: training_rules.adoc §Quality measure: "The quality measure must be evaluated at the
same frequency (in terms of number of training items between test sets) ... as in the reference
implementation", with a table per benchmark (facts in ``schemas/rulesets/<round>/ruleset.json``,
``eval_cadence``): ResNet every 4 epochs with offset 0-3, RNN-T every epoch, BERT every
``FLOOR(0.05*(230.23*GBS+3000000), 25000)`` samples skipping 0 (a point may be rounded up to the
next batch). Evaluating less often makes the measured time-to-train depend on when the target
happens to be checked; evaluating more often gives it an advantage over the reference.

Packed sequences: the rules allow "arbitrary sharding, batching, and packing" (§Training Data
Order) as long as each datum appears exactly once. A packed BERT batch of ``global_batch_size``
packs holds a varying number of sequences (up to :data:`MAX_SEQUENCES_PER_PACK` per pack), so
the samples trained at a batch boundary are not multiples of the batch size and the eval can
only happen at the boundary nearest its due point, before or after it. A BERT run whose eval
positions are not all multiples of ``global_batch_size`` is read as packed: each eval must lie
within one packed batch (``global_batch_size`` x 3 sequences) of ``n`` x the interval (the
published packed runs of 3.0-5.0 stay within 1.9 batches); one that starts its schedule eight
batches late is still reported.

From 6.0 the rules text's table (``training_rules-latest.adoc``, the v6.0 text) gives the LLM and
FLUX.1 rows as "every N samples, CEIL(N / global_batch_size) * global_batch_size if N is not
divisible by GBS, skipping the first FLOOR(a * GBS + b) evaluations" (``ceil_to_batch``): Llama 3.1
8B and GPT-OSS 20B every 12,288, Llama 3.1 405B every 18,432 skipping FLOOR(0.0026 x GBS + 12),
Llama 2 70B LoRA every 384 skipping FLOOR(0.125 x GBS + 2), FLUX.1 every 262,144, DeepSeek-V3
every step (the spacing only: the 6.1 checker places the first eval itself). Not checked: DLRMv2
(its row, FLOOR(4195197692 / (GBS x 20)) "samples", is a step count in the reference, and its logs
give eval positions as fractional epochs), Qwen3.5 GRPO and dlrmv4 (not in the text; their checkers
check the grid), and the rounds 3.0-5.1 for the benchmarks introduced after 2.1: their rules
snapshots are not in the shared data, and the v6.0 text changed the Llama 3.1 405B schedule after
5.0 (§Appendix: v5.0 Specific Rules). BERT, ResNet and RNN-T keep the rows of 2.1, which the latest
text repeats word for word (§Deprecated benchmarks quality measure), up to their last round.

- MLC307 eval-cadence: a closed-division run evaluates off the round's schedule. Reported once,
  at the first eval off the schedule; a warning, as the official checker does not check it
  (``official: false``). Evals that all log the same position (``epoch_num`` 1 at every eval of
  some BERT logs) cannot be placed at all: that is said instead. Fix: evaluate as the reference
  does, and log the samples trained so far in ``epoch_num`` (BERT).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Iterator

from mlcheck.model import Evaluation, Finding, Severity
from mlcheck.rule import Rule, RunContext
from mlcheck.facts.rulesets import EvalCadence

EVAL_CADENCE = Rule("MLC307", "eval-cadence", Severity.WARNING,
                    "a closed run evaluates off the round's schedule")
MAX_SEQUENCES_PER_PACK = 3
"""The most sequences a pack holds in the published packed BERT implementations."""

RULES = (EVAL_CADENCE,)


def check(ctx: RunContext) -> Iterator[Finding]:
    """At most one finding: the first eval that is off the schedule of the round."""
    cadence = ctx.facts.eval_cadence if ctx.facts is not None else None
    if cadence is None or not ctx.closed:
        return
    samples = cadence.unit == "samples"
    if cadence.formula == "ceil_to_batch":  # the later rounds log the samples in samples_count
        points = [(e, e.samples_count) for e in ctx.run.evaluations]
    else:
        points = [(e, e.epoch_num if e.epoch_num is not None or not samples else e.samples_count)
                  for e in ctx.run.evaluations]
    counted = [(e, n) for e, n in points if n is not None]
    if len(counted) < len(points) or not counted or not all(math.isfinite(n) for _e, n in counted):
        return  # evals without a (finite) position: nothing to compare (the key checks report them)
    name = ctx.facts.name if ctx.facts is not None else "the benchmark"
    if cadence.formula == "bert":
        found = _off_bert_schedule(ctx, counted, cadence, name)
    elif cadence.formula == "ceil_to_batch":
        found = _off_batch_schedule(ctx, counted, cadence, name)
    else:
        found = _off_fixed_schedule(ctx, counted, cadence, name)
    if found is not None:  # (what it means for the result: said once, here)
        yield replace(found, message=f"{found.message}. The official checker does not check the schedule (the "
                      "result is accepted), but the evals decide when the target is seen: a reviewer may ask why")


def _usable_batch(batch: object) -> bool:
    """A global_batch_size the schedules can be computed from: a finite positive number
    (``Infinity`` is valid JSON to the reader, and no schedule)."""
    return not isinstance(batch, bool) and isinstance(batch, (int, float)) and 0 < batch < math.inf


def _off_fixed_schedule(ctx: RunContext, evals: list[tuple[Evaluation, float]],
                        cadence: EvalCadence, name: str) -> Finding | None:
    step = cadence.every or 1.0
    for (_before, previous), (current, position) in zip(evals, evals[1:]):
        if not math.isclose(position - previous, step, abs_tol=1e-6):
            return ctx.at(EVAL_CADENCE, current.line, (
                f"this eval at {cadence.unit[:-1]} {_shown(position)} comes {_shown(position - previous)} "
                f"{cadence.unit} after the one before ({_shown(previous)}); the rules evaluate {name} "
                f"{cadence.text} ({_source(cadence)})"))
    return None


def _off_bert_schedule(ctx: RunContext, evals: list[tuple[Evaluation, float]],
                       cadence: EvalCadence, name: str) -> Finding | None:
    batch = ctx.run.value_of("global_batch_size")
    if not _usable_batch(batch):
        return None  # the key checks report a missing or broken global_batch_size
    interval = math.floor(0.05 * (230.23 * batch + 3_000_000) / 25_000) * 25_000
    positions = [samples for _eval, samples in evals]
    if len(positions) > 1 and len(set(positions)) == 1:
        return ctx.at(EVAL_CADENCE, evals[0][0].line, (
            f"every eval logs the same position ({_shown(positions[0])}): not the samples trained, so "
            f"the {interval:,}-sample schedule of {name} cannot be checked ({_source(cadence)})"))
    if any(float(samples) % batch for samples in positions):
        return _off_packed_schedule(ctx, evals, batch, interval, name, cadence)
    for number, (current, samples) in enumerate(evals, start=1):
        due = number * interval
        if not due <= samples < due + batch:
            return ctx.at(EVAL_CADENCE, current.line, (
                f"eval {number} is at {_shown(samples)} samples; with global_batch_size {_shown(batch)} "
                f"the rules evaluate {name} every {interval:,} samples, so eval {number} is due at "
                f"{due:,} (rounded up to a batch at most: below {_shown(due + batch)}; {_source(cadence)})"))
    return None


def _off_batch_schedule(ctx: RunContext, evals: list[tuple[Evaluation, float]],
                        cadence: EvalCadence, name: str) -> Finding | None:
    """The 6.0 rows: every ``interval`` samples, CEIL(interval / GBS) * GBS when the batch does
    not divide it, the first FLOOR(scale * GBS + offset) evaluations skipped; eval n is due at
    (skipped + n) x that, within a batch either way, or (``spacing_only``) one interval after the
    eval before it."""
    batch = ctx.run.value_of("global_batch_size")
    if not _usable_batch(batch) or not cadence.interval:
        return None  # the key checks report a missing or broken global_batch_size
    interval = cadence.interval if cadence.interval % batch == 0 else math.ceil(cadence.interval / batch) * batch
    skipped = math.floor(cadence.skip[0] * batch + cadence.skip[1]) if cadence.skip else 0
    why = (f"with global_batch_size {_shown(batch)} the rules evaluate {name} every {_shown(interval)} samples"
           + (f", skipping the first {skipped}" if skipped else ""))
    for number, (current, samples) in enumerate(evals, start=1):
        if cadence.spacing_only:
            if number == 1:
                continue
            previous = evals[number - 2][1]
            if not math.isclose(samples - previous, interval, abs_tol=1e-6):
                return ctx.at(EVAL_CADENCE, current.line, (
                    f"eval {number} is at {_shown(samples)} samples, {_shown(samples - previous)} after the "
                    f"one before ({_shown(previous)}); {why} ({_source(cadence)})"))
            continue
        due = (skipped + number) * interval
        # rounded up to a batch (the rules), or logged before the step that reaches it is counted
        # (12,256 logged at batch 32 for the eval due at 12,288): one batch either way
        if not due - batch <= samples < due + batch:
            since = "" if number == 1 else f", {_shown(samples - evals[number - 2][1])} after the one before"
            return ctx.at(EVAL_CADENCE, current.line, (
                f"eval {number} is at {_shown(samples)} samples{since}; {why}, so eval {number} is due at "
                f"{_shown(due)} (give or take a batch; {_source(cadence)})"))
    return None


def _off_packed_schedule(ctx: RunContext, evals: list[tuple[Evaluation, float]], batch: float,
                         interval: int, name: str, cadence: EvalCadence) -> Finding | None:
    """A packed run: the training items between two evals (from the start for the first) are the
    interval, give or take one packed batch (the boundary nearest the due point)."""
    slack = batch * MAX_SEQUENCES_PER_PACK
    previous = 0.0
    for number, (current, samples) in enumerate(evals, start=1):
        if abs(samples - previous - interval) > slack:
            since = "" if number == 1 else f", {_shown(samples - previous)} after eval {number - 1} ({_shown(previous)})"
            return ctx.at(EVAL_CADENCE, current.line, (
                f"eval {number} is at {_shown(samples)} samples{since}; "
                f"the rules evaluate {name} every {interval:,} samples; the runs pack sequences ({_shown(batch)} "
                f"packs a batch, up to {MAX_SEQUENCES_PER_PACK} sequences a pack), so an eval may land up to "
                f"{_shown(slack)} sequences from its due point, no further ({_source(cadence)})"))
        previous = samples
    return None


def _shown(value: float) -> str:
    if abs(value) >= 1e15:  # (beyond a float's whole numbers: 1e+30, not 1,000,000,000,000,000,019,884,...)
        return f"{value:.6g}"
    if float(value).is_integer():
        return f"{value:,.0f}"
    shown = f"{value:,.6f}".rstrip("0").rstrip(".")  # (16,383.1, 16,384.0004: the schedule's tolerance is 1e-6)
    return "0" if shown == "-0" else shown


def _source(cadence: EvalCadence) -> str:
    """The rules section of the schedule (what follows it is in the rule's documentation)."""
    return cadence.source.split(";")[0]
