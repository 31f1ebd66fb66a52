"""Convergence: the quality target of the round and its agreement with ``run_stop`` (family MLC3xx).

Rules text: training_rules.adoc §Closed Division (quality targets per benchmark) and §Quality
measure; checker: ``ATLEAST_ONE_CHECK`` on ``eval_accuracy`` in training_X.Y.Z/closed_<bm>.yaml.
The official checker only asks that *some* eval anywhere in the log reaches the target; it does
not compare it with ``run_stop``'s status, nor with the time of ``run_stop``.

- MLC301 target-not-reached: no ``eval_accuracy`` of a closed-division run reaches the round's
  target (WER for RNN-T, where lower is better; box *and* mask AP for Mask R-CNN). The run is
  non-converged.
  Fix: train to the target; a folder tolerates one non-converged run (four for U-Net3D).
  An error; a warning when its folder tolerates it as the one non-converged run the round allows (counted as the slowest).
- MLC302 aborted-run-reached-target: ``run_stop`` says ``aborted`` although an eval reached the
  target. In the closed division the run converged as the rules define it (the target reached:
  §Benchmark Results): the official checker passes the file and the summarizer times it, as the
  score does; but the RCP checker reads the status of the last ``run_stop`` and counts an
  ``aborted`` one as non-converged (more than one such run fails the RCP test, MLC532). In the
  open division the status decides (MLC303 too): the rules let an open run stop by any criterion
  ("OPEN: An arbitrary stopping criteria may be used", §Quality, v1.1 on), so the closed target is
  no test of it and ``aborted`` says it did not meet its own; the summarizer, which reads no
  status, times it all the same, and the folder's score says what it would publish instead.
  Fix the status (or the eval) before submitting.
  An error; a warning where its folder has a valid score.
- MLC303 run-aborted: ``run_stop`` status is ``aborted`` and the run did not reach the target (or
  is open); it counts as non-converged (at most one per benchmark, four for U-Net3D).
- MLC304 eval-value-invalid: an ``eval_accuracy`` value is not a number (or, for Mask R-CNN, an
  object without BBOX or SEGM, a NaN among them; a merged Stable Diffusion record without FID or
  CLIP: the round's YAML has a ``CHECK: "'SEGM' in v['value']"`` per field); the official checker
  fails the file or crashes on it. Stable Diffusion (3.1-5.0) logs FID and CLIP as separate records naming their
  ``metric``; the checker merges those of one ``step_num`` (3.1) or ``samples_count`` (4.0+) and
  judges the target (FID <= 90 and CLIP >= 0.15) on the merged records: a record naming its metric
  without that position makes its merging code crash, also MLC304. The checker compares the
  conditions in order and stops at the first that does not hold: a value it never comes to (a
  null CLIP where FID is above 90, a null SEGM where BBOX is below its target) fails nothing
  there, and is a warning here (``official: false``). A NaN of a one-number metric, or of a field
  the checker comes to (Mask R-CNN's BBOX or SEGM), is a warning (``official: false``):
  the official checker compares it, finds the target not reached (any comparison with NaN is
  false, for a metric to be raised or lowered alike) and goes on; it usually means the
  model diverged at that eval.
  Fix: log the evaluation's metric as the benchmark's reference does (a number; Mask R-CNN's BBOX and SEGM).
- MLC305 target-reached-after-run-stop: the first eval that reaches the target is timed more
  than a second after ``run_stop``, so the run was timed shorter than it took: the clock must
  stop when the target is reached (training_rules.adoc §Quality measure; the official checker
  does not compare the times, hence ``official: false``). Times are compared, not lines: a
  logger that writes the passing eval a millisecond after ``run_stop`` is not a fault. Not
  checked where the round's rules let the reference evaluate timestamped checkpoints after the
  clock stopped (MiniGo; Stable Diffusion from 3.1, whose checkpoints are collected every 512,000
  images and evaluated freely: ``checkpoint_eval`` in ruleset.json), so evals after ``run_stop``
  are legal.
- MLC306 open-eval-not-below-one: an open-division run logs evals but none is below 1.0 (for
  Mask R-CNN: BBOX and SEGM below 1.0); ``training_X.Y.Z/open_<bm>.yaml`` requires at least one
  (a sanity bound: accuracies are fractions, not percentages). Fix: log fractions. Where the open
  file asks more (``open_target`` in ruleset.json: GPT-3, Llama 3.1 405B, DeepSeek-V3 and GPT-OSS
  keep the closed target; Stable Diffusion FID >= 0 and CLIP <= 1; 5.1+ FLUX.1 on
  ``averaged_validation_loss``), none of the evals meets it. 5.1+ Llama 3.1 8B's open file still
  asks a value below 1.0 of a log perplexity ("TODO" in the file): open runs of it fail.
"""

