"""Grouped findings (issue 14): one finding per rule and run with the list of what it covers, one
line per rule and folder for what repeats across its runs, the items kept in the JSON report.

The acceptance walk renders the text report of every package of ../shared/other-submitters
(rounds 1.0-5.1) and ../shared/corpus and requires that no two lines of one benchmark folder say
the same thing (rule and message, the place aside); skipped when the shared data is absent.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections import Counter
from pathlib import Path

import jsonschema
import pytest
from rich.console import Console

from mlcheck import check
from mlcheck.judge.grouping import group_findings
from mlcheck.model import MAX_ITEMS, Finding, Severity
from mlcheck.report import ReportOptions
from mlcheck.report.grouped import group_for_display, text_key
from mlcheck.report.json_report import report_dict
from mlcheck.report.text_findings import render_findings
from mlcheck.results import CheckResult

from conftest import CORPUS, ROOT, SHARED

OTHERS = SHARED / "other-submitters"
ROUNDS = tuple(f"training-{r}" for r in ("1.0", "1.1", "2.0", "2.1", "3.0", "3.1", "4.0", "4.1", "5.0", "5.1"))
SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text("utf-8"))
RECORD = ('{{"namespace": "", "time_ms": 1652083200000, "event_type": "POINT_IN_TIME", "key": "{key}", '
          '"value": {value}, "metadata": {{"file": "train.py", "lineno": 1}}}}')
_LINE = re.compile(r"^(?P<place>\S.*?): (?P<severity>error|warning|info) (?P<code>MLC\d{3}) (?P<rest>.*)$")


def _finding(code: str = "MLC107", line: int = 3, severity: Severity = Severity.WARNING,
             official: bool = False, run_index: int | None = 0, message: str = "x is repeated") -> Finding:
    return Finding(code, "key-repeated", severity, message, "a/result_0.txt", line, official, run_index)


def test_one_finding_per_rule_and_run_keeps_every_message_as_an_item() -> None:
    merged = group_findings([_finding(line=3, message="a is repeated"), _finding(line=9, message="b is repeated"),
                             _finding(line=12, message="c is repeated")])
    (only,) = merged
    assert only.line == 3 and only.item_count == 3
    assert only.items == ("line 3: a is repeated", "line 9: b is repeated", "line 12: c is repeated")
    assert "(and 2 more of this rule here, at lines 9, 12)" in only.message


def test_grouping_never_merges_what_a_verdict_tells_apart() -> None:
    kept = group_findings([_finding(severity=Severity.ERROR, official=True), _finding(severity=Severity.ERROR),
                           _finding(run_index=1), _finding()])
    assert len(kept) == 4


def test_required_keys_not_logged_are_one_finding_listing_them(tmp_path: Path) -> None:
    log = tmp_path / "result_0.txt"
    log.write_text(":::MLLOG " + RECORD.format(key="submission_benchmark", value='"resnet"') + "\n")
    result = check([str(log)], ruleset="2.0.0")
    (missing,) = [f for f in result.all_findings() if f.code == "MLC105"]
    assert missing.message.startswith(f"{missing.item_count} required keys are not logged: submission_org, ")
    assert missing.item_count >= 10 and "init_stop (exactly one)" in missing.items
    data = report_dict(result)
    (listed,) = [f for f in data["findings"] if f["code"] == "MLC105"]
    assert listed["items"] == list(missing.items) and listed["item_count"] == missing.item_count
    jsonschema.Draft202012Validator(SCHEMA).validate(data)


def test_items_are_bounded_and_counted() -> None:
    many = [_finding(line=n, message=f"k{n} is repeated") for n in range(1, 200)]
    (only,) = group_findings(many)
    assert len(only.items) == MAX_ITEMS and only.item_count == 199


def test_repeated_keys_of_a_run_are_one_finding(tmp_path: Path) -> None:
    lines = [RECORD.format(key=k, value='"Acme"') for k in ("submission_org", "submission_platform")] * 2
    log = tmp_path / "result_0.txt"
    log.write_text("".join(f":::MLLOG {line}\n" for line in lines))
    (repeated,) = [f for f in check([str(log)], ruleset="2.0.0").all_findings() if f.code == "MLC107"]
    assert repeated.message.startswith("2 keys required once are logged several times")
    assert repeated.line == 3 and repeated.item_count == 2


def test_what_repeats_across_the_runs_of_a_folder_is_one_entry() -> None:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present")
    result = check([str(CORPUS / "training-1.1" / "Graphcore")])
    groups = [g for g in group_for_display(result) if g.first.code == "MLC205"]
    assert len(groups) == 3 and all(g.places == 10 and g.same_text for g in groups)
    assert groups[0].place().endswith("ipu-pod128-POPART-closed/bert (all 10 runs)")


def _packages() -> list[Path]:
    found = [OTHERS / r / org for r in ROUNDS if (OTHERS / r).is_dir() for org in sorted(os.listdir(OTHERS / r))]
    found += [CORPUS / r / "Graphcore" for r in ("training-1.1", "training-2.0")]
    return [p for p in found if p.is_dir()]


def _finding_lines(result: CheckResult) -> list[str]:
    """The lines of the text report's findings section (the run tables above it hold none)."""
    buffer = io.StringIO()
    render_findings(result, Console(file=buffer, width=200, color_system=None), output_format="concise")
    return buffer.getvalue().split("\n")


