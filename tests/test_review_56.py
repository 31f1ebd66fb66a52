"""Session 56: reviews of the results table, split, and a new user's first commands."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme"


def _mlcheck(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mlcheck", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd, env={**os.environ, "COLUMNS": "200"})


def _package(tmp_path: Path) -> Path:
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    return package


def test_a_description_text_that_starts_with_a_link_stays_text_in_the_markdown_table(tmp_path: Path) -> None:
    """rv250: every cell starting with ``https://`` became an autolink: the text was percent-encoded
    and a ``|`` of a system name, left unescaped, split the row into one cell more than the header."""
    package = _package(tmp_path)
    system = package / "systems" / "acme-t8.json"
    data = json.loads(system.read_text("utf-8"))
    data.update(system_name="https://acme.example|T8", hw_notes="https://acme.example/t8 (8 cards)")
    system.write_text(json.dumps(data), "utf-8")
    done = _mlcheck("score", str(package), "-t", "markdown", "--config", os.devnull)
    header, rule, row = done.stdout.splitlines()[:3]

    def cells(line: str) -> int:
        return line.replace("\\|", "").count("|") - 1

    assert cells(row) == cells(header) == cells(rule), done.stdout
    assert "https\\://acme.example\\|T8 (acme-t8)" in row and "https\\://acme.example/t8 (8 cards)" in row
    assert "<https://github.com/mlcommons/training_results_v2.0/blob/main/Acme/systems/acme-t8.json>" in row


def test_an_empty_benchmark_folder_makes_its_system_row_invalid_in_every_table(tmp_path: Path) -> None:
    """rv250: a benchmark folder with no result file left its system's row ``valid`` while ``score``
    exited 1 (MLC502; the package checker: "Incorrect number of files")."""
    package = _package(tmp_path)
    (package / "results" / "acme-t8" / "bert").mkdir()
    done = _mlcheck("score", str(package), "-t", "csv", "--config", os.devnull)
    assert done.returncode == 1
    [row] = list(csv.DictReader(io.StringIO(done.stdout)))
    assert row["status"] == "bert: invalid" and row["bert"] == "" and row["resnet"] == "15.29"
    table = json.loads(_mlcheck("score", str(package), "-t", "json", "--config", os.devnull).stdout)
    assert table["rows"][0]["status"] == "bert: invalid"
    assert table["rows"][0]["results"]["bert"]["valid"] is False


def test_split_refuses_a_folder_in_the_way_before_it_replaces_any_file(tmp_path: Path) -> None:
    """rv250: ``split --force`` replaced result_0.txt, then stopped on a folder named result_1.txt
    with exit 2 ("nothing could be written") and a message naming the output folder."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
    from make_raw import RawOptions, make_raw

    runs = [(EXAMPLE / "results" / "acme-t8" / "resnet" / f"result_{i}.txt").read_bytes() for i in range(2)]
    raw = tmp_path / "raw.log"
    raw.write_bytes(b"".join(make_raw(run, RawOptions(instances=2, seed=i)) for i, run in enumerate(runs)))
    out = tmp_path / "out"
    (out / "result_1.txt").mkdir(parents=True)
    (out / "result_0.txt").write_text("kept\n", "utf-8")
    done = _mlcheck("split", str(raw), "-o", str(out), "--force")
    assert done.returncode == 2
    assert f"{out / 'result_1.txt'} is a folder; --force overwrites only files" in done.stderr
    assert (out / "result_0.txt").read_text("utf-8") == "kept\n"


def test_reports_written_to_a_file_have_no_padded_lines(tmp_path: Path) -> None:
    """rv252: the run table's caption and the results table's title were padded to the table's width
    (and the title folded mid-phrase) in a pipe or a file: noise in a CI log's diff."""
    for command in ("check", "score"):
        done = _mlcheck(command, str(EXAMPLE), "--config", os.devnull)
        assert done.returncode == 0 and done.stdout
        assert [line for line in done.stdout.splitlines() if line.endswith(" ")] == [], done.stdout
    assert "closed division, training 2.0.0; * = counted in the score\n" in _mlcheck(
        "check", str(EXAMPLE), "--config", os.devnull).stdout
    title = _mlcheck("score", str(EXAMPLE), "--config", os.devnull).stdout.splitlines()[0]
    assert title.endswith("rcp = reference convergence test (margin to the minimum acceptable mean)"), title


