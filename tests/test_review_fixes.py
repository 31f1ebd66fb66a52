"""Defects a user review found, each pinned by its outcome: implausible clocks, outputs that would
overwrite an input, a typo in --select, a broken scaling.json, a full stdout, findings without a
path, accuracies logged as percentages."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import assert_no_traceback, run_cli
from tool_scripts import load_tool as _load_tool

from mlcheck import check
from mlcheck.model import Severity

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "fixtures" / "bad" / "base_open.txt"
EXAMPLE_RESNET = ROOT / "fixtures" / "example" / "Acme" / "results" / "acme-t8" / "resnet"


def _line_of(lines: list[str], key: str) -> int:
    return next(i for i, line in enumerate(lines) if f'"key": "{key}"' in line)


def test_absurd_run_stop_time_is_reported(tmp_path: Path) -> None:
    lines = BASE.read_text("utf-8").splitlines(keepends=True)
    at = _line_of(lines, "run_stop")
    record = json.loads(lines[at][len(":::MLLOG "):])
    record["time_ms"] = 1e30
    lines[at] = ":::MLLOG " + json.dumps(record) + "\n"
    log = tmp_path / "result_0.txt"
    log.write_text("".join(lines), "utf-8")
    found = [(f.code, f.line) for f in check([str(log)]).all_findings()]
    assert ("MLC405", at + 1) in found


@pytest.mark.parametrize("args", [["check", "{log}", "-o", "json:{log}"],
                                  ["score", "{log}", "--table-output", "{log}"],
                                  ["report", "{log}", "-o", "{log}"]])
def test_outputs_never_overwrite_an_input(tmp_path: Path, args: list[str]) -> None:
    log = tmp_path / "v.txt"
    shutil.copy(BASE, log)
    outcome = run_cli(*(a.format(log=log) for a in args))
    assert outcome.exit_code == 2
    assert "never overwrites its input" in outcome.stderr
    assert log.read_bytes() == BASE.read_bytes()


def test_select_typo_is_a_usage_error() -> None:
    outcome = run_cli("check", str(BASE), "--select", "XYZ")
    assert outcome.exit_code == 2 and "matches no rule code" in outcome.stderr
    assert run_cli("check", str(BASE), "--select", "mlc3,MLC5").exit_code == 0


def test_a_rule_name_selects_its_code_and_a_typo_gets_a_suggestion() -> None:
    """``--select target-not-reached`` is MLC301, as ``explain`` reads names (session 36: refused);
    a misspelt name or a letter for a digit is told what it is close to."""
    from mlcheck.settings.selection_filter import normalise_prefixes

    assert normalise_prefixes(["target-not-reached, mlc5"]) == ("MLC301", "MLC5")
    outcome = run_cli("check", str(BASE), "--select", "target-not-reachd")
    assert outcome.exit_code == 2 and "'target-not-reachd' matches no rule code or name (did you mean " \
        "target-not-reached?)" in outcome.stderr
    explained = run_cli("explain", "MLC5O2")
    assert explained.exit_code == 2 and "(did you mean MLC502?)" in explained.stderr
    family = run_cli("explain", "mlc3")  # (a prefix, as --select takes it: not 'did you mean MLC543')
    assert family.exit_code == 0 and "MLC3 is a family of 7 rules; `mlcheck explain CODE` documents each:" in family.stdout
    assert "  MLC301  target-not-reached  (error or warning): no eval reaches the round's quality target" in family.stdout


def test_broken_scaling_json_makes_the_score_invalid(tmp_path: Path) -> None:
    folder = tmp_path / "Acme" / "results" / "acme-t8" / "resnet"
    shutil.copytree(EXAMPLE_RESNET, folder)
    (folder / "scaling.json").write_text('{"scaling_factor": "abc"}', "utf-8")
    outcome = run_cli("score", str(folder))
    assert outcome.exit_code == 1
    (bench,) = check([str(folder)]).benchmarks
    assert not bench.score.valid and "MLC504" in bench.score.reason
    assert_no_traceback(outcome)


def test_full_stdout_exits_2_without_traceback() -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-c", "from mlcheck.cli import run; run()", "check",
                               str(BASE), "--format", "json"], stdout=full, stderr=subprocess.PIPE,
                              timeout=60, check=False)
    assert done.returncode == 2
    assert b"Traceback" not in done.stderr and b"cannot write the output" in done.stderr


def test_reports_written_with_o_survive_a_standard_output_that_fails(tmp_path: Path) -> None:
    """The README's advice for a closed pipe is a report written with -o: it is written before
    standard output, so a full disk or a pipe closed by head loses none (was: none written at all;
    a review, session 43)."""
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-c", "from mlcheck.cli import run; run()", "check", str(BASE),
                               "--format", "sarif", "-o", f"json:{tmp_path / 'r.json'}", "-o", f"junit:{tmp_path / 'r.xml'}"],
                              stdout=full, stderr=subprocess.PIPE, timeout=60, check=False)
    assert done.returncode == 2 and b"cannot write the output" in done.stderr
    assert json.loads((tmp_path / "r.json").read_text("utf-8"))["summary"]["runs"] == 1
    assert (tmp_path / "r.xml").read_text("utf-8").rstrip().endswith("</testsuites>")


def test_a_bare_file_in_the_working_directory_has_a_folder(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copy(BASE, tmp_path / "run.txt")
    monkeypatch.chdir(tmp_path)
    result = check(["run.txt"])
    assert [b.folder for b in result.benchmarks] == ["."]
    assert all(f.path for f in result.all_findings())


def test_percentages_get_a_hint(tmp_path: Path) -> None:
    text = (EXAMPLE_RESNET / "result_0.txt").read_text("utf-8")
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if '"key": "eval_accuracy"' in line:
            record = json.loads(line[len(":::MLLOG "):])
            record["value"] = round(record["value"] * 100, 2) if record["value"] < 0.759 else 75.0
            lines[i] = ":::MLLOG " + json.dumps(record) + "\n"
    log = tmp_path / "result_0.txt"
    log.write_text("".join(lines), "utf-8")
    (finding,) = [f for f in check([str(log)]).all_findings() if f.code == "MLC301"]
    assert "look like percentages" in finding.message


@pytest.mark.parametrize("fmt", ["sarif", "junit", "html", "github", "markdown", "json", "text"])
def test_non_utf8_file_names_render_in_every_format(tmp_path: Path, fmt: str) -> None:
    folder = tmp_path / "nl"
    folder.mkdir()
    name = bytes([0xFF, 0xFE]).decode("utf-8", "surrogateescape") + ".txt"
    shutil.copy(BASE, folder / name)
    outcome = run_cli("check", str(folder), "--format", fmt)
    assert outcome.exit_code in (0, 1), outcome.output
    assert_no_traceback(outcome)
    if fmt in ("junit", "html", "text"):  # the formats that name every file as text
        assert "\ufffd" in outcome.stdout


def test_sarif_paths_are_repository_relative_or_absolute(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "sub").mkdir()
    inside = repo / "logs" / "result_0.txt"
    inside.parent.mkdir()
    shutil.copy(ROOT / "fixtures" / "bad" / "invalid_json.txt", inside)
    outside = tmp_path / "elsewhere.txt"
    shutil.copy(ROOT / "fixtures" / "bad" / "invalid_json.txt", outside)
    monkeypatch.chdir(repo / "sub")
    outcome = run_cli("check", "../logs/result_0.txt", str(outside), "--format", "sarif")
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in json.loads(outcome.stdout)["runs"][0]["results"]}
    assert "logs/result_0.txt" in uris
    assert outside.as_uri() in uris
    assert not any(u.startswith("..") for u in uris)


def test_split_of_a_missing_log_leaves_no_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    outcome = run_cli("split", str(tmp_path / "nonexist.log"), "-o", str(out))
    assert outcome.exit_code == 2
    assert "nonexist.log: no such file or folder" in outcome.stderr and "no :::MLLOG record" not in outcome.stderr
    assert not out.exists()


def test_a_gzipped_result_file_is_not_a_result_file_for_the_package(tmp_path: Path) -> None:
    folder = tmp_path / "Acme" / "results" / "acme-t8" / "resnet"
    shutil.copytree(EXAMPLE_RESNET, folder)
    import gzip

    data = (folder / "result_2.txt").read_bytes()
    (folder / "result_2.txt").unlink()
    (folder / "result_2.txt.gz").write_bytes(gzip.compress(data))
    result = check([str(folder)])
    (bench,) = result.benchmarks
    # (the official glob result_*.txt skips it: not a run of the folder, named by MLC507)
    assert [f.message.split(";")[0] for f in bench.findings if f.code == "MLC502"] == ["4 runs found"]
    assert not bench.score.valid and len(bench.runs) == 4
    assert [f.path.endswith("result_2.txt.gz") for f in result.all_findings() if f.code == "MLC507"] == [True]


@pytest.mark.parametrize("target", ["systems/acme-t8.json", "results/acme-t8/resnet/scaling.json",
                                    "results/acme-t8/package_checker_params", "mlcheck.toml"])
@pytest.mark.parametrize("command", [["check", "-o", "json:{out}"], ["score", "--table-output", "{out}"],
                                     ["report", "-o", "{out}"]])
def test_outputs_never_overwrite_a_file_of_the_package_or_the_config(
        tmp_path: Path, target: str, command: list[str]) -> None:
    package = tmp_path / "Acme"
    shutil.copytree(ROOT / "fixtures" / "example" / "Acme", package)
    out = package / target if target != "mlcheck.toml" else tmp_path / target
    if not out.exists():
        out.write_text('{"scaling_factor": 1.0}\n' if out.suffix == ".json" else "strict = false\n",
                       encoding="utf-8")
    before = out.read_bytes()
    args = [command[0], str(package), *(a.format(out=out) for a in command[1:])]
    outcome = run_cli(*args, "--config", str(tmp_path / "mlcheck.toml")) if target == "mlcheck.toml" \
        else run_cli(*args)
    assert outcome.exit_code == 2, outcome.output
    assert "never overwrites its input" in outcome.stderr
    assert out.read_bytes() == before


def test_a_new_report_file_beside_the_package_is_written(tmp_path: Path) -> None:
    package = tmp_path / "Acme"
    shutil.copytree(ROOT / "fixtures" / "example" / "Acme", package)
    for _ in range(2):  # the second run overwrites the first run's report: not an input
        assert run_cli("check", str(package), "-o", f"json:{tmp_path / 'report.json'}").exit_code == 0


def test_log_naming_another_benchmark_than_its_folder(tmp_path: Path) -> None:
    package = tmp_path / "Acme"
    shutil.copytree(ROOT / "fixtures" / "example" / "Acme", package)
    log = package / "results" / "acme-t8" / "resnet" / "result_0.txt"
    text = log.read_text("utf-8")
    log.write_text(text.replace('"key": "submission_benchmark", "value": "resnet"',
                                '"key": "submission_benchmark", "value": "bert"'), "utf-8")
    result = check([str(package)])
    assert [(b.benchmark, len(b.runs)) for b in result.benchmarks] == [("resnet", 5)]
    found = [f for f in result.all_findings() if f.code == "MLC016"]
    line = next(i for i, row in enumerate(text.splitlines(), 1) if '"submission_benchmark"' in row)
    assert [(f.path, f.line) for f in found] == [(str(log), line)]
    assert "names benchmark 'bert' but lies in the resnet/ folder" in found[0].message
    assert not [f for f in result.all_findings() if f.code == "MLC502"]


def test_a_result_file_holding_a_run_twice_is_one_run_with_duplicates(tmp_path: Path) -> None:
    # The official checker reads a result file as one run: the second copy is duplicate records.
    folder = tmp_path / "resnet"
    folder.mkdir()
    text = (EXAMPLE_RESNET / "result_0.txt").read_text("utf-8")
    (folder / "result_0.txt").write_text(text + text, "utf-8")
    result = check([str(folder)])
    assert len(result.runs) == 1
    lines = len(text.splitlines())
    start = next(i for i, row in enumerate(text.splitlines(), 1) if '"run_start"' in row)
    found = [(f.code, f.line) for f in result.runs[0].findings if f.code == "MLC104"]
    assert (("MLC104", lines + start)) in found
    # (the seed checker reads both seed records: the file logs its seed twice from the same line)
    seed = next(i for i, row in enumerate(text.splitlines(), 1) if '"key": "seed"' in row)
    assert [(f.code, f.line, f.severity) for f in result.all_findings() if f.code == "MLC519"] == [
        ("MLC519", lines + seed, Severity.ERROR)]


def test_repeated_submission_block_before_run_start_is_one_run(tmp_path: Path) -> None:
    lines = (EXAMPLE_RESNET / "result_0.txt").read_text("utf-8").splitlines(keepends=True)
    at = _line_of(lines, "submission_benchmark")
    log = tmp_path / "result_0.txt"
    log.write_text("".join(lines[:at + 1] + [lines[at]] + lines[at + 1:]), "utf-8")
    result = check([str(log)])
    assert len(result.runs) == 1 and result.runs[0].verdict == "pass"
    assert [(f.code, f.line) for f in result.runs[0].findings] == [("MLC107", at + 2)]


@pytest.mark.parametrize("args", [["check", str(EXAMPLE_RESNET), "--no-progress"],
                                  ["check", str(EXAMPLE_RESNET), "-f", "json"],
                                  ["score", str(EXAMPLE_RESNET)]])
def test_closed_pipe_exits_2_not_1(args: list[str]) -> None:
    """`mlcheck check . | head -1`: the reader is gone. Exit 1 would read as "findings"."""
    done = _into_a_closed_pipe(args)
    assert done.returncode == 2, done.stderr
    assert "cannot write the output" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("args", [["rules"], ["explain", "MLC515"], ["check", "--help"]])
def test_documentation_into_a_closed_pipe_ends_quietly(args: list[str]) -> None:
    """`mlcheck rules | head`: the reader took what it wanted; exit 0 and no error line, as any
    listing (was: "cannot write the output", exit 2; a review, session 44)."""
    done = _into_a_closed_pipe(args)
    assert (done.returncode, done.stderr) == (0, "")


def _into_a_closed_pipe(args: list[str]) -> subprocess.CompletedProcess[str]:
    read_end, write_end = os.pipe()
    os.close(read_end)  # every write fails with EPIPE, deterministically
    try:
        return subprocess.run([sys.executable, "-c", "from mlcheck.cli import run; run()", *args],
                              stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write_end)


def test_closed_stdout_exits_2_without_traceback() -> None:
    done = subprocess.run(["bash", "-c", f'"{sys.executable}" -c "from mlcheck.cli import run; run()" '
                           f'check "{EXAMPLE_RESNET}" >&-'], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "standard output is closed" in done.stderr and "Traceback" not in done.stderr


def _example_with(tmp_path: Path, index: int, old: str, new: str) -> Path:
    package = tmp_path / "Acme"
    if not package.exists():
        shutil.copytree(ROOT / "fixtures" / "example" / "Acme", package)
    log = package / "results" / "acme-t8" / "resnet" / f"result_{index}.txt"
    text = log.read_text("utf-8")
    assert old in text
    log.write_text(text.replace(old, new, 1), "utf-8")
    return package


def test_nan_eval_is_a_warning_the_official_checker_does_not_share(tmp_path: Path) -> None:
    text = (EXAMPLE_RESNET / "result_0.txt").read_text("utf-8")
    first_eval = next(row for row in text.splitlines() if '"key": "eval_accuracy"' in row)
    value = json.loads(first_eval[len(":::MLLOG "):])["value"]
    package = _example_with(tmp_path, 0, f'"eval_accuracy", "value": {value}', '"eval_accuracy", "value": NaN')
    run = next(r for r in check([str(package)]).runs if r.path.endswith("result_0.txt"))
    found = [f for f in run.findings if f.code == "MLC304"]
    assert [(f.severity.label, f.official) for f in found] == [("warning", False)]
    assert run.verdict == "pass" and run.official_verdict == "pass"


def test_seed_that_is_not_an_integer_fails_like_the_seed_checker(tmp_path: Path) -> None:
    text = (EXAMPLE_RESNET / "result_1.txt").read_text("utf-8")
    seed_row = next(row for row in text.splitlines() if '"key": "seed"' in row)
    seed = json.loads(seed_row[len(":::MLLOG "):])["value"]
    package = _example_with(tmp_path, 1, f'"seed", "value": {seed}', '"seed", "value": "abc"')
    found = [f for f in check([str(package)]).all_findings() if f.code == "MLC522"]
    assert [(f.line, f.official) for f in found] == [(text.splitlines().index(seed_row) + 1, True)]


def test_a_misnamed_benchmark_folder_is_one_finding_not_one_per_run(tmp_path: Path) -> None:
    """``resnet50/``: MLC506 names the folder (the official checker skips it); its runs do not
    each add MLC016, which is for a log in another benchmark's folder."""
    package = tmp_path / "Acme"
    shutil.copytree(ROOT / "fixtures" / "example" / "Acme", package)
    (package / "results" / "acme-t8" / "resnet").rename(package / "results" / "acme-t8" / "resnet50")
    codes = [f.code for f in check([str(package)]).all_findings()]
    assert codes.count("MLC506") == 1 and "MLC016" not in codes


