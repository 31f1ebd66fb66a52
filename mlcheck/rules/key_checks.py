"""Apply constraint entries (``mlcheck.facts.constraints.Entry``) to a run: occurrences, values, metadata
and order. Shared by the required-keys and hyper-parameter rule modules, which choose the codes."""

from __future__ import annotations

from typing import Iterable, Iterator, Sequence

from mlcheck.records import dataclass, field
from mlcheck.facts.constraints import Entry, show
from mlcheck.model import Event, Finding, Run
from mlcheck.rule import Rule, RunContext
from mlcheck.rules.checker_state import EMPTY, StateTimeline
from mlcheck.rules.entry_plans import EntryPlan, all_pass, passes, planned
from mlcheck.rules.key_values import cadence_findings, value_findings
from mlcheck.rules.near_names import near_name

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
    rows = planned(entries)
    for entry, plan in rows:
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
                near = _logged_instead(run, key, rows)
                alone = f"{key} is not logged; {who} requires {many} ({entry.source})" + (
                    f"; line {near[1]} logs {near[0]}: is it this key under another name?" if near else "")
                if gathered is not None:
                    gathered.missing.append((key, f"{key} ({many})", entry.source, alone))
                else:
                    yield ctx.at(codes.missing, near[1] if near else anchor, alone)
            elif req == "AT_LEAST" and count < entry.min_count:
                logged = "is not logged" if count == 0 else f"is logged {count} time{'s' if count > 1 else ''}"
                yield ctx.at(codes.missing, events[-1].line if events else anchor,
                             f"{key} {logged}; {who} requires at least {entry.min_count} ({entry.source})")
            elif count > 1 and req == "EXACTLY_ONE":
                if gathered is not None and all(same_value(e.value, events[0].value) for e in events):
                    gathered.repeated.append((entry, events))
                else:
                    yield _repeated(ctx, entry, events, codes)
        if events:  # (no record of the key: nothing to ask of its records)
            if not plan.asks:
                pass
            elif plan.value_only and len(events) == 1 and plan.passes is not None:
                if not passes(plan.passes, events[0][1]):  # (the common entry: one record)
                    yield from value_findings(ctx, entry, events, codes, who, states, plan)
            elif not (plan.value_only and all_pass(plan.passes, events)):
                yield from value_findings(ctx, entry, events, codes, who, states, plan)
            if entry.cadence is not None:
                yield from cadence_findings(ctx, entry, events, codes, who, states)


def _repeated(ctx: RunContext, entry: Entry, events: tuple[Event, ...], codes: EntryCodes) -> Finding:
    lines = ", ".join(str(e.line) for e in events[:_MAX_LISTED]) + (", ..." if len(events) > _MAX_LISTED else "")
    values = [e.value for e in events]
    if all(same_value(v, values[0]) for v in values):
        return ctx.at(codes.repeated, events[1].line,
                      f"{entry.key} is logged {ctx.run.count(entry.key)} times with the same value "
                      f"{show(values[0])} (lines {lines}); exactly one is expected (the checker only warns)")
    differing = next(e for e in events if not same_value(e.value, values[0]))
    firsts: dict[str, Event] = {}  # (each value once, at its first line: not five copies of one)
    for event in events:
        firsts.setdefault(repr(event.value), event)
    shown = ", ".join(f"{show(e.value)} (line {e.line})" for e in list(firsts.values())[:_MAX_LISTED])
    return ctx.at(codes.conflict, differing.line,
                  f"{entry.key} is logged {ctx.run.count(entry.key)} times with different values: {shown}; "
                  f"exactly one is allowed ({entry.source})")


def same_value(value: object, first: object) -> bool:
    """Whether the checker's ``all_same`` (``l.count(l[0])``: identity, then ``==``) reads two
    values as one: its ``json`` gives every ``NaN`` of a log the same object, so two NaNs are."""
    return value == first or (type(value) is float and type(first) is float and value != value and first != first)


def _logged_instead(run: Run, key: str, rows: Sequence[tuple[Entry, EntryPlan]]) -> tuple[str, int] | None:
    """A key the run logs that none of ``rows`` asks for and reads like ``key`` (another round's name
    of it, ``opt_lamb_epsilon`` for ``opt_epsilon``; a typo), with the line of its first record."""
    known = {entry.key for entry, _plan in rows}
    others = [k for k in run.key_counts if k not in known and not k.startswith("submission_")]
    near = near_name(key, others)  # (difflib only for a key that is missing)
    events = run.occurrences(near) if near else ()
    return (near, events[0].line) if near and events else None
