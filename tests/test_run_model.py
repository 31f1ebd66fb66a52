"""A result file is one run, as the official checker reads it (constructed logs, one per class of
real-world logging seen in the other submitters' packages)."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from pathlib import Path

import pytest

from click.testing import CliRunner

from mlcheck import check
from mlcheck.cli import main
from mlcheck.model import Severity
from mlcheck.facts.rulesets import load_ruleset

from conftest import FIXTURES
from tool_scripts import load_tool

EXAMPLE = FIXTURES / "example" / "Acme"
RESNET = EXAMPLE / "results" / "acme-t8" / "resnet"
cases = load_tool("make_rule_cases")


def _lines(name: str = "result_0.txt") -> list[str]:
    return (RESNET / name).read_text("utf-8").splitlines(keepends=True)


def _index(lines: list[str], key: str) -> int:
    return next(i for i, line in enumerate(lines) if f'"key": "{key}"' in line)


def _write(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(lines), "utf-8")
    return path


def test_every_rank_logging_cache_clear_and_init_start_is_one_run(tmp_path: Path) -> None:
    # A 4-node job: each rank logs its own cache_clear and init_start before rank 0's block.
    lines = _lines()
    head = [lines[0]] * 4 + [lines[1]] * 4
    log = _write(tmp_path / "bert" / "result_0.txt", head + lines[2:])
    result = check([str(log)])
    assert len(result.runs) == 1
    (run,) = result.runs
    assert run.verdict == "pass" and run.official_verdict == "pass"
    assert run.time_to_train_min is not None and round(run.time_to_train_min, 2) == 14.76


def test_records_after_run_stop_stay_in_the_run(tmp_path: Path) -> None:
    lines = _lines()
    stop = _index(lines, "run_stop")
    trailing = [lines[_index(lines, "submission_org")], lines[_index(lines, "eval_accuracy")]]
    log = _write(tmp_path / "result_0.txt", lines[:stop + 1] + trailing)
    result = check([str(log)])
    assert len(result.runs) == 1
    codes = {f.code for f in result.runs[0].findings}
    assert "MLC107" in codes  # the repeated submission_org: the checker only warns
    assert result.runs[0].official_verdict == "pass"


def test_a_raw_log_splits_only_where_a_new_job_begins(tmp_path: Path) -> None:
    lines = _lines()
    launcher = "+ mpirun -np 8 --bind-to none python train.py\n"
    raw = _write(tmp_path / "job.log", [launcher] + lines + [launcher] + lines)
    result = check([str(raw)])
    assert [r.index for r in result.runs] == [0, 1]
    starts = [f for f in result.runs[1].findings if f.code == "MLC024"]
    assert [(f.line, f.severity) for f in starts] == [(len(lines) + 2, Severity.INFO)]
    assert "mpirun" in starts[0].message
    # No launcher between them: one run with every record twice (duplicates, not two runs).
    plain = _write(tmp_path / "plain.log", lines + lines)
    assert len(check([str(plain)]).runs) == 1
    # Named as a result file, the same output is one run, whatever it holds.
    named = _write(tmp_path / "resnet" / "result_0.txt", [launcher] + lines + [launcher] + lines)
    assert len(check([str(named)]).runs) == 1


def test_runs_of_a_job_one_after_the_other_split_at_the_next_runs_start(tmp_path: Path) -> None:
    """Raw output without a launcher line between two runs: after a run_stop, a cache_clear or
    init_start that is no copy of the run's own begins the next run, with the submission_* records
    logged between the two; a final eval after run_stop stays in its run."""
    first, second = _lines("result_0.txt"), _lines("result_1.txt")
    stop = _index(first, "run_stop")
    trailing = first[_index(first, "eval_accuracy")]  # (a last eval logged after run_stop)
    submission = [line for line in second if '"key": "submission_' in line]  # (logged before cache_clear)
    second = submission + [line for line in second if line not in submission]
    log = _write(tmp_path / "job.log", first[:stop + 1] + [trailing] + second)
    result = check([str(log)])
    assert [(r.verdict, r.run.first_line, r.run.last_line) for r in result.runs] == [
        ("pass", 1, stop + 2), ("pass", stop + 3, stop + 2 + len(second))]
    assert [round(r.time_to_train_min or 0, 2) for r in result.runs] == [
        round(check([str(RESNET / name)]).runs[0].time_to_train_min or 0, 2) for name in ("result_0.txt", "result_1.txt")]
    assert not [f for r in result.runs for f in r.findings if f.code in ("MLC104", "MLC107")]
    # Another process printing the whole run after the first (its clock a few ms off) is copies.
    copy = [re.sub(r'"time_ms": (\d+)', lambda m: f'"time_ms": {int(m.group(1)) + 7}', line, count=1) for line in first]
    assert len(check([str(_write(tmp_path / "twice.log", first + copy))]).runs) == 1
    # Runs concatenated out of order (the second ran first) are runs all the same.
    assert [r.verdict for r in check([str(_write(tmp_path / "back.log", second + first))]).runs] == ["pass", "pass"]
    # split writes the two runs, and watch judges them, as check does.
    out = tmp_path / "split"
    assert CliRunner().invoke(main, ["split", str(log), "-o", str(out)]).exit_code == 0
    assert [len((out / f"result_{i}.txt").read_text("utf-8").splitlines()) for i in (0, 1)] == [
        stop + 2, len(second)]
    watched = CliRunner().invoke(main, ["watch", str(log), "--runs", "2", "--no-progress", "-f", "json"])
    assert watched.exit_code == 0, watched.output
    report = json.loads(watched.stdout)
    assert [(r["verdict"], r["lines"]) for r in report["runs"]] == [
        ("pass", [1, stop + 2]), ("pass", [stop + 3, stop + 2 + len(second)])]
    # The same bytes submitted as a result file: one run, as the official checker reads it.
    named = _write(tmp_path / "resnet" / "result_0.txt", first + second)
    assert len(check([str(named)]).runs) == 1


def _shifted(lines: list[str], ms: int) -> list[str]:
    return [re.sub(r'"time_ms": (\d+)', lambda m: f'"time_ms": {int(m.group(1)) + ms}', line, count=1) for line in lines]


def test_the_next_run_begun_before_the_runs_stop_is_a_run_of_its_own(tmp_path: Path) -> None:
    """A run started a few seconds before the last one's run_stop (another node; TPU ssd runs of
    1.0 overlap so): its cache_clear, logged minutes after the run's run_start, is no copy of it."""
    first = _lines("result_0.txt")
    stop = int(json.loads(first[_index(first, "run_stop")].split(":::MLLOG", 1)[1])["time_ms"])
    begin = int(json.loads(first[0].split(":::MLLOG", 1)[1])["time_ms"])
    second = _shifted(first, stop - begin - 3_600)  # (its first record 3.6 s before the run_stop)
    result = check([str(_write(tmp_path / "job.log", first + second))])
    assert [(r.verdict, r.run.first_line) for r in result.runs] == [("pass", 1), ("pass", len(first) + 1)]
    out = tmp_path / "split"
    assert CliRunner().invoke(main, ["split", str(tmp_path / "job.log"), "-o", str(out)]).exit_code == 0
    assert [(out / f"result_{i}.txt").read_text("utf-8") for i in (0, 1)] == ["".join(first), "".join(second)]


