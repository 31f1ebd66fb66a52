"""The RCP references mlcheck uses for a round are those of the round's checker of record
(``../shared/reference/record-rules/training-X.Y/rcp/``), also where the installed mlperf-logging
copy was edited after the round (records added or changed): every round, every benchmark."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SHARED
from mlcheck.score.rcp.policy import round_policy
from mlcheck.score.rcp.reference import build_reference_set, load_references

RECORD_RULES = SHARED / "reference" / "record-rules"


def _record_files() -> list[Path]:
    return sorted(RECORD_RULES.glob("training-*/rcp/rcps_*.json"))


@pytest.mark.parametrize("path", _record_files() or [None], ids=lambda p: "none" if p is None else
                         f"{p.parent.parent.name}-{p.stem}")
def test_references_are_the_record_checkers(path: Path | None) -> None:
    if path is None:
        pytest.skip("../shared/reference/record-rules/training-*/rcp is not present")
    ruleset = path.parent.parent.name.removeprefix("training-") + ".0"
    benchmark = path.stem.removeprefix("rcps_")
    if round_policy(ruleset) is None:
        pytest.skip(f"training {ruleset} has no RCP test")
    for runs in (5, 10):
        used = load_references(benchmark, ruleset, runs)
        record = build_reference_set(benchmark, ruleset, json.loads(path.read_text("utf-8")), "record", runs)
        assert used is not None
        assert [(r.name, r.batch_size, r.mean, r.stdev) for r in used.all] == \
            [(r.name, r.batch_size, r.mean, r.stdev) for r in record.all], used.source
        assert [r.name for r in used.used] == [r.name for r in record.used]


def test_a_1_1_bert_batch_the_installed_copy_added_later_is_missing() -> None:
    """1.1 BERT at BS 12288: the record's references (4096, 8704 and 13056 added later, 12288
    changed) give a minimum acceptable mean of about 4.80M samples, not the installed 4.41M."""
    from mlcheck.score.rcp import RunConvergence, evaluate_rcp
    result = evaluate_rcp("bert", "closed", "1.1.0", [RunConvergence(4_600_000.0, 12288)] * 10, 10)
    assert result.verdict == "fail", result.reason
    assert result.min_acceptable_mean == pytest.approx(4_796_302, rel=1e-4)


def test_rcp_bert_train_samples_in_the_top_level_params_reads_train_samples(tmp_path: Path) -> None:
    """A 2.0 BERT folder whose evals log epoch_num 1: the RCP test fails (mean 1 sample) unless
    the top-level package_checker_params asks for rcp_bert_train_samples, which the 2.0 verify
    script passes to the package checker; then each run's last train_samples is its point, and
    the package checker passes the folder (as it does here, with the option)."""
    import shutil

    from mlcheck import check

    packages = sorted((SHARED / "other-submitters" / "training-2.0").glob("*/results/*/bert"))
    folder = next((f for f in packages if '"epoch_num": 1}' in (f / "result_0.txt").read_text("utf-8")), None)
    if folder is None:
        pytest.skip("../shared/other-submitters/training-2.0 holds no BERT folder whose evals log epoch_num 1")
    package = folder.parent.parent.parent
    copy = tmp_path / "training-2.0" / package.name
    shutil.copytree(package, copy)
    bench = next(b for b in check([str(copy)]).benchmarks if b.benchmark == "bert")
    assert bench.rcp is not None and bench.rcp.verdict == "fail"
    assert "rcp_bert_train_samples" in next(f.message for f in bench.findings if f.code == "MLC530")
    (copy / "package_checker_params").write_text("rcp_bert_train_samples\n", "utf-8")
    bench = next(b for b in check([str(copy)]).benchmarks if b.benchmark == "bert")
    assert bench.rcp is not None and bench.rcp.verdict == "pass", bench.rcp.reason
    assert bench.rcp.submission_mean is not None and bench.rcp.submission_mean > 1e6
    assert [f.code for f in bench.findings if f.code.startswith("MLC54")] == ["MLC547"]
