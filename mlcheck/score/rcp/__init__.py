"""The RCP test of a benchmark folder, computed as the round's record checker did it.

Submission side (``rcp_checker.read_submission_file``): a run's convergence point is the
``epoch_num`` (BERT: samples) of the last ``eval_accuracy`` before a ``run_stop`` with status
``success``, rounded to 3 decimals; any other run counts as infinitely slow. All runs must log the
same ``global_batch_size`` (the last one a run logs, as the checker reads them all); more than one
non-converged run (U-Net3D: four) fails the test.
The submission mean is the olympic mean (drop 1 + 1, U-Net3D 4 + 4).

Matching (``check_directory``): the RCP of the same batch size, else the interpolation of the two
neighbouring RCPs, else (batch size below all RCPs) the smallest-batch RCP, passing only when the
submission converges slower; a batch size above all RCPs is "missing". The test passes when the
submission mean is at least the reference's minimum acceptable mean.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable, Sequence

from mlcheck.model import Run
from mlcheck.results import RcpResult
from mlcheck.score.rcp.reference import SAMPLE_UNITS, Reference, ReferenceSet, interpolate, load_references, trimmed

#: Benchmarks the package checker never RCP-checks.
NO_RCP = frozenset({"minigo"})
NOT_CONVERGED = 1e9


@dataclass(frozen=True)
class RunConvergence:
    """What the RCP test needs from one run."""

    converged_at: float | None
    """The convergence point (epochs or samples); None when the run did not succeed."""
    batch_size: object


def convergence_point(status: str | None, last_epoch: float | None) -> float | None:
    """The record checker's convergence point of a run: the last eval's epoch when it succeeded."""
    if status != "success" or last_epoch is None:
        return None
    return round(last_epoch, 3)


Loader = Callable[[str, str, int], "ReferenceSet | None"]


def evaluate_rcp(benchmark: str | None, division: str | None, ruleset: str | None,
                 runs: Sequence[RunConvergence], submission_runs: int,
                 loader: Loader = load_references) -> RcpResult:
    """The RCP verdict of one benchmark folder (pure: the reference data is package data).
    ``loader`` gives the references: the round's record checker's by default."""
    if division == "open":
        return RcpResult("skipped", "open division: no RCP test")
    if benchmark is None or ruleset is None:
        return RcpResult("skipped", "benchmark or round unknown")
    if benchmark in NO_RCP:
        return RcpResult("skipped", f"{benchmark} has no RCP test (the package checker skips it)")
    references = loader(benchmark, ruleset, submission_runs)
    unit = "samples" if benchmark in SAMPLE_UNITS else "epochs"
    if references is None:
        return RcpResult("skipped", f"training {ruleset} has no RCPs for {benchmark}", unit=unit)
    sizes = {_batch_size(r.batch_size) for r in runs}
    if len(sizes) != 1 or None in sizes:
        shown = ", ".join(sorted(repr(r.batch_size) for r in runs))
        why = ("some runs log it as a string, not a number" if any(isinstance(r.batch_size, str) for r in runs)
               else "some runs log none, or not a number" if None in sizes else "the runs log different values")
        return RcpResult("fail", f"could not detect one global_batch_size across the runs ({shown}): "
                         f"{why}", unit=unit, source=references.source)
    batch_size = next(iter(sizes))
    assert batch_size is not None
    drop = 4 if benchmark == "unet3d" else 1
    failed = sum(1 for r in runs if r.converged_at is None)
    if failed > drop:
        return RcpResult("fail", f"insufficient convergence: {failed} runs did not converge",  # (failed > 1)
                         unit=unit, batch_size=batch_size, source=references.source)
    points = [NOT_CONVERGED if r.converged_at is None else r.converged_at for r in runs]
    kept = trimmed(points, drop)
    if not kept:
        runs_text = "1 run is" if len(runs) == 1 else f"{len(runs)} runs are"
        return RcpResult("fail", f"{runs_text} too few for an olympic mean", unit=unit,
                         batch_size=batch_size, source=references.source)
    mean = sum(kept) / len(kept)
    return _match(references, batch_size, mean, unit, submission_runs)


def _batch_size(value: object) -> float | None:
    """The batch size as the record checker compares it: a number, not truncated (4096.5 is
    interpolated, not read as 4096); an integral float reads as the integer."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return int(value) if float(value).is_integer() else float(value)


