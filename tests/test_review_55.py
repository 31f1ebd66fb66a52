"""Session 55: reviews of scores, power, watch, CI outputs and hostile inputs."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mlcheck.package.json_document import read_json_document
from mlcheck.rules.package_system import check_system_description

EXAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme"
SYSTEM = EXAMPLE / "systems" / "acme-t8.json"


def _check_json(*args: str) -> dict:  # type: ignore[type-arg]
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", *args, "-f", "json", "--no-progress",
                           "--config", os.devnull], capture_output=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr.decode()
    return json.loads(done.stdout)  # type: ignore[no-any-return]


@pytest.mark.parametrize("field", ["system_name", "submitter"])
def test_an_empty_table_field_is_said_once_by_the_placeholder_rule(tmp_path: Path, field: str) -> None:
    """rv242: an empty system_name was both MLC512 and MLC514, two warnings saying the same."""
    data = json.loads(SYSTEM.read_text("utf-8"))
    data[field] = " "
    path = tmp_path / "acme-t8.json"
    path.write_text(json.dumps(data, indent=1), "utf-8")
    findings = check_system_description(read_json_document(str(path)), "r", "2.0.0")
    assert [(f.code, f.severity.name) for f in findings] == [("MLC514", "WARNING")]
    assert field in findings[0].message


@pytest.mark.parametrize("name, text, line", [
    (".mlcheck.toml", 'jobs = 1\n[waivers]\ncode = "MLC001"\n', 2),
    ("pyproject.toml", '[project]\nname = "x"\n[tool.mlcheck]\njobs = 1\n\n[tool.mlcheck.waivers]\ncode = "MLC0"\n', 6),
])
def test_a_waivers_table_not_an_array_is_said_at_its_line(tmp_path: Path, name: str, text: str, line: int) -> None:
    """Session 54's carried item: '[waivers]' (one table) was MLC041 with no line."""
    shutil.copytree(EXAMPLE, tmp_path / "Acme")
    (tmp_path / name).write_text(text, "utf-8")
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", "Acme", "-f", "json", "--no-progress"],
                          capture_output=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    (found,) = [f for f in json.loads(done.stdout)["findings"] if f["code"] == "MLC041"]
    assert (found["path"], found["line"], found["severity"]) == (name, line, "error")
    assert "[[waivers]] elsewhere" in found["message"] and done.returncode == 1


def _power_log(start: float, stop: float, watts: float = 5000.0, extra: tuple[tuple[str, float], ...] = ()) -> list:  # type: ignore[type-arg]
    """A node log read: a reading a second from start to stop, ``extra`` records, in time order."""
    from mlcheck.model import Event

    records = [("power_measurement_start", start), ("power_measurement_stop", stop), *extra]
    records += [("power_reading", start + 1000 * i) for i in range(1, int((stop - start) // 1000))]
    records.sort(key=lambda r: r[1])
    return [Event(key, watts if key == "power_reading" else None, {}, time, line)
            for line, (key, time) in enumerate(records, 1)]


RUN_START = 1.7e12


@pytest.mark.parametrize("late, early, line, said", [
    (120_000, 0, 1, "leaves out 20% of the run (it begins 2 min after run_start, ends 1.0 s after run_stop)"),
    (-1000, 300_000, 302, "leaves out 50% of the run (it begins 1.0 s before run_start, ends 5 min before run_stop)"),
    (9_000, 9_000, None, ""),  # (within the clocks of two machines: nothing said)
])
def test_a_window_that_leaves_out_part_of_the_run_is_said(late: int, early: int, line: int | None, said: str) -> None:
    """rv244: power starting 120 s after run_start, or stopping 300 s before run_stop, was not said
    (power_measurement.adoc: the measurement must include all timed operations)."""
    from mlcheck.rules.power_plausibility import implausible_node_log

    duration = 600_000.0
    start, stop = RUN_START + late, RUN_START + duration - early + (0 if early else 1000)
    found = implausible_node_log("n", _power_log(start, stop), RUN_START, duration)
    assert [(f.line, said in f.message) for f in found] == ([(line, True)] if said else [])


@pytest.mark.parametrize("key, line, said", [
    ("power_measurement_start", 303, "power_measurement_start is logged 2 times (lines 1, 303): the summarizer adds the "
     "readings from the first and divides by the window from the last: the energy comes out high"),
    ("power_measurement_stop", 604, "power_measurement_stop is logged 2 times (lines 303, 604): the summarizer adds the "
     "readings up to the first and divides by the window up to the last: the energy comes out low"),
])
def test_a_second_start_or_stop_is_said_with_what_it_does_to_the_energy(key: str, line: int, said: str) -> None:
    """rv244: a second power_measurement_start gave +50 % energy without a word, and a second stop a
    wrong diagnosis (a short window), as mlcheck read the first of each."""
    from mlcheck.rules.power_plausibility import implausible_node_log

    events = _power_log(RUN_START - 1000, RUN_START + 601_000, extra=((key, RUN_START + 300_500),))
    found = implausible_node_log("n", events, RUN_START, 600_000.0)
    assert [(f.line, f.message.startswith(said)) for f in found] == [(line, True)]


def test_a_negative_mean_power_is_no_kilowatts() -> None:
    """rv244: every reading negative was 'kilowatts logged as watts?'."""
    from mlcheck.rules.power_plausibility import implausible_node_log

    found = implausible_node_log("n", _power_log(RUN_START - 1000, RUN_START + 601_000, -5000.0), RUN_START, 600_000.0)
    assert [f.message for f in found] == ["601 power_reading value(s) below 0 W", "the readings average -5e+03 W for a "
                                          "node: a negative power: the energy score comes out negative"]


def test_a_count_the_power_checker_never_reaches_is_not_said_to_be_its(tmp_path: Path) -> None:
    """rv244: with node_0.txt.bak beside node_0.txt, power_checker.py raises on int('0.txt') before it
    compares the runs' counts, but MLC542 said '[official checker agrees]'."""
    from mlcheck.package.power import scan_power
    from mlcheck.rules.power import check_power_folder

    runs = [str(tmp_path / f"result_{i}.txt") for i in range(3)]
    for i, run in enumerate(runs):
        Path(run).write_text("", "utf-8")
        (tmp_path / "power" / f"result_{i}").mkdir(parents=True)
        (tmp_path / "power" / f"result_{i}" / "node_0.txt").write_text("", "utf-8")
    (tmp_path / "power" / "result_1" / "node_0.txt.bak").write_text("", "utf-8")
    power = scan_power(str(tmp_path), runs)
    assert power is not None
    found, bad = check_power_folder(power, True, "5.0.0")
    assert [(f.code, f.official) for f in found] == [("MLC541", True), ("MLC542", False)]
    assert "node_0.txt, node_0.txt.bak); it crashes on a name first (MLC541) and counts none." in found[1].message
    assert bad == {"result_1"}


def test_two_jobs_at_once_whose_ranks_print_in_any_order_are_two_runs(tmp_path: Path) -> None:
    """rv245: '[1,1]' printing each record before '[1,0]' (ranks print in any order) left no job
    start: the two jobs' records were one run (MLC206, MLC106, MLC305 on two valid runs)."""
    resnet = EXAMPLE / "results" / "acme-t8" / "resnet"

    def job(number: int, run: str) -> list[bytes]:
        return [f"[{number},{rank}]<stdout>:".encode() + line for line in (resnet / run).read_bytes().splitlines(True)
                for rank in (1, 0)]  # (rank 1's copy first)
    first, second = job(1, "result_0.txt"), job(2, "result_1.txt")
    log = tmp_path / "console.log"
    log.write_bytes(b"".join(line for pair in itertools.zip_longest(first, second, fillvalue=b"") for line in pair))
    report = _check_json(str(log))
    assert [(r["verdict"], sorted({f["code"] for f in r["findings"]})) for r in report["runs"]] == [
        ("pass", ["MLC020", "MLC030"]), ("pass", ["MLC020"])]
    assert [f["line"] for f in report["runs"][0]["findings"] if f["code"] == "MLC030"] == [3]


@pytest.mark.parametrize("crash", ["killed", "cut"])
@pytest.mark.parametrize("relaunched", [False, True])
def test_watch_counts_a_run_that_died_once_no_relaunch_follows(tmp_path: Path, crash: str, relaunched: bool) -> None:
    """rv245: a run killed between records was never counted by --runs, one whose record was cut
    was at once, relaunched or not: --runs 2 ended at the third run_stop of one console, at the
    second of another. A run that died now counts once the log stays quiet after its job's end;
    a relaunch makes it an attempt, not counted (the relaunch's run_stop is)."""
    import re

    from mlcheck.raw.watch import watch

    lines = (EXAMPLE / "results" / "acme-t8" / "resnet" / "result_0.txt").read_text("utf-8").splitlines()

    def later(minutes: int) -> list[str]:
        return [re.sub(r'"time_ms": (\d+)', lambda m: f'"time_ms": {int(m.group(1)) + minutes * 60_000}', line)
                for line in lines]
    dead = later(30)[:200]
    if crash == "cut":
        dead[-1] = dead[-1][:40]
    launch = "+ srun --nodes=1 --ntasks=8 python train.py"
    text = [launch, *lines, launch, *dead, "srun: error: node03: task 0: Killed"]
    text += [launch, *later(60)] if relaunched else []
    log = tmp_path / "console.log"
    log.write_text("\n".join(text) + "\n", "utf-8")
    found: list[object] = []
    outcome = watch(str(log), found.append, lambda _text: None, runs=2, poll=0.01, idle_timeout=5)
    assert (outcome.reason, outcome.runs_done) == ("complete", 2)
    assert outcome.lines == (len(text) if relaunched else len(lines) + 2 + len(dead))


@pytest.mark.parametrize("used", [False, True])
def test_a_count_only_the_summarizer_stops_on_is_said_as_the_summarizer_s(tmp_path: Path, used: bool) -> None:
    """rv243: number_of_nodes "1.0" in another system's description made the score line say 'the
    package checker refuses its package', where MLC512 says it accepts the file (the summarizer
    stops); and in a description no results folder uses, the summarizer never reads it."""
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    data = json.loads(SYSTEM.read_text("utf-8"))
    (package / "systems" / "other.json").write_text(json.dumps({**data, "number_of_nodes": "1.0"}, indent=1), "utf-8")
    if used:
        shutil.copytree(package / "results" / "acme-t8", package / "results" / "other")
    report = _check_json(str(package))
    (said,) = [f for f in report["findings"] if f["code"] == "MLC512"]
    bench = next(b for b in report["benchmarks"] if b["system"] == "acme-t8")
    assert said["severity"] == ("error" if used else "warning")
    if used:
        assert not bench["valid"] and bench["reason"].endswith(
            "(MLC512) and publishes no result of its package (the package checker accepts it)")
    else:
        assert bench["valid"] and said["message"].endswith("and the summarizer reads the descriptions of those only")


def test_watch_says_no_records_follow_where_only_a_rank_s_copy_does(tmp_path: Path) -> None:
    """rv245: after a run that died and its relaunch, watch --runs 2 ended at rank 0's last run_stop and
    said the file 'holds records after it, not judged here': rank 1's copy of that run_stop (the
    attempt made check's run count exceed the watch's)."""
    import re

    lines = (EXAMPLE / "results" / "acme-t8" / "resnet" / "result_0.txt").read_text("utf-8").splitlines()

    def ranks(records: list[str], minutes: int) -> list[str]:
        moved = [re.sub(r'"time_ms": (\d+)', lambda m: f'"time_ms": {int(m.group(1)) + minutes * 60_000}', line)
                 for line in records]
        return [f"[{job},{rank}]<stdout>:{line}" for job in (minutes + 1,) for line in moved for rank in (0, 1)]
    launch = "mpirun -np 2 --tag-output python train.py"
    text = [launch, *ranks(lines, 0), launch, *ranks(lines[:150], 30),
            "mpirun noticed that process rank 0 with PID 4242 on node n1 exited on signal 9 (Killed).",
            launch, *ranks(lines, 60)]
    log = tmp_path / "console.log"
    log.write_text("\n".join(text) + "\n", "utf-8")
    done = subprocess.run([sys.executable, "-m", "mlcheck", "watch", str(log), "--runs", "2", "--idle-timeout", "10",
                           "--poll", "0.01", "-f", "json", "--no-progress", "--config", os.devnull],
                          capture_output=True, timeout=120)
    assert "holds records after it" not in done.stderr.decode()
    assert [r["verdict"] for r in json.loads(done.stdout)["runs"]] == ["pass", "fail", "pass"]


def test_a_package_s_own_config_is_said_and_writes_nowhere_outside_the_working_folder(tmp_path: Path) -> None:
    """rv246: a checked package's .mlcheck.toml (exit_zero, ignore everything, an output at an
    absolute path) silenced a failing check without a word and wrote outside the working folder."""
    work = tmp_path / "work"
    work.mkdir()
    shutil.copytree(EXAMPLE, work / "Acme")
    victim = tmp_path / "victim.txt"
    (work / "Acme" / ".mlcheck.toml").write_text(
        f'exit_zero = true\nignore = ["MLC5"]\noutput = ["text:{victim}", "json:../v.json", "sarif:ok.sarif"]\n', "utf-8")
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", "Acme", "--no-progress", "-f", "json"],
                          capture_output=True, timeout=120, cwd=work,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    assert not victim.exists() and not (tmp_path / "v.json").exists() and (work / "ok.sarif").is_file()
    refused = [f for f in json.loads(done.stdout)["findings"] if f["code"] == "MLC041"]
    assert [(f["line"], f["severity"]) for f in refused] == [(3, "error"), (3, "error")]
    assert "mlcheck: Acme/.mlcheck.toml (found from Acme upwards; the search starts at the checked folder) sets " \
        "exit_zero, ignore, output (ok.sarif), which decide what is judged, what fails and what is written" \
        in done.stderr.decode()
    assert done.returncode == 0  # (exit_zero is the config's: said, not refused)


def test_a_huge_value_is_kept_cut_in_the_summary_and_quoted_short(tmp_path: Path) -> None:
    """rv246: a global_batch_size or eval_accuracy of a million-item list was kept whole in each run's
    summary (memory grew with the package: 1.45 GB for 40 such runs) and quoted whole in the RCP
    reason (a report of megabytes)."""
    from mlcheck import check
    from mlcheck.judge.bounded_values import MAX_NODES

    shutil.copytree(EXAMPLE, tmp_path / "Acme")
    log = tmp_path / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
    lines = log.read_text("utf-8").splitlines(keepends=True)
    for at, line in enumerate(lines):
        record = json.loads(line[len(":::MLLOG "):])
        if record["key"] in ("global_batch_size", "eval_accuracy"):
            record["value"] = [0] * 100_000
            lines[at] = ":::MLLOG " + json.dumps(record) + "\n"
    log.write_text("".join(lines), "utf-8")
    (bench,) = check([str(tmp_path / "Acme")], ruleset="2.1.0").benchmarks  # (2.1 on: the RCP checker compares the runs')
    run = next(r.run for r in bench.runs if r.path == str(log))
    assert run is not None and len(run.batch_size) == MAX_NODES + 2 and run.batch_size[-2] == "..."
    assert run.batch_size[-1].startswith("... (100,000 items in all, digest ") and all(len(e.value) == MAX_NODES + 2 for e in run.evaluations)
    assert bench.rcp is not None and "[0, 0, 0, 0, ...]" in bench.rcp.reason and len(bench.rcp.reason) < 600


def test_a_description_with_an_empty_results_folder_is_read_by_the_summarizer(tmp_path: Path) -> None:
    """rv248: the summarizer lists every folder of results/, an empty one too: number_of_nodes "1.0"
    in its description stops it, an error (was a warning: 'no results folder uses it')."""
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    data = json.loads(SYSTEM.read_text("utf-8"))
    (package / "systems" / "extra.json").write_text(json.dumps({**data, "number_of_nodes": "1.0"}, indent=1), "utf-8")
    (package / "results" / "extra").mkdir()
    (said,) = [f for f in _check_json(str(package))["findings"] if f["code"] == "MLC512"]
    assert said["severity"] == "error"


def test_values_past_the_cut_still_compare_and_long_numbers_are_not_cut() -> None:
    """rv248: a 4,200-digit seed string (int() reads it) was cut and refused (MLC522), and two lists
    that differ past the cut compared equal (MLC520 lost)."""
    from mlcheck.judge.bounded_values import bounded

    seed = "7" * 4200
    assert bounded(seed) is seed
    one, two = list(range(2000)), list(range(2000))
    two[1500] = -1
    assert bounded(one) != bounded(two) and bounded(one) == bounded(list(range(2000)))
    assert bounded("x" * 70_000) != bounded("x" * 69_999 + "y")


def test_copies_of_a_start_at_one_time_change_nothing_and_readings_that_end_early_are_said() -> None:
    """rv248: a start logged twice at the same time was said to make the energy high (the summarizer's is
    unchanged) and turned the window checks off; readings ending 5 min before the stop (energy 4 % low)
    were not said."""
    from mlcheck.rules.power_plausibility import implausible_node_log

    events = _power_log(RUN_START - 1000, RUN_START + 601_000, extra=(("power_measurement_start", RUN_START - 1000),))
    assert implausible_node_log("n", events, RUN_START, 600_000.0) == []
    cut = [e for e in _power_log(RUN_START - 1000, RUN_START + 601_000)
           if e.key != "power_reading" or e.time_ms < RUN_START + 300_000]
    [said] = implausible_node_log("n", cut, RUN_START, 600_000.0)
    assert said.line == cut[-1].line and said.message.startswith("the readings end 5 min before power_measurement_stop")


def test_a_found_config_writes_no_link_nor_a_file_not_named_as_a_report(tmp_path: Path) -> None:
    """rv247: output = ["sarif:out/x.sarif"] with out a link outside, or ["text:.bashrc"], wrote
    through the link or over the working folder's file; and the notice named outputs -o replaced."""
    from mlcheck.settings.config import load_settings

    work = tmp_path / "work"
    (work / "Acme").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", work / "out")
    config = work / "Acme" / ".mlcheck.toml"
    config.write_text('output = ["sarif:out/x.sarif", "text:.bashrc", "md:C:x.md", "sarif:ok/x.sarif"]\n', "utf-8")
    settings = load_settings({}, cwd=str(work), environ={}, paths=["Acme"])
    assert settings.outputs == ("sarif:ok/x.sarif",)
    assert [p.line for p in settings.problems if p.code == "MLC041"] == [1, 1, 1]
    assert settings.config_deciding == ("output",)
    assert load_settings({"outputs": ("json:r.json",)}, cwd=str(work), environ={}, paths=["Acme"]).config_deciding == ()


def test_the_notice_names_only_what_the_command_uses_and_watch_says_it_at_its_start(tmp_path: Path) -> None:
    """rv249: score named exit_zero, strict and output, which it does not use; watch --fail-fast with
    the text report never said the notice (it moved to the final report)."""
    work = tmp_path / "work"
    work.mkdir()
    shutil.copytree(EXAMPLE, work / "Acme")
    (work / "Acme" / ".mlcheck.toml").write_text('exit_zero = true\nstrict = true\nselect = ["MLC1"]\n', "utf-8")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    scored = subprocess.run([sys.executable, "-m", "mlcheck", "score", "Acme"], capture_output=True, timeout=120,
                            cwd=work, env=env)
    assert ") sets select, which decide" in scored.stderr.decode()
    log = work / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
    watched = subprocess.run([sys.executable, "-m", "mlcheck", "watch", str(log), "--idle-timeout", "5", "--poll", "0.01",
                              "--no-progress"], capture_output=True, timeout=120, cwd=work, env=env)
    assert watched.stderr.decode().count(") sets exit_zero, select, strict, which decide") == 1


def test_watch_says_that_it_waits_for_a_relaunch(tmp_path: Path) -> None:
    """rv249: nothing was said between a job's end and the verdict, --relaunch-wait later."""
    lines = (EXAMPLE / "results" / "acme-t8" / "resnet" / "result_0.txt").read_text("utf-8").splitlines()
    log = tmp_path / "job.log"
    log.write_text("\n".join(["+ srun --nodes=1 python train.py", *lines[:150], "srun: error: node03: task 0: Killed"])
                   + "\n", "utf-8")
    done = subprocess.run([sys.executable, "-m", "mlcheck", "watch", str(log), "--relaunch-wait", "1", "--poll", "0.01",
                           "-f", "json", "--config", os.devnull], capture_output=True, timeout=120)
    said = done.stderr.decode()
    assert said.count("the job ended without run_stop (by line 152); waiting up to 1 s (--relaunch-wait)") == 1
    assert done.returncode == 1 and len(json.loads(done.stdout)["runs"]) == 1


def test_the_html_table_says_long_values_vary_where_they_differ_past_what_it_shows(tmp_path: Path) -> None:
    """rv249: the hyper-parameter table compared the runs' values by their first 300 characters: one
    value shown for all runs, where MLC520 said one run's differs."""
    shutil.copytree(EXAMPLE, tmp_path / "Acme")
    for name, last in (("result_0.txt", 1999), ("result_1.txt", -1)):
        log = tmp_path / "Acme" / "results" / "acme-t8" / "resnet" / name
        lines = log.read_text("utf-8").splitlines(keepends=True)
        record = {"namespace": "", "time_ms": json.loads(lines[1][len(":::MLLOG "):])["time_ms"], "event_type": "POINT_IN_TIME",
                  "key": "my_schedule", "value": [*range(1999), last], "metadata": {}}
        log.write_text("".join([lines[0], lines[1], ":::MLLOG " + json.dumps(record) + "\n", *lines[2:]]), "utf-8")
    page = tmp_path / "r.html"
    subprocess.run([sys.executable, "-m", "mlcheck", "report", str(tmp_path / "Acme"), "-o", str(page), "--config",
                    os.devnull], capture_output=True, timeout=120)
    row = page.read_text("utf-8").split("<code>my_schedule</code>", 1)[1].split("</tr>", 1)[0]
    assert "varies: [0, 1, 2," in row and row.count("(") >= 2
