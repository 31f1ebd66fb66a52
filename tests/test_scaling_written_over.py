"""A scaling.json the round's package checker writes over (an RCP normalisation above 1) does not
count, and the findings and the score line say so together (review of session 28: MLC504 said a
factor of -2 was multiplied into the score and, in the same message, that the file does not count;
the score line named scaling.json as the source of the RCP normalisation's factor)."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from mlcheck import check
from mlcheck.judge.folders import _written_over
from mlcheck.report.plain import scaling_source
from mlcheck.rules.eval_cadence import _shown
from mlcheck.rules.eval_values import _count
from mlcheck.rules.package import scaling_factor

EXAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme"


def test_a_factor_of_zero_or_below_written_over_is_not_said_to_be_multiplied() -> None:
    value, [finding] = scaling_factor("f/scaling.json", {"scaling_factor": -2}, None)
    assert value == -2 and "multiplied into the score" in finding.message
    over = _written_over(finding)
    assert over.message.startswith("scaling.json's scaling_factor -2 is 0 or below (a review committee's factor")
    assert "multiplied" not in over.message and over.message.endswith("so this file does not count")


def test_the_score_line_names_the_source_of_its_factor(tmp_path: Path) -> None:
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    (package / "results" / "acme-t8" / "resnet" / "scaling.json").write_text('{"scaling_factor": 1.25}')
    (bench,) = check([str(package)]).benchmarks
    assert bench.score.scaling_factor == 1.25 and scaling_source(bench) == "scaling.json"
    assert bench.rcp is not None
    normalised = replace(bench, rcp=replace(bench.rcp, normalization_factor=1.0042),
                         score=replace(bench.score, scaling_factor=1.0042))
    _value, [unreadable] = scaling_factor("f/scaling.json", None, "line 1: Expecting value", 1)
    for found in (_written_over(unreadable), _written_over(scaling_factor("f/scaling.json", {"scaling_factor": 0}, None)[1][0])):
        assert scaling_source(replace(normalised, findings=(found,))) == "the RCP normalisation"
    assert scaling_source(replace(normalised, findings=())) == "the RCP normalisation"


def test_counts_beyond_a_floats_whole_numbers_are_shown_in_exponent_form() -> None:
    assert _count(1e30) == "1e+30" and _shown(1e30) == "1e+30"
    assert _count(2_500_000.0) == "2,500,000" and _shown(38.0) == "38" and _shown(2.5) == "2.5"


def test_today_a_benchmark_the_rcp_checker_lost_is_a_stop_not_a_verdict() -> None:
    """Today's RCP_Checker reads ``submission_runs['training'][benchmark]``: 1.0-2.1's dlrm (now
    dlrm_dcnv2) is a KeyError (review of session 28: mlcheck gave today's verdict as a pass)."""
    from mlcheck.rules.rcp_texts import verdict_text
    from mlcheck.results import RcpResult
    from mlcheck.score.rcp.today import today_raises

    said = today_raises("dlrm")
    assert said is not None and "KeyError: 'dlrm'" in said
    assert today_raises("resnet") is None and today_raises("dlrm_dcnv2") is None
    assert verdict_text(RcpResult("fail", said)) == f"fail ({said})"


def test_a_scaling_json_where_no_rcp_test_runs_is_a_warning_that_it_scales_the_score() -> None:
    """An open folder (or a benchmark without RCPs) from 2.1: no checker writes scaling.json there,
    so a factor other than 1 is the review committee's or a leftover the summarizer applies all the
    same (review of session 40: an info only). Before 2.1 only the committee wrote one: no warning."""
    from mlcheck.results import RcpResult
    from mlcheck.score.scaling import published_scaling

    skipped = RcpResult("skipped", "open division: no RCP test")
    scaling = published_scaling(1.25, skipped, normalise=True, resets=False)
    assert scaling.committee == 1.25 and scaling.suspect
    assert scaling.note is not None and "no RCP test runs for this folder (open division" in scaling.note
    assert not published_scaling(1.25, skipped, normalise=False, resets=False).suspect
    assert not published_scaling(1.0, skipped, normalise=True, resets=False).suspect
