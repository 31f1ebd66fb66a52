"""mlcheck on whole rounds of published results, against the JSON floor and the official checker.

    python benchmarks/whole_round.py [FOLDER ...] [--jobs N] [--repeat 3] [--no-synthetic]

A FOLDER holds packages (``<org>/results/...``), e.g. one round of ``../shared/other-submitters``;
the default is each round there and all of them together. For each set of result files, in one
run of this script, each measurement one process (wall time, peak RSS from ``os.wait4``: the
largest of the process and its workers):

- ``mlcheck check <every package> --format json --jobs 1``, and with ``--jobs N`` (default: the
  usable CPUs);
- the stdlib-json floor: every ``:::MLLOG`` record of the same files decoded with ``json.loads``
  (each line read, the marker found, the rest decoded), nothing else: the result files and the
  power logs that mlcheck reads for the energy score (``power/result_<i>/node_*.txt`` and
  ``sw_*.txt``; rounds 4.0 and 5.0 of the shared set have them), the same records;
- the official compliance checker of the installed mlperf-logging, imported in one process
  (``mlp_compliance.make_checker(...).check_file``) on each result file with the ruleset of its
  round (``training-X.Y`` in the path; the synthetic round is 2.0), an exception counted per file.

Before a set is timed its files are read once (untimed), so that no measured process is the one
that brings them into the page cache.

Ratios: official / mlcheck at the default jobs (target >= 20), mlcheck ``--jobs 1`` / floor
(target <= 1.5), peak RSS (target < 150 MB). Bytecode is cached for the measured processes (as
for an installed mlcheck), in a temporary folder. mlcheck and the floor are timed ``--repeat`` (3)
times, interleaved, and the median is printed (the official checker and the synthetic round once:
they take minutes); on a shared machine one measurement alone moves by a fifth. The load average is printed with each row, and at the start and the end how many CPUs'
worth of work ``--jobs N`` busy processes get (N on an idle machine): on a shared machine the
wall times move with it; CPU seconds (in brackets) move less.

The synthetic round is ``--synthetic-files`` (3,000) result files of about ``--synthetic-mb`` (1) MB:
five ResNet runs of the bundled example stretched with per-step records, hard-linked into 600
benchmark folders of one package (see ``package_memory.py``), built in a temporary folder and
removed afterwards. The official checker runs on ``--official-sample`` (100) of its files and its
time is scaled to all of them (said so in the table).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from package_memory import stretched_run, synthetic_package  # noqa: E402

from mlcheck.package.discover import discover  # noqa: E402
from mlcheck.judge.jobs import usable_cpus  # noqa: E402

FLOOR = r"""
import json, sys
records = 0
for path in json.load(open(sys.argv[1])):
    with open(path, "rb") as handle:
        for line in handle:
            at = line.find(b":::MLLOG")
            if at >= 0:
                try:
                    json.loads(line[at + 8:])
                except ValueError:
                    continue
                records += 1
print(records)
"""

OFFICIAL = r"""
import contextlib, io, json, logging, sys
from mlperf_logging.compliance_checker import mlp_compliance
logging.disable(logging.CRITICAL)
passed = failed = crashed = 0
for path, ruleset in json.load(open(sys.argv[1])):
    mlp_compliance.enqueued_configs.clear()
    checker = mlp_compliance.make_checker("training", ruleset, True, False)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            valid = checker.check_file(path, f"training_{ruleset}/common.yaml")
    except Exception:
        crashed += 1
        continue
    passed += bool(valid)
    failed += not valid
print(json.dumps([passed, failed, crashed]))
"""


ENV = dict(os.environ)
"""The measured processes' environment: bytecode cached (as an installed mlcheck has it; some
sandboxes set PYTHONDONTWRITEBYTECODE, and every start would compile mlcheck again), in a
folder of this run (PYTHONPYCACHEPREFIX) rather than in the source tree."""


@dataclass
class Measure:
    seconds: float
    rss_mb: float
    code: int
    stdout: str = ""
    cpu: float = 0.0
    """User and system seconds of the process and its workers."""


def measure(argv: list[str]) -> Measure:
    """One process: wall seconds, the peak RSS of it and its children, exit code, stdout, CPU."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                                   env=ENV)
        _pid, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        out.seek(0)
        text = out.read(4096).decode("utf-8", "replace")
    return Measure(seconds, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), text,
                   usage.ru_utime + usage.ru_stime)


BURN = "import sys\nfor i in range(int(sys.argv[1])): pass\n"


