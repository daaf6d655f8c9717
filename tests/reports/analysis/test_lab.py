"""Lab metrics (reports/analysis/lab.py): the trace's main thread, the network model, Lighthouse's ratings."""

import json
import time

import pytest

from reports.analysis import lab

PAGE = "https://shop.example/"
MAIN, OTHER = (10, 1), (10, 2)
FRAME = "F1"


def event(name, ts, *, thread=MAIN, ph="I", frame=FRAME, **extra):
    return {"name": name, "ts": ts, "pid": thread[0], "tid": thread[1], "ph": ph, "args": {"frame": frame}, **extra}


def task(ts_ms, wall_ms, cpu_ms, thread=MAIN):
    return event("RunTask", ts_ms * 1000, thread=thread, ph="X", dur=wall_ms * 1000, tdur=cpu_ms * 1000)


def trace(*events) -> bytes:
    return json.dumps({"traceEvents": list(events)}).encode()


@pytest.mark.parametrize(
    ("metric", "value", "rating", "score"),
    [
        ("lcp", 2500, "good", 0.9),
        ("lcp", 2501, "needs-improvement", 0.89),
        ("lcp", 4000, "needs-improvement", 0.5),
        ("lcp", 4001, "poor", 0.49),
        ("tbt", 0, "good", 1.0),
        ("tbt", 600, "needs-improvement", 0.5),
        ("cls", 0.1, "good", 0.9),
        ("cls", 0.3, "poor", 0.4),
        ("fcp", 1800, "good", 0.9),
    ],
)
def test_ratings_and_scores_follow_lighthouses_thresholds(metric, value, rating, score):
    rated = lab.rate(metric, value)

    assert rated["rating"] == rating
    assert rated["score"] == pytest.approx(score, abs=0.011)


def test_layout_shift_is_the_worst_session_window():
    # Two bursts more than a second apart: the second (0.15 + 0.1) is the worst.
    shifts = [[100, 0.05], [300, 0.05], [2000, 0.15], [2500, 0.1]]

    assert lab.layout_shift(shifts) == pytest.approx(0.25)
    assert lab.layout_shift([]) == 0


def test_metrics_count_cpu_time_four_times_and_add_the_modelled_network():
    events = trace(
        event("navigationStart", 1_000_000),
        task(1000, 40, 20),  # parsing before the first paint: 20 ms of CPU
        event("firstContentfulPaint", 1_050_000),
        task(1100, 300, 100),  # a script after it: 100 ms of CPU, 4 x 100 - 50 = 350 ms blocking
        event("largestContentfulPaint::Candidate", 1_500_000),
        task(1600, 500, 100, thread=OTHER),  # another thread's work counts for nothing
    )
    document = 18_432  # bytes on the wire: 100 ms at Lighthouse's 1.6 Mbit/s less 10 %

    measured = lab.metrics(events, {"shifts": [[700, 0.3]], "resources": []}, PAGE, {PAGE: document})

    network = 4 * lab.RTT_MS + 100
    assert measured["fcp"]["value"] == round(network + 4 * 20)
    assert measured["lcp"]["value"] == round(network + 4 * (20 + 100))
    assert measured["tbt"] == {"value": 350, "unit": "ms", "rating": "needs-improvement", "score": 0.74}
    assert measured["cls"]["rating"] == "poor"
    assert measured["profile"] == {"rtt_ms": 150, "throughput_kbps": 1638.4, "cpu_slowdown": 4}


def script(url, ts_ms):
    return event("EvaluateScript", ts_ms * 1000, ph="X", dur=1000, args={"data": {"url": url}})


def test_a_long_task_before_the_paint_counts_half_when_it_runs_only_the_page_s_inline_scripts():
    events = trace(
        event("navigationStart", 0),
        task(10, 100, 60),  # the page's inline script draws a chart: 4 x 60 - 50 = 190 ms, half counts
        script(PAGE + "#top", 20),
        task(200, 100, 60),  # a library's script before the paint, as Lighthouse waits for it: nothing
        script("https://shop.example/chart.js", 210),
        task(400, 100, 60),  # both in one task: nothing
        script(PAGE, 410),
        script("https://shop.example/chart.js", 420),
        task(600, 100, 60),  # parsing alone: nothing
        event("firstContentfulPaint", 800_000),
    )

    measured = lab.metrics(events, {"resources": []}, PAGE, {PAGE: 0})

    assert measured["tbt"]["value"] == 95


