"""Package layout (family MLC5xx): ``<org>/{systems,results,benchmarks}``, benchmark folders named
as the round names them, only ``result_<i>.txt`` files in them.

Rules text: policies submission_rules.adoc §Directory structure (training);
``mlperf_logging.benchmark_meta`` (benchmark names and result file counts per round).

- MLC506 unknown-benchmark-folder: ``results/<system>/<name>`` is not a benchmark of the round
  (``resnet50`` instead of ``resnet``). The package checker prints "Skipping benchmark", then SUCCESS;
  the result summarizer stops on it (``AssertionError`` at a score's column; ``FileNotFoundError`` on a
  missing rule file; an empty one from 6.0; ``mask`` it publishes as maskrcnn) and publishes nothing of
  the package: its other scores are not valid; before 6.0 it passes over a folder it does not score
  (more runs failing its compliance checker than it drops, or two or fewer): a warning then. An
  error with the closest valid name, or the rounds of a retired or renamed benchmark (not
  ``official``: the package checker accepts it). Fix: rename the folder, or remove it. A warning
  where the package's round is only assumed (MLC525: no run read, no round in its path).
- MLC507 misnamed-result-file: a benchmark folder holds a log that is not named
  ``result_*.txt``, so the official checker does not count it, one that it counts but is not
  numbered (``result_a.txt``, ``result_1 (1).txt``: no integer after the last ``_``, where the
  package and power checkers read the index), or the ``result_<i>.txt`` indices are not
  0..N-1. A warning: for a file it does not count, the package checker of every round warns too
  ("Unknown files in result directory"); indices outside 0..N-1 (``result_1.txt`` ...
  ``result_10.txt``) no official tool checks, so that one is mlcheck's own advice (a run's
  power logs are found by its index, and readers expect 0..N-1). A count that comes
  out wrong because of a name is MLC502, an error. Fix: rename to ``result_0.txt`` ...
  ``result_<N-1>.txt``.
- MLC508 unknown-file: a file or folder that does not belong in the package (in a benchmark
  folder anything but ``result_*.txt``, ``scaling.json``, ``package_checker_params`` and
  ``power/``; any file directly under ``results/`` or ``results/<system>/``). It would be uploaded
  and published. A warning: the package checker warns and ignores it. The logs of a folder inside
  a benchmark folder are judged one by one, their errors as warnings (no official tool reads them); a package
  inside another's ``results/`` is named. Fix: remove it, or move it to ``results/<system>/<benchmark>/``.
- MLC509 package-layout-incomplete: the package lacks ``results/`` or ``systems/`` (an error the
  round's tools share: every round's package checker lists ``<org>/results/``, case-sensitive, and
  reads ``<org>/systems/<system>.json``), or its ``benchmarks/`` folder lacks ``benchmarks/<benchmark>`` for a benchmark it has results for,
  or a ``results/<system>/`` holds no benchmark folder (warnings). A package without any
  ``benchmarks/`` folder (results only, as in the published results repositories) is accepted.
- MLC502 wrong-run-count (documented in ``mlcheck.rules.package``) is also reported here for a
  benchmark folder that holds no ``result_<i>.txt`` file at all (an empty ``results/<system>/bert/``):
  no run is read from it, so only the layout tells. The official package checker fails it
  ("Incorrect number of files"). Fix: add the result files or remove the folder.

These checks apply to every benchmark folder of a package, whichever folder was named on the
command line (the package, ``results/``, ``results/<system>/`` or the benchmark folder itself):
for a folder inside a package mlcheck finds the package upwards and checks that folder and the
system description of its system, as checking the whole package does. Only what concerns the
package as a whole (its missing ``results/`` or ``systems/``) needs the package named.

MLC509 also reports, at the folder, result files in ``<org>/<system>/<benchmark>/``, ``<org>/results/<benchmark>/``,
``<org>/<benchmark>/``, ``<org>/results/<system>/`` or ``<org>/results/`` when ``<org>`` is a package or the logs'
``submission_org`` (``mlcheck.judge.outside_results``): the official checker finds no result there (its
score is not valid; copies beside the benchmark folder it reads: a warning, no result). Fix: move them to
``<org>/results/<system>/<benchmark>/``. A missing ``benchmarks/<benchmark>`` is reported at that folder.
"""

from __future__ import annotations

import os
import re
from typing import Collection, Mapping

