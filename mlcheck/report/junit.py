"""JUnit XML for CI dashboards (GitLab test reports, GitHub test-report actions, Jenkins).

One testsuite per benchmark folder (named by its path; its testcases' ``classname`` is the path
dotted, as Jenkins reads a package and a class: :func:`class_name`); in it one testcase per result
file and one per folder check (the run count and score, the runs compared with each other, the RCP
test), so the document
grows with the files, not with rules x files. A testcase fails when a finding at or above the
fail level concerns it: one ``<failure>`` carries every such finding (``path:line: severity CODE
name: message``, with what a grouped finding covers); it is an ``<error>``, counted in ``errors``,
where the log could not be opened or a rule crashed on it (it was not judged). Findings below the fail level are the
testcase's ``<system-out>``. The benchmark score is a property of the suite. Files outside any
folder, and findings about the package or the configuration, are testcases of a last suite named
``mlcheck``; waived findings are skipped testcases, one per file.

The document is valid against Jenkins xunit's ``junit-10.xsd`` (what pytest's ``xunit2`` family
writes) but for two attributes of a testcase, ``file`` and ``line`` (of its first failing
finding): the GitHub test-report actions place their annotations by them and GitLab shows the
file; consumers that do not know them ignore them.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from typing import Callable, Iterable, Iterator, Sequence

from mlcheck.records import dataclass
from mlcheck.model import Finding
from mlcheck.results import BenchmarkResult, CheckResult, RunResult
from mlcheck.report import ReportOptions, relative_path
from mlcheck.report.plain import printable

_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_ITEMS_SHOWN = 20

FOLDER_CHECKS = (("run count and score", ()), ("runs compared", ("MLC51", "MLC52")), ("RCP test", ("MLC53",)))
"""The folder checks, each a testcase, and the code prefixes it reports (the first takes the rest)."""


def xml_text(text: str) -> str:
    """``text`` without the characters XML 1.0 cannot hold (control characters from bad logs; a
    name's bytes kept as surrogates read as UTF-8 first, :func:`mlcheck.report.plain.printable`)."""
    return _NOT_XML.sub("\ufffd", printable(text))


def _evidence_line(found: Finding, root: str) -> str:
    where = relative_path(found.path, root) + (f":{found.line}" if found.line else "")
    line = f"{where}: {found.severity.label} {found.code} {found.name}: {found.message}"
    extra = "".join(f"\n    - {item}" for item in found.items[:_ITEMS_SHOWN])
    listed = min(len(found.items), _ITEMS_SHOWN)
    if max(found.item_count, len(found.items)) > listed:  # (a count past the reading cap lists none)
        extra += f"\n    - ... {max(found.item_count, len(found.items)) - listed} more"
    return line + extra


def _evidence(found: Iterable[Finding], root: str) -> str:
    return xml_text("\n".join(_evidence_line(f, root) for f in found))


@dataclass(frozen=True)
class _Case:
    """A testcase to write: whether it counts as failed or skipped, and how to make it; ``errored``:
    failed as a test that could not run (a log not opened, a rule that crashed: ``<error>``)."""

    failed: bool
    skipped: bool
    make: Callable[[], ET.Element]
    errored: bool = False


@dataclass(frozen=True)
class _Suite:
    name: str
    properties: dict[str, str]
    cases: list[_Case]

    def counts(self) -> tuple[int, int, int, int]:
        """Tests, failures, errors and skipped."""
        return (len(self.cases), sum(1 for c in self.cases if c.failed and not c.errored),
                sum(1 for c in self.cases if c.errored), sum(1 for c in self.cases if c.skipped))


def _testcase(classname: str, name: str, found: Sequence[Finding], options: ReportOptions,
              file: str | None = None, anchor: bool = False) -> _Case:
    """One testcase: failing findings in its ``<failure>``, the others in its ``<system-out>``; ``anchor``:
    ``file`` is where a folder's findings are shown (its first result file, as SARIF places them), no line."""
    ordered = sorted(found, key=Finding.sort_key)
    failing = [f for f in ordered if f.severity >= options.fail_level]
    errored = any(_not_run(f) for f in failing)

    def make() -> ET.Element:
        case = ET.Element("testcase", classname=xml_text(classname), name=xml_text(name), time="0")
        if file is not None:
            case.set("file", xml_text(file))
        others = [f for f in ordered if f.severity < options.fail_level]
        if failing and failing[0].line is not None and not anchor:
            case.set("line", str(failing[0].line))
        if failing:
            codes = ", ".join(dict.fromkeys(f"{f.code} {f.name}" for f in failing))
            failure = ET.SubElement(case, "error" if errored else "failure", type=failing[0].code,
                                    message=xml_text(f"{len(failing)} finding{'s' if len(failing) != 1 else ''}"
                                                     f" at or above the fail level: {codes}"))
            failure.text = _evidence(failing, options.root)
        if others:
            ET.SubElement(case, "system-out").text = _evidence(others, options.root)
        return case
    return _Case(bool(failing), False, make, errored)


def _not_run(found: Finding) -> bool:
    """A finding that says the log was not judged: it could not be opened (MLC001 about the whole
    file), or a rule crashed on it (MLC000)."""
    return found.code == "MLC000" or (found.code == "MLC001" and found.line is None)


def _files(runs: Iterable[RunResult]) -> dict[str, list[RunResult]]:
    """The runs of each file (a raw log may hold several), in order."""
    by_file: dict[str, list[RunResult]] = {}
    for run in runs:
        by_file.setdefault(run.path, []).append(run)
    return by_file


def _benchmark_properties(bench: BenchmarkResult) -> dict[str, str]:
    score = bench.score
    return {"org": bench.org or "", "system": bench.system or "", "benchmark": bench.benchmark or "",
            "division": bench.division or "", "ruleset": bench.ruleset or "",
            "score_min": "" if score.score_min is None else f"{score.score_min:.2f}",
            "score_valid": "true" if score.valid else "false", "score_reason": score.reason,
            "rcp_verdict": bench.rcp.verdict if bench.rcp else "",
            "rcp_margin_pct": "" if bench.rcp is None or bench.rcp.margin_pct is None
            else f"{bench.rcp.margin_pct:.2f}"}


def _check_of(found: Finding) -> str:
    return next((name for name, prefixes in FOLDER_CHECKS[1:] if found.code.startswith(prefixes)),
                FOLDER_CHECKS[0][0])


def class_name(folder: str) -> str:
    """A testcase's ``classname``: the folder dotted as a Java package and class (Jenkins takes
    what comes before the last ``.`` as the package: ``training-2.0/ORG/results/SYSTEM/dlrm`` would
    be the package ``training-2``), a ``.`` in a name an ``_``; ``mlcheck`` for the current folder."""
    parts = [part.replace(".", "_") for part in folder.split("/") if part not in ("", ".")]
    return ".".join(parts) or "mlcheck"


def _folder_cases(bench: BenchmarkResult, options: ReportOptions, layout: Sequence[Finding] = ()) -> list[_Case]:
    """The folder's testcases; ``layout``: the package findings about the folder or a file in it
    (MLC507, MLC508: a file of its own testcase, the folder's a folder check)."""
    folder = class_name(relative_path(bench.folder or ".", options.root))
    files = _files(bench.runs)
    of_files: dict[str, list[Finding]] = {path: [f for r in runs for f in r.findings] for path, runs in files.items()}
    of_checks: dict[str, list[Finding]] = {name: [] for name, _ in FOLDER_CHECKS}
    for item in bench.findings:  # a folder finding about one file (MLC516) is that file's
        (of_files[item.path] if item.path in of_files else of_checks[_check_of(item)]).append(item)
    for item in layout:
        inside = os.path.normpath(item.path) != os.path.normpath(bench.folder or ".")
        (of_files.setdefault(item.path, []) if inside else of_checks[_check_of(item)]).append(item)
    cases = []
    for path, found in of_files.items():
        shown = relative_path(path, options.root)
        cases.append(_testcase(folder, shown.rsplit("/", 1)[-1], found, options,  # (a folder, stdin: no file)
                               file=shown if path != "-" and os.path.isfile(path) else None))
    compared = bench.rcp is not None  # (the runs are compared, and RCP-tested, with the whole folder)
    first = next((relative_path(path, options.root) for path in files  # (the runs' order: natural, as SARIF's)
                  if path != "-" and os.path.isfile(path)), None)  # (a test report's annotation needs a file)
    for name, checked in of_checks.items():
        if name == FOLDER_CHECKS[0][0] or compared or checked:
            cases.append(_testcase(folder, f"folder: {name}", checked, options, file=first, anchor=True))
    return cases


def _suites(result: CheckResult, options: ReportOptions) -> Iterator[_Suite]:
    in_folders: set[tuple[str, int]] = set()
    folders = {os.path.normpath(b.folder): i for i, b in enumerate(result.benchmarks) if b.folder}
    layout: dict[int, list[Finding]] = {}  # (a package finding about a benchmark folder or a file in it)
    elsewhere: list[Finding] = []
    for item in result.findings:
        at = os.path.normpath(item.path)
        index = folders.get(at, folders.get(os.path.dirname(at)))
        (layout.setdefault(index, []) if index is not None else elsewhere).append(item)
    for i, bench in enumerate(result.benchmarks):
        yield _Suite(relative_path(bench.folder or ".", options.root), _benchmark_properties(bench),
                     _folder_cases(bench, options, layout.get(i, ())))
        in_folders.update((r.path, r.index) for r in bench.runs)
    loose = _files(r for r in result.runs if (r.path, r.index) not in in_folders)
    if loose or elsewhere:
        by_path: dict[str, list[Finding]] = {path: [f for r in runs for f in r.findings] for path, runs in loose.items()}
        for item in elsewhere:
            by_path.setdefault(item.path, []).append(item)
        cases = []
        for path, found in sorted(by_path.items()):
            shown = relative_path(path, options.root)
            cases.append(_testcase("mlcheck", shown, found, options,
                                   file=shown if path != "-" and os.path.isfile(path) else None))
        yield _Suite("mlcheck", {}, cases)
    if result.waived:
        yield _Suite("mlcheck waived", {}, _waived_cases(result, options))


def _waived_cases(result: CheckResult, options: ReportOptions) -> list[_Case]:
    """One skipped testcase per file with waived findings: each with its waiver's reason and place."""
    by_path: dict[str, list[str]] = {}
    reasons: dict[str, list[str]] = {}
    for waived in result.waived:
        found = waived.finding
        expiry = f", expires {waived.expires}" if waived.expires else ""
        by_path.setdefault(found.path, []).append(
            f"{_evidence_line(found, options.root)}\n    waived: {waived.reason} ({waived.waiver}{expiry})")
        reasons.setdefault(found.path, []).append(waived.reason)

    def skipped(path: str, texts: list[str]) -> Callable[[], ET.Element]:
        def make() -> ET.Element:
            shown = relative_path(path, options.root)
            case = ET.Element("testcase", classname="mlcheck waived", name=xml_text(shown), time="0")
            if os.path.isfile(path):  # (a folder's waived findings: no file to annotate)
                case.set("file", xml_text(shown))
            skip = ET.SubElement(case, "skipped", message=xml_text("waived: " + "; ".join(dict.fromkeys(reasons[path]))))
            skip.text = xml_text("\n".join(texts))
            return case
        return make
    return [_Case(False, True, skipped(path, texts)) for path, texts in sorted(by_path.items())]


def junit_blocks(result: CheckResult, options: ReportOptions) -> Iterator[str]:
    """The text of :func:`render_junit`, one testcase at a time: the counts are taken first
    from what each testcase will hold, then each is made, written and let go, so that a report
    of thousands of files is never held as a tree. The text is that of ``ET.indent`` on the
    whole document."""
    suites = list(_suites(result, options))
    totals = [sum(counts) for counts in zip(*(suite.counts() for suite in suites))] or [0, 0, 0, 0]
    yield '<?xml version="1.0" encoding="utf-8"?>\n'
    head = _start_tag("testsuites", "mlcheck", *totals[:3])  # (junit-10.xsd: no skipped count on the root)
    if not suites:
        yield head[:-1] + " />\n"
        return
    yield head
    for suite in suites:
        tag = _start_tag("testsuite", suite.name, *suite.counts())
        children: list[Callable[[], ET.Element]] = [c.make for c in suite.cases]
        if suite.properties:
            children.insert(0, lambda: _properties(suite.properties))
        if not children:
            yield "\n  " + tag[:-1] + " />"
            continue
        yield "\n  " + tag
        for make in children:
            yield "\n    " + _text(make(), 2)
        yield "\n  </testsuite>"
    yield "\n</testsuites>\n"


def _start_tag(tag: str, name: str, tests: int, failures: int, errors: int, skipped: int | None = None) -> str:
    element = ET.Element(tag, name=xml_text(name), tests=str(tests), failures=str(failures), errors=str(errors))
    if skipped is not None:
        element.set("skipped", str(skipped))
    element.set("time", "0")
    text = ET.tostring(element, encoding="unicode", short_empty_elements=False)
    return text[:-len(f"</{tag}>")]


def _properties(properties: dict[str, str]) -> ET.Element:
    holder = ET.Element("properties")
    for key, value in properties.items():
        ET.SubElement(holder, "property", name=key, value=xml_text(value))
    return holder


def _text(element: ET.Element, level: int) -> str:
    """An element as it is written at ``level`` in the indented document (without its tail)."""
    ET.indent(element, level=level)
    return ET.tostring(element, encoding="unicode")


def render_junit(result: CheckResult, options: ReportOptions) -> str:
    """The JUnit XML document."""
    return "".join(junit_blocks(result, options))