def test_render_blocking_resources_and_an_image_as_largest_element_add_their_round_trips():
    events = trace(event("navigationStart", 0), event("firstContentfulPaint", 10_000))
    observed = {
        "resources": [["https://cdn.example/app.css", True, 5.0], ["https://shop.example/late.js", False, 5.0]],
        "lcpUrl": "https://shop.example/hero.jpg",
    }

    measured = lab.metrics(events, observed, PAGE, {PAGE: 0, "https://shop.example/hero.jpg": 18_432})

    # Another origin's stylesheet: three round trips; the image: one more and its 100 ms.
    assert measured["fcp"]["value"] == 4 * 150 + 3 * 150
    assert measured["lcp"]["value"] == 4 * 150 + 3 * 150 + 150 + 100


def test_the_other_requests_made_before_the_largest_paint_add_half_their_time_on_the_wire():
    events = trace(
        event("navigationStart", 0),
        event("firstContentfulPaint", 10_000),
        event("largestContentfulPaint::Candidate", 400_000),
    )
    photos = [f"https://shop.example/photo-{n}.jpg" for n in range(3)]
    observed = {
        "resources": [
            ["https://shop.example/app.css", True, 5.0],
            [photos[0], False, 50.0],
            [photos[1], False, 390.0],
            [photos[2], False, 600.0],  # requested after the largest paint: no matter
        ],
        "lcpUrl": photos[0],
    }
    sizes = {PAGE: 0, "https://shop.example/app.css": 18_432, **dict.fromkeys(photos, 36_864)}

    measured = lab.metrics(events, observed, PAGE, sizes)

    # Optimistic: the stylesheet's round trip and 100 ms, the image's round trip and 200 ms.
    # Pessimistic: photo-1's 200 ms on the same wire as well; the metric is the mean of the two.
    assert measured["fcp"]["value"] == 4 * 150 + 150 + 100
    assert measured["lcp"]["value"] == 4 * 150 + 150 + 100 + 150 + 200 + 200 / 2


def test_a_page_that_never_paints_has_no_timings():
    measured = lab.metrics(trace(task(0, 10, 10)), {"shifts": []}, PAGE, {})

    assert measured["fcp"]["value"] is measured["lcp"]["value"] is measured["tbt"]["value"] is None
    assert measured["cls"]["value"] == 0


def test_a_task_that_lays_the_page_out_is_slowed_half_as_much_as_lighthouse_s_simulation_does():
    events = trace(
        event("navigationStart", 0),
        task(0, 40, 20),  # parsing: 4 x 20 ms
        task(50, 40, 30),  # the first layout: 2 x 30 ms
        event("Layout", 60_000, ph="X", dur=20_000),
        event("firstContentfulPaint", 100_000),
        task(200, 150, 100),  # a script: 4 x 100 - 50 = 350 ms blocking
        event("Layout", 210_000, ph="X", dur=90_000, thread=OTHER),  # another thread's layout: no matter
        task(400, 150, 100),  # a layout of the whole page: 2 x 100 - 50 = 150 ms
        event("Layout", 410_000, ph="X", dur=90_000),
    )

    measured = lab.metrics(events, {"resources": []}, PAGE, {PAGE: 0})

    assert measured["fcp"]["value"] == 4 * lab.RTT_MS + 4 * 20 + 2 * 30
    assert measured["tbt"]["value"] == 350 + 150


SHIFTING_PAGE = """<!DOCTYPE html><html lang="en"><head><title>Moves</title></head><body>
<div id="banner"></div><h1>Spades</h1><p>Forged to last.</p>
<script>setTimeout(() => { document.getElementById("banner").style.height = "300px"; }, 50);</script>
</body></html>"""


@pytest.mark.browser
def test_a_page_without_layout_shifts_is_read_at_once(page):
    page.set_content("<!DOCTYPE html><html lang='en'><title>Still</title><h1>Nothing moves here</h1></html>")
    started = time.monotonic()

    observed = page.evaluate(lab.READ_SCRIPT)

    assert observed["shifts"] == []
    # It waited a second for a shift that never came: on every rendering of a quiet page.
    assert time.monotonic() - started < 1


@pytest.mark.browser
def test_the_layout_shifts_before_the_read_are_read(page):
    page.set_content(SHIFTING_PAGE)
    page.wait_for_timeout(500)

    observed = page.evaluate(lab.READ_SCRIPT)

    assert len(observed["shifts"]) == 1
    assert observed["shifts"][0][1] > 0.1