def test_a_tolerated_non_converged_run_reads_as_tolerated_in_the_run_table(tmp_path: Path) -> None:
    """rv252: the run table said ``fail`` of a non-converged run its folder tolerates, next to
    ``0 errors`` and exit 0; the JSON report's verdict stays ``fail`` (``runs_tolerated`` counts it)."""
    package = _package(tmp_path)
    log = package / "results" / "acme-t8" / "resnet" / "result_0.txt"
    text = log.read_text("utf-8").replace('"status": "success"', '"status": "aborted"')
    log.write_text(text.replace('"value": 0.7602037906714711', '"value": 0.7538'), "utf-8")  # (its last eval: short)
    done = _mlcheck("check", str(package), "--config", os.devnull, "--color", "never")
    assert done.returncode == 0, done.stdout
    [row] = [line for line in done.stdout.splitlines() if line.startswith("│ result_0.txt")]
    assert "│ fail (tolerated) │" in row
    assert [line for line in done.stdout.splitlines() if line.startswith("│ result_1.txt")][0].count("│ pass ") == 1
    report = json.loads(_mlcheck("check", str(package), "--config", os.devnull, "-f", "json").stdout)
    assert [run["verdict"] for run in report["runs"]][0] == "fail"


def test_usage_messages_name_what_to_type(tmp_path: Path) -> None:
    """rv252: ``-o json:`` got the generic FORMAT:PATH message; ``report -o 'a b/r.json'`` suggested
    commands with the path unquoted; ``score`` of a folder without logs drew an empty table."""
    done = _mlcheck("check", str(EXAMPLE), "-o", "json:")
    assert done.returncode == 2 and "--output 'json:' names no file after 'json:'; e.g. -o json:mlcheck-report.json" \
        in " ".join(done.stderr.split())
    done = _mlcheck("report", str(EXAMPLE), "-o", "a b/r.json", "--config", os.devnull, cwd=tmp_path)
    assert done.returncode == 2
    assert "mlcheck check -o 'a b/r.json' writes that; -o 'html:a b/r.json' writes" in " ".join(done.stderr.split())
    done = _mlcheck("split", str(tmp_path / "nonexistent.log"), "-o", str(tmp_path / "out"))
    assert done.returncode == 2 and done.stderr.strip().endswith("nonexistent.log: no such file or folder")
    assert not (tmp_path / "out").exists()
    (tmp_path / "empty").mkdir()
    done = _mlcheck("score", str(tmp_path / "empty"), "--config", os.devnull)
    assert done.returncode == 1 and done.stdout == "" and "nothing to score" in done.stderr


def test_an_eval_value_the_checker_cannot_compare_stops_the_official_tools(tmp_path: Path) -> None:
    """rv251: a string ``eval_accuracy`` in one run makes the compliance checker raise (its
    ATLEAST_ONE_CHECK is evaluated outside any try, 0.7-6.1: TypeError), and the package checker and
    the summarizer stop with it; MLC521 said they would count the run as non-converged and publish
    the folder's score."""
    from mlcheck import check

    package = _package(tmp_path)
    log = package / "results" / "acme-t8" / "resnet" / "result_0.txt"
    text = log.read_text("utf-8")
    log.write_text(text.replace('"value": 0.7538115660698227', '"value": "0.7538"'), "utf-8")
    line = 1 + text[:text.index('"value": 0.7538115660698227')].count("\n")
    (bench,) = check([str(package)]).benchmarks
    (compared,) = [f for r in bench.runs for f in r.findings if f.code == "MLC304"]
    assert (compared.line, compared.severity.name, compared.official) == (line, "ERROR", True)
    assert "the official checker raises comparing it with the target" in compared.message
    (dropped,) = [f for f in bench.findings if f.code == "MLC521"]
    assert f"raises comparing the evaluation on line {line} of result_0.txt with the target" in dropped.message
    assert "publish no score" in dropped.message and "would count" not in dropped.message
    assert not bench.score.valid and "the official tools publish no score" in bench.score.reason


