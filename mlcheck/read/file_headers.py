"""The headers ``tail`` and ``head`` print above each file they are given, read as the name of a
rank file in front of each of its lines.

``tail -n +1 -v out/1/rank.*/stdout`` (``head``, ``tail -f`` of several files: a header again
wherever the file changes) prints each file's lines after a header of its name::

    ==> out/1/rank.0/stdout <==
    :::MLLOG {"namespace": "", "time_ms": 1652083200123, ...}

    ==> out/1/rank.1/stdout <==
    :::MLLOG {"namespace": "", "time_ms": 1652083200125, ...}

Every rank printing every record, the lines of one file are one rank's: read without their
header they would be every rank's records kept as one stream's (a rank's ``init_stop`` after
another's ``run_start``: MLC404). Here each line below the header of a file named for a rank
(as :func:`~mlcheck.read.host_labels.rank_file` reads grep's names: ``rank3.log``,
``out/1/rank.3/stdout``) is given with an MPI rank tag in front, ``[J,R]<stdout>:``: R the
file's rank, J a job per rest of the path (the files of one job's ranks share it:
``out/1/rank.N/stdout``; ``out/2/rank.0/stdout``, ``trial2_rank0.log`` are another job's, a
relaunch's, whose rank 0 is no copy of the first job's), numbered in the order met. The readers
read the tag as they read mpirun's. Blank lines (``tail`` ends each file with one) stay as they
are. Below the header of a file of another name (``slurm-4242.out``: a job's console) lines are
given as they are. One output line per physical line: line numbers stay the file's.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator

from mlcheck.read.host_labels import rank_file

_HEADER = re.compile(rb"==> (.{1,4096}) <==\r?\n?")


class FileHeaders:
    """Follows one file's lines: the name of the rank file whose lines they are, if any."""

    def __init__(self) -> None:
        self.name: bytes | None = None
        """The rank file's tag, to put in front of each line."""
        self.jobs: dict[str, int] = {}
        """The job of each rest of a rank file's path, numbered from 1 in the order met."""
        self.labelled = 0
        """Lines given with a rank file's name."""
        self.at_line_start = True  # (the last piece ended its line: readline(limit) gives pieces of a long one)

    def line(self, raw: bytes) -> bytes:
        """``raw`` with the tag of the rank file it belongs to in front (a header: as it is)."""
        start, self.at_line_start = self.at_line_start, raw.endswith(b"\n")
        if start and raw.startswith(b"==> "):
            header = _HEADER.fullmatch(raw)
            if header is not None:
                found = rank_file(header.group(1).decode("utf-8", errors="replace"))
                if found is None:
                    self.name = None
                else:
                    job = self.jobs.setdefault(found[1], len(self.jobs) + 1)
                    self.name = b"[%d,%d]<stdout>:" % (job, found[0])
                return raw
        if self.name is None or not start or not raw.strip():
            return raw
        self.labelled += 1
        return self.name + raw


def headed_file_lines(lines: Iterable[bytes], headers: FileHeaders) -> Iterator[bytes]:
    """``lines`` with each line below a rank file's header tagged with its rank (:class:`FileHeaders`)."""
    lines = iter(lines)
    for raw in lines:
        if raw.startswith(b"==> "):
            yield headers.line(raw)
            break
        headers.at_line_start = raw.endswith(b"\n")
        yield raw
    else:
        return
    for raw in lines:  # (from the first header on: every line is looked at)
        yield headers.line(raw)
