"""Files named on the command line among others (a shell glob, ``mlcheck check ROUND/*``) that
hold no ``:::MLLOG`` record and are no log: passed over, as the walk of a folder passes them over.

``mlcheck check ROUND/*`` names every entry of the round's folder: the packages, and a
``README.md``, a ``LICENSE`` or a ``MANIFEST.txt`` beside them. Read as logs, they would be failing
runs (MLC002) that no official tool ever reads. So, when several paths are given, a named file
without a record is passed over (said at the top of the report, as a file met while walking) when
its name is not a log's (no ``.log``, ``.out`` or ``.txt``), or when it is named like one but no
other named file of its folder is a log (``MANIFEST.txt`` beside packages); never a
``result_<i>.txt`` or a file inside a package's ``results/``, and never a file named alone (``mlcheck
check notes.txt`` is a question about that file: MLC002 answers it). A named file beside named
``result_<i>.txt`` files (``mlcheck check bench/*`` names the ``README.txt`` of a benchmark folder)
is passed over whatever it holds, as the walk of that folder passes it over: the official tools
read only the result files (checked as a folder, the layout rules name it: MLC507, MLC508).
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Sequence

from mlcheck.package.file_kinds import holds_a_record
from mlcheck.package.real_paths import absolute_parts
from mlcheck.read.file_names import SUBMITTED_RESULT_FILE

if TYPE_CHECKING:
    from mlcheck.package.discover import LogRef

_LOG_NAME = re.compile(r"\.(log|out|txt)(\.gz)?$")


def passed_over(refs: Sequence[LogRef], given: int) -> dict[str, bool]:
    """The paths of ``refs`` (``given``: how many paths the command line named) that are named
    files of no log (see the module's docstring), each with whether it lies beside result files
    (``bench/*`` names a README.txt beside ``result_<i>.txt``: as the walk of the folder, not a
    run of it whatever it holds)."""
    if given < 2:
        return {}
    named = [ref for ref in refs if not ref.walked and ref.path != "-" and ref.special is None]
    result_dirs = {os.path.dirname(ref.path) for ref in refs if SUBMITTED_RESULT_FILE.match(os.path.basename(ref.path))}
    others = [ref.path for ref in named if SUBMITTED_RESULT_FILE.match(os.path.basename(ref.path)) is None
              and os.path.isfile(ref.path)]
    beside = {path: True for path in others if os.path.dirname(path) in result_dirs}
    candidates = [path for path in others if path not in beside and "results" not in absolute_parts(path)]
    without = {path for path in candidates if not holds_a_record(path)}
    if not without:
        return beside
    logs_in = {os.path.dirname(ref.path) for ref in named
               if ref.path not in without and _LOG_NAME.search(os.path.basename(ref.path))}
    return {**beside, **{path: False for path in without
                         if not _LOG_NAME.search(os.path.basename(path)) or os.path.dirname(path) not in logs_in}}