def test_a_readme_in_results_is_no_run(tmp_path: Path) -> None:
    """The package checker walks only the benchmark folders: ``results/README.txt`` is an
    MLC508 warning, not a run that fails."""
    package = tmp_path / "Acme"
    shutil.copytree(ROOT / "fixtures" / "example" / "Acme", package)
    (package / "results" / "README.txt").write_text("how we ran it\n", "utf-8")
    (package / "results" / "acme-t8" / "notes.txt").write_text("notes\n", "utf-8")
    result = check([str(package)])
    assert len(result.runs) == 5 and all(r.verdict == "pass" for r in result.runs)
    assert sorted((f.code, f.severity.name) for f in result.all_findings()) == [
        ("MLC508", "WARNING"), ("MLC508", "WARNING")]


@pytest.mark.parametrize("scale, says, not_says", [
    (100, ["the checker also requires <= 1", "look like percentages"], []),
    (2.2, ["the checker also requires <= 1"], ["percentages"]),
])
def test_an_auc_above_its_upper_bound_says_the_bound(tmp_path: Path, scale: float, says: list[str],
                                                     not_says: list[str]) -> None:
    """DLRMv2's target is ``0.80275 <= AUC <= 1.0`` (closed_dlrm_dcnv2.yaml): a best AUC of 80.3 or
    1.77 passes the lower bound, so the message names the upper one; percentages only where they
    look like them."""
    from tool_scripts import load_tool

    gen, first = load_tool("make_later_cases"), load_tool("make_rule_cases")
    records = gen.base_records("6.0.0", "dlrm_dcnv2")
    for record in records:
        if record.key == "eval_accuracy":
            record.value = record.value * scale
    log = tmp_path / "result_0.txt"
    log.write_text("\n".join(first.Case("6.0.0", "dlrm_dcnv2", "x", records).lines()) + "\n", "utf-8")
    (finding,) = [f for f in check([str(log)], ruleset="6.0.0").all_findings() if f.code == "MLC301"]
    assert all(text in finding.message for text in says), finding.message
    assert not any(text in finding.message for text in not_says), finding.message


