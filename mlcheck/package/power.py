"""The ``power/`` folder of a benchmark folder, read as the round's tools read it.

Layout (submission rules, training; power_measurement.adoc): ``results/<system>/<benchmark>/power/
result_<i>/node_<j>.txt`` (one per node) and ``sw_<k>.txt`` (one per interconnect switch), a
folder per result file named after it (``result_3`` for ``result_3.txt``). Each power log is an
MLLOG file (``power_measurement_start``/``_stop``, ``power_reading`` in watts, ``conversion_eff``,
``interconnect_power_est`` for a switch), read with :func:`mlcheck.read.reader.read_result_batches`.

Two readings of the same folder, as the two official tools do it: the power checker
(``package_checker/power_checker.py``, 5.0+) counts every file whose name starts with ``node``
or ``sw`` and takes its index from the last ``_`` part of the name (``int()``, which raises on
anything else); the summarizer (``result_summarizer.py``, 3.1+) scores the files matching
``node_*.txt`` and ``sw_*.txt``.
"""

from __future__ import annotations

import fnmatch
import os
from typing import Sequence

from mlcheck.records import dataclass
from mlcheck.model import EVENT_LINE, Event, Severity
from mlcheck.package.file_kinds import special_kind
from mlcheck.read.json_depth import loads as bounded_loads
from mlcheck.read.line_reader import MARKER_BYTES
from mlcheck.read.reader import read_result_batches
from mlcheck.read.record_runs import events_without_metadata

POWER_FOLDER = "power"
KINDS = ("node", "sw")


@dataclass(frozen=True)
class PowerFile:
    """One file of a run's power folder that the power checker counts as a node or switch log."""

    path: str
    kind: str
    """``node`` or ``sw`` (the name starts with it)."""
    index: int | None
    """The power checker's index (the last ``_`` part of the name); None when ``int()`` fails."""
    scored: bool
    """The summarizer reads it (``node_*.txt`` / ``sw_*.txt``)."""


@dataclass(frozen=True)
class PowerRun:
    """The power folder of one result file."""

    result_name: str
    """The result file's name without ``.txt`` (``result_3``)."""
    folder: str | None
    """``power/<result_name>``; None when it does not exist."""
    files: tuple[PowerFile, ...] = ()
    other: tuple[str, ...] = ()
    """Files of the folder that are neither node nor switch logs."""
    unlistable: str | None = None
    """Why ``power/<result_name>`` exists but cannot be listed (a file, a folder without read
    permission): the power checker's ``os.listdir`` raises there (``folder`` is None)."""

    def of_kind(self, kind: str) -> tuple[PowerFile, ...]:
        return tuple(f for f in self.files if f.kind == kind)


@dataclass(frozen=True)
class PowerFolder:
    """The ``power/`` folder of a benchmark folder, one entry per result file."""

    path: str
    runs: tuple[PowerRun, ...]
    unmatched: tuple[str, ...] = ()
    """Folders in ``power/`` without a result file of that name."""


def result_name(path: str) -> str:
    """``result_3`` for ``.../result_3.txt`` (``os.path.splitext`` of the base name)."""
    return os.path.splitext(os.path.basename(path))[0]


def summarizer_name(path: str) -> str:
    """``result_4`` for ``.../result_4.1.txt``: the name under which the result summarizer globs a
    run's power logs (``split(".")[0]``: the base name to its first dot), where the package checker
    takes it to the last (:func:`result_name`)."""
    return os.path.basename(path).split(".")[0]


def summarizer_run(power: PowerFolder, path: str) -> PowerRun | None:
    """The power logs the result summarizer scores for the result file ``path`` (None: no folder)."""
    name = summarizer_name(path)
    known = next((run for run in power.runs if run.result_name == name), None)
    if known is not None or name == result_name(path):
        return known
    try:
        return _scan_run(os.path.join(power.path, name), name) if os.path.isdir(os.path.join(power.path, name)) else None
    except OSError:
        return None


def _index(name: str) -> int | None:
    try:
        return int(os.path.splitext(name)[0].split("_")[-1])
    except ValueError:
        return None


