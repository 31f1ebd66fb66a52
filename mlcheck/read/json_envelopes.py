"""Lines that a log driver or a logging service wrapped in a JSON object of its own, or in a
container runtime's prefix (:mod:`mlcheck.read.cri_lines`).

The line the job printed is a string field of one JSON object per line, its quotes escaped
(``{"log":":::MLLOG {\\"namespace\\": ...}\\n","stream":"stdout","time":"..."}``):

- Docker's ``json-file`` log driver (the files under ``/var/lib/docker/containers/``): ``log``;
- Cloud Logging exports: ``textPayload``, ``jsonPayload.message``; ``journalctl -o json``: ``MESSAGE`` (an array of
  bytes when the line holds control characters), read as syslog shows it, ``host prog[pid]: ``;
  structured loggers and other services: ``message``, ``msg``; structlog's JSON lines: ``event``.

An export that pretty-prints such objects as one JSON document (``gcloud logging read
--format=json``, ``aws logs get-log-events``) holds each field on a line of its own: such a line
is read so too. An event's CloudWatch stream (``logStreamName``, ``aws logs filter-log-events``
over one stream per node) is put in front of its line as a host label (:meth:`Envelopes.label_of`).

Raw output (never a submitted result file, read as the official parser reads it) is given to the
reader with such a line replaced by the text it wraps, one line out per line in (line numbers
stay those of the file); a line that is not one JSON object holding the marker in one of these
fields is given as it is (and where none of the first :data:`_FIRST_LINES` lines begins as a
JSON object or a runtime's line, the rest of the file as it is: every line of a log driver's
file is one). Docker cuts a line longer than 16 KiB into ``log`` pieces of
:data:`_PIECE_BYTES`, each but the last without its line end (stdout's and stderr's pieces may
alternate, a marker may be cut between two): the pieces are joined at the last one, the lines of
the others given empty (a Docker piece whose line never ends, the file's last, is lost; a
runtime's is given in its place).
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Iterator

from mlcheck.read.json_depth import loads as bounded_loads
from mlcheck.read.cri_lines import CriPieces

_FIELDS = ("log", "textPayload", "MESSAGE", "message", "msg", "event")
_ESCAPED_RECORD = b':::MLLOG {\\"'
"""A record inside a JSON string (its quotes escaped)."""
_BYTE_RECORD = re.compile(rb'"MESSAGE" ?: ?\[[\d, ]*58, ?58, ?58, ?77, ?76, ?76, ?79, ?71\b')
"""A journal entry's MESSAGE as an array of bytes holding the marker."""
_NAME = re.compile(r"[A-Za-z][\w.-]{0,63}")
_FIELD_LINE = re.compile(rb'\s*"(?:log|textPayload|MESSAGE|message|msg|event)"\s*:\s*("(?:[^"\\]|\\.)*")\s*,?\s*$')
"""A field of an envelope alone on its line, in a JSON document an export pretty-printed."""
_STREAM_LINE = re.compile(rb'\s*"logStreamName"\s*:\s*("(?:[^"\\]|\\.)*")\s*,?\s*$')
"""A CloudWatch event's stream alone on its line (``aws logs filter-log-events``: one stream per node)."""
_PIECE_BYTES = 16384
"""The size of Docker's pieces of a longer line (a shorter ``log`` without a line end is the last
line of a process that died writing it: whole as it is)."""
_FIRST_LINES = 1000
"""Lines in which a JSON object must begin a line for the rest of a file to be looked at."""
_LONGEST = 1 << 24
"""The most of a line held in pieces (the reader's longest line)."""


def unwrapped_json_lines(lines: Iterable[bytes], unwrapped: list[int]) -> Iterator[bytes]:
    """``lines`` with each envelope replaced by the line it holds; ``unwrapped[0]`` counts them."""
    envelopes = Envelopes()
    lines = iter(lines)
    objects = False  # (a line that begins as a JSON object or a runtime's time: a log driver's file)
    piece = None  # (the empty line given for a runtime's piece, held: the file may end there)
    try:
        for number, raw in enumerate(lines):
            objects = objects or raw.startswith(b"{") or raw.strip() == b"[" or envelopes.cri.count > 0
            line = envelopes.line(raw)
            unwrapped[0] = envelopes.count
            if piece is not None:
                yield piece
            piece = line if envelopes.cri.last_piece is not None or envelopes.last_was_piece else None
            if piece is None:
                yield line
            if number == _FIRST_LINES and not objects:
                yield from lines  # (no envelope in the first lines: a console, its lines as they are)
                return
    except Exception:
        if piece is not None:
            yield piece
        raise
    if piece is not None:  # (the file ends inside a line: its pieces in the last one's place)
        yield envelopes.cri.unfinished() or envelopes.unfinished() or piece