@pytest.mark.parametrize("offset_s", [0, -40, 20])
def test_a_run_launched_with_the_last_and_printed_after_it_is_a_run_of_its_own(tmp_path: Path, offset_s: int) -> None:
    """Two runs launched together (their consoles joined, one after the other): the second's
    cache_clear falls within the first's time, as another process's copy of the run would, but it
    lasts longer or shorter than the first, where a copy does not: two runs (was: one failing run,
    MLC404 and repeats; a review, session 43)."""
    first, second = _lines("result_0.txt"), _lines("result_1.txt")
    begin = [int(json.loads(lines[0].split(":::MLLOG", 1)[1])["time_ms"]) for lines in (first, second)]
    together = _shifted(second, begin[0] - begin[1] + offset_s * 1000)
    log = _write(tmp_path / "job.log", first + together)
    result = check([str(log)])
    assert [(r.verdict, r.run.first_line) for r in result.runs] == [("pass", 1), ("pass", len(first) + 1)]
    [note] = [f for f in result.runs[1].findings if f.code == "MLC024"]
    assert note.line == len(first) + 1 and "within the run's time but no copy of it: its evals differ from the " \
        "run's, logged at other moments (another run, its output joined to this one's)" in note.message  # (its 1st eval)
    out = tmp_path / "split"
    assert CliRunner().invoke(main, ["split", str(log), "-o", str(out)]).exit_code == 0
    assert [(out / f"result_{i}.txt").read_text("utf-8") for i in (0, 1)] == ["".join(first), "".join(together)]
    watched = CliRunner().invoke(main, ["watch", str(log), "--runs", "2", "--no-progress", "-f", "json"])
    assert [(r["verdict"], r["lines"][0]) for r in json.loads(watched.stdout)["runs"]] == [
        ("pass", 1), ("pass", len(first) + 1)]