from mlcheck.read.file_names import SUBMITTED_RESULT_FILE
from mlcheck.model import Finding, Severity
from mlcheck.package.discover import NOT_LOG_FOLDERS
from mlcheck.package.layout import PackageLayout
from mlcheck.rule import Rule
from mlcheck.rules.benchmark_names import folder_advice, what_tools_do
from mlcheck.rules.package import WRONG_RUN_COUNT

UNKNOWN_BENCHMARK_FOLDER = Rule("MLC506", "unknown-benchmark-folder", Severity.ERROR,
                                "a results folder is not named after a benchmark of the round", also=(Severity.WARNING,))
MISNAMED_RESULT_FILE = Rule("MLC507", "misnamed-result-file", Severity.WARNING,
                            "a log in a benchmark folder is not named result_<i>.txt (i = 0..N-1)")
UNKNOWN_FILE = Rule("MLC508", "unknown-file", Severity.WARNING, "a file that does not belong in the package")
LAYOUT_INCOMPLETE = Rule("MLC509", "package-layout-incomplete", Severity.ERROR, "the package lacks results/, "
                         "systems/ or benchmarks/<benchmark>", also=(Severity.WARNING,), official_cases=True)

RULES = (UNKNOWN_BENCHMARK_FOLDER, MISNAMED_RESULT_FILE, UNKNOWN_FILE, LAYOUT_INCOMPLETE)
NESTED_FOLDER = ("unexpected folder in a benchmark folder: the official checker ignores it (its logs are judged "
                 "one by one, not as a benchmark result); remove it or move it to results/<system>/<benchmark>/")

_ALLOWED = frozenset({"scaling.json", "package_checker_params"})
_REFUSED = {"results": " (the package checker and the results summarizer list <org>/results/ and crash "
                       "without it; the name is case-sensitive)",
            "systems": " (the package checker reads <org>/systems/<system>.json for each system it checks)"}
"""Why the round's tools refuse a package without the folder (each round's package checker)."""
_FILE, _LOG_LIKE = ("", " (something else of that name)"), re.compile(r"\.(txt|log|out)(\.gz)?$")


def check_layout(layout: PackageLayout, ruleset: str, run_counts: Mapping[str, int],
                 whole_package: bool = True, accepted: Collection[str] | None = None) -> list[Finding]:
    """Findings about the layout of one package, or of the part of it ``layout`` lists
    (``whole_package`` False: not the package's own top level); ``run_counts`` maps the round's
    benchmarks to N."""
    found: list[Finding] = []
    for needed in ("results", "systems") if whole_package else ():
        if not layout.has_folder(needed):
            found.append(LAYOUT_INCOMPLETE.at(layout.root, None, f"the package has no {needed}/ folder"
                                              f"{_FILE[layout.has(needed)]}; expected <org>/{{systems,results,benchmarks}}"
                                              + _REFUSED[needed], official=True))
    for path in layout.stray_result_files:
        where = ("systems/ holds <system>.json files, the only ones the official tools read there" if
                 os.path.basename(os.path.dirname(path)) == "systems" else "files belong in results/<system>/<benchmark>/")
        found.append(UNKNOWN_FILE.at(path, None, f"{where}; remove this one or move it"))
    found.extend(LAYOUT_INCOMPLETE.at(path, None, "a system folder without a benchmark folder: nothing in it is "
                                      "checked or scored (the package checker skips it; the result summarizer lists the "
                                      "system with no score); add its results or remove it", severity=Severity.WARNING)
                 for path in layout.empty_systems)
    missing_impl: set[str] = set()
    for folder in layout.benchmark_folders:
        if folder.name not in run_counts:
            known = run_counts if accepted is None else accepted
            advice = folder_advice(folder.name, ruleset, known, {other.name for other in layout.benchmark_folders
                                                                 if other.system == folder.system})
            said, refused = what_tools_do(folder.name, ruleset, known, any(map(SUBMITTED_RESULT_FILE.match, folder.files)))
            found.append(UNKNOWN_BENCHMARK_FOLDER.at(folder.path, None, (
                f"{folder.name!r} is not a benchmark of training {ruleset} (valid: "
                f"{', '.join(sorted(known))}){advice}. {said}"), severity=None if refused else Severity.WARNING))
            continue
        if not folder.listed:  # what it holds is unknown (reported as unreadable: MLC001)
            continue
        if layout.has("benchmarks") and folder.name not in layout.implementations:
            missing_impl.add(folder.name)
        found.extend(_folder_files(folder.path, folder.files, folder.folders, run_counts[folder.name]))
        if not any(SUBMITTED_RESULT_FILE.match(name) for name in (*folder.files, *folder.folders)):  # (a folder: 1 run)
            found.append(WRONG_RUN_COUNT.at(folder.path, None, (
                f"the {folder.name} folder holds no result_<i>.txt file; training {ruleset} {folder.name} requires "
                f"{run_counts[folder.name]} result files (in the closed division the package checker's RCP checker "
                "raises on it, KeyError, and no folder after it is checked). Add them or remove the folder")))
    for name in sorted(missing_impl):
        missing = os.path.normpath(os.path.join(layout.root, "benchmarks", name))
        found.append(LAYOUT_INCOMPLETE.at(missing, None, (
            f"no benchmarks/{name}/ with the implementation of {name}, for which the package has "
            "results"), severity=Severity.WARNING))
    return found


