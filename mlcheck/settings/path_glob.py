"""Path globs of waivers, matched in time linear in the path: no backtracking.

``*`` and ``?`` stay within a folder, ``**`` crosses folders, ``**/`` is zero or more folders, a
trailing ``/**`` holds the folder itself too, and a trailing ``/`` of the path is ignored. A regex
translation of such globs backtracks exponentially (``*a*a*a...b`` against a long name without a
``b``); here the glob is compiled once into a small automaton (Thompson's construction) and the
path is read once, keeping the set of states it can be in, so a match costs at most
(path length x glob length) steps whatever the glob.
"""

from __future__ import annotations

import functools
from array import array
from typing import Callable

Test = Callable[[str], bool]


def _any(char: str) -> bool:
    return True


def _in_folder(char: str) -> bool:
    return char != "/"


@functools.lru_cache(maxsize=1024)
def _is(expected: str) -> Test:
    return lambda char: char == expected


class GlobMatcher:
    """One compiled glob: node ``i`` reads a character passing ``tests[i]`` (None: reads none)
    and goes on to ``first[i]`` and, for a split, ``second[i]`` (-1: nowhere). Parallel arrays
    and shared tests keep it at about 40 bytes a glob character (node objects took 350)."""

    def __init__(self, glob: str) -> None:
        self.tests: list[Test | None] = []
        self.first = array("l")
        self.second = array("l")
        self.start = self._compile(glob)

    def _add(self, test: Test | None, *targets: int) -> int:
        self.tests.append(test)
        self.first.append(targets[0] if targets else -1)
        self.second.append(targets[1] if len(targets) > 1 else -1)
        return len(self.tests) - 1

    def _loop(self, test: Test, out: int) -> int:
        """Zero or more characters passing ``test``, then ``out``."""
        split = self._add(None)
        body = self._add(test, split)
        self.first[split], self.second[split] = body, out
        return split

    def _compile(self, glob: str) -> int:
        match = self._add(None)  # the accepting node: no targets
        end = self._add(None, self._add(_is("/"), match), match)  # an optional trailing "/"
        tokens: list[str] = []
        index = 0
        while index < len(glob):
            for token in ("/**", "**/", "**"):
                if glob.startswith(token, index) and (token != "/**" or index + 3 == len(glob)):
                    tokens.append(token)
                    index += len(token)
                    break
            else:
                tokens.append(glob[index])
                index += 1
        out = end
        for token in reversed(tokens):  # built from the end, each node pointing at what follows
            if token == "/**":  # "folder/**": the folder itself, or anything below it
                out = self._add(None, self._add(_is("/"), self._loop(_any, out)), out)
            elif token == "**/":  # zero or more whole folders
                out = self._add(None, self._loop(_any, self._add(_is("/"), out)), out)
            elif token == "**":
                out = self._loop(_any, out)
            elif token == "*":
                out = self._loop(_in_folder, out)
            elif token == "?":
                out = self._add(_in_folder, out)
            else:
                out = self._add(_is(token), out)
        self.match = match
        return out

    def _closure(self, states: set[int]) -> set[int]:
        stack, seen = list(states), set(states)
        tests, first, second = self.tests, self.first, self.second
        while stack:
            node = stack.pop()
            if tests[node] is None:
                for target in (first[node], second[node]):
                    if target >= 0 and target not in seen:
                        seen.add(target)
                        stack.append(target)
        return seen

    def matches(self, path: str) -> bool:
        """Whether the whole of ``path`` matches the glob."""
        tests, first = self.tests, self.first
        states = self._closure({self.start})
        for char in path:
            following = set()
            for state in states:
                test = tests[state]
                if test is not None and test(char):
                    following.add(first[state])
            if not following:
                return False
            states = self._closure(following)
        return self.match in states


@functools.lru_cache(maxsize=4096)
def compiled(glob: str) -> GlobMatcher:
    """The matcher of a glob, compiled once."""
    return GlobMatcher(glob)
