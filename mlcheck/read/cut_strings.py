"""Where a record that another stream's line cut inside a string was cut (:mod:`mlcheck.read.cut_records`):
every place inside a string joins a record, so only what the lines before printed, and the logger's
own words, tell the place."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Iterable

from mlcheck.facts.installed import installed_folder
from mlcheck.read.lazy_patterns import lazy_pattern

STRING_PLACES = 256
"""Places inside a string weighed at most (each is a search of the lines before)."""


def known_strings_place(found: dict[int, str], records: dict[int, dict[str, object]], lines: Iterable[bytes],
                        body: bytes) -> dict[int, str]:
    """The place whose record's fields (``"key": "..."``, the event type, the namespace, the value
    and the metadata's strings of over two characters, each with its name, as json.dumps writes
    them) the lines before printed most often, if that is one record (and, where another place is,
    the other line begins there as a line surely does); else, where the other line
    begins as a line surely does there (:data:`_SURE_LINE_START`), the place whose record also has
    the most of the shorter strings printed before (``"namespace": ""``), of its fields' names
    printed before (a cut inside ``"lineno"``) and of the logger's words as its key, event type and
    status (:func:`logger_words`: a key printed once, ``run_stop``), if that is one record; else
    ``found`` (no place is certain). At most :data:`STRING_PLACES` places are weighed (a longer
    string is left to the reader)."""
    if len(found) > STRING_PLACES:
        return found
    recent = b"\n".join(lines)
    seen: dict[bytes, bool] = {}

    def printed(text: bytes) -> int:
        if text not in seen:
            seen[text] = text in recent
        return seen[text]

    def evidence(record: dict[str, object]) -> tuple[int, int]:
        given = record.get("metadata")
        metadata: dict[str, object] = given if isinstance(given, dict) else {}
        fields = [*((name, record.get(name)) for name in ("key", "value", "event_type", "namespace")), *metadata.items()]
        strings = [(len(text) > 2, printed(json.dumps({name: text})[1:-1].encode()))
                   for name, text in fields if isinstance(text, str) and name not in _NAMED_ONCE]
        names = sum(printed(json.dumps(name).encode() + b": ") for name in (*record, *metadata))
        words = sum(isinstance(text, str) and text in logger_words()
                    for text in (record.get("key"), record.get("event_type"), metadata.get("status")))
        long_ones = sum(known for long, known in strings if long)
        return long_ones, sum(known for long, known in strings if not long) + names + words
    scores = {end: evidence(records[end]) for end in found}

    def sure(end: int) -> bool:
        return _SURE_LINE_START.match(body, end) is not None

    kept = _one_best(found, {end: score[0] for end, score in scores.items()})
    if kept is not None and not any(map(sure, kept)) and any(sure(end) for end in found if end not in kept):
        kept = None  # (``freq_`` + ``mi/opt/.../x.py:5: UserWarning`` + ``n"``: freq_n printed before, not freq_min)
    if kept is None:
        kept = _one_best(found, {end: sum(score) for end, score in scores.items()})
        kept = kept if kept is not None and any(map(sure, kept)) else None
    return found if kept is None else kept


_NAMED_ONCE = frozenset({"tensor"})
"""Metadata that names something each record names once: weights_initialization's ``tensor``
(``layer1.0.conv1.weight`` printed before tells nothing of ``layer1.`` + a warning + ``1.conv1.weight``)."""


def _one_best(found: dict[int, str], counts: dict[int, int]) -> dict[int, str] | None:
    """The places of the highest count, if it is above 0 and theirs is one record."""
    best = max(counts.values())
    kept = {end: found[end] for end, count in counts.items() if count == best}
    return kept if best and len(set(kept.values())) == 1 else None


LOGGER_LINE_STARTS = (rb"[IWEF]\d{4} \d\d:\d\d|(?:WARNING|INFO|ERROR|DEBUG|CRITICAL|FATAL|Traceback)\b"
                      rb"|\r"
                      rb"|(?<![:\]] )(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} |Warning: Permanently added )")
"""How a logger's line begins, in a pattern's text: a glog letter and date, a log level,
a progress bar's carriage return (no record holds one: json.dumps escapes it), Python
``logging``'s date and ssh's warning where no label is before them (both line-start patterns hold it:
:data:`_SURE_LINE_START`, :data:`mlcheck.read.cut_records.OTHER_LINE_START`)."""
_SURE_LINE_START = lazy_pattern(LOGGER_LINE_STARTS + rb"|\[|(?:/[^\s:]*\.py|<[^>\n]*>):\d+: [A-Z]\w*(?:Warning|Error)\b"
                                rb"|[A-Za-z][A-Za-z\d.-]*:\d+:\d+ \[\d+\] NCCL ")
"""How another stream's line begins that no end of a string before it can belong to (NCCL's
``node017:1234:1234 [0] NCCL INFO`` too, its host's name begun with a letter: where it begins, the
strings printed before tell; not after a number's digits, as a host's name may begin with digits,
``4f93b2a1c0d4``, a container's; :data:`mlcheck.read.cut_records.OTHER_LINE_START` but for a
Python ``warnings`` line of a relative
path, whose first characters may be the string's: ``"eval_top1`` + ``/opt/.../x.py:5: UserWarning``):
a place no string printed before tells is taken from names and words only there (``eval_`` +
``accuracy"`` is a word of the logger, the key was ``eval_top1accuracy``)."""


@cache
def logger_words() -> frozenset[str]:
    """The texts that mlperf-logging's ``mllog/constants.py`` names (keys such as ``run_stop``,
    event types, ``success``), read from its source as text (importing the logger takes numpy)."""
    import os

    folder = installed_folder()
    try:
        with open(os.path.join(folder or "", "mllog", "constants.py"), encoding="utf-8") as source:
            return frozenset(word for word in _CONSTANT.findall(source.read()) if word)  # (not '': no key is)
    except (OSError, ValueError):
        return frozenset()


_CONSTANT = re.compile(r'^[A-Z][A-Z0-9_]* *= *"([^"\\\n]*)"', re.M)
