"""Generators of log files: records with any value in any field, raw console lines (rank tags,
timestamps, colour codes, progress bars, launcher lines, many markers on a line), truncated and
glued records, gzip members. Each starts from a real-looking run (``values.SKELETONS``) so that
the rules behind the reader are reached, and each case is a :class:`~fuzzing.case.Case`."""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from typing import Any, Union

from fuzzing.case import Case, Entry, Obj, encode, to_json
from fuzzing.source import Source
from fuzzing.values import KEYS, MLLOG_KEYS, SKELETONS, json_value

Record = Union[list[tuple[str, Any]], tuple[tuple[str, Any], ...]]


@dataclass(frozen=True)
class NotAnObject:
    """A JSON value other than an object where a record should be."""

    value: Any


RULESETS = (None, None, None, "1.0.0", "1.1.0", "2.0.0", "2.1.0")
_OPS = ("set", "drop_field", "drop_record", "copy_record", "swap", "repeat_field", "key", "shift_time",
        "not_an_object", "insert")


def _set(record: Record, name: str, value: Any, repeat: bool = False) -> list[tuple[str, Any]]:
    top, _, sub = name.partition(".")
    if sub:
        meta = dict(record).get("metadata")
        pairs = [p for p in meta.pairs if p[0] != sub] if isinstance(meta, Obj) else []
        value = Obj(tuple(pairs + [(sub, value)]))
    if repeat:
        return [*record, (top, value)]
    out = [(k, value if k == top else v) for k, v in record]
    return out if any(k == top for k, _ in record) else out + [(top, value)]


def records(source: Source, min_ops: int = 0, max_ops: int = 2) -> list[Record | NotAnObject]:
    """A run's records (pairs; or any JSON value where a record should be) after some edits."""
    recs: list[Record | NotAnObject] = list(source.choice(SKELETONS))  # edited ones become lists
    for _ in range(source.integer(min_ops, max_ops)):
        op = source.choice(_OPS)
        if not recs:
            break
        i = source.below(len(recs))
        rec = recs[i]
        if isinstance(rec, NotAnObject):
            continue
        if op in ("set", "repeat_field"):
            recs[i] = _set(rec, source.choice(KEYS), json_value(source), repeat=op == "repeat_field")
        elif op == "drop_field":
            gone = source.choice(KEYS).partition(".")[0]
            recs[i] = [(k, v) for k, v in rec if k != gone]
        elif op == "drop_record":
            del recs[i]
        elif op == "copy_record":
            recs.insert(source.below(len(recs) + 1), rec)
        elif op == "swap":
            j = source.below(len(recs))
            recs[i], recs[j] = recs[j], recs[i]
        elif op == "key":
            recs[i] = _set(rec, "key", source.choice(MLLOG_KEYS))
        elif op == "shift_time":
            delta = source.choice((-1, 1, -10 ** 6, 10 ** 9, -10 ** 13, 10 ** 15))
            time_ms = dict(rec).get("time_ms")
            if isinstance(time_ms, int):
                recs[i] = _set(rec, "time_ms", time_ms + delta)
        elif op == "not_an_object":
            recs[i] = NotAnObject(json_value(source))
        else:
            new = _set(_set(list(rec), "key", source.choice(MLLOG_KEYS)), "value", json_value(source))
            recs.insert(i, new)
    return recs


_SKELETON_LINES = {id(r): b":::MLLOG " + encode(to_json(Obj(r))) for skeleton in SKELETONS for r in skeleton}


def record_lines(recs: list[Record | NotAnObject]) -> list[bytes]:
    """``:::MLLOG {...}`` lines, without line ends (an unedited record as it was serialised once)."""
    return [_SKELETON_LINES.get(id(r)) or
            b":::MLLOG " + encode(to_json(r.value if isinstance(r, NotAnObject) else Obj(tuple(r)))) for r in recs]


