"""Labels of raw output read as ranks: the launchers' tag forms, and processes that one label
names one after the other (a seed loop whose logger prints the process id, runs logged by
different tasks), which are runs of their own, not copies of the logging rank's records."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_helpers import run_cli

import mlcheck.read.reader as reader
from mlcheck import check

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_RUN = ROOT / "fixtures" / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
HOUR_MS = 3_600_000


def _records(shift_ms: int = 0) -> list[str]:
    """The example run's record lines, dated ``shift_ms`` later."""
    lines = [line for line in EXAMPLE_RUN.read_text("utf-8").splitlines() if line.startswith(":::MLLOG")]
    return [re.sub(r'"time_ms": (\d+)', lambda m: f'"time_ms": {int(m.group(1)) + shift_ms}', line, count=1)
            for line in lines]


def _clean_outcome() -> tuple[str, float | None]:
    (run,) = check([str(EXAMPLE_RUN)]).runs
    return run.verdict, run.time_to_train_min


def _outcomes(path: Path) -> list[tuple[str, float | None]]:
    return [(run.verdict, run.time_to_train_min) for run in check([str(path)], ruleset="2.0.0").runs]


def _message(path: Path, code: str) -> str:
    return next(f.message for f in check([str(path)], ruleset="2.0.0").all_findings() if f.code == code)


@pytest.mark.parametrize("lookahead", [4000, 25])
def test_a_seed_loop_whose_logger_prints_the_process_id_is_three_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lookahead: int) -> None:
    """``[%(process)d]`` reads as an ``mpiexec -prepend-rank`` label; the lowest "rank" is the
    last run's process. Each process printed after the run before had stopped: three runs, each
    as its clean file (whether the lookahead saw one process or all three)."""
    monkeypatch.setattr(reader, "_LOOKAHEAD_RECORDS", lookahead)
    log = tmp_path / "seeds.log"
    log.write_text("".join(f"[2024-05-01 12:00:00,123] [{pid}] [INFO] {line}\n"
                           for run, pid in enumerate((31337, 30210, 29876)) for line in _records(run * HOUR_MS)), "utf-8")
    assert _outcomes(log) == [_clean_outcome()] * 3
    assert "2 later processes under a rank label" in _message(log, "MLC020")
    out = tmp_path / "out"
    assert run_cli("split", str(log), "-o", str(out)).exit_code == 0
    for index in range(3):
        assert (out / f"result_{index}.txt").read_text("utf-8").splitlines() == _records(index * HOUR_MS)


def test_runs_logged_by_task_3_then_task_0_are_two_runs(tmp_path: Path) -> None:
    log = tmp_path / "console.log"
    log.write_text("".join(f"3: {line}\n" for line in _records()) + "".join(f"0: {line}\n" for line in _records(HOUR_MS)),
                   "utf-8")
    assert _outcomes(log) == [_clean_outcome()] * 2
    assert "MLC021" not in {f.code for f in check([str(log)], ruleset="2.0.0").all_findings()}


def test_a_rank_whose_output_comes_after_the_logging_ranks_run_is_still_a_copy(tmp_path: Path) -> None:
    """Block-buffered ranks: rank 1's whole output reaches the console after rank 0's run_stop,
    but is dated within the run (rank 1's clock 2 s behind): one run, its copies dropped."""
    log = tmp_path / "console.log"
    log.write_text("".join(f"[1,0]<stdout>:{line}\n" for line in _records())
                   + "".join(f"[1,1]<stdout>:{line}\n" for line in _records(-2000)), "utf-8")
    assert _outcomes(log) == [_clean_outcome()]
    assert "copies printed by 1 other rank dropped" in _message(log, "MLC020")


def test_a_rank_that_prints_only_its_own_later_run_stop_is_a_copy(tmp_path: Path) -> None:
    records = _records()
    stop = next(line for line in records if '"key": "run_stop"' in line)
    log = tmp_path / "console.log"
    late_stop = re.sub(r'"time_ms": (\d+)', lambda m: f'"time_ms": {int(m.group(1)) + 50}', stop, count=1)
    log.write_text("".join(f"0: {line}\n" for line in records) + f"1: {late_stop}\n", "utf-8")
    assert _outcomes(log) == [_clean_outcome()]


@pytest.mark.parametrize("tag", ["[prterun-node1-4242@1,{r}]<stdout>: ", "[1,{r}][node1:4242]<stdout>:",
                                 "[{r}]<stdout>:", "[trainer{r}]:", "[Rank {r}] ", "[rank: {r}] "])
