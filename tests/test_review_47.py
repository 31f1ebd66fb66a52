"""Defects left from session 46's reviews (session 47): a config file that is no file, the GitHub
annotation of a missing system description, a log listed newest first, and a CloudWatch export of
one stream per node."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from conftest import FIXTURES
from mlcheck import check
from mlcheck.cli import main
from mlcheck.report import ReportOptions
from mlcheck.report.github import render_github

ACME = FIXTURES / "example" / "Acme"
RESNET = ACME / "results" / "acme-t8" / "resnet"


def _records() -> list[str]:
    return [line for line in (RESNET / "result_0.txt").read_text("utf-8").splitlines() if ":::MLLOG" in line]


@pytest.mark.parametrize("kind", ["folder", "fifo", "dangling"])
def test_a_config_file_that_is_no_file_is_said_to_be_ignored(tmp_path: Path, kind: str) -> None:
    config = tmp_path / ".mlcheck.toml"
    if kind == "folder":
        config.mkdir()
    elif kind == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs on this system")
        os.mkfifo(config)
    else:
        config.symlink_to(tmp_path / "nowhere.toml")
    shutil.copy(RESNET / "result_0.txt", tmp_path)
    outcome = CliRunner().invoke(main, ["check", str(tmp_path / "result_0.txt"), "-f", "json"], env={"MLCHECK_CONFIG": ""})
    found = [f for f in json.loads(outcome.stdout)["findings"] if f["code"] == "MLC041"]
    what = {"folder": "a folder", "fifo": "a pipe", "dangling": f"a link to nothing ({tmp_path / 'nowhere.toml'})"}[kind]
    assert [(f["path"], f["message"]) for f in found] == [
        (str(config), f"the config file is {what}, not a file: it is ignored")]


def test_a_missing_system_description_is_annotated_on_the_systems_first_result_file(tmp_path: Path) -> None:
    root = tmp_path / "Acme"
    shutil.copytree(ACME, root)
    (root / "systems" / "acme-t8.json").unlink()
    result = check([str(root)])
    lines = [line for line in render_github(result, ReportOptions()).splitlines() if "MLC510" in line]
    assert len(lines) == 1
    assert lines[0].startswith(f"::error file={root / 'results' / 'acme-t8' / 'resnet' / 'result_0.txt'},"
                               "title=MLC510 system-description-missing::")
    assert lines[0].endswith(f"expected {root / 'systems' / 'acme-t8.json'} with the round's 33 fields")


def test_a_missing_file_of_no_benchmark_folder_is_still_annotated_without_a_file(tmp_path: Path) -> None:
    from mlcheck.model import Finding, Severity
    from mlcheck.results import CheckResult
    found = Finding("MLC510", "system-description-missing", Severity.ERROR, "no system", str(tmp_path / "systems" / "x.json"))
    (line,) = [x for x in render_github(CheckResult((), (), (found,)), ReportOptions()).splitlines() if "MLC510" in x]
    assert line.startswith("::error title=MLC510") and f"{tmp_path}/systems/x.json: no system" in line


def test_a_log_listed_newest_first_is_said_to_be_so(tmp_path: Path) -> None:
    entries = [{"textPayload": line, "timestamp": f"2024-01-01T00:{i // 60:02d}:{i % 60:02d}Z"}
               for i, line in enumerate(_records())]
    newest_first = tmp_path / "export.json"
    newest_first.write_text(json.dumps(entries[::-1], indent=2), "utf-8")
    found = [f for f in check([str(newest_first)]).all_findings() if f.code == "MLC404"]
    assert found and all("their times run the other way: the lines are listed newest first" in f.message
                         for f in found if "is logged before" in f.message)
    oldest_first = tmp_path / "asc.json"
    oldest_first.write_text(json.dumps(entries, indent=2), "utf-8")
    assert [f.code for f in check([str(oldest_first)]).all_findings() if f.severity.name != "INFO"] == []


def test_clock_keys_out_of_order_at_increasing_times_are_not_said_to_be_reversed(tmp_path: Path) -> None:
    lines = _records()
    at = {re.search(r'"key": "(\w+)"', line).group(1): n for n, line in enumerate(lines)}  # type: ignore[union-attr]
    lines[at["init_stop"]], lines[at["run_start"]] = lines[at["run_start"]], lines[at["init_stop"]]
    log = tmp_path / "result_0.txt"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    found = [f for f in check([str(log)]).all_findings() if f.code == "MLC404"]
    assert found and not any("newest first" in f.message for f in found)


@pytest.mark.parametrize("pretty", [True, False])
def test_a_cloudwatch_export_of_one_stream_per_node_keeps_one_nodes_records(tmp_path: Path, pretty: bool) -> None:
    events = []
    for n, line in enumerate(_records()):
        for node in (1, 2):
            shifted = re.sub(r'"time_ms": (\d+)', lambda m: f'"time_ms": {int(m.group(1)) + 3 * (node - 1)}', line)
            events.append({"logStreamName": f"mlperf/ip-10-0-0-{node}", "timestamp": 1700000000000 + n,
                           "message": shifted, "ingestionTime": 1700000000100 + n, "eventId": str(n)})
    export = tmp_path / "events.json"
    export.write_text(json.dumps({"events": events}, indent=4) if pretty else
                      "".join(json.dumps(event) + "\n" for event in events), "utf-8")
    result = check([str(export)])
    assert [f.code for f in result.all_findings() if f.severity.name != "INFO"] == []
    (read,) = [f for f in result.all_findings() if f.code == "MLC020"]
    assert "records kept from host 0 (303); 303 copies printed by 1 other rank dropped" in read.message


def test_the_markdown_notes_say_how_many_of_each_rule_the_rarer_first() -> None:
    from mlcheck.model import Finding, Severity
    from mlcheck.report.markdown import render_markdown
    from mlcheck.results import CheckResult
    found = [Finding("MLC020", "raw-output-read", Severity.INFO, f"raw {n}", f"a{n}/log.txt") for n in range(3)]
    found.append(Finding("MLC303", "run-aborted", Severity.INFO, "aborted", "z/result_0.txt", 7))
    text = render_markdown(CheckResult((), (), tuple(found)), ReportOptions())
    assert "<details><summary>4 notes (1 × MLC303 run-aborted, 3 × MLC020 raw-output-read)</summary>" in text
    listed = [line for line in text.splitlines() if line.startswith("- `")]
    assert [line.split("**")[1] for line in listed] == ["MLC303 run-aborted"] + ["MLC020 raw-output-read"] * 3


@pytest.mark.parametrize("name, form", [("report.json", "json"), ("mlcheck.sarif", "sarif"), ("x.sarif.json", "sarif"),
                                        ("junit.xml", "junit"), ("r.md", "markdown"), ("r.html", "html"),
                                        ("r.txt", "text"), ("C:/reports/r.json", "json")])
def test_an_output_named_without_its_format_takes_the_format_its_name_ends_in(name: str, form: str) -> None:
    from mlcheck.settings.gate import parse_output
    assert parse_output(name) == (form, name)
    assert parse_output(f"json:{name}") == ("json", name)


@pytest.mark.parametrize("spec", ["report.yaml", ".json", "-"])  # (sarif: names no file: test_review_56)
def test_an_output_whose_format_cannot_be_told_is_refused_with_both_spellings(spec: str) -> None:
    from mlcheck.settings.gate import parse_output
    with pytest.raises(ValueError, match=r"or a PATH ending in \.sarif, \.json, \.xml \(junit\)"):
        parse_output(spec)


# --- the environment a CI job gives mlcheck (review of session 47) ---

import errno  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

from conftest import SHARED  # noqa: E402

MLCHECK = [sys.executable, "-m", "mlcheck"]


def test_a_report_to_dev_stdout_is_written_to_standard_output_not_over_its_file(tmp_path: Path) -> None:
    log = tmp_path / "ci.log"
    log.write_text("OLD\n", "utf-8")
    with open(log, "a", encoding="utf-8") as out:
        done = subprocess.run(MLCHECK + ["check", str(ACME), "-o", "sarif:/dev/stdout"], stdout=out,
                              stderr=subprocess.STDOUT, check=False)
    text = log.read_text("utf-8")
    assert done.returncode == 0 and text.startswith("OLD\n{\n  \"$schema\"")
    assert text.rstrip().endswith("0 errors, 0 warnings")  # (the summary line, on stderr into the same file)
    with open(tmp_path / "r.json", "w", encoding="utf-8") as out:
        refused = subprocess.run(MLCHECK + ["check", str(ACME), "-f", "json", "-o", "sarif:/dev/stdout"], stdout=out,
                                 stderr=subprocess.PIPE, text=True, check=False)
    assert refused.returncode == 2 and "prints its report on standard output" in refused.stderr


def test_two_outputs_on_standard_output_are_refused_for_what_they_are() -> None:
    from mlcheck.cli.checking import _output_problem
    named: dict[str, str] = {}
    assert _output_problem("json:-", "auto", named) is None
    assert "both print their reports on standard output" in (_output_problem("sarif:-", "auto", named) or "")


def test_a_stream_written_to_its_file_directly_is_given_a_buffered_writer(tmp_path: Path) -> None:
    import io

    from mlcheck.cli.streams import buffered as _buffered
    raw = io.FileIO(tmp_path / "out", "w")
    unbuffered = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)  # (as PYTHONUNBUFFERED makes stdout)
    wrapped = _buffered(unbuffered)
    assert isinstance(wrapped.buffer, io.BufferedWriter) and wrapped.buffer.raw is raw  # type: ignore[attr-defined]
    wrapped.write("x" * 100_000)
    wrapped.flush()
    assert (tmp_path / "out").stat().st_size == 100_000
    buffered = io.TextIOWrapper(io.BufferedWriter(io.FileIO(tmp_path / "other", "w")), encoding="utf-8")
    assert _buffered(buffered) is buffered


def test_a_large_report_cut_by_its_reader_exits_2_under_pythonunbuffered() -> None:
    round_folder = SHARED / "other-submitters" / "training-5.0"
    if not round_folder.is_dir():
        pytest.skip(f"{round_folder} is not present (a report larger than a pipe's buffer is needed)")
    process = subprocess.Popen(MLCHECK + ["check", str(round_folder), "-f", "html"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=dict(os.environ, PYTHONUNBUFFERED="1"))
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.read(10) == b"<!DOCTYPE "
    process.stdout.close()
    error = process.stderr.read().decode()
    assert process.wait() == 2 and "cannot write the output: the reader of the pipe is gone" in error


def test_a_working_folder_removed_is_said_to_be_so(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    done = subprocess.run(["sh", "-c", f'cd "{gone}" && rmdir "{gone}" && exec "$0" -m mlcheck check "$1"',
                           sys.executable, str(ACME)], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "the working folder cannot be found" in done.stderr
    assert "cannot write the output" not in done.stderr


def test_too_many_open_files_is_said_with_the_limit_not_as_a_defect(monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    import mlcheck.cli.common as common

    def refused(*_args: object, **_kwargs: object) -> None:
        raise OSError(errno.EMFILE, "Too many open files", "/usr/lib/python3/pickle.py")

    monkeypatch.setattr(common, "check", refused)
    with pytest.raises(SystemExit) as ended:
        common.run_check([str(ACME)], None, jobs=8)
    error = capsys.readouterr().err
    assert ended.value.code == 2 and "Too many open files" in error and "--jobs 1, not 8" in error
    assert "internal error" not in error


def test_a_socket_named_to_be_checked_is_said_to_be_one(tmp_path: Path) -> None:
    if not hasattr(socket, "AF_UNIX"):
        pytest.skip("no Unix sockets here")
    path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        (found,) = check([str(path)]).all_findings()
    finally:
        server.close()
    assert (found.code, found.severity.name) == ("MLC015", "ERROR")
    assert found.message.startswith("this is a socket, not a log file: nothing was read from it")


def test_split_into_a_device_says_it_is_no_folder(tmp_path: Path) -> None:
    outcome = CliRunner().invoke(main, ["split", str(FIXTURES / "raw" / "mpi_ranks.log"), "-o", os.devnull])
    assert outcome.exit_code == 2 and f"cannot write into {os.devnull}: it is no folder" in outcome.stderr


def test_a_utf8_name_read_under_another_locale_is_shown_as_its_characters() -> None:
    from mlcheck.report.json_text import without_lone_surrogates
    from mlcheck.report.junit import xml_text
    from mlcheck.report.plain import printable
    kept = "Dé ll".encode("utf-8").decode("ascii", "surrogateescape")  # (as LC_ALL=C gives the name)
    assert printable(kept) == xml_text(kept) == "Dé ll"
    assert printable("x\udcff y") == "x\ufffd y" and printable("\ud800") == "\ufffd"
    assert without_lone_surrogates(json.dumps(kept)) == json.dumps("Dé ll")
    assert without_lone_surrogates(json.dumps("x\udcff")) == '"x\\ufffd"'
    assert without_lone_surrogates(json.dumps("a\\udcc3")) == json.dumps("a\\udcc3")  # (an escaped backslash)
    assert without_lone_surrogates(json.dumps("\U0001f680")) == json.dumps("\U0001f680")


def test_four_clock_records_listed_backwards_in_a_log_in_time_order_are_not_said_to_be_reversed(tmp_path: Path) -> None:
    lines = _records()
    clock = [n for n, line in enumerate(lines) if re.search(r'"key": "(init_start|init_stop|run_start|run_stop)"', line)]
    moved = [lines[n] for n in clock]
    for n, line in zip(clock, reversed(moved)):
        lines[n] = line
    log = tmp_path / "result_0.txt"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    found = [f for f in check([str(log)]).all_findings() if f.code == "MLC404"]
    assert found and not any("newest first" in f.message for f in found)
    log.write_text("\n".join(_records()[::-1]) + "\n", "utf-8")  # (tac: the whole log backwards)
    assert any("newest first" in f.message for f in check([str(log)]).all_findings() if f.code == "MLC404")


@pytest.mark.parametrize("spec, parsed", [("xml:r.xml", ("junit", "r.xml")), ("md:r.md", ("markdown", "r.md")),
                                          ("a/b:c/x.sarif", ("sarif", "a/b:c/x.sarif"))])
def test_an_output_format_may_be_named_by_its_suffix_and_a_colon_in_a_folder_is_a_path(
        spec: str, parsed: tuple[str, str]) -> None:
    from mlcheck.settings.gate import parse_output
    assert parse_output(spec) == parsed


@pytest.mark.parametrize("spec", ["josn:r.json", "auto:r.json"])
def test_an_unknown_format_before_a_colon_is_refused_not_taken_as_a_file_name(spec: str) -> None:
    from mlcheck.settings.gate import parse_output
    with pytest.raises(ValueError, match="--output takes FORMAT:PATH"):
        parse_output(spec)


def test_a_missing_power_folder_of_a_run_is_annotated_on_its_result_file(tmp_path: Path) -> None:
    from mlcheck.model import Finding, Severity
    from mlcheck.results import CheckResult
    bench = tmp_path / "bench"
    (bench / "power").mkdir(parents=True)
    (bench / "result_3.txt").write_text("", "utf-8")
    found = Finding("MLC540", "power-run-missing", Severity.WARNING, "no power measurements for result_3.txt",
                    str(bench / "power" / "result_3"))
    (line,) = [x for x in render_github(CheckResult((), (), (found,)), ReportOptions()).splitlines() if "MLC540" in x]
    assert line.startswith(f"::warning file={bench / 'result_3.txt'},title=MLC540")


def test_a_broken_mlcheck_toml_says_it_hides_the_pyproject_beside_it(tmp_path: Path) -> None:
    from mlcheck.settings.config_file import load_table
    config = tmp_path / ".mlcheck.toml"
    config.symlink_to(tmp_path / "gone.toml")
    (tmp_path / "pyproject.toml").write_text('[tool.mlcheck]\nstrict = true\n', "utf-8")
    problem = load_table(config, str(config))[2]
    assert problem is not None and problem.message.endswith(
        "and the pyproject.toml beside it, which holds [tool.mlcheck], is not read while it is there: remove it")


def test_the_json_results_table_writes_a_margin_that_overflowed_as_null(tmp_path: Path) -> None:
    from mlcheck.report.results_table import render_table_json
    root = tmp_path / "Acme"
    shutil.copytree(ACME, root)
    for log in (root / "results" / "acme-t8" / "resnet").glob("result_*.txt"):
        log.write_text(re.sub(r'("key": "eval_accuracy".*?"epoch_num": )[0-9.]+', r"\g<1>1e308",
                              log.read_text("utf-8")), "utf-8")
    table = json.loads(render_table_json(check([str(root)])))
    (cell,) = table["rows"][0]["results"].values()
    assert cell["rcp_margin_pct"] is None


def test_the_library_leaves_a_callers_frozen_objects_frozen() -> None:
    import gc
    import mlcheck
    held = [[n] for n in range(5000)]
    gc.freeze()
    try:
        before = gc.get_freeze_count()
        mlcheck.check(str(ACME))
        after = gc.get_freeze_count()
        assert after >= before // 2 and held, (before, after)  # (was 0; some frozen temporaries are freed)
    finally:
        gc.unfreeze()


def _rows_with_systems(tmp_path: Path, key: str, systems: dict[str, str]) -> tuple[dict[str, Any], list[Any]]:
    """The results table's rows of the example package with more systems, each a copy of its
    system with ``key`` set as ``systems`` says (folder -> value), and the example's description."""
    from mlcheck.report.table_rows import build_rows
    root = tmp_path / "Acme"
    shutil.copytree(ACME, root)
    description = json.loads((root / "systems" / "acme-t8.json").read_text("utf-8"))
    for folder, value in systems.items():
        shutil.copytree(root / "results" / "acme-t8", root / "results" / folder)
        (root / "systems" / f"{folder}.json").write_text(json.dumps(dict(description, **{key: value})), "utf-8")
    return description, build_rows(check([str(root)]))[1]


