"""A physical line split at its ``:::MLLOG`` markers, one part per record, in time linear in the
line (a line of thousands of records glued by several processes writing to one stream)."""

from __future__ import annotations

import json
from array import array
from typing import Iterator

from mlcheck.read.json_depth import within_limit

_MARKER = ":::MLLOG"
_DECODER = json.JSONDecoder()


class MarkerParts:
    """The parts of a line split at its markers, as offsets into the line: a line of a million
    markers holds two arrays of a million integers (16 MB), not a million strings (65 MB); each
    part is sliced when it is read. ``parts[0]`` is the text before the first marker."""

    __slots__ = ("text", "_starts", "_ends")

    def __init__(self, text: str, starts: array[int], ends: array[int]) -> None:
        self.text, self._starts, self._ends = text, starts, ends

    def __len__(self) -> int:
        return len(self._starts)

    def __getitem__(self, index: int) -> str:
        return self.text[self._starts[index]:self._ends[index]]

    def __iter__(self) -> Iterator[str]:
        text = self.text
        return (text[start:end] for start, end in zip(self._starts, self._ends))

    def start(self, index: int) -> int:
        """Where part ``index`` starts in the line."""
        return self._starts[index]

    def blank_run_end(self, index: int) -> int:
        """The last of the parts from ``index`` on, the line's last part aside, that hold only
        blanks (markers with no record after them); ``index - 1`` when part ``index`` does not."""
        text, starts, ends = self.text, self._starts, self._ends
        last = len(starts) - 2
        while index <= last and not text[starts[index]:ends[index]].strip():
            index += 1
        return index - 1


def split_at_markers(text: str) -> MarkerParts:
    """``text.split(":::MLLOG")``, except at a marker inside the JSON of the record before it (a
    value that quotes ``:::MLLOG``): the text before the first record, then one part per record.

    Linear in the length of the line: each record's JSON is decoded from the text up to the next
    marker (:func:`_json_end`), never from the rest of the line, so a line of 50,000 glued records
    costs 50,000 small decodes, not 50,000 passes over the line."""
    starts, ends = array("q"), array("q")
    start = text.find(_MARKER)
    if start < 0:
        starts.append(0)
        ends.append(len(text))
        return MarkerParts(text, starts, ends)
    starts.append(0)
    ends.append(start)
    length = len(text)
    while True:
        body = start + len(_MARKER)
        following = text.find(_MARKER, body)
        if following >= 0:
            first = body
            while first < length and text[first] in " \t\r\n":
                first += 1
            # (only a record's object may quote the marker: text that is no object, '" && ', never hides it)
            json_end = _json_end(text, first, following) if first < following and text[first] == "{" else -1
            if json_end > following:
                following = text.find(_MARKER, json_end)
        starts.append(body)
        if following < 0:
            ends.append(length)
            return MarkerParts(text, starts, ends)
        ends.append(following)
        start = following


def _json_end(text: str, first: int, following: int) -> int:
    """Where the JSON that starts at ``first`` ends in ``text`` (-1 when it is not valid JSON).

    It is decoded from a window that ends at the next marker (``following``) and grows fourfold
    only while the JSON runs past the window's end (a value quoting ``:::MLLOG``), so the cost is
    bounded by the record's own length; decoding from ``first`` to the end of a long line would
    cost a pass over the line for every record (``JSONDecodeError`` counts the lines before its
    position)."""
    size = max(following - first, 1)
    while True:
        stop = min(len(text), first + size)
        chunk = text[first:stop]
        try:
            _record, end = within_limit(_DECODER.raw_decode, chunk)  # (as on Python 3.10 and 3.11, on any)
            return first + end
        except RecursionError:
            return -1
        except ValueError as error:
            position = getattr(error, "pos", None)
            message = getattr(error, "msg", "")
            cut = stop < len(text) and (position is None or position >= len(chunk.rstrip()) - 1
                                        or message.startswith("Unterminated string"))
            if not cut:
                return -1
            size = max(size * 4, 4096)


_MARKER_BYTES = _MARKER.encode()
_NOT_A_MENTION = frozenset(b"{[\x1b0123456789")


def mentions_marker(line: bytes, at: int, result_file: bool = False) -> str:
    """How raw output's ``line`` (its one marker at ``at``) names the marker without a record of
    the run: ``"text"`` when no ``{`` follows it (a shell trace ``grep ':::MLLOG' out.log``, a log
    message ``skipped :::MLLOG line``, source in a traceback ``print(":::MLLOG " + ...)``),
    ``"quoted"`` for a record in single quotes (a traced ``echo ':::MLLOG {...}'``, an exception
    message with the line's repr); ``""`` otherwise. A record damaged by other output keeps a
    ``{``, or starts with another rank's tag or label (``[``, a digit), a colour code, or nothing:
    those stay records, read and reported as before. ``mlcheck split`` leaves such a line out. In a
    ``result_file``, a line with the official parser's token (``:::MLLOG `` and a space) is always
    a record: the parser reads it (a shell trace of ``grep ':::MLLOG ' out.log`` fails the file)."""
    body = at + len(_MARKER_BYTES)
    if result_file and line.startswith(b" ", body):
        return ""
    if line.startswith(b" {", body) and (at == 0 or line[at - 1] != 0x27):  # (a record, as nearly every line)
        return ""
    if line.find(_MARKER_BYTES, body) >= 0:
        return ""
    rest = line[body:].strip()
    if rest[:1] == b"{":  # (a quote before the marker, and one after the record's last brace)
        quoted = at > 0 and line[at - 1] == 0x27 and line[line.rfind(b"}") + 1:].lstrip().startswith(b"'")
        return "quoted" if quoted else ""
    return "text" if rest and rest[0] not in _NOT_A_MENTION and b"{" not in rest else ""


def record_as_printed(segment: str, lead: int, end: int) -> str:
    """The text of the record after a marker (``segment``; its JSON ends at ``lead + end``) byte for
    byte, marker included: trailing blanks stay, other trailing text (a glued tag) does not."""
    return _MARKER + (segment if not segment[lead + end:].strip() else segment[:lead + end])
