"""The errors jsonschema reports for a system description, found without jsonschema for the small
part of the schema language that ``schemas/system-description.schema.json`` uses.

Every package has system descriptions; validating them with jsonschema meant importing it (about
40 ms at every start) and walking its validators (about 1 ms a file). Here each keyword of the
schema is a test that says "passes", "fails" or "not sure" (NaN against ``minimum``);
:func:`quick_validator` gives, for a document, the errors jsonschema would give (one per failing
field, in the form the rule reads: keyword, its value, the path and the value found), or None
where it is not sure or a field fails two keywords, and the caller then asks jsonschema.
Supported: ``type``, ``required``, ``properties``, ``enum``, ``pattern``, ``minLength``,
``maxLength``, ``minimum``, ``anyOf`` and ``$ref`` to ``#/$defs/``; a schema with any other keyword
has no quick validator. ``tests/test_schema_accepts.py`` compares both on every published
description and on thousands of mutations.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping, Optional

from mlcheck.records import dataclass, field

Verdict = Optional[bool]
"""True: passes; False: surely fails; None: not sure."""
Test = Callable[[Any], Verdict]


@dataclass(frozen=True)
class QuickError:
    """What the rule reads of a jsonschema error."""

    validator: str
    validator_value: Any
    instance: Any
    absolute_path: list[str] = field(default_factory=list)
    message: str = ""  # (errors are sorted by path, then message: one error per path here)


QuickValidator = Callable[[Any], Optional[list[QuickError]]]

_NOTES = frozenset({"$schema", "$id", "$comment", "title", "description", "$defs"})
"""Keywords that do not constrain an instance (``$defs`` is read through ``$ref``)."""
_NUMBER = (int, float)


def _integer(value: Any) -> Verdict:
    return type(value) is int or (type(value) is float and value.is_integer())  # (1.0 is one: JSON Schema)


_TYPES: Mapping[str, Test] = {
    "string": lambda v: type(v) is str, "number": lambda v: type(v) in _NUMBER, "integer": _integer,
    "object": lambda v: type(v) is dict, "array": lambda v: type(v) is list,
    "boolean": lambda v: type(v) is bool, "null": lambda v: v is None,
}


class _Unsupported(Exception):
    pass


def quick_validator(schema: Mapping[str, Any]) -> QuickValidator | None:
    """The errors of an object under a schema of ``required`` and ``properties`` (or None when
    not sure), or None when the schema uses a keyword outside the supported part."""
    defs = schema.get("$defs", {})
    if set(schema) - _NOTES - {"type", "required", "properties"} or schema.get("type", "object") != "object":
        return None
    try:
        fields = [(name, _compile(sub, defs)) for name, sub in schema.get("properties", {}).items()]
    except _Unsupported:
        return None
    required = schema.get("required", [])

    def errors(instance: Any) -> list[QuickError] | None:
        if type(instance) is not dict:
            return None
        found = [QuickError("required", required, instance, message=f"{name!r} is a required property")
                 for name in required if name not in instance]  # (one error per field, as jsonschema)
        for name, tests in fields:
            if name not in instance:
                continue
            value = instance[name]
            failed = []
            for word, word_value, test in tests:
                verdict = test(value)
                if verdict is None:
                    return None
                if not verdict:
                    failed.append((word, word_value))
            if len(failed) > 1:
                return None  # (jsonschema's order of two errors on one field: ask it)
            if failed:
                found.append(QuickError(failed[0][0], failed[0][1], value, [name]))
        return found

    return errors


def _compile(schema: Any, defs: Mapping[str, Any]) -> list[tuple[str, Any, Test]]:
    """The keyword tests of a subschema: (keyword, its value, test)."""
    if not isinstance(schema, dict):
        raise _Unsupported
    if "$ref" in schema:
        ref = schema["$ref"]
        name = ref[len("#/$defs/"):] if isinstance(ref, str) and ref.startswith("#/$defs/") else ""
        if name not in defs or set(schema) - _NOTES - {"$ref"}:
            raise _Unsupported
        return _compile(defs[name], defs)
    return [(word, value, _keyword(word, value, defs)) for word, value in schema.items() if word not in _NOTES]


def _all(tests: list[Test]) -> Test:
    def test(value: Any) -> Verdict:
        verdicts = [t(value) for t in tests]
        return False if False in verdicts else None if None in verdicts else True
    return test


def _keyword(word: str, value: Any, defs: Mapping[str, Any]) -> Test:
    if word == "type":
        names = [value] if isinstance(value, str) else value
        if not isinstance(names, list) or not names or any(n not in _TYPES for n in names):
            raise _Unsupported
        kinds = [_TYPES[n] for n in names]
        return lambda v: _any([kind(v) for kind in kinds])
    if word == "enum" and isinstance(value, list) and all(isinstance(item, str) for item in value):
        return lambda v: type(v) is str and v in value  # (no string equals a number or a bool)
    if word == "pattern" and isinstance(value, str):
        pattern = re.compile(value)  # jsonschema searches with Python's re, as here
        return lambda v: type(v) is not str or pattern.search(v) is not None
    if word == "minLength" and type(value) is int:
        return lambda v: type(v) is not str or len(v) >= value
    if word == "maxLength" and type(value) is int:
        return lambda v: type(v) is not str or len(v) <= value
    if word == "minimum" and type(value) in _NUMBER:
        return lambda v: True if type(v) not in _NUMBER else None if v != v else v >= value
    if word == "anyOf" and isinstance(value, list) and value:
        options = [_all([test for _, _, test in _compile(sub, defs)]) for sub in value]
        return lambda v: _any([option(v) for option in options])
    raise _Unsupported


def _any(verdicts: list[Verdict]) -> Verdict:
    return True if True in verdicts else None if None in verdicts else False
