"""A package is judged under one round: runs dated in an older round's period than the package's
newest runs are judged again under the newest (review of session 41: a retired benchmark's folder
was scored valid under its date's round beside the package's other folders)."""

from __future__ import annotations

import re
import shutil
import datetime as dt
from pathlib import Path

import pytest

from conftest import FIXTURES
from mlcheck import check

PACKAGE = FIXTURES / "example" / "Acme"
_TIME = re.compile(r'"time_ms": (\d+)')


def _package(root: Path, later_to: dt.date) -> Path:
    """The example package (its resnet runs dated 2022-05, training 2.0) with a second system whose
    resnet runs are the same, dated ``later_to``."""
    org = root / "Acme"
    shutil.copytree(PACKAGE, org)
    first = org / "results" / "acme-t8"
    second = org / "results" / "acme-t16"
    shutil.copytree(first, second)
    shutil.copy(org / "systems" / "acme-t8.json", org / "systems" / "acme-t16.json")
    shift = int((dt.datetime.combine(later_to, dt.time(), dt.timezone.utc).timestamp() - 1652083200) * 1000)
    for log in (second / "resnet").glob("result_*.txt"):
        text = log.read_text("utf-8")
        log.write_text(_TIME.sub(lambda m: f'"time_ms": {int(m.group(1)) + shift}', text), "utf-8")
    return org


def _by_system(result: object) -> dict[str, set[str]]:
    rounds: dict[str, set[str]] = {}
    for run in result.runs:  # type: ignore[attr-defined]
        rounds.setdefault(run.system or "", set()).add(run.ruleset)
    return rounds


def test_runs_dated_in_an_older_round_are_judged_under_the_package_s_newest(tmp_path: Path) -> None:
    org = _package(tmp_path, dt.date(2023, 1, 10))  # (the 3.0 period)
    result = check(str(org))
    assert _by_system(result) == {"acme-t8": {"3.0.0"}, "acme-t16": {"3.0.0"}}
    older = [r for r in result.runs if r.system == "acme-t8"]
    notes = [f for r in older for f in r.findings if f.code == "MLC019"]
    assert len(notes) == len(older) and all(r.ruleset_source.startswith("the package's round (training 3.0") for r in older)
    assert "falls in the training 2.0 period" in notes[0].message
    assert not [f for r in result.runs for f in r.findings if f.code == "MLC019" and r.system == "acme-t16"]
    in_two = check(str(org), jobs=2)
    assert [(r.path, r.ruleset, r.findings) for r in in_two.runs] == [(r.path, r.ruleset, r.findings) for r in result.runs]
    assert in_two.benchmarks == result.benchmarks


def test_a_benchmark_the_package_s_round_retired_is_refused_as_the_package_checker_does(tmp_path: Path) -> None:
    org = _package(tmp_path, dt.date(2024, 8, 1))  # (4.1, which has no resnet)
    result = check(str(org))
    assert _by_system(result) == {"acme-t8": {"4.1.0"}, "acme-t16": {"4.1.0"}}
    assert not any(bench.score.valid for bench in result.benchmarks)
    codes = {f.code for f in result.findings} | {f.code for b in result.benchmarks for f in b.findings} | {
        f.code for r in result.runs for f in r.findings}
    assert {"MLC011", "MLC506"} <= codes


@pytest.mark.parametrize("named", ["training-2.0", "--ruleset"])
def test_a_round_the_path_or_the_user_names_is_kept(named: str, tmp_path: Path) -> None:
    org = _package(tmp_path / named.lstrip("-"), dt.date(2023, 1, 10))
    result = check(str(org), ruleset="2.0.0" if named == "--ruleset" else None)
    assert _by_system(result) == {"acme-t8": {"2.0.0"}, "acme-t16": {"2.0.0"}}


def test_a_clock_past_the_newest_round_does_not_decide(tmp_path: Path) -> None:
    org = _package(tmp_path, dt.date(2099, 1, 1))
    result = check(str(org))
    assert _by_system(result)["acme-t8"] == {"2.0.0"}
