"""A run of record lines behind the bare tags of several ranks, read in bulk: the block reader's
path for the console of a job in which every rank logs (a submitted result file keeps every
rank's records).

Many published result files are the console of an ``srun --label`` (or ``mpirun``) job in which
each rank logs its own ``init_start`` or ``cache_clear`` one line after another (``  0: :::MLLOG
...``, ``511: :::MLLOG ...``): a run of record lines whose tags change at every line, which
the bulk path of one tag (:func:`~mlcheck.read.record_runs.bulk_events` with a tag) does not
take. Here such a run is found with one pattern search, each line's tag cut off, the records
decoded as that path decodes them, and each tag's source decided once, as
:meth:`~mlcheck.read.fast_lines.FastLines.kept_tagged` decides it for its lines.

It is only taken where :meth:`~mlcheck.read.fast_lines.FastLines.kept_tagged` would read every
line of the run: each line a bare tag (an ``srun`` label, ``[rank]`` or an MPI tag, nothing
else), the official parser's token and one record, no colour code; every tag decided kept, of a
job already met, with no copy to compare; every record passing the bulk path's tests. Anything
else is read line by line as before (``tests/test_tagged_runs.py`` holds the two to the same
items and statistics).
"""

from __future__ import annotations

import re
from itertools import repeat
from operator import getitem, methodcaller
from typing import Callable, cast

from mlcheck.model import Event
from mlcheck.read.lazy_patterns import lazy_pattern
from mlcheck.read.line_reader import MARKER_BYTES, TOKEN_BYTES, LineReader
from mlcheck.read.rawlog import Source
from mlcheck.read.record_runs import MIN_LINES, events_of_lines

_BARE_TAG = (rb"(?: *\d+: |\[\d+(?:@[\w.-]+)?\](?: |<std(?:out|err)>: ?)|\[[a-z][a-z_-]*?\d+\]: ?"
             rb"|\[(?:[Rr]ank|RANK|GPU|gpu)(?:[:=] ?| )?\d+\] |(?:[Rr]ank|RANK) \d+: "
             rb"|\[(?:[^\[\]\s,@]*@)?\d+,(?:mpirank:)?\d+(?:,[^\[\]\s,]+)?\](?:\[[^\[\]\s]*\])?<std(?:out|err)>:)")
"""What :func:`mlcheck.read.rawlog.read_prefix` reads as a bare tag: an ``srun`` label, an
``mpiexec -prepend-rank`` rank, a torchrun rank, an MPI tag."""
_TAGGED_RECORD = lazy_pattern(_BARE_TAG + re.escape(TOKEN_BYTES))
_RUN_END = lazy_pattern(rb"\n(?!" + _BARE_TAG + re.escape(TOKEN_BYTES) + rb")")
"""The line end after which the next line is not a tagged record line."""
_FIND_MARKER = methodcaller("find", MARKER_BYTES)
_SLICED = cast(Callable[[bytes, slice], bytes], getitem)


def next_is_tagged(chunk: bytes, end: int) -> bool:
    """Whether the line at ``end`` is a record line behind a bare tag."""
    return _TAGGED_RECORD.match(chunk, end) is not None


def tagged_run(chunk: bytes, start: int, size: int) -> tuple[int, list[bytes], list[bytes]] | None:
    """The run of tagged record lines from the line at ``start``: where it ends (its last line
    end), each line's tag and each line from its marker; no tags when the run must be read line
    by line (fewer than :data:`~mlcheck.read.record_runs.MIN_LINES` lines, another marker on
    one, a colour code: the caller reads it so once, not trying again at each of its lines); None
    when the first line is not such a line. Each step in C, none per line."""
    if _TAGGED_RECORD.match(chunk, start) is None:
        return None
    found = _RUN_END.search(chunk, start)
    end = size if found is None else found.start()
    if end >= size:  # (a last line without its end is not one kept_tagged reads)
        end = chunk.rfind(b"\n", start, size)
        if end <= start:
            return None
    run = chunk[start:end]
    lines = run.split(b"\n")
    if len(lines) < MIN_LINES or run.count(MARKER_BYTES) != len(lines) or b"\x1b" in run:
        return end, [], []  # (refused: read line by line, once, to its end)
    cuts = list(map(_FIND_MARKER, lines))
    return (end, list(map(_SLICED, lines, map(slice, repeat(0), cuts))),
            list(map(_SLICED, lines, map(slice, cuts, repeat(None)))))


def run_sources(reader: LineReader, tags: list[bytes]) -> list[Source] | None:
    """The source of each line's tag, decided as :meth:`~mlcheck.read.fast_lines.FastLines.kept_tagged`
    decides it; None when any line is not one it reads (a tag with a timestamp or other text, of
    a job not met yet, whose records are compared with copies) or the tags name several jobs."""
    decided: dict[bytes, Source] = {}
    for tag in dict.fromkeys(tags):
        source = reader.kept_tag_source(tag)
        if source is None:
            return None
        decided[tag] = source
    if len({source[0] for source in decided.values()}) != 1:
        return None
    return list(map(decided.__getitem__, tags))


def tagged_run_events(chunk: bytes, start: int, end: int, records: list[bytes], first_line: int) -> list[Event] | None:
    """The events of the run's records (``chunk[start:end]``, the first on physical line
    ``first_line``), decoded as the bulk path decodes them; None when it refuses them."""
    return events_of_lines(records, chunk[start:end], range(first_line, first_line + len(records)))
