"""Configuration (file, environment, command line), waivers and --select/--ignore, through the
library and the CLI."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from mlcheck.cli import main
from mlcheck.settings.config import find_config, load_settings
from mlcheck.settings.waiver_table import Waiver
from mlcheck.model import Finding, Severity
from mlcheck.results import CheckResult
from mlcheck.settings.selection_filter import select_findings
from mlcheck.settings.waivers import apply_waivers, path_matches

START_MS = 1652083200000  # 2022-05-09: the training 2.0 period


def make_log(index: int = 0, stop: bool = True, minutes: float = 10.0, benchmark: str = "resnet") -> str:
    """A small open-division run; without ``stop`` it has no run_stop (MLC102)."""
    run_start = START_MS + 600_000 + index
    records = [("cache_clear", True, START_MS, {}), ("init_start", None, START_MS + 1, {}),
               ("submission_benchmark", benchmark, START_MS + 2, {}),
               ("submission_division", "open", START_MS + 2, {}), ("submission_org", "Acme", START_MS + 2, {}),
               ("submission_status", "onprem", START_MS + 2, {}),
               ("submission_platform", "acme-t8", START_MS + 2, {}), ("seed", 4242 + index, START_MS + 2, {}),
               ("global_batch_size", 3264, START_MS + 2, {}), ("train_samples", 1281167, START_MS + 2, {}),
               ("eval_samples", 50000, START_MS + 2, {}), ("init_stop", None, run_start - 1, {}),
               ("run_start", None, run_start, {}),
               ("block_start", None, run_start + 1, {"first_epoch_num": 1, "epoch_count": 8}),
               ("eval_start", None, run_start + minutes * 60_000 - 20, {"epoch_num": 8}),
               ("eval_stop", None, run_start + minutes * 60_000 - 10, {"epoch_num": 8}),
               ("eval_accuracy", 0.7612, run_start + minutes * 60_000 - 10, {"epoch_num": 8}),
               ("block_stop", None, run_start + minutes * 60_000 - 5, {"first_epoch_num": 1})]
    if stop:
        records.append(("run_stop", None, run_start + minutes * 60_000, {"epoch_num": 8, "status": "success"}))
    lines = []
    for key, value, time_ms, extra in records:
        record = {"namespace": "", "time_ms": time_ms, "event_type": "POINT_IN_TIME", "key": key,
                  "value": value, "metadata": {"file": "train.py", "lineno": 1, **extra}}
        lines.append(":::MLLOG " + json.dumps(record))
    return "\n".join(lines) + "\n"


@pytest.fixture
def failing(tmp_path: Path) -> Path:
    """A project folder with one log lacking run_stop (MLC102 at its last line)."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "result_0.txt").write_text(make_log(stop=False), encoding="utf-8")
    return tmp_path


def _cli(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    runner = CliRunner()
    before = os.getcwd()
    os.chdir(cwd)
    try:
        result = runner.invoke(main, args, env={"GITHUB_ACTIONS": "", **(env or {})}, catch_exceptions=False)
    finally:
        os.chdir(before)
    return result.exit_code, result.stdout, result.stderr


def _error_codes(failing: Path) -> list[str]:
    code, out, _ = _cli(["check", "logs", "-f", "json"], failing)
    assert code == 1
    return sorted({f["code"] for f in json.loads(out)["findings"] if f["severity"] == "error"})


def _write_waivers(folder: Path, codes: list[str], expires: str | None = None) -> None:
    entries = []
    for code in codes:
        entries.append(f'[[tool.mlcheck.waivers]]\ncode = "{code}"\npath = "logs/**"\n'
                       f'reason = "run lost to a cluster outage; rerun scheduled"\n'
                       + (f"expires = {expires}\n" if expires else ""))
    (folder / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.mlcheck]\nstrict = false\n\n'
                                           + "\n".join(entries), encoding="utf-8")


