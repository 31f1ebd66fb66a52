"""Scoring, RCP, power and package_checker_params facts of rounds 3.0-6.1, on constructed data.

Each policy of ``schemas/rulesets/<X.Y.Z>/rcp.json`` and ``package.json`` is exercised where it
changes a result: pruning by min epochs (<= 3.1) or by mean (4.0+), the stdev of the trimmed
(<= 4.0) or the full list (4.1+), the convergence point (last eval's epoch_num or samples_count,
Stable Diffusion's first step with FID <= 90 and CLIP >= 0.15), the t-test's run counts (3 for the
median benchmarks), the Llama 3.1 405B leniency (5.0+), the records' precision (5.1+), the median
of 3-run benchmarks; the power checker and the energy score against the installed
mlperf-logging's own functions; package_checker_params as the round's tools read them.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from mlcheck import check
from mlcheck.facts.rulesets import load_ruleset
from mlcheck.model import Evaluation, Event, Severity
from mlcheck.package.package_policy import package_policy
from mlcheck.package.params import read_params
from mlcheck.package.power import read_power_log, scan_power
from mlcheck.rules.checker_params import check_params
from mlcheck.rules.power import check_power_folder
from mlcheck.score.energy import node_energy, olympic_energy, switch_energy
from mlcheck.score.rcp import RunConvergence, evaluate_rcp, run_convergence
from mlcheck.score.rcp.policy import round_policy
from mlcheck.score.rcp.reference import build_reference_set, load_references, min_acceptable_mean
from mlcheck.score.scoring import folder_score

from conftest import FIXTURES, SHARED

LATER = ("3.0.0", "3.1.0", "4.0.0", "4.1.0", "5.0.0", "5.1.0", "6.0.0", "6.1.0")


# --- RCP policy ------------------------------------------------------------------------------------

@pytest.mark.parametrize("version, prune_by, stdev_over", [
    ("3.0.0", "min_epochs", "trimmed"), ("3.1.0", "min_epochs", "trimmed"), ("4.0.0", "mean", "trimmed"),
    ("4.1.0", "mean", "full"), ("5.0.0", "mean", "full"), ("5.1.0", "mean", "full"),
    ("6.0.0", "mean", "full"), ("6.1.0", "mean", "full")])
def test_round_policy(version: str, prune_by: str, stdev_over: str) -> None:
    policy = round_policy(version)  # validated against schemas/rcp-policy.schema.json
    assert policy is not None and policy.prune
    assert (policy.prune_by, policy.stdev_over) == (prune_by, stdev_over)
    assert package_policy(version).ruleset == version


def test_policy_schema_rejects_unknown_members() -> None:
    import jsonschema

    schema = json.loads((Path(__file__).parent.parent / "schemas" / "rcp-policy.schema.json").read_text())
    data = json.loads((Path(__file__).parent.parent / "schemas" / "rulesets" / "5.0.0" / "rcp.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(data)
    for broken in ({**data, "prune_by": "median"}, {**data, "min_mean_offset": {"llama31_405b": -1}},
                   {**data, "convergence": {"flux1": {"point": "best_eval", "metadata": "samples_count"}}},
                   {**data, "extra": 1}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.Draft202012Validator(schema).validate(broken)


def test_run_counts_of_the_rcp_test() -> None:
    three = {"3.0.0": "gpt3", "4.1.0": "gpt3", "5.0.0": "llama31_405b", "6.0.0": "deepseekv3_671b",
             "6.1.0": "qwen35_397b_grpo"}
    for version, benchmark in three.items():
        policy = round_policy(version)
        assert policy is not None and policy.runs_of(benchmark, 10) == 3
        assert load_ruleset(version).facts(benchmark).result_files == 3
    assert round_policy("5.1.0").runs_of("flux1", 3) == 10  # type: ignore[union-attr]
    # The t-test uses the round's table whatever the caller says: N - 2 = 1 run for GPT-3.
    refs = load_references("gpt3", "3.0.0", 3)
    assert refs is not None
    ref = refs.used[0]
    result = evaluate_rcp("gpt3", "closed", "3.0.0", [RunConvergence(ref.mean, ref.batch_size)] * 3, 10)
    assert result.min_acceptable_mean == pytest.approx(min_acceptable_mean(ref.mean, ref.stdev, ref.samples, 3))
    assert result.unit == "tokens"


def _records(values: dict[int, list[float]]) -> dict[str, Any]:
    return {f"x_{bs}": {"Benchmark": "x", "BS": bs, "Hyperparams": {}, "Epochs to converge": v}
            for bs, v in values.items()}


def test_pruning_by_min_epochs_up_to_3_1_and_by_mean_from_4_0() -> None:
    # BS 100 converges slower on average than BS 200 but, spread wide, has the lower minimum.
    records = _records({100: [4, 6, 8, 10, 12, 14, 16, 10, 10, 10, 10, 10], 200: [9.5] * 12})
    by_min = build_reference_set("x", "3.1.0", records, "test", 10)
    by_mean = build_reference_set("x", "4.0.0", records, "test", 10)
    assert [r.batch_size for r in by_min.used] == [100, 200]
    assert [r.batch_size for r in by_mean.used] == [200]


def test_stdev_over_the_trimmed_list_up_to_4_0_and_the_full_list_from_4_1() -> None:
    records = _records({256: [1.0, 5, 5, 5, 5, 5, 5, 5, 5, 9.0]})
    trimmed = build_reference_set("x", "4.0.0", records, "test", 10).all[0]
    full = build_reference_set("x", "4.1.0", records, "test", 10).all[0]
    assert trimmed.mean == full.mean == 5.0
    assert trimmed.stdev == 0.0 and full.stdev == pytest.approx((32 / 10) ** 0.5)
    assert trimmed.min_mean == 5.0 and full.min_mean < 5.0


def _eval(step: float, metric: str | None, value: float, line: int, *, samples: bool = False) -> Evaluation:
    return Evaluation(time_ms=float(line), value=value, line=line, epoch_num=None,
                      samples_count=step if samples else None, metric=metric,
                      step_num=None if samples else step)


def test_stable_diffusion_converges_at_the_first_step_meeting_fid_and_clip() -> None:
    rule = round_policy("3.1.0").convergence_of("stable_diffusion")  # type: ignore[union-attr]
    evals = [_eval(1000, "FID", 95.0, 1), _eval(1000, "CLIP", 0.16, 2),  # FID too high
             _eval(2000, "FID", 89.0, 3), _eval(2000, "CLIP", 0.14, 4),  # CLIP too low
             _eval(3000, "FID", 85.0, 5),                                # no CLIP at this step
             _eval(4000, "CLIP", 0.17, 6), _eval(4000, "FID", 80.0, 7),  # first passing step
             _eval(5000, "FID", 70.0, 8), _eval(5000, "CLIP", 0.20, 9)]
    assert (rule.point, rule.metadata) == ("first_passing_step", "step_num")
    assert run_convergence("success", evals, rule) == 4000
    assert run_convergence("aborted", evals, rule) is None
    assert run_convergence("success", evals[:6], rule) is None
    # From 4.0 the step is samples_count; step_num evals no longer count.
    later = round_policy("4.0.0").convergence_of("stable_diffusion")  # type: ignore[union-attr]
    assert later.metadata == "samples_count" and run_convergence("success", evals, later) is None
    by_samples = [_eval(e.step_num or 0, e.metric, e.value, e.line, samples=True) for e in evals]
    assert run_convergence("success", by_samples, later) == 4000


def test_llms_converge_at_the_samples_count_of_the_last_eval() -> None:
    evals = [Evaluation(1.0, 3.5, 1, 7.25, 1536.0), Evaluation(2.0, 3.2, 2, 8.123456, 3072.0)]
    for version, benchmark in (("4.0.0", "llama2_70b_lora"), ("5.0.0", "llama31_405b"), ("5.1.0", "flux1"),
                               ("5.1.0", "llama31_8b"), ("6.0.0", "gpt_oss_20b"), ("6.1.0", "qwen35_397b_grpo")):
        rule = round_policy(version).convergence_of(benchmark)  # type: ignore[union-attr]
        assert run_convergence("success", evals, rule) == 3072.0, (version, benchmark)
    epochs = round_policy("5.1.0").convergence_of("retinanet")  # type: ignore[union-attr]
    assert run_convergence("success", evals, epochs) == 8.123
    assert round_policy("4.0.0").values_key_of("llama2_70b_lora") == "samples to converge"  # type: ignore[union-attr]
    assert round_policy("5.1.0").values_key_of("flux1") == "samples to converge"  # type: ignore[union-attr]
    assert round_policy("5.1.0").values_key_of("llama31_8b") == "Epochs to converge"  # type: ignore[union-attr]


def test_llama31_405b_may_converge_one_evaluation_faster_from_5_0() -> None:
    refs = load_references("llama31_405b", "5.0.0", 3)
    assert refs is not None
    ref = next(r for r in refs.used if r.batch_size == 1152)
    lenient = ref.min_mean - 46080
    inside = evaluate_rcp("llama31_405b", "closed", "5.0.0", [RunConvergence(lenient + 1000, 1152)] * 3, 3)
    assert inside.verdict == "pass" and inside.min_acceptable_mean == pytest.approx(lenient)
    assert "less 46,080" in inside.reason
    assert inside.normalization_factor == pytest.approx(ref.mean / (lenient + 1000))
    outside = evaluate_rcp("llama31_405b", "closed", "5.0.0", [RunConvergence(lenient - 1000, 1152)] * 3, 3)
    assert outside.verdict == "fail"
    assert round_policy("6.1.0").min_mean_offset == {}  # type: ignore[union-attr]  (405B retired)


def test_records_carry_their_precision_from_5_1() -> None:
    refs = load_references("retinanet", "5.1.0", 5)
    assert refs is not None and {r.precision for r in refs.all} == {"FP32"}
    ref = refs.used[0]
    result = evaluate_rcp("retinanet", "closed", "5.1.0", [RunConvergence(ref.mean + 1, ref.batch_size)] * 5, 5)
    assert result.reference_precision == "FP32" and "FP32" in result.reason
    older = load_references("retinanet", "5.0.0", 5)
    assert older is not None and {r.precision for r in older.all} == {None}


@pytest.mark.parametrize("version, benchmark, sizes", [
    ("3.0.0", "dlrm_dcnv2", [32768, 65536, 102400]), ("3.0.0", "ssd", [256, 512, 1280, 2048, 4096]),
    ("3.1.0", "ssd", [256, 512, 768, 1024, 1280, 2048, 4096]), ("4.1.0", "stable_diffusion", [384, 512, 1024, 2048]),
    ("5.1.0", "llama31_8b", [32, 64, 96, 128])])
def test_the_rounds_own_rcps_where_the_installed_copy_was_edited_later(version: str, benchmark: str,
                                                                       sizes: list[int]) -> None:
    refs = load_references(benchmark, version, 10)
    assert refs is not None and [r.batch_size for r in refs.all] == sizes
    assert "edited after the round" in refs.source
    assert "installed" in load_references("bert", version, 10).source  # type: ignore[union-attr]


# --- Scores ----------------------------------------------------------------------------------------

def test_three_run_benchmarks_score_the_median() -> None:
    for version, benchmark in (("3.0.0", "gpt3"), ("5.0.0", "llama31_405b"), ("6.0.0", "deepseekv3_671b"),
                               ("6.1.0", "qwen35_397b_grpo")):
        facts = load_ruleset(version).facts(benchmark)
        score, _ = folder_score([30.0, 10.0, 20.0], [True] * 3, facts)
        assert score.valid and score.score_min == 20.0 and score.runs_counted == (2,)
        assert score.reason.startswith("median of 3 runs"), score.reason
        # One non-converged run counts as the slowest: the median is the slower of the others.
        score, _ = folder_score([30.0, None, 20.0], [True] * 3, facts)
        assert score.valid and score.score_min == 30.0 and "1 non-converged run counted as slowest" in score.reason
        score, _ = folder_score([None, None, 20.0], [True] * 3, facts)
        assert not score.valid


def test_a_folder_the_package_checker_stops_on_keeps_the_runs_the_summarizer_counts() -> None:
    """The RCP checker raises (MLC535): no published score, but the summarizer catches it and
    publishes, so the energy averages the runs it counts (was: none, 'no run is counted')."""
    facts = load_ruleset("5.0.0").facts("stable_diffusion")
    times = [14.0 + i / 10 for i in range(10)]
    score, official = folder_score(times, [True] * 10, facts, stopped="the RCP checker raises on result_1.txt")
    assert official is not None and official.score_min is None and not official.valid
    assert official.runs_counted == score.runs_counted == tuple(range(1, 9))
    assert not score.valid and score.reason.endswith("the RCP checker raises on result_1.txt")


def test_unet3d_drops_four_and_four() -> None:
    facts = load_ruleset("4.0.0").facts("unet3d")
    score, _ = folder_score([float(i) for i in range(40)], [True] * 40, facts)
    assert score.score_min == pytest.approx(sum(range(4, 36)) / 32)
    assert score.reason == "mean of 32 of 40 runs after dropping the 4 fastest and 4 slowest"


# --- Energy ----------------------------------------------------------------------------------------

def _power_log(path: Path, records: list[tuple[str, Any, int]]) -> Path:
    lines = [json.dumps({"namespace": "", "time_ms": t, "event_type": "POINT_IN_TIME", "key": key,
                         "value": value, "metadata": {"file": "power.py", "lineno": 1}})
             for key, value, t in records]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f":::MLLOG {line}\n" for line in lines), encoding="utf-8")
    return path


_NODES = {
    "plain": [("power_measurement_start", None, 1000), ("conversion_eff", 0.9, 1000),
              ("power_reading", 500.0, 2000), ("power_reading", 520.0, 3000), ("power_reading", 510, 4500),
              ("power_measurement_stop", None, 5000)],
    "unsorted, readings outside the window": [
        ("power_reading", 400.0, 500), ("power_measurement_start", None, 1000), ("power_reading", 610.0, 3000),
        ("power_reading", 600.0, 2000), ("power_measurement_stop", None, 4000), ("power_reading", 900.0, 4100)],
    "no stop record": [("power_measurement_start", None, 0), ("power_reading", 100.0, 1000),
                       ("power_reading", 200.0, 3000)],
    # (Python multiplies true as 1: the summarizer publishes it; review of session 41)
    "a true efficiency": [("power_measurement_start", None, 1000), ("conversion_eff", True, 1000),
                          ("power_reading", 500.0, 2000), ("power_measurement_stop", None, 5000)],
}


@pytest.mark.parametrize("case", sorted(_NODES))
def test_node_energy_is_the_summarizers(tmp_path: Path, case: str) -> None:
    summarizer = pytest.importorskip("mlperf_logging.result_summarizer.result_summarizer")
    from mlperf_logging.compliance_checker.mlp_parser import parse_file

    path = _power_log(tmp_path / "node_0.txt", _NODES[case])
    loglines, _ = parse_file(str(path), ruleset="5.0.0")
    official = summarizer._compute_power_node(loglines, 600_000)
    mine = node_energy(read_power_log(str(path)).events, 600_000)
    assert mine.joules == pytest.approx(official)
    assert (mine.note is not None) == (case == "no stop record")


def test_switch_energy_is_the_summarizers(tmp_path: Path) -> None:
    summarizer = pytest.importorskip("mlperf_logging.result_summarizer.result_summarizer")
    from mlperf_logging.compliance_checker.mlp_parser import parse_file

    for records in ([("conversion_eff", 0.95, 0), ("interconnect_power_est", 250.0, 1), ("conversion_eff", 0.5, 2),
                     ("interconnect_power_est", 999.0, 3)], [("conversion_eff", 0.9, 0), ("interconnect_power_est", True, 1)]):
        path = _power_log(tmp_path / "sw_0.txt", records)
        loglines, _ = parse_file(str(path), ruleset="5.0.0")
        assert switch_energy(read_power_log(str(path)).events, 60_000).joules == pytest.approx(
            summarizer._compute_power_sw(loglines, 60_000))
    assert switch_energy([], 60_000).joules == 0.0


def test_node_logs_the_summarizer_cannot_score() -> None:
    start = Event("power_measurement_start", None, {}, 1000.0, 1)
    assert node_energy([], 1.0).problem == "no power_measurement_start record"
    assert "empty" in (node_energy([start, Event("power_measurement_stop", None, {}, 1000.0, 2)], 1.0).problem or "")
    assert "not a number" in (node_energy([start, Event("power_reading", "9 W", {}, 2000.0, 2)], 1.0).problem or "")


def test_energy_is_the_mean_over_the_counted_runs_scaled_as_the_score() -> None:
    energy, reason = olympic_energy([1.0, None, 3.0, 5.0], (0, 2, 3), 2.0)
    assert energy == pytest.approx(6.0) and "scaled by 2" in reason
    assert olympic_energy([1.0, None], (0, 1), None)[0] is None


# --- The power checker -----------------------------------------------------------------------------

def _power_folder(root: Path, runs: dict[str, list[str]], results: int = 5) -> Path:
    folder = root / "results" / "sys" / "bert"
    for i in range(results):
        (folder / f"result_{i}.txt").parent.mkdir(parents=True, exist_ok=True)
        (folder / f"result_{i}.txt").write_text("")
    (folder / "power").mkdir()
    for name, files in runs.items():
        (folder / "power" / name).mkdir()
        for file in files:
            _power_log(folder / "power" / name / file, [("power_measurement_start", None, 0),
                                                       ("power_reading", 1.0, 1000),
                                                       ("power_measurement_stop", None, 1000)])
    return folder


_GOOD = ["node_0.txt", "node_1.txt", "sw_0.txt"]
_FOLDERS: dict[str, dict[str, list[str]]] = {
    "good": {f"result_{i}": _GOOD for i in range(5)},
    "a run without measurements": {f"result_{i}": _GOOD for i in range(4)},
    "nodes numbered from 1": {**{f"result_{i}": _GOOD for i in range(4)}, "result_4": ["node_1.txt", "node_2.txt", "sw_0.txt"]},
    "a run with one node less": {**{f"result_{i}": _GOOD for i in range(4)}, "result_4": ["node_0.txt", "sw_0.txt"]},
    "two runs with another switch count": {**{f"result_{i}": _GOOD for i in range(3)},
                                           "result_3": _GOOD + ["sw_1.txt"], "result_4": _GOOD + ["sw_1.txt"]},
    "a png and a readme": {**{f"result_{i}": _GOOD for i in range(4)}, "result_4": _GOOD + ["README.md"]},
    # (the checker blames result_3 for result_4's count: its place among the runs with a folder)
    "a run without measurements, then one with another count": {
        **{f"result_{i}": _GOOD for i in range(3)}, "result_4": _GOOD + ["node_2.txt"]},
}


@pytest.mark.parametrize("case", sorted(_FOLDERS))
def test_power_checks_are_the_power_checkers(tmp_path: Path, case: str) -> None:
    power_checker = pytest.importorskip("mlperf_logging.package_checker.power_checker")
    folder = _power_folder(tmp_path, _FOLDERS[case])
    results = sorted(str(p) for p in folder.glob("result_*.txt"))
    _, official_bad = power_checker.PowerChecker("5.0.0").check_power(str(folder / "power"), results)
    power = scan_power(str(folder), results)
    assert power is not None
    findings, bad = check_power_folder(power, True, "5.0.0")
    assert bad == official_bad
    errors = {f.code for f in findings if f.severity is Severity.ERROR}
    expected = {"good": set(), "a run without measurements": {"MLC540"}, "nodes numbered from 1": {"MLC541"},
                "a run with one node less": {"MLC542"}, "two runs with another switch count": {"MLC542"},
                "a png and a readme": set(),
                "a run without measurements, then one with another count": {"MLC540", "MLC542"}}[case]
    assert errors == expected
    if case == "a run with one node less":  # (the files counted are named: a png counts as well)
        (differs,) = [f for f in findings if f.code == "MLC542"]
        assert "1 node log(s) where the other runs have 2 (the power checker counts each file whose name " \
               "starts with 'node': node_0.txt)" in differs.message
    # Before 5.0 the round does not check power folders: warnings only, no run is non-compliant.
    earlier, none = check_power_folder(power, False, "4.1.0")
    assert none == set() and all(f.severity is not Severity.ERROR for f in earlier)
    assert {f.code for f in earlier} == {f.code for f in findings}


def test_a_node_name_the_power_checker_crashes_on(tmp_path: Path) -> None:
    power_checker = pytest.importorskip("mlperf_logging.package_checker.power_checker")
    folder = _power_folder(tmp_path, {f"result_{i}": _GOOD if i else ["node_a.txt", "sw_0.txt"] for i in range(5)})
    results = sorted(str(p) for p in folder.glob("result_*.txt"))
    with pytest.raises(ValueError):
        power_checker.PowerChecker("5.0.0").check_power(str(folder / "power"), results)
    power = scan_power(str(folder), results)
    assert power is not None
    findings, bad = check_power_folder(power, True, "5.0.0")
    assert bad == {"result_0"} and any("int() fails" in f.message for f in findings if f.code == "MLC541")


def _lenovo(tmp_path: Path) -> Path:
    source = SHARED / "other-submitters" / "training-5.0" / "Lenovo" / "results" / "SR780aV3-8xB200_SXM_180GB" / "stable_diffusion"
    if not source.is_dir():
        pytest.skip("../shared/other-submitters is not present")
    folder = tmp_path / "training-5.0" / "stable_diffusion"
    shutil.copytree(source, folder)
    return folder


def test_the_energy_of_a_published_folder_is_the_summarizers(tmp_path: Path) -> None:
    folder = _lenovo(tmp_path)
    (bench,) = check([str(folder)]).benchmarks
    assert bench.energy is not None and bench.energy.valid
    # result_summarizer._compute_strong_score_standalone on this folder: 8071166.145710206 J.
    assert bench.energy.joules == 8071166.145710206  # (summed fastest first, as the summarizer: to the last digit)
    assert [f.code for f in bench.findings if f.code.startswith("MLC54")] == ["MLC544"]


def test_a_power_record_the_official_parser_raises_on_leaves_no_energy(tmp_path: Path) -> None:
    """The summarizer reads power logs with the compliance checker's parser, which raises (KeyError,
    TypeError) on a record without metadata or with a null time_ms: the summarizer stops."""
    folder = _lenovo(tmp_path)
    log = folder / "power" / "result_3" / "node_0.txt"
    lines = log.read_text("utf-8").splitlines(keepends=True)
    lines[10] = lines[10].replace(', "metadata": {', ', "metadata_x": {', 1)
    log.write_text("".join(lines), "utf-8")
    (bench,) = check([str(folder)]).benchmarks
    assert bench.energy is not None and bench.energy.joules is None
    (crash,) = [f for f in bench.findings if f.code == "MLC543" and f.severity is Severity.ERROR]
    assert (crash.path, crash.line) == (str(log), 11) and "the result summarizer stops" in crash.message


@pytest.mark.parametrize("inserted, crashes", [
    (":::MLLOG null", False),                       # (a ValueError: the parser skips the line)
    ("{record} xyz", False),                        # (text after the JSON: skipped, the record is not read)
    ('{record_without_metadata} :::MLLOG {record}', False),  # (the parser reads from the last marker)
    ('{record_with_huge_time}', True),              # (float() of a 401-digit integer: OverflowError)
    ('{record_with_time_list}', True),              # (float() of a list: TypeError)
])
def test_power_records_are_read_as_the_official_parser_reads_them(tmp_path: Path, inserted: str, crashes: bool) -> None:
    summarizer = pytest.importorskip("mlperf_logging.result_summarizer.result_summarizer")
    folder = _lenovo(tmp_path)
    log = folder / "power" / "result_4" / "node_0.txt"
    lines = log.read_text("utf-8").split("\n")
    record = json.loads(lines[40][len(":::MLLOG "):])
    without = {k: v for k, v in record.items() if k != "metadata"}
    text = inserted.format(record=json.dumps(record), record_without_metadata=json.dumps(without),
                           record_with_huge_time=json.dumps(record).replace(str(record["time_ms"]), "1" + "0" * 400),
                           record_with_time_list=json.dumps(dict(record, time_ms=[1])))
    lines.insert(30, text if text.startswith(":::MLLOG") else ":::MLLOG " + text)
    log.write_text("\n".join(lines), "utf-8")
    try:
        _score, official, _factor = summarizer._compute_strong_score_standalone(
            "stable_diffusion", "sys", True, str(folder), "training", "5.0.0")[:3]
    except Exception:  # noqa: BLE001 (the summarizer stops)
        official = None
    (bench,) = check([str(folder)]).benchmarks
    assert bench.energy is not None and (official is None) == crashes
    if official is None or sys.version_info < (3, 12):
        assert bench.energy.joules == official
    else:  # (the summarizer's sum() compensates rounding from Python 3.12; mlcheck adds left to right on every Python)
        assert bench.energy.joules == pytest.approx(official, rel=1e-15, abs=0)


def test_a_power_file_instead_of_a_folder_crashes_the_package_checker(tmp_path: Path) -> None:
    folder = _lenovo(tmp_path)
    shutil.rmtree(folder / "power")
    (folder / "power").write_text("measured\n")
    (bench,) = check([str(folder)]).benchmarks
    assert [(f.code, f.severity) for f in bench.findings if f.code == "MLC540"] == [("MLC540", Severity.ERROR)]
    assert not bench.score.valid and "crashes on the power file" in bench.score.reason


def test_a_true_power_reading_counts_one_watt_as_in_the_summarizer() -> None:
    start, stop = Event("power_measurement_start", None, {}, 0.0, 1), Event("power_measurement_stop", None, {}, 2000.0, 3)
    assert node_energy([start, Event("power_reading", True, {}, 1000.0, 2), stop], 2000.0).joules == 1.0


def test_power_problems_count_with_the_non_compliant_files(tmp_path: Path) -> None:
    folder = _lenovo(tmp_path)
    shutil.rmtree(folder / "power" / "result_3")
    (bench,) = check([str(folder)]).benchmarks
    # One non-compliant file is tolerated: the package checker says "accepting this under olympic
    # scoring" and passes, so the finding is a warning and the check passes.
    result = check([str(folder)])
    (bench,) = result.benchmarks
    assert [(f.code, f.severity, f.official) for f in bench.findings if f.code == "MLC540"] == [
        ("MLC540", Severity.WARNING, False)]
    assert "tolerated: the package checker accepts 1 non-compliant result file" in next(
        f.message for f in bench.findings if f.code == "MLC540")
    # The result summarizer scores the energy of every run: on a run without power logs it fails
    # (AssertionError), so no energy score exists (MLC543), while the time score stands.
    assert bench.score.valid and [f.code for f in result.all_findings() if f.severity is Severity.ERROR] == ["MLC543"]
    assert bench.energy is not None and bench.energy.joules is None
    shutil.rmtree(folder / "power" / "result_4")
    (bench,) = check([str(folder)]).benchmarks
    assert not bench.score.valid and "the package checker rejects the folder: 2 result files" in bench.score.reason
    assert [(f.code, f.severity) for f in bench.findings if f.code == "MLC540"] == [("MLC540", Severity.ERROR)] * 2


# --- package_checker_params ------------------------------------------------------------------------

def _params(tmp_path: Path, text: str, place: str = "benchmark") -> Any:
    path = tmp_path / place / "package_checker_params"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode())
    return read_params(str(path), place)


@pytest.mark.parametrize("version, place, text, honoured", [
    ("4.0.0", "benchmark", "rcp-bypass", True),
    ("4.0.0", "system", "rcp-bypass\n", False),                      # == compares the newline too
    ("5.1.0", "benchmark", "seed-checker-bypass\nrcp-bypass", False),  # the first line has a newline
    ("4.0.0", "benchmark", "seed-checker-bypass", False),            # came with 4.1
    ("4.1.0", "benchmark", "seed-checker-bypass", True),
    ("4.1.0", "benchmark", "rcp_bypass", False),                     # the spelling of the 2.x CLI
    ("3.1.0", "benchmark", "rcp-bypass", False),                     # no per-folder file before 4.0
    ("4.0.0", "package", "rcp_bypass\n", True),                      # the verify script: --rcp_bypass
    ("4.1.0", "package", "rcp_bypass\n", False),                     # renamed --rcp-bypass in 4.1
    ("4.1.0", "package", "rcp-bypass", False),                       # `read` drops a last line without newline
    ("5.0.0", "package", "--rcp-bypass\n", False),                   # becomes ----rcp-bypass
    ("5.0.0", "package", "rcp-bypass\nseed-checker-bypass\n", True),
    ("5.0.0", "package", "rcp-bypass\r\n", False),                   # `read` keeps the CR: --rcp-bypass\r
    ("5.0.0", "package", "\nrcp-bypass\n", False),                   # an empty line: -- ends the options
])
def test_what_the_rounds_tools_honour(tmp_path: Path, version: str, place: str, text: str, honoured: bool) -> None:
    params = _params(tmp_path, text, place)
    found = check_params([params], package_policy(version), version)
    assert (found == []) == honoured, [f.message for f in found]
    # (a top-level line the package checker stops on ends the verify run: an error; others are ignored)
    stops = place == "package" and text.endswith("\n") and not honoured
    expected = Severity.ERROR if stops else Severity.WARNING
    assert all(f.code == "MLC546" and f.severity is expected and f.line is not None for f in found)


def test_the_official_package_checker_reads_only_a_last_line_without_newline(tmp_path: Path) -> None:
    # The same comparison as package_checker.py: readlines() and ==.
    for text, works in (("rcp-bypass", True), ("rcp-bypass\n", False), ("x\nrcp-bypass", True),
                        ("rcp-bypass\nx", False)):
        path = tmp_path / "p"
        path.write_text(text)
        with open(path) as handle:
            official = any(line == "rcp-bypass" for line in handle.readlines())
        assert official == works
        assert (check_params([_params(tmp_path, text)], package_policy("4.0.0"), "4.0.0") == []) == (
            works and text.count("\n") == 0)  # mlcheck also flags the other line ("x")


def test_a_seed_checker_bypass_the_round_does_not_read_softens_nothing(tmp_path: Path) -> None:
    package = tmp_path / "Acme"
    shutil.copytree(FIXTURES / "example" / "Acme", package)
    folder = package / "results" / "acme-t8" / "resnet"
    log = folder / "result_1.txt"
    log.write_text("".join(line for line in log.read_text().splitlines(keepends=True) if '"key": "seed"' not in line))
    (before,) = check([str(package)]).benchmarks
    assert [(f.code, f.severity) for f in before.findings if f.code == "MLC518"] == [("MLC518", Severity.ERROR)]
    (folder / "package_checker_params").write_text("seed-checker-bypass")
    (after,) = check([str(package)]).benchmarks
    # training 2.0 reads no per-folder file (nor has it a seed bypass): the official tool fails it
    assert [(f.code, f.severity) for f in after.findings if f.code == "MLC518"] == [("MLC518", Severity.ERROR)]
    codes = {f.code for f in after.findings}
    assert "MLC546" in codes and "MLC547" not in codes
    assert not after.score.valid and not before.score.valid


@pytest.mark.parametrize("place,text,honoured", [("benchmark", "seed-checker-bypass", True),
                                                 ("system", "seed-checker-bypass", True),
                                                 ("benchmark", "seed-checker-bypass\n", False),
                                                 ("benchmark", "seed_checker_bypass", False),
                                                 ("package", "seed-checker-bypass\n", True),
                                                 ("package", "seed-checker-bypass", False)])
def test_a_bypass_is_honoured_where_the_rounds_tools_read_it(tmp_path: Path, place: str, text: str,
                                                             honoured: bool) -> None:
    from mlcheck.rules.checker_params import honoured_request
    found = honoured_request([_params(tmp_path, text, place)], "seed-checker-bypass", package_policy("4.1.0"), "4.1.0")
    assert (found is not None) == honoured


def test_a_bypassed_seed_error_is_not_the_checkers_word() -> None:
    """Under an honoured seed-checker-bypass the package checker skips the seed checker: MLC518 is a
    warning that says so, not marked as the official checker's (it was, saying it fails the folder)."""
    from mlcheck.judge.folders import bypass_seeds
    from mlcheck.rules.seeds import SEED_MISSING

    error = SEED_MISSING.at("r/result_0.txt", 1, "result_0.txt logs no seed")
    assert error.official and error.severity is Severity.ERROR
    (bypassed,) = bypass_seeds([error], "r/package_checker_params")
    assert bypassed.severity is Severity.WARNING and not bypassed.official
    assert bypassed.message.endswith("(seed-checker-bypass is requested in r/package_checker_params: the package "
                                     "checker skips the seed checker)")


