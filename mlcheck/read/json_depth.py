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
import threading
from array import array
from itertools import accumulate
from typing import Any, Callable, TypeVar

T = TypeVar("T")

NESTING_LIMIT = 950
"""Levels of arrays and objects at which a JSON text is refused (``json`` reads over 960 levels
where mlcheck reads a log on Python 3.10 and 3.11, and refuses 1,000)."""
_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?')
"""A JSON string (an unclosed one to the end of the text)."""
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
"""A bracket as a step of the nesting: +1 opening, -1 (a signed byte) closing."""


def nesting_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text``, counted outside strings; 0 for a text
    with fewer brackets than :data:`NESTING_LIMIT` (it cannot reach it). Counted in C: the strings
    and every other character taken out, the brackets summed as steps."""
    if text.count("[") + text.count("{") < NESTING_LIMIT:
        return 0
    marks = _NOT_BRACKETS.sub("", _STRINGS.sub("", text)).encode("ascii")
    return max(accumulate(array("b", marks.translate(_STEPS))), default=0)


_LIMIT_RAISED = threading.Lock()
_SHALLOW = 200
"""Fewer brackets than this nest too little for any stack to make ``json`` refuse them."""


def _too_deep(deepest: int) -> RecursionError:
    return RecursionError(f"maximum recursion depth exceeded while decoding JSON nested {deepest} levels deep")


def within_limit(decode: Callable[[str], T], text: str, errors_alike: bool = False) -> T:
    """``decode(text)`` (a ``json`` decoding) as on Python 3.10 and 3.11 within :data:`NESTING_LIMIT`:
    the value it decodes refused where it nests that deep, a syntax error where the text before it
    nests that deep (3.10 raised first); below it read however deep the call stack is (Python's
    recursion limit, which ``json`` counts on 3.10 and 3.11, raised for the call). What lies after
    the value, or after an error, is not counted: ``json`` never reads it. ``errors_alike``: the
    caller takes a syntax error as it takes a text too deep (a probe: is this a whole record?), so
    the text before an error is not counted (a probe may run at every cut of a long line)."""
    brackets = text.count("[") + text.count("{")
    if brackets < _SHALLOW:
        return decode(text)
    with _LIMIT_RAISED:  # (one process-wide limit: raised and put back by one thread at a time)
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, NESTING_LIMIT + 1000))
        try:
            value = decode(text)
        except ValueError as error:  # (counted in C first: most prefixes cannot reach the limit)
            # (a syntax error at its position; an integer over Python's digits, at the first such run)
            at = error.pos if isinstance(error, json.JSONDecodeError) else _first_long_number(text)
            if not errors_alike and text.count("[", 0, at) + text.count("{", 0, at) >= NESTING_LIMIT and \
                    (deepest := nesting_depth(text[:at])) >= NESTING_LIMIT:
                raise _too_deep(deepest) from None
            raise
        finally:
            sys.setrecursionlimit(limit)
    if brackets >= NESTING_LIMIT:  # (the value's text: raw_decode's ends where it says, what follows is not read)
        read = value[1] if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], int) else len(text)
        if (deepest := nesting_depth(text[:read])) >= NESTING_LIMIT:
            raise _too_deep(deepest)
    return value


_LONG_NUMBER = re.compile(r"\d{4301}")


def _first_long_number(text: str) -> int:
    """Where the first run of more digits than Python reads as an integer begins (the text's end: none)."""
    found = _LONG_NUMBER.search(text)
    return found.start() if found is not None else len(text)


def loads(text: str | bytes) -> Any:
    """``json.loads`` within :data:`NESTING_LIMIT` (bytes decoded as ``json.loads`` decodes them)."""
    if isinstance(text, bytes):
        text = text.decode(json.detect_encoding(text), "surrogatepass")
    return within_limit(json.loads, text)
