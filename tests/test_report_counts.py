"""What the reports count is the true number: findings past the reading cap, runs that fail."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from click.testing import CliRunner

from mlcheck.cli import main
from mlcheck.read.finding_cap import MAX_FINDINGS_PER_CODE


def _broken_lines(path: Path, bad: int) -> Path:
    """A log of ``bad`` invalid-JSON lines, each after a valid record."""
    lines = []
    for i in range(bad):
        lines.append(':::MLLOG {"namespace": "", "time_ms": %d, "event_type": "POINT_IN_TIME", "key": "k%d", '
                     '"value": 1, "metadata": {}}\n' % (1652083200000 + i, i))
        lines.append(':::MLLOG {"key": "x%d", bad\n' % i)
    path.write_text("".join(lines), "utf-8")
    return path


def test_findings_past_the_reading_cap_are_counted_in_every_format(tmp_path: Path) -> None:
    bad = 3 * MAX_FINDINGS_PER_CODE + 7
    log = _broken_lines(tmp_path / "huge.txt", bad)
    report = json.loads(CliRunner().invoke(main, ["check", str(log), "-f", "json"]).stdout)
    invalid = [f for f in report["findings"] if f["code"] == "MLC003"]
    assert len(invalid) == 1 and invalid[0]["item_count"] == bad
    assert f"(and {bad - 1} more of this rule here" in invalid[0]["message"]
    sarif = json.loads(CliRunner().invoke(main, ["check", str(log), "-f", "sarif"]).stdout)
    counts = [r["properties"]["itemCount"] for r in sarif["runs"][0]["results"] if r["ruleId"] == "MLC003"]
    assert counts == [bad]
    for form in ("text", "github", "markdown", "junit", "html"):
        out = CliRunner().invoke(main, ["check", str(log), "-f", form]).stdout
        assert f"and {bad - 1} more of this rule here" in out, form
        assert f"and {MAX_FINDINGS_PER_CODE} more of this rule" not in out, form


def test_score_says_why_an_empty_benchmark_folder_fails(tmp_path: Path) -> None:
    import shutil

    package = tmp_path / "Acme"
    shutil.copytree(Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme", package)
    (package / "results" / "acme-t8" / "bert").mkdir()
    for extra in ([], ["-t", "csv"]):
        done = CliRunner().invoke(main, ["score", str(package), *extra])
        assert done.exit_code == 1
        said = f"mlcheck: invalid: {package}/results/acme-t8/bert: MLC502 the bert folder holds no result_<i>.txt file"
        assert said in done.stderr, done.stderr


def test_a_tolerated_non_converged_run_is_counted_failing_and_said_tolerated(tmp_path: Path) -> None:
    import re
    import shutil

    package = tmp_path / "Acme"
    shutil.copytree(Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme", package)
    log = package / "results" / "acme-t8" / "resnet" / "result_4.txt"
    text = re.sub(r'"key": "eval_accuracy", "value": [0-9.]+', '"key": "eval_accuracy", "value": 0.5', log.read_text("utf-8"))
    log.write_text(text.replace('"status": "success"', '"status": "aborted"'), "utf-8")
    done = CliRunner().invoke(main, ["check", str(package), "-f", "json"])
    summary = json.loads(done.stdout)["summary"]
    assert done.exit_code == 0 and summary["runs_failed"] == 1 and summary["runs_tolerated"] == 1
    said = "mlcheck: 5 runs (1 failing: not converged, tolerated by its folder), 1 benchmark (1 with a valid score), 0 errors"
    assert said in done.stderr, done.stderr
    markdown = CliRunner().invoke(main, ["check", str(package), "-f", "markdown"]).stdout
    assert "| 1 of 5 (tolerated) |" in markdown


def test_logs_inside_a_benchmark_folder_are_said_to_be_no_result(tmp_path: Path) -> None:
    """score names logs in a folder inside a benchmark folder (no result, no exit status), and
    check says MLC508 of that folder, also when it is given on its own."""
    import shutil

    package = tmp_path / "Acme"
    shutil.copytree(Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme", package)
    resnet = package / "results" / "acme-t8" / "resnet"
    shutil.copytree(resnet, resnet / "bert")
    done = CliRunner().invoke(main, ["score", str(package)])
    assert done.exit_code == 0, done.stderr
    assert f"mlcheck: not a result (left out of the table and the exit status): {resnet}/bert: its logs are inside " \
        "another benchmark folder" in done.stderr, done.stderr
    for checked in (package, resnet / "bert"):  # (the nested folder given on its own is said to be one too)
        found = json.loads(CliRunner().invoke(main, ["check", str(checked), "-f", "json"]).stdout)["findings"]
        assert [(f["code"], f["path"]) for f in found if f["code"] == "MLC508"] == [("MLC508", str(resnet / "bert"))]


def test_score_names_a_folder_its_rcp_test_refuses(tmp_path: Path) -> None:
    import pytest

    from conftest import CORPUS

    folder = CORPUS / "training-1.1" / "Graphcore" / "results" / "ipu-pod16-POPART-closed" / "bert"
    if not folder.is_dir():
        pytest.skip(f"{folder} is missing (the shared corpus of round 1.1)")
    done = CliRunner().invoke(main, ["score", str(folder)])
    assert done.exit_code == 1 and f"mlcheck: RCP test refuses: {folder}: MLC530 " in done.stderr, done.stderr
    markdown = CliRunner().invoke(main, ["check", str(folder), "-f", "markdown"]).stdout
    assert "| ⚠️ mean of 8 of 10 runs after dropping the 1 fastest and 1 slowest; but MLC530: the RCP test refuses it |" \
        in markdown
    waiver = tmp_path / "waiver.toml"
    waiver.write_text(f'[[waivers]]\ncode = "MLC530"\npath = "{folder}/"\nreason = "r"\n', encoding="utf-8")
    for config, env in ((str(waiver), {}), ("/dev/null", {"MLCHECK_SELECT": "MLC1"}),
                        ("/dev/null", {"MLCHECK_IGNORE": "MLC53"})):
        # (a waiver or select/ignore changes the findings reported, never a score: a review, session 35)
        done = CliRunner().invoke(main, ["score", str(folder), "--config", config], env=env)
        assert done.exit_code == 1 and f"mlcheck: RCP test refuses: {folder}: MLC530 " in done.stderr, (env, done.stderr)
        done = CliRunner().invoke(main, ["check", str(folder), "-f", "markdown", "--config", config], env=env)
        assert "but MLC530: the RCP test refuses it |" in done.stdout, env


def test_quiet_text_gives_a_clean_folder_its_score_line_only(tmp_path: Path) -> None:
    package = Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme"
    done = CliRunner().invoke(main, ["check", str(package), "-q"])
    assert done.exit_code == 0 and "run " not in done.stdout and "result_0.txt" not in done.stdout, done.stdout
    assert done.stdout.startswith("Acme / acme-t8 / resnet (closed, "), done.stdout
    full = CliRunner().invoke(main, ["check", str(package)]).stdout
    assert "result_0.txt" in full


def test_quiet_text_lists_in_the_run_table_only_the_codes_it_shows(tmp_path: Path) -> None:
    """-q shows errors: a run's warning codes (MLC102 of a tolerated cut run) are left out of the
    table's findings column too, as out of the findings below it."""
    package = tmp_path / "Acme"
    shutil.copytree(Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme", package)
    folder = package / "results" / "acme-t8" / "resnet"
    cut = folder / "result_3.txt"
    cut.write_text("".join(line for line in cut.read_text("utf-8").splitlines(keepends=True)
                           if '"run_stop"' not in line), "utf-8")
    seed = re.search(r'"key": "seed", "value": (\d+)', (folder / "result_0.txt").read_text("utf-8"))
    assert seed is not None
    second = folder / "result_2.txt"  # (a duplicate seed: MLC519, an error, so the folder's table is shown)
    second.write_text(re.sub(r'("key": "seed", "value": )\d+', rf"\g<1>{seed[1]}", second.read_text("utf-8")), "utf-8")
    loud = CliRunner().invoke(main, ["check", str(package)]).stdout
    assert "MLC102" in loud and "MLC519" in loud
    quiet = CliRunner().invoke(main, ["check", str(package), "-q"])
    assert "MLC519" in quiet.stdout and "MLC102" not in quiet.stdout, quiet.stdout
