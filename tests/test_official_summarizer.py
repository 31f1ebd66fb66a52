"""mlcheck's benchmark results against the installed official result summarizer.

The summarizer writes ``summary.json`` into its working directory and ``scaling.json`` files into
the package, so it runs on a copy in ``tmp_path`` with ``cwd=tmp_path``. Skipped when ../shared
is absent.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from mlcheck import check
from mlcheck.model import Severity


def run_summarizer(corpus: Path, round_name: str, ruleset: str, tmp_path: Path,
                   notes: dict[str, tuple[str, str]] | None = None) -> tuple[list[dict[str, Any]], str]:
    """Copy ``<round>/Graphcore`` to tmp_path (with ``notes``: system -> the hw_notes and
    sw_notes its description is given), run the official summarizer there, return its
    ``summary.json`` rows and its stdout."""
    shutil.copytree(corpus / round_name / "Graphcore", tmp_path / "Graphcore")
    for system, (hw_notes, sw_notes) in (notes or {}).items():
        described = tmp_path / "Graphcore" / "systems" / f"{system}.json"
        data = json.loads(described.read_text("utf-8"))
        described.write_text(json.dumps({**data, "hw_notes": hw_notes, "sw_notes": sw_notes}), "utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "mlperf_logging.result_summarizer", "Graphcore", "training", ruleset,
         "--quiet"], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    rows: list[dict[str, Any]] = json.loads((tmp_path / "summary.json").read_text("utf-8"))
    return rows, done.stdout


def official_minutes(rows: list[dict[str, Any]]) -> dict[tuple[str, str], float | None]:
    """(system folder, benchmark) -> minutes; the folder is the stem of the row's details_url."""
    minutes: dict[tuple[str, str], float | None] = {}
    for row in rows:
        system = row["details_url"].rsplit("/", 1)[1].removesuffix(".json")
        for column, value in row.items():
            if column.endswith(":time_to_train"):
                benchmark = column.split(":", 1)[0]
                if value is not None or (system, benchmark) in minutes:
                    minutes[(system, benchmark)] = value
    return minutes


def mlcheck_minutes(corpus: Path, round_name: str, ruleset: str) -> dict[tuple[str, str], float | None]:
    result = check([str(corpus / round_name / "Graphcore")], ruleset=ruleset)
    return {(b.system or "", b.benchmark or ""): b.score.score_min for b in result.benchmarks}


def test_training_2_0_scores_match_the_official_summarizer(corpus: Path, tmp_path: Path) -> None:
    notes = {"ipu-pod16-POPART-closed": ("liquid cooled", "SDK patch 3"), "ipu-pod64-POPART-closed": ("", "sw only")}
    rows, _ = run_summarizer(corpus, "training-2.0", "2.0.0", tmp_path, notes)
    official = official_minutes(rows)
    ours = mlcheck_minutes(corpus, "training-2.0", "2.0.0")
    assert len(ours) == 11 and set(official) == set(ours)
    for key, minutes in official.items():
        # summary.json rounds to 10 decimals; the published table to 2.
        assert minutes is not None and abs(minutes - (ours[key] or 0.0)) < 1e-9, key
    # The system columns, notes and links of the results table are the summarizer's.
    from mlcheck.report.results_table import table_dict
    from mlcheck.report.table_rows import availability
    table = {row["details_url"]: row for row in table_dict(check([str(tmp_path / "Graphcore")], ruleset="2.0.0"))["rows"]}
    assert len(table) == len(rows) == 11
    for row in rows:
        mine = table[row["details_url"]]
        assert (mine["notes"], mine["code_url"], mine["availability"], mine["accelerators"], mine["processors"],
                mine["nodes"], mine["framework"]) == (row["notes"], row["code_url"], availability(row["availability"]),
                                                      row["accelerators_count"], row["host_processors_count"],
                                                      int(row["number_of_nodes"]), row["framework"])
        assert mine["system"].startswith(row["system"])
    assert sorted(row["notes"] for row in rows if row["notes"]) == ["liquid cooled;SDK patch 3", "sw only"]


def test_training_1_1_official_summarizer_refuses_closed_folders(corpus: Path, tmp_path: Path) -> None:
    """Today's summarizer fails every closed 1.1 folder on the weights-initialization check added
    after the round (official-tooling.md §1.10); mlcheck scores them as the round did."""
    rows, stdout = run_summarizer(corpus, "training-1.1", "1.1.0", tmp_path)
    official = official_minutes(rows)
    ours = mlcheck_minutes(corpus, "training-1.1", "1.1.0")
    closed = {key for key in ours if "open" not in key[0]}
    assert len(ours) == 10 and len(closed) == 7
    assert stdout.count("CRITICAL ERROR: Too many non-converging runs") == 7
    for key in closed:
        assert official.get(key) is None and ours[key] is not None, key
    for key in set(ours) - closed:  # open division: both agree
        assert abs((official[key] or 0.0) - (ours[key] or 0.0)) < 1e-9, key
    assert round(ours[("ipu-pod16-TF1", "resnet")] or 0.0, 2) == 28.33


def test_a_folder_that_is_no_benchmark_stops_the_official_summarizer(corpus: Path, tmp_path: Path) -> None:
    """MLC506 is an error: the package checker skips ``results/<system>/notes/``, but the result
    summarizer stops on it once it holds result files (its name is none of the table's columns).
    An empty one the summarizers of rounds before 6.0 ignore (a score is added only where one is
    computed), today's release stops on it too: a warning under 2.0."""
    shutil.copytree(corpus / "training-2.0" / "Graphcore", tmp_path / "Graphcore")
    system = sorted((tmp_path / "Graphcore" / "results").iterdir())[0]
    (system / "notes").mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "mlperf_logging.result_summarizer", "Graphcore", "training", "2.0.0", "--quiet"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode != 0 and "AssertionError" in done.stderr
    (found,) = [f for f in check([str(tmp_path / "Graphcore")], ruleset="2.0.0").all_findings() if f.code == "MLC506"]
    assert found.path == str(system / "notes") and found.severity == Severity.WARNING and not found.official
    assert "(from 6.0 the summarizer stops on it)" in found.message
    benchmark = next(folder for folder in sorted(system.iterdir()) if folder.name != "notes")
    shutil.rmtree(system / "notes")
    shutil.copytree(benchmark, system / "notes")
    (found,) = [f for f in check([str(tmp_path / "Graphcore")], ruleset="2.0.0").all_findings() if f.code == "MLC506"]
    assert found.severity == Severity.ERROR and "the result summarizer stops on it" in found.message
