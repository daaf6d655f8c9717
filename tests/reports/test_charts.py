from datetime import UTC, datetime, timedelta

from reports import charts

START = datetime(2026, 10, 1, tzinfo=UTC)
PAGE = "https://shop.example/"


def day(n: int) -> datetime:
    return START + timedelta(days=n)


def test_no_history_draws_no_chart():
    assert charts.score_chart([]) is None


def test_points_are_placed_by_time_and_score():
    chart = charts.score_chart([(PAGE, START, 0), (PAGE, day(1), 100), (PAGE, day(4), 50)])

    xs = [point.x for point in chart.points]
    ys = [point.y for point in chart.points]
    assert xs[0] == charts.LEFT and xs[-1] == charts.WIDTH - charts.RIGHT
    assert xs[1] - xs[0] == (xs[2] - xs[0]) / 4  # one day of four
    assert ys == [charts.HEIGHT - charts.BOTTOM, charts.TOP, (charts.TOP + charts.HEIGHT - charts.BOTTOM) / 2]


def test_each_url_gets_its_own_line_on_a_shared_time_axis():
    chart = charts.score_chart(
        [("https://a.example/", START, 40), ("https://b.example/x", day(1), 90), ("https://a.example/", day(2), 60)]
    )

    assert [series.url for series in chart.series] == ["https://a.example/", "https://b.example/x"]
    a, b = chart.series
    assert [point.score for point in a.points] == [40, 60]
    assert [point.x for point in a.points] == [charts.LEFT, charts.WIDTH - charts.RIGHT]
    assert b.points[0].x == (charts.LEFT + charts.WIDTH - charts.RIGHT) / 2
    assert [series.css_class for series in chart.series] == ["series-0", "series-1"]


def test_only_the_most_recently_analysed_urls_are_drawn_and_the_rest_are_counted():
    history = [(f"https://a.example/{n}", day(n), 50) for n in range(charts.MAX_LINES + 2)]

    chart = charts.score_chart(history)

    assert len(chart.series) == charts.MAX_LINES
    assert chart.series[0].url == "https://a.example/2"
    assert chart.left_out == 2


def test_reports_of_the_same_instant_are_spread_evenly_and_one_report_is_centred():
    same = charts.score_chart([(PAGE, START, 10), (PAGE, START, 20), (PAGE, START, 30)])
    one = charts.score_chart([(PAGE, START, 70)])

    middle = (charts.LEFT + charts.WIDTH - charts.RIGHT) / 2
    assert [point.x for point in same.points] == [charts.LEFT, middle, charts.WIDTH - charts.RIGHT]
    assert one.points[0].x == middle


def test_summary_says_each_urls_trend_in_words():
    chart = charts.score_chart(
        [(PAGE, START, 40), ("https://shop.example/b", day(1), 60), (PAGE, day(2), 85)], label="SEO score"
    )
    one = charts.score_chart([(PAGE, START, 60)])

    assert chart.summary == (
        "SEO score of 2 URLs from Oct. 1, 2026 to Oct. 3, 2026."
        " https://shop.example/: 2 reports, score 40 to 85 (up 45)."
        " https://shop.example/b: one report, score 60."
    )
    assert one.summary == "Score of 1 URL on Oct. 1, 2026. https://shop.example/: one report, score 60."


def test_score_axis_labels_are_distinct_and_include_the_band_floors(settings):
    assert [tick.label for tick in charts.score_chart([(PAGE, START, 70)]).ticks] == ["0", "50", "80", "100"]

    settings.REPORTS_RATING_BANDS = '{"good": 90, "decent": 60}'
    chart = charts.score_chart([(PAGE, START, 70)])

    assert {band.label: band.y for band in chart.bands} == {"good": charts._y(90), "decent": charts._y(60)}
    assert [tick.label for tick in chart.ticks] == ["0", "60", "90", "100"]
