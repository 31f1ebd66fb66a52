"""Benchmark folders of a package that are not at ``<org>/results/<system>/<benchmark>/``: the
official package checker lists only that level and never reads them, and the results summarizer
publishes nothing of them (MLC509, ``mlcheck.rules.package_layout``). Three misplacements are
told, each when ``<org>`` is a package (it holds ``systems/``, ``results/`` or ``benchmarks/``)
or is the logs' ``submission_org``:

- ``<org>/<system>/<benchmark>/``: the ``results/`` level left out;
- ``<org>/results/<benchmark>/``: the system level left out;
- ``<org>/<benchmark>/``: beside ``results/``;
- ``<org>/results/<system>/result_*.txt``: the benchmark level left out (the runs name a benchmark
  of the round, the folder none): the package checker lists only the system folder's folders;
- ``<org>/results/result_*.txt``: the system and benchmark levels left out.

For the last four a ``results/`` folder is no sign of a package (run scripts write their logs to
``./results/``): ``<org>`` must hold ``systems/`` or ``benchmarks/``, or be the logs' org.

Such a folder's runs are still judged one by one, but its score is no valid one: the round's
tools give it none, and no finding of the folder (its run count, seeds, RCP test) is one the
official tools make (:func:`unread_by_the_tools`).
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Collection, Sequence

from mlcheck.facts.rulesets import Ruleset, load_ruleset
from mlcheck.model import Finding, Severity
from mlcheck.package.discover import absolute_parts, package_path
from mlcheck.package.layout import PACKAGE_FOLDERS, PackageLayout, join_path
from mlcheck.read.file_names import SUBMITTED_RESULT_FILE
from mlcheck.results import BenchmarkResult
from mlcheck.rules.package_layout import LAYOUT_INCOMPLETE, outside_results

SYSTEM = "<system>"
"""The system's name where the folder gives none: the name of its ``systems/<system>.json``."""


def outside_results_findings(paths: Sequence[str], benchmarks: Sequence[BenchmarkResult],
                             forced: Ruleset | None) -> list[Finding]:
    """MLC509 for the benchmark folders found in the given folders outside ``results/<system>/``
    of a package, whichever of these folders was named."""
    given = [p for p in paths if p != "-" and os.path.isdir(p)]
    found = []
    for bench in benchmarks:
        if not bench.folder or package_of(bench.folder) is not None:
            continue
        folder = Path(os.path.abspath(bench.folder))
        ruleset = forced or (load_ruleset(bench.ruleset) if bench.ruleset else None)
        if len(folder.parts) < 3 or ruleset is None or not any(_inside(bench.folder, g) for g in given):
            continue
        parent = os.path.normpath(os.path.join(bench.folder, os.pardir))
        named = folder.name in ruleset.benchmarks  # (else the logs name the benchmark)
        if not named and (bench.benchmark not in ruleset.benchmarks or "results" not in (folder.name, folder.parent.name)):
            continue
        if not named and folder.name == "results":  # (<org>/results/result_*.txt)
            org, system, level = parent, SYSTEM, "the system and benchmark levels"
        elif not named:  # (<org>/results/<system>/result_*.txt)
            org, system, level = os.path.normpath(os.path.join(parent, os.pardir)), folder.name, "the benchmark level"
        elif folder.parent.name == "results":  # (<org>/results/<benchmark>)
            org, system, level = os.path.normpath(os.path.join(parent, os.pardir)), SYSTEM, "the system level"
        elif _marks(parent):  # (<org>/<benchmark>, beside results/)
            org, system, level = parent, SYSTEM, "the results/ and system levels"
        else:  # (<org>/<system>/<benchmark>)
            org, system, level = os.path.normpath(os.path.join(parent, os.pardir)), folder.parent.name, "results/"
        marks = _marks(org) if system != SYSTEM and named else [m for m in _marks(org) if m != "results"]
        name = os.path.basename(os.path.abspath(org))
        if marks:
            why = f"{org} is a package: it holds {', '.join(m + '/' for m in marks)}"
        elif name.lower() in {r.org.strip().lower() for r in bench.runs if r.org}:
            why = f"the logs name {name!r} as submission_org"
        else:
            continue
        expected = join_path(org, "results", system, folder.name if named else str(bench.benchmark))
        real = None if named else _read_folder(org, system, str(bench.benchmark))
        if real is None:
            found.append(outside_results(bench.folder, expected, f"{level} left out; {why}"))
        else:  # (copies beside the folder the tools read: stray files, as any)
            found.append(LAYOUT_INCOMPLETE.at(bench.folder, None, (
                f"result files of {bench.benchmark} outside a benchmark folder ({why}): the official tools read "
                f"only {real}/, which is there; these copies are no result of it. Remove them"),
                severity=Severity.WARNING))
    return found


