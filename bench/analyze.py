"""Benchmark the analysis engine's CPU work: decoding, parsing and every check on one page.

Fetching is excluded: the page, its headers and the site files are built in memory.
Target: under 50 ms per page on one core.

    python bench/analyze.py [--iterations 200] [--kb 300]
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.harness import setup_django

setup_django()

import httpx  # noqa: E402

from reports.analysis import config, scoring  # noqa: E402
from reports.analysis.checks import run_checks  # noqa: E402
from reports.analysis.context import Context, Probe, Resources  # noqa: E402
from reports.analysis.fetch import Fetched  # noqa: E402
from reports.analysis.html import decode, parse  # noqa: E402

TARGET_MS = 50
URL = "https://shop.example/garden/tools/forged-spades"

HEAD = (
    """<!DOCTYPE html>
<html lang="en-GB">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Forged Garden Spades, Rakes and Hoes | Acme Garden Tools</title>
<meta name="description" content="Hand-forged spades, rakes and hoes with ash handles, made to last a lifetime.">
<link rel="canonical" href="https://shop.example/garden/tools/forged-spades">
<link rel="alternate" hreflang="en-GB" href="https://shop.example/garden/tools/forged-spades">
<link rel="alternate" hreflang="fr-FR" href="https://shop.example/fr/jardin/outils/beches">
<link rel="icon" href="/favicon.svg">
<link rel="stylesheet" href="/static/css/site.min.css">
<link rel="stylesheet" href="/static/css/product.min.css">
<meta property="og:title" content="Forged garden spades">
<meta property="og:image" content="https://shop.example/static/img/og.webp">
<meta name="twitter:card" content="summary_large_image">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Forged spade"}</script>
<script src="/static/js/vendor.min.js" defer></script>
<script src="/static/js/site.min.js" defer></script>
<script>window.dataLayer = window.dataLayer || [];</script>
</head>
<body>
<header class="site-header">
<nav aria-label="Main"><ul>
"""
    + "".join(f'<li><a href="/garden/category-{n}">Garden category {n}</a></li>\n' for n in range(40))
    + """
