"""Review of session 49: raw output of a run that two processes write (an evaluation launched after
the training, each by its own launcher command), and srun's and Slurm's words in it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import FIXTURES
from mlcheck.checker import check_log
from mlcheck.package.discover import LogRef
from mlcheck.raw.split import split_log

GOOD = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
TRAIN = "+ poprun --num-instances=2 --num-replicas=16 python3 train.py"
EVALUATE = "+ poprun --num-instances=2 --num-replicas=16 python3 validation.py"
_TIME = re.compile(r'"time_ms": (\d+)')


def _records() -> list[str]:
    return GOOD.read_text("utf-8").splitlines()


def _two_processes(records: list[str]) -> list[str]:
    """The training's records, then the launch of the evaluation process, which logs the last
    evaluation and run_stop (as a run whose evaluations a script of their own runs)."""
    last_eval = max(i for i, line in enumerate(records) if '"key": "eval_start"' in line)
    return [TRAIN, *(f"[1,0]<stdout>:{r}" for r in records[:last_eval]), EVALUATE,
            *(f"[1,0]<stdout>:{r}" for r in records[last_eval:])]


def test_an_evaluation_launched_after_the_training_goes_on_with_its_run(tmp_path: Path) -> None:
    """The launcher line of the evaluation process comes in a run that started and did not stop,
    and its first record begins no run: one run, the clean file's (was two failing runs: MLC102,
    then MLC101/MLC105/MLC011), and ``split`` writes the clean file's records."""
    log = tmp_path / "console.log"
    log.write_text("\n".join(_two_processes(_records())) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(GOOD)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert not [f for f in result.findings if f.code == "MLC024"]
    split = split_log(str(log), str(tmp_path / "out"))
    assert [Path(p).name for p in split.written] == ["result_0.txt"]
    assert (tmp_path / "out" / "result_0.txt").read_text("utf-8").splitlines() == _records()


@pytest.mark.parametrize("setting_first", [False, True], ids=["cache_clear", "setting"])
def test_a_relaunch_in_a_run_that_did_not_stop_is_still_another_run(setting_first: bool, tmp_path: Path) -> None:
    """The same launcher line after a crash mid-training (no word of the job's end), the job run
    again from its first record (its cache_clear; or a setting it logs first, logged again once
    the crashed run trained): two runs, the crashed one failing, the relaunch the clean file's."""
    records = _records()
    relaunch = records[9:10] + records[:9] + records[10:] if setting_first else records
    cut = next(i for i, line in enumerate(records) if '"key": "run_start"' in line) + 5
    later = [_TIME.sub(lambda m: f'"time_ms": {int(m.group(1)) + 2_400_000}', line) for line in relaunch]
    log = tmp_path / "console.log"
    log.write_text("\n".join([TRAIN, *records[:cut], TRAIN, *later]) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(GOOD)), None)
    crashed, again = check_log(LogRef(str(log)), None)
    assert crashed.verdict == "fail" and any(f.code == "MLC102" for f in crashed.findings)
    assert (again.verdict, again.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert [f.line for f in again.findings if f.code == "MLC024"] == [cut + 2]
