"""The checker's folder stage: the runs of each benchmark folder judged together (run count,
non-converged runs, the score, scaling.json, the RCP test, the runs compared with each other).
Each folder is scored even when findings exist; a folder whose checks crash gets MLC000 and the
other folders are still judged.
"""

from __future__ import annotations

import os
from dataclasses import replace

from mlcheck.model import Finding, Severity
from mlcheck.facts.round_choice import NOT_INFERRED
from mlcheck.results import TOLERATED_CODES, BenchmarkResult, RcpResult, RunResult, RunSummary, Score
from mlcheck.rule import as_warnings
from mlcheck.facts.rulesets import BenchmarkFacts, Ruleset, RulesetError, load_ruleset
from mlcheck.judge.glob_names import glob_blind
from mlcheck.judge.official_stops import official_stops, read_as_text, stopping_files, unopened_rcp
from mlcheck.judge.power_folder import judge_power
from mlcheck.judge.scaling_file import checker_stops_on, read_scaling_file
from mlcheck.package.discover import LogRef, natural_order
from mlcheck.package.layout import BENCHMARK, package_part, read_json_document
from mlcheck.package.package_policy import package_policy
from mlcheck.package.power import result_name
from mlcheck.package.params import params_files
from mlcheck.read.file_names import RESULT_FILE, SUBMITTED_RESULT_FILE
from mlcheck.rules import package as package_rules, package_runs, seed_reading, seeds
from mlcheck.rules.convergence import ABORTED_RUN_REACHED_TARGET
from mlcheck.rules.checker_params import PARAMS_NOT_HONOURED, bypass_note, check_params, honoured_request
from mlcheck.rules.package_system import SYSTEM_INVALID
from mlcheck.rules.internal import crash_finding
from mlcheck.rules.package_runs import check_runs, non_compliant, non_compliant_findings
from mlcheck.rules.rcp_check import rcp_findings
from mlcheck.score.rcp import rcp_for_runs
from mlcheck.score.rcp.policy import round_policy
from mlcheck.score.rcp.today import load_today_references, today_raises
from mlcheck.score.scaling import published_scaling
from mlcheck.score.scoring import folder_score, published_minutes


def benchmark_facts(ruleset: Ruleset, benchmark: str | None) -> BenchmarkFacts | None:
    """The facts of a benchmark in a round; None when the round does not know it."""
    if benchmark is None:
        return None
    try:
        return ruleset.facts(benchmark)
    except RulesetError:
        return None


GroupKey = tuple[str, str, str, str]
"""(org, system, benchmark, folder): the runs scored together (:mod:`mlcheck.judge.folder_groups`)."""

_FOLDER_RULE_CODES = (frozenset(r.code for r in (*package_runs.RULES, *seeds.RULES, *seed_reading.RULES))
                      - {package_runs.NON_COMPLIANT_RUN.code})
"""Errors about the runs of a folder taken together that the package checker rejects: they leave
no valid benchmark result (MLC521 has its own place in the score)."""

_SEED_CODES = frozenset(rule.code for rule in (*seeds.RULES, *seed_reading.RULES))


def bypass_seeds(findings: list[Finding], path: str) -> list[Finding]:
    """Seed errors as warnings when a ``seed-checker-bypass`` is requested (the seed checker is
    then skipped; the committee reviews the seeds)."""
    return [replace(f, severity=Severity.WARNING, official=False, message=f"{f.message} (seed-checker-bypass is "
                    f"requested in {path}: the package checker skips the seed checker)") if f.code in _SEED_CODES and
            f.severity is Severity.ERROR else f for f in findings]


def _no_result_file(folder: str, members: list[RunResult]) -> bool:
    """A package's benchmark folder (``results/<system>/<benchmark>``) whose logs are none of them
    a ``result_<i>.txt`` (all gzipped, all renamed): the official tools count no run of it, and
    the package layout's MLC502 says so (a folder of logs outside a package is scored as it is)."""
    part = package_part(folder)
    return part is not None and part.level == BENCHMARK and \
        not any(SUBMITTED_RESULT_FILE.match(os.path.basename(r.path)) for r in members)


def _tolerate(run: RunResult) -> RunResult:
    """A run the folder's mean scores (whatever other package rule breaks): non-converged, counted as the slowest, its
    non-convergence is a warning (exit code as ``score``'s; its official verdict stays the checker's); converged,
    an ``aborted`` status (MLC302) is one (the RCP test has its own finding)."""
    codes, note = (((ABORTED_RUN_REACHED_TARGET.code,), "a warning: the score counts the run as converged") if run.converged else
                   (TOLERATED_CODES, "tolerated: the benchmark result counts this run as its non-converged run"))
    return replace(run, findings=as_warnings(run.findings, codes, note), tolerated=not run.converged)


