"""Records printed by every rank: keep the logging rank's, check the others against it.

The logging rank of a job is the lowest rank that prints records (the reader may look ahead to
find it), else the first one seen. Copies from the other ranks are matched to the logging rank's
record by key and occurrence (the 3rd ``eval_accuracy`` of rank 5 against the 3rd of rank 0),
which survives any interleaving of the ranks' output. ``time_ms`` is never compared: each rank
reads its own clock. Only the text of the copies is looked at (the key is found with a regular
expression), so a copy costs much less than a record; JSON is parsed only when the texts differ.

Memory is bounded: a record waits for its copies in a window of at most ``WINDOW`` records, and
copies that come before their record wait in a window of the same size.
"""

from __future__ import annotations

import json
import re
from collections import Counter, OrderedDict
from typing import Any

from mlcheck.model import Finding
from mlcheck.rawlog import Source, source_name
from mlcheck.rules.raw_output import RANK_COPIES_CONFLICT

WINDOW = 20000
MAX_CONFLICT_FINDINGS = 20
_KEY = re.compile(rb'"key"\s*:\s*"((?:[^"\\]|\\.)*)"')
_DECODER = json.JSONDecoder()
_IGNORED_METADATA = ("file", "lineno")

_Slot = tuple[int, bytes, int]
"""(job, key as written, occurrence)"""


class RankCopies:
    """Decides which records are kept and checks the dropped copies; see the module docstring."""

    def __init__(self, path: str, ranks: dict[int, set[int]] | None = None) -> None:
        self.path = path
        self._ranks: dict[int, set[int]] = {job: set(seen) for job, seen in (ranks or {}).items()}
        self.logging_rank: dict[int, int] = {job: min(seen) for job, seen in self._ranks.items()}
        self._kept_counts: Counter[tuple[int, bytes]] = Counter()
        self._copy_counts: dict[Source, dict[bytes, int]] = {}
        self._kept: OrderedDict[_Slot, list[Any]] = OrderedDict()
        self._early: OrderedDict[_Slot, list[tuple[int, bytes, int]]] = OrderedDict()
        self.copies = 0
        self.conflicts = 0
        self.unverified = 0
        self.copy_ranks: set[Source] = set()

    def knows_job(self, job: int) -> bool:
        """Whether the logging rank of ``job`` is decided (a lookahead saw it, or a record did)."""
        return job in self.logging_rank

    def add_jobs(self, ranks: dict[int, set[int]]) -> None:
        """Jobs found by a later lookahead (a job started after the first one): their ranks, the
        lowest being the logging rank. Jobs already known keep their logging rank."""
        for job, seen in ranks.items():
            if job not in self.logging_rank and seen:
                self._ranks[job] = set(seen)
                self.logging_rank[job] = min(seen)

    def is_kept(self, source: Source | None) -> bool:
        """True when a record of this source is kept (untagged records always are)."""
        if source is None:
            return True
        job, rank = source
        return self.logging_rank.setdefault(job, rank) == rank

    def expects_copies(self, source: Source | None) -> bool:
        """True when a kept record of this source is to be compared with copies."""
        return source is not None and (len(self._ranks.get(source[0], ())) > 1 or bool(self._early))

    def count_kept(self, job: int, key: str) -> None:
        """Count a kept record no copy is expected for (a copy may still come: a late rank)."""
        self._kept_counts[(job, key.encode("utf-8", errors="surrogatepass"))] += 1

    def kept(self, source: Source | None, key: str, text: str, line: int) -> list[Finding]:
        """Register a kept record; return conflicts with copies that came before it."""
        if source is None:
            return []
        job = source[0]
        key_bytes = key.encode("utf-8", errors="surrogatepass")
        self._kept_counts[(job, key_bytes)] += 1
        slot = (job, key_bytes, self._kept_counts[(job, key_bytes)])
        found: list[Finding] = []
        encoded = text.encode("utf-8", errors="surrogatepass")
        entry: list[Any] = [encoded, line, 0, _fingerprint(encoded)]
        for rank, copy_text, copy_line in self._early.pop(slot, []):
            entry[2] += 1
            conflict = self._compare(entry, (job, rank), copy_text, copy_line)
            if conflict is not None:
                found.append(conflict)
        known = len(self._ranks.get(job, ()))
        if known > 1 and entry[2] < known - 1:  # copies are expected: keep it until they come
            self._kept[slot] = entry
            if len(self._kept) > WINDOW:
                self._kept.popitem(last=False)
        return found

    def copy(self, source: Source, text: bytes, line: int) -> Finding | None:
        """Drop a copy printed by a rank other than the logging rank; return a conflict if any."""
        self.copies += 1
        job = source[0]
        counts = self._copy_counts.get(source)
        if counts is None:  # a rank seen for the first time
            counts = self._copy_counts[source] = {}
            self.copy_ranks.add(source)
            self._ranks.setdefault(job, {self.logging_rank.get(job, source[1])}).add(source[1])
        key = _key_of(text)
        if key is None:
            self.unverified += 1
            return None
        occurrence = counts[key] = counts.get(key, 0) + 1
        slot = (job, key, occurrence)
        entry = self._kept.get(slot)
        if entry is None:
            self._wait(slot, source[1], text, line)
            return None
        entry[2] += 1
        if entry[2] >= len(self._ranks[job]) - 1:
            del self._kept[slot]
        return self._compare(entry, source, text, line)

    def _wait(self, slot: _Slot, rank: int, text: bytes, line: int) -> None:
        """A copy whose record has not been kept yet (or whose record was never kept)."""
        if slot[2] > self._kept_counts[(slot[0], slot[1])]:
            self._early.setdefault(slot, []).append((rank, text, line))
            if len(self._early) > WINDOW:
                self.unverified += len(self._early.popitem(last=False)[1])
        else:
            self.unverified += 1

    def _compare(self, entry: list[Any], source: Source, text: bytes, line: int) -> Finding | None:
        if entry[3] == _fingerprint(text):  # the same record but for its time: the common case
            return None
        kept_text, kept_line = entry[0], entry[1]
        kept = _comparable(kept_text.decode("utf-8", errors="replace"))
        copy = _comparable(text.decode("utf-8", errors="replace"))
        if kept == copy:
            return None
        self.conflicts += 1
        if self.conflicts > MAX_CONFLICT_FINDINGS:
            return None
        key = kept[0] if kept else _key_of(text).decode("utf-8", errors="replace")  # type: ignore[union-attr]
        kept_value = kept[1] if kept else "(unreadable)"
        copy_value = copy[1] if copy else "(unreadable)"
        what = "value" if kept and copy and kept[1] != copy[1] else "metadata or event type"
        kept_source = (source[0], self.logging_rank.get(source[0], -1))
        return RANK_COPIES_CONFLICT.at(
            self.path, line,
            f"{source_name(source)} printed {key} with a different {what} ({copy_value!r}) than "
            f"{source_name(kept_source)} at line {kept_line} ({kept_value!r}); the logging rank's "
            "copy is kept")

    def pending(self) -> int:
        """Copies still waiting for a record of the logging rank (at the end: never printed by it)."""
        return sum(len(v) for v in self._early.values())

    def describe(self) -> str:
        """The part of the MLC020 message about copies."""
        if not self.copies:
            return ""
        ranks = len(self.copy_ranks)
        text = f"{self.copies} copies printed by {ranks} other rank{'s' if ranks != 1 else ''} dropped"
        extra = []
        if self.conflicts:
            extra.append(f"{self.conflicts} differ from the kept record (MLC021)")
        only = self.pending()
        if only:
            extra.append(f"{only} have no record of the logging rank")
        if self.unverified:
            extra.append(f"{self.unverified} could not be compared")
        return text + (f" ({', '.join(extra)})" if extra else "")


