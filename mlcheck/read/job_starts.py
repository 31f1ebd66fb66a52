"""Evidence in raw job output that a new job began: the only thing that splits a file into runs.

A submitted result file is one run, however many ranks logged their own ``cache_clear`` or
``init_start`` and whatever follows ``run_stop`` (the official checker reads a file as one run).
Raw console output may hold several jobs one after the other; a new job is recognised from what
the launcher and the rank tags say, never from the order of the MLLOG keys:

- a launcher command line (``mpirun -np 8 ...``, ``+ srun --nodes ...``, ``$ torchrun --nproc...``,
  ``poprun --num-instances ...``, ``python -m torch.distributed.launch ...``, also behind ``exec``,
  ``env``, ``timeout``, variables, ``docker exec NAME`` or a command and ``&&``) or a launcher's
  own launch message (``poprun: launching ...``, DeepSpeed's runner's ``cmd = ...``);
- in raw output, a launcher's word that the job ended (:data:`JOB_END`: Slurm cancelled it and
  ``--requeue`` runs it again into the same file, torchelastic restarts the worker group, OpenMPI
  saw a rank die): what follows is another attempt, even one whose first run died in its init;
- records tagged with another MPI job number than before (``[2,0]<stdout>:`` after ``[1,0]``).

Each piece of evidence met after a record was kept is one MLC024 note at its line; the next
record then opens a new run (``mlcheck.read.runs.RunBoundaries``); a launcher line right after a
job's end is noted too (the job launched again). Evidence met before any record (the launcher line
of the first job) is not a boundary; evidence met when the run so far has not begun (no
``init_start``, ``init_stop``, ``run_start`` or ``run_stop``: a run script's ``srun`` steps that
log the submission and settings and clear the caches before the training's) opens a run only at
a record that repeats a key logged before it, once the run logged weights_initialization
(``RunBoundaries.opens_new_run``).
"""

from __future__ import annotations

import re

from mlcheck.model import Finding
from mlcheck.read import raw_output_rules as raw_output
from mlcheck.read.lazy_patterns import lazy_pattern

LAUNCHER_NAMES = ("mpirun", "mpiexec", "mpiexec.hydra", "mpiexec_mpt", "orterun", "prterun", "srun", "poprun", "torchrun",
                  "horovodrun", "deepspeed", "jsrun", "aprun", "ibrun", "flux run", "composer", "pdsh", "clush", "pssh",
                  "parallel-ssh")
"""The launchers whose command line (the name, then an option or the program it runs) begins a job."""
_LAUNCHERS = b"(?:" + b"|".join(re.escape(name.encode()).replace(b"\\ ", b"[ \t]+")  # (the longest first)
                               for name in sorted(LAUNCHER_NAMES, key=len, reverse=True)) + b")"
_WRAPPERS = (rb"(?:(?:(?:exec|nohup|time|sudo|env|stdbuf|numactl|taskset|timeout)(?:[ \t]+-\S+)*(?:[ \t]+\d\S*)?"
             rb"|docker[ \t]+exec" rb"(?:[ \t]+-\S+)*[ \t]+[^\s-]\S*|\w+=\S*"
             rb"|(?:apptainer|singularity)[ \t]+(?:exec|run)\b[^\n'\"]{0,400}?"
             rb"|(?:ba)?sh[ \t]+(?:-\w+[ \t]+)*-c[ \t]+['\"]?)[ \t]*)*")
"""What may run a launcher on a command line: ``exec``, ``timeout 7200``, ``env``, variables
(``NCCL_DEBUG=INFO mpirun``), ``docker exec -t NAME`` (a command before ``&&`` or ``;``:
:data:`_COMMAND_BEFORE`)."""
_COMMAND_BEFORE = re.compile(rb"[^\n:;&]{0,200}(?:&&|;)[ \t]*")
"""A command and ``&&`` or ``;`` before a launcher (``hl-smi && mpirun ...``): looked for only in
a line that holds one (a pattern that tried it on every line took five times as long)."""
_MODULE_LAUNCHERS = (rb"(?:\S*/)?python[\d.]*(?:[ \t]+-\S+)*[ \t]+-m[ \t]+"
                     rb"(?:torch\.distributed\.(?:launch|run)|deepspeed\.launcher\.(?:launch|runner))\b"
                     rb"|accelerate[ \t]+launch\b")
