"""Session 58: the reviews of this session."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme"
RESNET = sorted((EXAMPLE / "results").glob("*/resnet"))[0]


def _mlcheck(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mlcheck", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd, env={**os.environ, "COLUMNS": "200"})


def test_a_results_table_saved_as_csv_or_markdown_beside_console_logs_is_no_log(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(RESNET / "result_0.txt", logs / "console.txt")
    for form in ("csv", "markdown"):
        table = _mlcheck("score", str(logs), "-t", form, "--config", os.devnull)
        assert table.stdout.startswith(("round,division,", "| round | division |")), table.stdout
        (tmp_path / f"{form}.txt").write_text(table.stdout, "utf-8")
    for form in ("csv", "markdown"):
        shutil.copy(tmp_path / f"{form}.txt", logs / f"{form}.txt")
    (logs / "other.txt").write_text("round,division\n1,2\n", "utf-8")  # (a CSV mlcheck did not write: a log)
    # (rv276: a job's console that printed a table before its records is a log)
    (logs / "job.log").write_text((tmp_path / "csv.txt").read_text("utf-8") + (RESNET / "result_1.txt").read_text("utf-8"))
    done = _mlcheck("check", str(logs), "--format", "json", "--config", os.devnull)
    report = json.loads(done.stdout)
    places = sorted(f"{f['code']} {Path(f['path']).name}" for f in report["findings"] if f["code"] == "MLC002")
    assert places == ["MLC002 other.txt"], places
    assert sorted(Path(run["path"]).name for run in report["runs"]) == ["console.txt", "job.log", "other.txt"]


def test_the_action_says_the_sarif_report_was_written_wherever_it_is_and_whatever_its_name(tmp_path: Path) -> None:
    """The upload step asked ``hashFiles(sarif-file)``, which takes a glob and looks in the workspace
    only: a report under ``runner.temp`` or named ``[run]*.sarif`` was not uploaded."""
    import yaml

    action = yaml.safe_load((Path(__file__).resolve().parent.parent / "action.yml").read_text("utf-8"))
    (step,) = [step for step in action["runs"]["steps"] if step.get("id") == "check"]
    (upload,) = [step for step in action["runs"]["steps"] if step.get("name") == "Upload SARIF"]
    assert "hashFiles" not in upload["if"] and "steps.check.outputs.sarif-written == 'true'" in upload["if"]
    bin_dir, work, elsewhere = tmp_path / "bin", tmp_path / "work", tmp_path / "temp"
    for folder in (bin_dir, work, elsewhere):
        folder.mkdir()
    (bin_dir / "mlcheck").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m mlcheck "$@"\n', "utf-8")
    (bin_dir / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', "utf-8")
    for name in ("mlcheck", "python"):
        (bin_dir / name).chmod(0o755)
    shutil.copytree(EXAMPLE, work / "Acme")
    sarif = elsewhere / "[run]*.sarif"
    for code, damage in ((0, False), (1, True)):
        if damage:
            (work / "Acme" / "results" / RESNET.parent.name / "resnet" / "result_4.txt").unlink()
        output = tmp_path / f"github_output{code}"
        env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "RUNNER_TEMP": str(tmp_path),
               "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"), "MLCHECK_PATHS": "Acme/",
               "MLCHECK_ACTION_ARGS": "--config /dev/null", "MLCHECK_ACTION_RULESET": "", "MLCHECK_ACTION_STRICT": "",
               "MLCHECK_ACTION_SARIF": str(sarif)}
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                              env=env, cwd=work, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        said = output.read_text("utf-8").splitlines()
        assert f"exit-code={code}" in said and "sarif-written=true" in said, said
        assert json.loads(sarif.read_text("utf-8"))["runs"][0]["tool"]["driver"]["name"] == "mlcheck"


def test_a_result_files_line_that_only_names_the_marker_is_mlc023_and_no_record(tmp_path: Path) -> None:
    """rv272: ``+ grep ':::MLLOG' out.log`` in a result file was MLC027 ("Write ':::MLLOG ' before the
    JSON") and counted as a record cut out of other text; with the parser's token it fails the file."""
    lines = (RESNET / "result_0.txt").read_text("utf-8").splitlines()
    lines[3:3] = ["+ grep ':::MLLOG' out.log", "+ grep ':::MLLOG' out.log 0"]
    log = tmp_path / "result_0.txt"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    done = _mlcheck("check", str(log), "--format", "json", "--config", os.devnull)
    report = json.loads(done.stdout)
    found = {(f["code"], f["line"], f["severity"]) for f in report["findings"]}
    assert ("MLC023", 4, "warning") in found and not any(code == "MLC027" for code, _, _ in found), found
    read = next(f["message"] for f in report["findings"] if f["code"] == "MLC020")
    assert f"{len(lines) - 2} :::MLLOG records read" in read and "cut out of" not in read, read
    assert done.returncode == 0, done.stderr
    lines[3] = "+ grep ':::MLLOG ' out.log"  # (the parser's token: it reads the line, and fails the file)
    log.write_text("\n".join(lines) + "\n", "utf-8")
    report = json.loads(_mlcheck("check", str(log), "--format", "json", "--config", os.devnull).stdout)
    assert ("MLC003", 4, "error") in {(f["code"], f["line"], f["severity"]) for f in report["findings"]}


def test_a_raw_log_of_the_rounds_runs_with_one_breaking_the_rules_is_invalid_as_its_split_files(tmp_path: Path) -> None:
    """rv275: a seed loop's console of 5 runs, one with an illegal hyper-parameter, was scored valid
    (exit 0) where the files `mlcheck split` writes of it are invalid (MLC521, exit 1)."""
    texts = [path.read_text("utf-8") for path in sorted(RESNET.glob("result_*.txt"))]
    texts[1] = texts[1].replace('"key": "opt_name", "value": "lars"', '"key": "opt_name", "value": "adam"')
    log = tmp_path / "job.log"
    log.write_text("".join(texts), "utf-8")
    done = _mlcheck("score", str(log), "-f", "json", "--config", os.devnull)
    (folder,) = json.loads(done.stdout)["benchmarks"]
    assert done.returncode == 1 and not folder["valid"], done.stdout
    assert "MLC521" in {f["code"] for f in folder["findings"]}
    assert _mlcheck("split", str(log), "-o", str(tmp_path / "split")).returncode in (0, 1)
    split = _mlcheck("score", str(tmp_path / "split"), "-f", "json", "--config", os.devnull)
    (whole,) = json.loads(split.stdout)["benchmarks"]
    assert split.returncode == 1 and whole["score_min"] == folder["score_min"] and not whole["valid"]


def _follow_until_idle(signals: object) -> list[object]:
    got = []
    for signal in signals:  # type: ignore[attr-defined]
        if signal == "idle":
            return got
        got.append(signal)
    return got


def test_watch_keeps_lf_line_ends_after_a_progress_bar_or_a_crlfs_cr_before_any_lf(tmp_path: Path) -> None:
    """rv275: a job that drew a download bar with CRs before its first line (or a CRLF log whose first
    CR came before its LF) was read with CR line ends: every later bar's CR a line, the findings'
    lines far past those of `check` (2398 for 1553), a finding said twice."""
    from mlcheck.read.follow import Follower

    records = [f':::MLLOG {{"key": "k{i}", "value": {i}}}'.encode() for i in range(4)]
    for start, line_end in ((b"\rDownloading  20%|##  |\rDownloading  40%|####|", b"\n"), (records[0] + b"\r", b"\r\n")):
        log = tmp_path / "job.log"
        log.write_bytes(start)
        follower = Follower(str(log), poll=0.0)
        signals = follower.signals()
        assert _follow_until_idle(signals) == []  # (nothing decided yet: the start is held)
        rest = (line_end[1:] if start.endswith(b"\r") else line_end) + line_end.join(
            [*records[1:2], b"step 1/9\rstep 2/9\r" + records[2], records[3]]) + line_end
        with open(log, "ab") as handle:
            handle.write(rest)
        lines = _follow_until_idle(signals)
        follower.close()
        assert len(lines) == log.read_bytes().count(b"\n"), lines  # (the physical lines `check` counts)


def test_a_benchmark_of_a_round_whose_end_is_estimated_gets_the_hint_not_published_before(tmp_path: Path) -> None:
    """rv273: a dlrm_dcnv2 run of 2026-06 was told 6.0 was "published before the run's date" (6.0's end
    is mlcheck's estimate), with no hint that --ruleset 6.0.0 judges it."""
    from test_review_50 import _a_year_later, _log, _messages

    path = _a_year_later(_log(tmp_path, "6.0.0", "dlrm_dcnv2", {}))
    [message] = _messages(path, "MLC011", "6.1.0")
    assert "pass --ruleset 6.0.0 if the run is for it" in message and "published before" not in message, message


def test_a_folder_with_no_score_counts_no_run_in_it(tmp_path: Path) -> None:
    """rv272: a folder with too many non-converged runs (no score) marked runs "* counted in the score"
    (the JSON still lists the runs the olympic mean would take: the power rules read them)."""
    from test_review_57 import _not_converged

    folder = tmp_path / "Acme" / "results" / RESNET.parent.name / "resnet"
    shutil.copytree(EXAMPLE, tmp_path / "Acme")
    for name in ("result_1.txt", "result_2.txt", "result_3.txt"):
        (folder / name).write_text(_not_converged((folder / name).read_text("utf-8")), "utf-8")
    (bench,) = json.loads(_mlcheck("check", str(tmp_path / "Acme"), "-f", "json", "--config", os.devnull).stdout)["benchmarks"]
    assert bench["score_min"] is None and "3 runs did not converge" in bench["reason"]
    assert len(bench["runs_counted"]) == 3  # (those the olympic mean would take: the power rules read them, rv276)
    text = _mlcheck("check", str(tmp_path / "Acme"), "--config", os.devnull).stdout
    assert "counted in the score" not in text and ".txt *" not in text
    html = _mlcheck("check", str(tmp_path / "Acme"), "-f", "html", "--config", os.devnull).stdout
    assert "<th>runs counted</th><td>none</td>" in html.replace("\n", ""), html[html.find("runs counted") - 200:][:400]


def test_the_html_reports_inputs_are_every_file_the_verdict_read(tmp_path: Path) -> None:
    """rv272: "Versions and inputs" hashed the logs alone, not the system description, scaling.json,
    package_checker_params or power logs that decide the verdict and the score."""
    from mlcheck import check
    from mlcheck.settings.gate import input_digests

    shutil.copytree(EXAMPLE, tmp_path / "Acme")
    folder = tmp_path / "Acme" / "results" / RESNET.parent.name / "resnet"
    (folder / "scaling.json").write_text('{"scaling_factor": 1.0}', "utf-8")
    (folder / "power" / "result_0").mkdir(parents=True)
    (folder / "power" / "result_0" / "node_0.txt").write_text("x\n", "utf-8")
    (tmp_path / "Acme" / "package_checker_params").write_text("", "utf-8")
    digests = input_digests(check([str(tmp_path / "Acme")]))
    named = sorted(os.path.relpath(path, tmp_path) for path in digests)
    logs = [f"Acme/results/{RESNET.parent.name}/resnet/result_{i}.txt" for i in range(5)]
    assert named == sorted([*logs, "Acme/package_checker_params", f"Acme/systems/{RESNET.parent.name}.json",
                            f"Acme/results/{RESNET.parent.name}/resnet/scaling.json",
                            f"Acme/results/{RESNET.parent.name}/resnet/power/result_0/node_0.txt"]), named
    alone = input_digests(check([str(folder / "result_0.txt")]))  # (rv276: a file named alone reads no power log)
    assert sorted(os.path.relpath(path, tmp_path) for path in alone) == [
        f"Acme/results/{RESNET.parent.name}/resnet/result_0.txt", f"Acme/results/{RESNET.parent.name}/resnet/scaling.json",
        f"Acme/systems/{RESNET.parent.name}.json"]


def test_a_time_of_day_that_differs_between_grouped_findings_is_shown_whole() -> None:
    """rv275: MLC024's places showed 'RUN AT 2024-10-09 07; here 48; 16 PM' for '07:48:16 PM'."""
    from mlcheck.model import Finding, Severity
    from mlcheck.report.grouped import numbers_that_differ

    members = tuple(Finding("MLC024", "new-job-started", Severity.INFO,
                            f"the job ends here ('ENDING TIMING RUN AT 2024-10-09 {at} PM'): read as another run",
                            "a.log", line) for at, line in (("07:48:16", 10), ("08:32:00", 20)))
    assert numbers_that_differ(members) == ["07:48:16 PM", "08:32:00 PM"]


NUL = bytes(1)


def _with_hole(data: bytes, first: int, last: int) -> bytes:
    """``data`` with its lines ``first``-``last`` (1-based) overwritten by NUL bytes, line ends included."""
    lines = data.split(b"\n")
    start, end = sum(len(line) + 1 for line in lines[:first - 1]), sum(len(line) + 1 for line in lines[:last])
    return data[:start] + b"\0" * (end - start) + data[end:]


def test_a_block_of_nul_bytes_a_crash_left_is_said_at_its_line_whatever_the_reading(tmp_path: Path) -> None:
    """rv275: a block of a log never written (NUL bytes where 16 lines of the job were) lost 6 records
    without a word; the run passed."""
    import gzip

    clean = (RESNET / "result_0.txt").read_bytes()
    holed = _with_hole(clean, 101, 104)
    cases = {"result_0.txt": (holed, 101), "job.log": (b"launch\n" + holed, 102),  # (the block reader; the line reader)
             "result_1.txt": (b"a\n\0\0\0\nb\n" + clean, 2),  # (in lines without a record)
             "result_2.txt.gz": (gzip.compress(holed), 101)}
    for name, (data, line) in cases.items():
        (tmp_path / name).write_bytes(data)
        report = json.loads(_mlcheck("check", str(tmp_path / name), "-f", "json", "--config", os.devnull).stdout)
        found = [(f["line"], f["severity"], f["message"].split(" in the log")[0]) for f in report["findings"]
                 if f["code"] == "MLC031"]
        nuls = (holed if name.endswith(".gz") else data).count(NUL)
        assert found == [(line, "warning", f"{nuls:,} NUL bytes")], (name, found)
    report = json.loads(_mlcheck("check", str(RESNET / "result_0.txt"), "-f", "json", "--config", os.devnull).stdout)
    assert "MLC031" not in {f["code"] for f in report["findings"]}


def test_watch_reads_a_cr_log_whose_last_line_ends_in_an_lf_with_cr_line_ends(tmp_path: Path) -> None:
    """rv276: one record with its CR, a quiet poll, then the rest and a last 'job done' with an LF: the
    LF decided LF line ends, the whole log one line (exit 1 where check passes)."""
    from mlcheck.read.follow import Follower

    records = [f':::MLLOG {{"key": "k{i}", "value": {i}}}'.encode() for i in range(4)]
    log = tmp_path / "job.log"
    log.write_bytes(records[0] + b"\r")
    follower = Follower(str(log), poll=0.0)
    signals = follower.signals()
    assert _follow_until_idle(signals) == []
    with open(log, "ab") as handle:
        handle.write(b"\r".join(records[1:]) + b"\rjob done\n")
    lines = _follow_until_idle(signals)
    follower.close()
    assert lines == [record + b"\n" for record in records] + [b"job done\n"], lines


def test_a_raw_logs_run_without_a_seed_is_judged_as_its_split_file(tmp_path: Path) -> None:
    """rv276: the seed checker's file was the raw log itself, which logs seeds: a run of it without one
    passed where the file split writes of it fails the folder (MLC518)."""
    texts = [path.read_text("utf-8") for path in sorted(RESNET.glob("result_*.txt"))]
    texts[3] = "".join(line for line in texts[3].splitlines(keepends=True) if '"key": "seed"' not in line)
    log = tmp_path / "job.log"
    log.write_text("".join(texts), "utf-8")
    done = _mlcheck("check", str(log), "-f", "json", "--config", os.devnull)
    found = [(f["code"], f["severity"], f["message"].split(" logs")[0]) for f in json.loads(done.stdout)["findings"]
             if f["code"] == "MLC518"]
    assert done.returncode == 1 and found == [("MLC518", "error", "job.log (run 3)")], found
    _mlcheck("split", str(log), "-o", str(tmp_path / "split"))
    split = json.loads(_mlcheck("check", str(tmp_path / "split"), "-f", "json", "--config", os.devnull).stdout)
    assert [(f["code"], f["severity"]) for f in split["findings"] if f["code"] == "MLC518"] == [("MLC518", "error")]


def test_nul_bytes_where_the_reader_cannot_seek_are_said_and_change_no_verdict(tmp_path: Path) -> None:
    """rv277: 4 KiB of NULs at a result file's start (no LF in its first bytes), or NULs in a file of
    CR line ends, made the block reader seek a stream that cannot: MLC001 and MLC002, the folder invalid;
    a UTF-16 file's NULs (its characters') were said to be an unwritten block."""
    clean = (RESNET / "result_0.txt").read_bytes()
    lines = clean.splitlines(keepends=True)
    cases = {"start": (b"\0" * 4096 + clean, 1), "cr": (b"".join([*lines[:10], b"\0" * 16 + b"\n", *lines[10:]]).replace(
        b"\n", b"\r"), 11)}
    for name, (data, line) in cases.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "result_0.txt").write_bytes(data)
        done = _mlcheck("check", str(tmp_path / name / "result_0.txt"), "-f", "json", "--config", os.devnull)
        report = json.loads(done.stdout)
        assert [(f["code"], f["line"]) for f in report["findings"] if f["severity"] != "info"] == [("MLC031", line)], name
        assert done.returncode == 0 and report["runs"][0]["verdict"] == "pass", name
    (tmp_path / "wide").mkdir()
    (tmp_path / "wide" / "result_0.txt").write_bytes(clean.decode("utf-8").encode("utf-16"))
    report = json.loads(_mlcheck("check", str(tmp_path / "wide"), "-f", "json", "--config", os.devnull).stdout)
    assert "MLC009" in {f["code"] for f in report["findings"]} and "MLC031" not in {f["code"] for f in report["findings"]}


