"""Peak memory of ``mlcheck check PACKAGE --format json`` on the largest package of a folder of
packages and on a synthetic package of many long result files.

    python benchmarks/package_memory.py [--shared ../shared] [--files 300] [--records 100000]

Each measurement is one ``mlcheck`` process (its peak RSS from ``wait4``), so the figure is what a
user sees. The synthetic package holds ``--files`` result files of ``--records`` records each
(ResNet runs of the bundled example stretched with per-step records), five distinct runs
hard-linked into 60 benchmark folders so that the disk holds five files only. It is built in a
temporary folder and removed afterwards.
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
EXAMPLE = ROOT / "fixtures" / "example" / "Acme"


def peak_rss_mb(argv: list[str]) -> tuple[float, float, int]:
    """(peak RSS in MB, wall seconds, exit code) of one process."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(process.pid, 0)
    return usage.ru_maxrss / 1024, time.perf_counter() - start, os.waitstatus_to_exitcode(status)


def mlcheck(path: Path) -> list[str]:
    return [sys.executable, "-c", "from mlcheck.cli import run; run()", "check", str(path),
            "--format", "json", "--no-progress"]


def largest_package(base: Path) -> Path | None:
    packages = [org for round_dir in sorted(base.glob("training-*")) for org in sorted(round_dir.iterdir())
                if (org / "results").is_dir()]
    if not packages:
        return None
    return max(packages, key=lambda org: sum(f.stat().st_size for f in org.rglob("*") if f.is_file()))


def stretched_run(index: int, records: int) -> str:
    """The example's result_<index>.txt with per-step records between run_start and run_stop."""
    lines = (EXAMPLE / "results" / "acme-t8" / "resnet" / f"result_{index}.txt").read_text("utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if '"run_start"' in line)
    time_ms = json.loads(lines[start][len(":::MLLOG "):])["time_ms"]
    extra = max(0, records - len(lines))
    keys = ("tracked_stats", "step_loss", "learning_rate", "throughput")
    steps = [":::MLLOG " + json.dumps({"namespace": "", "time_ms": time_ms + 1 + n // 100, "event_type": "POINT_IN_TIME",
                                       "key": keys[n % len(keys)], "value": {"step": n, "loss": 1.0 / (n + 1)},
                                       "metadata": {"file": "train.py", "lineno": 400 + n % len(keys)}})
             for n in range(extra)]
    return "\n".join(lines[:start + 1] + steps + lines[start + 1:]) + "\n"


def synthetic_package(root: Path, files: int, records: int) -> Path:
    package = root / "Synthetic"
    sources = []
    for index in range(5):
        source = root / f"run_{index}.txt"
        source.write_text(stretched_run(index, records), "utf-8")
        sources.append(source)
    system_json = json.loads((EXAMPLE / "systems" / "acme-t8.json").read_text("utf-8"))
    for number in range(files):
        system = f"sys{number // 5:03d}"
        folder = package / "results" / system / "resnet"
        folder.mkdir(parents=True, exist_ok=True)
        os.link(sources[number % 5], folder / f"result_{number % 5}.txt")
        systems = package / "systems"
        systems.mkdir(exist_ok=True)
        (systems / f"{system}.json").write_text(json.dumps({**system_json, "system_name": system}), "utf-8")
    return package


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shared", default=str(ROOT.parent / "shared"))
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--records", type=int, default=100_000)
    args = parser.parse_args()
    largest = largest_package(Path(args.shared) / "other-submitters")
    if largest is None:
        print("no packages under", Path(args.shared) / "other-submitters")
    else:
        size = sum(f.stat().st_size for f in largest.rglob("*") if f.is_file()) / 1e6
        rss, seconds, code = peak_rss_mb(mlcheck(largest))
        print(f"largest shared package {largest.relative_to(largest.parent.parent)} ({size:.1f} MB): "
              f"peak RSS {rss:.0f} MB, {seconds:.1f} s, exit {code}")
    with tempfile.TemporaryDirectory() as temp:
        package = synthetic_package(Path(temp), args.files, args.records)
        size = args.files * (Path(temp) / "run_0.txt").stat().st_size / 1e6
        rss, seconds, code = peak_rss_mb(mlcheck(package))
        print(f"synthetic package: {args.files} result files x {args.records:,} records ({size:,.0f} MB): "
              f"peak RSS {rss:.0f} MB, {seconds:.1f} s, exit {code}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