"""Launchers run as Python modules (``python -m torch.distributed.launch``), and ``accelerate launch``."""
_LINE_START = rb"^[ \t]*(?:\[?\d[\d:.,/T-]*(?:[ \t]+\d[\d:.,]*)?\]?[ \t]+)?(?:[+$#>]+[ \t]*)?"
"""What may come before a command: blanks, a timestamp, a shell's prompt or ``set -x``'s ``+``."""


_HEAD = re.compile(_LINE_START).match
_MAY_LAUNCH = re.compile(b"|".join(sorted({re.escape(name.split()[0].encode()) for name in LAUNCHER_NAMES} | {
    b"python", b"accelerate", b"elastic_operator", b"run_and_time"}))).search
"""A word every launcher line holds (lower-cased: the patterns ignore case): its launcher's name,
Python or accelerate (a module launcher, ``cmd = python -m ...``), the elastic operator's message,
or the run script."""
_WRAPPER_WORDS = (b"exec", b"nohup", b"time", b"sudo", b"env", b"stdbuf", b"numactl", b"taskset", b"docker",
                  b"apptainer", b"singularity", b"bash", b"sh ")
"""How a command run through a wrapper (:data:`_WRAPPERS`) begins (or with a variable: ``NAME=``)."""
_VARIABLE = re.compile(rb"\w+=").match


class _LaunchLine:
    """:meth:`match` a line that launches a job: a launcher command, also behind a wrapper (looked
    for in a command that begins with one), one run as a Python module or a launch message (in a
    command that begins with Python or accelerate, a bracketed logger's line, or one naming the
    elastic operator), at the line's start or after a command and ``&&`` or ``;``
    (:data:`_COMMAND_BEFORE`). The patterns are compiled when a line first asks for them (a few
    milliseconds: see :mod:`mlcheck.read.lazy_patterns`)."""

    __slots__ = ("_command", "_wrapped", "_module")

    def __init__(self) -> None:
        self._command = lazy_pattern(_LINE_START + rb"(?:(?:\S*/)?" + _LAUNCHERS + _LAUNCH_ARGUMENT + _RUN_SCRIPT + rb")",
                                     re.IGNORECASE)
        self._wrapped = lazy_pattern(_LINE_START + _WRAPPERS + rb"(?:\S*/)?" + _LAUNCHERS + _LAUNCH_ARGUMENT, re.IGNORECASE)
        self._module = lazy_pattern(
            _LINE_START + rb"(?:" + _WRAPPERS + rb"(?:" + _MODULE_LAUNCHERS + rb")"
            rb"|(?:\[[^\]\n]*\][ \t]*){1,4}cmd[ \t]*=[ \t]*(?:" + _MODULE_LAUNCHERS + rb")"
            rb"|\S*torch\.distributed\.launcher\.api:Starting elastic_operator)", re.IGNORECASE)

    def match(self, raw: bytes) -> re.Match[bytes] | None:
        if _MAY_LAUNCH(raw.lower()) is None:  # (a training loop's own lines: one search, not three patterns)
            return None
        found = self._one(raw)
        if found is None and (b"&&" in raw or b";" in raw):
            rest = raw
            for _ in range(8):  # (a few commands before it at most)
                before = _COMMAND_BEFORE.match(rest)
                if before is None:
                    break
                rest = rest[before.end():]
                found = self._one(rest)
                if found is not None:
                    break
        return found

    def _one(self, raw: bytes) -> re.Match[bytes] | None:
        found = self._command.match(raw)
        if found is not None:
            return found
        head = _HEAD(raw)
        at = head.end() if head is not None else 0
        wrapped = raw.startswith(_WRAPPER_WORDS, at) or _VARIABLE(raw, at) is not None
        if wrapped:
            found = self._wrapped.match(raw)
        if found is None and ((b"python" in raw or b"accelerate" in raw) and (
                wrapped or raw.startswith(b"accelerate", at) or b"python" in raw[at:raw.find(b" ", at)])
                or raw.startswith(b"[", at) and b"cmd" in raw or b"elastic_operator" in raw):
            found = self._module.match(raw)
        return found


_LAUNCH_ARGUMENT = (rb"(?:[ \t]+-|[ \t]*:[ \t]*launch"
                    rb"|[ \t]+(?:[^\s/]{0,256}/){0,16}(?:python[\d.]*|bash|sh|[^\s/]{1,256}\.(?:sh|py))(?:[ \t]|\r?$))")
