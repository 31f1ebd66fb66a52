"""Records that stderr cut inside a block-buffered stdout, joined again (mlcheck.read.cut_records)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import FIXTURES
from mlcheck.checker import check_log
from mlcheck.cli import main
from mlcheck.package.discover import LogRef
from mlcheck.read.cut_records import CutRecords, rejoined_cut_records
from mlcheck.read.live_reader import LiveReader
from mlcheck.model import Event

EXAMPLE = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
GLOG = b"W0501 12:00:00.123456 140230 gpu_timer.cc:114] Skipping the delay kernel\n"
RECORD = (b':::MLLOG {"namespace": "", "time_ms": 1652083200123, "event_type": "POINT_IN_TIME", '
          b'"key": "eval_accuracy", "value": 0.7512, "metadata": {"file": "train.py", "lineno": 7}}\n')


def _joined(*lines: bytes) -> list[bytes]:
    count = [0]
    return list(rejoined_cut_records(list(lines), count)) + [b"joined %d" % count[0]]


def _cut(record: bytes, at: bytes, other: bytes) -> tuple[bytes, bytes]:
    """``record`` cut after the first ``at``: its first part with ``other`` after it, and its rest."""
    where = record.index(at) + len(at)
    return record[:where] + other, record[where:]


def test_a_record_cut_inside_a_number_by_a_glog_line_is_joined_where_it_starts() -> None:
    first, rest = _cut(RECORD, b'"time_ms": 16520', GLOG)
    assert _joined(b"noise\n", first, rest) == [b"noise\n", RECORD, GLOG, b"joined 1"]


def test_a_record_cut_inside_a_number_by_a_python_warning_and_its_source_line_is_joined() -> None:
    """``warnings`` prints its line and the line of source it names; the record's rest follows."""
    warning = (b"train.py:88: UserWarning: The given NumPy array is not writable\n",
               b"  images = torch.from_numpy(batch)\n")
    first, rest = _cut(RECORD, b'"time_ms": 16520', warning[0])
    assert _joined(first, warning[1], rest) == [RECORD, warning[1], warning[0], b"joined 1"]


BEFORE = RECORD.replace(b"0.7512", b"0.70").replace(b"1652083200123", b"1652083100123")
"""An earlier eval: the strings of the record (key, event type, file) printed before."""


@pytest.mark.parametrize("other", [b"2024-05-01 12:00:01,234 WARNING something\n", b"[rank3]: NCCL INFO Channel 00/02\n",
                                   b"100%|#####| 10/10 [00:01<00:00]\n", b"  3%|#     | 10/300 [00:01<00:29]\n",
                                   b"Traceback (most recent call last):\n",
                                   b"dgx01:12345:12345 [0] NCCL INFO Channel 00/02 : 0 1 2 3\n",
                                   b"/usr/lib/python3/dist-packages/torch/functional.py:504: UserWarning: torch.meshgrid: "
                                   b"in an upcoming release, it will be required to pass the indexing argument.\n",
                                   b"<frozen importlib._bootstrap>:241: RuntimeWarning: numpy.ndarray size changed\n"])
@pytest.mark.parametrize("at", [b'"time_ms": 1652', b'"key": "eval_', b'"event_type": "POINT_', b'"lineno":',
                                b'"lineno": ', b":::MLLOG", b":::MLLOG ", b'"value": 0.75'])
def test_a_cut_is_joined_where_the_other_line_or_a_known_string_tells(other: bytes, at: bytes) -> None:
    """Inside a string: where the field is one an earlier record printed, whatever the other line.
    Inside a number: where the other line begins as a log line begins (a date, a tag, a level). A
    line that begins with digits (a progress bar) or a word may have taken the number's last
    digits: it is joined only where no digit can be its own, else left to MLC023. Never a record
    the job did not print."""
    first, rest = _cut(RECORD, at, other)
    joined = _joined(BEFORE, first, rest)
    assert joined in ([BEFORE, RECORD, other, b"joined 1"], [BEFORE, first, rest, b"joined 0"])
    if not (b"%|" in other or other.startswith((b"dgx01", b"2024"))):  # (digits or a word first: maybe the number's)
        assert joined == [BEFORE, RECORD, other, b"joined 1"]


