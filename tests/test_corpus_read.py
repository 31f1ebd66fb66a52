"""Every file of the shared corpus (Graphcore, rounds 1.1 and 2.0) is read with no traceback and
no reading finding; skipped when ../shared is absent."""

from __future__ import annotations

from pathlib import Path


from mlcheck.model import Event, Finding
from mlcheck.read.reader import read_mllog
from mlcheck.read.runs import split_runs

#: The reading family (MLC001-MLC010) and the raw-output notes (MLC02x): none may appear.
READING_CODES = frozenset(f"MLC{n:03d}" for n in list(range(1, 11)) + list(range(20, 30)))


def corpus_logs(corpus: Path) -> list[Path]:
    return sorted(p for p in corpus.rglob("*") if p.is_file() and p.suffix in (".txt", ".gz"))


def test_corpus_has_the_expected_files(corpus: Path) -> None:
    logs = corpus_logs(corpus)
    assert len(logs) == 170
    assert len([p for p in logs if "training-2.0" in p.parts]) == 90


def test_every_corpus_file_reads_cleanly(corpus: Path) -> None:
    problems: list[str] = []
    for path in corpus_logs(corpus):
        events = 0
        for item in read_mllog(str(path)):
            if isinstance(item, Event):
                events += 1
            elif item.code in READING_CODES:
                problems.append(f"{item.path}:{item.line}: {item.code} {item.message}")
        if events == 0:
            problems.append(f"{path}: no events")
    assert problems == []


def test_every_corpus_file_is_one_complete_run(corpus: Path) -> None:
    for path in corpus_logs(corpus):
        runs, findings = split_runs(read_mllog(str(path)), str(path))
        assert [f for f in findings if isinstance(f, Finding) and f.code in READING_CODES] == []
        assert len(runs) == 1, path
        (run,) = runs
        assert run.run_start is not None and run.run_stop is not None, path
        assert run.first_line >= 1 and run.last_line > run.first_line
