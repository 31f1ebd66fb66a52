"""Session 52: standard input's runs lie in no folder (no scaling.json or params file of the
current folder applies to them)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

RESNET = Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme" / "results" / "acme-t8" / "resnet"


def _check_stdin(cwd: Path, data: bytes, *args: str) -> dict:  # type: ignore[type-arg]
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", "-", "-f", "json", "--no-progress", *args],
                          input=data, capture_output=True, cwd=cwd, timeout=120)
    assert done.returncode in (0, 1), done.stderr.decode()
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_stdin_runs_ignore_the_current_folders_scaling_json(tmp_path: Path) -> None:
    (tmp_path / "scaling.json").write_text('{"scaling_factor": 2.0}')
    (tmp_path / "package_checker_params").write_text("rcp-bypass\n")
    seed_loop = b"".join((RESNET / f"result_{i}.txt").read_bytes() for i in range(5))
    report = _check_stdin(tmp_path, seed_loop)
    (bench,) = report["benchmarks"]
    assert bench["folder"] == "-" and bench["scaling_factor"] is None and bench["valid"] is True
    paths = {f["path"] for f in report["findings"]} | {f["path"] for f in bench["findings"]}
    assert not any("scaling.json" in p or "package_checker_params" in p for p in paths)
    # the same five runs as a folder of their own with that scaling.json: multiplied
    for i in range(5):
        (tmp_path / f"result_{i}.txt").write_bytes((RESNET / f"result_{i}.txt").read_bytes())
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", ".", "-f", "json", "--no-progress"],
                          capture_output=True, cwd=tmp_path, timeout=120)
    (folder,) = json.loads(done.stdout)["benchmarks"]
    assert folder["scaling_factor"] == 2.0
    assert folder["score_min"] == 2.0 * bench["score_min"]


def test_stdin_and_a_file_of_the_current_folder_are_two_groups(tmp_path: Path) -> None:
    (tmp_path / "result_0.txt").write_bytes((RESNET / "result_0.txt").read_bytes())
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", "-", "result_0.txt", "-f", "json", "--no-progress"],
                          input=(RESNET / "result_1.txt").read_bytes(), capture_output=True, cwd=tmp_path, timeout=120)
    folders = sorted(b["folder"] for b in json.loads(done.stdout)["benchmarks"])
    assert folders == ["-", "."]


RAW = Path(__file__).resolve().parent.parent / "fixtures" / "raw" / "mpi_ranks.log"


def test_split_refuses_stdout_into_a_result_file_it_writes(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    target = out / "result_0.txt"
    with open(target, "wb") as stdout:
        done = subprocess.run([sys.executable, "-m", "mlcheck", "split", str(RAW), "-o", str(out), "--force"],
                              stdout=stdout, stderr=subprocess.PIPE, timeout=120)
    assert done.returncode == 2 and target.read_bytes() == b"" and sorted(p.name for p in out.iterdir()) == ["result_0.txt"]
    assert f"standard output is redirected into {target}, a result file of the folder this split writes" in done.stderr.decode()


def test_split_lets_stderr_go_to_another_file_of_its_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    with open(out / "split.err", "wb") as stderr:
        done = subprocess.run([sys.executable, "-m", "mlcheck", "split", str(RAW), "-o", str(out)],
                              stdout=subprocess.PIPE, stderr=stderr, timeout=120)
    assert done.returncode == 0 and (out / "result_0.txt").exists()
    assert b"MLC020" in (out / "split.err").read_bytes()


LATE_CTRL_C = """
import atexit, os, signal, sys
atexit.register(lambda: os.kill(os.getpid(), signal.SIGINT))  # (a Ctrl-C while Python shuts down)
sys.argv = ["mlcheck", "check", sys.argv[1]]
from mlcheck.cli import run
run()
"""


def test_a_ctrl_c_after_the_summary_keeps_the_exit_code_and_says_nothing() -> None:
    done = subprocess.run([sys.executable, "-c", LATE_CTRL_C, str(RESNET / "result_0.txt")],
                          capture_output=True, timeout=120)
    assert done.returncode == 0 and b"KeyboardInterrupt" not in done.stderr and b"Traceback" not in done.stderr
    assert done.stderr.decode().startswith("mlcheck: 1 run (0 failing)")


def test_a_stdin_run_in_html_says_standard_input_not_a_folder(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "mlcheck", "report", "-", "-o", "r.html", "--no-progress"],
                   input=(RESNET / "result_0.txt").read_bytes(), capture_output=True, cwd=tmp_path, timeout=120)
    html = (tmp_path / "r.html").read_text("utf-8")
    assert "training 2.0.0, read from standard input</p>" in html and "folder <code>" not in html


EXAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme"


def _fingerprints(cwd: Path, *paths: str) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", *paths, "-f", "sarif", "--no-progress"],
                          capture_output=True, cwd=cwd, timeout=120)
    return [r["partialFingerprints"]["mlcheck/v1"] for r in json.loads(done.stdout)["runs"][0]["results"]]


def test_two_packages_of_one_name_have_distinct_fingerprints_outside_a_checkout(tmp_path: Path) -> None:
    import shutil
    for round_folder in ("training-1.0", "training-1.1"):
        shutil.copytree(EXAMPLE, tmp_path / round_folder / "Acme")
    both = _fingerprints(tmp_path, "training-1.0/Acme", "training-1.1/Acme")
    one = _fingerprints(tmp_path, "training-1.0/Acme")
    assert len(both) == 2 * len(one) > 0 and len(set(both)) == len(both)
    # a package alone keeps the fingerprints it has from whatever folder mlcheck runs
    assert sorted(one) == sorted(_fingerprints(tmp_path / "training-1.0", "Acme"))


def test_report_refuses_a_file_named_as_another_format(tmp_path: Path) -> None:
    def report(output: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([sys.executable, "-m", "mlcheck", "report", str(EXAMPLE), "-o", output, "--no-progress"],
                              capture_output=True, cwd=tmp_path, timeout=120)
    refused = report("r.json")
    assert refused.returncode == 2 and not (tmp_path / "r.json").exists()
    assert "'r.json' names a json report: mlcheck check -o r.json writes that" in refused.stderr.decode()
    assert report("html:r.json").returncode == 0 and (tmp_path / "r.json").read_text().startswith("<!DOCTYPE html>")
    assert report("r.htm").returncode == 0 and report("report").returncode == 0


def _differing(messages: list[str]) -> list[str]:
    from mlcheck.model import Finding, Severity
    from mlcheck.report.grouped import FindingGroup, context_lines
    members = tuple(Finding("MLC520", "hyperparameters-differ", Severity.WARNING, message, f"b/result_{i}.txt", 16)
                    for i, message in enumerate(messages))
    return [line.split(": ", 1)[1] for line in context_lines(FindingGroup(members, "b", len(members)))]


def test_a_number_followed_by_linking_words_is_named_by_the_words_before_it() -> None:
    """rv221: 'result_8.txt:16: 1200 here but' named nothing (and the headline said 1000)."""
    assert _differing([f"opt_learning_rate_warmup_steps is {n} here but 999 in b/result_0.txt and most other runs"
                       for n in (1000, 1200)]) == ["opt_learning_rate_warmup_steps is 1000",
                                                   "opt_learning_rate_warmup_steps is 1200"]


def test_numbers_of_a_line_list_in_parentheses_are_named_by_their_key() -> None:
    """rv221: MLC107's 'result_1.txt:29: 30; 33' named no key."""
    assert _differing([f"2 keys required once are logged several times: submission_org (2 times, lines 8, {a}), "
                       f"submission_platform (2 times, lines 11, {b})" for a, b in ((30, 33), (31, 34))]) == [
        "submission_org line 30; submission_platform line 33", "submission_org line 31; submission_platform line 34"]


