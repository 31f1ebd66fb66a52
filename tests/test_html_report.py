"""The HTML report, rendered in headless Chromium: no console errors, no network requests from
the page, one curve per run, the target line, the score table. Skipped without Chromium (CI
installs the Debian ``chromium`` package in ``.ci/run``)."""

from __future__ import annotations

import os
import re
import struct
import subprocess
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

from mlcheck import check
from mlcheck.settings.gate import input_digests
from mlcheck.results import CheckResult
from mlcheck.report import ReportOptions
from mlcheck.report.html import render_html

CHROMIUM = Path("/usr/bin/chromium")
ROUNDS = {"training-1.1": "1.1.0", "training-2.0": "2.0.0"}
# Requests Chromium itself makes (updates, time, accounts), whatever page it shows.
BROWSER_HOSTS = re.compile(r"^https?://([a-z0-9-]+\.)*(google\.com|googleapis\.com|gvt1\.com|gstatic\.com)[/:]")


class _DomCounts(HTMLParser):
    """Counts, per benchmark section, the curves and target lines; rows of the score table."""

    def __init__(self) -> None:
        super().__init__()
        self.section: str | None = None
        self.curves: Counter[str] = Counter()
        self.targets: Counter[str] = Counter()
        self.in_score_table = False
        self.score_rows = 0
        self.tags: Counter[str] = Counter()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        classes = (found.get("class") or "").split()
        self.tags[tag] += 1
        if tag == "section" and "benchmark" in classes:
            self.section = found.get("id")
        if self.section and tag == "polyline" and "curve" in classes:
            self.curves[self.section] += 1
        if self.section and tag == "line" and "target" in classes:
            self.targets[self.section] += 1
        if tag == "table" and "score-table" in classes:
            self.in_score_table = True
        if self.in_score_table and tag == "tr":
            self.score_rows += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self.in_score_table = False
        if tag == "section":
            self.section = None


def _chromium(args: list[str], profile: Path) -> subprocess.CompletedProcess[str]:
    command = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
               "--enable-logging=stderr", "--v=0", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=90,
                          env={**os.environ, "HOME": str(profile)})


def _render(corpus: Path, round_name: str) -> tuple[CheckResult, str]:
    before = os.getcwd()
    os.chdir(corpus / round_name)
    try:
        result = check(["Graphcore"], ruleset=ROUNDS[round_name])
        return result, render_html(result, ReportOptions(input_digests=input_digests(result)))
    finally:
        os.chdir(before)


@pytest.fixture
def chromium() -> Path:
    if not CHROMIUM.is_file():
        pytest.skip("chromium is not installed (.ci/run installs it)")
    return CHROMIUM


def test_html_is_self_contained_without_a_browser(corpus: Path) -> None:
    _, page = _render(corpus, "training-2.0")
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert not re.search(r"<script|<link|<iframe|<img|\bsrc=|url\(|@import", page, re.I)
    assert not re.search(r'href="(?!#)', page)
    assert "/work/" not in page


@pytest.mark.parametrize("round_name", sorted(ROUNDS))
def test_html_report_renders_in_chromium(chromium: Path, corpus: Path, tmp_path: Path, round_name: str) -> None:
    result, page = _render(corpus, round_name)
    report = tmp_path / "report.html"
    report.write_text(page, encoding="utf-8")
    net_log = tmp_path / "net.json"
    done = _chromium([f"--log-net-log={net_log}", "--dump-dom", report.as_uri()], tmp_path / "profile")
    assert done.returncode == 0, done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line or "Refused to" in line]
    assert console == []
    requested = set(re.findall(r'"url":"([^"]+)"', net_log.read_text(encoding="utf-8", errors="replace")))
    page_requests = [u for u in requested if not BROWSER_HOSTS.match(u) and not u.startswith(report.as_uri())]
    assert page_requests == []

    dom = _DomCounts()
    dom.feed(done.stdout)
    assert dom.score_rows == len(result.benchmarks) + 1  # header row + one per benchmark
    for position, bench in enumerate(result.benchmarks):
        with_evals = sum(1 for r in bench.runs if r.run is not None and any(
            isinstance(e.value, (int, float)) and e.epoch_num is not None for e in r.run.evaluations))
        assert dom.curves[f"benchmark-{position}"] == with_evals == len(bench.runs)
        assert dom.targets[f"benchmark-{position}"] == 1
    assert dom.tags["svg"] == 2 * len(result.benchmarks)


@pytest.mark.parametrize("round_name", sorted(ROUNDS))
def test_html_report_screenshot_shows_the_charts(chromium: Path, corpus: Path, tmp_path: Path,
                                                 round_name: str) -> None:
    _, page = _render(corpus, round_name)
    report = tmp_path / "report.html"
    report.write_text(page, encoding="utf-8")
    shot = tmp_path / "shot.png"
    done = _chromium([f"--screenshot={shot}", "--window-size=1100,1800", "--hide-scrollbars", report.as_uri()],
                     tmp_path / "profile")
    assert done.returncode == 0, done.stderr[-2000:]
    header = shot.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", header[16:24])
    assert (width, height) == (1100, 1800)
    assert shot.stat().st_size > 50_000  # tables and curves, not a blank page


def test_charts_survive_degenerate_data() -> None:
    from mlcheck.report.svg_charts import Mark, Series, accuracy_chart, nice_ticks, run_time_strip
    assert nice_ticks(0.36, 0.72) == [0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
    assert len(nice_ticks(1e6, 1e6 + 1e-10)) <= 22  # no endless loop when values are too close
    assert nice_ticks(float("nan"), 1.0) == []
    one_point = accuracy_chart([Series("r<0>", ((1.0, 0.5),), True)], 0.75, "epoch_num", "eval_accuracy")
    assert one_point.count('class="curve"') == 1 and 'data-run="r&lt;0&gt;"' in one_point
    assert "no-chart" in accuracy_chart([Series("r", (), False)], None, "x", "y")
    assert "no-chart" in run_time_strip([Mark("r", float("inf"), True, True)], float("nan"))


def test_hostile_text_is_escaped() -> None:
    from mlcheck.model import Finding, Severity
    hostile = Finding("MLC003", "invalid-json", Severity.ERROR, '<script>alert(1)</script> "&', "a<b>.txt", 3)
    page = render_html(CheckResult((), (), (hostile,)), ReportOptions())
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt; &quot;&amp;" in page
    assert 'class="banner fail"' in page


def test_a_long_logged_value_is_cut_in_the_hyperparameter_table(tmp_path: Path) -> None:
    """A 200 KB hyper-parameter value (a broken or hostile log) is shown cut, with its length:
    the page stays small (was: the whole value, one 200 K-character line)."""
    from conftest import FIXTURES
    source = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
    lines = source.read_text("utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"run_start"' in line)
    long = ':::MLLOG {"namespace": "", "time_ms": 1652083200002, "event_type": "POINT_IN_TIME", ' \
        '"key": "long_value", "value": "%s", "metadata": {"file": "a.py", "lineno": 1}}\n' % ("x" * 200_000)
    log = tmp_path / "result_0.txt"
    log.write_text("".join(lines[:at] + [long] + lines[at:]), "utf-8")
    page = render_html(check([str(log)]), ReportOptions())
    assert "x" * 300 + "… (200,000 characters)" in page and "x" * 301 not in page
