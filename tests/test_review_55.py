"""Session 55: reviews of scores, power, watch, CI outputs and hostile inputs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mlcheck.package.json_document import read_json_document
from mlcheck.rules.package_system import check_system_description

EXAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme"
SYSTEM = EXAMPLE / "systems" / "acme-t8.json"


@pytest.mark.parametrize("field", ["system_name", "submitter"])
def test_an_empty_table_field_is_said_once_by_the_placeholder_rule(tmp_path: Path, field: str) -> None:
    """rv242: an empty system_name was both MLC512 and MLC514, two warnings saying the same."""
    data = json.loads(SYSTEM.read_text("utf-8"))
    data[field] = " "
    path = tmp_path / "acme-t8.json"
    path.write_text(json.dumps(data, indent=1), "utf-8")
    findings = check_system_description(read_json_document(str(path)), "r", "2.0.0")
    assert [(f.code, f.severity.name) for f in findings] == [("MLC514", "WARNING")]
    assert field in findings[0].message


@pytest.mark.parametrize("name, text, line", [
    (".mlcheck.toml", 'jobs = 1\n[waivers]\ncode = "MLC001"\n', 2),
    ("pyproject.toml", '[project]\nname = "x"\n[tool.mlcheck]\njobs = 1\n\n[tool.mlcheck.waivers]\ncode = "MLC0"\n', 6),
])
def test_a_waivers_table_not_an_array_is_said_at_its_line(tmp_path: Path, name: str, text: str, line: int) -> None:
    """Session 54's carried item: '[waivers]' (one table) was MLC041 with no line."""
    shutil.copytree(EXAMPLE, tmp_path / "Acme")
    (tmp_path / name).write_text(text, "utf-8")
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", "Acme", "-f", "json", "--no-progress"],
                          capture_output=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    (found,) = [f for f in json.loads(done.stdout)["findings"] if f["code"] == "MLC041"]
    assert (found["path"], found["line"], found["severity"]) == (name, line, "error")
    assert "[[waivers]] elsewhere" in found["message"] and done.returncode == 1
