"""Transcribe the rule files of each round's checker of record (3.0-6.1) into mlcheck's round data.

    python tools/transcribe_record_rules.py [--reference ../shared/reference/record-rules]
                                            [--out schemas/rulesets] [--check]

Reads ``<reference>/training-X.Y/compliance/*.yaml`` (as the checker reads them: ``yaml.BaseLoader``,
every scalar a string) and writes ``<out>/<X.Y.Z>/constraints.json`` and ``ruleset.json``. Every
KEY record becomes an entry with its REQ; every CHECK, FIRST_CHECK, POST and ATLEAST_ONE_CHECK
string is translated through the tables below into a named constraint form (``mlcheck explain
forms``), or the script stops and names the string: a new round's new Python must be given a form
before it becomes data. Nothing is evaluated (``ast.literal_eval`` reads the literal of
``v['value'] == <literal>`` only). ``--check`` compares with the files instead of writing them
(``tests/test_later_rounds.py`` runs it). The facts that are not in the rule files (the period of
each round, the revision of record, model names) are the ``ROUNDS`` and ``TITLES`` tables here.

A benchmark that the installed mlperf-logging release knows and the round's checker of record does
not (``INSTALLED``: ``dlrmv4`` of 6.1, only in 4.1.68) is transcribed from the installed package's
rule files, with the difference said in its sources; the script stops if another release is
installed (its rule files may say something else). So is, for a round being prepared
(``RELEASE_ROUNDS``: 6.1), each KEY record of the release's common and closed files that differs
from the record's: the constraints' ``release`` part, which MLC113 warns from.
"""
from __future__ import annotations

import argparse
import ast
import importlib.metadata
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent.parent
REF = HERE.parent / "shared" / "reference" / "record-rules"
OUT = HERE / "schemas" / "rulesets"

THIS = {"this": "value"}
GBS = {"state": "global_batch_size"}
WARM = {"state": "opt_learning_rate_warmup_steps"}
EIS = {"state": "eval_interval_samples"}


def op(name, *args):
    return {"op": name, "args": list(args)}


ROUNDS = {
    "3.0.0": dict(dir="training-3.0", rev="tag 3.0.0-rc2 (2023-05-17)", period=("2022-11-09", "2023-06-19")),
    "3.1.0": dict(dir="training-3.1", rev="master cacda4a (2023-10-31; the tag 3.1.0-rc3 crashes on every file, "
                  "its AT_LEAST fix and the Stable Diffusion step_num patches landed after it)",
                  period=("2023-06-19", "2023-11-07")),
    "4.0.0": dict(dir="training-4.0", rev="tag 4.0.0-rc3-rcp-prunning (2024-05-21; compliance_checker identical to "
                  "4.0.0-rc2 and to master at publication 39fc7a0)", period=("2023-11-07", "2024-06-11")),
    "4.1.0": dict(dir="training-4.1", rev="tag 4.1.0-rc4 (2024-09-30)", period=("2024-06-11", "2024-11-13")),
    "5.0.0": dict(dir="training-5.0", rev="tag 5.0.0-rc3 (2025-04-17)", period=("2024-11-13", "2025-05-30")),
    "5.1.0": dict(dir="training-5.1", rev="tag 5.1.0-rc4 (2025-10-08)", period=("2025-05-30", "2025-11-05")),
    "6.0.0": dict(dir="training-6.0", rev="tag 6.0.0-rc6 (2026-05-13)", period=("2025-11-05", "2026-05-30"),
                  estimated=True),
    "6.1.0": dict(dir="training-6.1", rev="master 7bbf792 (2026-07-29, no round tag yet)",
                  period=("2026-05-30", "2026-11-05"), estimated=True),
}

# Benchmarks of each round: benchmark_meta.py of the record revision.
META = {
    "3.0.0": ["resnet", "bert", "rnnt", "ssd", "maskrcnn", "unet3d", "dlrm_dcnv2", "gpt3"],
    "3.1.0": ["resnet", "bert", "rnnt", "ssd", "maskrcnn", "unet3d", "dlrm_dcnv2", "gpt3", "stable_diffusion"],
    "4.0.0": ["resnet", "bert", "ssd", "unet3d", "dlrm_dcnv2", "gpt3", "stable_diffusion", "llama2_70b_lora", "gnn"],
    "4.1.0": ["bert", "ssd", "dlrm_dcnv2", "gpt3", "stable_diffusion", "llama2_70b_lora", "gnn"],
    "5.0.0": ["bert", "dlrm_dcnv2", "retinanet", "stable_diffusion", "llama2_70b_lora", "rgat", "llama31_405b"],
    "5.1.0": ["llama31_8b", "dlrm_dcnv2", "retinanet", "flux1", "llama2_70b_lora", "rgat", "llama31_405b"],
    "6.0.0": ["llama31_8b", "dlrm_dcnv2", "flux1", "llama2_70b_lora", "llama31_405b", "gpt_oss_20b", "deepseekv3_671b"],
    "6.1.0": ["llama31_8b", "flux1", "llama2_70b_lora", "gpt_oss_20b", "deepseekv3_671b", "qwen35_397b_grpo",
              "dlrmv4"],
}

# Benchmarks whose rule files come from the installed mlperf-logging release, because the round's
# checker of record has none: version -> {benchmark: the sentence that says how the record differs}.
INSTALLED_RELEASE = "4.1.68"
INSTALLED = {
    "6.1.0": {"dlrmv4": "the 6.1 checker of record (logging master 7bbf792) does not know dlrmv4: its "
                        "closed_common.yaml and open_common.yaml do not list it and it has no closed_dlrmv4.yaml, "
                        "so it fails every dlrmv4 log on submission_benchmark; these rules are those of "
                        "mlperf-logging 4.1.68, the only checker that knows dlrmv4"},
}

# What each run of such a benchmark is told (MLC011, an error): version -> {benchmark: the sentence}.
NOT_IN_RECORD = {
    "6.1.0": {"dlrmv4": "the 6.1 checker of record (logging master 7bbf792) does not know dlrmv4 (no "
                        "closed_dlrmv4.yaml; its common files do not list it) and fails its logs on "
                        "submission_benchmark, and the rules text does not describe it yet; mlcheck's other findings "
                        "on the log follow mlperf-logging 4.1.68, the only checker that has its rules. If the "
                        "round accepts dlrmv4 under that release, waive MLC011"},
}

# Where a record rule file was edited after the record revision, said in the source of the entries it
# concerns (the record is kept): version -> {(open benchmark, key, metadata): the sentence}.
_OPEN_LLM_SAMPLES_COUNT = (
    "; logging master asks samples_count instead from 2026-05-15 (commit 3d71f7e, after 6.0.0-rc6, during "
    "the 6.0 submission), as mlperf-logging 4.1.68 does: an open LLM log with samples_count but no "
    "epoch_num passes those")
LATER_EDITS = {
    "6.0.0": {(bm, "eval_accuracy", ("epoch_num",)): _OPEN_LLM_SAMPLES_COUNT for bm in (
        "llama31_8b", "llama2_70b_lora", "llama31_405b", "gpt_oss_20b", "deepseekv3_671b")},
}

