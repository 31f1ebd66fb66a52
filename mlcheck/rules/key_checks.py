"""Apply constraint entries (``mlcheck.facts.constraints.Entry``) to a run: occurrences, values, metadata
and order. Shared by the required-keys and hyper-parameter rule modules, which choose the codes."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, Mapping

from mlcheck.records import dataclass, field
from mlcheck.facts.constraints import Entry, describe, holds, show
from mlcheck.facts.formulas import FormulaError, Scope, StateUnset, evaluate as compute, formula_holds, sides, states_read
from mlcheck.model import Event, Finding
from mlcheck.rule import Rule, RunContext
from mlcheck.rules.checker_state import EMPTY, StateTimeline
from mlcheck.rules.entry_plans import (NO_SCREEN, EntryPlan, all_pass, metadata_passes, passes, plan_of, planned,
                                      suspects)

_MAX_LISTED = 5


@dataclass(frozen=True)
class EntryCodes:
    """Which rule reports each kind of problem."""

    missing: Rule
    invalid: Rule
    conflict: Rule
    repeated: Rule
    metadata: Rule
    order: Rule


@dataclass
class Gathered:
    """Keys not logged and keys logged more than once, gathered over the entries of a run so
    that each kind is one finding listing its keys, rather than one finding per key."""

    missing: list[tuple[str, str, str, str]] = field(default_factory=list)
    """(what is missing, ``init_stop``; the same with what is required, ``init_stop (exactly
    one)``; the entry's source; the message of a finding about this key alone)."""
    repeated: list[tuple[Entry, tuple[Event, ...]]] = field(default_factory=list)

    def findings(self, ctx: RunContext, codes: EntryCodes, scope: str, anchor: int | None) -> Iterator[Finding]:
        """One finding for the keys not logged, one for the keys repeated with the same value."""
        if len(self.missing) == 1:
            yield ctx.at(codes.missing, anchor, self.missing[0][3])
        elif self.missing:
            names = [name for name, _item, _source, _alone in self.missing]
            sources = ", ".join(dict.fromkeys(source for _name, _item, source, _alone in self.missing))
            if all(source.endswith("/common.yaml") for _name, _item, source, _alone in self.missing):
                scope = "every run"  # (both divisions: common.yaml)
            yield ctx.at(codes.missing, anchor, f"{len(names)} required keys are not logged: "
                         f"{_listed(names)}; {scope} requires each ({sources})",
                         items=[item for _name, item, _source, _alone in self.missing])
        if len(self.repeated) == 1:
            entry, events = self.repeated[0]
            yield _repeated(ctx, entry, events, codes)
        elif self.repeated:
            described = [f"{entry.key} ({ctx.run.count(entry.key)} times, lines {_lines(events)})"
                         for entry, events in self.repeated]
            yield ctx.at(codes.repeated, min(events[1].line for _entry, events in self.repeated), (
                f"{len(described)} keys required once are logged several times, each with one value: "
                f"{_listed(described)}; exactly one of each is expected (the checker only warns)"),
                items=described)


_LISTED = 8


def _listed(names: list[str]) -> str:
    return ", ".join(names[:_LISTED]) + (", ..." if len(names) > _LISTED else "")


def _lines(events: tuple[Event, ...]) -> str:
    return ", ".join(str(e.line) for e in events[:_MAX_LISTED]) + (", ..." if len(events) > _MAX_LISTED else "")


def merged(*groups: Iterable[Entry]) -> list[Entry]:
    """Entries of later groups replace earlier entries for the same key, as a later official
    config file replaces the messages of an earlier one for that key."""
    by_key: dict[str, Entry] = {}
    for group in groups:
        for entry in group:
            by_key.pop(entry.key, None)
            by_key[entry.key] = entry
    return list(by_key.values())


def evaluate(ctx: RunContext, entries: Iterable[Entry], codes: EntryCodes, scope: str,
             anchor: int | None, states: StateTimeline = EMPTY,
             gathered: Gathered | None = None) -> Iterator[Finding]:
    """Findings for every entry; ``scope`` names who requires it ("closed ResNet"), ``anchor`` is
    the line reported for a key that is not logged at all, ``states`` what the checker's state
    holds at each record (for formulas). With ``gathered``, keys not logged and keys repeated
    with one value are added to it instead (the caller reports them together)."""
    run = ctx.run
    occurrences, count_of = run.occurrences, run.count
    groups_done: set[frozenset[str]] = set()
    for entry, plan in planned(entries):
        key, req = entry.key, entry.req
        who = "every run" if entry.source.endswith("/common.yaml") else scope  # (both divisions: common.yaml)
        events = occurrences(key)  # indexed by key once per run
        if plan.counted:
            count = count_of(key)
            if req == "AT_LEAST_ONE_OR":
                group = plan.group
                if group not in groups_done and not any(count_of(k) for k in group):
                    groups_done.add(group)
                    names = ", ".join(sorted(group))
                    alone = f"none of {names} is logged; {who} requires at least one of them ({entry.source})"
                    if gathered is not None:
                        gathered.missing.append((" or ".join(sorted(group)), f"one of {names}", entry.source, alone))
                    else:
                        yield ctx.at(codes.missing, anchor, alone)
            elif count == 0 and req in ("EXACTLY_ONE", "AT_LEAST_ONE"):
                many = "exactly one" if req == "EXACTLY_ONE" else "at least one"
                alone = f"{key} is not logged; {who} requires {many} ({entry.source})"
                if gathered is not None:
                    gathered.missing.append((key, f"{key} ({many})", entry.source, alone))
                else:
                    yield ctx.at(codes.missing, anchor, alone)
            elif req == "AT_LEAST" and count < entry.min_count:
                logged = "is not logged" if count == 0 else f"is logged {count} time{'s' if count > 1 else ''}"
                yield ctx.at(codes.missing, events[-1].line if events else anchor,
                             f"{key} {logged}; {who} requires at least {entry.min_count} ({entry.source})")
            elif count > 1 and req == "EXACTLY_ONE":
                if gathered is not None and all(e.value == events[0].value for e in events):
                    gathered.repeated.append((entry, events))
                else:
                    yield _repeated(ctx, entry, events, codes)
        if events:  # (no record of the key: nothing to ask of its records)
            if not plan.asks:
                pass
            elif plan.value_only and len(events) == 1 and plan.passes is not None:
                if not passes(plan.passes, events[0][1]):  # (the common entry: one record)
                    yield from _values(ctx, entry, events, codes, scope, states, plan)
            elif not (plan.value_only and all_pass(plan.passes, events)):
                yield from _values(ctx, entry, events, codes, scope, states, plan)
            if entry.cadence is not None:
                yield from _cadence(ctx, entry, events, codes, scope, states)


def _repeated(ctx: RunContext, entry: Entry, events: tuple[Event, ...], codes: EntryCodes) -> Finding:
    lines = ", ".join(str(e.line) for e in events[:_MAX_LISTED]) + (", ..." if len(events) > _MAX_LISTED else "")
    values = [e.value for e in events]
    if all(v == values[0] for v in values):
        return ctx.at(codes.repeated, events[1].line,
                      f"{entry.key} is logged {ctx.run.count(entry.key)} times with the same value "
                      f"{show(values[0])} (lines {lines}); exactly one is expected (the checker only warns)")
    differing = next(e for e in events if e.value != values[0])
    shown = ", ".join(f"{show(e.value)} (line {e.line})" for e in events[:_MAX_LISTED])
    return ctx.at(codes.conflict, differing.line,
                  f"{entry.key} is logged {ctx.run.count(entry.key)} times with different values: {shown}; "
                  f"exactly one is allowed ({entry.source})")


def _values(ctx: RunContext, entry: Entry, events: tuple[Event, ...], codes: EntryCodes,
            scope: str, states: StateTimeline, plan: EntryPlan | None = None) -> Iterator[Finding]:
    run = ctx.run
    if plan is None:
        plan = plan_of(entry)
    if not plan.asks:
        return  # (nothing asked of any event: init_start, cache_clear)
    firsts_after = [(key, run.first(key)) for key in plan.after]
    submission = plan.submission
    check, first_check = entry.check, entry.first_check
    metadata = plan.metadata
    value_of = run.value_of
    positions: Iterable[int] = range(len(events))
    if check is None and first_check is None:
        # Only metadata and order are asked: the records that may fail are found first (most
        # runs have none), and each of them is asked below as every record would be.
        positions = suspects(events, plan.screen if metadata else NO_SCREEN, firsts_after)
    for index in positions:
        event = events[index]
        # The official checker runs submission_* checks on the first occurrence only.
        if check is not None or (index == 0 and first_check is not None):
            official = None if index == 0 or not submission else False
            if check is not None and not passes(plan.passes, event[1]):
                yield from _value_check(ctx, entry, event, check, codes, scope, states, official)
            if index == 0 and first_check is not None:
                yield from _value_check(ctx, entry, event, first_check, codes, scope, states, official)
        if metadata and not metadata_passes(entry, event.metadata, value_of):  # (a test first: no generator per event)
            yield from _metadata(ctx, entry, event, codes, scope)
        for key, first_after in firsts_after:
            if first_after is None or event.line < first_after.line:
                where = "is not logged" if first_after is None else f"is first logged at line {first_after.line}"
                yield ctx.at(codes.order, event.line,
                             f"{entry.key} at line {event.line} comes before {key}, which {where} "
                             f"({entry.source})")


def _value_check(ctx: RunContext, entry: Entry, event: Event, check: Mapping[str, Any], codes: EntryCodes,
                 scope: str, states: StateTimeline, official: bool | None) -> Iterator[Finding]:
    record = states.scope(event)
    try:
        if holds(check, event.value, ctx.run.value_of, record):
            return
    except StateUnset as unset:
        yield _unset(ctx, entry, event, check, codes, scope, states, unset.name)
        return
    computed = ""
    formula = _failing_formula(check, record)
    if formula is not None:
        used = ", ".join(f"{name} {show(record.states[name])} (line {states.origin(event.line, name)})"
                         for name in states_read(formula) if name in record.states)
        fields = [f"{name} {show(record.metadata[name])}" for name in _metadata_read(formula)
                  if name in record.metadata]
        computed = (f"; computed {sides(formula, record)}" + (f" with {used}" if used else "")
                    + (f" (the record's {', '.join(fields)})" if fields else ""))
    yield ctx.at(codes.invalid, event.line,
                 f"{entry.key} is {show(event.value)}; {scope} requires {describe(check)}{computed} "
                 f"({entry.source})", official=official)


def _metadata_read(expr: Any) -> list[str]:
    """The metadata fields an expression reads (``{"this": "metadata.samples_count"}``)."""
    if isinstance(expr, Mapping):
        if isinstance(expr.get("this"), str) and expr["this"].startswith("metadata."):
            return [expr["this"].removeprefix("metadata.")]
        return [name for part in (expr.get("left"), expr.get("right"), *expr.get("args", ()))
                for name in _metadata_read(part)]
    return []


def _failing_formula(check: Mapping[str, Any], record: Scope) -> Mapping[str, Any] | None:
    """The formula whose computed sides a message shows: the check's own, or the first of its
    ``all_of`` parts that does not hold (6.1 dlrmv4: the bound of the learning-rate band it misses)."""
    if "formula" in check:
        return check["formula"]  # type: ignore[no-any-return]
    parts = [part["formula"] for part in check.get("all_of", ()) if "formula" in part]
    return next((f for f in parts if not formula_holds(f, record)), parts[0] if parts else None)


def _unset(ctx: RunContext, entry: Entry, event: Event, check: Mapping[str, Any], codes: EntryCodes,
           scope: str, states: StateTimeline, name: str) -> Finding:
    setter = states.setter(name) or name
    first = ctx.run.first(setter)
    where = "is not logged" if first is None else f"is first logged at line {first.line}"
    return ctx.at(codes.order, event.line,
                  f"{entry.key} at line {event.line} must be {describe(check)}, which {scope} computes from "
                  f"{setter}; {setter} {where}, so the checker's state has no {name} yet and it fails the "
                  f"record ({entry.source}). Log {setter} before {entry.key}")


def _metadata(ctx: RunContext, entry: Entry, event: Event, codes: EntryCodes, scope: str) -> Iterator[Finding]:
    run = ctx.run
    missing = [m for m in entry.metadata if m not in event.metadata]
    if missing:
        yield ctx.at(codes.metadata, event.line,
                     f"{entry.key} has no {' or '.join(missing)} in its metadata; {scope} requires "
                     f"{', '.join(entry.metadata)} ({entry.source})")
    if entry.metadata_one_of and not any(m in event.metadata for m in entry.metadata_one_of):
        yield ctx.at(codes.metadata, event.line,
                     f"{entry.key} has none of {', '.join(entry.metadata_one_of)} in its metadata; {scope} "
                     f"requires one of them ({entry.source})")
    for present, needed in (entry.metadata_requires or {}).items():
        absent = [m for m in needed if m not in event.metadata]
        if present in event.metadata and absent:
            yield ctx.at(codes.metadata, event.line,
                         f"{entry.key} has {present} but no {' or '.join(absent)} in its metadata; {scope} "
                         f"requires {', '.join(absent)} with {present} ({entry.source})")
    for field, check in (entry.metadata_check or {}).items():
        if field in event.metadata and not holds(check, event.metadata[field], run.value_of):
            yield ctx.at(codes.metadata, event.line,
                         f"{entry.key} metadata {field} is {show(event.metadata[field])}; {scope} requires "
                         f"{describe(check)} ({entry.source})")


def _cadence(ctx: RunContext, entry: Entry, events: tuple[Event, ...], codes: EntryCodes, scope: str,
             states: StateTimeline) -> Iterator[Finding]:
    """Each record must land on the next point of the grid; one that does not is a failure and
    leaves the point where it was (the checker's POST advances it only on a match)."""
    cadence = entry.cadence
    assert cadence is not None
    name = cadence.field.removeprefix("metadata.")
    used = 0
    for event in events:
        position = event.value if cadence.field == "value" else event.metadata.get(name)
        if position is None:
            continue  # the metadata checks report the missing field
        record = states.scope(event)
        try:
            start, step = compute(cadence.start, record), compute(cadence.step, record)
        except StateUnset as unset:
            yield _unset(ctx, entry, event, {"text": cadence.text}, codes, scope, states, unset.name)
            return
        except FormulaError as error:
            yield ctx.at(codes.invalid, event.line, f"the evaluation grid of {scope} cannot be computed "
                         f"({error}); it is {cadence.text} ({entry.source})")
            return
        point = start + used * step
        if position == point:
            used += 1
            continue
        yield ctx.at(codes.invalid, event.line,
                     f"{entry.key} at {name} {show(position)} is off the evaluation grid: the next point is "
                     f"{show(point)}; {scope} evaluates {cadence.text} ({entry.source})")
