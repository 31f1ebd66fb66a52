"""The name of the host, pod or worker that a multi-host launcher puts in front of each line.

Launchers that run one process per host and merge their output label each line with the name of
its host instead of a rank number:

- ``pdsh``/``clush`` and ``parallel-ssh -i``: ``node017: ``, ``ip-10-0-0-12.ec2.internal: ``,
  ``10.0.0.12: `` (an address: its rank is its number, the hosts in address order); ``clush -bL``'s
  nodes that printed the same line, ``node[017,019-024]: `` (the first node's);
- GNU ``parallel --tag``: the argument and a tab, ``node017<TAB>`` (alone, or before a rank label);
- TorchX's and NeMo-Run's role and replica before torchrun's label: ``trainer/1 [default3]:``,
  ``nemo.collections.llm.api.finetune/0 [default0]:`` (the replica's number);
- ``kubectl logs --prefix`` (every pod of a job): ``[pod/bert-worker-3/main] ``; ``stern``'s
  ``bert-worker-3 main `` (right before the record);
- Docker Compose: ``trainer-2  | ``; a service named without a number only as Compose pads it (two
  blanks or more before the bar, ``ray-training  | ``), in front of a rank label (``ray-training  | [1] ``:
  its container's ranks), and never a logger's level (``INFO     | ``: :func:`lone_service`);
- Ray: ``(RayTrainWorker pid=4242, ip=10.0.0.3) ``, ``(pid=4242) ``;
- syslog and ``journalctl`` (after their date): ``gpu-node-0 python3[4242]: ``, a rank per
  process of each host; RFC 5424's header (a log collector's export, ``rsyslog``'s
  ``RSYSLOG_SyslogProtocol23Format``): ``<14>1 2024-05-01T10:00:00.148Z gpu-node-0 slurmstepd 4242 - - ``,
  the host (its ranks told by a label after it; a relaunch's other process id is the same host);
- ``grep`` (``zgrep``, ``rg``) over the files of a job's ranks: the file's name and a colon right
  before the record (``grep -H :::MLLOG rank*.log``: ``rank3.log::::MLLOG``; ``out/1/rank.3/stdout:12::::MLLOG``
  with ``-n``), before a date or before a task's label (``rank3.log:0: ``): a file named for its rank
  (:data:`FILE_JOB`); other text after the name (a progress bar, a glued warning) keeps the file.

Each is one process whose records may be copies of another's (every host's first rank logs), so
the reader takes it as a rank of job :data:`HOST_JOB` (:data:`RAY_JOB`): the rank is the last
number of the name's first dot-separated part (``node017`` 17, ``bert-worker-3`` 3; hosts of one
number told apart by the rest of their name, :data:`NAMES`), Ray's ``pid``. A name without a
digit (``INFO: ``, ``root: ``: a logger's level or name, one process) is not a host label: the
text stays what it was (cut out of other text). Ray's process ids need not follow the workers' ranks, so the
worker whose records are kept (the lowest pid) may be another than rank 0 (its clock a few
milliseconds apart).
"""

from __future__ import annotations

import re
import zlib

from mlcheck.read.lazy_patterns import lazy_pattern
from mlcheck.read.rank_labels import RANK_LABEL, TAG, TIMESTAMP, number

HOST_JOB = -4
"""The job of every host name label (one job: their copies are compared with one logging rank)."""
NAMES = 4096
"""Hosts of one number (``bert-master-0``, ``bert-worker-0``; ``ip-10-0-0-12``, ``ip-10-0-1-12``)
are told apart by the rest of their name: the rank is ``number * NAMES`` plus a hash of it."""
SYSLOG_JOB = -6
"""The job of syslog's labels, whose rank is the host's times :data:`PIDS` plus the process id."""
PIDS = 1 << 22
"""Above Linux's largest process id."""
RAY_JOB = -5
"""The job of Ray's worker labels, whose rank is the worker's process id."""
FILE_JOB = -8
"""The job of the rank files grep names, whose rank is the number after ``rank`` in the file's
path (``rank3.log``, ``logs/rank3_pid4242.log``, ``out/1/rank.3/stdout``: 3), files of one number
told apart by the rest of their path. A file of another name is none: ``slurm-4242.out``,
``run_3/output.log`` or ``attempt_1/0/stdout.log`` may hold a job each, whose runs a crash or
overlapping times would make look like copies of one another (their records stay one stream,
split into runs as any console's); nor is a Python file (a logger's ``%(pathname)s:%(lineno)d:``)."""
IN_HOST = 10
"""A rank label after a host label (``[pod/bert-worker-1/main] [default0]:``, ``node017: 3: ``,
``node017: [1,3]<stdout>:``: a launcher of its own on each host) is a rank of the host label's job
minus IN_HOST, numbered ``host's rank * LOCAL + the label's rank``: every process of every host
apart, ordered by host, then rank."""
LOCAL = 1 << 32
"""Above any rank a label after a host label gives (an srun task's torchrun rank included)."""

