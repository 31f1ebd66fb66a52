"""Read throughput on the shared corpus and peak memory on a generated ~1 GB log.

Prints:
1. ``mlcheck.read.reader.read_mllog`` over every corpus file: lines/s and MB/s (best of ``--repeat``).
2. the full library path ``mlcheck.check`` over the corpus (discover, read, rules, score).
3. the peak RSS of a fresh Python process that reads a generated log of ``--size-mb`` MB with
   ``read_mllog`` and then with ``mlcheck.check`` (an init block, then many epoch / eval / block
   events and some noise lines); the log goes to a temporary folder that is deleted afterwards.

Run from the repository root: ``python benchmarks/read_throughput.py`` (``--size-mb 1024`` is the
default; ``--corpus`` defaults to ``../shared/corpus``). Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "fixtures" / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"

#: Runs in a fresh interpreter so that its peak RSS is the reader's alone.
_CHILD = """
import json, resource, sys, time
mode, path = sys.argv[1], sys.argv[2]
start = time.perf_counter()
if mode == "read":
    from mlcheck.read.reader import read_mllog
    items = sum(1 for _ in read_mllog(path))
    detail = {"items": items}
else:
    from mlcheck import check
    result = check([path], ruleset="2.0.0")
    detail = {"runs": len(result.runs), "findings": len(result.all_findings())}
detail["seconds"] = time.perf_counter() - start
detail["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(detail))
"""


def corpus_files(corpus: Path) -> list[Path]:
    return sorted(p for p in corpus.rglob("*") if p.is_file() and p.suffix in (".txt", ".gz"))


def count_lines(paths: list[Path]) -> tuple[int, int]:
    lines = size = 0
    for path in paths:
        data = path.read_bytes()
        lines += data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
        size += len(data)
    return lines, size


def best_of(repeat: int, action: object) -> float:
    assert callable(action)
    timings = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        timings.append(time.perf_counter() - start)
    return min(timings)


def corpus_throughput(corpus: Path, repeat: int) -> None:
    from mlcheck import check
    from mlcheck.read.reader import read_mllog

    files = corpus_files(corpus)
    lines, size = count_lines(files)

    def read_all() -> None:
        for path in files:
            for _ in read_mllog(str(path)):
                pass

    read_s = best_of(repeat, read_all)
    check_s = best_of(repeat, lambda: check([str(corpus)]))
    print(f"corpus: {len(files)} files, {lines} lines, {size / 1e6:.1f} MB")
    for label, seconds in (("read_mllog:   ", read_s), ("mlcheck.check:", check_s)):
        print(f"  {label} {seconds:6.3f} s  {lines / seconds:12,.0f} lines/s  "
              f"{size / 1e6 / seconds:7.1f} MB/s")


def write_big_log(path: Path, size_mb: int) -> tuple[int, int]:
    """An init block (the example's first 200 lines), then epochs, evals, blocks and noise until
    the file reaches ``size_mb`` MB; run_stop at the end. Returns (lines, bytes)."""
    head = EXAMPLE.read_text("utf-8").splitlines()[:200]
    start_ms = json.loads(head[-1].split(":::MLLOG ", 1)[1])["time_ms"] + 1000
    target = size_mb * 1024 * 1024
    lines = written = 0
    template = (':::MLLOG {{"namespace": "", "time_ms": {t}, "event_type": "{kind}", "key": "{key}", '
                '"value": {value}, "metadata": {{"file": "train.py", "lineno": {lineno}, '
                '"epoch_num": {epoch}}}}}\n')
    with path.open("w", encoding="utf-8") as out:
        chunk = [line + "\n" for line in head]
        chunk.append(template.format(t=start_ms, kind="INTERVAL_START", key="run_start", value="null",
                                     lineno=750, epoch=0))
        t, epoch = start_ms + 1, 0
        while written < target:
            epoch += 1
            chunk.append(template.format(t=t, kind="INTERVAL_START", key="epoch_start", value="null",
                                         lineno=757, epoch=epoch))
            for step in range(0, 40):
                if step % 8 == 0:
                    chunk.append(f"2022-05-09 08:{step:02d}:00.123 INFO step {step} "
                                 f"loss {6.9 - epoch * 1e-5:.5f} "
                                 f"throughput {5321.7 + step:.1f} img/s\n")
                chunk.append(template.format(t=t + step, kind="POINT_IN_TIME", key="tracked_stats",
                                             value='{"throughput": 5321.7}', lineno=790, epoch=epoch))
            t += 30000
            chunk.append(template.format(t=t, kind="INTERVAL_END", key="epoch_stop", value="null",
                                         lineno=788, epoch=epoch))
            if epoch % 4 == 0:
                chunk.append(template.format(t=t + 1, kind="INTERVAL_START", key="eval_start", value="null",
                                             lineno=249, epoch=epoch))
                chunk.append(template.format(t=t + 500, kind="INTERVAL_END", key="eval_stop", value="null",
                                             lineno=305, epoch=epoch))
                chunk.append(template.format(t=t + 500, kind="POINT_IN_TIME", key="eval_accuracy",
                                             value=min(0.75, 0.2 + epoch * 1e-4), lineno=308, epoch=epoch))
            if len(chunk) > 20000:
                text = "".join(chunk)
                out.write(text)
                written += len(text.encode())
                lines += len(chunk)
                chunk = []
        stop = template.format(t=t + 1000, kind="INTERVAL_END", key="run_stop", value="null",
                               lineno=941, epoch=epoch)
        chunk.append(stop.replace('"epoch_num"', '"status": "success", "epoch_num"'))
        text = "".join(chunk)
        out.write(text)
        return lines + len(chunk), written + len(text.encode())


def big_log_memory(size_mb: int) -> None:
    with tempfile.TemporaryDirectory(prefix="mlcheck-bench-") as folder:
        path = Path(folder) / "big.log"
        start = time.perf_counter()
        lines, size = write_big_log(path, size_mb)
        print(f"generated log: {lines:,} lines, {size / 1e6:.0f} MB in {time.perf_counter() - start:.0f} s")
        for mode in ("read", "check"):
            done = subprocess.run([sys.executable, "-c", _CHILD, mode, str(path)], capture_output=True,
                                  text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
            detail = json.loads(done.stdout.strip().splitlines()[-1])
            seconds = detail.pop("seconds")
            peak = detail.pop("peak_rss_mb")
            label = "read_mllog" if mode == "read" else "mlcheck.check"
            print(f"  {label}: peak RSS {peak:.0f} MB, {seconds:.1f} s ({lines / seconds:,.0f} lines/s, "
                  f"{size / 1e6 / seconds:.1f} MB/s) {detail}")


def main() -> None:
    """Parse the options and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--size-mb", type=int, default=1024, help="size of the generated log (0: skip)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.corpus.is_dir():
        corpus_throughput(args.corpus, args.repeat)
    else:
        print(f"corpus not found at {args.corpus}; skipping the throughput figures")
    if args.size_mb > 0:
        big_log_memory(args.size_mb)


if __name__ == "__main__":
    main()
