"""JUnit XML for CI dashboards: one testsuite per benchmark folder, one testcase per run and rule.

A testcase fails when its rule reported a finding at or above the fail level on that run; the
failure carries the evidence (path:line and message). The folder's rules (MLC5xx) are testcases of
the folder itself, and the benchmark score is a property of the suite. Files in which no run was
found and findings outside any folder go to a last suite named ``mlcheck``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from typing import Iterable, Sequence

from mlcheck.model import Finding
from mlcheck.results import BenchmarkResult, CheckResult, RunResult
from mlcheck.report import ReportOptions, relative_path
from mlcheck.rules import all_rules
from mlcheck.rule import Rule


def _scope(rule: Rule) -> str:
    if rule.code.startswith("MLC04"):
        return "config"
    return "folder" if rule.code[3] == "5" else "run"


_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """``text`` without the characters XML 1.0 cannot hold (control characters from bad logs)."""
    return _NOT_XML.sub("\ufffd", text)


def _evidence(found: Iterable[Finding], root: str) -> str:
    return xml_text("\n".join(f"{relative_path(f.path, root)}{':' + str(f.line) if f.line else ''}: "
                     f"{f.severity.label} {f.code} {f.name}: {f.message}" for f in found))


def _testcase(suite: ET.Element, classname: str, rule: Rule, found: Sequence[Finding],
              options: ReportOptions, counts: dict[str, int]) -> None:
    case = ET.SubElement(suite, "testcase", classname=classname, name=f"{rule.code} {rule.name}")
    counts["tests"] += 1
    failing = [f for f in found if f.severity >= options.fail_level]
    if failing:
        counts["failures"] += 1
        failure = ET.SubElement(case, "failure", type=rule.code, message=xml_text(failing[0].message))
        failure.text = _evidence(failing, options.root)
    others = [f for f in found if f.severity < options.fail_level]
    if others:
        ET.SubElement(case, "system-out").text = _evidence(others, options.root)


def _run_label(run: RunResult, root: str) -> str:
    path = relative_path(run.path, root)
    return path if run.index == 0 else f"{path}#{run.index}"


def _suite(parent: ET.Element, name: str, properties: dict[str, str]) -> ET.Element:
    suite = ET.SubElement(parent, "testsuite", name=name)
    if properties:
        holder = ET.SubElement(suite, "properties")
        for key, value in properties.items():
            ET.SubElement(holder, "property", name=key, value=xml_text(value))
    return suite


def _by_code(found: Iterable[Finding]) -> dict[str, list[Finding]]:
    grouped: dict[str, list[Finding]] = defaultdict(list)
    for item in found:
        grouped[item.code].append(item)
    return grouped


def _fill_runs(suite: ET.Element, runs: Iterable[RunResult], rules: Sequence[Rule],
               options: ReportOptions, counts: dict[str, int]) -> None:
    for run in runs:
        grouped = _by_code(run.findings)
        for rule in rules:
            _testcase(suite, _run_label(run, options.root), rule, grouped.get(rule.code, []), options, counts)


def _benchmark_properties(bench: BenchmarkResult) -> dict[str, str]:
    score = bench.score
    return {"org": bench.org or "", "system": bench.system or "", "benchmark": bench.benchmark or "",
            "division": bench.division or "", "ruleset": bench.ruleset or "",
            "score_min": "" if score.score_min is None else f"{score.score_min:.2f}",
            "score_valid": "true" if score.valid else "false", "score_reason": score.reason,
            "rcp_verdict": bench.rcp.verdict if bench.rcp else "",
            "rcp_margin_pct": "" if bench.rcp is None or bench.rcp.margin_pct is None
            else f"{bench.rcp.margin_pct:.2f}"}


def render_junit(result: CheckResult, options: ReportOptions) -> str:
    """The JUnit XML document."""
    rules = all_rules()
    run_rules = [r for r in rules if _scope(r) == "run"]
    folder_rules = [r for r in rules if _scope(r) == "folder"]
    root = ET.Element("testsuites", name="mlcheck")
    totals = {"tests": 0, "failures": 0}
    grouped_runs: set[tuple[str, int]] = set()
    for bench in result.benchmarks:
        folder = relative_path(bench.folder or ".", options.root)
        suite = _suite(root, folder, _benchmark_properties(bench))
        counts = {"tests": 0, "failures": 0}
        _fill_runs(suite, bench.runs, run_rules, options, counts)
        by_code = _by_code(bench.findings)
        for rule in folder_rules:
            _testcase(suite, folder, rule, by_code.get(rule.code, []), options, counts)
        _close(suite, counts, totals)
        grouped_runs.update((r.path, r.index) for r in bench.runs)
    loose = [r for r in result.runs if (r.path, r.index) not in grouped_runs]
    if loose or result.findings:
        suite = _suite(root, "mlcheck", {})
        counts = {"tests": 0, "failures": 0}
        _fill_runs(suite, loose, run_rules, options, counts)
        for code, found in sorted(_by_code(result.findings).items()):
            known = next((r for r in rules if r.code == code), None)
            if known is not None:
                _testcase(suite, "mlcheck", known, found, options, counts)
        _close(suite, counts, totals)
    if result.waived:
        _waived_suite(root, result, options, totals)
    root.set("tests", str(totals["tests"]))
    root.set("failures", str(totals["failures"]))
    root.set("errors", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _waived_suite(root: ET.Element, result: CheckResult, options: ReportOptions,
                  totals: dict[str, int]) -> None:
    """One skipped testcase per waived finding, with the waiver's reason and place."""
    suite = _suite(root, "mlcheck waived", {})
    for waived in result.waived:
        found = waived.finding
        case = ET.SubElement(suite, "testcase", classname=relative_path(found.path, options.root),
                             name=f"{found.code} {found.name}")
        skipped = ET.SubElement(case, "skipped", message=xml_text(f"waived: {waived.reason}"))
        expiry = f", expires {waived.expires}" if waived.expires else ""
        skipped.text = xml_text(f"{_evidence([found], options.root)}\nwaiver: {waived.waiver}{expiry}")
    count = len(result.waived)
    _close(suite, {"tests": count, "failures": 0}, totals)
    suite.set("skipped", str(count))


def _close(suite: ET.Element, counts: dict[str, int], totals: dict[str, int]) -> None:
    suite.set("tests", str(counts["tests"]))
    suite.set("failures", str(counts["failures"]))
    suite.set("errors", "0")
    suite.set("skipped", "0")
    for key in totals:
        totals[key] += counts[key]
