"""MLC113: what mlperf-logging 4.1.68's training_6.0.0 and 6.1.0 rule files refuse that the round's
checker of record passes, said as warnings (the record's verdict stands)."""

from __future__ import annotations

import re
from pathlib import Path

from tool_scripts import load_tool
from mlcheck import check
from mlcheck.model import Severity


def _base(benchmark: str, version: str = "6.1.0") -> str:
    cases = load_tool("make_later_cases").build_cases(version, benchmark)
    return "\n".join(next(case for case, _ in cases if case.kind == "base").lines()) + "\n"


def _mlc113(tmp_path: Path, text: str, version: str = "6.1.0") -> tuple[list[tuple[int | None, str]], str]:
    log = tmp_path / "result_0.txt"
    log.write_text(text, "utf-8")
    (run,) = check([str(log)], ruleset=version).runs
    assert all(f.severity is Severity.WARNING for f in run.findings if f.code == "MLC113")
    return [(f.line, f.message) for f in run.findings if f.code == "MLC113"], run.official_verdict


def test_a_log_that_both_pass_has_no_warning(tmp_path: Path) -> None:
    assert _mlc113(tmp_path, _base("llama31_8b")) == ([], "pass")


def test_disclosure_keys_not_logged_are_one_warning_naming_them(tmp_path: Path) -> None:
    text = "".join(line for line in _base("llama31_8b").splitlines(keepends=True)
                   if not re.search(r'"key": "(tensor_parallelism|config_filename)"', line))
    found, verdict = _mlc113(tmp_path, text)
    assert verdict == "pass" and len(found) == 1
    assert found[0][1].startswith("2 keys are not logged (tensor_parallelism, config_filename); the checker of "
                                  "record of training 6.1.0 lets that pass, but mlperf-logging 4.1.68")


def test_values_the_release_refuses_and_the_record_passes(tmp_path: Path) -> None:
    text = re.sub(r'("key": "tensor_parallelism", "value": )\d+', r"\g<1>0", _base("llama31_8b"))
    found, verdict = _mlc113(tmp_path, text)
    assert verdict == "pass" and [m.split(";")[0] for _, m in found] == ["tensor_parallelism is 0"]
    assert found[0][1].endswith("it requires a whole number and >= 1")
    qwen = re.sub(r'("key": "eval_samples", "value": )\d+', r"\g<1>256", _base("qwen35_397b_grpo"))
    found, verdict = _mlc113(tmp_path, qwen)
    assert verdict == "pass" and [m.split(";")[0] for _, m in found] == ["eval_samples is 256"]


def test_a_key_logged_twice_with_different_values_is_said_once(tmp_path: Path) -> None:
    lines = _base("llama31_8b").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"key": "micro_batch_size"' in line)
    other = re.sub(r'("value": )(\d+)', lambda m: f"{m.group(1)}{int(m.group(2)) + 1}", lines[at])
    found, verdict = _mlc113(tmp_path, "".join(lines[:at + 1] + [other] + lines[at + 1:]))
    assert verdict == "pass" and [(line, m.split(" (")[0]) for line, m in found] == [
        (at + 2, "micro_batch_size is logged 2 times with different values")]


def test_a_value_the_record_refuses_too_is_only_the_records_error(tmp_path: Path) -> None:
    text = re.sub(r'("key": "lowest_numerical_precision_in_linear", "value": )"[^"]*"', r'\1"fp7"',
                  _base("llama31_8b"))
    found, verdict = _mlc113(tmp_path, text)
    assert found == [] and verdict == "fail"


def test_a_value_only_the_release_accepts_is_said_beside_the_records_error(tmp_path: Path) -> None:
    """MLC114 (info): 6.1's record refuses mxfp6 (MLC111 stands), 4.1.68 accepts it: the round's
    final checker may (review of session 41); fp7, which both refuse, gets none."""
    for value, said in (("mxfp6", True), ("fp7", False)):
        log = tmp_path / "result_0.txt"
        log.write_text(re.sub(r'("key": "lowest_numerical_precision_in_linear", "value": )"[^"]*"', rf'\1"{value}"',
                              _base("llama31_8b")), "utf-8")
        (run,) = check([str(log)], ruleset="6.1.0").runs
        notes = [f for f in run.findings if f.code == "MLC114"]
        assert run.official_verdict == "fail" and any(f.code == "MLC111" for f in run.findings)
        assert [f.severity for f in notes] == ([Severity.INFO] if said else [])
        if said:
            assert notes[0].message.startswith("lowest_numerical_precision_in_linear is 'mxfp6', which the checker of "
                                               "record of training 6.1.0 refuses (its error stands), but mlperf-logging")



def test_a_state_the_checker_computes_is_said_to_come_from_its_key(tmp_path: Path) -> None:
    """MLC202 on 6.1 Qwen's learning rate names the checker's state and the key it is computed from
    (was: 'learning_rate ... (line 8)', the line of global_batch_size, a key of another name)."""
    text = re.sub(r'("key": "global_batch_size", "value": )\d+', r"\g<1>512", _base("qwen35_397b_grpo"))
    log = tmp_path / "result_0.txt"
    log.write_text(text, "utf-8")
    (run,) = check([str(log)], ruleset="6.1.0").runs
    told = [f.message for f in run.findings if f.code == "MLC202" and f.message.startswith("opt_base_learning_rate")]
    assert told and "(from global_batch_size, line " in told[0]


def test_an_open_6_0_llm_eval_without_samples_count(tmp_path: Path) -> None:
    """6.0's record (6.0.0-rc6) asks epoch_num of an open LLM's evals; 4.1.68's training_6.0.0
    open files ask samples_count (logging commit 3d71f7e): an eval with epoch_num alone passes the
    record and fails the release (a review, session 34: no warning was given)."""
    base = _base("gpt_oss_20b", "6.0.0").replace('"value": "closed"', '"value": "open"')
    assert _mlc113(tmp_path, base, "6.0.0") == ([], "pass")  # (both: each passes)
    lines = base.splitlines(keepends=True)
    first = 1 + next(i for i, line in enumerate(lines) if '"eval_accuracy"' in line)
    found, verdict = _mlc113(tmp_path, re.sub(r', "samples_count": \d+', "", base), "6.0.0")
    assert verdict == "pass" and [line for line, _ in found] == [first]
    assert found[0][1].startswith("eval_accuracy has no samples_count in its metadata (3 of 3 records); the "
                                  "checker of record of training 6.0.0 lets that pass, but mlperf-logging 4.1.68")
    found, verdict = _mlc113(tmp_path, re.sub(r'"epoch_num": \d+, ', "", base), "6.0.0")
    assert verdict == "fail" and found == []  # (the record's own error, MLC110, says it)
    qwen = re.sub(r'("key": "eval_samples", "value": )\d+', r"\g<1>256",
                  _base("qwen35_397b_grpo").replace('"value": "closed"', '"value": "open"'))
    found, verdict = _mlc113(tmp_path, qwen)  # (6.1's open Qwen3.5 file differs as the closed one does)
    assert verdict == "pass" and [m.split(";")[0] for _, m in found] == ["eval_samples is 256"]


def test_a_division_neither_closed_nor_open_gets_no_open_entries(tmp_path: Path) -> None:
    """A division the rules do not name has its own error; the release's open files are not applied to
    it (6.0's open eval entries would add a warning about samples_count)."""
    base = _base("gpt_oss_20b", "6.0.0").replace('"value": "closed"', '"value": "preview"')
    found, verdict = _mlc113(tmp_path, re.sub(r', "samples_count": \d+', "", base), "6.0.0")
    assert verdict == "fail" and found == []
