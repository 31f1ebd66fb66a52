"""Scoring and RCP defects found by the third user review: runs failing compliance for reasons
other than MLC2xx, the batch size the record checker reads, fractional batch sizes, and
scaling.json in rounds before score scaling."""

from __future__ import annotations

import re
import sys
import shutil
from pathlib import Path
from typing import Callable

import pytest

from conftest import FIXTURES
from mlcheck import check
from mlcheck.model import Severity

ACME = FIXTURES / "example" / "Acme"
RESNET = Path("results") / "acme-t8" / "resnet"


def _package(tmp_path: Path) -> Path:
    root = tmp_path / "Acme"
    shutil.copytree(ACME, root)
    return root


def _drop_key(root: Path, index: int, key: str) -> None:
    log = root / RESNET / f"result_{index}.txt"
    lines = log.read_text("utf-8").splitlines(keepends=True)
    log.write_text("".join(row for row in lines if f'"key": "{key}"' not in row), "utf-8")


def test_a_run_missing_a_required_key_makes_the_result_invalid(tmp_path: Path) -> None:
    root = _package(tmp_path)
    _drop_key(root, 1, "cache_clear")
    result = check([str(root)])
    (bench,) = result.benchmarks
    assert not bench.score.valid and "MLC521" in bench.score.reason
    found = [f for f in bench.findings if f.code == "MLC521"]
    assert len(found) == 1 and "(MLC105)" in found[0].message and "publish 15.32 min" in found[0].message


def test_two_such_runs_leave_the_official_tools_no_score(tmp_path: Path) -> None:
    root = _package(tmp_path)
    for index in (1, 2):
        _drop_key(root, index, "cache_clear")
    (bench,) = check([str(root)]).benchmarks
    assert not bench.score.valid and "publish no score" in bench.score.reason


def _set_batch_sizes(root: Path, value: str, also_last: str | None = None) -> None:
    for log in sorted((root / RESNET).glob("result_*.txt")):
        lines = log.read_text("utf-8").splitlines(keepends=True)
        at = next(i for i, row in enumerate(lines) if '"key": "global_batch_size"' in row)
        old = lines[at].split('"value": ')[1].split(",")[0]
        lines[at] = lines[at].replace(f'"value": {old}', f'"value": {value}')
        if also_last is not None:
            lines.insert(at + 1, lines[at].replace(f'"value": {value}', f'"value": {also_last}'))
        log.write_text("".join(lines), "utf-8")


def test_the_rcp_test_reads_the_last_batch_size_as_the_record_checker(tmp_path: Path) -> None:
    root = _package(tmp_path)
    (base,) = check([str(root)]).benchmarks
    assert base.rcp is not None and base.rcp.verdict == "pass"
    _set_batch_sizes(root, str(base.rcp.batch_size), also_last="70000")
    (bench,) = check([str(root)]).benchmarks
    assert bench.rcp is not None and bench.rcp.batch_size == 70000 and bench.rcp.verdict == "missing"


def test_a_fractional_batch_size_is_not_truncated(tmp_path: Path) -> None:
    root = _package(tmp_path)
    (base,) = check([str(root)]).benchmarks
    assert base.rcp is not None and base.rcp.batch_size is not None
    _set_batch_sizes(root, f"{base.rcp.batch_size}.5")
    (bench,) = check([str(root)]).benchmarks
    assert bench.rcp is not None and bench.rcp.batch_size == base.rcp.batch_size + 0.5


def test_scaling_json_is_ignored_before_round_2_0(tmp_path: Path, corpus: Path) -> None:
    folder = tmp_path / "Graphcore" / "results" / "ipu-pod16-TF1" / "resnet"
    shutil.copytree(corpus / "training-1.1" / "Graphcore" / "results" / "ipu-pod16-TF1" / "resnet", folder)
    (folder / "scaling.json").write_text('{"scaling_factor": 1.5}', "utf-8")
    (bench,) = check([str(folder)]).benchmarks
    assert bench.score.score_min is not None and round(bench.score.score_min, 2) == 28.33
    assert [f.code for f in bench.findings if f.code.startswith("MLC5")] == ["MLC523"]


