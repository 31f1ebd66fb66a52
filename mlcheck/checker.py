"""The library entry point: ``check(paths) -> CheckResult`` (read, judge, score)."""

from __future__ import annotations

import datetime as dt
import math
import os
import sys
from dataclasses import replace
from itertools import chain
from typing import Callable, Iterable, Mapping, Sequence

from mlcheck.read.file_names import RESULT_FILE
from mlcheck.package.discover import LogRef, discover_all, natural_order
from mlcheck.package.named_folders import as_globbed_folders, folders_of_odd_globs
from mlcheck.judge.collector import Pause
from mlcheck.judge.jobs import check_logs, job_count, register_checker
from mlcheck.judge.package_rounds import one_round_per_package  # (a package is judged under one round)
from mlcheck.model import Event, Finding, Run, plausible_time
from mlcheck.results import CheckResult, RunResult
from mlcheck.judge.folders import benchmark_facts
from mlcheck.judge.folder_groups import Scored, score_benchmarks
from mlcheck.judge.grouping import group_result
from mlcheck.judge.package_check import check_packages
from mlcheck.judge.summary import summarise
from mlcheck.judge.cache_warming import warm_caches  # noqa: F401 - the --jobs pool calls it (mlcheck.judge.jobs)
from mlcheck.read.concurrent_jobs import interleaved_jobs, noting_job_starts, unwritten_once
from mlcheck.read.reader import Promotions, read_mllog, read_result_batches
from mlcheck.rules import RUN_CHECKS, package as package_rules
from mlcheck.rules.lost_records import pointed_to_lost_records
from mlcheck.rule import RunContext
from mlcheck.rules.eval_values import first_reaching
from mlcheck.rules.internal import crash_finding
from mlcheck.rules.eval_records import judged_run
from mlcheck.facts.round_choice import (LATER_ROUND_WITH, NOT_INFERRED, newest_round_with, RulesetChoice, dated_choice,
                                        later_round_with)
from mlcheck.rules.selection import (BENCHMARK_NOT_ITS_FOLDER, LOG_NEWER_THAN_RULESETS, RULESET_NOT_INFERRED,
                                     UNKNOWN_BENCHMARK, forced_against_date, path_or_date, path_round_passed,
                                     unknown_benchmark)
from mlcheck.facts.rulesets import (SUPPORTED_RULESETS, BenchmarkFacts, Ruleset, load_ruleset, newest_period_end,
                                    normalise_version, ruleset_for_date, ruleset_from_path)
from mlcheck.score.scoring import time_to_train_min
from mlcheck.read.log_files import forget_pipes
from mlcheck.score.rcp.unreadable import unreadable_points

Progress = Callable[[str], None]


def check(paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], ruleset: str | None = None,
          progress: Progress | None = None, line_limits: Mapping[str, int] | None = None,
          jobs: int = 1, ruleset_source: str = "--ruleset") -> CheckResult:
    """Check and score every log found under ``paths`` (a path, or a list of them: ``str`` or :class:`pathlib.Path`).

    ``ruleset`` forces a round (``2.0.0``); when None the round is inferred per file. ``line_limits``
    reads only the first lines of the logs it names (``mlcheck watch --runs``). ``ruleset_source`` names where it was
    forced (``--ruleset``, ``ruleset in .mlcheck.toml``). ``jobs`` processes read and judge the logs (:mod:`mlcheck.judge.jobs`;
    the result is the same; 1 or more). Raises ``RulesetError`` for an unknown ruleset and ``DiscoveryError`` for a missing path.
    """
    # Once the logs are judged the collector pauses until the check ends: the folder, package and power checks run over
    # millions of acyclic objects (not gc.freeze: gc.get_freeze_count() walks every frozen one; review of session 50).
    if ruleset is not None and not isinstance(ruleset, str):
        raise TypeError(f"ruleset must be a round's version as text (e.g. '2.0.0'), not {type(ruleset).__name__}")
    pause, jobs = Pause(), job_count(jobs)
    try:
        return _check(_path_list(paths), ruleset, progress, line_limits, jobs, ruleset_source, pause)
    finally:
        pause.end()
        forget_pipes()  # (a pipe named again by a later call is read again)


def _path_list(paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]) -> list[str]:
    """``paths`` as a list of ``str`` (a ``str`` is one path, not one-letter paths); else TypeError."""
    items: Sequence[object] = paths if isinstance(paths, Iterable) and not isinstance(paths, (str, bytes, bytearray)) else [paths]
    listed: list[str] = []
    for item in items:
        text = os.fspath(item) if isinstance(item, os.PathLike) else item
        if not isinstance(text, str):
            raise TypeError(f"paths must be str or os.PathLike (or a list of them), not {type(text).__name__}")
        listed.append(text)
    return listed


