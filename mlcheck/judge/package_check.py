"""The checker's package stage: read each package's layout and system descriptions once, run the
package rules over them, and attach system information and log/system findings to the benchmark
results. Reading happens here; the rules (``mlcheck/rules/package_*.py``) stay pure.

Which level of a package was named does not change what is found for a folder: a benchmark
folder, ``results/<system>/`` or ``results/`` named alone is checked as its package checks it
(the package is found upwards), and a package named together with folders of it is checked once.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import replace
from typing import Callable, Iterable, Iterator, Sequence

from mlcheck.model import Finding, Severity
from mlcheck.results import BenchmarkResult
from mlcheck.package.layout import (PACKAGE, BenchmarkFolder, JsonDocument,
                                    PackageLayout, PackagePart, join_path, package_parts,
                                    read_json_document, scan_part, system_info)
from mlcheck.package.discover import LOOSE_POWER_LOG, NAMED_BESIDE_RESULTS, NAMED_DEVICE, NAMED_POWER_LOG, NAMED_NO_RECORD_FILE, NO_RECORD_FILE, UNREADABLE_FOLDER, RealPaths
from mlcheck.rules.internal import crash_finding
from mlcheck.read.reading_rules import FILE_UNREADABLE, NO_RECORDS, NOT_A_REGULAR_FILE
from mlcheck.package.file_kinds import special_kind
from mlcheck.package.power import POWER_FOLDER
from mlcheck.package.power_paths import node_log_counts
from mlcheck.rules.power import ENERGY_SCORE, POWER_LOG_INVALID
from mlcheck.rules.power_plausibility import nodes_not_measured
from mlcheck.rules.package import ROUND_ASSUMED
from mlcheck.rules.package_layout import NESTED_FOLDER, UNKNOWN_FILE, check_layout
from mlcheck.judge.system_refusals import SystemRefusals
from mlcheck.judge.outside_results import (misplaced_benchmarks_left_out, outside_results_findings, package_of,
                                          superseded_by_misplacement, unread_by_the_tools)
from mlcheck.rules.package_system import check_system_description
from mlcheck.rules.system_logs import check_logs_against_system
from mlcheck.facts.rulesets import SUPPORTED_RULESETS, Ruleset, load_ruleset, ruleset_from_path
from mlcheck.package.dated_round import dated_package_round
from mlcheck.package.nesting import enclosing_package


class _Rounds:
    """The rounds the benchmark folders read were judged under (their runs' rounds), by folder:
    the layout of a folder is judged under its own runs' round whichever level was named."""

    def __init__(self, benchmarks: Sequence[BenchmarkResult], forced: Ruleset | None,
                 real_path: Callable[[str], str] = os.path.realpath) -> None:
        self.forced = forced
        self.real_path = real_path
        self.dated: dict[str, Ruleset | None] = {}  # (package -> the round its runs' dates give, when none was read)
        self.by_folder: dict[str, Counter[str]] = {}
        for bench in benchmarks:  # (a linked folder under its real path and as spelled: it is in both)
            if bench.ruleset and bench.folder:
                for path in {real_path(bench.folder), os.path.abspath(bench.folder)}:
                    self.by_folder.setdefault(path, Counter())[bench.ruleset] += 1
        # The rounds at or below each folder that holds one of them (the folder and its parents),
        # counted in the order of the folders: what within() sums for a folder, summed once.
        self.at_or_below: dict[str, Counter[str]] = {}
        for path, counts in self.by_folder.items():
            for above in _self_and_parents(path):
                summed = self.at_or_below.get(above)
                if summed is None:
                    self.at_or_below[above] = Counter(counts)
                else:
                    for version, count in counts.items():
                        summed[version] += count

    def within(self, folder: str) -> Ruleset | None:
        """``--ruleset``, else the round most benchmark folders at or below ``folder`` were
        judged under; None when no run was read there."""
        if self.forced is not None:
            return self.forced
        seen = self.at_or_below.get(os.path.abspath(folder)) or self.at_or_below.get(self.real_path(folder))
        return load_ruleset(seen.most_common(1)[0][0]) if seen else None

    def of_package(self, root: str) -> Ruleset:
        """The package's round: that of its runs read, else the path's, else that of the date of
        its other runs (a folder named alone that holds none), else the latest."""
        return (self.within(root) or ruleset_from_path(root) or self._dated(root)
                or load_ruleset(SUPPORTED_RULESETS[-1]))

    def _dated(self, root: str) -> Ruleset | None:
        if self.forced is None and root not in self.dated:
            self.dated[root] = dated_package_round(root)
        return self.dated.get(root)

    def assumed(self, root: str) -> Finding | None:
        """MLC525 when the package's round is the latest only because nothing says which."""
        if self.within(root) is not None or ruleset_from_path(root) is not None or self._dated(root) is not None:
            return None
        newest = load_ruleset(SUPPORTED_RULESETS[-1])
        return ROUND_ASSUMED.at(root, None, (
            f"no run was read in this package and its path names no round (training-X.Y), so it is "
            f"judged under training {newest.version}, the newest round mlcheck knows; give "
            "--ruleset X.Y.Z to judge it under another"))


def _self_and_parents(path: str) -> Iterator[str]:
    """A real path and each folder above it (a real path has no ``..``, no doubled separator)."""
    while True:
        yield path
        parent = os.path.dirname(path)
        if parent == path:
            return
        path = parent


def _check_parts(parts: Sequence[PackagePart], rounds: _Rounds,
                 documents: dict[str, JsonDocument]) -> list[Finding]:
    """Layout and system-description findings of the parts named of one package (system files
    read into ``documents``). Each benchmark folder is judged under the round its runs were
    (the package's otherwise), so that naming the folder alone or its package gives the same."""
    root = parts[0].root
    layout = _combined([scan_part(part) for part in parts], rounds.real_path)
    package_round = rounds.of_package(root)
    layout = misplaced_benchmarks_left_out(layout, package_round.benchmarks)
    assumed = rounds.assumed(root)
    chosen: dict[str, Ruleset] = {}
    by_round: dict[str, list[BenchmarkFolder]] = {}
    for folder in layout.benchmark_folders:
        ruleset = rounds.within(folder.path) or package_round
        chosen[ruleset.version] = ruleset
        by_round.setdefault(ruleset.version, []).append(folder)
    findings = [] if assumed is None else [assumed]
    outer = enclosing_package(root)
    if outer is not None:  # (checked alone it may pass; its place fails the package around it)
        findings.append(UNKNOWN_FILE.at(root, None, (
            f"this package lies in the results/ folder of the package {outer[0]}, whose checks read it as "
            f"{outer[1]} and refuse it ({outer[2]}: `mlcheck check {outer[0]}`); move it out")))
    findings.extend(check_layout(replace(layout, benchmark_folders=()), package_round.version,
                                 _counts(package_round), whole_package=parts[0].level == PACKAGE,
                                 accepted=_accepted(package_round)))
    for version, folders in sorted(by_round.items()):
        findings.extend(check_layout(replace(layout, stray_result_files=(), benchmark_folders=tuple(folders)),
                                     version, _counts(chosen[version]), whole_package=False,
                                     accepted=_accepted(chosen[version])))
    for system in sorted({f.system for f in layout.benchmark_folders}):
        path = join_path(root, "systems", f"{system}.json")
        results = join_path(root, "results", system)
        documents[path] = read_json_document(path)
        findings.extend(check_system_description(documents[path], results,
                                                 (rounds.within(results) or package_round).version,
                                                 layout.system_files))
    if parts[0].level == PACKAGE:  # (the package checker reads every systems/*.json, used or not)
        for name in layout.system_files:
            path = join_path(root, "systems", name)
            if name.endswith(".json") and not name.startswith(".") and path not in documents:
                documents[path] = read_json_document(path)
                findings.extend(_unread_by_summarizer(f, join_path(root, "results", name[:-5])) for f in
                                check_system_description(documents[path], join_path(root, "results"), package_round.version))
    return findings if assumed is None else [_as_assumed(f) for f in findings]


def _unread_by_summarizer(found: Finding, results: str) -> Finding:
    """What only the summarizer stops on in a description without a ``results`` folder: a warning (it lists results/)."""
    if found.code != "MLC512" or found.official or found.severity is not Severity.ERROR or os.path.isdir(results):
        return found
    return replace(found, severity=Severity.WARNING, message=f"{found.message}; but results/ holds no folder of "
                   "this system, and the summarizer reads the descriptions of those only")


_ROUND_BOUND = frozenset({"MLC506", "MLC515"})
"""Package findings that hold only in the round they are judged under."""


def _as_assumed(found: Finding) -> Finding:
    """A finding of a round the package was only assumed to be of (MLC525): a warning, not the
    checker's verdict (an unreadable benchmark folder of an older round is no folder to remove)."""
    if found.code not in _ROUND_BOUND or found.severity is not Severity.ERROR:
        return found
    said = found.message.split(";")[0] if found.code == "MLC506" else found.message  # (not "remove this folder")
    return replace(found, severity=Severity.WARNING, official=False, message=(
        f"{said} (if the package is of that round: it is only assumed, as no run was read, MLC525; give "
        "--ruleset X.Y.Z to judge it under its own)"))


def _counts(ruleset: Ruleset) -> dict[str, int]:
    return {name: facts.result_files for name, facts in ruleset.benchmarks.items()}


def _accepted(ruleset: Ruleset) -> set[str]:
    """The benchmarks the round's checker of record knows (not 6.1's dlrmv4: MLC011)."""
    return {name for name, facts in ruleset.benchmarks.items() if facts.not_in_record is None}


def _combined(layouts: Sequence[PackageLayout], real_path: Callable[[str], str] = os.path.realpath) -> PackageLayout:
    """One layout of the parts of a package: each folder and file once (the first spelling)."""
    folders: dict[str, BenchmarkFolder] = {}
    stray: dict[str, str] = {}
    for layout in layouts:
        for folder in layout.benchmark_folders:
            folders.setdefault(real_path(folder.path), folder)
        for path in layout.stray_result_files:
            stray.setdefault(real_path(path), path)
    return replace(layouts[0], stray_result_files=tuple(stray.values()),
                   benchmark_folders=tuple(folders.values()))


def check_packages(paths: Sequence[str], benchmarks: Sequence[BenchmarkResult],
                   forced: Ruleset | None, skipped: Sequence[tuple[str, str]] = ()
                   ) -> tuple[list[Finding], list[BenchmarkResult]]:
    """Package-level findings for the packages among ``paths``, and the benchmark results with
    their system information and log-versus-system findings added. ``skipped``: the non-regular
    files discovery left out, as ``(path, kind)``."""
    findings: list[Finding] = []
    documents: dict[str, JsonDocument] = {}
    findings.extend(_skipped_finding(path, kind) for path, kind in skipped)
    real_path = RealPaths()  # (the folders of the packages, each resolved once)
    rounds = _Rounds(benchmarks, forced, real_path)
    for parts in package_parts(list(paths), real_path):  # (a folder that cannot be listed is not one)
        try:
            findings.extend(_check_parts(parts, rounds, documents))
        except Exception as error:  # a crashing package check must not stop the rest
            findings.append(crash_finding("the package checks", parts[0].root, error))
    try:
        misplaced = outside_results_findings(paths, benchmarks, forced)
    except Exception as error:  # noqa: BLE001 - see above
        misplaced = [crash_finding("the package checks", paths[0] if paths else ".", error)]
    outside = {os.path.abspath(f.path): f.severity is Severity.WARNING for f in misplaced if f.code == "MLC509"}
    refusals = SystemRefusals(superseded_by_misplacement(findings, outside) + misplaced, benchmarks)  # (no valid score:
    findings = refusals.findings  # a refused description, a summarizer's stop; an unknown folder it passes over)
    updated = []
    for bench in benchmarks:
        located = package_of(bench.folder) if bench.folder else None
        if located is None:
            folder = os.path.abspath(bench.folder) if bench.folder else ""
            updated.append(unread_by_the_tools(bench, outside[folder]) if folder in outside else bench)
            continue
        org_path, system = located
        path = os.path.join(org_path, "systems", f"{system}.json")
        if path not in documents:
            documents[path] = read_json_document(path)
        doc = documents[path]
        runs = [r.run for r in bench.runs if r.run is not None]
        info = system_info(doc)
        try:
            extra = list(check_logs_against_system(runs, doc, bench.ruleset))
            if bench.energy is not None and bench.folder and info is not None and info.number_of_nodes:
                counts = node_log_counts(bench.folder, [r.path for r in bench.runs])
                extra += nodes_not_measured(os.path.join(bench.folder, POWER_FOLDER), counts, info.number_of_nodes, path)
        except Exception as error:  # noqa: BLE001 - see above
            extra = [crash_finding("the log/system checks", bench.folder or path, error)]
        score, why = bench.score, refusals.reason(path, org_path, bench.folder)
        if why:  # (the package checker refuses the package; the summarizer cannot read it: said whatever else is)
            score = replace(score, valid=False, reason=f"{score.reason}; {why}")
        updated.append(replace(bench, system_info=info, score=score,
                               findings=tuple(sorted(bench.findings + tuple(extra), key=Finding.sort_key))))
    findings.extend(nested_folder_notes(updated, [*findings, *(f for bench in updated for f in bench.findings)]))
    return list(dict.fromkeys(findings)), updated


_PASSED_OVER = {
    NO_RECORD_FILE: "no :::MLLOG record anywhere in this file: passed over as not a log (it was met while walking "
                    "a folder, is no result_<i>.txt, and the official tools read no such file). Name it on the "
                    "command line to check it as a log",
    NAMED_NO_RECORD_FILE: "no :::MLLOG record anywhere in this file: passed over as not a log (it was named among "
                          "other paths, as a shell glob names a README beside packages; it is no result_<i>.txt, "
                          "and the official tools read no such file). Name it alone to check it as a log",
    NAMED_BESIDE_RESULTS: "not read as a run: it was named among other paths beside result_<i>.txt files (as "
                          "`bench/*` names a README), and a benchmark folder's runs are its result_<i>.txt files "
                          "alone, for the official tools and for mlcheck walking the folder. Name it alone to "
                          "check it as a log",
}
"""What MLC002 says of a file passed over as no log (:func:`mlcheck.package.discover.discover_all`)."""


def _skipped_finding(path: str, kind: str) -> Finding:
    if kind.startswith(NAMED_POWER_LOG):
        bench = kind[len(NAMED_POWER_LOG) + 1:]
        return ENERGY_SCORE.at(path, None, (
            f"power measurements, checked with the benchmark folder they measure, {bench}: the power checker and "
            "the summarizer read them there, for that folder's energy score"))
    if kind == LOOSE_POWER_LOG:
        return POWER_LOG_INVALID.at(path, None, (
            "a power log outside a benchmark folder's power/result_<i>/: it measures no run here, so it was not "
            "checked nor scored (the summarizer reads power logs only there). Check its benchmark folder"),
            severity=Severity.WARNING)
    if kind in _PASSED_OVER:
        return NO_RECORDS.at(path, None, _PASSED_OVER[kind], severity=Severity.INFO, official=False)
    if kind.startswith(UNREADABLE_FOLDER):
        return FILE_UNREADABLE.at(path, None, (
            f"this is {kind}; the logs in it were not checked. Check the folder's permissions"))
    if kind == NAMED_DEVICE:
        what = special_kind(path) or "a device"
        why = "a socket is no file to read" if what == "a socket" else "reading it could wait forever"
        return NOT_A_REGULAR_FILE.at(path, None, (f"{'standard input' if path == '-' else 'this'} is {what}, not a log "
            f"file: nothing was read from it ({why}), so no run was checked here. " + ("Pipe the log in (mlcheck check - < "
            "result_0.txt) or name it" if path == "-" else "Name the log file (a pipe, <(zcat result_0.txt.gz), or - is read)")))
    return NOT_A_REGULAR_FILE.at(path, None, (
        f"this is {kind}, not a file; it was skipped (reading it could wait forever). The official tools "
        "read no file of this name (it is no result_<i>.txt) and pass the package; replace it with the file "
        "it stands for, or remove it"), severity=Severity.WARNING)


def nested_folder_notes(benchmarks: Iterable[BenchmarkResult], findings: Iterable[Finding]) -> list[Finding]:
    """MLC508 for a folder inside a benchmark folder that the package's layout check did not see
    (the folder given on its own): its logs are no benchmark result, whatever is checked."""
    said = {found.path for found in findings if found.code in (UNKNOWN_FILE.code, "MLC509")}  # (MLC509: stray copies)
    return [UNKNOWN_FILE.at(bench.folder, None, NESTED_FOLDER)
            for bench in benchmarks if not bench.published and bench.folder and bench.folder not in said]
