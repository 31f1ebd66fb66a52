"""The system description fields the round's ``system_desc_checker`` joins into the summary row
of the results table (MLC512, an error).

Checker of record: ``system_desc_checker.check_system_desc``, the same code in every round's
release (1.0 to today's 4.1.68): ``",".join([...])`` of ``submitter``, ``system_name``,
``host_processor_model_name``, ``host_processor_core_count``, ``accelerator_model_name``,
``accelerators_per_node`` and ``framework``. A value there that is not a string (the number 8, a
list, null, true) raises TypeError, and the package checker stops on it: the package fails. Any
other field may hold any JSON value for the checker (its type is at most a warning, see
:mod:`mlcheck.rules.package_system`), but for the counts the result summarizer reads with
``int()`` and the notes it joins with ``';'.join()`` (``result_summarizer.py``: a value it
refuses stops it, an error too, but not ``official``: the package checker passes the package, as
the summarizer's stops of MLC506 and MLC543 are not).
"""

from __future__ import annotations

from typing import Any, Callable

from mlcheck.model import Finding, Severity
from mlcheck.rule import Rule

JOINED_FIELDS = ("submitter", "system_name", "host_processor_model_name", "host_processor_core_count",
                 "accelerator_model_name", "accelerators_per_node", "framework")


_JSON_TYPE = {bool: "the boolean", int: "the number", float: "the number", list: "the array",
              dict: "the object"}


def crashing_fields(data: dict[str, Any]) -> list[str]:
    """The joined fields present with a value that is not a string."""
    return [field for field in JOINED_FIELDS if field in data and not isinstance(data[field], str)]


def joined_field_findings(rule: Rule, path: str, data: dict[str, Any],
                          line_of: Callable[[str], int | None]) -> list[Finding]:
    """An error for each joined field whose value is present and not a string."""
    found = []
    for field in crashing_fields(data):
        value = data[field]
        shown = "null" if value is None else f"{_JSON_TYPE.get(type(value), 'a value')} {str(value)[:60]}"
        found.append(rule.at(path, line_of(field), (
            f"field {field!r} is {shown}: the system_desc_checker joins it into the results table's "
            "row with ','.join(), which raises TypeError on anything but text, so the package "
            f"checker crashes on this file. Write it as a string, e.g. \"{_as_text(value)}\""),
            severity=Severity.ERROR, official=True))
    return found


COUNTED_FIELDS = ("number_of_nodes", "accelerators_per_node", "host_processors_per_node")
"""The fields the result summarizer multiplies with ``int()`` for the table's processor and
accelerator counts (``int(desc['accelerators_per_node']) * int(desc['number_of_nodes'])``)."""


def uncountable_fields(data: dict[str, Any]) -> list[str]:
    """The counted fields present whose value ``int()`` refuses (``""``, ``"2.0"``, ``"two"``)."""
    found = []
    for field in COUNTED_FIELDS:
        if field in data:
            try:
                int(data[field])
            except (TypeError, ValueError, OverflowError):
                found.append(field)
    return found


def counted_field_findings(rule: Rule, path: str, data: dict[str, Any],
                           line_of: Callable[[str], int | None]) -> list[Finding]:
    """An error for each counted field ``int()`` refuses (a joined one that is not text is said
    by :func:`joined_field_findings` already)."""
    joined = crashing_fields(data)
    return [rule.at(path, line_of(field), (
        f"field {field!r} is {data[field]!r}: the result summarizer multiplies int({field}) to count the "
        f"system's processors and accelerators, which raises {_raised(data[field])} here, so it stops and writes no "
        "results for the package (the package checker itself accepts the file). Write a whole number, e.g. \"8\""),
        severity=Severity.ERROR, official=False)
        for field in uncountable_fields(data) if field not in joined]


def _raised(value: Any) -> str:
    """What ``int(value)`` raises."""
    try:
        int(value)
    except Exception as error:  # noqa: BLE001 - its name is the message
        return type(error).__name__
    return "nothing"


NOTES_FIELDS = ("hw_notes", "sw_notes")
"""The fields the result summarizer joins into the table's notes (``';'.join(s for s in
(desc['hw_notes'], desc['sw_notes']) if s)``): a value other than text that is not empty (0,
false and null are left out) raises TypeError there."""


def unjoinable_notes(data: dict[str, Any]) -> list[str]:
    """The notes fields present whose value the summarizer's join refuses."""
    return [field for field in NOTES_FIELDS if field in data and data[field] and not isinstance(data[field], str)]


def notes_field_findings(rule: Rule, path: str, data: dict[str, Any],
                         line_of: Callable[[str], int | None]) -> list[Finding]:
    """An error for each notes field the result summarizer cannot join."""
    return [rule.at(path, line_of(field), (
        f"field {field!r} is {str(data[field])[:60]}: the result summarizer joins hw_notes and sw_notes "
        "with ';'.join(), which raises TypeError on anything but text, so it stops and writes no results "
        f"for the package (the package checker itself accepts the file). Write it as a string, e.g. "
        f"\"{_as_text(data[field])}\""), severity=Severity.ERROR, official=False) for field in unjoinable_notes(data)]


def _as_text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