def test_round_package_facts() -> None:
    assert package_policy("3.0.0").energy_score is False and package_policy("3.1.0").energy_score is True
    assert package_policy("4.1.0").power_check is False and package_policy("5.0.0").power_check is True
    assert package_policy("3.1.0").params_options == ()
    assert package_policy("4.0.0").params_options == ("rcp-bypass",)
    assert package_policy("6.1.0").params_options == ("rcp-bypass", "seed-checker-bypass")
    assert package_policy("1.1.0").top_level_options == ()
    for version in LATER:
        assert dataclasses.asdict(package_policy(version))["source"]


# --- scaling.json and the RCP factor ----------------------------------------------------------------

def test_the_rcp_factor_replaces_scaling_json_as_the_package_checker_writes_it() -> None:
    from mlcheck.results import RcpResult
    from mlcheck.score.scaling import published_scaling

    passed = RcpResult("pass", "", reference_mean=10.0, normalization_factor=1.05)
    at_one = RcpResult("pass", "", reference_mean=10.0, normalization_factor=1.0)
    failed = RcpResult("fail", "", reference_mean=10.0)
    assert published_scaling(None, passed, True, False) == dataclasses.replace(published_scaling(None, passed, True, True),
                                                                               deletes=False)  # (5.1+ deletes first)
    assert published_scaling(None, passed, True, False).rcp == 1.05
    replaced = published_scaling(1.2, passed, True, False)
    assert (replaced.committee, replaced.rcp) == (None, 1.05) and "overwrites" in (replaced.note or "")
    same = published_scaling(1.05, passed, True, False)
    assert (same.committee, same.rcp, same.note) == (1.05, None, None)
    kept = published_scaling(1.2, at_one, True, False)  # up to 5.0 a factor of 1 writes nothing
    assert (kept.committee, kept.rcp, kept.suspect) == (1.2, None, True) and "leaves this one" in (kept.note or "")
    assert published_scaling(1.0, at_one, True, False).note is None
    deleted = published_scaling(1.2, at_one, True, True)  # 5.1+: deleted before the evaluation
    assert (deleted.committee, deleted.rcp) == (None, None) and "deletes" in (deleted.note or "")
    assert published_scaling(1.2, failed, True, True).committee is None  # a failing evaluation deletes it too
    assert published_scaling(1.2, failed, True, False).committee == 1.2
    assert published_scaling(1.2, passed, False, False).committee == 1.2  # 2.0: committee only
    assert published_scaling(1.2, None, True, True).committee == 1.2  # no RCP test (open division)
    # what the folder's file holds does not count where the tools write or delete it (unusable: None)
    assert [published_scaling(None, rcp, True, resets).replaced for rcp, resets in
            ((passed, False), (at_one, True), (at_one, False), (failed, False))] == [True, True, False, False]


