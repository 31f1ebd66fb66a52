"""What a file's name says: a result file as mlcheck reads it and as the official package checker
counts it. The reader, discovery and the package rules all ask."""

from __future__ import annotations

import os
import re

RESULT_FILE = re.compile(r"^result_(.*?)\.txt(\.gz)?\Z", re.DOTALL)
"""A file name mlcheck reads as a result file (gzip too): ``result_<i>.txt``, and the names of
later rounds' tools (``result_<job>-<id>_NN.txt``), which the package checker's glob
``result_*.txt`` counts alike."""
SUBMITTED_RESULT_FILE = re.compile(r"^result_(.*)\.txt\Z", re.DOTALL)
"""A file name the official package checker counts as a result file (its glob ``result_*.txt``,
whose ``*`` takes any character, a line end too)."""
LOG_FILE_NAME = re.compile(r"\.(log|out|txt)(\.gz)?$")
"""A file name that looks like a log (``.log``, ``.out``, ``.txt``, gzip or not): what discovery
reads beside no result file, and what a glob's named file must not be to be passed over."""


STDIN_FOLDER = "-"
"""The folder of the runs read from standard input (``-``): none. No ``scaling.json`` or params
file of the current folder applies to them, and they are no file named on its own of it."""


def folder_of_log(path: str) -> str:
    """The folder a log's runs are scored in when no discovery placed it: its parent folder
    (``.`` for a bare name), and :data:`STDIN_FOLDER` for standard input."""
    return STDIN_FOLDER if path == "-" else (os.path.dirname(path) or ".")
