"""MLC307 eval-cadence: closed runs evaluate on the round's schedule (a rule of the rules text
that the official checker leaves out)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import FIXTURES
from mlcheck import check

GOOD = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"


def _eval_rows(lines: list[str]) -> list[int]:
    return [i for i, row in enumerate(lines) if '"key": "eval_accuracy"' in row]


def _shift(lines: list[str], index: int, by: int) -> list[str]:
    record = json.loads(lines[index][len(":::MLLOG "):])
    record["metadata"]["epoch_num"] += by
    return lines[:index] + [":::MLLOG " + json.dumps(record) + "\n"] + lines[index + 1:]


def _cadence(path: Path) -> list[tuple[int | None, bool, str]]:
    return [(f.line, f.official, f.severity.label) for f in check([str(path)]).all_findings()
            if f.code == "MLC307"]


def test_resnet_on_schedule_has_no_finding() -> None:
    assert _cadence(GOOD) == []


def test_resnet_eval_off_the_4_epoch_schedule_is_one_warning(tmp_path: Path) -> None:
    lines = GOOD.read_text("utf-8").splitlines(keepends=True)
    rows = _eval_rows(lines)
    assert len(rows) >= 3
    log = tmp_path / "result_0.txt"
    log.write_text("".join(_shift(lines, rows[1], 1)), "utf-8")  # 2nd eval one epoch late
    assert _cadence(log) == [(rows[1] + 1, False, "warning")]


def test_bert_eval_off_the_formula_is_a_warning(tmp_path: Path, corpus: Path) -> None:
    source = next(iter(sorted((corpus / "training-2.0").rglob("*POPART-closed/bert/result_0.txt"))))
    lines = source.read_text("utf-8").splitlines(keepends=True)
    assert _cadence(source) == []
    rows = _eval_rows(lines)
    log = tmp_path / "result_0.txt"
    log.write_text("".join(_shift(lines, rows[2], 60_000)), "utf-8")
    found = _cadence(log)
    assert found == [(rows[2] + 1, False, "warning")]


def test_the_whole_corpus_is_on_schedule(corpus: Path) -> None:
    found = [f for f in check([str(corpus)]).all_findings() if f.code == "MLC307"]
    assert found == []


# -- packed sequences (issue 14) ---------------------------------------------------------------

def _bert_lines(corpus: Path) -> list[str]:
    source = next(iter(sorted((corpus / "training-2.0").rglob("*POPART-closed/bert/result_0.txt"))))
    return source.read_text("utf-8").splitlines(keepends=True)


def _with_positions(lines: list[str], batch: int, positions: list[int]) -> list[str]:
    out, evals = [], iter(positions)
    for line in lines:
        if '"key": "global_batch_size"' in line or '"key": "eval_accuracy"' in line:
            record = json.loads(line[len(":::MLLOG "):])
            if record["key"] == "global_batch_size":
                record["value"] = batch
            else:
                position = next(evals, None)
                if position is None:
                    continue
                record["metadata"]["epoch_num"] = position
            line = ":::MLLOG " + json.dumps(record) + "\n"
        out.append(line)
    return out


# As NVIDIA's packed BERT (3.0-5.0) evaluates with global_batch_size 768: the batch boundary
# nearest each due point, up to two batches of sequences either side.
PACKED = [150_369, 300_014, 449_751, 600_202, 748_900, 901_200, 1_050_369, 1_199_751]


def test_a_packed_bert_run_within_a_packed_batch_of_the_schedule_is_on_schedule(tmp_path: Path, corpus: Path) -> None:
    log = tmp_path / "result_0.txt"
    log.write_text("".join(_with_positions(_bert_lines(corpus), 768, PACKED)), "utf-8")
    assert _cadence(log) == []


def test_a_packed_run_off_by_more_than_a_packed_batch_is_one_warning(tmp_path: Path, corpus: Path) -> None:
    late = [p + 3_600 for p in PACKED]  # the whole schedule starts 3,600 sequences late
    log = tmp_path / "result_0.txt"
    log.write_text("".join(_with_positions(_bert_lines(corpus), 768, late)), "utf-8")
    (found,) = [f for f in check([str(log)]).all_findings() if f.code == "MLC307"]
    assert found.message.startswith("eval 1 is at 153,969 samples; ")  # the number once, not twice
    assert "the runs pack sequences (768 packs a batch, up to 3 sequences a pack), so an eval may land up to 2,304 " \
        "sequences from its due point, no further" in found.message
    assert found.message.endswith("The official checker does not check the schedule (the result is accepted), but "
                                  "the evals decide when the target is seen: a reviewer may ask why")


def test_an_unpacked_run_still_rounds_up_to_one_batch(tmp_path: Path, corpus: Path) -> None:
    early = [(k * 150_000 // 768 - 2) * 768 for k in range(1, 9)]  # multiples of the batch: not packed
    log = tmp_path / "result_0.txt"
    log.write_text("".join(_with_positions(_bert_lines(corpus), 768, early)), "utf-8")
    (found,) = [f for f in check([str(log)]).all_findings() if f.code == "MLC307"]
    assert "rounded up to a batch at most" in found.message


def test_evals_that_all_log_one_position_are_said_to_be_unplaceable(tmp_path: Path, corpus: Path) -> None:
    log = tmp_path / "result_0.txt"
    log.write_text("".join(_with_positions(_bert_lines(corpus), 768, [1] * 8)), "utf-8")
    (found,) = [f for f in check([str(log)]).all_findings() if f.code == "MLC307"]
    assert found.message.startswith("every eval logs the same position (1): not the samples trained")


def test_nvidia_packed_bert_logs_are_on_schedule() -> None:
    from conftest import SHARED
    folder = SHARED / "other-submitters" / "training-3.0" / "NVIDIA" / "results" / "dgxh100_ngc23.04_pytorch" / "bert"
    if not folder.is_dir():
        import pytest
        pytest.skip("../shared/other-submitters is not present")
    result = check([str(folder)], ruleset="2.1.0")  # (3.0 is not a round of this branch)
    assert len(result.runs) == 10 and not [f for f in result.all_findings() if f.code == "MLC307"]


# --- rounds 3.0-6.1: the rows of the latest rules text -----------------------------------------------

import pytest  # noqa: E402

from tool_scripts import load_tool  # noqa: E402


def _later_log(tmp_path: Path, ruleset: str, benchmark: str, positions: list[int] | None = None,
               field: str = "samples_count") -> Path:
    """The case generator's compliant base log, its evals moved to ``positions``."""
    gen, first = load_tool("make_later_cases"), load_tool("make_rule_cases")
    records = gen.base_records(ruleset, benchmark)
    for record, at in zip([r for r in records if r.key == "eval_accuracy"], positions or []):
        record.metadata[field] = at
    path = tmp_path / f"{benchmark}.txt"
    path.write_text("\n".join(first.Case(ruleset, benchmark, "x", records).lines()) + "\n", "utf-8")
    return path


