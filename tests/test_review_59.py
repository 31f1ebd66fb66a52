"""Session 59: the reviews of this session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

RECORDS = [f':::MLLOG {{"key": "k{i}", "value": {i}}}'.encode() for i in range(6)]


def _follow_until_idle(signals: object) -> list[object]:
    got: list[object] = []
    for signal in signals:  # type: ignore[attr-defined]
        if signal == "idle":
            return got
        got.append(signal)
    return got


def _followed(log: Path, pieces: list[bytes]) -> tuple[list[object], bool | None]:
    """The lines a follower yields of ``pieces`` written one at a time, a quiet poll after each."""
    from mlcheck.read.follow import Follower

    log.write_bytes(pieces[0])
    follower = Follower(str(log), poll=0.0)
    signals = follower.signals()
    lines = _follow_until_idle(signals)
    for piece in pieces[1:]:
        with open(log, "ab") as handle:
            handle.write(piece)
        lines += _follow_until_idle(signals)
    follower.close()
    return lines, follower.line_ends()


def _check_lines(log: Path) -> list[bytes]:
    from mlcheck.read.log_files import open_log

    with open_log(str(log)) as handle:
        text = handle.read()
    return [line + b"\n" for line in text.split(b"\n")[:-1]] + ([text.rsplit(b"\n", 1)[-1]] if not text.endswith(b"\n") else [])


def test_watch_reads_a_cr_log_whose_first_record_ends_in_an_lf_as_check_does(tmp_path: Path) -> None:
    """rv279 #1: a first record and its LF, a quiet poll, then records with CR line ends: that LF
    decided LF line ends (every later record on one line, exit 1 where check passes)."""
    log = tmp_path / "job.log"
    lines, cr_ends = _followed(log, [RECORDS[0] + b"\n", b"\r".join(RECORDS[1:]) + b"\r"])
    assert cr_ends is True and lines == _check_lines(log) == [record + b"\n" for record in RECORDS], lines


def test_watch_reads_cr_records_after_an_lf_banner_longer_than_the_cheap_test_as_check_does(tmp_path: Path) -> None:
    """rv279 #3: a banner of LF-ended lines longer than the first 4 KiB, then records with CR line ends:
    check reads LF line ends (its cheap test), watch read CR line ends."""
    log = tmp_path / "job.log"
    banner = b"".join(b"banner line %03d %s\n" % (i, b"." * 40) for i in range(100))
    lines, cr_ends = _followed(log, [banner, b"\r".join(RECORDS) + b"\r\n"])
    assert cr_ends is False and lines == _check_lines(log) and len(lines) == 101, len(lines)


def test_watch_reads_lf_lines_after_a_progress_bar_longer_than_a_mib_as_check_does(tmp_path: Path) -> None:
    """rv279 #2: a download bar drawn with CRs over more than the first MiB, then LF-ended lines: check
    looks past the MiB (LF line ends), watch decided on the MiB alone (every bar's CR a line)."""
    log = tmp_path / "job.log"
    bar = b"".join(b"Downloading %7d\r" % i for i in range(70_000)) + b"\n"
    lines, cr_ends = _followed(log, [bar + b"\n".join(RECORDS) + b"\n"])
    assert cr_ends is False and len(lines) == len(_check_lines(log)) == 1 + len(RECORDS), len(lines)


def test_lf_lines_before_the_first_cr_are_yielded_before_the_line_ends_are_known(tmp_path: Path) -> None:
    """Lines without a CR are the same lines whatever the test says: a job's first LF-ended lines are
    followed at once; from the first CR on, what comes is held until the test is made."""
    from mlcheck.read.follow import Follower

    log = tmp_path / "job.log"
    log.write_bytes(b"launching\nloading\nstep 1/9\rstep")
    follower = Follower(str(log), poll=0.0)
    signals = follower.signals()
    assert _follow_until_idle(signals) == [b"launching\n", b"loading\n"] and follower.line_ends() is None
    with open(log, "ab") as handle:
        handle.write(b" 2/9\r" + RECORDS[0] + b"\n")
    assert _follow_until_idle(signals) == [b"step 1/9\rstep 2/9\r" + RECORDS[0] + b"\n"] and follower.line_ends() is False
    follower.close()


@pytest.mark.parametrize("buffering", [512, 4096, 1 << 20])
def test_check_reads_a_files_line_ends_the_same_whatever_its_buffer(tmp_path: Path, buffering: int) -> None:
    """The cheap test read what the first buffer held: 4 KiB on most file systems, 1 MiB or more on a
    cluster's (Lustre, GPFS): a 5 KiB LF banner before CR-ended records was read with LF line ends on
    one, with CR line ends on the other. It reads the first 4 KiB wherever the file is."""
    from mlcheck.read.cr_line_ends import cr_line_ended

    log = tmp_path / "job.log"
    log.write_bytes(b"".join(b"banner line %03d %s\n" % (i, b"." * 40) for i in range(100)) + b"\r".join(RECORDS * 20))
    with open(log, "rb", buffering=buffering) as raw:
        assert cr_line_ended(raw).read().count(b"\n") == 100  # type: ignore[arg-type]


def test_a_watch_whose_start_was_read_otherwise_than_check_reads_it_reports_the_whole_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A live job's start decided before it was all written (a first record and its LF, a quiet poll,
    then one CR-ended record and another quiet poll: LF line ends) where check, on the file as it is at
    the end, reads CR line ends: the report covers all of the file, as check judges it, and says why."""
    from mlcheck.cli.watch_end import report_limits
    from mlcheck.raw.watch_state import WatchOutcome

    log = tmp_path / "job.log"
    lines, cr_ends = _followed(log, [RECORDS[0] + b"\n", RECORDS[1] + b"\r", b"\r".join(RECORDS[2:]) + b"\rdone\n"])
    assert cr_ends is False and len(lines) == 2, lines  # (as check reads the file when the second record came)
    assert len(_check_lines(log)) == 7
    outcome = WatchOutcome("complete", 1, len(lines), cr_ends=cr_ends)
    assert report_limits(str(log), outcome, 1) is None
    assert "reads it as a file in which a CR alone ends a line" in capsys.readouterr().err
    report_limits(str(log), WatchOutcome("complete", 1, 7, cr_ends=True), 1)  # (read as check reads it: no word of it)
    assert "reads it as a file" not in capsys.readouterr().err


EXAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme"


def _check_json(*args: str) -> tuple[int, dict[str, Any]]:
    import json
    import os
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", *args, "-f", "json", "--config", os.devnull],
                          capture_output=True, text=True, timeout=120)
    return done.returncode, json.loads(done.stdout)


@pytest.mark.parametrize("copied", ["cut", "whole", "one"])
def test_an_unknown_folder_the_summarizer_passes_over_leaves_the_other_scores_valid(tmp_path: Path, copied: str) -> None:
    """rv282 D1: a folder named after no benchmark of the round made every score of its package not
    valid (MLC506: 'the summarizer stops on it'); before 6.0 the summarizer stops only where it
    computes a score of the folder (no more than one run failing its compliance checker, three runs or
    more): a folder whose runs all fail it ('cut': no run_stop), or of one run, is passed over, the
    other results published (the official summarizer, run on these: no AssertionError)."""
    import shutil

    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    extra = package / "results" / "acme-t8" / "resnet_v2"
    extra.mkdir()
    for log in sorted((package / "results" / "acme-t8" / "resnet").glob("result_*.txt"))[:1 if copied == "one" else 5]:
        lines = log.read_text("utf-8").splitlines(keepends=True)
        (extra / log.name).write_text("".join(line for line in lines if not (copied == "cut" and '"run_stop"' in line)),
                                      "utf-8")
    _code, report = _check_json(str(package))
    (unknown,) = [f for f in report["findings"] if f["code"] == "MLC506"]
    (resnet,) = [b for b in report["benchmarks"] if b["folder"].endswith("/resnet")]
    said = {"cut": "its compliance checker fails 5 of its 5 result files: more than it may drop",
            "one": "its compliance checker fails 0 of its 1 result file: too few result files to score"}
    if copied in said:
        assert unknown["severity"] == "warning" and said[copied] in unknown["message"], unknown["message"]
        assert resnet["valid"] and "stops" not in (resnet["reason"] or "")
    else:
        assert unknown["severity"] == "error" and "the result summarizer stops on it" in unknown["message"]
        assert not resnet["valid"] and "(MLC506) and publishes no result of its package" in resnet["reason"]


def test_a_gzip_result_file_is_no_record_to_the_rcp_checker(tmp_path: Path) -> None:
    """rv282 D2: a result_<i>.txt holding gzip (MLC026) was read through for the RCP test (passed, its
    factor applied to the score said); the round's RCP checker reads it as text, finds no record, and
    raises on a folder whose other runs name a benchmark: the package checker stops, no scaling.json."""
    import gzip
    import shutil

    package = tmp_path / "training-3.0" / "Acme"
    shutil.copytree(EXAMPLE, package)
    last = package / "results" / "acme-t8" / "resnet" / "result_4.txt"
    last.write_bytes(gzip.compress(last.read_bytes(), mtime=0))
    code, report = _check_json(str(package))
    (bench,) = report["benchmarks"]
    assert code == 1 and not bench["valid"] and bench["rcp"]["verdict"] == "fail", bench["rcp"]
    assert "result_4.txt logs no submission_benchmark" in bench["rcp"]["reason"]
    assert "MLC026" in {f["code"] for f in report["findings"]}


def test_watch_reads_cr_records_after_a_banner_and_a_pause_as_check_does(tmp_path: Path) -> None:
    """rv283 D1: a banner of LF-ended lines and the first records, CR-ended, then a pause (init) and the
    rest: the cheap test of that short start said LF for good, the rest one line, the watch never ended."""
    log = tmp_path / "job.log"
    banner = b"".join(b"banner %d\n" % i for i in range(3))
    lines, cr_ends = _followed(log, [banner + b"\r".join(RECORDS[:3]) + b"\r", b"\r".join(RECORDS[3:]) + b"\r"])
    assert cr_ends is True and lines == _check_lines(log) and len(lines) == 3 + len(RECORDS), lines


def test_watch_tests_a_files_start_after_its_byte_order_mark_as_check_does(tmp_path: Path) -> None:
    """rv283 D2: check reads a UTF-8 byte order mark off before its test of the first 4 KiB; watch tested
    the mark with them: 3 bytes more, a CR less in the 4 KiB, the cheap test said LF where check's says CR."""
    from mlcheck.read.cr_line_ends import HEAD_BYTES

    banner = b"".join(b"banner %d\n" % i for i in range(10))
    records = b"\r".join(RECORDS * 200) + b"\r"
    data = banner + records
    crs = [i for i, byte in enumerate(data) if byte == 13]  # (CR)
    pad = HEAD_BYTES - 2 - crs[10]  # (the 11th CR at byte 4094: inside the first 4 KiB after the mark, not with it)
    data = b"x" * pad + data
    log = tmp_path / "job.log"
    lines, cr_ends = _followed(log, [b"\xef\xbb\xbf" + data])
    assert cr_ends is True and len(lines) == len(_check_lines(log)) == 10 + 200 * len(RECORDS), len(lines)


