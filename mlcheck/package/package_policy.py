"""What a round's package checker and result summarizer do beyond the result files:
``schemas/rulesets/<X.Y.Z>/package.json`` (schema ``schemas/package-policy.schema.json``) says
whether the summarizer scores ``power/`` folders (3.1+), whether the package checker's power
checker judges them (5.0+), and which ``package_checker_params`` options it reads (4.0+:
``rcp-bypass``; 4.1+: ``seed-checker-bypass``) and which options the verify script takes from a
top-level ``<org>/package_checker_params`` (2.0+). A round without the file (1.0, 1.1) does none
of it.
"""

from __future__ import annotations

import json
from functools import lru_cache

from mlcheck.facts import resources
from mlcheck.records import dataclass


@dataclass(frozen=True)
class PackagePolicy:
    """The package-level facts of one round."""

    ruleset: str
    energy_score: bool = False
    power_check: bool = False
    params_options: tuple[str, ...] = ()
    """The options a ``package_checker_params`` file can set; empty: the round reads no such file."""
    params_match: str | None = None
    top_level_options: tuple[str, ...] = ()
    """The options a line of the top-level ``<org>/package_checker_params`` may name (the
    verify script passes ``--<line>``); empty: the round's scripts read no such file."""
    source: str = "no package.json: the round's package checker reads no power/ folder and no package_checker_params"


@lru_cache(maxsize=None)
def package_policy(ruleset: str | None) -> PackagePolicy:
    """The round's package policy (defaults for a round without one); the shipped files are valid
    against ``schemas/package-policy.schema.json`` (``tests/test_bundled_data.py``)."""
    if ruleset is None:
        return PackagePolicy("")
    base = resources.files("mlcheck.schemas")
    path = base.joinpath("rulesets").joinpath(ruleset).joinpath("package.json")
    if not path.is_file():
        return PackagePolicy(ruleset)
    data = json.loads(path.read_text("utf-8"))
    params = data["params"]
    return PackagePolicy(ruleset=data["ruleset"], energy_score=data["energy_score"],
                         power_check=data["power_check"],
                         params_options=tuple(params["options"]) if params else (),
                         params_match=params["match"] if params else None,
                         top_level_options=tuple(data["top_level_options"]), source=data["source"])