from __future__ import annotations

import math
from typing import Iterator

from mlcheck.model import Finding, Severity, plausible_time
from mlcheck.rule import Rule, RunContext
from mlcheck.facts.checks import show_repr
from mlcheck.facts.constraints import load_constraints
from mlcheck.facts.rulesets import Target
from mlcheck.rules.eval_records import invalid_values, target_for, unmergeable
from mlcheck.rules.eval_values import (below_one, best_eval, describe_eval, first_reaching, records_named, target_bounds)

TARGET_NOT_REACHED = Rule("MLC301", "target-not-reached", Severity.ERROR,
                          "no eval reaches the round's quality target", official=True, also=(Severity.WARNING,))
ABORTED_RUN_REACHED_TARGET = Rule("MLC302", "aborted-run-reached-target", Severity.ERROR,
                                  "run_stop says aborted but the target was reached", also=(Severity.WARNING,))
RUN_ABORTED = Rule("MLC303", "run-aborted", Severity.INFO,
                   "the run was aborted and counts as non-converged")
EVAL_VALUE_INVALID = Rule("MLC304", "eval-value-invalid", Severity.ERROR,
                          "an eval_accuracy value is not a number", official=True, also=(Severity.WARNING,))
TARGET_AFTER_RUN_STOP = Rule("MLC305", "target-reached-after-run-stop", Severity.ERROR,
                             "the target is first reached after run_stop")

OPEN_EVAL_NOT_BELOW_ONE = Rule("MLC306", "open-eval-not-below-one", Severity.ERROR,
                               "no eval of an open-division run is below 1.0", official=True)

_LATE_MS = 1000.0
"""How much later than run_stop a passing eval may be timed (the logger's own delay)."""

RULES = (TARGET_NOT_REACHED, ABORTED_RUN_REACHED_TARGET, RUN_ABORTED, EVAL_VALUE_INVALID,
         TARGET_AFTER_RUN_STOP, OPEN_EVAL_NOT_BELOW_ONE)


def check(ctx: RunContext) -> Iterator[Finding]:
    """Findings about the quality target and run_stop's status."""
    run, facts = ctx.run, ctx.facts
    status = run.status
    stop = run.run_stop
    stop_line = stop.line if stop is not None else None
    aborted = status == "aborted" and stop_line is not None
    target = target_for(facts, run.division) if facts is not None else None
    reached = first_reaching(run.evaluations, target) if target is not None else None
    if aborted and (reached is None or not ctx.closed):  # (closed and reached: converged, MLC302)
        yield ctx.at(RUN_ABORTED, stop_line, "run_stop status is 'aborted'; the run counts as non-converged")
    if facts is None or target is None:
        return
    if target.aggregate is not None:
        for event, wrong in unmergeable(run, target.aggregate):
            named = event.metadata[target.aggregate.name_from]
            yield ctx.at(EVAL_VALUE_INVALID, event.line,
                         (f"{target.metric}'s metadata is no object, in which the checker finds "
                          f"'{target.aggregate.name_from}', then reads it by name" if named is math.nan else
                          f"{target.metric} names its {target.aggregate.name_from} {show_repr(named)} but {wrong}") +
                         ": the checker merges "
                         f"the records of one {target.aggregate.by} into "
                         f"{target.aggregate.into} and crashes on this one ({target.aggregate.source})")
    yield from invalid_values(ctx, target, EVAL_VALUE_INVALID)
    if not ctx.closed and facts.open_target is not None:
        if run.evaluations and reached is None:
            last = run.evaluations[-1]
            yield ctx.at(OPEN_EVAL_NOT_BELOW_ONE, last.line,
                         f"none of the {len(run.evaluations)} {records_named(target)} meets {target.text} (last: "
                         f"{describe_eval(last, facts.eval_position)}); the open division of this round requires at least one "
                         f"(training_{ctx.ruleset.version}/open_{facts.name}.yaml)")
        return
    if not ctx.closed and run.evaluations and not any(below_one(e.value, target) for e in run.evaluations) \
            and _open_file_read(ctx):
        last = run.evaluations[-1]
        lower_is_better = all(c.op in ("<", "<=") for c in target.conditions if not c.bound)  # (perplexity, FID)
        advice = "Log accuracies as fractions"
        if lower_is_better:
            advice = (f"The check is written for accuracies, and {target.metric} ({target.text}) stays above "
                      "1.0, so the round's checker fails open logs of this benchmark")
        yield ctx.at(OPEN_EVAL_NOT_BELOW_ONE, last.line,
                     f"none of the {run.count('eval_accuracy')} eval_accuracy values is below 1.0 (last: "
                     f"{describe_eval(last, facts.eval_position)}); the open division requires at least one "
                     f"(training_{ctx.ruleset.version}/open_{facts.name}.yaml). {advice}")
    if reached is None:
        if ctx.closed:
            yield _not_reached(ctx, target)
        return
    if aborted:
        yield ctx.at(ABORTED_RUN_REACHED_TARGET, stop_line,
                     f"run_stop says 'aborted' but eval_accuracy "
                     f"{describe_eval(reached, facts.eval_position, target_bounds(target))} reached the "
                     f"target ({target.text}); log status 'success' if the run converged")
    late_ms = reached.time_ms - stop.time_ms if stop is not None else 0.0
    if stop is not None and _LATE_MS < late_ms and plausible_time(reached.time_ms) and plausible_time(stop.time_ms) \
            and ctx.closed and not facts.checkpoint_eval:  # (a time no clock wrote: MLC007's, MLC405's)
        yield ctx.at(TARGET_AFTER_RUN_STOP, reached.line,
                     f"the target is first reached by the eval at line {reached.line}, timed "
                     f"{late_ms / 1000:,.3f} s after run_stop (line {stop.line}): the run was timed "
                     "shorter than it took; the clock must stop when the target is reached "
                     "(training_rules §Quality measure)")


