"""The small warts of issue 14: counts in the singular ("1 finding"), ``-v`` naming where the
ruleset was set, MLC516 leaving a free-text platform alone, a forced ruleset that contradicts the run's date
(MLC019), a run newer than the newest known round (MLC018 says so), an unknown code in a waiver
(MLC041), and a record that lost its rank tag when a ``\\r`` became a line end."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from click.testing import CliRunner

from mlcheck import check
from mlcheck.checker import check_log
from mlcheck.cli import main
from mlcheck.package.discover import LogRef
from mlcheck.report.plain import summary_line

from conftest import FIXTURES
from tool_scripts import load_tool

EXAMPLE = FIXTURES / "example" / "Acme"
RESULT = EXAMPLE / "results" / "acme-t8" / "resnet" / "result_0.txt"
make_raw = load_tool("make_raw")


def _cli(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    before = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, args, env={"GITHUB_ACTIONS": "", **(env or {})})
    finally:
        os.chdir(before)
    return result.exit_code, result.stdout, result.stderr


def _package(tmp_path: Path) -> Path:
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    return package


def test_counts_are_singular_when_there_is_one(tmp_path: Path) -> None:
    log = tmp_path / "result_0.txt"
    log.write_text(RESULT.read_text("utf-8").replace('"status": "success"', '"status": "aborted"'), "utf-8")
    line = summary_line(check([str(log)]))
    assert "1 run (1 failing)" in line and "1 error" in line and "1 errors" not in line
    (tmp_path / ".mlcheck.toml").write_text('[[waivers]]\ncode = "MLC302"\npath = "*.txt"\nreason = "known"\n')
    _code, _out, err = _cli(["check", "result_0.txt", "-v", "--no-progress"], tmp_path)
    assert "mlcheck: 1 waiver, 1 finding waived" in err
    assert "for 1 run (first:" in err


def test_verbose_names_where_the_ruleset_was_set(tmp_path: Path) -> None:
    package = _package(tmp_path)
    (tmp_path / ".mlcheck.toml").write_text('ruleset = "2.0.0"\n', encoding="utf-8")
    _code, out, err = _cli(["check", "Acme", "-v", "--no-progress", "-f", "json"], tmp_path)
    assert "round 2.0.0 for 5 runs (first: ruleset in .mlcheck.toml)" in err
    assert {r["ruleset_source"] for r in json.loads(out)["runs"]} == {"ruleset in .mlcheck.toml"}
    _code, _out, err = _cli(["check", "Acme", "-v", "--no-progress"], tmp_path, {"MLCHECK_RULESET": "2.0.0"})
    assert "(first: MLCHECK_RULESET)" in err
    _code, _out, err = _cli(["check", "Acme", "-v", "--no-progress", "--ruleset", "2.0.0"], tmp_path)
    assert "(first: --ruleset)" in err
    assert package.is_dir()


def test_a_free_text_platform_unlike_the_folder_and_system_name_is_not_reported(tmp_path: Path) -> None:
    """submission_platform is free text ('1xNVIDIA DGX A100' in dgxa100_ngc21.05_tensorflow/): no
    tool compares it with the folder or system_name, and half of the published runs would differ."""
    package = _package(tmp_path)
    log = package / "results" / "acme-t8" / "resnet" / "result_0.txt"
    log.write_text(log.read_text("utf-8").replace('"value": "acme-t8"', '"value": "1xother-box"'), "utf-8")
    assert [f for f in check([str(package)]).all_findings() if f.code == "MLC516"] == []


def test_a_forced_ruleset_against_the_run_date_is_a_warning() -> None:
    result = check([str(EXAMPLE)], ruleset="1.1.0", ruleset_source="--ruleset")
    found = [f for f in result.all_findings() if f.code == "MLC019"]
    assert len(found) == 5 and {f.severity.label for f in found} == {"warning"}
    assert found[0].message.startswith("--ruleset judges this run under 1.1.0, but its date 2022-")
    assert "falls in the training 2.0 period" in found[0].message
    assert not [f for f in check([str(EXAMPLE)], ruleset="2.0.0").all_findings() if f.code == "MLC019"]


def test_a_run_newer_than_the_newest_round_is_said_to_be(tmp_path: Path) -> None:
    text = RESULT.read_text("utf-8")
    later = "".join(line.replace('"time_ms": 1652', '"time_ms": 1852') for line in text.splitlines(keepends=True))
    log = tmp_path / "run.txt"
    log.write_text(later, "utf-8")
    (found,) = [f for f in check([str(log)]).all_findings() if f.code == "MLC018"]
    assert "after the newest round mlcheck knows: 6.1" in found.message


def test_an_unknown_code_in_a_waiver_is_a_config_finding(tmp_path: Path) -> None:
    shutil.copy(RESULT, tmp_path / "result_0.txt")
    (tmp_path / ".mlcheck.toml").write_text('[[waivers]]\ncode = "MLC999"\npath = "*.txt"\nreason = "x"\n'
                                            '\n[[waivers]]\ncode = "MLC5"\npath = "*.txt"\nreason = "y"\n')
    _code, out, _err = _cli(["check", "result_0.txt", "-f", "json", "--no-progress"], tmp_path)
    invalid = [f for f in json.loads(out)["findings"] if f["code"] == "MLC041"]
    assert len(invalid) == 1 and invalid[0]["line"] == 1
    assert "waiver 1: code 'MLC999' matches no rule code" in invalid[0]["message"]


def test_a_progress_bar_cr_turned_into_a_line_end_keeps_the_rank_tag(tmp_path: Path) -> None:
    raw = make_raw.make_raw(RESULT.read_bytes(), make_raw.RawOptions(instances=4))
    assert b"\r:::MLLOG" in raw  # the generator ends some progress bars in \r before a record
    original, converted = tmp_path / "job.log", tmp_path / "job_lf.log"
    original.write_bytes(raw)
    converted.write_bytes(raw.replace(b"\r", b"\n"))  # as a terminal capture or `tr` would
    (before,), (after,) = check_log(LogRef(str(original)), None), check_log(LogRef(str(converted)), None)
    assert before.run is not None and after.run is not None
    assert [(e.key, e.value) for e in after.run.events] == [(e.key, e.value) for e in before.run.events]
    assert sorted(f.code for f in after.findings) == sorted(f.code for f in before.findings)
    summary = next(f for f in after.findings if f.code == "MLC020")
    assert "untagged output" not in summary.message


def test_a_value_that_rounds_to_its_bound_is_shown_whole() -> None:
    """'best eval_accuracy 0.759' for a target >= 0.759 not reached, 'init took 30.0 min' where
    30 is allowed: the digits that tell them apart are shown."""
    from mlcheck.model import Evaluation
    from mlcheck.rules.eval_values import describe_eval
    from mlcheck.rules.timing import _minutes

    evaluation = Evaluation(time_ms=0.0, value=0.75896, line=480, epoch_num=35.0, samples_count=None)
    assert describe_eval(evaluation, bounds=[0.759]).startswith("0.75896 at epoch 35")
    assert describe_eval(evaluation).startswith("0.759 at epoch 35")  # (no bound: four digits)
    assert _minutes(30.0004, 30.0) == "30.0004" and _minutes(31.25, 30.0) == "31.2"


def test_a_key_common_yaml_requires_is_said_to_be_required_of_every_run(tmp_path: Path) -> None:
    """cache_clear is in common.yaml, required in both divisions: not "the closed division"."""
    source = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
    path = tmp_path / "result_0.txt"
    path.write_text("".join(line for line in source.read_text("utf-8").splitlines(keepends=True)
                            if '"cache_clear"' not in line), "utf-8")
    (missing,) = [f for f in check([str(path)]).runs[0].findings if f.code == "MLC105"]
    assert missing.message.startswith("cache_clear is not logged; every run requires at least one")
