"""Raw console output found wrong by a review against the official checker (session 25): a line
of the job that only names the marker (a shell trace, a log message, source in a traceback) was
read as a broken record of the run and failed it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import FIXTURES, SHARED
from mlcheck.checker import check_log
from mlcheck.cli import main
from mlcheck.package.discover import LogRef

GOOD = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
MENTIONS = [
    "+ grep -c ':::MLLOG' /results/slurm-1234.out",
    '    print(":::MLLOG " + json.dumps(record))',
    '    mllogger.event(key=":::MLLOG eval_accuracy", value=accuracy)',
    "2023-05-01 12:00:00 - WARNING - mllog: skipped :::MLLOG line (rank 3)",
    "[1,0]<stderr>:+ grep ':::MLLOG' out.log",
    "+ echo ':::MLLOG {\"key\": \"cache_clear\", \"value\": true}'",
    "ValueError: could not parse line ':::MLLOG {\"key\": \"eval_accuracy\", \"value\": 0.5, \"metadata\": {}}'",
]


def _with_line(tmp_path: Path, name: str, inserted: str) -> tuple[Path, int]:
    lines = GOOD.read_text("utf-8").splitlines()
    at = len(lines) // 2
    log = tmp_path / name
    log.write_text("\n".join(lines[:at] + [inserted] + lines[at:]) + "\n", "utf-8")
    return log, at + 1


@pytest.mark.parametrize("inserted", MENTIONS)
def test_console_text_naming_the_marker_is_not_a_record(tmp_path: Path, inserted: str) -> None:
    log, line = _with_line(tmp_path, "job.log", inserted)
    (result,) = check_log(LogRef(str(log)), None)
    assert result.verdict == "pass" and [f.code for f in result.findings if f.severity.label == "error"] == []
    (named,) = [f for f in result.findings if f.code == "MLC023"]
    assert (named.line, named.severity.label) == (line, "warning") and "not read as a record" in named.message
    (read,) = [f for f in result.findings if f.code == "MLC020"]
    assert "1 line without a record dropped" in read.message
    out = tmp_path / "split"
    done = CliRunner().invoke(main, ["split", "-o", str(out), str(log)])
    assert done.exit_code == 0, done.output
    assert (out / "result_0.txt").read_text("utf-8") == GOOD.read_text("utf-8")


def test_in_a_result_file_the_official_parser_still_fails_on_such_a_line(tmp_path: Path) -> None:
    """The official parser reads every line holding ':::MLLOG ' of a result file and fails the
    file on one that does not parse: MLC003 there, as before; without the space it reads nothing
    there: MLC023's warning, as in raw output (session 58: MLC027 said to write the JSON it lacks)."""
    log, line = _with_line(tmp_path, "result_0.txt", MENTIONS[1])
    (result,) = check_log(LogRef(str(log)), None)
    assert [(f.code, f.line) for f in result.findings if f.severity.label == "error"] == [("MLC023", line)]
    log, line = _with_line(tmp_path, "result_1.txt", MENTIONS[0])
    (result,) = check_log(LogRef(str(log)), None)
    assert result.verdict == "pass" and ("MLC023", line, "warning") in [
        (f.code, f.line, f.severity.label) for f in result.findings]


def test_a_cut_record_in_console_output_is_still_an_error(tmp_path: Path) -> None:
    log, line = _with_line(tmp_path, "job.log", ':::MLLOG {"namespace": "", "time_ms": 16')
    (result,) = check_log(LogRef(str(log)), None)
    assert result.verdict == "fail" and ("MLC003", line) in [(f.code, f.line) for f in result.findings]


def _eval_line() -> tuple[list[str], int]:
    lines = GOOD.read_text("utf-8").splitlines()
    return lines, next(i for i, line in enumerate(lines) if '"key": "eval_accuracy"' in line)


@pytest.mark.parametrize("damage", ["WARNING: NCCL timeout ", "^[[0m", "-", "<stdout>:", "node001: ", '"'])
def test_a_record_damaged_after_its_marker_is_still_an_error(tmp_path: Path, damage: str) -> None:
    """Text glued between the marker and a record's JSON leaves a record damaged, not a mention:
    it stays an error at its line (a review of the first version of the mention rule)."""
    lines, at = _eval_line()
    lines[at] = lines[at].replace(":::MLLOG ", ":::MLLOG " + damage, 1)
    log = tmp_path / "job.log"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    (result,) = check_log(LogRef(str(log)), None)
    assert result.verdict == "fail" and any(f.line == at + 1 and f.severity.label == "error" for f in result.findings)


