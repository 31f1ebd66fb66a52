"""mlcheck's own limit on how deeply a JSON text may nest, the same on every interpreter.

Python's ``json`` refuses a text nested too deeply with ``RecursionError``, and where it does is the
interpreter's: about 1,000 levels less the frames above the call on Python 3.10 and 3.11 (where
the official tools of rounds 1.0-5.1 ran), thousands on 3.12 and later. A record, a system
description or a power log nested :data:`NESTING_LIMIT` levels or deeper is refused here as
``json`` refuses it on 3.10 and 3.11 (MLC003; the official parser's RecursionError), so the
verdict does not depend on the Python that runs mlcheck; one a little shallower than the official
tool's own limit may be read by it and not by mlcheck (a record holds a flat value)."""

from __future__ import annotations

import json
import re
import sys
from typing import Any, Callable, TypeVar

T = TypeVar("T")

NESTING_LIMIT = 950
"""Levels of arrays and objects at which a JSON text is refused (``json`` reads over 960 levels
where mlcheck reads a log on Python 3.10 and 3.11, and refuses 1,000)."""
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]')
"""A string (skipped whole, in C; an unclosed one to the end) or a bracket."""


def nesting_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text``, counted outside strings; 0 for a text
    with fewer brackets than :data:`NESTING_LIMIT` (it cannot reach it; counted in C)."""
    if text.count("[") + text.count("{") < NESTING_LIMIT:
        return 0
    depth = deepest = 0
    for token in _TOKENS.finditer(text):
        mark = token.group()
        if mark in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif mark in "]}":
            depth -= 1
    return deepest


def value_depth(value: Any) -> int:
    """How deeply arrays and objects nest in a decoded value (a tuple, ``raw_decode``'s, is none)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, depth + 1)
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
        elif isinstance(item, tuple):
            stack.extend((child, depth) for child in item)
    return deepest


_SHALLOW = 200
"""Fewer brackets than this nest too little for any stack to make ``json`` refuse them."""


def _too_deep(deepest: int) -> RecursionError:
    return RecursionError(f"maximum recursion depth exceeded while decoding JSON nested {deepest} levels deep")


def within_limit(decode: Callable[[str], T], text: str) -> T:
    """``decode(text)`` (a ``json`` decoding) as on Python 3.10 and 3.11 within :data:`NESTING_LIMIT`:
    the value it decodes refused where it nests that deep, a syntax error where the text before it
    nests that deep (3.10 raised first); below it read however deep the call stack is (Python's
    recursion limit, which ``json`` counts on 3.10 and 3.11, raised for the call). What lies after
    the value, or after an error, is not counted: ``json`` never reads it."""
    if text.count("[") + text.count("{") < _SHALLOW:
        return decode(text)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, NESTING_LIMIT + 1000))
    try:
        value = decode(text)
    except json.JSONDecodeError as error:
        if (deepest := nesting_depth(text[:error.pos])) >= NESTING_LIMIT:
            raise _too_deep(deepest) from None
        raise
    finally:
        sys.setrecursionlimit(limit)
    if (deepest := value_depth(value)) >= NESTING_LIMIT:
        raise _too_deep(deepest)
    return value


def loads(text: str) -> Any:
    """``json.loads`` within :data:`NESTING_LIMIT`."""
    return within_limit(json.loads, text)
