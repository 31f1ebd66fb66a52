"""A review of the command line (session 33): closed standard streams, watch's seconds, a report
that would overwrite the file stdin reads, refused records kept by ``split`` and counted as the
logging rank's in raw output. Each through the installed command, in a process of its own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES
from mlcheck.raw.split import split_log

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "fixtures" / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
BAD = FIXTURES / "bad"


def _mlcheck(*args: str, stdin: object = subprocess.DEVNULL, stderr: object = subprocess.PIPE,
             cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mlcheck", *args], stdin=stdin, stdout=subprocess.PIPE,
                          stderr=stderr, text=True, cwd=cwd, timeout=120)


def _closed(descriptor: int) -> object:
    """A child's standard stream closed before it starts (``<&-``, ``2>&-``)."""
    return lambda: __import__("os").close(descriptor)


def test_a_closed_stdin_does_not_touch_a_log_named_by_its_path() -> None:
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", str(RUN), "-f", "json", "--ruleset", "2.0.0"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_closed(0), timeout=120)
    assert done.returncode == 0 and '"MLC000"' not in done.stdout and '"verdict": "pass"' in done.stdout


def test_a_closed_stderr_loses_neither_the_report_nor_the_exit_code() -> None:
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", str(RUN), "-f", "json", "--ruleset", "2.0.0"],
                          stdout=subprocess.PIPE, text=True, preexec_fn=_closed(2), timeout=120)
    assert done.returncode == 0 and '"verdict": "pass"' in done.stdout
    missing = subprocess.run([sys.executable, "-m", "mlcheck", "check", "/nowhere/result_0.txt"],
                             stdout=subprocess.PIPE, text=True, preexec_fn=_closed(2), timeout=120)
    assert missing.returncode == 2


@pytest.mark.parametrize("option,value", [("--poll", "nan"), ("--poll", "inf"), ("--poll", "1e308"),
                                          ("--idle-timeout", "nan")])
def test_watch_refuses_seconds_that_are_not_finite(option: str, value: str) -> None:
    done = _mlcheck("watch", str(RUN), option, value)
    assert done.returncode == 2 and "is not a number of seconds" in done.stderr and "Traceback" not in done.stderr


def test_a_report_over_the_file_stdin_reads_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "in.txt"
    log.write_bytes(RUN.read_bytes())
    with open(log, "rb") as stdin:
        done = _mlcheck("check", "-", "-o", "json:in.txt", "--ruleset", "2.0.0", stdin=stdin, cwd=tmp_path)
    assert done.returncode == 2 and "in.txt is an input of this check" in done.stderr
    assert log.read_bytes() == RUN.read_bytes()


@pytest.mark.parametrize("name,code", [("time_ms_null", "MLC007"), ("key_missing", "MLC006"),
                                       ("record_is_array", "MLC005"), ("key_not_string", "MLC006")])
def test_split_keeps_a_whole_record_it_refuses(tmp_path: Path, name: str, code: str) -> None:
    """The result file is refused as the console's run is (before, the record was dropped and the
    file passed)."""
    source = BAD / f"{name}.txt"
    result = split_log(str(source), str(tmp_path / "out"))
    written = Path(result.written[0]).read_bytes()
    assert written == b"".join(line for line in source.read_bytes().splitlines(keepends=True) if b":::MLLOG" in line)
    assert code in {f.code for f in result.findings} and (result.records, result.refused) == ((24,), (1,))


def test_a_refused_record_of_the_logging_rank_has_copies_not_records_of_another_rank(tmp_path: Path) -> None:
    source = (BAD / "time_ms_null.txt").read_text("utf-8").splitlines(keepends=True)
    console = tmp_path / "job.log"
    console.write_text("".join(f"[1,{rank}]<stdout>:{line}" for line in source for rank in range(4)), "utf-8")
    done = _mlcheck("check", str(console), "-f", "json", "--ruleset", "2.0.0")
    codes = [f["code"] for run in json.loads(done.stdout)["runs"] for f in run["findings"]]
    assert "MLC028" not in codes and codes.count("MLC007") == 1


def test_a_waiver_with_an_unknown_field_is_not_applied(tmp_path: Path) -> None:
    """A misspelt ``expires`` would never expire: the waiver is refused (MLC041) and says why."""
    import shutil
    shutil.copytree(ROOT / "fixtures" / "example" / "Acme", tmp_path / "Acme")
    (tmp_path / ".mlcheck.toml").write_text('[[waivers]]\ncode = "MLC203"\npath = "Acme/**"\nreason = "ok"\n'
                                            'expire = 2020-01-01\n', "utf-8")
    done = _mlcheck("check", "Acme", "--no-progress", cwd=tmp_path)
    assert ".mlcheck.toml:1: error MLC041" in done.stdout and "unknown field 'expire'" in done.stdout