def test_waiver_turns_exit_1_into_0_and_lists_the_waived_finding(failing: Path) -> None:
    codes = _error_codes(failing)
    assert "MLC102" in codes
    _write_waivers(failing, codes, expires="2999-12-31")
    code, out, _ = _cli(["check", "logs", "-f", "json"], failing)
    report = json.loads(out)
    assert code == 0, report["findings"]
    waived = {w["code"]: w for w in report["waived"]}
    assert waived["MLC102"]["path"] == "logs/result_0.txt" and waived["MLC102"]["line"] == 18
    assert waived["MLC102"]["reason"].startswith("run lost") and waived["MLC102"]["expires"] == "2999-12-31"
    assert waived["MLC102"]["waiver"] == "pyproject.toml:7"  # relative: reports do not depend on the checkout place
    assert report["summary"]["verdict"] == "pass"
    code, out, _ = _cli(["check", "logs", "-f", "markdown"], failing)
    assert code == 0 and "### Waived" in out and "MLC102" in out


def test_a_waiver_matches_the_same_findings_from_any_folder(failing: Path) -> None:
    """Waiver paths are relative to the config file's folder, never to where mlcheck runs: from
    inside logs/, "logs/**" still matches and "*.txt" (the path as typed there) does not."""
    _write_waivers(failing, _error_codes(failing))
    assert _cli(["check", "logs"], failing)[0] == _cli(["check", "."], failing / "logs")[0] == 0
    text = (failing / "pyproject.toml").read_text("utf-8").replace('path = "logs/**"', 'path = "*.txt"')
    (failing / "pyproject.toml").write_text(text, "utf-8")
    assert _cli(["check", "logs"], failing)[0] == _cli(["check", "result_0.txt"], failing / "logs")[0] == 1
    assert path_matches(str(failing / "logs" / "*.txt"), str(failing / "logs" / "result_0.txt"), "/elsewhere")


def test_expired_waiver_no_longer_applies(failing: Path) -> None:
    codes = _error_codes(failing)
    _write_waivers(failing, codes, expires="2000-01-01")
    code, out, _ = _cli(["check", "logs", "-f", "json"], failing)
    report = json.loads(out)
    assert code == 1 and report["waived"] == []
    expired = [f for f in report["findings"] if f["code"] == "MLC042"]
    assert len(expired) == len(codes) and "expired on 2000-01-01" in expired[0]["message"]


def test_unused_waiver_is_a_warning_that_fails_under_strict(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "result_0.txt").write_text(make_log(), encoding="utf-8")
    base = _cli(["check", "logs/result_0.txt", "-f", "json"], tmp_path)
    assert base[0] == 0, base[1]
    (tmp_path / ".mlcheck.toml").write_text('[[waivers]]\ncode = "MLC301"\npath = "logs/**"\nreason = "x"\n\n'
                                            '[[waivers]]\ncode = "MLC301"\npath = "other/run/"\nreason = "x"\n',
                                            encoding="utf-8")
    code, out, _ = _cli(["check", "logs/result_0.txt", "-f", "json"], tmp_path)
    unused = [f for f in json.loads(out)["findings"] if f["code"] == "MLC040"]
    assert code == 0 and len(unused) == 1 and unused[0]["line"] == 1
    assert unused[0]["path"] == ".mlcheck.toml"
    assert _cli(["check", "logs/result_0.txt", "--strict"], tmp_path)[0] == 1
    # (a waiver for what this check did not read is not unused: a hook checks the files changed;
    # a review, session 35) ... but it is when its folder is checked
    (tmp_path / "other" / "run").mkdir(parents=True)
    (tmp_path / "other" / "run" / "result_0.txt").write_text(make_log(), encoding="utf-8")
    code, out, _ = _cli(["check", ".", "-f", "json"], tmp_path)
    assert [f["line"] for f in json.loads(out)["findings"] if f["code"] == "MLC040"] == [1, 6]
    # (a path without a wildcard is its own scope, not its folder's: a sibling checked leaves it alone)
    (tmp_path / ".mlcheck.toml").write_text('[[waivers]]\ncode = "MLC301"\npath = "logs/result_1.txt"\n'
                                            'reason = "x"\n', encoding="utf-8")
    code, out, _ = _cli(["check", "logs/result_0.txt", "-f", "json"], tmp_path)
    assert not [f for f in json.loads(out)["findings"] if f["code"] == "MLC040"]
    # (a [ ] in the path is literal: the unused waiver says so; a review, session 43)
    (tmp_path / ".mlcheck.toml").write_text('[[waivers]]\ncode = "MLC301"\npath = "logs/result_[0-1].txt"\n'
                                            'reason = "x"\n', encoding="utf-8")
    code, out, _ = _cli(["check", "logs", "-f", "json"], tmp_path)
    [unused] = [f for f in json.loads(out)["findings"] if f["code"] == "MLC040"]
    assert unused["message"].endswith("(a [ ] in a path is literal, not a set of characters: name each file, or use * or ?)")