@pytest.mark.parametrize("other", [b"Training:  45%|##  | 9/20\n", b"rank0: [W socket.cpp:663] x\n", b"Loss 3 at 12:00:00\n"])
@pytest.mark.parametrize("at", [b'"key": "eval_', b'"event_type": "POINT_', b'"file": "tra'])
def test_a_string_no_line_before_printed_is_never_guessed(other: bytes, at: bytes) -> None:
    """Inside a string every place joins, and a log line's middle may look like a line's start
    (``[0]``, ``45%|``, a time): without the string printed before, the lines stay as they are
    (MLC023), never a record with the other line's text inside its key (was ``eval_NCCL accuracy``).
    A key or event type that is a word of the logger (mlperf-logging's constants) tells the place
    only where the other line begins as a line surely does (a run_stop, below), not after these."""
    first, rest = _cut(RECORD, at, other)
    assert _joined(first, rest) == [first, rest, b"joined 0"]


def test_an_nccl_line_begins_where_the_logger_s_word_tells() -> None:
    """NCCL's ``host:pid:tid [dev] NCCL`` line begins surely where a host's name (letters, digits,
    dots, hyphens) can: the key or event type that is a logger's word tells the place (rv223: was
    MLC023); a file name no line printed before stays cut."""
    other = b"dgx01:12345:12345 [0] NCCL INFO Channel 00/02 : 0 1 2 3\n"
    for at in (b'"key": "eval_', b'"event_type": "POINT_'):
        first, rest = _cut(RECORD, at, other)
        assert _joined(first, rest) == [RECORD, other, b"joined 1"]
    first, rest = _cut(RECORD, b'"file": "tra', other)
    assert _joined(first, rest) == [first, rest, b"joined 0"]


@pytest.mark.parametrize("other", [b"0\n", b"42\n", b"-3\n", b".5\n", b"\n", b"0it [00:00, ?it/s]\n", b"1/8 ranks ready\n",
                                   b"0:00:05 elapsed\n", b"45%|####  | 45/100\n", b"5%|#  | 5/100\n",
                                   b"24-05-01 12:00:00 WARN x\n"])
@pytest.mark.parametrize("at", [b'"value": 0.75', b'"time_ms": 1652083'])
def test_a_line_that_begins_with_digits_inside_a_number_is_not_taken_for_its_digits(other: bytes, at: bytes) -> None:
    """``"value": 0.7`` + ``0`` + ``6092``: 0.76092 or 0.706092? Nor ``0it [`` (tqdm), ``0:00:05``
    or ``5%|``, which may begin with the number's last digits (were joined into 0.5, or a time with
    the bar's digits inside): left to MLC023."""
    first, rest = _cut(RECORD, at, other)
    assert _joined(BEFORE, first, rest) == [BEFORE, first, rest, b"joined 0"]


def test_a_string_printed_as_another_field_tells_nothing() -> None:
    """``"eval_top1`` + a glog line + ``accuracy"`` (no key of the logger): ``accuracy`` printed
    before as another field's name is no evidence that the key was ``accuracy`` (was ``"key":
    "accuracy"``)."""
    record = RECORD.replace(b"eval_accuracy", b"eval_top1accuracy")
    first, rest = _cut(record, b'"key": "eval_top1', b"W0501 12:00:00.1 a.cc:1] y\n")
    before = b'{"accuracy": 0.5}\n'
    assert _joined(before, first, rest) == [before, first, rest, b"joined 0"]


def test_a_whole_record_with_text_after_it_is_no_cut_one() -> None:
    """``...}} (rank 0)`` then a line that ends with ``}``: the reader's trailing text, not a join
    (was the record's metadata replaced by the next line's)."""
    lines = [RECORD.rstrip(b"\n") + b" (rank 0)\n", b'  "lr": 0.1}\n']
    assert _joined(*lines) == [*lines, b"joined 0"]


def test_a_long_line_is_not_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    """Marker lines of 50 KB, each followed by a brace: no join is tried (the search grows with the
    square of the length: such a file took minutes)."""
    from mlcheck.read import cut_records

    tried: list[bytes] = []
    monkeypatch.setattr(cut_records, "is_record", lambda text: tried.append(text))
    lines = [b':::MLLOG {"key": "x", "value": "' + b"a" * 50_000 + b"\n", b"}\n"] * 3
    assert _joined(*lines) == [*lines, b"joined 0"] and tried == []


def test_a_launchers_line_end_inside_a_number_is_not_guessed() -> None:
    """A launcher that ends each chunk with a line end, a warning on lines of its own: inside a
    number nothing tells where the first part ended (16520|83200123 or 1652|083200123); inside a
    string printed before, the string does."""
    first, rest = _cut(RECORD, b'"time_ms": 16520', b"\n")
    warning = [b"/usr/lib/python3/site-packages/torch/x.py:12: UserWarning: deprecated\n", b"  warnings.warn(\n"]
    assert _joined(first, *warning, rest) == [first, *warning, rest, b"joined 0"]
    first, rest = _cut(RECORD, b'"key": "eval_', b"\n")
    assert _joined(BEFORE, first, *warning, rest) == [BEFORE, RECORD, *warning, b"\n", b"joined 1"]


