"""Every other submitter's published results of rounds 1.0-2.1 against the checker of record.

Reads ../shared/other-submitters (a sample of every submitter and benchmark of each round) and
../shared/oracle/other-submitters.jsonl (what the round's checker of record said about each file);
skipped with the reason when they are absent. One pass over the four rounds takes a few seconds.

For every result file: mlcheck reads exactly one run, its ``official_verdict`` is the record's,
and no file the checker accepted fails mlcheck's own verdict. For every benchmark folder: the
score is the olympic mean (median of 3) of the minutes of the files the checker accepted (a
failed file counts as the slowest), times the RCP normalisation of the rounds that apply one.
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from typing import Any

import pytest

from oracle_rounds import Judged, judge_rounds, not_one_run
ROUNDS = ("training-1.0", "training-1.1", "training-2.0", "training-2.1")

KNOWN_VERDICT_DIFFERENCES: dict[str, str] = {}
"""path -> why mlcheck's official_verdict differs from the record (none today)."""


@pytest.fixture(scope="module")
def judged() -> Judged:
    return judge_rounds(ROUNDS)


def test_every_result_file_is_one_run(judged: Judged) -> None:
    assert len(judged[0]) > 600
    assert not_one_run(judged) == {}


def test_official_verdict_is_the_record_verdict(judged: Any) -> None:
    rows, runs, _ = judged
    wrong = {row["path"]: (runs[row["path"]][0].official_verdict, row["record_verdict"])
             for row in rows if runs[row["path"]][0].official_verdict != row["record_verdict"]}
    agree = len(rows) - len(wrong)
    print(f"official_verdict == record_verdict for {agree} of {len(rows)} files")
    assert {path: pair for path, pair in wrong.items() if path not in KNOWN_VERDICT_DIFFERENCES} == {}


def test_no_accepted_file_fails_mlchecks_own_verdict(judged: Any) -> None:
    rows, runs, _ = judged
    failing = {row["path"]: sorted({f.code for f in runs[row["path"]][0].findings if f.severity.label == "error"})
               for row in rows if row["record_verdict"] == "pass" and runs[row["path"]][0].verdict == "fail"}
    assert failing == {}


def _olympic(times: list[float | None], benchmark: str) -> float | None:
    k = 4 if benchmark == "unet3d" else 1
    if sum(t is None for t in times) > k or len(times) <= 2 * k:
        return None
    kept = sorted(math.inf if t is None else t for t in times)[k:len(times) - k]
    return None if math.inf in kept else sum(kept) / len(kept)


def test_every_folder_scores_as_the_official_tools(judged: Any) -> None:
    rows, _, benches = judged
    folders: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        folders[os.path.dirname(row["path"])].append(row)
    wrong = {}
    for folder, members in sorted(folders.items()):
        bench = benches[folder]
        times = [r["time_to_train_min"] if r["record_verdict"] == "pass" else None for r in members]
        # (a folder inside a benchmark folder is no result: the official tools skip it)
        want = _olympic(times, members[0]["benchmark"]) if bench.published else None
        factor = bench.rcp.normalization_factor if bench.rcp and bench.ruleset == "2.1.0" else None
        if want is not None and factor is not None and factor > 1.0:
            want *= factor
        got = bench.score.score_min if bench.score.valid else None
        if (want is None) != (got is None) or (want is not None and got is not None and abs(want - got) > 0.005):
            wrong[folder] = (want, got, bench.score.reason)
    print(f"{len(folders) - len(wrong)} of {len(folders)} benchmark folders score as the official tools")
    assert wrong == {}
