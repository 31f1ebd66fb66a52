"""Damaged copies where mlcheck's official verdict once differed from the round's checker, each
pinned by its outcome: a Mask R-CNN eval that is NaN or lacks SEGM (the YAML's ``CHECK: "'SEGM'
in v['value']"``), a key logged twice as NaN (the checker's ``json`` gives every NaN one object),
a marker in text that is no record before the real one, blanks that are not JSON's and a CR inside
a record of a result file (the parser's universal newlines end the line there)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import SHARED

from mlcheck import check
from mlcheck.facts.rulesets import Condition, Target
from mlcheck.rules.target_comparison import fields_absent
from mlcheck.rules.key_checks import same_value

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_RUN = ROOT / "fixtures" / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
MASKRCNN = SHARED / "other-submitters" / "training-3.0" / "NVIDIA" / "results" / "dgxh100_n8_ngc23.04_pytorch" / "maskrcnn" / "result_2.txt"


def _run(path: Path, ruleset: str = "2.0.0") -> tuple[str, set[tuple[str, str]]]:
    (run,) = check([str(path)], ruleset=ruleset).runs
    return run.official_verdict, {(f.code, f.severity.label) for f in run.findings if f.severity.label != "info"}


def _edited(tmp_path: Path, source: Path, pattern: str, replacement: str) -> Path:
    text = source.read_text("utf-8")
    changed, count = re.subn(pattern, replacement, text, count=1)
    assert count == 1, pattern
    path = tmp_path / "result_0.txt"
    path.write_text(changed, "utf-8")
    return path


def test_fields_absent_reads_in_as_python_does() -> None:
    target = Target("eval_accuracy", "box and mask", (Condition(">=", 0.377, "BBOX"), Condition(">=", 0.339, "SEGM")))
    assert fields_absent(target, {"BBOX": 0.4, "SEGM": 0.35}) == []
    assert fields_absent(target, {"BBOX": 0.4}) == ["SEGM"]
    assert fields_absent(target, float("nan")) == ["BBOX", "SEGM"]
    assert fields_absent(target, "BBOX SEGM") == []  # (a string: a substring test)


@pytest.mark.parametrize("value", ["NaN", "Infinity", '{"BBOX": 0.38}'])
def test_a_mask_rcnn_eval_the_yaml_checks_refuse_fails_the_file(tmp_path: Path, value: str) -> None:
    if not MASKRCNN.is_file():
        pytest.skip(f"{MASKRCNN} is absent (the shared MLCommons data)")
    path = _edited(tmp_path, MASKRCNN, r'"key": "eval_accuracy", "value": \{[^}]*\}', f'"key": "eval_accuracy", "value": {value}')
    verdict, codes = _run(path, "3.0.0")
    assert verdict == "fail" and ("MLC304", "error") in codes


@pytest.mark.parametrize("value,says", [
    ('{"BBOX": NaN, "SEGM": 0.35}', "its BBOX is NaN"),  # (compared first: false)
    ('{"BBOX": 0.38, "SEGM": NaN}', "its SEGM is NaN"),  # (BBOX holds, SEGM compared: false)
    ('{"BBOX": 0.2, "SEGM": NaN}', "stops at a condition"),  # (BBOX fails first: SEGM never compared)
])
def test_a_mask_rcnn_nan_says_whether_the_checker_compared_it(tmp_path: Path, value: str, says: str) -> None:
    if not MASKRCNN.is_file():
        pytest.skip(f"{MASKRCNN} is absent (the shared MLCommons data)")
    path = _edited(tmp_path, MASKRCNN, r'"key": "eval_accuracy", "value": \{[^}]*\}', f'"key": "eval_accuracy", "value": {value}')
    (run,) = check([str(path)], ruleset="3.0.0").runs
    (found,) = [f for f in run.findings if f.code == "MLC304"]
    assert found.severity.label == "warning" and says in found.message and run.official_verdict == "pass"


@pytest.mark.parametrize("rate,verdict", [("Infinity", "fail"), ("1e307", "fail"), ("0.005", "pass"), ("0.04", "pass")])
def test_an_or_whose_first_half_raises_fails_the_check(tmp_path: Path, rate: str, verdict: str) -> None:
    """2.0-3.1 closed Mask R-CNN: ``is_integer(v / 0.02) or (gbs < 16 and is_integer(0.02 / v))``.
    With a batch of 8, a rate of 0.005 passes by the second half; an infinite rate (or one whose
    ratio overflows) raises in the first half (``round(inf)``), which fails the file there."""
    if not MASKRCNN.is_file():
        pytest.skip(f"{MASKRCNN} is absent (the shared MLCommons data)")
    text = re.sub(r'("key": "global_batch_size", "value": )256', r"\g<1>8", MASKRCNN.read_text("utf-8"), count=1)
    path = tmp_path / "result_0.txt"
    path.write_text(re.sub(r'("key": "opt_base_learning_rate", "value": )0\.24', rf"\g<1>{rate}", text, count=1), "utf-8")
    (run,) = check([str(path)], ruleset="3.0.0").runs
    assert run.official_verdict == verdict
    assert ("MLC202" in {f.code for f in run.findings}) is (verdict == "fail")


def test_a_key_logged_twice_as_nan_is_the_same_value_to_the_checker(tmp_path: Path) -> None:
    assert same_value(float("nan"), float("nan")) and not same_value(float("nan"), 1.0) and same_value(1, 1.0)
    line = next(x for x in EXAMPLE_RUN.read_text("utf-8").splitlines(keepends=True) if '"key": "lars_opt_momentum"' in x)
    nan = re.sub(r'"value": [^,]+,', '"value": NaN,', line)
    path = tmp_path / "result_0.txt"
    path.write_text(EXAMPLE_RUN.read_text("utf-8").replace(line, nan + nan), "utf-8")
    codes = {code for code, _severity in _run(path)[1]}
    assert "MLC107" in codes and "MLC106" not in codes


def test_a_quoted_marker_before_the_record_hides_nothing(tmp_path: Path) -> None:
    """``echo ":::MLLOG " && :::MLLOG {...}``: the parser reads from the last marker; the text
    after the first is no record, and never the start of one that swallows the next marker."""
    path = _edited(tmp_path, EXAMPLE_RUN, r'(:::MLLOG [^\n]*"key": "run_stop")', r'echo ":::MLLOG " && \1')
    verdict, codes = _run(path)
    assert verdict == _run(EXAMPLE_RUN)[0] == "pass"
    assert {code for code, _severity in codes} <= {"MLC010"}


@pytest.mark.parametrize("damage", [(r':::MLLOG (\{[^\n]*"key": "run_stop")', ":::MLLOG \x0c\\1"),
                                    (r':::MLLOG (\{[^\n]*"key": "run_stop")', ":::MLLOG \u00a0\\1"),
                                    (r'("key": "run_stop"[^\n]*), "metadata"', '\\1,\r "metadata"'),
                                    (r':::MLLOG (\{[^\n]*"key": "run_stop")', ":::MLLOG \r\\1")])
def test_blanks_the_parser_does_not_skip_fail_a_result_file(tmp_path: Path, damage: tuple[str, str]) -> None:
    path = _edited(tmp_path, EXAMPLE_RUN, *damage)
    verdict, codes = _run(path)
    assert verdict == "fail" and ("MLC003", "error") in codes


STABLE_DIFFUSION = (SHARED / "other-submitters" / "training-5.0" / "Lenovo" / "results" / "SR780aV3-8xB200_SXM_180GB"
                    / "stable_diffusion" / "result_0.txt")


@pytest.mark.parametrize("field, value", [("samples_count", "[1024000]"), ("metric", '["FID"]')])
def test_a_stable_diffusion_eval_the_merging_code_cannot_key_fails_the_file(tmp_path: Path, field: str, value: str) -> None:
    """The checker's BEGIN code keys a dict by samples_count and metric: a list there raises
    (unhashable) and fails the file; mlcheck says MLC304 at that record."""
    if not STABLE_DIFFUSION.is_file():
        pytest.skip(f"{STABLE_DIFFUSION} is absent (the shared MLCommons data)")
    pattern = r'("key": "eval_accuracy"[^\n]*"metadata": \{[^\n]*"' + field + r'": )("[^"]*"|[0-9]+)'
    path = _edited(tmp_path, STABLE_DIFFUSION, pattern, r"\g<1>" + value)
    verdict, codes = _run(path, "5.0.0")
    assert verdict == "fail" and ("MLC304", "error") in codes


@pytest.mark.parametrize("first,second,verdict,code", [
    ("caf\u00e9".encode("utf-8"), b"caf\\u00e9", "fail", "MLC106"),  # (latin-1 reads 'cafÃ©' and 'café': different)
    (b"caf\xe9", b"caf\\u00e9", "pass", "MLC107"),  # (a latin-1 byte and its escape: the same there)
    (b"caf\xe9", b"caf\xe8", "fail", "MLC106"),  # (two bytes that are not UTF-8: different there)
])
def test_a_result_file_is_read_as_latin1_as_the_parser_reads_it(tmp_path: Path, first: bytes, second: bytes,
                                                               verdict: str, code: str) -> None:
    """The parser opens a result file as latin-1: a key logged twice is compared as it reads the
    bytes (before, mlcheck read UTF-8, and a byte that is not UTF-8 as U+FFFD)."""
    lines = EXAMPLE_RUN.read_bytes().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if b'"key": "submission_platform"' in line)
    value = re.search(rb'"value": "([^"]*)"', lines[at]).group(1)  # type: ignore[union-attr]
    lines[at:at + 1] = [lines[at].replace(value, first), lines[at].replace(value, second)]
    path = tmp_path / "result_0.txt"
    path.write_bytes(b"".join(lines))
    (run,) = check([str(path)], ruleset="2.0.0").runs
    assert run.official_verdict == verdict and code in {f.code for f in run.findings}


@pytest.mark.parametrize("tail,verdict,code", [
    (b" x:::MLLOG", "fail", "MLC003"),  # (no space: not the token, no cut; text after the record)
    (b" \xe9:::MLLOG{}", "fail", "MLC003"),
    (b" :::MLLOG {}", "fail", "MLC010"),  # (the token: the line is cut there, the record hidden and its key lost)
])
def test_a_marker_without_its_space_hides_no_record(tmp_path: Path, tail: bytes, verdict: str, code: str) -> None:
    """The parser cuts a line at its last ``":::MLLOG "``: a later marker without the space is not
    one, so the record before it is read, with text after its JSON, and fails the file."""
    lines = EXAMPLE_RUN.read_bytes().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if b'"key": "submission_org"' in line)
    lines[at] = lines[at].rstrip(b"\n") + tail + b"\n"
    path = tmp_path / "result_0.txt"
    path.write_bytes(b"".join(lines))
    (run,) = check([str(path)], ruleset="2.0.0").runs
    assert run.official_verdict == verdict and code in {f.code for f in run.findings}
