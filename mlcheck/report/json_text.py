"""JSON text as ``json.dumps(document, indent=2, allow_nan=False)`` writes it (but for NaN and the
infinities, written ``null`` where it raises), in blocks, where
arrays may be :class:`Items` made one at a time while they are written (the JSON report of
thousands of runs is never held whole), and written without the standard encoder's pure-Python
generators, which it uses whenever it indents (the same bytes, but for a lone surrogate, which
strict parsers refuse: written as U+FFFD, :func:`without_lone_surrogates`)."""

from __future__ import annotations

import json
import re
from json.encoder import encode_basestring_ascii
from typing import Any, Callable, Iterator, Sequence

BLOCK = 1 << 16
"""Characters of report text handed on at a time."""


class Items:
    """A JSON array of a document written by :func:`json_blocks`: its items are made one at a
    time while it is written, so that a report of thousands of runs is never held whole."""

    def __init__(self, items: Sequence[Any], make: Callable[[Any], Any]) -> None:
        self.items, self.make = items, make


_ENCODER = json.JSONEncoder(indent=2, allow_nan=False)


def json_blocks(document: Any) -> Iterator[str]:
    """``json.dumps(document, indent=2, allow_nan=False) + "\\n"`` in blocks of about
    :data:`BLOCK` characters, where a value may be :class:`Items` (written as the list of its
    made items). What holds no :class:`Items` is encoded whole and indented to its place: JSON
    text holds a line break only between values (one in a string is written ``\\n``), so the
    text is the same as the standard encoder's."""
    pending: list[str] = []
    size = 0
    for piece in _pieces(document, 0):
        pending.append(piece)
        size += len(piece)
        if size >= BLOCK:
            yield without_lone_surrogates("".join(pending))
            pending.clear()
            size = 0
    pending.append("\n")
    yield without_lone_surrogates("".join(pending))


_ESCAPES = re.compile(r"\\(?:\\|u(d[89ab][0-9a-f]{2})(\\ud[c-f][0-9a-f]{2})?|ud[c-f][0-9a-f]{2}(?:\\ud[c-f][0-9a-f]{2})*)")
"""An escaped backslash (one unit, so that what follows it is read in step), or a surrogate
escape: a high one with its low one (a character beyond U+FFFF), or a run of low ones alone."""


def without_lone_surrogates(text: str) -> str:
    """JSON text with each lone surrogate escape (``\\udcff``: a byte of a file name that is
    not UTF-8, which Python keeps as a surrogate) written as ``\\ufffd``, as the text report
    shows it (a run of them that is UTF-8, a name under a locale of another encoding, as its
    characters): strict JSON parsers refuse a lone surrogate. A pair (an emoji) is kept. A string
    is never split across blocks, so each block is read alone."""
    if "\\ud" not in text:  # (the common case: one search per block)
        return text
    return _ESCAPES.sub(_replaced, text)


def _replaced(match: re.Match[str]) -> str:
    escape = match.group()
    if escape == "\\\\" or match.group(2) is not None:
        return escape
    units = [int(unit, 16) for unit in escape.split("\\u")[1:]]
    if all(0xDC80 <= unit <= 0xDCFF for unit in units):  # (a name's bytes kept by surrogateescape: read as UTF-8)
        return json.dumps(bytes(unit - 0xDC00 for unit in units).decode("utf-8", "replace"))[1:-1]
    return "\\ufffd" * len(units)


def _pieces(value: Any, level: int) -> Iterator[str]:
    inner = "\n" + "  " * (level + 1)
    if isinstance(value, Items):
        items: Any = map(value.make, value.items) if value.items else ()
    elif isinstance(value, (list, tuple, dict)):
        try:
            yield _encoded(value, level)  # (most values hold no Items: written whole)
            return
        except _HoldsItems:
            items = value.items() if isinstance(value, dict) else value
    else:
        yield _encoded(value, level)
        return
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    empty = True
    for item in items:
        yield ("," if not empty else opening) + inner
        empty = False
        if isinstance(value, dict):
            key, item = item  # (a key that is not a string is written as the encoder writes it)
            yield _ENCODER.encode(key if isinstance(key, str) else _ENCODER.encode(key)) + ": "
        yield from _pieces(item, level + 1)
    yield opening + closing if empty else "\n" + "  " * level + closing


