"""A report's file written whole or not at all: a write that fails (a full disk, a signal) leaves
the file it was to replace as it was, never a cut-off report that a CI step would upload as if it
were complete (review of session 41: ``-o sarif:out.sarif`` on a full disk left 64 KiB of a SARIF
file over the good one)."""

from __future__ import annotations

import contextlib
import os
import stat
from typing import Iterator, TextIO


@contextlib.contextmanager
def replaced_file(path: str) -> Iterator[TextIO]:
    """A text file (UTF-8, ``\\n`` line ends) to write the contents of ``path`` into. A regular
    file (or a new one) is written beside it, then renamed over it once complete, keeping the
    permissions of the file it replaces (the umask's for a new one); through a link, its target is
    replaced. A device, pipe or other special file is written directly (``/dev/stdout``), and so
    is a file in a folder where no other can be made."""
    target = os.path.realpath(path)
    try:
        special = not stat.S_ISREG(os.stat(target).st_mode)
        mode: int | None = os.stat(target).st_mode & 0o7777
    except OSError:  # (a new file)
        special, mode = False, None
    import tempfile  # (imported when a report is written: `mlcheck --help` needs none of it)

    try:
        descriptor, temporary = (-1, "") if special else tempfile.mkstemp(
            prefix=f".{os.path.basename(target)}.", suffix=".part", dir=os.path.dirname(target) or ".")
    except OSError:  # (a writable file in a folder that is not: written over in place)
        descriptor, temporary = -1, ""
    if not temporary:
        with open(path, "w", encoding="utf-8", errors="backslashreplace", newline="\n") as handle:
            yield handle
        return
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", errors="backslashreplace", newline="\n") as handle:
            yield handle
        os.chmod(temporary, mode if mode is not None else 0o666 & ~_umask())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