def _open_file_read(ctx: RunContext) -> bool:
    """Whether the round's checker has the open benchmark file (else it stops on it: MLC208 says so)."""
    bench = load_constraints(ctx.ruleset.version).benchmarks.get(ctx.run.benchmark or "")
    return bench is None or bench.open_unavailable is None


def _not_reached(ctx: RunContext, target: Target) -> Finding:
    run = ctx.run
    best = best_eval(run.evaluations, target)
    position = ctx.facts.eval_position if ctx.facts is not None else "epoch_num"
    line = run.run_stop.line if run.run_stop is not None else run.last_line
    claim = " although run_stop claims success" if run.status == "success" else ""
    comparable = [e for e in run.evaluations if target.reached_by(e.value) is not None]
    if best is None and comparable:  # evals of several fields (Mask R-CNN, Stable Diffusion)
        others = len(run.evaluations) - len(comparable)
        lacking = f" ({others} more without every field of the target)" if others else ""
        return ctx.at(TARGET_NOT_REACHED, line,
                      f"target {target.text} not reached: last of {len(comparable)} {records_named(target)}"
                      f"{lacking} {describe_eval(comparable[-1], position)}{claim}")
    if best is None:
        return ctx.at(TARGET_NOT_REACHED, line,
                      f"target {target.text} not reached: the run logs no comparable {records_named(target)}{claim}")
    hint = ""
    fractions = all(c.value <= 1.0 for c in target.conditions)
    if fractions and isinstance(best.value, (int, float)) and not isinstance(best.value, bool):
        beyond = [c for c in target.conditions if c.bound and c.holds(float(best.value)) is False]
        if math.isinf(best.value):
            hint = "; an infinite accuracy is not a measurement: check how the metric is computed"
        elif beyond:  # (DLRMv2's AUC <= 1.0: the target is met, the value is out of range)
            hint = f"; the checker also requires {' and '.join(f'{c.op} {c.value:g}' for c in beyond)}"
        elif best.value == 1.0:
            hint = "; an accuracy of 1.0 is outside the valid range (the checker requires < 1.0)"
        raised = any(c.op in (">=", ">") and not c.bound for c in target.conditions)  # (not a loss)
        if raised and 1.0 < best.value <= 100 and (best.value >= 10 or target.reached_by(best.value / 100) is True):
            hint += "; the values look like percentages: log eval_accuracy as a fraction (0.759, not 75.9)"
    evals = run.count("eval_accuracy")
    return ctx.at(TARGET_NOT_REACHED, line, f"target {target.text} not reached: best eval_accuracy "
                  f"{describe_eval(best, position, target_bounds(target))}, {evals} eval{'s' * (evals != 1)}{claim}{hint}")