def test_a_plural_in_parentheses_stays_whole_and_linking_words_end_the_name() -> None:
    assert _differing([f"{n} record(s) of the wrong shape, the first at line 1" for n in (362, 402)]) == [
        "362 record(s)", "402 record(s)"]


def test_a_file_named_alone_says_no_scaling_factor_multiplied_into_no_score(tmp_path: Path) -> None:
    """rv221: 'no score INVALID: 1 run found' beside 'scaling_factor ... multiplied into the score'."""
    import shutil
    folder = tmp_path / "resnet"
    shutil.copytree(RESNET, folder)
    (folder / "scaling.json").write_text('{"scaling_factor": 1.5}')
    def codes(path: Path) -> list[str]:
        done = subprocess.run([sys.executable, "-m", "mlcheck", "check", str(path), "-f", "json", "--no-progress"],
                              capture_output=True, timeout=120)
        (bench,) = json.loads(done.stdout)["benchmarks"]
        return [f["code"] for f in bench["findings"]]
    assert "MLC505" not in codes(folder / "result_0.txt") and "MLC505" in codes(folder)


def test_watch_of_a_result_file_says_no_job_end_that_check_does_not_say(tmp_path: Path) -> None:
    """rv221: watch said 'MLC024 ... the records after it are read as another run' at a result
    file's 'ENDING TIMING RUN AT' line; check (and watch's own final report) said nothing."""
    log = tmp_path / "result_0.txt"
    lines = (RESNET / "result_0.txt").read_text().splitlines(keepends=True)
    half = len(lines) // 2
    log.write_text("".join(lines[:half] + ["ENDING TIMING RUN AT 2023-05-15 12:57:10 PM\n"] + lines[half:]
                           + ["ENDING TIMING RUN AT 2023-05-15 12:57:11 PM\n"]))
    watched = subprocess.run([sys.executable, "-m", "mlcheck", "watch", str(log), "--idle-timeout", "1", "--no-progress"],
                             capture_output=True, timeout=120)
    checked = subprocess.run([sys.executable, "-m", "mlcheck", "check", str(log), "--no-progress"],
                             capture_output=True, timeout=120)
    assert watched.returncode == checked.returncode == 0
    assert b"MLC024" not in watched.stdout + watched.stderr and b"MLC024" not in checked.stdout


