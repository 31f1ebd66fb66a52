"""The RCP test of a benchmark folder, computed as the round's record checker did it.

Submission side (``rcp_checker.read_submission_file``): a run's convergence point is the
``epoch_num`` (BERT: samples) of the last ``eval_accuracy`` before its last ``run_stop`` when
that says ``success`` (the checker reads the status of every ``run_stop``: the last one stands,
whatever the first said), rounded to 3 decimals; the round's policy (:mod:`mlcheck.score.rcp.policy`) says
where another metadata key counts (``samples_count`` for the LLM benchmarks and flux1) and where
the point is the first step at which every metric meets its condition (Stable Diffusion: FID <= 90
and CLIP >= 0.15, by ``step_num`` in 3.1 and ``samples_count`` from 4.0); any other run counts as
infinitely slow. All runs must log the
same ``global_batch_size`` (the last one a run logs, as the checker reads them all); more than one
non-converged run (U-Net3D: four) fails the test.
The submission mean is the olympic mean (drop 1 + 1, U-Net3D 4 + 4).

Matching (``check_directory``): the RCP of the same batch size, else the interpolation of the two
neighbouring RCPs, else (batch size below all RCPs) the smallest-batch RCP, passing only when the
submission converges slower; a batch size above all RCPs is "missing". The test passes when the
submission mean is at least the reference's minimum acceptable mean (Llama 3.1 405B from 5.0: less
one evaluation of 46,080 samples). ``submission_runs`` (N of the t-test) is the round's RCP table:
3 for GPT-3, Llama 3.1 405B, DeepSeek-V3 and Qwen3.5, whose submission mean is the median.
"""

from __future__ import annotations

import math
import operator
import os
from dataclasses import replace
from typing import Any, Callable, Sequence

from mlcheck.records import dataclass
from mlcheck.model import Evaluation
from mlcheck.read.run_builder import position_number
from mlcheck.results import RcpResult, RunSummary
from mlcheck.score.rcp.across_runs import (LOGGED_NULL, NOT_READ, STOPS, batch_size_of, last_batch_size, shown_value,
                                           why_no_batch_size, why_no_benchmark)
from mlcheck.score.rcp.named_late import NEVER_NAMED, point_reading
from mlcheck.score.rcp.policy import ConvergenceRule, RoundPolicy, round_policy
from mlcheck.score.rcp.reference import Reference, ReferenceSet, interpolate, load_references, trimmed
from mlcheck.score.numpy_float import numpy_mean

#: Benchmarks the package checker never RCP-checks.
NO_RCP = frozenset({"minigo"})
NOT_CONVERGED = 1e9


@dataclass(frozen=True)
class RunConvergence:
    """What the RCP test needs from one run."""

    converged_at: float | None
    """The convergence point (epochs or samples); None when the run did not succeed."""
    batch_size: object
    name: str = ""
    """The run's file (and index), named where the test fails on its convergence."""
    benchmark: object = NOT_READ
    """Its ``submission_benchmark`` (None: it logs none), which the checker compares across runs."""


def convergence_point(status: str | None, last_epoch: float | None, round_to: int | None = 3) -> float | None:
    """The record checker's convergence point of a run: the last eval's epoch when it succeeded."""
    if status != "success" or last_epoch is None:
        return None
    return round(last_epoch, round_to) if round_to is not None else last_epoch


def run_convergence(status: str | None, evaluations: Sequence[Evaluation], rule: ConvergenceRule) -> float | None:
    """A run's convergence point under a round's rule, from its evals before ``run_stop``.

    ``last_eval``: the rule's metadata value of the last eval (None when that eval lacks it: the
    record checker raises KeyError there). ``first_passing_step``: evals grouped by step (the
    rule's metadata key), the last value of each ``metric`` kept, as the checker's dictionary does;
    the smallest step at which every condition holds. A step without one of the metrics does not
    pass (the checker raises KeyError on it), nor does a run where no step passes (ValueError).
    """
    if status != "success" or not evaluations:
        return None
    if rule.point == "last_eval":
        return convergence_point(status, getattr(evaluations[-1], rule.metadata), rule.round_to)
    steps: dict[float, dict[str, object]] = {}
    for evaluation in evaluations:
        step = getattr(evaluation, rule.metadata)
        if step is not None and evaluation.metric is not None:
            steps.setdefault(step, {})[evaluation.metric] = evaluation.value
    passing = [step for step, values in steps.items()
               if all(c.metric in values and c.holds(values[c.metric]) for c in rule.conditions)]
    return min(passing) if passing else None


