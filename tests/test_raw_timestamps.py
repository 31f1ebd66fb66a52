"""Rank labels behind a timestamp: every clock ``ts``, ``date`` and loggers print in front of a
line leaves the label after it readable, so the copies other ranks print are dropped (session 36:
the epoch, dates with slashes and ``date``'s own format hid the label; every rank's records were
kept and the run failed with MLC404)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import FIXTURES
from mlcheck.checker import check_log
from mlcheck.package.discover import LogRef
from mlcheck.read.rawlog import read_prefix

BASE = FIXTURES / "raw" / "base.txt"
_TIME = re.compile(r'"time_ms": (\d+)')

STAMPS = {
    "ts %s": "1759838401 ",
    "ts %.s": "1759838401.123456 ",
    "%Y/%m/%d": "2025/10/07 12:00:00 ",
    "%d/%m/%Y": "07/10/2025 12:00:00.123 ",
    "%m/%d/%y": "10/07/25 12:00:00 ",
    "date": "Tue Oct 07 12:00:00 UTC 2025: ",
    "iso": "2025-10-07T12:00:00.123Z ",
    "syslog": "Oct 07 12:00:00 ",
}
LABELS = {"srun": "{}: ", "prepend-rank": "[{}] ", "hydra pattern": "[{}@node0{}] ",
          "torchrun": "[default{}]:", "mpi": "[1,{}]<stdout>:"}


@pytest.mark.parametrize("stamp", sorted(STAMPS))
def test_a_timestamp_is_removed_and_the_label_after_it_read(stamp: str) -> None:
    prefix = read_prefix(STAMPS[stamp] + "3: ")
    assert (prefix.source, prefix.timestamp, prefix.extra_text) == ((-1, 3), True, False)


def test_a_hydra_rank_at_host_label_is_the_rank() -> None:
    assert read_prefix("[3@gpu-node-7] ").source == (-2, 3)


@pytest.mark.parametrize("stamp", sorted(STAMPS))
@pytest.mark.parametrize("label", sorted(LABELS))
def test_ranks_behind_timestamps_read_as_the_clean_run(stamp: str, label: str, tmp_path: Path) -> None:
    """Four ranks print every record, each a millisecond later than the one before and a record
    behind it: one run with the clean file's verdict and time, rank 0's records kept."""
    lines = BASE.read_text("utf-8").splitlines()
    out = ["+ srun -l -n4 python train.py"]
    for step in range(len(lines) + 4):
        for rank in range(4):
            if 0 <= step - rank < len(lines):
                line = _TIME.sub(lambda m: f'"time_ms": {int(m.group(1)) + rank}', lines[step - rank])
                out.append(STAMPS[stamp] + LABELS[label].format(rank, rank) + line)
    path = tmp_path / "console.log"
    path.write_text("\n".join(out) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(BASE)), None)
    [result] = check_log(LogRef(str(path)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert [f.code for f in result.findings if f.severity.name != "INFO"] == []
    [summary] = [f.message for f in result.findings if f.code == "MLC020"]
    assert f"{3 * len(lines)} copies printed by 3 other ranks dropped" in summary, summary


@pytest.mark.parametrize("order", ["le", "be"])
def test_utf16_without_a_byte_order_mark_is_named(tmp_path: Path, order: str) -> None:
    """A console saved as UTF-16 without a BOM reads as no record; MLC002 says what it is (it asked
    'is this an MLPerf log?', session 36)."""
    path = tmp_path / "console.log"
    path.write_bytes(BASE.read_text("utf-8").encode(f"utf-16-{order}"))
    [result] = check_log(LogRef(str(path)), None)
    (found,) = [f for f in result.findings if f.code == "MLC002"]
    assert f"UTF-16 ({order.upper()}, without a byte order mark)" in found.message
    assert f"iconv -f UTF-16{order.upper()} -t UTF-8" in found.message


@pytest.mark.parametrize("text, job", [("Oct 07 12:00:00 NODEA1: ", -4), ("Oct 07 12:00:00 RANK 3: ", -3),
                                       ("Tue Oct 07 12:00:00 UTC 2025: 3: ", -1)])
def test_a_time_zone_is_read_only_before_a_year(text: str, job: int) -> None:
    """``date``'s zone is read before its year only: an upper-case host or ``RANK`` after a ``ts``
    date stays a label (it was read as a zone, the label after it lost)."""
    prefix = read_prefix(text)
    assert prefix.source is not None and prefix.source[0] == job and prefix.timestamp and not prefix.extra_text
