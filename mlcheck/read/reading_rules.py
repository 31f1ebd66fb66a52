"""Reading: problems met while reading a log, before any rule looks at it (family MLC0xx).

The reader streams the file line by line; every ``:::MLLOG`` occurrence on a physical line is a
record. Each problem is reported at its physical 1-based line and reading goes on, so one bad line
never hides the rest of the log.

Follows the official checker's log parser (mlperf-logging's ``compliance_checker/mlp_parser``, the
same in every round 1.0-6.1): it reads from the last ``:::MLLOG`` marker of each line one JSON
object with ``key``, ``value``, ``metadata`` and ``time_ms``, and fails the whole file on a line it
cannot parse ("Log lines had parsing errors", without the line). The findings that end in
"[official checker agrees]" are the cases where it fails the file too; the others are mlcheck's
own (a warning or a note).

- MLC001 file-unreadable: the file cannot be opened, or its gzip archive is damaged, or a folder
  being walked cannot be listed (its logs are not checked).
  Fix: check the path and permissions; re-copy the file. A warning when whole gzip data is followed
  by bytes that are not gzip (a log appended to after it was compressed, a copy padded): they are
  ignored, as ``gzip -d`` ignores them with a warning, and every line before them is read.
- MLC002 no-records: the file is empty or holds no ``:::MLLOG`` record. In a folder holding result
  files (packages), a file met while walking it, named like a log (``.txt``, ``.log``, ``.out``) but
  no ``result_<i>.txt``, outside any ``results/`` folder and with no log holding records beside it,
  that holds no record anywhere (a ``MANIFEST.txt``, notes) is passed over: an info, not a run
  (the official tools read no such file). So is such a file named on the command line among other
  paths (``mlcheck check ROUND/*`` names a ``README.md`` or ``LICENSE`` beside the packages) when its
  name is no log's or it lies beside a named folder, unless nothing else is left to check, and any
  other file named beside named ``result_<i>.txt`` files (``bench/*``: not a run of the folder). Beside raw job output, in a
  package's ``results/``, in a folder of raw output alone and named alone on the command line, it
  is a log (an error).
- MLC003 invalid-json: the text after ``:::MLLOG`` is not valid JSON. The message gives the column.
  The official checker reports "Log lines had parsing errors" without the file line. In a
  ``result_<i>.txt`` file, text after the record's JSON on its line (``} xyz``, a second ``}``) is
  MLC003 too: the official parser decodes the whole rest of the line ("Extra data").
  Fix: write each record as one JSON object on its own line (``mllog`` does), with nothing after it.
- MLC004 truncated-record: the file ends in the middle of a record (the job was killed while
  writing). The run has no complete end; re-run or restore the full log.
  An error; a warning when its folder tolerates it as the one non-converged run the round allows (counted as the slowest).
- MLC005 record-not-object: the JSON is an array, string or number instead of an object.
  Fix: log the record as an object, as ``mllog`` writes it.
- MLC006 record-key-invalid: ``key`` is missing or not a non-empty string; the record is skipped.
  An error when it is missing (the official parser's KeyError fails the file); a warning when it
  is a number, null, a list or empty: the official parser keeps such a record, no rule names it,
  and a record it lacks is then missing for both (MLC105). Such a record without ``time_ms``,
  ``value`` or ``metadata``, or with a ``time_ms`` ``float()`` cannot read, stops the parser as any
  record does (it reads them whatever the key): MLC007, MLC025 or MLC008 say so, errors.
  Fix: give every record a non-empty string ``key`` (log through ``mllog``).
- MLC007 record-time-invalid: ``time_ms`` is missing, null, not a number, NaN or infinite.
  Missing, null or not a number (a list, an object, a string ``float()`` cannot read), the
  record is skipped (the official checker crashes with a TypeError, or fails the line with a
  ValueError). A warning when it is a string or a boolean that Python's ``float()`` reads as a
  finite number (``"1683739283351"``, ``true``): the official parser reads it so, and mlcheck too.
  NaN, Infinity, ``1e400`` and ``"inf"`` are numbers for the official parser's ``float()``, and its
  checker compares the times of few records (init's: a NaN fails it there, MLC401 here): such a
  record is kept with no usable time: MLC007 is an error of mlcheck's own on ``run_start`` or
  ``run_stop`` (``official: false``: the run has no time-to-train, as MLC405 says of a finite time
  outside any plausible date), else a warning (the rules time no other record; init's times are
  MLC401's, as the official checker compares them).
  Fix: log ``time_ms`` as a number of milliseconds since the Unix epoch, as ``mllog`` does.
- MLC008 record-metadata-invalid: ``metadata`` is missing or not an object. Missing, the official
  parser crashes (KeyError) and the file fails: an error; the record is kept with empty metadata.
  Another value (a number, a string, a list, null) it keeps, and its checks see it through
  Python's ``in``: ``'status' in v['metadata']`` finds the name in a string (``"status: ok"``) or
  among a list's items, and fails on a number or null; a check that reads a field's value fails.
  mlcheck reads such metadata the same way (a name found is a field present, with no value that
  any check accepts): a warning (``official: false``).
  Fix: give every record a ``metadata`` object (``mllog`` writes ``{"file": ..., "lineno": ...}``).
- MLC025 record-value-missing: the record has no ``value`` field (``"value": null`` is one);
  the record is kept with no value (the official parser crashes with a KeyError, so the file fails).
  Fix: log a ``value`` in every record (``null`` when there is none).
- MLC026 compressed-result-file: a file named ``result_<i>.txt`` holds gzip: mlcheck reads it,
  but the official checker reads the bytes as text and finds no record. Submit it uncompressed
  (a copy named ``result_<i>.txt.gz`` is read without this finding).
- MLC027 marker-without-space (warning): in a ``result_<i>.txt`` file, ``:::MLLOG`` is not
  followed by a space (``:::MLLOG{``, a tab). The official parser's token is ``":::MLLOG "``: it
  does not read such a record, and mlcheck drops it as well, so the rules judge the run it sees (a
  lost ``submission_benchmark`` is MLC105). In other raw output the record is read (``split``
  writes it with the space, and says so).
- MLC031 unwritten-block (warning): the log holds NUL bytes, which no job prints: a block of the
  file that was never written (the client of a network file system crashed with the block allocated,
  or the file was preallocated, or written at an offset past its end). What the job wrote there is
  lost, records included, and the lines around it may have run together. The official parser reads
  around them, as mlcheck does (a record after them on their line is read), so the run is judged on
  the records left: a record lost there may be one no rule misses. Said once a file, at the line of the
  first NUL, with their number. Fix: take the log from a copy that was written whole, or rerun.
- MLC009 invalid-utf8: the line has bytes that are not UTF-8. In raw output they are replaced
  (U+FFFD) and reading goes on. A result file is read as the official parser reads it, as latin-1
  (a byte a character; every line holding a byte that is not ASCII, valid UTF-8 or not), so a
  string's text, its ``len()`` and a key logged twice are judged as there (``"é"`` in UTF-8 is
  ``Ã©``; ``"\\u00e9"``, which the reference loggers write, is ``é`` in both). A warning: the
  official checker reads such bytes; a report shows the text as it reads it. A file that is UTF-16
  or UTF-32 (a byte order mark, as a Windows shell saves a console) is MLC009 at line 1: a result
  file holds no record for the official parser; raw output is read in its encoding (``split``
  writes UTF-8).
- MLC010 glued-records (warning): two or more records share one physical line (two processes
  writing to one stream). The official parser keeps only the last record of a line (a CR ends a
  line for it too): in a ``result_<i>.txt`` file mlcheck drops the others as it does, so the rules
  judge what the official checker sees (a lost required key is MLC105 there too); in other raw
  output every record is read (``mlcheck split`` writes one per line), and a record cut by the
  next (a killed run's last, MLC023) or a marker without a record (MLC003) shares nothing.
- MLC003 also covers a record nested too deeply to decode (about a thousand ``[``: the depth is
  Python's, and moves by a few levels with the call stack, so a record within some 20 levels of
  it may be read by one tool and not the other): the official parser crashes on it
  (RecursionError); mlcheck reports the line and reads on.
- MLC017 number-out-of-range (warning): a record holds an integer of more than 308 digits (valid
  JSON, but no float holds it). It is read as infinite, with its sign: it compares with a finite
  number as the official checker's Python compares the integer (an eval of ``10**400`` reaches
  the target there and here). Not so where the checker keeps the integer: it is not equal to
  ``float('inf')`` there (RNN-T's ``v in [1, float('inf')]`` fails), passes ``isinstance(v, int)``,
  differs from another such integer or from an infinity logged for the same key, and overflows
  in ``float`` arithmetic (``GBS * 8e-5`` raises) where infinity computes; so the verdict of such
  a rule can differ: a warning, since no real log holds such numbers. As ``time_ms`` it is MLC007 and the record is
  skipped. Fix: log ordinary
  numbers. (Over 4300 digits Python's JSON parser itself refuses the number: MLC003, as for the
  official parser.)
- MLC014 line-too-long (error): a physical line is longer than 16 MiB. mlcheck holds at most that
  much of one line, so it skips the line (the finding gives its length), but for its pieces
  between carriage returns that hold a record, which it reads as the line (a progress bar redrawn
  with ``\\r`` and written without line ends, a record glued after it: the official checkers read
  the file in universal-newline mode, where each ``\\r`` ends a line, and read those records). An
  error when a :::MLLOG record was on the part skipped (it was not read); a warning when none was
  (the official checkers read no record there either). Fix: remove the line, or write the records
  one per line.
- MLC015 not-a-regular-file (error): a folder being walked holds a FIFO, socket or device where a
  log was expected (``result_0.txt`` made with ``mkfifo``). Reading it could wait forever, so it is
  not read. Named ``result_<i>.txt`` in a benchmark folder it is a run of the folder all the same,
  a failing one (the package checker's glob counts it, then hangs reading it). A FIFO named on the
  command line (``<(zcat result_0.txt.gz)``) is read as usual; a device named there (``/dev/null``)
  is not read, an error too: no log was checked where one was named. A warning for any other name
  (``notes.txt``, ``extra.log``): the official tools read no such file, and pass the package. Fix:
  replace it with the log file, or remove it.
"""