def test_waiver_without_reason_is_refused(failing: Path) -> None:
    (failing / ".mlcheck.toml").write_text('format = "json"\n\n[[waivers]]\ncode = "MLC102"\npath = "logs/*"\n',
                                           encoding="utf-8")
    code, out, _ = _cli(["check", "logs"], failing)
    report = json.loads(out)  # format = "json" from the file applies
    invalid = [f for f in report["findings"] if f["code"] == "MLC041"]
    assert code == 1 and report["waived"] == [] and "lacks reason" in invalid[0]["message"]
    assert invalid[0]["line"] == 3


def test_invalid_toml_is_a_finding_with_its_line(failing: Path) -> None:
    (failing / ".mlcheck.toml").write_text('strict = true\nformat = \n', encoding="utf-8")
    code, out, _ = _cli(["check", "logs", "-f", "json"], failing)
    invalid = [f for f in json.loads(out)["findings"] if f["code"] == "MLC041"]
    assert code == 1 and invalid[0]["line"] == 2 and "not valid TOML" in invalid[0]["message"]


def test_precedence_file_then_environment_then_command_line(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.mlcheck]\nformat = "markdown"\nstrict = true\n'
                                             'ignore = ["MLC3"]\nbogus = 1\n', encoding="utf-8")
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    assert find_config(sub) == tmp_path / "pyproject.toml"
    from_file = load_settings({}, cwd=str(sub), environ={})
    assert (from_file.format, from_file.strict, from_file.ignore) == ("markdown", True, ("MLC3",))
    assert [f.code for f in from_file.problems] == ["MLC041"] and from_file.problems[0].line == 5
    env = {"MLCHECK_FORMAT": "sarif", "MLCHECK_STRICT": "0", "MLCHECK_SELECT": "MLC1,MLC4"}
    from_env = load_settings({}, cwd=str(sub), environ=env)
    assert (from_env.format, from_env.strict, from_env.select) == ("sarif", False, ("MLC1", "MLC4"))
    from_cli = load_settings({"format": "junit", "strict": True, "select": ()}, cwd=str(sub), environ=env)
    assert (from_cli.format, from_cli.strict, from_cli.select) == ("junit", True, ("MLC1", "MLC4"))
    bad_env = load_settings({}, cwd=str(sub), environ={"MLCHECK_STRICT": "maybe"})
    assert bad_env.strict is True and bad_env.problems[-1].path == "environment"


def test_dot_mlcheck_toml_wins_in_the_same_folder(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.mlcheck]\nformat = "markdown"\n', encoding="utf-8")
    (tmp_path / ".mlcheck.toml").write_text('format = "junit"\n', encoding="utf-8")
    assert load_settings({}, cwd=str(tmp_path), environ={}).format == "junit"
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    assert find_config(tmp_path / "plain") == tmp_path / ".mlcheck.toml"


def test_missing_explicit_config_is_a_usage_error(failing: Path) -> None:
    code, _, err = _cli(["check", "logs", "--config", "nope.toml"], failing)
    assert code == 2 and "nope.toml" in err


def test_select_and_ignore_by_code_prefix() -> None:
    findings = tuple(Finding(code, "x", Severity.ERROR, "m", "p", 1) for code in ("MLC102", "MLC301", "MLC402"))
    result = CheckResult((), (), findings)
    codes = lambda r: [f.code for f in r.all_findings()]  # noqa: E731
    assert codes(select_findings(result, select=["mlc3,MLC4"])) == ["MLC301", "MLC402"]
    assert codes(select_findings(result, ignore=["MLC40"])) == ["MLC102", "MLC301"]
    assert codes(select_findings(result, select=["MLC"], ignore=["MLC1"])) == ["MLC301", "MLC402"]


def test_select_changes_the_exit_code(failing: Path) -> None:
    assert _cli(["check", "logs", "--ignore", "MLC"], failing)[0] == 0
    assert _cli(["check", "logs", "--select", "MLC102"], failing)[0] == 1
    assert _cli(["check", "logs", "--exit-zero"], failing)[0] == 0


