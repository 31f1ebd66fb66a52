"""The library entry point: ``check(paths) -> CheckResult`` (read, judge, score)."""

from __future__ import annotations

import datetime as dt
import os
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Mapping, Sequence

from mlcheck.discover import RESULT_FILE, LogRef, discover_all
from mlcheck.jobs import check_logs
from mlcheck.model import Finding, Run, Severity, plausible_time
from mlcheck.results import TOLERATED_CODES, BenchmarkResult, CheckResult, RunResult, Score
from mlcheck.package import rcp_bypass_file, read_json_document
from mlcheck.package_check import check_packages
from mlcheck.rcp import rcp_for_runs
from mlcheck.reader import read_mllog
from mlcheck.rules import RUN_CHECKS
from mlcheck.rules import package as package_rules
from mlcheck.rules import package_runs
from mlcheck.rules.base import RunContext
from mlcheck.rules.convergence import first_reaching
from mlcheck.rules.internal import crash_finding
from mlcheck.rules.package_runs import check_runs, non_compliant, non_compliant_findings
from mlcheck.rules.rcp_check import rcp_findings
from mlcheck.rules.selection import BENCHMARK_NOT_ITS_FOLDER, RULESET_NOT_INFERRED, UNKNOWN_BENCHMARK
from mlcheck.rulesets import (
    SUPPORTED_RULESETS,
    BenchmarkFacts,
    Ruleset,
    RulesetError,
    load_ruleset,
    normalise_version,
    ruleset_for_date,
    ruleset_from_path,
)
from mlcheck.scoring import folder_score, time_to_train_min


Progress = Callable[[str], None]


@dataclass(frozen=True)
class RulesetChoice:
    ruleset: Ruleset
    source: str
    finding: Finding | None = None


def check(paths: Sequence[str], ruleset: str | None = None,
          progress: Progress | None = None, line_limits: Mapping[str, int] | None = None,
          jobs: int = 1) -> CheckResult:
    """Check and score every log found under ``paths``.

    ``ruleset`` forces a round (``2.0.0``); when None the round is inferred per file.
    ``line_limits`` reads only the first lines of the logs it names (``mlcheck watch --runs``).
    ``jobs`` processes read and judge the logs (:mod:`mlcheck.jobs`; the result is the same).
    Raises ``RulesetError`` for an unknown ruleset and ``DiscoveryError`` for a missing path.
    """
    forced = load_ruleset(normalise_version(ruleset)) if ruleset else None
    refs, empty, skipped = discover_all(list(paths))
    if line_limits:
        refs = [replace(ref, lines=line_limits.get(ref.path)) for ref in refs]
    refs_by_path = {ref.path: ref for ref in refs}
    run_results = check_logs(refs, forced, jobs, progress)  # a bug met on one file is its MLC000
    top = [package_rules.NO_LOGS.at(folder.path, None,
                                     "no MLPerf log found here; expected result_<i>.txt files under "
                                     "<org>/results/<system>/<benchmark>/ or log files")
           for folder in empty]
    benchmarks = score_benchmarks(run_results, refs_by_path)
    judged = {(r.path, r.index): r for bench in benchmarks for r in bench.runs}
    run_results = [judged.get((r.path, r.index), r) for r in run_results]  # tolerated runs
    package_findings, benchmarks = check_packages(list(paths), benchmarks, forced, skipped)
    top.extend(package_findings)
    return CheckResult(runs=tuple(run_results), benchmarks=tuple(benchmarks), findings=tuple(top))


def check_log(ref: LogRef, forced: Ruleset | None) -> list[RunResult]:
    """Read one log and judge each run in it."""
    from mlcheck.runs import assign_findings, split_runs

    # A submitted result file is one run, as the official checker reads it (mlcheck.runs).
    one_run = RESULT_FILE.match(os.path.basename(ref.path)) is not None
    runs, reading = split_runs(read_mllog(ref.path, lines=ref.lines, keep_copies=one_run), ref.path, one_run)
    by_run = assign_findings(runs, reading)
    if not runs:
        return [_unread_log(ref, forced, by_run.get(0, []))]
    judged = [judge_run(run, ref, forced, by_run.get(run.index, [])) for run in runs]
    # What the folder checks and reports need of a judged run; the rest of its events go now.
    return [replace(result, run=result.run.reduced()) if result.run is not None else result
            for result in judged]