Loader = Callable[[str, str, int], "ReferenceSet | None"]


def evaluate_rcp(benchmark: str | None, division: str | None, ruleset: str | None,
                 runs: Sequence[RunConvergence], submission_runs: int,
                 loader: Loader = load_references, today: bool = False) -> RcpResult:
    """The RCP verdict of one benchmark folder (pure: the reference data is package data).
    ``loader`` gives the references: the round's record checker's by default. ``today``: as
    today's release tests it, which compares the runs' benchmark names and batch sizes whatever
    the round (the record checkers of 1.0-2.0 read the folder's name and the last file's size)."""
    if division == "open":
        return RcpResult("skipped", "open division: no RCP test")
    if benchmark is None or ruleset is None:
        return RcpResult("skipped", "benchmark or round unknown")
    if benchmark in NO_RCP:
        return RcpResult("skipped", f"{benchmark} has no RCP test (the package checker skips it)")
    policy = round_policy(ruleset)
    if policy is not None:
        submission_runs = policy.runs_of(benchmark, submission_runs)
    references = loader(benchmark, ruleset, submission_runs)
    unit = policy.unit_of(benchmark) if policy is not None else "epochs"
    if references is None:
        return RcpResult("skipped", f"training {ruleset} has no RCPs for {benchmark}", unit=unit)
    compares = policy is None or policy.compares_runs or today
    unnamed = why_no_benchmark(runs, benchmark) if compares else ""  # (1.0-2.0: the folder's name)
    if unnamed:
        return RcpResult("fail", f"could not read one benchmark name across the runs: {unnamed}", unit=unit,
                         source=references.source, stops=STOPS in unnamed)
    sizes = {batch_size_of(r.batch_size) for r in runs}
    sizes, order_note = (sizes, "") if compares else last_batch_size(runs, sizes, ruleset)
    if len(sizes) != 1 or None in sizes:
        if not runs:
            return RcpResult("fail", "could not detect one global_batch_size across the runs: no run could "
                             "be read", unit=unit, source=references.source)
        shown = ", ".join(sorted(shown_value(r.batch_size) for r in runs))
        why = why_no_batch_size(runs, sizes)
        return RcpResult("fail", f"could not detect one global_batch_size across the runs ({shown}): {why}", unit=unit,
                         source=references.source, stops=STOPS in why)
    batch_size = next(iter(sizes))
    assert batch_size is not None
    drop = 4 if benchmark == "unet3d" else 1
    failed = [r.name for r in runs if r.converged_at is None]
    if len(failed) > drop:
        named = (f" ({', '.join(failed)}: no convergence point as the RCP checker reads it, from the last "
                 "run_stop's status and the evals before it)") if all(failed) else ""
        return RcpResult("fail", f"insufficient convergence: {len(failed)} runs did not converge{named}; the "
                         "round's RCP checker fails the folder ('Insufficient convergence')",  # (failed > 1)
                         unit=unit, batch_size=batch_size, source=references.source)
    points = [NOT_CONVERGED if r.converged_at is None else r.converged_at for r in runs]
    kept = trimmed(points, drop)
    if not kept:
        runs_text = "1 run is" if len(runs) == 1 else f"{len(runs)} runs are"
        return RcpResult("fail", f"{runs_text} too few for an olympic mean: the round's RCP checker's mean of "
                         "none is NaN, and it fails the folder", unit=unit,
                         batch_size=batch_size, source=references.source)
    mean = numpy_mean(kept)  # (the checker's numpy.mean: see mlcheck.score.numpy_float)
    offset = policy.min_mean_offset.get(benchmark, 0.0) if policy is not None else 0.0
    result = _match(references, batch_size, mean, unit, submission_runs, offset)
    unordered = tuple(r.name for r in runs if r.converged_at is not None and math.isnan(r.converged_at))
    # (only where the mean decides: no RCP at or above the batch size is missing in any order)
    if unordered and result.reference is not None:
        result = replace(result, unordered=unordered)
    return replace(result, order_note=order_note) if order_note else result


