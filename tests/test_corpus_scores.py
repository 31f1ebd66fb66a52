"""The published Graphcore results of rounds 1.1 and 2.0, recomputed from the shared corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlcheck import check

# (round, system folder, benchmark) -> minutes as MLCommons publishes them (two decimals).
EXPECTED = {
    ("1.1.0", "ipu-pod16-TF1", "resnet"): 28.33,
    ("1.1.0", "ipu-pod64-TF1", "resnet"): 8.50,
    ("1.1.0", "ipu-pod128-TF1", "resnet"): 5.67,
    ("1.1.0", "ipu-pod256-TF1", "resnet"): 3.79,
    ("1.1.0", "ipu-pod16-POPART-closed", "bert"): 32.70,
    ("1.1.0", "ipu-pod64-POPART-closed", "bert"): 10.56,
    ("1.1.0", "ipu-pod128-POPART-closed", "bert"): 6.86,
    ("1.1.0", "ipu-pod16-POPART-open", "bert"): 26.05,
    ("1.1.0", "ipu-pod64-POPART-open", "bert"): 8.25,
    ("1.1.0", "ipu-pod128-POPART-open", "bert"): 5.88,
    ("2.0.0", "ipu-pod16-TF1-closed", "resnet"): 19.64,
    ("2.0.0", "ipu-pod64-TF1-closed", "resnet"): 6.30,
    ("2.0.0", "ipu-pod128-TF1-closed", "resnet"): 4.19,
    ("2.0.0", "ipu-pod256-TF1-closed", "resnet"): 2.67,
    ("2.0.0", "ipu-pod16-POPART-closed", "bert"): 20.65,
    ("2.0.0", "ipu-pod64-POPART-closed", "bert"): 6.70,
    ("2.0.0", "ipu-pod128-POPART-closed", "bert"): 4.42,
    ("2.0.0", "ipu-pod256-POPART-closed", "bert"): 3.18,
    ("2.0.0", "ipu-pod16-PaddlePaddle-closed", "bert"): 20.75,
    ("2.0.0", "ipu-pod64-PaddlePaddle-closed", "bert"): 6.77,
    ("2.0.0", "ipu-pod64-POPART-open", "rnnt"): 109.36,
}


@pytest.mark.parametrize("round_name,ruleset", [("training-1.1", "1.1.0"), ("training-2.0", "2.0.0")])
def test_package_scores_match_published(corpus: Path, round_name: str, ruleset: str) -> None:
    result = check([str(corpus / round_name / "Graphcore")], ruleset=ruleset)
    scores = {(b.ruleset, b.system, b.benchmark): b.score for b in result.benchmarks}
    expected = {k: v for k, v in EXPECTED.items() if k[0] == ruleset}
    assert set(scores) == set(expected)
    for key, minutes in expected.items():
        assert scores[key].valid, (key, scores[key].reason)
        assert scores[key].score_min is not None
        assert round(scores[key].score_min, 2) == pytest.approx(minutes), key


def test_inferred_ruleset_matches_round(corpus: Path) -> None:
    result = check([str(corpus / "training-1.1" / "Graphcore" / "results" / "ipu-pod16-TF1")])
    assert {r.ruleset for r in result.runs} == {"1.1.0"}
    assert all(r.ruleset_source and "run date" in r.ruleset_source for r in result.runs)