def _with_last_eval(lines: list[str], value: str) -> list[str]:
    last = max(i for i, line in enumerate(lines) if '"key": "eval_accuracy"' in line)
    return lines[:last] + [re.sub(r'"value": [0-9.]+', f'"value": {value}', lines[last], count=1)] + lines[last + 1:]


def test_a_copy_of_the_run_by_another_process_stays_the_run_s_and_a_twin_with_other_evals_is_not(tmp_path: Path) -> None:
    """Another process's copy of the run, printed after it: its clock off by seconds (the same for
    its run_start and run_stop), or its evals its own local values printed at the run's moments: the
    run's copies, one run. A twin as long to the millisecond whose evals differ, logged half a second
    off: a run launched with it (a review, session 43)."""
    first = _lines("result_0.txt")
    for skew_ms in (2_000, 6_000, -30_000):
        assert len(check([str(_write(tmp_path / "copy.log", first + _shifted(first, skew_ms)))]).runs) == 1, skew_ms
    local = _with_last_eval(first, "0.7654321")  # (another rank's own accuracy, printed with the run's)
    assert len(check([str(_write(tmp_path / "local.log", first + local))]).runs) == 1
    twin = _with_last_eval(_shifted(first, 500), "0.7654321")
    result = check([str(_write(tmp_path / "twin.log", first + twin))])
    assert [(r.verdict, r.run.first_line) for r in result.runs] == [("pass", 1), ("pass", len(first) + 1)]
    assert [f.line for f in result.runs[1].findings if f.code == "MLC024" and "its evals differ from the run's, its "
            "run_stop 0.5 s from the run's" in f.message] == [len(first) + 1]


def test_a_partial_copy_of_the_run_is_the_run_s_before_the_next_run(tmp_path: Path) -> None:
    """A process printing the run's init block again after its run_stop, then the job's next run
    an hour later: the block is the run's copies (was: the next run's, which then failed with an
    init of 60 minutes; a review, session 43)."""
    first, second = _lines("result_0.txt"), _lines("result_1.txt")
    init = _index(first, "init_stop")
    partial = _shifted(first[:init], 200)
    begin = [int(json.loads(lines[0].split(":::MLLOG", 1)[1])["time_ms"]) for lines in (first, second)]
    later = _shifted(second, begin[0] - begin[1] + 3_600_000)
    for launcher in ([], ["+ srun python train.py\n"]):
        runs = check([str(_write(tmp_path / "job.log", first + partial + launcher + later))]).runs
        assert [r.run.first_line for r in runs] == [1, len(first) + len(partial) + len(launcher) + 1]
        assert runs[1].verdict == "pass" and not [f for f in runs[1].findings if f.code in ("MLC401", "MLC107")]


def test_a_record_at_time_zero_does_not_hide_a_run_printed_out_of_order(tmp_path: Path) -> None:
    """A logger's record at time 0 before its clock is set (1.0 dlrm) is no run's first time:
    the run printed after it, which ran before it, is a run of its own."""
    first, second = _lines("result_0.txt"), _lines("result_1.txt")
    zero = [re.sub(r'"time_ms": \d+', '"time_ms": 0', first[_index(first, "submission_org")], count=1)]
    earlier = _shifted(second, -40 * 60_000)  # (it ran 40 minutes before)
    result = check([str(_write(tmp_path / "job.log", zero + first + earlier))])
    assert [r.run.first_line for r in result.runs] == [1, len(first) + 2]
    out = tmp_path / "split"
    assert CliRunner().invoke(main, ["split", str(tmp_path / "job.log"), "-o", str(out)]).exit_code == 0
    assert (out / "result_1.txt").read_text("utf-8") == "".join(earlier)


