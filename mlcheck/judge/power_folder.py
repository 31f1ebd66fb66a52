"""The folder stage's power part: read a benchmark folder's ``power/`` folder, check it as the
round's power checker does (5.0+), score its energy as the round's summarizer does (3.1+), and
say when power problems make the package checker reject the folder."""

from __future__ import annotations

import math
import os

from dataclasses import replace
from typing import Sequence

from mlcheck.records import dataclass
from mlcheck.model import Finding, Severity
from mlcheck.package.package_policy import package_policy
from mlcheck.package.power import (POWER_FOLDER, PowerFolder, PowerLog, PowerRun, read_power_log, result_name,
                                   scan_power, summarizer_name, summarizer_run)
from mlcheck.package.power_paths import twin_node_logs
from mlcheck.read.utf16_lines import wide_encoding
from mlcheck.results import EnergyScore, RunResult, Score
from mlcheck.rules import find_rule, power as rules
from mlcheck.rules.power_plausibility import implausible_node_log, twin_logs
from mlcheck.rules.power_text import format_energy
from mlcheck.score.energy import node_energy, olympic_energy, switch_energy
from mlcheck.score.scoring import published_minutes


@dataclass(frozen=True)
class PowerVerdict:
    """What the power folder adds to a benchmark folder's result."""

    findings: tuple[Finding, ...]
    energy: EnergyScore | None
    rejection: str | None
    """Why the package checker rejects the folder because of power problems (None: it does not)."""
    non_compliant: frozenset[str] = frozenset()
    """The results whose power logs the package checker counts as non-compliant files."""


def judge_power(folder: str, members: Sequence[RunResult], counted: Score, ruleset: str | None,
                tolerated: int, summarizers: bool = False) -> PowerVerdict | None:
    """The power verdict of a benchmark folder; None when it has no ``power/`` folder.
    ``counted`` is the time score whose runs the energy averages (the published one; with
    ``summarizers``, the summarizer's, which counts other runs than mlcheck's own)."""
    power = scan_power(folder, [m.path for m in members])
    policy = package_policy(ruleset)
    version = ruleset or "?"
    path = os.path.join(folder, POWER_FOLDER)
    if power is None and policy.power_check and os.path.exists(path):  # (a file: the checker tests exists())
        return PowerVerdict((rules.POWER_RUN_MISSING.at(path, None, (
            "power is a file, not a folder: the package checker finds no power/<result>/ in it for any run and "
            "crashes (max() of an empty list); the summarizer reads no power results. Remove it, or make it the "
            "folder of the power measurements")),), None, "the package checker crashes on the power file")
    if power is None:
        return None
    if not policy.energy_score:
        note = rules.ENERGY_SCORE.at(power.path, None, (
            f"training {version} scores no energy (power results came with 3.1): power/ is not read"))
        return PowerVerdict((note,), None, None)
    findings, bad = rules.check_power_folder(power, policy.power_check, version)
    failed = {result_name(m.path) for m in members if m.official_verdict == "fail"}
    rejection = _rejection(bad, failed, tolerated)
    if policy.power_check and any(f.index is None for run in power.runs for f in run.files):
        rejection = "the package checker crashes on a power log name without an index (MLC541)"
    if policy.power_check and any(run.unlistable for run in power.runs):
        rejection = "the package checker crashes listing a power/<result> that is no readable folder (MLC540)"
    if policy.power_check and power.runs and all(run.folder is None for run in power.runs):
        rejection = "the package checker crashes on a power/ that holds no run's folder (max() of an empty list, MLC540)"
    if rejection is None and bad:  # (within the files olympic scoring tolerates: the checker accepts it)
        findings = [_tolerated(f, len(bad | failed), tolerated) for f in findings]
    energy, energy_findings = _energy(power, members, counted, summarizers)
    findings.extend(energy_findings)
    return PowerVerdict(tuple(findings), energy, rejection, frozenset(bad))


