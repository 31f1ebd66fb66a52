"""Raw output whose lines a log driver or a logging service wrapped in JSON objects of its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import FIXTURES
from mlcheck.checker import check_log
from mlcheck.cli import main
from mlcheck.package.discover import LogRef

BASE = FIXTURES / "raw" / "base.txt"

ENVELOPES = {
    "docker json-file": lambda line: {"log": line + "\n", "stream": "stdout", "time": "2022-05-09T08:00:00.1Z"},
    "cloud logging": lambda line: {"textPayload": line, "severity": "INFO", "resource": {"type": "k8s_container"}},
    "journalctl -o json": lambda line: {"__CURSOR": "s=1", "MESSAGE": line, "_PID": "4242"},
    "structlog": lambda line: {"event": line, "level": "info", "timestamp": "2022-05-09T08:00:00.1Z"},  # (rv223)
}


@pytest.mark.parametrize("style", sorted(ENVELOPES))
def test_a_wrapped_console_reads_and_splits_as_the_clean_file(style: str, tmp_path: Path) -> None:
    """Every line a JSON object holding the printed line in a string field (was: every record an
    MLC003 invalid-JSON error, the run failed, split wrote nothing)."""
    lines = BASE.read_text("utf-8").splitlines()
    log = tmp_path / "container-json.log"
    wrapped = [json.dumps(ENVELOPES[style](line)) for line in lines]
    log.write_text("\n".join(wrapped[:3] + [json.dumps({"log": "NCCL INFO ring 0\n"})] + wrapped[3:]) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(BASE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert [f.code for f in result.findings if f.severity.name != "INFO"] == []
    [summary] = [f for f in result.findings if f.code == "MLC020"]
    assert f"{len(lines)} lines taken out of a log driver's envelope" in summary.message
    out = tmp_path / "split"
    CliRunner().invoke(main, ["split", str(log), "-o", str(out)])
    assert (out / "result_0.txt").read_text("utf-8").splitlines() == lines


def test_a_json_line_that_is_no_envelope_stays_as_it_is(tmp_path: Path) -> None:
    """A JSON object without the record in a known field, or broken, is text as before: the line
    numbers of what follows are those of the file."""
    lines = BASE.read_text("utf-8").splitlines()
    log = tmp_path / "console.log"
    odd = [json.dumps({"other": lines[0]}), '{"log": ":::MLLOG {\\"key\\": ', json.dumps([lines[0]])]
    log.write_text("\n".join(odd + lines) + "\n", "utf-8")
    [result] = check_log(LogRef(str(log)), None)
    [clean] = check_log(LogRef(str(BASE)), None)
    assert result.time_to_train_min == clean.time_to_train_min
    assert result.run is not None and result.run.first_line == len(odd) + 1


def test_dockers_pieces_of_a_long_line_are_joined(tmp_path: Path) -> None:
    """json-file cuts a line over 16 KiB into ``log`` pieces without a line end (a stderr entry may
    come between): the record is read whole, at the line of its last piece."""
    lines = BASE.read_text("utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if '"run_start"' in line)
    long = lines[at].replace('"metadata": {', '"metadata": {"note": "%s", ' % ("x" * 40000), 1)
    pieces = [long[i:i + 16384] for i in range(0, len(long), 16384)]
    wrapped = [json.dumps({"log": line + "\n", "stream": "stdout"}) for line in lines[:at]]
    wrapped += [json.dumps({"log": piece, "stream": "stdout"}) for piece in pieces[:-1]]
    wrapped += [json.dumps({"log": "NCCL WARN x\n", "stream": "stderr"}),
                json.dumps({"log": pieces[-1] + "\n", "stream": "stdout"})]
    wrapped += [json.dumps({"log": line + "\n", "stream": "stdout"}) for line in lines[at + 1:]]
    log = tmp_path / "container-json.log"
    log.write_text("\n".join(wrapped) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(BASE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert result.run is not None and result.run.first("run_start") is not None
    assert result.run.first("run_start").line == at + len(pieces) + 1


def test_watch_reads_a_wrapped_console_as_check_does(tmp_path: Path) -> None:
    """``watch`` takes the lines out of their envelopes too (was: every record MLC003, no run_stop,
    a follow without end)."""
    lines = BASE.read_text("utf-8").splitlines()
    log = tmp_path / "container-json.log"
    log.write_text("\n".join(json.dumps({"log": line + "\n", "stream": "stdout"}) for line in lines) + "\n", "utf-8")
    watched = CliRunner().invoke(main, ["watch", str(log), "--format", "json", "--no-progress", "--idle-timeout", "5"])
    checked = CliRunner().invoke(main, ["check", str(log), "--format", "json"])
    assert watched.exit_code == checked.exit_code
    assert [(r["verdict"], r["time_to_train_min"]) for r in json.loads(watched.stdout)["runs"]] == \
        [(r["verdict"], r["time_to_train_min"]) for r in json.loads(checked.stdout)["runs"]]
    assert "MLC003" not in watched.stdout


def test_journal_entries_are_read_per_process_and_from_byte_arrays(tmp_path: Path) -> None:
    """``journalctl -o json``: two processes printing every record are two ranks (the lowest pid's
    kept, as syslog's ``host prog[pid]: `` is read); a MESSAGE with colour codes is an array of
    bytes (was: no record found)."""
    lines = BASE.read_text("utf-8").splitlines()
    entries = []
    for line in lines:
        for pid in ("4242", "4243"):
            entries.append({"_HOSTNAME": "gpu-node-1", "SYSLOG_IDENTIFIER": "python3", "_PID": pid, "MESSAGE": line})
    entries[0]["MESSAGE"] = list(("\x1b[32m" + lines[0] + "\x1b[0m").encode())
    log = tmp_path / "journal.json"
    log.write_text("\n".join(json.dumps(e) for e in entries) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(BASE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert [f.code for f in result.findings if f.severity.name != "INFO"] == []
    [summary] = [f for f in result.findings if f.code == "MLC020"]
    assert "records kept from process 4242 of host 1" in summary.message


def test_envelopes_after_a_long_start_without_records_are_unwrapped(tmp_path: Path) -> None:
    """A container's first thousands of lines (installs, data loading) hold no record: the later
    envelopes are still read."""
    lines = BASE.read_text("utf-8").splitlines()
    log = tmp_path / "container-json.log"
    noise = [json.dumps({"log": f"step {i}\n", "stream": "stdout"}) for i in range(1500)]
    log.write_text("\n".join(noise + [json.dumps({"log": line + "\n"}) for line in lines]) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(BASE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)


def test_a_marker_cut_between_two_pieces_and_a_last_line_without_its_end(tmp_path: Path) -> None:
    """Docker's pieces are 16 KiB: the marker may be cut between two (the record is read); a
    shorter ``log`` without a line end is a whole line, the last of a process (was: held as a piece
    for ever, run_stop lost)."""
    lines = BASE.read_text("utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if '"run_start"' in line)
    long = "x" * (16384 - 4) + lines[at]  # (``:::M`` ends the first piece)
    wrapped = [json.dumps({"log": line + "\n", "stream": "stdout"}) for line in lines[:at]]
    wrapped += [json.dumps({"log": long[:16384], "stream": "stdout"}),
                json.dumps({"log": long[16384:] + "\n", "stream": "stdout"})]
    wrapped += [json.dumps({"log": line + "\n", "stream": "stdout"}) for line in lines[at + 1:-1]]
    wrapped.append(json.dumps({"log": lines[-1], "stream": "stdout"}))  # (no line end)
    log = tmp_path / "container-json.log"
    log.write_text("\n".join(wrapped) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(BASE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)


def test_an_entry_of_several_lines_keeps_every_record(tmp_path: Path) -> None:
    """A logging export's entry may hold several lines (a batch of output): every record is read,
    on the entry's one line (MLC010 says the records share it; were: a line with line ends in it),
    and ``split`` writes each on its own."""
    lines = BASE.read_text("utf-8").splitlines()
    entries = [json.dumps({"textPayload": "\n".join(lines[i:i + 3])}) for i in range(0, len(lines), 3)]
    log = tmp_path / "export.json"
    log.write_text("\n".join(entries) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(BASE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert {f.code for f in result.findings if f.severity.name != "INFO"} == {"MLC010"}
    out = tmp_path / "split"
    CliRunner().invoke(main, ["split", str(log), "-o", str(out)])
    assert [line.rstrip() for line in (out / "result_0.txt").read_text("utf-8").splitlines()] == lines


# -- a container runtime's log (CRI: containerd, CRI-O): ``<time> <stream> <P|F> <text>`` ---------

def _cri(text: str, tag: str = "F", stream: str = "stdout", second: int = 0) -> str:
    return f"2024-05-01T10:00:{second % 60:02d}.123456789Z {stream} {tag} {text}"


def test_a_runtimes_log_with_pieces_reads_and_splits_as_the_clean_file(tmp_path: Path) -> None:
    """The runtime cuts long lines into ``P`` pieces ended by an ``F`` one, stderr's entries
    between them: every record is read whole at the line of its last piece (was: each piece an
    MLC023 cut record, the run failed)."""
    lines = BASE.read_text("utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if '"run_start"' in line)
    out: list[str] = []
    for i, line in enumerate(lines):
        if i == at:  # (three pieces, a stderr line between the first two)
            out += [_cri(line[:30], "P"), _cri("NCCL WARN x", stream="stderr"), _cri(line[30:50], "P"), _cri(line[50:])]
        else:
            out.append(_cri(line, second=i))
    log = tmp_path / "0.log"
    log.write_text("\n".join(out) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(BASE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert [f.code for f in result.findings if f.severity.name != "INFO"] == []
    assert result.run is not None and result.run.first("run_start").line == at + 4
    [summary] = [f for f in result.findings if f.code == "MLC020"]
    assert f"{len(out)} lines taken out of a log driver's envelope" in summary.message
    split = tmp_path / "split"
    CliRunner().invoke(main, ["split", str(log), "-o", str(split)])
    assert (split / "result_0.txt").read_text("utf-8").splitlines() == lines
    watched = CliRunner().invoke(main, ["watch", str(log), "--format", "json", "--no-progress", "--idle-timeout", "5"])
    assert [(r["verdict"], r["time_to_train_min"]) for r in json.loads(watched.stdout)["runs"]] == \
        [(clean.verdict, clean.time_to_train_min)]


def test_a_runtimes_log_ending_inside_a_line_keeps_its_pieces_at_the_last_line(tmp_path: Path) -> None:
    """A process that died writing its last line leaves ``P`` pieces without their ``F``: they
    are read as that line, at the line of the last piece; a record cut there is invalid JSON at
    that line, as at the end of a cut file."""
    lines = BASE.read_text("utf-8").splitlines()
    out = [_cri(line) for line in lines[:-1]] + [_cri(lines[-1][:40], "P"), _cri(lines[-1][40:], "P")]
    log = tmp_path / "0.log"
    log.write_text("\n".join(out) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(BASE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert result.run is not None and result.run.first("run_stop").line == len(out)
    log.write_text("\n".join(out[:-1]) + "\n", "utf-8")  # (the record cut inside its JSON)
    [result] = check_log(LogRef(str(log)), None)
    assert [(f.code, f.line) for f in result.findings if f.code in ("MLC003", "MLC023")] == [("MLC003", len(out) - 1)]


def test_a_docker_log_ending_inside_a_long_line_keeps_its_pieces_at_the_last_line(tmp_path: Path) -> None:
    """json-file's pieces of a line over 16 KiB whose last piece never came (the process died
    writing it): read as that line, at the line of the last piece, a cut record there (were lost)."""
    lines = BASE.read_text("utf-8").splitlines()
    last = lines[-1].replace('"metadata": {', '"metadata": {"note": "%s", ' % ("x" * 40000), 1)
    pieces = [last[i:i + 16384] for i in range(0, len(last), 16384)]
    wrapped = [json.dumps({"log": line + "\n", "stream": "stdout"}) for line in lines[:-1]]
    wrapped += [json.dumps({"log": piece, "stream": "stdout"}) for piece in pieces[:-1]]  # (no last piece)
    log = tmp_path / "container-json.log"
    log.write_text("\n".join(wrapped) + "\n", "utf-8")
    [result] = check_log(LogRef(str(log)), None)
    assert [(f.code, f.line) for f in result.findings if f.code in ("MLC003", "MLC023")] == [("MLC003", len(wrapped))]
    assert result.verdict == "fail" and result.run is not None and result.run.first("run_stop") is None


def test_a_utf16_console_is_read_and_a_utf16_result_file_is_not(tmp_path: Path) -> None:
    """A console a Windows shell saved as UTF-16 (its byte order mark, CRLF) reads as the clean
    file, with an MLC009 warning at line 1 (was: no record, the run failed); a result file in
    UTF-16 is read as UTF-8, as the official parser reads it: no record."""
    lines = BASE.read_text("utf-8").splitlines()
    log = tmp_path / "console.log"
    log.write_text("\r\n".join(lines) + "\r\n", "utf-16")
    [clean] = check_log(LogRef(str(BASE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert [(f.code, f.line) for f in result.findings if f.severity.name != "INFO"] == [("MLC009", 1)]
    out = tmp_path / "split"
    CliRunner().invoke(main, ["split", str(log), "-o", str(out)])
    assert (out / "result_0.txt").read_text("utf-8").splitlines() == lines
    submitted = tmp_path / "result_0.txt"
    submitted.write_bytes(log.read_bytes())
    [refused] = check_log(LogRef(str(submitted)), None)
    assert refused.verdict == "fail" and "MLC002" in {f.code for f in refused.findings}


@pytest.mark.parametrize("encoding, mark", [("utf-32-le", b"\xff\xfe\x00\x00"), ("utf-32-be", b"\x00\x00\xfe\xff")])
def test_a_utf32_console_is_read_and_named_utf32(tmp_path: Path, encoding: str, mark: bytes) -> None:
    """A console saved as UTF-32 (its byte order mark; the little-endian one begins with UTF-16's)
    reads as the clean file with MLC009 naming UTF-32 (was: read as UTF-16, no record, the run
    failed); a result file in UTF-32 has no record for the official parser, MLC009 says UTF-32."""
    lines = BASE.read_text("utf-8").splitlines()
    log = tmp_path / "console.log"
    log.write_bytes(mark + ("\n".join(lines) + "\n").encode(encoding))
    [clean] = check_log(LogRef(str(BASE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    [said] = [f for f in result.findings if f.severity.name != "INFO"]
    assert (said.code, said.line) == ("MLC009", 1) and "the file is UTF-32" in said.message
    submitted = tmp_path / "result_0.txt"
    submitted.write_bytes(log.read_bytes())
    [refused] = check_log(LogRef(str(submitted)), None)
    assert refused.verdict == "fail" and "MLC002" in {f.code for f in refused.findings}
    assert any(f.code == "MLC009" and "iconv -f UTF-32" in f.message for f in refused.findings)
