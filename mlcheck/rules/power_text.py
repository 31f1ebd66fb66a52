"""The wording of the power findings (:mod:`mlcheck.rules.power`): file names to rename to, and
an energy in kJ as the reports show it."""

from __future__ import annotations

from typing import Sequence


def rename_advice(kind: str, count: int) -> str:
    return f"Rename it {kind}_0.txt" if count == 1 else f"Rename them {kind}_0.txt ... {kind}_{count - 1}.txt"


def expected_names(count: int) -> str:
    return "0" if count == 1 else f"0 to {count - 1}"


def listed(values: Sequence[int]) -> str:
    return ", ".join(str(v) for v in values)


def format_energy(joules: float) -> str:
    """``16,142.3 kJ``: in kJ with one decimal whatever its size, as the score tables' ``energy (kJ)``."""
    return f"{joules / 1e3:,.1f} kJ"