def test_waiver_globs() -> None:
    assert path_matches("logs/*.txt", "logs/result_0.txt", ".")
    assert not path_matches("logs/*.txt", "logs/sub/result_0.txt", ".")
    assert path_matches("**/result_?.txt", "a/b/result_3.txt", ".")
    assert path_matches("**/resnet/**", "Org/results/sys/resnet/result_0.txt", ".")
    assert path_matches("Org/results/sys/resnet/**", "Org/results/sys/resnet", ".")
    assert not path_matches("Org/results/sys/res/**", "Org/results/sys/resnet", ".")
    assert path_matches("Org/results/sys/resnet/", "Org/results/sys/resnet", ".")  # (a folder's findings)
    assert path_matches("Org/results/sys/resnet/", "Org/results/sys/resnet/result_0.txt", ".")


def test_apply_waivers_is_pure_and_dated() -> None:
    found = Finding("MLC301", "target-not-reached", Severity.ERROR, "m", "r/result_1.txt", 4)
    result = CheckResult((), (), (found,))
    waiver = Waiver("MLC3", "r/*", "known", "cfg:2", expires=dt.date(2030, 1, 1))
    active = apply_waivers(result, [waiver], today=dt.date(2029, 12, 31))
    assert active.all_findings() == () and active.waived[0].finding == found
    expired = apply_waivers(result, [waiver], today=dt.date(2030, 1, 2))
    assert [f.code for f in expired.all_findings()] == ["MLC042", "MLC301"]
    assert result.all_findings() == (found,)  # input unchanged


def test_text_report_lists_waived_findings(failing: Path) -> None:
    _write_waivers(failing, _error_codes(failing))
    code, out, _ = _cli(["check", "logs", "--color", "never"], failing)
    assert code == 0 and "Waived" in out
    assert "logs/result_0.txt:18: waived MLC102 run-stop-missing" in out and "reason: run lost" in out


def test_json_report_with_waived_findings_matches_the_schema(failing: Path) -> None:
    import jsonschema
    schema = json.loads((Path(__file__).resolve().parent.parent / "schemas" / "report.schema.json")
                        .read_text(encoding="utf-8"))
    _write_waivers(failing, _error_codes(failing), expires="2999-12-31")
    code, out, _ = _cli(["check", "logs", "-f", "json"], failing)
    report = json.loads(out)
    assert code == 0 and report["waived"]
    jsonschema.Draft202012Validator(schema).validate(report)


def test_score_reads_the_config_for_its_json_findings_and_ruleset(failing: Path) -> None:
    codes = _error_codes(failing)
    _write_waivers(failing, codes, expires="2999-12-31")
    code, out, _ = _cli(["score", "logs", "-f", "json"], failing)
    report = json.loads(out)
    assert {w["code"] for w in report["waived"]} == set(codes)
    assert not [f for f in report["findings"] if f["severity"] == "error"]
    assert code == 1  # a run without run_stop leaves no valid score, waived or not
    (failing / "ruleset.toml").write_text('ruleset = "2.1.0"\n', encoding="utf-8")
    code, out, _ = _cli(["score", "logs", "-f", "json", "--config", "ruleset.toml"], failing)
    assert {r["ruleset"] for r in json.loads(out)["runs"]} == {"2.1.0"}
    code, _, err = _cli(["score", "logs", "--config", "missing.toml"], failing)
    assert code == 2 and "missing.toml: no such file" in err
    (failing / "loop_a.toml").symlink_to("loop_b.toml")
    (failing / "loop_b.toml").symlink_to("loop_a.toml")
    code, _, err = _cli(["score", "logs", "--config", "loop_a.toml"], failing)
    assert code == 2 and "loop_a.toml: a symbolic link that leads to no file" in err


def test_bad_output_entry_and_wrongly_typed_waiver_are_findings(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "result_0.txt").write_text(make_log(), encoding="utf-8")
    (tmp_path / ".mlcheck.toml").write_text(
        'output = ["bogus", "json:r.json"]\n\n[[waivers]]\ncode = 519\npath = "logs/**"\nreason = "x"\n',
        encoding="utf-8")
    code, out, err = _cli(["check", "logs", "-f", "json"], tmp_path)
    assert "Usage" not in err
    found = [(f["line"], f["message"]) for f in json.loads(out)["findings"] if f["code"] == "MLC041"]
    assert [line for line, _ in found] == [1, 3]
    assert "'bogus' is not FORMAT:PATH" in found[0][1]
    assert "code 519 is not a string (write it like 'MLC519')" in found[1][1]
    assert (tmp_path / "r.json").is_file() and code == 1


