"""Markers with no record after them, many to a line (a corrupt copy, a tool that wrote the marker
in a loop): one MLC003 finding for a run of them, read in one pass over the line (1.5 million of
them took 27 s, one finding each), every record around them read as before."""

from __future__ import annotations

from pathlib import Path

from conftest import FIXTURES
from mlcheck.checker import check_log
from mlcheck.package.discover import LogRef
from mlcheck.model import Finding

GOOD = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"


def _log(tmp_path: Path, inserted: str, at: int = 5, name: str = "train.log") -> Path:
    """The example run with ``inserted`` as its line ``at + 1``, in raw output (``train.log``: every
    record of a line is read) or in a result file (``result_0.txt``: read as the official parser
    reads it, mlcheck.read.official_view)."""
    lines = GOOD.read_text(encoding="utf-8").splitlines()
    path = tmp_path / name
    path.write_text("\n".join(lines[:at] + [inserted] + lines[at:]) + "\n", encoding="utf-8")
    return path


def _findings(path: Path) -> list[Finding]:
    results = check_log(LogRef(str(path)), None)
    assert len(results) == 1
    return sorted(results[0].findings, key=Finding.sort_key)


def test_a_run_of_empty_markers_is_one_finding_and_the_record_after_them_is_read(tmp_path: Path) -> None:
    record = GOOD.read_text(encoding="utf-8").splitlines()[5]
    path = _log(tmp_path, ":::MLLOG " * 200_000 + record, 5)
    found = _findings(path)
    invalid = [f for f in found if f.code == "MLC003"]
    assert len(invalid) == 1 and invalid[0].line == 6
    assert "(and the 199,999 markers after it, the last at column 1799992, with no record either)" in invalid[0].message
    # In raw output MLC010 is about records that share a line: empty markers hide none (MLC003's).
    assert not [f for f in found if f.code == "MLC010"]
    in_result_file = _findings(_log(tmp_path, ":::MLLOG " * 200_000 + record, 5, name="result_0.txt"))
    glued = next(f for f in in_result_file if f.code == "MLC010")  # (the official parser keeps the last)
    assert glued.line == 6 and glued.message.startswith("200,001 :::MLLOG markers share this line")
    result = check_log(LogRef(str(path)), None)[0]
    assert result.converged and result.time_to_train_min is not None  # (the record after them counts)


def test_one_empty_marker_keeps_its_own_finding(tmp_path: Path) -> None:
    record = GOOD.read_text(encoding="utf-8").splitlines()[5]
    found = _findings(_log(tmp_path, ":::MLLOG " + record))
    invalid = [f for f in found if f.code == "MLC003"]
    assert len(invalid) == 1 and invalid[0].line == 6
    assert invalid[0].message == "invalid JSON: Expecting value at column 10 in ''"


def test_a_line_of_only_empty_markers_is_two_findings_at_its_line(tmp_path: Path) -> None:
    found = _findings(_log(tmp_path, ":::MLLOG " * 1_000))
    invalid = [f for f in found if f.code == "MLC003"]
    assert [f.line for f in invalid] == [6, 6]  # (the run; the last marker, where the line ends)
    assert sum("(and the 998 markers after it, the last at column 8983," in f.message for f in invalid) == 1


def test_in_a_result_file_empty_markers_before_a_record_are_hidden_as_the_official_parser_hides_them(
        tmp_path: Path) -> None:
    """The official parser keeps the text after the last marker of a line: the empty markers before
    a record are not read (no MLC003; MLC010, a warning, says so) and the record after them is."""
    record = GOOD.read_text(encoding="utf-8").splitlines()[5]
    found = _findings(_log(tmp_path, ":::MLLOG " * 1_000 + record, 5, "result_0.txt"))
    assert [(f.code, f.line, f.severity.name) for f in found if f.code in ("MLC003", "MLC010")] == [
        ("MLC010", 6, "WARNING")]
    result = check_log(LogRef(str(tmp_path / "result_0.txt")), None)[0]
    assert result.verdict == "pass" and result.official_verdict == "pass"
    only_markers = _findings(_log(tmp_path, ":::MLLOG " * 1_000, 5, "result_0.txt"))
    assert [f.line for f in only_markers if f.code == "MLC003"] == [6]  # (the last: the one it reads)


def _tagged(tmp_path: Path, inserted: str, name: str) -> Path:
    """The example run as one rank's tagged raw output (``[1,0]<stdout>:``), ``inserted`` its line 6."""
    lines = ["[1,0]<stdout>:" + line for line in GOOD.read_text(encoding="utf-8").splitlines()]
    path = tmp_path / name
    path.write_text("\n".join(lines[:5] + [inserted] + lines[5:]) + "\n", encoding="utf-8")
    return path


def test_a_lone_marker_in_raw_output_is_a_warning_as_the_files_split_writes_pass(tmp_path: Path) -> None:
    """``split`` leaves a marker with nothing after it out, and the official parser passes its
    files: in raw output (not a result file) it is an MLC023 warning, not the cut record's error."""
    for inserted in ("[1,0]<stdout>::::MLLOG", "[1,0]<stdout>::::MLLOG  "):
        path = _tagged(tmp_path, inserted, "train.log")
        result = check_log(LogRef(str(path)), None)[0]
        cut = [(f.code, f.line, f.severity.name, f.official) for f in result.findings if f.code == "MLC023"]
        assert cut == [("MLC023", 6, "WARNING", False)]
        assert result.verdict == "pass" and result.official_verdict == "pass"


def test_a_record_cut_in_raw_output_stays_an_error(tmp_path: Path) -> None:
    path = _tagged(tmp_path, '[1,0]<stdout>::::MLLOG {"namespace": "", "time_ms": 16520', "train.log")
    result = check_log(LogRef(str(path)), None)[0]
    assert [(f.code, f.line, f.severity.name) for f in result.findings if f.code == "MLC023"] == [
        ("MLC023", 6, "ERROR")]
    assert result.verdict == "fail"


def test_a_lone_marker_and_space_in_a_raw_result_file_fails_as_the_parser_fails_it(tmp_path: Path) -> None:
    """In ``result_0.txt`` the parser decodes the empty text after ``:::MLLOG `` and fails."""
    path = _tagged(tmp_path, "[1,0]<stdout>::::MLLOG ", "result_0.txt")
    result = check_log(LogRef(str(path)), None)[0]
    assert result.official_verdict == "fail"
    assert any(f.line == 6 and f.severity.name == "ERROR" for f in result.findings if f.code in ("MLC003", "MLC023"))