@pytest.mark.parametrize("power", [False, True])
def test_an_unknown_folder_with_power_logs_stops_the_summarizer_on_its_energy(tmp_path: Path, power: bool) -> None:
    """rv283 D3: from 3.0 the summarizer computes the energy of each run of a folder with a power folder
    that its compliance checker passes, outside any try, before it counts the runs it drops: an unknown
    folder with power logs and a run that passes is taken as a stop (its power logs are not read)."""
    import shutil

    package = tmp_path / "training-3.1" / "Acme"
    shutil.copytree(EXAMPLE, package)
    extra = package / "results" / "acme-t8" / "resnet_v2"
    extra.mkdir()
    for number, log in enumerate(sorted((package / "results" / "acme-t8" / "resnet").glob("result_*.txt"))):
        lines = log.read_text("utf-8").splitlines(keepends=True)
        (extra / log.name).write_text("".join(line for line in lines if not (number < 2 and '"run_stop"' in line)), "utf-8")
    if power:
        (extra / "power").mkdir()
    _code, report = _check_json(str(package))
    (unknown,) = [f for f in report["findings"] if f["code"] == "MLC506"]
    assert unknown["severity"] == ("error" if power else "warning"), unknown["message"]


def test_run_starts_logged_within_a_second_are_said_to_be_untagged_ranks_copies(tmp_path: Path) -> None:
    """rv281 #1: every rank printing every record without a rank tag: the run_start appears 3 times
    (MLC104), and nothing said what that most likely is, nor how to have mlcheck keep one rank's."""
    import re

    lines = (EXAMPLE / "results" / "acme-t8" / "resnet" / "result_0.txt").read_text("utf-8").splitlines(keepends=True)
    copies = [re.sub(r'"time_ms": (\d+)', lambda m: f'"time_ms": {int(m.group(1)) + rank}', line)
              for line in lines for rank in range(3)]
    log = tmp_path / "job.log"
    log.write_text("".join(copies), "utf-8")
    _code, report = _check_json(str(log))
    (repeated,) = [f for f in report["findings"] if f["code"] == "MLC104" and "run_start" in f["message"]]
    assert "logged within 2 ms of one another: every rank's copy of one record" in repeated["message"], repeated["message"]


