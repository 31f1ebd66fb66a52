"""Defects a hardening review found (session 24), each from a constructed input: records the
official parser reads none of, a folder tree deeper than Python's recursion, a path that turns
into a FIFO or a device while it is read or followed, terminal escapes in a run's status."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlcheck import check
from mlcheck.model import Severity

from conftest import FIXTURES

LOG = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"


def test_a_result_file_whose_records_the_parser_reads_none_of_fails(tmp_path: Path) -> None:
    """Every record written ':::MLLOG{' (or a tab after the marker): the official parser reads no
    record and fails every required key; mlcheck read none either and passed the run (exit 0)."""
    for glue in ("", "\t"):
        log = tmp_path / "result_0.txt"
        log.write_text(LOG.read_text("utf-8").replace(":::MLLOG {", f":::MLLOG{glue}{{"), "utf-8")
        result = check([str(log)], ruleset="2.0.0")
        (run,) = result.runs
        errors = [(f.code, f.line) for f in result.all_findings() if f.severity is Severity.ERROR]
        assert run.verdict == run.official_verdict == "fail" and errors == [("MLC002", None)], glue
        (message,) = [f.message for f in result.all_findings() if f.code == "MLC002"]
        assert "(the 303 without a space after the marker aside: MLC027)" in message
    # One record so written: the run is judged without it (MLC027 and the key it loses), no MLC002.
    lines = LOG.read_text("utf-8").splitlines(keepends=True)
    log.write_text("".join(lines[:2] + [lines[2].replace(":::MLLOG {", ":::MLLOG{")] + lines[3:]), "utf-8")
    assert "MLC002" not in {f.code for f in check([str(log)], ruleset="2.0.0").all_findings()}


def test_a_folder_tree_deeper_than_the_recursion_limit_is_walked(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """1,000 nested folders above a result file: os.walk of Python 3.10/3.11 recursed once per
    level and mlcheck stopped with an internal error (RecursionError), no report."""
    import os
    import sys
    folder = tmp_path / "deep"
    folder.mkdir()
    monkeypatch.chdir(folder)  # (relative: the path of the deepest folder stays under the system's limit)
    for _ in range(max(1000, sys.getrecursionlimit())):
        os.mkdir("a")
        os.chdir("a")
    Path("result_0.txt").write_bytes(LOG.read_bytes())
    monkeypatch.chdir(tmp_path)
    try:
        result = check(["deep"])
    finally:  # (removed here, bottom up: pytest's recursive clean-up of old temporary folders fails on it)
        monkeypatch.chdir(folder)
        depth = 0
        while os.path.isdir("a"):
            os.chdir("a")
            depth += 1
        os.remove("result_0.txt")
        for _ in range(depth):
            os.chdir(os.pardir)
            os.rmdir("a")
        monkeypatch.chdir(tmp_path)
    (run,) = result.runs
    assert run.verdict == "pass" and run.path.startswith("deep/a/a/") and run.path.endswith("/result_0.txt")


def test_the_walk_gives_os_walks_folders_in_its_order(tmp_path: Path) -> None:
    import os
    from mlcheck.package.folder_walk import walk
    for folder in ("b/x", "a/z/y", "a/c", "e"):
        (tmp_path / folder).mkdir(parents=True)
    for file in ("f1", "a/f2", "a/z/y/f3", "e/f4"):
        (tmp_path / file).write_text("x")
    (tmp_path / "b" / "link").symlink_to(tmp_path / "e")
    (tmp_path / "a" / "gone").symlink_to(tmp_path / "missing")
    for follow in (False, True):
        def tree(walker: object) -> list[tuple[str, list[str], list[str]]]:
            seen = []
            for root, dirs, files in walker:  # type: ignore[attr-defined]
                dirs.sort()
                dirs[:] = [d for d in dirs if d != "c"]  # (the caller prunes: not entered)
                seen.append((root, list(dirs), sorted(files)))
            return seen
        assert tree(walk(str(tmp_path), followlinks=follow)) == tree(os.walk(str(tmp_path), followlinks=follow))
    errors: list[OSError] = []
    assert list(walk(str(tmp_path / "missing"), onerror=errors.append)) == [] and len(errors) == 1


def test_watch_idles_when_its_path_turns_into_a_fifo_or_a_device(tmp_path: Path) -> None:
    """A path that names a FIFO or /dev/zero only after the watch started (a rotation, a link):
    the follower blocked in open() on the FIFO or read /dev/zero forever, past --idle-timeout."""
    import os
    from mlcheck.read.follow import IDLE, Follower
    fifo, device = tmp_path / "fifo.log", tmp_path / "zero.log"
    os.mkfifo(fifo)
    device.symlink_to(os.devnull if not os.path.exists("/dev/zero") else "/dev/zero")
    for path in (fifo, device):
        signals = Follower(str(path), poll=0.01).signals()
        assert [next(signals) for _ in range(3)] == [IDLE, IDLE, IDLE], path


def test_a_later_runs_reading_findings_say_their_run(tmp_path: Path) -> None:
    """Raw output of three jobs: the launcher lines' MLC024 belong to runs 1 and 2 and say so
    (run_index), so the report counts the runs they concern (was '1 of 3 runs' for two)."""
    from conftest import ROOT
    import subprocess
    import sys
    raw = tmp_path / "job.log"
    subprocess.run([sys.executable, str(ROOT / "tools" / "make_raw.py"), str(LOG), "-o", str(raw), "--runs", "3",
                    "--style", "srun"], check=True, capture_output=True)
    result = check([str(raw)], ruleset="2.0.0")
    assert [r.index for r in result.runs] == [0, 1, 2]
    started = [(f.run_index, f.line) for f in result.all_findings() if f.code == "MLC024"]
    assert [index for index, _ in started] == [1, 2]
    for run in result.runs[1:]:
        assert [f.run_index for f in run.findings if f.code == "MLC024"] == [run.index]