from __future__ import annotations

import zlib

from mlcheck.model import Finding, Severity
from mlcheck.read.log_files import readable_path
from mlcheck.read.task_files import other_task_hint
from mlcheck.rule import Rule

FILE_UNREADABLE = Rule("MLC001", "file-unreadable", Severity.ERROR,
                       "the log cannot be opened or decompressed", official=True, also=(Severity.WARNING,))
NO_RECORDS = Rule("MLC002", "no-records", Severity.ERROR,
                  "the log is empty or holds no :::MLLOG record", official=True, also=(Severity.INFO,))
INVALID_JSON = Rule("MLC003", "invalid-json", Severity.ERROR,
                    "a :::MLLOG record is not valid JSON", official=True)
TRUNCATED_RECORD = Rule("MLC004", "truncated-record", Severity.ERROR,
                        "the file ends in the middle of a record", official=True, also=(Severity.WARNING,))
RECORD_NOT_OBJECT = Rule("MLC005", "record-not-object", Severity.ERROR,
                         "a record is valid JSON but not an object", official=True)
RECORD_KEY_INVALID = Rule("MLC006", "record-key-invalid", Severity.ERROR,
                          "a record's key is missing or not a string", official=True, also=(Severity.WARNING,))
RECORD_TIME_INVALID = Rule("MLC007", "record-time-invalid", Severity.ERROR,
                           "a record's time_ms is missing or not a finite number", official=True,
                           also=(Severity.WARNING,))
