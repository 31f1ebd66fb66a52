"""Each round's figures of ``whole_round.py`` without the process start: the work alone.

    python benchmarks/round_work.py [--shared ../shared] [--jobs N] [--repeat 3]

``whole_round.py`` times whole processes, as a user meets them: on a round of the shared sample
(0.2-0.5 s of JSON floor) about 0.1 s of mlcheck's time is its start (the interpreter, then
importing click, rich's pieces, the rules), which no check can shorten. This script times, for
each round of ``../shared/other-submitters``, the same three things each in a process of its own
whose imports are done before the clock starts:

- ``mlcheck check <every package> --format json --jobs 1`` and ``--jobs N`` (click's ``main``
  called in-process, the report written to ``/dev/null``; rules, rulesets and reports loaded on
  first use are counted);
- the stdlib-json floor (``whole_round.FLOOR``'s loop: each line read, the marker found, the
  record decoded) over the same files and power logs;
- the official compliance checker of the installed mlperf-logging on each result file with its
  round's ruleset (``whole_round.OFFICIAL``'s loop, ``mlp_compliance`` imported first).

Ratios as in ``whole_round.py``: official / mlcheck at ``--jobs N`` and mlcheck ``--jobs 1`` /
floor. mlcheck and the floor are timed ``--repeat`` times, interleaved (medians); the official
checker once. A figure for a ruling on issue 12's per-round targets, not a replacement of the
whole-process figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from whole_round import FLOOR, OFFICIAL, ROOT, packages_in, power_logs, round_of  # noqa: E402

from mlcheck.judge.jobs import usable_cpus  # noqa: E402
from mlcheck.package.discover import discover  # noqa: E402

_TIMED = "import time as _t\n_start = _t.perf_counter()\n{body}\nprint(_t.perf_counter() - _start)\n"
MLCHECK = r"""
import contextlib, json, os, sys
from mlcheck.cli import main
import time as _t
args = json.loads(sys.argv[1])
_start = _t.perf_counter()
with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
    try:
        main(args, standalone_mode=False)
    except SystemExit:
        pass
print(_t.perf_counter() - _start)
"""


def _split_imports(script: str) -> str:
    """``script`` with its clock started after its import lines (the leading ones)."""
    lines = script.strip("\n").split("\n")
    head = 0
    while head < len(lines) and lines[head].startswith(("import ", "from ")):
        head += 1
    work = "\n".join(lines[head:])
    body = "\n".join(lines[:head]) + "\n" + _TIMED.format(body=work)
    return body.replace("print(records)", "pass").replace("print(json.dumps([passed, failed, crashed]))", "pass")


def _seconds(argv: list[str], env: dict[str, str]) -> float:
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    return float(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--jobs", type=int, default=usable_cpus())
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rounds = sorted(p for p in (args.shared / "other-submitters").glob("training-*") if p.is_dir())
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    floor, official = _split_imports(FLOOR), _split_imports(OFFICIAL)
    print(f"python {sys.version.split()[0]}, --jobs {args.jobs}; seconds of work after the imports")
    print(f"| round | mlcheck -j1 s | mlcheck -j{args.jobs} s | json floor s | official s "
          f"| official / -j{args.jobs} | -j1 / floor |\n|---|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as temp:
        env["PYTHONPYCACHEPREFIX"] = os.path.join(temp, "pycache")
        for folder in rounds:
            packages = packages_in([folder])
            refs, _empty = discover(packages)
            files = [ref.path for ref in refs]
            listing, plan = Path(temp) / "files.json", Path(temp) / "plan.json"
            listing.write_text(json.dumps(files + power_logs(files)), "utf-8")
            plan.write_text(json.dumps([[f, round_of(f, "2.0.0")] for f in files]), "utf-8")
            check = ["check", *packages, "--format", "json", "--no-progress", "--jobs"]
            one, many, floors = [], [], []
            for _ in range(args.repeat):
                one.append(_seconds([sys.executable, "-c", MLCHECK, json.dumps([*check, "1"])], env))
                many.append(_seconds([sys.executable, "-c", MLCHECK, json.dumps([*check, str(args.jobs)])], env))
                floors.append(_seconds([sys.executable, "-c", floor, str(listing)], env))
            seconds = _seconds([sys.executable, "-c", official, str(plan)], env)
            j1, jn, fl = (statistics.median(x) for x in (one, many, floors))
            print(f"| {folder.name} | {j1:.2f} | {jn:.2f} | {fl:.2f} | {seconds:.1f} | **{seconds / jn:.1f}x** "
                  f"| **{j1 / fl:.2f}** |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
