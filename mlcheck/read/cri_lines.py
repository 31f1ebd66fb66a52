"""Lines of a container runtime's log file (the CRI format of containerd and CRI-O).

Each line the container printed is written as ``<RFC 3339 time> <stream> <tag> <text>``
(``2024-05-01T10:00:00.123456789Z stdout F :::MLLOG {...}``): the files under
``/var/log/pods/`` and ``/var/log/containers/`` of a Kubernetes node, which a job's output is
copied from when ``kubectl logs`` is gone with the pod. The runtime cuts a long line into
pieces tagged ``P`` (partial, without a line end), the last one ``F`` (full); stdout's and
stderr's pieces may alternate. The pieces of a stream are joined at its ``F`` line, the lines of
the other pieces given empty (line numbers stay those of the file). ``kubectl logs`` shows the
text alone, already joined: no repair there.
"""

from __future__ import annotations

import re

CRI_LINE = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d) (stdout|stderr) ([PF]) ")
"""The runtime's prefix of a line: time, stream, tag."""
_LONGEST = 1 << 24
"""The most of a line held in pieces (the reader's longest line)."""


class CriPieces:
    """One file's CRI lines without their prefix, a long line's pieces joined."""

    def __init__(self) -> None:
        self.count = 0
        """The lines taken out of the format."""
        self.pieces: dict[bytes, bytes] = {}
        """Per stream, the text of the pieces of a line that goes on."""
        self.last_piece: bytes | None = None
        """The stream of the line just given, when it was a piece (given empty)."""

    def line(self, raw: bytes) -> bytes | None:
        """The text of a CRI line (``b"\\n"`` for a piece of a line that goes on), or None when
        ``raw`` is not one."""
        match = CRI_LINE.match(raw)
        self.last_piece = None
        if match is None:
            return None
        self.count += 1
        stream, text = match[1], raw[match.end():]
        held = self.pieces.pop(stream, b"")
        if match[2] == b"P":
            if text.endswith(b"\n"):  # (the line end the runtime writes after every entry)
                text = text[:-1]
            if len(held) + len(text) < _LONGEST:
                self.pieces[stream] = held + text
                self.last_piece = stream
                return b"\n"
            return held + text + b"\n"  # (a line too long to hold: given in parts)
        return held + text if text.endswith(b"\n") else held + text + b"\n"

    def unfinished(self) -> bytes | None:
        """At the end of the file: the pieces of the line given last, when it was a piece of a
        line that never ended (its process died writing it), to be given in that line's place."""
        if self.last_piece is None:
            return None
        return self.pieces.pop(self.last_piece) + b"\n"
