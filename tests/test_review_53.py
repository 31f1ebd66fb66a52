"""Session 53: reviews of raw consoles, packages of rounds 4.0-6.1 and scores."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme"


def _report(cwd: Path, target: str, output: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "mlcheck", "report", target, "-o", output, "--no-progress"],
                          capture_output=True, cwd=cwd, timeout=120)


def test_report_refuses_a_json_name_in_a_package_under_a_folder_named_results(tmp_path: Path) -> None:
    """'report data/results/Acme -o data/results/Acme/r.json' wrote HTML into r.json: the folder
    named results above the package was taken for the package's own (refused later, it was not)."""
    shutil.copytree(EXAMPLE, tmp_path / "data" / "results" / "Acme")
    done = _report(tmp_path, "data/results/Acme", "data/results/Acme/r.json")
    assert done.returncode == 2 and "names a json report" in done.stderr.decode()
    assert not (tmp_path / "data" / "results" / "Acme" / "r.json").exists()


def test_report_into_a_checked_system_folder_is_refused_as_an_input(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "Acme")
    done = _report(tmp_path, "Acme/results/acme-t8", "Acme/results/acme-t8/r.json")
    assert done.returncode == 2 and "a folder this check reads" in done.stderr.decode()
    assert not (tmp_path / "Acme" / "results" / "acme-t8" / "r.json").exists()


def _check_json(*args: str) -> dict:  # type: ignore[type-arg]
    import json
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", *args, "-f", "json", "--no-progress"],
                          capture_output=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr.decode()
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _codes(report: dict) -> list[tuple[str, str, bool, str]]:  # type: ignore[type-arg]
    return sorted((f["code"], f["severity"], f["official"], Path(f["path"]).name) for f in report["findings"])


def test_result_files_in_a_system_folder_are_no_result_the_tools_read(tmp_path: Path) -> None:
    """rv224: results/<system>/result_*.txt (the benchmark level left out): the package checker
    lists only the system folder's folders and passes; mlcheck scored the runs as a valid resnet
    result and said its run count (MLC502) was the official checker's."""
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    system = package / "results" / "acme-t8"
    for log in (system / "resnet").iterdir():
        log.rename(system / log.name)
    (system / "resnet").rmdir()
    (system / "result_4.txt").unlink()  # (4 runs: a run count the folder would fail where it belongs)
    report = _check_json(str(package))
    (bench,) = report["benchmarks"]
    assert bench["valid"] is False and "outside results/<system>/<benchmark>/ (MLC509)" in bench["reason"]
    assert _codes(report) == [("MLC502", "error", False, "acme-t8"), ("MLC509", "error", False, "acme-t8")]
    (layout,) = [f for f in report["findings"] if f["code"] == "MLC509"]
    assert "the benchmark level left out" in layout["message"] and layout["message"].endswith("acme-t8/resnet/")
    # the same copies beside the benchmark folder the tools read: stray files, a warning
    shutil.copytree(EXAMPLE / "results" / "acme-t8" / "resnet", system / "resnet")
    report = _check_json(str(package))
    assert [(b["folder"].endswith("resnet"), b["valid"]) for b in report["benchmarks"]] == [(False, False), (True, True)]
    assert ("MLC509", "warning", False, "acme-t8") in _codes(report)
    assert not [c for c in _codes(report) if c[1] == "error" or c[0] == "MLC508"]


def test_a_folder_named_json_in_systems_is_refused_as_the_checker_crashes_on_it(tmp_path: Path) -> None:
    """rv224: the package checker globs systems/*.json, folders too, and open() raises
    IsADirectoryError; mlcheck listed only files and passed."""
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    (package / "systems" / "extra.json").mkdir()
    (package / "systems" / ".hidden.json").mkdir()  # (no match of the glob's '*')
    report = _check_json(str(package))
    assert _codes(report) == [("MLC511", "error", True, "extra.json")]


RESNET = EXAMPLE / "results" / "acme-t8" / "resnet"


def _run_of(tmp_path: Path, name: str, text: bytes) -> dict:  # type: ignore[type-arg]
    log = tmp_path / name
    log.write_bytes(text)
    return _check_json(str(log), "--config", os.devnull)