def test_another_mpi_job_number_begins_a_new_run(tmp_path: Path) -> None:
    lines = _lines()
    tagged = [f"[1,0]<stdout>:{line}" for line in lines] + [f"[2,0]<stdout>:{line}" for line in lines]
    result = check([str(_write(tmp_path / "job.log", tagged))])
    assert [r.index for r in result.runs] == [0, 1]
    assert [f.line for f in result.runs[1].findings if f.code == "MLC024"] == [len(lines) + 1]


def test_minigo_evaluates_its_checkpoints_after_run_stop(tmp_path: Path) -> None:
    records = cases.base_records("2.0.0", "minigo")
    stop = next(i for i, r in enumerate(records) if r.key == "run_stop")
    stop_ms = records[stop].time_ms
    # The reference evaluates the timestamped checkpoints once the clock has stopped.
    evals = [dataclasses.replace(r, time_ms=stop_ms + 60_000 * (n + 1))
             for n, r in enumerate(x for x in records if x.key == "eval_accuracy")]
    moved = [r for r in records if r.key != "eval_accuracy"] + evals
    log = _write(tmp_path / "minigo" / "result_0.txt", [r.text() + "\n" for r in moved])
    (run,) = check([str(log)], ruleset="2.0.0").runs
    assert "MLC305" not in {f.code for f in run.findings}
    assert run.verdict == "pass"


def test_a_passing_eval_logged_a_millisecond_after_run_stop_is_no_fault(tmp_path: Path) -> None:
    lines = _lines()
    stop, last_eval = _index(lines, "run_stop"), max(i for i, l in enumerate(lines) if '"eval_accuracy"' in l)
    stop_ms = int(lines[stop].split('"time_ms": ')[1].split(",")[0])
    late = lines[last_eval].replace(lines[last_eval].split('"time_ms": ')[1].split(",")[0], str(stop_ms + 1))
    log = _write(tmp_path / "result_0.txt", lines[:last_eval] + lines[last_eval + 1:stop + 1] + [late])
    (run,) = check([str(log)]).runs
    assert "MLC305" not in {f.code for f in run.findings}
    # A minute late is a fault of the rules (the clock stopped before the target was reached).
    late = lines[last_eval].replace(lines[last_eval].split('"time_ms": ')[1].split(",")[0], str(stop_ms + 60_000))
    log = _write(tmp_path / "late" / "result_0.txt", lines[:last_eval] + lines[last_eval + 1:stop + 1] + [late])
    (run,) = check([str(log)]).runs
    found = [f for f in run.findings if f.code == "MLC305"]
    assert [(f.severity, f.official) for f in found] == [(Severity.ERROR, False)]
    assert "60.000 s after run_stop" in found[0].message


@pytest.mark.parametrize("key, time_ms, warned", [("submission_org", "1652083200", True), ("submission_org", "0", False),
                                                   ("eval_accuracy", "0", True)])
def test_a_clock_on_a_record_that_times_nothing_is_a_warning(tmp_path: Path, key: str, time_ms: str,
                                                              warned: bool) -> None:
    """A date in seconds on a submission_* record: a warning (the clock or unit is wrong); time_ms
    0 on a submission_* record is one written afterwards without a clock (accepted packages have
    them): nothing; on an eval, which a clock should have timed, a warning."""
    lines = _lines()
    at = _index(lines, key)
    old = lines[at].split('"time_ms": ')[1].split(",")[0]
    log = _write(tmp_path / "result_0.txt", lines[:at] + [lines[at].replace(old, time_ms)] + lines[at + 1:])
    (run,) = check([str(log)]).runs
    found = [(f.code, f.severity) for f in run.findings if f.code == "MLC405"]
    assert found == ([("MLC405", Severity.WARNING)] if warned else [])
    assert run.verdict == "pass"