def test_watch_reads_cr_line_ends_after_an_lf_ended_first_line_that_came_alone(tmp_path: Path) -> None:
    """rv277: 'launching job' and its LF, a quiet poll, then records with CR line ends: the first LF
    decided LF line ends before any record had come (2 lines, 1 record, exit 1 where check passes)."""
    from mlcheck.read.follow import Follower

    records = [f':::MLLOG {{"key": "k{i}", "value": {i}}}'.encode() for i in range(4)]
    log = tmp_path / "job.log"
    log.write_bytes(b"launching job\n")
    follower = Follower(str(log), poll=0.0)
    signals = follower.signals()
    assert _follow_until_idle(signals) == [b"launching job\n"]
    with open(log, "ab") as handle:
        handle.write(b"\r".join(records) + b"\r")
    lines = _follow_until_idle(signals)
    follower.close()
    assert lines == [record + b"\n" for record in records], lines


def test_a_raw_logs_runs_are_ordered_for_the_seed_checker_as_the_files_split_writes() -> None:
    """rv277: the runs of a raw log were ordered by their index (run 2 before run 10), where the package
    checker sorts the names split writes (result_10.txt before result_2.txt)."""
    from types import SimpleNamespace

    from mlcheck.rules.seeds import _file_key, _label

    keys = sorted((_file_key(SimpleNamespace(path="logs/job.log", index=i), True) for i in (2, 10, 0)),  # type: ignore[arg-type]
                  key=lambda key: (os.path.basename(key), key))
    assert [_label(key) for key in keys] == ["job.log (run 0)", "job.log (run 10)", "job.log (run 2)"]
    assert _file_key(SimpleNamespace(path="a/result_3.txt", index=0), False) == "a/result_3.txt"  # type: ignore[arg-type]


