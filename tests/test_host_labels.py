"""Raw output whose lines name their process: a multi-host launcher's host, pod or worker name, a logger's rank."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

import pytest

from conftest import FIXTURES
from mlcheck.checker import check_log
from mlcheck.package.discover import LogRef
from mlcheck.results import RunResult
from mlcheck.read.host_labels import HOST_JOB, NAMES, PIDS, RAY_JOB, SYSLOG_JOB
from mlcheck.read.rawlog import read_prefix

BASE = FIXTURES / "raw" / "base.txt"
EXAMPLE_RUN = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
_TIME = re.compile(r'"time_ms": (\d+)')

LABELS = {
    "pdsh": ("node{:02d}: ", (HOST_JOB, 1), "host 1"),
    "fqdn": ("ip-10-0-0-{}.ec2.internal: ", (HOST_JOB, 1), "host 1"),
    "kubectl": ("[pod/bert-worker-{}/trainer] ", (HOST_JOB, 1), "host 1"),
    "compose": ("trainer-{}  | ", (HOST_JOB, 1), "host 1"),
    "ray": ("(RayTrainWorker pid={}, ip=10.0.0.7) ", (RAY_JOB, 1), "Ray worker pid 1"),
    "ray-unnamed": ("(pid={}, ip=10.0.0.7) ", (RAY_JOB, 1), "Ray worker pid 1"),
    "ray-local": ("(pid={}) ", (RAY_JOB, 1), "Ray worker pid 1"),
    "syslog": ("gpu-node python3[{}]: ", (SYSLOG_JOB, 1), "process 1 of host 0"),
}


@pytest.mark.parametrize("style", sorted(LABELS))
def test_a_host_label_is_a_rank_of_its_job(style: str) -> None:
    label, source, _ = LABELS[style]
    prefix = read_prefix(label.format(1))
    assert (_number(prefix.source), prefix.timestamp, prefix.extra_text) == (source, False, False)
    stamped = read_prefix("2024-05-01T10:00:00Z " + label.format(1))
    assert (_number(stamped.source), stamped.timestamp, stamped.extra_text) == (source, True, False)


def _number(source: tuple[int, int] | None) -> tuple[int, int] | None:
    """A host label's source with the number of the host's name (its rank tells names apart), a
    syslog label's with its process id."""
    if source is not None and source[0] == SYSLOG_JOB:
        return SYSLOG_JOB, source[1] % PIDS
    return source if source is None or source[0] != HOST_JOB else (HOST_JOB, source[1] // NAMES)


def test_hosts_of_one_number_are_told_apart_by_their_names() -> None:
    """Kubeflow's ``bert-master-0`` and ``bert-worker-0``, AWS's ``ip-10-0-0-12`` and ``ip-10-0-1-12``."""
    for one, two in (("[pod/bert-master-0/pytorch] ", "[pod/bert-worker-0/pytorch] "),
                     ("ip-10-0-0-12: ", "ip-10-0-1-12: ")):
        first, second = read_prefix(one).source, read_prefix(two).source
        assert first is not None and second is not None and first != second
        assert first[0] == second[0] == HOST_JOB and first[1] // NAMES == second[1] // NAMES


def test_hosts_named_by_their_address_are_ranks_in_address_order(tmp_path: Path) -> None:
    """``pssh -i`` or pdsh over IP addresses (``10.0.0.12: ``): the lowest address's records
    are kept and named so; the others are copies (were: every host's records kept, run_start
    three times). An address is a host of its own number, not of its first part's."""
    first, second = read_prefix("10.0.0.2: ").source, read_prefix("10.0.1.1: ").source
    assert first is not None and second is not None and first[0] == second[0] == HOST_JOB and first[1] < second[1]
    summary = _read_like_the_clean_run("10.0.0.{}: ", "host 10.0.0.1", tmp_path)
    assert "copies printed by 2 other ranks dropped" in summary
    assert read_prefix("1.2.3: ").source is None and read_prefix("10.0.0.256: ").source != first


@pytest.mark.parametrize("text", ["INFO: ", "root: ", "mlperf_logging: ", "Epoch 3: ", "note: node1: ",
                                  "Epoch\t[default3]:", "12\t", "Epoch[3]: ", "INFO     | ", "step-one done "])
def test_a_name_without_a_number_or_after_other_text_is_no_host(text: str) -> None:
    prefix = read_prefix(text)
    assert prefix.source is None and prefix.extra_text


def _interleaved(lines: list[str], label: str, hosts: int, lag: int) -> list[str]:
    """Every host prints every record; host ``h`` runs ``h * lag`` records behind host 0 (its
    ``time_ms`` a millisecond later per host), and the lowest-numbered host is host 1."""
    out = ["launching on %d hosts" % hosts]
    for step in range(len(lines) + hosts * lag):
        for host in range(hosts):
            at = step - host * lag
            if 0 <= at < len(lines):
                line = _TIME.sub(lambda m: f'"time_ms": {int(m.group(1)) + host}', lines[at])
                out.append(label.format(host + 1) + line)
    return out


@pytest.mark.parametrize("style", sorted(LABELS))
def test_hosts_out_of_step_read_as_the_clean_run(style: str, tmp_path: Path) -> None:
    """Three hosts print every record, each a few records behind the one before: one run with
    the clean file's verdict and time, the lowest host's records kept, the others' dropped as
    copies (were: every host's records kept, run_start three times, MLC404 at the quality check)."""
    label, _, name = LABELS[style]
    summary = _read_like_the_clean_run(label, name, tmp_path)
    assert f"{2 * len(BASE.read_text('utf-8').splitlines())} copies printed by 2 other ranks dropped" in summary


def _read_like_the_clean_run(label: str, name: str, tmp_path: Path) -> str:
    """The MLC020 message of three ranks printing every record behind ``label`` (out of step),
    once the run is checked to read as the clean file, its records kept from ``name``."""
    lines = BASE.read_text("utf-8").splitlines()
    path = tmp_path / "console.log"
    path.write_text("\n".join(_interleaved(lines, label, 3, 2)) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(BASE)), None)
    [result] = check_log(LogRef(str(path)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert [f.code for f in result.findings if f.severity.name != "INFO"] == []
    [summary] = [f for f in result.findings if f.code == "MLC020"]
    assert f"records kept from {name} ({len(lines)})" in summary.message
    return summary.message


def test_one_logger_name_before_every_record_is_one_process(tmp_path: Path) -> None:
    """``INFO: :::MLLOG`` on every line (a logger's level): no host, every record kept."""
    lines = BASE.read_text("utf-8").splitlines()
    path = tmp_path / "console.log"
    path.write_text("".join("INFO: " + line + "\n" for line in lines), "utf-8")
    [clean] = check_log(LogRef(str(BASE)), None)
    [result] = check_log(LogRef(str(path)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert [f.code for f in result.findings if f.severity.name != "INFO"] == []


@pytest.mark.parametrize("label", ["[2023-04-28 00:19:16,123] [INFO] [logging.py:96:log_dist] [Rank {}] ",
                                   "INFO:root:[Rank {}] ", "2024-05-01 10:00:00 INFO [rank{}]: ",
                                   "rank {}: ", "[RANK {}] ", "[rank={}] ", "[GPU{}] ", "INFO [GPU {}] "])
def test_a_rank_label_after_a_loggers_head_names_the_rank(label: str, tmp_path: Path) -> None:
    """DeepSpeed's ``log_dist`` puts ``[Rank N] `` after its logger's head, a job's own print
    ``rank N: `` or ``[GPU N] ``: every rank's records read as copies of rank 1's (were: all kept,
    run_start three times)."""
    assert read_prefix(label.format(3)).source == (-3, 3)
    _read_like_the_clean_run(label, "rank 1", tmp_path)


def test_syslog_labels_of_several_hosts_keep_the_first_hosts_lowest_process(tmp_path: Path) -> None:
    """``journalctl``/syslog lines (``Apr 28 00:19:16 gpu-node-2 python3[4242]: ``): each process of
    each host is a rank, host by host (were: every copy kept, run_start three times)."""
    first = read_prefix("Apr 28 00:19:16 gpu-node-1 python3[9000]: ").source
    second = read_prefix("Apr 28 00:19:16 gpu-node-2 python3[10]: ").source
    assert first is not None and second is not None and first[0] == second[0] == SYSLOG_JOB and first < second
    _read_like_the_clean_run("Apr 28 00:19:16 gpu-node-{} python3[4000]: ", "process 4000 of host 1", tmp_path)


def test_sagemakers_mpi_tags_name_the_rank_and_host(tmp_path: Path) -> None:
    """SageMaker's ``[1,mpirank:0,algo-1]<stdout>:`` is an MPI tag (were: no tag, every copy kept)."""
    assert read_prefix("[1,mpirank:3,algo-2]<stdout>:").source == (1, 3)
    _read_like_the_clean_run("[1,mpirank:{},algo-1]<stdout>:", "rank 1 of job 1", tmp_path)


def test_rays_deduplicated_records_are_read_and_said_to_be_unsure(tmp_path: Path) -> None:
    """Ray's log deduplication ends a line it printed for several workers in ``[repeated Nx across
    cluster]`` (its first time with a note on how to turn it off): the record is read without it,
    and MLC029 warns at the first that other workers' records were dropped (was: MLC020 alone)."""
    lines = BASE.read_text("utf-8").splitlines()
    note = " (Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 to disable log deduplication.)"
    out = [f"(RayTrainWorker pid=4242, ip=10.0.0.7) {line}" + (" [repeated 3x across cluster]" + note if i == 5 else
                                                            " [repeated 2x across cluster]" if i == 9 else "")
           for i, line in enumerate(lines)]
    log = tmp_path / "ray-driver.log"
    log.write_text("\n".join(out) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(BASE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert [(f.code, f.line, f.severity.name) for f in result.findings if f.code != "MLC020"] == \
        [("MLC029", 6, "WARNING")]
    [warning] = [f for f in result.findings if f.code == "MLC029"]
    assert "RAY_DEDUP_LOGS=0" in warning.message and "1 more record)" in warning.message


@pytest.mark.parametrize("host", ["node{:03d}: ", "[pod/bert-worker-{}/main] ", "trainer-{}  | ",
                                  "(RayTrainWorker pid={}, ip=10.0.0.7) "])
@pytest.mark.parametrize("inner", ["[default{}]:", "{}: ", "[rank{}]: ", "[1,{}]<stdout>:"])
def test_a_rank_label_after_a_host_label_is_a_rank_of_that_host(host: str, inner: str, tmp_path: Path) -> None:
    """A launcher on each host behind a multi-host one (``kubectl logs --prefix`` of pods that run
    torchrun: ``[pod/bert-worker-1/main] [default0]:``): each process of each host is a rank, the
    first host's first one logs (was: every local rank of one host kept, the records doubled and
    the run timed from the last copy of run_start: 14.98 minutes instead of 15.00)."""
    lines, result = _two_hosts_of_two_ranks(lambda h, k: host.format(h) + inner.format(k), tmp_path)
    kept = "rank 0 of job 1" if inner.startswith("[1,") else f"rank 0 of {LABELS_NAMES[host]}"
    assert f"records kept from {kept}" in result.findings[0].message
    assert f"({len(lines)}); {3 * len(lines)} copies" in result.findings[0].message


def _two_hosts_of_two_ranks(head: Callable[[int, int], str], tmp_path: Path) -> tuple[list[str], RunResult]:
    """The base run printed by two ranks ``k`` of two hosts ``h``, each line behind ``head(h, k)``
    and a few hundred milliseconds later than the one before: read as the clean run, MLC020 alone."""
    lines = BASE.read_text("utf-8").splitlines()
    out = [head(h, k) + _TIME.sub(lambda m: f'"time_ms": {int(m.group(1)) + (2 * h + k) * 500}', line, count=1)
           for line in lines for h in range(2) for k in range(2)]
    log = tmp_path / "job.log"
    log.write_text("\n".join(out) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(BASE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert [f.code for f in result.findings] == ["MLC020"]
    return lines, result


LABELS_NAMES = {"node{:03d}: ": "host 0", "[pod/bert-worker-{}/main] ": "host 0", "trainer-{}  | ": "host 0",
                "(RayTrainWorker pid={}, ip=10.0.0.7) ": "Ray worker pid 0"}


def test_a_chain_of_host_labels_and_jobs_behind_one_stay_apart(tmp_path: Path) -> None:
    """A thousand labels in front of each record (no recursion error: the labels after the fourth
    are text), and two mpirun jobs behind one host label are two jobs (MLC024 at the second)."""
    lines = BASE.read_text("utf-8").splitlines()
    log = tmp_path / "chain.log"
    log.write_text("\n".join("n1: " * 1200 + line for line in lines) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(BASE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    shifted = [_TIME.sub(lambda m: f'"time_ms": {int(m.group(1)) + 7_200_000}', line, count=1) for line in lines]
    log.write_text("\n".join([f"node001: [1,0]<stdout>:{line}" for line in lines]
                             + [f"node001: [2,0]<stdout>:{line}" for line in shifted]) + "\n", "utf-8")
    results = check_log(LogRef(str(log)), None)
    assert [(r.verdict, r.time_to_train_min) for r in results] == [(clean.verdict, clean.time_to_train_min)] * 2
    assert any(f.code == "MLC024" for r in results for f in r.findings)


@pytest.mark.parametrize("head", ["node{:02d}\t{}: ", "node{:02d}\t[default{}]:", "2024-05-01T10:00:00Z node{:02d} {}: ",
                                  "2024-05-01T10:00:00.123456+00:00 node{:02d} [default{}]:"])
def test_a_host_name_and_blanks_before_a_rank_label_are_a_host_label(head: str, tmp_path: Path) -> None:
    """GNU ``parallel --tag`` puts a tab after the host's name, a log shipper a date and the
    name: the rank label after them is a rank of that host, the first host's first rank logs
    (was: every copy kept, the run timed from the last rank's run_start)."""
    _lines, result = _two_hosts_of_two_ranks(head.format, tmp_path)
    assert "records kept from rank 0 of host 0" in result.findings[0].message


def test_a_changing_word_and_a_space_before_a_rank_label_is_no_host(tmp_path: Path) -> None:
    """``step12 0: ``: without a tab or a date before it, a word is other text, not a host (each
    line another host made every record after the first a copy of another's, and dropped)."""
    lines = BASE.read_text("utf-8").splitlines()
    log = tmp_path / "job.log"
    log.write_text("\n".join(f"step{i} 0: {line}" for i, line in enumerate(lines)) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(BASE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert "MLC021" not in {f.code for f in result.findings}


def test_a_compose_service_without_a_number_is_a_host_label(tmp_path: Path) -> None:
    """``docker compose up`` of one service named without a number (``ray-training  | [0] ``): the
    rank labels after it are read, so a rank's differing copy is MLC021 and the run passes (was:
    the service name was other text, rank 1's copy of global_batch_size kept as a second record,
    MLC106 and a failing run). Two such services are told apart by their names; such a name
    alone, or a logger's level padded before a bar (``INFO     | ``), stays other text."""
    lines = BASE.read_text("utf-8").splitlines()
    out = []
    for line in lines:
        out.append("ray-training  | [0] " + line)
        if '"key": "global_batch_size"' in line:
            line = re.sub(r'"value": \d+', '"value": 7', line)
        out.append("ray-training  | [1] " + line)
    log = tmp_path / "compose.log"
    log.write_text("\n".join(out) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(BASE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert sorted({f.code for f in result.findings}) == ["MLC020", "MLC021"]
    first, second = read_prefix("ray-training  | [1] ").source, read_prefix("web  | [1] ").source
    assert first is not None and second is not None and first[0] == second[0] and first != second
    for text in ("ray-training  | ", "mllogger | ", "INFO     | [0] ", "warning | [1] "):
        assert read_prefix(text).source is None and read_prefix(text).extra_text, text


def test_the_host_that_leads_the_job_logs_among_hosts_of_one_number(tmp_path: Path) -> None:
    """Kubeflow's ``bert-master-0`` is rank 0 and ``bert-worker-0`` rank 1: among hosts of one
    number, a name that says it leads the job (master, chief, leader, launcher, head, driver) comes
    first, so its records are kept even when the worker prints first (was: an order by a hash of
    the names, the worker's copies kept; its run_start a minute late here timed the run from it)."""
    master, worker, next_worker = (read_prefix(f"[pod/bert-{name}/pytorch] ").source
                                   for name in ("master-0", "worker-0", "worker-1"))
    assert master is not None and worker is not None and next_worker is not None and master < worker < next_worker
    lines = BASE.read_text("utf-8").splitlines()
    out = []
    for line in lines:
        late = line
        if '"key": "run_start"' in line:
            late = _TIME.sub(lambda m: f'"time_ms": {int(m.group(1)) + 60_000}', line, count=1)
        out += ["[pod/bert-worker-0/pytorch] " + late, "[pod/bert-master-0/pytorch] " + line]
    log = tmp_path / "job.log"
    log.write_text("\n".join(out) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(BASE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert [f.code for f in result.findings] == ["MLC020"]  # (a copy's time is its host's clock: not compared)
    assert "records kept from host 0 (29)" in result.findings[0].message


def test_the_host_labels_of_this_session_read_what_they_name_and_no_more(tmp_path: Path) -> None:
    """A date and a word (``2022-05-09 mllog ``) is no stern pod; a logger's name before one bar and
    a rank label (``mllog | [Rank 0] ``, ``eval | [Rank 0] ``) is one process, as Compose pads a
    service's name with two blanks or more; a Compose master's ranks come before a worker's; a
    pod's random suffix (``bert-1-k9z2p``, an Indexed Job's) is no number of it; stern's pod, not
    its container (``main-0``), numbers the host."""
    assert read_prefix("2022-05-09 mllog ").source is None
    assert read_prefix("mllog | [Rank 0] ").source == read_prefix("eval | [Rank 0] ").source == (-3, 0)
    master, worker = read_prefix("trainer-master  | [0] ").source, read_prefix("trainer-worker  | [0] ").source
    assert master is not None and worker is not None and master < worker
    assert [_number(read_prefix(f"[pod/bert-{i}-k9z2p/main] ").source) for i in (1, 2)] == [(HOST_JOB, 1), (HOST_JOB, 2)]
    assert _number(read_prefix("train-worker-3 main-0 ").source) == (HOST_JOB, 3)


@pytest.mark.parametrize("head", ["P{} 0: ", "[{}]:", "[{},0]<stdout>:", "node{}: ", "(pid={}) ", "0: [default{}]:"])
def test_a_label_of_more_digits_than_int_reads_is_no_crash(head: str, tmp_path: Path) -> None:
    """A label whose number has more than 4,300 digits (``int()``'s limit of text) is read, not a
    crash of the file's reading (was MLC000 and nothing read)."""
    digits = "7" * 5000
    assert read_prefix(head.format(digits)).source is not None
    log = tmp_path / "job.log"
    log.write_text("".join(head.format(digits) + line + "\n" for line in BASE.read_text("utf-8").splitlines()), "utf-8")
    [result] = check_log(LogRef(str(log)), None)
    assert "MLC000" not in {f.code for f in result.findings}


@pytest.mark.parametrize("head", ["node{}: ", "trainer{}  | ", "[pod/bert{}/main] ", "node{}\t", "a-{} main ", "rank{}.log:",
                                  "node{}a1: "])
def test_a_long_word_before_a_record_is_read_as_a_short_one(head: str) -> None:
    """A word of 20,000 characters before a record is read as a short one (the label or other text)."""
    long_one = read_prefix(head.format("7" * 20_000 if "a-" not in head else "a-" * 10_000)).source
    short_one = read_prefix(head.format("7" if "a-" not in head else "a-")).source
    assert (long_one is None) == (short_one is None)


def test_no_label_pattern_tries_each_digit_of_a_word_as_its_number() -> None:
    """A host's name is matched as its letters, its first digit, then the rest: a class that holds
    digits before ``\\d`` (``[\\w-]*\\d``) tries each digit of a long word as the first, in time
    the square of its length (a 5,000-character word before a record took 2.5 s, 200,000 would
    take an hour); so does a class with ``-`` before a ``-`` (stern's pod)."""
    from mlcheck.read import host_labels, rank_labels, rawlog
    from mlcheck.read.lazy_patterns import LazyPattern

    patterns = [value.pattern for module in (host_labels, rank_labels, rawlog) for value in vars(module).values()
                if isinstance(value, (re.Pattern, LazyPattern)) and isinstance(value.pattern, str)]
    assert len(patterns) > 8
    quadratic = re.compile(r"\[[^\]]*\\w[^\]]*\][*+]\\d|\[-[^\]]*\][*+]-")
    assert [pattern for pattern in patterns if quadratic.search(pattern)] == []


def test_a_host_name_ending_in_five_characters_keeps_its_number() -> None:
    """Only Kubernetes' own random suffix (its alphabet has no vowel, no 0, 1 or 3) is no number
    of a name: ``rack1-gpu01`` and ``rack1-gpu02`` are hosts 1 and 2 (were both host 1, one source)."""
    first, second = read_prefix("rack1-gpu01: ").source, read_prefix("rack1-gpu02: ").source
    assert (_number(first), _number(second)) == ((HOST_JOB, 1), (HOST_JOB, 2))


def test_an_rfc5424_relaunch_under_another_process_id_is_the_next_run(tmp_path: Path) -> None:
    """RFC 5424's header names the host and a process id: the host alone is the label, so a
    relaunch's new process is no other rank printing copies (review of session 40: the relaunch's
    records dropped as copies, one passing run of both lengths)."""
    records = EXAMPLE_RUN.read_text("utf-8").splitlines()
    cut = len(records) * 2 // 3
    later = [re.sub(r'"time_ms": (\d+)', lambda m: f'"time_ms": {int(m.group(1)) + 3_600_000}', line) for line in records]
    head = "<14>1 2024-05-01T10:00:00.148Z gpu-node017 python3 {} - - "
    lines = [head.format(4242) + line for line in records[:cut]] + [head.format(5151) + line for line in later]
    log = tmp_path / "syslog.log"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(EXAMPLE_RUN)), None)
    crashed, again = check_log(LogRef(str(log)), None)
    assert crashed.verdict == "fail" and (again.verdict, again.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
