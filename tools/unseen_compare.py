#!/usr/bin/env python3
"""Result files that are not in the shared sample, judged by mlcheck and by the installed official checker.

    python tools/unseen_compare.py ROUND_FOLDER [...] [--broken N] [--seed 1] [--show 40]

ROUND_FOLDER is a folder named ``training-X.Y`` holding packages (``<org>/results/<system>/
<benchmark>/result_N.txt``), e.g. published results of a round that ``../shared`` does not hold.
Each package is checked by mlcheck as a user would (``mlcheck check <org>``), and each result
file by the compliance checker of the installed mlperf-logging with the ruleset of the folder's
round, in this process. Printed: the files where mlcheck's ``official_verdict`` (what it says the
round's checker says) differs, with mlcheck's official error codes and the checker's first
messages; the files the checker accepts that mlcheck itself fails, with the codes; how many
files carry each warning code; each benchmark folder's score and RCP status; and with ``--broken N``, N broken copies
of every file (the changes of ``tools/differential.py``) compared the same way.

The installed release is not the checker of record of every round (``../shared/oracle/README.md``
lists what changed since; for 6.0 its closed rule files are those of ``6.0.0-rc6``): a
disagreement is a lead to read in the rules, not a verdict. ``--checker-python PYTHON`` runs the
checker of another release instead, in that interpreter (a venv with ``pip install
mlperf-logging==X``): the releases on the package index whose compliance rule files are the
record's, file for file (reviews of session 42): 3.0.0 for rounds 3.0-4.1, 4.1.13 for 5.0,
4.1.32 for 5.1, 4.1.50-4.1.52 for 6.0 (``6.0.0-rc6``), 4.1.59 for 6.1 (``7bbf792``); none for
1.0-2.1. With it, 21,119 broken copies of 3.0-5.1 files and 14,065 of 6.0/6.1 logs agreed. Only reads the given folders (the
broken copies go to a temporary folder). Exit 0 always (a survey, not a test).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import logging
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "tools"))

from differential import changes  # noqa: E402 (tools/, beside this script)

from mlcheck import check  # noqa: E402
from mlcheck.facts.rulesets import ruleset_from_path  # noqa: E402
from mlcheck.model import Severity  # noqa: E402


WORKER = r"""
import contextlib, io, json, logging, sys
from mlperf_logging.compliance_checker import mlp_compliance
logging.disable(logging.CRITICAL)
for request in sys.stdin:
    ruleset, path = request.rstrip("\n").split("\t", 1)
    mlp_compliance.enqueued_configs.clear()
    out = io.StringIO()
    try:
        checker = mlp_compliance.make_checker("training", ruleset, True, False)
    except Exception as error:
        print(json.dumps(["unsupported", [f"{type(error).__name__}: {error}"[:200]]]), flush=True)
        continue
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            valid = checker.check_file(path, f"training_{ruleset}/common.yaml")
        verdict = "pass" if valid else "fail"
    except Exception as error:
        if "is not supported" in str(error):  # (the parser's word for a ruleset the release lacks)
            print(json.dumps(["unsupported", [f"{type(error).__name__}: {error}"[:200]]]), flush=True)
            continue
        verdict, out = "crash", io.StringIO(f"crash: {type(error).__name__}: {error}"[:160])
    messages = [line.strip()[:160] for line in out.getvalue().splitlines()
                if "FAIL" in line or "ERROR" in line or "Failed" in line or "crash" in line]
    print(json.dumps([verdict, messages[:3]]), flush=True)