def parallel_capacity(jobs: int) -> float:
    """How many CPUs' worth of work ``jobs`` processes get now: the speedup of ``jobs`` busy loops
    run side by side over one (``jobs`` on an idle machine; less where others share the CPUs)."""
    burn = [sys.executable, "-c", BURN, "20000000"]
    start = time.perf_counter()
    subprocess.run(burn, check=True)
    one = time.perf_counter() - start
    start = time.perf_counter()
    for process in [subprocess.Popen(burn) for _ in range(jobs)]:
        process.wait()
    return jobs * one / (time.perf_counter() - start)


def packages_in(folders: list[Path]) -> list[str]:
    """The packages (``<org>/`` with ``results/``) of the given folders, in order."""
    return [str(org) for folder in folders for org in sorted(folder.iterdir()) if (org / "results").is_dir()]


def mlcheck_argv(packages: list[str], jobs: int) -> list[str]:
    return [sys.executable, "-c", "from mlcheck.cli import run; run()", "check", *packages,
            "--format", "json", "--no-progress", "--jobs", str(jobs)]


def power_logs(result_files: list[str]) -> list[str]:
    """The power logs of the result files' benchmark folders that the energy score reads (the
    summarizer's ``node_*.txt`` and ``sw_*.txt`` of ``power/result_<i>/``), sorted."""
    found: set[str] = set()
    for path in result_files:
        run = Path(path)
        folder = run.parent / "power" / run.stem
        if folder.is_dir():
            found.update(str(log) for pattern in ("node_*.txt", "sw_*.txt") for log in folder.glob(pattern)
                         if log.is_file())
    return sorted(found)


def round_of(path: str, default: str) -> str:
    for part in Path(path).parts:
        if part.startswith("training-") and part[9:].replace(".", "").isdigit():
            return part[9:] + ".0"
    return default


@dataclass
class Row:
    name: str
    files: int
    megabytes: float
    records: int
    one: Measure
    many: Measure
    floor: Measure
    official: Measure | None
    official_scale: float = 1.0
    official_counts: str = ""