def _unread_log(ref: LogRef, forced: Ruleset | None, findings: list[Finding]) -> RunResult:
    """The one entry of a file in which no run could be read."""
    return RunResult(run=None, path=ref.path, index=0, org=ref.org, system=ref.system,
                     benchmark=ref.benchmark, division=None, ruleset=forced.version if forced else None,
                     ruleset_source="--ruleset" if forced else None, status=None, converged=False,
                     time_to_train_min=None, duration_min=None,
                     findings=tuple(sorted(findings, key=Finding.sort_key)))


def judge_run(run: Run, ref: LogRef, forced: Ruleset | None, reading: Iterable[Finding]) -> RunResult:
    """Apply every run rule to one run and derive its time-to-train."""
    choice = choose_ruleset(run, ref, forced)
    findings = list(reading)
    if choice.finding is not None:
        findings.append(choice.finding)
    benchmark = run.benchmark or ref.benchmark
    folder_benchmark = ref.benchmark if ref.system else None  # a benchmark folder of a package
    if folder_benchmark and benchmark != folder_benchmark:
        findings.append(_not_its_folder(run, folder_benchmark))
    facts = _facts(choice.ruleset, benchmark)
    if facts is None:
        findings.append(_unknown_benchmark(run, benchmark, choice.ruleset))
    ctx = RunContext(run=run, ruleset=choice.ruleset, facts=facts)
    for name, rule_check in RUN_CHECKS:
        try:
            findings.extend(rule_check(ctx))
        except Exception as error:  # a crashing rule must not stop the others
            findings.append(crash_finding(f"rule module {name}", run.path, error, run.index))
    minutes = converged_minutes(run, facts)
    duration = run.duration_ms
    return RunResult(
        run=run, path=run.path, index=run.index, org=ref.org or run.org,
        system=ref.system or run.platform, benchmark=folder_benchmark or benchmark,
        division=run.division,
        ruleset=choice.ruleset.version, ruleset_source=choice.source, status=run.status,
        converged=minutes is not None, time_to_train_min=minutes,
        duration_min=None if duration is None else time_to_train_min(0.0, duration),
        findings=tuple(sorted(findings, key=Finding.sort_key)))


def converged_minutes(run: Run, facts: BenchmarkFacts | None) -> float | None:
    """Time-to-train of a run that succeeded (and, in the closed division, reached the target)."""
    start, stop = run.run_start, run.run_stop
    if start is None or stop is None or stop.time_ms < start.time_ms or run.status != "success":
        return None
    if run.division != "open":
        if facts is None or first_reaching(run.evaluations, facts.target) is None:
            return None
    return time_to_train_min(start.time_ms, stop.time_ms)


def _facts(ruleset: Ruleset, benchmark: str | None) -> BenchmarkFacts | None:
    if benchmark is None:
        return None
    try:
        return ruleset.facts(benchmark)
    except RulesetError:
        return None


def _not_its_folder(run: Run, folder_benchmark: str) -> Finding:
    event = run.first("submission_benchmark")
    return BENCHMARK_NOT_ITS_FOLDER.at(
        run.path, event.line if event is not None else run.first_line,
        f"the log names benchmark {run.benchmark!r} but lies in the {folder_benchmark}/ folder; it "
        f"is judged as {run.benchmark} and counted with {folder_benchmark}. Move it to its folder "
        "or correct submission_benchmark", run_index=run.index)


def _unknown_benchmark(run: Run, benchmark: str | None, ruleset: Ruleset) -> Finding:
    valid = ", ".join(sorted(ruleset.benchmarks))
    event = run.first("submission_benchmark")
    line = event.line if event is not None else run.first_line
    if benchmark is None:
        message = f"the run logs no submission_benchmark; valid benchmarks of {ruleset.version}: {valid}"
    else:
        message = f"{benchmark!r} is not a benchmark of training {ruleset.version}; valid: {valid}"
    return UNKNOWN_BENCHMARK.at(run.path, line, message, run_index=run.index)