def test_a_tolerated_non_converged_run_passes_check_as_score_does(tmp_path: Path) -> None:
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    log = package / "results" / "acme-t8" / "resnet" / "result_2.txt"
    lines = log.read_text("utf-8").splitlines(keepends=True)
    log.write_text("".join(lines[:_index(lines, "run_stop")]), "utf-8")  # no run_stop
    runner = CliRunner()
    checked = runner.invoke(main, ["check", str(package), "--no-progress"])
    scored = runner.invoke(main, ["score", str(package)])
    assert (checked.exit_code, scored.exit_code) == (0, 0), checked.output
    result = check([str(package)])
    (bench,) = result.benchmarks
    assert bench.score.valid
    cut = next(r for r in result.runs if r.path.endswith("result_2.txt"))
    assert cut.tolerated and cut.verdict == "fail" and cut.official_verdict == "fail"
    assert [(f.code, f.severity) for f in cut.findings if f.code == "MLC102"] == [("MLC102", Severity.WARNING)]
    # Checked alone, the same file fails: nothing tolerates it.
    assert runner.invoke(main, ["check", str(log), "--no-progress"]).exit_code == 1
    # Another run's duplicate seed breaks the folder (MLC519), not the tolerance: the olympic mean
    # still counts the cut run as its slowest, and fixing the seed is all the folder needs.
    seeded = package / "results" / "acme-t8" / "resnet" / "result_3.txt"
    seed = re.search(r'"key": "seed", "value": (\d+)', (package / "results" / "acme-t8" / "resnet" /
                                                       "result_0.txt").read_text("utf-8"))
    assert seed is not None
    seeded.write_text(re.sub(r'("key": "seed", "value": )\d+', rf"\g<1>{seed[1]}", seeded.read_text("utf-8")),
                      "utf-8")
    result = check([str(package)])
    (bench,) = result.benchmarks
    assert not bench.score.valid and "MLC519" in bench.score.reason
    cut = next(r for r in result.runs if r.path.endswith("result_2.txt"))
    assert cut.tolerated and [(f.code, f.severity) for f in cut.findings if f.code == "MLC102"] == [
        ("MLC102", Severity.WARNING)]


def test_a_non_converged_run_stopped_before_it_started_breaks_the_folder(tmp_path: Path) -> None:
    """A non-converged run's own errors change no score, but for run_stop before run_start
    (MLC403): the summarizer, which reads no status, scores its negative time (the fastest run,
    dropped), so another run counts: MLC521 (a review against the summarizer, session 25)."""
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    log = package / "results" / "acme-t8" / "resnet" / "result_1.txt"
    lines = log.read_text("utf-8").splitlines(keepends=True)
    stop, start = _index(lines, "run_stop"), _index(lines, "run_start")
    start_ms = lines[start].split('"time_ms": ')[1].split(",")[0]
    stop_ms = lines[stop].split('"time_ms": ')[1].split(",")[0]
    # A status typo and run_stop timed before run_start (MLC403, mlcheck's own error).
    lines[stop] = lines[stop].replace('"status": "success"', '"status": "abortd"').replace(
        stop_ms, str(int(start_ms) - 1000))
    log.write_text("".join(lines), "utf-8")
    result = check([str(package)])
    (bench,) = result.benchmarks
    run = next(r for r in result.runs if r.path.endswith("result_1.txt"))
    assert {"MLC103", "MLC403"} <= {f.code for f in run.findings} and not run.converged
    assert not bench.score.valid and "the official tools would pass it" in bench.score.reason
    (dropped,) = [f for f in bench.findings if f.code == "MLC521"]
    assert "(MLC403)" in dropped.message


def test_prepend_rank_prefixes_are_rank_tags(tmp_path: Path) -> None:
    """``mpirun -prepend-rank`` writes ``[rank] `` before each line: raw output of two ranks is
    read as one run of rank 0's records (rank 1's are copies), as the clean file is."""
    lines = _lines()
    copies = ["[1] " + re.sub(r'"time_ms": (\d+)', lambda m: f'"time_ms": {int(m.group(1)) + 1}', line, count=1)
              for line in lines]  # (rank 1's clock a millisecond on)
    log = _write(tmp_path / "job.log", [item for pair in zip((f"[0] {line}" for line in lines), copies) for item in pair])
    (run,) = check([str(log)]).runs
    clean = check([str(RESNET / "result_0.txt")]).runs[0]
    assert (run.verdict, run.time_to_train_min) == ("pass", clean.time_to_train_min)
    note = next(f.message for f in run.findings if f.code == "MLC020")
    assert f"records kept from rank 0 ({len(lines)}); {len(lines)} copies printed by 1 other rank dropped" in note


