"""``python -m mlcheck``: the ``mlcheck`` command."""

from __future__ import annotations

from mlcheck.cli import run

if __name__ == "__main__":
    run()
