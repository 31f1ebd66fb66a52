"""mlcheck: validate and score MLPerf Training logs before anyone else does.

Library use::

    from mlcheck import check, CheckResult
    result: CheckResult = check(["results/ipu-pod16/resnet"], ruleset="2.0.0")
"""

from __future__ import annotations

__version__ = "0.1.0"

from mlcheck.checker import check  # noqa: E402
from mlcheck.results import CheckResult  # noqa: E402

__all__ = ["check", "CheckResult", "__version__"]