def test_watch_reads_a_utf16_console_of_cr_line_ends_after_an_lf_banner_as_check_does(tmp_path: Path) -> None:
    """rv285 #1: a UTF-16 console, an LF banner, then records with CR line ends: check reads such a file
    by its records' line ends (no cheap test of the first 4 KiB), watch applied the cheap test: LF line
    ends, every record on one line, exit 1 where check passes."""
    log = tmp_path / "train.log"
    banner = "".join(f"banner line {i} of the job's start\n" for i in range(80))  # (more LFs than CRs in 4 KiB)
    text = (banner + "\r".join(record.decode() for record in RECORDS * 10) + "\r").encode("utf-16")
    lines, _cr_ends = _followed(log, [text])
    assert len(lines) == 80 + 10 * len(RECORDS), len(lines)


def test_watch_holds_a_progress_bar_longer_than_a_mib_until_a_record_comes(tmp_path: Path) -> None:
    """rv285 #2: a download bar drawn with CRs over more than the first MiB, written before anything
    else: watch decided CR line ends at the MiB, where check, on the whole file, looks past it to the
    LF-ended records that came later."""
    log = tmp_path / "job.log"
    bar = b"".join(b"Downloading %7d\r" % i for i in range(70_000))
    lines, cr_ends = _followed(log, [bar, b"\n" + b"\n".join(RECORDS) + b"\n"])
    assert cr_ends is False and len(lines) == len(_check_lines(log)) == 1 + len(RECORDS), len(lines)


