"""Unique visits per day, and the geometry of the bar chart that shows them.

The chart is an SVG drawn by the template (shortener/visits_chart.html) from these
numbers: no script, no CDN, no inline style (its colours are classes in shortener.css),
so it keeps the site's CSP and follows dark mode. The per-day counts come from DailyVisits
(per link) and SiteDailyVisits (all links), which the visit batch writer keeps in the
transaction that writes the Visit rows: a chart reads at most CHART_DAYS rows, whatever the
traffic, and never the Visit rows (docs/scale.md).
"""

import datetime
from dataclasses import dataclass

from django.contrib.humanize.templatetags.humanize import intcomma
from django.db.models import QuerySet
from django.utils import dateformat, timezone
from django.utils.formats import date_format
from django.utils.html import format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import ngettext, pgettext

from shortener.models import DailyVisits, SiteDailyVisits

CHART_DAYS = 30
# viewBox units; the SVG scales to its container's width.
WIDTH, HEIGHT = 600, 180
TOP, BOTTOM, LEFT = 16, 24, 8
BAR_GAP = 2


@dataclass(frozen=True)
class Bar:
    day: datetime.date
    visits: int
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class Chart:
    bars: list[Bar]
    total: int
    peak: int
    width: int = WIDTH
    height: int = HEIGHT
    baseline: int = HEIGHT - BOTTOM
    label_y: int = HEIGHT - 6
    peak_y: int = TOP - 4

    # The bars and the table rows as markup, built here rather than by template loops: 30
    # bars of filters and tags cost ~20 ms of template rendering a page (docs/scale.md).
    # Their words and dates are in the language active when the page renders them.
    def bars_svg(self) -> SafeString:
        day_format = pgettext("chart bar's day (Django date format)", "D j M")
        return format_html_join(
            "",
            '<rect class="bar" x="{}" y="{}" width="{}" height="{}" data-day="{}" data-visits="{}">'
            "<title>{}</title></rect>",
            (
                (
                    *(bar.x, bar.y, bar.width, bar.height, bar.day.isoformat(), bar.visits),
                    _bar_title(dateformat.format(bar.day, day_format), bar.visits),
                )
                for bar in self.bars
            ),
        )

    def table_rows(self) -> SafeString:
        return format_html_join(
            "",
            '<tr><td><time datetime="{}">{}</time></td><td class="number">{}</td></tr>',
            ((bar.day.isoformat(), date_format(bar.day), intcomma(bar.visits)) for bar in reversed(self.bars)),
        )

    @property
    def first_day(self) -> datetime.date:
        return self.bars[0].day

    @property
    def last_day(self) -> datetime.date:
        return self.bars[-1].day


def _bar_title(day: str, visits: int) -> str:
    return ngettext("{day}: {count} unique visit", "{day}: {count} unique visits", visits).format(
        day=day, count=intcomma(visits)
    )


def chart_days(today: datetime.date | None = None) -> list[datetime.date]:
    """The last CHART_DAYS UTC days, oldest first, today included."""
    today = today or timezone.now().date()
    return [today - datetime.timedelta(days=offset) for offset in range(CHART_DAYS - 1, -1, -1)]


def visits_per_day(counts: QuerySet, days: list[datetime.date]) -> dict[datetime.date, int]:
    """Unique visits on each of `days` (0 for days without any), from a per-day count table."""
    rows = counts.filter(day__gte=days[0], day__lte=days[-1]).values_list("day", "visits")
    found = dict(rows.order_by())
    return {day: found.get(day, 0) for day in days}


def link_chart(link_id: int) -> Chart:
    days = chart_days()
    return bar_chart(visits_per_day(DailyVisits.objects.filter(link_id=link_id), days))


def site_chart() -> Chart:
    days = chart_days()
    return bar_chart(visits_per_day(SiteDailyVisits.objects.all(), days))


def bar_chart(per_day: dict[datetime.date, int]) -> Chart:
    peak = max(per_day.values(), default=0)
    slot = (WIDTH - LEFT * 2) / len(per_day)
    plot_height = HEIGHT - TOP - BOTTOM
    bars = []
    for index, (day, visits) in enumerate(per_day.items()):
        # A day with visits gets at least a sliver, so that one visit among thousands still shows.
        height = 0.0 if not visits else max(1.5, plot_height * visits / peak)
        bars.append(
            Bar(
                day=day,
                visits=visits,
                x=round(LEFT + index * slot + BAR_GAP / 2, 2),
                y=round(HEIGHT - BOTTOM - height, 2),
                width=round(slot - BAR_GAP, 2),
                height=round(height, 2),
            )
        )
    return Chart(bars=bars, total=sum(per_day.values()), peak=peak)