@pytest.mark.parametrize("source", ["other-submitters/training-2.1/Intel-HabanaLabs/results/HLS-Gaudi2-PT/resnet",
                                    "corpus/training-2.0/Graphcore/results/ipu-pod128-TF1-closed/resnet"])
def test_an_unusable_scaling_json_the_package_checker_writes_over_is_a_warning(tmp_path: Path, source: str) -> None:
    """2.1+: the RCP factor is written over scaling.json before the summarizer reads it (Habana's
    ResNet: 1.00112), so a scaling_factor of [], NaN or "2" in the folder's file does not make the
    score invalid; where none is written (Graphcore's: factor 1) the summarizer reads the file (a
    factor of 0 it multiplies in: a warning, tested in test_display_fixes.py)."""
    import shutil

    from conftest import SHARED
    from mlcheck import check

    if not (SHARED / source).is_dir():
        pytest.skip(f"{SHARED / source} is absent (the shared MLCommons data)")
    folder = tmp_path / "training-2.1" / "Acme" / "results" / "sys" / "resnet"
    shutil.copytree(SHARED / source, folder)
    (folder / "scaling.json").write_text('{"scaling_factor": 1.0}', "utf-8")
    (reference,) = check([str(folder)], ruleset="2.1.0").benchmarks
    for value in ("[]", "NaN", '"2"'):
        (folder / "scaling.json").write_text('{"scaling_factor": %s}' % value, "utf-8")
        (bench,) = check([str(folder)], ruleset="2.1.0").benchmarks
        found = [f for f in bench.findings if f.code == "MLC504"]
        if reference.rcp is not None and reference.rcp.normalization_factor and reference.rcp.normalization_factor > 1:
            assert [f.severity.label for f in found] == ["warning"] and bench.score.valid == reference.score.valid
        else:  # (no factor written: the summarizer reads the file, which it cannot use)
            assert [f.severity.label for f in found] == ["error"] and not bench.score.valid


