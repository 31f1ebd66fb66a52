"""Same input, same bytes (a reviewer of session 37 compared them across working folders, time
zones and locales): a path a message names is spelt as the paths were given, never relative to
where mlcheck ran; a waiver expires on the UTC date; JUnit on standard output is UTF-8 whatever
the locale."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import FIXTURES
from mlcheck.cli import main

ACME = FIXTURES / "example" / "Acme"


def _package(tmp_path: Path) -> Path:
    root = tmp_path / "pkg" / "Acme"
    shutil.copytree(ACME, root)
    description = root / "systems" / "acme-t8.json"
    data = json.loads(description.read_text("utf-8"))
    data["submitter"] = "Other"  # (the logs say Acme: a finding that names the description)
    description.write_text(json.dumps(data, indent=1), "utf-8")
    return root


def test_a_message_names_a_path_as_the_paths_were_given_wherever_mlcheck_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _package(tmp_path)
    outputs = []
    for cwd in (tmp_path, tmp_path / "pkg", root / "results"):
        monkeypatch.chdir(cwd)
        done = CliRunner().invoke(main, ["check", str(root), "-f", "json", "--no-progress"])
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] == outputs[2]
    messages = [f["message"] for b in json.loads(outputs[0])["benchmarks"] for f in b["findings"]] + \
        [f["message"] for f in json.loads(outputs[0])["findings"]]
    assert any(f"{root}/systems/acme-t8.json" in message for message in messages), messages
    # Given relative, it is spelt relative (from the folder given: ``.`` in a benchmark folder).
    monkeypatch.chdir(root / "results" / "acme-t8" / "resnet")
    done = CliRunner().invoke(main, ["check", ".", "-f", "json", "--no-progress"])
    assert "../../../systems/acme-t8.json" in done.stdout


def test_a_waiver_expires_on_the_utc_date_in_every_time_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A waiver expiring yesterday (UTC) applied again where the local date was a day behind."""
    import datetime as dt

    from mlcheck.model import Finding, Severity
    from mlcheck.results import CheckResult
    from mlcheck.settings.waiver_table import Waiver
    from mlcheck.settings.waivers import apply_waivers

    class LocalDateBehind(dt.date):
        @classmethod
        def today(cls) -> dt.date:  # (a time zone where it is still yesterday)
            return dt.datetime.now(dt.timezone.utc).date() - dt.timedelta(days=1)

    monkeypatch.setattr(dt, "date", LocalDateBehind)
    yesterday = dt.datetime.now(dt.timezone.utc).date() - dt.timedelta(days=1)
    found = Finding("MLC530", "rcp-failed", Severity.ERROR, "x", "a/result_0.txt", 3)
    waiver = Waiver("MLC530", "**", "rerun", ".mlcheck.toml:1", yesterday)
    result = apply_waivers(CheckResult((), (), (found,)), [waiver])
    assert not result.waived and "MLC042" in {f.code for f in result.all_findings()}


@pytest.mark.parametrize("output", [["-f", "junit"], ["-o", "junit:-"], ["-f", "markdown"]])
def test_a_report_on_standard_output_is_utf8_whatever_the_locale(tmp_path: Path, output: list[str]) -> None:
    """Under a Latin-1 locale the JUnit XML (its header says UTF-8) was not well-formed, and
    Markdown's ❌ was written ``\\u274c``."""
    import os
    import subprocess
    import sys
    import xml.dom.minidom

    log = tmp_path / "résultat_é.log"
    log.write_text((ACME / "results" / "acme-t8" / "resnet" / "result_0.txt").read_text("utf-8")
                   .replace('"key": "run_stop"', '"key": "run_stop_"'), "utf-8")
    env = {**os.environ, "PYTHONIOENCODING": "latin-1"}
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", str(log), *output, "--no-progress"],
                          capture_output=True, env=env, timeout=120)
    assert done.returncode == 1, done.stderr
    text = done.stdout.decode("utf-8")  # (raises on Latin-1 bytes)
    assert "résultat_é.log" in text
    if "junit" in output[1]:
        xml.dom.minidom.parseString(done.stdout)
    else:
        assert "❌" in text