def test_launcher_and_logger_rank_tags_are_ranks(tmp_path: Path, tag: str) -> None:
    """OpenMPI 5 (PRRTE) tags with a namespace or host, Horovod with Gloo and PRRTE's
    ``--output rank``, torchrun with a ``--role``, DeepSpeed's and Lightning's rank prefixes:
    rank 0's records are kept, the other ranks' dropped as copies."""
    log = tmp_path / "console.log"
    log.write_text("".join(tag.format(r=rank) + line + "\n" for line in _records() for rank in range(4)), "utf-8")
    assert _outcomes(log) == [_clean_outcome()]
    result = check([str(log)], ruleset="2.0.0")
    assert not {"MLC104", "MLC107"} & {f.code for f in result.all_findings()}
    assert "copies printed by 3 other ranks dropped" in _message(log, "MLC020")


def test_a_record_printed_twice_by_two_log_handlers_is_read_once(tmp_path: Path) -> None:
    """mllog's handler and the root logger's (``INFO:mllog:``) print each record: raw output reads
    the repeat as no record (check and split alike); a result file keeps both, as the parser does."""
    log = tmp_path / "console.log"
    log.write_text("".join(f"{line}\nINFO:mllog:{line}\n" for line in _records()), "utf-8")
    assert _outcomes(log) == [_clean_outcome()]
    assert f"{len(_records())} records printed again" in _message(log, "MLC020")
    assert not {"MLC104", "MLC107"} & {f.code for f in check([str(log)], ruleset="2.0.0").all_findings()}
    out = tmp_path / "out"
    assert run_cli("split", str(log), "-o", str(out)).exit_code == 0
    assert (out / "result_0.txt").read_text("utf-8").splitlines() == _records()
    result_file = tmp_path / "result_0.txt"
    result_file.write_text("".join(f"{line}\n{line}\n" for line in _records()), "utf-8")
    assert "MLC107" in {f.code for f in check([str(result_file)], ruleset="2.0.0").all_findings()}


def test_ranks_printing_the_same_record_behind_timestamps_are_all_read(tmp_path: Path) -> None:
    """Untagged output of ranks that each print the same ``init_start`` (a result file keeps all
    of them) behind ``docker logs -t``/``ts`` timestamps: prefixes that differ in their time alone
    are not two log handlers, every record is read (was: every second one dropped); with
    ``INFO:mllog:`` after the time the repeat is still read once; a progress bar that a CR ended
    before one of them is no second handler's prefix either."""
    records = _records()
    at = next(i for i, line in enumerate(records) if '"init_start"' in line)
    ranks = records[:at] + [records[at]] * 4 + records[at + 1:]
    log = tmp_path / "console.log"
    log.write_text("".join(f"2024-05-01T10:00:{i % 60:02d}.{i:06d}Z {line}\n" for i, line in enumerate(ranks)), "utf-8")
    out = tmp_path / "out"
    assert run_cli("split", str(log), "-o", str(out)).exit_code == 0
    assert (out / "result_0.txt").read_text("utf-8").splitlines() == ranks
    handlers = tmp_path / "handlers.log"
    handlers.write_text("".join(f"10:00:0{i % 10} {line}\n10:00:0{i % 10} INFO:mllog:{line}\n"
                                for i, line in enumerate(records)), "utf-8")
    assert f"{len(records)} records printed again" in _message(handlers, "MLC020")
    bar = tmp_path / "bar.log"  # (a progress bar ended by a CR in front of one of them: no handler's prefix)
    bar.write_text("".join(("epoch 1:  50%|#####     | 5/10\r" if i == at + 2 else "") + line + "\n"
                           for i, line in enumerate(ranks)), "utf-8")
    assert run_cli("split", str(bar), "-o", str(tmp_path / "bar")).exit_code == 0
    assert (tmp_path / "bar" / "result_0.txt").read_text("utf-8").splitlines() == ranks
    dated = tmp_path / "dated.log"  # (mllog's handler, then the root logger's with %(asctime)s)
    dated.write_text("".join(f"{line}\n2024-04-30 16:00:{i % 60:02d},020 {line}\n" for i, line in enumerate(records)),
                     "utf-8")
    assert f"{len(records)} records printed again" in _message(dated, "MLC020")


