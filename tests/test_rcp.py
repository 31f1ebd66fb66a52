"""The RCP test (issue 4 §3, §4): the pure-Python t distribution against scipy, the record
checker's numbers on the shared corpus, each matching case, normalisation and scoring edge cases."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from mlcheck import check
from mlcheck.score.rcp import RunConvergence, convergence_point, evaluate_rcp
from mlcheck.score.rcp.reference import (Reference, round_policy, build_reference_set, interpolate,
                                         load_references, min_acceptable_mean, prune)
from mlcheck.score.rcp.tdist import one_sided_p_value, regularized_incomplete_beta, t_cdf
from mlcheck.facts.rulesets import load_ruleset
from mlcheck.score.scoring import folder_score


@pytest.mark.parametrize("t,df", [(-3.5, 4), (-2.1, 24), (-0.2, 16), (0.0, 9), (0.7, 3), (2.5, 30),
                                  (-12.0, 26), (40.0, 2), (-1e-6, 100)])
def test_t_cdf_matches_scipy(t: float, df: int) -> None:
    scipy_stats = pytest.importorskip("scipy.stats")
    assert t_cdf(t, df) == pytest.approx(float(scipy_stats.t.cdf(t, df)), rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("a,b,x", [(0.5, 0.5, 0.3), (2.0, 3.0, 0.9), (10.0, 0.5, 0.99), (13.0, 0.5, 0.2)])
def test_incomplete_beta_matches_scipy(a: float, b: float, x: float) -> None:
    special = pytest.importorskip("scipy.special")
    assert regularized_incomplete_beta(a, b, x) == pytest.approx(float(special.betainc(a, b, x)), rel=1e-10)


def test_one_sided_p_value_matches_the_record_checker_conversion() -> None:
    scipy_stats = pytest.importorskip("scipy.stats")
    for mean_a, mean_b in ((3.2, 3.3), (3.4, 3.3)):
        t, p = scipy_stats.ttest_ind_from_stats(mean_a, 0.1, 18, mean_b, 0.1, 8, equal_var=True)
        expected = p / 2 if t < 0 else 1 - p / 2
        assert one_sided_p_value(mean_a, 0.1, 18, mean_b, 0.1, 8) == pytest.approx(expected, rel=1e-9)


def test_min_acceptable_mean_matches_the_official_bisection() -> None:
    rcp_checker = pytest.importorskip("mlperf_logging.rcp_checker.rcp_checker")
    official = rcp_checker.RCP_Checker("training", "2.0.0", "bert", False)
    for mean, stdev, n in ((3319125.33, 101234.5, 18), (40.375, 0.8, 8), (2.5, 0.0, 8)):
        assert min_acceptable_mean(mean, stdev, n, 10) == pytest.approx(
            official._find_min_acceptable_mean(mean, stdev, n), abs=2e-4)


def test_rules_text_example_is_reproduced() -> None:
    """training_rules.adoc RCP appendix: BS128 min mean 15.21, BS256 19.93 (trimmed stdev)."""
    records = {"a": {"BS": 128, "Epochs to converge": [16, 14, 16, 17, 16, 16, 15, 16, 15, 16]},
               "b": {"BS": 256, "Epochs to converge": [20, 21, 21, 20, 22, 22, 21, 21, 20, 20]}}
    refs = build_reference_set("resnet", "1.1.0", records, "rules example", 5)
    assert [round(r.min_mean, 4) for r in refs.all] == [15.2126, 19.9291]


# (round, system folder) -> (verdict, reference, submission mean, minimum acceptable mean)
CORPUS_RCP = {
    ("1.1.0", "ipu-pod16-POPART-closed"): ("fail", "bert_ref_3072", 2515625.0, 2663811),
    ("1.1.0", "ipu-pod64-POPART-closed"): ("fail", "bert_ref_3072", 2471875.0, 2663811),
    ("1.1.0", "ipu-pod128-POPART-closed"): ("pass", "bert_ref_6144", 3325000.0, 3243918),
    ("1.1.0", "ipu-pod256-TF1"): ("pass", "interpolated between BS 8192 and BS 13056", 45.0, 42.27),
    ("1.1.0", "ipu-pod128-TF1"): ("pass", "interpolated between BS 4096 and BS 8192", 41.0, 39.45),
    ("2.0.0", "ipu-pod128-POPART-closed"): ("fail", "bert_ref_6144", 3200000.0, 3243918),
    ("2.0.0", "ipu-pod256-POPART-closed"): ("fail", "bert_ref_6912", 3431250.0, 3533004),
    ("2.0.0", "ipu-pod64-POPART-closed"): ("pass", "bert_ref_4608", 2875000.0, 2723753),
    ("2.0.0", "ipu-pod16-PaddlePaddle-closed"): ("pass", "bert_ref_3072", 2800000.0, 2663811),
}


@pytest.mark.parametrize("round_name,ruleset", [("training-1.1", "1.1.0"), ("training-2.0", "2.0.0")])
def test_corpus_rcp_verdicts_match_the_record_checker(corpus: Path, round_name: str, ruleset: str) -> None:
    result = check([str(corpus / round_name / "Graphcore")], ruleset=ruleset)
    failing = set()
    for bench in result.benchmarks:
        assert bench.rcp is not None
        if bench.division == "open":
            assert bench.rcp.verdict == "skipped"
        if bench.rcp.verdict != "pass" and bench.division == "closed":
            failing.add(bench.system)
        expected = CORPUS_RCP.get((ruleset, bench.system or ""))
        if expected is not None:
            verdict, reference, mean, minimum = expected
            assert (bench.rcp.verdict, bench.rcp.reference) == (verdict, reference)
            assert bench.rcp.submission_mean == pytest.approx(mean)
            assert bench.rcp.min_acceptable_mean == pytest.approx(minimum, rel=1e-4 if mean > 1e4 else 1e-3)
    expected_failing = {s for (r, s), v in CORPUS_RCP.items() if r == ruleset and v[0] == "fail"}
    assert failing == expected_failing
    rcp_codes = sorted((f.code, f.path.rsplit("/", 2)[-2]) for f in result.all_findings() if f.code >= "MLC530")
    assert rcp_codes == sorted(("MLC530", s) for s in expected_failing)


def test_record_data_reproduces_the_1_1_resnet_reference_mean() -> None:
    """official-tooling.md §1.10: BS 10240 -> 43.04 and BS 5120 -> 40.38 at the 1.1 tag."""
    refs = load_references("resnet", "1.1.0", 5)
    assert refs is not None and "8edcfc7" in refs.source
    by_bs = {r.batch_size: r for r in refs.used}
    assert round(interpolate(10240, by_bs[8192], by_bs[13056], 5).mean, 2) == 43.04
    assert round(interpolate(5120, by_bs[4096], by_bs[8192], 5).mean, 2) == 40.38


def test_pruning_only_from_2_0() -> None:
    policies = {v: round_policy(v) for v in ("1.0.0", "1.1.0", "2.0.0", "2.1.0")}
    assert [p.prune for p in policies.values() if p] == [False, False, True, True]
    assert [load_ruleset(v).normalise_to_rcp for v in policies] == [False, False, False, True]
    assert round_policy("0.7.0") is None
    one = load_references("bert", "1.1.0", 10)
    two = load_references("bert", "2.0.0", 10)
    assert one is not None and two is not None
    assert one.used == one.all and len(two.used) < len(two.all)


def _ref(bs: int, mean: float, stdev: float = 1.0) -> Reference:
    return Reference(f"r{bs}", bs, mean, stdev, 8, 5)


def test_prune_drops_smaller_batches_and_slow_middle_points() -> None:
    refs = (_ref(100, 40), _ref(200, 30), _ref(400, 50), _ref(800, 40))
    kept = prune(refs, "mean", 5)
    assert [r.batch_size for r in kept] == [200, 800]


def _runs(points: list[float | None], bs: int = 3264) -> list[RunConvergence]:
    return [RunConvergence(p, bs) for p in points]


def test_a_nan_convergence_point_makes_the_verdict_depend_on_the_files_order() -> None:
    """The checker sorts the points in the file system's order; a NaN lands anywhere (MLC536), and a
    failure that may be a pass elsewhere is a warning, not an error said to agree with the checker."""
    from mlcheck.model import Severity
    from mlcheck.rules.rcp_check import rcp_findings

    runs = [RunConvergence(p, 3264, f"result_{i}.txt") for i, p in enumerate([36, 40, 36, 36, 40])]
    assert evaluate_rcp("resnet", "closed", "2.0.0", runs, 5).unordered == ()
    runs[2] = dataclasses.replace(runs[2], converged_at=float("nan"))
    result = evaluate_rcp("resnet", "closed", "2.0.0", runs, 5)
    assert result.unordered == ("result_2.txt",) and result.verdict == "fail"  # (name order: NaN in the mean)
    found = {f.code: f for f in rcp_findings("FOLDER", result, ruleset="2.0.0")}
    assert set(found) == {"MLC530", "MLC536"}
    assert (found["MLC530"].severity, found["MLC530"].official) == (Severity.WARNING, False)
    assert "under 1 %" not in found["MLC530"].message
    assert found["MLC536"].severity == Severity.WARNING and "result_2.txt is NaN" in found["MLC536"].message
    # (two runs that did not converge are refused before any sort: no order to depend on)
    runs[0] = runs[1] = dataclasses.replace(runs[0], converged_at=None)
    assert evaluate_rcp("resnet", "closed", "2.0.0", runs, 5).unordered == ()


def test_batch_sizes_as_the_rcp_checker_reads_them() -> None:
    """-1 is the checker's "none found" (all: 'Could not detect global_batch_size'; some: KeyError
    unless they come first in the file system's order); true is 1, a batch below every RCP."""
    def named(sizes: list[object]) -> list[RunConvergence]:
        return [RunConvergence(36.0, bs, f"result_{i}.txt") for i, bs in enumerate(sizes)]

    none = evaluate_rcp("resnet", "closed", "2.1.0", named([-1] * 5), 5)
    assert none.verdict == "fail" and none.submission_mean is None and not none.stops  # (it fails the folder)
    assert "(-1 is the RCP checker's value for none found): the round's RCP checker fails the folder " \
           "('Could not detect global_batch_size')" in none.reason
    assert "Could not detect" in evaluate_rcp("resnet", "closed", "2.1.0", named([None] * 5), 5).reason
    from mlcheck.score.rcp.across_runs import LOGGED_NULL  # (logged as null, not absent: TypeError)
    null = evaluate_rcp("resnet", "closed", "2.1.0", named([LOGGED_NULL] * 5), 5)
    assert null.stops and "(null, null, null, null, null): no run logs it as a number" in null.reason
    assert "raises TypeError" in evaluate_rcp("resnet", "closed", "2.1.0", named([[8]] * 5), 5).reason
    some = evaluate_rcp("resnet", "closed", "2.1.0", named([3264, -1, 3264, None, 3264.0]), 5)
    assert some.verdict == "fail" and "result_1.txt, result_3.txt log none among runs that log one" in some.reason
    assert "raises KeyError: None where one without comes after one with" in some.reason
    differ = evaluate_rcp("resnet", "closed", "2.1.0", named([3264, 3264, 3264, 3264, 1632]), 5)
    assert "the runs log different values: the RCP checker then looks up no benchmark and raises KeyError" in differ.reason
    as_true = evaluate_rcp("resnet", "closed", "2.1.0", named([True] * 5), 5)  # (batch 1: below every RCP)
    assert as_true.batch_size == 1 and as_true.verdict == "pass" and "smallest-batch" in as_true.reason