def test_a_line_still_being_written_is_growth_for_the_idle_timeout(tmp_path: Path) -> None:
    """rv285: --idle-timeout counted whole lines: a progress bar growing without an LF for longer ended
    the watch as idle while the file grew."""
    from mlcheck.read.follow import Follower

    log = tmp_path / "job.log"
    log.write_bytes(b"started\n")
    follower = Follower(str(log), poll=0.0)
    signals = follower.signals()
    assert _follow_until_idle(signals) == [b"started\n"]
    before = follower.grew
    with open(log, "ab") as handle:
        handle.write(b"Downloading 10%\r")
    assert _follow_until_idle(signals) == [] and follower.grew > before
    follower.close()


def test_a_glob_over_a_folder_whose_result_file_is_a_fifo_is_judged_as_the_folder(tmp_path: Path) -> None:
    """rv286 D1: `check bench/result_*.txt` where result_0.txt is a FIFO read the FIFO as a named pipe
    (waiting forever for a writer); the folder's walk judges it as the official glob meets it (MLC015)."""
    import os
    import shutil

    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    bench = package / "results" / "acme-t8" / "resnet"
    (bench / "result_0.txt").unlink()
    os.mkfifo(bench / "result_0.txt")
    folder_code, folder = _check_json(str(bench))
    glob_code, globbed = _check_json(*sorted(str(path) for path in bench.glob("result_*.txt")))
    assert glob_code == folder_code == 1 and globbed["summary"] == folder["summary"]
    assert "MLC015" in {f["code"] for r in globbed["runs"] for f in r["findings"]}
    (tmp_path / "runs").symlink_to(bench)  # (rv289: through a link to the folder, which hides results/)
    linked_code, linked = _check_json(*sorted(str(tmp_path / "runs" / path.name) for path in bench.glob("result_*.txt")))
    assert linked_code == 1 and linked["summary"] == folder["summary"]


def test_a_log_key_with_control_characters_is_quoted_and_begins_no_workflow_command(tmp_path: Path) -> None:
    """rv286 D2: a record's key quoted raw in MLC007 ('time_ms' of k\\r\\n::error file=x::...): its line end
    began a line of the HTML and JUnit reports on standard output that a CI runner reads as a command."""
    import json
    import os
    import shutil
    import subprocess
    import sys

    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    log = package / "results" / "acme-t8" / "resnet" / "result_1.txt"
    lines = log.read_text("utf-8").splitlines(keepends=True)
    lines.insert(8, ":::MLLOG " + json.dumps({"namespace": "", "time_ms": "x", "event_type": "POINT_IN_TIME",
                                              "key": "k\r\n::error file=x::pwned", "value": 1,
                                              "metadata": {"file": "a", "lineno": 1}}) + "\n")
    log.write_text("".join(lines), "utf-8")
    _code, report = _check_json(str(package))
    (timed,) = [f["message"] for r in report["runs"] for f in r["findings"] if f["code"] == "MLC007"]
    assert timed.startswith("'time_ms' of 'k\\r\\n::error file=x::pwned' is"), timed
    for name in ("html", "junit"):
        out = subprocess.run([sys.executable, "-m", "mlcheck", "check", str(package), "-f", name, "--config", os.devnull],
                             capture_output=True, text=True, timeout=120).stdout
        assert not [line for line in out.splitlines() if line.lstrip().startswith("::")], name