def test_a_folder_with_no_score_shows_no_run_dropped_either(tmp_path: Path) -> None:
    """rv277: Markdown said 0 runs counted and 2 dropped of 5 (the HTML too) where there is no score."""
    from test_review_57 import _not_converged

    folder = tmp_path / "Acme" / "results" / RESNET.parent.name / "resnet"
    shutil.copytree(EXAMPLE, tmp_path / "Acme")
    for name in ("result_1.txt", "result_2.txt", "result_3.txt"):
        (folder / name).write_text(_not_converged((folder / name).read_text("utf-8")), "utf-8")
    markdown = _mlcheck("check", str(tmp_path / "Acme"), "-f", "markdown", "--config", os.devnull).stdout
    row = next(line for line in markdown.splitlines() if line.startswith("| resnet |"))
    assert "| — | ❌ " in row and row.split(" | ")[6:8] == ["0", "0"], row
    html = _mlcheck("check", str(tmp_path / "Acme"), "-f", "html", "--config", os.devnull).stdout
    assert "<th>runs dropped</th><td>none</td>" in html


def test_nul_bytes_after_an_over_long_line_are_said_at_their_line(tmp_path: Path) -> None:
    """rv278: the lines the block reader read past a line over 16 MiB were not looked at for NUL bytes."""
    from mlcheck.read.long_lines import MAX_LINE_BYTES

    lines = (RESNET / "result_0.txt").read_bytes().splitlines(keepends=True)
    data = b"".join([*lines[:10], b"x" * (MAX_LINE_BYTES + 10) + b"\n", b"\0" * 8 + b"\n", *lines[10:]])
    (tmp_path / "result_0.txt").write_bytes(data)
    report = json.loads(_mlcheck("check", str(tmp_path / "result_0.txt"), "-f", "json", "--config", os.devnull).stdout)
    assert [(f["code"], f["line"]) for f in report["findings"] if f["code"] in ("MLC014", "MLC031")] == [
        ("MLC014", 11), ("MLC031", 12)]