def test_two_config_findings_of_one_file_are_each_shown_at_its_line(tmp_path: Path) -> None:
    import shutil
    shutil.copytree(ROOT / "fixtures" / "example" / "Acme", tmp_path / "Acme")
    (tmp_path / ".mlcheck.toml").write_text('[[waivers]]\ncode = "MLC203"\n\n[[waivers]]\ncode = "MLC204"\n', "utf-8")
    done = _mlcheck("check", "Acme", "-f", "github", "--no-progress", cwd=tmp_path)
    lines = [line for line in done.stdout.splitlines() if "MLC041" in line]
    assert [line.split(",title=")[0] for line in lines] == ["::error file=.mlcheck.toml,line=1",
                                                             "::error file=.mlcheck.toml,line=4"]


@pytest.mark.parametrize("args,says", [
    (["check", ""], "an empty path was given"),
    (["check", str(RUN), "--ruleset", "9.9"], "training-2.0 also name 2.0.0"),
])
def test_clear_errors_for_an_empty_path_and_an_unknown_round(args: list[str], says: str) -> None:
    done = _mlcheck(*args)
    assert done.returncode == 2 and says in done.stderr


def test_the_folder_spelling_of_a_round_names_it() -> None:
    from mlcheck.facts.rulesets import normalise_version
    assert [normalise_version(v) for v in ("training-2.0", "training_v2.1", "v3.0", "4.1", "5.0.0")] == [
        "2.0.0", "2.1.0", "3.0.0", "4.1.0", "5.0.0"]


@pytest.mark.parametrize("columns", ["0", "\u00b2"])
def test_a_terminal_of_no_columns_still_gets_the_report(columns: str) -> None:
    import os
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", str(BAD / "invalid_json.txt"), "--color", "always"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": columns})
    assert "MLC003" in done.stdout and done.returncode == 1 and "Traceback" not in done.stderr


def _console_of_two_runs(refused: str) -> str:
    """Two runs of ``fixtures/raw/base.txt``, each logging its submission_* block before its
    cache_clear, the second a day later with ``refused`` after its first two block records, as
    ranks 0 and 1 print them."""
    import re
    lines = (FIXTURES / "raw" / "base.txt").read_text("utf-8").splitlines()
    block = [line for line in lines if '"key": "submission_' in line]
    run = block + [line for line in lines if line not in block]
    later = [re.sub(r'"time_ms": (\d+)', lambda m: f'"time_ms": {int(m.group(1)) + 86_400_000}', line) for line in run]
    records = run + later[:2] + [refused] + later[2:]
    return "".join(f"[1,{rank}]<stdout>:{line}\n" for line in records for rank in (0, 1))


def test_split_puts_a_refused_record_where_the_records_held_before_it_go(tmp_path: Path) -> None:
    """Held as the next run's block (logged after the run before stopped), the refused record goes
    with it: the second file is refused, as the second run of the console is (before, the first)."""
    refused = ':::MLLOG {"namespace": "", "time_ms": null, "event_type": "POINT_IN_TIME", "key": "submission_org", ' \
              '"value": "Acme", "metadata": {"file": "train.py", "lineno": 1}}'
    console = tmp_path / "job.log"
    console.write_text(_console_of_two_runs(refused), "utf-8")
    checked = json.loads(_mlcheck("check", str(console), "-f", "json", "--ruleset", "2.0.0").stdout)
    assert [run["verdict"] for run in checked["runs"]] == ["pass", "fail"]
    result = split_log(str(console), str(tmp_path / "out"))
    verdicts = [json.loads(_mlcheck("check", path, "-f", "json", "--ruleset", "2.0.0").stdout)["runs"][0]["verdict"]
                for path in result.written]
    assert verdicts == ["pass", "fail"] and refused in Path(result.written[1]).read_text("utf-8")


def test_quiet_and_strict_keep_a_clean_folder_to_its_score_line() -> None:
    done = _mlcheck("check", "-q", "--strict", "--color", "never", str(ROOT / "fixtures" / "example" / "Acme"))
    assert done.stdout.startswith("Acme / acme-t8 / resnet (closed, 2.0.0): 15.29 min") and "┏" not in done.stdout


@pytest.mark.parametrize("args", [["check", "-o", "json:out/"], ["check", "-o", "json:."], ["report", "-o", "out/"]])
def test_an_output_that_names_a_folder_is_refused_before_the_check(tmp_path: Path, args: list[str]) -> None:
    done = _mlcheck(*args, str(ROOT / "fixtures" / "example" / "Acme"), cwd=tmp_path)
    assert done.returncode == 2 and "names a folder" in done.stderr and not (tmp_path / "out").exists()


def test_an_interrupted_split_leaves_no_folder_it_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import mlcheck.raw.split as split

    def interrupted(*_args: object, **_kwargs: object) -> object:
        raise KeyboardInterrupt
    monkeypatch.setattr(split, "_written", interrupted)
    with pytest.raises(KeyboardInterrupt):
        split_log(str(BAD / "time_ms_null.txt"), str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()