RECORD_METADATA_INVALID = Rule("MLC008", "record-metadata-invalid", Severity.ERROR,
                               "a record's metadata is missing or not an object", official=True,
                               also=(Severity.WARNING,))
RECORD_VALUE_MISSING = Rule("MLC025", "record-value-missing", Severity.ERROR,
                            "a record has no value field", official=True)
COMPRESSED_RESULT_FILE = Rule("MLC026", "compressed-result-file", Severity.ERROR,
                              "a result_<i>.txt file is gzip-compressed", official=True)
MARKER_WITHOUT_SPACE = Rule("MLC027", "marker-without-space", Severity.WARNING,
                            "a record's :::MLLOG has no space after it (the official parser skips it)")
INVALID_UTF8 = Rule("MLC009", "invalid-utf8", Severity.WARNING,
                    "a line is not valid UTF-8")
GLUED_RECORDS = Rule("MLC010", "glued-records", Severity.WARNING,
                     "several records share one physical line")

NUMBER_OUT_OF_RANGE = Rule("MLC017", "number-out-of-range", Severity.WARNING,
                           "a record holds an integer too long for a float (read as infinite)")
LINE_TOO_LONG = Rule("MLC014", "line-too-long", Severity.ERROR,
                     "a physical line is too long to read; records on it were skipped",
                     also=(Severity.WARNING,))