def test_watch_decides_line_ends_on_the_first_mib_as_check_does(tmp_path: Path) -> None:
    """rv278: a CR log whose LF-ended banner came with the start of a record (no record line ended yet)
    was read with LF line ends; an LF log with a progress bar across its first MiB, with CR ones."""
    from mlcheck.read.follow import Follower

    records = [f':::MLLOG {{"key": "k{i}", "value": {i}}}'.encode() for i in range(4)]
    noise = b"".join(b"loading shard %06d\n" % i for i in range(60_000))  # (over 1 MiB of LF-ended lines)
    bar = b"".join(b"\rstep %5d/10000" % i for i in range(10_000)) + b"\n"
    for start, rest, expected in (
            (b"banner\n" + records[0][:12], records[0][12:] + b"\r" + b"\r".join(records[1:]) + b"\r",
             [b"banner\n", *(record + b"\n" for record in records)]),
            (noise, bar + b"\n".join(records) + b"\n", None)):
        log = tmp_path / "job.log"
        log.write_bytes(start)
        follower = Follower(str(log), poll=0.0)
        signals = follower.signals()
        lines = _follow_until_idle(signals)
        with open(log, "ab") as handle:
            handle.write(rest)
        lines += _follow_until_idle(signals)
        follower.close()
        if expected is not None:
            assert lines == expected, lines
        else:
            assert len(lines) == log.read_bytes().count(b"\n"), len(lines)


