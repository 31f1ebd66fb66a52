"""What the reports count is the true number: findings past the reading cap, runs that fail."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from mlcheck.cli import main
from mlcheck.read.runs import MAX_FINDINGS_PER_CODE


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


def test_a_tolerated_non_converged_run_is_not_called_failing(tmp_path: Path) -> None:
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
    assert "mlcheck: 5 runs (0 failing, 1 not converged, tolerated), 1 benchmark (1 with a valid score), 0 errors" \
        in done.stderr, done.stderr
    markdown = CliRunner().invoke(main, ["check", str(package), "-f", "markdown"]).stdout
    assert "| 0 of 5 |" in markdown