"""


class ReleaseChecker:
    """The compliance checker of another mlperf-logging release, in a process of its interpreter."""

    def __init__(self, python: str) -> None:
        try:
            self.process = subprocess.Popen([python, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=subprocess.DEVNULL, text=True)
        except OSError as error:
            raise SystemExit(f"--checker-python {python}: cannot run it ({error.strerror or error})") from None

    def __call__(self, path: Path, ruleset: str) -> tuple[str, list[str]]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(f"{ruleset}\t{path}\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise SystemExit("the release's checker process ended (is mlperf-logging installed for --checker-python?)")
        verdict, messages = json.loads(answer)
        if verdict == "unsupported":
            raise SystemExit(f"the mlperf-logging of --checker-python cannot check ruleset {ruleset}: {messages[0]}")
        return ("fail" if verdict == "crash" else verdict), messages


def official(path: Path, ruleset: str) -> tuple[str, list[str]]:
    """The compliance checker on ``path`` (the installed one, or ``--checker-python``'s):
    pass/fail (a crash fails) and its first messages."""
    if RELEASE is not None:
        return RELEASE(path, ruleset)
    from mlperf_logging.compliance_checker import mlp_compliance

    mlp_compliance.enqueued_configs.clear()
    checker = mlp_compliance.make_checker("training", ruleset, True, False)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            valid = checker.check_file(str(path), f"training_{ruleset}/common.yaml")
    except Exception as error:  # noqa: BLE001 - the official checker's crash fails the file
        return "fail", [f"crash: {type(error).__name__}: {error}"[:160]]
    messages = [line.strip()[:160] for line in out.getvalue().splitlines()
                if "FAIL" in line or "ERROR" in line or "Failed" in line]
    return ("pass" if valid else "fail"), messages[:3]


RELEASE: ReleaseChecker | None = None


def round_of(folder: Path) -> str:
    named = ruleset_from_path(str(folder))
    if named is None:
        raise SystemExit(f"{folder}: no training-X.Y folder in its path (the round is read from it)")
    return named.version


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--broken", type=int, default=0, help="broken copies of each file (0: none)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", type=int, default=40)
    parser.add_argument("--checker-python", metavar="PYTHON",
                        help="the interpreter of a venv with another mlperf-logging release, whose checker to compare with")
    args = parser.parse_args()
    global RELEASE
    RELEASE = ReleaseChecker(args.checker_python) if args.checker_python else None
    logging.disable(logging.CRITICAL)
    rng = random.Random(args.seed)
    files = agree = 0
    diffs: list[str] = []
    own: list[str] = []
    warned: collections.Counter[str] = collections.Counter()
    broken_tried = 0
    broken_diffs: list[str] = []
    for folder in args.folders:
        ruleset = round_of(folder)
        for org in sorted(p for p in folder.iterdir() if (p / "results").is_dir()):
            result = check([str(org)])
            for bench in result.benchmarks:
                score = bench.score.score_min
                shown = "-" if score is None else f"{score:.3f}"
                rcp = "-" if bench.rcp is None else bench.rcp.verdict
                print(f"  {bench.folder}: {len(bench.runs)} runs, score {shown} ({bench.score.reason}), rcp {rcp}")
            for run in sorted(result.runs, key=lambda r: (str(r.path), r.index)):
                path = Path(run.path)
                files += 1
                theirs, messages = official(path, ruleset)
                errors = sorted({f.code for f in run.findings if f.severity is Severity.ERROR})
                warnings = sorted({f.code for f in run.findings if f.severity is Severity.WARNING})
                if run.official_verdict == theirs:
                    agree += 1
                else:
                    codes = sorted({f.code for f in run.findings if f.official and f.severity is Severity.ERROR})
                    diffs.append(f"{path}: mlcheck {run.official_verdict} {codes} | official {theirs} {messages}")
                warned.update(warnings)
                if theirs == "pass" and errors:
                    own.append(f"{path}: verdict {run.verdict} errors {errors} warnings {warnings}")
                if args.broken and theirs == "pass":
                    broken_tried += _broken(path, ruleset, args.broken, rng, broken_diffs)
    print(f"{files} files, official_verdict agrees on {agree}")
    for line in diffs[: args.show]:
        print("  DIFF", line)
    print(f"warning codes (files): {dict(sorted(warned.items()))}")
    print(f"{len(own)} files the checker accepts and mlcheck fails")
    for line in own[: args.show]:
        print("  OWN", line)
    if args.broken:
        print(f"{broken_tried} broken copies, {len(broken_diffs)} disagreements")
        for line in broken_diffs[: args.show]:
            print("  BROKEN", line)
    return 0


def _broken(path: Path, ruleset: str, count: int, rng: random.Random, diffs: list[str]) -> int:
    lines = path.read_text("utf-8", "replace").splitlines(keepends=True)
    made = [item for item in changes(lines, rng)]
    tried = 0
    with tempfile.TemporaryDirectory() as temp:
        copy = Path(temp) / "result_0.txt"
        for label, change in rng.sample(made, min(count, len(made))):
            changed = change(lines)
            if changed is None:
                continue
            copy.write_text("".join(changed), "utf-8")
            theirs, messages = official(copy, ruleset)
            runs = check([str(copy)], ruleset=ruleset).runs
            tried += 1
            ours = runs[0].official_verdict if len(runs) == 1 else f"{len(runs)} runs"
            if ours != theirs:
                codes = sorted({f.code for r in runs for f in r.findings if f.official and f.severity.name == "ERROR"})
                diffs.append(f"{path} | {label} | mlcheck {ours} {codes} | official {theirs} {messages}")
    return tried


if __name__ == "__main__":
    sys.exit(main())
