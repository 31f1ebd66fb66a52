"""Configuration and waivers (family MLC04x): problems with mlcheck's own settings.

Settings come from ``[tool.mlcheck]`` in ``pyproject.toml`` or a ``.mlcheck.toml`` (the first
found from the checked paths upwards, from the working directory only for standard input, or
``--config``), then ``MLCHECK_*`` environment
variables, then the command line. Waivers (``[[tool.mlcheck.waivers]]`` with ``code``, ``path``
glob, ``reason`` and optional ``expires``) move matching findings to a "waived" section that no
longer counts for the exit code. These rules are about mlcheck's own configuration: no official
tool or rules text is involved.

- MLC040 unused-waiver: a waiver matched no finding. Either the problem was fixed (delete the
  waiver so it cannot hide a future regression) or its ``code``/``path`` are wrong: ``path`` is
  a glob relative to the config file's folder (``*`` within a folder, ``**`` across folders),
  ``code`` a code or code prefix (``MLC301``, ``MLC3``). The path's only wildcards are ``*``,
  ``?`` and ``**`` (``[0-4]`` is read as written). A waiver for a path this check did not read (outside
  the paths given) is not reported.
- MLC041 config-invalid: the config file is not valid TOML, names an unknown setting, gives a
  setting a value of the wrong type, or a waiver lacks ``code``, ``path`` or ``reason`` (a waiver
  without a reason is refused); an ``MLCHECK_*`` variable has a value mlcheck cannot use. The
  bad part is ignored and the rest applies. Fix: the message names the setting and what it takes.
  An ``MLCHECK_*`` variable that is no setting but whose name is close to one (``MLCHECK_STRCT``)
  is a warning (mlcheck's own guess: other ``MLCHECK_*`` variables are left alone), and so is a
  config file nearer to some checked paths than their common folder, which one check of them does
  not use (a pre-commit hook given the files of two packages, each with its ``.mlcheck.toml``);
  settings written at the top level of a ``pyproject.toml`` instead of ``[tool.mlcheck]`` are a
  warning too (they are not read; the search finds such a file by its ``[[waivers]]``: names such as
  ``format`` or ``select`` may be another tool's).
- MLC042 waiver-expired: a waiver's ``expires`` date has passed, so it no longer applies and the
  findings it covered count again. Fix the problem, or renew the waiver with a new reason.
"""

from __future__ import annotations

from mlcheck.model import Severity
from mlcheck.rule import Rule

UNUSED_WAIVER = Rule("MLC040", "unused-waiver", Severity.WARNING, "a configured waiver matched no finding")
CONFIG_INVALID = Rule("MLC041", "config-invalid", Severity.ERROR,
                      "the mlcheck configuration (file or MLCHECK_* variable) has an invalid part",
                      also=(Severity.WARNING,))
WAIVER_EXPIRED = Rule("MLC042", "waiver-expired", Severity.WARNING,
                      "a waiver's expiry date has passed; its findings count again")

RULES = (UNUSED_WAIVER, CONFIG_INVALID, WAIVER_EXPIRED)
