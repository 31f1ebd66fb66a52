"""What a demanding new user met on the shared packages (issue 14's acceptance review): a run
script's cache-clearing step split off as a run of its own, MLC024 in a result file saying its
records are read as another run, counts in the plural for one ("1 records", "1 lines"), an
interpolated RCP named twice in MLC530, every member's whole message repeated when a group's
members differ in numbers only, ``score`` printing an empty table without saying why, and the
power rules' warnings missing from ``mlcheck rules``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mlcheck import check
from mlcheck.cli import main
from mlcheck.model import Finding, Severity
from mlcheck.read.rawlog import RawStats
from mlcheck.report.grouped import FindingGroup, context_lines
from mlcheck.results import RcpResult
from mlcheck.rules import find_rule
from mlcheck.rules.rcp_check import _record_findings

START = 1621294835849


def _record(key: str, t: int, event_type: str = "POINT_IN_TIME", value: object = None, **metadata: object) -> str:
    return ":::MLLOG " + json.dumps({"namespace": "", "time_ms": t, "event_type": event_type, "key": key,
                                     "value": value, "metadata": {"file": "x.py", "lineno": 1, **metadata}})


def _job_log(path: Path, runs: int = 2) -> Path:
    """Raw output of a Slurm run script: per run, an ``srun`` that clears the caches and logs
    ``cache_clear``, then the ``srun`` of the training (rank-tagged records)."""
    lines: list[str] = []
    for run in range(runs):
        t = START + run * 10_000_000
        lines += ["+ srun --ntasks=1 bash -c 'echo -n Clearing cache on && hostname'", "Clearing cache on node1",
                  "+ srun --ntasks=1 --container-name=lm python -c 'log cache_clear'",
                  _record("cache_clear", t, value=True),
                  "+ srun -l --mpi=none --ntasks=4 python train.py",
                  "0: " + _record("init_start", t + 1000, "INTERVAL_START"),
                  "0: " + _record("run_start", t + 2000, "INTERVAL_START"),
                  "0: " + _record("run_stop", t + 3000, "INTERVAL_END", status="success")]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def _keys(path: Path) -> list[str]:
    return [json.loads(line[len(":::MLLOG "):])["key"] for line in path.read_text("utf-8").splitlines()]


def test_the_cache_clearing_step_belongs_to_the_run_it_prepares(tmp_path: Path) -> None:
    log = _job_log(tmp_path / "job.log")
    result = check([str(log)], ruleset="1.0.0")
    assert len(result.runs) == 2
    assert not [f for f in result.all_findings() if "cache_clear" in f.message]  # each run has its own
    assert [f.line for f in result.all_findings() if f.code == "MLC024"] == [9]  # the second run's script only
    out = tmp_path / "out"
    split = CliRunner().invoke(main, ["split", str(log), "-o", str(out)])
    assert split.exit_code == 0, split.output
    assert sorted(p.name for p in out.iterdir()) == ["result_0.txt", "result_1.txt"]
    assert _keys(out / "result_0.txt") == _keys(out / "result_1.txt") == ["cache_clear", "init_start", "run_start",
                                                                         "run_stop"]
    watched = CliRunner().invoke(main, ["watch", str(log), "--runs", "2", "--no-progress", "--idle-timeout", "1",
                                        "-f", "json", "-r", "1.0.0"])
    assert len(json.loads(watched.stdout)["runs"]) == 2


def test_the_submission_step_belongs_to_the_run_it_prepares(tmp_path: Path) -> None:
    """A run script may log the submission_* records in an srun step of their own, then clear
    the caches in another, then launch the training (raw output of round 4.0 packages)."""
    lines: list[str] = []
    for run in range(2):
        t = START + run * 10_000_000
        lines += ["+ srun --mpi=pmi2 -N1 -n1 --container-name=rn python -c 'log submission'",
                  _record("submission_benchmark", t, value="resnet"), _record("submission_division", t, value="closed"),
                  "+ srun --ntasks=1 --mpi=pmi2 bash -c 'echo -n Clearing cache on && hostname'",
                  "Clearing cache on node1", _record("cache_clear", t + 10, value=True),
                  "+ srun --ntasks=8 python train.py",
                  _record("init_start", t + 1000, "INTERVAL_START"), _record("run_start", t + 2000, "INTERVAL_START"),
                  _record("run_stop", t + 3000, "INTERVAL_END", status="success")]
    log = tmp_path / "job.log"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    result = check([str(log)], ruleset="4.0.0")
    assert [(r.run.first_line, r.run.last_line) if r.run else None for r in result.runs] == [(2, 10), (12, 20)]
    assert [f.line for f in result.all_findings() if f.code == "MLC024"] == [11]  # the second run's first step


def test_a_job_start_in_a_result_file_says_the_file_stays_one_run(tmp_path: Path) -> None:
    log = _job_log(tmp_path / "result_0.txt")
    result = check([str(log)], ruleset="1.0.0")
    assert len(result.runs) == 1
    (started,) = [f for f in result.all_findings() if f.code == "MLC024"]
    assert started.line == 9 and "read as another run" not in started.message
    assert ("a result file is one run, as the official checker reads it: the records "
                                    "after it belong to this run (their repeats are findings of the round's rules)") in started.message


def test_counts_of_one_are_in_the_singular(tmp_path: Path) -> None:
    stats = RawStats()
    stats.lines, stats.records, stats.noise_lines, stats.spliced_records, stats.crlf_lines = 1, 1, 1, 1, 1
    assert stats.describe("") == ("raw job output: 1 line, 1 :::MLLOG record read; 1 line without a record dropped "
                                  "(launcher, warnings, progress); 1 CRLF line end; 1 record cut out of "
                                  "progress-bar or other text")
    one_line = tmp_path / "notes.txt"
    one_line.write_text("hello\n", "utf-8")
    (none,) = [f for f in check([str(one_line)]).all_findings() if f.code == "MLC002"]
    assert none.message.startswith("no :::MLLOG record found in 1 line;")
    out = CliRunner().invoke(main, ["split", str(_job_log(tmp_path / "job.log", runs=1)), "-o", str(tmp_path / "o")])
    assert out.stdout.splitlines() == [f"{tmp_path / 'o' / 'result_0.txt'}: 4 records"]


def test_an_interpolated_reference_is_named_once() -> None:
    common = dict(unit="epochs", batch_size=28, reference_mean=2045.43, min_acceptable_mean=1943.63,
                  submission_mean=1796.88, margin_pct=-7.55)
    interpolated = RcpResult("fail", "", reference="interpolated between BS 2 and BS 32",
                             reference_batch_sizes=(2, 32), **common)  # type: ignore[arg-type]
    (found,) = _record_findings("f", interpolated, False, None, None)
    assert found.code == "MLC530" and found.message.endswith(
        "(margin -7.55 %; reference mean 2045.43 interpolated between BS 2 and BS 32)")
    named = RcpResult("fail", "", reference="unet3d_ref_32", reference_batch_sizes=(32,), **common)  # type: ignore[arg-type]
    assert _record_findings("f", named, False, None, None)[0].message.endswith(
        "(margin -7.55 %; reference mean 2045.43 from unet3d_ref_32 [BS 32])")


def test_members_that_differ_in_numbers_list_only_those_numbers() -> None:
    members = tuple(Finding("MLC020", "raw-output-read", Severity.INFO,
                            f"raw job output: {lines} lines, 500 records read; {crlf} CRLF line ends",
                            f"b/result_{i}.txt", None, False, 0) for i, (lines, crlf) in enumerate([(1186, 1169),
                                                                                                     (1099, 1081)]))
    assert context_lines(FindingGroup(members, "b", 2)) == ["result_0.txt: 1186 lines; 1169 CRLF line ends",
                                                              "result_1.txt: 1099 lines; 1081 CRLF line ends"]
    # A number with no word after it is named by its clause before it (a review, session 34: "106;
    # 106 rank" said nothing), and grouping's "and 1 more ..., at line N" by what it is.
    members = tuple(Finding("MLC020", "raw-output-read", Severity.INFO,
                            f"raw job output: {lines} lines; records kept from srun task 0 ({kept}); {kept} rank tags "
                            f"removed (and 1 more of this rule here, at line {other})", f"b/result_{i}.txt", None,
                            False, 0) for i, (lines, kept, other) in enumerate([(1606, 106, 41), (1592, 95, 44)]))
    assert context_lines(FindingGroup(members, "b", 2)) == [
        "result_0.txt: 1606 lines; srun task 0 (106); 106 rank tags removed; another at line 41",
        "result_1.txt: 1592 lines; srun task 0 (95); 95 rank tags removed; another at line 44"]


def test_score_of_nothing_says_why(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(main, ["score", str(tmp_path / "empty"), "-t", "csv"])
    assert result.exit_code == 1
    assert f"mlcheck: nothing to score: {tmp_path / 'empty'}: MLC501 no MLPerf log found here" in result.stderr


def test_the_power_rules_declare_their_warnings() -> None:
    for code, levels in (("MLC540", "error/warning"), ("MLC541", "error/warning"), ("MLC542", "error/warning"),
                         ("MLC543", "error/warning/info")):  # (MLC543 info: metadata that is no object, session 47)
        found = find_rule(code)
        assert found is not None and found[0].severity_text == levels, code


def test_a_groups_place_tells_files_of_one_name_apart() -> None:
    members = tuple(Finding("MLC543", "power-log-invalid", Severity.WARNING, f"{n} record(s) of the wrong shape",
                            f"b/power/result_{i}/node_1.txt", None, False, None) for i, n in enumerate([362, 402]))
    assert FindingGroup(members, "b", 5).place() == "b (2 of 5 runs: result_0/node_1.txt, result_1/node_1.txt)"


def test_items_the_message_already_lists_are_not_repeated_under_it() -> None:
    listed = ("a (2 times, lines 3, 8)", "b (2 times, lines 4, 9)")
    found = Finding("MLC107", "key-repeated", Severity.WARNING, f"2 keys are logged several times: {', '.join(listed)}",
                    "r/result_0.txt", 3, False, 0, items=listed, item_count=2)
    assert context_lines(FindingGroup((found,), "r", 1)) == []
    cut = Finding("MLC105", "required-key-missing", Severity.ERROR, "2 required keys are not logged: a, b",
                  "r/result_0.txt", 1, True, 0, items=("a (exactly one)", "b (at least one)"), item_count=2)
    assert context_lines(FindingGroup((cut,), "r", 1)) == ["- a (exactly one)", "- b (at least one)"]


def test_an_rcp_mean_far_below_any_reference_says_the_evals_do_not_log_the_position() -> None:
    tiny = RcpResult("fail", "", unit="samples", batch_size=448, reference="bert_ref_448", reference_batch_sizes=(448,),
                     reference_mean=2563898.0, min_acceptable_mean=2425569.0, submission_mean=1.0, margin_pct=-100.0)
    (found,) = _record_findings("f", tiny, False, None, None)
    assert found.message.endswith("a mean under 1 % of the reference's means the evals do not log the samples "
                                  "trained: the RCP test reads each run's convergence point from its last eval's metadata")


@pytest.mark.parametrize("ruleset,option", [("1.1.0", None), ("2.0.0", "rcp_bert_train_samples"),
                                            ("4.0.0", "rcp_bert_train_samples"), ("5.1.0", "rcp-bert-train-samples")])
def test_a_bert_rcp_far_below_names_the_round_s_train_samples_option_or_none(ruleset: str, option: str | None) -> None:
    """BERT's hint names the top-level package_checker_params option of the round that has one;
    1.0 and 1.1, whose verify script reads no such file (MLC546), are told to log the samples in
    epoch_num (was: a fix MLC546 then says is ignored; a review, session 43)."""
    bert = RcpResult("fail", "", unit="samples", batch_size=256, reference="bert_ref_256", reference_batch_sizes=(256,),
                     reference_mean=2549220.0, min_acceptable_mean=2405334.0, submission_mean=1.0, margin_pct=-100.0,
                     source="rcps_bert.json")
    (found,) = _record_findings("f", bert, False, None, ruleset)
    if option is None:
        assert found.message.endswith(f"(epoch_num: training {ruleset}'s package checker has no option to read the "
                                      "samples from train_samples instead; log the samples trained in each eval's epoch_num)")
    else:
        assert found.message.endswith(f"the top-level <org>/package_checker_params line {option} makes the package "
                                      "checker read those)"), found.message


def test_the_text_results_table_never_cuts_a_system_name() -> None:
    from conftest import SHARED
    from mlcheck.report.results_table import table_text

    package = SHARED / "other-submitters" / "training-2.0" / "NVIDIA"
    if not package.is_dir():
        import pytest
        pytest.skip("../shared/other-submitters is not present")
    text = table_text(check([str(package)]), "text")
    assert "…" not in text
    column = "".join(line.split("│")[2].strip() for line in text.splitlines() if line.startswith("│"))
    for name in ("2xa30_ngc22.04_pytorch", "dgxa100_ngc22.04_merlin_hugectr", "dgxa100_ngc22.04_pytorch"):
        assert name in column


def test_every_rule_has_its_documented_section_in_explain() -> None:
    """``- MLC020 raw-output-read (info): ...`` sections were not found: explain printed the summary."""
    from mlcheck.report import rule_help
    from mlcheck.rules import all_rules

    assert [r.code for r in all_rules() if rule_help(r.code) == r.summary] == []
    out = CliRunner().invoke(main, ["explain", "MLC024"]).stdout
    assert "A file named `result_<i>.txt` is always one run" in " ".join(out.split())
    assert rule_help("MLC003").startswith("the text after `:::MLLOG` is not valid JSON")
    assert rule_help("MLC003").endswith("the official parser crashes on it (RecursionError); mlcheck reports the line and "
                                        "reads on.")


def test_an_unknown_setting_lists_the_settings_as_the_readme_spells_them(tmp_path: Path) -> None:
    (tmp_path / ".mlcheck.toml").write_text("unknown_key = 1\n", "utf-8")
    log = _job_log(tmp_path / "result_0.txt", runs=1)
    out = CliRunner().invoke(main, ["check", str(log), "-f", "json", "-r", "1.0.0"], env={"GITHUB_ACTIONS": ""})
    (found,) = [f for f in json.loads(out.stdout)["findings"] if f["code"] == "MLC041"]
    assert found["message"] == ("unknown setting 'unknown_key'; known: color, exit_zero, format, ignore, jobs, "
                                "output, progress, ruleset, select, strict, waivers")


def test_the_report_schema_knows_every_rcp_unit_and_a_gpt3_report_validates() -> None:
    """The JSON report of GPT-3 folders (unit tokens) failed its own schema (epochs or samples)."""
    import jsonschema

    from conftest import ROOT, SHARED
    from mlcheck.report.json_report import report_dict

    schema = json.loads((ROOT / "schemas" / "report.schema.json").read_text("utf-8"))
    units = {"epochs"} | {u for f in (ROOT / "schemas" / "rulesets").glob("*/rcp.json")
                          for u in json.loads(f.read_text("utf-8")).get("units", {}).values()}
    assert units <= set(schema["$defs"]["rcp"]["properties"]["unit"]["enum"])
    package = SHARED / "other-submitters" / "training-3.1" / "Google"
    if package.is_dir():
        data = report_dict(check([str(package)]))
        assert {b["rcp"]["unit"] for b in data["benchmarks"] if b["rcp"]} == {"tokens"}
        jsonschema.Draft202012Validator(schema).validate(data)


def test_a_required_key_logged_under_another_name_is_pointed_at(tmp_path: Path) -> None:
    """A closed key logged under another round's name (BERT's opt_epsilon of 2.0 as 2.1's
    opt_lamb_epsilon) or a typo: MLC201 at the line of the key that reads like it, saying so (was:
    at the run's first line, "not logged" alone; a Graphcore user's review, session 34)."""
    source = Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme" / "results" / "acme-t8" / \
        "resnet" / "result_0.txt"
    lines = source.read_text("utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"key": "lars_opt_weight_decay"' in line)
    lines[at] = lines[at].replace('"lars_opt_weight_decay"', '"lars_opt_weight_decays"')
    log = tmp_path / "result_0.txt"
    log.write_text("".join(lines), "utf-8")
    (run,) = check([str(log)]).runs
    (missing,) = [f for f in run.findings if f.code == "MLC201"]
    assert missing.line == at + 1 and missing.message.endswith(
        f"; line {at + 1} logs lars_opt_weight_decays: is it this key under another name?")
