"""mlcheck: validate and score MLPerf Training logs before anyone else does.

Library use::

    from mlcheck import check, CheckResult
    result: CheckResult = check(["results/ipu-pod16/resnet"], ruleset="2.0.0")

``paths`` is a list of paths or one path (``str`` or :class:`pathlib.Path`). ``check`` raises
:class:`DiscoveryError` for a path that does not exist, :class:`RulesetError` for an unknown
ruleset and ``TypeError`` for a path or ruleset of another type; everything about the logs
themselves is a finding of the result. The package is typed (``py.typed``). ``check("-")`` reads
standard input once into a temporary file, kept for the process (a later ``check("-")`` reads that
copy): on Linux a file without a name, gone with the process however it ends; elsewhere removed at
exit or on SIGTERM and SIGHUP (handlers it installs where none was set, calling one that was).

The names are imported when first used (importing ``mlcheck.cli``, or ``mlcheck.report``, does not
import the checker through this module); a Ctrl-C while they are imported is the caller's
``KeyboardInterrupt``, as any import's (the command line exits 130 on it: this module imports
nothing that is not loaded already when Python starts, so that a Ctrl-C while it starts finds the
command line's guard, :mod:`mlcheck.cli`).
"""

from __future__ import annotations

import gc
import importlib

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing here: see below)

__version__ = "0.1.0"

if TYPE_CHECKING:
    from mlcheck.checker import check
    from mlcheck.facts.rulesets import RulesetError
    from mlcheck.package.discover import DiscoveryError
    from mlcheck.results import CheckResult

_WHERE = {"check": "mlcheck.checker", "RulesetError": "mlcheck.facts.rulesets",
          "DiscoveryError": "mlcheck.package.discover", "CheckResult": "mlcheck.results"}


if not TYPE_CHECKING:  # (a type checker sees the imports above: a misspelt name stays an error there)
    def __getattr__(name: str) -> object:
        """The public names, imported on first use, and the subpackages (``mlcheck.results``), as
        importing the checker made them attributes. Importing the checker makes ~100 modules of
        functions and classes that live as long as the process: the collector's passes over them
        while they are made were about 1 ms, so it pauses meanwhile, and what was made is moved
        past the next young collections (a freeze and unfreeze), unless the caller holds objects
        frozen (``gc.freeze`` before forking workers): those are left as they are."""
        collecting = gc.isenabled()
        gc.disable()
        try:
            if name in _WHERE:
                value = getattr(importlib.import_module(_WHERE[name]), name)
            else:
                try:
                    value = importlib.import_module(f"{__name__}.{name}")
                except ModuleNotFoundError as missing:
                    if missing.name != f"{__name__}.{name}":
                        raise
                    raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
        finally:
            if collecting:
                if not gc.get_freeze_count():
                    gc.freeze()
                    gc.unfreeze()
                gc.enable()
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


__all__ = ["check", "CheckResult", "DiscoveryError", "RulesetError", "__version__"]