</ul></nav>
</header>
<main>
<h1>Forged garden spades that last a lifetime</h1>
"""
)

SECTION = """<section class="product-card" id="product-{n}">
<h2>Forged spade model {n}</h2>
<picture><source srcset="/static/img/spade-{n}.avif" type="image/avif">
<img src="/static/img/spade-{n}.jpg" alt="Spade model {n} with an ash handle" width="400" height="300" loading="lazy">
</picture>
<p>Every spade leaves our workshop with a forged steel head and a handle of seasoned ash. The blade is tempered
twice and ground by hand so that it cuts clean edges in a lawn and lifts heavy clay without flexing. Model {n}
has a {width} cm blade and weighs {weight} grams, which suits gardeners who dig for hours at a time.</p>
<ul class="specs"><li>Blade: {width} cm</li><li>Weight: {weight} g</li><li>Handle: ash, oiled</li></ul>
<table class="prices"><thead><tr><th>Size</th><th>Price</th></tr></thead>
<tbody><tr><td>Standard</td><td>£{price}</td></tr><tr><td>Border</td><td>£{price2}</td></tr></tbody></table>
<p><a href="/garden/tools/spade-{n}" class="button">Details of spade model {n}</a>
<a href="https://www.instagram.com/acmegarden/p/{n}" target="_blank" rel="noopener">Spade {n} on Instagram</a></p>
</section>
"""

FOOT = """</main>
<footer><p>Acme Garden Tools, 1 Orchard Lane, Greenfield.</p>
<a href="https://github.com/acme-garden">GitHub</a></footer>
<script src="/static/js/analytics.js" async></script>
</body>
</html>
"""


def build_page(target_bytes: int) -> bytes:
    """A product listing of about `target_bytes`, built like a real shop page."""
    sections = []
    size = len(HEAD) + len(FOOT)
    n = 0
    while size < target_bytes:
        section = SECTION.format(n=n, width=18 + n % 6, weight=900 + n * 7 % 400, price=30 + n % 20, price2=35 + n % 20)
        sections.append(section)
        size += len(section.encode())
        n += 1
    return (HEAD + "".join(sections) + FOOT).encode()


def site_files() -> Resources:
    def probe(path: str, status: int, content_type: str, body: bytes = b"") -> Probe:
        url = f"https://shop.example{path}"
        fetched = Fetched(url=url, status=status, headers=httpx.Headers({"content-type": content_type}), body=body)
        return Probe(url, fetched=fetched)

    robots = b"User-agent: *\nDisallow: /checkout\nDisallow: /*?session=\nAllow: /\nSitemap: /sitemap.xml\n"
    return Resources(
        robots=probe("/robots.txt", 200, "text/plain", robots),
        sitemap=probe("/sitemap.xml", 200, "application/xml"),
        not_found=probe("/does-not-exist", 404, "text/html"),
        llms_txt=probe("/llms.txt", 404, "text/html"),
        assets={
            "https://shop.example/static/css/site.min.css": probe("/static/css/site.min.css", 200, "text/css", b"a{}"),
        },
        alpn="h2",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--kb", type=int, default=300, help="page size in kB (1000 bytes)")
    args = parser.parse_args()

    body = build_page(args.kb * 1000)
    headers = httpx.Headers(
        {
            "content-type": "text/html; charset=utf-8",
            "content-encoding": "br",
            "server": "nginx",
            "strict-transport-security": "max-age=31536000",
        }
    )
    document = Fetched(url=URL, status=200, headers=headers, body=body, transferred_bytes=len(body) // 6, total_ms=420)
    resources = site_files()
    thresholds, weights, bands = config.thresholds(), config.importance_weights(), config.rating_bands()

    def run() -> tuple[float, float, float, int]:
        """One page: (CPU s for decode + parse, CPU s for checks + score, wall s overall, score)."""
        wall, cpu = time.perf_counter(), time.thread_time()
        decoded = decode(document.body, "utf-8")
        page = parse(decoded.text, document.url)
        parsed = time.thread_time()
        results = run_checks(Context(URL, document, decoded, page, resources, thresholds))
        score = scoring.score(results, weights, bands)
        scoring.rating(score, bands)
        return parsed - cpu, time.thread_time() - parsed, time.perf_counter() - wall, score

    for _ in range(5):  # warm caches and the allocator
        run()
    samples: dict[str, list[float]] = {
        "decode + parse": [],
        "checks + score": [],
        "total (CPU)": [],
        "total (wall)": [],
    }
    for _ in range(args.iterations):
        parse_s, checks_s, wall_s, score = run()
        for name, seconds in zip(samples, (parse_s, checks_s, parse_s + checks_s, wall_s), strict=True):
            samples[name].append(seconds * 1000)

    page = parse(decode(body, "utf-8").text, URL)
    print(
        f"Page: {len(body) / 1000:.0f} kB, {page.dom_nodes} elements, {len(page.links)} links, {len(page.words)} words"
    )
    # CPU time is what the engine costs on one core; wall time also counts waiting for a busy machine.
    print(f"Score {score}; {args.iterations} iterations in one thread\n")
    print(f"{'stage':<20}{'mean':>10}{'p50':>10}{'p95':>10}   (ms/page)")
    for name, values in samples.items():
        p95 = statistics.quantiles(values, n=20)[-1]
        print(f"{name:<20}{statistics.fmean(values):>10.2f}{statistics.median(values):>10.2f}{p95:>10.2f}")
    mean = statistics.fmean(samples["total (CPU)"])
    verdict = "meets" if mean < TARGET_MS else "MISSES"
    print(f"\nMean CPU time {mean:.1f} ms/page {verdict} the {TARGET_MS} ms target.")


if __name__ == "__main__":
    main()