def _log_case(family: str, data: bytes, name: bytes, whole_folder: bool, ruleset: str | None) -> Case:
    path = b"resnet/" + name
    return Case(family, (Entry(path, data),), (b"resnet",) if whole_folder else (path,), ruleset)


def record_case(source: Source) -> Case:
    """A result file of records with any JSON value in any field."""
    data = b"\n".join(record_lines(records(source, min_ops=1, max_ops=8))) + b"\n"
    return _log_case("records", data, b"result_0.txt", source.boolean(), source.choice(RULESETS))


_LOOKAHEAD_RECORDS = 4000
"""Records the reader reads ahead before it decides which rank logs (mlcheck/reader.py)."""
_LAUNCHERS = (b"mpirun -np 8 python train.py", b"+ srun --nodes 2 python train.py", b"poprun: launching 4 instances",
              b"$ torchrun --nproc_per_node 8 train.py", b"2022-05-09 08:00:00 poprun --num-instances 4 python x.py")
_NOISE = (b"PopTorch: compiling the graph", b"Epoch 1: 100%|##########| 100/100", b"", b"   ", b"\x00\xff\xfe",
          b"Traceback (most recent call last):", b"[1,0]<stderr>:Warning: deprecated", b":::MLLOG",
          b":::MLLOG {", b":::MLLOG :::MLLOG {}", b"x" * 20000)
_PREFIX = ("none", "mpi", "srun", "ts_mpi", "colour_mpi", "ts")


def _prefix(style: str, job: int, rank: int, stream: str = "stdout") -> bytes:
    tag = f"[{job},{rank}]<{stream}>:".encode()
    return {"none": b"", "mpi": tag, "srun": f"{rank:>4}: ".encode(), "ts": b"2022-05-09T08:00:00.123456 ",
            "ts_mpi": b"2022-05-09T08:00:00.123456 " + tag, "colour_mpi": b"\x1b[32m" + tag}[style]


