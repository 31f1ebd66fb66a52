"""Whether a JSON document surely passes a JSON Schema, decided without jsonschema for the small
part of the schema language that ``schemas/system-description.schema.json`` uses.

Every package has system descriptions, and validating them with jsonschema meant importing it
(about 40 ms at every start) and walking its validators (about 0.2 ms a file). Nearly every
published description passes; :func:`acceptor` answers True only where jsonschema would find no
error, and False where it is not sure, so that the caller then asks jsonschema, which words the
findings as before. Supported: ``type``, ``required``, ``properties``, ``enum`` and ``pattern`` (of
strings), ``minLength``, ``maxLength``, ``minimum``, ``anyOf`` and ``$ref`` to ``#/$defs/``; a
schema with any other keyword gets no acceptor (None) and is always validated by jsonschema.
``tests/test_schema_accepts.py`` compares both on mutated descriptions.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

Accepts = Callable[[Any], bool]

_NOTES = frozenset({"$schema", "$id", "$comment", "title", "description", "$defs"})
"""Keywords that do not constrain an instance (``$defs`` is read through ``$ref``)."""
_TYPES: Mapping[str, Accepts] = {
    "string": lambda v: type(v) is str,
    "number": lambda v: type(v) is int or type(v) is float,
    "integer": lambda v: type(v) is int,  # (a float like 1.0 is one too for jsonschema: not sure)
    "object": lambda v: type(v) is dict,
    "array": lambda v: type(v) is list,
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
}


class _Unsupported(Exception):
    pass


def acceptor(schema: Mapping[str, Any]) -> Accepts | None:
    """A test that is True only for instances jsonschema finds no error in, or None when the
    schema uses a keyword outside the supported part."""
    try:
        return _compile(schema, schema.get("$defs", {}))
    except _Unsupported:
        return None


def _compile(schema: Any, defs: Mapping[str, Any]) -> Accepts:
    if not isinstance(schema, dict):
        raise _Unsupported
    if "$ref" in schema:
        ref = schema["$ref"]
        name = ref[len("#/$defs/"):] if isinstance(ref, str) and ref.startswith("#/$defs/") else ""
        if name not in defs or set(schema) - _NOTES - {"$ref"}:
            raise _Unsupported
        return _compile(defs[name], defs)
    tests = [_keyword(word, value, defs) for word, value in schema.items() if word not in _NOTES]
    return lambda instance: all(test(instance) for test in tests)


def _keyword(word: str, value: Any, defs: Mapping[str, Any]) -> Accepts:
    if word == "type":
        names = [value] if isinstance(value, str) else value
        if not isinstance(names, list) or not names or any(n not in _TYPES for n in names):
            raise _Unsupported
        kinds = [_TYPES[n] for n in names]
        return lambda v: any(kind(v) for kind in kinds)
    if word == "required" and isinstance(value, list) and all(isinstance(k, str) for k in value):
        return lambda v: type(v) is not dict or all(k in v for k in value)
    if word == "properties" and isinstance(value, dict):
        fields = {name: _compile(sub, defs) for name, sub in value.items()}
        return lambda v: type(v) is not dict or all(test(v[k]) for k, test in fields.items() if k in v)
    if word == "enum" and isinstance(value, list):
        texts = {item for item in value if isinstance(item, str)}  # only strings are compared here
        return lambda v: type(v) is str and v in texts
    if word == "pattern" and isinstance(value, str):
        pattern = re.compile(value)  # jsonschema searches with Python's re, as here
        return lambda v: type(v) is not str or pattern.search(v) is not None
    if word in ("minLength", "maxLength") and type(value) is int:
        if word == "minLength":
            return lambda v: type(v) is not str or len(v) >= value
        return lambda v: type(v) is not str or len(v) <= value
    if word == "minimum" and type(value) in (int, float):
        return lambda v: type(v) not in (int, float) or v >= value
    if word == "anyOf" and isinstance(value, list) and value:
        options = [_compile(sub, defs) for sub in value]
        return lambda v: any(option(v) for option in options)
    raise _Unsupported
