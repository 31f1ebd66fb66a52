"""The ``MLCHECK_*`` variables that are no setting of mlcheck but look meant as one (family MLC0xx,
:mod:`mlcheck.rules.config_rules`): a misspelt setting, or waivers, which only the config file holds."""

from __future__ import annotations

from typing import Sequence

from mlcheck.model import Finding, Severity
from mlcheck.rules.config_rules import CONFIG_INVALID
from mlcheck.rules.near_names import near_name


def misspelt_variable(raw_key: str, names: Sequence[str]) -> list[Finding]:
    """A warning for an ``MLCHECK_*`` variable that is no setting but close to one's name
    (``MLCHECK_STRCT``): it would be ignored without a word. Others (a script's own
    ``MLCHECK_HOME``, the GitHub Action's ``MLCHECK_PATHS``) are none of mlcheck's business."""
    if raw_key.replace("-", "_").lower() in ("waiver", "waivers"):  # (a table of the config file only)
        return [CONFIG_INVALID.at("environment", None, (
            f"MLCHECK_{raw_key.upper()} is not a setting of mlcheck and is ignored: waivers are entries of the config "
            "file ([[waivers]] in .mlcheck.toml, [[tool.mlcheck.waivers]] in pyproject.toml); MLCHECK_CONFIG names it"),
            severity=Severity.WARNING)]
    if raw_key.lower().startswith("test_"):  # (MLCHECK_TEST_SHARED: the test suite's, README)
        return []
    close = near_name(raw_key.replace("-", "_"), names, cutoff=0.75)
    if not close:
        return []
    return [CONFIG_INVALID.at("environment", None, (
        f"MLCHECK_{raw_key.upper()} is not a setting of mlcheck and is ignored; did you mean "
        f"MLCHECK_{close.upper()}?"), severity=Severity.WARNING)]
