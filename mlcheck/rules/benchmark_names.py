"""The benchmark a misnamed benchmark folder most likely means (MLC506's suggestion): the round's
name it starts with or is the start of (``resnet50`` → ``resnet``), the benchmark a reference
implementation's task folder holds (``language_model`` → ``bert``), else the closest name."""

from __future__ import annotations

from typing import Collection

_TASK_FOLDERS = {
    "language_model": ("bert",), "image_classification": ("resnet",), "speech_recognition": ("rnnt",),
    "image_segmentation": ("unet3d",), "recommendation": ("dlrm_dcnv2", "dlrmv4", "dlrm"),
    "reinforcement": ("minigo",), "object_detection": ("maskrcnn",),
    "single_stage_detector": ("retinanet", "ssd"), "graph_neural_network": ("rgat", "gnn"),
}
"""The training reference implementations' task folders, and the benchmark each holds."""


def suggest_benchmark(name: str, valid: Collection[str]) -> str | None:
    """The valid benchmark name closest to a folder name (``resnet50`` → ``resnet``; a reference
    task folder such as ``language_model`` → ``bert``)."""
    lowered = name.lower()
    named = next((b for b in _TASK_FOLDERS.get(lowered, ()) if b in valid), None)
    if named is not None:
        return named
    for candidate in sorted(valid, key=len, reverse=True):
        if lowered.startswith(candidate) or candidate.startswith(lowered):
            return candidate
    import difflib  # only needed for a misnamed folder

    close = difflib.get_close_matches(lowered, sorted(valid), n=1, cutoff=0.5)
    return close[0] if close else None
