"""Raw output of two MPI jobs that ran at once (``mpirun ... &`` twice into one console): each
job's records are read apart, as runs of their own (MLC030), by ``check``, ``split`` and
``watch``; jobs one after the other are read as before."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from conftest import FIXTURES
from mlcheck.cli import main
from mlcheck.read.concurrent_jobs import MIN_SWITCHES, concurrent_jobs, one_job_lines
from mlcheck.read.line_reader import MAX_LINE_BYTES

RESNET = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet"


def _job_lines(clean: Path, job: int, ranks: int = 2) -> list[bytes]:
    """The console lines of one job: every record printed by each of ``ranks`` ranks, with a line
    of the framework's own output every 50 records."""
    out = []
    for number, line in enumerate(clean.read_bytes().splitlines(keepends=True)):
        out.extend(f"[{job},{rank}]<stdout>:".encode() + line for rank in range(ranks))
        if number % 50 == 0:
            out.append(f"[{job},0]<stderr>:step {number} loss 1.5\n".encode())
    return out


def _interleaved(first: list[bytes], second: list[bytes], chunk: int = 3) -> list[bytes]:
    out: list[bytes] = []
    for at in range(0, max(len(first), len(second)), chunk):
        out += first[at:at + chunk] + second[at:at + chunk]
    return out


def _runs(stdout: str) -> list[tuple[str, float | None, list[tuple[str, int | None]]]]:
    return [(r["verdict"], r["time_to_train_min"], [(f["code"], f["line"]) for f in r["findings"]])
            for r in json.loads(stdout)["runs"]]


def _minutes(clean: Path) -> float:
    return json.loads(CliRunner().invoke(main, ["check", str(clean), "--format", "json"]).stdout)["runs"][0][
        "time_to_train_min"]


def _console(tmp_path: Path) -> tuple[Path, list[bytes]]:
    second = _job_lines(RESNET / "result_1.txt", 2)
    for at in [i for i, line in enumerate(second) if b'"lars_opt_end_learning_rate"' in line]:  # (both ranks' copies)
        tag, text = second[at].split(b":::MLLOG ", 1)
        record = json.loads(text)
        record["value"] = 0.5  # (a closed value the round fixes: MLC202 in job 2's run, at its physical line)
        second[at] = tag + b":::MLLOG " + json.dumps(record).encode() + b"\n"
    lines = [b"mpirun -np 2 python train.py &\n", b"mpirun -np 2 python train.py &\n",
             *_interleaved(_job_lines(RESNET / "result_0.txt", 1), second)]
    log = tmp_path / "console.log"
    log.write_bytes(b"".join(lines))
    return log, lines


def test_two_jobs_at_once_are_judged_as_two_runs_each_at_its_physical_lines(tmp_path: Path) -> None:
    log, lines = _console(tmp_path)
    wrong = next(i for i, line in enumerate(lines, 1) if b'"value": 0.5' in line)
    back = next(i for i, line in enumerate(lines, 1) if line.startswith(b"[1,") and i > 5 and
                lines[i - 2].startswith(b"[2,"))  # (job 1's first line after a line of job 2)
    checked = CliRunner().invoke(main, ["check", str(log), "--format", "json"])
    first, second = _runs(checked.stdout)
    assert first[:2] == ("pass", _minutes(RESNET / "result_0.txt"))
    assert ("MLC030", back) in first[2]
    assert second[:2] == ("fail", _minutes(RESNET / "result_1.txt"))
    assert ("MLC202", wrong) in second[2] and not any(code == "MLC202" for code, _ in first[2])
    assert {code for code, _ in first[2] + second[2]} <= {"MLC020", "MLC030", "MLC202"}


