"""A project's scores over time as an SVG line chart, drawn on the server: one line per URL.

No chart library and no script: the geometry is computed here and the template
`reports/score_chart.html` writes it out as SVG with classes only (no inline
style), which the site's strict Content Security Policy allows and which prints.
A project holds many URLs; each gets its own line (a project's URLs are different
pages, and one line through all of them would zigzag between pages, not show a
trend), at most MAX_LINES of them, the most recently analysed.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.utils.formats import date_format
from django.utils.translation import gettext, ngettext

from reports.analysis import config
from reports.models import ReportResult

WIDTH, HEIGHT = 600, 200
# Room for the score axis and its title on the left, the dates and the axis title below.
LEFT, RIGHT, TOP, BOTTOM = 52, 12, 22, 40
MAX_LINES = 6


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
    value: float = 0

    @property
    def rating_label(self) -> str:
        """A band's rating in words, in the reader's language ("Good"); a tick's label as it is."""
        return str(dict(ReportResult.choices).get(self.label, self.label))


@dataclass(frozen=True)
class Series:
    """One URL's scores, oldest first."""

    url: str
    points: list[Point]
    css_class: str

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
        if len(self.points) == 1:
            return gettext("%(url)s: one report, score %(score)s.") % {"url": self.url, "score": self.first.score}
        change = self.last.score - self.first.score
        values = {
            "url": self.url,
            "count": len(self.points),
            "first": self.first.score,
            "last": self.last.score,
            "change": abs(change),
        }
        if change > 0:
            sentence = ngettext(
                "%(url)s: %(count)s report, score %(first)s to %(last)s (up %(change)s).",
                "%(url)s: %(count)s reports, score %(first)s to %(last)s (up %(change)s).",
                len(self.points),
            )
        elif change < 0:
            sentence = ngettext(
                "%(url)s: %(count)s report, score %(first)s to %(last)s (down %(change)s).",
                "%(url)s: %(count)s reports, score %(first)s to %(last)s (down %(change)s).",
                len(self.points),
            )
        else:
            sentence = ngettext(
                "%(url)s: %(count)s report, score %(first)s to %(last)s (unchanged).",
                "%(url)s: %(count)s reports, score %(first)s to %(last)s (unchanged).",
                len(self.points),
            )
        return sentence % values


@dataclass(frozen=True)
class ScoreChart:
    width: int
    height: int
    series: list[Series]
    ticks: list[Line]
    bands: list[Line]
    left: int
    right: float
    top: int
    bottom: float
    start: datetime
    end: datetime
    label: str
    # URLs with reports that are not drawn (more than MAX_LINES).
    left_out: int = 0

    @property
    def points(self) -> list[Point]:
        return [point for series in self.series for point in series.points]

    @property
    def last(self) -> Point:
        """The most recent report drawn."""
        return max((series.last for series in self.series), key=lambda point: point.generated_at)

    @property
    def middle(self) -> float:
        return (self.left + self.right) / 2

    @property
    def summary(self) -> str:
        """The chart in words, for screen readers (the SVG's title), in the reader's language and date format."""
        values = {
            "chart": self.label,
            "count": len(self.series),
            "start": date_format(self.start, "DATE_FORMAT"),
            "end": date_format(self.end, "DATE_FORMAT"),
        }
        if self.start.date() == self.end.date():
            sentence = ngettext(
                "%(chart)s of %(count)s URL on %(start)s.",
                "%(chart)s of %(count)s URLs on %(start)s.",
                len(self.series),
            )
        else:
            sentence = ngettext(
                "%(chart)s of %(count)s URL from %(start)s to %(end)s.",
                "%(chart)s of %(count)s URLs from %(start)s to %(end)s.",
                len(self.series),
            )
        return " ".join([sentence % values, *(series.summary for series in self.series)])


def _y(score: float) -> float:
    return round(TOP + (HEIGHT - TOP - BOTTOM) * (1 - score / 100), 1)


def score_chart(history: Sequence[tuple[str, datetime, int]], label: str = "") -> ScoreChart | None:
    """The chart of (url, generated_at, score) triples, oldest first; None when there is nothing to draw."""
    if not history:
        return None
    by_url: dict[str, list[tuple[datetime, int]]] = {}
    for url, generated_at, score in history:
        by_url.setdefault(url, []).append((generated_at, score))
    # The most recently analysed URLs; their lines keep the order of their first report.
    drawn = sorted(by_url, key=lambda url: by_url[url][-1][0], reverse=True)[:MAX_LINES]
    drawn.sort(key=lambda url: by_url[url][0][0])
    times = [generated_at for url in drawn for generated_at, _ in by_url[url]]
    start, end = min(times), max(times)
    span = (end - start).total_seconds()
    plot_width = WIDTH - LEFT - RIGHT
    series = []
    for number, url in enumerate(drawn):
        points = []
        for index, (generated_at, score) in enumerate(by_url[url]):
            if span > 0:
                share = (generated_at - start).total_seconds() / span
            else:  # one report, or all at the same instant: spread a line's points evenly
                count = len(by_url[url])
                share = index / (count - 1) if count > 1 else 0.5
            points.append(Point(round(LEFT + plot_width * share, 1), _y(score), score, generated_at))
        series.append(Series(url, points, f"series-{number}"))
    bands = config.rating_bands()
    band_lines = [
        Line(_y(bands[name]), name, f"band band-{name}", bands[name]) for name in ("good", "decent") if name in bands
    ]
    # The score axis is labelled at its ends and at the bands' floors, each value once.
    values = sorted({0, 100, *(round(line.value) for line in band_lines)})
    return ScoreChart(
        width=WIDTH,
        height=HEIGHT,
        series=series,
        ticks=[Line(_y(value), str(value), "tick", value) for value in values],
        bands=band_lines,
        left=LEFT,
        right=WIDTH - RIGHT,
        top=TOP,
        bottom=HEIGHT - BOTTOM,
        start=start,
        end=end,
        label=label or gettext("Score"),
        left_out=len(by_url) - len(drawn),
    )