def test_no_benchmark_folder_repeats_a_message_in_the_text_report() -> None:
    """Acceptance (issue 14): rule and text, the place aside, at most once per benchmark folder."""
    packages = _packages()
    if not packages:
        pytest.skip("../shared/other-submitters and ../shared/corpus are not present")
    repeated: dict[str, int] = {}
    lines_seen = 0
    for package in packages:
        result = check([str(package)])
        folders = sorted((b.folder for b in result.benchmarks if b.folder), key=len, reverse=True)
        seen: Counter[tuple[str, str, str]] = Counter()
        for line in _finding_lines(result):
            match = _LINE.match(line)
            if match is None:
                continue
            lines_seen += 1
            place = match["place"]
            folder = next((f for f in folders if place == f or place.startswith(f + "/") or place.startswith(f + " (")),
                          os.path.dirname(place.split(" (")[0]))
            seen[(folder, match["code"], match["rest"])] += 1
        repeated.update({f"{folder}: {code} {rest[:80]}": n for (folder, code, rest), n in seen.items() if n > 1})
        _junit_and_annotations_fit(result)
    assert len(packages) >= 160 if OTHERS.is_dir() else True  # every package, not a sample
    assert lines_seen > 100
    assert repeated == {}


def _junit_and_annotations_fit(result: CheckResult) -> None:
    """Acceptance (issue 14): at most one JUnit testcase per result file plus one per folder check
    (and one per other place findings are about); every GitHub annotation with file= names a file."""
    import xml.etree.ElementTree as ET
    from mlcheck.report.github import render_github
    from mlcheck.report.junit import FOLDER_CHECKS, render_junit

    files = {r.path for r in result.runs}
    others = {f.path for f in result.findings}
    cases = ET.fromstring(render_junit(result, ReportOptions(root="/"))).iter("testcase")
    assert sum(1 for _ in cases) <= len(files) + len(FOLDER_CHECKS) * len(result.benchmarks) + len(others)
    for line in render_github(result, ReportOptions(root="/")).splitlines():
        match = re.match(r"^::(?:error|warning|notice) file=([^,]*)", line)
        if match:
            assert os.path.isfile("/" + match.group(1).replace("%2C", ",").replace("%3A", ":").replace("%25", "%")), line


def test_text_key_sets_numbers_aside() -> None:
    assert text_key("eval 3 at 449,751 samples (line 12)") == text_key("eval 4 at 300,014 samples (line 9)")
    assert text_key("a is missing") != text_key("b is missing")