def raw_line_case(source: Source) -> Case:
    """Raw job output: rank copies under tags, timestamps, colour, progress bars, launcher lines,
    a change of MPI job, many markers on one line, CRLF."""
    lines = record_lines(records(source))
    style = source.choice(_PREFIX)
    ranks = source.integer(1, 3) if style != "none" else 1
    if source.rarely(16) and len(lines) > 2:  # past the reader's lookahead of 4,000 records
        middle = lines[1:-1] * (_LOOKAHEAD_RECORDS // (ranks * (len(lines) - 2)) + 1)
        lines = lines[:1] + middle + lines[-1:]
    ends = source.choice((b"\n", b"\r\n"))
    out: list[bytes] = []
    for record in lines:
        for rank in range(ranks):
            out.append(_prefix(style, 1, rank) + record + (b"\x1b[0m" if style == "colour_mpi" else b""))
    for _ in range(source.integer(0, 6)):
        at = source.below(len(out) + 1)
        kind = source.choice(("launcher", "noise", "progress", "markers", "glued", "new_job",
                                     "stderr_copy", "differ", "binary"))
        near = out[min(at, len(out) - 1)] if out else b""
        if kind == "launcher":
            out.insert(at, source.choice(_LAUNCHERS))
        elif kind == "noise":
            out.insert(at, source.choice(_NOISE))
        elif kind == "progress" and out:
            out[min(at, len(out) - 1)] = b"Epoch 1:  45%|####5     | 45/100\r" + near
        elif kind in ("markers", "glued"):
            count = source.choice((2, 3, 10, 50, 400) if kind == "markers" else (2, 3, 10, 100))
            unit = b':::MLLOG {"key": ' if kind == "markers" else lines[min(at, len(lines) - 1)] if lines else b""
            out.insert(at, _prefix(style, 1, 0) + unit * count)
        elif kind == "new_job":
            out[at:] = [line.replace(b"[1,", b"[2,", 1) for line in out[at:]]
        elif kind == "stderr_copy" and out:
            out.insert(at, near.replace(b"<stdout>", b"<stderr>", 1))
        elif kind == "differ" and out:
            out[min(at, len(out) - 1)] = near.replace(b'"value": ', b'"value": 1', 1)
        elif kind == "binary":
            out.insert(at, source.binary(40))
    data = ends.join(out) + ends
    if source.boolean():
        name = source.choice((b"job.log", b"result_0.txt", b"run.out"))
        return _log_case("lines", data, name, source.boolean(), source.choice(RULESETS))
    per_rank = tuple(Entry(b"job/1/rank.%d/stdout" % r, data if r == 0 else data.replace(b":::MLLOG", b"x", r))
                     for r in range(ranks))
    return Case("lines", per_rank, (b"job",), source.choice(RULESETS))


_GLUE = (b"", b" ", b"\t", b"}", b"[1,0]<stdout>:", b"\r")
_FRACTIONS = (0.0, 0.1, 0.5, 0.9, 0.99)


def glue(source: Source, lines: list[bytes]) -> bytes:
    """``lines`` with records glued, cut, split and repeated, as a crashed or interleaved job leaves them."""
    lines = list(lines)
    final = b"\n"
    for _ in range(source.integer(1, 6)):
        if not lines:
            break
        i = source.below(len(lines))
        kind = source.choice(("glue", "cut", "split", "fragment", "eof_cut", "no_newline", "repeat"))
        cut = int(len(lines[i]) * source.choice(_FRACTIONS))
        if kind == "glue" and i + 1 < len(lines):
            lines[i:i + 2] = [lines[i] + source.choice(_GLUE) + lines[i + 1]]
        elif kind == "cut":
            lines[i] = lines[i][:cut]
        elif kind == "split":
            lines[i:i + 1] = [lines[i][:cut], lines[i][cut:]]
        elif kind == "fragment":
            lines.insert(source.below(len(lines) + 1), lines[i][:cut])
        elif kind == "eof_cut":
            lines = lines[:i] + [lines[i][:cut]]
            final = b""
        elif kind == "no_newline":
            final = b""
        else:
            lines[i] = lines[i] * source.choice((2, 10, 200))
    return b"\n".join(lines) + final


def glued_case(source: Source) -> Case:
    """Records glued on one line, cut mid-record, split across lines, repeated; a crash at the end."""
    data = glue(source, record_lines(records(source)))
    return _log_case("glued", data, source.choice((b"result_0.txt", b"job.log")), source.boolean(),
                     source.choice(RULESETS))


def gzip_case(source: Source) -> Case:
    """Gzip members: valid, truncated, concatenated, with garbage around them, or not gzip at all."""
    lines = record_lines(records(source))
    text = glue(source, lines) if source.boolean() else b"\n".join(lines) + b"\n"
    cuts = sorted(source.integer(0, len(text)) for _ in range(source.integer(0, 2)))
    parts = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
    members = [gzip.compress(part, compresslevel=source.choice((1, 6, 9)), mtime=0) for part in parts]
    for _ in range(source.integer(0, 3)):
        m = source.below(len(members))
        kind = source.choice(("truncate", "garbage_after", "garbage_before", "twice", "flip", "empty"))
        if kind == "truncate":
            members[m] = members[m][:int(len(members[m]) * source.choice(_FRACTIONS))]
        elif kind == "garbage_after":
            members[m] += source.choice((b"\x00" * 16, b"garbage", b"\x1f\x8b", text[:50]))
        elif kind == "garbage_before":
            members[m] = b"\x1f\x8b\x08" + members[m]
        elif kind == "twice":
            members[m] = gzip.compress(members[m], mtime=0)
        elif kind == "flip" and len(members[m]) > 20:
            at = source.integer(10, len(members[m]) - 1)
            members[m] = members[m][:at] + bytes([members[m][at] ^ 0xFF]) + members[m][at + 1:]
        else:
            members[m] = b""
    name = source.choice((b"result_0.txt.gz", b"job.log.gz", b"result_0.txt", b"run.gz"))
    return _log_case("gzip", b"".join(members), name, source.boolean(), source.choice(RULESETS))
