"""Rounds 3.0-6.1: the published results of 3.0-5.1 against their checkers of record, the round
data against the record rule files, and the round a log is judged under.

Reads ../shared/other-submitters (a sample of every submitter and benchmark of each round),
../shared/oracle/other-submitters.jsonl (what the round's checker of record said about each file)
and ../shared/reference/record-rules (the rule files of each checker of record); each test is
skipped with the reason when its data is absent. One pass over the six rounds takes ~10 s.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from mlcheck import check
from mlcheck.facts.constraints import load_constraints
from mlcheck.facts.rulesets import SUPPORTED_RULESETS, load_ruleset

from conftest import SHARED
from oracle_rounds import OTHERS, Judged, judge_rounds, not_one_run
from tool_scripts import load_tool

RECORD_RULES = SHARED / "reference" / "record-rules"
ROUNDS = ("training-3.0", "training-3.1", "training-4.0", "training-4.1", "training-5.0", "training-5.1")
LATER = ("3.0.0", "3.1.0", "4.0.0", "4.1.0", "5.0.0", "5.1.0", "6.0.0", "6.1.0")

KNOWN_VERDICT_DIFFERENCES: dict[str, str] = {}
"""path -> why mlcheck's official_verdict differs from the record (none today: 1,079 of 1,079)."""


@pytest.fixture(scope="module")
def judged() -> Judged:
    """Every oracle row of 3.0-5.1, the runs mlcheck read from each file, and each benchmark folder's
    result (for the folder scores below)."""
    return judge_rounds(ROUNDS)


def test_every_result_file_is_one_run(judged: Judged) -> None:
    assert len(judged[0]) > 1000
    assert not_one_run(judged) == {}


def test_every_file_is_judged_under_its_round(judged: Judged) -> None:
    rows, runs, _ = judged
    wrong = {row["path"]: runs[row["path"]][0].ruleset for row in rows
             if runs[row["path"]][0].ruleset != row["ruleset"]}
    assert wrong == {}


def test_official_verdict_is_the_record_verdict(judged: Judged) -> None:
    rows, runs, _ = judged
    wrong = {row["path"]: (runs[row["path"]][0].official_verdict, row["record_verdict"])
             for row in rows if runs[row["path"]][0].official_verdict != row["record_verdict"]}
    per_round = Counter(row["ruleset"] for row in rows)
    agree = Counter(row["ruleset"] for row in rows if row["path"] not in wrong)
    print("official_verdict == record_verdict: " + ", ".join(
        f"{version} {agree[version]}/{total}" for version, total in sorted(per_round.items())))
    assert {path: pair for path, pair in wrong.items() if path not in KNOWN_VERDICT_DIFFERENCES} == {}
    assert set(KNOWN_VERDICT_DIFFERENCES) <= set(wrong), "a listed difference no longer happens"


def test_failed_files_fail_for_the_records_reason(judged: Judged) -> None:
    """The 6 files the record failed: a target not reached (MLC301) or a missing run_stop (MLC102)."""
    rows, runs, _ = judged
    failed = {row["path"]: sorted({f.code for f in runs[row["path"]][0].official_failures()})
              for row in rows if row["record_verdict"] == "fail"}
    assert len(failed) == 6
    assert all(codes and set(codes) <= {"MLC301", "MLC102"} for codes in failed.values()), failed


def test_no_accepted_file_fails_mlchecks_own_verdict(judged: Judged) -> None:
    rows, runs, _ = judged
    failing = {row["path"]: sorted({f.code for f in runs[row["path"]][0].findings if f.severity.label == "error"})
               for row in rows if row["record_verdict"] == "pass" and runs[row["path"]][0].verdict == "fail"}
    assert failing == {}


# --- Folder scores of 3.0-5.1 --------------------------------------------------------------------

KNOWN_SCORE_DIFFERENCES: dict[str, str] = {}
"""folder -> why its score is not the official one (the official score and verdict are known)."""

_RCP_REASONS = frozenset({"MLC530", "MLC531", "MLC532"})


def _olympic(times: list[float | None], benchmark: str) -> float | None:
    """The summarizer's olympic mean (the median of 3 runs): a failed file counts as the slowest."""
    k = 4 if benchmark == "unet3d" else 1
    if sum(t is None for t in times) > k or len(times) <= 2 * k:
        return None
    kept = sorted(math.inf if t is None else t for t in times)[k:len(times) - k]
    return None if math.inf in kept else sum(kept) / len(kept)


