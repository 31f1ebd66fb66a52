"""Reading (issue 2 §2): each constructed log of ``fixtures/bad`` gives its finding at its physical
line, through the library and through ``mlcheck check`` (exit code, no traceback)."""

from __future__ import annotations

import gzip
import io
import subprocess
import sys
from pathlib import Path

import pytest

from cli_helpers import ISSUE2_CODES, assert_no_traceback, run_cli
from mlcheck.model import Event, Finding, Severity
from mlcheck.read.reader import read_mllog
from mlcheck.read.runs import split_runs

BAD = Path(__file__).resolve().parent.parent / "fixtures" / "bad"

# file -> ((code, physical line), ...), exit code of `mlcheck check FILE`.
READING_CASES: dict[str, tuple[tuple[tuple[str, int | None], ...], int]] = {
    "invalid_json.txt": ((("MLC003", 14),), 1),
    "record_is_array.txt": ((("MLC005", 14),), 1),
    "key_missing.txt": ((("MLC006", 14),), 1),
    "key_not_string.txt": ((("MLC006", 14),), 0),  # (a warning: the official parser ignores the record)
    "time_ms_null.txt": ((("MLC007", 14),), 1),
    "time_ms_string.txt": ((("MLC007", 14),), 0),  # (a warning: float() reads it, as the official parser does)
    "metadata_missing.txt": ((("MLC008", 14),), 1),
    "metadata_not_object.txt": ((("MLC008", 14),), 0),  # (a warning: the official parser keeps it)
    # The job died while writing run_stop: the cut record, and hence no run_stop.
    "truncated_last_line.txt": ((("MLC004", 24), ("MLC102", 23)), 1),
    "empty.txt": ((("MLC002", None),), 1),
    "no_records.txt": ((("MLC002", None),), 1),
    # Undecodable bytes are a warning: the record is still read.
    "invalid_utf8.txt": ((("MLC009", 8),), 0),
    "glued_records.txt": ((("MLC010", 15),), 0),  # (raw output: both read; a warning)
    # A gzip archive cut after 2000 bytes: reading stops with MLC001, the run is incomplete.
    "damaged.txt.gz": ((("MLC001", 161), ("MLC101", 1), ("MLC102", 161), ("MLC301", 161)), 1),
    "good_crlf.txt": ((), 0),
    "good_gzip.txt.gz": ((), 0),
    "base_open.txt": ((), 0),
}





def found(path: Path) -> list[tuple[str, int | None]]:
    """(code, line) of the issue-2 findings of ``mlcheck.check`` on one file, sorted."""
    from mlcheck import check

    result = check([str(path)])
    if not READING_CASES.get(path.name, ((1,), 1))[0]:  # a good log: no finding of any family
        assert result.all_findings() == ()
    return sorted(((f.code, f.line) for f in result.all_findings() if f.code in ISSUE2_CODES),
                  key=lambda item: (item[0], item[1] or 0))


@pytest.mark.parametrize("name", sorted(READING_CASES))
def test_reading_case_library(name: str) -> None:
    expected, _ = READING_CASES[name]
    assert found(BAD / name) == sorted(expected, key=lambda item: (item[0], item[1] or 0))


@pytest.mark.parametrize("name", sorted(READING_CASES))
def test_reading_case_cli(name: str) -> None:
    expected, exit_code = READING_CASES[name]
    result = run_cli("check", str(BAD / name))
    assert_no_traceback(result)
    assert result.exit_code == exit_code, result.output
    for code, line in expected:
        where = f"{BAD / name}:{line}: " if line is not None else f"{BAD / name}: "
        assert where in result.stdout.replace("\n", ""), (code, line, result.stdout)
        assert code in result.stdout
    assert result.stderr.startswith("mlcheck: 1 run ")


def test_every_fixture_has_a_case() -> None:
    import importlib.util

    # The rule half of the same folder, loaded by path (works whatever pytest's import mode).
    rules_file = Path(__file__).with_name("test_rules_basic.py")
    spec = importlib.util.spec_from_file_location("rules_cases", rules_file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    RULE_CASES = module.RULE_CASES
    fixtures = {p.name for p in BAD.iterdir() if p.suffix != ".py"}
    assert fixtures == set(READING_CASES) | set(RULE_CASES)
    assert len(fixtures) - 3 >= 15  # at least 15 bad logs besides the three good ones


def test_invalid_utf8_fails_with_strict() -> None:
    result = run_cli("check", "--strict", str(BAD / "invalid_utf8.txt"))
    assert_no_traceback(result)
    assert result.exit_code == 1


def test_glued_records_are_both_read() -> None:
    items = list(read_mllog(str(BAD / "glued_records.txt")))
    on_line = [i for i in items if isinstance(i, Event) and i.line == 15]
    assert [e.key for e in on_line] == ["eval_start", "eval_stop"]


def test_in_a_result_file_only_the_last_glued_record_is_read_as_the_official_parser_reads_it(
        tmp_path: Path) -> None:
    """The official parser keeps the text after the last marker of a line: in a result file the
    record before it is dropped (MLC010, a warning), unless a CR ends the line between them."""
    path = tmp_path / "result_0.txt"
    path.write_bytes((BAD / "glued_records.txt").read_bytes())
    items = list(read_mllog(str(path)))
    assert [i.key for i in items if isinstance(i, Event) and i.line == 15] == ["eval_stop"]
    [glued] = [i for i in items if isinstance(i, Finding) and i.code == "MLC010"]
    assert glued.line == 15 and glued.severity is Severity.WARNING and "neither does mlcheck" in glued.message
    lines = (BAD / "glued_records.txt").read_bytes().split(b"\n")
    lines[14] = lines[14].replace(b":::MLLOG", b"\r:::MLLOG", 2).replace(b"\r:::MLLOG", b":::MLLOG", 1)
    path.write_bytes(b"\n".join(lines))
    items = list(read_mllog(str(path)))
    assert [i.key for i in items if isinstance(i, Event) and i.line == 15] == ["eval_start", "eval_stop"]
    assert not [i for i in items if isinstance(i, Finding) and i.code in ("MLC010", "MLC003")]


@pytest.mark.parametrize("tail, flagged", [(" xyz", True), ("}", True), (",", True), ("  \t", False),
                                           ("\rprogress 50%", False), (" \rx", False)])
def test_text_after_a_records_json_in_a_result_file_is_mlc003(tmp_path: Path, tail: str, flagged: bool) -> None:
    """The official parser decodes the whole rest of a line (after a CR, a line of its own):
    anything but blanks after the JSON is "Extra data", a parsing error that fails the file."""
    lines = (BAD.parent / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt").read_text(
        encoding="utf-8").splitlines()
    lines[20] += tail
    for name, official in (("result_0.txt", flagged), ("train.log", False)):
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        invalid = [f for f in read_mllog(str(path)) if isinstance(f, Finding) and f.code == "MLC003"]
        assert [(f.line, f.severity) for f in invalid] == ([(21, Severity.ERROR)] if official else []), name


def test_invalid_json_message_names_the_column() -> None:
    findings = [i for i in read_mllog(str(BAD / "invalid_json.txt")) if isinstance(i, Finding)]
    assert len(findings) == 1 and "column" in findings[0].message


def test_crlf_and_gzip_read_like_the_plain_file() -> None:
    example = BAD.parent / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
    plain = list(read_mllog(str(example)))
    assert plain and all(isinstance(i, Event) for i in plain)
    assert list(read_mllog(str(BAD / "good_crlf.txt"))) == plain
    assert list(read_mllog(str(BAD / "good_gzip.txt.gz"))) == plain


def test_prefixes_blank_lines_and_noise(tmp_path: Path) -> None:
    base = (BAD / "base_open.txt").read_text("utf-8").splitlines()
    mixed = ["", "[1,0]<stdout>: " + base[0], "2022-05-09 08:00:00.001 INFO noise", ""] + base[1:]
    path = tmp_path / "prefixed.log"
    path.write_text("\n".join(mixed) + "\n", "utf-8")
    items = list(read_mllog(str(path)))
    # Only the note that raw output was read (MLC020, issue 5), no reading problem.
    assert [i.code for i in items if isinstance(i, Finding)] == ["MLC020"]
    events = [i for i in items if isinstance(i, Event)]
    assert (events[0].key, events[0].line) == ("cache_clear", 2)
    assert (events[1].key, events[1].line) == ("init_start", 5)


def test_nan_and_infinity_values_are_read(tmp_path: Path) -> None:
    path = tmp_path / "nan.log"
    path.write_text(':::MLLOG {"key": "tracked_stats", "value": Infinity, "time_ms": 1, "metadata": {}}\n'
                    ':::MLLOG {"key": "tracked_stats", "value": NaN, "time_ms": 2, "metadata": {}}\n',
                    "utf-8")
    events = [i for i in read_mllog(str(path)) if isinstance(i, Event)]
    assert [e.line for e in events] == [1, 2]
    assert events[0].value == float("inf") and events[1].value != events[1].value


def test_time_ms_nan_is_a_finding(tmp_path: Path) -> None:
    path = tmp_path / "nan_time.log"
    path.write_text(':::MLLOG {"key": "run_start", "value": null, "time_ms": NaN, "metadata": {}}\n', "utf-8")
    assert [(i.code, i.line) for i in read_mllog(str(path)) if isinstance(i, Finding)] == [("MLC007", 1)]


def test_unreadable_file_is_a_finding(tmp_path: Path) -> None:
    items = list(read_mllog(str(tmp_path / "missing.txt")))
    assert [(i.code, i.line) for i in items if isinstance(i, Finding)] == [("MLC001", None)]


def test_stdin_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    data = (BAD / "glued_records.txt").read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    runs, findings = split_runs(read_mllog("-"), "-")
    assert len(runs) == 1 and [(f.code, f.line) for f in findings] == [("MLC010", 15)]


def test_stdin_through_the_cli() -> None:
    result = run_cli("check", "-", stdin=(BAD / "invalid_json.txt").read_bytes())
    assert_no_traceback(result)
    assert result.exit_code == 1
    assert "-:14: " in result.stdout and "MLC003" in result.stdout
    good = run_cli("check", "-", stdin=gzip.decompress((BAD / "good_gzip.txt.gz").read_bytes()))
    assert good.exit_code == 0, good.output


def test_gzip_on_stdin_through_a_real_pipe() -> None:
    """``zcat``-less use: ``mlcheck check - < run.log.gz`` (a real pipe, in a subprocess)."""
    command = [sys.executable, "-c", "from mlcheck.cli import main; main()", "check", "-"]
    done = subprocess.run(command, input=(BAD / "good_gzip.txt.gz").read_bytes(), capture_output=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr and b"14.76" in done.stdout
    bad = subprocess.run(command, input=gzip.compress((BAD / "invalid_json.txt").read_bytes()),
                         capture_output=True, timeout=60, check=False)
    assert bad.returncode == 1 and b"-:14: " in bad.stdout and b"MLC003" in bad.stdout


def test_a_whole_last_record_that_is_malformed_is_invalid_json_not_cut(tmp_path: Path) -> None:
    """The file ends without a line end after a complete record holding a control character: the
    record is malformed (MLC003), not cut by a killed job (MLC004, tolerated as a non-converged run)."""
    lines = (BAD / "truncated_last_line.txt").read_text(encoding="utf-8").splitlines()[:-1]
    path = tmp_path / "result_0.txt"
    path.write_text("\n".join(lines) + '\n:::MLLOG {"key": "run_stop\x01", "value": null, "time_ms": 1, '
                    '"metadata": {"status": "success"}}', encoding="utf-8")
    assert [(code, line) for code, line in found(path) if code in ("MLC003", "MLC004")] == [("MLC003", 24)]
