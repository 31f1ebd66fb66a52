"""The rank labels that launchers and loggers put in front of a process's lines (no job number:
an MPI tag with one is :data:`TAG`; a host's name is :mod:`mlcheck.read.host_labels`)."""

from __future__ import annotations

import re

from mlcheck.read.lazy_patterns import lazy_pattern

Source = tuple[int, int]
"""(job, rank) of the process that printed a record; job -1 is ``srun --label``, -2 MPICH-style
``mpiexec -prepend-rank`` (``[rank]``), -3 torchrun (``[rankN]:``, ``[defaultN]:``), -4 a host's
name, -5 a Ray worker, -6 a syslog process, -8 a file grep names (:mod:`mlcheck.read.host_labels`),
-7 a task of a heterogeneous Slurm job (:data:`COMPONENT_JOB`)."""

TAG = lazy_pattern(r"\[(?:[^\[\]\s,@]*@)?(\d+),(?:mpirank:)?(\d+)(?:,[^\[\]\s,]+)?\](?:\[[^\[\]\s]*\])?<(stdout|stderr)>:")
"""An OpenMPI/poprun ``[job,rank]<stdout>:`` tag; OpenMPI 5 (PRRTE) may name the job's namespace
(``[prterun-node1-4242@1,0]<stdout>:``) and add the host and pid (``[1,0][node1:4242]<stdout>:``);
SageMaker's MPI jobs name the rank and the host (``[1,mpirank:0,algo-1]<stdout>:``)."""
TIMESTAMP = lazy_pattern(
    r"\[?(?:\d{4}[-/]\d\d[-/]\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"
    r"|\d\d/\d\d/\d{2,4}[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?"
    r"|(?:[A-Z][a-z]{2} )?[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)?(?:(?: [A-Z]{3,5})? \d{4})?"
    r"|1\d{9}(?:\.\d+)?"
    r"|\d\d:\d\d:\d\d(?:\.\d+)?)\]?:? ?")
"""ISO (``ts "%FT%.T"``, loggers) or with slashes (``%Y/%m/%d``, ``%d/%m/%Y``), syslog-like (``ts``), ``date``
(``mpirun --timestamp-output``; ``Tue Oct 07 12:00:00 UTC 2025:``), the epoch (``ts %s``, ``ts %.s``), a relative
clock (``ts -s``, ``ts -i``)."""
RANK_LABEL = lazy_pattern(r" *(?:(\d+): |\[(\d+)(?:@[\w.-]+)?\](?: |: ?|<(?:stdout|stderr)>: ?)|\[[a-z][a-z_-]*?(\d+)\]: ?"
                        r"|\[(?:[Rr]ank|RANK|GPU|gpu)(?:[:=] ?| )?(\d+)\] |(?:[Rr]ank|RANK) (\d+): "
                        r"|\[rank(\d+)-[\w-]*\]: ?|P(?P<component>\d+) +(?P<task>\d+): )")
