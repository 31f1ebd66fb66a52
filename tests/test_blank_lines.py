"""Raw output with long runs of blank lines (a gzip of a few kilobytes can hold millions): read
without the line reader's generator, and with the same line numbers, counts and runs as before
(review of session 28: 20 million blank lines took 24 s, the official parser 0.7 s)."""

from __future__ import annotations

import gzip
from pathlib import Path

from conftest import FIXTURES
from mlcheck.checker import check_log
from mlcheck.package.discover import LogRef
from mlcheck.read.reader import read_mllog
from mlcheck.model import Event

GOOD = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
BLANKS = 150_000  # (past the first lines the reader holds back: 100,000)


def test_records_after_many_blank_lines_keep_their_physical_lines(tmp_path: Path) -> None:
    run = GOOD.read_text("utf-8").splitlines()
    half = len(run) // 2
    text = "\n".join(["+ mpirun -np 8 python train.py", *run[:half]]) + "\n" * (BLANKS + 1) \
        + "\n".join(run[half:]) + "\n" + "\n" * BLANKS
    log = tmp_path / "console.log.gz"
    log.write_bytes(gzip.compress(text.encode("utf-8")))
    events = [item for item in read_mllog(str(log)) if isinstance(item, Event)]
    assert [e.line for e in events] == [*range(2, half + 2), *range(half + 2 + BLANKS, len(run) + 2 + BLANKS)]
    [result] = check_log(LogRef(str(log)), None)
    [clean] = check_log(LogRef(str(GOOD)), None)
    assert result.verdict == clean.verdict == "pass" and result.time_to_train_min == clean.time_to_train_min
    assert result.run is not None and result.run.last_line == len(run) + 1 + BLANKS


def test_a_blank_line_ends_a_progress_bar_tag(tmp_path: Path) -> None:
    """A record at the start of a line after a rank's progress bar is that rank's; after a blank
    line between them it is not (the tag is not carried over it, as the line reader reads it)."""
    run = GOOD.read_text("utf-8").splitlines()
    head = [f"[1,0]<stdout>:{line}" for line in run[:20]]
    lines = [*head, *[""] * BLANKS, "[1,0]<stdout>:epoch 1 |#####     | 50%", "", run[20], *head[:0]]
    log = tmp_path / "console.log"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    events = [item for item in read_mllog(str(log)) if isinstance(item, Event)]
    assert events[-1].line == len(lines) and events[-1].key == run[20].split('"key": "')[1].split('"')[0]
