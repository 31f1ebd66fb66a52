"""The quick acceptance of system descriptions (``mlcheck.rules.schema_accepts``) never accepts
what jsonschema refuses: compared on every shipped and published description, and on thousands
of mutations of one (values of every JSON type, missing and extra fields), under the schema of
``schemas/system-description.schema.json``."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mlcheck.rules.package_system import system_schema
from mlcheck.rules.schema_accepts import acceptor

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "other-submitters"
VALUES: list[Any] = ["", " ", "8", " 12 ", "8\n", "x", "TODO", "closed", "open", "Closed", "٣", "-1",
                     0, 1, -1, 2.0, 1.5, float("nan"), True, False, None, [], ["8"], {}, {"a": 1}]


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


def test_the_acceptor_agrees_with_jsonschema() -> None:
    schema = system_schema()
    accepts = acceptor(schema)
    assert accepts is not None
    validator = jsonschema.Draft202012Validator(schema)
    docs = _descriptions()
    assert docs
    accepted = sum(accepts(doc) for doc in docs)
    assert accepted > 0
    rng = random.Random(12)
    base = docs[0]
    fields = sorted(schema["properties"])
    cases = list(docs)
    for _ in range(4000):
        doc = dict(base)
        for _ in range(rng.randint(1, 3)):
            field = rng.choice(fields + ["notes"])
            if rng.random() < 0.15:
                doc.pop(field, None)
            else:
                doc[field] = rng.choice(VALUES)
        cases.append(doc)
    cases += [[], "x", None, 3]
    for case in cases:
        if accepts(case):
            assert not list(validator.iter_errors(case)), case


@pytest.mark.parametrize("schema", [
    {"type": "object", "additionalProperties": False},
    {"properties": {"a": {"format": "date"}}},
    {"properties": {"a": {"$ref": "#/$defs/missing"}}},
    {"oneOf": [{"type": "string"}]},
])
def test_a_schema_beyond_the_supported_part_has_no_acceptor(schema: dict[str, Any]) -> None:
    assert acceptor(schema) is None
