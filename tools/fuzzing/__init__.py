"""Generated inputs for mlcheck and the properties every input must keep; shared by
``tests/test_properties.py`` (a few hundred cases per family, derandomized hypothesis) and
``tools/fuzz.py`` (a long seeded campaign).

Each family is a function of a :class:`~fuzzing.source.Source` (where its choices come from)
returning a :class:`~fuzzing.case.Case`; :func:`strategy` makes it a hypothesis strategy, and
:func:`~fuzzing.properties.run_case` builds a case in a folder, runs mlcheck and returns the
properties it broke.
"""

from __future__ import annotations

from typing import Callable

from hypothesis import strategies as st

from fuzzing.case import Case
from fuzzing.logs import glued_case, gzip_case, raw_line_case, record_case
from fuzzing.properties import Checks, Failure, run_case
from fuzzing.source import HypothesisSource, Source
from fuzzing.trees import cli_case, config_case, tree_case

Family = Callable[[Source], Case]


def _any_log(source: Source) -> Case:
    return source.choice((record_case, raw_line_case, glued_case))(source)


FAMILIES: dict[str, Family] = {
    "records": record_case,
    "lines": raw_line_case,
    "glued": glued_case,
    "gzip": gzip_case,
    "trees": tree_case,
    "config": config_case,
    "cli": lambda source: cli_case(source, _any_log),
}
"""Family name -> generator; the first five call ``mlcheck.check`` in-process, the last two the CLI."""

CHEAP = ("records", "lines", "glued", "gzip", "trees")
"""Families checked in-process (the command-line ones cost a CliRunner and two runs each)."""


def strategy(family: str) -> st.SearchStrategy[Case]:
    """The hypothesis strategy of a family (shrunk by hypothesis)."""
    build = FAMILIES[family]
    return st.composite(lambda draw: build(HypothesisSource(draw)))()


__all__ = ["FAMILIES", "CHEAP", "Case", "Checks", "Failure", "Source", "run_case", "strategy"]
