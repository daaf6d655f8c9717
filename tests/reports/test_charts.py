from datetime import UTC, datetime, timedelta

from reports import charts

START = datetime(2026, 10, 1, tzinfo=UTC)


def test_no_history_draws_no_chart():
    assert charts.score_chart([]) is None


def test_points_are_placed_by_time_and_score():
    chart = charts.score_chart([(START, 0), (START + timedelta(days=1), 100), (START + timedelta(days=4), 50)])

    xs = [point.x for point in chart.points]
    ys = [point.y for point in chart.points]
    assert xs[0] == charts.LEFT and xs[-1] == charts.WIDTH - charts.RIGHT
    assert xs[1] - xs[0] == (xs[2] - xs[0]) / 4  # one day of four
    assert ys == [charts.HEIGHT - charts.BOTTOM, charts.TOP, (charts.TOP + charts.HEIGHT - charts.BOTTOM) / 2]


def test_reports_of_the_same_instant_are_spread_evenly_and_one_report_is_centred():
    same = charts.score_chart([(START, 10), (START, 20), (START, 30)])
    one = charts.score_chart([(START, 70)])

    middle = (charts.LEFT + charts.WIDTH - charts.RIGHT) / 2
    assert [point.x for point in same.points] == [charts.LEFT, middle, charts.WIDTH - charts.RIGHT]
    assert one.points[0].x == middle


def test_summary_says_the_trend_in_words():
    up = charts.score_chart([(START, 40), (START + timedelta(days=2), 85)])
    flat = charts.score_chart([(START, 60), (START + timedelta(days=2), 60)])
    one = charts.score_chart([(START, 60)])

    assert up.summary == "2 reports from 1 Oct 2026 to 3 Oct 2026: score 40 to 85 (up 45)."
    assert flat.summary.endswith("(unchanged).")
    assert one.summary == "One report, score 60."


def test_rating_bands_follow_the_settings(settings):
    settings.REPORTS_RATING_BANDS = '{"good": 90, "decent": 60}'

    chart = charts.score_chart([(START, 70)])

    assert {band.label: band.y for band in chart.bands} == {"good": charts._y(90), "decent": charts._y(60)}