def _match(refs: ReferenceSet, batch_size: float, mean: float, unit: str, submission_runs: int,
           offset: float = 0.0) -> RcpResult:
    used = refs.used
    exact = next((r for r in used if r.batch_size == batch_size), None)
    if exact is not None:
        return _judge(exact, (exact.batch_size,), mean, unit, batch_size, refs, "RCP found", offset)
    below = [r for r in used if r.batch_size < batch_size]
    above = [r for r in used if r.batch_size > batch_size]
    if below and above:
        low, high = below[-1], above[0]
        ref = interpolate(batch_size, low, high, submission_runs)
        return _judge(ref, (low.batch_size, high.batch_size), mean, unit, batch_size, refs,
                      "RCP interpolated", offset)
    if below:
        return RcpResult("missing", f"no RCP at or above batch size {batch_size} (largest: "
                         f"{below[-1].batch_size}); the round's checker asks to submit an RCP with "
                         f"BS = {batch_size}", unit=unit, batch_size=batch_size,
                         submission_mean=mean, source=refs.source)
    if above:
        smallest = above[0]
        result = _judge(smallest, (smallest.batch_size,), mean, unit, batch_size, refs,
                        "no RCP at this batch size; compared with the smallest-batch RCP", offset)
        if result.verdict == "fail":
            return replace(result, verdict="missing", normalization_factor=None, reason=(
                f"no RCP at batch size {batch_size} and the submission converges faster than the "
                f"smallest-batch RCP (BS {smallest.batch_size}); submit an RCP with BS = {batch_size}"))
        return result
    return RcpResult("fail", "cannot find any RCPs: the round's RCP checker fails the folder", unit=unit, batch_size=batch_size,
                     submission_mean=mean, source=refs.source)