def test_a_scaling_json_the_rcp_test_does_not_write_over_is_applied_with_a_warning(tmp_path: Path) -> None:
    """2.1-5.0: at an RCP factor of 1 the package checker writes no scaling.json and leaves the
    folder's: the summarizer multiplies the score by it (a file left by an earlier run?)."""
    source = SHARED / "corpus" / "training-2.0" / "Graphcore" / "results" / "ipu-pod128-TF1-closed" / "resnet"
    if not source.is_dir():
        pytest.skip(f"{source} is absent (the shared MLCommons data)")
    folder = tmp_path / "training-2.1" / "Acme" / "results" / "sys" / "resnet"
    shutil.copytree(source, folder)
    (want,) = check([str(folder)], ruleset="2.1.0").benchmarks
    assert want.rcp is not None and want.rcp.verdict == "pass" and want.rcp.normalization_factor == 1.0
    (folder / "scaling.json").write_text('{"scaling_factor": 2.0}', "utf-8")
    (got,) = check([str(folder)], ruleset="2.1.0").benchmarks
    assert got.score.score_min == pytest.approx(2 * want.score.score_min)
    (note,) = [f for f in got.findings if f.code == "MLC505"]
    assert note.severity.label == "warning" and "factor of 1" in note.message
    # (an RCP test that fails writes none either: the file is applied, and said so)
    from dataclasses import replace

    from mlcheck.score.scaling import published_scaling
    failed = published_scaling(2.0, replace(want.rcp, verdict="fail"), normalise=True, resets=False)
    assert failed.committee == 2.0 and failed.suspect and "the RCP test fails" in (failed.note or "")


