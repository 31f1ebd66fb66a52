"""Session 53: reviews of raw consoles, packages of rounds 4.0-6.1 and scores."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme"


def _report(cwd: Path, target: str, output: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "mlcheck", "report", target, "-o", output, "--no-progress"],
                          capture_output=True, cwd=cwd, timeout=120)


def test_report_refuses_a_json_name_in_a_package_under_a_folder_named_results(tmp_path: Path) -> None:
    """'report data/results/Acme -o data/results/Acme/r.json' wrote HTML into r.json: the folder
    named results above the package was taken for the package's own (refused later, it was not)."""
    shutil.copytree(EXAMPLE, tmp_path / "data" / "results" / "Acme")
    done = _report(tmp_path, "data/results/Acme", "data/results/Acme/r.json")
    assert done.returncode == 2 and "names a json report" in done.stderr.decode()
    assert not (tmp_path / "data" / "results" / "Acme" / "r.json").exists()


def test_report_into_a_checked_system_folder_is_refused_as_an_input(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "Acme")
    done = _report(tmp_path, "Acme/results/acme-t8", "Acme/results/acme-t8/r.json")
    assert done.returncode == 2 and "a folder this check reads" in done.stderr.decode()
    assert not (tmp_path / "Acme" / "results" / "acme-t8" / "r.json").exists()


def _check_json(*args: str) -> dict:  # type: ignore[type-arg]
    import json
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", *args, "-f", "json", "--no-progress"],
                          capture_output=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr.decode()
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _codes(report: dict) -> list[tuple[str, str, bool, str]]:  # type: ignore[type-arg]
    return sorted((f["code"], f["severity"], f["official"], Path(f["path"]).name) for f in report["findings"])


def test_result_files_in_a_system_folder_are_no_result_the_tools_read(tmp_path: Path) -> None:
    """rv224: results/<system>/result_*.txt (the benchmark level left out): the package checker
    lists only the system folder's folders and passes; mlcheck scored the runs as a valid resnet
    result and said its run count (MLC502) was the official checker's."""
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    system = package / "results" / "acme-t8"
    for log in (system / "resnet").iterdir():
        log.rename(system / log.name)
    (system / "resnet").rmdir()
    (system / "result_4.txt").unlink()  # (4 runs: a run count the folder would fail where it belongs)
    report = _check_json(str(package))
    (bench,) = report["benchmarks"]
    assert bench["valid"] is False and "outside results/<system>/<benchmark>/ (MLC509)" in bench["reason"]
    assert _codes(report) == [("MLC502", "error", False, "acme-t8"), ("MLC509", "error", False, "acme-t8")]
    (layout,) = [f for f in report["findings"] if f["code"] == "MLC509"]
    assert "the benchmark level left out" in layout["message"] and layout["message"].endswith("acme-t8/resnet/")
    # the same copies beside the benchmark folder the tools read: stray files, a warning
    shutil.copytree(EXAMPLE / "results" / "acme-t8" / "resnet", system / "resnet")
    report = _check_json(str(package))
    assert [(b["folder"].endswith("resnet"), b["valid"]) for b in report["benchmarks"]] == [(False, False), (True, True)]
    assert ("MLC509", "warning", False, "acme-t8") in _codes(report)
    assert not [c for c in _codes(report) if c[1] == "error" or c[0] == "MLC508"]


def test_a_folder_named_json_in_systems_is_refused_as_the_checker_crashes_on_it(tmp_path: Path) -> None:
    """rv224: the package checker globs systems/*.json, folders too, and open() raises
    IsADirectoryError; mlcheck listed only files and passed."""
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    (package / "systems" / "extra.json").mkdir()
    (package / "systems" / ".hidden.json").mkdir()  # (no match of the glob's '*')
    report = _check_json(str(package))
    assert _codes(report) == [("MLC511", "error", True, "extra.json")]
