#!/usr/bin/env python3
"""Turn a clean result file into the raw console output of an IPU-POD job, for tests.

The logging rank (rank 0) prints the clean file's records byte for byte; the other instances print
copies (``time_ms`` shifted by a few ms, as each rank reads its own clock) that arrive a little
before or after rank 0's, poprun and Poplar print their own lines, a progress bar sometimes ends in
``\\r`` with a record after it, and copies sometimes land on the line of another rank's record.

    python tools/make_raw.py result_0.txt -o raw.log --instances 8 --runs 2 --crash --gzip

Everything is seeded: the same arguments give the same bytes.
"""

from __future__ import annotations

import argparse
import gzip
import random
import re
import sys
from dataclasses import dataclass

_TIME = re.compile(rb'"time_ms": (\d+)')


@dataclass(frozen=True)
class RawOptions:
    """How to dress up a clean file (see the module docstring)."""

    instances: int = 8
    duplicates: bool = True
    noise: bool = True
    colour_crlf: bool = False
    runs: int = 1
    crash: bool = False
    style: str = "mpi"
    """``mpi`` (``[1,r]<stdout>:`` tags), ``ts`` (a timestamp before the tags) or ``srun`` labels."""
    gzip: bool = False
    seed: int = 0


VARIANTS: dict[str, RawOptions] = {
    "2-instances": RawOptions(instances=2),
    "16-instances": RawOptions(instances=16),
    "no-duplicates": RawOptions(instances=8, duplicates=False),
    "gzip": RawOptions(instances=4, gzip=True),
    "crlf-colour": RawOptions(instances=4, colour_crlf=True),
    "two-runs": RawOptions(instances=4, runs=2),
    "ts-prefix": RawOptions(instances=4, style="ts"),
    "srun": RawOptions(instances=2, style="srun", noise=False),
}
"""The variants the corpus tests draw from; each reads into the same runs as the clean file."""


def records_of(clean: bytes) -> list[bytes]:
    """The ``:::MLLOG`` lines of a clean file, without line ends."""
    return [line.rstrip(b"\r") for line in clean.split(b"\n") if line.startswith(b":::MLLOG")]


def make_raw(clean: bytes, options: RawOptions = RawOptions()) -> bytes:
    """The raw job output for ``clean`` (gzip-compressed when ``options.gzip``)."""
    rng = random.Random(options.seed)
    records = records_of(clean)
    lines: list[bytes] = []
    # Without launcher lines, a later run logs later times (a minute after the one before ends):
    # what tells it from a copy of the run before (the same records twice) in raw output.
    times = [int(m.group(1)) for m in map(_TIME.search, records) if m is not None]
    dated = [time for time in times if time >= 10**11]  # (TPU logs write submission_* at time 0: no date)
    times = dated or times
    span = max(times) - min(times) + 60_000 if times and not options.noise else 0
    for number in range(options.runs):
        lines.extend(_launcher(options, number))
        lines.extend(_run_lines([_shifted(record, number * span) for record in records], options, rng))
    if options.crash:
        lines = _crash(lines, options)
    end = b"\r\n" if options.colour_crlf else b"\n"
    data = end.join(lines)
    if not (options.crash and not options.noise):
        data += end
    return gzip.compress(data, mtime=0) if options.gzip else data


def _tag(options: RawOptions, rank: int, stream: str = "stdout") -> bytes:
    if options.style == "srun":
        return f"{rank:>4}: ".encode()
    tag = f"[1,{rank}]<{stream}>:".encode()
    if options.style == "ts":
        return b"Nov 30 04:22:58 " + tag
    return tag


def _paint(options: RawOptions, payload: bytes) -> bytes:
    return b"\x1b[32m" + payload + b"\x1b[0m" if options.colour_crlf else payload


def _launcher(options: RawOptions, number: int) -> list[bytes]:
    if not options.noise:
        return []
    lines = [f"poprun: launching {options.instances} instances (run {number + 1})".encode(),
             b"poprun: host pod64-1, partition mlperf, 64 IPUs"]
    lines += [_tag(options, rank, "stderr") + _paint(options, b"PopTorch: graph compilation started")
              for rank in range(options.instances)]
    return lines


