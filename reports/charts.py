"""A project's score over time as an SVG line chart, drawn on the server.

No chart library and no script: the geometry is computed here and the template
`reports/score_chart.html` writes it out as SVG with classes only (no inline
style), which the site's strict Content Security Policy allows and which prints.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from reports.analysis import config

WIDTH, HEIGHT = 600, 180
# Room for the score axis on the left and the dates below.
LEFT, RIGHT, TOP, BOTTOM = 46, 12, 10, 30
SCORE_TICKS = (0, 50, 100)


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    score: int
    generated_at: datetime


@dataclass(frozen=True)
class Line:
    y: float
    label: str
    css_class: str


@dataclass(frozen=True)
class ScoreChart:
    width: int
    height: int
    points: list[Point]
    ticks: list[Line]
    bands: list[Line]
    left: int
    right: float
    bottom: float

    @property
    def polyline(self) -> str:
        return " ".join(f"{point.x},{point.y}" for point in self.points)

    @property
    def first(self) -> Point:
        return self.points[0]

    @property
    def last(self) -> Point:
        return self.points[-1]

    @property
    def summary(self) -> str:
        """The chart in words, for screen readers (the SVG's title)."""
        if len(self.points) == 1:
            return f"One report, score {self.first.score}."
        change = self.last.score - self.first.score
        trend = f"up {change}" if change > 0 else f"down {-change}" if change < 0 else "unchanged"
        first, last = self.first, self.last
        return (
            f"{len(self.points)} reports from {first.generated_at:%-d %b %Y} to {last.generated_at:%-d %b %Y}:"
            f" score {first.score} to {last.score} ({trend})."
        )


def _y(score: float) -> float:
    return round(TOP + (HEIGHT - TOP - BOTTOM) * (1 - score / 100), 1)


def score_chart(history: Sequence[tuple[datetime, int]]) -> ScoreChart | None:
    """The chart of (generated_at, score) pairs, oldest first; None when there is nothing to draw."""
    if not history:
        return None
    start, end = history[0][0], history[-1][0]
    span = (end - start).total_seconds()
    plot_width = WIDTH - LEFT - RIGHT
    points = []
    for index, (generated_at, score) in enumerate(history):
        if span > 0:
            share = (generated_at - start).total_seconds() / span
        else:  # one report, or all at the same instant: spread them evenly
            share = index / (len(history) - 1) if len(history) > 1 else 0.5
        points.append(Point(round(LEFT + plot_width * share, 1), _y(score), score, generated_at))
    bands = config.rating_bands()
    return ScoreChart(
        width=WIDTH,
        height=HEIGHT,
        points=points,
        ticks=[Line(_y(score), str(score), "tick") for score in SCORE_TICKS],
        bands=[Line(_y(bands[name]), name, f"band band-{name}") for name in ("good", "decent") if name in bands],
        left=LEFT,
        right=WIDTH - RIGHT,
        bottom=HEIGHT - BOTTOM,
    )
