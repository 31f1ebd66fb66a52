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
  (``mpirun --output-filename DIR`` writes ``DIR/1/rank.N/stdout``); the lowest rank's file was read
  and the other ranks' files, which hold copies, were not.
- MLC023 record-cut (error): a record of raw output is cut (the process died while writing it) and
  the output goes on after it, so the run loses its end. Reported at the line of the cut. Fix:
  find out why the job stopped (the launcher's lines around the cut tell) and re-run.
"""

from __future__ import annotations

from mlcheck.model import Severity
from mlcheck.rules.base import Rule

RAW_OUTPUT_READ = Rule("MLC020", "raw-output-read", Severity.INFO,
                       "raw job output was read: what was kept, repaired and dropped")
RANK_COPIES_CONFLICT = Rule("MLC021", "rank-copies-conflict", Severity.WARNING,
                            "two ranks printed different copies of the same record")
PER_RANK_OUTPUT = Rule("MLC022", "per-rank-output", Severity.INFO,
                       "the log is one rank's file of a per-rank output folder")
RECORD_CUT = Rule("MLC023", "record-cut", Severity.ERROR,
                  "a record of raw output is cut and the output goes on after it", official=True)

RULES = (RAW_OUTPUT_READ, RANK_COPIES_CONFLICT, PER_RANK_OUTPUT, RECORD_CUT)