def _check(paths: Sequence[str], ruleset: str | None, progress: Progress | None,
           line_limits: Mapping[str, int] | None, jobs: int, ruleset_source: str, pause: Pause) -> CheckResult:
    forced = load_ruleset(normalise_version(ruleset)) if ruleset else None
    refs, empty, skipped = discover_all(paths := folders_of_odd_globs(paths))  # (a FIFO among them: as the folder)
    refs, paths = as_globbed_folders(refs, paths)  # (every result file of a folder named: that folder)
    if line_limits:
        refs = [replace(ref, lines=line_limits.get(ref.path)) for ref in refs]
    refs_by_path = {ref.path: ref for ref in refs}
    scored: Scored = {}  # (the folders the --jobs workers scored)
    run_results = check_logs(refs, forced, jobs, progress, ruleset_source, scored)  # a bug met on one file is its MLC000
    run_results, scored = one_round_per_package(run_results, refs_by_path, scored, forced, jobs)
    pause.start()  # (until the check ends: see check)
    top = [package_rules.NO_LOGS.at(folder.path, None,
                                     "no MLPerf log found here; expected result_<i>.txt files under "
                                     "<org>/results/<system>/<benchmark>/ or log files")
           for folder in empty]
    benchmarks = score_benchmarks(run_results, refs_by_path, scored)
    package_findings, benchmarks = check_packages(list(paths), benchmarks, forced, skipped)
    judged = {(r.path, r.index): r for bench in benchmarks for r in bench.runs}  # (tolerated runs; stray copies', MLC509)
    run_results = sorted((judged.get((r.path, r.index), r) for r in run_results),
                         key=lambda r: (natural_order(r.path), r.path, r.index))  # (any paths' order)
    # One finding per rule and run (mlcheck.judge.grouping): verdicts do not change.
    return group_result(CheckResult(runs=tuple(run_results), benchmarks=tuple(benchmarks),
                                    findings=(*top, *package_findings)))


def check_log(ref: LogRef, forced: Ruleset | None, forced_source: str = "--ruleset") -> list[RunResult]:
    """Read one log and judge each run in it, one run at a time: a judged run is kept as its summary
    (:mod:`mlcheck.judge.summary`) and its reading findings are added once the whole file is read (they may
    come after the run's records: the counts of capped findings). ``forced_source`` says where ``forced`` was set."""
    # A submitted result file is one run, as the official checker reads it (mlcheck.read.runs).
    one_run = RESULT_FILE.match(os.path.basename(ref.path)) is not None
    started: list[Finding] = []  # (raw output: the reading's MLC024 notes, which the runs may not keep)
    judged = _judged(ref, forced, forced_source, one_run, started=started)
    if started and (order := interleaved_jobs(ref.path, ref.lines)) is not None:
        judged = []  # (MPI jobs that ran at once: each read apart, its runs after those before; MLC030)
        for job in order.concurrent():
            judged += _judged(ref, forced, forced_source, False, job, len(judged))
        judged = unwritten_once(judged)
        judged[0] = replace(judged[0], findings=tuple(sorted([order.finding(ref.path), *judged[0].findings],
                                                             key=Finding.sort_key)))
    return judged


def _judged(ref: LogRef, forced: Ruleset | None, forced_source: str, one_run: bool, only_job: int | None = None,
            first_index: int = 0, started: list[Finding] | None = None) -> list[RunResult]:
    """The runs of ``ref`` (of one MPI job's lines) judged; raw output with records of keys only
    another rank printed is read again, keeping them (MLC028)."""
    elsewhere: dict[tuple[int, bytes], int] | None = None if one_run else {}
    judged = _read_and_judge(ref, forced, forced_source, one_run, None, elsewhere, only_job, first_index, started)
    return _read_and_judge(ref, forced, forced_source, one_run, elsewhere, None, only_job, first_index) \
        if elsewhere else judged


def _read_and_judge(ref: LogRef, forced: Ruleset | None, forced_source: str, one_run: bool,
                    promote: Promotions | None, elsewhere: dict[tuple[int, bytes], int] | None,
                    only_job: int | None = None, first_index: int = 0,
                    started: list[Finding] | None = None) -> list[RunResult]:
    from mlcheck.read.runs import assign_findings, iter_runs
    reading: list[Finding] = []
    judged = []
    items = read_result_batches(ref.path, lines=ref.lines) if one_run else \
        read_mllog(ref.path, lines=ref.lines, promote=promote, elsewhere=elsewhere, only_job=only_job)
    if started is not None and not one_run:
        items = noting_job_starts(items, started)
    for run in iter_runs(items, ref.path, reading, one_run, first_index):
        judged.append(judge_run(run, ref, forced, (), forced_source))
        del run  # (the next run is read without this one)
    by_run = assign_findings([summary for result in judged if (summary := result.run) is not None], reading)
    if not judged:
        return [_unread_log(ref, forced, by_run.get(0, []), forced_source)]
    # (sorted as judge_run sorts: the reading findings before the rules' own at the same place)
    return [replace(result, findings=tuple(sorted(pointed_to_lost_records([*by_run[result.index], *result.findings],
            result.run), key=Finding.sort_key))) if by_run.get(result.index) else result for result in judged]


