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
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]')
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


def refuse_too_deep(text: str) -> None:
    """Raise ``RecursionError``, as ``json`` does, where ``text`` nests :data:`NESTING_LIMIT` levels or deeper."""
    deepest = nesting_depth(text)
    if deepest >= NESTING_LIMIT:
        raise RecursionError(f"maximum recursion depth exceeded while decoding JSON nested {deepest} levels deep")


_SHALLOW = 200
"""Fewer brackets than this nest too little for any stack to make ``json`` refuse them."""


def within_limit(decode: Callable[[str], T], text: str) -> T:
    """``decode(text)`` (a ``json`` decoding) within :data:`NESTING_LIMIT`: refused from that depth,
    and read below it however deep the call stack is (Python's recursion limit, which ``json``
    counts on 3.10 and 3.11, is raised for the call where the text has many brackets)."""
    if text.count("[") + text.count("{") < _SHALLOW:
        return decode(text)
    refuse_too_deep(text)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, NESTING_LIMIT + 1000))
    try:
        return decode(text)
    finally:
        sys.setrecursionlimit(limit)


def loads(text: str) -> Any:
    """``json.loads`` within :data:`NESTING_LIMIT`."""
    return within_limit(json.loads, text)
