"""Records printed by every rank: keep the logging rank's, check the others against it.

The logging rank of a job is the lowest rank that prints records (the reader looks ahead to find
it). Copies from the other ranks are matched to the logging rank's record by key and occurrence
(the 3rd ``eval_accuracy`` of rank 5 against the 3rd of rank 0), which survives any interleaving
of the ranks' output. ``time_ms`` is never compared: each rank reads its own clock. Only the text
of a copy is looked at (its key is found without parsing), so a copy costs much less than a record.

A copy that differs from the record of its slot is not a conflict yet: a rank that printed one
record more or fewer than the logging rank shifts its later occurrences. When the copy's text is
that of another recent record of the logging rank, the rank's count is realigned; otherwise the
copy waits (a ``suspect``) until the logging rank has printed ``HORIZON`` more records, or the run
stops, and only then becomes MLC021 (:mod:`mlcheck.read.copy_differences` says what differs).

Memory is bounded: a record waits for its copies in a window of at most ``WINDOW`` records, and
copies that come before their record wait in a window of the same size.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from typing import Any, Mapping, NamedTuple, Sequence

from mlcheck.read.copy_waiting import Slot, WaitingCopies
from mlcheck.read.copy_differences import Printed, conflict, copies_described, same_record
from mlcheck.read.record_text_keys import fingerprint, key_of
from mlcheck.model import EVENT_KEY, Event, Finding
from mlcheck.read.rank_processes import begins_a_process, record_time
from mlcheck.read.rawlog import Source

WINDOW = 20000
HORIZON = 32
MAX_CONFLICT_FINDINGS = 20
_RUN_BEGINS = frozenset({"cache_clear", "init_start", "run_start"})
"""Keys with which a logging rank whose run stopped begins another."""

class _Suspect(NamedTuple):
    kept_at: int
    """How many records the job's logging rank had kept when the copy turned out different."""
    entry: list[Any]
    source: Source
    text: bytes
    line: int
    fingerprint: bytes