def test_a_folder_the_summarizer_stops_on_leaves_no_score_of_its_package_valid(tmp_path: Path) -> None:
    """rv251: a results folder named after no benchmark of the round (MLC506: the package checker
    skips it, the result summarizer stops on it; 6.x: on a retired benchmark's missing rule file)
    left the package's other scores valid, though the summarizer publishes none of them."""
    from mlcheck import check

    package = _package(tmp_path)
    runs = package / "results" / "acme-t8" / "resnet"
    stray = package / "results" / "acme-t8" / "resnet50"
    stray.mkdir()
    for name in ("result_0.txt", "result_1.txt", "result_2.txt"):  # (three runs it scores; one it would not: rv282)
        shutil.copy(runs / name, stray / name)
    result = check([str(package)])
    (unknown,) = [f for f in result.findings if f.code == "MLC506"]
    assert unknown.severity.name == "ERROR" and "the result summarizer stops on it" in unknown.message
    (bench,) = [b for b in result.benchmarks if b.benchmark == "resnet"]
    assert bench.score.score_min is not None and not bench.score.valid
    assert f"the result summarizer stops on the folder {stray} (MLC506)" in bench.score.reason
    shutil.rmtree(stray)
    (bench,) = check([str(package)]).benchmarks
    assert bench.score.valid


def _two_jobs(gap_minutes: int, job_two_dies_after: int | None = None) -> list[bytes]:
    """Two MPI jobs' consoles in one output, by time: job 2 (the example's second run) begins
    ``gap_minutes`` after job 1; cut after that many records, with mpirun's word that it ended."""
    import re

    resnet = EXAMPLE / "results" / "acme-t8" / "resnet"

    def timed(run: str, job: int, shift: int) -> list[tuple[int, bytes]]:
        out = []
        for line in (resnet / run).read_text("utf-8").splitlines():
            line = re.sub(r'"time_ms": (\d+)', lambda m: f'"time_ms": {int(m.group(1)) + shift}', line)
            out.append((int(re.search(r'"time_ms": (\d+)', line).group(1)), f"[{job},0]<stdout>:{line}\n".encode()))  # type: ignore[union-attr]
        return out
    one = timed("result_0.txt", 1, 0)
    two = timed("result_1.txt", 2, one[0][0] - timed("result_1.txt", 2, 0)[0][0] + gap_minutes * 60_000)
    if job_two_dies_after is not None:
        two = two[:job_two_dies_after]
        two.append((two[-1][0] + 1, b"mpirun noticed that process rank 0 with PID 4242 on node n2 exited on signal 9 (Killed).\n"))
    return [line for _time, line in sorted(one + two, key=lambda pair: pair[0])]


def _feed(log: Path, lines: list[bytes], pause_before: int, delay: float = 0.001) -> None:
    import time

    with log.open("ab") as out:
        for at, line in enumerate(lines):
            if at == pause_before:
                out.flush()
                time.sleep(0.4)  # (the watch reads up to job 2's first record before job 1 goes on)
            out.write(line)
            out.flush()
            time.sleep(delay)


