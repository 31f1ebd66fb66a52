"""Files named on the command line that are no log, refused with what to do instead: a system
description (it is checked with its package) and mlcheck's own JSON report."""

from __future__ import annotations

import os

_REPORT_SCHEMA = b'"schema": "mlcheck-report/'


def not_a_log(given: str, parts: tuple[str, ...]) -> str | None:
    """Why the file ``given`` (its absolute path's ``parts``) is no log to read: a system
    description, or an mlcheck JSON report (its first bytes say so); None for any other file."""
    if given.endswith(".json") and len(parts) >= 2 and parts[-2] == "systems":
        package = os.path.normpath(os.path.join(os.path.dirname(given) or os.curdir, os.pardir))  # (as it was given)
        return (f"{given}: a system description is no log; it is checked with its package (its fields, "
                f"and against the logs of its system): mlcheck check {package}")
    if not os.path.isfile(given):  # (a FIFO, <(zcat ...), is read once: never peeked at)
        return None
    try:
        with open(given, "rb") as handle:
            head = handle.read(256)
    except OSError:
        return None  # (the reader says why it cannot be read)
    if head.lstrip().startswith(b"{") and _REPORT_SCHEMA in head:
        return (f"{given}: this is an mlcheck JSON report, not a log; mlcheck reads the logs (give the "
                "folders or files the report was made of)")
    return None
