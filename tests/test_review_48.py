"""Defects left from session 47's reviews and found by session 48's (session 48)."""

from __future__ import annotations

import pytest

from conftest import FIXTURES
from mlcheck import check

ACME = FIXTURES / "example" / "Acme"


@pytest.mark.parametrize("jobs", [0, -2])
def test_the_api_refuses_no_processes(jobs: int) -> None:
    with pytest.raises(ValueError, match=rf"^jobs must be 1 or more processes, not {jobs} "):
        check(ACME, jobs=jobs)


@pytest.mark.parametrize("jobs", [True, 2.0, "2", None])
def test_the_api_refuses_jobs_that_are_no_whole_number(jobs: object) -> None:
    with pytest.raises(TypeError, match=r"^jobs must be a whole number of processes \(1 or more\), not "):
        check(ACME, jobs=jobs)  # type: ignore[arg-type]


def test_the_api_takes_two_processes() -> None:
    assert [run.verdict for run in check(ACME, jobs=2).runs] == ["pass"] * 5
