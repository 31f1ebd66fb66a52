"""What the line reader yields: events, events with their record's text, findings."""

from __future__ import annotations

from typing import Union

from mlcheck.records import dataclass
from mlcheck.model import Event, Finding


@dataclass(frozen=True, slots=True)
class RecordText:
    """A kept event with the exact text of its record (``:::MLLOG {...}``, without tag or line end)."""

    event: Event
    text: str


LogItem = Union[Event, Finding]
RawItem = Union[RecordText, Finding]
AnyItem = Union[Event, RecordText, Finding]

__all__ = ["AnyItem", "LogItem", "RawItem", "RecordText"]
