"""Text as the file it came from writes it: a message quotes a result file's values, which are read as
latin-1 as the official parser reads them (:mod:`mlcheck.read.official_view`); the parser's view decides
verdicts, the message shows the file's characters."""

from __future__ import annotations

import re

_BYTE = "(?:[\u0080-\u00bf]|\\\\x[89ab][0-9a-f])"
_READ_AS_LATIN1 = re.compile(f"[\u00c2-\u00df]{_BYTE}|[\u00e0-\u00ef]{_BYTE}{{2}}|[\u00f0-\u00f4]{_BYTE}{{3}}")
"""Two to four characters that are one UTF-8 character read a byte a character (``Ã¼`` for ``ü``; a byte
that ``repr`` escapes as it shows it: ``Ã\\x9c`` for ``Ü``): a result file is read as latin-1, as the
official parser reads it (:mod:`mlcheck.read.official_view`)."""
_ESCAPED_BYTE = re.compile(r"\\x([89ab][0-9a-f])")


def utf8_text(message: str) -> str:
    """``message`` with the characters of a result file that its latin-1 reading split (``ZÃ¼rich``) put back
    together (``Zürich``): the parser's view decides verdicts, a message shows what the file says. A
    character that is no printable one (a UTF-8 NBSP) stays as it is shown."""
    return _READ_AS_LATIN1.sub(_joined, message)


def _joined(match: re.Match[str]) -> str:
    text = _ESCAPED_BYTE.sub(lambda byte: chr(int(byte.group(1), 16)), match.group())
    try:
        joined = text.encode("latin-1").decode("utf-8")
    except UnicodeError:  # (no UTF-8 sequence: left as it is)
        return match.group()
    return joined if joined.isprintable() else match.group()
