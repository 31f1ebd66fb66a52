"""Raw job output: every case of issue 5 read into the same runs as the clean log, with the
repairs accounted for; the generator's raw versions of the whole shared corpus likewise."""

from __future__ import annotations

import os
import zlib
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from conftest import FIXTURES
from mlcheck.checker import check_log
from mlcheck.cli import main
from mlcheck.package.discover import LogRef, discover
from mlcheck.model import Finding, Run
from mlcheck.read.file_names import RESULT_FILE
from mlcheck.read.reader import read_mllog
from mlcheck.read.runs import split_runs
from mlcheck.results import RunResult
from tool_scripts import load_tool

RAW = FIXTURES / "raw"
BASE = RAW / "base.txt"


make_raw = load_tool("make_raw")


def _results(path: Path | str) -> list[RunResult]:
    return check_log(LogRef(str(path)), None)


@lru_cache(maxsize=4)
def _runs_read(path: str) -> list[Run]:
    """The runs of a log as ``check_log`` reads them, with every event (a result keeps a summary)."""
    one_run = RESULT_FILE.match(os.path.basename(path)) is not None
    return split_runs(read_mllog(path, keep_copies=one_run), path, one_run)[0]


def _events(result: RunResult) -> list[tuple[Any, ...]]:
    assert result.run is not None
    return [(e.key, e.value, dict(e.metadata), e.time_ms, e.event_type, e.namespace)
            for e in _runs_read(result.path)[result.index].events]


def _codes(result: RunResult, *, drop: tuple[str, ...] = ("MLC020", "MLC022", "MLC024")) -> list[str]:
    return sorted(f.code for f in result.findings if f.code not in drop)


def _same_runs(raw: list[RunResult], clean: list[RunResult]) -> None:
    assert len(raw) == len(clean)
    for got, want in zip(raw, clean):
        assert _events(got) == _events(want)
        assert got.time_to_train_min == want.time_to_train_min
        assert (got.verdict, got.official_verdict) == (want.verdict, want.official_verdict)
        assert _codes(got) == _codes(want)


def _summary(results: list[RunResult]) -> Finding:
    found = [f for r in results for f in r.findings if f.code == "MLC020"]
    assert len(found) == 1
    return found[0]


@pytest.mark.parametrize("name", ["mpi_ranks.log", "progress_cr.log", "colour_crlf.log",
                                  "timestamps.log", "srun_labels.log", "two_processes.log",
                                  "shared_line.log"])
def test_raw_fixture_reads_like_the_clean_run(name: str) -> None:
    raw, clean = _results(RAW / name), _results(BASE)
    _same_runs(raw, clean)
    assert _summary(raw).line is None


def test_summary_accounts_for_every_line() -> None:
    message = _summary(_results(RAW / "mpi_ranks.log")).message
    assert "120 lines" in message and "records kept from rank 0 of job 1 (29)" in message
    assert "87 copies printed by 3 other ranks dropped" in message
    assert "4 lines without a record dropped" in message


def test_records_of_two_ranks_on_one_line_are_not_glued_records() -> None:
    raw = _results(RAW / "shared_line.log")
    assert "MLC010" not in _codes(raw[0])
    assert "1 line holding several records" in _summary(raw).message


def test_a_clean_file_keeps_no_raw_summary() -> None:
    assert [f.code for f in _results(BASE)[0].findings] == []


def test_conflicting_copy_is_a_warning_at_its_line() -> None:
    raw = _results(RAW / "rank_conflict.log")
    conflicts = [f for f in raw[0].findings if f.code == "MLC021"]
    assert [(f.line, f.severity.label) for f in conflicts] == [(52, "warning")]
    assert "0.71" in conflicts[0].message and "rank 2 of job 1" in conflicts[0].message
    assert raw[0].run is not None and raw[0].run.evaluations[0].value == 0.7


def test_two_runs_in_one_file() -> None:
    raw = _results(RAW / "two_runs.log")
    assert [r.index for r in raw] == [0, 1]
    _same_runs(raw[:1], _results(BASE))
    _same_runs(raw[1:], _results(BASE))


def test_run_cut_off_by_the_next() -> None:
    raw = _results(RAW / "cut_off_by_next.log")
    assert [r.index for r in raw] == [0, 1]
    assert "MLC102" in _codes(raw[0]) and raw[0].verdict == "fail"
    _same_runs(raw[1:], _results(BASE))


@pytest.mark.parametrize("name,code", [("crash_mid_record.log", "MLC023"),
                                       ("crash_at_eof.log", "MLC004")])
def test_crash_is_a_finding_at_the_cut_line(name: str, code: str) -> None:
    raw = _results(RAW / name)
    assert [(f.code, f.line) for f in raw[0].findings if f.code == code] == [(code, 19)]
    outcome = CliRunner().invoke(main, ["check", str(RAW / name)])
    assert outcome.exit_code == 1


