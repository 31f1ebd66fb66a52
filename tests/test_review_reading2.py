"""Reading defects found by the second user review: integers of over 4300 digits and lone
surrogates in keys (tracebacks in split/watch, MLC000 in check), the logging rank of srun labels
and of jobs first met after the lookahead, one extra copy shifting every later comparison."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from conftest import FIXTURES
from mlcheck.checker import check_log
from mlcheck.cli import main
from mlcheck.package.discover import LogRef
from mlcheck.model import Finding

GOOD = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
HUGE_INT = ':::MLLOG {"key": "x", "value": ' + "9" * 5000 + ', "time_ms": 1652172957700, "metadata": {}}'


def _codes_and_lines(path: Path) -> tuple[list[tuple[str, int | None]], int]:
    results = check_log(LogRef(str(path)), None)
    found: list[Finding] = [f for r in results for f in r.findings]
    return sorted((f.code, f.line) for f in found if f.severity.label == "error"), len(results)


def test_integer_of_5000_digits_is_invalid_json_at_its_line_and_reading_goes_on(tmp_path: Path) -> None:
    lines = GOOD.read_text(encoding="utf-8").splitlines()
    log = tmp_path / "result_0.txt"
    log.write_text("\n".join(lines[:5] + [HUGE_INT] + lines[5:]) + "\n", encoding="utf-8")
    errors, runs = _codes_and_lines(log)
    assert errors == [("MLC003", 6)]
    assert runs == 1
    result = check_log(LogRef(str(log)), None)[0]
    assert result.converged and result.time_to_train_min is not None
    message = next(f.message for f in result.findings if f.code == "MLC003")
    assert "an integer of more than 4300 digits, which Python's json refuses" in message  # (mlcheck's words:
    assert "sys.set_int_max_str_digits" not in message  # Python's differ from 3.10 to 3.11, session 57)


def test_integer_of_5000_digits_in_split_and_raw_output(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text("[1,0]<stdout>:" + HUGE_INT + "\n", encoding="utf-8")
    outcome = CliRunner().invoke(main, ["split", str(log), "-o", str(tmp_path / "out")])
    assert outcome.exception is None or isinstance(outcome.exception, SystemExit), outcome.exception
    assert "MLC003" in outcome.stderr and "job.log:1" in outcome.stderr


def test_lone_surrogate_in_a_key_of_raw_output_is_read(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    record = '{"key": "a\\ud800", "value": 1, "time_ms": 16521729577%02d, "metadata": {}}'
    log.write_text("".join(f"[1,{rank}]<stdout>::::MLLOG " + record % rank + "\n" for rank in (0, 1)),
                   encoding="utf-8")
    for args in (["split", str(log), "-o", str(tmp_path / "out")],
                 ["check", str(log), "-f", "json"], ["check", str(log), "-f", "sarif"],
                 ["check", str(log)]):
        outcome = CliRunner().invoke(main, args)
        assert outcome.exception is None or isinstance(outcome.exception, SystemExit), (args, outcome.exception)
        assert outcome.exit_code in (0, 1), (args, outcome.output)
    assert (tmp_path / "out" / "result_0.txt").read_text(encoding="utf-8") == \
        ":::MLLOG " + record % 0 + "\n"


def _clean_records() -> bytes:
    return b"".join(line for line in GOOD.read_bytes().splitlines(keepends=True)
                    if line.startswith(b":::MLLOG"))


def _split(raw: Path, out: Path) -> str:
    outcome = CliRunner().invoke(main, ["split", str(raw), "-o", str(out)])
    assert outcome.exit_code == 0, outcome.output
    return outcome.stderr


def test_srun_labels_keep_task_0_even_when_another_task_prints_first(tmp_path: Path) -> None:
    from tool_scripts import load_tool
    make_raw = load_tool("make_raw")
    raw = tmp_path / "srun.log"
    raw.write_bytes(make_raw.make_raw(GOOD.read_bytes(), make_raw.RawOptions(instances=4, style="srun",
                                                                              noise=False, seed=3)))
    first = next(line for line in raw.read_bytes().splitlines() if b":::MLLOG" in line)
    assert not first.lstrip().startswith(b"0:")  # task 0 is not the first to print
    assert "records kept from srun task 0 (" in _split(raw, tmp_path / "out")
    assert (tmp_path / "out" / "result_0.txt").read_bytes() == _clean_records()


def _jobs_log(tmp_path: Path, runs: int) -> Path:
    """Raw output of ``runs`` runs, each launched by its own mpirun (job ids 1000, 2000, ...),
    the first runs long enough to push the later jobs past the reader's first lookahead."""
    from tool_scripts import load_tool
    make_raw = load_tool("make_raw")
    lines: list[bytes] = []
    starts = []
    for run in range(runs):
        for seed in range(run, 100):  # a run whose first record is not printed by rank 0
            raw = make_raw.make_raw(_clean_records(), make_raw.RawOptions(instances=16, seed=seed))
            first = next(line for line in raw.splitlines() if b":::MLLOG" in line)
            if not first.startswith(b"[1,0]"):
                break
        starts.append(len(lines))
        lines.extend(raw.replace(b"[1,", b"[%d," % (1000 * (run + 1))).splitlines(keepends=True))
    log = tmp_path / "jobs.log"
    log.write_bytes(b"".join(lines))
    assert starts[1] > 4000  # the second job starts after the first lookahead
    return log