def test_the_summary_line_says_what_is_waived_and_what_fails_under_strict(tmp_path: Path) -> None:
    """rv221: the text summary said neither the waived findings nor why --strict failed the check."""
    import shutil
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    folder = package / "results" / "acme-t8" / "resnet"
    (folder / "result_4.txt").unlink()  # (4 of the 5 runs the round requires: MLC502)
    (folder / "notes.md").write_text("a file the benchmark folder should not hold\n")
    (tmp_path / ".mlcheck.toml").write_text('[[waivers]]\ncode = "MLC502"\npath = "Acme/**"\nreason = "approved"\n')

    def summary(*options: str) -> tuple[int, str]:
        done = subprocess.run([sys.executable, "-m", "mlcheck", "check", "Acme", "--no-progress", *options],
                              capture_output=True, cwd=tmp_path, timeout=120)
        return done.returncode, done.stderr.decode().strip().splitlines()[-1]
    code, line = summary()
    assert code == 0 and line.endswith(", 0 errors, 1 warning, 1 waived"), line
    code, line = summary("--strict")
    assert code == 1 and line.endswith(", 0 errors, 1 warning, 1 waived; strict: warnings fail this check")


def test_report_to_a_closed_pipe_says_what_check_says() -> None:
    import os
    read_end, write_end = os.pipe()
    os.close(read_end)  # (the reader is gone before anything is written)
    try:
        done = subprocess.run([sys.executable, "-m", "mlcheck", "report", str(EXAMPLE), "-o", "-", "--no-progress"],
                              stdout=write_end, stderr=subprocess.PIPE, timeout=120)
    finally:
        os.close(write_end)
    assert done.returncode == 2
    assert "mlcheck: error: cannot write the output: the reader of the pipe is gone" in done.stderr.decode()


def test_a_folder_inside_a_benchmark_folder_reads_as_no_result_not_as_invalid(tmp_path: Path) -> None:
    """rv221: a nested folder (MLC508, a warning: the official tools read no result there) showed
    INVALID and a red cross beside a passing check."""
    import shutil
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    shutil.copytree(RESNET, package / "results" / "acme-t8" / "resnet" / "bert")
    def output(*options: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "mlcheck", "check", str(package), "--no-progress", *options],
                              capture_output=True, text=True, timeout=120)
    text, markdown = output(), output("-f", "markdown")
    assert text.returncode == markdown.returncode == 0
    assert "NOT A RESULT: " in text.stdout and "INVALID" not in text.stdout
    assert "| ➖ " in markdown.stdout and "❌" not in markdown.stdout