_HOST_LABEL = lazy_pattern(
    r"(?:(?P<host>[A-Za-z](?:[^\W\d]|-)*\d[\w-]*(?:\.[\w-]+)*|\d{1,3}(?:\.\d{1,3}){3}): "
    r"|(?P<nodeset>[A-Za-z][\w-]*\[\d+(?:[,-]\d+)+\][\w.-]*): "
    r"|\[pod/(?P<pod>(?:[^\W\d]|[.-])*\d[\w.-]*)/[\w.-]+\] "
    r"|(?P<torchx>[A-Za-z][\w.-]*/\d+) (?=\[[A-Za-z]*\d+\]:)"
    r"|(?P<service>[A-Za-z](?:[^\W\d]|[.-])*\d[\w.-]*) +\| "
    r"|(?P<named>(?!(?i:debug|info|notice|warn|warning|error|critical|fatal|trace|success) +\| )[A-Za-z][\w.-]*)  +\| "
    r"|\((?:[A-Za-z]\w* )?pid=(?P<pid>\d+)(?:, ip=[\d.:a-fA-F]+)?\) "
    r"|(?P<syslog>[A-Za-z][\w.-]*) [\w./@-]+\[(?P<process>\d+)\]: "
    r"|<\d{1,3}>\d{1,2} (?:\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:\d\d)|-) (?P<rfc_host>[!-~]+) [!-~]+ "
    r"(?P<rfc_process>\d+|-) [!-~]+ (?:-|(?:\[[^\]\n]*\])+) )")
_LEADS = re.compile(rb"master|chief|leader|launcher|head|driver", re.IGNORECASE)
"""A host whose name says it leads the job: its rank 0 is the job's (the logging rank)."""
_POD_SUFFIX = re.compile(r"-(?=[2-9]*[b-z])[bcdfghjklmnpqrstvwxz2456789]{5}$")
"""The five random characters Kubernetes ends a generated pod's name with (``-k9z2p``), of its
alphabet (no vowel, no 0, 1 or 3): ``rack1-gpu01`` keeps its number."""
_FIRST_NODE = lazy_pattern(r"\[(\d+)[^\]]*\]")
_TAB_TAG = lazy_pattern(r"(?P<host>[A-Za-z](?:[^\W\d]|-)*\d[\w-]*(?:\.[\w-]+)*|\d+(?:\.\d+){3})\t")
"""GNU ``parallel --tag``'s argument alone and a tab (``node017<TAB>``, ``10.0.0.12<TAB>``), right
before the record; a number alone is not one (``awk '{print NR "\t" $0}'`` numbers the lines)."""
_STERN = lazy_pattern(r"(?P<pod>[a-z][a-z0-9.]*-[-a-z0-9.]*) (?P<container>[a-z][-a-z0-9]*) ")
"""``stern``'s pod and container (``train-worker-3 trainer ``), right before the record: Kubernetes
names in lower case that begin with a letter (a date, ``2022-05-09 mllog ``, is none), the pod's
with a hyphen and a number."""
# (A name with a number is written as its letters, its first digit, the rest: ``[\w-]*\d[\w-]*`` would
# try each digit of a long word as the first and take time in the square of its length; a
# 5,000-character word before a record took 2.5 s.)
_ADDRESSES = 1 << 24
"""A host's number from here is an IPv4 address's (no host name has such a number)."""
_LAST_NUMBER = lazy_pattern(r"(?<!\d)(\d+)\D*$")
"""The last number of a name (from its first digit only: tried at every digit of a long run of
them, each followed by a letter and another digit, it took the square of the name's length)."""
_RANK_IN_PATH = lazy_pattern(r"(?<![A-Za-z])[Rr]ank[._-]?(\d+)")
"""A rank file's number in its path: ``rank3``, ``rank.3``, ``local_rank-3`` (not ``myrank3``, ``ranking``)."""
_GREP_FILE = lazy_pattern(r"(?P<file>[\w./@+~-]+)[:\x00]")
_GREP_NUMBER = lazy_pattern(r"\d+:")
"""A file's path and a colon (``-Z``: a NUL), then grep's ``-n`` or ``-b`` number and a colon (both
with ``-nb``; ripgrep's ``--column``, ``--vimgrep``: a line and a column): :data:`FILE_JOB`."""
_BARE_HOST = lazy_pattern(r"(?P<host>[A-Za-z](?:[^\W\d]|-)*\d[\w-]*(?:\.[\w-]+)*)(?P<blanks>[ \t]+)")
"""A host's name (with a number, as in :data:`_HOST_LABEL`: ``Epoch 3: `` is no host) and blanks."""


