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
from typing import Callable, NamedTuple

Test = Callable[[str], bool]


class _Node(NamedTuple):
    test: Test | None
    """None: an epsilon node (its targets are taken without reading a character)."""
    targets: tuple[int, ...]


def _any(char: str) -> bool:
    return True


def _in_folder(char: str) -> bool:
    return char != "/"


def _is(expected: str) -> Test:
    return lambda char: char == expected


class GlobMatcher:
    """One compiled glob."""

    def __init__(self, glob: str) -> None:
        self.nodes: list[_Node] = []
        self.start = self._compile(glob)

    def _add(self, test: Test | None, *targets: int) -> int:
        self.nodes.append(_Node(test, targets))
        return len(self.nodes) - 1

    def _loop(self, test: Test, out: int) -> int:
        """Zero or more characters passing ``test``, then ``out``."""
        split = self._add(None)
        body = self._add(test, split)
        self.nodes[split] = _Node(None, (body, out))
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
        while stack:
            node = self.nodes[stack.pop()]
            if node.test is None:
                for target in node.targets:
                    if target not in seen:
                        seen.add(target)
                        stack.append(target)
        return seen

    def matches(self, path: str) -> bool:
        """Whether the whole of ``path`` matches the glob."""
        states = self._closure({self.start})
        for char in path:
            following = {node.targets[0] for node in (self.nodes[s] for s in states)
                         if node.test is not None and node.test(char)}
            if not following:
                return False
            states = self._closure(following)
        return self.match in states


@functools.lru_cache(maxsize=256)
def compiled(glob: str) -> GlobMatcher:
    """The matcher of a glob, compiled once."""
    return GlobMatcher(glob)