def test_benchmark_names_as_the_rcp_checker_compares_them() -> None:
    """It compares each file's submission_benchmark with the one read so far: any difference (one
    without among runs with one, in most orders) and none at all raise KeyError: None."""
    def named(names: list[object]) -> list[RunConvergence]:
        return [RunConvergence(36.0, 3264, f"result_{i}.txt", name) for i, name in enumerate(names)]

    assert evaluate_rcp("resnet", "closed", "2.1.0", named(["resnet"] * 5), 5).verdict == "pass"
    one = evaluate_rcp("resnet", "closed", "2.1.0", named(["resnet", None, "resnet", "resnet", "resnet"]), 5)
    assert one.verdict == "fail" and one.submission_mean is None
    assert "result_1.txt logs no submission_benchmark among runs that name 'resnet'" in one.reason
    assert "only where every run without one comes first does it go on" in one.reason
    differ = evaluate_rcp("resnet", "closed", "2.1.0", named(["resnet", "bert", "resnet", "resnet", "resnet"]), 5)
    assert "the runs name different benchmarks ('bert', 'resnet')" in differ.reason
    assert "no run logs submission_benchmark" in evaluate_rcp("resnet", "closed", "2.1.0", named([None] * 5), 5).reason
    # (the score says no score is published: the package checker stops, MLC521 no longer says "publish")
    assert one.stops and differ.stops
    from mlcheck.judge.official_stops import rcp_stops
    assert rcp_stops(differ).endswith("a package it does not pass is not published") and rcp_stops(None) == ""