def median_measure(runs: list[Measure]) -> Measure:
    middle = sorted(runs, key=lambda m: m.seconds)[len(runs) // 2]
    return Measure(statistics.median(m.seconds for m in runs), max(m.rss_mb for m in runs), middle.code,
                   middle.stdout, statistics.median(m.cpu for m in runs))


def measure_set(name: str, folders: list[Path], jobs: int, repeat: int, official: bool,
                temp: Path, sample: int | None = None, default_round: str = "2.0.0") -> Row:
    packages = packages_in(folders)
    refs, _empty = discover(packages)
    files = [ref.path for ref in refs]
    read = files + power_logs(files)
    listing = temp / f"{name.replace('/', '_')}.files.json"
    listing.write_text(json.dumps(read), "utf-8")
    for path in read:  # (into the page cache: no measured process pays the disk)
        with open(path, "rb") as handle:
            while handle.read(1 << 20):
                pass
    ones, manys, floors = [], [], []
    for _ in range(repeat):
        ones.append(measure(mlcheck_argv(packages, 1)))
        manys.append(measure(mlcheck_argv(packages, jobs)))
        floors.append(measure([sys.executable, "-c", FLOOR, str(listing)]))
    floor = median_measure(floors)
    row = Row(name, len(files), sum(os.path.getsize(f) for f in files) / 1e6,
              int(floor.stdout.strip() or 0), median_measure(ones), median_measure(manys), floor, None)
    if official:
        chosen = files if sample is None or sample >= len(files) else files[:: max(1, len(files) // sample)][:sample]
        plan = temp / f"{name.replace('/', '_')}.official.json"
        plan.write_text(json.dumps([[f, round_of(f, default_round)] for f in chosen]), "utf-8")
        row.official = measure([sys.executable, "-c", OFFICIAL, str(plan)])
        row.official_scale = len(files) / len(chosen)
        try:
            passed, failed, crashed = json.loads(row.official.stdout)
            row.official_counts = f"{passed} pass, {failed} fail, {crashed} crash" + (
                f" (of {len(chosen)} sampled)" if len(chosen) < len(files) else "")
        except ValueError:
            row.official_counts = f"exit {row.official.code}"
    print_row(row, jobs)
    return row


HEADER = ("| set | files | MB | records | mlcheck -j1 s (CPU) | RSS MB | mlcheck -j{jobs} s (CPU) | RSS MB "
          "| json floor s (CPU) | official s (CPU) | official / -j{jobs} | -j1 / floor (CPU) | load | official verdicts |\n"
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")


def print_row(row: Row, jobs: int) -> None:
    official = "-"
    ratio = "-"
    if row.official is not None:
        seconds = row.official.seconds * row.official_scale
        official = f"{seconds:.1f}" + ("*" if row.official_scale > 1 else "") + \
            f" ({row.official.cpu * row.official_scale:.1f})"
        ratio = f"**{seconds / row.many.seconds:.1f}x**"
    codes = {row.one.code, row.many.code} - {0, 1}
    warn = f" (mlcheck exit {sorted(codes)})" if codes else ""
    print(f"| {row.name}{warn} | {row.files} | {row.megabytes:.1f} | {row.records:,} "
          f"| {row.one.seconds:.2f} ({row.one.cpu:.2f}) | {row.one.rss_mb:.0f} "
          f"| {row.many.seconds:.2f} ({row.many.cpu:.2f}) | {row.many.rss_mb:.0f} "
          f"| {row.floor.seconds:.2f} ({row.floor.cpu:.2f}) | {official} | {ratio} "
          f"| **{row.one.seconds / row.floor.seconds:.2f}** ({row.one.cpu / row.floor.cpu:.2f}) "
          f"| {os.getloadavg()[0]:.1f} | {row.official_counts} |", flush=True)


def synthetic_round(root: Path, files: int, megabytes: float) -> Path:
    """A round folder holding one package of ``files`` result files of about ``megabytes`` MB."""
    per_record = len(stretched_run(0, 2000).encode("utf-8")) / 2000
    records = max(100, int(megabytes * 1e6 / per_record))
    folder = root / "training-2.0"
    folder.mkdir()
    synthetic_package(folder, files, records)
    return folder


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="*", type=Path, help="folders of packages (default: each round "
                        "of ../shared/other-submitters, then all of them)")
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--jobs", type=int, default=usable_cpus())
    parser.add_argument("--repeat", type=int, default=3,
                        help="times mlcheck and the floor are measured, interleaved; the median is printed")
    parser.add_argument("--no-official", dest="official", action="store_false")
    parser.add_argument("--no-synthetic", dest="synthetic", action="store_false")
    parser.add_argument("--synthetic-files", type=int, default=3000)
    parser.add_argument("--synthetic-mb", type=float, default=1.0)
    parser.add_argument("--official-sample", type=int, default=100,
                        help="files of the synthetic round the official checker reads (scaled to all)")
    args = parser.parse_args()
    sets: list[tuple[str, list[Path]]] = []
    if args.folders:
        sets = [(str(folder), [folder]) for folder in args.folders]
    else:
        base = args.shared / "other-submitters"
        rounds = sorted(p for p in base.glob("training-*") if p.is_dir())
        sets = [(p.name, [p]) for p in rounds] + ([("all rounds", rounds)] if len(rounds) > 1 else [])
    print(f"python {sys.version.split()[0]}, {usable_cpus()} usable CPUs, --jobs {args.jobs}, "
          f"load average {os.getloadavg()[0]:.2f}, {args.jobs} busy processes get "
          f"{parallel_capacity(args.jobs):.2f} CPUs", flush=True)
    print(HEADER.format(jobs=args.jobs), flush=True)
    with tempfile.TemporaryDirectory() as temp_name:
        temp = Path(temp_name)
        ENV.pop("PYTHONDONTWRITEBYTECODE", None)
        ENV["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), ENV.get("PYTHONPATH")]))  # (this checkout)
        ENV["PYTHONPYCACHEPREFIX"] = str(temp / "pycache")
        measure(mlcheck_argv([str(ROOT / "fixtures" / "example" / "Acme")], 1))  # (writes the bytecode)
        for name, folders in sets:
            measure_set(name, folders, args.jobs, args.repeat, args.official, temp)
        if args.synthetic:
            (temp / "synthetic").mkdir()
            synthetic = synthetic_round(temp / "synthetic", args.synthetic_files, args.synthetic_mb)
            measure_set(f"synthetic ({args.synthetic_files} x {args.synthetic_mb:g} MB)", [synthetic],
                        args.jobs, 1, args.official, temp, sample=args.official_sample)
    print(f"load average at the end {os.getloadavg()[0]:.2f}, {args.jobs} busy processes get "
          f"{parallel_capacity(args.jobs):.2f} CPUs; * official time scaled from a sample", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