def _cut_at(line_index: int, offset: int, inserted: bytes) -> bytes:
    lines = (RESNET / "result_0.txt").read_bytes().splitlines(keepends=True)
    at = sum(map(len, lines[:line_index])) + offset
    text = b"".join(lines)
    return text[:at] + inserted + text[at:]


_OTHER_STREAM = {
    "nccl": b"node017:1234:1234 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n",
    "tqdm": "\r 10%|\u2588         | 1/10 [00:01<00:09,  1.00it/s]".encode(),
    "tqdm twice": "\r 10%|\u2588 | 1/10 [00:01<00:09]\r 20%|\u2588\u2588 | 2/10 [00:02<00:08]".encode(),
}


@pytest.mark.parametrize("offset", range(1, 10))
@pytest.mark.parametrize("other", sorted(_OTHER_STREAM))
def test_a_marker_cut_by_another_streams_text_is_joined_again(tmp_path: Path, other: str, offset: int) -> None:
    """rv223: ':::' + an NCCL line (or tqdm's redraws, on the record's own line) + 'MLLOG {...}'
    (stdout block-buffered, the flush inside the marker): the record was dropped without a word
    (an eval lost: MLC301 'official checker agrees'), or read as a JSON number (MLC005)."""
    report = _run_of(tmp_path, "job.log", _cut_at(196, offset, _OTHER_STREAM[other]))
    (run,) = report["runs"]
    assert run["verdict"] == "pass" and [f["code"] for f in report["findings"]] == ["MLC020"]
    assert "1 record cut by another stream's line" in report["findings"][0]["message"]


@pytest.mark.parametrize("other", [b"[WARNING|trainer.py:123] 2024-05-01 12:00:00 >> a warning\n"])
def test_a_number_cut_by_a_bracketed_line_is_joined_again(tmp_path: Path, other: bytes) -> None:
    """rv223: transformers' '[LEVEL|file:line]' begins with no digit the number could end with:
    the place of the cut is certain (was MLC003). Not NCCL's line: its host may begin with digits."""
    report = _run_of(tmp_path, "job.log", _cut_at(196, len(':::MLLOG {"namespace": "", "time_ms": 16520'), other))
    assert report["runs"][0]["verdict"] == "pass" and [f["code"] for f in report["findings"]] == ["MLC020"]


@pytest.mark.parametrize("said", [b"Killed\n", b"Segmentation fault (core dumped)\n", b"Aborted\n",
                                  b"Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f (most recent "
                                  b"call first):\n  File \"/workspace/train.py\", line 88 in main\n"])
def test_a_shells_bare_word_that_a_process_died_ends_the_run(tmp_path: Path, said: bytes) -> None:
    """rv223: dash (/bin/sh of Debian and Ubuntu images) says 'Killed' alone where bash says 'run.sh:
    line 3: 4242 Killed ...'; the attempt killed in its initialisation and relaunched 45 s later
    was read as one run with the relaunch (pass), not as a crashed run and a run."""
    import re
    killed = b"".join((RESNET / "result_0.txt").read_bytes().splitlines(keepends=True)[:15])
    relaunch = (RESNET / "result_1.txt").read_bytes()
    shift = int(re.findall(rb'"time_ms": (\d+)', killed)[-1]) + 45_000 - int(re.findall(rb'"time_ms": (\d+)', relaunch)[0])
    relaunch = re.sub(rb'("time_ms": )(\d+)', lambda m: m.group(1) + str(int(m.group(2)) + shift).encode(), relaunch)
    report = _run_of(tmp_path, "job.log", killed + said + relaunch)
    assert [r["verdict"] for r in report["runs"]] == ["fail", "pass"]
    assert [r["lines"][0] for r in report["runs"]] == [1, 16 + said.count(b"\n")]


def test_a_progress_bar_inside_a_record_on_its_line_is_taken_out() -> None:
    """rv223: tqdm's redraws (CR, the bar, no line end) between two blocks of stdout, inside the
    record: the bar ends at the ']' of its times, the one place that makes a record of the text
    before the first CR and after the last (was MLC023 at every place of the record)."""
    from mlcheck.read.bar_cuts import bar_joined
    record = (RESNET / "result_0.txt").read_bytes().splitlines(keepends=True)[196]
    bars = ["\r 10%|\u2588 | 1/10 [00:01<00:09,  1.00it/s]".encode(),
            "\r 10%|\u2588 | 1/10 [00:01<00:09]\r 20%|\u2588\u2588 | 2/10 [00:02<00:08]".encode()]
    for bar in bars:
        for at in range(len(b":::MLLOG {"), len(record) - 2):
            assert bar_joined(record[:at] + bar + record[at:]) == record, (bar, at)
    assert bar_joined(record.rstrip(b"\n") + bars[0] + b"\n") is None  # (a whole record before the bar)
    assert bar_joined(bars[0] + record) is None  # (the bar before the record: the reader's)


