#!/usr/bin/env python3
"""A long fuzzing campaign over mlcheck with the generators of ``tests/test_properties.py``.

    python tools/fuzz.py --cases 100000 --seed 1 --minutes 60 --out fuzz-failures

Runs the families of :mod:`fuzzing` (records, raw lines, glued records, gzip members, trees,
config files, the command line) in turn, by weight, until ``--cases`` or ``--minutes``. The
choices come from a seeded ``random.Random`` (the tests draw the same generators through
hypothesis, whose bookkeeping costs more per case than a small check): the same seed, the same
cases. Every case keeps the cheap properties (no exception, exit code, no MLC000, a JSON report,
lines inside their file, inputs unchanged, time); one case in ``--deep-every`` of each family
keeps them all (run twice for the same bytes, memory under tracemalloc, the report's schema,
one other reporter in turn).

A failure is told from the others by its key (the property, the exception's type and where it
was raised). The first time a key is met, its case is minimised (runs of choices deleted, choices
lowered, as hypothesis shrinks) to a simplest one that fails the same way, printed, and written
to ``--out`` (``NNN-<family>/``: the tree as built, ``case.json``, ``case.pickle``); ``--replay
DIR/case.pickle`` runs one again. Hangs and failures of time or memory are written as found.
Exit 0 when no property broke, 1 otherwise.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import pickle
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

from fuzzing import CHEAP, FAMILIES, Case, Checks, Failure, run_case  # noqa: E402
from fuzzing.case import describe, materialise, scratch_root  # noqa: E402
from fuzzing.properties import ALL, CHEAPEST, FORMATS  # noqa: E402
from fuzzing.source import RandomSource, shrink  # noqa: E402

WEIGHTS = {"records": 4, "lines": 3, "glued": 3, "gzip": 2, "trees": 2, "config": 1, "cli": 1}
"""Cases per round of each family: the in-process ones are cheap, the command-line ones not."""
_UNSHRUNK = ("no answer within", "time beyond", "memory beyond")
"""Failures of time and memory: every try of a shrink would be slow; they are written as found."""


@dataclass
class Campaign:
    """What the campaign met so far."""

    out: Path | None
    workdir: str
    deep_every: int
    timeout: float
    shrink_seconds: float
    cases: collections.Counter[str] = field(default_factory=collections.Counter)
    seconds: collections.Counter[str] = field(default_factory=collections.Counter)
    hits: collections.Counter[str] = field(default_factory=collections.Counter)
    first: dict[str, tuple[str, Failure]] = field(default_factory=dict)
    folders: int = 0

    def run(self, case: Case, checks: Checks) -> list[Failure]:
        self.folders += 1
        return run_case(case, os.path.join(self.workdir, str(self.folders)), checks, self.timeout)

    def checks(self, family: str) -> Checks:
        """Every property on one case in ``deep_every`` (one other reporter each time), else the cheap ones."""
        count = self.cases[family]
        if count % self.deep_every:
            return CHEAPEST
        return Checks(formats=(FORMATS[1 + (count // self.deep_every) % (len(FORMATS) - 1)],))

    def one(self, family: str, seed: int) -> None:
        """Generate a case, run it; a new failure is shrunk, printed and written."""
        started = time.perf_counter()
        source = RandomSource(seed)
        try:
            case = FAMILIES[family](source)
        except Exception as error:  # noqa: BLE001 - a bug of the generator, not of mlcheck
            self.note(family, Failure(f"the {family} generator raised {type(error).__name__}", repr(error)), None, seed)
            return
        try:
            failures = self.run(case, self.checks(family))
        except Exception as error:  # noqa: BLE001 - a bug of the harness: say it, go on
            self.note(family, Failure(f"the harness raised {type(error).__name__}", repr(error)), case, seed)
            return
        self.cases[family] += 1
        self.seconds[family] += time.perf_counter() - started
        for failure in failures:
            self.hits[failure.key] += 1
            if failure.key not in self.first:
                self.note(family, failure, case, seed, source.choices)

    def note(self, family: str, failure: Failure, case: Case | None, seed: int,
             choices: list[int] | None = None) -> None:
        self.first[failure.key] = (family, failure)
        state = "as generated"
        if case is not None and choices is not None and not failure.key.startswith(_UNSHRUNK):
            def fails(candidate: Case) -> bool:
                return any(f.key == failure.key for f in self.run(candidate, ALL))

            case, choices, tries = shrink(FAMILIES[family], choices, fails, self.shrink_seconds)
            state = f"minimised in {tries} tries to {len(choices)} choices"
        where = ""
        if self.out is not None and case is not None:
            folder = self.out / f"{len(self.first):03d}-{family}"
            save(case, folder, failure, {"seed": seed, "choices": choices})
            where = f"\n    reproducer: {folder}  (python tools/fuzz.py --replay {folder / 'case.pickle'})"
        print(f"FAILURE {len(self.first)} [{family}] {failure.key}\n    {failure.detail[:400]}\n"
              f"    case ({state}): {_brief(case)}{where}", flush=True)


def save(case: Case, folder: Path, failure: Failure, origin: dict[str, object]) -> None:
    """The case as files (its tree as built), ``case.json`` and ``case.pickle`` (for ``--replay``)."""
    if folder.exists():
        folder = folder.with_name(f"{folder.name}-{time.time_ns()}")
    folder.mkdir(parents=True)
    materialise(case, str(folder / "case"))
    (folder / "case.json").write_text(json.dumps({"failure": failure.key, "detail": failure.detail,
                                                  **origin, "case": describe(case)}, indent=2), "utf-8")
    (folder / "case.pickle").write_bytes(pickle.dumps(case))


def _brief(case: Case | None) -> str:
    text = repr(case)
    return text if len(text) < 600 else text[:400] + f"... ({len(text)} characters; see the reproducer)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=100_000, help="Stop after this many cases (all families).")
    parser.add_argument("--seed", type=int, default=0, help="Seed of the campaign: the same seed, the same cases.")
    parser.add_argument("--minutes", type=float, default=60.0, help="Stop after this long.")
    parser.add_argument("--out", type=Path, default=None, help="Folder for the reproducers of failures.")
    parser.add_argument("--families", default=",".join(FAMILIES), help="Comma-separated families to run.")
    parser.add_argument("--deep-every", type=int, default=8,
                        help="One case in N per family keeps every property (twice, memory, schema, a reporter).")
    parser.add_argument("--timeout", type=float, default=30.0, help="Seconds before a case counts as a hang.")
    parser.add_argument("--shrink-seconds", type=float, default=120.0, help="Time to minimise one failure.")
    parser.add_argument("--replay", type=Path, default=None, help="Run one saved case.pickle and print its failures.")
    args = parser.parse_args(argv)
    if args.replay is not None:
        return replay(args.replay, args.timeout)
    families = [f for f in args.families.split(",") if f]
    unknown = [f for f in families if f not in FAMILIES]
    if unknown:
        parser.error(f"unknown family {unknown[0]!r}; known: {', '.join(FAMILIES)}")
    order = [f for f in families for _ in range(WEIGHTS.get(f, 1))]
    seeds = random.Random(args.seed)
    started = time.monotonic()
    last_print = started
    with tempfile.TemporaryDirectory(prefix="mlcheck-fuzz-", dir=scratch_root()) as workdir:
        campaign = Campaign(args.out, workdir, max(1, args.deep_every), args.timeout, args.shrink_seconds)
        for number in range(args.cases):
            campaign.one(order[number % len(order)], seeds.getrandbits(64))
            if number % 64 == 0 and time.monotonic() - last_print > 30:
                last_print = time.monotonic()
                if last_print - started > args.minutes * 60:
                    break
                print(f"... {number + 1} cases in {last_print - started:.0f} s, "
                      f"{len(campaign.first)} distinct failures", flush=True)
    elapsed = time.monotonic() - started
    total = sum(campaign.cases.values())
    print(f"\n{total} cases in {elapsed:.0f} s ({total / max(elapsed, 1e-9):.0f}/s), seed {args.seed}")
    for family in families:
        kind = "in-process" if family in CHEAP else "command line"
        rate = campaign.cases[family] / max(campaign.seconds[family], 1e-9)
        print(f"  {family:8} {campaign.cases[family]:8} cases  {rate:6.0f}/s  ({kind})")
    print(f"{len(campaign.first)} distinct failures")
    for key, (family, _failure) in campaign.first.items():
        print(f"  {campaign.hits[key]:6} x [{family}] {key}")
    return 1 if campaign.first else 0


def replay(path: Path, timeout: float) -> int:
    """Run a saved case again with every property; 1 when one still breaks."""
    case = pickle.loads(path.read_bytes())
    with tempfile.TemporaryDirectory(dir=scratch_root()) as workdir:
        failures = run_case(case, os.path.join(workdir, "case"), ALL, timeout)
    for failure in failures:
        print(f"{failure.key}\n    {failure.detail}")
    print(f"{len(failures)} properties broken")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
