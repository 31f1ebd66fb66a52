"""Reading: problems met while reading a log, before any rule looks at it (family MLC0xx).

The reader streams the file line by line; every ``:::MLLOG`` occurrence on a physical line is a
record. Each problem is reported at its physical 1-based line and reading goes on, so one bad line
never hides the rest of the log.

- MLC001 file-unreadable: the file cannot be opened, or its gzip archive is damaged, or a folder
  being walked cannot be listed (its logs are not checked).
  Fix: check the path and permissions; re-copy the file.
- MLC002 no-records: the file is empty or holds no ``:::MLLOG`` record.
- MLC003 invalid-json: the text after ``:::MLLOG`` is not valid JSON. The message gives the column.
  The official checker reports "Log lines had parsing errors" without the file line.
- MLC004 truncated-record: the file ends in the middle of a record (the job was killed while
  writing). The run has no complete end; re-run or restore the full log.
- MLC005 record-not-object: the JSON is an array, string or number instead of an object.
- MLC006 record-key-invalid: ``key`` is missing or not a non-empty string; the record is skipped.
- MLC007 record-time-invalid: ``time_ms`` is missing, null, not a number, NaN or infinite; the
  record is skipped (the official checker crashes with a TypeError).
- MLC008 record-metadata-invalid: ``metadata`` is missing or not an object; the record is kept with
  empty metadata (the official checker crashes with a KeyError).
- MLC009 invalid-utf8: the line has bytes that are not UTF-8; they are replaced and reading goes on.
- MLC010 glued-records: two or more records share one physical line (two processes writing to one
  stream). mlcheck reads every record; the official parser silently keeps only the last one, so a
  record hidden this way is missing for it.
- MLC003 also covers a record nested too deeply to decode (thousands of ``[``): the official
  parser crashes on it (RecursionError); mlcheck reports the line and reads on.
- MLC017 number-out-of-range (warning): a record holds an integer of more than 308 digits (valid
  JSON, but no float holds it). It is read as not-a-number (NaN), so no later check can fail on
  it: the rules that need the value report it (a NaN batch size breaks its constraint, a NaN
  eval is MLC304). As ``time_ms`` it is MLC007 and the record is skipped. Fix: log ordinary
  numbers. (Over 4300 digits Python's JSON parser itself refuses the number: MLC003, as for the
  official parser.)
- MLC014 line-too-long (error): a physical line is longer than 16 MiB. mlcheck holds at most that
  much of one line, so it skips the line (the finding gives its length) and any record on it is not
  read. A line this long is output written without line ends (a progress bar, a binary dump). Fix:
  remove the line, or write the records one per line.
- MLC015 not-a-regular-file (error): a folder being walked holds a FIFO, socket or device where a
  log was expected (``result_0.txt`` made with ``mkfifo``). Reading it could wait forever, so it is
  skipped. A FIFO named on the command line (``<(zcat result_0.txt.gz)``) is read as usual. Fix:
  replace it with the log file.
"""

from __future__ import annotations

from mlcheck.model import Severity
from mlcheck.rule import Rule

FILE_UNREADABLE = Rule("MLC001", "file-unreadable", Severity.ERROR,
                       "the log cannot be opened or decompressed", official=True)
NO_RECORDS = Rule("MLC002", "no-records", Severity.ERROR,
                  "the log is empty or holds no :::MLLOG record", official=True)
INVALID_JSON = Rule("MLC003", "invalid-json", Severity.ERROR,
                    "a :::MLLOG record is not valid JSON", official=True)
TRUNCATED_RECORD = Rule("MLC004", "truncated-record", Severity.ERROR,
                        "the file ends in the middle of a record", official=True, also=(Severity.WARNING,))
RECORD_NOT_OBJECT = Rule("MLC005", "record-not-object", Severity.ERROR,
                         "a record is valid JSON but not an object", official=True)
RECORD_KEY_INVALID = Rule("MLC006", "record-key-invalid", Severity.ERROR,
                          "a record's key is missing or not a string", official=True)
RECORD_TIME_INVALID = Rule("MLC007", "record-time-invalid", Severity.ERROR,
                           "a record's time_ms is missing or not a finite number", official=True)
RECORD_METADATA_INVALID = Rule("MLC008", "record-metadata-invalid", Severity.ERROR,
                               "a record's metadata is missing or not an object", official=True)
INVALID_UTF8 = Rule("MLC009", "invalid-utf8", Severity.WARNING,
                    "a line is not valid UTF-8")
GLUED_RECORDS = Rule("MLC010", "glued-records", Severity.ERROR,
                     "several records share one physical line")

NUMBER_OUT_OF_RANGE = Rule("MLC017", "number-out-of-range", Severity.WARNING,
                           "a record holds an integer too long for a float (read as NaN)")
LINE_TOO_LONG = Rule("MLC014", "line-too-long", Severity.ERROR,
                     "a physical line is too long to read; records on it were skipped")
NOT_A_REGULAR_FILE = Rule("MLC015", "not-a-regular-file", Severity.ERROR,
                          "a walked folder holds a FIFO, socket or device instead of a log file")

RULES = (FILE_UNREADABLE, NO_RECORDS, INVALID_JSON, TRUNCATED_RECORD, RECORD_NOT_OBJECT,
         RECORD_KEY_INVALID, RECORD_TIME_INVALID, RECORD_METADATA_INVALID, INVALID_UTF8,
         GLUED_RECORDS, LINE_TOO_LONG, NOT_A_REGULAR_FILE, NUMBER_OUT_OF_RANGE)
