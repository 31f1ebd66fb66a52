"""The reference tensor lists read from the installed official YAML files by a text scan are the
lists a YAML parse of the same files gives."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

from mlcheck.facts.constraints import tensor_list

ROOT = Path(__file__).resolve().parent.parent
_QUOTED = re.compile(r"[\"']([^\"'\n]+)[\"']")


def _referenced_files() -> list[str]:
    names: set[str] = set()
    for data in (ROOT / "schemas" / "rulesets").glob("*/constraints.json"):
        for bench in json.loads(data.read_text("utf-8"))["benchmarks"].values():
            if bench.get("weight_init"):
                names.add(bench["weight_init"]["tensors_from"])
    return sorted(names)


@pytest.mark.parametrize("relative", _referenced_files())
def test_text_scan_equals_yaml_parse(relative: str) -> None:
    from mlperf_logging import compliance_checker

    yaml = importlib.import_module("yaml")
    path = Path(compliance_checker.__file__).parent / relative
    records = yaml.load(path.read_text("utf-8"), Loader=yaml.BaseLoader)
    end = next(r["END"] for r in records if isinstance(r, dict) and "END" in r)
    _, _, reference = str(end["CHECK"]).partition("== sorted(")
    parsed = tuple(_QUOTED.findall(reference))
    assert parsed, relative
    assert tensor_list(relative) == parsed