def test_every_folder_scores_as_the_official_tools(judged: Judged) -> None:
    """The score of every benchmark folder of 3.0-5.1 is the olympic mean (median of 3) of the
    minutes of the files the record checker accepted, times the factor the round's RCP checker
    gave (computed by the installed rcp_checker on the round's record RCP data,
    tools/record_rcp.py: independent of mlcheck), within 0.005 min; where that RCP test fails the
    folder carries the official reason (MLC530-MLC532) and the committee's scaling.json counts.
    mlcheck's RCP verdict and factor are the record checker's on every closed folder."""
    from tool_scripts import load_tool

    record_rcp = load_tool("record_rcp")
    rows, _, benches = judged
    folders: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        folders[os.path.dirname(row["path"])].append(row)
    wrong, rcp_wrong, normalised = {}, {}, 0
    for folder, members in sorted(folders.items()):
        bench, first = benches[folder], members[0]
        factor, record = record_rcp.published_factor(OTHERS / folder, first["ruleset"], first["benchmark"],
                                                     first["division"], RECORD_RULES)
        times = [r["time_to_train_min"] if r["record_verdict"] == "pass" else None for r in members]
        want = _olympic(times, first["benchmark"])
        if want is not None and factor is not None:
            want *= factor
            normalised += 1
        got = bench.score.score_min if bench.score.valid else None
        if (want is None) != (got is None) or (want is not None and got is not None and abs(want - got) > 0.005):
            wrong[folder] = (want, got, bench.score.reason)
        if record is not None:
            mine = bench.rcp
            passed = mine is not None and mine.verdict == "pass"
            same_factor = not record[0] or (mine is not None and abs((mine.normalization_factor or 1.0) - record[2]) < 1e-9)
            reason = record[0] or any(f.code in _RCP_REASONS for f in bench.findings)
            if passed != record[0] or not same_factor or not reason:
                rcp_wrong[folder] = (record, mine.verdict if mine else None, mine.normalization_factor if mine else None)
    print(f"{len(folders) - len(wrong)} of {len(folders)} benchmark folders score as the official tools "
          f"({normalised} scaled); {len(KNOWN_SCORE_DIFFERENCES)} known differences")
    assert rcp_wrong == {}
    assert {f: v for f, v in wrong.items() if f not in KNOWN_SCORE_DIFFERENCES} == {}
    assert sorted(wrong) == sorted(KNOWN_SCORE_DIFFERENCES)


def test_a_run_logging_placeholder_submission_values_is_a_warning(judged: Judged) -> None:
    """No official tool compares the submission_* values of a folder's runs (MLC517 is a warning):
    the published 3.1 Azure+NVIDIA gpt3 folder, one of whose runs logs SUBMISSION_ORG_PLACEHOLDER,
    scores the official median of its three runs."""
    _, _, benches = judged
    bench = benches["training-3.1/Azure+NVIDIA/results/ND_H100_v5_n1344_pytorch/gpt3"]
    found = [(f.code, f.severity.label, os.path.basename(f.path)) for f in bench.findings if f.code == "MLC517"]
    assert found and all(item == ("MLC517", "warning", "result_2.txt") for item in found)
    assert bench.score.valid and round(bench.score.score_min or 0, 2) == 4.01


def _record_keys(version: str, name: str) -> dict[str, str] | None:
    """KEY name -> REQ of one record rule file, or None when the file is absent. A benchmark the
    record does not know and the installed release does (6.1 dlrmv4: the transcriber's INSTALLED
    table) is read from the installed mlperf-logging."""
    yaml = pytest.importorskip("yaml")
    path = RECORD_RULES / f"training-{version[:-2]}" / "compliance" / name
    installed = load_tool("transcribe_record_rules").INSTALLED.get(version, {})
    if not path.is_file() and name.split("_", 1)[-1].removesuffix(".yaml") in installed:
        from mlperf_logging import compliance_checker

        path = Path(compliance_checker.__file__).parent / f"training_{version}" / name
    if not path.is_file():
        return None
    records = yaml.load(path.read_text("utf-8"), Loader=yaml.BaseLoader) or []
    return {r["KEY"]["NAME"]: r["KEY"].get("REQ", "") for r in records if "KEY" in r}


def _req(entry: Any) -> str:
    if entry.req == "AT_LEAST_ONE_OR":
        return f"AT_LEAST_ONE_OR({', '.join(entry.alternatives)})"
    if entry.req == "AT_LEAST":
        return f"AT_LEAST({entry.min_count})"
    return entry.req or ""


