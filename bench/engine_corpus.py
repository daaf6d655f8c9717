"""The analysis engine on the real-page corpus, next to Lighthouse 12 where it is installed.

Serves tests/reports/corpus over HTTPS on 127.0.0.1 (the test site, a throw-away CA: port
P offers HTTP/2 by ALPN to our engine's probe, as GitHub Pages would; browsers get the same
pages on P+1, which offers only HTTP/1.1, the one protocol the test site speaks) and
prints, for the pages written by others:

- per page: our score and rating, Lighthouse's SEO, accessibility and best-practices scores;
- per audit both tools run: how often they agree;
- per check: how many pages fail it (none should fail on more than 80 %);
- Spearman's rank correlation of our score with the mean of the three Lighthouse scores;
- the median analysis time, without rendering and (with --render) rendered.

    npm install --prefix bench/.lighthouse lighthouse@12      # once; optional
    .venv/bin/python bench/engine_corpus.py [--render] [--port 18343]

Nothing leaves the machine: our engine resolves only 127.0.0.1, and Chromium (under
Lighthouse and in rendered mode) sends everything but 127.0.0.1 to a dead proxy.
Lighthouse's answers are cached in bench/results-lighthouse.json, keyed by the page's hash.
"""

import argparse
import hashlib
import json
import os
import shutil
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("SECRET_KEY", "benchmark-only-secret-key-0123456789abcdefghijklmnopqrstuvwxyz")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402

from reports.analysis import analyze, fetch, netguard  # noqa: E402
from tests.reports.corpus import PAGES_DIR, SOURCES  # noqa: E402
from tests.reports.testsite import TestSite, make_certificates  # noqa: E402

LIGHTHOUSE = ROOT / "bench" / ".lighthouse" / "node_modules" / ".bin" / "lighthouse"
CACHE = ROOT / "bench" / "results-lighthouse.json"
CATEGORIES = ("seo", "accessibility", "best-practices")
# Our check (category, key), or checks, → the Lighthouse audits that test the same thing (all must pass).
SHARED_AUDITS: dict[tuple, list[str]] = {
    (("security", "https_encryption"), ("security", "mixed_content")): ["is-on-https"],
    (("seo", "robots"), ("seo", "noindex"), ("seo", "noindex_header")): ["is-crawlable"],
    ("seo", "title"): ["document-title"],
    ("seo", "meta_description"): ["meta-description"],
    ("seo", "image_keywords"): ["image-alt"],
    ("seo", "link_text"): ["link-text"],
    ("seo", "crawlable_links"): ["crawlable-anchors"],
    ("seo", "canonical_tag"): ["canonical"],
    ("seo", "hreflang"): ["hreflang"],
    ("seo", "language"): ["html-has-lang", "html-lang-valid"],
    ("performance", "doctype"): ["doctype"],
    ("miscellaneous", "charset"): ["charset"],
    ("accessibility", "zoomable"): ["meta-viewport"],
    ("miscellaneous", "iframes"): ["frame-title"],
    ("accessibility", "link_name"): ["link-name"],
    ("accessibility", "button_name"): ["button-name"],
    ("accessibility", "form_labels"): ["label"],
    ("accessibility", "heading_order"): ["heading-order"],
    ("accessibility", "color_contrast"): ["color-contrast"],
    ("accessibility", "image_aspect_ratio"): ["image-aspect-ratio"],
    ("accessibility", "tap_targets"): ["target-size"],
}
MAX_FAILING_SHARE = 0.8
# Chromium may talk to the corpus on 127.0.0.1 and nothing else: the rest goes to a closed port.
CHROME_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--ignore-certificate-errors",
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=127.0.0.1",
]


def local_only(host: str, port: int) -> list[str]:
    if host in ("127.0.0.1", "localhost"):
        return ["127.0.0.1"]
    raise socket.gaierror(socket.EAI_NONAME, "the benchmark resolves only 127.0.0.1")


def spearman(xs: list[float], ys: list[float]) -> float:
    def ranks(values: list[float]) -> list[float]:
        order = sorted(range(len(values)), key=values.__getitem__)
        result = [0.0] * len(values)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
                j += 1
            for k in range(i, j + 1):
                result[order[k]] = (i + j) / 2 + 1
            i = j + 1
        return result

    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.mean(rx), statistics.mean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    var = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return cov / var if var else 0.0


def run_lighthouse(url: str) -> dict:
    with tempfile.TemporaryDirectory() as directory:
        output = Path(directory) / "report.json"
        command = [
            str(LIGHTHOUSE),
            url,
            "--quiet",
            "--output=json",
            f"--output-path={output}",
            f"--only-categories={','.join(CATEGORIES)}",
            "--form-factor=mobile",
            "--max-wait-for-load=20000",
            f"--chrome-flags={' '.join(CHROME_FLAGS)}",
        ]
        env = {**os.environ, "CHROME_PATH": "/usr/bin/chromium"}
        subprocess.run(command, env=env, check=True, capture_output=True, timeout=180)
        report = json.loads(output.read_text())
    return {
        "categories": {key: report["categories"][key]["score"] for key in CATEGORIES},
        "audits": {
            key: audit.get("score")
            for key, audit in report["audits"].items()
            if audit.get("scoreDisplayMode") in ("binary", "numeric")
            or audit.get("scoreDisplayMode") == "notApplicable"
        },
    }


