"""What the rank-copies check reads of a record's text without parsing its JSON: its key and
its text without ``time_ms`` (:mod:`mlcheck.read.rank_copies`)."""

from __future__ import annotations

import json
import re

_KEY = re.compile(rb'"key"\s*:\s*"([^"\\]*(?:\\.[^"\\]*)*)"')  # (unrolled: memory flat in the key's length)


def key_of(text: bytes) -> bytes | None:
    """The key of a record's text without parsing its JSON, as the kept records' keys are
    counted: UTF-8 (lone surrogates kept), its escapes (``\\u00e9``, ``\\ud800``) decoded."""
    at = text.find(b'"key": "')
    if at >= 0:
        end = text.find(b'"', at + 8)
        if end > 0 and text[end - 1] != 0x5C:  # no backslash: the key has no escaped quote
            return text[at + 8:end] if text.find(b"\\", at + 8, end) < 0 else _unescaped(text, at + 7, end + 1)
    match = _KEY.search(text)
    if match is None:
        return None
    if text.find(b"\\", match.start(1), match.end(1)) < 0:  # (the common key)
        return match.group(1)
    return _unescaped(text, match.start(1) - 1, match.end(1) + 1)


def _unescaped(text: bytes, start: int, stop: int) -> bytes:
    """The key whose JSON string (its quotes included) is ``text[start:stop]``, decoded; copied
    as few times as may be (a key of megabytes: the string, its text, its value)."""
    quoted = text[start:stop]
    try:
        value = json.loads(quoted)
    except ValueError:
        return quoted[1:-1]
    del quoted
    return str(value).encode("utf-8", errors="surrogatepass")


def fingerprint(text: bytes) -> bytes:
    """The record's text without its ``time_ms`` (each rank reads its own clock)."""
    start = text.find(b'"time_ms"')
    if start < 0:
        return text
    stop = text.find(b",", start)
    if stop < 0:
        stop = text.find(b"}", start)
    return text[:start] + text[stop:] if stop >= 0 else text[:start]
