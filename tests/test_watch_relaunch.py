"""``mlcheck watch`` on consoles of several trials, written while it follows them: it cuts the runs
where ``check`` cuts the finished file (review of session 27: the next trial's block, printed after
a run's run_stop and followed by a quiet spell, went into the finished run, which was then judged
twice; a job's end in training was reported though ``check`` drops it)."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path

from conftest import FIXTURES
from mlcheck.checker import check_log
from mlcheck.model import Finding
from mlcheck.package.discover import LogRef
from mlcheck.raw.watch import watch

GOOD = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
LAUNCH = "+ srun --nodes=1 --ntasks=8 python train.py"
_TIME = re.compile(r'"time_ms": (\d+)')


def _later(lines: list[str], minutes: int) -> list[str]:
    return [_TIME.sub(lambda m: f'"time_ms": {int(m.group(1)) + minutes * 60_000}', line) for line in lines]


def _trials() -> tuple[list[str], list[str], list[str]]:
    """The first trial, the second trial's block (printed right after the first's run_stop), the
    rest of the second trial (its cache_clear and init_start, then its settings and training)."""
    lines = GOOD.read_text("utf-8").splitlines()
    keys = [json.loads(line[len(":::MLLOG "):])["key"] for line in lines]
    assert keys[:3] == ["cache_clear", "init_start", "submission_benchmark"] and keys[6] == "submission_platform"
    second = _later(lines, 120)
    return [LAUNCH, *lines], second[2:7], second[:2] + second[7:]


def _watched(log: Path, first: list[str], rest: list[str], runs: int) -> tuple[list[Finding], list[str], int, int]:
    """Watch ``log`` while ``first`` is in it and ``rest`` is appended after a quiet spell of
    half a second (more than the 20 polls of quiet after run_stop); the findings, the progress
    lines, the runs done and the lines the watch says it covered."""
    log.write_text("\n".join(first) + "\n", "utf-8")
    found: list[Finding] = []
    progress: list[str] = []

    def write_the_rest() -> None:
        time.sleep(0.5)
        with log.open("a", encoding="utf-8") as handle:
            handle.write("".join(line + "\n" for line in rest))
    writer = threading.Thread(target=write_the_rest)
    writer.start()
    outcome = watch(str(log), found.append, progress.append, runs=runs, poll=0.01, idle_timeout=3)
    writer.join()
    return found, progress, outcome.runs_done, outcome.lines


def test_the_next_trial_s_block_after_a_quiet_spell_is_the_next_run_s(tmp_path: Path) -> None:
    first, block, rest = _trials()
    log = tmp_path / "trials.log"
    found, progress, done, lines = _watched(log, [*first, *block], rest, runs=2)
    assert done == 2 and lines == len(first) + len(block) + len(rest)
    assert not [f for f in found if f.code in ("MLC011", "MLC105", "MLC107")], [f.code for f in found]
    assert sum("run_stop (success)" in line for line in progress) == 2  # (each run judged whole once)
    checked = check_log(LogRef(str(log)), None)
    assert [(r.run.first_line, r.run.last_line) for r in checked if r.run] == [(2, len(first)), (len(first) + 1, lines)]


def test_a_watch_of_one_run_ends_at_its_last_record_not_at_the_next_trial_s_block(tmp_path: Path) -> None:
    first, block, rest = _trials()
    found, _progress, done, lines = _watched(tmp_path / "trials.log", [*first, *block], rest, runs=1)
    assert (done, lines) == (1, len(first))
    assert not [f for f in found if f.code == "MLC107"]


def test_a_job_s_end_in_training_that_opens_no_run_is_not_reported(tmp_path: Path) -> None:
    """srun says a task failed; the run goes on to its run_stop: check drops the note, so does watch."""
    first, _block, _rest = _trials()
    start = next(i for i, line in enumerate(first) if '"run_start"' in line)
    lines = [*first[:start + 5], "srun: error: node03: task 1: Exited with exit code 1", *first[start + 5:]]
    found, _progress, done, _lines = _watched(tmp_path / "job.log", lines, [], runs=1)
    assert done == 1 and not [f for f in found if f.code == "MLC024"]


def test_a_block_repeated_after_the_last_run_stop_is_the_run_s_where_the_file_ends(tmp_path: Path) -> None:
    """Nothing follows the repeated block: it is the run's own, as check reads the file (MLC107)."""
    first, block, _rest = _trials()
    log = tmp_path / "trials.log"
    found, _progress, done, lines = _watched(log, [*first, *block], [], runs=2)
    assert done == 1 and lines == len(first) + len(block)
    [checked] = check_log(LogRef(str(log)), None)
    assert [f.code for f in checked.findings if f.code == "MLC107"] == ["MLC107"]
    assert any(f.code == "MLC107" for f in found)