def test_two_jobs_at_once_on_stdin_are_read_as_from_the_file(tmp_path: Path) -> None:
    """Standard input is copied once to a temporary file, read again as the file is: each job apart
    (it was read once, as one stream: two failing runs cut in the wrong places, and split wrote one
    file of both jobs with exit 0)."""
    log, _ = _console(tmp_path)
    runner = CliRunner()
    from_file = runner.invoke(main, ["check", str(log), "--format", "json"])
    from_stdin = runner.invoke(main, ["check", "-", "--format", "json"], input=log.read_bytes())
    assert from_stdin.exit_code == from_file.exit_code == 1
    assert _runs(from_stdin.stdout) == _runs(from_file.stdout)
    assert [r["path"] for r in json.loads(from_stdin.stdout)["runs"]] == ["-", "-"]
    clean = tmp_path / "clean.log"
    clean.write_bytes(b"".join(_interleaved(_job_lines(RESNET / "result_0.txt", 1),
                                            _job_lines(RESNET / "result_2.txt", 2))))
    split = runner.invoke(main, ["split", "-", "-o", str(tmp_path / "out")], input=clean.read_bytes())
    assert split.exit_code == 0 and "MLC030" in split.output, split.output
    assert (tmp_path / "out" / "result_0.txt").read_bytes() == (RESNET / "result_0.txt").read_bytes()
    assert (tmp_path / "out" / "result_1.txt").read_bytes() == (RESNET / "result_2.txt").read_bytes()


def test_split_writes_each_job_s_run_as_its_result_file(tmp_path: Path) -> None:
    log = tmp_path / "console.log"
    log.write_bytes(b"".join(_interleaved(_job_lines(RESNET / "result_0.txt", 1), _job_lines(RESNET / "result_2.txt", 2))))
    split = CliRunner().invoke(main, ["split", str(log), "-o", str(tmp_path / "out")])
    assert split.exit_code == 0, split.output
    assert "MLC030" in split.output
    assert (tmp_path / "out" / "result_0.txt").read_bytes() == (RESNET / "result_0.txt").read_bytes()
    assert (tmp_path / "out" / "result_1.txt").read_bytes() == (RESNET / "result_2.txt").read_bytes()


def test_watch_says_so_at_once_and_ends_with_the_report_of_check(tmp_path: Path) -> None:
    log, _ = _console(tmp_path)
    runner = CliRunner()
    checked = runner.invoke(main, ["check", str(log), "--format", "json"])
    watched = runner.invoke(main, ["watch", str(log), "--runs", "2", "--format", "json", "--poll", "0.01"])
    assert watched.exit_code == checked.exit_code == 1, watched.output
    assert _runs(watched.stdout) == _runs(checked.stdout)
    assert "info MLC030 concurrent-jobs" in watched.stderr and "MLC202" not in watched.stderr  # (nothing live after it)


def test_jobs_one_after_the_other_are_not_concurrent_even_with_a_late_copy(tmp_path: Path) -> None:
    first, second = _job_lines(RESNET / "result_0.txt", 1), _job_lines(RESNET / "result_1.txt", 2)
    late = first.pop()  # (a rank of job 1 flushes its last copy after job 2 began)
    lines = first + second[:10] + [late] + second[10:]
    assert concurrent_jobs(lines).concurrent() == ()
    log = tmp_path / "console.log"
    log.write_bytes(b"".join(lines))
    runs = _runs(CliRunner().invoke(main, ["check", str(log), "--format", "json"]).stdout)
    assert [run[:2] for run in runs] == [("pass", _minutes(RESNET / "result_0.txt")),
                                         ("pass", _minutes(RESNET / "result_1.txt"))]
    assert not any(code == "MLC030" for run in runs for code, _ in run[2])


def test_the_order_needs_several_returns_and_the_filter_keeps_line_numbers() -> None:
    a, b = b"[1,0]<stdout>::::MLLOG {}\n", b"[2,0]<stdout>::::MLLOG {}\n"
    assert MIN_SWITCHES == 4
    assert concurrent_jobs([a, b, a, b, a]).concurrent() == ()  # (3 returns to a job: a late copy or two)
    assert concurrent_jobs([a, b, a, b, a, b]).concurrent() == (1, 2)
    noise = b"[2,1]<stderr>:warning\n"
    assert list(one_job_lines([a, b, noise, b"untagged\n", b"[2,0]<stdout>:cut"], 1)) == [
        a, b"\n", b"\n", b"untagged\n", b"\n"]  # (the file's last line, no LF after it: the other job's too)
    part = b"[2,0]<stdout>:" + b"x" * (MAX_LINE_BYTES - 14)  # (a part of an over-long line: the reader skips the rest)
    assert list(one_job_lines([a, part], 1)) == [a, part]
