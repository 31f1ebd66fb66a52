"""Command-line defects found by a new user's review (session 25)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from conftest import FIXTURES
from mlcheck.cli import main

ACME = FIXTURES / "example" / "Acme"
ROOT = Path(__file__).resolve().parent.parent


def _invoke(args: list[str]) -> tuple[int, str, str]:
    done = CliRunner().invoke(main, args)
    return done.exit_code, done.stdout, done.stderr


def test_score_names_every_invalid_result_on_stderr(tmp_path: Path) -> None:
    """A folder made invalid by a broken run (MLC521) gets its "invalid:" line too (was: only
    folders with a wrong run count or bad power logs)."""
    package = tmp_path / "Acme"
    shutil.copytree(ACME, package)
    log = next(package.glob("results/*/resnet/result_2.txt"))
    log.write_text(log.read_text("utf-8").replace('"value": "lars"', '"value": "adamw"', 1), "utf-8")
    code, _out, err = _invoke(["score", str(package), "-t", "csv"])
    folder = str(log.parent)
    assert code == 1 and f"mlcheck: invalid: {folder}: 1 run breaks the rules (MLC521)" in err


def test_score_refuses_a_table_format_beside_the_json_report() -> None:
    code, out, err = _invoke(["score", str(ACME), "-f", "json", "-t", "csv"])
    assert code == 2 and out == "" and "--format json prints the JSON report" in err
    assert _invoke(["score", str(ACME), "-f", "json"])[0] == 0


def test_watch_takes_a_config_and_strict(tmp_path: Path) -> None:
    """``watch`` has check's --config and --strict (its help said the config applies, but only a
    found file or MLCHECK_CONFIG could name one, and --strict could not be asked)."""
    log = FIXTURES / "raw" / "rank_conflict.log"
    common = ["watch", str(log), "--idle-timeout", "0.2", "--no-progress", "--poll", "0.05"]
    plain = _invoke(common + ["--config", os.devnull])
    strict = _invoke(common + ["--config", os.devnull, "--strict"])
    assert plain[0] == 0 and "1 warning" in plain[2]
    assert strict[0] == 1 and "1 warning" in strict[2]
    assert _invoke(common + ["--config", str(tmp_path / "missing.toml")])[0] == 2


def test_ctrl_c_while_mlcheck_starts_exits_130_without_a_traceback() -> None:
    """An interrupt while mlcheck's modules are imported (the first tenth of a second) exits 130
    quietly, as one later does (was: a KeyboardInterrupt traceback)."""
    code = ("import sys\n"
            "class Interrupt:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'mlcheck.results':\n"
            "            raise KeyboardInterrupt\n"
            "sys.meta_path.insert(0, Interrupt())\n"
            "import mlcheck.cli\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 130 and "Traceback" not in done.stderr


def test_watch_ends_with_the_text_report_in_checks_concise_form_too() -> None:
    """`watch --output-format concise` (check's option for its text report; was: 'No such option')."""
    log = FIXTURES / "raw" / "crash_mid_record.log"
    watched = _invoke(["watch", str(log), "--idle-timeout", "0.2", "--no-progress", "--poll", "0.05",
                       "--config", os.devnull, "--output-format", "concise"])
    checked = _invoke(["check", str(log), "--config", os.devnull, "--output-format", "concise"])
    full = _invoke(["check", str(log), "--config", os.devnull])
    assert watched[0] == checked[0] == 1 and watched[1] == checked[1] != full[1]
    assert "- eval_accuracy (at least one)" in full[1] and "- eval_accuracy" not in watched[1]