@pytest.mark.parametrize("second_shift", [-HOUR_MS, HOUR_MS], ids=["dated-before", "dated-after"])
def test_a_launcher_line_lets_another_task_log_the_next_run(tmp_path: Path, second_shift: int) -> None:
    """Consoles of several jobs joined in name order (``cat slurm-*.out``): the second run, after
    its launcher line, is printed by task 3 and may be dated before the first run. The launcher
    line begins another job whose logging rank is chosen again: two runs, each as the file alone
    (was: the second run's records dropped as task 3's copies of task 0's)."""
    log = tmp_path / "console.log"
    lines = (["+ srun -l python train.py --seed 1"] + ["  0: " + r for r in _records()]
             + ["+ srun -l python train.py --seed 2"] + ["  3: " + r for r in _records(second_shift)])
    log.write_text("\n".join(lines) + "\n", "utf-8")
    assert _outcomes(log) == [_clean_outcome()] * 2
    assert not [f for f in check([str(log)], ruleset="2.0.0").all_findings() if f.code in ("MLC013", "MLC021")]


@pytest.mark.parametrize("label", ["(RayTrainWorker pid={}, ip=10.0.0.7) ", "gpu0 python3[{}]: "])
def test_a_seed_loops_workers_with_lower_process_ids_each_run_are_runs(tmp_path: Path, label: str) -> None:
    """Two workers print every record of each run; each run's workers are new processes, and the
    second run's ids are lower than the first's (ids wrap): three runs, each its own (was: the
    lowest id of the file taken as the logging rank, the earlier runs' records dropped as its
    copies, one run read)."""
    pids = [(5000, 5001), (4000, 4001), (3000, 3001)]
    lines = [label.format(pids[run][worker]) + record
             for run in range(3) for record in _records(run * 2 * HOUR_MS) for worker in range(2)]
    log = tmp_path / "driver.log"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    assert _outcomes(log) == [_clean_outcome()] * 3


@pytest.mark.parametrize("launcher,tag", [("srun --label", "{}: "), ("pdsh -w node00[0-1]", "node00{}: "),
                                          ("mpirun --tag-output -np 2", "[1,{}]<stdout>:")])
def test_a_middle_run_logged_by_another_rank_is_kept(tmp_path: Path, launcher: str, tag: str) -> None:
    """Runs 1 and 3 of a seed loop printed by both ranks, run 2 by rank 1 alone: the lookahead
    after run 2's launcher line stops at run 3's (was: it saw rank 0 in run 3, and run 2's
    records were dropped as rank 1's copies: two runs)."""
    lines: list[str] = []
    for run in range(3):
        lines.append(f"+ {launcher} python train.py --seed {run}")
        ranks = (1,) if run == 1 else (0, 1)
        lines += [tag.format(rank) + record for record in _records(run * 2 * HOUR_MS) for rank in ranks]
    log = tmp_path / "loop.log"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    assert _outcomes(log) == [_clean_outcome()] * 3


def test_a_record_logged_twice_with_a_progress_bar_glued_to_one_copy_is_read_twice(tmp_path: Path) -> None:
    """A program that logs a record twice in a row (both are the run's, as the parser reads them)
    and a tqdm bar glued in front of the second: no second log handler, both are read and split
    writes both (was: the second dropped as a handler's repeat)."""
    records = _records()
    log = tmp_path / "console.log"
    lines = records[:2] + ["100%|##########| 10/10 [00:01<00:00, 9.80it/s]" + records[1]] + records[2:]
    log.write_text("\n".join(lines) + "\n", "utf-8")
    out = tmp_path / "out"
    assert run_cli("split", str(log), "-o", str(out)).exit_code == 0
    assert (out / "result_0.txt").read_text("utf-8").splitlines() == records[:2] + [records[1]] + records[2:]


def test_ranks_printing_the_same_record_behind_absl_prefixes_are_all_read(tmp_path: Path) -> None:
    """TPU/JAX logs (absl, glog): ``I0428 00:19:25.736012 140234 mllog.py:42] `` dates each line;
    the same ``init_start`` of four ranks in a row is four records, as behind any timestamp."""
    records = _records()
    at = next(i for i, line in enumerate(records) if '"init_start"' in line)
    ranks = records[:at] + [records[at]] * 4 + records[at + 1:]
    log = tmp_path / "console.log"
    log.write_text("".join(f"I0428 00:19:{i % 60:02d}.{i:06d} 140234 mllog.py:42] {line}\n"
                           for i, line in enumerate(ranks)), "utf-8")
    out = tmp_path / "out"
    assert run_cli("split", str(log), "-o", str(out)).exit_code == 0
    assert (out / "result_0.txt").read_text("utf-8").splitlines() == ranks
