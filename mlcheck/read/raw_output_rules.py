"""Raw job output: what mlcheck repaired or dropped while reading a console log (family MLC02x).

An IPU-POD job writes a console log, not a result file: poprun/OpenMPI tags every line with
``[job,rank]<stdout>:``, every instance may print the same ``:::MLLOG`` records, the launcher,
Poplar and the framework print their own lines, progress bars end in ``\\r`` and the record follows
on the same line, a ``ts``/``srun`` prefix or ANSI colour codes may wrap the lines. The reader takes
such output as it comes: it keeps the records of the *logging rank* (the lowest rank of each job
that prints records; untagged records are always kept), drops the copies printed by the other
ranks and every line that carries no record, and keeps the physical line numbers of the raw file.
``mlcheck split RAW -o DIR`` writes the runs it finds as ``result_<i>.txt`` files for the package.

Records glued on one line: in a result file this is MLC010 (an error: the official parser keeps
only the last record of the line). In raw output (a file that carries rank tags) the records of
several ranks or of a progress bar sharing a line are a normal artefact of the console; each is
read and attributed to the rank whose tag precedes it, ``split`` writes each on its own line, and
the line is counted as repaired in MLC020 instead.

No official tool reads raw job output (the package checker reads ``result_<i>.txt`` files only):
these findings are mlcheck's own, but MLC013, which follows the official parser on a result
file (``compliance_checker/mlp_parser``, every round).

- MLC020 raw-output-read (info): the summary of every line dropped or repaired in raw job output:
  lines read, records kept and from which rank, copies from other ranks dropped, launcher/noise
  lines dropped, lines whose colour codes, timestamp, progress-bar text or CRLF were removed,
  records separated from a shared line. Nothing to fix; run ``mlcheck split`` to get result files.
- MLC021 rank-copies-conflict (warning): a rank printed a record that differs (value, metadata or
  event type; ``time_ms`` is not compared) from the same occurrence of that key printed by the
  logging rank. The logging rank's copy is kept. Ranks disagreeing on what they log usually means
  that each logs its local state; log from one rank only, or make sure the values are reduced
  across ranks before logging (mlcommons/logging#242).
- MLC022 per-rank-output (info): the log is one rank's file of a per-rank output folder
  (``mpirun --output-filename DIR`` writes ``DIR/1/rank.N/stdout``, torchrun ``--log-dir DIR``
  ``DIR/<run id>/attempt_K/N/stdout.log``); the lowest rank's file was read
  and the other ranks' files, which hold copies, were not. A warning when the highest rank's file
  logs keys the file read does not (a pipeline's last stage logging the evaluations): they were
  not read; check the job's console output, where every rank's lines are, or log from one rank.
- MLC023 record-cut (error): a record of raw output is cut (the process died while writing it) and
  the output goes on after it: the record is lost (the run's end, when it is the last one). Reported
  at the line of the cut. Fix: find out why the job stopped (the launcher's lines around the cut
  tell) and re-run. Also a
  record another stream broke where ``mlcheck`` could not join it again (stderr lines or a
  progress bar's ``\r`` redraws, tqdm's, inside block-buffered stdout; in any log not named
  ``result_<i>.txt``): run the job with ``python -u`` (``PYTHONUNBUFFERED=1``). A marker
  with nothing at all after it, in raw output not named ``result_<i>.txt``, is a warning: the files
  ``mlcheck split`` writes leave the line out, and the official parser passes them. So is a
  record cut by another record printed on its line (two processes writing at once, without line
  buffering; the rest may follow on a later line): the official parser reads the last record of
  a line only and passes it, and another rank's copy may stand for it (MLC028). So, last, is a
  line that only names the marker with no record after it (no ``{``: a shell trace ``grep
  ':::MLLOG'``, a log message, a line of source in a traceback) or quotes a whole record in single
  quotes (a traced ``echo``, an exception message): not read as a record, and left out by ``split``.
- MLC024 new-job-started (info): raw job output holds another job from this line on (a launcher
  command or launch message; a launcher's word that the job ended: Slurm's ``*** JOB ... CANCELLED
  AT``, torchelastic's restart of the worker group or its ``failed (exitcode: -9) local_rank: 0``,
  OpenMPI's dead rank, a shell's ``line 12:  1233 Killed  python train.py`` (dash's ``Killed`` alone), the MLPerf run
  scripts' ``ENDING TIMING RUN AT`` and ``Beginning trial N of M``; records tagged with
  another MPI job number), so the records
  after it are read as another run. The other thing that makes several runs of one file, said by
  MLC024 too at its record, is a run begun without a launcher line (:mod:`mlcheck.read.next_run`):
  a ``cache_clear`` or ``init_start`` after a run's ``run_stop``, outside its time, or within it
  where what follows is no copy of the run: it lasts more than a second longer or shorter than the
  run, its evals differ from the run's and were not logged at the same moments, or its run_start
  is more than a minute off the run's (runs launched together, their output joined; another
  process's copy of the run, its clock off or not, lasts as long, and logs the same evals or its
  own at the run's moments; the note says which; a twin that ends before its run_stop with none of
  this is the run's copies), or later than
  every record of a run that logged no ``run_stop`` once it initialised (an attempt stopped and run
  again), or, in its training, dated more than ten minutes before its first record (a relaunch on
  a host whose clock is behind; the note says which). A file named ``result_<i>.txt`` is always one run, as the official checker reads it (a
  second job's records in it are then duplicates, reported by the rules of the round). See
  ``mlcheck.read.job_starts``. A launcher line met when the run so far holds only ``cache_clear``
  and ``submission_*`` records is not one: a run script logs the submission and clears the caches
  in ``srun`` steps of its own, then launches the training, and all belong to the run. A job's
  end opens a run only where the next record begins one (``cache_clear``, ``init_start``,
  ``submission_*``): a rank's last record after mpirun's word that a rank died stays in the run.
  After a launcher line the logging rank of each label is chosen again from what follows (consoles of
  several jobs joined in name order: the next run may be printed by another task, and dated
  before the last). Nothing to fix in raw output; ``mlcheck split`` writes one file per run.
- MLC028 records-of-another-rank: in raw output, a rank other than the logging rank (the lowest
  that prints records) printed records of a key the logging rank never printed (a last pipeline
  stage that alone logs ``eval_accuracy``). mlcheck reads the file again and keeps them, from the
  lowest rank that prints them, in their place among the logging rank's records (``mlcheck
  split`` writes them too), as the official parser reads every record of a result file: a note.
  (Standard input is copied to a temporary file first, and read again as a file is.) Where the
  log cannot be read twice (``watch``, following it) they are left out of the run: a warning, at
  the line of the first. Fix: none needed; logging every record from one rank avoids it.
- MLC029 output-deduplicated (warning): Ray's log deduplication was on where the console was
  printed: a record's line ends in ``[repeated Nx across cluster]``. Ray prints one of the lines of
  several workers that differ only in their numbers and drops the others, so the records of the
  logging rank may be missing, or stand in another worker's copy (the suffix itself is dropped,
  as any text after a record's JSON: MLC020). At the line of the first such record. Fix: run with
  ``RAY_DEDUP_LOGS=0``, or read the logging worker's own log file.
- MLC013 raw-output-in-result-file: a submitted result file (``result_<i>.txt``) holds raw job
  output in which a record is followed by colour codes: an error (the official checker fails too),
  as the official parser cannot parse such a line ("Log lines had parsing errors"). Other ranks'
  copies of records are read as it reads them, every one, so what its checks of one occurrence say
  of them is said here too ("EXACTLY_ONE occurrence of 'submission_org' but found 4": MLC107, a
  warning as there, and the others); records of several ranks on one line the last only (MLC010;
  mlcheck/read/official_view.py). When only rank tags,
  timestamps, colour codes or launcher lines were removed, there is no MLC013: the official parser
  tolerates text around the records and such files are published every round (16 of a sample of
  38 of 6.0's), so nothing needs fixing; MLC020 says the file is raw output and that ``mlcheck split
  RAW -o DIR`` writes files of records alone for a submitter who wants them.
"""

