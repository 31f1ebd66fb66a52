#!/usr/bin/env python3
"""Regenerate the screenshots of docs/: the terminal (tmux capture-pane of ``mlcheck check`` on a
package of ../shared/other-submitters, as text and as PNG) and the HTML report of that package.

    python tools/screenshots.py [--round training-1.1] [--org ORG]

Needs tmux and chromium (the PNGs); the text capture needs tmux only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
OTHERS = ROOT.parent / "shared" / "other-submitters"
WIDTH, HEIGHT = 150, 60


def capture_terminal(round_name: str, org: str) -> tuple[str, str]:
    """The plain text and the ANSI text of a tmux pane that ran ``mlcheck check ORG``."""
    session = f"mlcheck-shot-{os.getpid()}"
    environment = f"export PYTHONPATH={ROOT} PS1='$ '; cd {OTHERS / round_name}; clear"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", str(WIDTH), "-y", str(HEIGHT),
                    "env PS1='$ ' bash --norc --noprofile"], check=True)
    try:
        time.sleep(0.5)
        subprocess.run(["tmux", "send-keys", "-t", session, environment, "Enter"], check=True)
        time.sleep(1)
        subprocess.run(["tmux", "send-keys", "-t", session, f"mlcheck check {org}", "Enter"], check=True)
        time.sleep(8)
        plain = subprocess.run(["tmux", "capture-pane", "-t", session, "-p", "-S", "-", "-E", "-"],
                               check=True, capture_output=True, text=True).stdout
        ansi = subprocess.run(["tmux", "capture-pane", "-t", session, "-e", "-p", "-S", "-", "-E", "-"],
                              check=True, capture_output=True, text=True).stdout
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], check=False)
    return plain.rstrip() + "\n", ansi.rstrip() + "\n"


def chromium_png(page: Path, png: Path, size: str) -> None:
    """A headless chromium screenshot of ``page``."""
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([shutil.which("chromium") or "chromium", "--headless", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", f"--user-data-dir={profile}", f"--window-size={size}",
                        f"--screenshot={png}", page.as_uri()], check=True, capture_output=True, timeout=120,
                       env={**os.environ, "HOME": profile})


def terminal_png(ansi: str, png: Path) -> None:
    """The ANSI capture drawn as a terminal (rich's HTML export), then photographed."""
    from rich.console import Console
    from rich.terminal_theme import MONOKAI
    from rich.text import Text

    console = Console(record=True, width=WIDTH, file=open(os.devnull, "w"), force_terminal=True)
    console.print(Text.from_ansi(ansi), soft_wrap=True)
    lines = ansi.count("\n") + 1
    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "terminal.html"
        page.write_text(console.export_html(theme=MONOKAI, inline_styles=True), encoding="utf-8")
        chromium_png(page, png, f"{WIDTH * 10 + 40},{lines * 19 + 40}")


def report_png(round_name: str, org: str, png: Path) -> None:
    """The HTML report of the package (``mlcheck report``), photographed."""
    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "report.html"
        subprocess.run([sys.executable, "-c", "from mlcheck.cli import run; run()", "report", org, "-o", str(page),
                        "--no-progress"], cwd=OTHERS / round_name, env={**os.environ, "PYTHONPATH": str(ROOT)},
                       check=False)
        chromium_png(page, png, "1200,2400")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--round", default="training-1.1")
    parser.add_argument("--org", default="Intel-HabanaLabs",
                        help="the package folder of the round to show (the README's: Intel-HabanaLabs)")
    args = parser.parse_args()
    if args.org is None:
        args.org = next(p.name for p in sorted((OTHERS / args.round).iterdir()) if (p / "results").is_dir())
    plain, ansi = capture_terminal(args.round, args.org)
    if "internal error" in plain or "MLC000" in plain or f"mlcheck check {args.org}" not in plain:
        raise SystemExit("screenshots: the terminal shows no clean run of mlcheck (nothing written):\n" + plain[-2000:])
    (DOCS / "terminal-check.txt").write_text(plain, encoding="utf-8")
    if shutil.which("chromium"):
        terminal_png(ansi, DOCS / "terminal-check.png")
        report_png(args.round, args.org, DOCS / "report-screenshot.png")
    print("written:", ", ".join(sorted(p.name for p in DOCS.glob("*") if p.suffix in (".txt", ".png"))))


if __name__ == "__main__":
    main()
