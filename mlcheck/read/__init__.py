"""Reading: takes the bytes of a log (a file, gzip, stdin, a file still being written) and gives
its events, each with its physical 1-based line, and the findings met on the way; then the runs
of the file.

- :mod:`~mlcheck.read.reader` streams a log (``read_mllog``); :mod:`~mlcheck.read.line_reader`
  turns each physical line into records; :mod:`~mlcheck.read.record_shape` checks a record's
  JSON and fields.
- A submitted result file takes the lean path: :mod:`~mlcheck.read.result_blocks` (an
  uncompressed file, by blocks: lines without a record counted in C) or
  :mod:`~mlcheck.read.result_lines` (gzip, stdin, a line limit: line by line), both decoding a
  clean record with :mod:`~mlcheck.read.fast_json` and giving any other line to the line reader.
- Raw job output: :mod:`~mlcheck.read.rawlog` (rank tags, noise), :mod:`~mlcheck.read.fast_lines`
  (its commonest lines read without the line reader's generator), :mod:`~mlcheck.read.prefixes`,
  :mod:`~mlcheck.read.rank_copies` and :mod:`~mlcheck.read.copy_differences` (copies printed
  by other ranks), :mod:`~mlcheck.read.job_starts` (where a new job begins).
- :mod:`~mlcheck.read.runs` cuts the events of a file into runs; :mod:`~mlcheck.read.follow`
  follows a growing file like ``tail -F``.
- The reading stage's own rules (their codes, names and documentation):
  :mod:`~mlcheck.read.reading_rules` (MLC001-MLC015) and :mod:`~mlcheck.read.raw_output_rules`
  (MLC013, MLC020-MLC024); the registry in :mod:`mlcheck.rules` lists them with the others.
- :mod:`~mlcheck.read.file_names`: which names are result files.

Imports only :mod:`mlcheck.model` and :mod:`mlcheck.rule`: every later stage may use it.
"""
