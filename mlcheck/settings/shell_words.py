"""A text split into words as a POSIX shell splits a command line, without running anything:
the GitHub Action's ``args`` input (``python -m mlcheck.settings.shell_words TEXT`` writes each
word followed by a NUL byte; exit 2 with a message for a quote left open).

Quotes keep a value with spaces whole, a backslash escapes (one that ends a line continues it,
as in a shell, outside single quotes), and ``#`` begins a comment where it
begins a word (``run#1.xml`` is one word, as in a shell; :func:`shlex.split`'s comments would
end the word there); a comment runs to the end of its line. Nothing is expanded (``$x``, ``*``).
"""

from __future__ import annotations

import shlex
import sys


def shell_words(text: str) -> list[str]:
    """The words of ``text``; ValueError for a quote left open."""
    return shlex.split(_without_comments(text))


def _without_comments(text: str) -> str:
    """``text`` without its comments: from a ``#`` that begins a word, outside quotes, to the end
    of its line."""
    kept: list[str] = []
    quote, escaped, previous, skipping = "", False, "\n", False
    for char in text:
        if skipping:
            if char != "\n":
                continue
            skipping = False
        elif escaped:  # (an escaped blank is part of the word: no # after it begins one)
            escaped = False
            if char == "\n":  # (a line continuation, outside single quotes: the backslash and the line end go)
                kept.pop()
                previous = kept[-1] if kept else "\n"
                continue
            kept.append(char)
            previous = "\\"
            continue
        elif quote:
            if char == quote:
                quote = ""
            elif char == "\\" and quote == '"':
                escaped = True
        elif char == "\\":
            escaped = True
        elif char in "'\"":
            quote = char
        elif char == "#" and previous.isspace():
            skipping = True
            continue
        kept.append(char)
        previous = char
    return "".join(kept)


def main(argv: list[str]) -> int:
    try:
        words = shell_words(argv[0] if argv else "")
    except ValueError as error:
        print(f"mlcheck action: the args input cannot be split into options ({error}): {argv[0]!r}", file=sys.stderr)
        return 2
    sys.stdout.write("".join(word + "\0" for word in words))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
