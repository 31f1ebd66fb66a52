"""The command line, and nothing below it imports it: takes argv, gives output and the exit code.
Each command maps its options to settings, calls the library, renders and picks the exit code.

- :mod:`~mlcheck.cli.app`: the ``main`` click group, ``check`` and ``report``, and ``run``
  (the console entry point: exit 2 when stdout cannot be written).
- :mod:`~mlcheck.cli.checking`: check, post-process, report, exit (``check``, ``report`` and
  ``watch`` end with it); :mod:`~mlcheck.cli.progress`: the progress bar on stderr.
- :mod:`~mlcheck.cli.score`: ``score``, ``rules``, ``explain``; :mod:`~mlcheck.cli.raw`:
  ``split`` and ``watch`` (their library side is :mod:`mlcheck.raw`).
- :mod:`~mlcheck.cli.common`: exit codes, consoles, running the check with errors mapped to 2.
"""

from __future__ import annotations

import gc

_collecting = gc.isenabled()
gc.disable()  # (click and the commands are made once: see mlcheck/__init__.py)
try:
    from mlcheck.cli.app import main, run
except KeyboardInterrupt:  # (Ctrl-C while starting: exit as an interrupted command, no traceback)
    raise SystemExit(130) from None
finally:
    if _collecting:
        gc.enable()
    del _collecting

__all__ = ["main", "run"]
