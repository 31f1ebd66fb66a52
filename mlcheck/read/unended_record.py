"""The line a watched log holds unended at a quiet spell (:meth:`mlcheck.read.follow.Follower.quiet_record`):
read as a line only when it is a whole ``run_stop`` record, the last line of a log its job ended without an LF
(``check`` reads it; the watch waited for ever). A record a pause of the writer cut holds no whole JSON, and
any other record waits for its line's end: text may still follow it on its line."""

from __future__ import annotations

import json

from mlcheck.read.line_reader import MARKER_BYTES

MARKER = MARKER_BYTES
"""The record marker (:mod:`mlcheck.read.follow` tests the rest of a line handed over for it)."""


def whole_run_stop(line: bytes) -> bool:
    """Whether ``line`` is a ``run_stop`` record whose JSON is whole."""
    at = line.find(MARKER)
    if at < 0 or not line.rstrip().endswith(b"}"):
        return False
    try:
        record = json.loads(line[at + len(MARKER):])
    except (ValueError, RecursionError):
        return False
    return isinstance(record, dict) and record.get("key") == "run_stop"