class RankCopies(WaitingCopies):
    """Decides which records are kept and checks the dropped copies; see the module docstring."""

    def __init__(self, path: str, ranks: dict[int, set[int]] | None = None, keep_all: bool = False,
                 promote: Mapping[tuple[int, bytes], int] | None = None, first: Mapping[int, int] | None = None) -> None:
        self.path = path
        self.keep_all = keep_all
        """Keep every rank's records (a submitted result file, read as the official parser does)."""
        self.promote: Mapping[tuple[int, bytes], int] = promote or {}
        """(job, key) -> the rank whose records of that key are kept although it is not the
        logging rank: a key the logging rank never printed (found by a first reading: MLC028)."""
        self.promoted: dict[Source, Counter[str]] = {}
        """The keys of the records kept from each promoted rank, counted."""
        self.ranks: dict[int, set[int]] = {job: set(seen) for job, seen in (ranks or {}).items()}
        self.logging_rank: dict[int, int] = {job: (first or {}).get(job, min(seen)) for job, seen in self.ranks.items()}
        self._stopped_at: dict[int, float] = {}
        """Job -> the time of the run_stop its logging rank kept last, or of a later record it kept
        (a final evaluation, a hyper-parameter block), until it begins a run again."""
        self.processes = 0
        """Processes that began a job's next run under a rank label (:mod:`mlcheck.read.rank_processes`)."""
        self._kept_counts: Counter[tuple[int, bytes]] = Counter()
        self._kept_total: Counter[int] = Counter()
        self._copy_counts: dict[Source, dict[bytes, int]] = {}
        self._kept: OrderedDict[Slot, list[Any]] = OrderedDict()
        self._early: OrderedDict[Slot, list[tuple[int, bytes, int]]] = OrderedDict()
        self._recent: OrderedDict[tuple[int, bytes], Slot] = OrderedDict()
        """The slot of each recent kept record, by its fingerprint (to realign a shifted rank)."""
        self._suspects: list[_Suspect] = []
        self._late: list[Finding] = []  # (conflicts of a process another took over from: new_process)
        self.copies = 0
        self.first_copy_line: int | None = None  # (MLC013 names it)
        self.conflicts = 0
        self.unverified = 0
        self.copy_ranks: set[Source] = set()

    def knows_job(self, job: int) -> bool:
        """Whether the logging rank of ``job`` is decided (a lookahead saw it, or a record did)."""
        return job in self.logging_rank

    def add_jobs(self, ranks: dict[int, set[int]], first: Mapping[int, int] | None = None) -> None:
        """Jobs found by a later lookahead (a job started after the first one): their ranks, the
        lowest being the logging rank (``first``: that of ranks that printed one after the
        other). Jobs already known keep their logging rank."""
        for job, seen in ranks.items():
            if job not in self.logging_rank and seen:
                self.ranks[job] = set(seen)
                self.logging_rank[job] = (first or {}).get(job, min(seen))

    def new_process(self, source: Source, record: bytes) -> bool:
        """Whether this record of a rank that is not its job's logging rank begins another
        process (then the job's logging rank from now on): see :mod:`mlcheck.read.rank_processes`."""
        job = source[0]
        stopped = self._stopped_at.get(job)
        if stopped is None or self.keep_all or source in self._copy_counts or source in self.promoted \
                or not begins_a_process(record, stopped):
            return False
        self.processes += 1
        self._forget(job)
        self.ranks[job], self.logging_rank[job] = {source[1]}, source[1]
        return True

    def forget_jobs(self) -> None:
        """A launcher line began another job: each label's logging rank is chosen again (a lookahead)."""
        for job in list(self.logging_rank):
            self._forget(job)
            del self.logging_rank[job]
            self.ranks.pop(job, None)

    def _forget(self, job: int) -> None:
        self._late.extend(f for s in self._suspects if s.source[0] == job for f in self._conflict(s))
        self._suspects = [s for s in self._suspects if s.source[0] != job]
        self.unverified += sum(len(w) for slot, w in self._early.items() if slot[0] == job)
        tables: tuple[dict[Any, Any], ...] = (self._kept_counts, self._kept, self._early, self._recent, self._copy_counts)
        for table in tables:
            for key in [key for key in table if key[0] == job]:
                del table[key]
        self._kept_total[job] = 0
        self._stopped_at.pop(job, None)

    def _note_stop(self, job: int, key: str, time_ms: float | None) -> None:
        """Follow the time of the logging rank's last run_stop and of what it kept after it, until
        it begins a run again."""
        if key == "run_stop" and time_ms is not None:
            self._stopped_at[job] = max(time_ms, self._stopped_at.get(job, time_ms))
        elif key in _RUN_BEGINS:
            self._stopped_at.pop(job, None)
        elif time_ms is not None and job in self._stopped_at:
            self._stopped_at[job] = max(time_ms, self._stopped_at[job])

    def is_kept(self, source: Source | None) -> bool:
        """True when a record of this source is kept (untagged records always are)."""
        if source is None or self.keep_all:
            return True
        job, rank = source
        return self.logging_rank.setdefault(job, rank) == rank

    def is_promoted(self, source: Source | None, text: bytes) -> bool:
        """Whether this record of a rank that is not the logging rank is kept all the same: its
        key is one the logging rank never prints, and this rank the lowest that prints it (then
        counted in :attr:`promoted`)."""
        if not self.promote or source is None:
            return False
        key = key_of(text)
        if key is None or self.promote.get((source[0], key)) != source[1]:
            return False
        self.promoted.setdefault(source, Counter())[key.decode("utf-8", "replace")] += 1
        return True

    def expects_copies(self, source: Source | None) -> bool:
        """True when a kept record of this source is to be compared with copies."""
        return source is not None and not self.keep_all and (
            len(self.ranks.get(source[0], ())) > 1 or bool(self._early))

    def count_kept(self, job: int, key: str, time_ms: float | None = None) -> None:
        """Count a kept record no copy is expected for (a copy may still come: a late rank)."""
        self._kept_counts[(job, key.encode("utf-8", errors="surrogatepass"))] += 1
        self._kept_total[job] += 1
        self._note_stop(job, key, time_ms)

    def count_all_kept(self, job: int, events: Sequence[Event]) -> None:
        """:meth:`count_kept` of each event, in order."""
        counts = self._kept_counts
        for key, count in Counter(map(EVENT_KEY, events)).items():
            counts[(job, key.encode("utf-8", errors="surrogatepass"))] += count
        self._kept_total[job] += len(events)
        if self._stopped_at or "run_stop" in map(EVENT_KEY, events):
            for event in events:
                self._note_stop(job, event.key, event.time_ms)

    def kept(self, source: Source | None, key: str, text: str, line: int) -> list[Finding]:
        """Register a kept record; return the conflicts decided now (copies that came before it,
        and suspects that this record did not explain)."""
        if source is None or self.keep_all:
            return []
        job = source[0]
        key_bytes = key.encode("utf-8", errors="surrogatepass")
        self._kept_counts[(job, key_bytes)] += 1
        self._kept_total[job] += 1
        slot = (job, key_bytes, self._kept_counts[(job, key_bytes)])
        encoded = text.encode("utf-8", errors="surrogatepass")
        self._note_stop(job, key, record_time(encoded) if self._stopped_at or key == "run_stop" else None)
        entry: list[Any] = [encoded, line, 0, fingerprint(encoded), key]
        self._recent[(job, entry[3])] = slot
        if len(self._recent) > 4 * HORIZON:
            self._recent.popitem(last=False)
        for rank, copy_text, copy_line in self._early.pop(slot, []):
            entry[2] += 1
            self._compare(entry, (job, rank), copy_text, copy_line)
        known = len(self.ranks.get(job, ()))
        if known > 1 and entry[2] < known - 1:  # copies are expected: keep it until they come
            self._kept[slot] = entry
            if len(self._kept) > WINDOW:
                self._kept.popitem(last=False)
        return self._settle(job, final=key == "run_stop") if self._suspects else []

    def kept_unreadable(self, source: Source, text: str, line: int) -> list[Finding]:
        """Register a record of the logging rank that could not be decoded, under the key its text
        names (its copies are then compared with it, not with the next record of that key)."""
        key = key_of(text.encode("utf-8", errors="surrogatepass"))
        if key is None:
            return []
        return self.kept(source, key.decode("utf-8", errors="surrogatepass"), text, line)

    def copy(self, source: Source, text: bytes, line: int) -> Finding | None:
        """Drop a copy printed by a rank other than the logging rank (a difference is decided
        later: see the module docstring; this returns None)."""
        self.copies += 1
        if self.first_copy_line is None:
            self.first_copy_line = line
        job = source[0]
        counts = self._copy_counts.get(source)
        if counts is None:  # a rank seen for the first time
            counts = self._copy_counts[source] = {}
            self.copy_ranks.add(source)
            self.ranks.setdefault(job, {self.logging_rank.get(job, source[1])}).add(source[1])
        key = key_of(text)
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
        if entry[2] >= len(self.ranks[job]) - 1:
            del self._kept[slot]
        self._compare(entry, source, text, line)
        return None

    def _wait(self, slot: Slot, rank: int, text: bytes, line: int) -> None:
        """A copy whose record has not been kept yet (or whose record was never kept)."""
        if slot[2] > self._kept_counts[(slot[0], slot[1])]:
            self._early.setdefault(slot, []).append((rank, text, line))
            if len(self._early) > WINDOW:
                self.unverified += len(self._early.popitem(last=False)[1])
        else:
            self.unverified += 1

    def _compare(self, entry: list[Any], source: Source, text: bytes, line: int) -> None:
        printed = fingerprint(text)
        if entry[3] == printed:  # the same record but for its time: the common case
            return
        if not self._realign(source, printed) and not same_record(entry[0], text):
            self._suspects.append(_Suspect(self._kept_total[source[0]], entry, source, text, line,
                                           printed))

    def _realign(self, source: Source, fingerprint: bytes, count: bool = True) -> bool:
        """True when the copy is a recent record of the logging rank under another occurrence;
        then (``count``) this rank's copies of that key are counted from there on."""
        slot = self._recent.get((source[0], fingerprint))
        if slot is None:
            return False
        if count:
            self._copy_counts[source][slot[1]] = slot[2]
        return True

    def _settle(self, job: int, final: bool) -> list[Finding]:
        """Suspects explained by a record kept since (realigned) or left too long (conflicts)."""
        found: list[Finding] = []
        waiting: list[_Suspect] = []
        for suspect in self._suspects:
            if suspect.source[0] != job:
                waiting.append(suspect)
            elif self._realign(suspect.source, suspect.fingerprint, count=False):
                continue  # its record came after it: later copies were realigned on their own
            elif final or self._kept_total[job] - suspect.kept_at >= HORIZON:
                found.extend(self._conflict(suspect))
            else:
                waiting.append(suspect)
        self._suspects = waiting
        return found

    def finish(self) -> list[Finding]:
        """At the end of the file: every suspect left is a conflict."""
        found = self._late + [f for suspect in self._suspects for f in self._conflict(suspect)]
        self._suspects, self._late = [], []
        return found

    def _conflict(self, suspect: _Suspect) -> list[Finding]:
        entry = suspect.entry
        job = suspect.source[0]
        kept = Printed((job, self.logging_rank.get(job, -1)), entry[1], entry[0].decode("utf-8", "replace"))
        copy = Printed(suspect.source, suspect.line, suspect.text.decode("utf-8", "replace"))
        found = conflict(self.path, kept, copy, entry[4])
        if found is None:
            return []
        self.conflicts += 1
        return [found] if self.conflicts <= MAX_CONFLICT_FINDINGS else []

    def describe(self) -> str:
        """The part of the MLC020 message about copies."""
        return copies_described(self)
