"""Regular expressions compiled when first used, not when mlcheck starts.

Raw job output's patterns (launcher lines, host and rank labels, timestamps, cut records) are
long: compiling them took about 20 ms of every start (``re`` compiles in Python), a sixth of a
one-file check, for a clean result file that never uses them. :func:`lazy_pattern` gives an
object with the ``re.Pattern`` methods that compiles on the first call; from then on its methods
are the compiled pattern's own (bound in C: a call costs what a compiled pattern's does).
``pattern`` is there before it compiles (other patterns are built from it). Only the methods
and attributes of :data:`_COMPILED` are there: it is not a ``re.Pattern`` (``isinstance``, the
``re`` module's functions); nothing in mlcheck hands one to them."""

from __future__ import annotations

import re
import threading
from typing import AnyStr, cast

_COMPILED = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner",
             "groups", "groupindex", "flags")
_LOCK = threading.Lock()


class LazyPattern:
    """A pattern's source and flags until an attribute of :data:`_COMPILED` is asked for."""

    def __init__(self, source: str | bytes, flags: int) -> None:
        self.pattern = source
        self._flags = flags

    def __getattr__(self, name: str) -> object:
        if name not in _COMPILED:  # (``__deepcopy__``, ``__reduce_ex__``: no compiling for a probe)
            raise AttributeError(name)
        with _LOCK:  # (``watch`` reads in a thread: one compiles, the other finds its methods)
            if "search" not in self.__dict__:
                compiled = re.compile(self.pattern, self._flags)
                for attribute in _COMPILED:
                    setattr(self, attribute, getattr(compiled, attribute))
        return self.__dict__[name]

    def __repr__(self) -> str:
        return f"lazy_pattern({self.pattern!r}, {self._flags})"


def lazy_pattern(source: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """``re.compile(source, flags)``, compiled at the first search (see the module's text)."""
    return cast("re.Pattern[AnyStr]", LazyPattern(source, flags))
