"""A long JSON string costs the scanners that find keys and brackets no memory per character: a
system description with a 20 MB ``sw_notes`` took 2.4 GB (the regex engine kept ~120 bytes a
character for an alternation repeated per character; a review, session 35)."""

from __future__ import annotations

import json
import tracemalloc
from typing import Callable

import pytest

from mlcheck.package.json_document import _too_deep_line
from mlcheck.package.json_lines import top_level_key_lines
from mlcheck.read.record_text_keys import key_of

LONG = 2_000_000


def _peak(work: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("escaped", [False, True])
def test_key_lines_of_a_description_with_a_long_value(escaped: bool) -> None:
    text = json.dumps({"a": 1, "sw_notes": "x" * LONG + ('"\\' if escaped else ""), 'b"c': [{"d": 2}]}, indent=1)
    assert top_level_key_lines(text) == {"a": 2, "sw_notes": 3, 'b"c': 4}
    top_level_key_lines.cache_clear()
    assert _peak(lambda: top_level_key_lines(text)) < 4 * LONG  # (was ~120 bytes a character)
    assert _too_deep_line(text) is None and _peak(lambda: _too_deep_line(text)) < 4 * LONG  # (a token copied)


def test_the_key_of_a_record_with_a_long_escaped_key() -> None:
    text = b'{"time_ms": 1, "key" : "' + b"k" * LONG + b'\\"x", "value": 1}'
    assert key_of(text) == b"k" * LONG + b'"x'
    assert _peak(lambda: key_of(text)) < 4 * LONG  # (the key itself, and its decoding)
