"""A progress bar on stderr while logs are read, shown only when stderr is a terminal.

The checker knows nothing of it: it calls a ``progress(path)`` callback once per log.
"""

from __future__ import annotations

import contextlib
import sys
import time
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

from mlcheck.package.discover import DiscoveryError, discover

if TYPE_CHECKING:
    from rich.console import Console

#: Fewer logs than this finish before a bar would be worth drawing.
MIN_LOGS = 20
_REDRAW_S = 0.1


def count_logs(paths: Sequence[str]) -> int | None:
    """How many logs ``check(paths)`` will read, or None when the paths cannot be walked."""
    try:
        refs, _ = discover(list(paths))
    except (DiscoveryError, OSError):
        return None
    return len(refs)


@contextlib.contextmanager
def progress_bar(paths: Sequence[str], enabled: bool = True, console: Console | None = None,
                 color: str | None = None) -> Iterator[Callable[[str], None] | None]:
    """Yield a ``progress(path)`` callback drawing a bar on ``console`` (stderr), or None when
    disabled, when the console is not a terminal, or when there are few logs. ``color`` ``never``
    (``--color never``): a bar without colour, as NO_COLOR draws it."""
    if not enabled or (console is None and not sys.stderr.isatty()):
        yield None  # piped: rich is not even imported, which keeps CI runs light
        return
    from rich.console import Console as RichConsole
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    console = console or (RichConsole(stderr=True, no_color=True, color_system=None, markup=False) if color == "never"
                          else RichConsole(stderr=True, markup=False))
    if not console.is_terminal:
        yield None
        return
    total = count_logs(paths)
    if total is None or total < MIN_LOGS:
        yield None
        return
    columns = (TextColumn("reading logs"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    # Redrawn as logs complete, not by rich's refresh thread: the workers of ``--jobs`` are
    # forked, and a process with a thread that may hold a lock (the terminal's) is not forked.
    with Progress(*columns, console=console, transient=True, auto_refresh=False) as bar:
        task = bar.add_task("logs", total=total)
        drawn = [0.0]

        def advance(_path: str) -> None:
            bar.advance(task)
            now = time.monotonic()
            if now - drawn[0] >= _REDRAW_S:
                drawn[0] = now
                bar.refresh()

        yield advance
