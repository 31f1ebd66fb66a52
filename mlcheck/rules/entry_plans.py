"""What the key checks (:mod:`mlcheck.rules.key_checks`) ask of an entry and of each record of its
key, decided once per entry, and the screens that find, with one comprehension per metadata field
asked, the few records that may fail (each of them is then asked as every record would be)."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from mlcheck.facts.checks import value_test
from mlcheck.facts.constraints import Entry, holds
from mlcheck.model import Event


class EntryPlan:
    """What the key checks ask of an entry and of every record of its key,
    decided once per entry."""

    __slots__ = ("counted", "group", "asks", "metadata", "screen", "passes", "value_only", "after", "submission")

    def __init__(self, entry: Entry) -> None:
        self.counted = entry.req is not None and entry.req != "OPTIONAL"  # (else: nothing to count)
        self.group = frozenset((entry.key, *entry.alternatives)) if entry.req == "AT_LEAST_ONE_OR" else frozenset()
        self.metadata = bool(entry.metadata or entry.metadata_one_of or entry.metadata_requires
                             or entry.metadata_check)
        self.asks = bool(entry.check is not None or entry.first_check is not None or self.metadata or entry.after)
        self.screen = _metadata_screen(entry) if self.metadata else None
        # The value check as a test of the value alone, where it reads nothing else: a value it
        # passes has nothing to report; any other is checked in full.
        self.passes = value_test(entry.check) if entry.check is not None else None
        # Only the value check is asked (of each record): records that all pass it say nothing.
        self.value_only = (entry.check is not None and entry.first_check is None and not self.metadata
                           and not entry.after)
        self.after = tuple(dict.fromkeys(entry.after))
        self.submission = entry.key.startswith("submission_")


def all_pass(test: Callable[[Any], bool] | None, events: tuple[Event, ...]) -> bool:
    """Whether every record's value surely passes the test (False: not known, or one fails)."""
    if test is None:
        return False
    if len(events) == 1:
        return passes(test, events[0][1])
    return all(passes(test, event[1]) for event in events)


_PLANS: dict[int, tuple[Entry, EntryPlan]] = {}
_MAX_PLANS = 1 << 14


def plan_of(entry: Entry) -> EntryPlan:
    # (keyed by identity: the entries of a round are loaded once and live as long as the process;
    # the entry is held with its plan, so that its id is never another entry's)
    held = _PLANS.get(id(entry))
    if held is not None and held[0] is entry:
        return held[1]
    plan = EntryPlan(entry)
    if len(_PLANS) < _MAX_PLANS:
        _PLANS[id(entry)] = (entry, plan)
    return plan


_PLANNED: dict[int, tuple[tuple[Entry, ...], tuple[tuple[Entry, EntryPlan], ...]]] = {}


def planned(entries: Iterable[Entry]) -> Sequence[tuple[Entry, EntryPlan]]:
    """Each entry with its plan; for a tuple of entries (a round's, held as long as it is: the
    tuple is held with them), made once."""
    if type(entries) is not tuple:
        return [(entry, plan_of(entry)) for entry in entries]
    held = _PLANNED.get(id(entries))
    if held is not None and held[0] is entries:
        return held[1]
    rows = tuple((entry, plan_of(entry)) for entry in entries)
    if len(_PLANNED) < _MAX_PLANS:
        _PLANNED[id(entries)] = (entries, rows)
    return rows


Screen = Callable[[tuple[Event, ...]], list[int]]


def _metadata_screen(entry: Entry) -> Screen | None:
    """The positions of the records whose metadata :func:`metadata_passes` may not pass, found
    with one comprehension per field asked (a superset: each is asked again one at a time); None
    when a field's check is not a plain value test (each record is then asked on its own)."""
    tests = []
    for field_name, check in (entry.metadata_check or {}).items():
        test = value_test(check)
        if test is None:
            return None
        tests.append((field_name, test))
    screens: list[Screen] = [_lacking(name) for name in entry.metadata]
    one_of = entry.metadata_one_of
    if len(one_of) == 1:
        screens.append(_lacking(one_of[0]))
    elif len(one_of) == 2:
        screens.append(_lacking_both(*one_of))
    elif one_of:
        screens.append(lambda events: [i for i, e in enumerate(events) if not any(n in e[2] for n in one_of)])
    for present, needed in (entry.metadata_requires or {}).items():
        screens.extend(_lacking_with(present, name) for name in needed)
    screens.extend(_failing(name, test) for name, test in tests)
    if len(screens) == 1:
        return screens[0]

    def screen(events: tuple[Event, ...]) -> list[int]:
        found: set[int] = set()
        for lacking in screens:
            found.update(lacking(events))
        return sorted(found)
    return screen


def _lacking(name: str) -> Screen:
    return lambda events: [i for i, e in enumerate(events) if name not in e[2]]


def _lacking_both(first: str, second: str) -> Screen:
    return lambda events: [i for i, e in enumerate(events) if first not in e[2] and second not in e[2]]


def _lacking_with(present: str, name: str) -> Screen:
    return lambda events: [i for i, e in enumerate(events) if present in e[2] and name not in e[2]]


def _failing(name: str, test: Callable[[Any], bool]) -> Screen:
    return lambda events: [i for i, e in enumerate(events) if name in e[2] and not test(e[2][name])]


def passes(test: Callable[[Any], bool] | None, value: Any) -> bool:
    """Whether the value surely passes (False: not known, or it fails)."""
    if test is None:
        return False
    try:
        return bool(test(value))
    except Exception:  # noqa: BLE001 - the full check meets it again, and the rule reports it
        return False


def _none(events: tuple[Event, ...]) -> list[int]:
    return []


NO_SCREEN: Screen = _none


def suspects(events: tuple[Event, ...], screen: Screen | None,
              firsts_after: list[tuple[str, Event | None]]) -> Iterable[int]:
    """The positions of the records that may fail a metadata or order test (all of them when the
    screen cannot tell, or when a key they must follow is not logged)."""
    if screen is None or any(first is None for _key, first in firsts_after):
        return range(len(events))
    try:
        found = screen(events)
    except Exception:  # noqa: BLE001 - each record is asked on its own, which meets it again
        return range(len(events))
    if firsts_after:
        before = max(first.line for _key, first in firsts_after if first is not None)
        early = [i for i, e in enumerate(events) if e[4] < before]  # Event.line
        if early:
            found = sorted({*found, *early})
    return found


def metadata_passes(entry: Entry, metadata: Mapping[str, Any], value_of: Callable[[str], Any]) -> bool:
    """True when ``_metadata`` of :mod:`mlcheck.rules.key_checks` has nothing to say of a record with this metadata (False: ask
    it). A field's check is tested here as there (``value_of``: the run's); one that raises is
    left to it, which raises the same."""
    for name in entry.metadata:
        if name not in metadata:
            return False
    if entry.metadata_one_of and not any(name in metadata for name in entry.metadata_one_of):
        return False
    for present, needed in (entry.metadata_requires or {}).items():
        if present in metadata and any(name not in metadata for name in needed):
            return False
    for name, check in (entry.metadata_check or {}).items():
        if name in metadata:
            try:
                if not holds(check, metadata[name], value_of):
                    return False
            except Exception:  # noqa: BLE001 - _metadata meets it again, and the rule reports it
                return False
    return True