def test_the_1_x_and_2_0_checkers_compare_no_runs() -> None:
    """1.0-2.0: the folder's name, the last batch size read (file-system order: MLC536, and the
    test's findings warnings); from 2.1 the names and sizes are compared (a name not the folder's:
    the checker looks that one up); inf is a batch size above every RCP, as the checker reads it."""
    from mlcheck.model import Severity
    from mlcheck.rules.rcp_check import rcp_findings

    def runs(names: list[object], sizes: list[object]) -> list[RunConvergence]:
        return [RunConvergence(36.0, bs, f"result_{i}.txt", name) for i, (name, bs) in enumerate(zip(names, sizes))]

    mixed = runs(["resnet", "maskrcnn", None, "resnet", "resnet"], [3264] * 5)
    assert evaluate_rcp("resnet", "closed", "2.0.0", mixed, 5).verdict == "pass"
    assert evaluate_rcp("resnet", "closed", "2.1.0", mixed, 5).verdict == "fail"
    other = evaluate_rcp("resnet", "closed", "3.0.0", runs(["ssd"] * 5, [3264] * 5), 5)
    assert "the runs name 'ssd', not the folder's 'resnet'" in other.reason
    sizes = evaluate_rcp("resnet", "closed", "2.0.0", runs(["resnet"] * 5, [3264, 3264, 3264, 3264, 100_000]), 5)
    assert sizes.batch_size == 100_000 and sizes.verdict == "missing" and "tests the last one it reads" in sizes.order_note
    found = {f.code: f for f in rcp_findings("FOLDER", sizes, ruleset="2.0.0")}
    assert found["MLC536"].message.startswith("the runs log different batch sizes (100000, 3264)")
    assert (found["MLC531"].severity, found["MLC531"].official) == (Severity.WARNING, False)
    assert evaluate_rcp("resnet", "closed", "3.0.0", runs(["resnet"] * 5, [float("inf")] * 5), 5).verdict == "missing"


