"""Session 54: packages kept in a folder named ``results``; reviews of rounds 6.x, reports and
broken copies."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme"


def _check_json(*args: str) -> dict:  # type: ignore[type-arg]
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", *args, "-f", "json", "--no-progress",
                           "--config", os.devnull], capture_output=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr.decode()
    return json.loads(done.stdout)  # type: ignore[no-any-return]


@pytest.mark.parametrize("named", ["store", "store/results", "store/results/Acme", "store/results/Acme/results"])
def test_packages_kept_in_a_folder_named_results_are_each_a_package(tmp_path: Path, named: str) -> None:
    """'store/results/<org>/{results,systems}' (a folder of packages named results): the folder
    above was taken for a package whose system folder is the org (MLC510 'systems/Acme.json
    missing', MLC506 for the org's results/ and systems/)."""
    shutil.copytree(EXAMPLE, tmp_path / "store" / "results" / "Acme")
    report = _check_json(str(tmp_path / named))
    assert report["findings"] == []
    (bench,) = report["benchmarks"]
    assert bench["valid"] and bench["org"] == "Acme" and len(report["runs"]) == 5


def test_a_package_copied_into_a_packages_results_is_still_refused(tmp_path: Path) -> None:
    """The same tree beside a systems/ folder is a package whose results/ holds a copy of another:
    its system folder 'Acme' has no description (MLC510), as the package checker says."""
    shutil.copytree(EXAMPLE, tmp_path / "Org" / "results" / "Acme")
    (tmp_path / "Org" / "systems").mkdir()
    report = _check_json(str(tmp_path / "Org"))
    assert ("MLC510", "error") in {(f["code"], f["severity"]) for f in report["findings"]}