UNWRITTEN_BLOCK = Rule("MLC031", "unwritten-block", Severity.WARNING,
                       "the log holds NUL bytes: a block of it was never written, and what the job wrote there is lost")
NOT_A_REGULAR_FILE = Rule("MLC015", "not-a-regular-file", Severity.ERROR,
                          "a walked folder holds a FIFO, socket or device instead of a log file",
                          also=(Severity.WARNING,), official_cases=True)

RULES = (FILE_UNREADABLE, NO_RECORDS, INVALID_JSON, TRUNCATED_RECORD, RECORD_NOT_OBJECT,
         RECORD_KEY_INVALID, RECORD_TIME_INVALID, RECORD_METADATA_INVALID, RECORD_VALUE_MISSING,
         COMPRESSED_RESULT_FILE, MARKER_WITHOUT_SPACE, INVALID_UTF8, GLUED_RECORDS, LINE_TOO_LONG,
         NOT_A_REGULAR_FILE, NUMBER_OUT_OF_RANGE, UNWRITTEN_BLOCK)


def no_records(path: str, lines: int, long_lines: int, unseen: int, stopped: bool = False) -> Finding:
    """MLC002 for a log of ``lines`` lines with no record read (``long_lines`` too long to read,
    ``unseen`` records that the official parser does not read either: MLC027; ``stopped``: reading
    raised, MLC001 says why)."""
    if stopped:
        return NO_RECORDS.at(path, None, "no :::MLLOG record could be read: reading stopped " + (
            f"after line {lines} (MLC001)" if lines else "before the first line (MLC001)"))
    if lines == 0:
        return NO_RECORDS.at(path, None, "the log is empty; expected :::MLLOG records")
    skipped = f" ({long_lines} too long to read)" if long_lines else ""
    aside = f" (the {unseen} without a space after the marker aside: MLC027)" if unseen else ""
    return NO_RECORDS.at(path, None, f"no :::MLLOG record found in {lines} line{'' if lines == 1 else 's'}"
                         f"{skipped}{aside}; {_encoding_hint(path) or other_task_hint(path) or 'is this an MLPerf log?'}")


