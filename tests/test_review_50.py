"""Session 50's review of the rounds being prepared (6.0, 6.1): what a formula's message says, the
eval spacing's figures, the open division's rule file, the folders that name a round, a retired
benchmark's hint."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mlcheck import check
from mlcheck.facts.rulesets import ruleset_from_path
from tool_scripts import load_tool

ROOT = Path(__file__).resolve().parents[1]


def _log(tmp_path: Path, ruleset: str, benchmark: str, edit: dict[tuple[str, int], dict[str, object]]) -> Path:
    """The case generator's compliant log of ``benchmark``, each ``(key, n)`` (the n-th record of
    key) given the fields of ``edit`` (``metadata.X`` sets a metadata field; None drops it)."""
    gen, first = load_tool("make_later_cases"), load_tool("make_rule_cases")
    records = gen.base_records(ruleset, benchmark)
    for (key, n), fields in edit.items():
        record = [r for r in records if r.key == key][n]
        for name, value in fields.items():
            if name.startswith("metadata."):
                if value is None:
                    record.metadata.pop(name.removeprefix("metadata."))
                else:
                    record.metadata[name.removeprefix("metadata.")] = value
            else:
                setattr(record, name, value)
    path = tmp_path / "result_0.txt"
    path.write_text("\n".join(first.Case(ruleset, benchmark, "x", records).lines()) + "\n", "utf-8")
    return path


def _a_year_later(path: Path) -> Path:
    shifted = []
    for line in path.read_text("utf-8").splitlines():
        record = json.loads(line.split(":::MLLOG ", 1)[1])
        record["time_ms"] += 365 * 86_400_000
        shifted.append(":::MLLOG " + json.dumps(record))
    path.write_text("\n".join(shifted) + "\n", "utf-8")
    return path


def _messages(path: Path, code: str, ruleset: str) -> list[str]:
    return [f.message for f in check([str(path)], ruleset=ruleset).all_findings() if f.code == code]


@pytest.mark.parametrize("samples_count, head, says", [
    (688128, "eval_accuracy's samples_count is 688128; ", "the formula gives 704512, int(samples_count) is 688128"),
    (None, "eval_accuracy has no samples_count in its metadata; ",
     "the formula cannot be computed: no samples_count in the metadata ("),
    ("704512.0", "eval_accuracy's samples_count is '704512.0'; ",
     "int('704512.0') fails: the checker's int() reads a whole number or digits alone"),
])
def test_a_first_check_on_the_metadata_names_the_field_not_the_value(tmp_path: Path, samples_count: object,
                                                                      head: str, says: str) -> None:
    """6.1 DeepSeek's FIRST_CHECK reads the first eval's samples_count: the message began with the
    eval's loss (``eval_accuracy is 4.2``), called the logged count "computed" and showed Python's
    ``invalid literal for int()``."""
    path = _log(tmp_path, "6.1.0", "deepseekv3_671b", {("eval_accuracy", 0): {"metadata.samples_count": samples_count}})
    [message] = _messages(path, "MLC111", "6.1.0")
    assert message.startswith(head) and says in message and "; computed " not in message


def test_a_learning_rate_formula_says_what_it_gives_and_what_was_logged(tmp_path: Path) -> None:
    path = _log(tmp_path, "6.1.0", "deepseekv3_671b", {("opt_base_learning_rate", 0): {"value": 2.4002e-05}})
    [message] = _messages(path, "MLC202", "6.1.0")
    assert message.startswith("opt_base_learning_rate is 2.4002e-05; closed DeepSeek-V3 671B requires ")
    assert "; with global_batch_size 16384 (line " in message and ") the formula gives 2.4e-05, the value is 2.4002e-05 (" \
        in message


def test_an_eval_off_the_schedule_by_a_fraction_shows_rounded_figures(tmp_path: Path) -> None:
    path = _log(tmp_path, "6.1.0", "deepseekv3_671b", {("eval_accuracy", 0): {"metadata.samples_count": 704512.9},
                                                       ("eval_accuracy", 1): {"metadata.samples_count": 720896}})
    [message] = _messages(path, "MLC307", "6.1.0")
    assert "16,383.1 after the one before (704,512.9)" in message


def test_the_open_division_message_names_the_rounds_rule_file(tmp_path: Path) -> None:
    path = _log(tmp_path, "6.1.0", "llama31_8b", {("submission_division", 0): {"value": "open"}})
    [message] = _messages(path, "MLC306", "6.1.0")
    assert "(training_6.1.0/open_llama31_8b.yaml)" in message


@pytest.mark.parametrize("folder, version", [
    ("mlperf-6.1", "6.1.0"), ("training_results_v6.0_final", "6.0.0"), ("MLPerf_Training_v6.0", "6.0.0"),
    ("training-6.1-rc2", "6.1.0"), ("v2.0", "2.0.0"), ("training-1.1", "1.1.0"),
    ("mlperf", None), ("bert-v2.0", None), ("resnet_mlperf_1.0_x", None), ("training-6.1-old", None),
    ("inference_mlperf_v4.1", None), ("hpc_mlperf-3.0", None), ("mlperf_training_v5.1", "5.1.0"),
    ("training-2.0/G/results/ipu-pod16-popart-mlperf-2.1", "2.0.0"), ("training-2.0/mlperf-0.7", "2.0.0")])
def test_the_folders_that_name_a_round(folder: str, version: str | None) -> None:
    """(A system's folder ending in mlperf-2.1 named round 2.1 over training-2.0 above it; a folder
    of a round mlcheck does not know hid the one above it: review of session 50.)"""
    found = ruleset_from_path(f"/data/{folder}/Org/results/sys/bert/result_0.txt")
    assert (found.version if found is not None else None) == version


def test_a_retired_benchmark_dated_after_its_last_round_gets_no_earlier_round_hint(tmp_path: Path) -> None:
    """A retinanet run dated in 2026-08: 5.1 was its last round, published in 2025; "pass
    --ruleset 5.1.0" would send it to a round it cannot be submitted to."""
    path = _a_year_later(_log(tmp_path, "5.1.0", "retinanet", {}))
    [message] = _messages(path, "MLC011", "6.1.0")
    assert "It is a benchmark of training 5.1.0 and earlier rounds, published before the run's date (" in message
    assert "pass --ruleset" not in message
    (tmp_path / "near").mkdir()
    [near] = _messages(_log(tmp_path / "near", "5.1.0", "retinanet", {}), "MLC011", "6.1.0")
    assert "pass --ruleset 5.1.0 if the run is for it" in near  # (dated in the 5.1 period: the hint stands)