def test_a_job_started_after_the_lookahead_keeps_its_lowest_rank(tmp_path: Path) -> None:
    log = _jobs_log(tmp_path, runs=3)
    message = _split(log, tmp_path / "out")
    assert ("records kept from rank 0 of job 1000 (", "rank 0 of job 2000 (", "rank 0 of job 3000 (") \
        == tuple(part for part in ("records kept from rank 0 of job 1000 (", "rank 0 of job 2000 (",
                                   "rank 0 of job 3000 (") if part in message)
    for index in range(3):
        assert (tmp_path / "out" / f"result_{index}.txt").read_bytes() == _clean_records()


def test_watch_keeps_the_lowest_rank_of_a_job_started_later(tmp_path: Path) -> None:
    from mlcheck.read.live_reader import LiveReader as _LiveReader
    log = _jobs_log(tmp_path, runs=2)
    live = _LiveReader(str(log))
    items = []
    data = log.read_bytes()
    for line in data[:-1].split(b"\n"):  # line ends only: a progress bar's \r stays in its line
        items.extend(live.add(line + b"\n"))
    items.extend(live.flush())
    assert live.reader is not None
    assert sorted(live.reader.stats.kept_sources) == [(1000, 0), (2000, 0)]
    assert [i.code for i in items if isinstance(i, Finding)] == ["MLC024"]  # the second job


def _two_ranks(tmp_path: Path) -> list[bytes]:
    from tool_scripts import load_tool
    make_raw = load_tool("make_raw")
    raw = make_raw.make_raw(GOOD.read_bytes(), make_raw.RawOptions(instances=2, noise=False))
    return raw.splitlines(keepends=True)


def _conflicts(tmp_path: Path, lines: list[bytes]) -> list[Finding]:
    log = tmp_path / "job.log"
    log.write_bytes(b"".join(lines))
    return [f for r in check_log(LogRef(str(log)), None) for f in r.findings if f.code == "MLC021"]


def test_one_extra_record_on_one_rank_is_one_conflict_that_says_what_differs(tmp_path: Path) -> None:
    lines = _two_ranks(tmp_path)
    at = next(i for i, line in enumerate(lines)
              if line.startswith(b"[1,1]") and b'"epoch_stop"' in line and b'"epoch_num": 3' in line)
    lines.insert(at + 1, lines[at].replace(b'"epoch_num": 3', b'"epoch_num": 99'))
    conflicts = _conflicts(tmp_path, lines)
    assert [f.line for f in conflicts] == [at + 2]
    assert "printed epoch_stop with metadata epoch_num 99 where rank 0 of job 1 printed epoch_num " \
        in conflicts[0].message


def test_one_missing_record_on_one_rank_is_no_cascade(tmp_path: Path) -> None:
    lines = _two_ranks(tmp_path)
    at = next(i for i, line in enumerate(lines)
              if line.startswith(b"[1,1]") and b'"epoch_start"' in line and b'"epoch_num": 2' in line)
    del lines[at]
    assert _conflicts(tmp_path, lines) == []


def test_a_bad_record_of_the_logging_rank_is_not_a_cascade_of_conflicts(tmp_path: Path) -> None:
    lines = _two_ranks(tmp_path)
    at = next(i for i, line in enumerate(lines)
              if line.startswith(b"[1,0]") and b'"epoch_stop"' in line and b'"epoch_num": 3' in line)
    lines[at] = lines[at].replace(b'"time_ms": ', b'"time_ms": null, "t": ')
    conflicts = _conflicts(tmp_path, lines)
    assert len(conflicts) <= 1


