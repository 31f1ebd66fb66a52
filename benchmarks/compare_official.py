"""Time ``mlcheck check`` against the official ``python -m mlperf_logging.package_checker`` on the
same submission packages, and compare their verdicts.

Each tool runs as a whole process (interpreter start and imports included), several times,
interleaved; the median wall time (and CPU time, steadier on a busy machine) is reported with the
ratio. The official checker writes ``scaling.json`` files
and its log into the folders it is given, so it runs on a fresh temporary copy of the package
each time, with a temporary working directory. mlcheck reads the package in place.

Verdicts compared: the package verdict (official: "PACKAGE CHECKER FOUND NO ERRORS"; mlcheck:
exit code 0) and the set of benchmark folders whose RCP test fails (official: "RCP Test Failed"
after "Running compliance checks in dir X"; mlcheck: MLC530/MLC531/MLC532 in its JSON report).

    python benchmarks/compare_official.py                      # the two shared Graphcore packages
    python benchmarks/compare_official.py --runs 7 PATH:2.0.0  # any package and its ruleset
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
DEFAULT_PACKAGES = (f"{CORPUS / 'training-1.1' / 'Graphcore'}:1.1.0",
                    f"{CORPUS / 'training-2.0' / 'Graphcore'}:2.0.0")
RCP_CODES = {"MLC530", "MLC531", "MLC532"}
_DIR = re.compile(r"Running compliance checks in dir (\S+)")


def _mlcheck_command() -> list[str]:
    script = Path(sys.executable).with_name("mlcheck")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from mlcheck.cli import main; main()"]


def _timed(command: list[str], cwd: str) -> tuple[tuple[float, float], subprocess.CompletedProcess[str]]:
    """Wall and CPU (user + system) seconds of a whole child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return (wall, cpu), done


def run_official(package: Path, ruleset: str) -> tuple[tuple[float, float], str, set[str]]:
    """One run of the official package checker on a fresh copy; (seconds, verdict, RCP-failed dirs)."""
    with tempfile.TemporaryDirectory(prefix="mlcheck-official-") as tmp:
        copy = Path(tmp) / package.name
        shutil.copytree(package, copy)
        seconds, done = _timed([sys.executable, "-m", "mlperf_logging.package_checker", str(copy),
                                "training", ruleset, "--log_output", str(Path(tmp) / "package_checker.log")],
                               cwd=tmp)
        output = done.stdout + done.stderr
        failed: set[str] = set()
        current = ""
        for line in output.splitlines():
            match = _DIR.search(line)
            if match:
                current = os.path.relpath(match.group(1), copy)
            elif "RCP Test Failed" in line and current:
                failed.add(current)
        verdict = "pass" if "FOUND NO ERRORS" in output else "fail"
        return seconds, verdict, failed


def run_mlcheck(package: Path, ruleset: str) -> tuple[tuple[float, float], str, set[str]]:
    """One run of ``mlcheck check --format json``; (seconds, verdict, RCP-failed folders)."""
    seconds, done = _timed([*_mlcheck_command(), "check", str(package), "--ruleset", ruleset,
                            "--format", "json", "--no-progress"], cwd=str(ROOT))
    if done.returncode not in (0, 1):
        raise SystemExit(f"mlcheck failed (exit {done.returncode}): {done.stderr.strip()}")
    report = json.loads(done.stdout)
    failed = {os.path.relpath(f["path"], package) for f in report["findings"] if f["code"] in RCP_CODES}
    return seconds, "pass" if done.returncode == 0 else "fail", failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("packages", nargs="*", default=list(DEFAULT_PACKAGES), metavar="PATH:RULESET")
    parser.add_argument("--runs", type=int, default=5, help="runs of each tool per package (default 5)")
    args = parser.parse_args()
    worst = float("inf")
    same = True
    for spec in args.packages:
        path, _, ruleset = spec.rpartition(":")
        package = Path(path)
        if not package.is_dir():
            print(f"{package}: not found, skipped")
            continue
        ours, theirs = [], []
        for _ in range(args.runs):  # interleaved, so that both see the same machine load
            ours.append(run_mlcheck(package, ruleset))
            theirs.append(run_official(package, ruleset))
        ours_s = statistics.median(t[0] for t, _, _ in ours)
        theirs_s = statistics.median(t[0] for t, _, _ in theirs)
        ours_cpu = statistics.median(t[1] for t, _, _ in ours)
        theirs_cpu = statistics.median(t[1] for t, _, _ in theirs)
        ratio = theirs_s / ours_s
        worst = min(worst, ratio)
        verdicts = (ours[0][1], theirs[0][1])
        rcp = (sorted(ours[0][2]), sorted(theirs[0][2]))
        agree = verdicts[0] == verdicts[1] and rcp[0] == rcp[1]
        same = same and agree
        print(f"{package} (ruleset {ruleset}, {args.runs} runs each)")
        print(f"  mlcheck : median {ours_s:6.2f} s wall, {ours_cpu:6.2f} s CPU  verdict {verdicts[0]}  "
              f"RCP failures {rcp[0]}")
        print(f"  official: median {theirs_s:6.2f} s wall, {theirs_cpu:6.2f} s CPU  verdict {verdicts[1]}  "
              f"RCP failures {rcp[1]}")
        print(f"  mlcheck is {ratio:.1f}x faster (wall; CPU: {theirs_cpu / ours_cpu:.1f}x); verdicts "
              f"{'identical' if agree else 'DIFFER'}")
    print(f"slowest ratio {worst:.1f}x (goal: at least 10x); verdicts {'identical' if same else 'differ'}")
    return 0 if worst >= 10 and same else 1


if __name__ == "__main__":
    sys.exit(main())
