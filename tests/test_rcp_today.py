"""The RCP test of the checker of record and of today's mlperf-logging side by side (issue 14):
both verdicts with their margins where they differ (MLC534, the text report, the JSON report's
``rcp.today``); the verdict of record is the one that counts."""

from __future__ import annotations

import json

import jsonschema
import pytest

from mlcheck import check
from mlcheck.report import ReportOptions, render
from mlcheck.report.json_report import report_dict
from mlcheck.score.rcp.reference import load_references
from mlcheck.score.rcp.today import load_today_references, today_policy

from conftest import FIXTURES, ROOT, SHARED

HABANA = SHARED / "other-submitters" / "training-1.1" / "Intel-HabanaLabs"
SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text("utf-8"))


def test_today_policy_is_full_stdev_and_pruning_by_mean() -> None:
    policy = today_policy()
    assert (policy.prune, policy.prune_by, policy.stdev_over) == (True, "mean", "full")
    record, today = load_references("resnet", "1.1.0", 5), load_today_references("resnet", "1.1.0", 5)
    assert record is not None and today is not None
    assert record.policy.prune is False and today.policy is policy
    assert "(installed)" not in today.source and "mlperf-logging" in today.source


def test_both_verdicts_are_computed_and_agree_on_the_example() -> None:
    (bench,) = check([str(FIXTURES / "example" / "Acme")]).benchmarks
    assert bench.rcp is not None and bench.rcp.today is not None
    assert bench.rcp.verdict == bench.rcp.today.verdict == "pass"
    assert bench.rcp.margin_pct != bench.rcp.today.margin_pct  # the statistics differ, not the verdict
    assert not [f for f in bench.findings if f.code == "MLC534"]
    data = report_dict(check([str(FIXTURES / "example" / "Acme")]))
    assert data["benchmarks"][0]["rcp"]["today"]["verdict"] == "pass"
    jsonschema.Draft202012Validator(SCHEMA).validate(data)


def test_a_boundary_folder_shows_both_verdicts_and_keeps_the_record() -> None:
    if not HABANA.is_dir():
        pytest.skip("../shared/other-submitters is not present")
    result = check([str(HABANA)])
    (bench,) = [b for b in result.benchmarks if b.benchmark == "resnet"]
    assert bench.rcp is not None and bench.rcp.today is not None
    assert (bench.rcp.verdict, bench.rcp.today.verdict) == ("fail", "pass")
    assert bench.rcp.margin_pct is not None and bench.rcp.margin_pct < 0 < (bench.rcp.today.margin_pct or 0)
    codes = {f.code: f for f in bench.findings}
    assert codes["MLC530"].official and not codes["MLC534"].official  # the record's fail counts
    note = codes["MLC534"].message
    assert note.startswith("RCP test: fail (margin -7.34 %, resnet_ref_2048) for the checker of record; "
                           "pass (margin +3.37 %, interpolated between BS 1632 and BS 3264) for today's")
    text = render("text", result, ReportOptions(width=250))
    assert "(margin -7.34 %); today's mlperf-logging: pass (margin +3.37 %" in text
    data = report_dict(result)
    (entry,) = [b for b in data["benchmarks"] if b["benchmark"] == "resnet"]
    assert (entry["rcp"]["verdict"], entry["rcp"]["today"]["verdict"]) == ("fail", "pass")
    jsonschema.Draft202012Validator(SCHEMA).validate(data)
    assert "today's mlperf-logging: pass (+3.37 %)" in render("markdown", result)


def test_the_installed_version_is_importlib_metadatas() -> None:
    """Read from the dist-info folder without importing importlib.metadata (20 ms at each start)."""
    from importlib import metadata

    from mlcheck.score.rcp.today import dist_info_version, installed_version

    assert dist_info_version() == installed_version() == metadata.version("mlperf-logging")


def test_score_prints_what_todays_tools_would_publish_where_they_differ() -> None:
    """`score` prints a score line per folder; where today's mlperf-logging would normalise or
    judge otherwise, the RCP line that says so follows it (only `check` printed it, session 36)."""
    import io

    from rich.console import Console

    from conftest import SHARED
    from mlcheck.report.text import render_text

    package = SHARED / "other-submitters" / "training-3.0" / "Intel-HabanaLabs"
    if not package.is_dir():
        pytest.skip("../shared/other-submitters/training-3.0/Intel-HabanaLabs is not present")
    out = io.StringIO()
    render_text(check([str(package)]), Console(file=out, width=400, color_system=None), scores_only=True)
    lines = out.getvalue().splitlines()
    at = next(i for i, line in enumerate(lines) if "/ gpt3 (closed, 3.0.0): 457.01 min" in line)
    assert lines[at + 1].startswith("RCP pass:") and "today's mlperf-logging would normalise by 1.0217" in lines[at + 1]
    resnet = next(i for i, line in enumerate(lines) if "/ resnet (closed, 3.0.0):" in line)
    assert resnet + 1 == len(lines) or not lines[resnet + 1].startswith("RCP")  # (the same today: no RCP line)