"""After a launcher's name: its first argument, an option, or the colon of its launch message;
or the program it runs, without an option before it (``srun python train.py``, ``mpirun
./run.sh``, ``torchrun train.py --config x``): Python, a shell, a script."""
RUN_SCRIPT = b"run_and_time.sh"
_RUN_SCRIPT = rb"|(?:(?:ba)?sh[ \t]+)?(?:[^\s/]{0,256}/){0,16}run_and_time\.sh(?:[ \t]|\r?$)"
"""The MLPerf reference implementations' run script run as a command (a trial loop's ``+
./run_and_time.sh`` under ``set -x``), not its name in a message (``./run_and_time.sh: line 40:
...``)."""
LAUNCH_LINE = _LaunchLine()
"""A launcher's command line (its first argument is an option; after a wrapper, see
:data:`_WRAPPERS`), or its launch message (``poprun: launching``, DeepSpeed's runner's
``[runner.py:555:main] cmd = ... -m deepspeed.launcher.launch``, torchrun's ``Starting
elastic_operator``)."""
JOB_END = lazy_pattern(
    rb"slurmstepd(?:-[\w.-]+)?: error: \*\*\* (?:JOB|STEP) \S+ ON \S+ CANCELLED AT "
    rb"|srun: Job step aborted"
    rb"|srun: error: \S+: tasks? [\d,\[\]-]+: \S"
    rb"|Worker group FAILED\b.*\bwill restart worker group"
    rb"|Primary job\s+terminated normally, but \d+ process"
    rb"|(?:mpirun|prterun) noticed that process rank \d+ with PID"
    rb"|(?:mpirun|prterun) detected that one or more processes exited with non-zero status"
    rb"|BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES"
    rb"|\bfailed \(exitcode: -?\d+\) local_rank: \d+ \(pid: \d+\) of binary: "
    rb"|\bline \d+: +\d+ (?:Killed|Aborted|Segmentation fault|Terminated|Bus error|Illegal instruction)\b"
    rb"|poprun: (?:ERROR: )?instance \d+ (?:exited|terminated|was killed|failed)\b"
    rb"|ENDING TIMING RUN AT "
    rb"|Beginning trial \d+ of \d+"
    rb"|srun: forcing job termination|srun: error: Node failure on \S+"
    rb"|slurmstepd(?:-[\w.-]+)?: error: Detected \d+ oom[-_]kill events? in "
    rb"|\bChildFailedError\b|Received Signals?\.?SIG(?:TERM|INT|KILL|HUP) death signal"
    rb"|sigkill_handler\] \[[^\]\n]{0,4096}\] exits with return code = -?[1-9]"
    rb"|\bHYDU_sock_write \([^)\n]{0,256}\): write error"
    rb"|PBS: job killed: |TERM_[A-Z]+: job killed"
    rb"|^(?:\d+: )?(?:Killed|Aborted|Segmentation fault|Terminated|Bus error|Illegal instruction)(?: \(core dumped\))?\s*$"
    rb"|^Fatal Python error: (?:Segmentation fault|Aborted|Bus error|Illegal instruction|Floating point exception)")
"""A launcher's word that the job (or its attempt) ended: Slurm cancelled it (a time limit,
a preemption, a node failure; ``--requeue`` runs it again into the same file) or saw a task
exit with an error or a signal (``srun: error: node03: task 3: Exited with exit code 1``: the
step ends, a run script's loop or a retry starts the next), torchelastic
restarts its worker group, OpenMPI/PRRTE saw a rank die, MPICH's hydra banner (and the MPIs built on it),
Slurm's word that a step was ended (``srun: forcing job termination``, a node failure,
an out-of-memory kill), torchrun's (torchelastic's) last word on a worker that died (``failed (exitcode: -9) local_rank: 0
(pid: 1233) of binary: ...``, before its ``ChildFailedError``), a shell's word that the command it ran
was killed (bash: ``run.sh: line 12:  1233 Killed   python train.py``; dash, the ``/bin/sh`` of
Debian and Ubuntu images, and busybox: ``Killed``, ``Segmentation fault (core dumped)`` alone on a
line; Python's faulthandler: ``Fatal Python error: Segmentation fault``), poprun's word that an
instance exited or was killed (``poprun: ERROR: instance 0 exited with signal 9``), torchelastic's
``ChildFailedError`` and a SIGTERM it received, DeepSpeed's launcher's ``sigkill_handler`` on a
non-zero exit, MPICH's hydra failing to write to a process, PBS's and LSF's kills at the time
limit (``PBS: job killed: walltime ...``, ``TERM_RUNLIMIT: job killed ...``), and the lines MLPerf run
scripts (the reference implementations' ``run_and_time.sh``, a trial loop around it) print around
each timed run, whatever its exit status (``ENDING TIMING RUN AT ...`` after it, ``Beginning trial
2 of 10`` before the next)."""
_JOB_END_WORDS = (b"CANCELLED AT", b"step aborted", b"srun: error:", b"restart worker group", b"terminated normally",
                  b"noticed that", b"detected that", b"BAD TERMINATION", b"(exitcode: ", b"Killed", b"Aborted",
                  b"Segmentation fault", b"Terminated", b"Bus error", b"Illegal instruction", b"ENDING TIMING RUN",
                  b"Beginning trial", b"poprun: ", b"forcing job", b"Node failure", b"oom_kill", b"oom-kill", b"ChildFailedError",
                  b"death signal", b"sigkill_handler", b"HYDU_sock_write", b"job killed", b"Fatal Python error")
