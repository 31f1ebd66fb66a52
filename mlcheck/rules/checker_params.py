"""``package_checker_params`` files (family MLC54x): bypass requests for the review committee, and
whether the round's official tools would honour them.

Rules text: training_rules.adoc §RCP failure handling (a failing RCP test goes to the review
committee), §Random numbers (seeds logged from 4.1); logging#350 (per-folder params, 4.0).
Checker of record: ``package_checker/package_checker.py`` (a file in a system or benchmark
folder: 4.0+ ``rcp-bypass``, 4.1+ ``seed-checker-bypass``, each ``readlines()`` line compared
with ``==``) and ``scripts/verify_for_vX_training.sh`` (a top-level ``<org>/`` file, each line
passed as ``--<line>``).

mlcheck honours every request it can read (any spelling, with or without a final newline): an RCP
failure (MLC530/MLC531) or a seed error (MLC518/MLC519/MLC522) is then a warning that the
committee reviews.

- MLC546 checker-params-not-honoured: a line the round's official tools would not honour, with
  the reason: the line ends with a newline (a system or benchmark file: only a last line without
  one matches ``== "rcp-bypass"``, so at most one option per file works), the spelling
  (``rcp_bypass``, ``--rcp-bypass``), an option the round does not have (``seed-checker-bypass``
  before 4.1), a round that reads no such file in that place (before 4.0), a top-level line
  without a final newline (the script's ``read`` drops it) or not among the round's options
  (the package checker stops: "unrecognized arguments"). Fix as the message says (``printf
  'rcp-bypass' > package_checker_params`` writes a file without a newline).
  An error (``official: true``) where the official tools stop on it instead of ignoring it: a
  top-level line the verify script passes as an option the package checker does not have (a
  wrong spelling, a leading ``--``, a CR LF line end, an empty line before an option), or a file
  the round's tools read that cannot be read (not UTF-8, a folder).
- MLC547 checker-bypass-requested: a bypass is requested for this folder in a line the round's
  tools honour (info): which checks it softens and which file asks for it. The top-level
  ``rcp_bert_train_samples`` (2.0-4.0; ``rcp-bert-train-samples`` from 4.1), which the verify
  script passes to the package checker, is honoured too: the BERT RCP test then reads each run's
  last ``train_samples`` before ``run_stop`` instead of its last eval's ``epoch_num``
  (``rcp_checker.py read_submission_file``), and MLC547 says so. A request they would
  not honour (MLC546) softens nothing: the RCP and seed errors stay errors, as the official
  package checker reports them.
"""

from __future__ import annotations

from typing import Sequence

from mlcheck.model import Finding, Severity
from mlcheck.package.package_policy import PackagePolicy
from mlcheck.package.params import BYPASSES, ParamsFile, ParamsLine
from mlcheck.rule import Rule

PARAMS_NOT_HONOURED = Rule("MLC546", "checker-params-not-honoured", Severity.WARNING,
                           "a package_checker_params line the round's official tools would not honour",
                           also=(Severity.ERROR,), official=True)
BYPASS_REQUESTED = Rule("MLC547", "checker-bypass-requested", Severity.INFO,
                        "a package_checker_params file asks to bypass the RCP or seed checks (or for BERT's "
                        "train_samples)")

RULES = (PARAMS_NOT_HONOURED, BYPASS_REQUESTED)

_PRINTF = "printf '{option}' > package_checker_params"


def check_params(files: Sequence[ParamsFile], policy: PackagePolicy, ruleset: str) -> list[Finding]:
    """MLC546 for every line of the files the round's official tools would not honour."""
    found: list[Finding] = []
    for params in files:
        read = bool(policy.top_level_options if params.place == "package" else policy.params_options)
        if params.error is not None:  # (the round's tools that read it crash or stop on it)
            found.append(PARAMS_NOT_HONOURED.at(params.path, None, (
                f"cannot read the file ({params.error}); no option in it is honoured"
                + (", and the round's official tools that read it stop on it" if read else "")),
                severity=Severity.ERROR if read else None, official=read))
            continue
        for at, line in enumerate(params.lines):
            if not line.text.strip():
                if params.place == "package" and read and any(later.text.strip() for later in params.lines[at + 1:]):
                    found.append(PARAMS_NOT_HONOURED.at(params.path, line.number, (
                        "an empty line: the verify script passes -- for it, after which the package checker "
                        "reads the next options as folders and stops ('unrecognized arguments'). Remove it"),
                        severity=Severity.ERROR, official=True))
                continue
            why = (_top_level(params, line, policy, ruleset) if params.place == "package"
                   else _in_folder(params, line, policy, ruleset))
            if why:
                stops = isinstance(why, _Stops)  # (the verify run ends there)
                found.append(PARAMS_NOT_HONOURED.at(params.path, line.number, str(why),
                                                    severity=Severity.ERROR if stops else None, official=stops))
    return found


