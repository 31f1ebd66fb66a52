"""Defects a review of the CI outputs found (session 46): waived findings of a code --ignore or
--select leaves out, JUnit's ``file`` on a folder or on standard input, SARIF's notification of
an unopenable path naming its rule, and a GitHub annotation of a stray folder's finding."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

from click.testing import CliRunner

from conftest import FIXTURES
from mlcheck import check
from mlcheck.cli import main

ACME = FIXTURES / "example" / "Acme"
RESNET = Path("results") / "acme-t8" / "resnet"


def _with_stray_folder(tmp_path: Path) -> Path:
    root = tmp_path / "Acme"
    shutil.copytree(ACME, root)
    (root / RESNET / "extra_dir" / "sub").mkdir(parents=True)
    (root / RESNET / "extra_dir" / "sub" / "x.txt").write_text("hi\n")
    return root


def test_an_ignored_or_unselected_code_is_not_listed_as_waived(tmp_path: Path) -> None:
    root = _with_stray_folder(tmp_path)
    (tmp_path / ".mlcheck.toml").write_text('[[waivers]]\ncode = "MLC0"\npath = "Acme/**"\nreason = "x"\n')
    waived = json.loads(CliRunner().invoke(main, ["check", str(root), "-f", "json"]).stdout)["waived"]
    assert "MLC002" in {w["code"] for w in waived}
    for option in (["--ignore", "MLC002"], ["--select", "MLC5"]):
        done = CliRunner().invoke(main, ["check", str(root), "-f", "json", *option])
        assert "MLC002" not in {w["code"] for w in json.loads(done.stdout)["waived"]}


def test_junit_names_no_file_for_a_folder_or_standard_input(tmp_path: Path) -> None:
    root = _with_stray_folder(tmp_path)
    cases = ET.fromstring(CliRunner().invoke(main, ["check", str(root), "-f", "junit"]).stdout).iter("testcase")
    files = {case.get("name"): case.get("file") for case in cases}
    assert files["extra_dir"] is None and files["result_0.txt"] is not None
    bad = (FIXTURES / "bad" / "invalid_json.txt").read_bytes()
    piped = ET.fromstring(CliRunner().invoke(main, ["check", "-", "-f", "junit"], input=bad).stdout)
    assert {case.get("file") for case in piped.iter("testcase")} == {None}


def test_sarif_notes_an_unopenable_path_with_its_rule() -> None:
    from mlcheck.report import ReportOptions
    from mlcheck.report.sarif import sarif_dict

    log = sarif_dict(check([str(ACME)]), ReportOptions(unopenable=("x/result_0.txt",)))
    (note,) = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert "descriptor" not in note and rules[note["associatedRule"]["index"]]["id"] == note["associatedRule"]["id"] \
        == "MLC001"


def test_a_stray_folders_annotation_goes_on_its_benchmark_folders_first_result_file(tmp_path: Path) -> None:
    root = _with_stray_folder(tmp_path)
    out = CliRunner().invoke(main, ["check", str(root), "-f", "github"]).stdout
    (line,) = [line for line in out.splitlines() if "title=MLC508" in line]
    assert line.startswith(f"::warning file={root / RESNET / 'result_0.txt'},title=MLC508 unknown-file::")