TITLES = {
    "resnet": ("ResNet", "ResNet-50 v1.5"), "bert": ("BERT", "BERT-large"), "rnnt": ("RNN-T", "RNN-T"),
    "ssd": ("RetinaNet (ssd)", "RetinaNet (benchmark folder ssd)"), "maskrcnn": ("Mask R-CNN", "Mask R-CNN"),
    "unet3d": ("U-Net3D", "U-Net3D"), "dlrm_dcnv2": ("DLRM DCNv2", "DLRMv2 (DCNv2)"),
    "gpt3": ("GPT-3", "GPT-3 175B"), "stable_diffusion": ("Stable Diffusion", "Stable Diffusion v2"),
    "llama2_70b_lora": ("Llama 2 70B LoRA", "Llama 2 70B LoRA fine-tuning"),
    "gnn": ("R-GAT (gnn)", "R-GAT (benchmark folder gnn)"), "retinanet": ("RetinaNet", "RetinaNet"),
    "rgat": ("R-GAT", "R-GAT"), "llama31_405b": ("Llama 3.1 405B", "Llama 3.1 405B pretraining"),
    "llama31_8b": ("Llama 3.1 8B", "Llama 3.1 8B pretraining"), "flux1": ("FLUX.1", "FLUX.1 text to image"),
    "gpt_oss_20b": ("GPT-OSS 20B", "GPT-OSS 20B MoE pretraining"),
    "deepseekv3_671b": ("DeepSeek-V3 671B", "DeepSeek-V3 671B MoE pretraining"),
    "qwen35_397b_grpo": ("Qwen3.5 397B GRPO", "Qwen3.5 397B GRPO reinforcement learning"),
    "dlrmv4": ("DLRMv4", "DLRMv4 recommendation (the rules text does not describe it yet)"),
}


# The evaluation frequency of the rules text (MLC307, not checked by the checkers of record): the
# latest text (HEAD d73e20f, v6.0) §Quality measure for the benchmarks of 6.0, §Deprecated benchmarks
# quality measure for BERT, ResNet and RNN-T, whose rows are those of v2.1 word for word (so they
# hold up to the benchmark's last round). Not for the rounds 3.0-5.1 of the benchmarks introduced
# after 2.1 (their rules snapshots are not in the shared data), nor the rows 1.0-2.1 leave out.
_LATEST = "training_rules.adoc (HEAD d73e20f, v6.0)"
_UNCHECKED = "; not checked by the official checker"
CADENCE_ROUNDS = {
    "bert": ("3.0.0", "3.1.0", "4.0.0", "4.1.0", "5.0.0"), "resnet": ("3.0.0", "3.1.0", "4.0.0"),
    "rnnt": ("3.0.0", "3.1.0"),
    "llama31_8b": ("6.0.0", "6.1.0"), "gpt_oss_20b": ("6.0.0", "6.1.0"), "llama31_405b": ("6.0.0",),
    "llama2_70b_lora": ("6.0.0", "6.1.0"), "flux1": ("6.0.0", "6.1.0"), "deepseekv3_671b": ("6.0.0", "6.1.0"),
}


def _llm(interval, text, skip=None, **extra):
    cadence = {"unit": "samples", "formula": "ceil_to_batch", "interval": interval, "text": text,
               "source": f"{_LATEST} §Quality measure, evaluation frequency table{_UNCHECKED}"}
    if skip is not None:
        cadence["skip"] = {"scale": skip[0], "offset": skip[1]}
    cadence.update(extra)
    return cadence


CADENCE = {
    "bert": {"unit": "samples", "formula": "bert",
             "text": "every FLOOR(0.05*(230.23*GBS+3000000), 25000) samples, skipping 0",
             "source": f"{_LATEST} §Deprecated benchmarks quality measure (the BERT row, its schedule since v2.1, last round v5.0){_UNCHECKED}"},
    "resnet": {"unit": "epochs", "every": 4, "text": "every 4 epochs with offset 0, 1, 2 or 3",
               "source": f"{_LATEST} §Deprecated benchmarks quality measure (the Resnet-50 v1.5 row, its schedule since v2.1, last round v4.0){_UNCHECKED}"},
    "rnnt": {"unit": "epochs", "every": 1, "text": "every epoch",
             "source": f"{_LATEST} §Deprecated benchmarks quality measure (the RNN-T row, its schedule since v2.1, last round v3.1){_UNCHECKED}"},
    "llama31_8b": _llm(12288, "every 12,288 sequences (CEIL(12288 / GBS) x GBS if GBS does not divide it)"),
    "gpt_oss_20b": _llm(12288, "every 12,288 sequences (CEIL(12288 / GBS) x GBS if GBS does not divide it)"),
    "llama31_405b": _llm(18432, "every 18,432 sequences (CEIL(18432 / GBS) x GBS if GBS does not divide it), "
                                "skipping the first FLOOR(0.0026 x GBS + 12) evaluations", (0.0026, 12)),
    "llama2_70b_lora": _llm(384, "every 384 sequences (CEIL(384 / GBS) x GBS if GBS does not divide it), "
                                 "skipping the first FLOOR(0.125 x GBS + 2) evaluations", (0.125, 2)),
    "flux1": _llm(262144, "every 262,144 samples (CEIL(262144 / GBS) x GBS if GBS does not divide it)"),
    "deepseekv3_671b": _llm(1, "every step (global_batch_size samples)", spacing_only=True),
}


# Hyper-parameters the latest rules text (the v6.0 table, §Hyperparameters) fixes and the 6.0 and
# 6.1 checkers of record only require (or do not name): MLC204 warnings. Not for 3.0-5.1 (their
# rules snapshots are not in the shared data); a key that is not logged is not reported.
def _fixed(key, value, why):
    return {"key": key, "check": {"equals": value}, "severity": "warning",
            "section": f"{_LATEST} §Hyperparameters: {key} {value!r}{why}"}


_END_LR = {"formula": {"left": THIS, "cmp": "==", "tolerance": 1e-12,
                       "right": op("mul", {"state": "opt_base_learning_rate"}, 0.1)},
           "text": "opt_base_learning_rate x 0.1"}