def test_a_result_file_holding_two_runs_is_still_one_run(tmp_path: Path) -> None:
    root = _package(tmp_path)
    log = root / RESNET / "result_2.txt"
    log.write_text(log.read_text("utf-8") * 2, "utf-8")
    (bench,) = check([str(root)]).benchmarks
    assert len(bench.runs) == 5
    assert not [f.message for f in bench.findings if f.code == "MLC502"]
    doubled = next(r for r in bench.runs if r.path.endswith("result_2.txt"))
    assert "MLC104" in {f.code for f in doubled.findings}


def test_an_empty_package_takes_its_round_from_the_path(tmp_path: Path) -> None:
    root = tmp_path / "training-1.1" / "Acme"
    shutil.copytree(ACME, root)
    for log in (root / RESNET).glob("result_*.txt"):
        log.unlink()
    messages = [f.message for f in check([str(root)]).all_findings() if f.code == "MLC502"]
    assert messages and all("training 1.1.0" in m for m in messages)


def _replace_in(root: Path, index: int, old: str, new: str) -> None:
    log = root / RESNET / f"result_{index}.txt"
    text = log.read_text("utf-8")
    assert old in text
    log.write_text(text.replace(old, new, 1), "utf-8")


def _first_value(root: Path, index: int, key: str) -> str:
    import json
    log = root / RESNET / f"result_{index}.txt"
    row = next(r for r in log.read_text("utf-8").splitlines() if f'"key": "{key}"' in r)
    return json.dumps(json.loads(row[len(":::MLLOG "):])["value"])


def test_a_duplicate_seed_leaves_no_valid_score(tmp_path: Path) -> None:
    root = _package(tmp_path)
    _replace_in(root, 1, f'"seed", "value": {_first_value(root, 1, "seed")}',
                f'"seed", "value": {_first_value(root, 0, "seed")}')
    (bench,) = check([str(root)]).benchmarks
    assert not bench.score.valid and "MLC519" in bench.score.reason


def test_the_odd_run_is_blamed_for_a_differing_hyperparameter(tmp_path: Path) -> None:
    root = _package(tmp_path)
    key = "lars_opt_base_learning_rate"
    _replace_in(root, 0, f'"{key}", "value": {_first_value(root, 0, key)}', f'"{key}", "value": 1.5')
    (bench,) = check([str(root)]).benchmarks
    found = [f for f in bench.findings if f.code == "MLC520"]
    assert [Path(f.path).name for f in found] == ["result_0.txt"]
    assert "most other runs" in found[0].message


def test_a_run_cut_by_a_crash_is_non_converged_not_rule_breaking(tmp_path: Path) -> None:
    root = _package(tmp_path)
    log = root / RESNET / "result_4.txt"
    data = log.read_bytes()
    log.write_bytes(data[: len(data) - 40])  # the last record cut in the middle
    (bench,) = check([str(root)]).benchmarks
    assert "MLC521" not in {f.code for f in bench.findings}
    # The seed checker reads the cut line with the official parser and fails the closed folder
    # (MLC526), the run itself counts as non-converged; the cut line names run_stop, which the RCP
    # checker decodes and cannot (MLC535): the package checker stops there (session 46: the score
    # said so only in MLC535's own text).
    assert not bench.score.valid and "(MLC535): a package it does not pass is not published" in bench.score.reason
    assert bench.score.reason.count("MLC") == 2 and "MLC526" in bench.score.reason and bench.runs[4].converged is False


def test_a_file_named_alone_is_not_judged_by_mlc521(tmp_path: Path) -> None:
    (result,) = check([str(FIXTURES / "bad" / "invalid_json.txt")]).benchmarks
    assert "MLC521" not in result.score.reason