def _scan_run(folder: str, name: str) -> PowerRun:
    entries = sorted(os.listdir(folder))
    files, other = [], []
    for entry in entries:
        kind = next((k for k in KINDS if entry.startswith(k)), None)
        path = os.path.join(folder, entry)
        if kind is None:
            other.append(path)
            continue
        files.append(PowerFile(path, kind, _index(entry), fnmatch.fnmatchcase(entry, f"{kind}_*.txt")))
    return PowerRun(name, folder, tuple(files), tuple(other))


def scan_power(benchmark_folder: str, result_files: Sequence[str]) -> PowerFolder | None:
    """The power folder of a benchmark folder for its result files; None when there is none.
    A run folder that cannot be listed has no folder, and says why (``unlistable``)."""
    path = os.path.join(benchmark_folder, POWER_FOLDER)
    if not os.path.isdir(path):
        return None
    names = sorted({result_name(f) for f in result_files}, key=lambda name: name + ".txt")  # (as the checker sorts)
    runs = []
    for name in names:
        folder = os.path.join(path, name)
        try:  # (the checker lists what exists(): a file, or a folder it cannot read, makes it raise)
            runs.append(_scan_run(folder, name) if os.path.exists(folder) else PowerRun(name, None))
        except OSError as error:
            runs.append(PowerRun(name, None, unlistable=error.strerror or type(error).__name__))
    try:
        present = sorted(e for e in os.listdir(path) if os.path.isdir(os.path.join(path, e)))
    except OSError:
        present = []
    read = {summarizer_name(f) for f in result_files}  # (the summarizer's: result_4.1.txt reads power/result_4)
    unmatched = tuple(os.path.join(path, e) for e in present if e not in names and e not in read)
    return PowerFolder(path, tuple(runs), unmatched)


@dataclass(frozen=True)
class PowerLog:
    """What the energy score needs from one node or switch log, in log order."""

    path: str
    events: tuple[Event, ...]
    reading_problems: int = 0
    """Findings of the reader (malformed lines, records of the wrong shape)."""
    first_problem: tuple[int | None, str] | None = None
    """The line and code of the first of them."""
    codes: frozenset[str] = frozenset()
    """The codes of them all."""
    unreadable: str | None = None
    """Why the summarizer cannot read the log at all (it cannot be opened, it is gzip)."""
    parser_crash: tuple[int, str] | None = None
    """The line of the first record on which the official parser raises, and what it raises
    (:func:`official_parse`): the summarizer stops there."""


POWER_KEYS = frozenset({"power_measurement_start", "power_measurement_stop", "power_reading",
                        "conversion_eff", "interconnect_power_est"})


def read_power_log(path: str) -> PowerLog:
    """The power records of a log (other keys are ignored, as the summarizer ignores them); every
    record is kept, as the official parser keeps repeated lines, but of several records on one line
    only the last one (the parser reads a line from its last marker on)."""
    kind = None if os.path.isdir(path) else special_kind(path)
    if kind is not None:  # (opening a FIFO waits for a writer; /dev/zero never ends)
        return PowerLog(path, (), unreadable=f"is {kind}, not a file: mlcheck does not read it (it could wait "
                                             "forever), and the summarizer would read it or wait on it")
    clean = _clean_power_log(path)
    if clean is not None:
        return clean
    events: list[Event] = []
    problems = 0
    repaired = False  # (read as raw output: something mlcheck read the official parser may not)
    first: tuple[int | None, str] | None = None
    codes: set[str] = set()
    # (read as a result file is, runs of record lines in bulk: the same records and findings as
    # read_mllog(path, keep_copies=True), without a step per record of logs of thousands of readings)
    for item in read_result_batches(path):
        if isinstance(item, list):
            events.extend([event for event in item if event.key in POWER_KEYS])
        elif isinstance(item, Event):
            if item.key in POWER_KEYS:
                events.append(item)
        elif item.severity >= Severity.WARNING and item.code != "MLC002":  # (no record at all: the energy says)
            problems += 1
            first = first or (item.line, item.code)
            codes.add(item.code)
        else:
            repaired = repaired or item.code == "MLC020"
    if not problems and not repaired:
        return PowerLog(path, tuple(events), problems, first, frozenset(codes))
    crash, skipped, shared = official_parse(path)  # (a malformed record: read it as the summarizer does)
    kept = [e for e in events if e.line not in skipped and e.line not in shared]
    kept.extend(event for event in shared.values() if event is not None and event.key in POWER_KEYS)
    kept.sort(key=EVENT_LINE)  # (stable: the log's order)
    return PowerLog(path, tuple(kept), problems, first, frozenset(codes), parser_crash=crash)


