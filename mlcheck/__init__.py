"""mlcheck: validate and score MLPerf Training logs before anyone else does.

Library use::

    from mlcheck import check, CheckResult
    result: CheckResult = check(["results/ipu-pod16/resnet"], ruleset="2.0.0")

``paths`` is a list of paths or one path (``str`` or :class:`pathlib.Path`). ``check`` raises
:class:`DiscoveryError` for a path that does not exist, :class:`RulesetError` for an unknown
ruleset and ``TypeError`` for a path or ruleset of another type; everything about the logs
themselves is a finding of the result. The package is typed (``py.typed``).
"""

from __future__ import annotations

import gc

__version__ = "0.1.0"

# Importing mlcheck makes ~100 modules of functions and classes that live as long as the process:
# the collector's passes over them while they are made were about 1 ms of each start.
_collecting = gc.isenabled()
gc.disable()
try:
    from mlcheck.checker import check
    from mlcheck.facts.rulesets import RulesetError
    from mlcheck.package.discover import DiscoveryError
    from mlcheck.results import CheckResult
except KeyboardInterrupt:  # (Ctrl-C while starting: exit as an interrupted command, no traceback)
    raise SystemExit(130) from None
finally:
    if _collecting:
        gc.freeze()  # (then unfrozen: every object so far moves to the oldest generation uncollected,
        gc.unfreeze()  # so the next young collection does not traverse the modules just made)
        gc.enable()
    del _collecting

__all__ = ["check", "CheckResult", "DiscoveryError", "RulesetError", "__version__"]
