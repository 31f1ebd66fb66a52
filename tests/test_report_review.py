"""Defects a new user's review of the reports found: findings about no file in SARIF, the JSON's
run order, a folder whose first file is unreadable, ``--config /dev/null``, spreadsheet formulas
in the CSV table, the count of findings past the reading cap, a path of superscript digits."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import FIXTURES
from mlcheck import check
from mlcheck.cli import main
from mlcheck.report.results_table import render_csv, table_text

ACME = FIXTURES / "example" / "Acme"
BASE = FIXTURES / "raw" / "base.txt"


def _package(tmp_path: Path) -> Path:
    root = tmp_path / "Acme"
    shutil.copytree(ACME, root)
    return root


def test_a_finding_about_no_file_is_placed_in_a_result_file_in_sarif(tmp_path: Path) -> None:
    """Code scanning refuses a whole upload for one result whose URI names no file."""
    root = _package(tmp_path)
    done = CliRunner().invoke(main, ["check", str(root), "-f", "sarif", "--no-progress"],
                              env={"MLCHECK_STRICT": "maybe"})
    results = json.loads(done.stdout)["runs"][0]["results"]
    (setting,) = [r for r in results if r["ruleId"] == "MLC041"]
    uri = setting["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.endswith("/results/acme-t8/resnet/result_0.txt")
    assert setting["message"]["text"].endswith("(about the MLCHECK_* environment variables)")
    assert "region" not in setting["locations"][0]["physicalLocation"]
    assert not [r for r in results
                if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] in ("environment", "-", "")]


def test_a_log_named_environment_is_a_file_in_sarif(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("environment").write_bytes(BASE.read_bytes().replace(b'"key": "init_stop"', b'"key": "init_stop", ', 1))
    Path("a.log").write_bytes(BASE.read_bytes())
    done = CliRunner().invoke(main, ["check", "environment", "a.log", "-f", "sarif", "--no-progress"])
    results = json.loads(done.stdout)["runs"][0]["results"]
    (broken,) = [r for r in results if r["ruleId"] == "MLC003"]
    location = broken["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "environment" and location["region"]["startLine"] == 12


def test_the_json_report_lists_runs_in_path_order_whatever_the_order_given(tmp_path: Path) -> None:
    (tmp_path / "b.log").write_bytes(BASE.read_bytes())
    (tmp_path / "a10.log").write_bytes(BASE.read_bytes())
    (tmp_path / "a9.log").write_bytes(BASE.read_bytes())
    given = [str(tmp_path / n) for n in ("b.log", "a10.log", "a9.log")]
    reports = [CliRunner().invoke(main, ["check", *paths, "-f", "json", "--no-progress"]).stdout
               for paths in (given, given[::-1])]
    assert reports[0] == reports[1]
    assert [Path(r["path"]).name for r in json.loads(reports[0])["runs"]] == ["a9.log", "a10.log", "b.log"]
    (tmp_path / "r_1.log").write_bytes(BASE.read_bytes())  # (the same natural order as r_01.log)
    (tmp_path / "r_01.log").write_bytes(BASE.read_bytes())
    given = [str(tmp_path / n) for n in ("r_1.log", "r_01.log")]
    reports = [CliRunner().invoke(main, ["check", *paths, "-f", "json", "--no-progress"]).stdout
               for paths in (given, given[::-1])]
    assert reports[0] == reports[1]


def test_the_run_count_names_the_folders_round_when_its_first_file_is_unreadable(tmp_path: Path) -> None:
    bench = _package(tmp_path) / "results" / "acme-t8" / "resnet"
    for index in (0, 2, 3, 4):
        (bench / f"result_{index}.txt").unlink()
    (bench / "result_0.txt").mkdir()  # (no run is read from it: it has no round)
    (found,) = [f for f in check([str(bench)]).all_findings() if f.code == "MLC502"]
    assert found.message == ("2 runs found; training 2.0.0 resnet requires 5 result files "
                             "(result_2.txt, result_3.txt, result_4.txt are missing)")


def test_config_dev_null_is_no_config(tmp_path: Path) -> None:
    root = _package(tmp_path)
    (root / ".mlcheck.toml").write_text('select = ["MLC9"]\n', "utf-8")  # (found, and not used)
    done = CliRunner().invoke(main, ["check", str(root), "--config", "/dev/null", "-f", "json", "--no-progress"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["summary"]["runs"] == 5
    folder = CliRunner().invoke(main, ["check", str(root), "--config", str(tmp_path)])
    assert folder.exit_code == 2


def test_a_system_value_is_no_spreadsheet_formula_in_the_csv_table(tmp_path: Path) -> None:
    root = _package(tmp_path)
    system = root / "systems" / "acme-t8.json"
    described = json.loads(system.read_text("utf-8"))
    described["framework"] = '=HYPERLINK("http://x","y")'
    described["accelerator_model_name"] = "@SUM(A1)"
    described["host_processor_model_name"] = "-"  # (a placeholder, no formula)
    system.write_text(json.dumps(described), "utf-8")
    result = check([str(root)])
    (header, row) = list(csv.reader(io.StringIO(render_csv(result))))
    cells = dict(zip(header, row))
    assert cells["framework"] == '\'=HYPERLINK("http://x","y")' and cells["accelerator"] == "'@SUM(A1)"
    assert cells["nodes"] == "1" and cells["resnet"][:1].isdigit() and cells["processor"] == "-"


def test_the_text_table_of_a_file_folds_no_cell(tmp_path: Path) -> None:
    root = _package(tmp_path)
    system = root / "systems" / "acme-t8.json"
    described = json.loads(system.read_text("utf-8"))
    long_name = "Acme Trainer 8 with eight accelerators of the newest kind, liquid cooled, in one rack"
    described["system_name"] = long_name
    system.write_text(json.dumps(described), "utf-8")
    assert long_name in table_text(check([str(root)]), "text")


def test_records_cut_on_one_line_are_counted_each_and_the_cap_count_comes_last(tmp_path: Path) -> None:
    """5,000 pieces of records on one line: 4,999 cut records, the first 100 listed by the reader
    (identical messages at one line) and a count of the 4,899 others."""
    piece = (':::MLLOG {"namespace": "", "time_ms": 1652756779116, "event_type": "POINT_IN_TIME", "key": "x", '
             '"value": {"a": ')
    log = tmp_path / "raw.log"
    log.write_text(BASE.read_text("utf-8") + piece * 5000 + "1}\n", "utf-8")
    (found,) = [f for f in check([str(log)]).all_findings() if f.code == "MLC023"]
    assert found.message.startswith("this record is cut") and "(and 4,998 more of this rule here" in found.message
    assert found.item_count == 4999 and len(found.items) == 2
    assert found.items[-1].startswith("line 30: 4,899 more MLC023 findings in this file (line 30) are counted")


@pytest.mark.parametrize("name", ["log1\N{SUPERSCRIPT TWO}", "result_\N{SUPERSCRIPT TWO}.txt"])
def test_a_path_of_superscript_digits_is_sorted_without_a_crash(tmp_path: Path, name: str) -> None:
    """``str.isdigit`` accepts superscripts and ``int`` refuses them: the natural order of paths
    and the numbering of result files use decimal digits only."""
    bench = _package(tmp_path) / "results" / "acme-t8" / "resnet"
    odd = bench / name
    odd.write_bytes(BASE.read_bytes())
    result = check([str(bench), str(odd)])
    assert not [f for f in result.all_findings() if f.code == "MLC000"]
    assert sum(1 for r in result.runs if r.path == str(odd)) == 1


def test_the_summary_line_counts_valid_scores_that_fail_the_rcp_test(corpus: Path) -> None:
    """2.0 BERT pod128 and pod256 fail the RCP test of record: valid scores the package checker
    refuses without a reviewed bypass."""
    from mlcheck.report.plain import summary_line

    line = summary_line(check([str(corpus / "training-2.0" / "Graphcore")]))
    assert "11 benchmarks (11 with a valid score, 2 of them failing the RCP test)" in line


def test_a_folder_whose_description_gives_another_division_says_which_is_published(tmp_path: Path) -> None:
    from mlcheck.report.plain import division_text

    root = _package(tmp_path)
    system = root / "systems" / "acme-t8.json"
    described = json.loads(system.read_text("utf-8"))
    assert check([str(root)]).benchmarks[0].division == "closed"
    described["division"] = "open"
    system.write_text(json.dumps(described), "utf-8")
    (bench,) = check([str(root)]).benchmarks
    assert division_text(bench) == "closed division logged, open in the system description (published as open)"
    described["division"] = "Closed"  # (not 'closed' to the package checker, published as it is)
    system.write_text(json.dumps(described), "utf-8")
    (bench,) = check([str(root)]).benchmarks
    assert division_text(bench) == "closed division logged, Closed in the system description (published as Closed)"
