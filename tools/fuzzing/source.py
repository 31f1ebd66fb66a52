"""Where a generator takes its choices from, so that one definition of each family serves both
hypothesis (the tests: derandomized, shrunk by hypothesis) and a fast seeded campaign
(``tools/fuzz.py``: hypothesis spends a few milliseconds per case on bookkeeping, more than
checking a small log costs; a plain ``random.Random`` spends microseconds).

A :class:`RandomSource` records every choice as an integer; replaying a shorter or smaller list
of integers rebuilds a simpler case, which is all :func:`shrink` needs to minimise a failure the
way hypothesis does (delete runs of choices, lower each one).
"""

from __future__ import annotations

import random
import time
from typing import Any, Callable, Sequence, TypeVar

T = TypeVar("T")


class Source:
    """The choices a generator can make. Subclasses give :meth:`below` (and may do better)."""

    def below(self, n: int) -> int:
        """An integer in ``[0, n)``; smaller is simpler."""
        raise NotImplementedError

    def integer(self, low: int, high: int) -> int:
        """A count in ``[low, high]``; shrinks towards ``low``."""
        return low + self.below(high - low + 1)

    def choice(self, options: Sequence[T]) -> T:
        """One of ``options``, each as likely; shrinks towards the first."""
        return options[self.below(len(options))]

    def boolean(self) -> bool:
        return self.below(2) == 1

    def rarely(self, one_in: int) -> bool:
        """True about once in ``one_in``; False is the simpler choice."""
        return self.below(one_in) == one_in - 1

    def binary(self, max_size: int) -> bytes:
        return bytes(self.below(256) for _ in range(self.integer(0, max_size)))


class HypothesisSource(Source):
    """Choices drawn by hypothesis (inside ``st.composite``)."""

    def __init__(self, draw: Callable[[Any], Any]) -> None:
        from hypothesis import strategies as st

        self._draw = draw
        self._st = st

    def below(self, n: int) -> int:
        # sampled_from draws uniformly; st.integers gives its lower bound about a third of the time
        return int(self._draw(self._st.sampled_from(range(n))))

    def integer(self, low: int, high: int) -> int:
        return int(self._draw(self._st.integers(low, high)))

    def binary(self, max_size: int) -> bytes:
        return bytes(self._draw(self._st.binary(max_size=max_size)))


class RandomSource(Source):
    """Choices from a seeded ``random.Random``, or replayed from a list (past its end: 0; a value
    too large for its range: the largest allowed). ``choices`` records what was used."""

    def __init__(self, seed: int | None = None, replay: Sequence[int] | None = None) -> None:
        self._random = random.Random(seed)
        self._replay = replay
        self.choices: list[int] = []

    def below(self, n: int) -> int:
        if n <= 1:
            value = 0
        elif self._replay is None:
            value = self._random.randrange(n)
        else:
            at = len(self.choices)
            value = min(self._replay[at], n - 1) if at < len(self._replay) else 0
        self.choices.append(value)
        return value


def shrink(build: Callable[[Source], T], choices: list[int], fails: Callable[[T], bool],
           seconds: float = 120.0, tries: int = 3000) -> tuple[T, list[int], int]:
    """The simplest case found that still ``fails``, its choices and the number of tries: delete
    runs of 8, 4, 2, 1 choices, then lower each choice (to 0, by half, by one), until a pass
    changes nothing or the budget is spent. Simpler means fewer choices, then smaller ones."""
    best_source = RandomSource(replay=choices)
    best_case = build(best_source)
    best = best_source.choices
    ends = time.monotonic() + seconds
    spent = 0

    def attempt(candidate: list[int]) -> bool:
        nonlocal best, best_case, spent
        spent += 1
        source = RandomSource(replay=candidate)
        try:
            case = build(source)
        except Exception:  # noqa: BLE001 - a replay the generator cannot follow
            return False
        used = source.choices
        if (len(used), used) >= (len(best), best) or not fails(case):
            return False
        best, best_case = used, case
        return True

    def spent_all() -> bool:
        return spent >= tries or time.monotonic() > ends

    changed = True
    while changed and not spent_all():
        changed = False
        for size in (8, 4, 2, 1):
            at = 0
            while at < len(best) and not spent_all():
                if attempt(best[:at] + best[at + size:]):
                    changed = True
                else:
                    at += 1
        for at in range(len(best)):
            for lower in (0, best[at] // 2, best[at] - 1) if at < len(best) else ():
                if spent_all():
                    break
                if 0 <= lower < best[at] and attempt(best[:at] + [lower] + best[at + 1:]):
                    changed = True
                    break
    return best_case, best, spent
