"""Every report format: golden files on the shared Graphcore packages, SARIF against the OASIS
schema, JUnit parsed back, GitHub annotation escaping, Markdown, the reporter registry.

Regenerate the goldens after an intended change with
``MLCHECK_UPDATE_GOLDENS=1 pytest tests/test_reporters.py`` and review the diff.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Iterator

import jsonschema
import pytest

from mlcheck import check
from mlcheck.model import Finding, Severity
from mlcheck.results import CheckResult, WaivedFinding
from mlcheck.report import REPORTERS, ReportOptions, render, resolve_format
from mlcheck.report.github import annotation, escape_data, escape_property, render_github
from mlcheck.report.junit import render_junit
from mlcheck.report.markdown import render_markdown
from mlcheck.report.sarif import render_sarif

from conftest import SHARED

GOLDEN = Path(__file__).parent / "golden"
SARIF_SCHEMA = SHARED / "reference" / "schemas" / "sarif-schema-2.1.0.json"
ROUNDS = {"training-1.1": "1.1.0", "training-2.0": "2.0.0"}
EXTENSIONS = {"text": "txt", "json": "json", "sarif": "sarif", "junit": "xml", "github": "txt",
              "markdown": "md", "html": "html"}
_CACHE: dict[str, dict[str, str]] = {}


def _in_folder(folder: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def rendered_package(corpus: Path, round_name: str) -> dict[str, str]:
    """Every format of one package, rendered with paths relative to the round folder."""
    if round_name not in _CACHE:
        for _ in _in_folder(corpus / round_name):
            result = check(["Graphcore"], ruleset=ROUNDS[round_name])
            from mlcheck.settings.gate import input_digests
            options = ReportOptions(input_digests=input_digests(result))
            _CACHE[round_name] = {name: render(name, result, options) for name in REPORTERS}
    return _CACHE[round_name]


@pytest.mark.parametrize("round_name", sorted(ROUNDS))
@pytest.mark.parametrize("fmt", sorted(EXTENSIONS))
def test_golden(corpus: Path, round_name: str, fmt: str) -> None:
    output = rendered_package(corpus, round_name)[fmt]
    golden = GOLDEN / round_name / f"report.{EXTENSIONS[fmt]}" if fmt != "github" else \
        GOLDEN / round_name / "annotations.txt"
    if os.environ.get("MLCHECK_UPDATE_GOLDENS") == "1":
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(output, encoding="utf-8")
    assert golden.is_file(), f"missing golden {golden}; run with MLCHECK_UPDATE_GOLDENS=1"
    assert output == golden.read_text(encoding="utf-8")
    assert "/work/" not in output and str(corpus) not in output  # path-independent


@pytest.mark.parametrize("round_name", sorted(ROUNDS))
def test_sarif_validates_against_oasis_schema(corpus: Path, round_name: str) -> None:
    if not SARIF_SCHEMA.is_file():
        pytest.skip("SARIF schema not present")
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    sarif = json.loads(rendered_package(corpus, round_name)["sarif"])
    jsonschema.Draft4Validator(schema).validate(sarif)
    run = sarif["runs"][0]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert "MLC301" in rule_ids and len(rule_ids) == len(set(rule_ids))
    # The non-converged runs are tolerated by their folders' scores: warnings of the package.
    not_reached = [r for r in run["results"] if r["ruleId"] == "MLC301"]
    assert len(not_reached) == (4 if round_name == "training-1.1" else 1)
    assert {r["level"] for r in not_reached} == {"warning"}
    first = not_reached[0]
    location = first["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].startswith("Graphcore/results/")
    assert location["region"]["startLine"] > 1
    assert run["tool"]["driver"]["rules"][first["ruleIndex"]]["id"] == "MLC301"
    prints = [r["partialFingerprints"]["mlcheck/v1"] for r in run["results"]]
    assert len(prints) == len(set(prints))


def test_sarif_fingerprint_is_stable_when_lines_move() -> None:
    from mlcheck.report.sarif import fingerprint
    a = Finding("MLC301", "target-not-reached", Severity.ERROR, "best 0.75 (line 10)", "a.txt", 12)
    b = Finding("MLC301", "target-not-reached", Severity.ERROR, "best 0.75 (line 14)", "a.txt", 16)
    assert fingerprint(a, "a.txt") == fingerprint(b, "a.txt")
    assert fingerprint(a, "a.txt") != fingerprint(a, "b.txt")


def test_sarif_lists_waived_finding_as_suppressed() -> None:
    found = Finding("MLC301", "target-not-reached", Severity.ERROR, "not reached", "r/result_0.txt", 7)
    result = CheckResult((), (), (), waived=(WaivedFinding(found, "known seed issue", "cfg.toml:3"),))
    sarif = json.loads(render_sarif(result, ReportOptions()))
    if SARIF_SCHEMA.is_file():
        jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))).validate(sarif)
    (only,) = sarif["runs"][0]["results"]
    assert only["suppressions"] == [{"kind": "external", "status": "accepted",
                                     "justification": "known seed issue"}]
    assert sarif["runs"][0]["invocations"][0]["properties"]["verdict"] == "pass"


def check_junit_structure(tree: ET.Element) -> None:
    """What GitLab's test reports and GitHub's test-report actions read (the Jenkins/Ant JUnit
    shape, valid against Jenkins xunit's junit-10.xsd but for a testcase's file and line):
    testsuites (name, tests, failures, errors, time) > testsuite (name, tests, failures, errors,
    skipped, time) > testcase (classname, name, time; optional file and line) holding at most one
    failure or skipped (with a message), then system-out; counts that add up."""
    assert tree.tag == "testsuites"
    total = {"tests": 0, "failures": 0, "skipped": 0}
    for suite in tree:
        assert suite.tag == "testsuite" and suite.get("name")
        cases = suite.findall("testcase")
        assert [child.tag for child in suite] == (["properties"] if suite.find("properties") is not None else []) + ["testcase"] * len(cases)
        for case in cases:
            assert case.get("classname") and case.get("name") and case.get("time") == "0"
            tags = [child.tag for child in case]
            assert tags in ([], ["failure"], ["skipped"], ["system-out"], ["failure", "system-out"]), tags
            assert set(case.attrib) <= {"classname", "name", "time", "file", "line"}
            for verdict in ("failure", "skipped"):
                element = case.find(verdict)
                assert element is None or (element.get("message") and element.text)
            if case.get("line") is not None:
                assert int(case.get("line", "0")) >= 1 and case.get("file")
        counted = {"tests": len(cases), "failures": sum(c.find("failure") is not None for c in cases),
                   "skipped": sum(c.find("skipped") is not None for c in cases)}
        assert {k: int(suite.get(k, "-1")) for k in counted} == counted and suite.get("errors") == "0"
        for key in total:
            total[key] += counted[key]
    assert {k: int(tree.get(k, "-1")) for k in total if k != "skipped"} == {k: v for k, v in total.items() if k != "skipped"}
    assert set(tree.attrib) == {"name", "tests", "failures", "errors", "time"}


@pytest.mark.parametrize("round_name", sorted(ROUNDS))
def test_junit_has_one_suite_per_folder_and_a_testcase_per_file(corpus: Path, round_name: str) -> None:
    text = rendered_package(corpus, round_name)["junit"]
    tree = ET.fromstring(text)
    check_junit_structure(tree)
    suites = tree.findall("testsuite")
    folders = sorted(p.relative_to(corpus / round_name).as_posix()
                     for p in (corpus / round_name / "Graphcore" / "results").glob("*/*") if p.is_dir())
    # one suite per benchmark folder, plus "mlcheck" for package-level findings when there are some
    assert sorted(s.get("name") for s in suites if s.get("name") != "mlcheck") == folders
    files = sorted(str(p.relative_to(corpus / round_name).as_posix())
                   for p in (corpus / round_name / "Graphcore" / "results").glob("*/*/result_*.txt"))
    cases = [case for suite in suites if suite.get("name") != "mlcheck" for case in suite.iter("testcase")]
    file_cases = [c for c in cases if not c.get("name").startswith("folder: ")]
    assert sorted(c.get("file") for c in file_cases) == files  # one testcase per result file
    folder_cases = [c for c in cases if c.get("name").startswith("folder: ")]
    # (a folder's checks name its first result file, where a test report's annotation can be: no line)
    assert all(c.get("file", "").endswith("/result_0.txt") and c.get("line") is None for c in folder_cases)
    assert len(folder_cases) <= 3 * len(folders)  # plus one per folder check
    assert {c.get("name") for c in folder_cases} <= {"folder: run count and score", "folder: runs compared",
                                                     "folder: RCP test"}
    # The non-converged runs are tolerated by their folders' scores: warnings, not failures,
    # in the output of their file's testcase.
    not_reached = [c for c in cases if "warning MLC301" in (c.findtext("system-out") or "")]
    assert len(not_reached) == (4 if round_name == "training-1.1" else 1)
    assert all(c.find("failure") is None and c.find("properties") is None for c in not_reached)
    rcp_failures = [c for c in folder_cases if c.get("name") == "folder: RCP test" and c.find("failure") is not None]
    assert rcp_failures and all("MLC530" in (c.findtext("failure") or "") for c in rcp_failures)
    props = {p.get("name"): p.get("value") for p in suites[0].findall("properties/property")}
    assert props["score_valid"] in ("true", "false") and float(props["score_min"] or "nan") > 0
    # The size grows with the files (one testcase each), not with rules x files (was 772 KB).
    assert len(text) < 1500 * (len(files) + len(folder_cases))


def test_junit_score_property_and_strict_failures() -> None:
    found = Finding("MLC402", "init-time-over-rules-limit", Severity.WARNING, "init 22 min\x07", "x/r.txt", 3)
    result = CheckResult((), (), (found,))
    lenient = ET.fromstring(render_junit(result, ReportOptions()))
    strict = ET.fromstring(render_junit(result, ReportOptions(fail_level=Severity.WARNING)))
    assert lenient.get("failures") == "0" and strict.get("failures") == "1"
    assert "\ufffd" in ET.tostring(strict, encoding="unicode")  # control characters replaced, XML valid


HOSTILE = "50% done\r\nnext: a,b::error file=x::pwned"


def test_github_escaping_of_hostile_message_and_path() -> None:
    assert escape_data(HOSTILE) == "50%25 done%0D%0Anext: a,b::error file=x::pwned"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    found = Finding("MLC003", "invalid-json", Severity.ERROR, HOSTILE, "dir,1/we:ird%.txt", 9)
    line = annotation(found, found.path)
    assert line == ("::error file=dir%2C1/we%3Aird%25.txt,line=9,title=MLC003 invalid-json::"
                    "50%25 done%0D%0Anext: a,b::error file=x::pwned")
    assert "\n" not in line and "\r" not in line


def test_github_groups_per_file_errors_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # annotations name files that exist
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text("")
    findings = (
        Finding("MLC402", "init-time-over-rules-limit", Severity.WARNING, "w", "a.txt", 5),
        Finding("MLC303", "run-aborted", Severity.INFO, "i", "b.txt", 2),
        Finding("MLC301", "target-not-reached", Severity.ERROR, "e", "b.txt", 9),
    )
    text = render_github(CheckResult((), (), findings), ReportOptions())
    lines = text.splitlines()
    assert lines[:4] == ["::group::b.txt", "::error file=b.txt,line=9,title=MLC301 target-not-reached::e",
                         "::notice file=b.txt,line=2,title=MLC303 run-aborted::i", "::endgroup::"]
    assert lines[4] == "::group::a.txt" and lines[5].startswith("::warning file=a.txt,line=5,")


def test_markdown_escapes_table_cells_and_lists_waived() -> None:
    found = Finding("MLC301", "target-not-reached", Severity.ERROR, "a | b <script>", "r.txt", 4)
    waived = WaivedFinding(Finding("MLC502", "wrong-run-count", Severity.ERROR, "4 runs", "f", None),
                           "committee | approved", "pyproject.toml:12", "2030-01-01")
    text = render_markdown(CheckResult((), (), (found,), waived=(waived,)), ReportOptions())
    assert "❌ **mlcheck: fail**" in text and "**MLC301 target-not-reached**" in text
    assert "a \\| b &lt;script&gt;" in text and "<script>" not in text
    assert "| MLC502 | `f` | committee \\| approved | `pyproject.toml:12` | 2030-01-01 |" in text


def test_format_auto_follows_github_actions() -> None:
    assert resolve_format("auto", {"GITHUB_ACTIONS": "true"}) == "github"
    assert resolve_format("auto", {}) == "text"
    assert resolve_format("sarif", {"GITHUB_ACTIONS": "true"}) == "sarif"


# --- the CLI's output options -------------------------------------------------------------------

def _invoke(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    from click.testing import CliRunner

    from mlcheck.cli import main
    before = os.getcwd()
    os.chdir(cwd)
    try:
        done = CliRunner().invoke(main, args, env={"GITHUB_ACTIONS": "", "NO_COLOR": "", **(env or {})})
    finally:
        os.chdir(before)
    return done.exit_code, done.stdout, done.stderr


@pytest.fixture
def project(tmp_path: Path) -> Path:
    from test_config import make_log
    folder = tmp_path / "Acme" / "results" / "t8" / "resnet"
    folder.mkdir(parents=True)
    for index in range(5):
        # two runs without run_stop: more than the folder tolerates, so the package fails
        (folder / f"result_{index}.txt").write_text(make_log(index, stop=index not in (2, 3)), encoding="utf-8")
    return tmp_path


def test_several_outputs_in_one_run(project: Path) -> None:
    code, out, err = _invoke(["check", "Acme", "-f", "json", "-o", "sarif:out/m.sarif", "-o", "junit:out/j.xml",
                              "-o", "markdown:out/s.md", "-o", "github:out/a.txt", "-o", "html:out/r.html",
                              "-o", "text:out/r.txt"], project)
    assert code == 1 and json.loads(out)["summary"]["verdict"] == "fail"
    assert err.startswith("mlcheck: 5 runs")
    sarif = json.loads((project / "out" / "m.sarif").read_text(encoding="utf-8"))
    assert any(r["ruleId"] == "MLC102" and r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
               == "Acme/results/t8/resnet/result_2.txt" for r in sarif["runs"][0]["results"])
    suites = ET.parse(project / "out" / "j.xml").getroot().findall("testsuite")
    assert [s.get("name") for s in suites if s.get("name") != "mlcheck"] == ["Acme/results/t8/resnet"]
    assert "MLC102" in (project / "out" / "s.md").read_text(encoding="utf-8")
    assert "::error file=Acme/results/t8/resnet/result_2.txt,line=" in (project / "out" / "a.txt").read_text()
    assert (project / "out" / "r.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert "MLC102" in (project / "out" / "r.txt").read_text(encoding="utf-8")


def test_bad_output_spec_is_a_usage_error(project: Path) -> None:
    code, _, err = _invoke(["check", "Acme", "-o", "pdf:x.pdf"], project)
    assert code == 2 and "FORMAT:PATH" in err


def test_format_auto_prints_annotations_inside_github_actions(project: Path) -> None:
    code, out, _ = _invoke(["check", "Acme"], project, {"GITHUB_ACTIONS": "true"})
    assert code == 1 and out.startswith("::group::") and "::error file=" in out


def test_color_option_and_no_color(project: Path) -> None:
    assert "\x1b[" in _invoke(["check", "Acme", "--color", "always"], project)[1]
    assert "\x1b[" in _invoke(["check", "Acme", "--color", "always"], project, {"NO_COLOR": "1"})[1]
    assert "\x1b[" not in _invoke(["check", "Acme", "--color", "never"], project)[1]
    assert "\x1b[" not in _invoke(["check", "Acme"], project, {"NO_COLOR": "1"})[1]


def test_strict_quiet_and_whole_folder(project: Path) -> None:
    one_file = "Acme/results/t8/resnet/result_0.txt"
    assert _invoke(["check", one_file, "-f", "json"], project)[0] == 0
    code, out, _ = _invoke(["check", one_file, "--whole-folder", "-f", "json"], project)
    assert code == 1 and json.loads(out)["summary"]["runs"] == 5
    code, out, _ = _invoke(["check", "Acme", "-q", "--color", "never"], project)
    assert code == 1 and "MLC102" in out and "info " not in out


def test_report_command_writes_html(project: Path) -> None:
    code, out, err = _invoke(["report", "Acme", "-o", "report.html"], project)
    page = (project / "report.html").read_text(encoding="utf-8")
    assert code == 1 and out == "" and "report written to report.html" in err
    assert 'class="banner fail"' in page and "MLC102" in page and page.count('class="curve"') == 5
    assert "Acme/results/t8/resnet/result_0.txt" in page  # input hashes at the bottom
    assert _invoke(["report", "Acme", "-o", "r2.html", "--exit-zero"], project)[0] == 0


def test_pre_commit_hooks_and_action_are_wired_to_real_options() -> None:
    import yaml
    from click.testing import CliRunner

    from mlcheck.cli import main
    root = Path(__file__).resolve().parent.parent
    hooks = {h["id"]: h for h in yaml.safe_load((root / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
    assert set(hooks) == {"mlcheck-results", "mlcheck-package"}
    assert hooks["mlcheck-results"]["pass_filenames"] is True and hooks["mlcheck-package"]["always_run"] is True
    help_text = CliRunner().invoke(main, ["check", "--help"]).output
    for hook in hooks.values():
        for option in hook["entry"].split()[2:]:
            if option.startswith("--"):
                assert option in help_text
    action = yaml.safe_load((root / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    steps = " ".join(str(step) for step in action["runs"]["steps"])
    assert "upload-sarif" in steps and "GITHUB_STEP_SUMMARY" in steps and "--format github" in steps


def test_junit_classnames_read_as_a_package_and_a_class() -> None:
    """Jenkins takes what comes before a classname's last '.' as its package: the folder's path
    is dotted, the dots of its names made '_' (was: 'training-2.0/ORG/...' read as the package
    'training-2'; a review, session 43); the current folder is the suite 'mlcheck'."""
    from mlcheck.report.junit import class_name

    assert class_name("tree/training-2.0/Acme/results/pod.16/dlrm") == "tree.training-2_0.Acme.results.pod_16.dlrm"
    assert class_name(".") == class_name("") == "mlcheck"