_COMPRESSED = ((b"\xfd7zXZ\x00", "xz", "xz -d"), (b"BZh", "bzip2", "bunzip2"), (b"(\xb5/\xfd", "zstd", "zstd -d"),
               (b"PK\x03\x04", "a zip archive", "unzip"), (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive", "7z x"),
               (b"\x04\x22\x4d\x18", "lz4", "lz4 -d"))
"""The first bytes of compressed files mlcheck does not read (gzip it reads: MLC026 for a result file)."""


def _encoding_hint(path: str) -> str | None:
    """What to say of a log that is compressed otherwise than with gzip, or holds the marker in
    UTF-16 (with its byte order mark or without)."""
    try:
        with open(readable_path(path), "rb") as handle:
            head = handle.read(1 << 20)
    except (OSError, ValueError):
        return None
    if head[:2] == b"\x1f\x8b":  # (gzip, which mlcheck reads: what it holds)
        try:
            inner = zlib.decompressobj(31).decompress(head, 1 << 20)
        except zlib.error:
            return None
        if inner[:2] == b"\x1f\x8b":
            return "the gzip file holds another gzip file, which mlcheck does not open: decompress it once (gzip -d)"
        said = _hint_of(inner)
        return f"inside the gzip, {said}" if said else None
    return _hint_of(head)


def _hint_of(head: bytes) -> str | None:
    for magic, kind, command in _COMPRESSED:
        if head.startswith(magic):
            return (f"the file is {kind}{'' if kind.startswith('a ') else '-compressed'}, which neither mlcheck "
                    f"nor the official parser reads (mlcheck reads gzip): decompress it ({command})")
    marked = {b"\xfe\xff": "BE", b"\xff\xfe": "LE"}.get(head[:2])  # (a byte order mark: MLC009 says it)
    # (each encoding's marker is in the other's bytes, a byte on: the first byte tells them apart)
    order = marked or ("BE" if head[:1] == b"\x00" else "LE")
    if ":::MLLOG".encode(f"utf-16-{order.lower()}") not in head:
        return None
    return (f"the file holds :::MLLOG records in UTF-16 ({order}, {'with' if marked else 'without'} a byte order "
            f"mark), which neither mlcheck nor the official parser reads: convert it (iconv -f UTF-16"
            f"{'' if marked else order} -t UTF-8)")


def not_a_regular_file(path: str, kind: str) -> Finding:
    """MLC015 for a walked ``result_<i>.txt`` that is ``kind`` (a FIFO): its folder's failing run."""
    return NOT_A_REGULAR_FILE.at(path, None, (
        f"this is {kind}, not a log file: it was not read (reading it could wait forever), and it counts "
        "as a failing run of its folder, as the package checker's glob counts it (which then hangs reading "
        "it). Replace it with the log file"), official=True)


def reading_stopped(path: str, line_no: int, error: BaseException) -> Finding:
    """MLC001 where reading raised after ``line_no`` lines, at the last of them (the lines after it
    are the archive's, not the file's; none: at line 1 for damaged gzip data, which was opened and
    read, at no line for an error of the system, which let nothing be read): an error (the file, or its gzip archive,
    is damaged or truncated), but a warning for bytes that are not gzip after a whole member (read
    on as ``gzip -d`` does, with a warning: "trailing garbage ignored")."""
    if str(error).startswith("Not a gzipped file") and line_no:
        return FILE_UNREADABLE.at(path, line_no, (
            f"the gzip data ends after line {line_no} and bytes that are not gzip follow ({error}): ignored, "
            "as gzip -d ignores them; the lines before them are read"), severity=Severity.WARNING, official=False)
    where = f"after line {line_no}" if line_no else "before the first line"
    # (gzip data cut or damaged before its first line: the file was read, at its first line, as any damaged
    # file's (exit 1); an error of the system, which let nothing be read, at no line: exit 2, as a file not opened)
    import gzip  # (here: reading a log imports no gzip that is none)

    damaged = isinstance(error, (EOFError, zlib.error, gzip.BadGzipFile))
    return FILE_UNREADABLE.at(path, line_no or (1 if damaged else None), f"reading stopped {where}: {error}; the file "
                              "(or its gzip archive) is damaged or truncated")
