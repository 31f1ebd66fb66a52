"""What differs between a copy printed by another rank and the logging rank's record (MLC021).

Only called when the texts differ beyond ``time_ms``: both are parsed, ``metadata.file`` and
``metadata.lineno`` are ignored (ranks may log from other lines of code), and the message names
the value, event type or metadata entries that differ, with both sides.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, NamedTuple

from mlcheck.read.json_depth import within_limit
from mlcheck.model import Finding
from mlcheck.read.rawlog import Source, source_name
from mlcheck.read.raw_output_rules import RANK_COPIES_CONFLICT

if TYPE_CHECKING:
    from mlcheck.read.rank_copies import RankCopies

_DECODER = json.JSONDecoder()
_IGNORED_METADATA = frozenset({"file", "lineno"})
_MISSING = object()


class Printed(NamedTuple):
    """A record as printed by one rank: where, and its text (``:::MLLOG {...}``)."""

    source: Source
    line: int
    text: str


def same_record(kept: bytes, copy: bytes) -> bool:
    """Whether two texts hold the same record but for time and code place (and trailing text)."""
    kept_record = _parsed(kept.decode("utf-8", "replace"))
    copy_record = _parsed(copy.decode("utf-8", "replace"))
    return kept_record is not None and copy_record is not None and \
        _comparable(kept_record) == _comparable(copy_record)


def conflict(path: str, kept: Printed, copy: Printed, key: str) -> Finding | None:
    """MLC021 at the copy's line when the two records differ in more than time and code place."""
    kept_record, copy_record = _parsed(kept.text), _parsed(copy.text)
    if kept_record is not None and copy_record is not None and \
            _comparable(kept_record) == _comparable(copy_record):
        return None
    differences = _differences(kept_record, copy_record)
    return RANK_COPIES_CONFLICT.at(
        path, copy.line,
        f"{source_name(copy.source)} printed {key} with {differences[0]} where "
        f"{source_name(kept.source)} printed {differences[1]} (line {kept.line}); the logging "
        "rank's record is kept" + (_TWO_RUNS if key == "submission_benchmark" else ""))


_TWO_RUNS = ("; a run logs one benchmark, so these are two runs printed into one output (hosts that ran a run "
             "each), read here as one: the other's runs are not judged; write each run's output to a file of its own")


def _parsed(text: str) -> dict[str, Any] | None:
    try:
        record, _end = within_limit(_DECODER.raw_decode, text[text.index("{"):], True)
    except (ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) else None


def _metadata(record: dict[str, Any]) -> dict[str, Any]:
    metadata = record.get("metadata")
    if not isinstance(metadata, dict):
        return {}
    return {k: v for k, v in metadata.items() if k not in _IGNORED_METADATA}


def _comparable(record: dict[str, Any]) -> tuple[Any, ...]:
    return (record.get("key"), json.dumps(record.get("value"), sort_keys=True),
            record.get("event_type"), json.dumps(_metadata(record), sort_keys=True))


def _differences(kept: dict[str, Any] | None, copy: dict[str, Any] | None) -> tuple[str, str]:
    """(what the copy has, what the kept record has), e.g. ``value 0.71`` / ``0.7``."""
    if kept is None or copy is None:
        return ("an unreadable record" if copy is None else "a readable record",
                "an unreadable record" if kept is None else "a readable one")
    if kept.get("value") != copy.get("value"):
        return f"value {copy.get('value')!r}", repr(kept.get("value"))
    if kept.get("event_type") != copy.get("event_type"):
        return f"event type {copy.get('event_type')!r}", repr(kept.get("event_type"))
    ours, theirs = _metadata(copy), _metadata(kept)
    names = sorted(n for n in set(ours) | set(theirs) if ours.get(n, _MISSING) != theirs.get(n, _MISSING))
    shown = names[:3]
    return ("metadata " + ", ".join(f"{n} {_shown(ours, n)}" for n in shown),
            ", ".join(f"{n} {_shown(theirs, n)}" for n in shown))


def _shown(metadata: dict[str, Any], name: str) -> str:
    return repr(metadata[name]) if name in metadata else "(absent)"


def copies_described(copies: RankCopies) -> str:
    """The part of the MLC020 message about copies (and processes a label named one after the other)."""
    count = copies.processes
    processes = (f"{count} later process{'es' if count != 1 else ''} under a rank label (a rank that had printed "
                 "nothing, dated after the logging rank's run_stop) read as the next run's logging rank"
                 if count else "")
    if not copies.copies:
        return processes
    ranks = len(copies.copy_ranks)
    plural = "s" if ranks != 1 else ""
    what = f"rank{plural}" if all(r >= 0 for _job, r in copies.copy_ranks) else f"rank{plural} or stream{plural}"
    text = f"{copies.copies} {'copy' if copies.copies == 1 else 'copies'} printed by {ranks} other {what} dropped"
    extra = []
    if copies.conflicts:
        extra.append(f"{copies.conflicts} differ from the kept record (MLC021)")
    only = copies.pending()
    if only:
        extra.append(f"{only} have no record of the logging rank")
    if copies.unverified:
        extra.append(f"{copies.unverified} could not be compared")
    return text + (f" ({', '.join(extra)})" if extra else "") + (f"; {processes}" if processes else "")
