"""mlcheck's ``official_verdict`` against the installed mlperf-logging compliance checker (4.1.x),
run in-process on every generated rule case.

mlcheck predicts the checker *of record* of each round (the release its results were accepted
under); the installed release differs from it in documented ways, listed in ``KNOWN_DIFFERENCES``.
The test asserts that the two verdicts differ exactly on the cases that table predicts.
"""

from __future__ import annotations

import contextlib
import io
import logging
from pathlib import Path
from typing import Any, Callable

import pytest

from mlcheck import check
from tool_scripts import load_tool

ROOT = Path(__file__).resolve().parent.parent

mlp_compliance = pytest.importorskip("mlperf_logging.compliance_checker.mlp_compliance")


GEN = load_tool("make_rule_cases")

Case = dict[str, Any]

#: Where the installed release fails a file the round's checker of record accepted, and why. Each
#: row: (the cases it concerns, reason). On those cases a record "pass" is an installed "fail"; a
#: record "fail" stays a "fail" (these differences only add failures).
KNOWN_DIFFERENCES: tuple[tuple[Callable[[Case], bool], str], ...] = (
    (lambda c: c["ruleset"] == "1.1.0" and c["kind"].startswith("weight_init_"),
     "1.1 weight-initialization mismatch: a warning at tag 1.1.0-rc4 ('can be ignored for 1.1.0'), an error "
     "since logging#220 (2022-03) because the engine is not version-gated"),
    (lambda c: c["ruleset"] == "1.1.0" and c["benchmark"] == "bert" and not c["kind"].startswith("open_"),
     "1.1 closed BERT: the cases log the record's tensor list (1.1.0-rc4), which has "
     "cls/predictions/decoder/kernel; the installed file dropped that name, and fails it as unexpected"),
    (lambda c: c["ruleset"] == "2.1.0" and c["benchmark"] == "bert" and not c["kind"].startswith("open_"),
     "2.1 closed BERT: the rules files renamed opt_epsilon to opt_lamb_epsilon after the round (2022-11); the "
     "logs of the round (and these cases) use opt_epsilon as the record checker required"),
)


def installed_verdict(path: Path, ruleset: str) -> str:
    """The installed compliance checker's verdict, in-process; a crash counts as a failure (as the
    command line's exit code 1 does)."""
    mlp_compliance.enqueued_configs.clear()
    checker = mlp_compliance.make_checker("training", ruleset, True, False)
    previous = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            valid = checker.check_file(str(path), f"training_{ruleset}/common.yaml")
    except Exception:  # the official checker crashes on some inputs (e.g. a missing optimizer YAML)
        valid = False
    finally:
        logging.disable(previous)
        mlp_compliance.enqueued_configs.clear()
    return "pass" if valid else "fail"


def expected_installed(case: Case, record: str) -> tuple[str, str | None]:
    """The installed release's expected verdict given the record verdict, and the reason when the
    two differ."""
    for matches, reason in KNOWN_DIFFERENCES:
        if matches(case):
            return "fail", reason if record == "pass" else None
    return record, None


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Case]]:
    out = tmp_path_factory.mktemp("official_cases")
    return out, GEN.write_cases(out)


@pytest.mark.parametrize("ruleset", GEN.ROUNDS)
def test_official_verdict_matches_installed_checker(cases: tuple[Path, list[Case]], ruleset: str) -> None:
    """Every case a known difference concerns, and every other second one (the catalogue's tests
    check the codes and lines of them all)."""
    out, manifest = cases
    unexplained, documented = [], 0
    ours_cases = [c for c in manifest if c["ruleset"] == ruleset]
    for case in (c for n, c in enumerate(ours_cases) if n % 2 == 0 or any(m(c) for m, _ in KNOWN_DIFFERENCES)):
        path = out / case["path"]
        ours = check([str(path)], ruleset=ruleset).runs[0].official_verdict
        theirs = installed_verdict(path, ruleset)
        expected, reason = expected_installed(case, ours)
        if theirs != expected:
            unexplained.append((case["path"], ours, theirs))
        documented += reason is not None
    assert not unexplained
    if ruleset in ("1.1.0", "2.1.0"):
        assert documented > 0


def test_known_differences_are_exercised(cases: tuple[Path, list[Case]]) -> None:
    _out, manifest = cases
    for matches, reason in KNOWN_DIFFERENCES:
        assert any(matches(c) for c in manifest), reason


def test_installed_checker_crash_is_a_failure(cases: tuple[Path, list[Case]]) -> None:
    out, manifest = cases
    path = out / next(m["path"] for m in manifest
                      if (m["ruleset"], m["benchmark"], m["kind"]) == ("2.0.0", "resnet", "wrong_optimizer"))
    assert installed_verdict(path, "2.0.0") == "fail"
    result = check([str(path)], ruleset="2.0.0").runs[0]
    assert result.official_verdict == "fail"
    assert [f.code for f in result.findings if f.official] == ["MLC203"]