_ONLY_REQUIRED = " (the checker only requires the key)"
_NOT_NAMED = " (the checker does not name the key)"
RULES_TEXT = {
    "llama31_8b": [(("6.0.0", "6.1.0"), {"key": "opt_end_learning_rate", "check": _END_LR, "severity": "warning",
                                         "section": f"{_LATEST} §Hyperparameters: opt_end_learning_rate = "
                                                    f"opt_base_learning_rate * 0.1{_ONLY_REQUIRED}"}),
                   (("6.0.0", "6.1.0"), _fixed("dropout", 0.0, _NOT_NAMED))],
    "gpt_oss_20b": [(("6.0.0",), {"key": "opt_end_learning_rate", "severity": "warning",
                                  "check": {"any_of": [_END_LR, {"equals": 4e-05}],
                                            "text": "opt_base_learning_rate x 0.1, or 4e-05 in v6.0"},
                                  "section": f"{_LATEST} §Hyperparameters and §Appendix: v6.0 Specific Rules (4e-5 "
                                             f"allowed for v6.0 only){_ONLY_REQUIRED}"}),
                    (("6.1.0",), {"key": "opt_end_learning_rate", "check": _END_LR, "severity": "warning",
                                  "section": f"{_LATEST} §Hyperparameters: opt_end_learning_rate = opt_base_learning_rate"
                                             f" * 0.1 (§Appendix: v6.0 Specific Rules allowed 4e-5 for v6.0 only)"
                                             f"{_ONLY_REQUIRED}"}),
                    (("6.0.0", "6.1.0"), _fixed("dropout", 0.0, _NOT_NAMED))],
    "llama31_405b": [(("6.0.0",), _fixed("opt_end_learning_rate", 8e-07, _ONLY_REQUIRED)),
                     (("6.0.0",), _fixed("dropout", 0.0, _NOT_NAMED)),
                     (("6.0.0",), {"key": "opt_learning_rate_warmup_steps", "severity": "warning", "check": {
                         "formula": {"left": THIS, "cmp": "==", "right": op("ceil", op("div", op("mul", 8000, 1152),
                                                                                        {"state": "global_batch_size"}))},
                         "text": "ceil(8000 x 1152 / global_batch_size)"},
                         "section": f"{_LATEST} §Hyperparameters: opt_learning_rate_warmup_steps = ceil(8000 * 1152 / "
                                    "global_batch_size) (the checker writes that value over the logged one: POST)"})],
    "llama2_70b_lora": [(("6.0.0", "6.1.0"), _fixed("opt_gradient_clip_norm", 0.3, _ONLY_REQUIRED)),
                        (("6.0.0", "6.1.0"), _fixed("opt_adamw_weight_decay", 0.0001, _ONLY_REQUIRED)),
                        (("6.0.0", "6.1.0"), _fixed("lora_alpha", 32, _ONLY_REQUIRED)),
                        (("6.0.0", "6.1.0"), _fixed("lora_dropout", 0.1, _NOT_NAMED))],
}


# FLUX.1's evaluation_frequency: the checkers of record of 6.0 and 6.1 ask 262144 whatever the batch;
# the rules text (and mlperf-logging 4.1.68's 6.1 file) CEIL(262144 / batch) x batch.
_FLUX_FREQUENCY = {"formula": {"left": THIS, "cmp": "==", "right": op(
    "mul", op("ceil", op("div", 262144, {"state": "global_batch_size"})), {"state": "global_batch_size"})},
    "text": "CEIL(262144 / global_batch_size) x global_batch_size"}
_FLUX_SECTION = (f"{_LATEST} §Quality measure and §Appendix: Benchmark Specific Rules: FLUX.1 evaluates every 262144 "
                 "training samples, CEIL(262144 / global_batch_size) * global_batch_size if 262144 is not divisible by GBS")
RULES_TEXT["flux1"] = [
    (("6.0.0",), {"key": "evaluation_frequency", "check": _FLUX_FREQUENCY, "severity": "warning",
                  "section": f"{_FLUX_SECTION} (the checker of record asks 262144 whatever the batch)"}),
    (("6.1.0",), {"key": "evaluation_frequency", "check": _FLUX_FREQUENCY, "severity": "warning",
                  "section": f"{_FLUX_SECTION} (the checker of record (7bbf792) asks 262144 whatever the batch; "
                             "mlperf-logging 4.1.68's training_6.1.0/closed_flux1.yaml asks this value, and fails "
                             "262144)"}),
]
# A closed key whose check the rules text (or a later release) makes otherwise, said in its source:
# version -> {(benchmark, key): the words added}.
CLOSED_NOTES = {
    "6.0.0": {("flux1", "evaluation_frequency"): "; the rules text asks CEIL(262144 / global_batch_size) x "
              "global_batch_size where the batch does not divide 262144 (MLC204)"},
    "6.1.0": {("flux1", "evaluation_frequency"): "; the rules text and mlperf-logging 4.1.68 ask CEIL(262144 / "
              "global_batch_size) x global_batch_size where the batch does not divide 262144 (MLC204)"},
}


def cond(op_, value, field=None, bound=False):
    c = {"op": op_, "value": value}
    if field:
        c["field"] = field
    if bound:
        c["bound"] = True
    return c


# ATLEAST_ONE_CHECK strings -> (text, conditions)
TARGETS = {
    "(v['value'] >= 0.720) and v['value'] < 1.0": ("masked-LM accuracy >= 0.720", [cond(">=", 0.72), cond("<", 1.0, bound=True)]),
    "v['value'] >= 0.8025 and v['value'] < 1.0": ("AUC >= 0.8025", [cond(">=", 0.8025), cond("<", 1.0, bound=True)]),
    "v['value'] >= 0.80275 and v['value'] <= 1.0": ("AUC >= 0.80275", [cond(">=", 0.80275), cond("<=", 1.0, bound=True)]),
    "(v['value'] <= 2.69) and v['value'] > 2.6": ("log perplexity <= 2.69", [cond("<=", 2.69), cond(">", 2.6, bound=True)]),
    "v['value']['BBOX'] >= 0.377 and v['value']['BBOX'] < 1.0 and v['value']['SEGM'] >= 0.339 and v['value']['SEGM'] < 1.0":
        ("box AP >= 0.377 and mask AP >= 0.339", [cond(">=", 0.377, "BBOX"), cond("<", 1.0, "BBOX", True),
                                                   cond(">=", 0.339, "SEGM"), cond("<", 1.0, "SEGM", True)]),
    "v['value'] >= 0.5 and v['value'] < 1.0": ("win rate >= 0.5", [cond(">=", 0.5), cond("<", 1.0, bound=True)]),
    "v['value'] >= 0.7590 and v['value'] < 1.0": ("top-1 accuracy >= 0.759", [cond(">=", 0.759), cond("<", 1.0, bound=True)]),
    "v['value'] <= 0.058 and v['value'] > 0.0": ("word error rate <= 0.058", [cond("<=", 0.058), cond(">", 0.0, bound=True)]),
    "v['value'] >= 0.340 and v['value'] < 1.0": ("mAP >= 0.340", [cond(">=", 0.34), cond("<", 1.0, bound=True)]),
    "v['value'] >= 0.908": ("mean DICE >= 0.908", [cond(">=", 0.908)]),
    "(0.0 <= v['value']['FID'] <= 90.0) and (0.15 <= v['value']['CLIP'] <= 1.0)":
        ("FID <= 90 and CLIP >= 0.15", [cond("<=", 90.0, "FID"), cond(">=", 0.0, "FID", True),
                                         cond(">=", 0.15, "CLIP"), cond("<=", 1.0, "CLIP", True)]),
    "v['value']['FID'] >= 0.0 and v['value']['CLIP'] <= 1.0":
        ("FID >= 0 and CLIP <= 1.0", [cond(">=", 0.0, "FID"), cond("<=", 1.0, "CLIP")]),
    "v['value'] >= 0.72 and v['value'] < 1.0": ("accuracy >= 0.72", [cond(">=", 0.72), cond("<", 1.0, bound=True)]),
    "(v['value'] <= 0.925) and v['value'] > 0.0": ("eval loss <= 0.925", [cond("<=", 0.925), cond(">", 0.0, bound=True)]),
    "(v['value'] <= 5.6) and v['value'] > 0.0": ("log perplexity <= 5.6", [cond("<=", 5.6), cond(">", 0.0, bound=True)]),
    "v['value'] <= 0.586 and v['value'] > 0.0": ("eval loss <= 0.586", [cond("<=", 0.586), cond(">", 0.0, bound=True)]),
    "(v['value'] <= 3.3) and v['value'] > 0.0": ("log perplexity <= 3.3", [cond("<=", 3.3), cond(">", 0.0, bound=True)]),
    "(v['value'] <= 3.6) and v['value'] > 0.0": ("log perplexity <= 3.6", [cond("<=", 3.6), cond(">", 0.0, bound=True)]),
    "(v['value'] <= 3.34) and v['value'] > 0.0": ("log perplexity <= 3.34", [cond("<=", 3.34), cond(">", 0.0, bound=True)]),
    "v['value'] > s['target_accuracy']": ("validation accuracy > 0.69", [cond(">", 0.69)]),
    "v['value'] > 0.69": ("validation accuracy > 0.69", [cond(">", 0.69)]),
    "v['value'] <= 1.0": ("AUC <= 1.0", [cond("<=", 1.0)]),
    "v['value'] >= 0.75": ("eval_accuracy >= 0.75", [cond(">=", 0.75)]),  # dlrmv4: s['target_accuracy']
    # open files: "below one" is mlcheck's default open check (no open_target); Mask R-CNN's compares
    # BBOX, then SEGM (a null or missing SEGM raises only where BBOX is below 1.0: its own order)
    "v['value'] < 1.0": None,
    "v['value']['BBOX'] < 1.0 and v['value']['SEGM'] < 1.0": (
        "box AP < 1.0 and mask AP < 1.0", [cond("<", 1.0, field="BBOX"), cond("<", 1.0, field="SEGM")]),
}

