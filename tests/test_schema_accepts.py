"""The system-description errors found without jsonschema (``mlcheck.rules.schema_accepts``) are
jsonschema's: the findings of MLC512 with and without the quick validator are compared on every
shipped and published description, and on thousands of mutations of them (values of every JSON
type, missing and extra fields), under ``schemas/system-description.schema.json``."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from conftest import SHARED as SHARED_DATA
from mlcheck.rules.package_system import _schema_findings, system_schema
from mlcheck.rules.schema_accepts import quick_validator

ROOT = Path(__file__).resolve().parent.parent
SHARED = SHARED_DATA / "other-submitters"
VALUES: list[Any] = ["", " ", "8", " 12 ", "8\n", "x", "TODO", "closed", "open", "Closed", "٣", "-1", "1.0",
                     0, 1, -1, 2.0, 1.5, -2.0, float("nan"), float("inf"), True, False, None, [], ["8"], {},
                     {"a": 1}, 10**30]


def _descriptions() -> list[dict[str, Any]]:
    paths = sorted((ROOT / "fixtures").rglob("systems/*.json"))
    if SHARED.is_dir():
        paths += sorted(SHARED.rglob("systems/*.json"))
    docs = []
    for path in paths:
        try:
            data = json.loads(path.read_text("utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
        if isinstance(data, dict):
            docs.append(data)
    return docs


def test_the_quick_errors_are_jsonschemas() -> None:
    schema = system_schema()
    validate = quick_validator(schema)
    assert validate is not None
    docs = _descriptions()
    assert docs
    rng = random.Random(12)
    fields = sorted(schema["properties"])
    cases = list(docs)
    for _ in range(4000):
        doc = dict(rng.choice(docs))
        for _ in range(rng.randint(1, 4)):
            name = rng.choice(fields + ["notes"])
            if rng.random() < 0.15:
                doc.pop(name, None)
            else:
                doc[name] = rng.choice(VALUES)
        cases.append(doc)
    quick = 0
    for case in cases:
        quick += validate(case) is not None
        assert list(_schema_findings("s.json", case)) == list(_schema_findings("s.json", case, quick=False)), case
    assert quick > len(cases) * 0.9  # jsonschema is the exception


@pytest.mark.parametrize("schema", [
    {"type": "object", "additionalProperties": False},
    {"properties": {"a": {"format": "date"}}},
    {"properties": {"a": {"$ref": "#/$defs/missing"}}},
    {"properties": {"a": {"oneOf": [{"type": "string"}]}}},
    {"type": "array"},
])
def test_a_schema_beyond_the_supported_part_has_no_quick_validator(schema: dict[str, Any]) -> None:
    assert quick_validator(schema) is None