from __future__ import annotations

from mlcheck.model import Severity
from mlcheck.rule import Rule

RAW_OUTPUT_READ = Rule("MLC020", "raw-output-read", Severity.INFO,
                       "raw job output was read: what was kept, repaired and dropped")
RANK_COPIES_CONFLICT = Rule("MLC021", "rank-copies-conflict", Severity.WARNING,
                            "two ranks printed different copies of the same record")
PER_RANK_OUTPUT = Rule("MLC022", "per-rank-output", Severity.INFO,
                       "the log is one rank's file of a per-rank output folder", also=(Severity.WARNING,))
RECORD_CUT = Rule("MLC023", "record-cut", Severity.ERROR,
                  "a record of raw output is cut and the output goes on after it", official=True, also=(Severity.WARNING,))

JOB_STARTED = Rule("MLC024", "new-job-started", Severity.INFO,
                   "raw job output holds another job from this line on (read as another run)")

RAW_RESULT_FILE = Rule("MLC013", "raw-output-in-result-file", Severity.ERROR,
                       "a result_<i>.txt file holds raw job output instead of clean records",
                       official=True)

RECORDS_OF_ANOTHER_RANK = Rule("MLC028", "records-of-another-rank", Severity.INFO,
                               "another rank printed records of a key the logging rank never printed",
                               also=(Severity.WARNING,))

OUTPUT_DEDUPLICATED = Rule("MLC029", "output-deduplicated", Severity.WARNING,
                           "the launcher deduplicated the workers' lines: records may be missing")

RULES = (RAW_RESULT_FILE, RAW_OUTPUT_READ, RANK_COPIES_CONFLICT, PER_RANK_OUTPUT, RECORD_CUT,
         JOB_STARTED, RECORDS_OF_ANOTHER_RANK, OUTPUT_DEDUPLICATED)