def _rejection(bad_power: set[str], failed_files: set[str], tolerated: int) -> str | None:
    """Why the round's package checker rejects the folder when power problems push the
    non-compliant files (compliance failures and power problems together) over the tolerance."""
    together = bad_power | failed_files
    if not bad_power or len(together) <= tolerated:
        return None
    return (f"the package checker rejects the folder: {len(together)} result files do not comply "
            f"({len(bad_power)} for their power measurements, MLC540-MLC542); at most {tolerated} may")


def _minutes(member: RunResult) -> float:
    """The run's time as the summarizer orders the runs (run_start to run_stop)."""
    minutes = published_minutes(member.duration_ms)
    return math.inf if minutes is None else minutes


def _tolerated(finding: Finding, non_compliant: int, tolerated: int) -> Finding:
    """A power error of a run the package checker tolerates (package_checker.py accepts up to
    ``tolerated`` non-compliant result files of a folder, power problems counted with the rest)."""
    if finding.severity is not Severity.ERROR or finding.code not in rules.RUN_CODES:
        return finding
    return replace(finding, severity=Severity.WARNING, official=False, message=(
        f"{finding.message}; tolerated: the package checker accepts {tolerated} non-compliant "
        f"result file{'s' if tolerated != 1 else ''} of a folder ({non_compliant} here)"))


def _energy(power: PowerFolder, members: Sequence[RunResult], counted: Score, summarizers: bool = False
            ) -> tuple[EnergyScore, list[Finding]]:
    found: list[Finding] = []
    joules: list[float | None] = []
    # (the summarizer reads the power logs of every run its compliance check passes and times, from
    # run_start to run_stop: the runs the score drops too, an aborted one too; never those it fails)
    unscored: list[str] = []
    short: list[str] = []  # (runs with a node log of fewer readings than the rules require)
    raised = False
    for position, member in enumerate(members):
        run = summarizer_run(power, member.path)  # (its power/<name>: to the file name's first dot)
        duration = member.run.duration_ms if member.run is not None else None
        counted_here = position in counted.runs_counted
        if member.official_verdict != "pass" or duration is None:  # (one the compliance check fails: not read)
            joules.append(None)
            continue
        if run is None or run.folder is None:  # (the summarizer globs its node logs: none, AssertionError)
            found.append(rules.POWER_LOG_INVALID.at(power.path, None, (
                f"no power/{summarizer_name(member.path)}/ folder: the summarizer fails on this run (AssertionError) "
                "and no energy score exists. Add the run's power logs")))
            joules.append(None)
            raised = True
            if not counted_here:
                unscored.append(result_name(member.path))
            continue
        start = member.run.first("run_start") if member.run is not None else None
        joules.append(_run_energy(run, duration, found, start.time_ms if start is not None else None, short,
                                  counted_here))
        raised = raised or joules[-1] is None  # (the summarizer raised on its logs)
        if joules[-1] is None and not counted_here:
            unscored.append(run.result_name)
    # (summed in the performance ordering, fastest first, as the summarizer sums them; runs of equal
    # times it takes in the folder's listing order, which no sort gives)
    by_time = sorted(counted.runs_counted, key=lambda i: (_minutes(members[i]) if i < len(members) else math.inf, i))
    total, reason = olympic_energy(joules, by_time, counted.scaling_factor,
                                   "the summarizer's time score" if summarizers else "the time score")
    if counted.score_min is None:  # (the summarizer scores energy only where it scores the time: its reason)
        total, reason = None, f"no time score, so no energy score ({counted.reason})"
    if summarizers and total is not None:
        reason += "; it is the energy the summarizer publishes: mlcheck's own time score counts other runs"
    if any(not math.isfinite(joules[i] or 0.0) for i in counted.runs_counted if i < len(joules)):
        found.append(rules.POWER_LOG_INVALID.at(power.path, None, (
            "the energy score counts a run whose energy is NaN or infinite (a NaN or Infinity power reading): "
            "the summarizer computes that as the folder's energy and publishes no number for it. Measure the "
            "power again")))
    if total is not None and unscored:
        total, reason = None, (f"the power logs of {', '.join(unscored)} (a run the time score drops, whose logs "
                               "the summarizer reads all the same) cannot be scored (MLC543)")
    if not counted.valid and total is not None:
        reason += "; the time score is not valid"
    if short and total is not None:
        reason += (f"; not valid: the power logs of {', '.join(sorted(set(short)))} hold fewer than {MIN_READINGS} "
                   "readings (MLC543)")
    valid = total is not None and counted.valid and not short
    if total is not None:
        reason += _tie_note(members, counted.runs_counted, joules)
    found.append(rules.energy_finding(power.path, total, reason))
    runs = tuple(j if j is None or math.isfinite(j) else None for j in joules)  # (NaN: no energy, MLC543)
    return EnergyScore(total, valid, reason, runs, counted.scaling_factor, raised), found


