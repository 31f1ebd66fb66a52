#!/usr/bin/env python3
"""Broken copies of accepted result files, judged by mlcheck and by the installed official checker.

    python tools/differential.py [--rounds 4.0,4.1,5.0,5.1] [--files 3] [--seed 1] [--show 20]

For a sample of the result files the round's checker of record accepted (``../shared/oracle``),
``--files`` per benchmark of each round, each file is copied with one change at a time: every
record of a key deleted, its first record deleted, its first record repeated with another value,
its value made null or a string, its metadata empty or a number, its time an hour earlier, it moved to the
end of the file, a number a little larger or negative, an integer value written as a float, the record glued to the line before or
followed by text; the file cut after a line or inside one, with CRLF line ends, a byte order mark,
twice, every record twice; and the damage to single records of ``tools/record_breaks.py`` (the
marker written otherwise, broken JSON, a field missing or mistyped, records swapped, the status of
``run_stop`` written otherwise). Each copy is judged by mlcheck
(``official_verdict``: what it says the round's checker says) and by the compliance checker of
the installed mlperf-logging (``mlp_compliance``, in this process), and the disagreements are
printed with the change that made them. The installed release is not the checker of record of
every round (``../shared/oracle/README.md`` lists what changed since): a file whose unchanged copy
the installed checker does not pass is left out, and a disagreement is a lead to read in the
rules, not a verdict; the one documented difference (:func:`documented`) is printed as KNOWN.
Exit 0 always (a survey, not a test).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import logging
import random
import sys
import tempfile
from pathlib import Path
from typing import Callable, Iterator

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

from mlcheck import check  # noqa: E402
from record_breaks import MARKER, read_record, record_changes, with_record  # noqa: E402 (tools/, beside this script)

Change = tuple[str, Callable[[list[str]], list[str] | None]]


def official_passes(path: Path, ruleset: str) -> bool | None:
    """The installed compliance checker's verdict on ``path``; None when it raises."""
    from mlperf_logging.compliance_checker import mlp_compliance

    mlp_compliance.enqueued_configs.clear()
    checker = mlp_compliance.make_checker("training", ruleset, True, False)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return bool(checker.check_file(str(path), f"training_{ruleset}/common.yaml"))
    except Exception:  # noqa: BLE001 - the official checker's crash fails the file
        return None


