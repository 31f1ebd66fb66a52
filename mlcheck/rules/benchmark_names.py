"""The benchmark a misnamed benchmark folder most likely means (MLC506's suggestion): the round's
name it starts with or is the start of (``resnet50`` → ``resnet``), the benchmark a reference
implementation's task folder holds (``language_model`` → ``bert``), else the closest name."""

from __future__ import annotations

from typing import Collection

from mlcheck.rules.near_names import near_name
from mlcheck.rules.seeds import version_key

_TASK_FOLDERS = {
    "language_model": ("bert",), "image_classification": ("resnet",), "speech_recognition": ("rnnt",),
    "image_segmentation": ("unet3d",), "recommendation": ("dlrm_dcnv2", "dlrmv4", "dlrm"),
    "reinforcement": ("minigo",), "object_detection": ("maskrcnn",),
    "single_stage_detector": ("retinanet", "ssd"), "graph_neural_network": ("rgat", "gnn"),
}
"""The training reference implementations' task folders, and the benchmark each holds."""

_PACKAGE_FOLDERS = frozenset({"results", "systems", "benchmarks", "code", "documentation"})
"""The folders of a package's top level (a package nested in a system folder holds them)."""


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
    return near_name(lowered, valid, cutoff=0.6)  # (not boot → bert; difflib only for a misnamed folder)


def folder_advice(name: str, version: str, accepted: Collection[str], beside: Collection[str]) -> str:
    """What MLC506 advises for a folder ``name`` that is no benchmark of training ``version``
    (``accepted``: the benchmarks its checker of record knows; ``beside``: the benchmark folders
    of the same system). A benchmark of other rounds is said to be one (retired, or not yet in
    this round: rename nothing); else the closest accepted name, to rename it to or, when that
    folder exists already, to merge it into."""
    if name in _PACKAGE_FOLDERS:  # (not a misspelt benchmark: results/ → resnet/ would be no help)
        return (f"; {name}/ is a folder of a package's top level (beside results/ and systems/): if a package "
                "was copied into this system folder, move it out")
    same = next((b for b in sorted(accepted) if b.lower() == name.lower()), None)
    if same is not None:  # (the round's benchmark, spelt in another case: names are lower case)
        if same in beside:
            return f"; a {same}/ folder exists beside it (benchmark names are case-sensitive): merge the two or remove this one"
        return f"; rename it to {same!r} (benchmark names are case-sensitive)"
    rounds = _rounds_having(name.lower())
    if rounds:
        span = _span(rounds)
        successor = next((b for names in _TASK_FOLDERS.values() if name.lower() in names for b in names
                          if b in accepted), None)
        if _older(rounds[-1], version) and successor is not None:  # (gnn -> rgat, ssd -> retinanet in 5.0)
            return (f"; {name} is a benchmark of training {span}; in {version} its task is {successor}'s: rename the "
                    f"folder to {successor!r} if its runs are {successor} runs, else remove it")
        if _older(rounds[-1], version):
            return f"; {name} is a benchmark of training {span}, retired after {rounds[-1]}: remove this folder"
        return (f"; {name} is a benchmark of training {span}, not of {version}: is this the package's "
                "round? (the path's training-X.Y, or --ruleset)")
    hint = suggest_benchmark(name, accepted)
    if hint is None:
        return ""
    if hint in beside:
        return f"; a {hint}/ folder exists beside it: merge the two or remove this one"
    return f"; rename it to {hint!r}"


def _rounds_having(name: str) -> list[str]:
    """The supported rounds whose checker of record knows benchmark ``name``, oldest first."""
    from mlcheck.facts.rulesets import SUPPORTED_RULESETS, load_ruleset  # (a misnamed folder only)

    return [version for version in SUPPORTED_RULESETS
            if name in load_ruleset(version).benchmarks and load_ruleset(version).benchmarks[name].not_in_record is None]


def _span(rounds: list[str]) -> str:
    """``3.0.0 to 6.0.0`` for consecutive supported rounds, else each of them."""
    from mlcheck.facts.rulesets import SUPPORTED_RULESETS

    first = SUPPORTED_RULESETS.index(rounds[0])
    if len(rounds) > 1 and list(SUPPORTED_RULESETS[first:first + len(rounds)]) == rounds:
        return f"{rounds[0]} to {rounds[-1]}"
    return ", ".join(rounds)


def _older(version: str, than: str) -> bool:
    """Whether supported round ``version`` comes before round ``than``."""
    from mlcheck.facts.rulesets import SUPPORTED_RULESETS

    return SUPPORTED_RULESETS.index(version) < SUPPORTED_RULESETS.index(than)


def what_tools_do(name: str, version: str, accepted: Collection[str], has_results: bool) -> tuple[str, bool]:
    """What the round's official tools do with a folder ``name`` that is no benchmark of training
    ``version`` (MLC506), and whether they refuse it. The package checker skips it (its runs are not
    checked). The result summarizer reads ``mask`` as ``maskrcnn`` (its ``_benchmark_alias``) and
    publishes that score; else it stops on the folder's column once it computes a score there (an
    ``AssertionError``), and, from 6.0's release on (4.1.5x), on an empty folder too: an older
    round's summarizer ignores a folder without result files."""
    if not has_results and (version_key(version) or (0, 0, 0)) < (6, 0, 0):
        return f"{NO_RESULTS} and the round's result summarizer {IGNORES}", False
    if name == "mask" and "maskrcnn" in accepted:
        return ("The package checker skips it (its runs are not checked), but the result summarizer reads it as "
                "maskrcnn and publishes its score: the rules name the folder maskrcnn"), True
    return f"The package checker skips it; {SUMMARIZER_STOPS}", True


SUMMARIZER_STOPS = "the result summarizer stops on it and publishes no result of its package"
"""What MLC506 says of a folder the summarizer stops on (:func:`what_tools_do`): every other score
of the package is then not valid (:class:`mlcheck.judge.system_refusals.SystemRefusals`)."""


NO_RESULTS = "It holds no result_<i>.txt file: the package checker skips it"
IGNORES = "ignores it (from 6.0 the summarizer stops on it); remove it"
"""What MLC506 says of a folder without result files before 6.0, unless its ``scaling.json`` stops the
summarizer (:mod:`mlcheck.judge.system_refusals`)."""