_JOB_END_HINT = JOB_END_HINT = re.compile(b"|".join(map(re.escape, _JOB_END_WORDS))).search
"""The cheap test before :data:`JOB_END` on each line without a record: one search in C (``in`` tests: 2.5 times as long)."""
LAUNCHER_PARTS = (b"run", b"mpiexec", b"mpiexec.hydra", b"mpiexec_mpt", b"deepspeed", b"composer")
"""Every launcher name of :data:`LAUNCH_LINE`'s command form holds one of these (in ASCII lower
case). The readers of result files look for launcher lines by them (and by :func:`may_name_a_launcher`,
:func:`may_hold_a_launch_line`): in a result file, one run whatever it holds, a launcher line is a
note (MLC024), and a launcher without ``run`` in its name (``python -m torch.distributed.launch``,
``accelerate launch``, DeepSpeed's ``cmd = ...``), which would cost a pass more over every stretch
of output, is looked for in raw output only, where it begins a run."""


def may_name_a_launcher(lowered: bytes) -> bool:
    """The cheap test before :data:`LAUNCH_LINE` (``lowered``: the text with its ASCII letters
    in lower case, as the pattern ignores case): substring searches in C (``x`` found with
    ``memchr`` first: a search for ``mpiexec`` takes ten times as long, and most text holds
    no ``x``; the host launchers' names hold ``sh``; the run script's name holds ``run``)."""
    return b"run" in lowered or (b"x" in lowered and b"mpiexec" in lowered) or b"deepspeed" in lowered \
        or b"composer" in lowered or (
        b"sh" in lowered and (b"pdsh" in lowered or b"clush" in lowered or b"pssh" in lowered
                              or b"parallel-ssh" in lowered))


def may_hold_a_launch_line(squeezed: bytes) -> bool:
    """:func:`may_name_a_launcher` of lines made lower case without their blanks, a colon read
    as a hyphen (the block reader's squeezed stretch, :data:`mlcheck.read.noise_counts.SQUEEZE`):
    a line that :data:`LAUNCH_LINE` matches has its launcher's name then ``-`` there (its first
    option, after blanks; or the colon of its ``: launch`` message). Most framework output
    names ``run`` somewhere (``running``, ``run_and_time.sh``); far less of it holds ``run-``, so
    the lines of a stretch are seldom looked for one by one (``sh-`` for the host launchers,
    ``pdsh``, ``clush``, ``pssh``). Four searches at most (``x`` found with ``memchr`` first: most
    text holds no ``mpiexec``), each a pass over the text. Neither a launcher followed by the
    program it runs (``srun python``) nor the run script (:data:`RUN_SCRIPT`) is looked for: in a
    result file, one run whatever it holds, such a line would be a note only. Result files only (see
    :data:`LAUNCHER_PARTS`)."""
    return b"run-" in squeezed or (b"x" in squeezed and (b"mpiexec-" in squeezed or b"hydra-" in squeezed
                                                          or b"mpt-" in squeezed)) \
        or b"deepspeed-" in squeezed or b"composer-" in squeezed or b"sh-" in squeezed


ANOTHER_RUN = "the records after it are read as another run"
JOB_ENDS = "the job ends here"
"""How MLC024 begins at a launcher's word that the job ended (the next record opens a run only if
it begins one: :meth:`mlcheck.read.runs.RunBoundaries.opens_new_run`)."""
SAME_RUN = ("a result file is one run, as the official checker reads it: the records after it belong to "
            "this run (their repeats are findings of the round's rules)")