def test_a_bar_with_its_line_end_inside_a_number_is_joined(tmp_path: Path) -> None:
    """rv223: 'time_ms': 16520 + CR and the bar + line end + the number's rest: a CR begins the
    other stream's line surely (no record holds one), so no digit before it is the bar's."""
    bar = "\r 10%|\u2588         | 1/10 [00:01<00:09,  1.00it/s]\n".encode()
    report = _run_of(tmp_path, "job.log", _cut_at(196, len(':::MLLOG {"namespace": "", "time_ms": 16520'), bar))
    assert report["runs"][0]["verdict"] == "pass" and [f["code"] for f in report["findings"]] == ["MLC020"]


def _records_split(tmp_path: Path, text: bytes) -> bytes:
    tmp_path.mkdir(parents=True, exist_ok=True)
    log = tmp_path / "job.log"
    log.write_bytes(text)
    subprocess.run([sys.executable, "-m", "mlcheck", "split", str(log), "-o", str(tmp_path / "out")],
                   capture_output=True, timeout=120)
    return b"".join(path.read_bytes() for path in sorted((tmp_path / "out").iterdir()))


def test_an_nccl_line_of_a_host_named_with_digits_first_is_no_sure_end_of_a_number(tmp_path: Path) -> None:
    """rv228: '"value": 0.7' + '4f93b2a1c0d4:1234:1234 [0] NCCL ...' + '602...': a container's host
    name may begin with digits, so the number's last digits are unknown (was joined as 0.746...)."""
    report = _run_of(tmp_path, "job.log", _cut_at(196, len(':::MLLOG {"namespace": "", "time_ms": 1652083933469, '
                                                        '"event_type": "POINT_IN_TIME", "key": "eval_accuracy", '
                                                        '"value": 0.4'), b"4f93b2a1c0d4:1234:1234 [0] NCCL INFO x\n"))
    assert {"MLC003", "MLC023"} & {f["code"] for f in report["findings"]} and report["runs"][0]["verdict"] == "fail"
    assert not [f for f in report["findings"] if f["code"] == "MLC020" and "joined" in f["message"]]


def test_a_bars_padding_or_words_inside_a_string_leave_the_record_cut(tmp_path: Path) -> None:
    """rv228: tqdm pads a shorter redraw with blanks, Keras goes on after its ']': inside a string
    the bar's end is not known (was joined as "suc  cess", "eval_ - ETA: 5s accuracy")."""
    from mlcheck.read.bar_cuts import bar_joined
    record = (RESNET / "result_0.txt").read_bytes().splitlines(keepends=True)[196]
    at = record.index(b'"eval_') + 6
    for bar in (b"\r 99%|#9| 99/100 [00:10<00:00]\r100%|##| 100/100 [00:10<00:00]  ", b"\r 1/10 [==>...] - ETA: 5s"):
        assert bar_joined(record[:at] + bar + record[at:]) is None
    at = record.index(b'"value": 0.4') + 11  # (inside a number the blanks make the same record)
    assert bar_joined(record[:at] + b"\r 99%|#9| 99/100 [00:10<00:00]  " + record[at:]) == record


def test_a_line_beginning_with_the_markers_last_letters_after_a_record_is_no_cut_marker(tmp_path: Path) -> None:
    """rv228: 'LOG {...}' or 'G {...}' after a record's line (which holds every head of the marker)
    was made a record; the head must begin the line before (a block of stdout ended there), end it,
    or come before a text that begins as another stream's line."""
    lines = (RESNET / "result_0.txt").read_bytes().splitlines(keepends=True)
    for extra in (b"LOG" + lines[10][8:], b'G {"key": "eval_accuracy", "value": 0.99, "time_ms": 1}\n'):
        assert _records_split(tmp_path / str(len(extra)), b"".join(lines[:11] + [extra] + lines[11:])) == b"".join(lines)
    text = b"".join(lines[:11] + [b"INFO: something\n", b"::" + lines[11][3:]] + lines[12:])
    assert _records_split(tmp_path / "info", text) == b"".join(lines[:11] + lines[12:])