def test_a_stale_scaling_json_is_replaced_by_the_rcp_factor(tmp_path: Path) -> None:
    source = SHARED / "other-submitters" / "training-5.0" / "AMD" / "results" / "MI325X_EPYC_9575F_pytorch" / "llama2_70b_lora"
    if not source.is_dir():
        pytest.skip("../shared/other-submitters is not present")
    folder = tmp_path / "llama2_70b_lora"
    shutil.copytree(source, folder)
    (want,) = check([str(folder)]).benchmarks
    assert want.rcp is not None and want.rcp.normalization_factor == pytest.approx(1.0511463844797178)
    (folder / "scaling.json").write_text('{"scaling_factor": 1.5}')
    (got,) = check([str(folder)]).benchmarks
    assert got.score.score_min == pytest.approx(want.score.score_min)
    assert any("overwrites it with the RCP normalisation factor" in f.message for f in got.findings)


# --- dlrmv4 (6.1, only in mlperf-logging 4.1.68) -----------------------------------------------------

def _dlrmv4_folder(root: Path, blocks: list[int]) -> Path:
    """A folder of dlrmv4 runs from the case generator's compliant base log, run i converging at
    the eval grid point ``blocks[i]`` x eval_interval_samples (2,293,760 at batch 8192)."""
    from tool_scripts import load_tool

    gen = load_tool("make_later_cases")
    first = load_tool("make_rule_cases")
    folder = root / "dlrmv4"
    folder.mkdir()
    for i, block in enumerate(blocks):
        records = gen.base_records("6.1.0", "dlrmv4")
        evals = [r for r in records if r.key == "eval_accuracy"]
        evals[-1].metadata["samples_count"] = block * 2293760
        for record in records:
            if record.key == "init_start":
                seed = first.Record("seed", 1000 + i, record.time_ms)
        records.insert(next(n for n, r in enumerate(records) if r.key == "init_start") + 1, seed)
        case = first.Case("6.1.0", "dlrmv4", "rcp", records)
        (folder / f"result_{i}.txt").write_text("\n".join(case.lines()) + "\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("blocks", [[29, 30, 29, 28, 31, 29, 30, 29, 28, 30],  # faster than the mean: scaled
                                    [31, 30, 32, 31, 30, 31, 33, 31, 30, 31],  # slower: factor 1
                                    [27] * 10])                                # too fast: fails