def benchmark_folder_log(ref: LogRef) -> bool:
    """A log found by walking a benchmark folder: a result file, or any log inside a package."""
    return ref.walked and not ref.nested and (
        ref.system is not None or RESULT_FILE.match(os.path.basename(ref.path)) is not None)


def described_division(folder: str) -> tuple[str, object] | None:
    """The path of the system description of a benchmark folder of a package and the division it
    gives (:data:`MISSING` without one), or None (no package, no readable description: other
    findings say so). The package checker reads it to decide whether to run the seed and RCP
    checkers (``division`` exactly ``closed``), whatever the runs log."""
    part = package_part(folder)  # (read from the absolute path: '.' in the folder, 'bert' in its system's)
    if part is None or part.level != BENCHMARK:
        return None
    path = os.path.join(part.root, "systems", f"{part.system}.json")
    document = read_json_document(path)
    if not document.exists or document.error is not None or not isinstance(document.data, dict):
        return None
    return path, document.data.get("division", MISSING)


MISSING = object()
"""A system description without ``division``."""


def checker_skips(folder: str, described: tuple[str, object] | None) -> tuple[str, Finding] | None:
    """For a folder of runs that are not open whose description (``described``) does not give the division as
    ``closed``: the division it reads (the package checker runs neither the seed nor the RCP checker there) and a
    warning; None where it runs them (or the folder is in no package, or its description is missing or unreadable)."""
    if described is None or described[1] == "closed":
        return None
    path, value = described
    shown = "missing" if value is MISSING else repr(value)
    said = (f"{path} has no division: the package checker stops on it (KeyError: 'division')" if value is MISSING
            else f"{path} gives the division as {shown}: the package checker runs the seed and RCP checkers only "
            "where it reads 'closed', so it runs neither on this folder (nor, from 2.1, normalises the score to the RCPs)")
    return shown, SYSTEM_INVALID.at(folder, None, f"{said}; the runs log a closed submission: write closed",
                                    severity=Severity.WARNING, official=False)


def unscored_folder(key: GroupKey, members: list[RunResult], error: Exception) -> BenchmarkResult:
    org, system, benchmark, folder = key
    members = sorted(members, key=lambda r: (natural_order(r.path), r.index))
    return BenchmarkResult(org=org or None, system=system or None, benchmark=benchmark or None,
                           division=next((r.division for r in members if r.division), None),
                           ruleset=members[0].ruleset, folder=folder, runs=tuple(members),
                           score=Score(None, False, "mlcheck could not score this folder (MLC000)"),
                           findings=(crash_finding("the folder checks", folder, error),))


def _rcp_benchmark(folder_benchmark: str, facts: BenchmarkFacts, ruleset: Ruleset | None,
                   runs: list[RunSummary]) -> tuple[str, int]:
    """The benchmark the RCP test reads, and its number of runs: the one the runs log where they
    all log the same one of the round (the RCP checker reads submission_benchmark, whatever the
    folder's name: MLC016), else the folder's."""
    logged = {run.benchmark for run in runs if run.benchmark}
    if len(logged) == 1 and ruleset is not None and (name := logged.pop()) != folder_benchmark:
        named = benchmark_facts(ruleset, name)
        if named is not None:
            return name, named.result_files
    return folder_benchmark, facts.result_files


def _written_over(found: Finding) -> Finding:
    message = found.message
    cut = message.find(f" {package_rules.MULTIPLIED}, as the summarizer does")
    if cut >= 0:  # (a factor of 0 or below, which the summarizer would multiply in: it never reads it)
        message = f"{message[:cut]} is 0 or below (a review committee's factor is above 0)"
    return replace(found, severity=Severity.WARNING, message=(
        f"{message}; the round's package checker writes (or deletes) scaling.json before the "
        "summarizer reads it, so this file does not count"))


