"""The JSON report (issue 2 §8): valid against ``schemas/report.schema.json``, every input file in
``runs``, deterministic bytes, unrounded minutes."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from click.testing import CliRunner

from mlcheck.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "fixtures" / "example" / "Acme"
BAD = ROOT / "fixtures" / "bad"
SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text("utf-8"))


def report_text(*paths: Path, options: tuple[str, ...] = ()) -> str:
    result = CliRunner().invoke(main, ["check", "--format", "json", *options, *map(str, paths)])
    assert result.exit_code in (0, 1), result.output
    assert "Traceback" not in result.stderr
    return result.stdout


def report(*paths: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(report_text(*paths))
    return loaded


def validate(data: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.Draft202012Validator(SCHEMA).validate(data)


def logs_under(folder: Path) -> set[str]:
    return {os.path.join(root, name) for root, _, names in os.walk(folder) for name in names
            if name.endswith((".txt", ".gz"))}


def test_example_report_is_valid_and_complete() -> None:
    data = report(EXAMPLE)
    validate(data)
    assert data["schema"] == "mlcheck-report/1" and data["tool"]["name"] == "mlcheck"
    assert {r["path"] for r in data["runs"]} == logs_under(EXAMPLE)
    (bench,) = data["benchmarks"]
    assert (bench["org"], bench["system"], bench["benchmark"], bench["division"], bench["ruleset"]) == (
        "Acme", "acme-t8", "resnet", "closed", "2.0.0")
    assert bench["valid"] and len(bench["runs_counted"]) == 3 and len(bench["runs_dropped"]) == 2
    assert all(r["verdict"] == "pass" and r["official_verdict"] == "pass" for r in data["runs"])
    assert data["summary"]["verdict"] == "pass" and data["findings"] == []


def test_bad_fixtures_report_is_valid_and_lists_every_file() -> None:
    data = report(BAD)
    validate(data)
    assert {r["path"] for r in data["runs"]} == logs_under(BAD)
    empty = [r for r in data["runs"] if r["path"].endswith("empty.txt")]
    assert len(empty) == 1 and empty[0]["index"] == 0 and empty[0]["lines"] is None
    assert [f["code"] for f in empty[0]["findings"]] == ["MLC002"]
    assert data["summary"]["verdict"] == "fail"
    every = [f for r in data["runs"] for f in r["findings"]] + [
        f for b in data["benchmarks"] for f in b["findings"]]
    assert sorted(map(json.dumps, every)) == sorted(map(json.dumps, data["findings"]))


def test_findings_are_sorted_and_carry_lines() -> None:
    data = report(BAD / "glued_records.txt", BAD / "invalid_json.txt")
    keys = [(f["path"], f["run_index"] if f["run_index"] is not None else -1, f["line"] or 0, f["code"])
            for f in data["findings"]]
    assert keys == sorted(keys)
    assert [(f["code"], f["line"]) for f in data["findings"]] == [("MLC010", 15), ("MLC003", 14)]


def test_output_is_byte_identical_across_runs() -> None:
    first = report_text(EXAMPLE, BAD)
    assert first == report_text(EXAMPLE, BAD)
    assert first.endswith("}\n")


def _boundary_ms(path: Path) -> tuple[float, float]:
    times = {}
    for line in path.read_text("utf-8").splitlines():
        record = json.loads(line.split(":::MLLOG", 1)[1])
        if record["key"] in ("run_start", "run_stop"):
            times[record["key"]] = record["time_ms"]
    return times["run_start"], times["run_stop"]


def test_minutes_are_unrounded() -> None:
    data = report(EXAMPLE)
    minutes = {}
    for run in data["runs"]:
        start, stop = _boundary_ms(Path(run["path"]))
        assert run["time_to_train_min"] == (stop - start) / 60000
        assert run["duration_min"] == run["time_to_train_min"]
        minutes[run["path"]] = run["time_to_train_min"]
    (bench,) = data["benchmarks"]
    counted = [minutes[r["path"]] for r in bench["runs_counted"]]
    assert bench["score_min"] == sum(counted) / 3
    assert bench["score_min"] != round(bench["score_min"], 2)
    assert round(bench["score_min"], 2) == 15.29
    ranked = sorted(minutes.values())
    assert sorted(counted) == ranked[1:4]
    assert sorted(r["time_to_train_min"] for r in bench["runs_dropped"]) == [ranked[0], ranked[4]]


def test_corpus_report_is_valid_and_lists_every_file(corpus: Path) -> None:
    data = report(corpus)
    validate(data)
    assert {r["path"] for r in data["runs"]} == logs_under(corpus)
    assert len(data["benchmarks"]) == 21
    assert all(isinstance(b["score_min"], float) for b in data["benchmarks"])


@pytest.mark.parametrize("name", ["run_stop_missing.txt", "aborted_but_reached.txt", "base_open.txt"])
def test_non_converged_runs_have_no_time_to_train(name: str) -> None:
    (run,) = report(BAD / name)["runs"]
    assert (run["time_to_train_min"] is None) == (not run["converged"])


_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
                    st.text())
_VALUES = st.recursive(_LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.tuples(inner, inner),
    st.dictionaries(st.one_of(st.text(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.booleans(), st.none()),
                    inner, max_size=4)), max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(_VALUES, st.integers(min_value=0, max_value=3))
def test_written_values_are_the_standard_encoders_text(value: Any, level: int) -> None:
    """The report's own writer gives the text of ``json.dumps(value, indent=2)`` (indented to its
    level), and streamed arrays the same text as lists."""
    from mlcheck.report.json_report import Items, json_blocks

    standard = json.dumps(value, indent=2, allow_nan=False)
    assert "".join(json_blocks(value)) == standard + "\n"
    nested = {"a": [value, {"b": value}], "level": level}
    streamed = {"a": Items([value, {"b": value}], lambda item: item), "level": level}
    assert "".join(json_blocks(streamed)) == json.dumps(nested, indent=2, allow_nan=False) + "\n"


@pytest.mark.parametrize("value", [float("nan"), float("inf"), [1, float("-inf")], {"a": {1.5: float("nan")}}])
def test_out_of_range_floats_are_null_where_the_standard_encoder_fails(value: Any) -> None:
    """Strict JSON has no NaN: the standard encoder raises (allow_nan=False); the report writes
    null, never losing the report (a NaN from a log reached the RCP figures; session 44)."""
    from mlcheck.report.json_report import json_blocks

    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        json.dumps(value, indent=2, allow_nan=False)
    def nulled(item: Any) -> Any:
        if isinstance(item, float) and item != item or item in (float("inf"), float("-inf")):
            return None
        return [nulled(x) for x in item] if isinstance(item, list) else {
            k: nulled(v) for k, v in item.items()} if isinstance(item, dict) else item
    assert "".join(json_blocks(value)) == json.dumps(nulled(value), indent=2) + "\n"


def test_a_nan_convergence_point_never_loses_the_json_report(tmp_path: Path) -> None:
    """A run whose last eval logs ``epoch_num`` NaN: the RCP figures hold NaN, written ``null``
    (was: "internal error: ValueError: Out of range float values are not JSON compliant", exit 2,
    no report; a review, session 44)."""
    import re
    import shutil

    from mlcheck.report.json_text import json_blocks

    assert "".join(json_blocks({"x": float("nan"), "y": [float("inf")]})) == '{\n  "x": null,\n  "y": [\n    null\n  ]\n}\n'
    folder = tmp_path / "resnet"
    shutil.copytree(EXAMPLE / "results" / "acme-t8" / "resnet", folder)
    log = folder / "result_0.txt"
    lines = log.read_text("utf-8").splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if '"eval_accuracy"' in line)
    lines[last] = re.sub(r'"epoch_num": [0-9.]+', '"epoch_num": NaN', lines[last])
    log.write_text("".join(lines), "utf-8")
    result = CliRunner().invoke(main, ["check", str(folder), "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    assert json.loads(result.stdout)["benchmarks"][0]["rcp"] is not None