GT0 = {"range": {"min": 0, "min_exclusive": True}}

# dlrmv4 (6.1, 4.1.68): the learning rate within [lr_min, lr_max], each with a 1e-9 relative margin
LR_BAND = {"check": {"all_of": [
    {"formula": {"left": THIS, "cmp": ">=", "right": op("mul", {"state": "lr_min"}, op("sub", 1, 1e-09))}},
    {"formula": {"left": THIS, "cmp": "<=", "right": op("mul", {"state": "lr_max"}, op("add", 1, 1e-09))}}],
    "text": "between 0.5e-6 and 1.5e-6 x global_batch_size / 8192 (a 1e-9 relative margin)"}}

# CHECK strings -> a partial entry ({"check": {...}} parts merge; metadata lists extend)
TABLE = {
    "'epoch_num' in v['metadata']": {"metadata": ["epoch_num"]},
    "'samples_count' in v['metadata']": {"metadata": ["samples_count"]},
    "'epoch_count' in v['metadata']": {"metadata": ["epoch_count"]},
    "'first_epoch_num' in v['metadata']": {"metadata": ["first_epoch_num"]},
    "v['metadata']['epoch_count'] > 0": {"metadata_check": {"epoch_count": GT0}},
    "('epoch_count' in v['metadata']) | ('step_num' in v['metadata'])": {"metadata_one_of": ["epoch_count", "step_num"]},
    "('epoch_count' in v['metadata']) | ('samples_count' in v['metadata'])": {"metadata_one_of": ["epoch_count", "samples_count"]},
    "'first_epoch_num' in v['metadata'] if 'epoch_count' in v['metadata'] else True": {"metadata_requires": {"epoch_count": ["first_epoch_num"]}},
    "v['metadata']['epoch_count'] > 0 if 'epoch_count' in v['metadata'] else True": {"metadata_check": {"epoch_count": GT0}},
    "v['metadata']['step_num'] >= 0 if 'step_num' in v['metadata'] else True": {"metadata_check": {"step_num": {"range": {"min": 0}}}},
    "v['metadata']['samples_count'] >= 0 if 'samples_count' in v['metadata'] else True": {"metadata_check": {"samples_count": {"range": {"min": 0}}}},
    "('first_epoch_num' in v['metadata']) | ('step_num' in v['metadata'])": {"metadata_one_of": ["first_epoch_num", "step_num"]},
    "('first_epoch_num' in v['metadata']) | ('samples_count' in v['metadata'])": {"metadata_one_of": ["first_epoch_num", "samples_count"]},
    "('epoch_num' in v['metadata']) | ('step_num' in v['metadata'])": {"metadata_one_of": ["epoch_num", "step_num"]},
    "('epoch_num' in v['metadata']) | ('samples_count' in v['metadata'])": {"metadata_one_of": ["epoch_num", "samples_count"]},
    "s['run_started']": {"after": "run_start"},  # block_start (run_stop's is MLC404)
    # covered by other rules: MLC404 clock order, MLC101-MLC104, MLC401 (init time), always true
    "'value' in v": {}, "not s['init_stopped']": {}, "not s['run_started']": {}, "s['init_started']": {},
    "ll.timestamp - s['first_init_start'] < (s['compile_time_mins']*60*1e3)": {},
    "( s['init_stopped'] == True )": {}, "'status' in v['metadata']": {},
    # Mask R-CNN: a value without BBOX/SEGM cannot be compared with the target (MLC304)
    "'BBOX' in v['value']": {}, "'SEGM' in v['value']": {},
    "v['value'] != ''": {"check": {"not_equal": ""}},
    "v['value'] > 0": {"check": GT0},
    "v['value'] > 0.0": {"check": GT0},
    "v['value'] >= 0": {"check": {"range": {"min": 0}}},
    "v['value'] >= 0.0": {"check": {"range": {"min": 0}}},
    "v['value'] >= 8192": {"check": {"range": {"min": 8192}}},
    "v['value'] >= 15360": {"check": {"range": {"min": 15360}}},
    "0.0 <= v['value'] <= 1.0": {"check": {"range": {"min": 0.0, "max": 1.0}}},
    "is_integer(v['value'] / 0.02) or ( s['global_batch_size'] < 16 and is_integer(0.02 / v['value']) )":
        {"check": {"any_of": [{"multiple_of": 0.02}, {"divides": 0.02, "only_when": {"key": "global_batch_size", "check": {"range": {"max": 16, "max_exclusive": True}}}}],
                   "text": "a multiple of 0.02 (or 0.02/k, k integer, when global_batch_size < 16)"}},
    "is_integer(v['value'] / 1000.0)": {"check": {"multiple_of": 1000}},
    "len(v['value']) == 2": {"check": {"length": 2}},
    "is_integer(math.log2(v['value'] / 0.0001))": {"check": {"power_of_two_times": 0.0001}},
    "is_integer(v['value'] / 0.001)": {"check": {"multiple_of": 0.001}},
    "v['value'] in [1, float('inf')]": {"check": {"one_of": [1, {"float": "inf"}], "text": "1 or inf"}},
    "isinstance(v['value'], int)": {"check": {"integer": True}},
    "v['value'] == 2e-5 or v['value'] == 3e-5": {"check": {"one_of": [2e-05, 3e-05]}},
    "is_integer(v['value'])": {"check": {"whole_number": True}},
    "is_integer(v['value']) and v['value'] > 0": {"check": {"whole_number": True, **GT0}},
    "is_integer(v['value']) and v['value'] >= 1": {"check": {"whole_number": True, "range": {"min": 1}}},  # 4.1.68 6.1
    "v['value'] in ['closed', 'open']": {"check": {"one_of": ["closed", "open"]}},
    "v['value'] in ['cloud', 'onprem', 'preview', 'research']": {"check": {"one_of": ["cloud", "onprem", "preview", "research"]}},
    "'FID' in v['value']": {"check": {"has_fields": ["FID"]}},
    "'CLIP' in v['value']": {"check": {"has_fields": ["CLIP"]}},
    "'step_num' in v['value']": {"check": {"has_fields": ["step_num"]}},
    "'samples_count' in v['value']": {"check": {"has_fields": ["samples_count"]}},
    # derived values
    "v['value'] * 1152 == s['global_batch_size'] * 8e-5":
        {"check": {"formula": {"left": op("mul", THIS, 1152), "cmp": "==", "right": op("mul", GBS, 8e-05)}}},
    "v['value'] == math.ceil(1_200_000 * 1152 / s['global_batch_size'] ) - s['opt_learning_rate_warmup_steps']":
        {"check": {"formula": {"left": THIS, "cmp": "==",
                               "right": op("sub", op("ceil", op("div", op("mul", 1200000, 1152), GBS)), WARM)}}},
    "v['value'] == 1_200_000 - s['opt_learning_rate_warmup_steps']":
        {"check": {"formula": {"left": THIS, "cmp": "==", "right": op("sub", 1200000, WARM)}}},
    "v['value'] == 12000 - s['opt_learning_rate_warmup_steps']":
        {"check": {"formula": {"left": THIS, "cmp": "==", "right": op("sub", 12000, WARM)}}},
    "abs(v['value'] - 2.4e-05 * (s['global_batch_size'] / 16384) ** 0.5) < 1e-9":
        {"check": {"formula": {"left": THIS, "cmp": "==", "tolerance": 1e-09,
                               "right": op("mul", 2.4e-05, op("pow", op("div", GBS, 16384), 0.5))}}},
    "abs(v['value'] - s['learning_rate']) < 1e-9":
        {"check": {"formula": {"left": THIS, "cmp": "==", "tolerance": 1e-09, "right": {"state": "learning_rate"}}}},
    "abs(v['value'] - 0.125 * (256 / s['global_batch_size']) ** 0.5) < 1e-9":
        {"check": {"formula": {"left": THIS, "cmp": "==", "tolerance": 1e-09,
                               "right": op("mul", 0.125, op("pow", op("div", 256, GBS), 0.5))}}},
    "s['global_batch_size'] == s['num_prompts_per_step'] * v['value']":
        {"check": {"formula": {"left": GBS, "cmp": "==", "right": op("mul", {"state": "num_prompts_per_step"}, THIS)}}},
    "v['value'] == s['opt_base_learning_rate']":
        {"check": {"formula": {"left": THIS, "cmp": "==", "right": {"state": "opt_base_learning_rate"}}}},
    "s['lr_min'] is not None and s['lr_min'] * (1 - 1e-9) <= v['value'] <= s['lr_max'] * (1 + 1e-9)": LR_BAND,
    "s.get('lr_min') is not None and s['lr_min'] * (1 - 1e-9) <= v['value'] <= s['lr_max'] * (1 + 1e-9)": LR_BAND,
    "v['metadata']['samples_count'] % s['eval_interval_samples'] == 0":
        {"check": {"all_of": [{"formula": {"left": op("mod", {"this": "metadata.samples_count"}, EIS), "cmp": "==",
                                           "right": 0},
                               "text": "samples_count a multiple of eval_interval_samples (max(1, ceil(0.001 x "
                                       "2,290,835,423 / global_batch_size)) x global_batch_size)"}]}},
    "v['metadata']['samples_count'] == s['next_validation_samples']":
        {"cadence": {"field": "metadata.samples_count", "start": {"state": "validation_start_samples"}, "step": GBS,
                     "text": "first at global_batch_size x ceil(2.5 + 3840 / global_batch_size) samples, then every "
                             "global_batch_size samples"}},
}
FIRST_CHECKS = {
    "int(v['metadata']['samples_count']) == s['first_eval_samples']":
        {"formula": {"left": op("int", {"this": "metadata.samples_count"}), "cmp": "==",
                     "right": {"state": "first_eval_samples"}},
         "text": "the first grid point at or after floor((4480 x global_batch_size + 135,331,840) / 3) samples "
                 "(the first evaluation)"},
    "int(v['metadata']['samples_count']) == s['global_batch_size'] * math.floor(42 + 24576 / s['global_batch_size'])":
        {"formula": {"left": op("int", {"this": "metadata.samples_count"}), "cmp": "==",
                     "right": op("mul", GBS, op("floor", op("add", 42, op("div", 24576, GBS))))},
         "text": "global_batch_size x floor(42 + 24576 / global_batch_size) samples (the first evaluation)"},
}
# POST strings -> state definitions (only those some formula reads are kept)
POSTS = {
    "s['global_batch_size'] = v['value']": [("global_batch_size", THIS)],
    "s['opt_learning_rate_warmup_steps'] = math.ceil(8000 * 1152 / s['global_batch_size'] )":
        [("opt_learning_rate_warmup_steps", op("ceil", op("div", op("mul", 8000, 1152), GBS)))],
    "s['opt_learning_rate_warmup_steps'] = v['value']": [("opt_learning_rate_warmup_steps", THIS)],
    "s['num_prompts_per_step'] = v['value']": [("num_prompts_per_step", THIS)],
    "s['global_batch_size'] = v['value'] s['learning_rate'] = 1.0e-6 * (s['global_batch_size'] / 256) ** 0.5 "
    "s['validation_start_samples'] = v['value'] * math.ceil(2.5 + 3840 / v['value']) "
    "s['next_validation_samples'] = s['validation_start_samples']":
        [("global_batch_size", THIS), ("learning_rate", op("mul", 1e-06, op("pow", op("div", GBS, 256), 0.5))),
         ("validation_start_samples", op("mul", THIS, op("ceil", op("add", 2.5, op("div", 3840, THIS)))))],
    "s['accuracy_printed'] = True": [],
    "s['opt_base_learning_rate'] = v['value']": [("opt_base_learning_rate", THIS)],
    "s['global_batch_size'] = v['value'] s['eval_interval_samples'] = max( 1, int(math.ceil(0.001 * 2290835423 / "
    "v['value'])) ) * v['value'] s['first_eval_samples'] = int(math.ceil( math.floor((4480 * v['value'] + 135331840) "
    "/ 3) / s['eval_interval_samples'] )) * s['eval_interval_samples'] s['lr_min'] = 0.5e-6 * v['value'] / 8192 "
    "s['lr_max'] = 1.5e-6 * v['value'] / 8192":
        [("global_batch_size", THIS),
         ("eval_interval_samples", op("mul", op("max", 1, op("int", op("ceil", op("div", op("mul", 0.001, 2290835423),
                                                                                  THIS)))), THIS)),
         ("first_eval_samples", op("mul", op("int", op("ceil", op("div", op("floor", op("div", op(
             "add", op("mul", 4480, THIS), 135331840), 3)), EIS))), EIS)),
         ("lr_min", op("div", op("mul", 5e-07, THIS), 8192)), ("lr_max", op("div", op("mul", 1.5e-06, THIS), 8192))],
    "s['lr_min'] = 0.5e-6 * v['value'] / 8192 s['lr_max'] = 1.5e-6 * v['value'] / 8192":
        [("lr_min", op("div", op("mul", 5e-07, THIS), 8192)), ("lr_max", op("div", op("mul", 1.5e-06, THIS), 8192))],
    "if v['metadata']['samples_count'] == s['next_validation_samples']: s['next_validation_samples'] += s['global_batch_size']": [],
}
IGNORED_POSTS = ("enqueue_config", "s['init_started'] = True", "s['init_stopped'] = True", "s['run_started'] = True",
                 "s['run_stopped'] = True")

