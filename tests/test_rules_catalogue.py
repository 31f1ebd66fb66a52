"""The closed-division rule catalogue: generated violation cases for 8 benchmarks x 4 rounds, each
with the exact codes and physical lines mlcheck must report, plus the interpreter and data files."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from mlcheck import check
from mlcheck.cli import main as cli_main
from mlcheck.facts.constraints import describe, holds, load_constraints
from mlcheck.facts.constraints import tensor_list
from mlcheck.model import Severity
from mlcheck.rules import all_rules, find_rule
from tool_scripts import load_tool

ROOT = Path(__file__).resolve().parent.parent


GEN = load_tool("make_rule_cases")


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    out = tmp_path_factory.mktemp("rule_cases")
    return out, GEN.write_cases(out)


def _findings(path: Path, ruleset: str) -> list[Any]:
    result = check([str(path)], ruleset=ruleset)
    assert len(result.runs) == 1
    return list(result.runs[0].findings)


@pytest.mark.parametrize("ruleset", GEN.ROUNDS)
@pytest.mark.parametrize("benchmark", GEN.BENCHMARKS)
def test_generated_cases_report_expected_codes_and_lines(cases: tuple[Path, list[dict[str, Any]]],
                                                          ruleset: str, benchmark: str) -> None:
    out, manifest = cases
    mine = [m for m in manifest if m["ruleset"] == ruleset and m["benchmark"] == benchmark]
    kinds = {m["kind"] for m in mine}
    # at least 10 kinds of violation per benchmark and round, including the required ones
    assert len(kinds - {"base", "base_sgd"}) >= 10
    assert {"missing_cache_clear", "conflicting_duplicate", "target_not_reached", "init_too_long", "wrong_order",
            "aborted_but_reached", "open_division", "base"} <= kinds
    wrong = []
    for case in mine:
        got = sorted((f.code, f.line) for f in _findings(out / case["path"], ruleset)
                     if f.code in GEN.CATALOGUE_CODES)
        if got != [tuple(e) for e in case["expected"]]:
            wrong.append((case["kind"], case["expected"], got))
    assert not wrong


def test_every_closed_constraint_is_violated_once(cases: tuple[Path, list[dict[str, Any]]]) -> None:
    _out, manifest = cases
    kinds = {(m["ruleset"], m["benchmark"], m["kind"]) for m in manifest}
    for ruleset in GEN.ROUNDS:
        for name, bench in load_constraints(ruleset).benchmarks.items():
            entries = list(bench.keys) + [e for group in (bench.per_optimizer or {}).values() for e in group]
            for entry in entries:
                if entry.check is not None:
                    assert (ruleset, name, f"invalid_{entry.key}") in kinds


def _case(out: Path, manifest: list[dict[str, Any]], ruleset: str, benchmark: str, kind: str) -> Path:
    return out / next(m["path"] for m in manifest
                      if (m["ruleset"], m["benchmark"], m["kind"]) == (ruleset, benchmark, kind))


def test_messages_are_plain_words(cases: tuple[Path, list[dict[str, Any]]]) -> None:
    out, manifest = cases
    [found] = [f for f in _findings(_case(out, manifest, "2.0.0", "resnet", "invalid_lars_opt_weight_decay"),
                                    "2.0.0") if f.code == "MLC202"]
    assert found.message.startswith("lars_opt_weight_decay is 3e-05; closed ResNet with lars requires "
                                    "0.0001 x 2^N (N integer)")
    assert found.official and found.severity is Severity.ERROR
    [opt] = [f for f in _findings(_case(out, manifest, "2.0.0", "resnet", "wrong_optimizer"), "2.0.0")
             if f.code == "MLC203"]
    assert opt.message.startswith("opt_name is 'adam'; closed ResNet allows 'lars' or 'sgd'")
    [late] = [f for f in _findings(_case(out, manifest, "2.1.0", "ssd", "division_after_init_stop"), "2.1.0")
              if f.code == "MLC109"]
    assert "after init_stop" in late.message and late.official


@pytest.mark.parametrize("ruleset", ["2.0.0", "2.1.0"])
def test_false_passes_of_the_official_checker_fail_mlcheck(cases: tuple[Path, list[dict[str, Any]]],
                                                           ruleset: str) -> None:
    out, manifest = cases
    for benchmark, kind, code in (("resnet", "aborted_but_reached", "MLC302"),
                                  ("resnet", "run_stop_before_run_start", "MLC403"),
                                  ("bert", "wrong_optimizer", "MLC204")):
        result = check([str(_case(out, manifest, ruleset, benchmark, kind))], ruleset=ruleset).runs[0]
        [found] = [f for f in result.findings if f.code == code]
        assert found.severity is Severity.ERROR and not found.official, kind
        assert (result.verdict, result.official_verdict) == ("fail", "pass"), kind
    # Records glued on one line: a warning (the official parser reads the last one only, as mlcheck
    # does in a result file: mlcheck.read.official_view); a lost eval_stop fails neither.
    glued = check([str(_case(out, manifest, ruleset, "bert", "glued_records"))], ruleset=ruleset).runs[0]
    assert [(f.code, f.severity) for f in glued.findings if f.code == "MLC010"] == [("MLC010", Severity.WARNING)]
    assert (glued.verdict, glued.official_verdict) == ("pass", "pass")


def test_weight_init_is_a_warning_in_1_1_only(cases: tuple[Path, list[dict[str, Any]]]) -> None:
    out, manifest = cases
    for ruleset, severity, official in (("1.1.0", Severity.WARNING, False), ("2.0.0", Severity.ERROR, True)):
        [found] = [f for f in _findings(_case(out, manifest, ruleset, "resnet", "weight_init_tensor_missing"),
                                        ruleset) if f.code == "MLC206"]
        assert (found.severity, found.official) == (severity, official)
        assert "1 missing (bn0_beta), 0 unexpected" in found.message
    [warned] = [f for f in _findings(_case(out, manifest, "1.1.0", "bert", "weight_init_absent"), "1.1.0")
                if f.code == "MLC205"]
    assert "4.1.68" in warned.message
    # An event without metadata.tensor fails 1.1 too: the rule's POST code raises on it (logging#197).
    untagged = check([str(_case(out, manifest, "1.1.0", "resnet", "weight_init_untagged"))], ruleset="1.1.0").runs[0]
    [failed] = [f for f in untagged.findings if f.code == "MLC205"]
    assert (failed.severity, failed.official) == (Severity.ERROR, True)
    assert "the checker of record fails the file" in failed.message
    assert (untagged.verdict, untagged.official_verdict) == ("fail", "fail")
    # Metadata that is a list (or a string) naming "tensor": the CHECK finds the name, the POST raises.
    listed = _case(out, manifest, "1.1.0", "resnet", "weight_init_untagged")
    lines = listed.read_text("utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"weights_initialization"' in line)
    head, body = lines[at].split(":::MLLOG ", 1)
    record = json.loads(body)
    record["metadata"] = ["tensor"]
    lines[at] = f"{head}:::MLLOG {json.dumps(record)}\n"
    copy = listed.with_name("listed_metadata.txt")
    copy.write_text("".join(lines), "utf-8")
    run = check([str(copy)], ruleset="1.1.0").runs[0]
    assert [(f.severity, f.official) for f in run.findings if f.code == "MLC205"] == [(Severity.ERROR, True)]
    assert run.official_verdict == "fail" and not any("(nan" in f.message for f in run.findings)


def test_rules_text_warnings_name_the_section(cases: tuple[Path, list[dict[str, Any]]]) -> None:
    out, manifest = cases
    for kind, key in (("rules_text_lars_momentum", "lars_opt_momentum"),
                      ("rules_text_sgd_momentum", "sgd_opt_momentum"),
                      ("rules_text_sgd_poly_power", "sgd_opt_learning_rate_decay_poly_power")):
        [found] = [f for f in _findings(_case(out, manifest, "1.1.0", "resnet", kind), "1.1.0") if f.code == "MLC204"]
        assert found.severity is Severity.WARNING and not found.official
        assert found.message.startswith(f"{key} is ") and "§Hyperparameters" in found.message


@pytest.mark.parametrize("check_data,value,expected", [
    ({"power_of_two_times": 0.0001}, 5e-05, True),
    ({"power_of_two_times": 0.0001}, 3e-05, False),
    ({"power_of_two_times": 0.0001}, -1.0, False),
    ({"multiple_of": 0.001}, 2.048, True),
    ({"multiple_of": 0.001}, "2.048", False),
    ({"one_of": [1, {"float": "inf"}]}, float("inf"), True),
    ({"range": {"min": 0, "min_exclusive": True}}, 0, False),
    ({"integer": True}, 6.0, False),
    ({"length": 2}, [1, 2], True),
    ({"element": {"index": 1, "check": {"multiple_of": 5}}}, [40, 55], True),
    ({"not_equal": ""}, "", False),
    ({"equals": 2}, True, False),
])
def test_interpreter(check_data: dict[str, Any], value: Any, expected: bool) -> None:
    assert holds(check_data, value, lambda _key: None) is expected


def test_only_when_reads_another_key() -> None:
    lr = {"any_of": [{"multiple_of": 0.02},
                     {"divides": 0.02, "only_when": {"key": "global_batch_size", "check": {"range": {"max": 16}}}}]}
    assert holds(lr, 0.01, {"global_batch_size": 8}.get)
    assert not holds(lr, 0.01, {"global_batch_size": 32}.get)
    assert describe({"power_of_two_times": 0.0001}) == "0.0001 x 2^N (N integer)"


@pytest.mark.parametrize("ruleset", GEN.ROUNDS)
def test_constraint_data_validates_and_cites_sources(ruleset: str) -> None:
    schema = json.loads((ROOT / "schemas" / "constraints.schema.json").read_text())
    data = json.loads((ROOT / "schemas" / "rulesets" / ruleset / "constraints.json").read_text())
    jsonschema.validate(data, schema)
    broken = dict(data, common=[{"key": "x", "source": "y", "check": {"python": "v > 0"}}])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)
    loaded = load_constraints(ruleset)
    assert set(loaded.benchmarks) == set(GEN.BENCHMARKS)
    assert all(e.source.startswith(f"training_{ruleset}/") for b in loaded.benchmarks.values() for e in b.keys)


def test_tensor_lists_come_from_the_installed_yaml() -> None:
    assert len(tensor_list("training_2.0.0/closed_resnet.yaml")) == 161
    assert len(tensor_list("training_1.1.0/closed_bert.yaml")) == 398
    # (1.1.0-rc4, the checker of record, listed one more: cls/predictions/decoder/kernel)
    init = load_constraints("1.1.0").benchmarks["bert"].weight_init
    assert init is not None and init.record_adds == ("cls/predictions/decoder/kernel",)
    assert init.record_adds[0] not in tensor_list(init.tensors_from)
    assert tensor_list("training_1.0.0/closed_rnnt.yaml")[0] == "pre_rnn"


def test_rules_and_explain_cover_every_code() -> None:
    runner = CliRunner()
    listed = runner.invoke(cli_main, ["rules"])
    assert listed.exit_code == 0
    for rule in all_rules():
        assert rule.code in listed.output
    for code in ("MLC105", "MLC109", "MLC202", "MLC203", "MLC204", "MLC206"):
        found = find_rule(code)
        assert found is not None
        rule, module = found
        assert f"{code} {rule.name}" in (module.__doc__ or "")
        explained = runner.invoke(cli_main, ["explain", code])
        assert explained.exit_code == 0 and rule.name in explained.output


def test_no_eval_or_exec_in_mlcheck() -> None:
    pattern = re.compile(r"\beval\(|\bexec\(")
    offenders = [str(p) for p in (ROOT / "mlcheck").rglob("*.py") if pattern.search(p.read_text("utf-8"))]
    assert not offenders


def test_every_failure_is_reported_not_only_the_last_per_key(tmp_path: Path) -> None:
    records = GEN.base_records("2.0.0", "rnnt")
    for record in records:
        if record.key in ("opt_lamb_epsilon", "opt_weight_decay"):
            record.value = 0.5
        if record.key == "eval_accuracy":
            record.metadata.pop("epoch_num")
    case = GEN.Case("2.0.0", "rnnt", "many", records)
    path = tmp_path / "many.txt"
    path.write_text("\n".join(case.lines()) + "\n", encoding="utf-8")
    # One finding per rule and run (issue 14) that lists every failure with its line.
    found = {f.code: f for f in _findings(path, "2.0.0") if f.code in GEN.CATALOGUE_CODES}
    assert sorted(found) == ["MLC110", "MLC202"]
    expected = {"MLC202": sorted([case.line_of("opt_lamb_epsilon"), case.line_of("opt_weight_decay")]),
                "MLC110": [case.line_of("eval_accuracy", n) for n in range(3)]}
    for code, lines in expected.items():
        assert found[code].line == lines[0] and found[code].item_count == len(lines)
        assert [item.split(":")[0] for item in found[code].items] == [f"line {n}" for n in lines]


def test_unknown_benchmark_is_reported_once(tmp_path: Path) -> None:
    records = GEN.base_records("2.0.0", "dlrm")
    records[4].value = "resnet50"
    path = tmp_path / "unknown.txt"
    path.write_text("\n".join(GEN.Case("2.0.0", "dlrm", "x", records).lines()) + "\n", encoding="utf-8")
    codes = [f.code for f in _findings(path, "2.0.0") if f.line == 5]
    assert codes == ["MLC011"]


def test_1_1_bert_weight_init_is_held_to_the_list_of_its_checker_of_record(
        cases: tuple[Path, list[dict[str, Any]]], tmp_path: Path) -> None:
    """The base 1.1 BERT case logs the record's 399 names (no MLC206); without the one name today's
    file dropped, it is one missing tensor, a warning as 1.1.0-rc4 only warned."""
    out, manifest = cases
    base = _case(out, manifest, "1.1.0", "bert", "base")
    assert not [f for f in _findings(base, "1.1.0") if f.code == "MLC206"]
    lines = [line for line in base.read_text("utf-8").splitlines() if "cls/predictions/decoder/kernel" not in line]
    trimmed = tmp_path / "result_0.txt"
    trimmed.write_text("\n".join(lines) + "\n", "utf-8")
    [found] = [f for f in _findings(trimmed, "1.1.0") if f.code == "MLC206"]
    assert found.severity is Severity.WARNING and "1 missing (cls/predictions/decoder/kernel)" in found.message


def test_no_rule_help_shows_docstring_markup() -> None:
    """``mlcheck explain`` and SARIF's help text show what a user reads: no ``:data:`X``` roles."""
    from mlcheck.report import rule_help
    from mlcheck.rules import all_rules

    marked = [rule.code for rule in all_rules() if re.search(r":(data|mod|func|class|meth|attr):`|``", rule_help(rule.code))]
    assert marked == []
