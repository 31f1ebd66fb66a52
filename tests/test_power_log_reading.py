"""A power log of clean record lines is decoded in one pass (mlcheck.package.power), with what the
line path gives: the same events, and as many problems as it makes MLC008 findings for records
whose metadata is not an object."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

import mlcheck.package.power as power
from conftest import SHARED
from mlcheck.package.power import read_power_log


def _record(time_ms: int, key: str, value: object, metadata: object = "", event: str = "POINT_IN_TIME") -> str:
    fields = {"namespace": "", "time_ms": time_ms, "event_type": event, "key": key, "value": value}
    if metadata is not _MISSING:
        fields["metadata"] = metadata
    return ":::MLLOG " + json.dumps(fields)


_MISSING = object()


def _log(lines: list[str], end: str = "\n") -> str:
    return "".join(line + end for line in lines)


def _readings(metadata: object = "") -> list[str]:
    return ([_record(1_000, "power_measurement_start", None, metadata, "INTERVAL_START")]
            + [_record(1_000 + 1_000 * i, "power_reading", 600 + i, metadata) for i in range(8)]
            + [_record(9_500, "train_samples", 5, metadata)]
            + [_record(10_000, "power_measurement_stop", None, metadata, "INTERVAL_END")])


CASES = {
    "empty metadata text, CRLF": _log(_readings(""), "\r\n"),
    "metadata objects": _log(_readings({"host": "node-1"})),
    "metadata of mixed types": _log(_readings("") + _readings({"a": 1}) + _readings(None)),
    "a blank line": _log(_readings("")[:3] + [""] + _readings("")[3:]),
    "no last line end": _log(_readings(""))[:-1],
    "a record missing metadata": _log(_readings("") + [_record(11_000, "power_reading", 1, _MISSING)]),
    "a malformed record": _log(_readings("") + [':::MLLOG {"key": "power_reading", "time_ms": 5,']),
    "a key that is not text": _log(_readings("") + [':::MLLOG {"key": 5, "time_ms": 5, "value": 1, "metadata": {}}']),
    "noise between records": _log(_readings("")[:4] + ["warning: fan speed"] + _readings("")[4:]),
    "a marker after text": _log(["+ echo " + _readings("")[0]] + _readings("")),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_power_log_reads_as_on_the_line_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    path = tmp_path / "node_0.txt"
    path.write_bytes(CASES[name].encode())
    quick = read_power_log(str(path))
    monkeypatch.setattr(power, "_clean_power_log", lambda _path: None)
    assert quick == read_power_log(str(path))


def test_clean_logs_take_the_one_pass_and_count_each_record_without_metadata(tmp_path: Path) -> None:
    path = tmp_path / "node_0.txt"
    path.write_bytes(CASES["metadata of mixed types"].encode())
    clean = power._clean_power_log(str(path))
    assert clean is not None
    assert clean.reading_problems == 22  # (11 records with "" and 11 with null)
    assert clean.first_problem is not None and clean.first_problem[1] == "MLC008"
    assert [event.key for event in clean.events].count("power_reading") == 24
    assert "train_samples" not in {event.key for event in clean.events}
    assert clean.events[0].line == 1 and clean.events[-1].line == 33
    for name in ("a blank line", "no last line end", "noise between records", "a marker after text"):
        path.write_bytes(CASES[name].encode())
        assert power._clean_power_log(str(path)) is None, name


def _scored_power_folder(tmp_path: Path, clean: bool = False) -> tuple[Path, Any]:
    """A copy of the first shared package with a benchmark folder whose power logs give a valid
    energy score for every run (``clean``: and no MLC543 finding), that folder, and its benchmark result."""
    from mlcheck import check

    for power_folder in sorted((SHARED / "other-submitters").glob("training-*/*/results/*/*/power")):
        if not list(power_folder.glob("*/node_*.txt")):
            continue
        org = power_folder.parents[3]
        package = tmp_path / org.parent.name / org.name
        shutil.copytree(org, package)
        folder = package / power_folder.parent.relative_to(org)
        (bench,) = check([str(folder)]).benchmarks
        if bench.energy is not None and bench.energy.valid and None not in bench.energy.run_joules and \
                not (clean and any(f.code == "MLC543" for f in bench.findings)):
            return folder, bench
        shutil.rmtree(package)
    pytest.skip("no package of ../shared/other-submitters has power logs that score (or it is not present)")


def _node_log(folder: Path, run: str) -> Path:
    node = sorted((folder / "power" / run).glob("node_*.txt"))[0]
    node.chmod(0o644)
    return node


@pytest.mark.parametrize("readings", [0, 9])
def test_a_node_log_with_too_few_readings_has_no_energy_score(tmp_path: Path, readings: int) -> None:
    """The power rules ask for at least 60 samples of each node; the summarizer would score such a
    log (0 J without readings): an MLC543 error, and the energy it would publish shown as not valid
    (a review of session 47: no energy at all hid the number the summarizer publishes)."""
    from mlcheck import check

    folder, before = _scored_power_folder(tmp_path)
    node = _node_log(folder, Path(before.runs[before.score.runs_counted[0]].path).stem)
    lines = node.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if '"power_reading"' not in line]
    kept[1:1] = [line for line in lines if '"power_reading"' in line][:readings]
    node.write_text("".join(kept), encoding="utf-8")
    result = check([str(folder)])
    (bench,) = result.benchmarks
    (invalid,) = [f for f in bench.findings if f.code == "MLC543" and f.path == str(node)
                  and f.severity.label == "error"]
    assert f"{readings} power_reading record(s)" in invalid.message
    assert bench.energy is not None and bench.energy.joules is not None and not bench.energy.valid
    assert bench.energy.reason.endswith(f"; not valid: the power logs of {node.parent.name} hold fewer than 60 "
                                        "readings (MLC543)")
    from mlcheck.report.results_table import table_dict
    (row,) = table_dict(result)["rows"]
    (cell,) = row["results"].values()
    assert cell["energy_valid"] is False and cell["energy_joules"] == bench.energy.joules
    assert row["status"].endswith("energy not valid") or (bench.score.valid and row["status"] == "energy not valid")


def test_readings_outside_the_measurement_window_are_no_samples(tmp_path: Path) -> None:
    """Start and stop swapped: every reading lies outside the window, the summarizer counts 0 J for
    the run: 0 samples, MLC543 (review of session 41: counted as samples, a valid energy)."""
    from mlcheck import check

    folder, before = _scored_power_folder(tmp_path)
    node = _node_log(folder, Path(before.runs[before.score.runs_counted[0]].path).stem)
    text = node.read_text(encoding="utf-8")
    start = json.loads(next(line for line in text.splitlines() if '"power_measurement_start"' in line).split(" ", 1)[1])
    stop = json.loads(next(line for line in text.splitlines() if '"power_measurement_stop"' in line).split(" ", 1)[1])
    text = text.replace(f'"time_ms": {start["time_ms"]}, "event_type": "INTERVAL_START"', "@START@")
    text = text.replace(f'"time_ms": {stop["time_ms"]}, "event_type": "INTERVAL_END"',
                        f'"time_ms": {start["time_ms"]}, "event_type": "INTERVAL_END"')
    node.write_text(text.replace("@START@", f'"time_ms": {stop["time_ms"]}, "event_type": "INTERVAL_START"'),
                    encoding="utf-8")
    (bench,) = check([str(folder)]).benchmarks
    assert [f.message.split(":")[0] for f in bench.findings if f.code == "MLC543" and f.path == str(node)
            and f.severity.label == "error"] == [
        "0 power_reading record(s) in the measurement window"]
    assert bench.energy is not None and not bench.energy.valid
    (implausible,) = [f for f in bench.findings if f.code == "MLC545" and f.path == str(node)]
    said = " ".join((implausible.message,) + implausible.items)  # (with the records out of time order)
    assert "power_measurement_stop is" in said and "before power_measurement_start: no reading lies in the window" in said


def test_a_gzip_node_log_has_no_energy_score(tmp_path: Path) -> None:
    """The summarizer reads a node log as text: gzip holds no record for it and it raises (mlcheck's
    reader would decompress it): an MLC543 error and no energy score."""
    import gzip

    from mlcheck import check

    folder, before = _scored_power_folder(tmp_path)
    node = _node_log(folder, Path(before.runs[before.score.runs_counted[0]].path).stem)
    node.write_bytes(gzip.compress(node.read_bytes()))
    (bench,) = check([str(folder)]).benchmarks
    (invalid,) = [f for f in bench.findings if f.code == "MLC543" and f.path == str(node)]
    assert invalid.severity.label == "error" and "gzip-compressed" in invalid.message
    assert bench.energy is not None and bench.energy.joules is None


@pytest.mark.parametrize("encoding", ["UTF-16", "UTF-32"])
def test_a_utf16_node_log_is_said_to_be_utf16(tmp_path: Path, encoding: str) -> None:
    """The summarizer reads a node log as latin-1: UTF-16 (or UTF-32) text holds no record for it
    (an MLC543 error, no energy score), and the warning says why and names the encoding (it said
    "not valid UTF-8", session 36; UTF-32 was named UTF-16)."""
    from mlcheck import check

    folder, before = _scored_power_folder(tmp_path)
    node = _node_log(folder, Path(before.runs[before.score.runs_counted[0]].path).stem)
    node.write_bytes(node.read_text(encoding="utf-8").encode(encoding.lower()))
    (bench,) = check([str(folder)]).benchmarks
    found = sorted((f.severity.label, f.line, f.message) for f in bench.findings if f.code == "MLC543" and f.path == str(node))
    assert [(label, line) for label, line, _ in found] == [("error", None), ("warning", 1)]
    assert "no power_measurement_start record" in found[0][2]
    assert found[1][2].startswith(f"the log is {encoding}") and f"iconv -f {encoding} -t UTF-8" in found[1][2]
    assert bench.energy is not None and bench.energy.joules is None


def test_a_dropped_runs_power_log_is_read_as_the_summarizer_reads_it(tmp_path: Path) -> None:
    """The summarizer scores the power logs of every converged run before the olympic mean drops
    the fastest and the slowest: a log it cannot score fails the energy even for a dropped run. It
    raises outside any ``try``, so it publishes no result of the package: the time score is not
    valid either (rv261, session 57)."""
    from mlcheck import check

    folder, before = _scored_power_folder(tmp_path)
    dropped = Path(before.runs[before.score.runs_dropped[0]].path).stem
    node = _node_log(folder, dropped)
    node.write_text("".join(line for line in node.read_text(encoding="utf-8").splitlines(keepends=True)
                            if '"power_measurement_start"' not in line), encoding="utf-8")
    (after,) = check([str(folder)]).benchmarks
    assert not after.score.valid and after.score.score_min == before.score.score_min
    assert "the result summarizer stops on its power logs (MLC543)" in after.score.reason
    assert after.energy is not None and after.energy.joules is None and after.energy.stops_summarizer
    assert f"the power logs of {dropped} (a run the time score drops" in after.energy.reason


def _status(result_file: Path, status: str) -> None:
    text = result_file.read_text(encoding="utf-8")
    assert '"status": "success"' in text
    result_file.write_text(text.replace('"status": "success"', f'"status": "{status}"'), encoding="utf-8")


def test_the_power_logs_of_a_run_the_checker_passes_are_read_whatever_its_status(tmp_path: Path) -> None:
    """The summarizer times (and reads the power logs of) every run its compliance check passes;
    that check reads no status: an aborted run without node logs stops it (AssertionError), so
    there is no energy score and ``score`` exits 1."""
    from cli_helpers import run_cli
    from mlcheck import check

    folder, before = _scored_power_folder(tmp_path)
    dropped = Path(before.runs[before.score.runs_dropped[0]].path)
    _status(dropped, "aborted")
    shutil.rmtree(folder / "power" / dropped.stem)
    (after,) = check([str(folder)]).benchmarks
    assert after.energy is not None and after.energy.joules is None
    (missing,) = [f for f in after.findings if f.code == "MLC543" and f.severity.label == "error"]
    assert f"no power/{dropped.stem}/ folder" in missing.message
    scored = run_cli("score", str(folder))
    assert scored.exit_code == 1 and "mlcheck: invalid: " in scored.stderr and "MLC543" in scored.stderr


def test_the_power_logs_of_a_run_the_checker_fails_are_not_read(tmp_path: Path) -> None:
    """A run the compliance check fails is skipped by the summarizer before its power logs: none
    missing matters, and the energy of the counted runs stands."""
    from mlcheck import check

    folder, before = _scored_power_folder(tmp_path)
    failed = Path(before.runs[before.score.runs_dropped[0]].path)
    lines = failed.read_text(encoding="utf-8").splitlines(keepends=True)  # (no init_stop: the checker fails it)
    failed.write_text("".join(line for line in lines if '"key": "init_stop"' not in line), encoding="utf-8")
    shutil.rmtree(folder / "power" / failed.stem)
    (after,) = check([str(folder)]).benchmarks
    (run,) = [r for r in after.runs if r.path == str(failed)]
    assert run.official_verdict == "fail"
    assert not [f for f in after.findings if f.code == "MLC543" and f.severity.label == "error"]
    assert after.energy is not None and after.energy.joules is not None


def test_readings_in_kilowatts_and_a_short_window_are_warned_of(tmp_path: Path) -> None:
    """The summarizer scores a node log of kilowatts as watts, and scales a window of a minute to
    the whole run: MLC545 warnings (mlcheck's own), the energy as the summarizer computes it."""
    from mlcheck import check

    folder, before = _scored_power_folder(tmp_path)
    assert not [f for f in before.findings if f.code == "MLC545"]
    run = Path(before.runs[before.score.runs_counted[0]].path).stem
    node = _node_log(folder, run)
    lines = []
    for line in node.read_text(encoding="utf-8").splitlines(keepends=True):
        if '"power_reading"' in line:
            record = json.loads(line[line.index("{"):])
            record["value"] = record["value"] / 1000
            line = line[:line.index("{")] + json.dumps(record) + "\n"
        lines.append(line)
    node.write_text("".join(lines), encoding="utf-8")
    (after,) = check([str(folder)]).benchmarks
    (warned,) = [f for f in after.findings if f.code == "MLC545"]
    assert warned.severity.label == "warning" and warned.path == str(node) and "kilowatts logged as watts" in warned.message
    assert after.energy is not None and after.energy.valid


def test_implausible_power_logs_say_what_is_unlikely() -> None:
    from mlcheck.model import Event
    from mlcheck.rules.power_plausibility import implausible_node_log

    run_start = 1.7e12

    def log(start: float, readings: list[float], stop: float) -> list[Event]:
        events = [Event("power_measurement_start", None, {}, start, 1)]
        events += [Event("power_reading", watts, {}, start + (stop - start) * (i + 1) / (len(readings) + 1), i + 2)
                   for i, watts in enumerate(readings)]  # (readings across the window)
        return events + [Event("power_measurement_stop", None, {}, stop, len(readings) + 2)]

    assert implausible_node_log("n", log(run_start - 1000, [5000.0] * 60, run_start + 600_000), run_start, 590_000) == []
    said = {f.line: f.message for f in implausible_node_log("n", log(run_start, [-3.0] + [5000.0] * 59, run_start + 60_000),
                                                            run_start, 600_000)}
    assert said[2] == "1 power_reading value(s) below 0 W"
    assert "lasts 60 s, 10% of the run's 600 s" in said[1]  # (at the start's line)
    [far] = implausible_node_log("n", log(run_start - 2 * 86_400_000, [5000.0] * 60, run_start + 1), run_start, 1.0)
    assert "48 hours before the run's run_start" in far.message
    [seconds] = implausible_node_log("n", log(1.7e9, [5000.0] * 60, 1.7e9 + 61_000), run_start, 61_000.0)
    assert "no date in milliseconds (seconds logged?)" in seconds.message
    # a window as long as the run but an hour late (the analyzer's clock): the energy of another time
    [late] = implausible_node_log("n", log(run_start + 3_600_000, [5000.0] * 60, run_start + 4_200_000), run_start,
                                  600_000)
    assert late.message.startswith("the measurement window covers 0% of the run (it begins 60 min after run_start, "
                                   "ends 60 min after run_stop)")
    # a few seconds off either way is the clocks of two machines: nothing said
    assert implausible_node_log("n", log(run_start + 5_000, [5000.0] * 60, run_start + 607_000), run_start,
                                600_000) == []


def test_a_nan_reading_spoils_the_energy_only_where_the_run_is_counted(tmp_path: Path) -> None:
    """The summarizer multiplies a NaN reading as any number: no exception (was: MLC543 "the
    summarizer raises"). A dropped run's NaN energy leaves the folder's energy as it was (a
    warning at the log); a counted run's makes it NaN: an MLC543 error and no energy score."""
    import re

    from mlcheck import check

    folder, before = _scored_power_folder(tmp_path)
    for which in ("dropped", "counted"):
        run = before.score.runs_dropped[0] if which == "dropped" else before.score.runs_counted[0]
        node = _node_log(folder, Path(before.runs[run].path).stem)
        text = node.read_text(encoding="utf-8")
        at = text.index('"power_reading"')
        node.write_text(text[:at] + re.sub(r'"value": [-0-9.eE+]+', '"value": NaN', text[at:], count=1),
                        encoding="utf-8")
        (after,) = check([str(folder)]).benchmarks
        assert after.energy is not None
        warned = [f for f in after.findings if f.code == "MLC543" and f.path == str(node) and f.severity.label != "info"]
        assert [f.severity.label for f in warned] == ["warning"] and "NaN or Infinity" in warned[0].message
        assert warned[0].line == 2  # (the reading's line)
        errors = [f for f in after.findings if f.code == "MLC543" and f.severity.label == "error"]
        if which == "dropped":
            assert after.energy.joules == before.energy.joules and not errors
        else:
            assert after.energy.joules is None and [f.path for f in errors] == [str(folder / "power")]
    from mlcheck.report.json_report import render_json  # (NaN is no JSON number: the run has no energy there)
    energy = json.loads(render_json(check([str(folder)])))["benchmarks"][0]["energy"]
    assert energy["joules"] is None and energy["run_joules"].count(None) == 2


def test_a_power_run_that_is_a_file_makes_the_checker_crash(tmp_path: Path) -> None:
    """``power/result_N`` a file: the power checker's ``exists()`` holds and its ``os.listdir``
    raises, so the package is refused (5.0+); it was "missing, tolerated" (a review, session 35)."""
    from mlcheck import check

    folders = sorted((SHARED / "other-submitters").glob("training-5.*/*/results/*/*/power"))
    if not folders:
        pytest.skip("no 5.0+ power folder in ../shared/other-submitters (or it is not present)")
    org = folders[0].parents[3]
    package = tmp_path / org.name
    shutil.copytree(org, package)
    folder = package / folders[0].parent.relative_to(org)
    run = sorted(p for p in (folder / "power").iterdir() if p.is_dir())[0]
    shutil.rmtree(run)
    run.write_text("x\n", encoding="utf-8")
    (bench,) = check([str(folder)]).benchmarks
    (crash,) = [f for f in bench.findings if f.code == "MLC540"]
    assert crash.severity.label == "error" and crash.path == str(run)
    assert f"power/{run.name} cannot be listed (Not a directory): the power checker crashes" in crash.message
    assert not bench.score.valid and "crashes listing a power/<result>" in bench.score.reason


def test_a_lone_node_log_without_an_index_is_told_its_one_name() -> None:
    """``node_a.txt`` alone: "Rename it node_0.txt" (was "node_0.txt to node_0.txt"; a review, session 35)."""
    from mlcheck.package.power import PowerFile, PowerFolder, PowerRun
    from mlcheck.rules.power import check_power_folder

    run = PowerRun("result_0", "/p/power/result_0", (PowerFile("/p/power/result_0/node_a.txt", "node", None, True),))
    found, bad = check_power_folder(PowerFolder("/p/power", (run,)), True, "5.0.0")
    (crash,) = [f for f in found if f.code == "MLC541"]
    assert crash.message.endswith("Rename it node_0.txt") and bad == {"result_0"}


def test_a_power_folder_without_any_runs_folder_is_a_crash_of_the_package_checker(tmp_path: Path) -> None:
    """An empty power/ under a round that checks power folders (5.0+): the power checker's max() of
    an empty list raises, and the folder's score says so (it said '10 result files do not comply')."""
    from mlcheck import check

    found = sorted((SHARED / "other-submitters").glob("training-5.*/*/results/*/*/power"))
    if not found:
        pytest.skip("../shared/other-submitters holds no 5.x power folder (or it is not present)")
    org = found[0].parents[3]
    package = tmp_path / org.parent.name / org.name
    shutil.copytree(org, package)
    folder = package / found[0].parent.relative_to(org)
    shutil.rmtree(folder / "power")
    (folder / "power").mkdir()
    (bench,) = check([str(folder)]).benchmarks
    assert not bench.score.valid and "the package checker crashes on a power/ that holds no run's folder" in bench.score.reason


def test_a_copy_of_power_logs_beside_the_runs_is_no_run(tmp_path: Path) -> None:
    """A ``power_raw/`` copy of ``power/`` in a benchmark folder: its node logs are no training runs
    (review of session 41: 10 failing runs 'the official checker agrees' on a package both official
    tools pass); a training log in another folder there is still judged (MLC508)."""
    from mlcheck import check

    package = tmp_path / "Acme"
    shutil.copytree(Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme", package)
    folder = package / "results" / "acme-t8" / "resnet"
    (folder / "power_raw" / "result_0").mkdir(parents=True)
    (folder / "power_raw" / "result_0" / "node_0.txt").write_text(_log(_readings()), "utf-8")
    result = check([str(package)])
    assert len(result.runs) == 5 and not any(r.verdict == "fail" for r in result.runs)
    (folder / "old").mkdir()
    shutil.copy(folder / "result_0.txt", folder / "old" / "result_0.txt")
    assert len(check([str(package)]).runs) == 6
    # (a training log that begins with power records is a log all the same: only node_/sw_ files are skipped)
    (folder / "old" / "result_1.txt").write_text(_log(_readings()) + (folder / "result_1.txt").read_text(), "utf-8")
    assert len(check([str(package)]).runs) == 7


def test_an_efficiency_in_percent_is_implausible() -> None:
    from mlcheck.model import Event
    from mlcheck.rules.power_plausibility import implausible_node_log

    events = [Event(key="power_measurement_start", value=None, time_ms=1.7e12, line=1, metadata={}),
              Event(key="conversion_eff", value=94, time_ms=1.7e12, line=2, metadata={}),
              *[Event(key="power_reading", value=600.0, time_ms=1.7e12 + 1000 * i, line=3 + i, metadata={})
                for i in range(60)],
              Event(key="power_measurement_stop", value=None, time_ms=1.7e12 + 60_000, line=70, metadata={})]
    [found] = implausible_node_log("node_0.txt", events, 1.7e12, 60_000)
    assert found.line == 2 and found.message.startswith("conversion_eff is 94, no efficiency between 0 and 1")


def test_a_tie_between_a_counted_and_a_dropped_run_says_the_energy_may_differ(tmp_path: Path) -> None:
    """Runs of equal times: mlcheck counts them in file-name order, the summarizer in its glob's
    (the folder's order on disk), so the published energy may average the other run's (a review
    of session 42: 5,664.6 kJ against the summarizer's 5,665.2 kJ). MLC544 names both runs."""
    from mlcheck import check

    folder, before = _scored_power_folder(tmp_path)
    fastest_dropped = min(before.score.runs_dropped, key=lambda i: before.runs[i].duration_ms)
    fastest_counted = min(before.score.runs_counted, key=lambda i: before.runs[i].duration_ms)
    path = Path(before.runs[fastest_dropped].path)
    lines = path.read_text(encoding="latin-1").splitlines(keepends=True)
    start = next(json.loads(line.split(":::MLLOG", 1)[1]) for line in lines if '"run_start"' in line)["time_ms"]
    for number, line in enumerate(lines):
        if '"run_stop"' in line:
            record = json.loads(line.split(":::MLLOG", 1)[1])
            record["time_ms"] = start + before.runs[fastest_counted].duration_ms
            lines[number] = line.split(":::MLLOG", 1)[0] + ":::MLLOG " + json.dumps(record) + "\n"
    path.chmod(0o644)
    path.write_text("".join(lines), encoding="latin-1")
    (after,) = check([str(folder)]).benchmarks
    (energy,) = [f for f in after.findings if f.code == "MLC544"]
    names = sorted(Path(before.runs[i].path).stem for i in (fastest_dropped, fastest_counted))
    assert "take the same time" in energy.message and all(name in energy.message for name in names)
    assert "the energy it publishes may count" in energy.message
    assert after.energy is not None and after.energy.valid
    (untouched,) = [f for f in before.findings if f.code == "MLC544"]
    assert "take the same time" not in untouched.message


def test_of_two_records_on_one_line_only_the_last_counts_as_the_summarizers_parser_reads_it(tmp_path: Path) -> None:
    """The official parser reads a line from its last marker on: a reading glued before another is
    not counted (a review of session 47: mlcheck counted both, 6 J off the summarizer's energy)."""
    from mlcheck import check

    folder, before = _scored_power_folder(tmp_path, clean=True)
    node = _node_log(folder, Path(before.runs[before.score.runs_counted[0]].path).stem)
    lines = node.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(n for n, line in enumerate(lines) if '"power_reading"' in line and n > 5)
    glued = lines[:at] + [lines[at].rstrip("\n") + " " + lines[at + 1]] + lines[at + 2:]
    node.write_text("".join(glued), encoding="utf-8")
    (joined,) = check([str(folder)]).benchmarks
    node.write_text("".join(lines[:at] + lines[at + 1:]), encoding="utf-8")  # (the first of the two taken out)
    (without,) = check([str(folder)]).benchmarks
    assert joined.energy is not None and without.energy is not None
    assert joined.energy.joules == without.energy.joules != before.energy.joules
    (shape,) = [f for f in joined.findings if f.code == "MLC543" and f.path == str(node)]
    assert shape.line == at + 1 and "reads only the last record of such a line" in shape.message


def test_a_reading_that_is_no_number_is_said_at_its_line(tmp_path: Path) -> None:
    from mlcheck import check

    folder, before = _scored_power_folder(tmp_path)
    node = _node_log(folder, Path(before.runs[before.score.runs_counted[0]].path).stem)
    lines = node.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(n for n, line in enumerate(lines) if '"power_reading"' in line and n > 5)
    lines[at] = re.sub(r'"value": [-0-9.eE+]+', '"value": null', lines[at], count=1)
    node.write_text("".join(lines), encoding="utf-8")
    (bench,) = check([str(folder)]).benchmarks
    (error,) = [f for f in bench.findings if f.code == "MLC543" and f.path == str(node) and f.severity.label == "error"]
    assert error.line == at + 1 and error.message.startswith(f"line {at + 1}: power_reading None is not a number")


def test_a_node_log_copied_in_a_run_is_said_to_count_that_node_twice(tmp_path: Path) -> None:
    from mlcheck import check

    folder, before = _scored_power_folder(tmp_path)
    node = _node_log(folder, Path(before.runs[before.score.runs_counted[0]].path).stem)
    copy = node.parent / f"node_{1 + max(int(p.stem.split('_')[1]) for p in node.parent.glob('node_*.txt'))}.txt"
    shutil.copy(node, copy)
    (bench,) = check([str(folder)]).benchmarks
    (twin,) = [f for f in bench.findings if f.code == "MLC545" and f.path == str(copy)]
    assert twin.severity.label == "warning" and f"byte for byte {node.name}" in twin.message
    assert bench.energy is not None and bench.energy.joules is not None and before.energy.joules is not None
    assert bench.energy.joules > before.energy.joules  # (counted twice, as the summarizer counts it)


def test_a_power_log_named_alone_is_checked_with_its_benchmark_folder(tmp_path: Path) -> None:
    """A review of session 47: `check power/result_0/node_0.txt` read it as a training log (four
    errors), `--whole-folder` found no log in power/result_0/, and the pre-commit hook never ran
    for a changed power log."""
    import yaml

    from mlcheck import check
    from mlcheck.settings.gate import benchmark_folders

    folder, before = _scored_power_folder(tmp_path)
    node = _node_log(folder, Path(before.runs[0].path).stem)
    result = check([str(node)])
    (bench,) = result.benchmarks
    assert bench.folder == str(folder) and bench.energy is not None and bench.energy.joules == before.energy.joules
    (note,) = [f for f in result.all_findings() if f.path == str(node) and f.code == "MLC544"]
    assert note.severity.label == "info" and note.message.startswith(
        f"power measurements, checked with the benchmark folder they measure, {folder}")
    for named in (folder / "power", node.parent):  # (the power folder, a run's)
        (bench,) = check([str(named)]).benchmarks
        assert bench.folder == str(folder) and bench.energy is not None and bench.energy.joules == before.energy.joules
    link = tmp_path / "link"
    link.symlink_to(node.parent, target_is_directory=True)
    (bench,) = check([str(link / node.name)]).benchmarks
    assert bench.folder == str(folder)
    loose = tmp_path / "loose" / "power" / "result_0"
    loose.mkdir(parents=True)
    shutil.copy(node, loose / "node_0.txt")
    (alone,) = check([str(loose / "node_0.txt")]).all_findings()
    assert (alone.code, alone.severity.label) == ("MLC543", "warning") and alone.message.startswith(
        "a power log outside a benchmark folder's power/result_<i>/: it measures no run here")
    assert benchmark_folders([str(node), str(folder / "result_0.txt")]) == [str(folder)]
    hooks = yaml.safe_load((Path(__file__).resolve().parent.parent / ".pre-commit-hooks.yaml").read_text("utf-8"))
    pattern = re.compile(next(h for h in hooks if h["id"] == "mlcheck-results")["files"])
    relative = node.relative_to(tmp_path).as_posix()
    assert pattern.search(relative) and pattern.search("x/results/s/bert/result_3.txt")
    assert pattern.search("x/results/s/gnn/result_5759-240517075402311260012_2.txt")  # (rv240: a later round's tools' name)
    assert not pattern.search("x/results/s/bert/power/result_0/notes.txt")


def test_records_out_of_time_order_are_said_and_scored_sorted_as_the_summarizer_sorts_them(tmp_path: Path) -> None:
    from mlcheck import check

    folder, before = _scored_power_folder(tmp_path, clean=True)
    node = _node_log(folder, Path(before.runs[before.score.runs_counted[0]].path).stem)
    lines = node.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(n for n, line in enumerate(lines) if '"power_reading"' in line and n > 5)
    lines[at], lines[at + 1] = lines[at + 1], lines[at]
    node.write_text("".join(lines), encoding="utf-8")
    (bench,) = check([str(folder)]).benchmarks
    (order,) = [f for f in bench.findings if f.code == "MLC545" and f.path == str(node)]
    assert order.line == at + 2 and order.message.startswith("the records are not in time order (power_reading here")
    assert bench.energy is not None and bench.energy.joules == before.energy.joules


def test_power_logs_whose_metadata_is_no_object_are_a_note_the_summarizer_scores_them_as_any() -> None:
    from mlcheck import check

    folders = sorted((SHARED / "other-submitters").glob("training-4.0/*/results/*/*/power"))
    if not folders:
        pytest.skip("no 4.0 power folder in ../shared/other-submitters (or it is not present)")
    (bench,) = check([str(folders[0].parent)]).benchmarks
    shapes = [f for f in bench.findings if f.code == "MLC543"]
    assert shapes and all(f.severity.label == "info" and "(MLC008:" in f.message for f in shapes)
    assert bench.energy is not None and bench.energy.valid


def test_runs_measuring_another_number_of_nodes_than_the_system_has_are_said(tmp_path: Path) -> None:
    from mlcheck import check

    folder, before = _scored_power_folder(tmp_path)
    assert not [f for f in before.findings if f.code == "MLC545"]
    system = folder.parents[2] / "systems" / f"{folder.parent.name}.json"
    data = json.loads(system.read_text("utf-8"))
    data["number_of_nodes"] = str(int(data["number_of_nodes"]) + 1)
    system.chmod(0o644)
    system.write_text(json.dumps(data, indent=4), "utf-8")
    (bench,) = check([str(folder)]).benchmarks
    (unmeasured,) = [f for f in bench.findings if f.code == "MLC545"]
    assert unmeasured.path == str(folder / "power") and unmeasured.severity.label == "warning"
    assert f"another number of node logs than the {data['number_of_nodes']} node(s) of {system}" in unmeasured.message


def test_a_short_node_log_of_a_run_the_score_drops_is_a_warning_and_the_energy_stands(tmp_path: Path) -> None:
    from mlcheck import check

    folder, before = _scored_power_folder(tmp_path)
    node = _node_log(folder, Path(before.runs[before.score.runs_dropped[0]].path).stem)
    lines = node.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if '"power_reading"' not in line]
    kept[1:1] = [line for line in lines if '"power_reading"' in line][:10]
    node.write_text("".join(kept), encoding="utf-8")
    (bench,) = check([str(folder)]).benchmarks
    (short,) = [f for f in bench.findings if f.code == "MLC543" and f.path == str(node) and f.severity.label != "info"]
    assert short.severity.label == "warning" and "a run the energy score does not count" in short.message
    assert bench.energy is not None and bench.energy.valid and bench.energy.joules == before.energy.joules