LITERAL = re.compile(r"^v\['value'\] == (.+)$")
IN_LIST = re.compile(r"^v\['value'\] in (\[.*\])$")


def norm(text, consts=None):
    """A rule string with its comment lines dropped and its whitespace collapsed (YAML folds and
    indents them); ``consts`` (the BEGIN block's constant states) are written as their literals."""
    text = " ".join(line for line in str(text).splitlines() if not line.strip().startswith("#"))
    for name, value in (consts or {}).items():
        text = text.replace(f"s['{name}']", repr(value))
    return " ".join(text.split())


BEGIN_CONSTANT = re.compile(r"'(\w+)'\s*:\s*([-+0-9.eE_]+)\s*,")


def begin_constants(path):
    """The states a rule file's BEGIN block sets to a number that no POST changes (6.1 dlrmv4:
    ``'train_samples': 2290835423``, ``'target_accuracy': 0.75``): read as literals, never run."""
    data = yaml.load(path.read_text(), Loader=yaml.BaseLoader) or []
    code = " ".join(item["BEGIN"].get("CODE", "") for item in data if "BEGIN" in item)
    posts = " ".join(str(item["KEY"].get("POST", "")) for item in data if "KEY" in item)
    return {name: ast.literal_eval(literal.replace("_", "")) for name, literal in BEGIN_CONSTANT.findall(code)
            if f"s['{name}'] =" not in posts and f"s['{name}'] +=" not in posts}