def test_a_string_a_record_before_printed_tells_where_a_word_began() -> None:
    """A Python warning (a path, words) inside the file name: the name other records gave."""
    other = b"/usr/lib/python3/site-packages/torch/x.py:12: UserWarning: deprecated\n"
    first, rest = _cut(RECORD, b'"file": "tra', other)
    before = RECORD.replace(b"0.7512", b"0.70")
    assert _joined(before, first, rest) == [before, RECORD, other, b"joined 1"]


def test_a_cut_no_line_before_tells_is_left_to_the_reader() -> None:
    """The same warning inside a string no record printed before: several records would join,
    so the lines stay as they are (the reader's MLC023)."""
    other = b"/usr/lib/python3/site-packages/torch/x.py:12: UserWarning: deprecated\n"
    first, rest = _cut(RECORD, b'"file": "tra', other)
    assert _joined(first, rest) == [first, rest, b"joined 0"]


def test_a_marker_cut_in_its_first_characters_is_joined_at_its_rests_line() -> None:
    first, rest = _cut(RECORD, b":::M", GLOG)
    assert _joined(b"noise\n", first, rest) == [b"noise\n", first, RECORD, b"joined 1"]


def test_a_killed_process_and_a_traceback_with_a_brace_stay_as_they_were() -> None:
    first = RECORD[:60] + b"\n"
    lines = [first, b"Traceback (most recent call last):\n", b'    d = {"a": 1}\n', b"KeyError: 'x'\n"]
    assert _joined(*lines) == [*lines, b"joined 0"]


def test_the_line_by_line_joiner_gives_the_lines_of_the_generator() -> None:
    lines = EXAMPLE.read_bytes().splitlines(keepends=True)
    text = b"".join(lines)
    mixed = b"".join(text[i:i + 4096] + GLOG for i in range(0, len(text), 4096)).splitlines(keepends=True)
    cuts = CutRecords()
    one_by_one = [out for line in mixed for out in cuts.line(line)] + cuts.release()
    assert one_by_one == _joined(*mixed)[:-1] and len(one_by_one) == len(mixed)
    assert _joined(*mixed)[-1] == b"joined %d" % cuts.joined and cuts.joined > 0


@pytest.mark.parametrize("size,other", [(4096, GLOG), (8192, b"[2024-05-01 12:00:01,234] [WARNING] x\n"),
                                        (1024, b"[1,3]<stderr>: NCCL WARN\n")])
def test_block_buffered_output_gives_no_record_the_job_did_not_print(tmp_path: Path, size: int, other: bytes) -> None:
    """``python train.py > log 2>&1``: stdout in blocks, a stderr line between two (was: MLC023 or
    MLC003 at every cut). Each cut is joined into the record printed or is MLC023 at its line
    (a string no line before printed): ``split`` writes the records the job printed, a cut one's
    first part as printed (the written file fails as the run does)."""
    text = EXAMPLE.read_bytes()
    log = tmp_path / "job.log"
    log.write_bytes(b"".join(text[i:i + size] + other for i in range(0, len(text), size)))
    [result] = check_log(LogRef(str(log)), None)
    cuts = sum(text[end - 1:end] != b"\n" for end in range(size, len(text), size))
    left = [f.line for f in result.findings if f.code in ("MLC023", "MLC003")]
    [read] = [f.message for f in result.findings if f.code == "MLC020"]
    joined = cuts - len(left)
    assert joined * 2 >= cuts and f"{joined} record{'s' if joined != 1 else ''} cut by another stream's line" in read
    CliRunner().invoke(main, ["split", str(log), "-o", str(tmp_path / "out")])
    written = (tmp_path / "out" / "result_0.txt").read_bytes().splitlines()
    whole = set(text.splitlines())
    assert len(written) == len(whole) and len([line for line in written if line not in whole]) == len(left)
    printed = log.read_bytes().splitlines()
    assert [line for line in written if line not in whole] == [
        printed[at - 1][printed[at - 1].index(b":::MLLOG"):].rstrip() for at in sorted(left)]