def _unread_log(ref: LogRef, forced: Ruleset | None, findings: list[Finding],
                forced_source: str = "--ruleset") -> RunResult:
    """The one entry of a file in which no run could be read: judged under the forced round, else
    the round its path names (its folder's score and run count are the round's)."""
    ruleset, source = forced, (forced_source if forced else None)
    if forced is None and (named := ruleset_from_path(ref.path)) is not None:
        ruleset, source = named, f"path names round {named.version[:-2]}"
    return RunResult(run=None, path=ref.path, index=0, org=ref.org, system=ref.system,
                     benchmark=ref.benchmark, division=None, ruleset=ruleset.version if ruleset else None,
                     ruleset_source=source, status=None, converged=False,
                     time_to_train_min=None, duration_min=None,
                     findings=tuple(sorted(findings, key=Finding.sort_key)))


def judge_run(run: Run, ref: LogRef, forced: Ruleset | None, reading: Iterable[Finding],
              forced_source: str = "--ruleset") -> RunResult:
    """Apply every run rule to one run and derive its time-to-train."""
    choice = choose_ruleset(run, ref, forced, forced_source)
    findings = list(reading)
    if choice.finding is not None:
        findings.append(choice.finding)
    benchmark = run.benchmark or ref.benchmark
    folder_benchmark = ref.benchmark if ref.system else None  # a benchmark folder of a package
    if folder_benchmark and benchmark != folder_benchmark and folder_benchmark in choice.ruleset.benchmarks:
        findings.append(_not_its_folder(run, folder_benchmark))  # (a folder no benchmark's: MLC506 alone)
    facts = benchmark_facts(choice.ruleset, benchmark)
    if facts is None:
        findings.append(unknown_benchmark(run, benchmark, choice.ruleset))
    elif run.benchmark is None and (logged := run.first("submission_benchmark")) is not None:
        findings.append(unknown_benchmark(run, logged.value, choice.ruleset))  # (null: the folder's stands in)
    elif facts.not_in_record is not None:
        named = run.first("submission_benchmark")
        findings.append(UNKNOWN_BENCHMARK.at(run.path, named.line if named else run.first_line, facts.not_in_record,
                                             run_index=run.index))
    # The rules see the evaluation records the round's target is judged on (Stable Diffusion's
    # merged FID/CLIP records); the result keeps the run as read.
    judged = judged_run(run, facts)
    ctx = RunContext(run=judged, ruleset=choice.ruleset, facts=facts)
    read = len(findings)
    for name, rule_check in RUN_CHECKS:
        try:
            findings.extend(rule_check(ctx))
        except Exception as error:  # a crashing rule must not stop the others
            findings.append(crash_finding(f"rule module {name}", run.path, error, run.index))
    try:
        findings.extend(unreadable_points(run, choice.ruleset.version, facts.name if facts else None))
    except Exception as error:  # a crashing rule must not stop the others
        findings.append(crash_finding("rule module rcp_check (MLC535)", run.path, error, run.index))
    if facts is not None and facts.not_in_record is not None:  # (the record stops on submission_benchmark:
        findings[read:] = [replace(f, official=False) if f.official else f  # the later release's rules' findings
                           for f in findings[read:]]  # are not its word)
    minutes = converged_minutes(judged, facts)
    duration = run.duration_ms if run.duration_ms is not None and math.isfinite(run.duration_ms) else None
    return RunResult(
        run=summarise(run), path=run.path, index=run.index, org=ref.org or run.org,
        system=ref.system or run.platform, benchmark=folder_benchmark or benchmark,
        division=run.division,
        ruleset=choice.ruleset.version, ruleset_source=choice.source, status=run.status,
        converged=minutes is not None, time_to_train_min=minutes,
        duration_min=None if duration is None else time_to_train_min(0.0, duration), duration_ms=duration,
        findings=tuple(sorted(findings, key=Finding.sort_key)))


def converged_minutes(run: Run, facts: BenchmarkFacts | None) -> float | None:
    """Time-to-train of a converged run: closed, it reached the target whatever ``run_stop`` says
    (the rules' convergence, which the summarizer times; ``aborted`` there is MLC302); open, it succeeded."""
    start, stop = run.timed_start, run.run_stop  # (the summarizer's: a restarted job is timed from its last start)
    if start is None or stop is None or stop.time_ms < start.time_ms or (run.division == "open" and run.status != "success"):
        return None
    if run.division != "open" and (facts is None or first_reaching(run.evaluations, facts.target) is None):
        return None
    minutes = time_to_train_min(start.time_ms, stop.time_ms)
    return minutes if math.isfinite(minutes) else None  # (a time NaN or infinite: MLC007)