"""A task's label: ``srun --label`` (`` 3: ``; a heterogeneous job's ``P1 3: ``, task 3 of its
component 1), ``mpiexec -prepend-rank`` (``[3] ``; Hydra's ``-prepend-pattern "[%r@%h]"``:
``[3@node017] ``) and the rank tags without a job (PRRTE ``--output rank``, Horovod with Gloo:
``[3]<stdout>:``), torchrun's ``--tee``/PyTorch 2.2+ ``[rank3]: ``, ``[<role><local rank>]:``
(``[default3]:``, ``[trainer3]:``) and the ``[${rank}]:`` of a ``--log-line-prefix-template``
(``[3]:``; SageMaker HyperPod's ``[rank3-group_rank0-attempt0]:``), the ``[Rank 3] ``/``[rank: 3] ``
of DeepSpeed's and Lightning's loggers, and a job's own ``[RANK 3] ``, ``[rank=3] ``, ``[GPU3] ``,
``rank 3: ``."""
LOGGER_RANK = lazy_pattern(r"(?<=[\s\]:])\[(?:[Rr]ank|RANK|GPU|gpu)(?:[:=] ?| )?(\d+)\]:? ?$")
"""A logger's rank label after its head (DeepSpeed's ``log_dist``: ``[ts] [INFO] [file:line:fn] [Rank 3] ``)."""
TASK_LOG_RANK = lazy_pattern(r"\[rank=(\d+)\] \|\| (?:[A-Z]+: *)?$")
"""The global rank of a Determined task log's line, at the end of its head (``[2022-05-09T08:00:00Z]
adbf0834 [rank=3] || INFO:  ``; the trial log's ``[ts] [adbf0834] [rank=3] || ``): the container's
id before it names no process of its own."""
LOCAL_RANK = lazy_pattern(r"\[[a-z][a-z_-]*?(\d+)\]: ?")
LOCAL_RANKS = 1 << 16
"""The ranks behind an srun task's, MPI or Gloo rank's label (``0: [default1]:``, ``[1,0]<stdout>:[default1]:``)
are ``(task + 1) * LOCAL_RANKS + local``: by task, then local rank, apart from every task's own rank."""
INNER_RANK = lazy_pattern(r" ?(?:\[[a-z][a-z_-]*?(\d+)\]: ?|\[(?:[Rr]ank|RANK|GPU|gpu)(?:[:=] ?| )?(\d+)\] "
                          r"|\[rank(\d+)-[\w-]*\]: ?)")
"""A process's own rank label behind a launcher's (an srun task's, an MPI or Gloo rank's): torchrun's
``[default1]:``/``[rank1]:``, DeepSpeed's ``[RANK 1] ``; never a bare number (``15: ``, ``[15] ``: a
program's own counter as often as a label)."""


def inner_rank(text: str, at: int) -> tuple[int, int] | None:
    """The rank and the end of :data:`INNER_RANK` at ``at`` of ``text``, or None (none there, or a
    rank of :data:`LOCAL_RANKS` or more, which would read as another process's)."""
    found = INNER_RANK.match(text, at)
    if found is None:
        return None
    local = number(next(digits for digits in found.groups() if digits is not None))
    return (local, found.end()) if local < LOCAL_RANKS else None
COMPONENT_JOB = -7
"""The job of a heterogeneous Slurm job's labels (``P1 3: ``), whose ranks are
``component * COMPONENT_TASKS + task``: by component, then task."""
COMPONENT_TASKS = 1 << 24


def number(digits: str | bytes) -> int:
    """The number a label's digits write; of more than 4,000 digits (beyond ``int()``'s limit of
    text: a broken or hostile line), the last 4,000 (no label of a real job is so long)."""
    return int(digits if len(digits) <= 4000 else digits[-4000:])


def label_source(label: re.Match[str]) -> Source:
    """An ``srun --label`` task is job -1, a ``-prepend-rank`` ``[rank]`` job -2, a torchrun
    ``[rankN]:`` or a logger's ``[Rank N]`` job -3."""
    if label.group(1) is not None:
        return -1, number(label.group(1))
    if label.group(2) is not None:
        return -2, number(label.group(2))
    if label.group("component") is not None:
        return COMPONENT_JOB, number(label.group("component")) * COMPONENT_TASKS + number(label.group("task"))
    return -3, number(next(digits for digits in label.groups()[2:] if digits is not None))


def srun_task_name(job: int, rank: int) -> str | None:
    """``srun task 3``, ``srun task 0 (torchrun rank 1)``, ``srun task 3 of component 1``; None
    for another job's source."""
    if job == -1:
        return f"srun task {rank // LOCAL_RANKS - 1} (torchrun rank {rank % LOCAL_RANKS})" if rank >= LOCAL_RANKS \
            else f"srun task {rank}"
    if job == COMPONENT_JOB:
        return f"srun task {rank % COMPONENT_TASKS} of component {rank // COMPONENT_TASKS}"
    return None