def _folder_files(path: str, files: tuple[str, ...], folders: tuple[str, ...], expected: int) -> list[Finding]:
    found: list[Finding] = []
    indices: list[int] = []
    for name in files:
        where = os.path.normpath(os.path.join(path, name))
        if SUBMITTED_RESULT_FILE.match(name):
            _numbered(name, where, indices, found)
        elif name in _ALLOWED:
            continue
        elif SUBMITTED_RESULT_FILE.match(name.lower()):  # (Result_4.TXT: the official glob is case-sensitive)
            taken = f" ({name.lower()} exists: remove one of the two)" if name.lower() in files else ""
            found.append(MISNAMED_RESULT_FILE.at(where, None, (
                f"{name!r} is not named result_<i>.txt (lower case): the official checker ignores it. "
                f"If it is a run of the folder, rename it {name.lower()!r}{taken}; else remove it")))
        elif _LOG_LIKE.search(name) or name.lower().startswith("result"):
            found.append(MISNAMED_RESULT_FILE.at(where, None, (
                f"{name!r} is not named result_<i>.txt: the official checker ignores it, but it would be "
                "published. If it holds a run of this folder, rename it result_<i>.txt with an index not taken; "
                "else (checker output, notes) remove it")))
        else:
            found.append(UNKNOWN_FILE.at(where, None, (
                "a benchmark folder holds only result_<i>.txt files (and scaling.json, "
                "package_checker_params, power/); remove it")))
    for name in folders:
        if SUBMITTED_RESULT_FILE.match(name):  # (a run of the folder for the official glob: its MLC001 says why)
            _numbered(name, os.path.normpath(os.path.join(path, name)), indices, found)
            continue
        if name.lower() in NOT_LOG_FOLDERS and name != "power":  # (not walked by discovery either)
            found.append(UNKNOWN_FILE.at(os.path.normpath(os.path.join(path, name)), None, (
                f"unexpected folder in a benchmark folder: the official tools read only power/ (lower "
                f"case) and ignore {name}/, and so does mlcheck; rename it power/ if it holds the "
                "power logs")))
        elif name != "power":
            found.append(UNKNOWN_FILE.at(os.path.normpath(os.path.join(path, name)), None, NESTED_FOLDER))
    wrong = sorted(set(indices) - set(range(expected)))
    if wrong:
        found.append(MISNAMED_RESULT_FILE.at(path, None, (
            f"result file indices {', '.join(map(str, wrong))} fall outside 0..{expected - 1} for a "
            f"benchmark of {expected} runs; rename the files result_0.txt ... "
            f"result_{expected - 1}.txt"), severity=Severity.WARNING))
    return found


def _numbered(name: str, where: str, indices: list[int], found: list[Finding]) -> None:
    """``result_<i>.txt`` (a file, or a folder the official glob counts too): its index added to
    ``indices``; a name counted as a run but not numbered, MLC507."""
    label = SUBMITTED_RESULT_FILE.match(name)
    if label is None:
        return
    if label.group(1).isdecimal():  # result_<i>.txt (other names are counted, not numbered)
        indices.append(int(label.group(1)))
    elif not label.group(1).rsplit("_", 1)[-1].isdecimal():  # (the tools' index: after the last _)
        found.append(MISNAMED_RESULT_FILE.at(where, None, (
            f"{name!r} is counted as a run (the official tools read every result_*.txt) but "
            "not numbered: rename it result_<i>.txt, i from 0")))


def outside_results(folder: str, expected: str, why: str) -> Finding:
    """A benchmark folder of a package that is not under ``results/`` (``expected``: where it
    belongs; ``why``: what makes its grandparent a package)."""
    return LAYOUT_INCOMPLETE.at(folder, None, (
        f"result files outside results/<system>/<benchmark>/ ({why}): the official checker reads only "
        f"<org>/results/<system>/<benchmark>/ and finds no run here. Move them to {expected}/"))