def test_a_run_no_date_places_is_judged_under_the_newest_round_with_its_benchmark(tmp_path: Path) -> None:
    """A clock in seconds (MLC405) places the run in no round: a resnet run is judged under the
    newest round that has resnet, not under one without it (a false MLC011)."""
    lines = []
    for line in _lines():
        record = json.loads(line[len(":::MLLOG "):])
        record["time_ms"] = record["time_ms"] / 1000
        lines.append(":::MLLOG " + json.dumps(record) + "\n")
    log = _write(tmp_path / "run.log", lines)
    (run,) = check([str(log)]).runs
    codes = {f.code for f in run.findings}
    assert "MLC011" not in codes and {"MLC012", "MLC405"} <= codes
    assert run.ruleset is not None and "resnet" in load_ruleset(run.ruleset).benchmarks


def test_a_run_no_date_places_does_not_decide_its_folders_round(tmp_path: Path) -> None:
    """The first run of a folder in seconds (MLC012): the folder takes the round its dated runs tell."""
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    log = package / "results" / "acme-t8" / "resnet" / "result_0.txt"
    lines = []
    for line in log.read_text("utf-8").splitlines(keepends=True):
        record = json.loads(line[len(":::MLLOG "):])
        record["time_ms"] = record["time_ms"] / 1000
        lines.append(":::MLLOG " + json.dumps(record) + "\n")
    log.write_text("".join(lines), "utf-8")
    (bench,) = check([str(package)]).benchmarks
    dated = {r.ruleset for r in bench.runs if r.path != str(log)}
    assert len(dated) == 1 and bench.ruleset in dated


def _record(key: str, time_ms: float, value: object = None) -> str:
    return ":::MLLOG " + json.dumps({"namespace": "", "time_ms": time_ms, "event_type": "POINT_IN_TIME", "key": key,
                                     "value": value, "metadata": {"file": "x.py", "lineno": 1}}) + "\n"


def _synthetic_run(at: float, zero: bool = False, run_start_at_zero: bool = False) -> list[str]:
    """A run's records from ``at`` (a date, or a clock relative to run_start), its run_start
    300 s later; with ``zero`` a first record at time 0 (1.0 dlrm), with ``run_start_at_zero`` a
    run_start logged first at time 0 and then at its time."""
    lines = [_record("gradient_accumulation_steps", 0, 1)] if zero else []
    lines += [_record("cache_clear", at, True), _record("init_start", at + 100),
              _record("submission_benchmark", at + 200, "ssd"), _record("global_batch_size", at + 300, 32),
              _record("init_stop", at + 300_000)]
    lines += [_record("run_start", 0)] if run_start_at_zero else []
    return lines + [_record("run_start", at + 300_001), _record("eval_accuracy", at + 600_000, 0.81),
                    _record("run_stop", at + 1_200_000)]


@pytest.mark.parametrize("name,lines,runs", [
    # a run with a record at time 0, another rank's copy of its start after it, a run that ran 5 h
    # before printed after it, and that run's copy: two runs (check counted three, split two)
    ("time_zero_out_of_order", _synthetic_run(1.62e12, zero=True) + _synthetic_run(1.62e12)[:2]
     + _synthetic_run(1.62e12 - 5 * 3_600_000, zero=True) + _synthetic_run(1.62e12 - 5 * 3_600_000)[:2], 2),
    # a clock relative to run_start (negative in initialisation), another rank's copy 2 s later: one run
    ("relative_clock_copy", _synthetic_run(-300_001) + _synthetic_run(-298_001), 1),
    # a run_start logged first at time 0, then at its time; another rank's copy 2 s later: one run
    ("run_start_at_zero_copy", _synthetic_run(1.62e12, run_start_at_zero=True) + _synthetic_run(1.62e12 + 2000), 1),
])
def test_check_and_split_read_the_same_runs_whatever_the_clock(tmp_path: Path, name: str, lines: list[str],
                                                               runs: int) -> None:
    log = _write(tmp_path / f"{name}.log", lines)
    assert len(check([str(log)], ruleset="1.0.0").runs) == runs
    out = tmp_path / "split"
    assert CliRunner().invoke(main, ["split", str(log), "-o", str(out)]).exit_code == 0
    assert len(list(out.iterdir())) == runs


