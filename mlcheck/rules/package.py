"""Benchmark folders and packages: run counts, non-converged runs, score scaling (family MLC5xx).

Rules text: training_rules.adoc §Benchmark Results (number of runs, dropping, non-converged runs)
and §Score scaling (``scaling.json`` in the benchmark folder). The official package checker
requires exactly the round's number of ``result_<i>.txt`` files.

- MLC501 no-logs: a folder given on the command line holds no MLPerf log. Fix: point mlcheck at a
  result file, a ``results/<system>/<benchmark>`` folder or an ``<org>`` package.
- MLC502 wrong-run-count: a benchmark folder does not hold the round's number of runs (5 for ResNet,
  10 for BERT, 40 for U-Net3D...), or its path names it in a way the checker's glob finds none in
  (``[...]``: :mod:`mlcheck.judge.glob_names`). The score is shown but marked invalid. Fix: submit
  ``result_0.txt`` ... ``result_<N-1>.txt``; of M > N runs, the N the rules choose (the message says how).
- MLC503 too-many-non-converged: more runs failed to converge than the round tolerates (one; four
  for U-Net3D); the benchmark result is invalid. The official summarizer prints "CRITICAL ERROR"
  and no score.
  Fix: find why the runs do not converge and run a new set (rerunning single runs to replace the
  failed ones is cherry-picking, which the rules forbid: §Benchmark Results).
- MLC504 scaling-json-invalid: ``scaling.json`` cannot be read or has no numeric
  ``scaling_factor`` (up to 1e6 either way: a larger one would scale the score out of a float's
  range); the score is left unscaled and is not valid (the round's summarizer reads the file). A
  factor of 0 or below is a warning: the summarizer multiplies it in and publishes the time it
  gives (0 or below), as mlcheck does; no review committee writes one. A warning too where
  the round's package checker writes or deletes ``scaling.json`` before the summarizer reads it
  (2.1+, when the RCP test writes its factor; 5.1+, whenever it evaluates a reference): the
  folder's file then does not count; an error it shares where it cannot (a folder, a dangling link).
- MLC505 scaling-applied: a ``scaling.json`` (the review committee's, or from 2.1 the RCP
  checker's normalisation factor) was found and multiplied into the score. A warning where the
  RCP test gives a factor of 1 (2.1-5.0: the package checker then leaves the folder's file, which
  the summarizer applies; a file left by an earlier run of the checker scales the score for nothing:
  the releases of mlperf-logging up to 4.1.20 have no ``_reset_results_scaling``, 4.1.30 of the
  5.1 period is the first with it),
  and from 2.1 where no RCP test runs (open division, a benchmark without references): no checker wrote it.
- MLC523 scaling-json-not-in-round: a ``scaling.json`` in a folder of a round before score
  scaling (v1.0, v1.1: the rules have no "Score scaling" section and the summarizer of record did
  not read the file). It is ignored. Fix: remove it, or check the round.
- MLC524 rounds-differ: the runs of one benchmark folder are judged under different rounds (each
  run's round comes from its date where the path names none). A warning: the official tools judge
  a package under the one round they are given. The folder is scored under its first run's round.
  Fix: give ``--ruleset``, put the package under ``training-X.Y/``, or rerun the odd runs.
- MLC525 round-assumed (info): no run was read in the package and its path names no round
  (``training-X.Y``), so its layout and system descriptions are judged under the newest round
  mlcheck knows; the benchmark names, run counts and fields it expects are that round's. Fix: give
  ``--ruleset``, or put the package under ``training-X.Y/``.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Callable, Iterator, Sequence

from mlcheck.read.file_names import SUBMITTED_RESULT_FILE
from mlcheck.model import Finding, Severity
from mlcheck.results import RunResult, Score
from mlcheck.rule import Rule
from mlcheck.facts.rulesets import BenchmarkFacts

NO_LOGS = Rule("MLC501", "no-logs", Severity.ERROR, "a given folder holds no MLPerf log")
WRONG_RUN_COUNT = Rule("MLC502", "wrong-run-count", Severity.ERROR,
                       "the benchmark folder does not hold the round's number of runs", official=True)
TOO_MANY_NON_CONVERGED = Rule("MLC503", "too-many-non-converged", Severity.ERROR,
                              "more runs failed to converge than the round tolerates", official=True)
SCALING_JSON_INVALID = Rule("MLC504", "scaling-json-invalid", Severity.ERROR,
                            "scaling.json has no usable scaling_factor", also=(Severity.WARNING,), official_cases=True)
SCALING_APPLIED = Rule("MLC505", "scaling-applied", Severity.INFO,
                       "a scaling.json was applied to the score", also=(Severity.WARNING,))

SCALING_NOT_IN_ROUND = Rule("MLC523", "scaling-json-not-in-round", Severity.WARNING,
                            "scaling.json in a round without score scaling; it is ignored")
ROUNDS_DIFFER = Rule("MLC524", "rounds-differ", Severity.WARNING,
                     "the runs of one benchmark folder are judged under different rounds")

ROUND_ASSUMED = Rule("MLC525", "round-assumed", Severity.INFO,
                     "no run says the package's round: it is judged under the newest round")

RULES = (NO_LOGS, WRONG_RUN_COUNT, TOO_MANY_NON_CONVERGED, SCALING_JSON_INVALID, SCALING_APPLIED,
         SCALING_NOT_IN_ROUND, ROUNDS_DIFFER, ROUND_ASSUMED)


def rounds_differ(folder: str, members: Sequence[RunResult], scored_under: str) -> list[Finding]:
    """MLC524 when the runs of a folder were judged under more than one round."""
    by_round = Counter(r.ruleset for r in members if r.ruleset)
    if len(by_round) < 2:
        return []
    odd = sorted(os.path.basename(r.path) for r in members if r.ruleset and r.ruleset != scored_under)
    shown = ", ".join(f"training {version}: {count} run{'s' if count > 1 else ''}"
                      for version, count in sorted(by_round.items()))
    return [ROUNDS_DIFFER.at(folder, None, (
        f"the runs of this folder are judged under different rounds, each by its date ({shown}; not "
        f"under {scored_under}: {', '.join(odd[:5])}{', ...' if len(odd) > 5 else ''}); the folder is "
        f"scored under training {scored_under}, while the official tools judge a package under the one "
        "round they are given. Give --ruleset, put the package under training-X.Y/, or rerun those runs"))]


def scaling_factor(scaling_path: str, loaded: object, error: str | None, error_line: int | None = None,
                   line_of: Callable[[str], int | None] | None = None) -> tuple[float | None, list[Finding]]:
    """The factor of a parsed ``scaling.json`` (``loaded``), or the finding that explains why not
    (at the line of the syntax error, or of ``scaling_factor``)."""
    if error is not None:
        return None, [SCALING_JSON_INVALID.at(scaling_path, error_line, f"cannot read scaling.json: {error}")]
    factor = loaded.get("scaling_factor") if isinstance(loaded, dict) else None
    value = _usable_factor(factor)
    if value is None:
        shown = f"an integer of {len(str(abs(factor)))} digits" if isinstance(factor, int) and \
            abs(factor) > _MAX_FACTOR else repr(factor)
        if isinstance(loaded, dict) and "scaling_factor" not in loaded:
            has = "has no scaling_factor"
        else:
            has = f"has scaling_factor {shown}"
        return None, [SCALING_JSON_INVALID.at(
            scaling_path, line_of("scaling_factor") if line_of else None,
            f"scaling.json {has}; expected a number "
            f"up to {_MAX_FACTOR:g} such as {{\"scaling_factor\": 1.05}}")]
    if value <= 0:  # (the summarizer multiplies it all the same: a time of 0, or below, is published)
        return value, [SCALING_JSON_INVALID.at(
            scaling_path, line_of("scaling_factor") if line_of else None,
            f"scaling.json's scaling_factor {value:g} {MULTIPLIED}, as the summarizer does: "
            "it publishes a time-to-train of 0 or below. A review committee's factor is above 0", severity=Severity.WARNING)]
    return value, [SCALING_APPLIED.at(
        scaling_path, None, f"scaling.json's scaling_factor {value:g} {MULTIPLIED}")]


MULTIPLIED = "multiplied into the score"
"""How MLC504 and MLC505 say that the folder's scaling.json gives the score's factor (the reports
name the factor's source by it: :func:`mlcheck.report.plain.scaling_source`)."""
_MAX_FACTOR = 1e6
"""No committee scales a score a million times; a larger factor (up to 1.8e308 is a float) would
carry the score out of a float's range, to an infinite time-to-train."""


def _usable_factor(factor: object) -> float | None:
    if isinstance(factor, bool) or not isinstance(factor, (int, float)):
        return None
    try:
        value = float(factor)  # an integer of 309+ digits is no float
    except OverflowError:
        return None
    return value if -_MAX_FACTOR <= value <= _MAX_FACTOR else None  # (NaN compares false)


def check_score(folder: str, facts: BenchmarkFacts, score: Score,
                runs: Sequence[RunResult], version: str) -> Iterator[Finding]:
    """Findings about the run count and non-converged runs of one benchmark folder of round
    ``version`` (the folder's: its first run may be a file no run was read from)."""
    named = [r for r in runs if SUBMITTED_RESULT_FILE.match(os.path.basename(r.path))]
    if len(runs) != facts.result_files:
        per_file = Counter(r.path for r in runs)  # (not a count over the runs per file: quadratic)
        files = sorted(per_file)
        shared = sorted(os.path.basename(p) for p in files if per_file[p] > 1)
        where = (f" in {len(files)} files ({', '.join(shared)} hold{'s' if len(shared) == 1 else ''} "
                 "more than one run: one run per result file)") if shared else ""
        more = (f". With more runs than {facts.result_files} (M > N), submit {facts.result_files} consecutive ones by "
                "start time: the window whose olympic score is the median of all the windows, a failed run counted "
                "as infinitely slow (training_rules §Benchmark Results); keep all the logs for the review"
                if len(runs) > facts.result_files and not shared else "")
        yield WRONG_RUN_COUNT.at(folder, None,
                                 f"{len(runs)} run{'s' if len(runs) != 1 else ''} found{where}; training "
                                 f"{version} {facts.name} requires {facts.result_files} result files"
                                 f"{_missing(files, facts.result_files) if len(runs) < facts.result_files else ''}{more}")
    elif named and len(named) != len(runs):  # e.g. a result_2.txt.gz beside result_<i>.txt files
        listed = {id(r) for r in named}  # (not "r not in named": a list search per run)
        others = ", ".join(sorted(os.path.basename(r.path) for r in runs if id(r) not in listed))
        yield WRONG_RUN_COUNT.at(folder, None,
                                 f"{len(named)} result_<i>.txt files; the official package checker counts only "
                                 f"those ({others} not), and training {version} {facts.name} requires "
                                 f"{facts.result_files}. Name every run result_<i>.txt, uncompressed")
    failed = [r for r in runs if not r.converged]
    if len(failed) > facts.max_non_converged:
        whys = [_why_no_time(r) for r in failed]
        names = "; ".join(f"{r.path}" + (f"#{r.index}" if r.index else "") + f": {why}" for r, why in zip(failed, whys))
        said = "did not converge" if all(why == _NO_TARGET for why in whys) else "have no time to train"
        yield TOO_MANY_NON_CONVERGED.at(folder, None,
                                        f"{len(failed)} of {len(runs)} runs {said} ({names}); at most "
                                        f"{facts.max_non_converged} may, so the result is invalid")


_NO_TARGET = "the quality target is not reached"


def _missing(paths: Sequence[str], count: int) -> str:
    """`` (result_2.txt is missing)``: the names of ``result_0.txt`` .. ``result_<count-1>.txt`` that no
    run was read from, where the folder's runs are result files (at most five named)."""
    names = {os.path.basename(p) for p in paths}
    lacking = [f"result_{i}.txt" for i in range(count) if f"result_{i}.txt" not in names]
    if not names or not lacking or not all(map(SUBMITTED_RESULT_FILE.match, names)):
        return ""
    shown = ", ".join(lacking[:5]) + (f" and {len(lacking) - 5} more" if len(lacking) > 5 else "")
    return f" ({shown} {'is' if len(lacking) == 1 else 'are'} missing)"


def _why_no_time(run: RunResult) -> str:
    """Why the summarizer counts ``run`` as not converged (:func:`mlcheck.checker.converged_minutes`)."""
    if run.duration_ms is None:
        return "no run_start and run_stop to time it"
    if run.duration_ms < 0:
        return "its run_stop comes before its run_start"
    if run.division == "open":
        return f"run_stop status {run.status or 'missing'}, not success"
    return _NO_TARGET
