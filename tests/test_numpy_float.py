"""The RCP checker's numpy arithmetic, reproduced bit for bit without numpy (which the installed
mlperf-logging brings): pairwise sums, means, population deviations, interpolation; and, on the
shared rounds, the verdict and normalisation factor of the installed RCP checker and the score of
the installed result summarizer to the last digit."""

from __future__ import annotations

import contextlib
import io
import logging
import random
import sys
from pathlib import Path

import pytest

from conftest import SHARED
from mlcheck import check
from mlcheck.score.float_sum import sequential_sum
from mlcheck.score.numpy_float import numpy_interp, numpy_mean, numpy_std, numpy_sum

np = pytest.importorskip("numpy", reason="numpy (installed with mlperf-logging) is not importable")
ROUNDS = SHARED / "other-submitters"


def test_sums_means_and_deviations_are_numpy_s() -> None:
    draw = random.Random(20261203)
    for count in [*range(1, 40), 127, 128, 129, 136, 255, 256, 257, 1000]:
        for _ in range(20):
            values = [draw.uniform(0.0, 100.0) * 10.0 ** draw.randint(-3, 6) for _ in range(count)]
            array = np.array(values)
            assert numpy_sum(values) == float(np.sum(array)), count
            assert numpy_mean(values) == float(np.mean(array)), count
            assert numpy_std(values) == float(np.std(array)), count
    assert numpy_sum([0.1] * 10) == 1.0 != sequential_sum([0.1] * 10)  # (eight running sums, not left to right)


def test_interpolation_is_numpy_s() -> None:
    draw = random.Random(7)
    for _ in range(2000):
        low = draw.randint(1, 5000)
        high = low + draw.randint(2, 5000)
        x = float(draw.randint(low + 1, high - 1)) if draw.random() < 0.5 else draw.uniform(low + 1e-6, high - 1e-6)
        ys = (draw.uniform(1.0, 100.0), draw.uniform(1.0, 100.0))
        assert numpy_interp(x, low, high, *ys) == float(np.interp(x, [low, high], list(ys)))
        for end in (low, high):
            assert numpy_interp(end, low, high, *ys) == float(np.interp(end, [low, high], list(ys)))


@pytest.mark.parametrize("round_name", ["4.0", "5.1"])
def test_rcp_verdicts_and_factors_are_the_installed_checker_s(round_name: str) -> None:
    """Each closed folder of the round: mlcheck's RCP test under today's mlperf-logging and the
    installed RCP checker (read only: no scaling.json written) give the same verdict and, where
    it passes, the same normalisation factor to the last bit (an interpolated RCP's factor was
    1.0037348272642388 against the checker's 1.003734827264239)."""
    folder = ROUNDS / f"training-{round_name}"
    if not folder.is_dir():
        pytest.skip(f"{folder} is not present")
    from mlperf_logging.rcp_checker import rcp_checker
    logging.disable(logging.CRITICAL)
    compared = []
    try:
        for bench in check(sorted(str(org) for org in folder.iterdir())).benchmarks:
            if bench.rcp is None or bench.rcp.verdict == "skipped" or bench.folder is None:
                continue
            mine = bench.rcp.today or bench.rcp
            with contextlib.redirect_stdout(io.StringIO()):
                passed, _, factor = rcp_checker.check_directory(bench.folder, "training", bench.ruleset, False, False,
                                                                rcp_pass="pruned_rcps", set_scaling=False)
            compared.append((bench.folder, mine.verdict == "pass", mine.normalization_factor if passed else None))
            assert (mine.verdict == "pass", mine.normalization_factor if passed else None) == (
                passed, factor if passed else None), bench.folder
    finally:
        logging.disable(logging.NOTSET)
    assert len(compared) >= 20 and any(factor not in (None, 1.0) for _, _, factor in compared)


_SUMMARIZED_BYTES = 3_000_000


def test_scores_are_the_installed_summarizer_s_to_the_last_digit() -> None:
    """The score is the mean of the runs' minutes as the summarizer computes them (ms / 60 / 1000),
    not of the report's per-run minutes ((stop - start) / 60000, the oracle's): 8.475695833333333,
    was 8.475695833333335."""
    folder = ROUNDS / "training-5.1"
    if not folder.is_dir():
        pytest.skip(f"{folder} is not present")
    from mlperf_logging.result_summarizer import result_summarizer
    compared = 0
    for bench in check(sorted(str(org) for org in folder.iterdir())).benchmarks:
        if not bench.score.valid or bench.folder is None or (Path(bench.folder) / "scaling.json").exists():
            continue
        if bench.score.scaling_factor not in (None, 1.0):
            continue
        if sum(f.stat().st_size for f in Path(bench.folder).glob("result_*.txt")) > _SUMMARIZED_BYTES:
            continue  # (the summarizer parses every file again: a sample; the full pass is test_later_rounds')
        with contextlib.redirect_stdout(io.StringIO()):
            score, _, _ = result_summarizer._compute_strong_score_standalone(
                bench.benchmark, bench.system, False, bench.folder, "training", bench.ruleset)
        if sys.version_info < (3, 12):
            assert score == bench.score.score_min, bench.folder
        else:  # (the summarizer's sum() compensates rounding from Python 3.12; mlcheck adds left to right on every Python)
            assert score == pytest.approx(bench.score.score_min, rel=1e-15, abs=0), bench.folder
        compared += 1
    assert compared >= 5