def test_a_file_holding_only_a_byte_order_mark_is_no_growth(tmp_path: Path) -> None:
    """rv287 #1: a log holding only a UTF-16 byte order mark (a PowerShell redirection of a job that printed
    nothing) is read again at every poll: that counted as growth, and --idle-timeout never ended the watch."""
    from mlcheck.read.follow import Follower

    log = tmp_path / "job.log"
    log.write_bytes(b"\xff\xfe")
    follower = Follower(str(log), poll=0.0)
    signals = follower.signals()
    assert _follow_until_idle(signals) == []
    follower.grew = 0.0
    assert _follow_until_idle(signals) == [] and follower.grew == 0.0
    with open(log, "ab") as handle:
        handle.write("x\n".encode("utf-16-le"))
    assert _follow_until_idle(signals) == [b"x\n"] and follower.grew > 0.0
    follower.close()


def test_watch_tests_a_utf16_consoles_first_512_ki_characters_as_check_does(tmp_path: Path) -> None:
    """rv287 #3: check decides a UTF-16 console's line ends on its first 512 Ki characters, watch on a MiB
    of their UTF-8: a progress bar of CRs longer than the first, then LF-ended records, was read with CR
    line ends by check (40,000 lines) and with LF line ends by watch (7 lines; MLC002, exit 1)."""
    log = tmp_path / "train.log"
    bar = "".join(f"Downloading {i:7d}\r" for i in range(40_000))  # (800,000 characters)
    text = (bar + "\n" + "\n".join(record.decode() for record in RECORDS) + "\n").encode("utf-16")
    lines, _cr_ends = _followed(log, [text])
    assert len(lines) == 40_000 + len(RECORDS), len(lines)


def test_a_utf8_byte_order_mark_that_comes_in_pieces_is_not_tested_with_the_start(tmp_path: Path) -> None:
    """rv287 #5: a UTF-8 byte order mark whose first bytes came alone was tested with the start (the
    cheap test on 4 KiB then shifted by 3 bytes: LF where check says CR)."""
    from mlcheck.read.cr_line_ends import HEAD_BYTES

    banner = b"".join(b"banner %d\n" % i for i in range(10))
    data = banner + b"\r".join(RECORDS * 200) + b"\r"
    crs = [i for i, byte in enumerate(data) if byte == 13]
    data = b"x" * (HEAD_BYTES - 2 - crs[10]) + data
    for first in (b"\xef", b"\xef\xbb"):
        log = tmp_path / f"job{len(first)}.log"
        lines, cr_ends = _followed(log, [first, b"\xef\xbb\xbf"[len(first):] + data])
        assert cr_ends is True and len(lines) == len(_check_lines(log)), (first, len(lines))


@pytest.mark.parametrize("scaling,severity,run", [('{"factor": 1.1}', "error", True), ('{"scaling_factor": "x"}', "warning", True),
                                                  ('{"scaling_factor": "\\ud800"}', "error", True), ("nope", "error", False)])
def test_an_unknown_folders_scaling_file_stops_the_summarizer_where_reading_it_raises(
        tmp_path: Path, scaling: str, severity: str, run: bool) -> None:
    """rv287 #6, rv288 D3, rv289 D2/D3: the summarizer reads a folder's scaling.json before it counts the runs
    it drops, outside any try, with no result file too: an unknown folder it would pass over stops it there
    when the file is no JSON object, has no scaling_factor, or one its NOTICE line cannot print (a lone
    surrogate); a factor that is no number it multiplies in only with a score: passed over."""
    import shutil

    package = tmp_path / "training-3.0" / "Acme"
    shutil.copytree(EXAMPLE, package)
    extra = package / "results" / "acme-t8" / "resnet_v2"
    extra.mkdir()
    if run:
        shutil.copy(package / "results" / "acme-t8" / "resnet" / "result_0.txt", extra / "result_0.txt")
    (extra / "scaling.json").write_text(scaling, "utf-8")
    _code, report = _check_json(str(package))
    (unknown,) = [f for f in report["findings"] if f["code"] == "MLC506"]
    assert unknown["severity"] == severity, unknown["message"]