def installed_compliance(version):
    """The installed mlperf-logging's rule files of a round; stops unless it is INSTALLED_RELEASE."""
    spec = importlib.util.find_spec("mlperf_logging")
    if spec is None or spec.origin is None:
        raise SystemExit("mlperf-logging is not installed: the INSTALLED benchmarks cannot be transcribed")
    found = importlib.metadata.version("mlperf-logging")
    if found != INSTALLED_RELEASE:
        raise SystemExit(f"mlperf-logging {found} is installed; the INSTALLED benchmarks are those of {INSTALLED_RELEASE}")
    return Path(spec.origin).parent / "compliance_checker" / f"training_{version}"


def translate_check(text, consts=None):
    """The partial entry of one CHECK string (a check part, metadata, order), or a stop."""
    text = norm(text, consts)
    if text in TABLE:
        return TABLE[text]
    match = IN_LIST.match(text)
    if match:
        return {"check": {"one_of": ast.literal_eval(match.group(1))}}
    match = LITERAL.match(text)
    if match:
        literal = match.group(1).replace("_", "")
        return {"check": {"equals": ast.literal_eval(literal)}}
    raise SystemExit(f"untranslated CHECK: {text!r}")


def merge_part(entry, part):
    """Add the translation of one CHECK string to an entry (all the strings of a list must hold)."""
    for k, v in part.items():
        if k == "check":
            check = entry.setdefault("check", {})
            for kk, vv in v.items():
                if kk == "has_fields" and "has_fields" in check:
                    check["has_fields"] = check["has_fields"] + vv
                elif kk in check and check[kk] != vv:
                    raise SystemExit(f"conflicting check parts {kk}: {check[kk]} vs {vv}")
                else:
                    check[kk] = vv
        elif k in ("metadata", "metadata_one_of"):
            entry.setdefault(k, [])
            entry[k] += [m for m in v if m not in entry[k]]
        elif k in ("metadata_check", "metadata_requires"):
            entry.setdefault(k, {}).update(v)
        else:
            entry[k] = v


def read_keys(path):
    """KEY name -> record of one rule file, as the checker reads it."""
    data = yaml.load(path.read_text(), Loader=yaml.BaseLoader) or []
    keys = {}
    for item in data:
        if "KEY" in item:
            keys[item["KEY"]["NAME"]] = item["KEY"]  # a repeated KEY: the later record wins
    return keys


def entry_of(name, record, source, states, needs_after, consts=None):
    """The entry of one KEY record; its POST's states go to ``states``, and the states a POST
    reads to ``needs_after`` (the key must be logged after the records that set them)."""
    entry = {"key": name}
    req = record.get("REQ")
    if req:
        if req.startswith("AT_LEAST_ONE_OR("):
            entry["req"] = "AT_LEAST_ONE_OR"
            entry["or"] = [s.strip() for s in req[len("AT_LEAST_ONE_OR("):-1].split(",")]
        elif req.startswith("AT_LEAST("):
            entry["req"] = "AT_LEAST"
            entry["min_count"] = int(req[len("AT_LEAST("):-1])
        else:
            entry["req"] = req
    checks = record.get("CHECK", [])
    for text in checks if isinstance(checks, list) else [checks]:
        merge_part(entry, translate_check(text, consts))
    if "FIRST_CHECK" in record:
        entry["first_check"] = FIRST_CHECKS[norm(record["FIRST_CHECK"], consts)]
    if "POST" in record:
        post = norm(record["POST"], consts)
        if not post.startswith(IGNORED_POSTS):
            if post not in POSTS:
                raise SystemExit(f"untranslated POST: {post!r}")
            for state, value in POSTS[post]:
                states.append({"name": state, "set_by": name, "value": value, "source": source})
            reads = [s for s in re.findall(r"s\['(\w+)'\]", post.split("=", 1)[1]) if s not in
                     [n for n, _ in POSTS[post]]]
            if reads:
                needs_after[name] = reads
    if "PRE" in record:
        raise SystemExit(f"PRE in {source}")
    entry["source"] = source
    if name == "aggregated_eval_accuracy":
        fields = entry["check"]["has_fields"]
        entry["check"]["text"] = (f"{', '.join(fields[:-1])} and {fields[-1]}: the FID and CLIP eval_accuracy "
                                  f"records of one {fields[-1]}, merged as the checker does")
    if entry.get("check") == {"not_equal": ""}:
        entry["check"]["text"] = "a non-empty name" if name in ("submission_org", "submission_platform") else "a non-empty value"
    return entry


def order_keys(entry):
    order = ["key", "req", "or", "min_count", "check", "first_check", "metadata", "metadata_one_of",
             "metadata_requires", "metadata_check", "after", "cadence", "source"]
    return {k: entry[k] for k in order if k in entry}


def used_states(entries):
    text = json.dumps(entries)
    return set(re.findall(r'"state": "(\w+)"', text))