def test_an_untagged_copy_cut_by_the_other_ranks_whole_record_is_a_warning(tmp_path: Path) -> None:
    """rv220: two untagged ranks print every record; one rank's copy is cut by the other's whole
    record on the same line, its rest on the next line. The official parser reads the last record
    of a line (re.sub('.*' + TOKEN)) and passes: MLC023 is a warning, not '[official checker agrees]'."""
    lines = (RESNET / "result_0.txt").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if '"key": "lars_opt_base_learning_rate"' in line)
    out = lines[:at] + [lines[at][:70] + lines[at], lines[at][70:]] + lines[at + 1:]  # (the other rank's copy, cut)
    log = tmp_path / "console.log"
    log.write_text("\n".join(out) + "\n")
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", str(log), "-f", "json", "--no-progress"],
                          capture_output=True, timeout=120)
    (run,) = json.loads(done.stdout)["runs"]
    (cut,) = [f for f in run["findings"] if f["code"] == "MLC023"]
    assert (cut["severity"], cut["official"], cut["line"]) == ("warning", False, at + 1)
    assert run["official_verdict"] == "pass" and run["verdict"] == "pass"


def _mpi_lines(path: Path, job: int) -> list[str]:
    return [f"[{job},{rank}]<stdout>:{line}" for line in path.read_text().splitlines() for rank in (1, 0)]


def test_a_jobs_run_stop_after_the_next_job_began_stays_in_its_run(tmp_path: Path) -> None:
    """rv220 D2: two mpirun jobs ([1,r], [2,r]); job 2 began before job 1's ranks printed their
    run_stop. Rank 0's run_stop after another job's records makes the jobs concurrent (read apart),
    not a record of job 2's run (which then held two run_stops and job 1's none)."""
    first, second = _mpi_lines(RESNET / "result_0.txt", 1), _mpi_lines(RESNET / "result_1.txt", 2)
    stops = [i for i, line in enumerate(first) if '"key": "run_stop"' in line]
    log = tmp_path / "two_jobs.log"
    log.write_text("\n".join(first[:stops[0]] + second[:20] + first[stops[0]:] + second[20:]) + "\n")
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", str(log), "-f", "json", "--no-progress", "-j1"],
                          capture_output=True, timeout=120)
    runs = json.loads(done.stdout)["runs"]
    assert [(r["verdict"], r["lines"][0]) for r in runs] == [("pass", 2), ("pass", stops[0] + 2)]  # (rank 0's lines)
    assert runs[0]["lines"][1] == stops[0] + 20 + 2  # (job 1's run ends at rank 0's run_stop, after job 2's start)
    clean = [subprocess.run([sys.executable, "-m", "mlcheck", "check", str(RESNET / f"result_{i}.txt"), "-f", "json",
                             "--no-progress"], capture_output=True, timeout=120) for i in (0, 1)]
    assert [r["time_to_train_min"] for r in runs] == [json.loads(c.stdout)["runs"][0]["time_to_train_min"] for c in clean]


def test_only_rank_0s_run_stop_of_an_earlier_job_makes_jobs_concurrent() -> None:
    from mlcheck.read.concurrent_jobs import concurrent_jobs
    a, b = b'[1,0]<stdout>::::MLLOG {"key": "x"}\n', b'[2,0]<stdout>::::MLLOG {"key": "x"}\n'
    stop = b'[%d,%d]<stdout>::::MLLOG {"key": "run_stop"}\n'
    assert concurrent_jobs([a, b, stop % (1, 0), b]).concurrent() == (1, 2)
    assert concurrent_jobs([a, b, stop % (1, 3), b]).concurrent() == ()  # (another rank's late copy)
    assert concurrent_jobs([a, b, stop % (1, 3), b, stop % (2, 0)]).concurrent() == ()  # (the later job's own)