@pytest.mark.parametrize("blank", ["\x0c", "\u00a0"])
def test_a_record_after_other_blanks_is_read(tmp_path: Path, blank: str) -> None:
    lines, at = _eval_line()
    lines[at] = lines[at].replace(":::MLLOG ", ":::MLLOG " + blank, 1)
    log = tmp_path / "job.log"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    (result,) = check_log(LogRef(str(log)), None)
    assert not [f for f in result.findings if f.line == at + 1 and f.code == "MLC023"]


def test_a_record_cut_after_its_marker_by_other_output_is_joined(tmp_path: Path) -> None:
    """The marker, another process's text, the record's JSON on the next line (stderr inside a
    block-buffered stdout): the record is joined again where it starts and read, as its clean
    line is (was a warning, the eval lost; :mod:`mlcheck.read.cut_records`)."""
    lines, at = _eval_line()
    record = lines[at][len(":::MLLOG "):]
    lines[at:at + 1] = [":::MLLOG NCCL INFO Bootstrap : Using eth0", record]
    log = tmp_path / "job.log"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    (result,) = check_log(LogRef(str(log)), None)
    (clean,) = check_log(LogRef(str(GOOD)), None)
    assert [f.code for f in result.findings] == ["MLC020"] and "1 record cut by another stream's line" in result.findings[0].message
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert result.run is not None and clean.run is not None and len(result.run.evaluations) == len(clean.run.evaluations)


_CORPUS = SHARED / "corpus" / "training-2.0" / "Graphcore" / "results"


def _corpus_runs(folder: str, count: int) -> list[bytes]:
    base = _CORPUS / folder
    if not base.is_dir():
        pytest.skip(f"{base} is not present (../shared/corpus)")
    return [b"".join(line for line in (base / f"result_{i}.txt").read_bytes().splitlines(keepends=True)
                     if line.startswith(b":::MLLOG")) for i in range(count)]  # (the records, as split writes them)


def test_runs_whose_block_and_settings_come_before_cache_clear_split_without_a_launcher_line(tmp_path: Path) -> None:
    """Graphcore's RNN-T logs its submission block and hyper-parameters before cache_clear: two
    runs back to back are two passing runs whose files split writes as they were (was: the second
    run's block and settings given to the first run, the second failing MLC011/MLC105)."""
    first, second = _corpus_runs("ipu-pod64-POPART-open/rnnt", 2)
    log = tmp_path / "job.log"
    log.write_bytes(first + second)
    results = check_log(LogRef(str(log)), None)
    assert [r.verdict for r in results] == ["pass", "pass"]
    out = tmp_path / "split"
    assert CliRunner().invoke(main, ["split", "-o", str(out), str(log)]).exit_code == 0
    assert [(out / f"result_{i}.txt").read_bytes() for i in range(2)] == [first, second]


@pytest.mark.parametrize("launcher", [b"+ poprun --num-instances 1 python bert.py\n", b""])
def test_a_run_killed_late_in_its_initialisation_keeps_its_records(tmp_path: Path, launcher: bytes) -> None:
    """A run killed half an hour into its initialisation (BERT logs weights_initialization for
    26 minutes), then run again: its records after the 10-minute mark stay its own, whether a
    launcher line separates the attempts or not (was: given to the next attempt, which failed
    MLC206)."""
    first, second = _corpus_runs("ipu-pod16-POPART-closed/bert", 2)
    killed = b"".join(first.splitlines(keepends=True)[:300])
    log = tmp_path / "job.log"
    log.write_bytes(killed + launcher + second)
    results = check_log(LogRef(str(log)), None)
    assert [r.verdict for r in results] == ["fail", "pass"]
    out = tmp_path / "split"
    CliRunner().invoke(main, ["split", "-o", str(out), str(log)])
    assert (out / "result_0.txt").read_bytes() == killed and (out / "result_1.txt").read_bytes() == second