def test_a_folder_without_a_score_says_no_scaling() -> None:
    """A folder whose runs give no score names no scaling of it ("scaled by 1.05 from — min")."""
    from mlcheck.report.text import score_text
    from mlcheck.results import BenchmarkResult, Score

    none = Score(None, False, "2 runs are too few", scaling_factor=1.05115, unscaled_min=None)
    bench = BenchmarkResult("Acme", "t8", "resnet", "closed", "5.0.0", "f", (), none)
    assert score_text(bench).plain == "no score  INVALID: 2 runs are too few"
    scaled = Score(21.0, True, "mean of 8", scaling_factor=1.05, unscaled_min=20.0)
    assert score_text(BenchmarkResult("Acme", "t8", "resnet", "closed", "5.0.0", "f", (), scaled)).plain.endswith(
        "; scaled by 1.05, scaling.json's factor, from 20.00 min")


def test_a_configuration_value_beyond_the_optimizer_is_compared_across_runs(tmp_path: Path) -> None:
    root = _package(tmp_path)
    _replace_in(root, 2, '"train_samples", "value": 1281167', '"train_samples", "value": 1281000')
    (bench,) = check([str(root)]).benchmarks
    found = [(Path(f.path).name, f.line, f.severity) for f in bench.findings if f.code == "MLC520"]
    assert found == [("result_2.txt", 21, Severity.WARNING)]
    assert "train_samples is 1281000 here but 1281167" in next(
        f.message for f in bench.findings if f.code == "MLC520")


def test_what_a_run_measures_before_run_start_is_not_compared(tmp_path: Path) -> None:
    root = _package(tmp_path)
    for index in range(5):
        _replace_in(root, index, '"key": "train_samples"', '"key": "tracked_stats"')
        _replace_in(root, index, '"tracked_stats", "value": 1281167', f'"tracked_stats", "value": {index}')
    (bench,) = check([str(root)]).benchmarks
    assert "MLC520" not in {f.code for f in bench.findings}


def test_an_aborted_run_that_reached_the_target_is_timed_by_the_official_summarizer(tmp_path: Path) -> None:
    """The summarizer times every run its checker passes, whatever the status, and the rules call
    a run that reached the target converged: the score is the published one (MLC302 asks for the
    status to be fixed, a warning: the RCP checker tolerates one such run)."""
    root = _package(tmp_path)
    _replace_in(root, 2, '"status": "success"', '"status": "aborted"')
    (bench,) = check([str(root)]).benchmarks
    minutes = {Path(r.path).name: r.time_to_train_min if r.converged else r.duration_min for r in bench.runs}
    timed = sorted(minutes.values())  # the summarizer's olympic mean of all five
    published = sum(timed[1:-1]) / 3
    assert bench.runs[2].converged and bench.score.valid and abs((bench.score.score_min or 0) - published) < 1e-9
    assert "non-converged" not in bench.score.reason and "would publish" not in bench.score.reason
    assert [(f.code, f.severity.label) for f in bench.runs[2].findings] == [("MLC302", "warning")]


def test_the_rcp_test_reads_the_benchmark_the_runs_log_not_the_folders_name(tmp_path: Path) -> None:
    """The RCP checker takes submission_benchmark from the logs: ResNet runs in a folder named
    bert are RCP-tested as ResNet (MLC016 says they are misplaced; the official tools pass them)."""
    root = _package(tmp_path)
    (root / RESNET).rename(root / "results" / "acme-t8" / "bert")
    (bench,) = check([str(root)]).benchmarks
    assert bench.benchmark == "bert" and bench.rcp is not None and bench.rcp.verdict == "pass"
    assert "MLC016" in {f.code for r in bench.runs for f in r.findings}
    assert "would pass them (no official tool checks what mlcheck finds)" in bench.score.reason


