"""Which benchmark folders' scores a refused system description, or a results folder the result
summarizer stops on, makes not valid.

The round's package checker reads every ``systems/*.json`` of a package (used by a results folder or
not) with its system description checker, and fails the whole package when one is refused; the
result summarizer stops on a description whose counts it cannot read with ``int()``, and writes no
results for the package (a package the checker refuses is not published). So a refused
description (MLC510, MLC511, MLC512, MLC515 errors) makes every score of its package not valid:
its own system's, and the others' (said so). So does a results folder named after no benchmark of
the round (MLC506), on which the summarizer stops (an ``AssertionError`` at its column; a
``FileNotFoundError`` where its compliance checker has no rule file of a retired benchmark) while
the package checker skips it; before 6.0 it reaches that column only with a score of the folder, so
a folder whose runs it drops (more of them fail its compliance checker than it tolerates) or has too
few to score is passed over, the package's other results published: its MLC506 is a warning
(:func:`drops_unknown_folder`). So does a power log the summarizer raises on (MLC543: its energy
computation is outside any ``try``, 3.1-6.1), which the package checker may accept.
"""

from __future__ import annotations

import os
from fnmatch import fnmatchcase
from typing import Iterable

from mlcheck.judge.official_stops import summarizer_stops
from mlcheck.read.json_depth import loads as bounded_loads
from mlcheck.model import Finding, Severity
from mlcheck.results import BenchmarkResult
from mlcheck.rules.benchmark_names import IGNORES, SUMMARIZER_STOPS
from mlcheck.rules.package_layout import UNKNOWN_BENCHMARK_FOLDER
from mlcheck.rules.seeds import version_key

SYSTEM_REFUSED = frozenset({"MLC510", "MLC511", "MLC512", "MLC515"})
"""The system-description rules whose errors the round's package checker or summarizer refuse."""


class SystemRefusals:
    """The refused system descriptions of the checked packages, by path and by package."""

    def __init__(self, findings: Iterable[Finding], benchmarks: Iterable[BenchmarkResult] = ()) -> None:
        benchmarks = list(benchmarks)
        findings = self.findings = _passed_over(list(findings), benchmarks)
        """The package findings, an unknown folder's MLC506 a warning where the summarizer passes it over."""
        self.by_path: dict[str, set[str]] = {}
        self.checker_refuses: set[str] = set()  # (else only the summarizer stops on it: MLC512's int())
        for found in findings:
            if found.severity is Severity.ERROR and found.code in SYSTEM_REFUSED:
                self.by_path.setdefault(os.path.abspath(found.path), set()).add(found.code)
                if found.official or found.code != "MLC512":
                    self.checker_refuses.add(os.path.abspath(found.path))
        self.stopping: dict[str, tuple[str, str]] = {}  # (by package: the first folder the summarizer stops on, why)
        self.own_stop: dict[str, str] = {}  # (a folder the summarizer stops on whose own score does not say so)
        for found in sorted(findings, key=lambda f: f.path):
            if found.severity is Severity.ERROR and found.code == UNKNOWN_BENCHMARK_FOLDER.code \
                    and SUMMARIZER_STOPS in found.message and (package := _package(found.path)):
                self.stopping.setdefault(package, (os.path.abspath(found.path), (
                    f"the result summarizer stops on the folder {found.path} (MLC506) and publishes no result of its "
                    "package (the package checker skips that folder)")))
        for bench in sorted(benchmarks, key=lambda b: b.folder or ""):
            if bench.folder and bench.published and (package := _package(bench.folder)) \
                    and summarizer_stops(bench.runs, bench.ruleset):
                self.stopping.setdefault(package, (os.path.abspath(bench.folder), (
                    f"the official tools stop on the folder {bench.folder} (its score says why): the result summarizer "
                    "publishes no result of its package")))
            elif bench.folder and bench.published and (package := _package(bench.folder)) \
                    and bench.energy is not None and bench.energy.stops_summarizer:  # (an uncaught raise, 3.1+)
                self.stopping.setdefault(package, (os.path.abspath(bench.folder), (
                    f"the result summarizer stops on the power logs of {bench.folder} (MLC543) and publishes no result "
                    "of its package")))
                self.own_stop[os.path.abspath(bench.folder)] = ("the result summarizer stops on its power logs (MLC543) "
                                                                "and publishes no result of its package")
        self.by_package: dict[str, str] = {}  # (the package's first refused description: the checker's first)
        for path in sorted(self.by_path, key=lambda p: (p not in self.checker_refuses, p)):
            folder = os.path.dirname(path)
            package = os.path.dirname(folder)
            # (the summarizer reads the descriptions of the systems of results/ only)
            results = os.path.join(package, "results", os.path.basename(path).removesuffix(".json"))
            if os.path.basename(folder) == "systems" and (path in self.checker_refuses or os.path.isdir(results)):
                self.by_package.setdefault(package, path)

    def reason(self, system_path: str, package: str, folder: str | None = None) -> str | None:
        """Why a benchmark folder of the system described at ``system_path``, in ``package``, has
        no valid score; None when no description of its package is refused."""
        codes = sorted(self.by_path.get(os.path.abspath(system_path), ()))
        if codes and os.path.abspath(system_path) not in self.checker_refuses:
            return f"the result summarizer stops on its system description {system_path} ({', '.join(codes)})"
        if codes:
            return f"its system description {system_path} is {_state(system_path)} ({', '.join(codes)})"
        other = self.by_package.get(os.path.abspath(package))
        if other is None:
            stop, own = self.stopping.get(os.path.abspath(package)), os.path.abspath(folder or "")
            return self.own_stop.get(own) if stop is None or stop[0] == own else stop[1]
        shown, named = os.path.join(package, "systems", os.path.basename(other)), ", ".join(sorted(self.by_path[other]))
        if other in self.checker_refuses:
            return (f"the package checker refuses its package: the system description {shown} is {_state(other)} "
                    f"({named}), and a package it refuses is not published")
        return (f"the result summarizer stops on the system description {shown} ({named}) and publishes no result "
                "of its package (the package checker accepts it)")


