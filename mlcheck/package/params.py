"""``package_checker_params`` files: what a submitter asks of the package checker, and whether the
round's official tools would do it.

Three places, read three ways by the official tools:

- ``results/<system>/<benchmark>/`` and ``results/<system>/`` (package_checker.py, 4.0+): the file
  is read with ``readlines()`` and each line compared with ``== "rcp-bypass"`` (4.1+ also
  ``"seed-checker-bypass"``), so a line ending in a newline never matches: only a last line
  without one does (unchanged up to mlperf-logging 4.1.68).
- ``<org>/`` (the ``verify_for_vX_training.sh`` scripts): ``while read -r line`` prepends ``--``
  to each line and passes it to the package checker, so the last line is lost when it lacks a
  newline, and a line that is not one of the round's options (``rcp_bypass`` up to 4.0,
  ``rcp-bypass`` from 4.1) stops the script ("unrecognized arguments").

mlcheck reads every spelling (``rcp-bypass``, ``rcp_bypass``, ``--rcp-bypass``, with or without
newline) as the request it is, and says where the official tools would not honour it.
"""

from __future__ import annotations

import os

from mlcheck.package.real_paths import absolute_parts
from mlcheck.read.file_names import STDIN_FOLDER
from mlcheck.records import dataclass

PARAMS_FILE = "package_checker_params"
BYPASSES = ("rcp-bypass", "seed-checker-bypass")


@dataclass(frozen=True)
class ParamsLine:
    """One line of a params file."""

    number: int
    text: str
    """The line without its line break."""
    newline: bool
    """The line ends with a line break (``\\n``, ``\\r\\n``)."""
    crlf: bool = False
    """The line ends with ``\\r\\n`` (a shell's ``read`` keeps the ``\\r``)."""

    @property
    def option(self) -> str:
        """What the line asks for, spelling aside: ``--rcp_bypass`` → ``rcp-bypass``."""
        return self.text.strip().lstrip("-").replace("_", "-")


@dataclass(frozen=True)
class ParamsFile:
    """A ``package_checker_params`` file and where it lies."""

    path: str
    place: str
    """``benchmark``, ``system`` or ``package`` (the submission's top folder)."""
    lines: tuple[ParamsLine, ...] = ()
    error: str | None = None
    """Why the file could not be read."""


def read_params(path: str, place: str) -> ParamsFile | None:
    """The params file at ``path``; None when there is none."""
    if os.path.isdir(path):
        return ParamsFile(path, place, error="it is a folder")
    if not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return ParamsFile(path, place, error=str(error))
    lines = []
    for number, raw in enumerate(text.splitlines(keepends=True), start=1):
        body = raw.rstrip("\r\n")
        lines.append(ParamsLine(number, body, body != raw, raw.endswith("\r\n")))
    return ParamsFile(path, place, tuple(lines))


def params_files(benchmark_folder: str) -> list[ParamsFile]:
    """The params files that apply to a benchmark folder: its own, its system folder's, and the
    package's (``<org>/`` when the folder lies at ``<org>/results/<system>/<benchmark>``); none
    for standard input's runs, which lie in no folder."""
    if benchmark_folder == STDIN_FOLDER:
        return []
    folder = os.path.normpath(benchmark_folder)  # (its place read from the absolute path: '.' in it too)
    places = [(folder, "benchmark"), (os.path.normpath(os.path.join(folder, os.pardir)), "system")]
    if absolute_parts(folder)[-3:-2] == ("results",):
        places.append((os.path.normpath(os.path.join(folder, os.pardir, os.pardir, os.pardir)), "package"))
    found = []
    for place_folder, place in places:
        params = read_params(os.path.join(place_folder, PARAMS_FILE), place)
        if params is not None:
            found.append(params)
    return found