def host_label(text: str, position: int = 0) -> tuple[tuple[int, int], int] | None:
    """((job, rank) of a host label at ``position`` of ``text``, where the label ends), or None."""
    label = _HOST_LABEL.match(text, position)
    if label is None:
        return _grep_file(text, position)
    pid = label.group("pid")
    if pid is not None:
        return (RAY_JOB, number(pid)), label.end()
    process = label.group("process")
    if process is not None:  # (each host's processes in the order of their ids, as ranks start)
        return (SYSLOG_JOB, _host_rank(label.group("syslog")) * PIDS + number(process)), label.end()
    if label.group("rfc_process") is not None:  # (RFC 5424: its date, host, application, process id, message id, data)
        # The host alone: a relaunch (or a run script's other command) logs under another process id.
        return (SYSLOG_JOB, _host_rank(label.group("rfc_host")) * PIDS), label.end()
    nodeset = label.group("nodeset")
    if nodeset is not None:  # (the nodes that printed the line: the first one's)
        return (HOST_JOB, _host_rank(_FIRST_NODE.sub(r"\1", nodeset))), label.end()
    torchx = label.group("torchx")
    if torchx is not None:  # (the replica's number, whatever the role's name holds: llama3.1.pretrain/1)
        role, replica = torchx.rsplit("/", 1)
        return (HOST_JOB, number(replica) * NAMES + 1 + zlib.crc32(role.encode("utf-8", "replace")) % (NAMES - 1)), \
            label.end()
    return (HOST_JOB, _host_rank(label.group("host") or label.group("pod") or label.group("service")
                                 or label.group("named"))), label.end()


def rank_file(path: str) -> tuple[int, str] | None:
    """The rank and the rest of the path (the rank's digits taken out: what the files of one
    job's ranks share) of a rank's file named as grep's names are read (:data:`FILE_JOB`); None
    for another name."""
    return _rank_in(path) if _GREP_FILE.fullmatch(path + ":") is not None else None


def _rank_in(path: str) -> tuple[int, str] | None:
    """:func:`rank_file` of a path of grep's characters."""
    ranks = list(_RANK_IN_PATH.finditer(path))
    if not ranks or path.endswith(".py"):
        return None
    last = ranks[-1]
    return number(last.group(1)), path[:last.start(1)] + path[last.end(1):]


def _grep_file(text: str, position: int) -> tuple[tuple[int, int], int] | None:
    """The rank file grep names in front of the record, of a date or a task's label, or of other
    text its line holds (a progress bar, a warning another write glued to it) (:data:`FILE_JOB`)."""
    found = _GREP_FILE.match(text, position)
    if found is None:
        return None
    ranked = _rank_in(found.group("file"))
    if ranked is None:  # (first: most text before a colon names no rank file)
        return None
    end = found.end()
    for _number in range(2):  # (``-n``'s line, ``-b``'s offset or both: unless a task's label, `` 0: ``, begins here)
        numbered = _GREP_NUMBER.match(text, end)
        if numbered is None or _label_or_nothing(text, end) or RANK_LABEL.match(text, end) is not None:
            break
        end = numbered.end()
    rank, stem = ranked
    return (FILE_JOB, rank * NAMES + zlib.crc32(stem.encode("utf-8", errors="replace")) % NAMES), end


def _label_or_nothing(text: str, position: int) -> bool:
    """Whether ``text`` ends at ``position`` or a date, a task's label or an MPI rank tag, or a date
    and one of them, fill the rest (``rank1.log:2024-05-01 10:00:00 [1,1]<stdout>:``)."""
    stamp = TIMESTAMP.match(text, position)
    if stamp is not None and stamp.end() > position:
        position = stamp.end()
    return position == len(text) or RANK_LABEL.fullmatch(text, position) is not None \
        or TAG.fullmatch(text, position) is not None