QUOTING = (':::MLLOG {"namespace": "", "time_ms": 1652083200000, "event_type": "POINT_IN_TIME", '
           '"key": "note", "value": "see :::MLLOG docs", "metadata": {"file": "t.py", "lineno": 1}}')


def test_a_value_quoting_the_marker_is_one_record(tmp_path: Path) -> None:
    clean = tmp_path / "result_0.txt"
    clean.write_text(QUOTING + "\n", encoding="utf-8")
    from mlcheck.read.reader import read_mllog
    items = list(read_mllog(str(clean)))
    assert [(i.key, i.value) for i in items if not isinstance(i, Finding)] == [("note", "see :::MLLOG docs")]
    # (in a result file the official parser cuts the line at the quoted ':::MLLOG ' and fails it)
    assert [(i.code, i.line) for i in items if isinstance(i, Finding)] == [("MLC003", 1)]
    console = tmp_path / "note.log"  # (raw output: read as one record, nothing to say)
    console.write_text(QUOTING + "\n", encoding="utf-8")
    assert [i for i in read_mllog(str(console)) if isinstance(i, Finding)] == []
    raw = tmp_path / "job.log"
    raw.write_text("[1,0]<stdout>:" + QUOTING + "\n", encoding="utf-8")
    _split(raw, tmp_path / "out")
    assert (tmp_path / "out" / "result_0.txt").read_text(encoding="utf-8") == QUOTING + "\n"


def test_split_of_glued_records_exits_0_and_says_the_files_are_fixed(tmp_path: Path) -> None:
    outcome = CliRunner().invoke(main, ["split", str(FIXTURES / "bad" / "glued_records.txt"), "-o",
                                        str(tmp_path / "out")])
    assert outcome.exit_code == 0, outcome.output
    assert "MLC010" in outcome.stderr and "the files written hold one record per line" in outcome.stderr


def _ranks_in_reverse(records: list[bytes], ranks: int = 4) -> list[bytes]:
    """Each record printed by ranks 3, 2, 1 and then 0 (time_ms shifted by the rank)."""
    import re
    lines = []
    for record in records:
        for rank in reversed(range(ranks)):
            copy = re.sub(rb'"time_ms": (\d+)', lambda m: b'"time_ms": %d' % (int(m.group(1)) + rank),
                          record, count=1)
            lines.append(b"[1,%d]<stdout>:" % rank + copy + b"\n")
    return lines


def test_records_starting_near_line_4000_still_keep_rank_0(tmp_path: Path) -> None:
    records = _clean_records().splitlines()
    log = tmp_path / "late.log"
    log.write_bytes(b"compiling graph ...\n" * 3998 + b"".join(_ranks_in_reverse(records)))
    message = _split(log, tmp_path / "out")
    assert "records kept from rank 0 of job 1 (" in message
    assert (tmp_path / "out" / "result_0.txt").read_bytes() == _clean_records()


def test_watch_waits_for_rank_0_before_choosing_the_logging_rank(tmp_path: Path) -> None:
    import json
    import threading
    import time
    records = _clean_records().splitlines()
    lines = _ranks_in_reverse(records)
    log = tmp_path / "live.log"

    def write() -> None:
        with open(log, "ab") as handle:
            for number, line in enumerate(lines):
                handle.write(line)
                handle.flush()
                if number < 3:
                    time.sleep(0.3)  # idle polls while only ranks 3, 2 and 1 have printed

    log.write_bytes(b"")
    writer = threading.Thread(target=write)
    writer.start()
    outcome = CliRunner().invoke(main, ["watch", str(log), "--format", "json", "--no-progress",
                                        "--poll", "0.05", "--idle-timeout", "10"])
    writer.join()
    assert outcome.exit_code == 0, outcome.output
    (run,) = json.loads(outcome.stdout)["runs"]
    assert run["verdict"] == "pass"