def test_a_folder_inside_a_benchmark_folder_is_no_result_and_no_row(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from mlcheck.cli import main

    root = _package(tmp_path)
    shutil.copytree(ACME / RESNET, root / RESNET / "old")  # (the official tools skip it: MLC508)
    result = check([str(root)])
    by_folder = {Path(b.folder or "").name: b for b in result.benchmarks}
    assert by_folder["resnet"].published and by_folder["resnet"].score.valid
    nested = by_folder["old"]
    assert not nested.published and not nested.score.valid and "(MLC508)" in nested.score.reason
    outcome = CliRunner().invoke(main, ["score", str(root), "--table-format", "csv"])
    assert outcome.exit_code == 0
    assert [row.split(",")[-5:-2] for row in outcome.stdout.splitlines()[1:]] == [["15.29", "valid", "pass +8.05 %"]]


def test_a_result_file_named_alone_says_how_much_of_its_folder_was_named() -> None:
    bench = check([str(ACME / RESNET / "result_0.txt")]).benchmarks[0]
    assert not bench.score.valid and bench.score.score_min is None
    assert bench.score.reason.endswith(f"(1 of the 5 result files of {ACME / RESNET} named: name the folder to "
                                       "score it; `mlcheck check --whole-folder` checks the folder of each file "
                                       "it is given)")


def test_a_restarted_job_is_timed_from_its_last_run_start_as_the_summarizer(tmp_path: Path) -> None:
    """Two run_start records (a job restarted in one file): the results summarizer's
    ``_query_run_start_stop`` times from the last before the first run_stop; so does mlcheck."""
    import json

    from mlperf_logging.compliance_checker.mlp_parser import parse_file
    from mlperf_logging.result_summarizer.result_summarizer import _query_run_start_stop

    root = _package(tmp_path)
    log = root / RESNET / "result_0.txt"
    lines = log.read_text("utf-8").splitlines(keepends=True)
    start_at = next(i for i, line in enumerate(lines) if '"key": "run_start"' in line)
    eval_at = next(i for i, line in enumerate(lines) if '"key": "eval_accuracy"' in line)
    record = json.loads(lines[start_at].split(":::MLLOG ", 1)[1])
    record["time_ms"] += 600_000
    lines.insert(eval_at + 1, ":::MLLOG " + json.dumps(record) + "\n")
    log.write_text("".join(lines), "utf-8")
    (bench,) = check([str(root)]).benchmarks
    run = next(r for r in bench.runs if r.path.endswith("result_0.txt"))
    start, stop = _query_run_start_stop(parse_file(str(log), ruleset="1.1.0")[0])
    assert run.time_to_train_min is not None
    assert run.time_to_train_min == (stop - start) / 60000
    (repeated,) = [f for f in run.findings if f.code == "MLC104"]
    assert repeated.line == eval_at + 2
    assert f"from the run_start at line {eval_at + 2}" in repeated.message


def test_an_eval_whose_epoch_the_rcp_checker_cannot_round_stops_the_package(tmp_path: Path) -> None:
    """The RCP checker rounds every eval's epoch_num (a string raises TypeError) and reads it
    with [...] (missing: KeyError), and the package checker stops with it: MLC535, an error at the
    eval's line; the file's compliance check still passes it."""
    root = _package(tmp_path)
    log = root / RESNET / "result_1.txt"
    lines = log.read_text("utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"key": "eval_accuracy"' in line)
    lines[at] = re.sub(r'"epoch_num": [0-9.]+', '"epoch_num": "4"', lines[at])
    log.write_text("".join(lines), "utf-8")
    (bench,) = check([str(root)]).benchmarks
    run = next(r for r in bench.runs if r.path.endswith("result_1.txt"))
    (unreadable,) = [f for f in run.findings if f.code == "MLC535"]
    assert unreadable.line == at + 1 and unreadable.severity is Severity.ERROR
    assert "epoch_num '4'" in unreadable.message and run.official_verdict == "pass"
    assert not bench.score.valid


def test_a_seed_without_its_source_file_or_line_fails_the_seed_checker(tmp_path: Path) -> None:
    """The seed checker reads ``metadata["file"]`` and ``["lineno"]`` of every seed record and
    fails the folder on the KeyError (was: passed, no finding)."""
    for lacking, other in (("file", "lineno"), ("lineno", "file")):
        root = _package(tmp_path / lacking)
        log = root / RESNET / "result_2.txt"
        lines = log.read_text("utf-8").splitlines()
        at = next(i for i, line in enumerate(lines) if '"key": "seed"' in line)
        lines[at] = re.sub(r'"metadata": \{.*\}\}$', f'"metadata": {{"{other}": 1}}}}', lines[at])
        log.write_text("\n".join(lines) + "\n", "utf-8")
        (bench,) = check([str(root)]).benchmarks
        [found] = [f for f in bench.findings if f.code == "MLC526"]
        assert (Path(found.path).name, found.line, found.severity) == ("result_2.txt", at + 1, Severity.ERROR)
        assert f"has no `{lacking}`" in found.message and found.official
        assert not bench.score.valid and "MLC526" in bench.score.reason


def test_a_package_folder_of_gzipped_result_files_has_no_score(tmp_path: Path) -> None:
    """Every result file gzipped (or renamed): the package checker finds 0 of 5 and the summarizer
    publishes nothing, so the score is invalid with the layout's MLC502 (was: a valid score beside
    the MLC502 error). The same logs in a folder outside a package are scored as they are."""
    import gzip
    root = _package(tmp_path)
    for log in sorted((root / RESNET).glob("result_*.txt")):
        log.with_name(log.name + ".gz").write_bytes(gzip.compress(log.read_bytes()))
        log.unlink()
    result = check([str(root)])
    (bench,) = result.benchmarks
    assert len(bench.runs) == 5 and not bench.score.valid and "(MLC502)" in bench.score.reason
    assert [f.code for f in result.findings if f.severity is Severity.ERROR] == ["MLC502"]
    loose = tmp_path / "logs"
    shutil.copytree(root / RESNET, loose)
    (bench,) = check([str(loose)]).benchmarks
    assert bench.score.valid and len(bench.runs) == 5


def test_the_score_table_title_leaves_out_values_no_description_gives(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from mlcheck.cli import main

    package = tmp_path / "Acme"
    shutil.copytree(ACME, package)
    shutil.rmtree(package / "systems")
    out = CliRunner().invoke(main, ["score", str(package)]).stdout
    title = out.split("Results in minutes")[0]
    assert title.startswith("round 2.0.0, submitter Acme.") and "availability" not in title and "processor" not in title


def test_a_folder_of_two_batch_sizes_is_told_no_bypass_helps(tmp_path: Path) -> None:
    """The RCP checker cannot evaluate runs of different global_batch_size (it raises KeyError from
    2.1 on): MLC532, and the score line does not offer --rcp-bypass as a way out."""
    from mlcheck.report.text import score_text

    package = tmp_path / "Acme"
    shutil.copytree(ACME, package)
    log = package / RESNET / "result_3.txt"
    log.write_text(re.sub(r'("key": "global_batch_size", "value": )(\d+)', r"\g<1>3200", log.read_text("utf-8"), count=1),
                   "utf-8")
    result = check([str(package)], ruleset="2.1.0")
    (bench,) = result.benchmarks
    undetermined = [f for f in result.all_findings() if f.code == "MLC532"]
    assert undetermined and "the runs log different values" in undetermined[0].message
    assert "bypass" not in score_text(bench).plain or "no bypass changes" in score_text(bench).plain


@pytest.mark.parametrize("change, error", [
    (lambda line: re.sub(r'"time_ms": \d+', '"time_ms": null', line), "TypeError"),
    (lambda line: re.sub(r', "metadata": \{[^{}]*\}', "", line), "KeyError"),
    (lambda line: line.replace(":::MLLOG {", ":::MLLOG [{") + "]", "TypeError"),
    (lambda line: line.replace(":::MLLOG {", ":::MLLOG {" + '"deep": ' + "[" * 5000 + "]" * 5000 + ", "), "RecursionError"),
])
def test_a_record_the_official_parser_raises_on_leaves_no_published_score(
        tmp_path: Path, change: Callable[[str], str], error: str) -> None:
    """The official parser catches only ValueError: a record it raises another exception on stops
    the compliance checker, and the package checker and the summarizer with it (session 36: MLC521
    said the summarizer would publish the mean of the other runs)."""
    root = _package(tmp_path)
    log = root / "results" / "acme-t8" / "resnet" / "result_1.txt"
    lines = log.read_text("utf-8").splitlines(keepends=True)
    lines[4] = change(lines[4].rstrip("\n")) + "\n"
    log.write_text("".join(lines), "utf-8")
    parser = pytest.importorskip("mlperf_logging.compliance_checker.mlp_parser.ruleset_200")
    if error != "RecursionError" or sys.version_info < (3, 12):  # (3.12+ json reads 5,000 levels: mlcheck keeps 3.11's limit)
        with pytest.raises(Exception) as raised:
            parser.parse_file(str(log))
        assert type(raised.value).__name__ == error
    (bench,) = check([str(root)]).benchmarks
    (dropped,) = [f for f in bench.findings if f.code == "MLC521"]
    stops = f"the official checker raises {error} on line 5 of result_1.txt (its parser catches only ValueError)"
    assert stops in dropped.message and "publish no score" in dropped.message
    assert not bench.score.valid and stops in bench.score.reason
    # (the package checker stops before its seed checker: no MLC526 says the seed checker fails it)
    assert "MLC526" not in {f.code for f in bench.findings} | {f.code for r in bench.runs for f in r.findings}


def test_too_few_runs_for_the_median_say_what_the_score_drops() -> None:
    """Two runs of a three-run benchmark: the reason says the round's count and that the median
    drops the fastest and the slowest run (a review of session 42: "2 runs; llama31_405b needs 3,
    of which 2 are dropped" was hard to read)."""
    from mlcheck.facts.rulesets import load_ruleset
    from mlcheck.score.scoring import olympic_score

    facts = load_ruleset("5.0.0").benchmarks["llama31_405b"]
    score = olympic_score([100.0, 110.0], facts)
    assert score.score_min is None and not score.valid
    assert score.reason == ("2 runs found; the round requires 3 for llama31_405b (its score is the median after "
                            "dropping the fastest run and the slowest run, which leaves none of 2)")
    unet = olympic_score([10.0] * 8, load_ruleset("3.1.0").benchmarks["unet3d"])
    assert "the olympic mean after dropping the 4 fastest runs and the 4 slowest runs" in (unet.reason or "")


def test_a_console_whose_records_only_a_cr_separates_has_its_evals_before_its_run_stop(tmp_path: Path) -> None:
    """Raw output of records separated by CR alone, then a trailing LF line: its evals come
    before its run_stop (was: MLC535, "no eval_accuracy comes before it", an error on a run the
    official checker passes; a review, session 43). Its records are on the lines the official
    parser's universal newlines give (session 50: they were all on line 1)."""
    records = (ACME / RESNET / "result_0.txt").read_text("utf-8").splitlines()
    console = tmp_path / "console.log"
    console.write_bytes("\r".join(records).encode() + b"\rJob finished\n")
    (run,) = check([str(console)]).runs
    assert run.run is not None and run.run.first_line == 1 and run.run.last_line == len(records)
    assert [f.code for f in run.findings if f.severity is Severity.ERROR] == []
    assert (run.verdict, run.official_verdict, run.converged) == ("pass", "pass", True)
