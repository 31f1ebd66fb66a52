"""The checker's package stage: read each package's layout and system descriptions once, run the
package rules over them, and attach system information and log/system findings to the benchmark
results. Reading happens here; the rules (``mlcheck/rules/package_*.py``) stay pure.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from mlcheck.model import Finding
from mlcheck.results import BenchmarkResult
from mlcheck.package import JsonDocument, package_roots, read_json_document, scan_package, system_info
from mlcheck.discover import UNREADABLE_FOLDER, shown_path
from mlcheck.rules.internal import crash_finding
from mlcheck.rules.reading import FILE_UNREADABLE, NOT_A_REGULAR_FILE
from mlcheck.rules.package_layout import check_layout
from mlcheck.rules.package_system import check_logs_against_system, check_system_description
from mlcheck.rulesets import SUPPORTED_RULESETS, Ruleset, load_ruleset, ruleset_from_path


def _inside(path: str, root: str) -> bool:
    path, root = os.path.abspath(path), os.path.abspath(root)
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _round_of(root: str, benchmarks: Sequence[BenchmarkResult], forced: Ruleset | None) -> Ruleset:
    if forced is not None:
        return forced
    seen = Counter(b.ruleset for b in benchmarks if b.ruleset and b.folder and _inside(b.folder, root))
    if seen:
        return load_ruleset(seen.most_common(1)[0][0])
    return ruleset_from_path(root) or load_ruleset(SUPPORTED_RULESETS[-1])  # no run read: the path


def _check_package(root: str, benchmarks: Sequence[BenchmarkResult], forced: Ruleset | None,
                   documents: dict[str, JsonDocument]) -> list[Finding]:
    """Layout and system-description findings of one package (system files read into ``documents``)."""
    findings: list[Finding] = []
    ruleset = _round_of(root, benchmarks, forced)
    layout = scan_package(root)
    counts = {name: facts.result_files for name, facts in ruleset.benchmarks.items()}
    findings.extend(check_layout(layout, ruleset.version, counts))
    for system in sorted({f.system for f in layout.benchmark_folders}):
        path = os.path.join(root, "systems", f"{system}.json")
        documents[path] = read_json_document(path)
        findings.extend(check_system_description(documents[path], os.path.join(root, "results", system),
                                                 ruleset.version))
    return findings


def _package_of(folder: str) -> tuple[str, str] | None:
    """``(<org> path, system)`` for ``<org>/results/<system>/<benchmark>``, read from the absolute
    path (``.`` inside a benchmark folder too); the org path is shown relative to the current
    folder when it is below or near it."""
    parts = Path(os.path.abspath(folder)).parts
    if len(parts) >= 4 and parts[-3] == "results":
        return shown_path(str(Path(*parts[:-3]))), parts[-2]
    return None


def check_packages(paths: Sequence[str], benchmarks: Sequence[BenchmarkResult],
                   forced: Ruleset | None, skipped: Sequence[tuple[str, str]] = ()
                   ) -> tuple[list[Finding], list[BenchmarkResult]]:
    """Package-level findings for the packages among ``paths``, and the benchmark results with
    their system information and log-versus-system findings added. ``skipped``: the non-regular
    files discovery left out, as ``(path, kind)``."""
    findings: list[Finding] = []
    documents: dict[str, JsonDocument] = {}
    findings.extend(_skipped_finding(path, kind) for path, kind in skipped)
    roots = package_roots(list(paths))  # (a folder that cannot be listed is not one)
    for root in roots:
        try:
            findings.extend(_check_package(root, benchmarks, forced, documents))
        except Exception as error:  # a crashing package check must not stop the rest
            findings.append(crash_finding("the package checks", root, error))
    updated = []
    for bench in benchmarks:
        located = _package_of(bench.folder) if bench.folder else None
        if located is None:
            updated.append(bench)
            continue
        org_path, system = located
        path = os.path.join(org_path, "systems", f"{system}.json")
        if path not in documents:
            documents[path] = read_json_document(path)
        doc = documents[path]
        runs = [r.run for r in bench.runs if r.run is not None]
        try:
            extra = list(check_logs_against_system(bench.folder or "", system, runs, doc))
        except Exception as error:  # noqa: BLE001 - see above
            extra = [crash_finding("the log/system checks", bench.folder or path, error)]
        updated.append(replace(bench, system_info=system_info(doc),
                               findings=tuple(sorted(bench.findings + tuple(extra), key=Finding.sort_key))))
    return findings, updated


def _skipped_finding(path: str, kind: str) -> Finding:
    if kind.startswith(UNREADABLE_FOLDER):
        return FILE_UNREADABLE.at(path, None, (
            f"this is {kind}; the logs in it were not checked. Check the folder's permissions"))
    return NOT_A_REGULAR_FILE.at(path, None, (
        f"this is {kind}, not a log file; it was skipped (reading it could wait forever). Replace "
        "it with the log file"))
