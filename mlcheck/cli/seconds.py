"""A command-line option of seconds (``watch --poll``, ``--idle-timeout``)."""

from __future__ import annotations

import click


class Seconds(click.ParamType):  # type: ignore[type-arg]
    """A finite number of seconds from ``low`` to ``high`` (``nan`` and ``inf`` compare as neither
    below nor above a bound: click's FloatRange lets them through to ``time.sleep``)."""

    name = "seconds"

    def __init__(self, low: float, high: float) -> None:
        self.low, self.high = low, high

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> float:
        try:
            seconds = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not self.low <= seconds <= self.high:  # (false for NaN)
            self.fail(f"{value} is not a number of seconds from {self.low:g} to {self.high:g}", param, ctx)
        return seconds
