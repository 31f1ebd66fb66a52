"""A run script that logs the submission block and the run's settings, then launches the training
(``+ srun ... train.py``): the launcher line does not open a new run, the records before it are the
run's (review of session 26: the settings made a failing run of their own, MLC101, and the run
lost its block, MLC105). A run that began (init_start) before the launcher line still ends there."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from conftest import FIXTURES
from mlcheck.checker import check_log
from mlcheck.cli import main
from mlcheck.package.discover import LogRef

GOOD = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
LAUNCH = "+ srun --nodes=1 --ntasks=8 python train.py"


def _settings_first() -> list[str]:
    """The example run with its submission block and first settings (seed, batch size) logged
    before its cache_clear, as a run script logs them before it launches the training."""
    lines = GOOD.read_text("utf-8").splitlines()
    keys = [json.loads(line[len(":::MLLOG "):])["key"] for line in lines]
    assert keys[:3] == ["cache_clear", "init_start", "submission_benchmark"] and keys[9] == "gradient_accumulation_steps"
    return lines[2:10] + lines[:2] + lines[10:]


def test_settings_logged_before_the_launcher_line_are_the_run_s(tmp_path: Path) -> None:
    run = _settings_first()
    log = tmp_path / "job.log"
    log.write_text("\n".join([*run[:8], LAUNCH, *run[8:], LAUNCH, *run[:8], LAUNCH, *run[8:]]) + "\n", "utf-8")
    results = check_log(LogRef(str(log)), None)
    assert [r.verdict for r in results] == ["pass", "pass"]
    assert [(f.code, f.line) for r in results for f in r.findings if f.code != "MLC020"] == [("MLC024", len(run) + 2)]
    out = tmp_path / "split"
    assert CliRunner().invoke(main, ["split", "-o", str(out), str(log)]).exit_code == 0
    assert sorted(p.name for p in out.iterdir()) == ["result_0.txt", "result_1.txt"]
    assert (out / "result_1.txt").read_text("utf-8") == "\n".join(run) + "\n"
    watched = CliRunner().invoke(main, ["watch", str(log), "--format", "json", "--runs", "2", "--no-progress", "--idle-timeout", "5"])
    assert [r["verdict"] for r in json.loads(watched.stdout)["runs"]] == ["pass", "pass"]


def test_a_run_that_began_before_the_launcher_line_ends_there(tmp_path: Path) -> None:
    """init_start logged, then the job killed: the launcher line begins the next attempt."""
    run = _settings_first()
    log = tmp_path / "job.log"
    log.write_text("\n".join([*run[:11], LAUNCH, *run]) + "\n", "utf-8")
    results = check_log(LogRef(str(log)), None)
    assert [r.verdict for r in results] == ["fail", "pass"]