def score_folder(key: GroupKey, members: list[RunResult],
                 whole_folder: bool = True) -> BenchmarkResult:
    org, system, benchmark, folder = key
    members = sorted(members, key=lambda r: (natural_order(r.path), r.index))
    # (a file no run was read from has no round; one no date or path placed, MLC012, decides last)
    first = next((r for r in members if r.ruleset and r.ruleset_source != NOT_INFERRED),
                 next((r for r in members if r.ruleset), members[0]))
    ruleset = load_ruleset(first.ruleset) if first.ruleset else None
    facts = benchmark_facts(ruleset, benchmark) if ruleset else None
    scaling_path, factor, findings = read_scaling_file(folder, ruleset)
    findings += [blind] if whole_folder and facts is not None and (blind := glob_blind(folder)) is not None else []
    division = next((r.division for r in members if r.division), None)
    if first.ruleset:
        findings.extend(package_rules.rounds_differ(folder, members, first.ruleset))
    rcp, energy, rejected = None, None, None  # (RcpResult, EnergyScore, why the power checker refuses the folder)
    dropped: tuple[list[RunResult], float | None, set[str], int] | None = None  # (MLC521's: non_compliant_findings)
    stopped, raw, stops = "", False, None
    if facts is None:
        score = Score(None, False, f"benchmark {benchmark or '(unknown)'} is not part of the round")
    else:
        runs = [r.run for r in members if r.run is not None]
        # The RCP test and the cross-run checks need the whole folder, like the run count; raw logs (a seed loop's,
        # a job array's) of the round's count of runs get them too (what `mlcheck split` writes of them would get).
        raw = not whole_folder and len(runs) >= facts.result_files \
            and not any(RESULT_FILE.match(os.path.basename(r.path)) for r in members) \
            and len({r.division for r in members}) == 1  # (of one division: a closed run's seed rules bind it alone)
        described = described_division(folder) if whole_folder else None
        skipped = checker_skips(folder, described) if division != "open" else None
        # (the package checker runs them by the description's division, whatever the runs log)
        checked = "closed" if described is not None and described[1] == "closed" else division
        if skipped is not None:  # (the package checker runs no seed or RCP checker here)
            findings.append(skipped[1])
            rcp = RcpResult("skipped", f"the system description's division is {skipped[0]}: the package checker "
                                       "runs the RCP test for 'closed' only")
        elif whole_folder or raw:
            samples = honoured_request(params_files(folder), "rcp-bert-train-samples",
                                       package_policy(first.ruleset), first.ruleset or "?") if whole_folder else None
            unread = [os.path.basename(m.path) for m in members if m.run is None or read_as_text(m)]  # (no record to it)
            read = [m.run for m in members if m.run is not None and not read_as_text(m)]
            tested, counted = _rcp_benchmark(benchmark, facts, ruleset, read)
            rcp = rcp_for_runs(tested, checked, first.ruleset, read, counted, bert_train_samples=bool(samples), unread=unread)
            if rcp.verdict != "skipped":  # and as today's mlperf-logging computes it
                raises = today_raises(tested) if tested else None
                rcp = replace(rcp, today=RcpResult("fail", raises, unit=rcp.unit) if raises else rcp_for_runs(
                    tested, checked, first.ruleset, read, counted, load_today_references, samples is not None, unread, today=True))
            rcp = unopened_rcp(members, rcp)  # (a file the RCP checker cannot open: it raises, nothing tested)
            if samples is not None and tested == "bert":
                findings.append(bypass_note("rcp-bert-train-samples", samples, "", (
                    "the BERT RCP test reads each run's last train_samples as its convergence point, "
                    "not its last eval's epoch_num")))
        policy = round_policy(first.ruleset) if first.ruleset else None
        scaling = published_scaling(factor, rcp, ruleset is not None and ruleset.normalise_to_rcp,
                                    policy is not None and policy.resets_scaling_json)
        if scaling.replaced:  # (an unusable scaling.json the tools write over does not count)
            findings = [_written_over(f) if f.code == package_rules.SCALING_JSON_INVALID.code else f
                        for f in findings]
        if whole_folder and (stops := checker_stops_on(scaling_path, scaling.writes, scaling.deletes)) is not None:
            findings = [f for f in findings if f.code != package_rules.SCALING_JSON_INVALID.code] + [
                package_rules.SCALING_JSON_INVALID.at(scaling_path, None, f"scaling.json cannot be used: {stops}; "
                                                      "the package checker stops there. Remove it", official=True)]
        if scaling.note:  # the official tools replace or delete the folder's scaling.json
            findings = [f for f in findings if f.code != package_rules.SCALING_APPLIED.code]
            findings.append(package_rules.SCALING_APPLIED.at(scaling_path, None, scaling.note, severity=(
                Severity.WARNING if scaling.suspect else Severity.INFO)))
        normalise = scaling.rcp is not None
        times = [published_minutes(r.duration_ms) if r.converged else None for r in members]
        # A file named alone is one run, not a folder: its own findings judge it, not MLC521 (raw logs of the round's
        # count of runs: what `mlcheck split` writes of them would get).
        judged = [not non_compliant(r) if whole_folder or raw else True for r in members]
        # (the summarizer times every run its checker passes, from run_start to run_stop)
        timed = [t if t is not None or r.official_verdict != "pass" else published_minutes(r.duration_ms)
                 for t, r in zip(times, members)]
        stopped, cut_lines = official_stops(members, rcp, first.ruleset) if whole_folder else ("", [])
        score, official = folder_score(times, judged, facts, scaling.committee, scaling.rcp,
                                       [r.official_verdict == "pass" or not (whole_folder or raw) for r in members],
                                       timed, stopped)
        if whole_folder or raw:  # (a file named alone: its own findings say it all; emitted below)
            dropped = ([r for r in members if non_compliant(r)], official.score_min if official else score.score_min,
                       {result_name(r.path) + (f" {r.index}" if raw else "") for r in members if r.official_verdict == "fail"},
                       facts.max_non_converged)
        if whole_folder and rcp is not None:
            findings.extend(package_rules.check_score(folder, facts, score, members, first.ruleset or "?"))
            params = params_files(folder)
            checks, version = package_policy(first.ruleset), first.ruleset or "?"
            rcp_bypass = honoured_request(params, "rcp-bypass", checks, version)  # (else MLC546 says why)
            seed_bypass = honoured_request(params, "seed-checker-bypass", checks, version)
            findings.extend(check_params(params, checks, version))
            findings.extend(rcp_findings(folder, rcp, normalised=normalise,
                                         bypass=rcp_bypass.path if rcp_bypass else None, ruleset=first.ruleset))
            findings.extend(cut_lines)  # (MLC535 of a cut line the RCP checker decodes)
            findings.extend([bypass_note("rcp-bypass", rcp_bypass, "RCP failures (MLC530, MLC531)")] if rcp_bypass else [])
            closed = checked != "open" and skipped is None
            run_findings = check_runs(folder, runs, closed=closed, ruleset=first.ruleset)
            if closed:  # (the seed checker reads every result file of a closed folder)
                run_findings.extend(seed_reading.unreadable_for_seeds(members, first.ruleset, stopping_files(members)))
            if seed_bypass is not None:
                run_findings = bypass_seeds(run_findings, seed_bypass.path)
                findings.append(bypass_note("seed-checker-bypass", seed_bypass,
                                            "seed errors (MLC518, MLC519, MLC522, MLC526)"))
            findings.extend(run_findings)
        if raw and rcp is not None:
            findings.extend(rcp_findings(folder, rcp, normalised=normalise, ruleset=first.ruleset))
            findings.extend(check_runs(folder, runs, closed=division != "open", ruleset=first.ruleset, raw=True))
        power = judge_power(folder, members, official or score, first.ruleset, facts.max_non_converged,
                            official is not None and official.runs_counted != score.runs_counted) if whole_folder else None
        if power is not None:
            findings.extend(power.findings)
            energy, rejected = power.energy, power.rejection
            if dropped is not None:  # (the package checker counts them with the files it fails)
                dropped[2].update(power.non_compliant)
    tolerates = score.valid and not rejected  # (before the package rules: its mean counts a non-converged run)
    broken = sorted({f.code for f in findings if f.code in _FOLDER_RULE_CODES and f.severity is Severity.ERROR})
    if dropped is not None:  # (one the package checker refuses, official, is a package rule broken)
        findings.extend(found := non_compliant_findings(folder, *dropped, stopped=stopped, refused=broken))
        broken += [f.code for f in found if f.official]
    if broken:
        score = replace(score, valid=False, reason=f"{score.reason}; the runs of the folder break the "
                        f"package rules ({', '.join(broken)}){'' if score.valid else ': the package checker refuses it'}")
    if score.valid and any(f.code == PARAMS_NOT_HONOURED.code and f.severity is Severity.ERROR for f in findings):
        score = replace(score, valid=False, reason=f"{score.reason}; the official tools stop on a "
                        "package_checker_params file (MLC546)")
    if (any(f.code == package_rules.WRONG_RUN_COUNT.code for f in findings) or (whole_folder and _no_result_file(
            folder, members))) and "the round requires" not in score.reason:  # (said where already invalid too)
        score = replace(score, valid=False, reason=f"{score.reason}; the folder does not hold the round's "
                        "result files (MLC502)")
    if score.valid and rejected:
        score = replace(score, valid=False, reason=f"{score.reason}; {rejected}")
    if any(f.code == package_rules.SCALING_JSON_INVALID.code and f.severity is Severity.ERROR for f in findings):
        score = replace(score, valid=False,
                        reason=f"{score.reason}; " + ("the package checker stops on scaling.json (MLC504)" if stops else
                                                      "scaling.json is unusable (MLC504), the score is not scaled"))
    if score.score_min is None:  # (no score for scaling.json's factor to be multiplied into: MLC505's note unsaid)
        findings = [f for f in findings if f.code != package_rules.SCALING_APPLIED.code or f.severity > Severity.INFO]
    if (whole_folder or raw) and tolerates:
        members = [_tolerate(r) if not r.converged or r.status == "aborted" else r for r in members]
    return BenchmarkResult(org=org or None, system=system or None, benchmark=benchmark or None,
                           division=division, ruleset=first.ruleset, folder=folder,
                           runs=tuple(members), score=score,
                           findings=tuple(sorted(findings, key=Finding.sort_key)), rcp=rcp,
                           energy=energy and energy.within(score))