def build_group(version, path, states_out, release=None):
    """One benchmark file: its hyper-parameter entries, its entries for common keys (evaluation
    records), its ATLEAST_ONE_CHECK strings by key, and the keys whose POST reads a state.
    ``release``: the file is the installed mlperf-logging's of that release, not the record's."""
    tag = f"training_{version}/{path.name}" + (f" (mlperf-logging {release})" if release else "")
    keys, overrides, targets = [], [], {}
    states, needs_after = [], {}
    records = read_keys(path)
    consts = begin_constants(path)
    for name, record in records.items():
        entry = entry_of(name, record, tag, states, needs_after, consts)
        if "ATLEAST_ONE_CHECK" in record:
            targets[name] = norm(record["ATLEAST_ONE_CHECK"], consts)
        if name in ("eval_accuracy", "aggregated_eval_accuracy", "averaged_validation_loss"):
            overrides.append(entry)
        else:
            keys.append(entry)
    states_out.extend(states)
    return keys, overrides, targets, needs_after


def finish_states(states, entries):
    """The states some formula reads (directly or through another state), once each."""
    used = used_states(entries)
    # states read by other states' values
    changed = True
    while changed:
        changed = False
        for s in states:
            if s["name"] in used:
                for r in used_states([s["value"]]):
                    if r not in used:
                        used.add(r)
                        changed = True
    kept, seen = [], set()
    for s in states:
        if s["name"] in used and (s["name"], s["set_by"]) not in seen:
            kept.append(s)
            seen.add((s["name"], s["set_by"]))
    return kept


def target_of(text, where):
    if text not in TARGETS:
        raise SystemExit(f"untranslated target {text!r} ({where})")
    return TARGETS[text]


RELEASE_ROUNDS = {"6.0.0": {},  # (4.1.68's open LLM files ask samples_count on eval_accuracy: commit 3d71f7e)
                  "6.1.0": {("flux1", "evaluation_frequency"): "the rules text's value: MLC204 says it",
                            ("flux1", "global_batch_size"): "its POST keeps that value for evaluation_frequency"}}
"""The rounds being prepared whose rule files in INSTALLED_RELEASE are newer than their checker of
record's: each KEY record of the release's common.yaml, closed_<benchmark>.yaml and
open_<benchmark>.yaml that differs from the record's is transcribed into ``release`` (MLC113 warns
where it refuses what the record passes), but those named here, with why (a check that reads a
state the record does not keep)."""


def release_part(version: str, base: Path, benchmarks: list[str]) -> dict[str, Any] | None:
    """The ``release`` entries of a round of RELEASE_ROUNDS (None for the others)."""
    if version not in RELEASE_ROUNDS:
        return None
    installed = installed_compliance(version)
    source = f"training_{version}/%s of mlperf-logging {INSTALLED_RELEASE}"

    def differing(name: str, skip: str) -> list[dict[str, Any]]:
        record = read_keys(base / name) if (base / name).is_file() else {}
        return [order_keys(entry_of(key, item, source % name, [], {})) for key, item in read_keys(installed / name).items()
                if record.get(key) != item and key not in ("run_start", "run_stop")
                and (skip, key) not in RELEASE_ROUNDS[version]]

    closed = {bm: differing(f"closed_{bm}.yaml", bm) for bm in benchmarks}
    opened = {bm: differing(f"open_{bm}.yaml", bm) for bm in benchmarks if (installed / f"open_{bm}.yaml").is_file()}
    part = {"version": INSTALLED_RELEASE,
            "note": (f"the training_{version} rule files of mlperf-logging {INSTALLED_RELEASE}, the latest release, "
                     "where they differ from the checker of record's (tools/transcribe_record_rules.py): what they "
                     "refuse that the record passes is MLC113, a warning"),
            "common": differing("common.yaml", ""), "benchmarks": {bm: e for bm, e in closed.items() if e}}
    if any(opened.values()):
        part["open_benchmarks"] = {bm: e for bm, e in opened.items() if e}
    return part