def test_the_results_table_orders_rows_by_system_name_and_nodes_as_the_summarizer(tmp_path: Path) -> None:
    from mlcheck.report.table_rows import availability
    description, rows = _rows_with_systems(tmp_path, "system_name", {"a-folder": "zeta system", "b-folder": "alpha system"})
    assert [row.system.split(" (")[0] for row in rows] == sorted([description["system_name"], "alpha system", "zeta system"])
    assert [row.system.split(" (")[1] for row in rows][1:] == ["b-folder)", "a-folder)"]  # (by name, not by folder)
    assert availability("Available in cloud") == "Available cloud"
    assert availability("available on premises") == "Available on-premise"


def test_sarif_fingerprints_outside_a_checkout_do_not_depend_on_the_working_folder(tmp_path: Path) -> None:
    from mlcheck.report.sarif import render_sarif
    root = tmp_path / "pkgs" / "Acme"
    shutil.copytree(ACME, root)
    (root / "results" / "acme-t8" / "resnet" / "result_4.txt").unlink()  # (MLC502: a finding to print)
    result = check([str(root)])
    (tmp_path / "a").mkdir()

    def prints(root: Path) -> list[str]:
        document = json.loads(render_sarif(result, ReportOptions(root=str(root))))
        return [r["partialFingerprints"]["mlcheck/v1"] for r in document["runs"][0]["results"]]

    assert prints(tmp_path / "a") == prints(root.parent) and prints(root.parent)