"""How MLC024 ends in raw output, and in a ``result_<i>.txt`` file (read as one run)."""


class JobStarts:
    """Watches one file's lines for the start of another job."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.jobs: set[int] = set()
        self._kept_at_last = 0  # (records kept when the last boundary was reported: one note per boundary)
        self._ended_last: bool | str = False
        """The last boundary reported is a job's end (a launcher line after it is reported too:
        the job launched again, its first record begins the next run; :data:`_WEAK`: a traceback's)."""
        self._traceback = False  # (a Python traceback began at a line's start: its exception's line ends it)

    def may_report(self, kept: int) -> bool:
        """Whether a launcher line met after ``kept`` records were kept could be a boundary: not before the
        first record, nor again before another record was kept (but right after a job's end: the job launched
        again). Where it cannot, the readers do not look for one (a run script's preamble of hundreds of lines)."""
        return kept != 0 and (kept != self._kept_at_last or bool(self._ended_last))

    def launcher(self, raw: bytes, line_no: int, kept: int) -> Finding | None:
        """MLC024 when ``raw`` (a line without a record of raw output) launches a job, or says
        that the job ended (:data:`JOB_END`), after records were kept (looked for only where
        :meth:`may_report`)."""
        if not self.may_report(kept):
            return None
        if self._traceback or raw.startswith(_TRACEBACK):
            ended = self._traceback_line(raw, line_no, kept)
            if ended is not None or self._traceback:
                return ended  # (else a line after a traceback cut short: a launcher's, maybe)
        if LAUNCH_LINE.match(raw):
            return self._boundary(line_no, kept, f"the launcher line {_shown(raw)}")
        if _JOB_END_HINT(raw) and JOB_END.search(raw):
            trial = b"Beginning trial" in raw  # (printed before the next trial: the last one ended)
            return self._boundary(line_no, kept, f"{'the run script begins its next trial: ' if trial else ''}"
                                  f"{_shown(raw)}", begins=False)
        return None

    def _traceback_line(self, raw: bytes, line_no: int, kept: int) -> Finding | None:
        """A traceback's line at a line's start: its exception's may end the process (:class:`RunBoundaries`)."""
        self._traceback = raw.startswith((_TRACEBACK, *_TRACEBACK_GOES_ON)) or not raw.strip()
        if self._traceback or _EXCEPTION_LINE.match(raw) is None:
            return None
        return self._boundary(line_no, kept, f"{TRACEBACK_ENDS} {_shown(raw)}", begins=False)

    def tagged(self, job: int, line_no: int, kept: int, keeps: bool = True) -> Finding | None:
        """MLC024 when a record of an MPI job not seen before follows records of another job; a job is
        seen at a record kept (``keeps``), not at a rank's copy printed first (ranks print in any order)."""
        if job in self.jobs or not keeps:
            return None
        self.jobs = {job} if kept == 0 else self.jobs | {job}  # (the jobs before kept no record: this one is the first)
        if len(self.jobs) == 1:
            return None
        return self._boundary(line_no, kept, f"records tagged with MPI job {job} (another job than "
                              "the records before)")

    def _boundary(self, line_no: int, kept: int, evidence: str, begins: bool = True) -> Finding | None:
        if kept == 0 or (kept == self._kept_at_last and not (begins and self._ended_last) and self._ended_last != _WEAK):
            return None  # (a launcher's word after a traceback's end is said too: it is the stronger evidence)
        self._kept_at_last, self._ended_last = kept, _WEAK if TRACEBACK_ENDS in evidence else not begins
        where = "a new job begins here" if begins else JOB_ENDS
        return raw_output.JOB_STARTED.at(self.path, line_no, f"{where} ({evidence}): {ANOTHER_RUN}")


TRACEBACK_ENDS, _WEAK = "a Python traceback ends with its exception", "weak"
_TRACEBACK, _TRACEBACK_GOES_ON = b"Traceback (most recent call last):", (b" ", b"\t", b"During handling of", b"The above")
_EXCEPTION_LINE = lazy_pattern(rb"(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Interrupt|Exit|Failure)\b")

def _shown(raw: bytes) -> str:
    """A line as a finding quotes it (80 characters at most)."""
    text = raw.decode("utf-8", errors="replace").strip()
    return repr(text if len(text) <= 80 else text[:77] + "...")
