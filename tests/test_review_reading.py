"""Reading defects found by the user review: raw output submitted as a result file (MLC013),
deeply nested JSON (MLC003, not MLC000), over-long lines (MLC014, bounded memory)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import FIXTURES, ROOT
from mlcheck.read import reader
from mlcheck.checker import check_log
from mlcheck.cli import main
from mlcheck.package.discover import LogRef
from mlcheck.model import Event, Finding, Severity

RAW = FIXTURES / "raw"
RECORD = ':::MLLOG {"namespace": "", "time_ms": 1652083200000, "event_type": "POINT_IN_TIME", ' \
         '"key": "seed", "value": 1, "metadata": {"file": "t.py", "lineno": 1}}'


def _findings(path: Path, code: str) -> list[Finding]:
    return [f for r in check_log(LogRef(str(path)), None) for f in r.findings if f.code == code]


def _as_result_file(tmp_path: Path, fixture: str) -> Path:
    target = tmp_path / "resnet" / "result_0.txt"
    target.parent.mkdir()
    shutil.copy(RAW / fixture, target)
    return target


@pytest.mark.parametrize("fixture", ["colour_crlf.log"])
def test_raw_result_file_the_official_parser_fails_is_an_official_error(tmp_path: Path,
                                                                       fixture: str) -> None:
    found = _findings(_as_result_file(tmp_path, fixture), "MLC013")
    assert [(f.severity, f.official, f.line) for f in found] == [(Severity.ERROR, True, 1)]  # (the first such line)
    assert "mlcheck split" in found[0].message


def test_a_raw_result_file_with_a_shared_line_is_read_as_the_official_parser_reads_it(tmp_path: Path) -> None:
    """Two records of a rank on line 6: the official parser reads the last one only and passes the
    file (checked with mlperf-logging 4.1.68, ruleset 2.0.0); so does mlcheck (MLC010, a warning),
    and MLC020 only says that it is raw output (read as the official parser reads it): no MLC013."""
    [result] = check_log(LogRef(str(_as_result_file(tmp_path, "shared_line.log"))), None)
    assert [(f.code, f.severity, f.line) for f in result.findings if f.code in ("MLC010", "MLC013", "MLC020")] == [
        ("MLC020", Severity.INFO, None), ("MLC010", Severity.WARNING, 6)]
    assert (result.verdict, result.official_verdict) == ("pass", "pass")


@pytest.mark.parametrize("fixture", ["mpi_ranks.log", "srun_labels.log"])
def test_raw_result_file_is_read_with_every_rank_copy(tmp_path: Path, fixture: str) -> None:
    # A result file is read as the official parser reads it: every rank's copy is a record, so
    # the copies are duplicates judged by the round's rules (identical copies: the checker warns).
    log = _as_result_file(tmp_path, fixture)
    assert _findings(log, "MLC013") == []
    (found,) = _findings(log, "MLC020")
    assert "the other findings say whether it passes" in found.message and "mlcheck split" in found.message
    assert _findings(log, "MLC107") and not _findings(log, "MLC106")


@pytest.mark.parametrize("fixture", ["timestamps.log", "progress_cr.log"])
def test_raw_result_file_the_official_parser_tolerates_is_information(tmp_path: Path,
                                                                       fixture: str) -> None:
    # (published result files are often such output: 16 of a sample of 38 of round 6.0)
    # One finding says it: MLC020, the summary of what was removed, with the note (no MLC013).
    log = _as_result_file(tmp_path, fixture)
    assert _findings(log, "MLC013") == []
    (found,) = _findings(log, "MLC020")
    assert (found.severity, found.official) == (Severity.INFO, False)
    assert "the official parser reads it as mlcheck does" in found.message


def test_raw_log_not_named_result_file_keeps_only_the_summary() -> None:
    results = check_log(LogRef(str(RAW / "mpi_ranks.log")), None)
    codes = [f.code for r in results for f in r.findings]
    assert "MLC013" not in codes and codes.count("MLC020") == 1


def test_split_of_a_raw_result_file_does_not_ask_for_split(tmp_path: Path) -> None:
    from mlcheck.raw.split import split_log

    result = split_log(str(_as_result_file(tmp_path, "mpi_ranks.log")), str(tmp_path / "out"))
    assert [f.code for f in result.findings] == ["MLC020"]


def test_review_reproduction_raw_graphcore_result_file_fails(tmp_path: Path, corpus: Path) -> None:
    folder = tmp_path / "Graphcore"
    shutil.copytree(corpus / "training-2.0" / "Graphcore" / "results" / "ipu-pod16-TF1-closed" / "resnet",
                    folder / "results" / "ipu-pod16-TF1-closed" / "resnet")
    bench = folder / "results" / "ipu-pod16-TF1-closed" / "resnet"
    raw = tmp_path / "raw0"
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "make_raw.py"), str(bench / "result_0.txt"),
                           "-o", str(raw), "--instances", "4"], capture_output=True)
    assert done.returncode == 0, done.stderr
    shutil.copy(raw, bench / "result_0.txt")
    result = CliRunner().invoke(main, ["check", str(bench), "-f", "json", "--no-progress"])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    run = next(r for r in report["runs"] if r["path"].endswith("result_0.txt"))
    codes = {(f["code"], f["severity"], f["official"]) for f in run["findings"]}
    # The official checker fails it on the four instances' weights_initialization tensors (its
    # repeated submission_* keys, identical, it only warns about); the shared lines it reads as
    # mlcheck does (the last record of each: MLC010), so there is no MLC013, only MLC020's note.
    assert ("MLC206", "error", True) in codes and ("MLC107", "warning", False) in codes
    assert "MLC013" not in {code for code, _, _ in codes} and ("MLC020", "info", False) in codes
    assert report["summary"]["verdict"] == "fail"
    assert report["summary"]["runs_official_failed"] == 1


def test_deeply_nested_json_is_invalid_json_at_its_line(tmp_path: Path) -> None:
    deep = ':::MLLOG {"key": "seed", "value": ' + "[" * 100_000 + "]" * 100_000 + \
           ', "time_ms": 1, "metadata": {}}'
    log = tmp_path / "deep.txt"
    log.write_text(f"{RECORD}\n{deep}\n{RECORD}\n")
    items = list(reader.read_mllog(str(log)))
    findings = [(i.code, i.line) for i in items if isinstance(i, Finding)]
    assert findings == [("MLC003", 2)]
    assert [i.line for i in items if isinstance(i, Event)] == [1, 3]


def test_deeply_nested_json_in_raw_output_is_invalid_json(tmp_path: Path) -> None:
    deep = '[1,0]<stdout>::::MLLOG {"key": "seed", "value": ' + "[" * 100_000 + "]" * 100_000 + \
           ', "time_ms": 1, "metadata": {}}'
    log = tmp_path / "deep.log"
    log.write_text(f"[1,0]<stdout>:{RECORD}\n{deep}\n")
    codes = [(i.code, i.line) for i in reader.read_mllog(str(log)) if isinstance(i, Finding)]
    assert ("MLC003", 2) in codes and all(code != "MLC000" for code, _ in codes)


def test_over_long_line_is_skipped_with_its_length(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "MAX_LINE_BYTES", 1024)
    long_line = "x" * 5000 + RECORD
    log = tmp_path / "long.txt"
    log.write_text(f"{RECORD}\n{long_line}\n{RECORD}\n{'y' * 3000}")
    items = list(reader.read_mllog(str(log)))
    found = [i for i in items if isinstance(i, Finding)]
    assert [(f.code, f.line) for f in found] == [("MLC014", 2), ("MLC014", 4)]
    assert f"{len(long_line) + 1:,} bytes" in found[0].message and "no :::MLLOG record was on the part skipped" \
        in found[0].message  # (the record after its last marker is read, as the official parser reads it)
    assert [i.line for i in items if isinstance(i, Event)] == [1, 2, 3]


def test_over_long_line_after_the_lookahead_and_progress_records_still_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "MAX_LINE_BYTES", 1024)
    monkeypatch.setattr(reader, "_LOOKAHEAD_LINES", 2)
    log = tmp_path / "raw.log"
    log.write_text(f"{RECORD}\n{RECORD}\n{RECORD}\n{'z' * 4000}\nstep 10/10 ...\r{RECORD}\n")
    items = list(reader.read_mllog(str(log)))
    assert [(i.code, i.line) for i in items if isinstance(i, Finding) and i.code != "MLC020"] == \
        [("MLC014", 4)]
    assert [i.line for i in items if isinstance(i, Event)] == [1, 2, 3, 5]


def test_only_over_long_lines_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "MAX_LINE_BYTES", 1024)
    log = tmp_path / "blob.txt"
    log.write_text("q" * 5000)
    found = [(i.code, i.line) for i in reader.read_mllog(str(log)) if isinstance(i, Finding)]
    assert found == [("MLC014", 1), ("MLC002", None)]


_PEAK = """
import resource, sys
from mlcheck.read.reader import read_mllog
codes = [getattr(i, "code", None) for i in read_mllog(sys.argv[1])]
print(codes.count("MLC014"), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _peak_kib(path: Path) -> tuple[int, int]:
    done = subprocess.run([sys.executable, "-c", _PEAK, str(path)], capture_output=True, text=True,
                          check=True)
    skipped, peak = done.stdout.split()
    return int(skipped), int(peak)


def test_memory_stays_flat_with_line_length(tmp_path: Path) -> None:
    sizes = {"mid": 40 * 2**20, "huge": 160 * 2**20}
    peaks = {}
    for name, size in sizes.items():
        log = tmp_path / f"{name}.txt"
        with open(log, "wb") as handle:
            handle.write(RECORD.encode() + b"\n")
            chunk = b"x" * 2**20
            for _ in range(size // len(chunk)):
                handle.write(chunk)
        skipped, peaks[name] = _peak_kib(log)
        assert skipped == 1
        log.unlink()
    assert peaks["huge"] - peaks["mid"] < 8 * 1024, peaks  # KiB: 120 MB more line, < 8 MB more RSS