def test_result_files_directly_in_results_are_no_result_the_tools_read(tmp_path: Path) -> None:
    """rv228: <org>/results/result_*.txt (the system and benchmark levels left out) was a valid score."""
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    for log in RESNET.iterdir():
        shutil.copy(log, package / "results" / log.name)
    shutil.rmtree(package / "results" / "acme-t8")
    report = _check_json(str(package))
    (bench,) = report["benchmarks"]
    assert bench["valid"] is False and _codes(report) == [("MLC509", "error", False, "results")]
    assert "the system and benchmark levels left out" in report["findings"][0]["message"]


def test_waivers_found_by_their_literal_paths_keep_the_files_order(tmp_path: Path) -> None:
    """rv226: each finding was tried against every waiver (4,000 waivers of one file each: 247 s);
    literal paths are now looked up. The first waiver of the file that matches still wins, a glob
    or a literal one, relative or absolute; the others are unused (MLC040)."""
    from mlcheck.model import Finding, Severity
    from mlcheck.results import CheckResult
    from mlcheck.settings.waiver_table import Waiver
    from mlcheck.settings.waivers import apply_waivers
    log = tmp_path / "results" / "s" / "resnet" / "result_0.txt"
    found = Finding(code="MLC304", name="x", severity=Severity.ERROR, message="m", path=str(log), line=3)
    result = CheckResult(runs=(), benchmarks=(), findings=(found,))
    glob = Waiver("MLC3", "results/**", "glob", "c.toml:1")
    literal = Waiver("MLC304", "results/s/resnet/result_0.txt", "literal", "c.toml:5")
    absolute = Waiver("MLC304", str(log), "absolute", "c.toml:9")
    other_code = Waiver("MLC2", "results/s/resnet/result_0.txt", "code", "c.toml:13")
    for order, reason in (([glob, literal], "glob"), ([literal, glob], "literal"), ([other_code, absolute, glob], "absolute")):
        waived = apply_waivers(result, order, str(tmp_path), checked=[str(tmp_path)])
        assert [w.reason for w in waived.waived] == [reason]
        assert len([f for f in waived.findings if f.code == "MLC040"]) == len(order) - 1


def test_the_lines_of_many_repeated_keys_are_found_in_one_pass(tmp_path: Path) -> None:
    """rv226: the line of each repeated key of a system description was searched from the file's
    start (100,000 repeated keys: 229 s)."""
    from mlcheck.package.json_document import read_json_document
    path = tmp_path / "s.json"
    path.write_text('{\n "a": 1,\n "caf\\u00e9": 2,\n "b": {"c": "a"},\n "a": 3,\n "café": 4,\n "b": 5\n}\n', "utf-8")
    document = read_json_document(str(path))  # (a key's second spelling as a key: "a" as a value is none)
    assert dict(document.duplicate_keys) == {"a": 5, "café": 6, "b": 7}


def test_a_refused_system_description_leaves_no_valid_score_in_its_package(tmp_path: Path) -> None:
    """rv230: the package checker reads every systems/*.json and fails the package on one it
    refuses (the summarizer stops on it and publishes nothing); another system's scores were
    'valid'. Now each says why it is not."""
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    (package / "systems" / "other.json").write_text("{", "utf-8")
    report = _check_json(str(package))
    (bench,) = report["benchmarks"]
    assert bench["valid"] is False
    assert "the package checker refuses its package: the system description" in bench["reason"]
    assert "other.json is refused (MLC511)" in bench["reason"]
    assert ("MLC511", "error", True, "other.json") in _codes(report)


