"""Files named on the command line among others (a shell glob) that are no run: passed over, as
the walk of a folder passes them over.

``mlcheck check ROUND/*`` names every entry of the round's folder: the packages, and a
``README.md``, a ``LICENSE`` or a ``MANIFEST.txt`` beside them. Read as logs, they would be failing
runs (MLC002) that no official tool ever reads. So, when several paths are given, a named file
that holds no record is passed over (said at the top of the report, as a file met while walking)
when its name is not a log's (no ``.log``, ``.out`` or ``.txt``, gzip or not), or when it is
named like one beside a named folder (``ROUND/MANIFEST.txt`` with ``ROUND/Acme/``). Never a
result file (``result_<i>.txt``, ``.gz`` too) or a file inside a package's ``results/``; never a
log of a job that logged nothing named with other logs (``jobs/*/train.log``: a failing run, as
when the folder is walked); and nothing when it would leave no log at all (``mlcheck check
notes.txt``, ``docs/*``: MLC002 answers about each).

A named file beside named ``result_<i>.txt`` files (``mlcheck check bench/*`` names the
``README.txt`` of a benchmark folder) is passed over whatever it holds, as the walk of that
folder passes it over: the official tools read only the result files (checked as a folder, the
layout rules name it: MLC507, MLC508).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Sequence

from mlcheck.package.file_kinds import holds_a_record
from mlcheck.package.real_paths import absolute_parts
from mlcheck.read.file_names import LOG_FILE_NAME, RESULT_FILE, SUBMITTED_RESULT_FILE

if TYPE_CHECKING:
    from mlcheck.package.discover import LogRef


def passed_over(refs: Sequence[LogRef], paths: Sequence[str]) -> dict[str, bool]:
    """The paths of ``refs`` (found for the command line's ``paths``) that are named files of
    no run (see the module's docstring), each with whether it lies beside named result files."""
    if len(paths) < 2:
        return {}
    named = [ref for ref in refs if not ref.walked and ref.path != "-" and ref.special is None]
    result_dirs = {os.path.dirname(ref.path) for ref in named if SUBMITTED_RESULT_FILE.match(os.path.basename(ref.path))}
    others = [ref.path for ref in named if RESULT_FILE.match(os.path.basename(ref.path)) is None
              and os.path.isfile(ref.path)]
    beside = {path: True for path in others if os.path.dirname(path) in result_dirs}
    beside_folders = {os.path.dirname(os.path.normpath(path)) for path in paths if os.path.isdir(path)}
    candidates = [path for path in others if path not in beside and "results" not in absolute_parts(path)
                  and (not LOG_FILE_NAME.search(os.path.basename(path)) or os.path.dirname(os.path.normpath(path)) in beside_folders)]
    found = {**beside, **{path: False for path in candidates if not holds_a_record(path)}}
    return found if len(found) < len(refs) else {}  # (a run left to check, or none passed over)
