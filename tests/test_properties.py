"""Property-based tests: whatever a training job or a submitter leaves, mlcheck answers.

The generators and the properties live in ``tools/fuzzing`` (shared with the long campaign of
``tools/fuzz.py``, which draws the same generators from a seeded ``random.Random``). Each family runs some 40 derandomized cases (the same ones on every
run, so CI is deterministic); each case must keep every property of
:mod:`fuzzing.properties`: no exception escapes ``check()`` or the CLI (exit 0/1, 2 only for a
usage error), no MLC000, a JSON report valid against its schema, findings inside their file, the
same bytes twice, inputs unchanged, time and memory within a bound proportional to the input.
"""

from __future__ import annotations

import itertools
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import HealthCheck, Phase, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

from fuzzing import FAMILIES, Case, Checks, run_case, strategy  # noqa: E402
from fuzzing import properties  # noqa: E402
from fuzzing.properties import FORMATS  # noqa: E402
from fuzzing.case import Entry, scratch_root  # noqa: E402

EXAMPLES = {"records": 45, "lines": 40, "glued": 40, "gzip": 40, "trees": 40, "config": 40, "cli": 40}
"""Cases per family: about 15 s in all on two cores alone, 40 s within the suite (``--durations`` shows each; the long
campaign of ``tools/fuzz.py`` draws many more)."""

_counter = itertools.count()


@pytest.fixture(scope="module")
def scratch() -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="mlcheck-properties-", dir=scratch_root()) as folder:
        yield folder


def _settings(family: str) -> settings:
    return settings(max_examples=EXAMPLES[family], derandomize=True, database=None, deadline=None,
                    phases=(Phase.explicit, Phase.generate, Phase.shrink),
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much, HealthCheck.large_base_example])


def _holds(case: Case, scratch: str) -> None:
    number = next(_counter)
    # every property; of the reporters besides JSON, one per case in turn (SARIF alone costs more
    # than checking a small log)
    checks = Checks(formats=(FORMATS[1 + number % (len(FORMATS) - 1)],))
    failures = run_case(case, os.path.join(scratch, str(number)), checks)
    assert not failures, "\n".join(f"{f.key}: {f.detail}" for f in failures)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_property_holds(family: str, scratch: str) -> None:
    @_settings(family)
    @given(strategy(family))
    def holds(case: Case) -> None:
        _holds(case, scratch)

    holds()


# The harness itself: a broken property must be reported, or the tests above prove nothing.

def test_an_exception_escaping_check_is_a_failure(scratch: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_args: object, **_kwargs: object) -> None:
        raise ZeroDivisionError("injected")

    monkeypatch.setattr(properties, "check", broken)
    case = Case("records", (Entry(b"resnet/result_0.txt", b""),), (b"resnet",))
    failures = run_case(case, os.path.join(scratch, "raises"))
    assert [f.key.split(" at ")[0] for f in failures] == ["check() raised ZeroDivisionError"]


def test_a_hang_is_a_failure(scratch: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(properties, "check", lambda *_args, **_kwargs: time.sleep(30))
    case = Case("records", (Entry(b"resnet/result_0.txt", b""),), (b"resnet",))
    failures = run_case(case, os.path.join(scratch, "hangs"), timeout=0.5)
    assert [f.key for f in failures] == ["no answer within 0.5 s"]


def test_an_input_written_by_the_cli_is_a_failure(scratch: str) -> None:
    log = (Path(__file__).resolve().parent.parent / "fixtures" / "bad" / "base_open.txt").read_bytes()
    # the output guard refuses this (exit 2, allowed here); the property checks the log is intact
    case = Case("cli", (Entry(b"resnet/result_0.txt", log),), (b"resnet",),
                cli=("check", "-f", "json", "-o", "json:../tree/resnet/result_0.txt"), allowed_exits=(0, 1))
    failures = run_case(case, os.path.join(scratch, "guard"))
    assert [f.key.split(":")[0] for f in failures] == ["mlcheck check exit 2"]