def unread_by_the_tools(bench: BenchmarkResult, stray: bool) -> BenchmarkResult:
    """A misplaced benchmark folder's results: its score not valid, no finding of its folder said
    to be the official tools' (they read no run of it; the MLC509 finding says why). ``stray``
    copies beside the folder they read are no result at all (as a folder inside a benchmark
    folder: mlcheck.judge.nested_logs): their errors, the runs' too, are warnings."""
    def unread(found: Finding) -> Finding:
        if not stray or (found.severity is not Severity.ERROR and not found.official):
            return replace(found, official=False) if found.official else found
        return replace(found, official=False, severity=Severity.WARNING if found.severity is Severity.ERROR
                       else found.severity, message=found.message + _STRAY)
    if stray:
        return replace(bench, published=False, findings=tuple(map(unread, bench.findings)),
                       runs=tuple(replace(run, findings=tuple(map(unread, run.findings))) for run in bench.runs),
                       score=replace(bench.score, valid=False, reason=(
                           f"{bench.score.reason}; not a result: copies beside the benchmark folder the official "
                           "tools read (MLC509)")))
    return replace(bench, findings=tuple(map(unread, bench.findings)), score=replace(bench.score, valid=False, reason=(
        f"{bench.score.reason}; its folder is outside results/<system>/<benchmark>/ (MLC509): the round's tools "
        "read no run of it")))


_STRAY = " (a copy beside the benchmark folder the official tools read, which read no copy: MLC509)"


def superseded_by_misplacement(findings: Sequence[Finding], misplaced: Collection[str]) -> list[Finding]:
    """``findings`` without the layout warnings a system folder's misplaced runs would else get
    (the folder without a benchmark folder, each result file a stray file of it): the folder's
    one MLC509 finding (an error; a warning for copies beside the real folder) says what is wrong."""
    return [f for f in findings if not (
        f.code == "MLC509" and f.severity is not Severity.ERROR and os.path.abspath(f.path) in misplaced
        or f.code == "MLC508" and os.path.dirname(os.path.abspath(f.path)) in misplaced
        and SUBMITTED_RESULT_FILE.match(os.path.basename(f.path)))]


def misplaced_benchmarks_left_out(layout: PackageLayout, benchmarks: Collection[str]) -> PackageLayout:
    """``layout`` without what a ``results/<benchmark>/`` folder of result files would else be
    reported as (a system folder without a benchmark folder, each result file a stray file of
    it): the folder's one MLC509 error (:func:`outside_results_findings`) says what is wrong."""
    misplaced = {os.path.dirname(path) for path in layout.stray_result_files
                 if os.path.basename(os.path.dirname(path)) in benchmarks
                 and SUBMITTED_RESULT_FILE.match(os.path.basename(path))}
    if not misplaced:
        return layout
    return replace(layout, stray_result_files=tuple(p for p in layout.stray_result_files
                                                    if os.path.dirname(p) not in misplaced),
                   empty_systems=tuple(p for p in layout.empty_systems if p not in misplaced))


def package_of(folder: str) -> tuple[str, str] | None:
    """``(<org> path, system)`` for ``<org>/results/<system>/<benchmark>``, read from the absolute
    path (``.`` inside a benchmark folder too); the org path spelt as the folder was given."""
    parts = absolute_parts(folder)
    if len(parts) >= 4 and parts[-3] == "results":
        return package_path(folder), parts[-2]
    return None


def _read_folder(org: str, system: str, benchmark: str) -> str | None:
    """The benchmark folder of the package that the official tools read, where there is one: of
    ``system``, or of any system (``SYSTEM``: the result files lie in ``results/`` itself)."""
    results = join_path(org, "results")
    try:
        systems = [system] if system != SYSTEM else sorted(os.listdir(results))
    except OSError:
        return None
    return next((join_path(results, name, benchmark) for name in systems
                 if os.path.isdir(os.path.join(results, name, benchmark))), None)


def _marks(folder: str) -> list[str]:
    return [name for name in PACKAGE_FOLDERS if os.path.isdir(os.path.join(folder, name))]


def _inside(path: str, root: str) -> bool:
    path, root = os.path.abspath(path), os.path.abspath(root)
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
