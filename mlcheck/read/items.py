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


@dataclass(frozen=True, slots=True)
class RefusedRecordText:
    """A whole record of the logging rank that the reader refuses (no key, a time that is null, an
    array: its finding comes before it), with its exact text: ``split`` writes it as printed, so
    that the result file is refused as the console's run is."""

    line: int
    text: str


LogItem = Union[Event, Finding]
RawItem = Union[RecordText, RefusedRecordText, Finding]
AnyItem = Union[Event, RecordText, RefusedRecordText, Finding]

__all__ = ["AnyItem", "LogItem", "RawItem", "RecordText", "RefusedRecordText"]