def choose_ruleset(run: Run, ref: LogRef, forced: Ruleset | None) -> RulesetChoice:
    """The forced ruleset, else the round whose period holds the run date, else a path hint."""
    if forced is not None:
        return RulesetChoice(forced, "--ruleset")
    # A clock outside 2015-2100 (MLC405) never reaches date arithmetic: the next record's date tells.
    candidates = ([run.run_start] if run.run_start is not None else []) + list(run.events)
    anchor = next((e for e in candidates if plausible_time(e.time_ms)), candidates[0] if candidates else None)
    if anchor is not None and plausible_time(anchor.time_ms):
        when = dt.datetime.fromtimestamp(anchor.time_ms / 1000, tz=dt.timezone.utc).date()
        by_date = ruleset_for_date(when)
        if by_date is not None:
            return RulesetChoice(by_date, f"run date {when.isoformat()} falls in the {by_date.round} "
                                 f"period ({by_date.first_run_date} to {by_date.results_published})")
    hinted = ruleset_from_path(ref.path)
    if hinted is not None:
        return RulesetChoice(hinted, f"path names round {hinted.round}")
    fallback = load_ruleset(SUPPORTED_RULESETS[-1])
    note = RULESET_NOT_INFERRED.at(
        run.path, anchor.line if anchor else None,
        f"the run date and path do not tell the round; judged under {fallback.version}. Pass "
        f"--ruleset ({', '.join(SUPPORTED_RULESETS)}) to choose", run_index=run.index)
    return RulesetChoice(fallback, "default (not inferred)", note)


def score_benchmarks(runs: list[RunResult], refs: dict[str, LogRef]) -> list[BenchmarkResult]:
    """Group runs by (org, system, benchmark, folder) and score each group."""
    groups: dict[tuple[str, str, str, str], list[RunResult]] = defaultdict(list)
    for result in runs:
        if result.run is None:
            continue
        ref = refs.get(result.path)
        folder = ref.folder if ref and ref.folder else (os.path.dirname(result.path) or ".")
        key = (result.org or "", result.system or "", result.benchmark or "", folder)
        groups[key].append(result)
    # Folder-level checks (run count, non-converged runs, RCP) only judge benchmark folders the
    # user gave: a result file named on its own is one run of a folder, not a folder with one
    # run, and a folder of raw job logs is not a benchmark folder (`mlcheck split` makes one).
    results = []
    for key, members in sorted(groups.items()):
        whole_folder = any(_benchmark_folder_log(refs[r.path]) for r in members if r.path in refs)
        try:
            results.append(_score_group(key, members, whole_folder))
        except Exception as error:  # a crashing folder check must not stop the other folders
            results.append(_unscored_group(key, members, error))
    return results


_FOLDER_RULE_CODES = frozenset(r.code for r in package_runs.RULES) - {package_runs.NON_COMPLIANT_RUN.code}
"""Errors about the runs of a folder taken together that the package checker rejects: they leave
no valid benchmark result (MLC521 has its own place in the score)."""


def _tolerate(run: RunResult) -> RunResult:
    """A non-converged run of a valid benchmark result: the round's scoring counts it as the
    slowest run, so its non-convergence is a warning of the folder's check (the exit code of
    ``check`` then agrees with ``score``), while its official verdict stays the checker's."""
    findings = tuple(replace(f, severity=Severity.WARNING, message=f"{f.message} (tolerated: the "
                             "benchmark result counts this run as its non-converged run)")
                     if f.code in TOLERATED_CODES and f.severity is Severity.ERROR else f
                     for f in run.findings)
    return replace(run, findings=findings, tolerated=True)


def _benchmark_folder_log(ref: LogRef) -> bool:
    """A log found by walking a benchmark folder: a result file, or any log inside a package."""
    return ref.walked and not ref.nested and (
        ref.system is not None or RESULT_FILE.match(os.path.basename(ref.path)) is not None)


