"""A value of a log quoted in a finding's message is bounded, and the reports scan a message in
linear time: a 200,000-character submission_benchmark made a 200,103-character MLC011 message, and
SARIF's fingerprint (which cuts each path in a message to its last name) took four minutes on it."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

from conftest import FIXTURES
from mlcheck import check
from mlcheck.model import Finding, Severity
from mlcheck.report.sarif import _PATH, _last_name, fingerprint
from mlcheck.rule import MAX_MESSAGE, Rule

BASE = FIXTURES / "raw" / "base.txt"


def test_a_long_value_in_a_message_is_shown_clipped(tmp_path: Path) -> None:
    lines = []
    for line in BASE.read_text("utf-8").splitlines():
        if '"key": "submission_benchmark"' in line:
            record = json.loads(line[len(":::MLLOG "):])
            record["value"] = "a1" * 100_000
            line = ":::MLLOG " + json.dumps(record)
        lines.append(line)
    log = tmp_path / "result_0.txt"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    [found] = [f for f in check([str(log)]).all_findings() if f.code == "MLC011"]
    assert len(found.message) < 1000 and "is not a benchmark of training" in found.message


def test_every_message_is_kept_to_max_message_characters() -> None:
    rule = Rule("MLC999", "test-rule", Severity.WARNING, "a rule of this test", official=False)
    found = rule.at("x.txt", 3, "b" * (MAX_MESSAGE * 3))
    assert len(found.message) < MAX_MESSAGE + 60 and found.message.endswith(f"(a message of {MAX_MESSAGE * 3:,} characters, cut)")
    assert rule.at("x.txt", 3, "short").message == "short"


def test_the_fingerprint_cuts_paths_as_before_and_passes_over_a_long_word() -> None:
    reference = re.compile(r"[^\s,;'\"()\[\]]*[/\\][^\s,;'\"()\[\]]*")  # (the form before: quadratic in a word)
    for text in ("see ../a/b/result_0.txt, line 3", "x\\y\\z and (p/q) [r/s]", "a/ /b //", "no path here", "é/ü x"):
        assert _PATH.sub(_last_name, text) == reference.sub(_last_name, text)
    word = "a1" * 10_000
    found = Finding(code="MLC011", name="x", severity=Severity.ERROR, message=word + " at dir/result_0.txt",
                    path="p", line=1, official=True)
    assert fingerprint(found, "p") == fingerprint(replace(found, message=word + " at result_0.txt"), "p")