@pytest.mark.parametrize("ruleset, benchmark", [
    ("3.0.0", "bert"), ("5.0.0", "bert"), ("3.1.0", "resnet"), ("4.0.0", "resnet"), ("3.1.0", "rnnt"),
    ("6.0.0", "llama31_8b"), ("6.0.0", "gpt_oss_20b"), ("6.0.0", "llama31_405b"), ("6.1.0", "llama2_70b_lora"),
    ("6.1.0", "flux1"), ("6.0.0", "deepseekv3_671b"), ("6.1.0", "deepseekv3_671b")])
def test_the_later_rounds_check_the_rules_text_schedule(tmp_path: Path, ruleset: str, benchmark: str) -> None:
    from mlcheck.facts.rulesets import load_ruleset

    cadence = load_ruleset(ruleset).facts(benchmark).eval_cadence
    assert cadence is not None and "training_rules.adoc (HEAD d73e20f, v6.0)" in cadence.source
    assert _cadence(_later_log(tmp_path, ruleset, benchmark)) == []  # the generator's log is on schedule


@pytest.mark.parametrize("ruleset, benchmark, positions, line_of_eval, says", [
    # Llama 3.1 8B, batch 32: every 12,288 samples; one batch early is a counting convention (AMD 5.1)
    ("6.0.0", "llama31_8b", [12256, 24576, 36864], None, ""),
    ("6.0.0", "llama31_8b", [8192, 16384, 24576], 0, "eval 1 is at 8,192 samples; with global_batch_size 32 the "
     "rules evaluate llama31_8b every 12,288 samples, so eval 1 is due at 12,288"),
    # a later eval off the schedule says how far after the one before it lies (an implementation
    # that rounds the interval down to a batch drifts a batch earlier at each eval)
    ("6.0.0", "llama31_8b", [12288, 20480, 36864], 1, "eval 2 is at 20,480 samples, 8,192 after the one before; "
     "with global_batch_size 32 the rules evaluate llama31_8b every 12,288 samples, so eval 2 is due at 24,576"),
    # Llama 2 70B LoRA, batch 1: every 384, the first FLOOR(0.125 x 1 + 2) = 2 skipped
    ("6.1.0", "llama2_70b_lora", [384, 768, 1152], 0, "skipping the first 2, so eval 1 is due at 1,152"),
    # Llama 3.1 405B, batch 1152: every 18,432, FLOOR(0.0026 x 1152 + 12) = 14 skipped
    ("6.0.0", "llama31_405b", [276480, 294912, 331776], 2, "eval 3 is at 331,776 samples"),
    # DeepSeek-V3, every step: the spacing only (6.1's checker places the first eval)
    ("6.1.0", "deepseekv3_671b", [720896, 737280, 770048], 2, "eval 3 is at 770,048 samples, 32,768 after"),
])
def test_an_eval_off_the_rules_text_schedule_is_one_warning(tmp_path: Path, ruleset: str, benchmark: str,
                                                            positions: list[int], line_of_eval: int | None,
                                                            says: str) -> None:
    path = _later_log(tmp_path, ruleset, benchmark, positions)
    found = [f for f in check([str(path)], ruleset=ruleset).all_findings() if f.code == "MLC307"]
    if line_of_eval is None:
        assert found == []
        return
    rows = _eval_rows(path.read_text("utf-8").splitlines())
    assert [(f.line, f.severity.label, f.official) for f in found] == [(rows[line_of_eval] + 1, "warning", False)]
    assert says in found[0].message and "§Quality measure" in found[0].message