class Envelopes:
    """One file's lines taken out of their envelopes, one at a time (``watch`` reads them so)."""

    def __init__(self) -> None:
        self.json_count = 0
        """The lines taken out of a JSON envelope."""
        self.pieces: dict[object, str] = {}  # (Docker's pieces of a line over 16 KiB, per stream)
        self.last_was_piece = False
        """The line given last was a piece of a Docker line that goes on (given as an empty line)."""
        self.cri = CriPieces()
        self.entry_text: str | None = None
        """The line the last field of a pretty-printed export held."""
        self.stream_label = ""
        """The label of the log stream of the export's entry being read (``stream0.node-3: ``), or ''."""
        self.streams: dict[str, int] = {}
        """Each CloudWatch log stream met, by its order of first appearance (:meth:`label_of`)."""

    def unfinished(self) -> bytes | None:
        """At the end of the file: the Docker line that the last piece given belongs to, when it
        never ended (its process died writing it), to be given in that piece's place."""
        if not self.last_was_piece or not self.pieces:
            return None
        _stream, text = self.pieces.popitem()  # (the stream of the last piece: stored last)
        return text.encode("utf-8", errors="replace") + b"\n"

    def label_of(self, name: object) -> str:
        """A CloudWatch log stream's label in front of its lines, a host label
        (:mod:`mlcheck.read.host_labels`, one rank per stream, whose copies are dropped): its order
        of first appearance, then its name (``stream0.mlperf-node-3: ``; the rank is the order:
        the first stream of the export logs); '' for a name that is no string."""
        if not isinstance(name, str):
            return ""
        order = self.streams.setdefault(name, len(self.streams))
        return f"stream{order}.{re.sub(r'[^A-Za-z0-9_-]+', '-', name)[-63:].strip('-') or 'x'}: "

    @property
    def count(self) -> int:
        """The lines taken out of an envelope (JSON or a container runtime's)."""
        return self.json_count + self.cri.count

    def line(self, raw: bytes) -> bytes:
        """The line an envelope holds (empty for a piece of a line that goes on), or ``raw``."""
        if raw[:1].isdigit():
            unprefixed = self.cri.line(raw)
            if unprefixed is not None:
                return unprefixed
        self.cri.last_piece = None
        self.last_was_piece = False
        if self.stream_label and raw.strip() in (b"{", b"},", b"}"):  # (an entry of the export begins or ends)
            self.stream_label = ""
        lead = raw[:1]
        if lead in (b" ", b"\t") and b'"logStreamName"' in raw and (stream := _STREAM_LINE.match(raw)):
            try:
                self.stream_label = self.label_of(bounded_loads(stream.group(1)))
            except (ValueError, RecursionError):
                self.stream_label = ""
            return raw
        if lead in (b" ", b"\t", b'"') and _ESCAPED_RECORD in raw and (field := _FIELD_LINE.match(raw)):
            try:  # (a field's line of a pretty-printed export: gcloud logging read --format=json, aws logs)
                text = bounded_loads(field.group(1))
            except (ValueError, RecursionError):
                return raw
            self.json_count += 1
            line = " ".join(text.splitlines())
            if line == self.entry_text:  # (an entry's other field holding the same line: read once; a
                return b"\n"  # record is never the same text twice, its time_ms moves on)
            self.entry_text = line
            return (self.stream_label + line).encode("utf-8", errors="replace") + b"\n"
        if raw.startswith(b"{") and (_ESCAPED_RECORD in raw
                                     or (raw.startswith(b'{"log":') and (self.pieces or len(raw) > _PIECE_BYTES))
                                     or (b'"MESSAGE"' in raw and _BYTE_RECORD.search(raw) is not None)):
            inner = _wrapped_text(raw, self.pieces, self.label_of)
            if inner is not None:
                self.json_count += 1
                if not inner:
                    self.last_was_piece = True
                    return b"\n"
                text = inner.rstrip("\r\n")  # (an entry of several lines: one line of them, as records glued on a line)
                return (text.replace("\r\n", " ").replace("\n", " ") if "\n" in text else text).encode(
                    "utf-8", errors="replace") + b"\n"
        return raw


_PIECE = ""
"""What :func:`_wrapped_text` gives for a piece of a line whose rest comes later."""


def _wrapped_text(raw: bytes, pieces: dict[object, str], label_of: Callable[[object], str]) -> str | None:
    """The text a JSON envelope holds, after the pieces of its line before it (:data:`_PIECE`
    when its line goes on in a later envelope of its stream), or None when ``raw`` is none."""
    try:
        envelope = bounded_loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(envelope, dict):
        return None
    stream = envelope.get("stream") if isinstance(envelope.get("stream"), str) else None
    label = label_of(envelope["logStreamName"]) if "logStreamName" in envelope else ""
    for name in _FIELDS:
        text = envelope.get(name)
        if name == "MESSAGE" and text is not None:
            text = _journal_line(envelope, text)
        if not isinstance(text, str):
            continue
        piece = name == "log" and not text.endswith("\n") and len(text.encode("utf-8", "surrogatepass")) >= _PIECE_BYTES
        if ":::MLLOG" in text or (name == "log" and (stream in pieces or piece)):
            whole = (pieces.pop(stream, "") if name == "log" else "") + text
            if piece and len(whole) < _LONGEST:
                pieces[stream] = whole
                return _PIECE
            return label + whole
    payload = envelope.get("jsonPayload")  # (Cloud Logging's structured entries: GKE, Vertex AI)
    text = next((payload[name] for name in ("message", "msg") if isinstance(payload, dict)
                 and isinstance(payload.get(name), str)), None)
    return text if text is not None and ":::MLLOG" in text else None


def _journal_line(entry: dict[str, object], message: object) -> object:
    """A ``journalctl -o json`` entry's line as syslog shows it (``host prog[pid]: message``: each
    process a rank, :mod:`mlcheck.read.host_labels`); its MESSAGE may be an array of bytes (a line
    with control characters, colour codes)."""
    if isinstance(message, list) and all(isinstance(b, int) and 0 <= b < 256 for b in message):
        message = bytes(message).decode("utf-8", errors="replace")
    pid, host = entry.get("_PID"), entry.get("_HOSTNAME")
    name = entry.get("SYSLOG_IDENTIFIER") or entry.get("_COMM")
    if not isinstance(message, str) or not isinstance(pid, str) or not pid.isdigit():
        return message
    host = host if isinstance(host, str) and _NAME.fullmatch(host) else "host"
    name = name if isinstance(name, str) and _NAME.fullmatch(name) else "process"
    return f"{host} {name}[{pid}]: {message}"