def _not_its_folder(run: Run, folder_benchmark: str) -> Finding:
    event = run.first("submission_benchmark")
    return BENCHMARK_NOT_ITS_FOLDER.at(
        run.path, event.line if event is not None else run.first_line,
        f"the log names benchmark {run.benchmark!r} but lies in the {folder_benchmark}/ folder; it "
        f"is judged as {run.benchmark} and counted with {folder_benchmark}. Move it to its folder "
        "or correct submission_benchmark", run_index=run.index)


def choose_ruleset(run: Run, ref: LogRef, forced: Ruleset | None,
                   forced_source: str = "--ruleset") -> RulesetChoice:
    """The forced ruleset (MLC019 when the run's date says another round), else the round whose
    period holds the run date, else a path hint.

    A path that names a round (``training-4.1/``) wins over the date (MLC019 when the run is dated
    after that round's publication: the clock or the folder is wrong), unless it lacks the benchmark. A run
    dated after the newest period mlcheck knows is judged under the newest round, with MLC018
    (unless that round lacks the benchmark the path's round has: the clock is wrong, MLC019)."""
    # A clock outside 2015-2100 (MLC405) never reaches date arithmetic: the next record's date tells.
    start = run.run_start
    anchor: Event | None = start if start is not None and plausible_time(start.time_ms) else next(
        (e for e in chain([start] if start is not None else (), run.events) if plausible_time(e.time_ms)),
        start if start is not None else next(iter(run.events), None))  # (start: the common run)
    when = None
    if anchor is not None and plausible_time(anchor.time_ms):
        when = dt.datetime.fromtimestamp(anchor.time_ms / 1000, tz=dt.timezone.utc).date()
    if forced is not None:
        return RulesetChoice(forced, forced_source, forced_against_date(run, anchor, when, forced, forced_source))
    hinted = ruleset_from_path(ref.path)
    if when is not None:
        dated = dated_choice(when, hinted.version if hinted is not None else None)
        if dated is not None:
            benchmark = run.benchmark or ref.benchmark
            if benchmark and (hinted is None or dated.ruleset.version != hinted.version) \
                    and benchmark not in dated.ruleset.benchmarks:
                later = later_round_with(dated.ruleset.version, benchmark)
                if later is not None:  # (submitted to a later round: the first that has the benchmark)
                    return RulesetChoice(later, f"{dated.source}{LATER_ROUND_WITH}{benchmark}; {later.round} is the first "
                                         "later round with it", None if hinted is None else path_round_passed(
                                             run, anchor, when, hinted, later, kept=False))
            if hinted is not None and dated.ruleset.version != hinted.version and dated.finding is None:
                return path_or_date(run, anchor, when, hinted, dated, benchmark)  # (MLC019 either way)
            return dated
        newest, newest_end = newest_period_end()
        if ruleset_for_date(when) is None and when >= newest_end:
            latest, benchmark = load_ruleset(newest), run.benchmark or ref.benchmark
            if hinted is not None and hinted.version != latest.version:  # (MLC019: the path's round, or why not)
                return path_or_date(run, anchor, when, hinted, RulesetChoice(latest, f"run date {when.isoformat()}"), benchmark)
            note = LOG_NEWER_THAN_RULESETS.at(
                run.path, anchor.line if anchor else None,
                f"the run is dated {when.isoformat()}, after the newest round mlcheck knows: {latest.round}, "
                f"whose period ends {latest.results_published.isoformat()}"
                f"{' (estimated)' if latest.period_estimated else ''}; judged under {latest.version}. The "
                "rules of a later round may differ: update mlcheck, or pass --ruleset to choose",
                run_index=run.index)
            return RulesetChoice(latest, f"run date {when.isoformat()} is after the {latest.round} period "
                                 f"(newest known round, ends {latest.results_published})", note)
    if hinted is not None:
        return RulesetChoice(hinted, f"path names round {hinted.round}")
    fallback = newest_round_with(run.benchmark or ref.benchmark)  # (the newest round, or the newest with it)
    note = RULESET_NOT_INFERRED.at(run.path, anchor.line if anchor else None, (
        f"the run date and path do not tell the round; judged under {fallback.version}, the newest round"
        f"{'' if fallback.version == SUPPORTED_RULESETS[-1] else ' with ' + str(run.benchmark or ref.benchmark)}. "
        f"Pass --ruleset ({', '.join(SUPPORTED_RULESETS)}) to choose"), run_index=run.index)
    return RulesetChoice(fallback, NOT_INFERRED, note)

register_checker(sys.modules[__name__])  # the worker processes of --jobs judge each log with it
