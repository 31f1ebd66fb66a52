#!/usr/bin/env python3
"""How much more reading raw job output costs than reading the clean result file it came from.

    python benchmarks/raw_overhead.py [CLEAN_LOG] [--repeat N]

Without CLEAN_LOG the clean log is every 4th result file of ../shared/corpus concatenated (one
file with many runs), else the bundled example run repeated. Each raw variant is made by
``tools/make_raw.py``; the time is the best of N reads (``read_mllog`` + ``split_runs``, what
``check`` does before the rules), and the ratio is raw / clean, for the whole file and per MiB read (a
log in which N ranks print every record is N times as large). Peak memory of one read is shown
too (tracemalloc), to show that it does not grow with the number of ranks.

The ``floor`` column is a lower bound for any reader of that file: the clean read plus the time
to merely read the raw file's bytes and find the logging rank's tags in them (``bytes.count``, in
C, no line handled in Python), as a ratio to the clean read.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from mlcheck.read.reader import open_log, read_mllog
from mlcheck.read.runs import split_runs

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
EXAMPLE = ROOT / "fixtures" / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"

spec = importlib.util.spec_from_file_location("make_raw", ROOT / "tools" / "make_raw.py")
assert spec is not None and spec.loader is not None
make_raw = importlib.util.module_from_spec(spec)
sys.modules["make_raw"] = make_raw
spec.loader.exec_module(make_raw)

VARIANTS = {
    "1 instance + noise (console of one process)": make_raw.RawOptions(instances=1, duplicates=False),
    "8 instances, rank 0 logs (no duplicates)": make_raw.RawOptions(instances=8, duplicates=False),
    "2 instances, every rank logs": make_raw.RawOptions(instances=2),
    "4 instances, colour + CRLF": make_raw.RawOptions(instances=4, colour_crlf=True),
    "8 instances, every rank logs": make_raw.RawOptions(instances=8),
    "16 instances, every rank logs": make_raw.RawOptions(instances=16),
}


def clean_log(given: str | None) -> bytes:
    """The clean log to measure: the given file, the corpus concatenated, or the example x40."""
    if given:
        return Path(given).read_bytes()
    if CORPUS.is_dir():
        return b"".join(p.read_bytes() for p in sorted(CORPUS.rglob("result_*.txt"))[::4])
    return EXAMPLE.read_bytes() * 40


def read_once(path: str) -> int:
    runs, _findings = split_runs(read_mllog(path), path)
    return len(runs)


def best_time(path: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        read_once(path)
        best = min(best, time.perf_counter() - start)
    return best


def bytes_only(path: str, repeat: int) -> float:
    """Best time to read the file's bytes and count the logging rank's tags, nothing else."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        with open_log(path) as stream:
            for chunk in iter(lambda: stream.read(1 << 20), b""):
                chunk.count(b"[1,0]<stdout>:")
        best = min(best, time.perf_counter() - start)
    return best


def peak_mib(path: str) -> float:
    tracemalloc.start()
    read_once(path)
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    """Print one line per variant: size, time, ratio to the clean file, peak memory."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("clean", nargs="?")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    clean = clean_log(args.clean)
    records = len(make_raw.records_of(clean))
    with tempfile.TemporaryDirectory() as folder:
        clean_path = os.path.join(folder, "clean.txt")
        Path(clean_path).write_bytes(clean)
        base = best_time(clean_path, args.repeat)
        print(f"clean: {len(clean) / 2**20:.1f} MiB, {records} records, {base * 1000:.0f} ms "
              f"({records / base / 1000:.0f}k records/s), peak {peak_mib(clean_path):.1f} MiB")
        print(f"{'variant':<46} {'MiB':>6} {'ms':>7} {'ratio':>6} {'per MiB':>8} {'floor':>6} "
              f"{'peak MiB':>9}")
        for name, options in VARIANTS.items():
            raw_path = os.path.join(folder, "raw.log")
            Path(raw_path).write_bytes(make_raw.make_raw(clean, options))
            seconds = best_time(raw_path, args.repeat)
            size = os.path.getsize(raw_path) / 2**20
            per_mib = (seconds / size) / (base / (len(clean) / 2**20))
            floor = (base + bytes_only(raw_path, args.repeat)) / base
            print(f"{name:<46} {size:>6.1f} {seconds * 1000:>7.0f} {seconds / base:>6.2f} "
                  f"{per_mib:>8.2f} {floor:>6.2f} {peak_mib(raw_path):>9.1f}")


if __name__ == "__main__":
    main()