EXAMPLE = ROOT / "fixtures" / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"


def _codes_and_lines(path: Path) -> list[tuple[str, int | None, str]]:
    return sorted((f.code, f.line, f.severity.label) for f in check([str(path)]).all_findings())


@pytest.mark.parametrize("shape", ["final LF", "first line LF"])
def test_cr_line_ends_with_an_lf_keep_the_parsers_line_numbers(tmp_path: Path, shape: str) -> None:
    """A file of CR line ends read by the official parser's universal newlines: one LF at its end
    (or one LF-ended line first) put every finding at line 1 (review of session 50)."""
    lines = EXAMPLE.read_text("utf-8").splitlines()
    stop = next(i for i, line in enumerate(lines) if '"run_stop"' in line)
    lines[stop] = lines[stop].replace('"run_stop"', '"run_stopped"')  # (MLC102 at the last record's line)
    lf = tmp_path / "lf" / "result_0.txt"
    lf.parent.mkdir()
    lf.write_text("\n".join(lines) + "\n", "utf-8")
    cr = tmp_path / "cr" / "result_0.txt"
    cr.parent.mkdir()
    text = "\r".join(lines) + "\n" if shape == "final LF" else lines[0] + "\n" + "\r".join(lines[1:]) + "\r"
    cr.write_bytes(text.encode())
    expected = _codes_and_lines(lf)
    assert ("MLC102", len(lines), "error") in expected
    assert _codes_and_lines(cr) == expected


def test_a_progress_bars_crs_in_lf_ended_output_keep_their_physical_lines(tmp_path: Path) -> None:
    lines = EXAMPLE.read_text("utf-8").splitlines()
    stop = next(i for i, line in enumerate(lines) if '"run_stop"' in line)
    lines[stop] = lines[stop].replace('"run_stop"', '"run_stopped"')
    bar = "".join(f"\r{i:3d}% |{'#' * (i // 10):10s}|" for i in range(0, 101, 5))
    log = tmp_path / "console.log"
    log.write_text("\n".join([bar + " done"] * 3 + lines) + "\n", "utf-8")
    assert ("MLC102", 3 + len(lines), "error") in _codes_and_lines(log)


@pytest.mark.parametrize("key, value, codes", [
    ("init_start", "Infinity", [("MLC007", "warning")]), ("init_start", "NaN", [("MLC007", "warning")]),
    ("init_start", "1e300", [("MLC405", "warning")]), ("init_stop", "-Infinity", [("MLC007", "warning")]),
    ("cache_clear", "Infinity", [("MLC007", "warning")]), ("run_start", "NaN", [("MLC007", "error")]),
    ("run_stop", "1e300", [("MLC405", "error")])])