def _shifted(record: bytes, by_ms: int) -> bytes:
    """The record logged ``by_ms`` later (a later run of the job: its own clock readings)."""
    if not by_ms:
        return record
    return _TIME.sub(lambda m: b'"time_ms": ' + str(int(m.group(1)) + by_ms).encode(), record, 1)


def _copy(record: bytes, rank: int) -> bytes:
    return _TIME.sub(lambda m: b'"time_ms": ' + str(int(m.group(1)) + rank).encode(), record, 1)


def _run_lines(records: list[bytes], options: RawOptions, rng: random.Random) -> list[bytes]:
    placed: list[tuple[float, int, bytes, int]] = []
    last_at = [-10.0] * options.instances
    for index, record in enumerate(records):
        payload = record
        if options.noise and index % 17 == 5:
            payload = b"Epoch 3:  45%|####5     | 450/1000 [00:12<00:13, 37.1it/s]\r" + record
        placed.append((float(index), 0, payload, 0))
        if options.duplicates:
            for rank in range(1, options.instances):
                # Each rank's own output stays in order; ranks drift around rank 0.
                at = max(last_at[rank] + 0.001, index + rng.uniform(-1.5, 1.5))
                last_at[rank] = at
                placed.append((at, rank, _copy(record, rank), rank))
        if options.noise and index % 5 == 2:
            rank = rng.randrange(options.instances)
            placed.append((index + 0.5, len(placed), b"WARNING: Poplar engine option "
                           b"'opt.enableMultiAccessCopies' is deprecated", -1 - rank))
    placed.sort(key=lambda item: (item[0], item[1]))
    lines: list[bytes] = []
    for _order, _tie, payload, who in placed:
        rank = who if who >= 0 else -1 - who
        stream = "stdout" if who >= 0 else "stderr"
        line = _tag(options, rank, stream) + _paint(options, payload)
        glue = options.noise and options.style != "srun" and lines and rng.random() < 0.03
        if glue and who > 0:
            lines[-1] += line  # an unflushed write: two ranks' output on one line
        else:
            lines.append(line)
    return lines


def _crash(lines: list[bytes], options: RawOptions) -> list[bytes]:
    """Cut the last run two thirds in, in the middle of a record of rank 0."""
    first = _tag(options, 0) + (b"\x1b[32m" if options.colour_crlf else b"") + b":::MLLOG"  # (as _paint begins it)
    starts = [i for i, line in enumerate(lines)
              if line.startswith(first) and line.count(b":::MLLOG") == 1]
    cut_at = starts[len(starts) - len(starts) // (3 * options.runs) - 1]
    line = lines[cut_at]
    kept = lines[:cut_at] + [line[:len(line) // 2]]
    if options.noise:
        kept += [b"poprun: ERROR: instance 0 exited with signal 9 (Killed)",
                 b"poprun: terminating the other instances"]
    return kept


def main(argv: list[str] | None = None) -> int:
    """Command line: ``make_raw.py CLEAN -o OUT [options]``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("clean")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--instances", type=int, default=8)
    parser.add_argument("--no-duplicates", action="store_true")
    parser.add_argument("--no-noise", action="store_true")
    parser.add_argument("--crlf-colour", action="store_true")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--crash", action="store_true")
    parser.add_argument("--style", choices=("mpi", "ts", "srun"), default="mpi")
    parser.add_argument("--gzip", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    options = RawOptions(instances=args.instances, duplicates=not args.no_duplicates,
                         noise=not args.no_noise, colour_crlf=args.crlf_colour, runs=args.runs,
                         crash=args.crash, style=args.style, gzip=args.gzip, seed=args.seed)
    with open(args.clean, "rb") as handle:
        clean = handle.read()
    used, marked = len(records_of(clean)), sum(b":::MLLOG" in line for line in clean.split(b"\n"))
    if not used:
        parser.error(f"{args.clean}: no line begins with :::MLLOG (a clean file's records, one per line, are needed)")
    if used < marked:
        print(f"make_raw: {args.clean}: {marked - used} of {marked} lines with a record do not begin with :::MLLOG "
              f"(a rank's label or other text before it): only the {used} that do are used", file=sys.stderr)
    raw = make_raw(clean, options)
    with open(args.output, "wb") as out:
        out.write(raw)
    return 0


if __name__ == "__main__":
    sys.exit(main())