def _keys(lines: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for line in lines:
        record = read_record(line)
        if record is not None and isinstance(record.get("key"), str):
            seen.setdefault(record["key"], None)
    return list(seen)


def _other_value(value: object) -> object:
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value * 2 + 1
    if isinstance(value, str):
        return value + "_other"
    return "other"


def changes(lines: list[str], rng: random.Random) -> Iterator[Change]:
    """The changes made to one file, one at a time."""
    for key in _keys(lines):
        def is_key(line: str, key: str = key) -> bool:
            record = read_record(line)
            return record is not None and record.get("key") == key

        first = next(i for i, line in enumerate(lines) if is_key(line))
        yield f"delete every {key}", lambda ls, f=is_key: [line for line in ls if not f(line)]
        yield f"delete first {key}", lambda ls, i=first: ls[:i] + ls[i + 1:]
        record = read_record(lines[first]) or {}

        def repeat(ls: list[str], i: int = first, r: dict = record) -> list[str]:
            return ls[: i + 1] + [with_record(ls[i], {**r, "value": _other_value(r.get("value"))})] + ls[i + 1:]

        yield f"repeat {key} with another value", repeat
        for label, value in (("null", None), ("a string", "x")):
            yield (f"{key} value {label}",
                   lambda ls, i=first, r=record, v=value: ls[:i] + [with_record(ls[i], {**r, "value": v})] + ls[i + 1:])
        for label, metadata in (("empty", {}), ("a number", 5)):
            yield (f"{key} metadata {label}",
                   lambda ls, i=first, r=record, m=metadata: ls[:i] + [with_record(ls[i], {**r, "metadata": m})]
                   + ls[i + 1:])
        if isinstance(record.get("time_ms"), (int, float)):
            yield (f"{key} an hour earlier",
                   lambda ls, i=first, r=record: ls[:i] + [with_record(ls[i], {**r, "time_ms": r["time_ms"] - 3.6e6})]
                   + ls[i + 1:])
        yield f"move first {key} to the end", lambda ls, i=first: ls[:i] + ls[i + 1:] + [ls[i]]
        if type(record.get("value")) in (int, float) and record["value"]:
            for label, factor in (("a little larger", 1.001), ("negative", -1)):
                yield (f"{key} value {label}",
                       lambda ls, i=first, r=record, f=factor: ls[:i] + [with_record(ls[i], {**r, "value": r["value"] * f})]
                       + ls[i + 1:])
        if type(record.get("value")) is int:
            yield (f"{key} value as a float",
                   lambda ls, i=first, r=record: ls[:i] + [with_record(ls[i], {**r, "value": float(r["value"])})]
                   + ls[i + 1:])
        yield (f"{key} glued to the line before",
               lambda ls, i=first: ls[: i - 1] + [ls[i - 1].rstrip("\r\n") + ls[i]] + ls[i + 1:] if i else None)
        yield (f"{key} with text after it",
               lambda ls, i=first: ls[:i] + [ls[i].rstrip("\r\n") + " done\n"] + ls[i + 1:])
    if len(lines) > 4:
        cut = rng.randrange(1, len(lines) - 1)
        yield f"cut after line {cut}", lambda ls, c=cut: ls[:c]
        yield f"cut inside line {cut}", lambda ls, c=cut: ls[:c] + [ls[c][: len(ls[c]) // 2]]
    yield "CRLF line ends", lambda ls: [line.rstrip("\r\n") + "\r\n" for line in ls]
    yield "a byte order mark", lambda ls: ["\ufeff" + ls[0]] + ls[1:]
    yield "the file twice", lambda ls: ls + ls
    yield "every record twice", lambda ls: [copy for line in ls for copy in ((line, line) if MARKER in line else (line,))]
    yield from record_changes(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shared", default=str(HERE.parent / "shared"))
    parser.add_argument("--rounds", default="4.0,4.1,5.0,5.1")
    parser.add_argument("--files", type=int, default=1, help="accepted files per benchmark and round")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", type=int, default=30)
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)
    shared = Path(args.shared)
    rows = [json.loads(line) for line in (shared / "oracle" / "other-submitters.jsonl").open()]
    rng = random.Random(args.seed)
    tried = 0
    diffs: list[tuple[str, str, str, str, list[str], str | None]] = []
    by_change: collections.Counter[str] = collections.Counter()
    with tempfile.TemporaryDirectory() as temp:
        for round_name in args.rounds.split(","):
            mine = [r for r in rows if r["path"].startswith(f"training-{round_name}/") and r["record_verdict"] == "pass"]
            by_bench: dict[str, list[dict]] = collections.defaultdict(list)
            for row in mine:
                by_bench[row["benchmark"]].append(row)
            for bench, members in sorted(by_bench.items()):
                for row in rng.sample(members, min(args.files, len(members))):
                    source = shared / "other-submitters" / row["path"]
                    if official_passes(source, row["ruleset"]) is not True:
                        continue
                    lines = source.read_text("utf-8", "replace").splitlines(keepends=True)
                    folder = Path(temp) / round_name / bench
                    folder.mkdir(parents=True, exist_ok=True)
                    copy = folder / "result_0.txt"
                    for label, change in changes(lines, rng):
                        changed = change(lines)
                        if changed is None:
                            continue
                        copy.write_text("".join(changed), "utf-8")
                        official = official_passes(copy, row["ruleset"])
                        runs = check([str(copy)], ruleset=row["ruleset"]).runs
                        tried += 1
                        ours = runs[0].official_verdict if len(runs) == 1 else f"{len(runs)} runs"
                        theirs = "pass" if official else "fail"
                        if ours != theirs:
                            codes = sorted({f.code for r in runs for f in r.findings
                                            if f.official and f.severity.name == "ERROR"})
                            why = documented(row["ruleset"], ours, {f.code for r in runs for f in r.findings})
                            diffs.append((row["path"], label, ours, theirs, codes, why))
                            by_change[label.split(" ")[0]] += 1
    known = sum(1 for item in diffs if item[5])
    print(f"{tried} broken copies, {len(diffs)} disagreements {dict(by_change)}, "
          f"{known} of them documented, {len(diffs) - known} not")
    for item in diffs[: args.show]:
        print("  KNOWN" if item[5] else "  DIFF", item[0], "|", item[1], "| mlcheck", item[2], "| official", item[3],
              item[4], f"({item[5]})" if item[5] else "")
    return 0


def documented(ruleset: str, ours: str, codes: set[str]) -> str | None:
    """Why a disagreement with the installed checker is by design (README), or None: in 1.1 the
    checker of record only warned on the list of weights_initialization tensors, which the
    installed release fails (mlcheck's MLC205/MLC206 warnings say so)."""
    if ruleset == "1.1.0" and ours == "pass" and codes & {"MLC205", "MLC206"}:
        return "1.1 weights_initialization: a warning of the record, an error of the installed release"
    return None


if __name__ == "__main__":
    sys.exit(main())