def test_dlrmv4_rcp_is_the_installed_checkers(tmp_path: Path, blocks: list[int]) -> None:
    rcp_checker = pytest.importorskip("mlperf_logging.rcp_checker.rcp_checker")
    folder = _dlrmv4_folder(tmp_path, blocks)
    # as the package checker calls it (rcp_pass "pruned_rcps")
    passed, message, factor = rcp_checker.check_directory(str(folder), "training", "6.1.0", False, False,
                                                          rcp_pass="pruned_rcps")
    (bench,) = check([str(folder)], ruleset="6.1.0").benchmarks
    assert bench.rcp is not None and (bench.rcp.verdict == "pass") == passed, (message, bench.rcp.reason)
    assert message == "RCP found" and "dlrmv4_ref_8192" in bench.rcp.reason
    if passed:  # (a failed test's factor is not used)
        assert (bench.rcp.normalization_factor or 1.0) == pytest.approx(factor, rel=1e-12)
    assert "installed" in load_references("dlrmv4", "6.1.0", 10).source  # type: ignore[union-attr]
    assert any(f.code == "MLC530" for f in bench.findings) == (not passed)
    # (each run fails: the 6.1 checker of record does not know dlrmv4; nothing else fails it)
    assert {r.official_verdict for r in bench.runs} == {"fail"}
    assert {f.code for r in bench.runs for f in r.official_failures()} == {"MLC011"}
    told = [f for r in bench.runs for f in r.findings if f.code == "MLC011"]
    assert len(told) == 10 and {(f.severity, f.official) for f in told} == {(Severity.ERROR, True)}
    assert "7bbf792" in told[0].message and "4.1.68" in told[0].message


def test_dlrmv4_is_known_where_4_1_68_has_it() -> None:
    facts = load_ruleset("6.1.0").facts("dlrmv4")
    assert facts.result_files == 10 and "4.1.68" in facts.source and "7bbf792" in facts.source
    assert "dlrmv4" not in load_ruleset("6.0.0").benchmarks  # 4.1.68 has no training_6.0.0/closed_dlrmv4.yaml
    assert round_policy("6.1.0").runs_of("dlrmv4", 10) == 10  # type: ignore[union-attr]
    # The record revision 7bbf792 does not list it: its checker fails every dlrmv4 log (the sentence above).
    record = SHARED / "reference" / "record-rules" / "training-6.1" / "compliance"
    if record.is_dir():
        assert "dlrmv4" not in (record / "closed_common.yaml").read_text("utf-8")
        assert not (record / "closed_dlrmv4.yaml").exists()


def test_a_power_folder_named_in_another_case_is_not_read(tmp_path: Path) -> None:
    """``Power/``: the package checker and the summarizer read only ``power/``; its node logs are
    no runs (they were 40 errors), no energy is scored, and in a package MLC508 says why."""
    folder = _lenovo(tmp_path)
    (folder / "power").rename(folder / "Power")
    result = check([str(folder)])
    assert len(result.runs) == 10 and not any(f.severity is Severity.ERROR for f in result.all_findings())
    assert result.benchmarks[0].energy is None
    package = tmp_path / "Lenovo"
    shutil.copytree(SHARED / "other-submitters" / "training-5.0" / "Lenovo", package)
    power = next(package.glob("results/*/stable_diffusion/power"))
    power.rename(power.parent / "Power")
    result = check([str(package)])
    (unknown,) = [f for f in result.all_findings() if f.code == "MLC508"]
    assert unknown.path == str(power.parent / "Power") and "read only power/ (lower case)" in unknown.message
    assert len(result.runs) == 10 and not any(f.severity is Severity.ERROR for f in result.all_findings())


@pytest.mark.parametrize("version,severity", [("5.0.0", Severity.ERROR), ("3.1.0", Severity.WARNING)])
def test_a_params_file_the_tools_cannot_read_stops_them(tmp_path: Path, version: str, severity: Severity) -> None:
    """A package_checker_params that is a folder: the 4.0+ package checker reads it and crashes
    (IsADirectoryError); before 4.0 no tool reads it."""
    (tmp_path / "package_checker_params").mkdir()
    params = read_params(str(tmp_path / "package_checker_params"), "benchmark")
    assert params is not None and params.error == "it is a folder"
    (found,) = check_params([params], package_policy(version), version)
    assert (found.code, found.severity, found.official) == ("MLC546", severity, severity is Severity.ERROR)


@pytest.mark.parametrize("folder,ruleset", [("training-6.0", "6.0.0"), ("logs", "6.1.0")])
def test_a_path_naming_an_unpublished_round_wins_over_its_estimated_end(tmp_path: Path, folder: str,
                                                                        ruleset: str) -> None:
    """6.0's end (2026-05-30) is an estimate: a run dated in June under training-6.0/ stays a 6.0
    run; without the path its date says 6.1."""
    from tool_scripts import load_tool

    gen = load_tool("make_later_cases")
    first = load_tool("make_rule_cases")
    records = gen.base_records("6.0.0", "llama31_8b")
    for record in records:
        record.time_ms += 190 * 86_400_000  # (from 2025-12-05 into June 2026)
    log = tmp_path / folder / "result_0.txt"
    log.parent.mkdir()
    log.write_text("\n".join(first.Case("6.0.0", "llama31_8b", "late", records).lines()) + "\n", encoding="utf-8")
    (run,) = check([str(log)]).runs
    assert run.ruleset == ruleset
    if folder == "training-6.0":
        assert "not published yet" in (run.ruleset_source or "") and run.official_verdict == "pass"
        assert not [f for f in run.findings if f.code in ("MLC018", "MLC019")]