def _tie_note(members: Sequence[RunResult], runs_counted: Sequence[int], joules: Sequence[float | None]) -> str:
    """Where a run the energy counts and one it drops have the same time but not the same energy:
    mlcheck keeps the one of the first file name, the summarizer the first its ``glob`` lists (the
    folder's order on disk, which no rule fixes), so the published energy may be the other one's
    (a review of session 42). Empty where no tie matters."""
    counted = set(runs_counted)
    for kept in sorted(counted):
        mine = joules[kept] if kept < len(joules) else None
        minutes = _minutes(members[kept])
        if mine is None or not math.isfinite(minutes):
            continue
        for dropped in range(min(len(members), len(joules))):
            theirs = joules[dropped]
            if dropped not in counted and theirs is not None and minutes == _minutes(members[dropped]) and mine != theirs:
                one, other = result_name(members[kept].path), result_name(members[dropped].path)
                return (f"; {one} and {other} take the same time ({minutes:g} min): {one} is counted and {other} is "
                        "not, as mlcheck orders runs of equal times by file name, but the summarizer takes them in "
                        f"its folder listing's order, so the energy it publishes may count {other}'s "
                        f"{_shown(theirs)} instead of {_shown(mine)}")
    return ""


def _shown(joules: float) -> str:
    """An energy as the tie note gives it: a NaN or infinite one leaves no energy score to publish."""
    return format_energy(joules) if math.isfinite(joules) else "NaN energy (no valid energy score then)"


MIN_READINGS = 60
"""Power readings a node log must hold (power_measurement.adoc: at least 60 samples)."""


def _run_energy(run: PowerRun, duration_ms: float, found: list[Finding], run_start_ms: float | None,
                short: list[str], counted: bool = True) -> float | None:
    """The run's energy as the summarizer scores it (None where it raises); the run's name is
    appended to ``short`` where a node log of a run the score counts (``counted``) holds fewer
    readings than the rules require (a warning for a dropped run: the score stands)."""
    nodes = [f for f in run.of_kind("node") if f.scored]
    if not nodes:
        found.append(rules.POWER_LOG_INVALID.at(run.folder or "", None, (
            "no node_*.txt log: the summarizer fails on this run (AssertionError) and no energy score "
            "exists. Add the node power logs")))
        return None
    total = 0.0
    failed = False
    found.extend(twin_logs(twin_node_logs(sorted(f.path for f in nodes))))
    for file in sorted(nodes + [f for f in run.of_kind("sw") if f.scored], key=lambda f: f.path):
        log = read_power_log(file.path)
        if log.unreadable is not None:
            found.append(rules.POWER_LOG_INVALID.at(file.path, None, (
                f"this power log {log.unreadable}; no energy score exists")))
            failed = True
            continue
        if log.parser_crash is not None:
            line, raised = log.parser_crash
            found.append(rules.POWER_LOG_INVALID.at(file.path, line, (
                f"the official parser raises {raised} on this record (a missing field, or a time_ms float() "
                "refuses), so the result summarizer stops: no energy score exists. Log every record with "
                "key, value, time_ms and metadata")))
            failed = True
            continue
        energy = (node_energy if file.kind == "node" else switch_energy)(log.events, duration_ms)
        if log.reading_problems:
            found.append(_wrong_shape(file.path, log))
        if energy.joules is None:
            found.append(rules.POWER_LOG_INVALID.at(file.path, energy.line, (
                f"{energy.problem}: the summarizer raises on this log and no energy score exists")))
            failed = True
            continue
        readings = energy.readings if file.kind == "node" else None  # (those between its start and stop)
        if readings is not None and readings < MIN_READINGS:  # (the rules' minimum; no official tool counts them)
            fix = ("sampling at least once a second (as the rules ask) over the whole run, and a run shorter than a "
                   "minute measured until they are taken" if readings else
                   "and none lies between its power_measurement_start and power_measurement_stop")
            effect = ("and the energy score is not valid" if counted else
                      "a run the energy score does not count (the fastest or slowest): the score stands")
            found.append(rules.POWER_LOG_INVALID.at(file.path, None, (
                f"{readings} power_reading record(s) in the measurement window: power_measurement.adoc (Measure "
                f"max(a run, {MIN_READINGS} power samples)) requires {MIN_READINGS} samples, {fix}; neither official "
                f"tool counts them: the summarizer would score {format_energy(energy.joules)} for this log, {effect}"),
                severity=None if counted else Severity.WARNING))
            if counted:
                short.append(run.result_name)
        if energy.note:
            found.append(rules.POWER_LOG_INVALID.at(file.path, None, energy.note, severity=Severity.WARNING))
        if not math.isfinite(energy.joules):  # (the summarizer computes on: no energy published where the run is counted)
            found.append(rules.POWER_LOG_INVALID.at(file.path, _first_unreal(log), (
                f"a NaN or Infinity power reading makes this run's energy {energy.joules}; the summarizer "
                "computes on, and an energy score that counts the run is not a number"), severity=Severity.WARNING))
        if file.kind == "node":
            found.extend(implausible_node_log(file.path, log.events, run_start_ms, duration_ms))
        total += energy.joules
    return None if failed else total