def test_run_starts_logged_seconds_apart_get_no_rank_copy_hint(tmp_path: Path) -> None:
    """The MLC104 hint of untagged ranks' copies is for run_starts within a second of one another only."""
    from mlcheck.rules.run_boundaries import _rank_copies
    from mlcheck.model import Event

    def start(time_ms: float) -> Event:
        return Event(key="run_start", value=None, time_ms=time_ms, line=1, metadata={})

    assert _rank_copies([start(1000.0), start(5000.0)]) == ""
    assert "at the same millisecond" in _rank_copies([start(1000.0), start(1000.0)])


def test_split_says_like_findings_once_with_the_lines_of_the_others() -> None:
    from mlcheck.model import Finding, Severity
    from mlcheck.report.grouped import said_once

    found = [Finding("MLC023", "record-cut", Severity.WARNING, f"cut at column {line * 7}", "job.log", line)
             for line in (3, 11, 19)] + [Finding("MLC020", "raw-output-read", Severity.INFO, "read", "job.log")]
    said = said_once(found)
    assert [(f.line, more) for f, more in said] == [(3, " (2 more like it, at lines 11, 19)"), (None, "")]


def test_a_glob_over_a_folder_with_a_broken_link_exits_as_the_folder_and_a_missing_name_stays_missing(
        tmp_path: Path) -> None:
    """rv288 D1/D2: a glob whose result_0.txt is a link to nothing was judged as the folder but exited 2
    ('cannot open the log', SARIF 'not checked'); and a name that is not there, given beside an ordinary
    glob, made its folder replace it, silently (exit 0 where it was 'no such file', exit 2)."""
    import os
    import shutil
    import subprocess
    import sys

    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    bench = package / "results" / "acme-t8" / "resnet"
    names = sorted(str(path) for path in bench.glob("result_*.txt"))

    def code(*paths: str) -> int:
        return subprocess.run([sys.executable, "-m", "mlcheck", "check", *paths, "-f", "json", "--config", os.devnull],
                              capture_output=True, timeout=120).returncode

    assert code(*names, str(bench / "result_9.txt")) == 2
    (bench / "result_0.txt").unlink()
    os.symlink(tmp_path / "nowhere", bench / "result_0.txt")
    assert code(*names) == code(str(bench)) == 1


def test_a_deeply_nested_scaling_file_is_judged_the_same_whatever_the_stack_above(tmp_path: Path) -> None:
    """rv290: json.load's RecursionError came at a depth that depends on the frames above the call: a
    scaling.json nested 974 levels deep 'raised' from the command line and not from a shallower call.
    It is read within mlcheck's own nesting limit (json_depth), the same from anywhere."""
    from mlcheck.judge.system_refusals import _scaling_raises
    from mlcheck.read.json_depth import NESTING_LIMIT

    def nested(depth: int) -> str:
        return '{"scaling_factor": ' + "[" * depth + "]" * depth + "}"

    for depth, raises in ((NESTING_LIMIT - 10, False), (NESTING_LIMIT + 24, True)):
        (tmp_path / "scaling.json").write_text(nested(depth), "utf-8")

        def called(frames: int) -> bool:
            return called(frames - 1) if frames else _scaling_raises(str(tmp_path))

        assert [called(frames) for frames in (0, 20, 60)] == [raises] * 3, depth


def test_a_glob_of_regular_result_files_through_a_link_to_their_folder_is_judged_as_the_folder(tmp_path: Path) -> None:
    """rv289: a glob of a folder's result files named through a link that hides results/ was read file
    by file (no package found: 'RCP test: not run'), where the folder named through the link is judged
    with its package (RCP pass)."""
    import shutil

    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    (tmp_path / "runs").symlink_to(package / "results" / "acme-t8" / "resnet")
    folder_code, folder = _check_json(str(tmp_path / "runs"))
    glob_code, globbed = _check_json(*sorted(str(path) for path in (tmp_path / "runs").glob("result_*.txt")))
    assert glob_code == folder_code == 0 and globbed == folder and globbed["benchmarks"][0]["rcp"]["verdict"] == "pass"
    _partial_code, partial = _check_json(*sorted(str(path) for path in (tmp_path / "runs").glob("result_*.txt"))[:2])
    assert partial["summary"]["runs"] == 2  # (two files of five: each a run, as before)
