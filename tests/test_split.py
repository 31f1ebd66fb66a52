"""``mlcheck split``: the runs of raw output as result files, byte for byte, never overwriting."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import FIXTURES, time_shifted
from mlcheck import check
from mlcheck.cli import main
from mlcheck.raw.split import SplitError, split_log

RAW = FIXTURES / "raw"
BASE_LINES = (RAW / "base.txt").read_bytes()


def _runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]  # click < 8.2
    except TypeError:
        return CliRunner()  # click >= 8.2 keeps stderr apart


def _split(*args: str) -> tuple[int, str, str]:
    outcome = _runner().invoke(main, ["split", *args])
    return outcome.exit_code, outcome.stdout, outcome.stderr


def test_two_runs_become_two_result_files(tmp_path: Path) -> None:
    code, out, err = _split(str(RAW / "two_runs.log"), "-o", str(tmp_path))
    assert code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result_0.txt", "result_1.txt"]
    assert (tmp_path / "result_0.txt").read_bytes() == BASE_LINES
    assert (tmp_path / "result_1.txt").read_bytes() == BASE_LINES
    assert "result_1.txt: 29 records" in out
    assert "MLC020" in err and "6 lines without a record dropped" in err


def test_ranks_colour_and_crlf_are_removed(tmp_path: Path) -> None:
    for name in ("mpi_ranks.log", "colour_crlf.log", "timestamps.log", "progress_cr.log",
                 "shared_line.log", "two_processes.log", "srun_labels.log"):
        out = tmp_path / name
        assert _split(str(RAW / name), "-o", str(out))[0] == 0
        assert (out / "result_0.txt").read_bytes() == BASE_LINES, name


def test_refuses_to_overwrite_unless_forced(tmp_path: Path) -> None:
    (tmp_path / "result_1.txt").write_bytes(b"keep me\n")
    code, _out, err = _split(str(RAW / "two_runs.log"), "-o", str(tmp_path))
    assert code == 2 and "result_1.txt exists" in err and "--force" in err
    assert (tmp_path / "result_1.txt").read_bytes() == b"keep me\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result_1.txt"]  # nothing half-written
    code, _out, _err = _split(str(RAW / "two_runs.log"), "-o", str(tmp_path), "--force")
    assert code == 0 and (tmp_path / "result_1.txt").read_bytes() == BASE_LINES


def test_start_index(tmp_path: Path) -> None:
    result = split_log(str(RAW / "two_runs.log"), str(tmp_path), start_index=3)
    assert [Path(p).name for p in result.written] == ["result_3.txt", "result_4.txt"]
    assert result.records == (29, 29)


def test_start_index_collision_is_refused_before_reading(tmp_path: Path) -> None:
    (tmp_path / "result_0.txt").write_bytes(b"x\n")
    try:
        split_log(str(RAW / "base.txt"), str(tmp_path))
    except SplitError as error:
        assert "result_0.txt exists" in str(error)
    else:
        raise AssertionError("overwrote result_0.txt")


def test_crash_writes_the_records_as_printed_and_exits_1(tmp_path: Path) -> None:
    """The record the kill cut is written as printed, as the run read from the console is judged
    with it (MLC023): the result file fails as the run does."""
    code, out, err = _split(str(RAW / "crash_mid_record.log"), "-o", str(tmp_path))
    assert code == 1
    assert "crash_mid_record.log:19: error MLC023" in err
    assert "result_0.txt: 15 records and 1 refused line written as printed (no run_stop" in out
    lines = (tmp_path / "result_0.txt").read_bytes().splitlines(keepends=True)
    cut = (RAW / "crash_mid_record.log").read_bytes().splitlines()[18].split(b"<stdout>:", 1)[1]
    assert b"".join(lines) == b"".join(BASE_LINES.splitlines(keepends=True)[:15]) + cut.rstrip(b"\r\n") + b"\n"


def test_gzip_from_stdin(tmp_path: Path) -> None:
    data = gzip.compress((RAW / "mpi_ranks.log").read_bytes(), mtime=0)
    stdin = tmp_path / "in.gz"
    stdin.write_bytes(data)
    out = tmp_path / "out"
    outcome = CliRunner().invoke(main, ["split", str(stdin), "-o", str(out)])
    assert outcome.exit_code == 0
    assert (out / "result_0.txt").read_bytes() == BASE_LINES


def test_no_records_writes_nothing(tmp_path: Path) -> None:
    empty = tmp_path / "noise.log"
    empty.write_bytes(b"poprun: nothing to see\n")
    code, _out, err = _split(str(empty), "-o", str(tmp_path / "out"))
    assert code == 2 and "nothing written" in err
    assert not (tmp_path / "out").exists()  # nothing written, and no empty folder left behind


def _killed_then_rerun(tmp_path: Path, after: str | None = None) -> tuple[Path, list[bytes]]:
    """The example run cut two thirds in (or right after its ``after`` record: the job killed, no
    run_stop, no launcher line after it), then the whole run again an hour later in the same
    console."""
    example = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
    lines = example.read_bytes().splitlines(keepends=True)
    again = time_shifted(lines, 3_600_000)
    path = tmp_path / "console.log"
    cut = 2 * len(lines) // 3 if after is None else next(
        i + 1 for i, line in enumerate(lines) if f'"key": "{after}"'.encode() in line)
    path.write_bytes(b"".join(lines[:cut]) + b"Killed\n" + b"".join(again))
    return path, again


@pytest.mark.parametrize("after", [None, "init_stop"])
def test_a_killed_run_and_its_rerun_without_a_launcher_line_are_two_runs(tmp_path: Path, after: str | None) -> None:
    """An init_start after the run's initialisation ended (its init_stop; its training began)
    and after all its records begins the next run (mlcheck.read.next_run): check and split both
    see two runs, the rerun whole."""
    from mlcheck import check

    path, again = _killed_then_rerun(tmp_path, after)
    runs = check([str(path)]).runs
    assert [(r.verdict, r.converged) for r in runs] == [("fail", False), ("pass", True)]
    example = check([str(FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt")])
    assert runs[1].time_to_train_min == example.runs[0].time_to_train_min
    out = tmp_path / "out"
    code, said, _err = _split(str(path), "-o", str(out))
    assert code == 0 and (out / "result_1.txt").read_bytes() == b"".join(again)
    # (the killed run is written, a failed run of the benchmark, and said to be one)
    lacking = "no run_stop" if after is None else "no run_start and no run_stop"
    written = len((out / 'result_0.txt').read_bytes().splitlines())
    assert f"result_0.txt: {written} records ({lacking}: the run crashed" in said
    assert f"result_1.txt: {len(again)} records\n" in said


def test_a_record_cut_by_the_kill_belongs_to_the_killed_run(tmp_path: Path) -> None:
    """The kill cut a record and the rerun's first record follows it on its line: the MLC023 of
    the cut (a record cut short, not malformed JSON) is the killed run's, and the rerun passes as
    its split file does."""
    from mlcheck import check

    path, again = _killed_then_rerun(tmp_path)
    text = path.read_bytes().replace(b"Killed\n", b"")
    cut = text.index(again[0])
    last = text.rindex(b"\n", 0, cut - 1) + 1
    text = text[:last] + text[last:cut - 1][:40] + text[cut:]  # (the killed run's last record cut, no line end)
    path.write_bytes(text)
    runs = check([str(path)]).runs
    assert [r.verdict for r in runs] == ["fail", "pass"]
    assert [(f.code, f.line) for f in runs[0].findings if f.code in ("MLC003", "MLC023")] == [
        ("MLC023", text[:last].count(b"\n") + 1)]  # (the line the cut and the rerun share)


def test_split_of_a_per_rank_folder_splits_the_lowest_ranks_output(tmp_path: Path) -> None:
    outcome = CliRunner().invoke(main, ["split", str(RAW / "per_rank"), "-o", str(tmp_path / "out")])
    assert outcome.exit_code == 0, outcome.output
    assert "rank.0/stdout, the lowest rank's output" in outcome.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["result_0.txt"]


def test_split_of_any_other_folder_says_it_takes_one_log(tmp_path: Path) -> None:
    outcome = CliRunner().invoke(main, ["split", str(FIXTURES / "example"), "-o", str(tmp_path / "out")])
    assert outcome.exit_code == 2
    assert "is a folder (it holds 5 logs); split takes one raw log" in outcome.stderr
    assert "named like a log" not in outcome.stderr and not (tmp_path / "out").exists()


def test_a_folder_read_as_a_log_is_not_said_to_be_named_like_one(tmp_path: Path) -> None:
    from mlcheck.read.reader import read_mllog
    (tmp_path / "logs").mkdir()
    (tmp_path / "result_0.txt").mkdir()
    plain = [f.message for f in read_mllog(str(tmp_path / "logs")) if getattr(f, "code", "") == "MLC001"]
    named = [f.message for f in read_mllog(str(tmp_path / "result_0.txt")) if getattr(f, "code", "") == "MLC001"]
    assert plain and plain[0].startswith("a folder, not a log file")
    assert named and named[0].startswith("a folder named like a log")


def _eval_from_another_rank(tmp_path: Path) -> tuple[Path, int]:
    """A clean run as raw output of rank 0, but for its eval_accuracy records: rank 3 prints them
    (as a last pipeline stage may); returns the log and the line of the first eval_accuracy."""
    clean = (FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt").read_text()
    lines = [("[1,3]<stdout>:" if '"key": "eval_accuracy"' in line else "[1,0]<stdout>:") + line
             for line in clean.splitlines(keepends=True)]
    log = tmp_path / "job.log"
    log.write_text("".join(lines))
    return log, 1 + next(i for i, line in enumerate(lines) if line.startswith("[1,3]"))


def test_records_only_another_rank_printed_are_kept_in_their_place(tmp_path: Path) -> None:
    log, first = _eval_from_another_rank(tmp_path)
    from mlcheck import check
    (run,) = check([str(log)]).runs
    assert [(f.code, f.line, f.severity.name) for f in run.findings if f.code == "MLC028"] == [
        ("MLC028", None, "INFO")]
    assert run.verdict == "pass" and run.converged
    outcome = CliRunner().invoke(main, ["split", str(log), "-o", str(tmp_path / "out")])
    assert outcome.exit_code == 0, outcome.output
    clean = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
    assert (tmp_path / "out" / "result_0.txt").read_bytes() == clean.read_bytes()


def test_from_standard_input_they_are_kept_as_from_the_file(tmp_path: Path) -> None:
    """Standard input is copied to a temporary file and read again as the file is (it was read
    once: the records were left out, a warning, and split exited 1)."""
    log, _first = _eval_from_another_rank(tmp_path)
    checked = CliRunner().invoke(main, ["check", "-", "--format", "json", "--no-progress"], input=log.read_bytes())
    import json
    (run,) = json.loads(checked.stdout)["runs"]
    assert [(f["code"], f["line"], f["severity"]) for f in run["findings"] if f["code"] == "MLC028"] == [
        ("MLC028", None, "info")]
    assert run["verdict"] == "pass"
    outcome = CliRunner().invoke(main, ["split", "-", "-o", str(tmp_path / "out")], input=log.read_bytes())
    assert outcome.exit_code == 0, outcome.output
    clean = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
    assert (tmp_path / "out" / "result_0.txt").read_bytes() == clean.read_bytes()


def _cut_by_rank_1(continued: bool) -> list[str]:
    """The example's records printed by ranks 0 and 1 of an mpirun job, rank 0's run_stop cut
    by rank 1's whole line (mpirun's chunks): rank 0's line goes on at the next line, or never."""
    clean = (FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt").read_text()
    lines = []
    for line in clean.splitlines(keepends=True):
        if '"key": "run_stop"' in line:  # rank 1's whole line lands inside rank 0's
            lines += [f"[1,0]<stdout>:{line[:60]}[1,1]<stdout>:{line}"]
            lines += [f"[1,0]<stdout>:{line[60:]}"] if continued else []
        else:
            lines += [f"[1,0]<stdout>:{line}", f"[1,1]<stdout>:{line}"]
    return lines


def test_a_record_cut_by_another_ranks_line_and_continued_is_joined(tmp_path: Path) -> None:
    """mpirun's next chunk of rank 0 ends its run_stop: the record is read whole (rank 1's is
    its copy), and ``split`` writes the clean file."""
    log = tmp_path / "job.log"
    log.write_text("".join(_cut_by_rank_1(continued=True)))
    from mlcheck import check
    (run,) = check([str(log)]).runs
    assert (run.verdict, [f.code for f in run.findings]) == ("pass", ["MLC020"])
    assert "1 line of a rank that mpirun's output chunks cut (its tag inside the line) joined again" in \
        run.findings[0].message
    outcome = CliRunner().invoke(main, ["split", str(log), "-o", str(tmp_path / "out")])
    example = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
    assert outcome.exit_code == 0 and (tmp_path / "out" / "result_0.txt").read_text() == example.read_text()


def test_a_record_cut_by_another_ranks_record_on_its_line_says_so(tmp_path: Path) -> None:
    """Rank 0 never ends its run_stop (it died): the cut record is a warning at its line."""
    lines = _cut_by_rank_1(continued=False)
    log = tmp_path / "job.log"
    log.write_text("".join(lines))
    cut_line = 1 + next(i for i, line in enumerate(lines) if line.count(":::MLLOG") == 2)
    from mlcheck import check
    (run,) = check([str(log)]).runs
    (cut,) = [f for f in run.findings if f.code == "MLC023"]
    assert (cut.line, cut.official, cut.severity.name) == (cut_line, False, "WARNING")
    assert "cut by another record printed on the same line" in cut.message
    # rank 1's whole copy of run_stop stands for it (read again: MLC028), as the official parser
    # reads the last record of the line
    assert run.converged and [f.severity.name for f in run.findings if f.code == "MLC028"] == ["INFO"]


def _job_of(tmp_path: Path, order: list[int]) -> Path:
    """The example's ResNet result files, in ``order``, as one job's output (a launcher line each)."""
    example = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet"
    path = tmp_path / "job.log"
    path.write_bytes(b"".join(b"+ mpirun -np 8 python train.py\n" + (example / f"result_{i}.txt").read_bytes()
                              for i in order))
    return path


def test_the_runs_of_raw_output_get_the_checks_of_the_folder_split_writes(tmp_path: Path) -> None:
    from mlcheck.checker import check

    clean = check([str(_job_of(tmp_path, [0, 1, 2, 3, 4]))]).benchmarks[0]
    assert len(clean.runs) == 5 and clean.score.valid and clean.rcp is not None and clean.rcp.verdict == "pass"
    job = _job_of(tmp_path, [0, 1, 2, 3, 0])  # (the first run twice: one seed for two runs)
    raw = check([str(job)]).benchmarks[0]
    assert not raw.score.valid and "MLC519" in raw.score.reason
    assert [(f.code, f.severity.label) for f in raw.findings if f.code == "MLC519"] == [("MLC519", "error")]
    code, _out, _err = _split(str(job), "-o", str(tmp_path / "split"))
    assert code == 0
    folder = check([str(tmp_path / "split")]).benchmarks[0]
    assert not folder.score.valid and "MLC519" in folder.score.reason


def test_text_after_a_records_json_in_raw_output_is_told_and_left_out(tmp_path: Path) -> None:
    from mlcheck.checker import check

    lines = BASE_LINES.splitlines(keepends=True)
    lines[7] = lines[7].rstrip(b"\n") + b" done\n"  # (the official parser fails a file with it: Extra data)
    job = tmp_path / "job.log"
    job.write_bytes(b"".join(lines))
    run = check([str(job)]).runs[0]
    told = [f.message for f in run.findings if f.code == "MLC020"]
    assert len(told) == 1 and "1 record with text after the JSON (the first at line 8), dropped" in told[0]
    code, _out, _err = _split(str(job), "-o", str(tmp_path / "out"))
    assert code == 0 and (tmp_path / "out" / "result_0.txt").read_bytes() == BASE_LINES


def test_torchrun_ranks_inside_srun_tasks_are_ranks_whose_copies_are_dropped(tmp_path: Path) -> None:
    from mlcheck.checker import check

    job = tmp_path / "job.log"  # (srun --label over torchrun --tee: every rank prints every record)
    job.write_bytes(b"".join(b"%d: [default%d]:%s" % (task, local, line)
                             for line in BASE_LINES.splitlines(keepends=True) for task in (0, 1) for local in (0, 1)))
    run = check([str(job)]).runs[0]
    told = [f.message for f in run.findings]
    assert [f.code for f in run.findings] == ["MLC020"], told
    assert "records kept from srun task 0 (torchrun rank 0) (29); 87 copies printed by 3 other ranks dropped" in told[0]
    code, _out, _err = _split(str(job), "-o", str(tmp_path / "out"))
    assert code == 0 and (tmp_path / "out" / "result_0.txt").read_bytes() == BASE_LINES


def test_a_broken_record_every_rank_printed_is_one_finding_and_its_copies_are_copies(tmp_path: Path) -> None:
    from mlcheck.checker import check

    lines = BASE_LINES.splitlines(keepends=True)
    for number in (7, 15):  # (global_batch_size, and the first eval_start: a key met again later)
        lines[number] = lines[number].replace(b'"metadata"', b'"metadata" {', 1)
        job = tmp_path / f"job{number}.log"
        job.write_bytes(b"".join(b"%d: %s" % (task, line) for line in lines for task in (0, 1)))
        run = check([str(job)]).runs[0]
        assert [(f.code, f.line) for f in run.findings if f.code != "MLC020"] == [("MLC003", 2 * number + 1)]
        told = [f.message for f in run.findings if f.code == "MLC020"][0]
        assert f"records kept from srun task 0 ({len(lines) - 1}); {len(lines)} copies printed by 1 other rank " \
               "dropped; " in told
        lines[number] = BASE_LINES.splitlines(keepends=True)[number]


def test_records_without_a_space_after_the_marker_are_written_with_it_and_said(tmp_path: Path) -> None:
    """Raw output whose records read ':::MLLOG{' (or a tab): check reads them, so split writes them
    with the official parser's token ':::MLLOG ', and the written file gets the run's verdict (it
    was written as printed, and the official checker then read no record of it: MLC002)."""
    log = tmp_path / "job.log"
    example = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
    text = example.read_text("utf-8")
    log.write_text(text.replace(":::MLLOG {", ":::MLLOG{").replace(":::MLLOG{", ":::MLLOG\t{", 5), "utf-8")
    assert check([str(log)]).runs[0].verdict == "pass"
    result = split_log(str(log), str(tmp_path / "out"))
    (written,) = result.written
    assert Path(written).read_text("utf-8") == text
    assert check([written]).runs[0].verdict == "pass"
    (said,) = [f for f in result.findings if f.code == "MLC027"]
    assert (said.path, said.line) == (str(log), 1) and said.message.startswith("303 record(s) printed with no "
                                                                               "space after :::MLLOG")


@pytest.mark.parametrize("tagged", [False, True])
def test_a_record_cut_and_never_joined_is_written_so_the_file_fails_as_the_run_does(tmp_path: Path,
                                                                                    tagged: bool) -> None:
    """A block-buffered write cuts a mid-run eval_accuracy, a warning line comes between its two
    parts: the record is unreadable, the run fails on it (MLC003 untagged, MLC023 behind rank tags),
    and split writes its first part as printed: the result file fails as the run does (it was left
    out, and the official checker passed the written file)."""
    example = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
    lines = example.read_text("utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if '"eval_accuracy"' in line)
    cut = lines[at].index("\"value\": ") + len("\"value\": 0.40")  # (within the number)
    pieces = lines[:at] + [lines[at][:cut], "WARNING:root:something happened", lines[at][cut:]] + lines[at + 1:]
    if tagged:  # (rank 0 cut on stdout, its warning on stderr; rank 1 prints the whole record)
        pieces = [f"[1,0]<{'stderr' if p.startswith('WARNING') else 'stdout'}>:{p}" for p in pieces] + \
                 [f"[1,1]<stdout>:{line}" for line in lines]
    log = tmp_path / "job.log"
    log.write_text("\n".join(pieces) + "\n", "utf-8")
    (run,) = check([str(log)]).runs
    assert run.verdict == "fail" and (("MLC023" if tagged else "MLC003"), at + 1) in [
        (f.code, f.line) for f in run.findings if f.severity.name == "ERROR"]
    result = split_log(str(log), str(tmp_path / "out"))
    (written,) = result.written
    text = Path(written).read_text("utf-8").splitlines()
    assert text[at] == lines[at][:cut]
    assert len(text) == len(lines) and check([written]).runs[0].official_verdict == "fail"


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="needs mkfifo")
def test_sigterm_unwinds_split_as_ctrl_c_does(tmp_path: Path) -> None:
    """A CI time-out's SIGTERM during split: mlcheck exits 143 having removed what it made (the
    output folder, a .partial file), as on Ctrl-C (it died by the signal and left them, session 36)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    fifo, out = tmp_path / "console.fifo", tmp_path / "out"
    os.mkfifo(fifo)
    process = subprocess.Popen([sys.executable, "-c", "from mlcheck.cli import run; run()", "split", str(fifo),
                                "-o", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(fifo, "wb") as writer:
        writer.write(BASE_LINES[: len(BASE_LINES) // 2])
        writer.flush()
        deadline = time.monotonic() + 30
        while not out.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert out.exists()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 143
    assert not out.exists()
