"""The installed mlperf-logging's version, which the reports name beside today's RCP verdict, and
its folder, whose files some checks read as text.

Read from its ``dist-info`` folder where that is plain: ``importlib.metadata`` imports the email
package (about 20 ms of every start), so it is only the fallback."""

from __future__ import annotations

import os
import sys
from functools import lru_cache


@lru_cache(maxsize=1)
def installed_version() -> str:
    """The installed mlperf-logging's version (``?`` when it cannot be told)."""
    found = dist_info_version()
    if found is not None:
        return found
    from importlib import metadata  # (it imports the email package: 20 ms)

    try:
        return metadata.version("mlperf-logging")
    except metadata.PackageNotFoundError:
        return "?"


def installed_folder() -> str | None:
    """The installed mlperf-logging's package folder, found without importing it (the package is
    slow to load); None when it is not installed."""
    import importlib.util

    spec = importlib.util.find_spec("mlperf_logging")
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def dist_info_version() -> str | None:
    """The ``Version`` of the first ``mlperf_logging-*.dist-info`` on ``sys.path``, as
    ``importlib.metadata`` finds it, or None where that is not plain (no such folder, two of them,
    an egg)."""
    for folder in sys.path:
        try:
            names = [n for n in os.listdir(folder or ".")
                     if n.lower().startswith(("mlperf_logging-", "mlperf-logging-"))]
        except OSError:
            continue
        if len(names) != 1 or not names[0].endswith(".dist-info"):
            if names:
                return None
            continue
        try:
            with open(os.path.join(folder or ".", names[0], "METADATA"), encoding="utf-8") as handle:
                for line in handle:
                    if line.startswith("Version:"):
                        return line.split(":", 1)[1].strip()
                    if not line.strip():
                        return None  # (the headers end at the first blank line)
        except (OSError, UnicodeDecodeError):
            return None
        return None
    return None
