"""The values a round's checker keeps in its state while it reads a log, replayed from the run.

The official checker reads a log top to bottom; ``POST`` code stores values (``s['global_batch_size']
= v['value']``, or a value computed from it) that the CHECK of a later record reads. The benchmark's
:class:`~mlcheck.facts.formulas.StateDef` entries say which key sets which state and how; a
:class:`StateTimeline` replays them over the run so that a formula sees, for each record, exactly the
states set by records logged before it.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from mlcheck.records import dataclass
from mlcheck.facts.formulas import FormulaError, Scope, StateDef, StateUnset, evaluate
from mlcheck.model import Event, Run


@dataclass(frozen=True)
class StateTimeline:
    """The states after each record that sets one: ``(line, states, origin)`` in log order, where
    ``origin`` maps a state to the line of the record that set it."""

    snapshots: tuple[tuple[int, Mapping[str, Any], Mapping[str, int]], ...]
    defs: tuple[StateDef, ...]

    def at(self, line: int) -> Mapping[str, Any]:
        """The states a record at ``line`` is checked with (those set by earlier lines)."""
        current: Mapping[str, Any] = {}
        for set_line, states, _origin in self.snapshots:
            if set_line >= line:
                break
            current = states
        return current

    def origin(self, line: int, name: str) -> int | None:
        """The line of the record whose POST set ``name`` as a record at ``line`` sees it."""
        found: int | None = None
        for set_line, _states, origins in self.snapshots:
            if set_line >= line:
                break
            found = origins.get(name, found)
        return found

    def setter(self, name: str) -> str | None:
        """The key whose record sets the state ``name``."""
        return next((d.set_by for d in self.defs if d.name == name), None)

    def scope(self, event: Event) -> Scope:
        """What a formula on this record reads."""
        return Scope(event.value, event.metadata, self.at(event.line))


def replay(run: Run, defs: Iterable[StateDef]) -> StateTimeline:
    """Run the state definitions over the run's records in log order. A definition whose value
    cannot be computed (a state it reads is unset, the logged value is not a number) leaves the
    state unset, as the checker's failing POST does."""
    defs = tuple(defs)
    keys = {d.set_by for d in defs}
    setters = sorted((e for key in keys for e in run.occurrences(key)), key=lambda e: e.line)
    snapshots: list[tuple[int, Mapping[str, Any], Mapping[str, int]]] = []
    states: dict[str, Any] = {}
    origins: dict[str, int] = {}
    for event in setters:
        for definition in (d for d in defs if d.set_by == event.key):
            try:
                states[definition.name] = evaluate(definition.value, Scope(event.value, event.metadata, states))
                origins[definition.name] = event.line
            except (FormulaError, StateUnset):
                states.pop(definition.name, None)
        snapshots.append((event.line, dict(states), dict(origins)))
    return StateTimeline(tuple(snapshots), defs)


EMPTY = StateTimeline((), ())


def values_logged_before(run: Run, line: int) -> Callable[[str], Any]:
    """The run's values as a record's check reads another key's (``only_when``: the checker's
    ``s['global_batch_size']``, set by that key's POST): a key first logged after the record (at
    ``line``) is not set yet, and the checker fails the record (2.0-3.1 Mask R-CNN's learning rate)."""
    def value_of(key: str) -> Any:
        first = run.first(key)
        if first is not None and first.line > line:
            raise StateUnset(key)
        return run.value_of(key)
    return value_of
