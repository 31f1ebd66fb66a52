"""``mlcheck split``: write the runs found in raw job output as ``result_<i>.txt`` files.

Each file holds exactly the ``:::MLLOG`` lines of one run, as the logging rank printed them (byte
for byte, without rank tag, timestamp, colour codes or line-end ``\\r``), one per line, in order
(a whole record that is refused, with no key, a null time or not an object, too: the file is
refused as the run is; one that cannot be decoded is not written, its finding says where it is):
what a result file of the package must be. Runs are told apart as ``mlcheck check`` tells them
apart (``mlcheck.read.runs``). The log is streamed; each run goes to a temporary file in the output
folder, renamed at the end, so a refused overwrite or a failure leaves no half-written result.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import IO, Iterator

from mlcheck.records import dataclass
from mlcheck.model import Finding
from mlcheck.read.concurrent_jobs import interleaved_jobs, noting_job_starts
from mlcheck.read.items import RefusedRecordText
from mlcheck.read.reader import RawItem, RecordText, read_records
from mlcheck.read.next_run import NextRunStart
from mlcheck.read.official_view import TOKEN
from mlcheck.read.reading_rules import MARKER_WITHOUT_SPACE
from mlcheck.read.run_boundaries import RunBoundaries
from mlcheck.rules.internal import crash_finding


class SplitError(Exception):
    """The split cannot be done (files exist, output folder not writable); mlcheck exits 2."""


@dataclass(frozen=True)
class SplitResult:
    """The files written, the number of records in each, and what reading found."""

    written: tuple[str, ...]
    records: tuple[int, ...]
    findings: tuple[Finding, ...]
    lacking: tuple[tuple[str, ...], ...] = ()
    """For each file written, the run boundaries (``run_start``, ``run_stop``) its run never logged:
    a run that crashed or was cut, a failed run that the official checker fails."""
    refused: tuple[int, ...] = ()
    """For each file written, the lines of records the run is refused for, written as printed (not
    in ``records``: a cut record, one without a key)."""


def split_log(path: str, out_dir: str, start_index: int = 0, force: bool = False) -> SplitResult:
    """Write each run of ``path`` to ``out_dir/result_<i>.txt`` from ``start_index`` on.

    Raises :class:`SplitError` when a target exists and ``force`` is false, or when the output
    folder cannot be written.
    """
    _check_target(os.path.join(out_dir, f"result_{start_index}.txt"), force, path)
    created = not os.path.isdir(out_dir)  # removed again when nothing is written into it
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as error:
        if os.path.exists(out_dir) and not os.path.isdir(out_dir):  # (a device, a pipe: click checks a file)
            raise SplitError(f"cannot write into {out_dir}: it is no folder; name the folder to write "
                             "result_<i>.txt into") from None
        raise SplitError(f"cannot create {out_dir}: {error.strerror or error}") from None
    temps: list[str] = []
    targets: list[str] = []
    try:
        started: list[Finding] = []
        temps, counts, lacking, findings = _written(path, out_dir, start_index, started=started)
        if started and (order := interleaved_jobs(path)) is not None:  # (MPI jobs at once: MLC030)
            for temp in temps:
                _remove(temp)
            temps, counts, lacking, findings = [], [], [], [order.finding(path)]
            for job in order.concurrent():
                job_temps, job_counts, job_lacking, job_findings = _written(path, out_dir, start_index + len(temps), job)
                temps, counts = temps + job_temps, counts + job_counts
                lacking, findings = lacking + job_lacking, findings + job_findings
        targets = [os.path.join(out_dir, f"result_{start_index + i}.txt") for i in range(len(temps))]
        for target in targets:
            _check_target(target, force, path)
        for temp, target in zip(temps, targets):
            os.replace(temp, target)
        temps = []
    except OSError as error:
        named = f" ({error.filename})" if error.filename else ""
        raise SplitError(f"cannot write into {out_dir}{named}: {error.strerror or error}") from None
    finally:  # (also when interrupted: no partial file, no folder made for nothing)
        for temp in temps:
            _remove(temp)
        if created and not targets:
            try:
                os.rmdir(out_dir)
            except OSError:
                pass
    return SplitResult(tuple(targets), tuple(c[0] for c in counts), tuple(findings), tuple(lacking),
                       tuple(c[1] for c in counts))


def _written(path: str, out_dir: str, start_index: int, only_job: int | None = None,
             started: list[Finding] | None = None) -> tuple[list[str], list[list[int]], list[tuple[str, ...]], list[Finding]]:
    """:func:`_write_runs` of the runs of ``path`` (of one MPI job's lines), read again where
    records of keys only another rank printed are kept (MLC028); ``started`` gets the reading's
    notes of another job's start (MLC024)."""
    elsewhere: dict[tuple[int, bytes], int] = {}
    items = read_records(path, elsewhere=elsewhere, only_job=only_job)
    written = _write_runs(items if started is None else noting_job_starts(items, started), path, out_dir, start_index)
    if not elsewhere:
        return written
    for temp in written[0]:
        _remove(temp)
    return _write_runs(read_records(path, promote=elsewhere, only_job=only_job), path, out_dir, start_index)


def _write_runs(items: Iterator[RawItem], path: str, out_dir: str, start_index: int
                ) -> tuple[list[str], list[list[int]], list[tuple[str, ...]], list[Finding]]:
    """Each run of ``items`` written to a temporary file of ``out_dir``: the files, their
    records' counts (and of refused records written as printed), the run boundaries each lacks and what reading found. A failure removes the
    files written."""
    temps: list[str] = []
    counts: list[list[int]] = []
    lacking: list[tuple[str, ...]] = []
    findings: list[Finding] = []
    handle: IO[bytes] | None = None
    keys: Counter[str] = Counter()
    boundaries = RunBoundaries()  # split writes every job it finds, whatever the file is named
    next_run: NextRunStart[RecordText | RefusedRecordText] = NextRunStart(  # (a run begun without a launcher line)
        value_of=lambda item: item.event.value if isinstance(item, RecordText) else None)

    def next_file() -> IO[bytes]:
        if handle is not None:
            handle.close()
            lacking.append(_lacking(keys))
        temps.append(os.path.join(out_dir, f".result_{start_index + len(temps)}.txt.partial"))
        counts.append([0, 0])
        keys.clear()
        return open(temps[-1], "wb")

    unspaced: list[int] = []  # (the lines of records written with no space after the marker)

    def write(records: list[RecordText | RefusedRecordText]) -> None:
        assert handle is not None
        for record in records:
            if isinstance(record, RecordText):
                keys[record.event.key] += 1
            text = record.text
            if not text.startswith(TOKEN):  # (':::MLLOG{', a tab: written with the parser's token, read as here)
                unspaced.append(record.event.line if isinstance(record, RecordText) else record.line)
                text = TOKEN + text[len(TOKEN.rstrip()):].lstrip(" \t")
            handle.write(text.encode("utf-8") + b"\n")
            counts[-1][isinstance(record, RefusedRecordText)] += 1
    ended: Finding | None = None  # (a job's end: said once the next record begins a run)
    try:
        for item in _isolated(items, path):
            if isinstance(item, RefusedRecordText):  # (written as printed: the file is refused as the run is)
                if not next_run.hold_with(item):  # (else where the records held before it go)
                    handle = handle or next_file()
                    write([item])
                continue
            if not isinstance(item, RecordText):
                if boundaries.note(item, keys):
                    if boundaries.waits(item):
                        ended = item
                    else:
                        findings.append(item)
                continue
            opens = boundaries.opens_new_run(keys, item.event.key, next_run.repeats_a_setting(item.event.key),
                                             item.event.time_ms - next_run.latest,
                                             next_run.repeats_a_setting(item.event.key, True))
            if opens:
                note = boundaries.attempt_note(path, item.event.line, item.event.key)
                said = ended if ended is not None else note  # (one note a boundary, as check says it)
                if said is not None:
                    findings.append(said)
            ended = None
            if opens or handle is None:
                if handle is not None:
                    write(next_run.before_restart())  # (a run killed in its initialisation: its own)
                handle = next_file()
                write(next_run.restart())
            opens, now = next_run.take(item.event.key, item.event.time_ms, item)
            if opens:
                write(next_run.before_open())  # (copies of the run, held until a later start)
                handle = next_file()
            write(now)
        if handle is not None:
            write(next_run.rest())
            handle.close()
            handle = None
            lacking.append(_lacking(keys))
    except BaseException:
        for temp in temps:
            _remove(temp)
        raise
    finally:
        if handle is not None:
            handle.close()
    if unspaced:  # (a result file's parser reads none of them as printed: written with its token)
        findings.append(MARKER_WITHOUT_SPACE.at(path, unspaced[0], (
            f"{len(unspaced)} record(s) printed with no space after :::MLLOG (the first here), written with "
            "it: the official parser reads only ':::MLLOG ' (MLC027), and the run was judged with them. "
            "Print ':::MLLOG ' before the JSON")))
    return temps, counts, lacking, findings


def _lacking(keys: Counter[str]) -> tuple[str, ...]:
    return tuple(key for key in ("run_start", "run_stop") if not keys[key])


def _isolated(items: Iterator[RawItem], path: str) -> Iterator[RawItem]:
    """The reader's items; a bug met while reading ends the file with an MLC000 finding (the
    runs read before it are still written), as ``check`` isolates it."""
    try:
        yield from items
    except Exception as error:
        yield crash_finding("reading this log", path, error)


def _check_target(target: str, force: bool, log: str) -> None:
    """Refuse a target that exists (without ``force``), and always one that is the log read."""
    if _same_file(target, log) if log != "-" else _standard_input_file(target):
        raise SplitError(f"{target} is an input of this split (the log it reads{'' if log != '-' else ': standard input'}); "
                         "mlcheck never overwrites its input. Choose another output folder, or --start-index")
    if os.path.isdir(target) and not os.path.islink(target):  # (--force too: checked before any file is replaced)
        raise SplitError(f"{target} is a folder; --force overwrites only files. Move it, or choose another output "
                         "folder or --start-index")
    if os.path.exists(target) and not force:
        raise SplitError(f"{target} exists; pass --force to overwrite it, or --start-index to "
                         "number the new files after it")


def _same_file(target: str, log: str) -> bool:
    """Whether ``target`` names ``log`` (the same file, through a link or another spelling)."""
    try:
        return os.path.samefile(target, log)
    except OSError:  # (either does not exist)
        return os.path.normcase(os.path.realpath(target)) == os.path.normcase(os.path.realpath(log))


def _standard_input_file(target: str) -> bool:
    """Whether ``target`` is the file standard input reads (``split - < DIR/result_2.txt``)."""
    try:
        return os.path.samestat(os.stat(target), os.fstat(0))
    except (OSError, ValueError):
        return False


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass
