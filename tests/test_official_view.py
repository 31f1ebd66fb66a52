"""A submitted result file is read as the official parser reads it (mlcheck.read.official_view):
broken copies of the example run give the verdict of the checker of record, with a finding at
the line. Each case names what the official parser (mlp_parser, the same in every round) does."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from conftest import FIXTURES
from mlcheck.checker import check
from mlcheck.model import Severity
from mlcheck.results import RunResult

GOOD = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
LINES = GOOD.read_text(encoding="utf-8").splitlines()


def _run(tmp_path: Path, lines: list[str], name: str = "result_0.txt") -> RunResult:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    [run] = check([str(path)]).runs
    return run


def _line_of(key: str) -> int:
    """The 0-based index of the first record of ``key``."""
    return next(i for i, line in enumerate(LINES) if f'"key": "{key}"' in line)


def _codes(run: RunResult) -> list[tuple[str, int | None, str]]:
    return [(f.code, f.line, f.severity.name) for f in run.findings if f.severity is not Severity.INFO]


def test_the_example_passes(tmp_path: Path) -> None:
    run = _run(tmp_path, LINES)
    assert (run.verdict, run.official_verdict, _codes(run)) == ("pass", "pass", [])


def test_a_record_without_a_value_fails_as_the_official_parser_crashes_on_it(tmp_path: Path) -> None:
    at = _line_of("seed")
    lines = list(LINES)
    lines[at] = lines[at].replace('"value": ', '"other": ')
    run = _run(tmp_path, lines)
    assert ("MLC025", at + 1, "ERROR") in _codes(run)
    assert (run.verdict, run.official_verdict) == ("fail", "fail")


def test_a_time_as_a_string_or_a_boolean_is_read_with_float_as_the_official_parser_reads_it(tmp_path: Path) -> None:
    at = _line_of("seed")
    time_ms = LINES[at].split('"time_ms": ')[1].split(",")[0]
    for written in (f'"{time_ms}"', f'"{float(time_ms):e}"'):
        lines = list(LINES)
        lines[at] = lines[at].replace(f'"time_ms": {time_ms}', f'"time_ms": {written}')
        run = _run(tmp_path, lines)
        assert _codes(run) == [("MLC007", at + 1, "WARNING")], written
        assert (run.verdict, run.official_verdict) == ("pass", "pass")
    lines = list(LINES)
    lines[at] = lines[at].replace(f'"time_ms": {time_ms}', '"time_ms": "soon"')  # (float() raises)
    assert ("MLC007", at + 1, "ERROR") in _codes(_run(tmp_path, lines))


def test_an_eval_of_true_is_compared_as_1_as_the_official_checker_compares_it(tmp_path: Path) -> None:
    """Closed ResNet 2.0's target is ``v['value'] >= 0.7590 and v['value'] < 1.0``: true (1)
    fails its bound, for the official checker (FAILED, checked with 4.1.68) and for mlcheck; a
    target of ``>=`` only (DLRM, U-Net3D) it reaches, for both."""
    last = max(i for i, line in enumerate(LINES) if '"key": "eval_accuracy"' in line)
    lines = list(LINES)
    value = lines[last].split('"value": ')[1].split(",")[0]
    lines[last] = lines[last].replace(f'"value": {value}', '"value": true')
    run = _run(tmp_path, lines)
    assert ("MLC304", last + 1, "WARNING") in _codes(run) and ("MLC301", last + 3, "ERROR") in _codes(run)
    assert not run.converged and (run.verdict, run.official_verdict) == ("fail", "fail")
    from mlcheck.facts.rulesets import Condition

    assert Condition(">=", 0.759).holds(True) is True and Condition("<", 1.0).holds(True) is False


def test_a_gzip_result_file_fails_as_the_official_checker_reads_no_record_in_it(tmp_path: Path) -> None:
    data = gzip.compress(GOOD.read_bytes())
    (tmp_path / "result_0.txt").write_bytes(data)
    [run] = check([str(tmp_path / "result_0.txt")]).runs
    assert [(f.code, f.severity.name) for f in run.findings if f.code == "MLC026"] == [("MLC026", "ERROR")]
    assert run.official_verdict == "fail" and run.time_to_train_min is not None  # (read all the same)
    (tmp_path / "result_0.txt.gz").write_bytes(data)
    [copy] = check([str(tmp_path / "result_0.txt.gz")]).runs
    assert copy.verdict == "pass" and not [f for f in copy.findings if f.code == "MLC026"]


def test_a_marker_without_its_space_hides_the_record_from_the_official_parser(tmp_path: Path) -> None:
    at = _line_of("submission_benchmark")
    lines = list(LINES)
    lines[at] = lines[at].replace(":::MLLOG ", ":::MLLOG", 1)
    run = _run(tmp_path, lines)
    assert ("MLC027", at + 1, "WARNING") in _codes(run)
    assert (run.verdict, run.official_verdict) == ("fail", "fail")  # (no submission_benchmark for it)
    lines[at] = LINES[at].replace(":::MLLOG ", ":::MLLOG\t", 1)  # (a tab is no space either)
    assert ("MLC027", at + 1, "WARNING") in _codes(_run(tmp_path, lines))
    raw = _run(tmp_path, lines, "train.log")
    assert raw.verdict == "pass" and not [f for f in raw.findings if f.code == "MLC027"]  # (raw output: read)


def test_text_after_the_json_fails_and_a_cr_ends_the_official_line(tmp_path: Path) -> None:
    at = _line_of("seed")
    for tail, code in ((" xyz", "MLC003"), ("}", "MLC003"), ("\r", None), ("\r\x1b[0m", None), ("\t ", None)):
        lines = list(LINES)
        lines[at] += tail
        run = _run(tmp_path, lines)
        errors = [(f.code, f.line) for f in run.findings if f.severity is Severity.ERROR]
        assert errors == ([(code, at + 1)] if code else []), repr(tail)
        assert run.official_verdict == ("fail" if code else "pass"), repr(tail)


def test_records_joined_by_a_cr_are_both_read(tmp_path: Path) -> None:
    at = _line_of("seed")
    lines = list(LINES)
    lines[at:at + 2] = [lines[at] + "\r" + lines[at + 1]]
    run = _run(tmp_path, lines)
    assert (run.verdict, run.official_verdict, _codes(run)) == ("pass", "pass", [])


def test_a_key_that_is_no_string_is_ignored_as_the_official_checker_ignores_it(tmp_path: Path) -> None:
    """The parser keeps any key; a record no rule names is ignored: a warning, unless the key was
    required (then MLC105, for both). A record without any key is its KeyError: an error."""
    at = _line_of("seed")
    for written in ("5", "null", "[1]", '""'):
        lines = list(LINES)
        lines[at] = lines[at].replace('"key": "seed"', f'"key": {written}')
        run = _run(tmp_path, lines)
        assert [(f.code, f.line, f.severity.name) for f in run.findings if f.code == "MLC006"] == [
            ("MLC006", at + 1, "WARNING")], written
        assert run.official_verdict == "pass", written  # (no seed is required in 2.0)
    lines = list(LINES)
    lines[at] = lines[at].replace('"key": "seed", ', "")
    assert ("MLC006", at + 1, "ERROR") in _codes(_run(tmp_path, lines))


def test_the_token_inside_a_string_fails_as_the_parser_cuts_the_line_there(tmp_path: Path) -> None:
    """``re.sub(".*" + TOKEN, TOKEN, line)`` is greedy: a ':::MLLOG ' inside the record's JSON cuts
    it, and the rest does not decode (the official checker: "Log lines had parsing errors")."""
    at = _line_of("submission_platform")
    lines = list(LINES)
    lines[at] = lines[at].replace('"submission_platform", "value": "', '"submission_platform", "value": ":::MLLOG ')
    run = _run(tmp_path, lines)
    assert [(f.code, f.line) for f in run.findings if f.severity is Severity.ERROR] == [("MLC003", at + 1)]
    assert run.official_verdict == "fail"
    lines[at] = LINES[at].replace('"submission_platform", "value": "', '"submission_platform", "value": ":::MLLOG')
    assert _run(tmp_path, lines).official_verdict == "pass"  # (no space: not the token)


def test_a_time_that_is_no_finite_number_keeps_its_record_as_the_official_parser_does(tmp_path: Path) -> None:
    """``float()`` reads NaN, Infinity and "inf": the record is there for the official checker,
    which compares few times (init's: a NaN init_stop fails it). mlcheck keeps the record (no
    MLC102), cannot time the run (MLC007, its own error) and gives it no time-to-train."""
    stop = _line_of("run_stop")
    time_ms = LINES[stop].split('"time_ms": ')[1].split(",")[0]
    for written in ("NaN", "Infinity", "1e400", '"inf"'):
        lines = list(LINES)
        lines[stop] = lines[stop].replace(f'"time_ms": {time_ms}', f'"time_ms": {written}')
        run = _run(tmp_path, lines)
        assert [(f.code, f.line, f.official) for f in run.findings if f.code in ("MLC007", "MLC102")] == [
            ("MLC007", stop + 1, False)], written
        assert (run.verdict, run.official_verdict, run.time_to_train_min) == ("fail", "pass", None), written
    init = _line_of("init_stop")
    time_ms = LINES[init].split('"time_ms": ')[1].split(",")[0]
    lines = list(LINES)
    lines[init] = lines[init].replace(f'"time_ms": {time_ms}', '"time_ms": NaN')
    run = _run(tmp_path, lines)
    assert ("MLC401", init + 1, "ERROR") in _codes(run) and run.official_verdict == "fail"


def test_a_time_that_is_no_finite_number_on_a_record_no_rule_times_is_a_warning(tmp_path: Path) -> None:
    """Neither the rules nor the checker read the time of a configuration record: NaN there is a
    warning and the run keeps its verdict and time-to-train (was: MLC007, an error, which said the
    run had no time-to-train while it had one)."""
    at = _line_of("seed")
    time_ms = LINES[at].split('"time_ms": ')[1].split(",")[0]
    clean = _run(tmp_path, list(LINES))
    lines = list(LINES)
    lines[at] = lines[at].replace(f'"time_ms": {time_ms}', '"time_ms": NaN')
    run = _run(tmp_path, lines)
    assert [(f.code, f.line, f.severity) for f in run.findings if f.code == "MLC007"] == [
        ("MLC007", at + 1, Severity.WARNING)]
    assert (run.verdict, run.official_verdict, run.time_to_train_min) == (
        clean.verdict, "pass", clean.time_to_train_min)


def test_the_text_after_the_json_is_judged_as_latin_1_bytes_as_the_parser_reads_the_file(tmp_path: Path) -> None:
    """``open(..., encoding='latin-1')`` then ``strip()``: a UTF-8 no-break space (C2 A0) leaves 'Â'
    ("Extra data"), a latin-1 one (A0) is a blank (checked with mlperf-logging 4.1.68)."""
    at = _line_of("seed")
    for tail, code in (("\u00a0".encode(), "MLC003"), ("\u2028".encode(), "MLC003"), (b"\xa0", None),
                       (b"\x85", None)):
        data = "\n".join(LINES).encode()
        lines = data.split(b"\n")
        lines[at] += tail
        (tmp_path / "result_0.txt").write_bytes(b"\n".join(lines) + b"\n")
        [run] = check([str(tmp_path / "result_0.txt")]).runs
        errors = [(f.code, f.line) for f in run.findings if f.severity is Severity.ERROR]
        assert errors == ([(code, at + 1)] if code else []), tail
        assert run.official_verdict == ("fail" if code else "pass"), tail


@pytest.mark.parametrize("byte", [b"\x85", b"\xa0"])
def test_a_latin_1_blank_inside_a_record_is_read_where_the_parser_reads_it(tmp_path: Path, byte: bytes) -> None:
    """The parser decodes the file as latin-1, strips the line and json.loads the record: NEL and
    NBSP (bytes that are not UTF-8) are blanks at the line's ends, in a string a character, but
    between members or before the JSON not JSON blanks: the record fails to parse (was: read as a
    space there, and the run passed where the checker fails it)."""
    import json as std_json

    at = _line_of("seed")
    line = LINES[at].encode()
    places = {"after the marker": len(b":::MLLOG "), "between members": line.index(b'"key"'),
              "in a string": line.index(b'"seed"') + 2, "at the end": len(line)}
    for place, where in places.items():
        lines = [text.encode() for text in LINES]
        lines[at] = line[:where] + byte + line[where:]
        (tmp_path / "result_0.txt").write_bytes(b"\n".join(lines) + b"\n")
        try:  # (the official parser's reading: latin-1, strip(), json.loads after the token)
            std_json.loads(lines[at].decode("latin-1").strip()[len(":::MLLOG "):])
            parsed = True
        except ValueError:
            parsed = False
        [run] = check([str(tmp_path / "result_0.txt")]).runs
        invalid = [f.line for f in run.findings if f.code == "MLC003"]
        assert invalid == ([] if parsed else [at + 1]), place
        assert (run.official_verdict == "pass") == parsed, place


def test_an_init_stop_after_run_start_fails_as_the_checker_fails_each_one(tmp_path: Path) -> None:
    """common.yaml checks ``not s['run_started']`` on every init_stop: a second one after run_start
    (every rank's copy in raw output saved as a result file) fails the file; its repeat alone only
    warns."""
    stop, start = _line_of("init_stop"), _line_of("run_start")
    lines = list(LINES)
    lines.insert(start + 1, LINES[stop])
    run = _run(tmp_path, lines)
    assert ("MLC404", start + 2, "ERROR") in _codes(run) and run.official_verdict == "fail"


def test_a_file_with_cr_line_ends_alone_is_read_line_by_line_as_the_parser_reads_it(tmp_path: Path) -> None:
    """Universal newlines: a CR alone ends the parser's line. Such a file is read with a line per CR
    (mlcheck.read.cr_line_ends): findings at those lines, the order of records judged as in the
    LF copy (here a block_start before run_start, MLC112), a CRLF cut between two reads one end."""
    lines = list(LINES)
    at = _line_of("lars_opt_weight_decay")
    lines[at] = lines[at].replace('"value": 5e-05', '"value": 3e-05')
    block = next(i for i, line in enumerate(lines) if '"key": "block_start"' in line)
    start = _line_of("run_start")
    lines.insert(start, lines.pop(block))
    path = tmp_path / "result_0.txt"
    path.write_bytes(("\r".join(lines) + "\r").encode("utf-8"))
    [run] = check([str(path)]).runs
    lf_run = _run(tmp_path, lines, "result_1.txt")
    assert _codes(run) == _codes(lf_run)
    assert ("MLC202", at + 1, "ERROR") in _codes(run) and any(c[0] == "MLC112" for c in _codes(run))
    assert (run.verdict, run.official_verdict) == ("fail", "fail")


def test_cr_line_ends_across_the_reads_of_a_large_file_count_one_line_each(tmp_path: Path) -> None:
    from mlcheck.read.cr_line_ends import PROBE_BYTES, cr_line_ended

    path = tmp_path / "result_0.txt"
    text = b"x" * (PROBE_BYTES - 1) + b"\r" + b"y\r" * 3 + b"z\r\r"
    path.write_bytes(text)
    with open(path, "rb") as handle:
        assert cr_line_ended(handle).read().split(b"\n")[1:] == [b"y", b"y", b"y", b"z", b"", b""]
    bar = tmp_path / "console.log"  # (a progress bar's first MiB, then LF-ended records: read as it is; a
    lines = b"a\n:::MLLOG {}\n:::MLLOG {}\n"  # review, session 43: its lines were counted by CR, 20,019 for 94)
    bar.write_bytes(text + lines)
    with open(bar, "rb") as handle:
        assert cr_line_ended(handle).read() == text + lines
    records = b"".join(b":::MLLOG {}\r" for _ in range(3))  # (CR-ended records, then one LF-ended line last:
    last = tmp_path / "last.log"  # still CR line ends; a review, session 43)
    last.write_bytes(text + records + b"+ exit 0\n")
    with open(last, "rb") as handle:
        assert cr_line_ended(handle).read().count(b"\n") == (text + records).count(b"\r") + 1
    lf = tmp_path / "lf.txt"
    lf.write_bytes(b"a\rb\nc\r")  # (an LF in the file: its bytes are read as they are)
    with open(lf, "rb") as handle:
        assert cr_line_ended(handle).read() == b"a\rb\nc\r"


def test_a_common_key_check_says_every_run_requires_it(tmp_path: Path) -> None:
    """``train_samples`` empty in a closed run: common.yaml's check, which binds both divisions,
    so the message says "every run requires" (was: "the closed division requires")."""
    at = _line_of("train_samples")
    lines = LINES[:at] + [LINES[at].replace('"value": ', '"value": "", "was": ', 1)] + LINES[at + 1:]
    run = _run(tmp_path, lines)
    [finding] = [f for f in run.findings if f.code == "MLC111"]
    assert (finding.line, run.official_verdict) == (at + 1, "fail")
    assert "every run requires" in finding.message and "closed division" not in finding.message


def _with_time(line: str, time_ms: int) -> str:
    return re.sub(r'"time_ms": \d+', f'"time_ms": {time_ms}', line, count=1)


def test_a_second_run_stop_without_status_fails_as_the_checker_checks_each(tmp_path: Path) -> None:
    """common.yaml's CHECK of run_stop runs on every run_stop: a repeat without ``status`` (an
    exit hook's) fails the file, though repeats of one value only warn (EXACTLY_ONE)."""
    at = _line_of("run_stop")
    again = LINES[at].replace('"status": "success"', '"note": 1')
    run = _run(tmp_path, LINES[:at + 1] + [again] + LINES[at + 1:])
    assert run.official_verdict == "fail"
    assert ("MLC103", at + 2, "ERROR") in _codes(run)


def test_a_second_init_stop_past_the_limit_fails_as_the_checker_checks_each(tmp_path: Path) -> None:
    at = _line_of("init_stop")
    start = json.loads(LINES[_line_of("init_start")].split(":::MLLOG", 1)[1])["time_ms"]
    again = _with_time(LINES[at], start + 31 * 60_000)
    run = _run(tmp_path, LINES[:at + 1] + [again] + LINES[at + 1:])
    assert run.official_verdict == "fail"
    [found] = [f for f in run.findings if f.code == "MLC401"]
    assert found.line == at + 2 and "to the init_stop at line" in found.message