def transcribe(reference: Path) -> dict[str, dict[str, Any]]:
    """``{version: {"constraints.json": data, "ruleset.json": data}}`` of every round of ROUNDS."""
    files: dict[str, dict[str, Any]] = {}
    for version, info in ROUNDS.items():
        base = reference / info["dir"] / "compliance"
        rev = info["rev"]
        common = [order_keys(entry_of(n, r, f"training_{version}/common.yaml", [], {}))
                  for n, r in read_keys(base / "common.yaml").items() if n not in ("run_start", "run_stop")]
        cc = read_keys(base / "closed_common.yaml")
        oc = read_keys(base / "open_common.yaml")
        closed_common = [order_keys(entry_of(n, r, f"training_{version}/closed_common.yaml", [], {})) for n, r in cc.items()]
        open_common = [order_keys(entry_of(n, r, f"training_{version}/open_common.yaml", [], {})) for n, r in oc.items()]
        extra = INSTALLED.get(version, {})
        for group in (closed_common, open_common):  # the INSTALLED benchmarks are listed by the release
            assert group[0]["key"] == "submission_benchmark"
            group[0]["check"]["one_of"] = group[0]["check"]["one_of"] + list(extra)
            if extra:
                group[0]["source"] += (f" (+ {', '.join(extra)} from mlperf-logging {INSTALLED_RELEASE}, not in the "
                                       "record revision)")
        open_listed = open_common[0]["check"]["one_of"]
        benchmarks, facts = {}, {}
        for bm in META[version]:
            title, model = TITLES[bm]
            release = INSTALLED_RELEASE if bm in extra else None
            bdir = installed_compliance(version) if release else base
            cpath = bdir / f"closed_{bm}.yaml"
            states = []
            keys, overrides, targets, needs_after = build_group(version, cpath, states, release)
            bench = {"title": title, "source": f"training_{version}/closed_{bm}.yaml"}
            if release:
                bench["source"] += f" of mlperf-logging {release}: {extra[bm]}"
            # optimizer
            opt = next((e for e in keys if e["key"] == "opt_name" and "check" in e), None)
            if opt is not None:
                allowed = opt["check"].get("one_of") or [opt["check"]["equals"]]
                keys.remove(opt)
                bench_opt = {"key": "opt_name", "allowed": sorted(allowed) if len(allowed) > 1 else allowed,
                             "source": f"training_{version}/closed_{bm}.yaml opt_name"}
                if bm == "resnet":
                    bench_opt["source"] += "; per optimizer closed_resnet_{lars,sgd}.yaml"
                    per = {}
                    for o in ("lars", "sgd"):
                        k2, _, _, _ = build_group(version, base / f"closed_resnet_{o}.yaml", states)
                        per[o] = [order_keys(e) for e in k2]
                    bench_opt["per_optimizer"] = per
                bench["optimizer"] = bench_opt
            # a POST that reads a state: the key must come after the record that sets it
            for e in keys:
                if e["key"] in needs_after:
                    setters = sorted({s["set_by"] for s in states if s["name"] in needs_after[e["key"]]} - {e["key"]})
                    if setters:
                        e["after"] = setters[0] if len(setters) == 1 else setters
            for e in keys:
                e["source"] += CLOSED_NOTES.get(version, {}).get((bm, e["key"]), "")
            bench["keys"] = [order_keys(e) for e in keys]
            texts = [entry for rounds, entry in RULES_TEXT.get(bm, ()) if version in rounds]
            if texts:
                bench["rules_text"] = texts
            if overrides:
                bench["overrides"] = [order_keys(e) for e in overrides]
            st = finish_states(states, bench["keys"] + bench.get("overrides", []))
            # open
            opath = bdir / f"open_{bm}.yaml"
            open_part = {"source": f"training_{version}/open_{bm}.yaml" + (f" of mlperf-logging {release}" if release else "")}
            open_target = None
            if bm not in open_listed:
                open_part["unavailable"] = (f"open_common.yaml of the {version} checker does not list {bm}: it fails "
                                            "every open-division log of it (submission_benchmark)")
            elif not opath.is_file():
                open_part["unavailable"] = (f"the {version} checker has no open_{bm}.yaml: it stops with 'Could not "
                                            "find config file' on every open-division log of it")
            else:
                ostates = []
                okeys, ooverrides, otargets, _ = build_group(version, opath, ostates, release)
                if okeys:
                    open_part["keys"] = [order_keys(e) for e in okeys]
                for entry in ooverrides:
                    edit = LATER_EDITS.get(version, {}).get((bm, entry["key"], tuple(entry.get("metadata", ()))))
                    if edit is not None:
                        entry["source"] += edit
                if ooverrides:
                    open_part["overrides"] = [order_keys(e) for e in ooverrides]
                for k, t in otargets.items():
                    tt = target_of(t, f"{version} open {bm}")
                    if tt is not None:
                        open_target = (k, tt)
                open_states = finish_states(ostates, okeys + ooverrides)
                if open_states:
                    open_part["states"] = open_states
            bench["open"] = open_part
            if st:
                bench["states"] = st
            benchmarks[bm] = bench
            # facts (ruleset.json)
            [(tkey, ttext)] = list(targets.items())
            text, conditions = target_of(ttext, f"{version} {bm}")
            target = {"metric": "eval_accuracy", "text": text, "conditions": conditions}
            agg_by = None
            if tkey == "aggregated_eval_accuracy":
                agg_by = "step_num" if version == "3.1.0" else "samples_count"
                target["aggregate"] = {"by": agg_by, "name_from": "metric", "into": "aggregated_eval_accuracy",
                                       "source": f"training_{version}/closed_{bm}.yaml BEGIN: eval_accuracy records "
                                                 f"with metadata.metric merged per {agg_by}"}
            fact = {"model": model, "target": target}
            if bm in NOT_IN_RECORD.get(version, {}):
                fact["not_in_record"] = NOT_IN_RECORD[version][bm]
            md = next((o.get("metadata", []) + o.get("metadata_one_of", []) for o in overrides
                       if o["key"] == "eval_accuracy"), [])
            if agg_by:
                fact["eval_position"] = agg_by
            elif "samples_count" in md:
                fact["eval_position"] = "samples_count"
            else:
                fact["eval_position"] = "epoch_num"
            if open_target is not None:
                okey, (otext, oconds) = open_target
                ot = {"metric": "eval_accuracy" if okey == "aggregated_eval_accuracy" else okey, "text": otext,
                      "conditions": oconds}
                if okey == "aggregated_eval_accuracy":
                    ot["aggregate"] = dict(target["aggregate"], source=target["aggregate"]["source"].replace("closed_", "open_"))
                fact["open_target"] = ot
            if version in CADENCE_ROUNDS.get(bm, ()):
                fact["eval_cadence"] = CADENCE[bm]
            if bm == "stable_diffusion":
                fact["checkpoint_eval"] = {"source": "training_rules.adoc (HEAD d73e20f) §Appendix: Benchmark Specific "
                                                     "Rules, Stable Diffusion: checkpoints collected every 512,000 "
                                                     "images may be evaluated after the clock stops (§Quality measure)"}
            if bm == "unet3d":
                fact["scoring"] = {"drop_fastest": 4, "drop_slowest": 4, "max_non_converged": 4}
            fact["source"] = (f"mlperf-logging compliance_checker/training_{version}/closed_{bm}.yaml at {rev.split(' (')[0]} "
                              f"(ATLEAST_ONE_CHECK); run count from benchmark_meta.py")
            if release:
                fact["source"] = (f"mlperf-logging {release} compliance_checker/training_{version}/closed_{bm}.yaml "
                                  f"(ATLEAST_ONE_CHECK), run count from its benchmark_meta.py: {extra[bm]}")
            facts[bm] = fact
        constraints = {
            "ruleset": version,
            "sources": {"checker_of_record": f"mlcommons/logging {rev}: mlperf_logging/compliance_checker/training_{version}/",
                        "transcription": "every KEY record of the record files, its REQ, CHECK, FIRST_CHECK and POST, "
                                         "written as data by tools/transcribe_record_rules.py (tests/test_later_rounds.py "
                                         "checks this file against ../shared/reference/record-rules when present)"},
            "division_sets_init_limit": True,
            "common": common, "closed_common": closed_common, "open_common": open_common,
            "benchmarks": benchmarks,
        }
        release = release_part(version, base, [bm for bm in META[version] if bm not in extra])
        if release is not None:
            constraints["release"] = release
        first, published = info["period"]
        period = {"first_run_date": first, "results_published": published}
        if info.get("estimated"):
            period["estimated"] = True
            period["source"] = ("estimated: no results of this round in the shared data; the end is the date MLCommons "
                                "published the same round a year earlier, plus one year (a run dated in the period "
                                "belongs to the round)")
        else:
            period["source"] = ("first commit of the round's results repository (../shared/reference/later-rounds.md "
                                "§1); a run dated before a round's publication and after the previous one belongs to it")
        ruleset = {
            "ruleset": version, "round": version[:-2], "period": period,
            "sources": {"checker_of_record": f"mlcommons/logging {rev}",
                        "rules": "mlcommons/training_policies training_rules.adoc (HEAD d73e20f, v6.0; the per-round "
                                 "snapshots of 3.0-5.1 are not in the shared data)"},
            "init_limit_min": {"checker": {"closed": 30, "open": 240}, "rules": {"closed": 30, "open": 240},
                               "source": f"checker training_{version}/common.yaml compile_time_mins 30/240; rules "
                                         "§Timing: 30 min closed, 4 h open"},
            "scoring": {"drop_fastest": 1, "drop_slowest": 1, "max_non_converged": 1, "normalise_to_rcp": True,
                        "scaling_json": True,
                        "source": f"result_summarizer.py at {rev.split(' (')[0]}: olympic mean (U-Net3D 4 + 4), the "
                                  "median of the 3-run benchmarks; run counts from benchmark_meta.py"},
            "benchmarks": facts,
        }
        files[version] = {"constraints.json": constraints, "ruleset.json": ruleset}
    return files


def dumps(name: str, data: Any) -> str:
    """The text of a data file, as written (constraints.json one-space indented, ruleset.json two)."""
    return json.dumps(data, indent=1 if name == "constraints.json" else 2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", type=Path, default=REF)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="compare with the files, write nothing")
    args = parser.parse_args(argv)
    differ = []
    for version, files in transcribe(args.reference).items():
        for name, data in files.items():
            path = args.out / version / name
            if args.check:
                if not path.is_file() or path.read_text("utf-8") != dumps(name, data):
                    differ.append(str(path))
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(dumps(name, data), "utf-8")
    for path in differ:
        print(f"differs from the record rule files: {path}", file=sys.stderr)
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