@pytest.mark.parametrize("version", LATER)
def test_round_data_holds_every_key_of_the_record_rule_files(version: str) -> None:
    if not RECORD_RULES.is_dir():
        pytest.skip("../shared/reference/record-rules is not present")
    data = load_constraints(version)
    groups: dict[str, list[Any]] = {
        "common.yaml": list(data.common), "closed_common.yaml": list(data.closed_common),
        "open_common.yaml": list(data.open_common)}
    for name, bench in data.benchmarks.items():
        closed = list(bench.keys) + list(bench.overrides)
        if bench.optimizer_key:
            closed.append(type(bench.keys[0])(key=bench.optimizer_key, source="", req="EXACTLY_ONE"))
        groups[f"closed_{name}.yaml"] = closed
        for optimizer, entries in (bench.per_optimizer or {}).items():
            groups[f"closed_{name}_{optimizer}.yaml"] = list(entries)
        if bench.open_unavailable is None:
            groups[f"open_{name}.yaml"] = list(bench.open_keys) + list(bench.open_overrides)
    for file_name, entries in groups.items():
        record = _record_keys(version, file_name)
        assert record is not None, f"{file_name} is not a record rule file of {version}"
        mine = {e.key: _req(e) for e in entries}
        if file_name == "common.yaml":  # run_start/run_stop: MLC101-MLC104
            record = {k: v for k, v in record.items() if k not in ("run_start", "run_stop")}
        assert mine == record, file_name


def test_round_data_is_the_transcription_of_the_record_rule_files() -> None:
    """The data files of 3.0-6.1 are what tools/transcribe_record_rules.py makes of the record rule
    files: a fact is changed there (or in the rule files), never by hand."""
    if not RECORD_RULES.is_dir():
        pytest.skip("../shared/reference/record-rules is not present")
    pytest.importorskip("yaml")
    tool = load_tool("transcribe_record_rules")
    assert tool.main(["--reference", str(RECORD_RULES), "--check"]) == 0


@pytest.mark.parametrize("version", LATER)
def test_round_facts_cite_the_record_revision(version: str) -> None:
    ruleset = load_ruleset(version)
    assert ruleset.checker_of_record.startswith("mlcommons/logging ")
    assert all(f"training_{version}/" in facts.source for facts in ruleset.benchmarks.values())
    constraints = load_constraints(version)
    for bench in constraints.benchmarks.values():
        assert all(e.source.startswith(f"training_{version}/") for e in bench.keys + bench.overrides)


# --- the round a log is judged under -------------------------------------------------------------


def _log(tmp_path: Path, when: dt.datetime, benchmark: str = "llama31_8b", name: str = "result_0.txt") -> Path:
    ms = int(when.replace(tzinfo=dt.timezone.utc).timestamp() * 1000)
    records = [("submission_benchmark", benchmark, ms), ("submission_division", "closed", ms),
               ("init_start", None, ms), ("init_stop", None, ms + 1000), ("run_start", None, ms + 1001),
               ("run_stop", None, ms + 60_000)]
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(":::MLLOG " + json.dumps({"namespace": "", "time_ms": t, "event_type": "POINT_IN_TIME",
                                                      "key": k, "value": v, "metadata": {"file": "t.py", "lineno": 1}})
                            + "\n" for k, v, t in records), "utf-8")
    return path


@pytest.mark.parametrize("when,version", [
    (dt.datetime(2023, 3, 1), "3.0.0"), (dt.datetime(2023, 9, 1), "3.1.0"), (dt.datetime(2024, 3, 1), "4.0.0"),
    (dt.datetime(2024, 9, 1), "4.1.0"), (dt.datetime(2025, 3, 1), "5.0.0"), (dt.datetime(2025, 9, 1), "5.1.0"),
    (dt.datetime(2026, 3, 1), "6.0.0"), (dt.datetime(2026, 8, 1), "6.1.0"),
])
def test_the_run_date_tells_the_round(tmp_path: Path, when: dt.datetime, version: str) -> None:
    benchmark = "llama2_70b_lora" if version >= "4.0.0" else "bert"  # (a benchmark of that round)
    (run,) = check([str(_log(tmp_path, when, benchmark))]).runs
    assert run.ruleset == version
    round_name = version[:-2]
    assert run.ruleset_source is not None and f"falls in the {round_name} period" in run.ruleset_source
    if version.startswith("6."):  # no results publication in the shared data: the end is estimated
        assert "estimated" in run.ruleset_source


