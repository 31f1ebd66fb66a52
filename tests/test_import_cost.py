"""What starting mlcheck imports, so that a costly import made lazy is not brought back unnoticed:
every command pays its start-up once, and so does each ``--jobs`` run (on one round of ~190
files the start was a fifth of mlcheck's time). Nothing is timed here. Each module listed costs
1-40 ms to import (``python -X importtime -m mlcheck ...``: rich 20 ms, importlib.resources with
tempfile and shutil 5 ms, tomllib 3 ms, the text reporters 3 ms) and no JSON check needs it;
``benchmarks/startup.py`` measures the commands.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import FIXTURES

import mlcheck.checker
from mlcheck import records

#: Never imported by starting the command line nor by a JSON check: each is imported where it is used.
LAZY = (
    "rich",                   # the text report, the progress bar on a terminal (about 20 ms)
    "jsonschema",             # the tests validate the shipped data; mlcheck itself never does (40 ms)
    "numpy", "scipy", "pandas", "yaml",
    "mlperf_logging",         # its run counts and files, read when a ruleset is first loaded
    "importlib.resources",    # with tempfile, shutil, zipfile: mlcheck.facts.resources reads the data files
    "importlib.metadata", "email", "tempfile", "shutil", "zipfile",
    "tomllib", "tomli",       # a config file is parsed only when there is one
    "gzip",                   # a gzip log is opened by it (with struct and _compression)
    "csv", "multiprocessing", "concurrent", "xml", "hashlib",
    "difflib",                # only for a "did you mean" hint (about 1.5 ms)
    "mlcheck.report.text", "mlcheck.report.text_findings", "mlcheck.report.grouped",
    "mlcheck.report.results_table", "mlcheck.report.job_summary", "mlcheck.report.html",
    "mlcheck.report.svg_charts", "mlcheck.report.markdown", "mlcheck.report.sarif",
    "mlcheck.report.junit", "mlcheck.report.github",
    "mlcheck.raw.split", "mlcheck.raw.watch", "mlcheck.read.follow", "mlcheck.facts.forms",
)
#: What the JSON check itself needs of those that starting does not import.
JSON_CHECK_NEEDS = ("mlperf_logging",)
#: What click's help needs of them (shutil: the width of the terminal).
HELP_NEEDS = ("shutil",)

_MODULES_AT_EXIT = """
import atexit, json, runpy, sys
out = sys.argv[1]
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
sys.argv = ["mlcheck", *sys.argv[2:]]
runpy.run_module("mlcheck", run_name="__main__", alter_sys=True)
"""


def _imported(tmp_path: Path, *argv: str) -> set[str]:
    """The modules loaded by the end of ``python -m mlcheck ARGV`` (``-c`` for a statement)."""
    out = tmp_path / "modules.json"
    if argv[0] == "-c":
        code = f"import json, sys; {argv[1]}; open(sys.argv[1], 'w').write(json.dumps(sorted(sys.modules)))"
        command = [sys.executable, "-c", code, str(out)]
    else:
        command = [sys.executable, "-c", _MODULES_AT_EXIT, str(out), *argv]
    subprocess.run(command, cwd=tmp_path, check=False, capture_output=True, timeout=120)
    return set(json.loads(out.read_text()))


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(name for name in names if name in modules or any(m.startswith(f"{name}.") for m in modules))


def test_importing_the_command_line_imports_no_lazy_module(tmp_path: Path) -> None:
    assert _loaded(_imported(tmp_path, "-c", "import mlcheck.cli"), LAZY) == []


def test_help_imports_no_lazy_module(tmp_path: Path) -> None:
    assert set(_loaded(_imported(tmp_path, "--help"), LAZY)) <= set(HELP_NEEDS)


def test_a_json_check_imports_no_reporter_of_another_format(tmp_path: Path) -> None:
    package = tmp_path / "Acme"  # (outside the repository: its pyproject.toml would be a config)
    shutil.copytree(FIXTURES / "example" / "Acme", package)
    modules = _imported(tmp_path, "check", str(package), "--format", "json", "--no-progress", "--jobs", "1")
    assert "mlcheck.report.json_report" in modules  # (it ran)
    assert set(_loaded(modules, LAZY)) <= set(JSON_CHECK_NEEDS)


def test_the_parent_of_workers_compiles_every_pending_init() -> None:
    # --jobs forks its workers after mlcheck.checker.warm_caches: they inherit the compiled code
    @records.dataclass(frozen=True)
    class Late:
        value: int

    mlcheck.checker.warm_caches([])
    assert records._PENDING == [] and Late(1).value == 1