def test_a_cut_record_glued_to_the_next_jobs_first_record(tmp_path: Path) -> None:
    """Rank 0 of job 1 dies mid-record; job 2's first record lands on the same line, far past
    the first lookahead. The cut belongs to run 0, and job 2 keeps its rank 0."""
    records = _clean_records().splitlines()
    job1 = _ranks_in_reverse(records, ranks=16)[:16 * 270]  # > 4000 record lines
    cut = b"[1,0]<stdout>:" + records[270][: len(records[270]) // 2]
    job2 = [line.replace(b"[1,", b"[2,") for line in _ranks_in_reverse(records)]
    log = tmp_path / "jobs.log"
    log.write_bytes(b"".join(job1) + cut + b"".join(job2))
    results = check_log(LogRef(str(log)), None)
    assert [(r.index, r.verdict) for r in results][1] == (1, "pass")
    assert "MLC023" in {f.code for f in results[0].findings}
    outcome = CliRunner().invoke(main, ["split", str(log), "-o", str(tmp_path / "out")])
    assert outcome.exit_code == 1  # run 0 was cut: a damaged record
    assert "rank 0 of job 2 (" in outcome.stderr
    assert (tmp_path / "out" / "result_1.txt").read_bytes() == _clean_records()


def test_per_rank_folder_reads_the_lowest_rank_that_prints_records(tmp_path: Path) -> None:
    from mlcheck import check
    for rank in range(3):
        (tmp_path / "1" / f"rank.{rank}").mkdir(parents=True)
    (tmp_path / "1" / "rank.0" / "stdout").write_bytes(b"")
    (tmp_path / "1" / "rank.0" / "stderr").write_bytes(b"warning: x\n")
    for rank in (1, 2):
        (tmp_path / "1" / f"rank.{rank}" / "stdout").write_bytes(GOOD.read_bytes())
    result = check([str(tmp_path)])
    assert [r.path for r in result.runs] == [str(tmp_path / "1" / "rank.1" / "stdout")]
    assert result.runs[0].verdict == "pass"


def test_a_folder_of_raw_job_logs_is_not_judged_as_a_benchmark_folder(tmp_path: Path) -> None:
    from mlcheck import check
    (tmp_path / "job.log").write_bytes(GOOD.read_bytes())
    result = check([str(tmp_path)])
    assert [f.code for f in result.all_findings() if f.severity.label == "error"] == []
    (tmp_path / "result_0.txt").write_bytes(GOOD.read_bytes())
    (tmp_path / "job.log").unlink()
    assert "MLC502" in {f.code for f in check([str(tmp_path)]).all_findings()}  # a benchmark folder


def test_split_keeps_trailing_blanks_and_the_summary_counts_every_line(tmp_path: Path) -> None:
    from tool_scripts import load_tool
    make_raw = load_tool("make_raw")
    records = _clean_records().splitlines()
    log = tmp_path / "job.log"
    log.write_bytes(b"".join(b"[1,0]<stdout>:" + r + b"  \n" for r in records))
    _split(log, tmp_path / "out")
    assert (tmp_path / "out" / "result_0.txt").read_bytes() == b"".join(r + b"  \n" for r in records)
    stamped = tmp_path / "ts.log"
    stamped.write_bytes(make_raw.make_raw(GOOD.read_bytes(), make_raw.RawOptions(instances=4, style="ts")))
    crlf = tmp_path / "crlf.log"
    crlf.write_bytes(make_raw.make_raw(GOOD.read_bytes(), make_raw.RawOptions(instances=4, colour_crlf=True)))
    for path, counted in ((stamped, "timestamp prefixes removed"), (crlf, "CRLF line ends")):
        text = path.read_bytes()
        expected = text.count(b":::MLLOG") if path is stamped else text.count(b"\r\n")
        summary = next(f.message for r in check_log(LogRef(str(path)), None) for f in r.findings
                       if f.code == "MLC020")
        assert f"{expected} {counted}" in summary, summary


def test_a_rank_printing_every_record_on_stdout_and_stderr_is_read_once(tmp_path: Path) -> None:
    records = _clean_records().splitlines()
    lines = []
    for record in records:
        for rank in (0, 1):
            lines.append(b"[1,%d]<stderr>:" % rank + record + b"\n")  # stderr is unbuffered: first
            lines.append(b"[1,%d]<stdout>:" % rank + record + b"\n")
    log = tmp_path / "both.log"
    log.write_bytes(b"".join(lines))
    message = _split(log, tmp_path / "out")
    assert (tmp_path / "out" / "result_0.txt").read_bytes() == _clean_records()
    assert not (tmp_path / "out" / "result_1.txt").exists()
    assert "records kept from rank 0 of job 1" in message and "differ" not in message


def test_two_streams_with_different_records_are_both_kept(tmp_path: Path) -> None:
    records = _clean_records().splitlines()
    half = len(records) // 2
    lines = [b"[1,0]<stdout>:" + r + b"\n" for r in records[:half]]
    lines += [b"[1,0]<stderr>:" + r + b"\n" for r in records[half:]]
    log = tmp_path / "split_streams.log"
    log.write_bytes(b"".join(lines))
    _split(log, tmp_path / "out")
    assert (tmp_path / "out" / "result_0.txt").read_bytes() == _clean_records()