def test_a_benchmark_the_dated_round_lacks_is_judged_under_the_first_later_round_with_it(tmp_path: Path) -> None:
    """Runs are submitted to their date's round or a later one: an R-GAT run dated in the 4.1
    period, outside a training-X.Y folder, is a 5.0 run (4.1 has no rgat, 5.0 is the first that has)."""
    (run,) = check([str(_log(tmp_path, dt.datetime(2024, 9, 1), "rgat"))]).runs
    assert run.ruleset == "5.0.0"
    assert run.ruleset_source is not None and "falls in the 4.1 period" in run.ruleset_source
    assert "without rgat; 5.0 is the first later round with it" in run.ruleset_source
    assert not [f for f in run.findings if f.code == "MLC011"]
    # no later round has it: the date's round, which says the benchmark is not one of its own
    (late,) = check([str(_log(tmp_path / "late", dt.datetime(2025, 9, 1), "bert"))]).runs
    assert late.ruleset == "5.1.0" and [f.code for f in late.findings if f.code == "MLC011"] == ["MLC011"]


def test_a_log_newer_than_the_newest_round_says_so(tmp_path: Path) -> None:
    (run,) = check([str(_log(tmp_path, dt.datetime(2026, 12, 1)))]).runs
    assert run.ruleset == SUPPORTED_RULESETS[-1] == "6.1.0"
    [note] = [f for f in run.findings if f.code == "MLC018"]
    assert note.severity.label == "warning" and not note.official
    assert "2026-12-01" in note.message and "6.1" in note.message and "2026-11-05" in note.message
    assert "update mlcheck" in note.message


def test_a_path_naming_a_later_round_wins_over_the_date(tmp_path: Path) -> None:
    # NVIDIA's 4.1 DLRM runs are dated in the 4.0 period; the results tree says 4.1.
    path = _log(tmp_path / "training-4.1" / "Acme" / "results" / "sys" / "dlrm_dcnv2", dt.datetime(2024, 5, 2),
                benchmark="dlrm_dcnv2")
    (run,) = check([str(path)]).runs
    assert run.ruleset == "4.1.0"
    assert run.ruleset_source is not None and "path names round 4.1" in run.ruleset_source
    assert "falls in the 4.0 period" in run.ruleset_source
    # a path naming an earlier round than the date wins too, as that round's checker is run on its
    # folder (a clock or a record's time is wrong, or the folder): MLC019 says so
    older = _log(tmp_path / "training-3.0" / "x", dt.datetime(2024, 5, 2), benchmark="dlrm_dcnv2")
    (run,) = check([str(older)]).runs
    assert run.ruleset == "3.0.0" and [f.code for f in run.findings if f.code == "MLC019"] == ["MLC019"]
    # unless its round lacks the benchmark: the round of its date judges it
    llama = _log(tmp_path / "training-3.0" / "y", dt.datetime(2024, 5, 2), benchmark="llama2_70b_lora")
    (run,) = check([str(llama)]).runs
    assert run.ruleset == "4.0.0" and [f.code for f in run.findings if f.code == "MLC019"] == ["MLC019"]


@pytest.mark.parametrize("version", SUPPORTED_RULESETS)
def test_every_round_can_be_forced(tmp_path: Path, version: str) -> None:
    benchmark = sorted(load_ruleset(version).benchmarks)[0]
    (run,) = check([str(_log(tmp_path, dt.datetime(2026, 12, 1), benchmark=benchmark))], ruleset=version).runs
    assert (run.ruleset, run.ruleset_source) == (version, "--ruleset")
    assert not [f for f in run.findings if f.code in ("MLC011", "MLC018", "MLC000")]


def test_a_number_logged_as_a_string_is_said_to_be_one(tmp_path: Path) -> None:
    """'16' is not 16 for the checker: the message says why the value fails, not only that it does."""
    cases = load_tool("make_later_cases").build_cases("6.1.0", "llama2_70b_lora")
    text = "\n".join(next(case for case, _ in cases if case.kind == "base").lines()) + "\n"
    log = tmp_path / "result_0.txt"
    log.write_text(re.sub(r'("key": "lora_rank", "value": )(\d+)', r'\1"\2"', text, count=1), "utf-8")
    found = [f for f in check([str(log)], ruleset="6.1.0").all_findings() if "lora_rank is '16'" in f.message]
    assert found and "a string: the checker does not read it as a number" in found[0].message