def test_the_package_checker_stops_on_a_scaling_json_it_cannot_write_or_delete(tmp_path: Path) -> None:
    """rv219: a scaling.json that is a folder (or a link into no folder) where the RCP checker
    writes its factor (2.1+) or deletes the file (5.1+): IsADirectoryError / FileNotFoundError,
    the package refused; mlcheck said only a warning (or nothing)."""
    import os
    from mlcheck.judge.scaling_file import checker_stops_on
    folder = tmp_path / "scaling.json"
    folder.mkdir()
    assert "IsADirectoryError" in (checker_stops_on(str(folder), writes=True, deletes=False) or "")
    assert "os.remove" in (checker_stops_on(str(folder), writes=False, deletes=True) or "")
    assert checker_stops_on(str(folder), writes=False, deletes=False) is None  # (left alone: the summarizer's MLC504)
    dangling = tmp_path / "link" / "scaling.json"
    dangling.parent.mkdir()
    os.symlink(tmp_path / "nowhere" / "scaling.json", dangling)
    assert "FileNotFoundError" in (checker_stops_on(str(dangling), writes=True, deletes=True) or "")
    os.symlink(tmp_path / "written.json", tmp_path / "link" / "elsewhere.json")  # (its target's folder exists: written)
    assert checker_stops_on(str(tmp_path / "link" / "elsewhere.json"), writes=True, deletes=False) is None
    plain = tmp_path / "plain.json"
    plain.write_text("{}")
    assert checker_stops_on(str(plain), writes=True, deletes=True) is None


def test_a_scaling_json_folder_where_the_rcp_checker_writes_is_an_error(tmp_path: Path) -> None:
    import shutil
    from conftest import SHARED
    source = SHARED / "other-submitters" / "training-4.1" / "Dell"
    if not source.is_dir():
        import pytest
        pytest.skip("../shared/other-submitters/training-4.1/Dell is not present")
    package = tmp_path / "training-4.1" / "Dell"
    shutil.copytree(source, package)
    (gnn,) = [p for p in (package / "results").glob("*/gnn")]
    (gnn / "scaling.json").unlink(missing_ok=True)
    (gnn / "scaling.json").mkdir()
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", str(package), "-f", "json", "--no-progress"],
                          capture_output=True, timeout=300)
    (bench,) = [b for b in json.loads(done.stdout)["benchmarks"] if b["benchmark"] == "gnn"]
    (found,) = [f for f in bench["findings"] if f["code"] == "MLC504"]
    assert done.returncode == 1 and found["severity"] == "error" and found["official"] and not bench["valid"]
    assert "IsADirectoryError" in found["message"]


def test_brackets_in_a_package_folder_name_hide_its_result_files_from_the_package_checker(tmp_path: Path) -> None:
    """rv219: glob('{folder}/result_*.txt') reads 'acme-t8[1]' as a pattern: 0 files, refused."""
    import shutil
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    (package / "results" / "acme-t8").rename(package / "results" / "acme-t8[1]")
    (package / "systems" / "acme-t8.json").rename(package / "systems" / "acme-t8[1].json")
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", str(package), "-f", "json", "--no-progress"],
                          capture_output=True, timeout=120)
    (bench,) = json.loads(done.stdout)["benchmarks"]
    (found,) = [f for f in bench["findings"] if f["code"] == "MLC502"]
    assert done.returncode == 1 and found["severity"] == "error" and not bench["valid"]
    assert "'acme-t8[1]'" in found["message"]


def test_braces_of_a_logs_text_in_grouped_messages_stay_text() -> None:
    """rv222: the labels were str.format templates made of message text: a '{' of the log's text
    crashed the github, text, markdown and HTML reports (ValueError)."""
    assert _differing([f"record {{\"r_{n}.t}} at line {n}" for n in (3, 4)]) == ['{"r_3.t}; {"r_3.t} at line 3',
                                                                                  '{"r_4.t}; {"r_4.t} at line 4']


def test_each_members_numbers_are_named_by_its_own_words() -> None:
    """rv222: 'of job 1 (29)' was said of job 2's run (the first member's words)."""
    assert _differing([f"{n} records read; kept from rank 0 of job {j} ({n})" for n, j in ((29, 1), (31, 2))]) == [
        "29 records read; rank 0 of job 1; rank 0 of job 1 (29)", "31 records read; rank 0 of job 2; rank 0 of job 2 (31)"]


