"""Session 51: standard output redirected into an input is refused as ``-o`` is."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "example"
REFUSED = "mlcheck: error: standard output is redirected into "
REFUSED_ERR = "mlcheck: error: standard error is redirected into "


def _package(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLE / "Acme", tmp_path / "Acme")
    return tmp_path / "Acme"


def _run(args: list[str], stdout: Path, mode: str = "ab", stdin: Path | None = None,
         stderr: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    """mlcheck with standard output (or, given ``stderr``, standard error, and stdout piped) redirected."""
    with open(stdout, mode) as out, open(stdin or "/dev/null", "rb") as given:
        if stderr is None:
            return subprocess.run([sys.executable, "-m", "mlcheck", *args], stdout=out, stdin=given,
                                  stderr=subprocess.PIPE, timeout=120)
        both = subprocess.STDOUT if stderr == stdout else open(stderr, "ab")
        return subprocess.run([sys.executable, "-m", "mlcheck", *args], stdout=out if stderr == stdout else subprocess.PIPE,
                              stdin=given, stderr=both, timeout=120)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("command", [["check"], ["check", "-f", "json"], ["score"], ["report", "-o", "-"]])
def test_output_appended_to_a_log_is_refused_and_the_log_kept(tmp_path: Path, command: list[str]) -> None:
    log = _package(tmp_path) / "results" / "acme-t8" / "resnet" / "result_0.txt"
    before = _digest(log)
    done = _run([*command, str(tmp_path / "Acme")], log)
    assert done.returncode == 2 and _digest(log) == before
    assert f"{REFUSED}{log}, an input of this check" in done.stderr.decode()


def test_output_into_a_new_file_of_a_checked_folder_is_refused(tmp_path: Path) -> None:
    report = _package(tmp_path) / "results" / "acme-t8" / "report.txt"
    done = _run(["check", str(tmp_path / "Acme")], report, "wb")
    assert done.returncode == 2 and report.read_bytes() == b""
    assert f"{REFUSED}{report}, an input" in done.stderr.decode()


def test_stdin_and_stdout_one_file_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "result_1.txt"
    shutil.copy(EXAMPLE / "Acme" / "results" / "acme-t8" / "resnet" / "result_1.txt", log)
    before = _digest(log)
    done = _run(["check", "-"], log, stdin=log)
    assert done.returncode == 2 and _digest(log) == before
    assert f"{REFUSED}the file standard input reads" in done.stderr.decode()


def test_output_into_a_file_beside_the_package_is_written(tmp_path: Path) -> None:
    _package(tmp_path)
    report = tmp_path / "report.json"
    done = _run(["check", str(tmp_path / "Acme"), "-f", "json"], report, "wb")
    assert done.returncode == 0 and REFUSED not in done.stderr.decode()
    assert report.read_text("utf-8").startswith('{\n  "schema": "mlcheck-report/1"')


def test_report_to_a_file_leaves_standard_output_alone(tmp_path: Path) -> None:
    """``report -o FILE`` writes nothing to standard output: where it points is no matter."""
    log = _package(tmp_path) / "results" / "acme-t8" / "resnet" / "result_0.txt"
    before = _digest(log)
    done = _run(["report", str(tmp_path / "Acme"), "-o", str(tmp_path / "r.html")], log)
    assert done.returncode == 0 and _digest(log) == before and (tmp_path / "r.html").read_bytes().startswith(b"<!DOCTYPE html>")


def test_watch_into_the_log_watched_is_refused_at_once(tmp_path: Path) -> None:
    """``mlcheck watch job.log >> job.log``: said at the start, not after the run's quiet polls."""
    log = tmp_path / "job.log"
    shutil.copy(EXAMPLE / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt", log)
    before = _digest(log)
    done = _run(["watch", str(log), "--idle-timeout", "30"], log)
    assert done.returncode == 2 and _digest(log) == before
    assert f"{REFUSED}{log}, an input of this watch" in done.stderr.decode()


def test_standard_error_into_a_log_is_refused_and_said_on_stdout(tmp_path: Path) -> None:
    """``2>> result_0.txt``: the summary line would be appended to the log (an attack review,
    session 51); the error is said on standard output, the log left as it was."""
    log = _package(tmp_path) / "results" / "acme-t8" / "resnet" / "result_0.txt"
    before = _digest(log)
    done = _run(["check", str(tmp_path / "Acme"), "-f", "json"], tmp_path / "unused.txt", stderr=log)
    assert done.returncode == 2 and _digest(log) == before
    assert done.stdout.decode().startswith(f"{REFUSED_ERR}{log}, an input")


def test_both_streams_into_a_log_say_nothing_there(tmp_path: Path) -> None:
    """``>> result_0.txt 2>&1``: the refusal itself would be written into the log; exit 2 alone."""
    log = _package(tmp_path) / "results" / "acme-t8" / "resnet" / "result_0.txt"
    before = _digest(log)
    done = _run(["check", str(tmp_path / "Acme")], log, stderr=log)
    assert done.returncode == 2 and _digest(log) == before
    watched = _run(["watch", str(log), "--idle-timeout", "30"], log, stderr=log)
    assert watched.returncode == 2 and _digest(log) == before


def test_watch_with_standard_error_into_the_log_is_refused_at_once(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    shutil.copy(EXAMPLE / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt", log)
    before = _digest(log)
    done = _run(["watch", str(log), "--idle-timeout", "30"], tmp_path / "out.txt", stderr=log)
    assert done.returncode == 2 and _digest(log) == before
    assert done.stdout.decode().startswith(f"{REFUSED_ERR}{log}, an input of this watch")


def test_split_of_stdin_refuses_to_write_over_stdins_file(tmp_path: Path) -> None:
    """``split - -o DIR --force --start-index 2 < DIR/result_2.txt`` (an attack review, session 51:
    the file was rewritten)."""
    log = tmp_path / "result_2.txt"
    shutil.copy(EXAMPLE / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt", log)
    before = _digest(log)
    done = _run(["split", "-", "-o", str(tmp_path), "--force", "--start-index", "2"], tmp_path / "out.txt", stdin=log)
    assert done.returncode == 2 and _digest(log) == before
    assert f"{log} is an input of this split (the log it reads: standard input)" in done.stderr.decode()


@pytest.mark.parametrize("key", ["run_start", "run_stop"])
def test_a_boundary_logged_twice_with_nan_is_the_checkers_warning(tmp_path: Path, key: str) -> None:
    """Two run_stops (or run_starts) of value NaN: the checker's all_same (``l.count(l[0])``) reads
    json's one NaN object as one value, so it warns (a review, session 51: MLC104 was an error)."""
    import json

    from mlcheck import check

    lines = (EXAMPLE / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt").read_text("utf-8").splitlines(True)
    at = next(i for i, line in enumerate(lines) if f'"key": "{key}"' in line)
    nan = lines[at].replace('"value": null', '"value": NaN')
    assert nan != lines[at]
    log = tmp_path / "result_0.txt"
    log.write_text("".join(lines[:at] + [nan, nan] + lines[at + 1:]), "utf-8")
    (run,) = check(str(log)).runs
    assert run.official_verdict == "pass"
    assert [(f.code, f.severity.name, f.official, f.line) for f in run.findings if f.code == "MLC104"] == \
        [("MLC104", "WARNING", False, at + 2)]
    assert json.loads("[NaN, NaN]")[0] is json.loads("[NaN, NaN]")[1]  # (the checker's premise)


def _mlcheck(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **kwargs}
    return subprocess.run([sys.executable, "-m", "mlcheck", *args], timeout=120, **streams)  # type: ignore[call-overload]


@pytest.mark.parametrize("command", [["check", "-v"], ["score", "-v"], ["check", "-o", "sarif:{log1}"],
                                     ["check", "-o", "json:/proc/self/fd/2"], ["score", "--table-output", "{tab}"]])
def test_nothing_reaches_a_log_before_its_refusal(tmp_path: Path, command: list[str]) -> None:
    """-v's lines, an -o refusal said on a stderr that writes into a log, score's lines on a stdout
    that does while --table-output names a file: each wrote into the log before (an attack review,
    session 51)."""
    folder = _package(tmp_path) / "results" / "acme-t8" / "resnet"
    log = folder / "result_0.txt"
    before = _digest(log)
    args = [part.format(log1=folder / "result_1.txt", tab=tmp_path / "tab.txt") for part in command]
    stream = "stdout" if "--table-output" in args else "stderr"
    with open(log, "ab") as into:
        done = _mlcheck([*args, str(tmp_path / "Acme")], **{stream: into})
    assert done.returncode == 2 and _digest(log) == before


def test_split_refuses_a_stream_into_its_log(tmp_path: Path) -> None:
    raw = tmp_path / "raw.log"
    shutil.copy(EXAMPLE / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt", raw)
    before = _digest(raw)
    with open(raw, "ab") as into:
        done = _mlcheck(["split", str(raw), "-o", str(tmp_path / "out")], stdout=into)
    assert done.returncode == 2 and _digest(raw) == before and not (tmp_path / "out").exists()
    assert f"standard output is redirected into {raw}, an input of this split" in done.stderr.decode()


def test_watch_refuses_at_its_start_the_config_and_the_package_folders(tmp_path: Path) -> None:
    """What watch says while following would reach them (an attack review, session 51: the config
    got the progress lines; a new file in the benchmark folder was refused after the run)."""
    log = _package(tmp_path) / "results" / "acme-t8" / "resnet" / "result_0.txt"
    config = tmp_path / "cfg.toml"
    config.write_text("strict = false\n", "utf-8")
    with open(config, "ab") as into:
        done = _mlcheck(["watch", "--idle-timeout", "30", "--config", str(config), str(log)], stderr=into)
    assert done.returncode == 2 and config.read_text("utf-8") == "strict = false\n"
    assert done.stdout.decode().startswith(f"{REFUSED_ERR}{config}, an input of this watch")
    report = log.parent / "w.txt"
    with open(report, "wb") as into:
        done = _mlcheck(["watch", "--idle-timeout", "30", str(log)], stdout=into)
    assert done.returncode == 2 and report.read_bytes() == b""
    assert f"{REFUSED}{report}, an input of this watch" in done.stderr.decode()


@pytest.mark.skipif(not hasattr(os, "mkfifo") or not os.path.exists("/dev/stdin"), reason="POSIX pipes")
def test_pipes_and_the_names_of_stdin(tmp_path: Path) -> None:
    """A FIFO read with stdin closed is that FIFO, not stdin; /dev/stdin on a FIFO stdin is stdin's
    copy, never opened (which waited for a writer) and the same at every reading (attack review,
    session 51)."""
    import threading

    fifo = tmp_path / "job.log"
    os.mkfifo(fifo)
    text = (EXAMPLE / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt").read_bytes()
    assert len(text) < 65536  # (the pipe's buffer holds it: its writer is gone before mlcheck reads)
    writer = threading.Thread(target=fifo.write_bytes, args=(text,))
    writer.start()
    closed = _mlcheck(["check", str(fifo), "-f", "json"], stdin=subprocess.DEVNULL, preexec_fn=lambda: os.close(0))
    writer.join(timeout=60)
    (run,) = json.loads(closed.stdout)["runs"]
    assert closed.returncode == 0 and run["verdict"] == "pass"
    writer = threading.Thread(target=fifo.write_bytes, args=(text,))
    writer.start()
    with open(fifo, "rb") as stdin:
        writer.join(timeout=60)  # (the writer gone: opening the FIFO again would wait for ever)
        named = _mlcheck(["check", "/dev/stdin", "-f", "json"], stdin=stdin)
    (run,) = json.loads(named.stdout)["runs"]
    assert named.returncode == 0 and run["verdict"] == "pass" and run["path"] == "/dev/stdin"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX pipes")
def test_two_pipes_fed_by_one_writer_in_two_threads(tmp_path: Path) -> None:
    """`tee fa > fb` read by check() in two threads: each pipe is copied as it comes (an attack
    review, session 51: one lock over every copy made both wait for ever)."""
    import threading

    from mlcheck import check

    text = (EXAMPLE / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt").read_bytes() * 3
    pipes = [tmp_path / "fa.log", tmp_path / "fb.log"]
    for pipe in pipes:
        os.mkfifo(pipe)

    def tee() -> None:
        with open(pipes[0], "wb") as first, open(pipes[1], "wb") as second:
            for start in range(0, len(text), 4096):
                first.write(text[start:start + 4096])
                second.write(text[start:start + 4096])

    verdicts: dict[str, int] = {}
    threads = [threading.Thread(target=tee, daemon=True)] + [
        threading.Thread(target=lambda p=pipe: verdicts.update({p.name: len(check(str(p)).runs)}), daemon=True)
        for pipe in pipes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads) and verdicts == {"fa.log": 1, "fb.log": 1}


@pytest.mark.parametrize("value, verdict", [("false", "pass"), ("true", "fail")])
def test_open_evals_logged_as_booleans_are_compared_as_the_checker_does(tmp_path: Path, value: str,
                                                                         verdict: str) -> None:
    """open_resnet.yaml's ``v['value'] < 1.0``: ``false`` is 0, below 1.0, ``true`` is 1 (a review
    of session 51: MLC306 counted no boolean as below)."""
    import re

    from mlcheck import check

    text = (EXAMPLE / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt").read_text("utf-8")
    text = text.replace('"key": "submission_division", "value": "closed"', '"key": "submission_division", "value": "open"')
    text = re.sub(r'("key": "eval_accuracy", "value": )[0-9.e-]+', rf"\g<1>{value}", text)
    assert '"value": "open"' in text and f'"eval_accuracy", "value": {value}' in text
    log = tmp_path / "result_0.txt"
    log.write_text(text, "utf-8")
    (run,) = check(str(log), ruleset="2.0.0").runs
    assert run.official_verdict == verdict
    assert [f.code for f in run.findings if f.code == "MLC306"] == ([] if verdict == "pass" else ["MLC306"])


@pytest.mark.parametrize("tensor, official", [('"bogus/tensor"', "pass"), ("7", "fail"), ("null", "fail")])
def test_a_11_tensor_name_python_cannot_sort_fails_the_file(tmp_path: Path, tensor: str, official: str) -> None:
    """1.1's checker of record warned on a tensor list that differs; a name that is no string
    beside the others makes its END check's sorted() raise, which fails the file (a review of
    session 51, by analogy with the POST code's raise of logging#197; every later release fails it)."""
    from mlcheck import check

    lines = (EXAMPLE / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt").read_text("utf-8").splitlines(True)
    at = next(i for i, line in enumerate(lines) if '"key": "weights_initialization"' in line)
    changed = re.sub(r'"tensor": "[^"]*"', f'"tensor": {tensor}', lines[at])
    assert changed != lines[at]
    log = tmp_path / "result_0.txt"
    log.write_text("".join(lines[:at] + [changed] + lines[at + 1:]), "utf-8")
    (run,) = check(str(log), ruleset="1.1.0").runs
    (found,) = [f for f in run.findings if f.code == "MLC206"]
    assert run.official_verdict == official and found.official is (official == "fail") and found.line == at + 1


def test_a_log_through_a_link_is_judged_by_its_links_folder_everywhere(tmp_path: Path) -> None:
    """check and watch agree on a log reached through a link: the folders guarded are those of the
    path given, as a check's benchmark folder is (an attack review, session 51: watch refused what
    check wrote)."""
    log = _package(tmp_path) / "results" / "acme-t8" / "resnet" / "result_0.txt"
    (tmp_path / "links").mkdir()
    (tmp_path / "links" / "r0.txt").symlink_to(log)
    codes = []
    for command in (["check"], ["watch", "--idle-timeout", "1"]):
        report = log.parent.parent / f"{command[0]}.txt"
        codes.append(_run([*command, str(tmp_path / "links" / "r0.txt")], report, "wb").returncode)
    assert codes == [0, 0]


def test_a_boolean_field_of_an_eval_is_said_as_a_scalar_boolean_is(tmp_path: Path) -> None:
    """Mask R-CNN's ``{"BBOX": false, ...}``: MLC304's warning, as for ``false`` alone (an attack
    review, session 51)."""
    from mlcheck import check
    from mlcheck.model import Severity

    lines = (EXAMPLE / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt").read_text("utf-8").splitlines(True)
    lines = [line.replace('"submission_benchmark", "value": "resnet"', '"submission_benchmark", "value": "maskrcnn"')
             for line in lines]
    evals = [i for i, line in enumerate(lines) if '"key": "eval_accuracy"' in line]
    lines = [re.sub(r'("key": "eval_accuracy", "value": )[0-9.e-]+',
                    r'\g<1>{"BBOX": false, "SEGM": 0.1}' if i == evals[0] else r'\g<1>{"BBOX": 0.2, "SEGM": 0.1}', line)
             for i, line in enumerate(lines)]
    log = tmp_path / "result_0.txt"
    log.write_text("".join(lines), "utf-8")
    found = [f for f in check(str(log), ruleset="2.0.0").all_findings() if f.code == "MLC304"]
    assert [(f.line, f.severity, f.official) for f in found] == [(evals[0] + 1, Severity.WARNING, False)]
    assert found[0].message.startswith("eval_accuracy's BBOX is false, a boolean")
