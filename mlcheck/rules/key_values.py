"""What the records of a key are told when they fail a constraint entry: a value the entry's
check refuses (with the sides of its formula computed), metadata the entry asks for, a record
before a key it must follow, an evaluation off the entry's grid. :mod:`mlcheck.rules.key_checks`
applies the entries and asks these of the records that may fail."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping

from mlcheck.facts.constraints import Entry, describe, holds, show
from mlcheck.facts.formulas import (FormulaError, Scope, StateUnset, evaluate as compute, formula_holds, formula_reads_value,
                                    is_number_text, sides, states_read)
from mlcheck.model import Event, Finding
from mlcheck.rule import RunContext
from mlcheck.rules.checker_state import StateTimeline, values_logged_before
from mlcheck.rules.entry_plans import NO_SCREEN, EntryPlan, metadata_passes, passes, plan_of, suspects

if TYPE_CHECKING:
    from mlcheck.rules.key_checks import EntryCodes


def value_findings(ctx: RunContext, entry: Entry, events: tuple[Event, ...], codes: EntryCodes,
                   scope: str, states: StateTimeline, plan: EntryPlan | None = None) -> Iterator[Finding]:
    """What the records of an entry's key are told: a value the entry's checks refuse, metadata it
    asks for and lacks, a record logged before a key it must follow."""
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
        if holds(check, event.value, values_logged_before(ctx.run, event.line), record):
            return
    except StateUnset as unset:
        yield _unset(ctx, entry, event, check, codes, scope, states, unset.name)
        return
    text = (" (a string: the checker does not read it as a number; log the number)"
            if isinstance(event.value, str) and is_number_text(event.value) else "")
    computed, head = "", f"{entry.key} is {show(event.value)}{text}"
    formula = _failing_formula(check, record)
    if formula is not None:
        used = ", ".join(f"{name} {show(record.states[name])} ({'' if setter in (None, name) else f'from {setter}, '}"
                         f"line {states.origin(event.line, name)})"  # (a state the checker computes from a key)
                         for name in states_read(formula) if name in record.states
                         for setter in (states.setter(name),))
        read = _metadata_read(formula)
        fields = [f"{name} is {show(record.metadata[name])}" for name in read if name in record.metadata]
        computed = f"; {sides(formula, record, used)}"
        if read and not formula_reads_value(formula):  # (the record's metadata alone: 6.1 DeepSeek's first eval)
            head = f"{entry.key}'s {' and '.join(fields)}" if fields else f"{entry.key} has no {' or '.join(read)} in its metadata"
        elif fields:
            computed += f" (where {', '.join(fields)})"
    yield ctx.at(codes.invalid, event.line,
                 f"{head}; {scope} requires {describe(check)}{computed} ({entry.source})", official=official)


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
    ``all_of`` parts that does not hold (6.1 dlrmv4: the bound of the learning-rate band it misses);
    None when the formulas hold (another part fails: 6.1 Qwen's ``v == 16`` beside its batch
    product, which the message would otherwise show as computed and right)."""
    parts = [check["formula"]] if "formula" in check else [
        part["formula"] for part in check.get("all_of", ()) if "formula" in part]
    return next((f for f in parts if not formula_holds(f, record)), None)


def _unset(ctx: RunContext, entry: Entry, event: Event, check: Mapping[str, Any], codes: EntryCodes,
           scope: str, states: StateTimeline, name: str) -> Finding:
    setter = states.setter(name) or name
    first = ctx.run.first(setter)
    if first is not None and first.line < event.line:  # (logged before: its value is what fails)
        return ctx.at(codes.invalid, event.line,
                      f"{entry.key} at line {event.line} must be {describe(check)}, which {scope} computes from "
                      f"{setter}; {setter} at line {first.line} is {show(first.value)}, "
                      + ("not a number" if name == setter else f"from which the checker cannot compute {name}")
                      + f", and it fails the record ({entry.source}). Log {setter} as a number")
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
    for name, check in (entry.metadata_check or {}).items():
        if name in event.metadata and not holds(check, event.metadata[name], run.value_of):
            yield ctx.at(codes.metadata, event.line,
                         f"{entry.key} metadata {name} is {show(event.metadata[name])}; {scope} requires "
                         f"{describe(check)} ({entry.source})")


def cadence_findings(ctx: RunContext, entry: Entry, events: tuple[Event, ...], codes: EntryCodes, scope: str,
                     states: StateTimeline) -> Iterator[Finding]:
    """Each record must land on the next point of the grid; one that does not is a failure and
    leaves the point where it was (the checker's POST advances it only on a match, by adding the
    step to it: a running sum, as floats add up, not start + n * step)."""
    cadence = entry.cadence
    assert cadence is not None
    name = cadence.field.removeprefix("metadata.")
    used, point = 0, None
    starts, set_by = _states_read(cadence.start), None
    for event in events:
        if cadence.field != "value" and name not in event.metadata:
            continue  # the metadata checks report the missing field (a null is off the grid, as in the checker)
        position = event.value if cadence.field == "value" else event.metadata[name]
        origin = tuple(states.origin(event.line, state) for state in starts)
        if origin != set_by:  # (a record that sets the start again restarts the grid, as its POST does)
            used, set_by = 0, origin
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
        point = start if used == 0 else point
        if position == point:
            used, point = used + 1, point + step
            continue
        text = (" (a string, which the checker never finds equal to a number: log the number)"
                if isinstance(position, str) and is_number_text(position) else "")
        yield ctx.at(codes.invalid, event.line,
                     f"{entry.key} at {name} {show(position)}{text} is off the evaluation grid: the next point is "
                     f"{show(point)}; {scope} evaluates {cadence.text} ({entry.source})")


def _states_read(expr: Any) -> list[str]:
    """The checker states an expression reads (``{"state": "validation_start_samples"}``)."""
    if isinstance(expr, Mapping):
        own = [expr["state"]] if isinstance(expr.get("state"), str) else []
        return own + [name for value in expr.values() for name in _states_read(value)]
    if isinstance(expr, (list, tuple)):
        return [name for value in expr for name in _states_read(value)]
    return []