def test_select_never_hides_a_setting_that_failed(failing: Path) -> None:
    (failing / ".mlcheck.toml").write_text('strict = 2\n', encoding="utf-8")
    code, out, _ = _cli(["check", "logs", "-f", "json", "--select", "MLC102"], failing)
    assert {f["code"] for f in json.loads(out)["findings"]} >= {"MLC041"}
    assert code == 1
    code, out, _ = _cli(["check", "logs", "-f", "json", "--ignore", "MLC041,MLC102"], failing)
    assert "MLC041" not in {f["code"] for f in json.loads(out)["findings"]}  # named in full: dropped


def test_prefix_typo_in_environment_is_a_finding(failing: Path) -> None:
    code, out, _ = _cli(["check", "logs", "-f", "json"], failing, env={"MLCHECK_IGNORE": "MLCX99,MLC1"})
    found = [f for f in json.loads(out)["findings"] if f["code"] == "MLC041"]
    assert len(found) == 1 and "'MLCX99' matches no rule code" in found[0]["message"]
    assert "MLC102" not in {f["code"] for r in json.loads(out)["runs"] for f in r["findings"]}


def test_missing_config_named_by_the_environment_exits_2(failing: Path) -> None:
    code, _, err = _cli(["check", "logs"], failing, env={"MLCHECK_CONFIG": "nope.toml"})
    assert code == 2 and "MLCHECK_CONFIG=nope.toml: no such file" in err


def test_junit_lists_waived_findings_as_skipped(failing: Path) -> None:
    import xml.etree.ElementTree as ET
    codes = _error_codes(failing)
    _write_waivers(failing, codes, expires="2999-12-31")
    code, out, _ = _cli(["check", "logs", "-f", "junit"], failing)
    suite = next(s for s in ET.fromstring(out) if s.get("name") == "mlcheck waived")
    assert suite.get("skipped") == str(len(suite)) == "2"  # one per place: the log and its folder
    skipped = [case.find("skipped") for case in suite]
    assert all(s is not None and "run lost to a cluster outage" in (s.get("message") or "") for s in skipped)
    assert all(any(code in (s.text or "") for s in skipped if s is not None) for code in codes)
    files = [(case.get("name"), case.get("file")) for case in suite]  # (a folder has no file to annotate)
    assert [file for name, file in files if name.endswith(".txt")] != [None] and \
        [file for name, file in files if not name.endswith(".txt")] == [None], files


def test_github_format_prints_the_summary_once_on_stderr(failing: Path) -> None:
    code, out, err = _cli(["check", "logs", "-f", "github"], failing)
    assert "mlcheck: 1 run" not in out and all(line.startswith("::") for line in out.splitlines())
    assert err.count("mlcheck: 1 run") == 1


def test_a_toml_boolean_may_be_written_0_or_1(tmp_path: Path) -> None:
    """``strict = 1`` in TOML reads as ``strict = "1"`` does (a number other than 0 or 1 is refused)."""
    from mlcheck.settings.config import load_settings

    (tmp_path / ".mlcheck.toml").write_text("strict = 1\nexit_zero = 0\nprogress = 2\n")
    settings = load_settings({}, cwd=str(tmp_path), environ={}, paths=[str(tmp_path)])
    assert settings.strict is True and settings.exit_zero is False
    assert [f.code for f in settings.problems] == ["MLC041"] and "progress" in settings.problems[0].message


def test_an_unknown_ruleset_in_the_config_or_environment_is_mlc041_naming_it(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "result_0.txt").write_text(make_log(), encoding="utf-8")
    (tmp_path / ".mlcheck.toml").write_text('ruleset = "9.9.9"\n', encoding="utf-8")
    code, out, _ = _cli(["check", "logs", "-f", "json"], tmp_path)
    found = [(f["path"], f["line"]) for f in json.loads(out)["findings"] if f["code"] == "MLC041"]
    assert code == 1 and found == [(".mlcheck.toml", 1)]
    assert json.loads(out)["runs"][0]["ruleset"] == "2.0.0"  # (inferred, the setting ignored)
    (tmp_path / ".mlcheck.toml").unlink()
    code, out, _ = _cli(["check", "logs", "-f", "json"], tmp_path, env={"MLCHECK_RULESET": "9"})
    assert code == 1 and any("MLCHECK_RULESET" in f["message"] for f in json.loads(out)["findings"])
    assert _cli(["check", "logs", "--ruleset", "9"], tmp_path)[0] == 2  # (given on the command line: a usage error)