def test_a_power_folder_without_an_energy_score_keeps_its_energy_column(tmp_path: Path) -> None:
    from mlcheck.report.results_table import render_csv

    folder = _lenovo(tmp_path)
    shutil.rmtree(folder / "power" / "result_0")  # (the summarizer fails on it: no energy score)
    header, row = render_csv(check([str(folder)])).splitlines()
    cells = dict(zip(header.split(","), row.split(",")))
    assert cells["stable_diffusion energy (kJ)"] == "" and cells["stable_diffusion"] != ""


def test_a_power_log_name_without_an_index_refuses_the_folder_whatever_the_others(tmp_path: Path) -> None:
    """A backup ``node_0.txt.bak`` beside the logs of one run: the 5.0 power checker's int() raises
    on it and the package checker stops, so no run is tolerated (was: one tolerated run, warnings
    and a valid score). Energy aside, the score stays what it is, the folder is refused."""
    folder = _lenovo(tmp_path)
    shutil.copy(folder / "power" / "result_3" / "node_0.txt", folder / "power" / "result_3" / "node_0.txt.bak")
    (bench,) = check([str(folder)]).benchmarks
    [misnamed] = [f for f in bench.findings if f.code == "MLC541"]
    assert misnamed.severity is Severity.ERROR and misnamed.official and "node_0.txt.bak" in misnamed.message
    assert not bench.score.valid and "the package checker crashes on a power log name" in bench.score.reason


def test_the_energy_of_a_folder_whose_result_is_not_valid_is_not_valid() -> None:
    """A folder the package checker rejects for its power logs (MLC541) or a package rule: its
    energy is not valid either (was: valid True beside an invalid time score)."""
    from mlcheck.results import EnergyScore, Score

    energy = EnergyScore(8.0e6, True, "mean of the energy of the 8 runs the time score counts")
    assert energy.within(Score(14.2, True, "mean")) is energy
    rejected = energy.within(Score(14.2, False, "mean; the package checker rejects the folder"))
    assert (rejected.joules, rejected.valid) == (8.0e6, False)
    assert rejected.reason.endswith("; the folder's result is not valid")


def test_an_rcp_the_rounds_review_supplied_is_a_warning_not_a_refusal() -> None:
    """4.1's published QCT Stable Diffusion folder trains at BS 256, which the record revision's RCPs
    (tag 4.1.0-rc4) lack: "missing" for the record, as the rules ask the submitter to supply it.
    The RCP was added during the round's review (sd_ref_256, in today's mlperf-logging) and the
    result published: MLC531 is a warning there, and the score is not refused (a review against
    the result summarizer, session 34)."""
    folder = SHARED / "other-submitters" / "training-4.1" / "Quanta_Cloud_Technology" / "results" / "D74H-7U" / \
        "stable_diffusion"
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent (the shared MLCommons data)")
    (bench,) = check([str(folder)]).benchmarks
    assert bench.rcp is not None and bench.rcp.verdict == "missing" and bench.rcp.today is not None
    assert bench.rcp.today.verdict == "pass" and bench.score.valid
    (missing,) = [f for f in bench.findings if f.code == "MLC531"]
    assert (missing.severity, missing.official) == (Severity.WARNING, False)
    assert missing.message.endswith("it was supplied after the record revision (sd_ref_256 in today's "
                                    "mlperf-logging), and with it the test passes")


@pytest.mark.parametrize("ruleset, benchmark, field", [("4.1.0", "ssd", "epoch_num"),
                                                       ("5.1.0", "llama31_8b", "samples_count")])
def test_a_boolean_eval_position_is_the_rcp_checkers_number(tmp_path: Path, ruleset: str, benchmark: str,
                                                            field: str) -> None:
    """The last eval's position logged as true: the RCP checker's ``round(True, 3)`` (or the value
    itself) is 1, so the run converges at 1 (was: no point, read as a run that did not converge)."""
    from tool_scripts import load_tool

    rcp_checker = pytest.importorskip("mlperf_logging.rcp_checker.rcp_checker")
    gen, first = load_tool("make_later_cases"), load_tool("make_rule_cases")
    records = gen.base_records(ruleset, benchmark)
    [r for r in records if r.key == "eval_accuracy"][-1].metadata[field] = True
    path = tmp_path / "result_0.txt"
    path.write_text("\n".join(first.Case(ruleset, benchmark, "rcp", records).lines()) + "\n", encoding="utf-8")
    not_converged, point, _bs, _bench = rcp_checker.read_submission_file(str(path), ruleset, False)
    assert (not_converged, point) == (0, 1)
    (run,) = check([str(path)], ruleset=ruleset).runs
    rule = round_policy(ruleset).convergence_of(benchmark)  # type: ignore[union-attr]
    assert run.run is not None and run_convergence(run.status, run.run.evaluations, rule) == 1.0


def _moved_benchmark_log(tmp_path: Path, ruleset: str, benchmark: str, after: str,
                         epochs: bool = False) -> tuple[Path, int]:
    """The case generator's compliant log with submission_benchmark moved after the first
    ``after`` record, its evals without epoch_num unless ``epochs``; the file and the first eval's line."""
    from tool_scripts import load_tool

    gen, first = load_tool("make_later_cases"), load_tool("make_rule_cases")
    records = gen.base_records(ruleset, benchmark)
    for record in records:
        if record.key == "eval_accuracy" and not epochs:
            record.metadata.pop("epoch_num", None)
    named = records.pop(next(i for i, r in enumerate(records) if r.key == "submission_benchmark"))
    records.insert(next(i for i, r in enumerate(records) if r.key == after) + 1, named)
    case = first.Case(ruleset, benchmark, "late", records)
    path = tmp_path / "result_0.txt"
    path.write_text("\n".join(case.lines()) + "\n", encoding="utf-8")
    return path, case.line_of("eval_accuracy")


@pytest.mark.parametrize("ruleset, benchmark", [("4.0.0", "llama2_70b_lora"), ("4.0.0", "stable_diffusion"),
                                                ("5.1.0", "llama31_8b")])
def test_evals_before_submission_benchmark_are_read_as_epochs(tmp_path: Path, ruleset: str, benchmark: str) -> None:
    """The RCP checker picks an eval's reader by the benchmark named so far: before the name, the
    epoch reader, whose epoch_num these evals lack (KeyError, MLC535 at the first eval)."""
    rcp_checker = pytest.importorskip("mlperf_logging.rcp_checker.rcp_checker")
    path, first_eval = _moved_benchmark_log(tmp_path, ruleset, benchmark, "run_stop")
    with pytest.raises(KeyError, match="epoch_num"):
        rcp_checker.read_submission_file(str(path), ruleset, False)
    (run,) = check([str(path)], ruleset=ruleset).runs
    (unreadable,) = [f for f in run.findings if f.code == "MLC535"]
    assert unreadable.line == first_eval and "has no epoch_num in its metadata" in unreadable.message
    assert unreadable.message.endswith("log submission_benchmark before the evals (the checker reads an eval "
                                       "before it as epochs)")


def test_a_point_read_before_the_benchmark_is_named_is_the_epoch_readers(tmp_path: Path) -> None:
    """Named after run_stop: the last eval's epoch_num (3), as the checker takes it, not its
    samples_count (3000)."""
    from mlcheck.score.rcp import rcp_for_runs

    rcp_checker = pytest.importorskip("mlperf_logging.rcp_checker.rcp_checker")
    for after, point in (("run_stop", 3), ("eval_accuracy", 3000), ("init_start", 3000)):
        path, _ = _moved_benchmark_log(tmp_path, "5.1.0", "llama31_8b", after, epochs=True)
        assert rcp_checker.read_submission_file(str(path), "5.1.0", False)[1] == point, after
        (run,) = check([str(path)], ruleset="5.1.0").runs
        assert run.run is not None and not [f for f in run.findings if f.code == "MLC535"]
        result = rcp_for_runs("llama31_8b", "closed", "5.1.0", [run.run] * 10, 10)
        assert result.submission_mean == point, after