def test_matching_cases() -> None:
    exact = evaluate_rcp("resnet", "closed", "2.0.0", _runs([36, 40, 36, 36, 40]), 5)
    assert exact.verdict == "pass" and exact.reference_batch_sizes == (3264,)
    assert exact.submission_mean == pytest.approx(37.3333, rel=1e-4) and exact.margin_pct is not None
    interpolated = evaluate_rcp("resnet", "closed", "2.0.0", _runs([41] * 5, 5120), 5)
    assert interpolated.verdict == "pass" and len(interpolated.reference_batch_sizes) == 2
    above = evaluate_rcp("resnet", "closed", "2.0.0", _runs([90] * 5, 1_000_000), 5)
    assert above.verdict == "missing" and "BS = 1000000" in above.reason
    below_slow = evaluate_rcp("resnet", "closed", "1.1.0", _runs([60] * 5, 512), 5)
    assert below_slow.verdict == "pass" and "smallest-batch" in below_slow.reason
    below_fast = evaluate_rcp("resnet", "closed", "1.1.0", _runs([20] * 5, 512), 5)
    assert below_fast.verdict == "missing"


def test_failure_cases() -> None:
    slow = evaluate_rcp("resnet", "closed", "2.0.0", _runs([30] * 5), 5)
    assert slow.verdict == "fail" and slow.margin_pct is not None and slow.margin_pct < 0
    two_failed = evaluate_rcp("resnet", "closed", "2.0.0", _runs([None, None, 36, 36, 36]), 5)
    assert two_failed.verdict == "fail" and "insufficient convergence" in two_failed.reason
    mixed = evaluate_rcp("resnet", "closed", "2.1.0", _runs([36] * 4) + _runs([36], 3200), 5)
    assert mixed.verdict == "fail" and "global_batch_size" in mixed.reason  # (2.0 tests the last read: above)
    one_failed = evaluate_rcp("resnet", "closed", "2.0.0", _runs([None, 36, 36, 36, 36]), 5)
    assert one_failed.verdict == "pass" and one_failed.submission_mean == 36