@pytest.mark.parametrize("spelling", ["[tool.mlcheck]\nstrict = true\n", "[tool]\nmlcheck.strict = true\n",
                                      "tool.mlcheck.strict = true\n", "[tool . mlcheck]\nstrict = true\n"])
def test_every_toml_spelling_of_the_pyproject_table_is_found(tmp_path: Path, spelling: str) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n' if spelling.startswith("tool.") else spelling,
                                             encoding="utf-8")
    if spelling.startswith("tool."):  # (a dotted key of the root table comes before any header)
        (tmp_path / "pyproject.toml").write_text(spelling + '[project]\nname = "x"\n', encoding="utf-8")
    assert find_config(tmp_path) == tmp_path / "pyproject.toml"
    assert load_settings({}, cwd=str(tmp_path), environ={}).strict is True
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "mlcheck"\n', encoding="utf-8")
    assert find_config(tmp_path) is None


def test_misspelt_environment_variable_is_a_warning_and_others_are_left_alone(tmp_path: Path) -> None:
    env = {"MLCHECK_STRCT": "1", "MLCHECK_PATHS": "a b", "MLCHECK_UPDATE_GOLDENS": "1", "MLCHECK_HOME": "/x"}
    settings = load_settings({}, cwd=str(tmp_path), environ=env)
    assert settings.strict is False
    assert [(f.code, f.severity, f.path) for f in settings.problems] == [("MLC041", Severity.WARNING, "environment")]
    assert "MLCHECK_STRCT" in settings.problems[0].message and "MLCHECK_STRICT?" in settings.problems[0].message


def test_waivers_in_the_environment_are_said_to_be_ignored(tmp_path: Path) -> None:
    """MLCHECK_WAIVERS=1 was ignored without a word: waivers live in the config file only."""
    settings = load_settings({}, cwd=str(tmp_path), environ={"MLCHECK_WAIVERS": "1"})
    (problem,) = settings.problems
    assert (problem.code, problem.severity) == ("MLC041", Severity.WARNING)
    assert "MLCHECK_WAIVERS is not a setting" in problem.message and "[[waivers]] in .mlcheck.toml" in problem.message


def test_an_empty_environment_variable_is_unset(tmp_path: Path) -> None:
    """A CI template leaves MLCHECK_STRICT= when its input is not given: not an MLC041 error."""
    settings = load_settings({}, cwd=str(tmp_path), environ={"MLCHECK_STRICT": "", "MLCHECK_JOBS": " "})
    assert settings.problems == () and settings.strict is False and settings.jobs is None


def test_official_verdict_does_not_depend_on_select_ignore_or_waivers(failing: Path) -> None:
    """What the checker of record says of a file is not the config's to change: the run's own verdict
    follows the filters, its ``official_verdict`` stays (a review, session 35: it turned "pass")."""
    def judged(args: list[str], env: dict[str, str] | None = None) -> tuple[str, str, int]:
        code, out, _ = _cli(["check", "logs", "-f", "json", *args], failing, env)
        report = json.loads(out)
        (run,) = report["runs"]
        return run["verdict"], run["official_verdict"], report["summary"]["runs_official_failed"]

    assert judged([]) == ("fail", "fail", 1)
    assert judged(["--select", "MLC5"]) == ("pass", "fail", 1)
    assert judged([], {"MLCHECK_IGNORE": "MLC1"}) == ("pass", "fail", 1)
    _write_waivers(failing, ["MLC102"])
    assert judged([]) == ("pass", "fail", 1)