def test_links_the_rcp_checker_cannot_write_through(tmp_path: Path) -> None:
    """rv222: a loop of links (ELOOP) and a link to a missing folder's path with a slash
    (IsADirectoryError) stop the package checker's open(path, 'w') too."""
    import os
    from mlcheck.judge.scaling_file import checker_stops_on
    loop = tmp_path / "scaling.json"
    os.symlink(loop, loop)
    assert "Too many levels of symbolic links" in (checker_stops_on(str(loop), writes=True, deletes=True) or "")
    assert checker_stops_on(str(loop), writes=False, deletes=True) is None  # (os.path.exists is False: left alone)
    slash = tmp_path / "slash.json"
    os.symlink(str(tmp_path / "missing") + "/", slash)
    assert "IsADirectoryError" in (checker_stops_on(str(slash), writes=True, deletes=False) or "")


def test_a_scaling_json_folder_beside_raw_output_is_not_the_package_checkers(tmp_path: Path) -> None:
    """rv222: the package checker writes scaling.json only into a package's benchmark folders."""
    import shutil
    (tmp_path / "scaling.json").mkdir()
    for i in range(5):
        shutil.copy(RESNET / f"result_{i}.txt", tmp_path / f"run_{i}.log")
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", str(tmp_path / "run_0.log"), "-f", "json",
                           "--no-progress"], capture_output=True, timeout=120)
    report = json.loads(done.stdout)
    assert not [f for b in report["benchmarks"] for f in b["findings"] if "package checker stops" in f["message"]]


def test_report_refuses_a_json_name_at_a_packages_top_level(tmp_path: Path) -> None:
    """rv222: 'report pk -o pk/r.json' wrote HTML into r.json (the early refusal passed over any
    path inside a checked folder; only results/ and systems/ are refused later)."""
    import shutil
    shutil.copytree(EXAMPLE, tmp_path / "pk")
    done = subprocess.run([sys.executable, "-m", "mlcheck", "report", "pk", "-o", "pk/r.json", "--no-progress"],
                          capture_output=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 2 and not (tmp_path / "pk" / "r.json").exists()
    assert "names a json report" in done.stderr.decode()


def test_three_jobs_one_after_the_other_tagged_1_2_1_are_not_concurrent() -> None:
    """rv222: a third job that reuses number 1 after job 1 stopped and job 2 ran."""
    from mlcheck.read.concurrent_jobs import concurrent_jobs
    stop = b'[%d,0]<stdout>::::MLLOG {"key": "run_stop"}\n'
    record = b'[%d,0]<stdout>::::MLLOG {"key": "x"}\n'
    assert concurrent_jobs([record % 1, stop % 1, record % 2, stop % 2, record % 1, stop % 1]).concurrent() == ()
    assert concurrent_jobs([record % 1, record % 2, stop % 1, stop % 2]).concurrent() == (1, 2)


def test_a_system_name_whose_glob_matches_another_folder_is_refused(tmp_path: Path) -> None:
    """rv222: 'acme-t?' beside 'acme-tx': the checker's glob counts both folders' result files."""
    import shutil
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    shutil.copytree(package / "results" / "acme-t8", package / "results" / "acme-tx")
    (package / "results" / "acme-t8").rename(package / "results" / "acme-t?")
    shutil.copy(package / "systems" / "acme-t8.json", package / "systems" / "acme-tx.json")
    (package / "systems" / "acme-t8.json").rename(package / "systems" / "acme-t?.json")
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", str(package), "-f", "json", "--no-progress"],
                          capture_output=True, timeout=120)
    benches = {b["system"]: b for b in json.loads(done.stdout)["benchmarks"]}
    (found,) = [f for f in benches["acme-t?"]["findings"] if f["code"] == "MLC502"]
    assert "'acme-t?', a pattern that also matches 'acme-tx'" in found["message"] and done.returncode == 1
    assert not [f for f in benches["acme-tx"]["findings"] if f["code"] == "MLC502"]