def test_per_rank_folder_reads_the_lowest_rank_once() -> None:
    refs, _ = discover([str(RAW / "per_rank")])
    assert [Path(r.path).relative_to(RAW).as_posix() for r in refs] == ["per_rank/1/rank.0/stdout"]
    raw = _results(refs[0].path)
    _same_runs(raw, _results(BASE))
    assert [f.code for f in raw[0].findings] == ["MLC022"]


def test_torchrun_log_dir_reads_the_lowest_ranks_stdout_once(tmp_path: Path) -> None:
    attempt = tmp_path / "logs" / "none_x1y2" / "attempt_0"  # (torchrun --log-dir logs --tee 3)
    for rank in (0, 1, 10):
        (attempt / str(rank)).mkdir(parents=True)
        (attempt / str(rank) / "stdout.log").write_bytes(BASE.read_bytes())
        (attempt / str(rank) / "stderr.log").write_bytes(b"")
    refs, _ = discover([str(tmp_path / "logs")])
    assert [Path(r.path).relative_to(attempt).as_posix() for r in refs] == ["0/stdout.log"]
    raw = _results(refs[0].path)
    _same_runs(raw, _results(BASE))
    notes = [f.message for f in raw[0].findings if f.code == "MLC022"]
    assert notes == ["this is rank 0's output of a per-rank output folder; the 2 other rank folders next "
                     "to it hold copies and were not read"]


def test_a_per_rank_folder_whose_last_rank_logs_what_the_first_does_not_is_warned_of(tmp_path: Path) -> None:
    """A pipeline's last stage logs the evaluations: rank.3/stdout holds eval_accuracy records the
    read rank.0/stdout lacks. MLC022 says so as a warning (it said the other ranks hold copies)."""
    lines = BASE.read_bytes().splitlines(keepends=True)
    evals = [line for line in lines if b'"key": "eval_accuracy"' in line]
    for rank in range(4):
        (tmp_path / "1" / f"rank.{rank}").mkdir(parents=True)
        body = [line for line in lines if line not in evals] if rank < 3 else [b"stage 3\n", *evals]
        (tmp_path / "1" / f"rank.{rank}" / "stdout").write_bytes(b"".join(body))
    refs, _ = discover([str(tmp_path)])
    (note,) = [f for f in _results(refs[0].path)[0].findings if f.code == "MLC022"]
    assert note.severity.name == "WARNING" and "rank.3/ logs eval_accuracy, which this file does not" in note.message


# -- the shared corpus through the generator ------------------------------------------------------

def _variants(relative: str) -> list[str]:
    """One variant a file (each of the 8 meets about 20 of the corpus's 170 files, 10 of the sample)."""
    names = sorted(make_raw.VARIANTS)
    return [names[zlib.crc32(relative.encode()) % len(names)]]


def test_corpus_raw_variants_read_and_split_like_the_clean_files(corpus: Path, tmp_path: Path) -> None:
    files = sorted(corpus.rglob("result_*.txt"))[::2]  # (a sample: each variant still meets ~10 files)
    assert files
    for number, clean_path in enumerate(files):
        relative = clean_path.relative_to(corpus).as_posix()
        clean_bytes = clean_path.read_bytes()
        clean = _results(clean_path)
        mllog = make_raw.records_of(clean_bytes)
        for variant in _variants(relative):
            options = make_raw.VARIANTS[variant]
            raw_path = tmp_path / f"{number}-{variant}.log"
            raw_path.write_bytes(make_raw.make_raw(clean_bytes, options))
            raw = _results(raw_path)
            assert len(raw) == options.runs, (relative, variant)
            for index in range(options.runs):
                _same_runs(raw[index:index + 1], clean)
            out = tmp_path / f"{number}-{variant}"
            split = CliRunner().invoke(main, ["split", str(raw_path), "-o", str(out)])
            assert split.exit_code == 0, (relative, variant, split.output)
            for index in range(options.runs):
                written = (out / f"result_{index}.txt").read_bytes()
                assert written == b"\n".join(mllog) + b"\n", (relative, variant, index)


def test_corpus_crashes_give_a_finding_at_the_cut_line(corpus: Path, tmp_path: Path) -> None:
    files = sorted(corpus.rglob("result_*.txt"))[::17]
    for number, clean_path in enumerate(files):
        noise = number % 2 == 0
        options = make_raw.RawOptions(instances=4, crash=True, noise=noise, runs=1 + number % 2)
        raw_path = tmp_path / f"crash-{number}.log"
        raw_path.write_bytes(make_raw.make_raw(clean_path.read_bytes(), options))
        lines = raw_path.read_bytes().split(b"\n")
        cut = max(i for i, line in enumerate(lines) if line.startswith(b"[1,0]<stdout>::::MLLOG")) + 1
        raw = _results(raw_path)
        codes = [(f.code, f.line) for r in raw for f in r.findings if f.code in ("MLC004", "MLC023")]
        assert codes == [("MLC023" if noise else "MLC004", cut)], clean_path
        assert raw[-1].verdict == "fail"
        outcome = CliRunner().invoke(main, ["check", str(raw_path), "--format", "json"])
        assert outcome.exit_code == 1 and "Traceback" not in outcome.output