def test_an_open_llm_log_is_told_why_the_below_one_check_fails_it(tmp_path: Path) -> None:
    """6.0's open_llama31_8b.yaml (a placeholder marked TODO) asks one eval_accuracy below 1.0, and
    the eval of the LLM benchmarks is a log perplexity: no advice to log fractions, and the missing
    epoch_num says that the checker's later edit asks samples_count."""
    from tool_scripts import load_tool

    gen, first = load_tool("make_later_cases"), load_tool("make_rule_cases")
    records = gen.base_records("6.0.0", "llama31_8b")
    for record in records:
        if record.key == "submission_division":
            record.value = "open"
        if record.key == "eval_accuracy":  # (as the published LLM logs: samples_count only)
            record.metadata.pop("epoch_num", None)
    log = tmp_path / "result_0.txt"
    log.write_text("\n".join(first.Case("6.0.0", "llama31_8b", "x", records).lines()) + "\n", "utf-8")
    found = {f.code: f for f in check([str(log)], ruleset="6.0.0").all_findings()}
    assert "stays above 1.0" in found["MLC306"].message and "fractions" not in found["MLC306"].message
    assert "3d71f7e" in found["MLC110"].message and found["MLC110"].official


def test_a_folder_whose_only_run_is_empty_is_judged_under_the_round_its_path_names(tmp_path: Path) -> None:
    """An empty result file has no date: its folder is judged under the round of the path
    (training-6.0), not left as round '?' whose benchmark list lacks it, and the RCP test says
    what the round's checker does: it reads the file as a run of no benchmark name and raises
    (session 48: was "no run could be read", mlcheck's own words)."""
    folder = tmp_path / "training-6.0" / "Org" / "results" / "sys" / "llama31_8b"
    folder.mkdir(parents=True)
    (folder / "result_0.txt").write_text("", "utf-8")
    result = check([str(tmp_path / "training-6.0" / "Org")])
    (bench,) = result.benchmarks
    assert [r.ruleset for r in result.runs] == ["6.0.0"]
    assert "not part of the round" not in bench.score.reason and "MLC521" in bench.score.reason
    assert bench.rcp is not None and "no run logs submission_benchmark" in bench.rcp.reason
    assert "raises KeyError: None" in bench.rcp.reason
    assert "MLC002" in {f.code for f in result.all_findings()}