def test_a_crash_in_the_second_job_of_a_multi_rank_console_ends_the_watch(tmp_path: Path) -> None:
    """Two jobs of two ranks one after the other, the second killed while rank 0 wrote a record:
    the watch read both jobs' lines in its first lookahead with the first job's ranks, never
    said MLC023 and waited for ever (check, which chooses the ranks again after the launcher
    line, said it)."""
    from tool_scripts import load_tool

    make_raw = load_tool("make_raw")
    log = tmp_path / "console.log"
    log.write_bytes(make_raw.make_raw(GOOD.read_bytes(), make_raw.RawOptions(instances=2, runs=2, crash=True)))
    found: list[Finding] = []
    outcome = watch(str(log), found.append, lambda _text: None, runs=2, poll=0.01, idle_timeout=5)
    cut = [f for f in found if f.code == "MLC023"]
    assert len(cut) == 1 and cut[0].line == log.read_bytes().count(b"\n") - 2  # (the launcher's two lines after it)
    assert (outcome.reason, outcome.runs_done) == ("complete", 2)


def test_the_next_job_s_ranks_are_chosen_when_its_rank_0_has_printed(tmp_path: Path) -> None:
    """The watch starts when a seed loop's second job has printed one record, of rank 6: the
    first job's lookahead ends, the second job's lines wait for its rank 0 (rank 6 was taken for
    its logging rank: its crash was never said, and the watch waited for ever)."""
    from tool_scripts import load_tool

    make_raw = load_tool("make_raw")
    text = make_raw.make_raw(GOOD.read_bytes(), make_raw.RawOptions(instances=8, runs=2, crash=True, seed=8))
    lines = text.decode("utf-8").split("\n")[:-1]
    launch = max(i for i, line in enumerate(lines) if line.startswith("poprun: launching"))
    first = next(i for i in range(launch, len(lines)) if ":::MLLOG" in lines[i])
    assert not lines[first].startswith("[1,0]")  # (another rank prints first)
    found, _progress, runs_done, _lines = _watched(tmp_path / "console.log", lines[:first + 1], lines[first + 1:], 2)
    cut = [f.line for f in found if f.code == "MLC023"]
    assert cut == [len(lines) - 2] and runs_done == 2


def test_another_process_s_copy_of_the_run_written_after_a_quiet_spell_is_no_second_run(tmp_path: Path) -> None:
    """The run, then (after a quiet spell) another process's copy of it, its clock 4 s off: one run,
    as check reads it; watch --runs 2 keeps waiting (was: the copy's run_stop counted as a second
    run's, and the watch ended "complete"; a review, session 43)."""
    lines = GOOD.read_text("utf-8").splitlines()
    copy = [_TIME.sub(lambda m: f'"time_ms": {int(m.group(1)) + 4_000}', line) for line in lines]
    found, _progress, done, covered = _watched(tmp_path / "copy.log", lines, copy, runs=2)
    assert (done, covered) == (1, 2 * len(lines))
    assert len(check_log(LogRef(str(tmp_path / "copy.log")), None)) == 1