def _match(refs: ReferenceSet, batch_size: float, mean: float, unit: str, submission_runs: int) -> RcpResult:
    used = refs.used
    exact = next((r for r in used if r.batch_size == batch_size), None)
    if exact is not None:
        return _judge(exact, (exact.batch_size,), mean, unit, batch_size, refs, "RCP found")
    below = [r for r in used if r.batch_size < batch_size]
    above = [r for r in used if r.batch_size > batch_size]
    if below and above:
        low, high = below[-1], above[0]
        ref = interpolate(batch_size, low, high, submission_runs)
        return _judge(ref, (low.batch_size, high.batch_size), mean, unit, batch_size, refs,
                      "RCP interpolated")
    if below:
        return RcpResult("missing", f"no RCP at or above batch size {batch_size} (largest: "
                         f"{below[-1].batch_size}); the round's checker asks to submit an RCP with "
                         f"BS = {batch_size}", unit=unit, batch_size=batch_size,
                         submission_mean=mean, source=refs.source)
    if above:
        smallest = above[0]
        result = _judge(smallest, (smallest.batch_size,), mean, unit, batch_size, refs,
                        "no RCP at this batch size; compared with the smallest-batch RCP")
        if result.verdict == "fail":
            return replace(result, verdict="missing", normalization_factor=None, reason=(
                f"no RCP at batch size {batch_size} and the submission converges faster than the "
                f"smallest-batch RCP (BS {smallest.batch_size}); submit an RCP with BS = {batch_size}"))
        return result
    return RcpResult("fail", "cannot find any RCPs", unit=unit, batch_size=batch_size,
                     submission_mean=mean, source=refs.source)


def format_amount(value: float) -> str:
    """Samples as whole numbers with separators (3,243,918), epochs with two decimals (34.55)."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.2f}"


def _judge(ref: Reference, sizes: tuple[int, ...], mean: float, unit: str, batch_size: float,
           refs: ReferenceSet, how: str) -> RcpResult:
    passed = mean >= ref.min_mean
    margin = (mean / ref.min_mean - 1.0) * 100.0 if ref.min_mean else None
    factor = max(1.0, ref.mean / mean) if mean > 0 else None
    verdict = "pass" if passed else "fail"
    reason = (f"{how} ({ref.name}): submission mean {format_amount(mean)} {unit} "
              f"{'>=' if passed else '<'} minimum acceptable {format_amount(ref.min_mean)} "
              f"(reference mean {format_amount(ref.mean)})")
    return RcpResult(verdict, reason, unit=unit, batch_size=batch_size, reference=ref.name,
                     reference_batch_sizes=sizes, reference_mean=ref.mean,
                     min_acceptable_mean=ref.min_mean, submission_mean=mean, margin_pct=margin,
                     normalization_factor=factor if passed else None, source=refs.source)


def rcp_for_runs(benchmark: str | None, division: str | None, ruleset: str | None,
                 runs: Sequence[Run], submission_runs: int, loader: Loader = load_references) -> RcpResult:
    """:func:`evaluate_rcp` over parsed runs: the last eval before ``run_stop`` gives the point."""
    points = []
    for run in runs:
        stop = run.run_stop
        evals = [e for e in run.evaluations if stop is None or e.line <= stop.line]
        last = evals[-1].epoch_num if evals else None
        # The record checker reads every global_batch_size line and keeps the last one.
        sizes = run.occurrences("global_batch_size")
        points.append(RunConvergence(convergence_point(run.status, last), sizes[-1].value if sizes else None))
    return evaluate_rcp(benchmark, division, ruleset, points, submission_runs, loader)