def test_mpi_jobs_read_apart_say_one_unwritten_block_at_the_files_first(tmp_path: Path) -> None:
    """rv277, rv279: each job's reading said MLC031 (twice for the file), then only the first job's (a later
    line, part of the count)."""
    first, second = (path.read_bytes().splitlines(keepends=True) for path in sorted(RESNET.glob("result_*.txt"))[:2])
    out = []
    for i in range(max(len(first), len(second))):
        out += [b"[1,0]<stdout>:" + first[i]] if i < len(first) else []
        out += [b"[2,0]<stdout>:" + second[i]] if i < len(second) else []
        out += [b"[2,0]<stdout>:crash " + NUL * 4 + b"\n"] if i == 15 else []
        out += [b"node crashed " + NUL * 8 + b"\n"] if i == 30 else []
    log = tmp_path / "two.log"
    log.write_bytes(b"".join(out))
    report = json.loads(_mlcheck("check", str(log), "-f", "json", "--config", os.devnull).stdout)
    assert "MLC030" in {f["code"] for f in report["findings"]}  # (two jobs at once, each read apart)
    said = [(f["line"], f["message"].split(" in the log")[0]) for f in report["findings"] if f["code"] == "MLC031"]
    assert said == [(33, "12 NUL bytes")], said  # (16 lines of each job before it)
