"""Where the keys of a JSON object's top level are, by physical line: the line a finding about a
field of a system description names (the file as ``json`` read it; nothing is decoded here)."""

from __future__ import annotations

import json
import re
from functools import lru_cache

_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"\s*(:)?|[{}\[\]]')
"""A string (then ``:``: a key) or a bracket. The string's body is unrolled (runs of plain
characters between escapes): an alternation repeated per character kept ~120 bytes of the regex
engine's memory per character, 2.4 GB for a 20 MB ``sw_notes`` (a review, session 35)."""


@lru_cache(maxsize=8)
def top_level_key_lines(text: str) -> dict[str, int]:
    """The line (1-based) of each key of the object ``text`` holds at its top level, where the key
    first appears; a key whose text cannot be decoded is left out (the document was read whole
    before, so its strings are valid JSON)."""
    lines: dict[str, int] = {}
    depth, line, counted = 0, 1, 0
    for token in _TOKEN.finditer(text):
        first = text[token.start()]
        if first in "{[":
            depth += 1
        elif first in "}]":
            depth -= 1
        elif depth == 1 and token.group(1) is not None:
            line += text.count("\n", counted, token.start())
            counted = token.start()
            quoted = text[token.start():token.end(1) - 1].rstrip()
            if "\\" in quoted:  # (an escape: decoded as json decodes it)
                try:
                    quoted = '"' + json.loads(quoted) + '"'
                except ValueError:
                    continue
            lines.setdefault(quoted[1:-1], line)
    return lines