def test_a_misspelt_table_is_said_and_lines_are_found_in_mlchecks_table(tmp_path: Path) -> None:
    """``[tool.mlchek]`` turned a strict gate off without a word; a line of ``[tool.ruff]``'s
    ``select`` was given for mlcheck's (a review, session 35)."""
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "result_0.txt").write_text(make_log(), encoding="utf-8")
    (tmp_path / "typo.toml").write_text("[tool.mlchek]\nstrict = true\n", encoding="utf-8")
    code, out, _ = _cli(["check", "logs", "-f", "json", "--config", "typo.toml"], tmp_path)
    (bad,) = [f for f in json.loads(out)["findings"] if f["code"] == "MLC041"]
    assert code == 1 and bad["message"] == ("the config file holds no [tool.mlcheck] table (its tables: "
                                            "tool.mlchek): none of it applies; [tool.mlchek] is spelt [tool.mlcheck]")
    (tmp_path / "pyproject.toml").write_text('[tool.ruff]\nselect = ["E"]\nignore = ["F"]\n\n[tool.mlcheck]\n'
                                             'select = ["MLC999"]\nignore = 3\n', encoding="utf-8")
    code, out, _ = _cli(["check", "logs", "-f", "json"], tmp_path)
    assert sorted((f["line"], f["message"].split(":")[0]) for f in json.loads(out)["findings"]
                  if f["code"] == "MLC041") == [(6, "select"), (7, "ignore")]


def test_an_output_of_the_config_or_environment_that_cannot_be_written_is_mlc041(tmp_path: Path) -> None:
    """README: a bad setting of a config file or an MLCHECK_* variable is an MLC041 finding, exit 1,
    not a usage error (it was exit 2 for an output naming a folder or the same file twice; a review,
    session 35). On the command line it stays a usage error."""
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "result_0.txt").write_text(make_log(), encoding="utf-8")
    (tmp_path / "out").mkdir()
    code, out, _ = _cli(["check", "logs", "-f", "json", "--config", "/dev/null"], tmp_path,
                        env={"MLCHECK_OUTPUT": "json:out,sarif:a.sarif,junit:a.sarif"})
    bad = [(f["path"], f["message"]) for f in json.loads(out)["findings"] if f["code"] == "MLC041"]
    assert code == 1 and [path for path, _ in bad] == ["environment", "environment"]
    assert bad[0][1].startswith("MLCHECK_OUTPUT: the output 'json:out' names a folder")
    assert "'sarif:a.sarif' and 'junit:a.sarif' name the same file" in bad[1][1]
    assert (tmp_path / "a.sarif").is_file()  # (the entries that can be written are)
    (tmp_path / "c.toml").write_text('output = ["json:out"]\n', encoding="utf-8")
    code, out, _ = _cli(["check", "logs", "-f", "json", "--config", "c.toml"], tmp_path)
    assert code == 1 and [f["message"].split(":")[0] for f in json.loads(out)["findings"]
                          if f["code"] == "MLC041"] == ["output in c.toml"]
    assert _cli(["check", "logs", "-o", "json:out"], tmp_path)[0] == 2


def test_jobs_takes_the_same_numbers_from_the_environment_as_from_the_command_line(failing: Path) -> None:
    code, out, _ = _cli(["check", "logs", "-f", "json", "--config", "/dev/null"], failing, env={"MLCHECK_JOBS": "1000000"})
    assert not [f for f in json.loads(out)["findings"] if f["code"] == "MLC041"]


def test_no_exit_zero_turns_off_the_configs_exit_zero(failing: Path) -> None:
    (failing / "ez.toml").write_text("exit_zero = true\n", encoding="utf-8")
    assert _cli(["check", "logs", "--config", "ez.toml"], failing)[0] == 0
    assert _cli(["check", "logs", "--config", "ez.toml", "--no-exit-zero"], failing)[0] == 1


def test_score_verbose_says_which_config_and_waivers(failing: Path) -> None:
    _write_waivers(failing, ["MLC102"])
    code, _, err = _cli(["score", "logs", "-v"], failing)
    assert code == 1 and "mlcheck: config: pyproject.toml (found from logs upwards" in err
    assert "mlcheck: 1 waiver, 1 finding waived" in err


