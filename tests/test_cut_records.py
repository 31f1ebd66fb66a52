"""Raw output whose records another stream's lines cut (``python train.py > log 2>&1``: stdout
written in blocks, stderr lines between them)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import FIXTURES
from mlcheck.checker import check_log
from mlcheck.cli import main
from mlcheck.package.discover import LogRef
from mlcheck.read.cut_records import joined_cut_records

BASE = FIXTURES / "raw" / "base.txt"
WARNINGS = ["[W ProcessGroupNCCL.cpp:1569] Warning: step {i} took longer than expected",
            "W1203 10:00:00.123456 4242 nccl.cc:12] NCCL WARN timeout {i}",
            "/usr/lib/python3/dist-packages/torch/x.py:12: UserWarning: deprecated {i}",
            "node17:4242:5151 [0] NCCL INFO Channel {i}", "2026-12-03 10:00:00,123 - WARNING - slow step {i}"]


def _buffered(text: str, block: int, warning: str) -> str:
    """``text`` written in blocks of ``block`` characters with a stderr line after each block."""
    out = []
    for at in range(0, len(text), block):
        out.append(text[at:at + block])
        if at + block < len(text):
            out.append(warning.format(i=at) + "\n")
    return "".join(out)


@pytest.mark.parametrize("warning", WARNINGS)
@pytest.mark.parametrize("block", [211, 509, 1024])
def test_records_cut_by_stderr_lines_read_as_the_clean_file(warning: str, block: int, tmp_path: Path) -> None:
    """Cuts in numbers, field names, strings and the marker itself, by a warning the console also
    shows on lines of its own: the clean file's verdict, time and findings (were: MLC023 and
    MLC003 errors, records lost, the run failed), and ``split`` writes the clean file's records."""
    text = BASE.read_text("utf-8")
    log = tmp_path / "console.log"
    log.write_text(warning.format(i=0) + "\n" + _buffered(text, block, warning), "utf-8")
    [clean] = check_log(LogRef(str(BASE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert [f.code for f in result.findings if f.severity.name != "INFO"] == []
    [summary] = [f for f in result.findings if f.code == "MLC020"]
    assert "cut by another stream's line (stderr written while stdout was buffered) joined again" in summary.message
    out = tmp_path / "split"
    CliRunner().invoke(main, ["split", str(log), "-o", str(out)])
    assert (out / "result_0.txt").read_text("utf-8") == text


@pytest.mark.parametrize("warning", WARNINGS)
@pytest.mark.parametrize("block", [211, 509, 1024])
def test_a_cut_record_is_joined_right_or_not_at_all(warning: str, block: int, tmp_path: Path) -> None:
    """Where the other stream's line is met nowhere else and more than one place gives a record
    (``"lineno": 117`` + ``2026-12-03 ...``: 117 or 1172026?), the record stays cut and is
    reported: no record is ever read with a value it did not have."""
    text = BASE.read_text("utf-8")
    log = tmp_path / "console.log"
    log.write_text(_buffered(text, block, warning), "utf-8")
    out = tmp_path / "split"
    CliRunner().invoke(main, ["split", str(log), "-o", str(out)])
    assert set((out / "result_0.txt").read_text("utf-8").splitlines()) <= set(text.splitlines())


def test_a_joined_record_is_read_at_the_line_where_it_ends() -> None:
    lines = [b':::MLLOG {"namespace": "", "time_ms": 1652083200000, "event_type": "POINT_IN_TIME", "ke'
             b'[W x.cpp:1] Warning: one\n', b"[W x.cpp:1] Warning: two\n",
             b'y": "seed", "value": 1, "metadata": {"file": "a.py", "lineno": 1}}\n', b"after\n"]
    joined = [0]
    out = list(joined_cut_records(iter(lines), joined))
    assert joined == [1] and len(out) == len(lines)
    assert out[:2] == [b"[W x.cpp:1] Warning: one\n", b"[W x.cpp:1] Warning: two\n"]
    assert out[2] == (b':::MLLOG {"namespace": "", "time_ms": 1652083200000, "event_type": "POINT_IN_TIME", '
                      b'"key": "seed", "value": 1, "metadata": {"file": "a.py", "lineno": 1}}\n')
    assert out[3] == b"after\n"


def test_a_record_that_nothing_ends_stays_cut(tmp_path: Path) -> None:
    """The process died while writing it: the next record comes (or the file ends), reported as before."""
    lines = BASE.read_text("utf-8").splitlines(keepends=True)
    cut = lines[5][:60] + "\n"
    log = tmp_path / "console.log"
    log.write_text("".join(lines[:5] + [cut] + lines[6:]), "utf-8")
    [result] = check_log(LogRef(str(log)), None)
    assert [f.line for f in result.findings if f.code in ("MLC023", "MLC003")] == [6]
    assert not [f for f in result.findings if "joined again" in f.message]
    assert list(joined_cut_records(iter([cut.encode()]), [0])) == [cut.encode()]


def test_past_its_budget_a_file_s_cut_records_stay_as_they_are(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search for cuts is bounded per file (a file of cut records and lines that end none
    stays linear): past the budget, the lines are given as they are."""
    import mlcheck.read.cut_records as cut_records

    seen = b"[W x] Warning\n"
    cut = b':::MLLOG {"namespace": "", "time_ms": 1652083200000, "event_type": "POINT_IN_TIME", "ke[W x] Warning\n'
    rest = b'y": "seed", "value": 1, "metadata": {"file": "a.py", "lineno": 1}}\n'
    assert list(joined_cut_records(iter([seen, cut, rest]), [0]))[2].startswith(b":::MLLOG")
    monkeypatch.setattr(cut_records, "_BUDGET", 10)
    joined = [0]
    assert list(joined_cut_records(iter([seen, cut, rest]), joined)) == [seen, cut, rest] and joined == [0]