def test_a_time_no_clock_wrote_is_judged_alike_finite_or_not(tmp_path: Path, key: str, value: str,
                                                             codes: list[tuple[str, str]]) -> None:
    """One finding for one bad time (MLC007 for a time that is no finite number, MLC405 for one
    outside any plausible date), of the same severity: an error on run_start and run_stop (the
    time-to-train is computed from them), a warning on others (init's: the official checker
    compares them with its limit and passes these). Infinity was MLC007 and MLC405 at once; NaN
    and infinity on init_start passed where 1e300 failed (reviews of session 50)."""
    lines = EXAMPLE.read_text("utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if f'"key": "{key}"' in line)
    lines[at] = re.sub(r'"time_ms": \d+', f'"time_ms": {value}', lines[at])
    path = tmp_path / "result_0.txt"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    assert [(c, s) for c, _line, s in _codes_and_lines(path) if c in ("MLC007", "MLC405")] == codes
    assert check([str(path)]).runs[0].verdict == ("fail" if codes[0][1] == "error" else "pass")


@pytest.mark.parametrize("value", ["Infinity", "1e300"])
def test_an_eval_timed_by_no_clock_is_not_after_run_stop(tmp_path: Path, value: str) -> None:
    """MLC305 needs the eval's and run_stop's dates: a time outside them is MLC007's or MLC405's."""
    lines = EXAMPLE.read_text("utf-8").splitlines()
    last = max(i for i, line in enumerate(lines) if '"eval_accuracy"' in line)
    lines[last] = re.sub(r'"time_ms": \d+', f'"time_ms": {value}', lines[last])
    path = tmp_path / "result_0.txt"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    assert [(c, s) for c, _line, s in _codes_and_lines(path)] == [("MLC007" if value == "Infinity" else "MLC405", "warning")]


def test_a_cr_inside_a_record_says_the_official_parser_ends_the_line_there(tmp_path: Path) -> None:
    lines = EXAMPLE.read_text("utf-8").splitlines()
    stop = next(i for i, line in enumerate(lines) if '"run_stop"' in line)
    lines[stop] = lines[stop].replace('"status": "success"', '"status": "succ\ress"')
    path = tmp_path / "result_0.txt"
    path.write_bytes(("\n".join(lines) + "\n").encode())
    [message] = [f.message for f in check([str(path)]).all_findings() if f.code == "MLC003"]
    assert message.startswith("invalid JSON: Invalid control character at column ")
    assert "(a carriage return, CR: the official parser ends the line there, cutting the record)" in message


def test_records_a_progress_bar_clears_before_keep_their_physical_lines(tmp_path: Path) -> None:
    """``tqdm.write`` clears the bar with a CR before each record, which ends in an LF: more records
    after a CR than after an LF, but every record's line is an LF-ended physical line."""
    lines = EXAMPLE.read_text("utf-8").splitlines()
    stop = next(i for i, line in enumerate(lines) if '"run_stop"' in line)
    lines[stop] = lines[stop].replace('"run_stop"', '"run_stopped"')
    log = tmp_path / "console.log"
    log.write_text("".join(f" 50%|#####     |\r{' ' * 20}\r{line}\n" for line in lines), "utf-8")
    assert ("MLC102", len(lines), "error") in _codes_and_lines(log)


def test_records_after_long_progress_bars_keep_their_physical_lines(tmp_path: Path) -> None:
    """Bars of half a MiB each between LF-ended records: the file's first MiB holds two LFs and
    far more CRs; its records end in LFs, so its lines are the LF's (were renumbered: review)."""
    lines = EXAMPLE.read_text("utf-8").splitlines()
    stop = next(i for i, line in enumerate(lines) if '"run_stop"' in line)
    lines[stop] = lines[stop].replace('"run_stop"', '"run_stopped"')
    bar = "".join(f"\r{i % 100:3d}% |{'#' * (i % 10):10s}|" for i in range(30_000))
    log = tmp_path / "console.log"
    log.write_text("header\n" + "".join(f"{bar}\r{line}\n" for line in lines), "utf-8")
    assert ("MLC102", 1 + len(lines), "error") in _codes_and_lines(log)


def test_a_benchmark_of_the_newest_round_keeps_the_hint_whatever_its_date(tmp_path: Path) -> None:
    """(A llama31_8b run dated after 6.1's estimated publication was told 8B had been retired.)"""
    path = _a_year_later(_log(tmp_path, "6.1.0", "llama31_8b", {}))
    [message] = _messages(path, "MLC011", "5.0.0")
    assert "pass --ruleset 5.1.0 if the run is for it" in message and "later rounds have no" not in message


def test_an_eval_a_hair_off_the_schedule_shows_the_hair(tmp_path: Path) -> None:
    path = _log(tmp_path, "6.1.0", "deepseekv3_671b", {("eval_accuracy", 1): {"metadata.samples_count": 720896.0004}})
    [message] = _messages(path, "MLC307", "6.1.0")
    assert "eval 2 is at 720,896.0004 samples, 16,384.0004 after the one before (704,512)" in message


def test_no_open_eval_check_where_the_rounds_checker_has_no_open_file(tmp_path: Path) -> None:
    """3.0's checker has no open_gpt3.yaml: it stops on the file (MLC208), it never checks the evals."""
    path = _log(tmp_path, "3.0.0", "gpt3", {("submission_division", 0): {"value": "open"}})
    found = {f.code for f in check([str(path)], ruleset="3.0.0").all_findings()}
    assert "MLC208" in found and "MLC306" not in found


@pytest.mark.parametrize("args, code", [
    (["check", str(ROOT / "fixtures" / "example" / "Acme"), "--no-progress"], 0),
    (["check", str(ROOT / "fixtures" / "example" / "Acme"), "--format", "json"], 0),
    (["score", str(ROOT / "fixtures" / "example" / "Acme")], 0),
    (["check", "/nonexistent/mlcheck-review-50"], 2)])
def test_a_full_standard_error_changes_no_exit_code(args: list[str], code: int) -> None:
    """stderr holds notes beside the report (the summary, the progress): on a full disk they are
    lost and the exit code is the command's (was 2 when click flushed them, 120 when Python did)."""
    import subprocess
    import sys

    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-c", "from mlcheck.cli import run; run()", *args],
                              stdout=subprocess.PIPE, stderr=full, timeout=120, check=False)
    assert done.returncode == code
    assert done.stdout if code == 0 else True


