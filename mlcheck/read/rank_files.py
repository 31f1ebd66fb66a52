"""One rank's own output file, written by a launcher that gives each rank a file of its own."""

from __future__ import annotations

import os
import re

from mlcheck.model import Finding
from mlcheck.read import raw_output_rules as raw_output

_RANK_FILE = re.compile(r"(?:^|[/\\])(?:rank\.(\d+)|attempt_\d+[/\\](\d+))[/\\](?:stdout|stderr)(?:\.log)?$")
"""One rank's output file of ``mpirun --output-filename DIR`` (``DIR/1/rank.N/stdout``) or of
torchrun ``--log-dir DIR`` (``DIR/<run id>/attempt_K/N/stdout.log``)."""


def per_rank_note(path: str, shown: str) -> Finding | None:
    """MLC022 when ``path`` is one rank's file of a per-rank output folder (:data:`_RANK_FILE`)."""
    match = _RANK_FILE.search(path)
    if match is None:
        return None
    rank_dir = os.path.dirname(os.path.abspath(path))
    mpi = match.group(1) is not None
    try:
        siblings = [n for n in os.listdir(os.path.dirname(rank_dir)) if (n.startswith("rank.") if mpi else n.isdigit())]
    except OSError:
        siblings = []
    others = max(len(siblings) - 1, 0)
    return raw_output.PER_RANK_OUTPUT.at(
        shown, None, f"this is rank {match.group(1) or match.group(2)}'s output of a per-rank output folder; "
        f"the {others} other rank folder{'s' if others != 1 else ''} next to it hold{'' if others != 1 else 's'} copies and "
        "were not read")
