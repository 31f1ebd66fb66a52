"""A run ``watch --runs N`` judges whole after its run_stop, as one of the runs of one benchmark
result: where the result may still count it (a non-converged run as its slowest, within the round's
``max_non_converged``; a converged run whose run_stop says other than ``success``, which the RCP test
counts as not converged, within the same allowance), its non-convergence is a warning, as ``check`` tolerates it in the folder's final
report (:func:`mlcheck.judge.folders._tolerate`). ``--fail-fast`` then stops at what the final report
fails, not at a run the score drops. A run that died without run_stop (its job ended, a record cut)
is not tolerated while following: the job may launch it again, and ``check`` counts that attempt as
a run of its own (more runs than the round's: no valid result).

The tolerance is provisional: the final report is ``check``'s over the lines watched, which
tolerates the run only when the folder's score is valid (the round's number of runs, the others
converged; rules §Benchmark results, ``olympic_score``)."""

from __future__ import annotations

from dataclasses import replace

from mlcheck.checker import choose_ruleset
from mlcheck.facts.rulesets import BenchmarkFacts, Ruleset, RulesetError
from mlcheck.model import Run
from mlcheck.package.discover import LogRef
from mlcheck.results import TOLERATED_CODES, RunResult
from mlcheck.rule import as_warnings
from mlcheck.rules.convergence import ABORTED_RUN_REACHED_TARGET


def run_facts(run: Run, path: str, forced: Ruleset | None, benchmark: str | None) -> BenchmarkFacts | None:
    """The benchmark's facts in the round the run is judged by (None: no round, no such benchmark)."""
    try:
        return choose_ruleset(run, LogRef(path), forced).ruleset.facts(benchmark or "")
    except RulesetError:
        return None


def tolerated_while_watched(result: RunResult, facts: BenchmarkFacts | None, wanted: int,
                            non_converged: set[int]) -> RunResult:
    """``result`` (a run judged whole) with the errors the benchmark result may still tolerate as
    warnings; ``non_converged``: the indexes of the non-converged runs judged so far (updated).
    Nothing is tolerated unless ``--runs`` (``wanted``) is the round's number of runs."""
    if facts is None or wanted != facts.result_files or result.status is None:
        return result  # (a run that died: the job may launch it again, an attempt the result counts as a run)
    if not result.converged or result.status != "success":  # (the RCP test counts such a run as not converged)
        non_converged.add(result.index)
        if len(non_converged) > facts.max_non_converged:
            return result
    if not result.converged:
        codes, note = TOLERATED_CODES, (
            f"tolerated so far: of the {wanted} runs watched, the benchmark result counts up to "
            f"{facts.max_non_converged} non-converged as the slowest; the final report decides")
    elif result.status != "success":
        codes, note = frozenset({ABORTED_RUN_REACHED_TARGET.code}), ("a warning so far: the benchmark result's time counts the run as converged, "
                                              "its RCP test as not converged, within the allowance; the final report decides")
    else:
        return result
    return replace(result, findings=as_warnings(result.findings, codes, note))
