"""Settings from a config file, ``MLCHECK_*`` environment variables and the command line.

Precedence, lowest first: ``[tool.mlcheck]`` in ``pyproject.toml`` or a ``.mlcheck.toml``, then
the environment, then the command line. A bad part of the configuration never stops mlcheck: it
becomes an MLC041 finding and is ignored.

The config file is the first of them found from the checked paths upwards, as pytest finds its
rootdir: from the folder of the one path (a file's folder), or the deepest folder common to all
the paths, then each folder above it. The working directory plays no part, so checking a package
from anywhere uses the package's config; only when no path names a file or folder (stdin, ``-``)
does the search start in the working directory. ``--config`` / ``MLCHECK_CONFIG`` name one
explicitly. Waiver paths are relative to the folder of the config file.
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from mlcheck.records import dataclass
from mlcheck.facts.rulesets import SUPPORTED_RULESETS, normalise_version
from mlcheck.model import Finding, Severity
from mlcheck.rules.config_rules import CONFIG_INVALID
from mlcheck.settings.config_file import load_table as _load_table
from mlcheck.settings.config_search import find_config as find_config, nearer_configs, search_start, shadowed_pyproject
from mlcheck.settings.environment_names import misspelt_variable
from mlcheck.settings.waiver_table import Waiver, line_of, read_waivers

FORMATS = ("auto", "text", "json", "sarif", "junit", "github", "markdown", "html")
COLORS = ("auto", "always", "never")
CONFIG_NAMES = (".mlcheck.toml", "pyproject.toml")


@dataclass(frozen=True)
class Settings:
    """Every setting mlcheck takes from configuration, with its default."""

    ruleset: str | None = None
    format: str = "auto"
    outputs: tuple[str, ...] = ()
    color: str = "auto"
    strict: bool = False
    exit_zero: bool = False
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    progress: bool = True
    jobs: int | None = None
    """Processes that read and judge the logs; None: the usable CPUs (``mlcheck.jobs``)."""
    waivers: tuple[Waiver, ...] = ()
    config_path: str | None = None
    config_reason: str = ""
    """Why that config file (or none) was used, for ``-v``."""
    base_dir: str = "."
    """The folder waiver paths are relative to (the config file's, else the working directory)."""
    problems: tuple[Finding, ...] = ()
    ruleset_source: str = "--ruleset"
    """Where ``ruleset`` was set (``--ruleset``, ``MLCHECK_RULESET``, ``ruleset in <config>``)."""
    outputs_source: str = "--output"
    """Where ``outputs`` were set (``--output``, ``MLCHECK_OUTPUT``, ``output in <config>``): an
    output that cannot be written is a usage error of the command line, a finding of a setting."""
    config_deciding: tuple[str, ...] = ()
    """The settings a config file found by the search sets that decide what fails or what is written,
    said on stderr without ``-v`` too (:func:`mlcheck.cli.checking.config_notice`): a package may ship one."""


# setting -> (kind, allowed values); kind is "str", "bool", "int" (at least 1) or "list"
_SCALARS: dict[str, tuple[str, tuple[str, ...]]] = {
    "ruleset": ("str", ()), "format": ("str", FORMATS), "color": ("str", COLORS),
    "strict": ("bool", ()), "exit_zero": ("bool", ()), "progress": ("bool", ()), "jobs": ("int", ()),
    "select": ("list", ()), "ignore": ("list", ()), "outputs": ("list", ()),
}
_ALIASES = {"exit-zero": "exit_zero", "output": "outputs"}
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def load_settings(cli: Mapping[str, Any], cwd: str | None = None,
                  environ: Mapping[str, str] | None = None, config: str | None = None,
                  paths: Sequence[str] | None = None) -> Settings:
    """Merge file, environment and command line (only the options the user gave, non-None).
    The config file is ``config``, else ``MLCHECK_CONFIG``, else the first found from the checked
    ``paths`` upwards (see :func:`search_start`; ``paths`` None: from ``cwd``)."""
    environ = os.environ if environ is None else environ
    cwd = cwd or os.getcwd()
    named = environ.get("MLCHECK_CONFIG", "")
    explicit = config or (named if named.strip() else None)  # (blank: unset)
    start, origin = search_start(paths, cwd) if paths is not None else (cwd, "the working directory")
    found = None if explicit else find_config(start)
    # A config found by the search is shown as the checked paths are given: relative to the
    # working folder (reports must not depend on where the checkout lies), or absolute when every
    # checked path is (reports must not depend on the working folder); one given explicitly keeps
    # the spelling given.
    path = Path(explicit) if explicit else found
    absolute = bool(paths) and all(os.path.isabs(given) for given in paths or () if given != "-")
    shown = explicit or ((str(found) if absolute else _relative(found, cwd)) if found else "")
    where = start if absolute else _relative(Path(start), cwd)
    if config:
        reason = "given by --config"
    elif explicit:
        reason = "named by MLCHECK_CONFIG"
    elif found is not None:
        reason = f"found from {where} upwards; the search starts at {origin}"
    else:
        reason = (f"no .mlcheck.toml, nor pyproject.toml with [tool.mlcheck], from {where} upwards; "
                  f"the search starts at {origin}")
    values: dict[str, Any] = {}
    problems: list[Finding] = []
    if not explicit and paths is not None and len(paths) > 1:
        nearer = nearer_configs(paths, cwd, start)
        if nearer:  # (a pre-commit hook passing the files of two packages: the config of each is not used)
            names = [str(config) if absolute else _relative(config, cwd) for config in nearer]
            problems.append(CONFIG_INVALID.at(names[0], None, (
                f"not used: the checked paths span folders with configs of their own ({', '.join(names[:5])}"
                f"{', ...' if len(names) > 5 else ''}), and one check uses the config found from the folder "
                f"common to them ({shown or 'none'}); check each folder on its own (a pre-commit hook: "
                "one hook per package, with files: under it), or name one with --config"),
                severity=Severity.WARNING))
    if found is not None and (shadowed := shadowed_pyproject(found)) is not None:  # (its settings lost without a word)
        problems.append(CONFIG_INVALID.at(str(shadowed) if absolute else _relative(shadowed, cwd), None, (
            f"[tool.mlcheck] here is not read: {shown} beside it is the config (a folder's .mlcheck.toml comes first); "
            "move these settings into it"), severity=Severity.WARNING))
    waivers: tuple[Waiver, ...] = ()
    base_dir = cwd
    if path is not None:
        table, text, error = _load_table(path, shown)
        if error is not None:  # (the table is empty then, but where settings lie outside it)
            problems.append(error)
        values.update(_coerce(table, shown, text, problems, from_file=True, found_from=cwd if found else None))
        waivers = tuple(read_waivers(table.get("waivers", []), shown, text, problems))
        base_dir = os.path.dirname(os.path.abspath(path))
    from_file = {k for k, v in values.items() if k in _DECIDING and v}
    ruleset_source = f"ruleset in {shown}" if "ruleset" in values else "--ruleset"
    env_values = {name.removeprefix("MLCHECK_").lower(): value for name, value in environ.items()  # (empty: unset,
                  if name.startswith("MLCHECK_") and name not in ("MLCHECK_CONFIG",) and value.strip()}  # as CI templates leave them)
    from_env = _coerce(env_values, "environment", "", problems, from_file=False)
    ruleset_source = "MLCHECK_RULESET" if "ruleset" in from_env else ruleset_source
    values.update(from_env)
    outputs_source = "--output" if "outputs" not in values else "MLCHECK_OUTPUT" if "outputs" in from_env \
        else f"output in {shown}"
    given = {key: value for key, value in cli.items() if value not in (None, ())}
    ruleset_source = "--ruleset" if "ruleset" in given else ruleset_source
    outputs_source = "--output" if "outputs" in given else outputs_source
    values.update(given)
    deciding = sorted(_DECIDING[k] for k in from_file - set(from_env) - set(given)) + (["waivers"] if waivers else [])
    return Settings(**values, waivers=waivers, config_path=shown or None, config_reason=reason,
                    base_dir=base_dir, problems=tuple(problems), ruleset_source=ruleset_source,
                    outputs_source=outputs_source, config_deciding=tuple(deciding) if found is not None else ())


def _relative(path: Path, cwd: str) -> str:
    try:
        return os.path.relpath(path, cwd)
    except ValueError:  # another drive on Windows
        return str(path)


_DECIDING = {"exit_zero": "exit_zero", "ignore": "ignore", "select": "select", "outputs": "output", "strict": "strict",
             "ruleset": "ruleset"}
"""The settings of a config file that change what fails or what is written (said: :attr:`Settings.config_deciding`)."""


def _coerce(table: Mapping[str, Any], where: str, text: str, problems: list[Finding],
            from_file: bool, found_from: str | None = None) -> dict[str, Any]:
    """The settings of a table (a config file's, found by the search from the working folder
    ``found_from``; or the environment's)."""
    values: dict[str, Any] = {}
    spelt: dict[str, str] = {}  # (the key each setting was given by: exit_zero and exit-zero are one)
    for raw_key, raw in table.items():
        if raw_key == "waivers" and from_file:
            continue
        key = _ALIASES.get(raw_key, raw_key.replace("-", "_"))
        label = raw_key if from_file else f"MLCHECK_{raw_key.upper()}"
        line = line_of(text, raw_key) if from_file else None
        if spelt.setdefault(key, raw_key) != raw_key:
            problems.append(CONFIG_INVALID.at(where, line, f"{label}: the setting {spelt[key]!r} is given already, spelt "
                                              "otherwise; keep one (this one is ignored)"))
            continue
        if key not in _SCALARS:
            known = ", ".join(sorted(set(_SCALARS) - {"outputs"} | {"output", "waivers"}))  # as the README spells them
            if from_file:
                problems.append(CONFIG_INVALID.at(where, line, f"unknown setting {label!r}; known: {known}"))
            else:
                problems.extend(misspelt_variable(raw_key, sorted(set(_SCALARS) - {"outputs"} | {"output", "config"})))
            continue
        kind, allowed = _SCALARS[key]
        value, error = _convert(raw, kind, allowed, from_file)
        if error:
            problems.append(CONFIG_INVALID.at(where, line, f"{label}: {error}; the setting is ignored"))
            continue
        if key == "ruleset" and normalise_version(value) not in SUPPORTED_RULESETS:
            problems.append(CONFIG_INVALID.at(where, line, f"{label}: unknown round {value!r}; known: "
                                              f"{', '.join(SUPPORTED_RULESETS)}; the setting is ignored (each "
                                              "run's round is inferred)"))
            continue
        if key == "outputs":
            value = _valid_outputs(value, label, where, line, problems, found_from)
        elif key in ("select", "ignore"):
            value = _valid_prefixes(value, label, where, line, problems)
        values[key] = value
    return values


def _valid_prefixes(prefixes: tuple[str, ...], label: str, where: str, line: int | None,
                    problems: list[Finding]) -> tuple[str, ...]:
    """The code prefixes that match a rule; each other one is a finding (as ``--select`` exits 2)."""
    from mlcheck.rules import all_rules
    from mlcheck.settings.selection_filter import normalise_prefixes

    codes = [rule.code for rule in all_rules()]
    return _valid_entries(normalise_prefixes(prefixes), lambda p: any(c.startswith(p) for c in codes),
                          "matches no rule code or name (`mlcheck rules` lists them, e.g. MLC3, MLC301 or target-not-reached)",
                          label, where, line, problems)


def _valid_outputs(specs: tuple[str, ...], label: str, where: str, line: int | None,
                   problems: list[Finding], found_from: str | None = None) -> tuple[str, ...]:
    """The ``FORMAT:PATH`` entries of an output setting; each other entry is a finding. A config file
    found by the search (a checked package may ship one) writes reports below the working folder
    ``found_from`` only."""
    choices = "|".join(f for f in FORMATS if f != "auto")
    kept = _valid_entries(specs, _is_output_spec,
                          f"is not FORMAT:PATH with FORMAT one of {choices} (e.g. sarif:mlcheck.sarif), nor a PATH "
                          "ending in .sarif, .json, .xml (junit), .md, .html or .txt", label, where, line, problems)
    if found_from is None:
        return kept
    from mlcheck.settings.found_outputs import refused_output

    allowed = []
    for spec in kept:
        why = refused_output(spec, found_from)
        if why is None:
            allowed.append(spec)
        else:
            problems.append(CONFIG_INVALID.at(where, line, (
                f"{label}: {spec!r} {why}; a config file found from the checked paths writes new reports, or "
                "replaces reports mlcheck wrote, below the working folder and outside submission packages only: the "
                "entry is ignored (name another place with -o or --config)")))
    return tuple(allowed)


def _is_output_spec(spec: str) -> bool:
    """What ``--output`` takes (:func:`mlcheck.settings.gate.parse_output`: ``sarif:x.sarif``, ``x.sarif``)."""
    from mlcheck.settings.gate import parse_output  # (gate imports this module)

    try:
        parse_output(spec)
    except ValueError:
        return False
    return True


def _valid_entries(entries: Iterable[str], valid: Callable[[str], bool], why: str, label: str,
                   where: str, line: int | None, problems: list[Finding]) -> tuple[str, ...]:
    """The entries of a list setting that are ``valid``; each other one is an MLC041 finding."""
    kept = []
    for entry in entries:
        if valid(entry):
            kept.append(entry)
        else:
            problems.append(CONFIG_INVALID.at(where, line, f"{label}: {entry!r} {why}; the entry is ignored"))
    return tuple(kept)


def _convert(raw: Any, kind: str, allowed: tuple[str, ...], from_file: bool) -> tuple[Any, str | None]:
    if kind == "bool":
        if isinstance(raw, bool):
            return raw, None
        if type(raw) is int and raw in (0, 1):  # (strict = 1 in TOML, as "1" is taken)
            return raw == 1, None
        if isinstance(raw, str) and raw.strip().lower() in _TRUE + _FALSE:
            return raw.strip().lower() in _TRUE, None
        return None, f"expected true or false, got {raw!r}"
    if kind == "int":
        if isinstance(raw, str) and re.fullmatch(r"[0-9]{1,9}", raw.strip()):
            raw = int(raw.strip())
        if isinstance(raw, bool) or not isinstance(raw, int) or raw < 1:
            return None, f"expected a whole number of at least 1, got {raw!r}"
        return raw, None
    if kind == "list":
        if isinstance(raw, str):
            return tuple(p.strip() for p in raw.split(",") if p.strip()), None
        if isinstance(raw, list) and all(isinstance(item, str) for item in raw):
            return tuple(raw), None
        return None, f"expected a list of strings, got {raw!r}"
    if not isinstance(raw, str):
        return None, f"expected a string, got {raw!r}"
    if allowed and raw not in allowed:
        return None, f"{raw!r} is not one of {', '.join(allowed)}"
    return raw, None


def replace(settings: Settings, **changes: Any) -> Settings:
    """A copy of ``settings`` with some values changed."""
    return dataclasses.replace(settings, **changes)