def format_amount(value: float) -> str:
    """Samples as whole numbers with separators (3,243,918), epochs with two decimals (34.55)."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.2f}"


def _judge(ref: Reference, sizes: tuple[int, ...], mean: float, unit: str, batch_size: float,
           refs: ReferenceSet, how: str, offset: float = 0.0) -> RcpResult:
    # The 405B leniency (5.0+): the checker sets Max Speedup = mean / (Min Epochs - 46080), so the
    # bound is the t-test's minimum less one evaluation. The checker compares the submission's
    # mean with mean / Max Speedup, which may differ from the minimum in its last bit.
    minimum = ref.min_mean - offset
    bound = ref.mean / (ref.mean / minimum) if ref.mean and minimum else minimum
    passed = mean >= bound
    margin = (mean / bound - 1.0) * 100.0 if bound else None
    factor = max(1.0, ref.mean / mean) if mean > 0 else None
    verdict = "pass" if passed else "fail"
    lenient = f" (t-test minimum {format_amount(ref.min_mean)} less {format_amount(offset)})" if offset else ""
    precision = f", {ref.precision}" if ref.precision else ""
    named = f"RCP {ref.name}{precision}" if how == "RCP interpolated" else f"{how} ({ref.name}{precision})"
    reason = (f"{named}: submission mean {format_amount(mean)} {unit} "
              f"{'>=' if passed else '<'} minimum acceptable {format_amount(bound)}{lenient} "
              f"(reference mean {format_amount(ref.mean)})")
    return RcpResult(verdict, reason, unit=unit, batch_size=batch_size, reference=ref.name,
                     reference_batch_sizes=sizes, reference_mean=ref.mean,
                     min_acceptable_mean=bound, submission_mean=mean, margin_pct=margin,
                     normalization_factor=factor if passed else None, source=refs.source,
                     reference_precision=ref.precision)


def rcp_for_runs(benchmark: str | None, division: str | None, ruleset: str | None,
                 runs: Sequence[RunSummary], submission_runs: int, loader: Loader = load_references,
                 bert_train_samples: bool = False, unread: Sequence[str] = (), today: bool = False) -> RcpResult:
    """:func:`evaluate_rcp` over judged runs: their evals before ``run_stop`` give the point, as
    the round's policy reads it; ``loader`` gives the references (the record checker's by default).
    ``bert_train_samples`` (the package checker's ``--rcp-bert-train-samples``): a BERT run's point
    is its last ``train_samples`` value instead. ``unread`` names the folder's result files that
    hold no record: the record checker reads each as a run that did not converge and logs neither
    a batch size nor a benchmark (``read_submission_file``). ``today``: :func:`evaluate_rcp`'s."""
    blank = [RunConvergence(None, None, name, None) for name in unread]
    policy = round_policy(ruleset) if ruleset is not None else None
    rule = _rule(policy, benchmark)
    if bert_train_samples and benchmark == "bert":
        points = [RunConvergence(position_number(run.train_samples) if _rcp_stop(run)[1] == "success" else None, run.batch_size,
                                 _name(run), _named(run))
                  for run in runs]
        return evaluate_rcp(benchmark, division, ruleset, [*points, *blank], submission_runs, loader, today)
    last_runs, last_rule, points = _LAST_POINTS
    if not (rule == last_rule and len(runs) == len(last_runs) and all(map(operator.is_, runs, last_runs))):
        points = []
        for run in runs:
            stop_line, status = _rcp_stop(run)
            evals: Sequence[Evaluation] = run.evaluations
            if stop_line is None:
                evals = list(evals)
            elif evals and max(map(_LINE, evals)) > stop_line:  # (else every eval is before run_stop)
                evals = [e for e in evals if e.line <= stop_line]
            named = run.first("submission_benchmark")  # (evals before it are read as epochs: named_late)
            read, reader = point_reading(evals, rule, named.line if named is not None else NEVER_NAMED, stop_line)
            # (the batch size: the record checker reads every global_batch_size line, keeps the last)
            logged = LOGGED_NULL if run.batch_size is None and run.first("global_batch_size") is not None else run.batch_size
            points.append(RunConvergence(run_convergence(status, read, reader), logged, _name(run), _named(run)))
        _LAST_POINTS[:] = [tuple(runs), rule, points]
    return evaluate_rcp(benchmark, division, ruleset, [*points, *blank], submission_runs, loader, today)


def _rcp_stop(run: RunSummary) -> tuple[int | None, Any]:
    """The line and status of the ``run_stop`` whose status the RCP checker keeps: the last one
    (it reads each); the evals before it give the point."""
    if run.last_stop is not None:
        return run.last_stop
    stop = run.run_stop
    return (None, None) if stop is None else (stop.line, run.status)


def _named(run: RunSummary) -> object:
    """The benchmark a run names as the RCP checker keeps it: its last ``submission_benchmark`` (None: none)."""
    if run.last_named is not None:
        return run.last_named[0]
    named = run.first("submission_benchmark")
    return named.value if named is not None else None


def _name(run: RunSummary) -> str:
    return os.path.basename(run.path) + (f" (run {run.index})" if run.index else "")


_LINE = operator.attrgetter("line")
_LAST_POINTS: list[Any] = [(), None, []]
"""The runs (held, so that they are the same objects), rule and points of the last call: a folder
is tested against the record's references and today's, from the same points."""


def _rule(policy: RoundPolicy | None, benchmark: str | None) -> ConvergenceRule:
    if policy is None or benchmark is None:
        return ConvergenceRule("last_eval", "epoch_num", 3)
    return policy.convergence_of(benchmark)