def lone_service(text: str, position: int) -> bool:
    """Whether the host label at ``position`` is a Compose service named without a number: a
    host only in front of a rank label (alone, ``name | `` may be a logger's name or a table's
    column, one process: its text stays other text, as a name without a number always was)."""
    label = _HOST_LABEL.match(text, position)
    return label is not None and label.group("named") is not None


def bare_host(text: str, position: int, label: re.Pattern[str], stamped: bool) -> tuple[tuple[int, int], int] | None:
    """A host's name and a tab in front of a task's ``label`` (GNU ``parallel --tag``:
    ``node017<TAB>3: ``), or after a date (``stamped``) a name and blanks (a log shipper's
    ``2024-05-01T10:00:00Z node017 [default3]:``), as :func:`host_label` gives it; else the
    argument and a tab of ``parallel --tag`` (``node017<TAB>``) or ``stern``'s pod and
    container right before the record; None where no such label is. A word and a space alone (``step12 0: ``) is other text: a word that
    changes from line to line would make each line another host's."""
    found = _BARE_HOST.match(text, position)
    if found is None or not (stamped or "\t" in found.group("blanks")) or label.match(text, found.end()) is None:
        tagged = _TAB_TAG.fullmatch(text, position)
        if tagged is not None:
            return (HOST_JOB, _host_rank(tagged.group("host"))), tagged.end()
        pod = _STERN.fullmatch(text, position)  # (each pod a host)
        if pod is None or not any(character.isdigit() for character in pod.group("pod")):
            return None
        return (HOST_JOB, _host_rank(pod.group("pod"))), pod.end()  # (its number, not a container's: ``main-0``)
    return (HOST_JOB, _host_rank(found.group("host"))), found.end()


def _host_rank(name: str) -> int:
    """The rank of a host's name: its number, hosts of one number told apart (:data:`NAMES`), the
    one whose name says it leads the job first (Kubeflow's ``bert-master-0`` before ``bert-worker-0``,
    TFJob's ``chief-0``, Ray's head: :data:`_LEADS`); an IPv4 address's number. A pod's random
    suffix (``bert-1-k9z2p`` of an Indexed Job) is no number of it."""
    octets = name.split(".")
    if len(octets) == 4 and all(octet.isdigit() and len(octet) <= 3 and int(octet) < 256 for octet in octets):
        return int.from_bytes(bytes(map(int, octets)), "big") * NAMES
    part = _POD_SUFFIX.sub("", octets[0])
    found = _LAST_NUMBER.search(part)
    if found is None:  # (a pod or service named by a later part only: ``[pod/a.b1/c]``)
        part, found = name, _LAST_NUMBER.search(name)
    stem = (part if found is None else part[:found.start(1)] + part[found.end(1):]).encode("utf-8", errors="replace")
    order = 0 if _LEADS.search(stem) else 1 + zlib.crc32(stem) % (NAMES - 1)
    return order if found is None else number(found.group(1)) * NAMES + order  # (no number: a Compose service's name)


def within_host(host: tuple[int, int], inner: tuple[int, int]) -> tuple[int, int]:
    """The source of a rank label ``inner`` after host label ``host`` (:data:`IN_HOST`); an MPI
    rank tag keeps its job (another mpirun is another job)."""
    return (inner[0] if inner[0] >= 0 else host[0] - IN_HOST), host[1] * LOCAL + inner[1]


def host_source_name(job: int, rank: int) -> str | None:
    """``host 17``, ``Ray worker pid 4242``, ``process 4242 of host 0``, ``rank file 3``, ``rank 3 of host 17``
    for a host label's source; None for another."""
    if job >= 0 and rank >= LOCAL:
        return f"rank {rank % LOCAL} of job {job} behind a host label"
    if job in (HOST_JOB - IN_HOST, RAY_JOB - IN_HOST, SYSLOG_JOB - IN_HOST, FILE_JOB - IN_HOST):
        return f"rank {rank % LOCAL} of {host_source_name(job + IN_HOST, rank // LOCAL)}"
    if job == HOST_JOB:
        number = rank // NAMES
        return f"host {'.'.join(str(number >> shift & 255) for shift in (24, 16, 8, 0))}" if number >= _ADDRESSES \
            else f"host {number}"
    if job == RAY_JOB:
        return f"Ray worker pid {rank}"
    if job == FILE_JOB:
        return f"rank file {rank // NAMES}"
    return f"process {rank % PIDS} of host {rank // PIDS // NAMES}" if job == SYSLOG_JOB else None