def test_a_tables_width_without_rich_measuring_every_cell_draws_the_same_table() -> None:
    """The text report sized each folder's table for a pipe by rich's measure of every cell, a pass
    as long as drawing it; the width taken from its cells' lengths draws the same bytes."""
    import io

    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from mlcheck.report.text import _natural_width

    def drawn(table: Table, width: int) -> str:
        out = io.StringIO()
        Console(file=out, width=width, no_color=True, highlight=False, color_system=None, markup=False,
                emoji=False).print(table)
        return out.getvalue()

    for rows in ([], [("result_0.txt *", "12.50", "success", Text("pass", style="green"), "MLC020, MLC113")],
                 [("結果_1.txt", "—", "[bold]x[/]", Text("fail", style="red"), ""), ("r", "1", ":smile:", "", "x" * 90)]):
        table = Table(caption="closed, training 5.1.0; * = counted in the score", caption_justify="left")
        for name in ("run", "minutes", "status", "verdict", "findings"):
            table.add_column(name, overflow="fold" if name in ("run", "findings") else "ellipsis")
        for row in rows:
            table.add_row(*row)
        natural = _natural_width(table)
        measured = Console(width=100_000, markup=False, emoji=False).measure(table).maximum
        assert natural is not None and natural >= measured
        assert drawn(table, natural) == drawn(table, measured)
    tabbed = Table()
    tabbed.add_column("a")
    tabbed.add_row("a\tb")
    assert _natural_width(tabbed) is None  # (rich measures it)


def test_checks_in_threads_leave_the_collector_as_the_caller_had_it() -> None:
    """Each check kept its own ``gc.isenabled()``: one that began while another had paused the
    collector left it off (8 of 10 rounds of three staggered threads; review of session 50)."""
    import gc
    import threading
    import time

    import mlcheck

    was = gc.isenabled()
    try:
        for stagger in (0.0, 0.005, 0.01, 0.02):
            gc.enable()
            threads = [threading.Thread(target=mlcheck.check, args=(str(ROOT / "fixtures" / "example" / "Acme"),))
                       for _ in range(3)]
            for thread in threads:
                thread.start()
                time.sleep(stagger)
            for thread in threads:
                thread.join()
            assert gc.isenabled()
        gc.disable()
        mlcheck.check(str(ROOT / "fixtures" / "example" / "Acme"))
        assert not gc.isenabled()
    finally:
        gc.enable() if was else gc.disable()


def test_a_full_standard_error_in_ascii_changes_no_exit_code_either() -> None:
    """click writes to stderr's binary buffer where its encoding is not UTF-8: that bypassed the
    lossy stream (exit 2 for a check with findings, 1 for a usage error)."""
    import os
    import subprocess
    import sys

    for args, code in ((["check", str(ROOT / "fixtures" / "example" / "Acme")], 0), (["check", "--bogus"], 2)):
        with open("/dev/full", "w") as full:
            done = subprocess.run([sys.executable, "-c", "from mlcheck.cli import run; run()", *args],
                                  stdout=subprocess.PIPE, stderr=full, timeout=120, check=False,
                                  env={**os.environ, "PYTHONIOENCODING": "ascii"})
        assert done.returncode == code, args