def test_a_result_file_is_read_as_the_official_parser_reads_it(tmp_path: Path) -> None:
    """A submitted result_<i>.txt is never repaired: the cut record is its error."""
    first, rest = _cut(RECORD, b'"time_ms": 16520', GLOG)
    lines = EXAMPLE.read_bytes().splitlines(keepends=True)
    path = tmp_path / "result_0.txt"
    path.write_bytes(b"".join(lines[:150] + [first, rest] + lines[150:]))
    [result] = check_log(LogRef(str(path)), None)
    assert result.verdict == "fail"
    assert [(f.code, f.line) for f in result.findings if f.code != "MLC020"] == [("MLC003", 151)]


def test_a_finding_after_a_joined_record_names_its_physical_line(tmp_path: Path) -> None:
    """The lines after a join keep their numbers: an eval beyond the target is told at its line."""
    lines = EXAMPLE.read_bytes().splitlines(keepends=True)
    first, rest = _cut(lines[10], b'"time_ms": 16520', GLOG)
    bad = lines[20].replace(b'"value": 0.1', b'"value": "x"') if b'"value": 0.1' in lines[20] else lines[20][:20] + b"{\n"
    log = tmp_path / "job.log"
    log.write_bytes(b"".join(lines[:10] + [first, rest] + lines[11:20] + [bad] + lines[21:]))
    [result] = check_log(LogRef(str(log)), None)
    lines_of = {f.line for f in result.findings if f.code not in ("MLC020",)}
    assert 22 in lines_of and 11 not in lines_of and 12 not in lines_of


def test_watch_joins_as_check_does(tmp_path: Path) -> None:
    from mlcheck.read.reader import read_mllog

    text = EXAMPLE.read_bytes()
    mixed = b"".join(text[i:i + 4096] + GLOG for i in range(0, len(text), 4096))
    log = tmp_path / "job.log"
    log.write_bytes(mixed)
    live = LiveReader(str(log))
    watched = [item for line in mixed.splitlines(keepends=True) for item in live.add(line)] + list(live.finish())
    checked = list(read_mllog(str(log)))
    assert [e for e in watched if isinstance(e, Event)] == [e for e in checked if isinstance(e, Event)]
    assert live.reader is not None and live.reader.stats.rejoined_records > 0


@pytest.mark.parametrize("at", [b'"event_', b'"time_ms": 16520'], ids=["in-a-string", "in-a-number"])
def test_a_record_cut_by_the_launchers_word_that_the_job_ended_is_a_cut_record(at: bytes, tmp_path: Path) -> None:
    """A record the kill cut, srun's word glued to it on its line, in a console with no other
    noise: MLC023 (the process was killed while it wrote it), not MLC003 "invalid JSON"; a result
    file stays MLC003, as the official parser reads it (a review, session 44)."""
    lines = EXAMPLE.read_bytes().splitlines(keepends=True)
    half = len(lines) // 2
    cut = lines[half][:lines[half].index(at) + len(at)] + b"srun: error: node017: task 0: Exited with exit code 1\n"
    for name, code in (("job.log", "MLC023"), ("result_0.txt", "MLC003")):
        log = tmp_path / name
        log.write_bytes(b"".join(lines[:half]) + cut)
        [run] = check_log(LogRef(str(log)), None)
        assert [(f.code, f.line) for f in run.findings if f.code in ("MLC003", "MLC023")] == [(code, half + 1)], name


WARNING = b"/opt/conda/lib/python3.8/site-packages/torch/functional.py:504: UserWarning: torch.meshgrid\n"
STOP = (b':::MLLOG {"namespace": "", "time_ms": 1652083300123, "event_type": "INTERVAL_END", "key": "run_stop", '
        b'"value": null, "metadata": {"file": "train.py", "lineno": 9, "status": "success"}}\n')


def test_a_run_stop_cut_anywhere_by_a_warning_is_joined() -> None:
    """Inside ``"namespace": ""`` (a string of none), inside a field's name (``"li`` + ``neno"``),
    inside the key printed once (``run_st`` + ``op``), inside ``success``: the strings and names
    the records before printed and the logger's words tell the place (session 48's review: 42 of
    203 places failed the run, MLC003 and MLC102)."""
    for cut in range(9, len(STOP) - 2):
        first, rest = STOP[:cut] + WARNING, STOP[cut:]
        assert _joined(BEFORE, first, rest) == [BEFORE, STOP, WARNING, b"joined 1"], STOP[:cut]


@pytest.mark.parametrize("at,joined", [(b'"value": 36.0407', True), (b'"value": 36.0', True), (b'"value": 36.', False),
                                       (b'"value": 36', True)])