def test_watch_holds_what_it_finds_when_a_job_begins_beside_an_open_run(tmp_path: Path) -> None:
    """rv253: job 2 began a minute after job 1, both printing into one console: at job 2's first
    record the watch judged job 1's open run as ended (MLC101, MLC105, MLC102, MLC301 errors, and
    --fail-fast exit 1) before it saw job 1 go on; ``check`` passes both runs. What it finds then is
    held until job 1 stays silent for the relaunch wait, and dropped once the jobs run at once."""
    import threading

    from mlcheck.raw.watch import watch
    from mlcheck.raw.watch_state import StopWatching

    lines = _two_jobs(1)
    first_of_two = next(at for at, line in enumerate(lines) if line.startswith(b"[2,0]"))
    log = tmp_path / "console.log"
    log.write_bytes(b"")
    errors: list[object] = []

    def sink(found: object) -> None:
        if getattr(found, "severity", None) is not None and found.severity.name == "ERROR":  # type: ignore[attr-defined]
            errors.append(found)
            raise StopWatching  # (as --fail-fast does)

    feeder = threading.Thread(target=_feed, args=(log, lines, first_of_two + 1))
    feeder.start()
    outcome = watch(str(log), sink, lambda _text: None, runs=2, poll=0.01, idle_timeout=20, relaunch_wait=3)
    feeder.join()
    assert errors == [] and (outcome.reason, outcome.runs_done) == ("complete", 2)


def test_watch_counts_a_job_that_died_beside_another(tmp_path: Path) -> None:
    """rv253: of two jobs printing at once, job 2 was killed (mpirun's word) and job 1 finished:
    --runs 2 waited forever, counting run_stops only. The job that printed nothing after the
    launcher's word counts once the log is quiet for the relaunch wait (one job a word)."""
    from mlcheck.raw.watch import watch

    log = tmp_path / "console.log"
    log.write_bytes(b"".join(_two_jobs(0, job_two_dies_after=150)))
    outcome = watch(str(log), lambda _found: None, lambda _text: None, runs=2, poll=0.01, idle_timeout=30,
                    relaunch_wait=0.5)
    assert (outcome.reason, outcome.runs_done) == ("complete", 2)
    outcome = watch(str(log), lambda _found: None, lambda _text: None, runs=3, poll=0.01, idle_timeout=1.5,
                    relaunch_wait=0.5)
    assert (outcome.reason, outcome.runs_done) == ("idle", 2)


def test_a_damaged_first_record_of_another_job_leaves_the_jobs_apart(tmp_path: Path) -> None:
    """rv253: the console's first record line, damaged and of job 2, made job 2 'seen' before job 1
    kept a record: its later records began no job, and ``check`` read both jobs as one run (MLC104,
    MLC404, MLC107). The damaged record costs only its own job's run an MLC003."""
    bad = b'[2,0]<stdout>::::MLLOG {"namespace": "", "time_ms": 1, "event_type": "POINT_IN_TIME", "key": "x", "value": }\n'
    log = tmp_path / "console.log"
    log.write_bytes(bad + b"".join(_two_jobs(1)))
    done = _mlcheck("check", str(log), "-f", "json", "--no-progress", "--config", os.devnull)
    runs = json.loads(done.stdout)["runs"]
    assert [(run["verdict"], sorted({f["code"] for f in run["findings"]})) for run in runs] == [
        ("fail", ["MLC003", "MLC020", "MLC030"]), ("pass", ["MLC020"])]
    assert [f["line"] for f in runs[0]["findings"] if f["code"] == "MLC003"] == [1]


def test_sigterm_while_watch_waits_for_a_gzip_stream_writes_the_reports_asked_for(tmp_path: Path) -> None:
    """rv253: watch waiting for an unfinished gzip log's end died silently on SIGTERM (exit 143, no
    word, no -o report), though --help promises the report of what was written on SIGTERM."""
    import gzip
    import signal
    import time
    import zlib

    text = (EXAMPLE / "results" / "acme-t8" / "resnet" / "result_0.txt").read_bytes()
    packer = zlib.compressobj(wbits=31)  # (a gzip stream, flushed half-way, its end never written)
    log = tmp_path / "job.log.gz"
    log.write_bytes(packer.compress(text[:len(text) // 2]) + packer.flush(zlib.Z_SYNC_FLUSH))
    assert gzip.decompress(log.read_bytes() + packer.flush())  # (the whole stream would be readable)
    report = tmp_path / "report.json"
    said = tmp_path / "stderr.txt"
    with said.open("w") as stderr:
        watcher = subprocess.Popen([sys.executable, "-m", "mlcheck", "watch", str(log), "--no-progress", "--poll", "0.05",
                                    "-o", f"json:{report}", "--config", os.devnull], stdout=subprocess.DEVNULL, stderr=stderr)
        deadline = time.monotonic() + 60
        while "is gzip-compressed" not in said.read_text("utf-8") and time.monotonic() < deadline:
            time.sleep(0.1)  # (waiting for the stream's end: its SIGTERM handler is set)
        time.sleep(0.3)
        watcher.send_signal(signal.SIGTERM)
        watcher.wait(timeout=60)
    err = said.read_text("utf-8")
    assert watcher.returncode == 143, err
    assert "interrupted (SIGTERM) while" in err and "the report covers what its stream holds so far" in err
    assert [run["verdict"] for run in json.loads(report.read_text("utf-8"))["runs"]] == ["fail"]


def test_the_numbers_of_grouped_findings_are_named_by_the_words_that_name_them() -> None:
    """rv253: runs of two MPI jobs grouped under one MLC020 listed ``0 of job 1`` and ``of job 1
    (298)``: the words before a number went back three, to another number or a linking word."""
    from mlcheck.model import Finding, Severity
    from mlcheck.report.grouped import numbers_that_differ

    def note(job: int, kept: int) -> Finding:
        return Finding("MLC020", "raw-output-read", Severity.INFO, f"raw job output: {2 * kept} records read; records "
                       f"kept from rank 0 of job {job} ({kept}); {kept} copies printed", "c.log", None, run_index=job - 1)
    assert numbers_that_differ((note(1, 298), note(2, 150))) == [
        "596 records read; rank 0 of job 1; rank 0 of job 1 (298); 298 copies printed",
        "300 records read; rank 0 of job 2; rank 0 of job 2 (150); 150 copies printed"]


def test_split_force_says_which_older_result_files_stay_beside_the_new_ones(tmp_path: Path) -> None:
    """rv250: ``split --force`` of a console of 2 runs into a folder of 5 left result_2..4.txt of
    an earlier split beside the new files, without a word: the folder mixed two jobs' runs."""
    runs = [(EXAMPLE / "results" / "acme-t8" / "resnet" / f"result_{i}.txt").read_bytes() for i in range(2)]
    raw = tmp_path / "raw.log"
    raw.write_bytes(runs[0] + runs[1])
    out = tmp_path / "out"
    out.mkdir()
    for i in range(5):
        (out / f"result_{i}.txt").write_text("old\n", "utf-8")
    done = _mlcheck("split", str(raw), "-o", str(out), "--force")
    assert done.returncode == 0, done.stderr
    assert f"warning: {out} also holds result_2.txt, result_3.txt, result_4.txt, written before" in done.stderr
    assert (out / "result_1.txt").read_bytes() == runs[1] and (out / "result_4.txt").read_text("utf-8") == "old\n"


def test_a_folder_the_official_tools_stop_on_leaves_no_score_of_its_package_valid(tmp_path: Path) -> None:
    """rv254: an eval the compliance checker raises on (or a rule file it lacks) stops the package
    checker and the summarizer, which prints no row of the package; another system's folder stayed
    valid. The stopping folder's score says why; the others name it."""
    from mlcheck import check

    package = _package(tmp_path)
    shutil.copytree(package / "results" / "acme-t8", package / "results" / "acme-t16")
    shutil.copy(package / "systems" / "acme-t8.json", package / "systems" / "acme-t16.json")
    log = package / "results" / "acme-t16" / "resnet" / "result_0.txt"
    log.write_text(log.read_text("utf-8").replace('"value": 0.7538115660698227', '"value": "x"'), "utf-8")
    stopped, other = sorted(check([str(package)]).benchmarks, key=lambda b: b.system != "acme-t16")
    assert not stopped.score.valid and "the official tools publish no score" in stopped.score.reason
    assert "its score says why" not in stopped.score.reason
    assert other.score.score_min is not None and not other.score.valid
    assert (f"the official tools stop on the folder {package / 'results' / 'acme-t16' / 'resnet'} (its score says why): "
            "the result summarizer publishes no result of its package") in other.score.reason


def test_open_mask_rcnn_is_compared_as_its_open_file_compares_it(tmp_path: Path) -> None:
    """rv254: open Mask R-CNN (1.0-3.1) was judged on the closed target's order (BBOX >= 0.377 first),
    so {BBOX: 0.1, SEGM: null} read as an eval the checker stops at; its open file compares
    ``BBOX < 1.0 and SEGM < 1.0`` and raises on the null SEGM (TypeError), as on a missing one."""
    from mlcheck.facts.rulesets import load_ruleset
    from mlcheck.rules.eval_records import target_for
    from mlcheck.rules.target_comparison import comparison_raises

    for version in ("1.0.0", "2.1.0", "3.1.0"):
        facts = load_ruleset(version).benchmarks["maskrcnn"]
        opened, closed = target_for(facts, "open"), target_for(facts, "closed")
        assert opened.text == "box AP < 1.0 and mask AP < 1.0"
        assert comparison_raises(opened, {"BBOX": 0.1, "SEGM": None}) and comparison_raises(opened, {"BBOX": 0.1})
        assert not comparison_raises(opened, {"BBOX": 1.5, "SEGM": None})
        assert not comparison_raises(closed, {"BBOX": 0.1, "SEGM": None})  # (closed: BBOX >= 0.377 stops first)


def _tagged(job: int, rank: int, run: str, shift_minutes: int = 0, keep: int | None = None) -> list[bytes]:
    import re

    lines = (EXAMPLE / "results" / "acme-t8" / "resnet" / run).read_text("utf-8").splitlines()[:keep]
    return [f"[{job},{rank}]<stdout>:".encode() + re.sub(
        r'"time_ms": (\d+)', lambda m: f'"time_ms": {int(m.group(1)) + shift_minutes * 60_000}', line).encode() + b"\n"
        for line in lines]


def test_a_job_that_died_and_was_launched_again_beside_another_is_an_attempt() -> None:
    """rv255: of jobs that ran at once, one killed (mpirun's word) and launched again as a new job
    counted as a run that ended, so --runs ended the watch while the relaunch was in its init; a job
    that began after the word is the relaunch, the death an attempt."""
    from mlcheck.raw.mixed_jobs import MixedJobs

    one, two = _tagged(1, 0, "result_0.txt"), _tagged(2, 0, "result_1.txt", keep=150)
    mixed = [line for pair in zip(one, two) for line in pair] + one[len(two):len(two) + 20]
    abort = b"mpirun noticed that process rank 0 with PID 4242 on node n2 exited on signal 9 (Killed).\n"
    relaunch = _tagged(3, 0, "result_2.txt", shift_minutes=5, keep=30)  # (in its init: no run_start yet)
    for lines, died in ((mixed + [abort], 1), (mixed + [abort] + relaunch, 0)):
        jobs = MixedJobs("console.log", lambda _found: None, lambda _text: None)
        for line in lines:
            jobs.line(line)
        assert jobs.mixed and (jobs.stopped, jobs.died()) == (0, died)


def test_no_hold_after_a_job_whose_logging_rank_stopped_its_run(tmp_path: Path) -> None:
    """rv255: records printed by rank 1 only: job 1's run_stop is rank 1's, and the watch held what it
    found from job 2's start on (waiting for job 1 to go silent), so --fail-fast stopped at the end of
    the file, not at job 2's error. The run of a job is open or stopped as its lowest rank logs it."""
    from mlcheck.raw.watch import watch
    from mlcheck.raw.watch_state import StopWatching

    second = [line.replace(b'"value": "lars"', b'"value": "adam"') for line in _tagged(2, 1, "result_1.txt", 30)]
    log = tmp_path / "console.log"
    log.write_bytes(b"".join(_tagged(1, 1, "result_0.txt") + second))
    said: list[object] = []

    def sink(found: object) -> None:
        said.append(found)
        if found.severity.name == "ERROR":  # type: ignore[attr-defined]
            raise StopWatching

    outcome = watch(str(log), sink, lambda _text: None, runs=2, poll=0.01, idle_timeout=20, relaunch_wait=30)
    error = [f for f in said if f.severity.name == "ERROR"]  # type: ignore[attr-defined]
    assert outcome.reason == "stopped" and [f.code for f in error] == ["MLC203"]  # type: ignore[attr-defined]
    assert outcome.lines < len(_tagged(1, 1, "result_0.txt")) + len(second) - 100


def test_what_the_watch_held_is_said_when_it_ends(tmp_path: Path) -> None:
    """rv255: a job killed without a word, then launched again as a new job: what the watch found of the
    dead run was held (job 1 might have run beside job 2) and never said when the watch ended at the
    relaunch's run_stop; --fail-fast never stopped on it. It is said at the end, and stops --fail-fast."""
    from mlcheck.raw.watch import watch
    from mlcheck.raw.watch_state import StopWatching

    log = tmp_path / "console.log"
    log.write_bytes(b"".join(_tagged(1, 0, "result_0.txt", keep=200) + _tagged(2, 0, "result_1.txt", 40)))
    said: list[object] = []
    outcome = watch(str(log), said.append, lambda _text: None, runs=1, poll=0.01, idle_timeout=20, relaunch_wait=30)
    assert outcome.reason == "complete" and {("MLC102", 200)} <= {(f.code, f.line) for f in said}  # type: ignore[attr-defined]

    def stop(found: object) -> None:
        if found.severity.name == "ERROR":  # type: ignore[attr-defined]
            raise StopWatching
    outcome = watch(str(log), stop, lambda _text: None, runs=1, poll=0.01, idle_timeout=20, relaunch_wait=30)
    assert outcome.reason == "stopped"


def test_two_launchers_words_in_one_block_are_two_jobs_that_died() -> None:
    """rv256: two jobs that ran at once both died, each mpirun printing its abort words, the two blocks
    adjacent: they read as one job's end, and --runs 2 waited forever. A word said twice in a block
    (its numbers aside) is two jobs' ends; one mpirun's several words are one."""
    from mlcheck.raw.mixed_jobs import MixedJobs

    one, two = _tagged(1, 0, "result_0.txt"), _tagged(2, 0, "result_1.txt", keep=150)
    mixed = [line for pair in zip(one, two) for line in pair]
    block = [b"Primary job  terminated normally, but 1 process returned a non-zero exit code.\n",
             b"mpirun noticed that process rank 0 with PID 4242 on node n1 exited on signal 9 (Killed).\n"]
    other = [line.replace(b"4242", b"4343").replace(b"n1", b"n2") for line in block]
    # rv257: the same block printed twice is one mpirun's; one block with the live job's records between its lines is one
    for words, died in ((block, 1), (block + other, 2), (block + block, 1), (block[:1] + one[150:153] + block[1:], 1)):
        jobs = MixedJobs("console.log", lambda _found: None, lambda _text: None)
        for line in mixed + words:
            jobs.line(line)
        assert jobs.mixed and jobs.died() == died, words


def test_two_jobs_that_die_one_after_the_other_within_a_block_are_two_ends() -> None:
    """rv258: job 1's mpirun block, job 2's records, then job 2's mpirun block within 32 lines: job 2
    printed after the block's first line, so only job 1 read as silent, and --runs 2 waited for
    --idle-timeout. A job is silent when it printed nothing after the last launcher's word."""
    from mlcheck.raw.mixed_jobs import MixedJobs

    one, two = _tagged(1, 0, "result_0.txt", keep=150), _tagged(2, 0, "result_1.txt", keep=160)
    mixed = [line for pair in zip(one, two) for line in pair]
    first = b"mpirun noticed that process rank 0 with PID 4242 on node n1 exited on signal 9 (Killed).\n"
    second = b"mpirun noticed that process rank 0 with PID 5151 on node n2 exited on signal 9 (Killed).\n"
    jobs = MixedJobs("console.log", lambda _found: None, lambda _text: None)
    for line in mixed + [first] + two[150:156] + [second]:
        jobs.line(line)
    assert jobs.mixed and jobs.died() == 2
