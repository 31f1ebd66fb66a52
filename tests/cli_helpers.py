"""Helpers shared by the table-driven CLI tests of issue 2 (reading and first rules)."""

from __future__ import annotations

from click.testing import CliRunner, Result

from mlcheck.cli import main

#: The codes issue 2 defines. Findings of later families (required keys, closed-division
#: catalogue, raw output, RCP) have their own fixtures and are left out of the comparison.
ISSUE2_CODES = frozenset(
    [f"MLC{n:03d}" for n in range(1, 13)] + [f"MLC{n}" for n in range(101, 105)]
    + [f"MLC{n}" for n in range(301, 306)] + [f"MLC{n}" for n in range(401, 405)]
    + [f"MLC{n}" for n in range(501, 506)])


def run_cli(*args: str, stdin: bytes | None = None) -> Result:
    """Run the CLI in-process; stdout and stderr stay separate."""
    return CliRunner().invoke(main, list(args), input=stdin)


def assert_no_traceback(result: Result) -> None:
    """The command ended by exiting, never by an exception or a printed traceback."""
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.stdout and "Traceback" not in result.stderr