def lighthouse_results(site: TestSite, use: bool) -> dict[str, dict]:
    cache = json.loads(CACHE.read_text()) if CACHE.exists() else {}
    if not use:
        return {}
    results = {}
    for source in SOURCES:
        digest = hashlib.sha256((PAGES_DIR / source.file).read_bytes()).hexdigest()
        if cache.get(source.file, {}).get("sha256") != digest:
            started = time.monotonic()
            url = site.url(f"/corpus/{source.file}", site="tls-http1")
            cache[source.file] = {"sha256": digest, **run_lighthouse(url)}
            cache[source.file]["seconds"] = round(time.monotonic() - started, 1)
            CACHE.write_text(json.dumps(cache, indent=1))
        results[source.file] = cache[source.file]
    return results


def lighthouse_passes(audits: dict, keys: list[str]) -> bool | None:
    scores = [audits[key] for key in keys if key in audits]
    if not scores:
        return None
    return all(score is None or score >= 0.9 for score in scores)


def analyse_corpus(site: TestSite, *, render: bool) -> dict[str, tuple[object, float]]:
    settings.REPORTS_RENDER = render
    results = {}
    for source in SOURCES:
        started = time.monotonic()
        result = analyze(site.url(f"/corpus/{source.file}", site="tls"))
        results[source.file] = (result, time.monotonic() - started)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=18343, help="port of the HTTPS test site (default 18343)")
    parser.add_argument("--render", action="store_true", help="also time the rendered mode (REPORTS_RENDER)")
    parser.add_argument("--no-lighthouse", action="store_true", help="skip Lighthouse even when installed")
    args = parser.parse_args()

    use_lighthouse = not args.no_lighthouse and LIGHTHOUSE.exists() and shutil.which("node") is not None
    if not use_lighthouse and not args.no_lighthouse:
        print(f"Lighthouse is not installed at {LIGHTHOUSE}: skipping it (see the docstring to install it).\n")

    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = True
    netguard.resolve = local_only
    site = TestSite(make_certificates(Path(tempfile.mkdtemp())), ports={"tls": args.port, "tls-http1": args.port + 1})
    fetch.ssl_context = lambda: ssl.create_default_context(cafile=str(site.certificates.ca_cert))
    try:
        plain = analyse_corpus(site, render=False)
        rendered = analyse_corpus(site, render=True) if args.render else {}
        lighthouse = lighthouse_results(site, use_lighthouse)
    finally:
        site.close()
    report(plain, rendered, lighthouse)


def report(plain: dict, rendered: dict, lighthouse: dict) -> None:
    ours = rendered or plain
    print(f"{'page':34} {'score':>5} {'rating':7} {'LH seo':>6} {'a11y':>5} {'bp':>5} {'LH mean':>7}")
    for source in SOURCES:
        result, _ = ours[source.file]
        line = f"{source.file:34} {result.score:5} {result.rating:7}"
        if source.file in lighthouse:
            scores = lighthouse[source.file]["categories"]
            mean = statistics.mean(scores.values()) * 100
            line += " ".join(f"{scores[key] * 100:6.0f}" for key in CATEGORIES) + f" {mean:7.1f}"
        print(line)

    pages = len(SOURCES)
    print(f"\nChecks failing on most pages ({'rendered' if rendered else 'source'} mode, {pages} pages):")
    failing: dict[tuple[str, str], int] = {}
    for result, _ in ours.values():
        for category, checks in result.results.items():
            for key, check in checks.items():
                failing[(category, key)] = failing.get((category, key), 0) + (not check["passed"])
    worst = sorted(failing.items(), key=lambda item: -item[1])
    for (category, key), count in worst[:8]:
        print(f"  {category + '.' + key:45} {count:3}/{pages} {100 * count / pages:5.1f} %")
    over = [key for key, count in failing.items() if count > MAX_FAILING_SHARE * pages]
    print(f"  checks failing on more than {MAX_FAILING_SHARE:.0%} of pages: {len(over)} {over or ''}")

    if lighthouse:
        print("\nAgreement with Lighthouse 12 per shared audit:")
        agreed_total = compared_total = 0
        for checks, audits in SHARED_AUDITS.items():
            checks = checks if isinstance(checks[0], tuple) else (checks,)
            key = "+".join(key for _, key in checks)
            agreed = compared = 0
            for source in SOURCES:
                results = ours[source.file][0].results
                found = [results.get(category, {}).get(name) for category, name in checks]
                theirs = lighthouse_passes(lighthouse[source.file]["audits"], audits)
                if None in found or theirs is None:
                    continue
                compared += 1
                agreed += all(check["passed"] for check in found) == theirs
            if compared:
                agreed_total += agreed
                compared_total += compared
                share = 100 * agreed / compared
                print(f"  {key[:38]:38} ~ {'+'.join(audits)[:30]:30} {agreed:3}/{compared:<3} {share:5.1f} %")
        print(f"  {'all shared audits':71} {agreed_total:3}/{compared_total:<3} "
              f"{100 * agreed_total / compared_total:5.1f} %")  # fmt: skip
        theirs_scores = [statistics.mean(lighthouse[s.file]["categories"].values()) for s in SOURCES]
        print()
        for mode, results in (("source", plain), ("rendered", rendered)):
            if results:
                ours_scores = [results[s.file][0].score for s in SOURCES]
                rho = spearman(ours_scores, theirs_scores)
                print(f"Spearman(our score, mean of Lighthouse SEO/a11y/BP), {mode} mode: {rho:.2f}")
        print(f"Lighthouse median time per page: {statistics.median(r['seconds'] for r in lighthouse.values()):.1f} s")

    for mode, timed in (("source", plain), ("rendered", rendered)):
        if timed:
            median_ms = statistics.median(seconds for _, seconds in timed.values()) * 1000
            print(f"Median analysis time, {mode} mode: {median_ms:7.0f} ms" + ("\n" if mode == "source" else ""))


if __name__ == "__main__":
    main()