class _HoldsItems(Exception):
    """A value met by :func:`_encoded` holds :class:`Items` (it is written piece by piece)."""


def _encoded(value: Any, level: int) -> str:
    """``_ENCODER.encode(value)`` indented to ``level`` (its line breaks followed by ``level``
    more indents), without the pure-Python generators of the standard encoder, which it uses when
    it indents: the same type tests in the same order, the same text for every value (strings by
    its C function), the same errors for what it cannot encode (cycles aside: a report has none).
    Raises :class:`_HoldsItems` where an :class:`Items` is met."""
    out: list[str] = []
    _write(value, level, out)
    return "".join(out)


_ENCODE_STRING = encode_basestring_ascii
_INT = int.__repr__
_FLOAT = float.__repr__
_INFINITY = float("inf")


def _float(value: float) -> str:
    """A float as the encoder writes it; NaN and the infinities, which strict JSON has no word for
    (a log's NaN convergence point reaches the RCP figures), as ``null``: never an error that
    loses the report."""
    if value != value or value == _INFINITY or value == -_INFINITY:
        return "null"
    return _FLOAT(value)


def _write(value: Any, level: int, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(_ENCODE_STRING(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(_INT(value))
    elif isinstance(value, float):
        out.append(_float(value))
    elif isinstance(value, (list, tuple)):
        _write_list(value, level, out)
    elif isinstance(value, dict):
        _write_dict(value, level, out)
    elif isinstance(value, Items):
        raise _HoldsItems
    else:
        _write(_ENCODER.default(value), level, out)  # (raises TypeError, as the encoder does)


def _write_list(values: list[Any] | tuple[Any, ...], level: int, out: list[str]) -> None:
    if not values:
        out.append("[]")
        return
    level += 1
    newline = "\n" + "  " * level
    separator = "," + newline
    append = out.append
    append("[" + newline)
    first = True
    for value in values:
        if first:
            first = False
        else:
            append(separator)
        if type(value) is str:  # (the common leaves, written here: one call less each)
            append(_ENCODE_STRING(value))
        else:
            _write(value, level, out)
    append("\n" + "  " * (level - 1) + "]")


def _write_dict(values: dict[Any, Any], level: int, out: list[str]) -> None:
    if not values:
        out.append("{}")
        return
    level += 1
    prefixes = _PREFIXES.get(level)
    if prefixes is None:
        prefixes = _PREFIXES.setdefault(level, {})
    append = out.append
    append("{")
    first = True
    for key, value in values.items():
        prefix = prefixes.get(key) if type(key) is str else None
        if prefix is None:
            prefix = ",\n" + "  " * level + _ENCODE_STRING(_key_text(key)) + ": "
            if type(key) is str and len(prefixes) < _MAX_PREFIXES:
                prefixes[key] = prefix
        if first:
            append(prefix[1:])  # (the first member: no comma before it)
            first = False
        else:
            append(prefix)
        kind = type(value)
        if kind is str:  # (the common leaves, written here: one call less each)
            append(_ENCODE_STRING(value))
        elif value is None:
            append("null")
        elif kind is int:
            append(_INT(value))
        elif kind is float:
            append(_float(value))
        else:
            _write(value, level, out)
    append("\n" + "  " * (level - 1) + "}")


_PREFIXES: dict[int, dict[str, str]] = {}
"""What comes before a member's value at each depth, by key: the comma, the line break and the
indent, the encoded key and the separator (a report's keys are a few dozen field names)."""
_MAX_PREFIXES = 4096


def _key_text(key: Any) -> str:
    """A member's key as the standard encoder writes it, before it is encoded as a string."""
    if isinstance(key, str):
        return key
    if isinstance(key, float):
        return _float(key)
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, int):
        return _INT(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {key.__class__.__name__}")