_TOKEN = ":::MLLOG "
"""What the official parser looks for on a line (with its space); it reads from the last one on."""


def official_parse(path: str) -> tuple[tuple[int, str] | None, frozenset[int], dict[int, Event | None]]:
    """How the official parser (``mlp_parser``'s ``string_to_logline``, which the result summarizer
    reads power logs with) reads a log: the first line on which it raises anything but the
    ValueError it skips (a missing field: KeyError; a null ``time_ms``: TypeError; a huge integer:
    OverflowError) with the exception's name, or None; and the lines with a marker it skips (JSON
    with text after it, a ``time_ms`` ``float()`` refuses with a ValueError, ``null``). Read as it
    reads: latin-1, universal line ends, from the last marker of a line, the rest one JSON value.
    Third, the record it reads on each line that holds several markers (only that line's last one:
    None where it skips the line)."""
    skipped: set[int] = set()
    shared: dict[int, Event | None] = {}
    try:
        with open(path, encoding="latin-1") as handle:
            for number, line in enumerate(handle, 1):
                at = line.rfind(_TOKEN)
                if at < 0:
                    continue
                several = line.find(_TOKEN) < at
                try:
                    record = bounded_loads(line[at + len(_TOKEN):].strip())  # (RecursionError as on 3.10 and 3.11)
                    if record is None:  # ("does not match regex", a ValueError)
                        raise ValueError(record)
                    time_ms, key, value, metadata = float(record["time_ms"]), record["key"], record["value"], record["metadata"]
                    if several:
                        shared[number] = Event(key, value, metadata, time_ms, number) if isinstance(key, str) else None
                except ValueError:
                    skipped.add(number)
                except Exception as error:  # noqa: BLE001 (whatever it is, the summarizer stops on it)
                    return (number, type(error).__name__), frozenset(skipped), shared
    except OSError:
        pass
    return None, frozenset(skipped), shared


CLEAN_LOG_BYTES = 64 * 1024 * 1024
"""A power log of more bytes than this is read as a stream (:func:`read_power_log`)."""


def _clean_power_log(path: str) -> PowerLog | None:
    """:func:`read_power_log` of a log that is only record lines, each the marker and one record,
    every line ended (no blank line, no colour code, not gzip; a carriage return is white space to
    JSON, as on the line path), decoded in one pass even where each record's ``metadata`` is not
    an object (``""``: the line path makes each an MLC008 finding, counted here as it counts
    them); None for any other log, or when the bulk decoder refuses one record. A log the
    summarizer cannot read at all (it cannot be opened, or it is gzip, which mlcheck's reader would
    decompress and the summarizer's does not) is one without events, saying why."""
    try:
        with open(path, "rb") as handle:
            text = handle.read(CLEAN_LOG_BYTES + 1)
    except OSError as error:
        return PowerLog(path, (), unreadable=f"cannot be opened ({error.strerror or error}): the summarizer raises on it")
    if text.startswith(b"\x1f\x8b"):
        return PowerLog(path, (), unreadable="is gzip-compressed, and the summarizer reads its bytes as text "
                                             "(store it uncompressed): the summarizer raises on it")
    count = text.count(b"\n")  # (the lines, each ended)
    if (len(text) > CLEAN_LOG_BYTES or not text.endswith(b"\n") or not text.startswith(MARKER_BYTES)
            or text.count(MARKER_BYTES) != count or text.count(b"\n" + MARKER_BYTES) != count - 1
            or b"\x1b" in text):
        return None
    decoded = events_without_metadata(text[:-1].split(b"\n"), text, range(1, count + 1))
    if decoded is None:
        return None
    events, problems, first_line = decoded
    return PowerLog(path, tuple(event for event in events if event.key in POWER_KEYS), problems,
                    (first_line, "MLC008") if problems else None, frozenset({"MLC008"}) if problems else frozenset())