def test_a_number_is_never_cut_before_its_point(at: bytes, joined: bool) -> None:
    """``36`` + ``.0407/opt/.../functional.py:504: UserWarning`` looks like a warning's line too
    (its first character may be any but a digit): the digits after the point are the number's (was
    ``"value": 360407...``, a record the job did not print). Where the other line begins right at
    the point (``36.`` + ``/opt/...``: or ``36`` + ``./opt/...``?), the place is not certain."""
    record = RECORD.replace(b"0.7512", b"36.04072189")
    first, rest = _cut(record, at, WARNING)
    expected = [BEFORE, record, WARNING, b"joined 1"] if joined else [BEFORE, first, rest, b"joined 0"]
    assert _joined(BEFORE, first, rest) == expected


def test_a_record_a_warning_cut_where_no_join_is_certain_is_a_cut_record(tmp_path: Path) -> None:
    """Not MLC003 (invalid JSON), which would not tell why (the README says MLC023)."""
    record = RECORD.replace(b'"file": "train.py"', b'"file": "a/unique/path.py"')
    first, rest = _cut(record, b'"file": "a/uni', WARNING)
    log = tmp_path / "job.log"
    log.write_bytes(EXAMPLE.read_bytes().replace(b"\n", b"\n" + first + rest, 1))
    [result] = check_log(LogRef(str(log)), None)
    assert [(f.code, f.line) for f in result.findings if f.code in ("MLC003", "MLC023")] == [("MLC023", 2)]


def test_a_tensor_name_printed_before_tells_nothing() -> None:
    """``module.body.`` + a warning + ``conv1.weight"``: ``module.body.conv1.weight`` printed
    before (another tensor) is no evidence: each weights_initialization record names its own
    (was a record of that tensor again, and ``layer1.1.`` given as the warning's)."""
    def init(tensor: bytes) -> bytes:
        return (b':::MLLOG {"namespace": "", "time_ms": 1683060113168, "event_type": "POINT_IN_TIME", "key": '
                b'"weights_initialization", "value": null, "metadata": {"file": "resnet.py", "lineno": 213, "tensor": "'
                + tensor + b'"}}\n')
    before = [init(b"module.body.conv1.weight"), init(b"module.body.layer1.0.conv1.weight")]
    first, rest = _cut(init(b"module.body.layer1.1.conv1.weight"), b"layer1.1.", b"WARNING:root:a warning\n")
    assert _joined(*before, first, rest) == [*before, first, rest, b"joined 0"]


@pytest.mark.parametrize("other", [b"2024-05-10 12:00:01,234 - INFO - throughput 1234.5 samples/s\n",
                                   b"2024-05-10 12:00:01,234 - root - WARNING - slow step\n",
                                   b"Warning: Permanently added 'node002' (ED25519) to the list of known hosts.\n"])
@pytest.mark.parametrize("at", [b'"time_ms": 1652', b'"lineno": ', b'"value": 0.75', b'{"name', b'"key": "eval_'])
def test_python_logging_s_and_ssh_s_lines_begin_a_line_where_they_cut_a_record(other: bytes, at: bytes) -> None:
    """Python logging's default format (``2024-05-10 12:00:01,234 - ``: a year then a hyphen, which
    no number goes on with) and ssh's ``Warning: `` are lines of another stream: a record they cut
    inside a number or a string printed before is joined (review of session 49: MLC003 or MLC023,
    the run_stop lost)."""
    first, rest = _cut(RECORD, at, other)
    joined = _joined(BEFORE, first, rest)
    if at.endswith(b": "):  # (after a name's colon, as after a host's label, the line is not surely another's)
        assert joined in ([BEFORE, RECORD, other, b"joined 1"], [BEFORE, first, rest, b"joined 0"])
    else:
        assert joined == [BEFORE, RECORD, other, b"joined 1"]


@pytest.mark.parametrize("other", [b"node01: Warning: Permanently added 'node02' (ECDSA) to the list of known hosts.\n",
                                   b"loader: 2024-05-10 12:00:01,234 epoch done\n"])
def test_those_lines_behind_a_label_begin_no_line_where_they_do(other: bytes) -> None:
    """Behind a host's label (pdsh) or a logger's name, the date or ssh's words are not where the
    line begins: a record cut inside a string printed before is joined where it was cut (review of
    session 49: the place inside the line was taken for another, and the join refused)."""
    first, rest = _cut(RECORD, b'"file": "train.', other)
    assert _joined(BEFORE, first, rest) == [BEFORE, RECORD, other, b"joined 1"]