def test_the_records_held_to_tell_a_copy_from_a_run_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past TWIN_LIMIT records without a run_start or run_stop that tells, what was held is read
    as the run's copies (memory stays bounded by the limit, not by the copy)."""
    from mlcheck.read import next_run

    first, second = _lines("result_0.txt"), _lines("result_1.txt")
    begin = [int(json.loads(lines[0].split(":::MLLOG", 1)[1])["time_ms"]) for lines in (first, second)]
    log = _write(tmp_path / "job.log", first + _shifted(second, begin[0] - begin[1]))
    assert len(check([str(log)]).runs) == 2
    monkeypatch.setattr(next_run, "TWIN_LIMIT", 5)
    assert len(check([str(log)]).runs) == 1


def test_what_tells_a_twin_from_a_copy_of_the_run() -> None:
    """The twin's run_stop: a copy lasts as long as the run (its clock off or not) and logs the
    same evals, or its own at the run's moments; another run lasts longer or shorter, or logs other
    evals at other moments (mlcheck.read.run_windows; a review, session 43)."""
    from mlcheck.read.run_windows import Evals, own_run

    run = (1_000.0, 601_000.0)  # (run_start, run_stop)
    assert own_run(run, (7_000.0, 607_000.0), evals_differ=False) == ""  # (a copy, its clock 6 s off)
    assert own_run(run, (1_000.0, 601_000.0), evals_differ=True) == ""  # (a rank's own accuracies, at the run's moments)
    assert own_run(run, (3_000.0, 604_500.0), evals_differ=False) == "it lasts 1.5 s longer than the run"
    assert own_run(run, (1_300.0, 601_300.0), evals_differ=True) == "its evals differ from the run's, its run_stop 0.3 s " \
        "from the run's"
    evals = Evals()
    for number, value in enumerate((0.5, 0.6, 0.7)):
        evals.of_run(value, 10_000.0 * (number + 1))
    assert not evals.of_twin(0.5, 12_000.0, skew_ms=2_000.0) and not evals.differ  # (the same: a copy so far)
    assert not evals.of_twin(0.61, 22_000.0, skew_ms=2_000.0) and evals.differ  # (its own value, at the run's moment)
    assert evals.of_twin(0.72, 35_000.0, skew_ms=2_000.0)  # (another value, 3 s later than a copy's: another run)


def test_each_run_of_a_console_carries_the_note_of_its_own_start(tmp_path: Path) -> None:
    """Three runs one after the other: the second and the third each carry the MLC024 at their
    first line (was: both notes on the third, merged, "and 1 more ... at line N"; a review,
    session 44)."""
    runs = [_lines(f"result_{i}.txt") for i in range(3)]
    begin = [int(json.loads(lines[0].split(":::MLLOG", 1)[1])["time_ms"]) for lines in runs]
    ordered = [_shifted(lines, begin[0] - start + 3_600_000 * i) for i, (lines, start) in enumerate(zip(runs, begin))]
    result = check([str(_write(tmp_path / "three.log", [line for lines in ordered for line in lines]))])
    firsts = [r.run.first_line for r in result.runs]
    assert firsts == [1, len(ordered[0]) + 1, len(ordered[0]) + len(ordered[1]) + 1]
    assert [[f.line for f in r.findings if f.code == "MLC024"] for r in result.runs] == [[], firsts[1:2], firsts[2:]]


@pytest.mark.parametrize("first", [False, True], ids=["second-record", "first-record"])
def test_a_nan_init_start_time_is_judged_the_same_wherever_it_comes(first: bool, tmp_path: Path) -> None:
    """``init_start`` with ``time_ms`` NaN: MLC007, a warning (the official checker's
    min(9e99, nan) keeps 9e99 and passes), whether it is the first record or not (was: MLC405, an
    error, when it came first, as min() then kept the NaN; a review, session 44)."""
    lines = _lines("result_0.txt")
    at = _index(lines, "init_start")
    lines[at] = re.sub(r'"time_ms": \d+', '"time_ms": NaN', lines[at], count=1)
    if first:
        lines.insert(0, lines.pop(at))
    [run] = check([str(_write(tmp_path / "resnet" / "result_0.txt", lines))]).runs
    assert run.verdict == "pass" and "MLC405" not in {f.code for f in run.findings}
    assert "MLC007" in {f.code for f in run.findings}