@pytest.mark.parametrize("where", ["results/acme-t8", "results"])
def test_copies_beside_the_benchmark_folder_are_no_result(tmp_path: Path, where: str) -> None:
    """rv229: copies of the result files in the system folder, or in results/, beside the
    benchmark folder the tools read: a warning (was an error for results/), not a result (score's
    exit 0; their runs' errors warnings), placed in SARIF on a copy (was on the folder's real file)."""
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    for log in RESNET.iterdir():
        shutil.copy(log, package / where / log.name)
    (package / where / "result_4.txt").write_bytes(b"".join(  # (a broken copy: no run_stop)
        line for line in (RESNET / "result_4.txt").read_bytes().splitlines(keepends=True) if b"run_stop" not in line))
    report = _check_json(str(package))
    assert [c for c in _codes(report) if c[1] == "error"] == []
    assert ("MLC509", "warning", False, Path(where).name) in _codes(report)
    assert [b["reason"].endswith("not a result: copies beside the benchmark folder the official tools read (MLC509)")
            for b in report["benchmarks"] if b["folder"].endswith(where)] == [True]
    done = subprocess.run([sys.executable, "-m", "mlcheck", "score", str(package), "--no-progress"],
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    sarif = subprocess.run([sys.executable, "-m", "mlcheck", "check", str(package), "-f", "sarif", "--no-progress"],
                           capture_output=True, timeout=120)
    import json
    (placed,) = [r for r in json.loads(sarif.stdout)["runs"][0]["results"] if r["ruleId"] == "MLC509"]
    assert placed["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith(f"{where}/result_0.txt")


def test_a_repeated_keys_line_is_found_past_a_long_value_of_escaped_quotes(tmp_path: Path) -> None:
    """rv229: the key search started again at each escaped quote of a value (80 KB of them: 41 s)."""
    from mlcheck.package.json_document import read_json_document
    path = tmp_path / "s.json"
    path.write_text('{\n "notes": "' + '\\\\\\"' * 2000 + '",\n "a": 1,\n "a": 2\n}\n', "utf-8")
    assert dict(read_json_document(str(path)).duplicate_keys) == {"a": 4}


@pytest.mark.parametrize("line_end", [b"\n", b"\r\n"])
def test_a_utf16_console_keeps_a_bars_cr_inside_its_line(tmp_path: Path, line_end: bytes) -> None:
    """rv228: a console a Windows shell saved as UTF-16 was read with a bare CR as a line end: a
    record whose marker tqdm's redraws cut was dropped without a word (split wrote one record less)."""
    lines = (RESNET / "result_0.txt").read_bytes().splitlines(keepends=True)
    cut = lines[196][:3] + "\r 10%|\u2588 | 1/10 [00:01<00:09]".encode() + lines[196][3:]
    text = b"".join(lines[:196] + [cut] + lines[197:]).replace(b"\n", line_end)
    log = tmp_path / "console.log"
    log.write_bytes(text.decode("utf-8").encode("utf-16"))
    split = _records_split(tmp_path / "out", log.read_bytes()).replace(b"\r\n", b"\n")
    assert split == b"".join(lines)


def test_a_utf16_console_of_cr_line_ends_reads_as_its_utf8_copy(tmp_path: Path) -> None:
    """rv231: CR line ends with an LF-ended line among them (a launcher's line first): the UTF-16
    console was read as two lines (every finding at line 2) once a bar's CR stayed in its line."""
    lines = (RESNET / "result_0.txt").read_bytes().splitlines()
    text = b"launcher: starting the job\n" + b"\r".join(lines[:100] + lines[101:]) + b"\r"
    found = {}
    for name, data in (("utf8.log", text), ("utf16.log", text.decode("utf-8").encode("utf-16"))):
        (tmp_path / name).write_bytes(data)
        report = _check_json(str(tmp_path / name), "--config", os.devnull)
        found[name] = sorted((f["code"], f["line"]) for f in report["findings"] if f["code"] not in ("MLC009", "MLC020"))
    assert found["utf16.log"] == found["utf8.log"] and any(line and line > 2 for _, line in found["utf8.log"])


def test_the_html_scores_name_mlc509_for_stray_copies(tmp_path: Path) -> None:
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    for log in RESNET.iterdir():
        shutil.copy(log, package / "results" / "acme-t8" / log.name)
    subprocess.run([sys.executable, "-m", "mlcheck", "report", str(package), "-o", str(tmp_path / "r.html"),
                    "--no-progress"], capture_output=True, timeout=120)
    page = (tmp_path / "r.html").read_text("utf-8")
    assert "not a result (MLC509)" in page and "not a result (MLC508)" not in page