def _key_of(text: bytes) -> bytes | None:
    """The key of a record's text (as it is written, escapes and all) without parsing its JSON."""
    at = text.find(b'"key": "')
    if at >= 0:
        end = text.find(b'"', at + 8)
        if end > 0 and text[end - 1] != 0x5C:  # no backslash: the key has no escaped quote
            return text[at + 8:end]
    match = _KEY.search(text)
    return None if match is None else match.group(1)


def _fingerprint(text: bytes) -> bytes:
    """The record's text without its ``time_ms`` (each rank reads its own clock)."""
    start = text.find(b'"time_ms"')
    if start < 0:
        return text
    stop = text.find(b",", start)
    if stop < 0:
        stop = text.find(b"}", start)
    return text[:start] + text[stop:] if stop >= 0 else text[:start]


def _comparable(text: str) -> tuple[Any, ...] | None:
    try:
        record, _end = _DECODER.raw_decode(text[text.index("{"):])
    except (ValueError, json.JSONDecodeError, RecursionError):
        return None
    if not isinstance(record, dict):
        return None
    metadata = record.get("metadata")
    if isinstance(metadata, dict):
        metadata = {k: v for k, v in metadata.items() if k not in _IGNORED_METADATA}
    return (record.get("key"), record.get("value"), record.get("event_type"),
            json.dumps(metadata, sort_keys=True))
