#!/usr/bin/env python3
"""Records of real result files cut by another stream's line, joined again: how many joins are wrong.

    python tools/cut_survey.py [--shared ../shared] [--files 25] [--seed 3] [--step 3]

A program whose stdout is block-buffered (``python train.py > log 2>&1``) may have a stderr line
land inside a record (:mod:`mlcheck.read.cut_records`). For ``--files`` result files of
``../shared/other-submitters`` (chosen at random with ``--seed``), four records each, every
``--step``-th place of the record is cut by one of several kinds of stderr line (Python
``warnings`` lines of absolute and relative paths, glog lines, a logger's levels, tqdm bars, lines
beginning with ``.`` or ``e``), after the 64 lines before it, and the joiner's output is compared
with the record. Printed: each WRONG join (a record the job did not print: a defect), and the
counts of cuts, wrong joins and cuts left as they are (the reader's MLC023: a refusal, never a
guess). Reads only; exit 0 always (a survey, not a test).
"""

from __future__ import annotations

import argparse
import glob
import os
import random

from mlcheck.read import cut_records

OTHER_LINES = [b"/opt/conda/lib/python3.8/site-packages/torch/functional.py:504: UserWarning: torch.meshgrid",
               b"W0501 12:00:00.123456 140 gpu_timer.cc:114] Skipping the delay kernel",
               b"[2024-05-01 12:00:00,123] [WARNING] [comm.py:12] something",
               b"WARNING:root:a warning", b"<frozen importlib._bootstrap>:241: RuntimeWarning: numpy",
               b"eval.py:12: UserWarning: x", b"E0501 12:00:00.1 1 x.cc:1] error", b"0it [00:00, ?it/s]",
               b"5%|5         | 1/20 [00:01<00:19]", b".hidden.py:3: FutureWarning: y", b"e-mail.py:3: UserWarning: z",
               b"2024-05-10 12:00:01,234 - root - INFO - loading shard 3",  # (session 49: Python logging's date,
               b"Warning: Permanently added 'node02' (ECDSA) to the list of known hosts.",  # ssh's warning, and
               b"node01: Warning: Permanently added 'node02' (ECDSA) to the list of known hosts.",  # both behind a label)
               b"loader: 2024-05-10 12:00:01,234 epoch done"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared"))
    parser.add_argument("--files", type=int, default=25)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--step", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    files = sorted(glob.glob(os.path.join(args.shared, "other-submitters", "training-*", "*", "results", "*", "*",
                                          "result_0.txt")))
    if not files:
        print(f"no result files under {args.shared}/other-submitters")
        return 0
    rng.shuffle(files)
    wrong = unjoined = total = 0
    for path in files[:args.files]:
        with open(path, "rb") as handle:
            lines = handle.read().splitlines(keepends=True)
        records = [i for i, line in enumerate(lines) if line.startswith(b":::MLLOG") and line.endswith(b"}\n")]
        for at in rng.sample(records, min(4, len(records))):
            record = lines[at].rstrip(b"\n")
            before = lines[max(0, at - 64):at]
            for cut in range(9, len(record) - 1, args.step):
                other = rng.choice(OTHER_LINES)
                joined = [0]
                out = list(cut_records.rejoined_cut_records([*before, record[:cut] + other + b"\n", record[cut:] + b"\n"],
                                                            joined))
                total += 1
                if joined[0] and out[len(before)] != lines[at]:
                    wrong += 1
                    print("WRONG", path, at + 1, record[cut - 8:cut] + b"|" + other[:12] + b"|" + record[cut:cut + 8])
                unjoined += not joined[0]
    print(f"{total} cuts, {wrong} wrong joins, {unjoined} left as they are (MLC023)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