def test_skipped_cases() -> None:
    assert evaluate_rcp("bert", "open", "2.0.0", _runs([1] * 10), 10).verdict == "skipped"
    assert evaluate_rcp("minigo", "closed", "2.0.0", _runs([1] * 10), 10).verdict == "skipped"
    assert evaluate_rcp("resnet", "closed", "0.7.0", _runs([1] * 5), 5).verdict == "skipped"


def test_convergence_point() -> None:
    assert convergence_point("success", 35.12345) == 35.123
    assert convergence_point("aborted", 35.0) is None
    assert convergence_point("success", None) is None


def test_2_1_normalisation_factor_is_applied_to_the_score() -> None:
    refs = load_references("bert", "2.1.0", 10)
    assert refs is not None and load_ruleset("2.1.0").normalise_to_rcp
    ref = refs.used[1]
    fast = (ref.mean + ref.min_mean) / 2
    result = evaluate_rcp("bert", "closed", "2.1.0", _runs([fast] * 10, ref.batch_size), 10)
    assert result.verdict == "pass"
    assert result.normalization_factor == pytest.approx(ref.mean / fast)
    facts = load_ruleset("2.1.0").facts("bert")
    score, official = folder_score([10.0] * 10, [True] * 10, facts, None, result.normalization_factor)
    assert official is None and score.valid
    assert score.score_min == pytest.approx(10.0 * ref.mean / fast)
    committee, _ = folder_score([10.0] * 10, [True] * 10, facts, 1.5, result.normalization_factor)
    assert committee.score_min == pytest.approx(15.0)


def test_median_for_three_run_benchmarks_and_unet3d_drop_four() -> None:
    facts = load_ruleset("2.0.0").facts("resnet")
    three = dataclasses.replace(facts, result_files=3)
    score, _ = folder_score([12.0, 10.0, 11.0], [True] * 3, three)
    assert score.valid and score.score_min == 11.0
    score, _ = folder_score([12.0, None, 11.0], [True] * 3, three)
    assert score.valid and score.score_min == 12.0
    unet = load_ruleset("2.0.0").facts("unet3d")
    times: list[float | None] = [float(i) for i in range(36)] + [None] * 4
    score, _ = folder_score(times, [True] * 40, unet)
    assert score.valid and score.score_min == pytest.approx(sum(range(4, 36)) / 32)
    score, _ = folder_score([float(i) for i in range(35)] + [None] * 5, [True] * 40, unet)
    assert not score.valid


def test_non_compliant_run_official_versus_rules() -> None:
    facts = load_ruleset("2.0.0").facts("resnet")
    score, official = folder_score([10.0, 11.0, 12.0, 13.0, 9.0], [True, True, False, True, True], facts)
    assert official is not None and official.valid
    # run 2 counts as the non-converged (slowest) one: mean of 10, 11, 13
    assert official.score_min == pytest.approx(34 / 3)
    assert not score.valid and score.score_min == official.score_min
    assert "publish 11.33 min" in score.reason


