"""What a file's name says: a result file as mlcheck reads it and as the official package checker
counts it. The reader, discovery and the package rules all ask."""

from __future__ import annotations

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
