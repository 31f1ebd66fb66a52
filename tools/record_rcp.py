"""The RCP test of a benchmark folder as the round's record checker computed it, for the tests and
``tools/oracle_compare.py``:
the installed mlperf-logging ``rcp_checker.check_directory`` run in-process on the round's record
RCP data (``../shared/reference/record-rules/training-X.Y/rcp/``), with the two statistics the
checker changed since 3.0 put back as they were at the round's tag: pruning by ``Min Epochs`` up
to 3.1 (by ``RCP Mean`` since 4.0.0-rc3) and the stdev of the olympic-trimmed list up to 4.0 (of
the full list since logging commit 52245a0, 4.1). An independent computation of mlcheck's
``mlcheck.score.rcp``: nothing of mlcheck is used.
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path
from typing import Any, Iterator

TRIMMED_STDEV = {"1.0.0", "1.1.0", "2.0.0", "2.1.0", "3.0.0", "3.1.0", "4.0.0"}
PRUNE_BY_MIN_EPOCHS = {"2.0.0", "2.1.0", "3.0.0", "3.1.0"}
NO_PRUNING = {"1.0.0", "1.1.0"}
RESETS_SCALING = {"5.1.0", "6.0.0", "6.1.0"}
"""Rounds whose RCP checker deletes an existing scaling.json before it evaluates a reference."""


def _record_counts(ruleset: str, record_rules: Path) -> dict[str, int]:
    """The round's run counts (``benchmark_meta.py`` of the record revision): today's RCP checker
    no longer lists retired benchmarks (dlrm)."""
    import importlib.util

    path = record_rules / f"training-{ruleset[:3]}" / "benchmark_meta.py"
    spec = importlib.util.spec_from_file_location(f"record_meta_{ruleset[:3].replace('.', '_')}", path)
    if spec is None or spec.loader is None or not path.is_file():
        return {}
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.get_result_file_counts("training"))


@contextlib.contextmanager
def _round_checker(ruleset: str, record_rules: Path) -> Iterator[Any]:
    import numpy as np
    from mlperf_logging.rcp_checker import rcp_checker

    official = rcp_checker.RCP_Checker
    runs = rcp_checker.submission_runs["training"]
    added = {name: n for name, n in _record_counts(ruleset, record_rules).items() if name not in runs}
    runs.update(added)

    class RoundChecker(official):  # type: ignore[misc, valid-type]
        def compute_rcp_stats(self) -> None:
            if ruleset not in TRIMMED_STDEV:
                super().compute_rcp_stats()
                return
            for record in self.rcp_data.values():
                values = sorted(record["Epochs to converge"])
                drop = 4 if record["Benchmark"] == "unet3d" else 1
                kept = values[drop:len(values) - drop]
                record["RCP Mean"] = np.mean(kept)
                record["RCP Stdev"] = np.std(kept)
                record["Min Epochs"] = self._find_min_acceptable_mean(record["RCP Mean"], record["RCP Stdev"], len(kept))
                record["Max Speedup"] = record["RCP Mean"] / record["Min Epochs"]
            self._prune_rcps()

        def _prune_rcps(self) -> None:
            if ruleset in NO_PRUNING:
                self.pruned_rcp_data = dict(self.rcp_data)
                return
            if ruleset not in PRUNE_BY_MIN_EPOCHS:
                super()._prune_rcps()
                return
            # The same algorithm comparing Min Epochs, as at the 2.0-3.1 tags.
            points = list(self.rcp_data.values())
            fastest = min(points, key=lambda r: r["Min Epochs"])
            points = [r for r in points if r["BS"] >= fastest["BS"]]
            i = 1
            while i < len(points) - 1:
                _, between = self._create_interp_rcp(points[i]["BS"], points[i - 1], points[i + 1])
                if points[i]["Min Epochs"] > between["Min Epochs"]:
                    del points[i]
                    i -= 1
                i += 1
            kept = {r["BS"] for r in points}
            self.pruned_rcp_data = {k: v for k, v in self.rcp_data.items() if v["BS"] in kept}

    rcp_checker.RCP_Checker = RoundChecker
    try:
        yield rcp_checker
    finally:
        rcp_checker.RCP_Checker = official
        for name in added:
            del runs[name]


def record_rcp(folder: Path, ruleset: str, benchmark: str, record_rules: Path) -> tuple[bool, str, float]:
    """``(passed, message, normalisation factor)`` of the round's record checker; a crash of the
    checker is ``(False, "crash: <error>", 1.0)``."""
    data = record_rules / f"training-{ruleset[:3]}" / "rcp" / f"rcps_{benchmark}.json"
    logging.disable(logging.CRITICAL)
    try:
        with _round_checker(ruleset, record_rules) as rcp_checker, data.open() as handle:
            passed, message, factor = rcp_checker.check_directory(
                str(folder), "training", ruleset, False, False, rcp_file=handle,
                rcp_pass="pruned_rcps", set_scaling=False)
        return bool(passed), str(message), float(factor)
    except Exception as error:  # noqa: BLE001 - the record checker's crash is its verdict
        return False, f"crash: {type(error).__name__}: {error}", 1.0
    finally:
        logging.disable(logging.NOTSET)


def published_factor(folder: Path, ruleset: str, benchmark: str, division: str,
                     record_rules: Path) -> tuple[float | None, tuple[bool, str, float] | None]:
    """The factor the round's summarizer multiplied the folder's score by, and the record RCP
    verdict: a passing RCP test normalises by its factor when above 1 (the package checker writes
    scaling.json, 2.1+); otherwise the folder's own scaling.json counts (the review committee's),
    except where the round's RCP checker deleted it before evaluating a reference (5.1+)."""
    verdict = None
    if division == "closed" and benchmark != "minigo" and ruleset >= "2.1.0":
        verdict = record_rcp(folder, ruleset, benchmark, record_rules)
        if verdict[0] and verdict[2] > 1.0:
            return verdict[2], verdict
        if verdict[0] and ruleset in RESETS_SCALING:
            return None, verdict
    scaling = folder / "scaling.json"
    if scaling.is_file():
        import json

        return float(json.loads(scaling.read_text("utf-8"))["scaling_factor"]), verdict
    return None, verdict