def test_sarif_keeps_the_items_and_validates(tmp_path: Path) -> None:
    from mlcheck.report.sarif import sarif_dict
    log = tmp_path / "result_0.txt"
    log.write_text(":::MLLOG " + RECORD.format(key="submission_benchmark", value='"resnet"') + "\n")
    sarif = sarif_dict(check([str(log)], ruleset="2.0.0"), ReportOptions(root=str(tmp_path)))
    (grouped,) = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "MLC105"]
    assert grouped["properties"]["itemCount"] == len(grouped["properties"]["items"]) >= 10
    schema = SHARED / "reference" / "schemas" / "sarif-schema-2.1.0.json"
    if schema.is_file():
        jsonschema.Draft4Validator(json.loads(schema.read_text("utf-8"))).validate(sarif)


def test_the_text_report_does_not_repeat_a_merged_findings_first_line() -> None:
    """The group line already says the first finding; the lines under it are the others."""
    from mlcheck.report.grouped import FindingGroup, context_lines

    merged = group_findings([_finding(line=3, message="a is repeated"), _finding(line=9, message="b is repeated")])
    (only,) = merged
    assert context_lines(FindingGroup((only,), "a", "")) == ["- line 9: b is repeated"]


def test_members_with_one_file_name_are_told_apart_by_their_folder() -> None:
    from mlcheck.report.grouped import FindingGroup, context_lines

    members = tuple(Finding("MLC541", "power-file-misnamed", Severity.WARNING, "move it", f"r/power/result_{i}/x.png",
                            None, False, None) for i in range(2))
    assert context_lines(FindingGroup(members, "r", "")) == ["result_0/x.png, result_1/x.png"]


def test_the_runs_of_one_raw_log_are_placed_in_the_file_with_their_lines(tmp_path: Path) -> None:
    """Three runs of one console: their launcher lines' MLC024 group under the file and each run's
    line (was: under the folder, '. (2 of 3 runs: job.log #1, job.log #2)', with no line)."""
    import subprocess
    import sys
    raw = tmp_path / "job.log"
    subprocess.run([sys.executable, str(ROOT / "tools" / "make_raw.py"), str(ROOT / "fixtures" / "raw" / "base.txt"),
                    "-o", str(raw), "--runs", "3", "--style", "srun"], check=True, capture_output=True)
    result = check([str(raw)], ruleset="2.0.0")
    started = sorted((f.run_index, f.line) for f in result.all_findings() if f.code == "MLC024")
    (group,) = [g for g in group_for_display(result) if g.first.code == "MLC024"]
    assert group.place() == f"{raw} (runs " + ", ".join(f"#{i}:{line}" for i, line in started) + ")"


def test_more_files_than_the_folder_has_runs_are_counted_as_files() -> None:
    """Power logs of a folder of 2 runs, 3 of them: '(3 files: ...)' (was '(3 of 2 runs: ...)')."""
    from mlcheck.report.grouped import FindingGroup

    members = tuple(Finding("MLC543", "power-log-invalid", Severity.WARNING, "x", f"b/power/result_{i}/node_0.txt")
                    for i in (0, 1, 2))
    place = FindingGroup(members, "b", folder_runs=2).place()
    assert place.startswith("b (3 files: result_0/node_0.txt, result_1/node_0.txt, result_2/node_0.txt")


def test_a_file_index_that_differs_is_shown_as_the_files_name() -> None:
    """'seed of .../result_0.txt:1251' and '.../result_1.txt:1251' in a group: each member's line
    names the file (it printed 'seed of .../result_ 0', its '.txt:1251' lost, session 36)."""
    from mlcheck.report.grouped import FindingGroup, context_lines

    members = tuple(Finding("MLC519", "seed-duplicate", Severity.ERROR,
                            f"seed {seed} is also the seed of b/result_{index}.txt:1251; each run needs its own",
                            f"b/result_{index + 2}.txt", 1251) for seed, index in ((25420, 0), (31627, 1)))
    lines = context_lines(FindingGroup(members, "b", folder_runs=4))
    assert [line.strip() for line in lines] == ["result_2.txt:1251: 25420 is also the seed; result_0.txt",
                                                "result_3.txt:1251: 31627 is also the seed; result_1.txt"]