def honoured_request(files: Sequence[ParamsFile], option: str, policy: PackagePolicy,
                     ruleset: str) -> ParamsFile | None:
    """The first file (benchmark, system, package) with a line asking for ``option`` that the
    round's official tools honour (no MLC546 for it); None when none does."""
    for params in files:
        for line in params.lines if params.error is None else ():
            why = (_top_level if params.place == "package" else _in_folder)(params, line, policy, ruleset)
            if line.option == option and why is None:
                return params
    return None


def _in_folder(params: ParamsFile, line: ParamsLine, policy: PackagePolicy, ruleset: str) -> str | None:
    option = line.option
    where = f"a {params.place} folder"
    if not policy.params_options:
        top = f"--{_cli(option, policy)}" if option in BYPASSES else "the package checker's options"
        return (f"training {ruleset}'s package checker reads no package_checker_params in {where} (from "
                f"4.0): {line.text.strip()!r} is ignored. Put {top} in the top-level <org>/package_checker_params "
                "(one option per line, each ending with a newline) or pass it to the package checker")
    if option not in policy.params_options:
        known = " or ".join(repr(o) for o in policy.params_options)
        if option in BYPASSES:
            return (f"training {ruleset}'s package checker reads only {known} from this file: "
                    f"{line.text.strip()!r} is ignored ({option} came with 4.1)")
        return f"not an option of this file ({known}): the package checker ignores {line.text.strip()!r}"
    if line.text != option:
        return (f"the package checker compares each line with == {option!r}: {line.text!r} does not match. "
                f"Write it as {option}")
    if line.newline:
        return (f"the line ends with a newline, and the package checker compares each readlines() line "
                f"(newline included) with == {option!r}: only a last line without a newline matches, so "
                f"{option} is not honoured. Remove the final newline ({_PRINTF.format(option=option)}); one "
                "option per file")
    return None


def _cli(option: str, policy: PackagePolicy) -> str:
    """The round's spelling of an option on the package checker's command line."""
    underscored = option.replace("-", "_")
    return underscored if underscored in policy.top_level_options else option


class _Stops(str):
    """A reason the verify script fails on: the package checker stops on what it passes."""


def _top_level(params: ParamsFile, line: ParamsLine, policy: PackagePolicy, ruleset: str) -> str | None:
    """Why the verify script does not pass the line as an option (:class:`_Stops`: it fails on
    it), or None."""
    text = line.text.strip()
    if not policy.top_level_options:
        return f"training {ruleset}'s verify script reads no top-level package_checker_params: {text!r} is ignored"
    if line.crlf:
        return _Stops(f"the line ends with CR LF: the verify script's `read` keeps the CR and passes --{text}\\r, "
                      "on which the package checker stops ('unrecognized arguments'). Write the file with LF line ends")
    if text.lstrip("-") != text:
        return _Stops(f"the verify script prepends -- to each line: {text!r} becomes --{text}, on which the "
                      f"package checker stops ('unrecognized arguments'). Write {text.lstrip('-')}")
    if text not in policy.top_level_options:
        spelled = _cli(line.option, policy)
        fix = f" Write {spelled}" if spelled in policy.top_level_options else ""
        return _Stops(f"the verify script passes --{text} to training {ruleset}'s package checker, which has no "
                      f"such option (its options: {', '.join(policy.top_level_options)}) and stops with "
                      f"'unrecognized arguments'.{fix}")
    if not line.newline:
        return ("the last line has no newline: the verify script's `while read -r line` drops it, so "
                f"--{text} is never passed. End the file with a newline")
    return None


def bypass_note(option: str, params: ParamsFile, codes: str, effect: str | None = None) -> Finding:
    """MLC547: which checks a requested bypass softens (or what else the option does)."""
    return BYPASS_REQUESTED.at(params.path, None, (
        f"{option} requested in this {params.place}-level file: "
        + (effect or f"{codes} become warnings; be ready to have it reviewed by the submission committee")))
