"""bench/engine_corpus.py --renderings: our lab metrics are compared as their median, like Lighthouse's (issue 21)."""

import re
import subprocess
from types import SimpleNamespace

from bench import engine_corpus


def metrics(tbt):
    return {key: {"value": tbt if key == "tbt" else 1000} for key in engine_corpus.METRICS}


def tbt_line(output):
    return re.search(r"TBT ours ~ Lighthouse's\s+(-?\d\.\d\d)", output).group(1)


def test_the_median_of_the_renderings_is_what_ranks(capsys):
    files = ["a.html", "b.html", "c.html"]
    lighthouse = {file: {"metrics": metrics(tbt)} for file, tbt in zip(files, (0, 100, 300), strict=True)}
    # The analyses' own renderings rank the pages backwards; two more renderings each set it right.
    rendered = {
        file: (SimpleNamespace(metrics=metrics(tbt)), 1.0) for file, tbt in zip(files, (500, 200, 0), strict=True)
    }
    renderings = {
        "a.html": [metrics(500), metrics(10), metrics(20)],
        "b.html": [metrics(200), metrics(150), metrics(90)],
        "c.html": [metrics(0), metrics(400), metrics(350)],
    }

    engine_corpus.lab_metrics(rendered, files, lighthouse, {})
    assert tbt_line(capsys.readouterr().out) == "-1.00"

    engine_corpus.lab_metrics(rendered, files, lighthouse, renderings)
    output = capsys.readouterr().out
    assert tbt_line(output) == "1.00"
    assert "ours of 3" in output


def test_a_page_lighthouse_could_not_score_is_left_out_of_the_score_ranks(capsys):
    def analysed(score):
        result = SimpleNamespace(score=score, scores={"seo": score, "accessibility": score}, results={})
        result.metrics = metrics(0)
        return result, 1.0

    def lighthouse(score):
        categories = dict.fromkeys(engine_corpus.CATEGORIES, score)
        return {"categories": categories, "audits": {}, "metrics": metrics(0)}

    files = ["a.html", "b.html", "c.html", "unscored.html"]
    rendered = {file: analysed(score) for file, score in zip(files, (90, 60, 30, 50), strict=True)}
    theirs = {file: lighthouse(score) for file, score in zip(files, (0.9, 0.6, 0.3, None), strict=True)}

    engine_corpus.report("held-out", files, {}, rendered, theirs, {})

    output = capsys.readouterr().out
    assert "(3 pages Lighthouse scored)" in output
    assert re.search(r"rendered: score ~ mean of Lighthouse SEO, a11y, BP\s+1\.00 .* n=3", output)
    assert re.search(r"^unscored\.html\s+50\s+50\s+50$", output, re.MULTILINE)


def test_lighthouse_measured_again_keeps_the_earlier_runs_apart_and_resumes(tmp_path, monkeypatch):
    cache = tmp_path / "lighthouse.json"
    earlier = [metrics(900), metrics(1200)]
    engine_corpus.save_lighthouse({"a.html": {"metrics": metrics(900), "metric_runs": earlier}}, cache)
    corpus = SimpleNamespace(cache=cache, url=lambda file, browser: f"https://127.0.0.1/{file}")
    measured = iter((40, 50, 60, 70))
    monkeypatch.setattr(engine_corpus, "run_lighthouse_categories", lambda *args: {"metrics": metrics(next(measured))})

    engine_corpus.repeat_lighthouse(corpus, ["a.html"], "lighthouse", 2, 1, again=True)
    entry = engine_corpus.cached_lighthouse(cache)["a.html"]
    assert entry["metric_runs_earlier"] == earlier
    assert [run["tbt"]["value"] for run in entry["metric_runs"]] == [40, 50]
    assert all(isinstance(run["load"], float) for run in entry["metric_runs"])
    assert engine_corpus.lighthouse_metric(entry, "tbt") == 45

    # Asked again for three runs: the two new ones stay, one more is made, nothing is moved twice.
    engine_corpus.repeat_lighthouse(corpus, ["a.html"], "lighthouse", 3, 1, again=True)
    entry = engine_corpus.cached_lighthouse(cache)["a.html"]
    assert entry["metric_runs_earlier"] == earlier
    assert [run["tbt"]["value"] for run in entry["metric_runs"]] == [40, 50, 60]


def test_a_page_lighthouse_cannot_time_again_has_no_reference_left(tmp_path, monkeypatch):
    cache = tmp_path / "lighthouse.json"
    engine_corpus.save_lighthouse({"a.html": {"metrics": metrics(900), "metric_runs": [metrics(900)]}}, cache)
    corpus = SimpleNamespace(cache=cache, url=lambda file, browser: f"https://127.0.0.1/{file}")

    def fails(*args):
        raise subprocess.CalledProcessError(1, "lighthouse")

    monkeypatch.setattr(engine_corpus, "run_lighthouse_categories", fails)

    engine_corpus.repeat_lighthouse(corpus, ["a.html"], "lighthouse", 3, 1, again=True)
    entry = engine_corpus.cached_lighthouse(cache)["a.html"]
    assert entry["metric_runs_earlier"] == [metrics(900)]
    assert entry["metric_runs"] == []
    assert engine_corpus.lighthouse_metric(entry, "tbt") is None
