"""A logged value as a run's summary keeps it: whole when small, else cut to a bounded size.

A summary outlives its run (a package's runs are kept till the package is judged, and sent from a
worker to mlcheck), so what it holds must not grow with a value's size: a ``global_batch_size`` or
``eval_accuracy`` of a 15 MB list kept as decoded (30 times that in Python objects) made memory grow
with the package, not with the largest log (a review of session 55: 1.45 GB for 8 systems). A list
or an object of more than :data:`MAX_NODES` items and values in all, or a string of more than
:data:`MAX_CHARS` characters, is kept cut: its first items (each cut too) and, in a list, the text
``"..."`` where the rest was; an object keeps its first keys; a string its first characters and
how many it had (``… (200,000 characters, digest 1f2e...)``). Its type stays, so a rule that refuses
a list still refuses it, and a digest of the whole value (the last item of a list, the key ``"..."``
of an object, the end of a string) keeps two values that differ past the cut apart (MLC517, MLC520
compare the runs'). No string a rule reads as a number is cut (``int()`` reads 4,300 digits at most).
"""

from __future__ import annotations

from typing import Any

MAX_NODES = 1024
"""Items and values of a list or an object, all levels together, that a summary keeps."""
MAX_CHARS = 1 << 16
"""Characters of a string that a summary keeps."""
MAX_DEPTH = 32
"""Levels of lists and objects kept (deeper ones are the text ``"..."``)."""
CUT = "..."


def bounded(value: Any) -> Any:
    """``value``, or a cut copy of it where it is larger than the bounds."""
    kind = type(value)
    if kind is str:
        return value if len(value) <= MAX_CHARS else _cut_text(value)
    if kind is not list and kind is not dict:
        return value
    if not _larger(value):
        return value
    cut, digest = _cut(value, [MAX_NODES]), _digest(value)
    if kind is list:
        cut.append(f"{CUT} ({len(value):,} items in all, digest {digest})")
    else:
        cut[CUT] = f"({len(value):,} keys in all, digest {digest})"
    return cut


def _digest(value: Any) -> str:
    import hashlib  # (only for a value this large)

    return hashlib.blake2b(repr(value).encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def _cut_text(text: str) -> str:  # (mlcheck.results.text_length reads its end)
    return f"{text[:MAX_CHARS]}… ({len(text):,} characters, digest {_digest(text)})"


def _larger(value: Any) -> bool:
    """Whether ``value`` holds more than :data:`MAX_NODES` nodes (or a string over the bound)."""
    stack, budget = [value], MAX_NODES
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            if len(item) > MAX_CHARS:
                return True
            continue
        children = item.values() if kind is dict else item if kind is list else ()
        budget -= len(children)
        if budget < 0:
            return True
        stack.extend(child for child in children if type(child) in (list, dict, str))
    return False


def _cut(value: Any, budget: list[int], depth: int = 0) -> Any:
    kind = type(value)
    if depth > MAX_DEPTH and (kind is list or kind is dict):
        return CUT
    if kind is str:
        return value if len(value) <= MAX_CHARS else _cut_text(value)
    if kind is list:
        kept: list[Any] = []
        for item in value:
            if budget[0] <= 0:
                kept.append(CUT)
                break
            budget[0] -= 1
            kept.append(_cut(item, budget, depth + 1))
        return kept
    if kind is dict:
        cut: dict[Any, Any] = {}
        for key, item in value.items():
            if budget[0] <= 0:
                break
            budget[0] -= 1
            cut[key] = _cut(item, budget, depth + 1)
        return cut
    return value
