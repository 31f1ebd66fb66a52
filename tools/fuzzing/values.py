"""JSON values for any field of a record or a system description, and the records to put them in.

A quarter of the values come from a table of the ones that broke readers before (integers of 400
digits, ``1e999``, NaN, lone surrogates, 3,000 nested arrays, repeated keys, wrong types, the
names rules look for), the others are numbers of every magnitude, short odd strings and small
nested arrays and objects.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fuzzing.case import Obj, Raw
from fuzzing.source import Source

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"

BENCHMARKS = ("resnet", "bert", "ssd", "maskrcnn", "unet3d", "rnnt", "dlrm", "minigo", "gpt3",
              "transformer", "gnmt", "ncf", "retinanet", "dlrm_dcnv2", "stable_diffusion", "llama2_70b_lora")
WORDS = ("closed", "open", "success", "aborted", "onprem", "cloud", "preview", "available", "research",
         "lars", "sgd", "adam", "lamb", "Acme", "acme-t8", "train.py", "POINT_IN_TIME",
         "INTERVAL_START", "INTERVAL_END", "")
HUGE = 10 ** 400

INTERESTING: tuple[Any, ...] = (
    None, True, False, 0, -1, 1, 7, 2 ** 31, 2 ** 53 + 1, 2 ** 63, 2 ** 64, -(2 ** 63) - 1, HUGE, -HUGE,
    0.5, -0.0, 1e-320, 1.7976931348623157e308, -1.7976931348623157e308, float("nan"), float("inf"),
    float("-inf"), 1652083200000, -1652083200000, 1652083200000 * 1000, 253402300800000,
    Raw("1e999"), Raw("-1e999"), Raw("1E400"), Raw("1" + "0" * 400), Raw("-" + "9" * 330),
    Raw("0." + "0" * 400 + "1"), Raw("1e-999"), Raw("123456789" * 40 + ".5"), Raw("-0"), Raw("1.0e+308"),
    "", " ", "NaN", "nan", "Infinity", "-inf", "1e999", "1" * 400, "0x10", "1,000", "\x00", "\u2028",
    "\U0001f600", "\x1b[31m", ":::MLLOG", "x" * 5000, Raw('"\\ud800"'), Raw('"\\udfff\\ud800x"'),
    [], {}, [[]], [None], [1, 2, 3], [float("nan")], {"": None}, {"value": HUGE},
    Raw("[" * 3000 + "]" * 3000), Raw('{"a": ' * 2000 + "1" + "}" * 2000), Raw("[" * 100000),
    Obj((("a", 1), ("a", 2))), Obj((("value", 1), ("value", "x"))),
    *BENCHMARKS, *WORDS,
)

_FLOATS = (0.1, 1.0, 3.5, 1e-9, 1e300, 2.0 ** 63)
_CHARS = ("a", "Z", "0", "9", " ", '"', "\\", "/", ":", "{", "}", "\n", "\r", "\t", "\x00", "\x1b", "\x7f",
          "\u00e9", "\u2028", "\ufeff", "\U0001f600", "\ud800", "\udfff")


def text(source: Source, max_size: int = 12) -> str:
    """A short string of letters, digits, quotes, escapes, controls, non-ASCII and lone surrogates."""
    return "".join(source.choice(_CHARS) for _ in range(source.integer(0, max_size)))


def json_value(source: Source, depth: int = 0) -> Any:
    """Any JSON value, most often one of :data:`INTERESTING`."""
    kind = source.below(8 if depth < 2 else 6)
    if kind <= 1:
        return source.choice(INTERESTING)
    if kind == 2:
        magnitude = 10 ** source.choice((1, 3, 9, 18, 19, 40, 308, 309, 400))
        return (source.integer(0, 9) * magnitude + source.integer(0, 999)) * (1 if source.boolean() else -1)
    if kind == 3:
        return source.choice(_FLOATS) * source.integer(-1000, 1000) / (1 + source.below(7))
    if kind == 4:
        return text(source)
    if kind == 5:
        return source.choice((None, True, False, 0, "", [], {}))
    if kind == 6:
        return [json_value(source, depth + 1) for _ in range(source.integer(0, 3))]
    return Obj(tuple((text(source, 4), json_value(source, depth + 1)) for _ in range(source.integer(0, 3))))


KEYS = ("value", "time_ms", "key", "event_type", "namespace", "metadata", "metadata.epoch_num",
        "metadata.status", "metadata.first_epoch_num", "metadata.epoch_count", "metadata.file",
        "metadata.lineno", "metadata.samples_count", "metadata.step_num", "extra")
"""Fields of a record (``metadata.x``: inside metadata)."""

MLLOG_KEYS = ("run_start", "run_stop", "init_start", "init_stop", "eval_accuracy", "eval_start", "eval_stop",
              "epoch_start", "epoch_stop", "block_start", "block_stop", "submission_benchmark",
              "submission_division", "submission_org", "submission_status", "submission_platform",
              "global_batch_size", "seed", "train_samples", "eval_samples", "opt_name", "cache_clear",
              "weights_initialization", "opt_base_learning_rate", "opt_learning_rate_warmup_epochs",
              "gradient_accumulation_steps", "samples_count", "tracked_stats", "submission_poc_name",
              "lars_opt_weight_decay", "number_of_warmup_steps", "unknown_key", "", "\u00e9")


def _records(path: Path, keep_weights: int | None = None) -> tuple[tuple[tuple[str, Any], ...], ...]:
    out = []
    weights = 0
    for line in path.read_text("utf-8").splitlines():
        record = json.loads(line[len(":::MLLOG "):], object_pairs_hook=lambda pairs: Obj(tuple(pairs)))
        if keep_weights is not None and dict(record.pairs).get("key") == "weights_initialization":
            weights += 1
            if weights > keep_weights:
                continue
        out.append(record.pairs)
    return tuple(out)


_EXAMPLE = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
_OPEN, _CLOSED, _VALID = (_records(FIXTURES / "bad" / "base_open.txt"),  # 24 lines, open division
                          _records(_EXAMPLE, keep_weights=3),  # closed, most END-check tensors missing
                          _records(_EXAMPLE))  # 303 lines, closed and valid: every rule runs
SKELETONS = (_OPEN,) * 6 + (_CLOSED, _VALID)
"""Runs to edit, the cheap ones most often (a valid closed run costs 3 ms to check)."""
