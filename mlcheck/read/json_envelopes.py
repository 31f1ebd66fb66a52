"""Lines that a log driver or a logging service wrapped in a JSON object of its own.

The line the job printed is a string field of one JSON object per line, its quotes escaped
(``{"log":":::MLLOG {\\"namespace\\": ...}\\n","stream":"stdout","time":"..."}``):

- Docker's ``json-file`` log driver (the files under ``/var/lib/docker/containers/``): ``log``;
- Google Cloud Logging exports: ``textPayload``; ``journalctl -o json``: ``MESSAGE``;
  structured loggers and other services: ``message``, ``msg``.

Raw output (never a submitted result file, read as the official parser reads it) is given to the
reader with such a line replaced by the text it wraps, one line out per line in (line numbers
stay those of the file); a line that is not one JSON object holding the marker in one of these
fields is given as it is.
"""

from __future__ import annotations

import json
from typing import Iterable, Iterator

_FIELDS = ("log", "textPayload", "MESSAGE", "message", "msg")
_ESCAPED_RECORD = b':::MLLOG {\\"'
"""A record inside a JSON string (its quotes escaped)."""


def unwrapped_json_lines(lines: Iterable[bytes], unwrapped: list[int]) -> Iterator[bytes]:
    """``lines`` with each JSON envelope replaced by the line it holds; ``unwrapped[0]`` counts them."""
    for raw in lines:
        if raw.startswith(b"{") and _ESCAPED_RECORD in raw:
            inner = _wrapped_line(raw)
            if inner is not None:
                unwrapped[0] += 1
                yield inner
                continue
        yield raw


def _wrapped_line(raw: bytes) -> bytes | None:
    """The line a JSON envelope holds (with a line end), or None when ``raw`` is none."""
    try:
        envelope = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(envelope, dict):
        return None
    for name in _FIELDS:
        text = envelope.get(name)
        if isinstance(text, str) and ":::MLLOG" in text:
            return text.rstrip("\r\n").encode("utf-8", errors="replace") + b"\n"
    return None