def test_benchmarks_without_a_checked_schedule() -> None:
    """DLRMv2 (its row's unit is ambiguous), the rows 1.0-2.1 leave out, the benchmarks whose
    checker checks the grid, and the rounds 3.0-5.1 of benchmarks introduced after 2.1."""
    from mlcheck.facts.rulesets import load_ruleset

    none = {"3.0.0": ("dlrm_dcnv2", "gpt3", "ssd", "maskrcnn", "unet3d"), "5.0.0": ("llama31_405b", "rgat"),
            "5.1.0": ("llama31_8b", "flux1", "llama2_70b_lora"), "6.0.0": ("dlrm_dcnv2",),
            "6.1.0": ("qwen35_397b_grpo", "dlrmv4")}
    for ruleset, benchmarks in none.items():
        for benchmark in benchmarks:
            assert load_ruleset(ruleset).facts(benchmark).eval_cadence is None, (ruleset, benchmark)


def test_a_global_batch_size_of_infinity_or_nan_is_no_schedule_and_no_crash(tmp_path: Path, corpus: Path) -> None:
    """Infinity and NaN are JSON to the reader (the value checks judge them): the schedule is not
    computed from them, and no rule crashes (MLC000)."""
    source = next(iter(sorted((corpus / "training-2.0").rglob("*POPART-closed/bert/result_0.txt"))))
    text = source.read_text("utf-8")
    head, _sep, rest = text.partition('"key": "global_batch_size", "value": ')
    assert rest
    for value in ("Infinity", "NaN", "-Infinity"):
        log = tmp_path / value / "result_0.txt"
        log.parent.mkdir()
        log.write_text(head + '"key": "global_batch_size", "value": ' + value + rest[rest.index(","):], "utf-8")
        codes = {f.code for f in check([str(log)]).all_findings()}
        assert "MLC000" not in codes and "MLC307" not in codes, value
