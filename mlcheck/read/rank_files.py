"""One rank's own output file, written by a launcher that gives each rank a file of its own."""

from __future__ import annotations

import os
import re

from mlcheck.model import Finding, Severity
from mlcheck.read import raw_output_rules as raw_output
from mlcheck.read.log_files import readable_path
from mlcheck.read.rank_labels import number

_RANK_FILE = re.compile(r"(?:^|[/\\])(?:rank\.(\d+)|attempt_\d+[/\\](\d+))[/\\](?:stdout|stderr)(?:\.log)?$")
"""One rank's output file of ``mpirun --output-filename DIR`` (``DIR/1/rank.N/stdout``) or of
torchrun ``--log-dir DIR`` (``DIR/<run id>/attempt_K/N/stdout.log``)."""


def per_rank_note(path: str, shown: str) -> Finding | None:
    """MLC022 when ``path`` is one rank's file of a per-rank output folder (:data:`_RANK_FILE`): a
    warning when the highest rank's file logs keys this one does not (a pipeline's last stage
    logging the evaluations), which are not read."""
    match = _RANK_FILE.search(path)
    if match is None:
        return None
    rank_dir = os.path.dirname(os.path.abspath(path))
    mpi = match.group(1) is not None
    try:
        siblings = [n for n in os.listdir(os.path.dirname(rank_dir)) if (n.startswith("rank.") if mpi else _NUMBER.match(n))]
    except OSError:
        siblings = []
    others = max(len(siblings) - 1, 0)
    rank = match.group(1) or match.group(2)
    numbered = [(number(n.removeprefix("rank.")), n) for n in siblings if _NUMBER.match(n.removeprefix("rank."))]
    last = max(numbered)[1] if numbered else None
    lacking = _keys_only_in(os.path.join(os.path.dirname(rank_dir), last, os.path.basename(path)), path) \
        if last is not None and last != os.path.basename(rank_dir) else []
    if lacking:
        return raw_output.PER_RANK_OUTPUT.at(shown, None, (
            f"this is rank {rank}'s output of a per-rank output folder, the one read; {last}/ logs "
            f"{', '.join(lacking[:5])}{' ...' if len(lacking) > 5 else ''}, which this file does not, and was not read. "
            "Check the job's console output (all ranks, one file), or log every record from one rank"),
            severity=Severity.WARNING)
    return raw_output.PER_RANK_OUTPUT.at(
        shown, None, f"this is rank {rank}'s output of a per-rank output folder; "
        f"the {others} other rank folder{'s' if others != 1 else ''} next to it hold{'' if others != 1 else 's'} copies and "
        "were not read")


_NUMBER = re.compile(r"[0-9]+\Z")
_KEY = re.compile(rb':::MLLOG [^\n]{0,400}?"key"\s*:\s*"([^"\\\n]{1,200})"')
"""A record's key (near its start: ``mllog`` writes it fourth; a bounded look keeps a line of many
markers and no key linear)."""


def _keys_only_in(other: str, path: str, limit: int = 1 << 26) -> list[str]:
    """The record keys ``other`` logs and ``path`` does not, sorted; none when either is no regular
    file (a FIFO would wait) or longer than ``limit`` bytes (not read whole: a key after it is unknown)."""
    try:
        if any(not os.path.isfile(name) or os.path.getsize(name) > limit for name in (other, path)):
            return []
        found = [_keys(name, limit) for name in (other, path)]
    except OSError:
        return []
    return sorted(found[0] - found[1])


def _keys(path: str, limit: int) -> set[str]:
    """The keys of the records of ``path``'s first ``limit`` bytes, read in blocks (a record cut by
    a block's end is read with the next block)."""
    keys: set[bytes] = set()
    with open(readable_path(path), "rb") as handle:
        tail, read = b"", 0
        while read < limit and (block := handle.read(1 << 20)):
            read += len(block)
            text = tail + block
            cut = text.rfind(b"\n") + 1
            keys.update(_KEY.findall(text, 0, cut))
            tail = text[cut:cut + (1 << 20)]  # (a line longer than a block: its key is in its first MiB)
        keys.update(_KEY.findall(tail))
    return {key.decode("utf-8", "replace") for key in keys}
