"""Seeded random mutations of real-looking logs: mlcheck never raises, every finding names its
file and a physical line inside it (or none), and the JSON report stays valid."""

from __future__ import annotations

import json
import random
from pathlib import Path

import jsonschema
import pytest

from mlcheck import check
from mlcheck.report.json_report import report_dict

ROOT = Path(__file__).resolve().parent.parent
SEEDS = [ROOT / "fixtures" / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt",
         ROOT / "fixtures" / "bad" / "base_open.txt"]
SEEDS += sorted((ROOT / "fixtures" / "raw").glob("*.log"))[:3]
SNIPPETS = [b"", b"\x00", b"\xff\xfe", b"{", b"}", b'"', b":::MLLOG ", b":::MLLOG {}", b"NaN", b"-Infinity",
            b"1e999", b"[1,0]<stdout>:", b"\r", b"\x1b[31m", b'{"key": null}', b"\n", b"null", b"[]"]


def _mutate(data: bytes, rng: random.Random) -> bytes:
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(data) + 1)
        choice = rng.randrange(5)
        if choice == 0:
            data = data[:at] + data[at + rng.randint(1, 80):]
        elif choice == 1:
            data = data[:at] + rng.choice(SNIPPETS) + data[at:]
        elif choice == 2:
            lines = data.splitlines(keepends=True)
            if lines:
                i = rng.randrange(len(lines))
                lines.insert(i, lines[i])
                data = b"".join(lines)
        elif choice == 3:
            data = data[:at]
        else:
            data = data.replace(b'"value": ', b'"value": ' + rng.choice(SNIPPETS) + b" ", 1)
    return data


@pytest.mark.parametrize("case", range(300))
def test_mutated_log_never_crashes(case: int, tmp_path: Path) -> None:
    rng = random.Random(case)
    seed = SEEDS[case % len(SEEDS)]
    data = _mutate(seed.read_bytes(), rng)
    path = tmp_path / "result_0.txt"
    path.write_bytes(data)
    result = check([str(path)])
    lines = data.count(b"\n") + 1
    assert result.runs, "every input file appears in the runs"
    for found in result.all_findings():
        assert found.path
        assert found.line is None or 1 <= found.line <= lines + 1, (found.code, found.line, lines)
    report = report_dict(result)
    json.dumps(report, allow_nan=False)
    schema = json.loads((ROOT / "schemas" / "report.schema.json").read_text("utf-8"))
    jsonschema.validate(report, schema)