def _first_unreal(log: PowerLog) -> int | None:
    """The line of the log's first NaN or infinite reading or efficiency."""
    return next((e.line for e in log.events if e.key in ("power_reading", "conversion_eff", "interconnect_power_est")
                 and isinstance(e.value, float) and not math.isfinite(e.value)), None)


def _wide(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return wide_encoding(handle.read(8))
    except OSError:
        return None


def _wrong_shape(path: str, log: PowerLog) -> Finding:
    """MLC543 for the records of a power log that the reader finds malformed (a warning: the
    summarizer's parser reads them), at the first of them, saying what is wrong with it."""
    line, code = log.first_problem or (None, "")
    wide = _wide(path) if code == "MLC009" else None
    if wide is not None:
        return rules.POWER_LOG_INVALID.at(path, 1, (
            f"the log is {wide} (it begins with a {wide} byte order mark): the summarizer's parser reads "
            f"latin-1 and finds no record in it. Convert it: iconv -f {wide} -t UTF-8"), severity=Severity.WARNING)
    found = find_rule(code)
    what = f" ({code}: {found[0].summary})" if found is not None else ""
    first = f", the first at line {line}{what}" if line is not None else what
    harmless = log.codes == {"MLC008"}  # (metadata that is no object, "": the summarizer scores such logs as any)
    return rules.POWER_LOG_INVALID.at(path, line, (
        f"{log.reading_problems} record(s) of the wrong shape{first}; {_PARSER_READS.get(code, _PARSER_READS[''])}"),
        severity=Severity.INFO if harmless else Severity.WARNING)


_PARSER_READS = {
    "MLC010": "the summarizer's parser reads only the last record of such a line, and the energy counts only it, "
              "as the summarizer's does",
    "MLC003": "the summarizer's parser skips a record it cannot decode, and the energy is computed without it, as "
              "the summarizer's is",
    "MLC004": "the summarizer's parser skips a cut record, and the energy is computed without it, as the "
              "summarizer's is",
    "MLC008": "the summarizer's parser reads such records all the same (it uses their key, value and time)",
    "": "the energy is computed from what the summarizer's parser reads of them (it skips a record it cannot "
        "decode and reads only the last record of a line)",
}
"""What the summarizer's parser does with such records, by the reader's code for the first."""
