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


def test_a_source_tree_reads_its_schemas_folder(tmp_path: Path) -> None:
    """``python -m mlcheck`` in a clone (or PYTHONPATH naming it) imports the clone's ``mlcheck/``,
    which has no ``mlcheck.schemas`` (the build makes it of ``schemas/``): the clone's folder is
    read, and the bundled example passes (a review of session 42: every run failed with MLC000).
    ``-S`` keeps an installed or editable mlcheck's path hooks out."""
    import subprocess
    import sys
    import sysconfig

    root = SCHEMAS.parent
    code = ("import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]; "
            "sys.argv = ['mlcheck', 'check', sys.argv[3], '--format', 'json']; "
            "import mlcheck; assert mlcheck.__file__.startswith(sys.path[0]), mlcheck.__file__; "
            "from mlcheck.cli import main; main()")
    done = subprocess.run([sys.executable, "-S", "-c", code, str(root), sysconfig.get_paths()["purelib"],
                           str(root / "fixtures" / "example" / "Acme")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["summary"]["verdict"] == "pass" and report["summary"]["runs_failed"] == 0
    assert "MLC000" not in done.stdout