def test_an_eval_before_the_benchmark_on_one_line_joined_by_a_cr(tmp_path: Path) -> None:
    """The checker's readlines() splits at the CR, so it meets the eval first (KeyError); mlcheck
    orders the two records of the one physical line as read (was: both line N, the eval not before)."""
    rcp_checker = pytest.importorskip("mlperf_logging.rcp_checker.rcp_checker")
    path, first_eval = _moved_benchmark_log(tmp_path, "5.1.0", "llama31_8b", "eval_accuracy")
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[first_eval - 1] += "\r" + lines.pop(first_eval)  # (the name, moved after the eval, joined to it)
    path.write_text("\n".join(lines), encoding="utf-8", newline="")
    with pytest.raises(KeyError, match="epoch_num"):
        rcp_checker.read_submission_file(str(path), "5.1.0", False)
    (run,) = check([str(path)], ruleset="5.1.0").runs
    assert [(f.code, f.line) for f in run.findings if f.code == "MLC535"] == [("MLC535", first_eval)]


def test_the_rcp_checker_keeps_a_files_last_benchmark_name(tmp_path: Path) -> None:
    """A run naming llama31_8b, then bert after run_stop: the checker keeps bert for the file and
    raises on the names' difference (MLC532); mlcheck compared the first (was: pass)."""
    from mlcheck.score.rcp import rcp_for_runs

    path, _ = _moved_benchmark_log(tmp_path, "5.1.0", "llama31_8b", "init_start", epochs=True)
    (good,) = check([str(path)], ruleset="5.1.0").runs
    path.write_text(path.read_text(encoding="utf-8") + ':::MLLOG {"namespace": "", "time_ms": 1, "event_type": '
                    '"POINT_IN_TIME", "key": "submission_benchmark", "value": "bert", "metadata": {}}\n', encoding="utf-8")
    (renamed,) = check([str(path)], ruleset="5.1.0").runs
    assert good.run is not None and renamed.run is not None and renamed.run.last_named == ("bert",)
    result = rcp_for_runs("llama31_8b", "closed", "5.1.0", [good.run] * 9 + [renamed.run], 10)
    assert result.verdict == "fail" and "the runs name different benchmarks ('bert', 'llama31_8b')" in result.reason


def test_a_run_stop_without_status_stops_the_rcp_checker(tmp_path: Path) -> None:
    """It reads json.loads(line)["metadata"]["status"] of every run_stop: KeyError, MLC535 there."""
    rcp_checker = pytest.importorskip("mlperf_logging.rcp_checker.rcp_checker")
    path, _ = _moved_benchmark_log(tmp_path, "5.1.0", "retinanet", "init_start", epochs=True)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(', "status": "success"}', '}'), encoding="utf-8")
    with pytest.raises(KeyError, match="status"):
        rcp_checker.read_submission_file(str(path), "5.1.0", False)
    (run,) = check([str(path)], ruleset="5.1.0").runs
    stop_line = 1 + text.split("\n").index(next(line for line in text.split("\n") if '"run_stop"' in line))
    assert [(f.code, f.line) for f in run.findings if f.code == "MLC535"] == [("MLC535", stop_line)]


def _retinanet_folder(tmp_path: Path) -> Path:
    """A 5.1 retinanet folder of 5 compliant runs from the case generator."""
    from tool_scripts import load_tool

    gen, first = load_tool("make_later_cases"), load_tool("make_rule_cases")
    folder = tmp_path / "training-5.1" / "Acme" / "results" / "t8" / "retinanet"
    folder.mkdir(parents=True)
    for i in range(5):
        records = gen.base_records("5.1.0", "retinanet")
        at = next(n for n, r in enumerate(records) if r.key == "init_start")
        records.insert(at + 1, first.Record("seed", 1000 + i, records[at].time_ms))
        (folder / f"result_{i}.txt").write_text("\n".join(first.Case("5.1.0", "retinanet", "x", records).lines()) + "\n",
                                                 encoding="utf-8")
    return folder


def test_a_cut_line_naming_run_stop_stops_the_rcp_checker(tmp_path: Path) -> None:
    """A truncated file's last record names run_stop: the checker's json.loads raises on it, so the
    package checker stops, though the compliance checker tolerates the run as non-converged."""
    rcp_checker = pytest.importorskip("mlperf_logging.rcp_checker.rcp_checker")
    folder = _retinanet_folder(tmp_path)
    cut = folder / "result_3.txt"
    lines = cut.read_text(encoding="utf-8").split("\n")
    stop = next(n for n, line in enumerate(lines) if '"run_stop"' in line)
    lines[stop] = lines[stop][:lines[stop].index('"metadata"')]
    cut.write_text("\n".join(lines[:stop + 1]), encoding="utf-8")
    with pytest.raises(ValueError):
        rcp_checker.check_directory(str(folder), "training", "5.1.0", False, False, rcp_pass="pruned_rcps")
    (bench,) = check([str(folder)]).benchmarks
    assert [(f.code, f.path, f.line) for f in bench.findings if f.code == "MLC535"] == [("MLC535", str(cut), stop + 1)]


@pytest.mark.parametrize("shape", ["trailing", "cr", "long", "long_tail", "leading"])
def test_the_rcp_checkers_lines_as_it_reads_them(tmp_path: Path, shape: str) -> None:
    """Read again as the checker reads them: text stripped as a str (\\x85 after a record: decoded,
    no MLC535), a file of CR line ends numbered by its CRs, a line past 16 MiB passed over."""
    rcp_checker = pytest.importorskip("mlperf_logging.rcp_checker.rcp_checker")
    folder = _retinanet_folder(tmp_path)
    log = folder / "result_1.txt"
    lines = log.read_bytes().split(b"\n")
    evals = [n for n, line in enumerate(lines) if b'"eval_accuracy"' in line]
    lines[evals[0]] = lines[evals[0]][:-20]  # (a cut eval: the checker raises, MLC535 there)
    if shape == "trailing":
        lines[evals[0]] = lines[evals[0]] + b"\x85"  # (and another whole: no finding)
        lines[evals[0]], lines[evals[1]] = lines[evals[1]] + b"\x85", lines[evals[0]][:-1]
        expected = evals[1] + 1
    elif shape == "long":
        lines.insert(evals[0], b"#" * (17 << 20))  # (a progress bar over the cap, before the cut eval)
        expected = evals[0] + 2
    elif shape == "long_tail":  # (the cut eval after 17 MiB of a bar redrawn by CRs, on its line)
        lines[evals[0]] = (b"#" * (1 << 20) + b"\r") * 17 + lines[evals[0]]
        expected = evals[0] + 1
    elif shape == "leading":  # (a whole eval after a character str.strip() drops: the checker strips
        marker = lines[evals[1]].index(b"{")  # the line before cutting the marker off, so json.loads fails)
        lines[evals[0]], lines[evals[1]] = lines[evals[1]][:marker] + b"\xa0" + lines[evals[1]][marker:], lines[evals[0]]
        expected = evals[0] + 1  # (the \xa0 eval first, the cut one after it)
    else:
        expected = evals[0] + 1
    log.write_bytes((b"\r" if shape == "cr" else b"\n").join(lines))
    with pytest.raises(ValueError):
        rcp_checker.check_directory(str(folder), "training", "5.1.0", False, False, rcp_pass="pruned_rcps")
    (bench,) = check([str(folder)]).benchmarks
    assert [(f.code, f.line) for f in bench.findings if f.code == "MLC535"] == [("MLC535", expected)]