def _package(folder: str) -> str | None:
    """The package of ``<org>/results/<system>/<benchmark>`` (None for another folder)."""
    system_folder = os.path.dirname(os.path.abspath(folder))
    return os.path.dirname(os.path.dirname(system_folder)) if os.path.basename(os.path.dirname(system_folder)) == "results" \
        else None


def _state(path: str) -> str:
    return "refused" if os.path.lexists(path) else "missing"


def _passed_over(findings: list[Finding], benchmarks: list[BenchmarkResult]) -> list[Finding]:
    """``findings``, each MLC506 of a folder the result summarizer passes over (:func:`drops_unknown_folder`)
    a warning that says so."""
    by_folder = {os.path.abspath(bench.folder): bench for bench in benchmarks if bench.folder}
    said = []
    for found in findings:
        if found.code != UNKNOWN_BENCHMARK_FOLDER.code:
            said.append(found)
        elif IGNORES in found.message and _scaling_raises(found.path):  # (no result file: read with no run, it raises)
            said.append(UNKNOWN_BENCHMARK_FOLDER.at(found.path, None, found.message.replace(
                f"and the round's result summarizer {IGNORES}", f"and {SUMMARIZER_STOPS} (reading its scaling.json raises); remove it")))
        elif SUMMARIZER_STOPS in found.message and (bench := by_folder.get(os.path.abspath(found.path))) is not None \
                and (dropped := drops_unknown_folder(bench)):
            said.append(UNKNOWN_BENCHMARK_FOLDER.at(found.path, None, found.message.replace(SUMMARIZER_STOPS, dropped),
                                                    severity=Severity.WARNING))
        else:
            said.append(found)
    return said


def drops_unknown_folder(bench: BenchmarkResult) -> str:
    """What the result summarizer of a round before 6.0 does with ``bench``, a folder named after no
    benchmark of the round, when it does not stop on it (``""``: it stops). It reads the folder's
    ``result_*.txt`` with its compliance checker (a raise stops it), drops those the checker fails, reads
    its ``scaling.json`` (a raise stops it: :func:`_scaling_raises`), and computes a score only where it
    drops no more than one (four for unet3d) of more than twice that many files: a score it pushes into a
    column its table does not have (an ``AssertionError``). Else the folder has no score and the
    summarizer goes on (its ``_compute_strong_score_standalone``, 1.0-5.1; from 6.0 it pushes the
    folder's RCP scaling factor, score or not, and stops). From 3.0 a ``power`` folder in it has the
    energy of each run the checker passes computed first, outside any ``try``: taken as a stop where one
    passes (its power logs are not read here)."""
    round_key = version_key(bench.ruleset) or (6, 0, 0)
    if bench.folder is None or round_key >= (6, 0, 0) or summarizer_stops(bench.runs, bench.ruleset) \
            or _scaling_raises(bench.folder):
        return ""
    failing: dict[str, bool] = {}
    for member in bench.runs:
        if fnmatchcase(os.path.basename(member.path), "result_*.txt"):
            failing[member.path] = failing.get(member.path, False) or member.official_verdict == "fail"
    tolerated, failed = 4 if os.path.basename(bench.folder) == "unet3d" else 1, sum(failing.values())
    if failed <= tolerated and len(failing) > 2 * tolerated:
        return ""
    if round_key >= (3, 0, 0) and failed < len(failing) and os.path.isdir(os.path.join(bench.folder, "power")):
        return ""
    why = "more than it may drop" if failed > tolerated else "too few result files to score"
    return (f"the result summarizer computes no score of it (its compliance checker fails {failed} of its {len(failing)} "
            f"result file{'s' if len(failing) != 1 else ''}: {why}) and publishes the package's other results")


def _scaling_raises(folder: str) -> bool:
    """Whether the summarizer's ``_get_scaling_factor`` raises reading the folder's ``scaling.json`` (1.0-5.1:
    ``json.load`` of its text, then ``['scaling_factor']``): not readable as UTF-8 JSON, not an object,
    or no ``scaling_factor`` (a factor that is no number it multiplies in only with a score)."""
    path = os.path.join(folder, "scaling.json")
    if not os.path.isfile(path):
        return False
    try:  # (nested too deeply: refused at mlcheck's own limit, whatever the stack above: json_depth)
        with open(path, encoding="utf-8") as handle:
            data = bounded_loads(handle.read())
    except (OSError, ValueError, RecursionError):
        return True
    if not isinstance(data, dict) or "scaling_factor" not in data:
        return True
    factor = data["scaling_factor"]
    try:  # (its NOTICE line prints the factor: a string with a lone surrogate cannot be written; a list shows it escaped)
        factor.encode("utf-8") if isinstance(factor, str) else None
    except UnicodeEncodeError:
        return True
    return False