def test_rows_of_one_system_name_are_ordered_by_the_text_of_their_node_counts_as_the_summarizer(tmp_path: Path) -> None:
    description, rows = _rows_with_systems(tmp_path, "number_of_nodes", {"a-two": "2", "b-sixteen": "16"})
    assert [row.nodes for row in rows] == sorted([int(description["number_of_nodes"]), 2, 16], key=str)  # (16 before 2)
    assert [row.system.split(" (")[1] for row in rows][-2:] == ["b-sixteen)", "a-two)"]


def test_a_folder_rules_waiver_is_not_unused_in_a_check_of_one_file_of_the_folder(tmp_path: Path) -> None:
    from mlcheck.settings.waiver_table import Waiver
    from mlcheck.settings.waivers import apply_waivers
    root = tmp_path / "Acme"
    shutil.copytree(ACME, root)
    (root / "results" / "acme-t8" / "resnet" / "result_4.txt").unlink()
    waiver = Waiver("MLC502", "Acme/results/acme-t8/resnet/**", "approved", "pyproject.toml:7")
    log = root / "results" / "acme-t8" / "resnet" / "result_0.txt"
    one_file = apply_waivers(check([str(log)]), [waiver], str(tmp_path), checked=[str(log)])
    assert [f.code for f in one_file.findings if f.code == "MLC040"] == []
    folder = root / "results" / "acme-t8" / "resnet"
    whole = apply_waivers(check([str(folder)]), [waiver], str(tmp_path), checked=[str(folder)])
    assert [w.finding.code for w in whole.waived] == ["MLC502"] and not [f for f in whole.findings if f.code == "MLC040"]


def test_the_run_tables_legend_of_stars_is_left_out_where_no_run_is_counted(tmp_path: Path) -> None:
    from mlcheck.report import render
    lone = tmp_path / "result_0.txt"
    shutil.copy(RESNET / "result_0.txt", lone)  # (one run: no score, no run counted)
    assert "counted in the score" not in render("text", check([str(lone)]))
    assert "* = counted in the score" in render("text", check([str(ACME)]))
