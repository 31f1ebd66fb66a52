"""The round data shipped with mlcheck is valid against its JSON Schema. mlcheck reads these files
without validating them again at every start (that cost about 70 ms of each process: importing
jsonschema and validating), so this test is what holds them to their schemas."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from mlcheck.facts.rulesets import SUPPORTED_RULESETS

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"  # (installed as mlcheck.schemas)
FILES = {"ruleset.json": "ruleset.schema.json", "constraints.json": "constraints.schema.json",
         "package.json": "package-policy.schema.json", "rcp.json": "rcp-policy.schema.json"}


@pytest.mark.parametrize("version", SUPPORTED_RULESETS)
def test_every_shipped_file_of_a_round_is_valid(version: str) -> None:
    folder = SCHEMAS / "rulesets" / version
    assert (folder / "ruleset.json").is_file() and (folder / "constraints.json").is_file()
    checked = 0
    for name, schema_name in FILES.items():
        path = folder / name
        if not path.is_file():
            continue
        schema = json.loads((SCHEMAS / schema_name).read_text("utf-8"))
        jsonschema.Draft202012Validator.check_schema(schema)
        jsonschema.Draft202012Validator(schema).validate(json.loads(path.read_text("utf-8")))
        checked += 1
    assert checked >= 2


def test_a_broken_file_would_be_caught() -> None:
    schema = json.loads((SCHEMAS / "ruleset.schema.json").read_text("utf-8"))
    data = json.loads((SCHEMAS / "rulesets" / "2.0.0" / "ruleset.json").read_text("utf-8"))
    del data["period"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema).validate(data)
