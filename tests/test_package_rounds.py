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


@pytest.mark.parametrize("when, said", [(dt.date(2099, 1, 1), "after the newest mlcheck knows"),
                                        (dt.date(2016, 1, 1), "before the first, 1.0.0")])
def test_a_clock_in_no_round_s_period_does_not_decide_and_is_said(tmp_path: Path, when: dt.date, said: str) -> None:
    """The other system's runs say the package's round; those dated in no period are judged under
    it with MLC019 saying so (review of session 41: a 2027 run in a 4.1 package went silent)."""
    org = _package(tmp_path, when)
    result = check(str(org))
    assert _by_system(result) == {"acme-t8": {"2.0.0"}, "acme-t16": {"2.0.0"}}
    notes = [f for r in result.runs if r.system == "acme-t16" for f in r.findings if f.code == "MLC019"]
    assert notes and all(f"falls in no round's period ({said}" in f.message for f in notes)
    assert not [f for r in result.runs for f in r.findings if f.code == "MLC018"]


def test_a_package_reached_through_a_link_is_one_package(tmp_path: Path) -> None:
    org = _package(tmp_path, dt.date(2023, 1, 10))
    link = tmp_path / "link"
    link.symlink_to(org)
    result = check([str(link / "results" / "acme-t8"), str(org / "results" / "acme-t16")])
    assert {r.ruleset for r in result.runs} == {"3.0.0"}


def test_a_benchmark_only_a_later_round_has_says_the_package_s_round(tmp_path: Path) -> None:
    """A gpt3 folder dated in the 2.0 period is a 3.0 result (2.0 has no gpt3): the package is 3.0,
    and MLC019 says why, not that runs are dated in that period (review of session 41)."""
    org = _package(tmp_path, dt.date(2022, 5, 9))  # (both systems dated in the 2.0 period)
    later = org / "results" / "acme-t16" / "gpt3"
    (org / "results" / "acme-t16" / "resnet").rename(later)
    for log in later.glob("result_*.txt"):
        log.write_text(log.read_text("utf-8").replace('"value": "resnet"', '"value": "gpt3"'), "utf-8")
    result = check(str(org))
    assert _by_system(result) == {"acme-t8": {"3.0.0"}, "acme-t16": {"3.0.0"}}
    [note, *_] = [f for r in result.runs if r.system == "acme-t8" for f in r.findings if f.code == "MLC019"]
    assert "(training 3.0: its gpt3 runs are dated in a round without gpt3, and it is the first round with it" \
        in note.message