def test_a_loss_target_missed_gets_no_percentage_hint(tmp_path: Path) -> None:
    """A loss above 1 (LoRA's eval loss <= 0.925) is no percentage: MLC301 says only that the target
    was not reached (was: 'the values look like percentages')."""
    cases = _load_tool("make_later_cases").build_cases("5.0.0", "llama2_70b_lora")
    case = next(case for case, _ in cases if case.kind == "target_not_reached")
    log = tmp_path / "result_0.txt"
    log.write_text("\n".join(case.lines()) + "\n", "utf-8")
    (run,) = check([str(log)], ruleset="5.0.0").runs
    (missed,) = [f.message for f in run.findings if f.code == "MLC301"]
    assert "not reached" in missed and "percentages" not in missed


def test_a_score_of_a_round_before_rcp_normalisation_says_what_todays_tools_publish() -> None:
    """2.0 scored without RCP normalisation; today's package checker writes the factor into
    scaling.json and its summarizer multiplies it in (28.908 min for this folder, where the round
    published 28.78): the RCP line says so (was: nothing)."""
    from conftest import SHARED
    from mlcheck.rules.rcp_texts import today_scaled_text

    package = SHARED / "other-submitters" / "training-2.0" / "HPE"
    if not package.is_dir():
        pytest.skip("../shared/other-submitters/training-2.0/HPE is not present (the public MLCommons data)")
    (bench,) = [b for b in check([str(package)]).benchmarks if b.benchmark == "resnet"]
    assert bench.rcp is not None and bench.score.score_min is not None and bench.score.scaling_factor is None
    told = today_scaled_text(bench.rcp, bench.score)
    assert told == ("today's mlperf-logging would write scaling.json (1.0044, resnet_ref_3264) and publish 28.91 min; "
                    "this round scored without RCP normalisation")


def test_a_report_path_under_a_file_is_a_usage_error_before_the_check(tmp_path: Path) -> None:
    """``report -o afile/x.html`` where afile is a file: said as ``check -o`` says it (was: the
    errno text of the failed write, after the whole check)."""
    (tmp_path / "afile").write_text("", "utf-8")
    outcome = run_cli("report", str(BASE), "-o", str(tmp_path / "afile" / "x.html"))
    assert outcome.exit_code == 2 and f"{tmp_path / 'afile'} is not a folder" in outcome.stderr
    assert_no_traceback(outcome)