def _unscored_group(key: tuple[str, str, str, str], members: list[RunResult],
                    error: Exception) -> BenchmarkResult:
    org, system, benchmark, folder = key
    members = sorted(members, key=lambda r: (r.path, r.index))
    return BenchmarkResult(org=org or None, system=system or None, benchmark=benchmark or None,
                           division=next((r.division for r in members if r.division), None),
                           ruleset=members[0].ruleset, folder=folder, runs=tuple(members),
                           score=Score(None, False, "mlcheck could not score this folder (MLC000)"),
                           findings=(crash_finding("the folder checks", folder, error),))


def _score_group(key: tuple[str, str, str, str], members: list[RunResult],
                 whole_folder: bool = True) -> BenchmarkResult:
    org, system, benchmark, folder = key
    members = sorted(members, key=lambda r: (r.path, r.index))
    first = members[0]
    ruleset = load_ruleset(first.ruleset) if first.ruleset else None
    facts = _facts(ruleset, benchmark) if ruleset else None
    findings: list[Finding] = []
    factor: float | None = None
    scaling_path = os.path.join(folder, "scaling.json")
    if os.path.exists(scaling_path) and ruleset is not None and not ruleset.scaling_json:
        findings.append(package_rules.SCALING_NOT_IN_ROUND.at(scaling_path, None, (
            f"training {ruleset.version} has no score scaling (it came with v2.0): scaling.json is "
            "ignored. Remove it, or check the round")))
    elif os.path.exists(scaling_path):
        document = read_json_document(scaling_path)
        factor, scaling_findings = package_rules.scaling_factor(scaling_path, document.data, document.error)
        findings.extend(scaling_findings)
    division = next((r.division for r in members if r.division), None)
    rcp = None
    if facts is None:
        score = Score(None, False, f"benchmark {benchmark or '(unknown)'} is not part of the round")
    else:
        runs = [r.run for r in members if r.run is not None]
        # The RCP test and the cross-run checks need the whole folder, like the run count.
        if whole_folder:
            rcp = rcp_for_runs(benchmark, division, first.ruleset, runs, facts.result_files)
        normalise = ruleset is not None and ruleset.normalise_to_rcp and factor is None
        times = [r.time_to_train_min if r.converged else None for r in members]
        # A file named alone is one run, not a folder: its own findings judge it, not MLC521.
        judged = [not non_compliant(r) if whole_folder else True for r in members]
        score, official = folder_score(times, judged, facts, factor,
                                       rcp.normalization_factor if normalise and rcp else None,
                                       [r.official_verdict == "pass" or not whole_folder for r in members])
        if whole_folder:  # (a file named alone: its own findings say it all)
            findings.extend(non_compliant_findings(folder, [r for r in members if non_compliant(r)],
                                                   official.score_min if official else score.score_min))
        if whole_folder and rcp is not None:
            findings.extend(package_rules.check_score(folder, facts, score, members))
            findings.extend(rcp_findings(folder, rcp, normalised=normalise,
                                         bypass=rcp_bypass_file(folder)))
            findings.extend(check_runs(folder, runs, closed=division != "open", ruleset=first.ruleset))
    broken = sorted({f.code for f in findings if f.code in _FOLDER_RULE_CODES and f.severity is Severity.ERROR})
    if score.valid and broken:
        score = replace(score, valid=False, reason=f"{score.reason}; the runs of the folder break the "
                        f"package rules ({', '.join(broken)})")
    if score.valid and any(f.code == package_rules.WRONG_RUN_COUNT.code for f in findings):
        score = replace(score, valid=False, reason=f"{score.reason}; the folder does not hold the round's "
                        "result files (MLC502)")
    if any(f.code == package_rules.SCALING_JSON_INVALID.code for f in findings):
        score = replace(score, valid=False,
                        reason=f"{score.reason}; scaling.json is unusable (MLC504), the score is not scaled")
    if whole_folder and score.valid:
        members = [_tolerate(r) if not r.converged else r for r in members]
    return BenchmarkResult(org=org or None, system=system or None, benchmark=benchmark or None,
                           division=division, ruleset=first.ruleset, folder=folder,
                           runs=tuple(members), score=score,
                           findings=tuple(sorted(findings, key=Finding.sort_key)), rcp=rcp)
