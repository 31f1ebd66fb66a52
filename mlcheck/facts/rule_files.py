"""The rule files of each round's compliance checker of record (``training_X.Y.Z/*.yaml``), by
name: a logged division, benchmark or ResNet optimizer that names a file not here ends that checker
with FileNotFoundError (:mod:`mlcheck.judge.official_stops`). From ``../shared/reference/record-rules``
(1.1-6.1) and mlperf-logging's ``training_1.0.0`` (1.0: the checker of record is its 1.0.0 release);
``tests/test_review_packages.py`` compares them when those are present."""

from __future__ import annotations

RULE_FILES: dict[str, frozenset[str]] = {
    "1.0.0": frozenset({
        "closed_bert", "closed_common", "closed_dlrm", "closed_maskrcnn", "closed_minigo", "closed_resnet",
        "closed_resnet_lars", "closed_resnet_sgd", "closed_rnnt", "closed_ssd", "closed_unet3d", "common",
        "open_bert", "open_common", "open_dlrm", "open_maskrcnn", "open_minigo", "open_resnet", "open_rnnt",
        "open_ssd", "open_unet3d",
    }),
    "1.1.0": frozenset({
        "closed_bert", "closed_common", "closed_dlrm", "closed_maskrcnn", "closed_minigo", "closed_resnet",
        "closed_resnet_lars", "closed_resnet_sgd", "closed_rnnt", "closed_ssd", "closed_unet3d", "common",
        "open_bert", "open_common", "open_dlrm", "open_maskrcnn", "open_minigo", "open_resnet", "open_rnnt",
        "open_ssd", "open_unet3d",
    }),
    "2.0.0": frozenset({
        "closed_bert", "closed_common", "closed_dlrm", "closed_maskrcnn", "closed_minigo", "closed_resnet",
        "closed_resnet_lars", "closed_resnet_sgd", "closed_rnnt", "closed_ssd", "closed_unet3d", "common",
        "open_bert", "open_common", "open_dlrm", "open_maskrcnn", "open_minigo", "open_resnet", "open_rnnt",
        "open_ssd", "open_unet3d",
    }),
    "2.1.0": frozenset({
        "closed_bert", "closed_common", "closed_dlrm", "closed_maskrcnn", "closed_minigo", "closed_resnet",
        "closed_resnet_lars", "closed_resnet_sgd", "closed_rnnt", "closed_ssd", "closed_unet3d", "common",
        "open_bert", "open_common", "open_dlrm", "open_maskrcnn", "open_minigo", "open_resnet", "open_rnnt",
        "open_ssd", "open_unet3d",
    }),
    "3.0.0": frozenset({
        "closed_bert", "closed_common", "closed_dlrm", "closed_dlrm_dcnv2", "closed_gpt3", "closed_maskrcnn",
        "closed_minigo", "closed_resnet", "closed_resnet_lars", "closed_resnet_sgd", "closed_rnnt",
        "closed_ssd", "closed_unet3d", "common", "open_bert", "open_common", "open_dlrm_dcnv2",
        "open_maskrcnn", "open_minigo", "open_resnet", "open_rnnt", "open_ssd", "open_unet3d",
    }),
    "3.1.0": frozenset({
        "closed_bert", "closed_common", "closed_dlrm", "closed_dlrm_dcnv2", "closed_gpt3", "closed_maskrcnn",
        "closed_minigo", "closed_resnet", "closed_resnet_lars", "closed_resnet_sgd", "closed_rnnt",
        "closed_ssd", "closed_stable_diffusion", "closed_unet3d", "common", "open_bert", "open_common",
        "open_dlrm_dcnv2", "open_maskrcnn", "open_minigo", "open_resnet", "open_rnnt", "open_ssd",
        "open_stable_diffusion", "open_unet3d",
    }),
    "4.0.0": frozenset({
        "closed_bert", "closed_common", "closed_dlrm_dcnv2", "closed_gnn", "closed_gpt3",
        "closed_llama2_70b_lora", "closed_resnet", "closed_resnet_lars", "closed_resnet_sgd", "closed_ssd",
        "closed_stable_diffusion", "closed_unet3d", "common", "open_bert", "open_common", "open_dlrm_dcnv2",
        "open_gnn", "open_gpt3", "open_llama2_70b_lora", "open_resnet", "open_ssd", "open_stable_diffusion",
        "open_unet3d",
    }),
    "4.1.0": frozenset({
        "closed_bert", "closed_common", "closed_dlrm_dcnv2", "closed_gnn", "closed_gpt3",
        "closed_llama2_70b_lora", "closed_ssd", "closed_stable_diffusion", "common", "open_bert",
        "open_common", "open_dlrm_dcnv2", "open_gnn", "open_gpt3", "open_llama2_70b_lora", "open_ssd",
        "open_stable_diffusion",
    }),
    "5.0.0": frozenset({
        "closed_bert", "closed_common", "closed_dlrm_dcnv2", "closed_llama2_70b_lora", "closed_llama31_405b",
        "closed_retinanet", "closed_rgat", "closed_stable_diffusion", "common", "open_bert", "open_common",
        "open_dlrm_dcnv2", "open_llama2_70b_lora", "open_llama31_405b", "open_retinanet", "open_rgat",
        "open_stable_diffusion",
    }),
    "5.1.0": frozenset({
        "closed_bert", "closed_common", "closed_dlrm_dcnv2", "closed_flux1", "closed_llama2_70b_lora",
        "closed_llama31_405b", "closed_llama31_8b", "closed_retinanet", "closed_rgat", "common", "open_bert",
        "open_common", "open_dlrm_dcnv2", "open_flux1", "open_llama2_70b_lora", "open_llama31_405b",
        "open_llama31_8b", "open_retinanet", "open_rgat",
    }),
    "6.0.0": frozenset({
        "closed_common", "closed_deepseekv3_671b", "closed_dlrm_dcnv2", "closed_flux1", "closed_gpt_oss_20b",
        "closed_llama2_70b_lora", "closed_llama31_405b", "closed_llama31_8b", "common", "open_common",
        "open_deepseekv3_671b", "open_dlrm_dcnv2", "open_flux1", "open_gpt_oss_20b", "open_llama2_70b_lora",
        "open_llama31_405b", "open_llama31_8b",
    }),
    "6.1.0": frozenset({
        "closed_common", "closed_deepseekv3_671b", "closed_flux1", "closed_gpt_oss_20b",
        "closed_llama2_70b_lora", "closed_llama31_8b", "closed_qwen35_397b_grpo", "common", "open_common",
        "open_deepseekv3_671b", "open_flux1", "open_gpt_oss_20b", "open_llama2_70b_lora", "open_llama31_8b",
        "open_qwen35_397b_grpo",
    }),
}
"""Each round's rule files, without ``.yaml``."""
