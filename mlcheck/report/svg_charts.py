"""Inline SVG charts for the HTML report, generated from data (no JavaScript, no network).

Elements carry classes the browser test looks for: ``curve`` (one polyline per run, with
``data-run``), ``target`` (the quality target line), ``run-time`` (one mark per run).
"""

from __future__ import annotations

import math
from html import escape
from typing import Sequence

from mlcheck.records import dataclass

WIDTH, HEIGHT = 640, 300
LEFT, RIGHT, TOP, BOTTOM = 64, 32, 16, 44
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")


@dataclass(frozen=True)
class Series:
    """One run's curve: its label and (x, y) points in log order."""

    label: str
    points: tuple[tuple[float, float], ...]
    converged: bool


@dataclass(frozen=True)
class Mark:
    """One run on the run-time strip."""

    label: str
    minutes: float
    converged: bool
    counted: bool


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` round tick values covering [low, high] (never more than ``4 * count + 2``)."""
    if not math.isfinite(low) or not math.isfinite(high):
        return []
    if high - low <= max(abs(low), abs(high)) * 1e-9:  # one value, or too close to tell apart
        pad = abs(low) * 0.05 or 1.0
        low, high = low - pad, high + pad
    raw = (high - low) / max(count, 1)
    if not math.isfinite(raw * 10):  # values near a float's limit (1.8e308): no axis to draw
        return []
    magnitude = 10.0 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.floor(low / step) * step
    steps = min(math.ceil((high - first) / step - 1e-9), 4 * count + 1)
    ticks = [float(f"{first + i * step:.12g}") for i in range(steps + 1)]
    return ticks if all(math.isfinite(t) for t in ticks) else []


def _label(value: float) -> str:
    if value != 0 and (abs(value) >= 1e5 or abs(value) < 1e-3):
        return f"{value:.3g}"
    return f"{value:g}"


class _Frame:
    def __init__(self, xs: Sequence[float], ys: Sequence[float], height: int = HEIGHT) -> None:
        self.height = height
        self.xticks = nice_ticks(min(xs), max(xs))
        self.yticks = nice_ticks(min(ys), max(ys)) if ys else []

    def x(self, value: float) -> float:
        low, high = self.xticks[0], self.xticks[-1]
        return LEFT + (value - low) / ((high - low) or 1.0) * (WIDTH - LEFT - RIGHT)

    def y(self, value: float) -> float:
        low, high = self.yticks[0], self.yticks[-1]
        return self.height - BOTTOM - (value - low) / ((high - low) or 1.0) * (self.height - TOP - BOTTOM)

    def axes(self, x_title: str, y_title: str) -> list[str]:
        bottom = self.height - BOTTOM
        parts = [f'<line class="axis" x1="{LEFT}" y1="{bottom}" x2="{WIDTH - RIGHT}" y2="{bottom}"/>']
        for tick in self.xticks:
            px = self.x(tick)
            parts.append(f'<text class="tick" x="{px:.1f}" y="{bottom + 16}" text-anchor="middle">'
                         f'{_label(tick)}</text>')
        for tick in self.yticks:
            py = self.y(tick)
            parts.append(f'<line class="grid" x1="{LEFT}" y1="{py:.1f}" x2="{WIDTH - RIGHT}" y2="{py:.1f}"/>')
            parts.append(f'<text class="tick" x="{LEFT - 6}" y="{py + 4:.1f}" text-anchor="end">'
                         f'{_label(tick)}</text>')
        parts.append(f'<text class="axis-title" x="{(LEFT + WIDTH - RIGHT) / 2:.0f}" y="{self.height - 6}" '
                     f'text-anchor="middle">{escape(x_title)}</text>')
        if y_title:
            parts.append(f'<text class="axis-title" transform="translate(14 {(TOP + bottom) / 2:.0f}) '
                         f'rotate(-90)" text-anchor="middle">{escape(y_title)}</text>')
        return parts


def _svg(css_class: str, title: str, height: int, body: list[str]) -> str:
    return (f'<svg class="{css_class}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
            f'width="{WIDTH}" height="{height}" role="img" aria-label="{escape(title)}">'
            f'<title>{escape(title)}</title>' + "".join(body) + "</svg>")


def accuracy_chart(series: Sequence[Series], target: float | None, x_title: str, y_title: str) -> str:
    """Eval accuracy curves, one per run, with the quality target as a dashed line."""
    drawn = [s for s in series if s.points]
    xs = [x for s in drawn for x, _ in s.points]
    ys = [y for s in drawn for _, y in s.points] + ([target] if target is not None else [])
    frame = _Frame(xs, ys) if xs else None
    if frame is None or not frame.xticks or not frame.yticks:
        return '<p class="no-chart">No eval_accuracy values to plot.</p>'

    body = frame.axes(x_title, y_title)
    if target is not None:
        ty = frame.y(target)
        body.append(f'<line class="target" x1="{LEFT}" y1="{ty:.1f}" x2="{WIDTH - RIGHT}" y2="{ty:.1f}">'
                    f'<title>target {target:g}</title></line>')
        body.append(f'<text class="target-label" x="{WIDTH - RIGHT - 4}" y="{ty - 4:.1f}" '
                    f'text-anchor="end">target {target:g}</text>')
    for position, item in enumerate(drawn):
        points = " ".join(f"{frame.x(x):.1f},{frame.y(y):.1f}" for x, y in item.points)
        dash = "" if item.converged else ' stroke-dasharray="4 3"'
        body.append(f'<polyline class="curve" data-run="{escape(item.label)}" fill="none" '
                    f'stroke="{PALETTE[position % len(PALETTE)]}"{dash} points="{points}">'
                    f'<title>{escape(item.label)}</title></polyline>')
    return _svg("chart chart-accuracy", f"{y_title} versus {x_title}", HEIGHT, body)


def run_time_strip(marks: Sequence[Mark], score: float | None) -> str:
    """Run times on one axis: filled dots counted in the score, hollow dots dropped, red not converged."""
    if not marks:
        return '<p class="no-chart">No run times.</p>'
    height = 110
    values = [m.minutes for m in marks if math.isfinite(m.minutes)]
    values += [score] if score is not None and math.isfinite(score) else []
    frame = _Frame(values, [], height) if values else None
    if frame is None or not frame.xticks:
        return '<p class="no-chart">No run times.</p>'
    marks = [m for m in marks if math.isfinite(m.minutes)]
    body = frame.axes("minutes from run_start to run_stop", "")
    middle = (TOP + height - BOTTOM) / 2
    if score is not None and math.isfinite(score):
        sx = frame.x(score)
        body.append(f'<line class="score-line" x1="{sx:.1f}" y1="{TOP}" x2="{sx:.1f}" y2="{height - BOTTOM}">'
                    f'<title>score {score:.2f} min</title></line>')
    for position, mark in enumerate(marks):
        cy = middle + (position % 3 - 1) * 9
        fill = ("#2ca02c" if mark.counted else "#ffffff") if mark.converged else "#d62728"
        state = ("counted" if mark.counted else "dropped") + ("" if mark.converged else ", not converged")
        body.append(f'<circle class="run-time" cx="{frame.x(mark.minutes):.1f}" cy="{cy:.1f}" r="5" '
                    f'fill="{fill}" stroke="#333"><title>{escape(mark.label)}: {mark.minutes:.2f} min '
                    f'({state})</title></circle>')
    return _svg("chart chart-times", "run times", height, body)