def test_a_pyproject_whose_header_is_inside_a_string_is_no_config(tmp_path: Path) -> None:
    """``[tool.mlcheck]`` in a project's description chose the file, then MLC041 said it had no
    table (a review, session 35): the search takes only a file that has the table."""
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "result_0.txt").write_text(make_log(), encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\ndescription = """\n[tool.mlcheck]\n'
                                             'strict = true\n"""\n', encoding="utf-8")
    code, out, err = _cli(["check", "logs/result_0.txt", "-f", "json", "-v"], tmp_path)
    assert code == 0 and "mlcheck: config: none" in err, err


def test_settings_at_the_top_level_of_pyproject_are_named_not_ignored_silently(tmp_path: Path) -> None:
    """``[[waivers]]`` outside ``[tool.mlcheck]`` (as a .mlcheck.toml writes them) waived nothing
    and said nothing; the [tool.mlcheck] table beside them still applies."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.mlcheck]\nstrict = true\n\n[[waivers]]\ncode = "MLC5"\npath = "**"\n'
        'reason = "x"\n', "utf-8")
    settings = load_settings({}, cwd=str(tmp_path), environ={})
    assert settings.strict is True and settings.waivers == ()
    (problem,) = settings.problems
    assert (problem.code, problem.line) == ("MLC041", 7)
    assert "[[waivers]] at the top level of pyproject.toml is not read" in problem.message
    assert "[[tool.mlcheck.waivers]]" in problem.message


def test_configs_of_their_own_that_a_check_of_several_folders_does_not_use_are_named(tmp_path: Path) -> None:
    """A pre-commit hook passing the files of two packages: the search starts at their common
    folder, so each package's .mlcheck.toml is not used; a warning says so (it was silent)."""
    for name in ("A", "B"):
        (tmp_path / name / "results").mkdir(parents=True)
        (tmp_path / name / ".mlcheck.toml").write_text('[[waivers]]\ncode = "MLC5"\npath = "**"\nreason = "x"\n', "utf-8")
    paths = ["A/results", "B/results"]
    settings = load_settings({}, cwd=str(tmp_path), environ={}, paths=paths)
    (problem,) = settings.problems
    assert (problem.code, problem.severity.label, problem.path) == ("MLC041", "warning", "A/.mlcheck.toml")
    assert "(A/.mlcheck.toml, B/.mlcheck.toml)" in problem.message and settings.waivers == ()
    # One package's paths, or a config named: nothing to say.
    assert load_settings({}, cwd=str(tmp_path), environ={}, paths=["A/results", "A"]).problems == ()
    named = load_settings({}, cwd=str(tmp_path), environ={}, paths=paths, config=str(tmp_path / "A" / ".mlcheck.toml"))
    assert not [p for p in named.problems if "not used" in p.message]


def test_a_pyproject_with_only_top_level_settings_is_found_and_named(tmp_path: Path) -> None:
    """``[[waivers]]`` pasted into a pyproject.toml without [tool.mlcheck]: the search passed it
    over, so nothing said the waivers were not read."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[[waivers]]\ncode = "MLC5"\npath = "**"\n'
                                             'reason = "x"\n', "utf-8")
    settings = load_settings({}, cwd=str(tmp_path), environ={})
    assert settings.config_path == "pyproject.toml" and settings.waivers == ()
    (problem,) = settings.problems
    assert (problem.code, problem.line) == ("MLC041", 4) and "[[waivers]] at the top level" in problem.message
    # A project's own tables (ruff's select) are no mlcheck settings: no config there.
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.ruff]\nselect = ["E"]\n', "utf-8")
    assert load_settings({}, cwd=str(tmp_path), environ={}).config_path is None


def test_the_names_a_pyproject_is_searched_for_are_the_settings() -> None:
    from mlcheck.settings import config
    from mlcheck.settings.config_file import SETTING_NAMES

    assert SETTING_NAMES == {*config._SCALARS, *config._ALIASES, "waivers"}


def test_another_tool_s_top_level_key_in_a_pyproject_is_no_config(tmp_path: Path) -> None:
    """A pyproject.toml below a package's .mlcheck.toml with a stray ``format = "black"`` won
    the search and failed the check with an MLC041 error about settings never mlcheck's."""
    (tmp_path / ".mlcheck.toml").write_text('ignore = ["MLC020"]\n', "utf-8")
    inner = tmp_path / "pkg"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('format = "black"\nselect = ["E"]\n\n[project]\nname = "x"\n', "utf-8")
    settings = load_settings({}, cwd=str(inner), environ={})
    assert settings.config_path == "../.mlcheck.toml" and settings.ignore == ("MLC020",) and settings.problems == ()
    # Beside [[waivers]] (pasted from a .mlcheck.toml), the file is found, and said not read: a warning.
    (inner / "pyproject.toml").write_text('format = "black"\n\n[[waivers]]\ncode = "MLC5"\npath = "**"\n'
                                          'reason = "x"\n', "utf-8")
    (problem,) = load_settings({}, cwd=str(inner), environ={}).problems
    assert problem.severity.label == "warning" and problem.message.startswith("format, [[waivers]] at the top level")
