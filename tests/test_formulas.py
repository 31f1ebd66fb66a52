"""The constraint forms of rounds 3.0-6.1 as primitives: formulas (arithmetic as data, exact or
within a tolerance), the checker's states replayed over a run, the new occurrence and metadata
forms, and their documentation (``mlcheck explain forms``)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mlcheck.cli import main as cli_main
from mlcheck.facts import forms
from mlcheck.facts.constraints import describe, holds
from mlcheck.facts.formulas import Scope, StateDef, StateUnset, evaluate, formula_holds, render_formula, states_read
from mlcheck.model import Event, Run
from mlcheck.rules.checker_state import replay

ROOT = Path(__file__).resolve().parent.parent
THIS = {"this": "value"}
GBS = {"state": "global_batch_size"}


def op(name: str, *args: Any) -> dict[str, Any]:
    return {"op": name, "args": list(args)}


LR_405B = {"left": op("mul", THIS, 1152), "cmp": "==", "right": op("mul", GBS, 8e-05)}
LR_DEEPSEEK = {"left": THIS, "cmp": "==", "tolerance": 1e-09,
               "right": op("mul", 2.4e-05, op("pow", op("div", GBS, 16384), 0.5))}
DECAY_405B = {"left": THIS, "cmp": "==", "right": op("sub", op("ceil", op("div", op("mul", 1200000, 1152), GBS)),
                                                      {"state": "opt_learning_rate_warmup_steps"})}


@pytest.mark.parametrize("spec,value,states,python", [
    # the checker's own expressions, evaluated by Python here only to compare: the same verdicts
    (LR_405B, 8e-05, {"global_batch_size": 1152}, 8e-05 * 1152 == 1152 * 8e-5),
    (LR_405B, 1.6e-04, {"global_batch_size": 2304}, 1.6e-04 * 1152 == 2304 * 8e-5),
    (LR_405B, 0.00016, {"global_batch_size": 2304}, 0.00016 * 1152 == 2304 * 8e-5),
    (LR_405B, 1e-4, {"global_batch_size": 1152}, False),
    (LR_DEEPSEEK, 2.4e-05 * (15360 / 16384) ** 0.5, {"global_batch_size": 15360}, True),
    (LR_DEEPSEEK, 2.4e-05 * (15360 / 16384) ** 0.5 + 5e-10, {"global_batch_size": 15360}, True),
    (LR_DEEPSEEK, 2.4e-05 * (15360 / 16384) ** 0.5 + 2e-9, {"global_batch_size": 15360}, False),
    (DECAY_405B, math.ceil(1_200_000 * 1152 / 2048) - 4500,
     {"global_batch_size": 2048, "opt_learning_rate_warmup_steps": 4500}, True),
    (DECAY_405B, 1_200_000 - 4500, {"global_batch_size": 2048, "opt_learning_rate_warmup_steps": 4500}, False),
])
def test_formulas_agree_with_python_arithmetic(spec: dict[str, Any], value: float, states: dict[str, Any],
                                               python: bool) -> None:
    assert formula_holds(spec, Scope(value, {}, states)) is python


def test_int_stays_int_and_errors_never_hold() -> None:
    assert evaluate(op("sub", 1200000, 100), Scope(0)) == 1199900
    assert isinstance(evaluate(op("ceil", op("div", 9216000, 1152)), Scope(0)), int)
    assert not formula_holds(LR_405B, Scope("8e-05", {}, {"global_batch_size": 1152}))  # a string
    assert not formula_holds({"left": op("div", 1, THIS), "cmp": "==", "right": 1}, Scope(0))  # 1 / 0
    assert not formula_holds({"left": op("sqrt", THIS), "cmp": ">", "right": 0}, Scope(-1.0))
    with pytest.raises(StateUnset) as unset:
        formula_holds(LR_405B, Scope(8e-05))
    assert unset.value.name == "global_batch_size"


def test_formulas_read_as_formulas() -> None:
    assert render_formula(LR_405B) == "the value * 1152 == global_batch_size * 8e-05"
    assert render_formula(LR_DEEPSEEK) == "|the value - (2.4e-05 * ((global_batch_size / 16,384) ^ 0.5))| < 1e-09"
    assert describe({"formula": DECAY_405B}) == ("the value == ceil((1,200,000 * 1152) / global_batch_size) - "
                                                 "opt_learning_rate_warmup_steps")
    assert states_read(DECAY_405B) == ["global_batch_size", "opt_learning_rate_warmup_steps"]


def _run(*records: tuple[str, Any, int]) -> Run:
    events = tuple(Event(key, value, {}, 0.0, line) for key, value, line in records)
    counts: dict[str, int] = {}
    for event in events:
        counts[event.key] = counts.get(event.key, 0) + 1
    return Run(path="x", index=0, events=events, key_counts=counts, evaluations=(), first_line=1,
               last_line=events[-1].line)


def test_states_are_those_set_before_the_record() -> None:
    defs = (StateDef("global_batch_size", "global_batch_size", THIS, "s"),
            StateDef("opt_learning_rate_warmup_steps", "opt_learning_rate_warmup_steps",
                     op("ceil", op("div", op("mul", 8000, 1152), GBS)), "s"))
    timeline = replay(_run(("opt_learning_rate_warmup_steps", 8000, 3), ("global_batch_size", 2048, 5),
                           ("opt_learning_rate_warmup_steps", 4500, 7)), defs)
    assert timeline.at(3) == {}
    assert timeline.at(4) == {}  # the first warmup record came before the batch size: its POST failed
    assert timeline.at(6) == {"global_batch_size": 2048}
    assert timeline.at(8) == {"global_batch_size": 2048, "opt_learning_rate_warmup_steps": 4500}
    assert timeline.origin(8, "opt_learning_rate_warmup_steps") == 7
    assert timeline.setter("opt_learning_rate_warmup_steps") == "opt_learning_rate_warmup_steps"


@pytest.mark.parametrize("check_data,value,expected", [
    ({"whole_number": True}, 8.000001, True),
    ({"whole_number": True}, 1.5, False),
    ({"whole_number": True}, "8", False),
    ({"has_fields": ["FID", "CLIP"]}, {"FID": 80.0, "CLIP": 0.2, "step_num": 100}, True),
    ({"has_fields": ["FID", "CLIP"]}, {"FID": 80.0}, False),
    ({"has_fields": ["FID"]}, "FID", False),
    ({"one_of": ["fp64", "bfloat16", "Graphcore FLOAT 16.16"]}, "Graphcore FLOAT 16.16", True),
])
def test_new_value_forms(check_data: dict[str, Any], value: Any, expected: bool) -> None:
    assert holds(check_data, value, lambda _key: None) is expected


def _schema_forms() -> set[str]:
    constraints = json.loads((ROOT / "schemas" / "constraints.schema.json").read_text("utf-8"))
    ruleset = json.loads((ROOT / "schemas" / "ruleset.schema.json").read_text("utf-8"))
    defs = constraints["$defs"]
    names = set(defs["check"]["properties"]) - {"text"}
    names |= set(defs["entry"]["properties"]) - {"key", "source", "req", "or", "min_count", "check"}
    names |= set(defs["entry"]["properties"]["req"]["enum"])
    bench = constraints["properties"]["benchmarks"]["additionalProperties"]["properties"]
    names |= set(bench) & {"overrides", "states", "open", "rules_text"}
    names |= set(ruleset["$defs"]["target"]["properties"]) & {"aggregate"}
    names |= {"target"} | (set(ruleset["properties"]["benchmarks"]["additionalProperties"]["properties"])
                           & {"open_target", "eval_position", "eval_cadence", "checkpoint_eval"})
    names |= {"ceil_to_batch"}  # the eval_cadence formula of the later rounds
    return names


def test_every_constraint_form_is_documented() -> None:
    undocumented = sorted(name for name in _schema_forms() if forms.form(name) is None)
    assert undocumented == []
    runner = CliRunner()
    listed = runner.invoke(cli_main, ["explain", "forms"])
    assert listed.exit_code == 0 and "formula:" in listed.output and "cadence:" in listed.output
    one = runner.invoke(cli_main, ["explain", "AT_LEAST"])
    assert one.exit_code == 0 and one.output.startswith("AT_LEAST: ")
    for code in ("MLC018", "MLC207", "MLC208"):
        explained = runner.invoke(cli_main, ["explain", code])
        assert explained.exit_code == 0 and explained.output.startswith(f"{code} ")


def _shipped_checks() -> list[dict[str, Any]]:
    """Every value and metadata check of the shipped constraint files (each once)."""
    found: dict[str, dict[str, Any]] = {}

    def add(check: Any) -> None:
        if isinstance(check, dict):
            found.setdefault(json.dumps(check, sort_keys=True), check)

    def walk(entries: list[dict[str, Any]]) -> None:
        for entry in entries:
            add(entry.get("check"))
            add(entry.get("first_check"))
            for check in entry.get("metadata_check", {}).values():
                add(check)

    root = Path(__file__).resolve().parent.parent / "schemas" / "rulesets"
    for path in sorted(root.glob("*/constraints.json")):
        data = json.loads(path.read_text("utf-8"))
        for group in ("common", "closed_common", "open_common"):
            walk(data[group])
        for bench in data["benchmarks"].values():
            walk(bench["keys"])
            walk(bench.get("overrides", []))
            walk(bench.get("open", {}).get("keys", []))
            for entries in bench.get("optimizer", {}).get("per_optimizer", {}).values():
                walk(entries)
    return list(found.values())


_ODD_VALUES: list[Any] = [None, True, False, 0, 1, -1, 2, 3, 4, 8, 64, 1024, 2 ** 53 + 1, 10 ** 400, 0.0, -0.0, 1e-9,
                          0.5, 1.0, 1.5, 2.5, 0.9, 0.0001, float("nan"), float("inf"), -float("inf"), "", " ", "closed",
                          "open", "onprem", "cloud", "adam", "lamb", "sgd", "lars", "0.9", [], [1], {}, {"float": 1.0}]


@pytest.mark.parametrize("check", _shipped_checks(), ids=lambda c: json.dumps(c, sort_keys=True)[:60])
def test_value_tests_agree_with_holds(check: dict[str, Any]) -> None:
    """A check compiled to a test of the value alone (mlcheck.facts.checks.value_test) says what
    holds says, and raises what it raises, for every value."""
    from mlcheck.facts.checks import value_test

    test = value_test(check)
    if test is None:
        return
    values = _ODD_VALUES + [v for part in check.values() if isinstance(part, list) for v in part]
    values += [b + d for part in check.values() if isinstance(part, dict) for key, b in part.items()
               if key in ("min", "max") for d in (-1, -1e-12, 0, 1e-12, 1)]
    for value in values:
        try:
            expected: Any = holds(check, value, lambda key: None)
        except Exception as error:  # noqa: BLE001 - the same error is expected
            with pytest.raises(type(error)):
                test(value)
            continue
        assert bool(test(value)) == expected, value


def test_a_boolean_is_compared_as_the_checkers_python_compares_it() -> None:
    """``true > 0`` holds in the official checker (a bool is an int in Python): a logged
    ``gradient_accumulation_steps: true`` passes ``> 0``, as the record checker passes it."""
    from mlcheck.facts.checks import holds

    def no_values(key: str) -> None:
        return None

    above_zero = {"range": {"min": 0, "min_exclusive": True}}
    assert holds(above_zero, True, no_values) and not holds(above_zero, False, no_values)
    assert not holds({"multiple_of": 2}, True, no_values) and holds({"multiple_of": 1}, True, no_values)
    assert not holds(above_zero, "1", no_values) and not holds(above_zero, None, no_values)


def test_int_reads_a_logged_string_of_digits_as_pythons_int_does() -> None:
    """6.1 deepseek's FIRST_CHECK is ``int(v['metadata']['samples_count']) == ...``: a count logged
    as "704512" passes the checker; arithmetic on the string itself still fails."""
    from mlcheck.facts.formulas import FormulaError, Scope, evaluate

    scope = Scope(value=1, metadata={"samples_count": "704512", "bad": "7.5", "flag": True})
    assert evaluate({"op": "int", "args": [{"this": "metadata.samples_count"}]}, scope) == 704512
    assert evaluate({"op": "int", "args": [{"this": "metadata.flag"}]}, scope) == 1
    for expr in ({"op": "int", "args": [{"this": "metadata.bad"}]},
                 {"op": "add", "args": [{"this": "metadata.samples_count"}, 1]}):
        with pytest.raises(FormulaError):
            evaluate(expr, scope)