def test_an_srun_label_after_a_cr_names_the_task_whose_line_the_cr_began(tmp_path: Path) -> None:
    """``1: text\\r0: :::MLLOG {...}``: the record is task 0's (its label follows the CR), not a copy
    of task 1's; ``0: REC\\r1: REC``: the second is task 1's copy. Both read as the clean run."""
    lines = BASE.read_text("utf-8").splitlines()
    noise = ["1: some output of task 1\r0: " + line for line in lines]
    copies = ["0: " + line + "\r1: " + line for line in lines]
    clean = check_log(LogRef(str(BASE)), None)[0]
    for name, text in (("noise.log", noise), ("copies.log", copies)):
        path = tmp_path / name
        path.write_text("\n".join(text) + "\n", "utf-8")
        [result] = check_log(LogRef(str(path)), None)
        assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min), name
        assert not [f for f in result.findings if f.severity.name != "INFO"], name


def test_a_utf16_file_says_it_is_utf16(tmp_path: Path) -> None:
    """Saved as UTF-16 (a Windows editor): no record is read, by mlcheck or the official parser;
    MLC009 at line 1 says why and how to convert it, and MLC002 fails the file."""
    path = tmp_path / "result_0.txt"
    path.write_bytes(BASE.read_text("utf-8").encode("utf-16"))
    [result] = check_log(LogRef(str(path)), None)
    found = {f.code: f for f in result.findings}
    assert found["MLC009"].line == 1 and "iconv -f UTF-16 -t UTF-8" in found["MLC009"].message
    assert result.verdict == "fail" and "MLC002" in found
    damaged = tmp_path / "damaged" / "result_0.txt"  # (two bytes of damage, then UTF-8 text)
    damaged.parent.mkdir()
    damaged.write_bytes(b"\xff\xfe not utf-8\n" + BASE.read_bytes())
    assert not [f for f in check_log(LogRef(str(damaged)), None)[0].findings if "UTF-16" in f.message]


def test_a_per_rank_folders_odd_siblings_neither_hang_nor_crash_the_read(tmp_path: Path) -> None:
    """The highest rank's file a FIFO (opening it waited forever), a sibling named 'rank.²' (int()
    raised: MLC000, the run not judged), a sibling line of many markers and no key (the key scan was
    quadratic): the rank read is judged, with its MLC022 note (session 36)."""
    import os

    for rank in ("0", "1", "²"):
        (tmp_path / "1" / f"rank.{rank}").mkdir(parents=True)
    (tmp_path / "1" / "rank.0" / "stdout").write_bytes(BASE.read_bytes())
    (tmp_path / "1" / "rank.1" / "stdout").write_bytes(b":::MLLOG " * 30000 + b"\n")
    os.mkfifo(tmp_path / "1" / "rank.²" / "stdout")
    [result] = _results(str(tmp_path / "1" / "rank.0" / "stdout"))
    assert [f.code for f in result.findings] == ["MLC022"] and result.verdict == "pass"
    (tmp_path / "1" / "rank.2").mkdir()
    os.mkfifo(tmp_path / "1" / "rank.2" / "stdout")
    [result] = _results(str(tmp_path / "1" / "rank.0" / "stdout"))
    assert [(f.code, f.severity.name) for f in result.findings] == [("MLC022", "INFO")]


@pytest.mark.parametrize("where", ["before-a-line", "end"])
def test_nul_bytes_a_crashed_network_file_system_left_are_no_text(where: str, tmp_path: Path) -> None:
    """A block of NULs (a client that died before its writes reached the server) in front of a
    rank's label leaves the label read: the clean run, no copy compared with the wrong record
    (was: the record untagged, kept, its copy compared with another: MLC021)."""
    records = BASE.read_bytes().splitlines(keepends=True)
    lines = [b"%d: " % rank + record for record in records for rank in (0, 1)]
    if where == "end":
        lines.append(b"\0" * 65536)
    else:  # (before rank 0's first eval: untagged, rank 1's copy of it is compared with its second)
        first_eval = next(i for i, line in enumerate(lines) if b'"eval_accuracy"' in line)
        lines[first_eval] = b"\0" * 4096 + lines[first_eval]
    log = tmp_path / "console.log"
    log.write_bytes(b"".join(lines))
    [clean] = check_log(LogRef(str(BASE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert {f.code for f in result.findings} - {"MLC020", "MLC031"} == {f.code for f in clean.findings}
    (unwritten,) = [f for f in result.findings if f.code == "MLC031"]  # (session 58: said, a warning at its line)
    assert unwritten.severity.name == "WARNING" and unwritten.line == (len(lines) if where == "end" else first_eval + 1)