def test_2_1_normalisation_through_the_checker_writes_nothing(tmp_path: Path) -> None:
    """A 2.1 package converging faster than the RCP mean (but within the test) is scaled up."""
    import re
    import shutil

    package = tmp_path / "Acme"
    shutil.copytree(Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme", package)
    folder = package / "results" / "acme-t8" / "resnet"
    for log in sorted(folder.glob("result_*.txt")):
        lines = log.read_text().splitlines(keepends=True)
        last = max(i for i, line in enumerate(lines) if '"key": "eval_accuracy"' in line)
        lines[last] = re.sub(r'"epoch_num": \d+', '"epoch_num": 35', lines[last])
        log.write_text("".join(lines))
    before = sorted(p.name for p in folder.iterdir())
    result = check([str(package)], ruleset="2.1.0")
    bench = result.benchmarks[0]
    assert bench.rcp is not None and bench.rcp.verdict == "pass"
    assert bench.rcp.submission_mean == 35.0
    factor = bench.rcp.normalization_factor
    assert factor == pytest.approx(bench.rcp.reference_mean / 35.0) and factor > 1
    assert bench.score.scaling_factor == pytest.approx(factor)
    assert bench.score.score_min == pytest.approx(bench.score.unscaled_min * factor)
    assert "MLC533" in {f.code for f in bench.findings}
    assert sorted(p.name for p in folder.iterdir()) == before  # no scaling.json written
    same_in_2_0 = check([str(package)], ruleset="2.0.0").benchmarks[0]
    assert same_in_2_0.score.scaling_factor is None


def test_json_report_carries_the_rcp_object(corpus: Path) -> None:
    import json

    import jsonschema

    from mlcheck.report.json_report import render_json

    result = check([str(corpus / "training-2.0" / "Graphcore")], ruleset="2.0.0")
    report = json.loads(render_json(result))
    schema = json.loads((Path(__file__).resolve().parent.parent / "schemas" / "report.schema.json").read_text())
    jsonschema.validate(report, schema)
    by_system = {b["system"]: b["rcp"] for b in report["benchmarks"]}
    failed = by_system["ipu-pod128-POPART-closed"]
    assert failed["verdict"] == "fail" and failed["reference_batch_sizes"] == [6144]
    assert round(failed["min_acceptable_mean"]) == 3243918 and failed["submission_mean"] == 3200000
    assert failed["margin_pct"] == pytest.approx(-1.354, abs=1e-3) and failed["normalization_factor"] is None
    assert by_system["ipu-pod64-POPART-open"]["verdict"] == "skipped"
    assert by_system["ipu-pod16-TF1-closed"]["verdict"] == "pass"
    assert by_system["ipu-pod16-TF1-closed"]["normalization_factor"] == 1.0


@pytest.mark.parametrize("place,text,honoured", [("system", "rcp-bypass", False), ("system", "rcp_bypass\n", False),
                                                 ("package", "rcp_bypass\n", True), ("package", "rcp_bypass", False),
                                                 ("package", "rcp-bypass\n", False)])
def test_rcp_bypass_turns_the_failure_into_a_warning_where_the_round_honours_it(
        corpus: Path, tmp_path: Path, place: str, text: str, honoured: bool) -> None:
    """Training 2.0 reads a bypass only from the top-level file (its verify script passes each
    line ending in a newline as --<line>: --rcp_bypass); elsewhere MLC546 says why, and the
    failure stays the error the official package checker reports."""
    import shutil

    from mlcheck.model import Severity

    folder = tmp_path / "Graphcore" / "results" / "ipu-pod128-POPART-closed" / "bert"
    shutil.copytree(corpus / "training-2.0" / "Graphcore" / "results" / "ipu-pod128-POPART-closed" / "bert", folder)
    before = check([str(folder)], ruleset="2.0.0").benchmarks[0]
    assert [(f.code, f.severity) for f in before.findings if f.code == "MLC530"] == [("MLC530", Severity.ERROR)]
    (folder.parent if place == "system" else tmp_path / "Graphcore").joinpath("package_checker_params").write_text(text)
    after = check([str(folder)], ruleset="2.0.0").benchmarks[0]
    found = [f for f in after.findings if f.code == "MLC530"]
    codes = {f.code for f in after.findings}
    if honoured:
        assert [f.severity for f in found] == [Severity.WARNING] and "rcp-bypass requested" in found[0].message
        assert "MLC547" in codes and "MLC546" not in codes
    else:
        assert [f.severity for f in found] == [Severity.ERROR] and "MLC546" in codes and "MLC547" not in codes
    assert after.rcp is not None and after.rcp.verdict == "fail"


def _bisected(mean: float, stdev: float, reference_samples: int, submission_runs: int) -> float:
    """min_acceptable_mean as the record checker's bisection computes it, every p-value computed."""
    from mlcheck.score.rcp.reference import ALPHA, TOLERANCE

    low, high = 0.0, mean
    middle = (low + high) / 2
    while high - low > TOLERANCE:
        if one_sided_p_value(middle, stdev, reference_samples, mean, stdev, submission_runs - 2) > ALPHA:
            high = middle
        else:
            low = middle
        middle = (low + high) / 2
    return middle


def test_minimum_means_are_those_of_the_full_bisection() -> None:
    """The bisection that reads most answers from the critical t gives the same float as the one
    that computes every p-value, over references of every shape."""
    import random

    from mlcheck.score.rcp.reference import min_acceptable_mean

    rng = random.Random(20261201)
    cases = [(rng.uniform(0.5, 200.0) * 10 ** rng.randint(-2, 6), rng.uniform(0.001, 0.5), rng.randint(2, 60),
              rng.choice([3, 5, 6, 8, 10, 12, 14, 16, 18, 20, 40])) for _ in range(400)]
    for mean, share, samples, runs in cases:
        stdev = mean * share
        assert min_acceptable_mean.__wrapped__(mean, stdev, samples, runs) == _bisected(mean, stdev, samples, runs)


def test_p_value_side_is_that_of_the_p_value_near_the_critical_t() -> None:
    """Around the t whose p-value is alpha, and far from it, the side read from the critical t is
    the side the p-value is on."""
    from mlcheck.score.rcp.tdist import _critical_t, one_sided_p_above

    for samples, runs in ((2, 3), (8, 10), (18, 8), (60, 40)):
        n_b = runs - 2
        denominator = (((samples - 1) * 1.0 + (n_b - 1) * 1.0) / (samples + n_b - 2) * (1 / samples + 1 / n_b)) ** 0.5
        critical = _critical_t(float(samples + n_b - 2), 0.05)
        assert critical is not None
        for offset in (-1.0, -1e-3, -1e-6, -3e-9, -1e-9, -1e-12, 0.0, 1e-12, 1e-9, 3e-9, 1e-6, 1e-3, 1.0):
            mean_a = 10.0 + (critical + offset) * denominator
            assert one_sided_p_above(0.05, mean_a, 1.0, samples, 10.0, 1.0, n_b) == \
                (one_sided_p_value(mean_a, 1.0, samples, 10.0, 1.0, n_b) > 0.05)


def test_score_exits_1_on_an_rcp_failure_the_checker_refuses_and_0_with_its_bypass(corpus: Path, tmp_path: Path) -> None:
    """`mlcheck score` gates as `check` does: the score of a folder whose RCP test fails stands
    (the summarizer computes it), but the package checker refuses it until a bypass: exit 1, then 0."""
    import shutil

    from click.testing import CliRunner

    from mlcheck.cli import main

    folder = tmp_path / "Graphcore" / "results" / "ipu-pod128-POPART-closed" / "bert"
    package = corpus / "training-2.0" / "Graphcore"
    shutil.copytree(package / "results" / "ipu-pod128-POPART-closed" / "bert", folder)
    (tmp_path / "Graphcore" / "systems").mkdir()
    shutil.copy(package / "systems" / "ipu-pod128-POPART-closed.json", tmp_path / "Graphcore" / "systems")
    refused = CliRunner().invoke(main, ["score", str(folder), "--ruleset", "2.0.0", "--jobs", "1"])
    assert refused.exit_code == 1 and "valid" in refused.stdout and "RCP test failed" in refused.stdout, refused.output
    (folder.parent / "package_checker_params").write_text("rcp-bypass\n")  # (2.0 reads no such file: MLC546)
    ignored = CliRunner().invoke(main, ["score", str(folder), "--ruleset", "2.0.0", "--jobs", "1"])
    assert ignored.exit_code == 1, ignored.output
    (tmp_path / "Graphcore" / "package_checker_params").write_text("rcp_bypass\n")  # (its verify script's)
    bypassed = CliRunner().invoke(main, ["score", str(folder), "--ruleset", "2.0.0", "--jobs", "1"])
    assert bypassed.exit_code == 0, bypassed.output


def test_a_normalisation_today_s_tools_would_make_otherwise_is_told() -> None:
    from mlcheck.results import RcpResult, Score
    from mlcheck.rules.rcp_texts import today_scaled_text

    today = RcpResult("pass", "", reference="gpt3_ref_2048", normalization_factor=1.0217391304347827)
    record = RcpResult("pass", "", reference="gpt3_ref_1536", normalization_factor=1.0326086956521738, today=today)
    score = Score(457.00990851449274, True, "", scaling_factor=1.0326086956521738, unscaled_min=442.578)
    assert today_scaled_text(record, score) == \
        "today's mlperf-logging would normalise by 1.0217 (gpt3_ref_2048): 452.20 min"
    same = RcpResult("pass", "", normalization_factor=1.0326086956521738, today=record)
    assert today_scaled_text(same, score) is None  # (the same factor: nothing to tell)
    with_committee = Score(470.0, True, "", scaling_factor=1.06, unscaled_min=442.578)
    assert today_scaled_text(record, with_committee) is None  # (not scaled by the RCP factor alone)


def test_the_text_says_when_the_smallest_batch_rcp_stood_in() -> None:
    """No RCP at the submission's batch size, above the smallest: the checker compares with the
    smallest-batch RCP; the text's RCP line says so (only the JSON reason did, session 36)."""
    from types import SimpleNamespace

    from mlcheck.report.text import rcp_text
    from mlcheck.results import RcpResult

    rcp = RcpResult("pass", "no RCP at this batch size; compared with the smallest-batch RCP (ssd_ref_1024)",
                    batch_size=456, reference="ssd_ref_1024", reference_mean=50.0, min_acceptable_mean=50.0,
                    submission_mean=50.0, margin_pct=0.0)
    bench = SimpleNamespace(rcp=rcp, score=SimpleNamespace(scaling_factor=None, score_min=None, reason=""))
    text = rcp_text(bench)  # type: ignore[arg-type]
    assert text is not None and text.plain.endswith(
        "; no RCP at batch size 456: compared with the smallest-batch RCP (ssd_ref_1024)")


def test_a_metric_condition_compares_as_the_rcp_checkers_python_does() -> None:
    """``true`` is 1 in the RCP checker's comparisons (``True >= 0.15``): a Stable Diffusion eval
    whose CLIP value is ``true`` meets CLIP >= 0.15 (was: no step passes, MLC535 claiming a
    ValueError the checker does not raise; a review, session 44); NaN and text meet nothing."""
    from mlcheck.score.rcp.policy import MetricCondition

    clip = MetricCondition("CLIP", ">=", 0.15)
    assert clip.holds(True) and clip.holds(0.2) and not clip.holds(False)
    assert not clip.holds(float("nan")) and not clip.holds("0.2") and not clip.holds(None)


def test_today_s_release_compares_the_runs_of_every_round() -> None:
    """Today's RCP checker compares the runs' benchmark names and batch sizes whatever the round:
    on a 1.1 or 2.0 folder of two batch sizes (another system's file), the record checker tests
    the last size read and today's raises KeyError: None (was today's verdict on the last size too;
    review of session 49)."""
    from mlcheck.score.rcp.today import load_today_references

    runs = [RunConvergence(36.0, bs, f"result_{i}.txt", "resnet") for i, bs in enumerate([3264, 3264, 3264, 3264, 5120])]
    for ruleset in ("1.1.0", "2.0.0"):
        record = evaluate_rcp("resnet", "closed", ruleset, runs, 5)
        today = evaluate_rcp("resnet", "closed", ruleset, runs, 5, load_today_references, today=True)
        assert record.batch_size == 5120 and today.verdict == "fail" and today.stops
        assert "could not detect one global_batch_size across the runs" in today.reason
