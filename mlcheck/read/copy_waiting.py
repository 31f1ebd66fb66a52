"""Copies of other ranks still waiting for a record of their job's logging rank: the keys that
rank never printed (a rank that alone logs the evaluation, MLC028) and their count."""

from __future__ import annotations

from collections import Counter, OrderedDict
from typing import Iterator

from mlcheck.read.rawlog import Source

Slot = tuple[int, bytes, int]
"""(job, key as written, occurrence)"""


class WaitingCopies:
    """What :class:`~mlcheck.read.rank_copies.RankCopies` says of the copies still waiting."""

    _early: OrderedDict[Slot, list[tuple[int, bytes, int]]]
    _kept_counts: Counter[tuple[int, bytes]]

    def elsewhere(self) -> dict[tuple[int, bytes], int]:
        """(job, key) -> the lowest rank among those whose records of a key the logging rank
        never printed were dropped (what a second reading keeps: ``promote``)."""
        lowest: dict[tuple[int, bytes], int] = {}
        for job, key, rank, _line in self._never_kept():
            lowest[(job, key)] = min(rank, lowest.get((job, key), rank))
        return lowest

    def _never_kept(self) -> Iterator[tuple[int, bytes, int, int]]:
        """(job, key, rank, line) of each copy still waiting whose key the logging rank of its
        job never printed."""
        for (job, key, _occurrence), waiting in self._early.items():
            if not self._kept_counts[(job, key)]:
                for rank, _text, line in waiting:
                    yield job, key, rank, line

    def only_elsewhere(self) -> dict[Source, tuple[Counter[str], int]]:
        """The copies still waiting whose key the logging rank of their job never printed (a
        rank that alone logs the evaluation): by source, their keys counted and the first line."""
        found: dict[Source, tuple[Counter[str], int]] = {}
        for job, key, rank, line in self._never_kept():
            keys, first = found.get((job, rank), (Counter(), line))
            keys[key.decode("utf-8", "replace")] += 1
            found[(job, rank)] = (keys, min(first, line))
        return found

    def pending(self) -> int:
        """Copies still waiting for a record of the logging rank (at the end: never printed by it)."""
        return sum(len(v) for v in self._early.values())
