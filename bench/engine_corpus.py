"""The analysis engine on a corpus of real pages, next to Lighthouse 12 (issue 21).

The corpus (bench/corpus/pages.json) lists 219 built pages of public websites, each with the
repository, path and commit it comes from: documentation, blogs, a shop, dashboards, landing
pages, single-page-app shells, old table layouts, in eleven languages (the first 126), then 45
pages whose scripts do the work, added on 25 Nov 2026 (bench/README.md says how they were drawn):
charts (ApexCharts' demos), TodoMVC's built apps, editors (CodeMirror 5's demos), widgets (jQuery
UI's demos) and MDN's Web API examples, then 48 pages of real blogs, news sites and magazines,
shops and product, company and event sites, published from generators' output. The pages themselves
are not in this repository (they are other people's work); `--pages DIR` names the directory
that holds them, one file per manifest entry, checked against the manifest's SHA-256.
bench/corpus/split.json splits them once, at random with a fixed seed, into a calibration
part (60 %) and a held-out part (40 %), added pages in a draw of their own (load_split):
thresholds and weights are tuned on the first only.

Serves the pages over HTTPS on 127.0.0.1 (the test site, a throw-away CA: port P offers
HTTP/2 by ALPN to our engine's probe, as GitHub Pages would; browsers get the same pages on
P+1, HTTP/1.1 only), analyses each in source mode and (with --render) rendered, and prints
for the chosen part (--part, default held-out):

- Spearman's rank correlation of our score with the mean of Lighthouse's SEO, accessibility
  and best-practices scores, with a bootstrap 90 % interval, per mode;
- the same for our SEO and accessibility category scores against Lighthouse's;
- per audit both tools run: how often they agree, and the pages on which they differ;
- per check: how many pages fail it (none should fail on more than 80 %);
- rendered: the rank correlation of our lab metrics (LCP, TBT, CLS, FCP) with Lighthouse's
  (the median of its runs: `--lighthouse-runs N` runs its performance category again on the
  part's pages until each has N), and Lighthouse's first run against its second. With
  `--renderings N` each page is rendered N times and our median is compared, as Lighthouse's is.

Each page is served alone by default, so most of its images, stylesheets and scripts are
missing. `--sites DIR` serves each page at its path among its repository's files instead (one
site per repository and commit, from DIR/OWNER+NAME@COMMIT, e.g. made by `git -C CLONE archive
COMMIT | tar -x -C DIR/OWNER+NAME@COMMIT`), so that its scripts run and its lab metrics mean
something; Lighthouse's answers for that way of serving go to bench/corpus/lighthouse-sites.json.

    npm install --prefix /some/dir lighthouse@12          # once, outside the repository
    .venv/bin/python bench/engine_corpus.py --pages DIR [--sites DIR] [--render] [--part all] \\
        [--lighthouse /some/dir/node_modules/.bin/lighthouse [--lighthouse-runs 3]] [--jobs 2] [--port 18343]

Nothing leaves the machine: our engine resolves only 127.0.0.1, and Chromium (under
Lighthouse and in rendered mode) sends everything but 127.0.0.1 to a dead proxy.
Lighthouse's answers (all four categories, its shared audits and its lab metrics, under its
default mobile profile) are kept in bench/corpus/lighthouse.json, keyed by the page's hash,
so that nothing is run twice; Lighthouse runs under `nice`.
"""

import argparse
import hashlib
import json
import mimetypes
import os
import random
import shutil
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import quote, unquote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.harness import setup_django  # noqa: E402

setup_django()

from django.conf import settings  # noqa: E402

from reports.analysis import analyze, config, fetch, lab, netguard, scoring  # noqa: E402
from reports.analysis.checks import CATEGORIES as CATEGORIES_OF_CHECKS  # noqa: E402
from tests.reports.corpus import CORPUS_PAGES  # noqa: E402
from tests.reports.testsite import (  # noqa: E402
    CORPUS_HEADERS,
    Certificates,
    Hit,
    TestSite,
    TestSiteHandler,
    make_certificates,
)

CORPUS = ROOT / "bench" / "corpus"
MANIFEST = CORPUS / "pages.json"
SPLIT = CORPUS / "split.json"
CACHE = CORPUS / "lighthouse.json"
SITES_CACHE = CORPUS / "lighthouse-sites.json"  # the same, for the pages served with their sites (--sites)
SPLIT_SEED = 2111  # issue 21, item 1: drawn once; never draw again (added pages: load_split)
CALIBRATION_SHARE = 0.6
CATEGORIES = ("seo", "accessibility", "best-practices")
LIGHTHOUSE_CATEGORIES = ("performance", *CATEGORIES)
# Our lab metric → Lighthouse's audit of the same measure.
METRICS = {
    "lcp": "largest-contentful-paint",
    "tbt": "total-blocking-time",
    "cls": "cumulative-layout-shift",
    "fcp": "first-contentful-paint",
}
# Our check (category, key), or checks, → the Lighthouse audits that test the same thing (all must pass).
SHARED_AUDITS: dict[tuple, list[str]] = {
    (("security", "https_encryption"), ("security", "mixed_content"), ("security", "mixed_passive_content")): [
        "is-on-https"
    ],
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
    # Lighthouse's font-size fails a page without a device-width viewport before measuring any text.
    (("miscellaneous", "meta_viewport"), ("accessibility", "font_size")): ["font-size"],
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
BOOTSTRAP_SAMPLES = 2000
# What a Lighthouse run that failed raises: it exited with an error, hung, or wrote no usable report.
LIGHTHOUSE_FAILURES = (subprocess.SubprocessError, OSError, KeyError, ValueError)
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


def spearman(xs: list[float], ys: list[float]) -> float:
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.mean(rx), statistics.mean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    var = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return cov / var if var else 0.0


def bootstrap_interval(xs: list[float], ys: list[float], level: float = 0.9) -> tuple[float, float]:
    """Percentile bootstrap interval of Spearman's rho: pages drawn with replacement, a fixed seed."""
    rng = random.Random(21)
    n = len(xs)
    rhos = []
    for _ in range(BOOTSTRAP_SAMPLES):
        sample = [rng.randrange(n) for _ in range(n)]
        rhos.append(spearman([xs[i] for i in sample], [ys[i] for i in sample]))
    rhos.sort()
    tail = (1 - level) / 2
    return rhos[int(tail * len(rhos))], rhos[int((1 - tail) * len(rhos)) - 1]


def load_manifest(pages_dir: Path) -> list[dict]:
    manifest = json.loads(MANIFEST.read_text())
    for page in manifest:
        path = pages_dir / page["file"]
        if not path.exists():
            sys.exit(f"{path} is missing: --pages must name the directory holding the corpus pages")
        if hashlib.sha256(path.read_bytes()).hexdigest() != page["sha256"]:
            sys.exit(f"{path} is not the page the manifest records (SHA-256 differs)")
        CORPUS_PAGES[page["file"]] = path  # the test site serves /corpus/<file> from this table
    return manifest


def load_split(manifest: list[dict]) -> dict[str, list[str]]:
    """The split, drawn once and then only read: a page's part never changes.

    Pages added to the manifest later are drawn into the two parts the same way, in a draw of
    their own with the next seed (SPLIT_SEED + 1 for the first addition), recorded in "added".
    """
    split = json.loads(SPLIT.read_text()) if SPLIT.exists() else {"seed": SPLIT_SEED, "calibration": [], "held_out": []}
    known = {*split["calibration"], *split["held_out"]}
    files = sorted(page["file"] for page in manifest if page["file"] not in known)
    if not files:
        return split
    seed = SPLIT_SEED + len(split.get("added", [])) + (1 if known else 0)
    random.Random(seed).shuffle(files)
    cut = round(len(files) * CALIBRATION_SHARE)
    split["calibration"] = sorted([*split["calibration"], *files[:cut]])
    split["held_out"] = sorted([*split["held_out"], *files[cut:]])
    if known:
        split["added"] = [*split.get("added", []), {"seed": seed, "pages": len(files)}]
    SPLIT.write_text(json.dumps(split, indent=1) + "\n")
    return split


def run_lighthouse(lighthouse: str, url: str) -> dict:
    """All four categories; a page Lighthouse cannot time (nothing painted) gets the three others."""
    try:
        return run_lighthouse_categories(lighthouse, url, LIGHTHOUSE_CATEGORIES)
    except subprocess.CalledProcessError:
        return run_lighthouse_categories(lighthouse, url, CATEGORIES)


def run_lighthouse_categories(lighthouse: str, url: str, categories: tuple[str, ...]) -> dict:
    with tempfile.TemporaryDirectory() as directory:
        output = Path(directory) / "report.json"
        command = [
            "nice",
            "-n",
            "10",
            lighthouse,
            url,
            "--quiet",
            "--output=json",
            f"--output-path={output}",
            f"--only-categories={','.join(categories)}",
            "--form-factor=mobile",
            "--max-wait-for-load=20000",
            f"--chrome-flags={' '.join(CHROME_FLAGS)}",
        ]
        env = {**os.environ, "CHROME_PATH": "/usr/bin/chromium"}
        subprocess.run(command, env=env, check=True, capture_output=True, timeout=300)
        report = json.loads(output.read_text())
    return {
        "lighthouse": report.get("lighthouseVersion"),
        "categories": {key: report["categories"][key]["score"] for key in categories},
        "audits": {
            key: audit.get("score")
            for key, audit in report["audits"].items()
            if audit.get("scoreDisplayMode") in ("binary", "numeric", "notApplicable")
        },
        "metrics": {
            ours: {"value": report["audits"][key].get("numericValue"), "score": report["audits"][key].get("score")}
            for ours, key in METRICS.items()
            if key in report["audits"]
        },
    }


def cache_path(sites: Path | None) -> Path:
    """Lighthouse's answers for the pages served alone, or with their sites."""
    return SITES_CACHE if sites else CACHE


def cached_lighthouse(path: Path) -> dict[str, dict]:
    return json.loads(path.read_text()) if path.exists() else {}


def save_lighthouse(cache: dict[str, dict], path: Path) -> None:
    path.write_text(json.dumps(cache, indent=0, sort_keys=True) + "\n")


class SiteHandler(TestSiteHandler):
    """A page's own site: its repository's files at the recorded commit, served as GitHub Pages would
    (compressed, with HSTS); what the repository lacks (robots.txt, a sitemap, a favicon, a 404 page)
    the test site answers, as it does for the pages served alone."""

    def route(self, hit: Hit) -> bool | None:
        file = self.site_file(unquote(hit.path))
        if file is None:
            return super().route(hit)
        body = file.read_bytes()
        # Apache's manual names its pages index.html.fr.utf8 and the like: the first known suffix tells.
        known = (mimetypes.guess_type(f"x{suffix}")[0] for suffix in file.suffixes)
        content_type = next(filter(None, known), "application/octet-stream")
        if content_type.startswith("text/") or content_type.endswith(("javascript", "json", "svg+xml")):
            self.html_bytes(body, headers=CORPUS_HEADERS, content_type=content_type)
        else:
            self.reply(200, content_type, body, CORPUS_HEADERS)
        return None

    def site_file(self, path: str) -> Path | None:
        root = self.server.root
        file = (root / path.lstrip("/")).resolve()
        if file.is_dir():
            file = file / "index.html"
        return file if file.is_relative_to(root) and file.is_file() else None


def site_of(page: dict) -> tuple[str, str, str]:
    """The site a page is served on: its repository at its commit, from the folder that a static
    host would publish (`root` in the manifest, e.g. a generator's `public/`; the repository's top
    by default), so that the site's absolute links resolve."""
    return page["repository"], page["commit"], page.get("root", "")


class ServedCorpus:
    """The corpus on HTTPS sites of 127.0.0.1: port P offers HTTP/2 by ALPN to our engine's probe, as
    GitHub Pages would; browsers, which would hold the site to that offer, read the same on P+1.

    By default each page is served alone at /corpus/<file> of the test site, so most of its images,
    stylesheets and scripts are missing. With `sites` (a directory holding each repository's files at
    the recorded commit, in OWNER+NAME@COMMIT) each page is served at its path in its repository, with
    everything the repository holds, one site per repository and commit (ports P+2i and P+2i+1;
    free ports when P is 0).
    """

    def __init__(self, manifest: list[dict], certificates: Certificates, port: int, sites: Path | None) -> None:
        self.pages = {page["file"]: page for page in manifest}
        self.cache = cache_path(sites)
        self.sites: dict[tuple[str, str] | None, TestSite] = {}
        if sites is None:
            self.sites[None] = TestSite(certificates, ports={"tls": port, "tls-http1": port + 1})
            return
        for index, tree in enumerate(sorted({site_of(page) for page in manifest})):
            repository, commit, web_root = tree
            root = (sites / f"{repository.replace('/', '+')}@{commit}" / web_root).resolve()
            if not root.is_dir():
                self.close()
                sys.exit(f"{root} is missing: --sites must hold each repository's files at its commit")
            ports = {"tls": port + 2 * index, "tls-http1": port + 2 * index + 1} if port else {}
            site = self.sites[tree] = TestSite(certificates, ports=ports, handler=SiteHandler)
            for server in site.servers.values():
                server.root = root

    def url(self, file: str, *, browser: bool = False) -> str:
        """Where our engine reads a corpus page, or with `browser`, where Chromium under Lighthouse does."""
        site = "tls-http1" if browser else "tls"
        if None in self.sites:
            return self.sites[None].url(f"/corpus/{file}", site=site)
        page = self.pages[file]
        path = PurePosixPath(page["path"]).relative_to(page.get("root", ""))
        return self.sites[site_of(page)].url("/" + quote(str(path)), site=site)

    def close(self) -> None:
        for site in self.sites.values():
            site.close()


@dataclass
class Saved:
    """A page's saved analysis (--json), scored again by today's rules."""

    results: dict
    rendering: dict
    score: int = 0
    scores: dict = field(default_factory=dict)

    @property
    def metrics(self) -> dict | None:
        return self.rendering.get("metrics")


def rescored(saved: dict, files: list[str]) -> tuple[dict, dict]:
    importance = {
        (category.name, check.key): check.importance for category in CATEGORIES_OF_CHECKS for check in category.checks
    }
    weights, bands = config.importance_weights(), config.rating_bands()
    modes = []
    for mode in ("source", "rendered"):
        pages = {}
        for file in files:
            if file not in saved.get(mode, {}):
                continue
            entry = saved[mode][file]
            results = {
                category: {
                    key: {**check, "importance": importance.get((category, key), check["importance"])}
                    for key, check in checks.items()
                }
                for category, checks in entry["results"].items()
            }
            page = Saved(results, entry.get("rendering") or {})
            page.score = scoring.score(results, weights, bands)
            page.scores = scoring.category_scores(results, weights, bands)
            pages[file] = (page, entry.get("seconds", 0))
        modes.append(pages)
    return modes[0], modes[1]


def lighthouse_results(
    corpus: ServedCorpus, manifest: list[dict], files: list[str], lighthouse: str | None, jobs: int
) -> dict[str, dict]:
    """Lighthouse's answers for every page it has run on; it runs on the pages of `files` it has not."""
    cache = cached_lighthouse(corpus.cache)
    wanted = set(files)
    missing = [
        page
        for page in manifest
        if page["file"] in wanted and cache.get(page["file"], {}).get("sha256") != page["sha256"]
    ]
    if missing and lighthouse:
        lock = threading.Lock()

        def one(page: dict) -> None:
            started = time.monotonic()
            try:
                result = run_lighthouse(lighthouse, corpus.url(page["file"], browser=True))
            except LIGHTHOUSE_FAILURES as exc:
                print(f"Lighthouse failed on {page['file']}: {exc}", file=sys.stderr)
                return
            result = {"sha256": page["sha256"], **result, "seconds": round(time.monotonic() - started, 1)}
            with lock:
                cache[page["file"]] = result
                save_lighthouse(cache, corpus.cache)
                print(f"Lighthouse {len(cache)}: {page['file']} {result['seconds']} s", file=sys.stderr)

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            list(pool.map(one, missing))
    return {page["file"]: cache[page["file"]] for page in manifest if page["file"] in cache}


def metric_runs(entry: dict) -> list[dict]:
    """Lighthouse's lab metrics of a page, one dict per run (the first is the run of its categories).

    A page measured again (repeat_lighthouse's `again`) holds only its new runs, none if they all
    failed: its first run, from before, is no longer its reference.
    """
    return entry["metric_runs"] if "metric_runs" in entry else [entry.get("metrics", {})]


def repeat_lighthouse(
    corpus: ServedCorpus, files: list[str], lighthouse: str, runs: int, jobs: int, *, again: bool = False
) -> None:
    """Run Lighthouse's performance category again on `files` until each has `runs` runs of its lab metrics.

    One run's TBT is the CPU time the machine left Chromium, so a single run is a poor reference
    (bench/README.md): the median of several is compared instead. With `again` the runs stored
    before are kept apart ("metric_runs_earlier") and `runs` new ones become the reference; a run
    already moved stays moved, so an interrupted measurement goes on where it stopped. Each run
    records the machine's load average as it starts: Lighthouse's simulation counts wall-clock
    time, which a busy machine lengthens.
    """
    cache = cached_lighthouse(corpus.cache)
    if again:
        for file in files:
            if file in cache and "metric_runs_earlier" not in cache[file]:
                cache[file]["metric_runs_earlier"] = metric_runs(cache[file])
                cache[file]["metric_runs"] = []
        save_lighthouse(cache, corpus.cache)
    lock = threading.Lock()
    wanted = [file for file in files if file in cache for _ in range(len(metric_runs(cache[file])), runs)]

    def one(file: str) -> None:
        try:
            url = corpus.url(file, browser=True)
            load = round(os.getloadavg()[0], 2)
            metrics = {**run_lighthouse_categories(lighthouse, url, ("performance",))["metrics"], "load": load}
        except LIGHTHOUSE_FAILURES as exc:
            print(f"Lighthouse failed on {file}: {exc}", file=sys.stderr)
            return
        with lock:
            cache[file]["metric_runs"] = [*metric_runs(cache[file]), metrics]
            save_lighthouse(cache, corpus.cache)
            print(f"Lighthouse run {len(cache[file]['metric_runs'])} of {file}", file=sys.stderr)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(one, wanted))


def lighthouse_passes(audits: dict, keys: list[str]) -> bool | None:
    scores = [audits[key] for key in keys if key in audits]
    if not scores:
        return None
    return all(score is None or score >= 0.9 for score in scores)


def analyse_corpus(corpus: ServedCorpus, files: list[str], *, render: bool) -> dict[str, tuple[object, float]]:
    settings.REPORTS_RENDER = render
    results = {}
    for file in files:
        started = time.monotonic()
        result = analyze(corpus.url(file))
        results[file] = (result, time.monotonic() - started)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=Path, required=True, help="the directory holding the corpus pages")
    parser.add_argument("--port", type=int, default=18343, help="port of the HTTPS test site (default 18343)")
    parser.add_argument(
        "--sites",
        type=Path,
        help="serve each page with its repository's files, from this directory (OWNER+NAME@COMMIT each); "
        "Lighthouse's answers then go to bench/corpus/lighthouse-sites.json",
    )
    parser.add_argument("--render", action="store_true", help="also analyse the pages rendered (REPORTS_RENDER)")
    parser.add_argument("--part", choices=("held-out", "calibration", "all"), default="held-out")
    parser.add_argument("--lighthouse", help="the lighthouse executable, to run it on pages not in the cache")
    parser.add_argument("--lighthouse-only", action="store_true", help="fill Lighthouse's cache and stop")
    parser.add_argument("--jobs", type=int, default=1, help="Lighthouse runs at once (default 1)")
    parser.add_argument(
        "--lighthouse-runs",
        type=int,
        default=1,
        help="runs of Lighthouse's lab metrics per page of the part; their median is the reference (default 1)",
    )
    parser.add_argument(
        "--lighthouse-again",
        action="store_true",
        help="measure the --lighthouse-runs afresh (on a quiet machine): the runs stored before are kept apart",
    )
    parser.add_argument(
        "--renderings",
        type=int,
        default=1,
        help="renderings per page with --render; the median of their lab metrics is compared (default 1)",
    )
    parser.add_argument("--json", type=Path, help="also write our per-page results to this file")
    parser.add_argument(
        "--results",
        type=Path,
        help="report on the results a --json run saved, scored again with today's importances and weights "
        "(a calibration of scoring alone needs no new analysis)",
    )
    args = parser.parse_args()

    lighthouse = args.lighthouse if args.lighthouse and shutil.which("node") else None
    manifest = load_manifest(args.pages)
    split = load_split(manifest)
    files = {
        "held-out": split["held_out"],
        "calibration": split["calibration"],
        "all": sorted(page["file"] for page in manifest),
    }[args.part]

    if args.results:
        saved = json.loads(args.results.read_text())
        plain, rendered = rescored(saved, files)
        renderings = {
            file: entry["metric_runs"] for file, entry in saved.get("rendered", {}).items() if entry.get("metric_runs")
        }
        cache = cached_lighthouse(cache_path(args.sites))
        theirs = {page["file"]: entry for page in manifest if (entry := cache.get(page["file"]))}
        report(args.part, files, plain, rendered, theirs, renderings)
        return
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = True
    netguard.resolve = local_only
    certificates = make_certificates(Path(tempfile.mkdtemp()))
    fetch.ssl_context = lambda: ssl.create_default_context(cafile=str(certificates.ca_cert))
    corpus = ServedCorpus(manifest, certificates, args.port, args.sites)
    try:
        theirs = lighthouse_results(corpus, manifest, files, lighthouse, args.jobs)
        if lighthouse and args.lighthouse_runs > 1:
            repeat_lighthouse(corpus, files, lighthouse, args.lighthouse_runs, args.jobs, again=args.lighthouse_again)
            theirs = {file: entry for file, entry in cached_lighthouse(corpus.cache).items() if file in theirs}
        if args.lighthouse_only:
            return
        plain = analyse_corpus(corpus, files, render=False)
        rendered = analyse_corpus(corpus, files, render=True) if args.render else {}
        renderings = {file: [result.metrics or {}] for file, (result, _seconds) in rendered.items()}
        for _ in range(args.renderings - 1 if rendered else 0):
            for file, (result, _seconds) in analyse_corpus(corpus, files, render=True).items():
                renderings[file].append(result.metrics or {})
    finally:
        corpus.close()
    if args.json:
        args.json.write_text(json.dumps(dump(plain, rendered, renderings), indent=0))
    report(args.part, files, plain, rendered, theirs, renderings)


def dump(plain: dict, rendered: dict, renderings: dict[str, list[dict]]) -> dict:
    return {
        mode: {
            file: {
                "score": result.score,
                "scores": result.scores,
                "results": result.results,
                "rendering": result.rendering,
                "metrics": getattr(result, "metrics", None),
                "metric_runs": renderings.get(file) if mode == "rendered" else None,
                "seconds": round(seconds, 2),
            }
            for file, (result, seconds) in results.items()
        }
        for mode, results in (("source", plain), ("rendered", rendered))
        if results
    }


def lighthouse_mean(entry: dict) -> float:
    return statistics.mean(entry["categories"][key] for key in CATEGORIES)


def scored_by_lighthouse(entry: dict) -> bool:
    """Whether Lighthouse scored the page's three categories; a run can fail on some (their score is null)."""
    return all(entry["categories"].get(key) is not None for key in CATEGORIES)


def correlation_line(label: str, ours: list[float], theirs: list[float]) -> str:
    rho = spearman(ours, theirs)
    low, high = bootstrap_interval(ours, theirs)
    return f"  {label:58} {rho:5.2f}  [{low:5.2f}, {high:5.2f}]  n={len(ours)}"


def report(
    part: str, files: list[str], plain: dict, rendered: dict, lighthouse: dict, renderings: dict[str, list[dict]]
) -> None:
    ours = rendered or plain
    mode = "rendered" if rendered else "source"
    print(f"Part: {part}, {len(files)} pages; per-page table in {mode} mode\n")
    print(f"{'page':48} {'score':>5} {'seo':>4} {'a11y':>4} {'LH seo':>6} {'a11y':>5} {'bp':>5} {'mean':>5}")
    for file in files:
        if file not in ours:
            continue
        result, _ = ours[file]
        line = f"{file[:48]:48} {result.score:5} {result.scores['seo']!s:>4} {result.scores['accessibility']!s:>4}"
        if file in lighthouse and scored_by_lighthouse(lighthouse[file]):
            scores = lighthouse[file]["categories"]
            line += " " + " ".join(f"{scores[key] * 100:5.0f}" for key in CATEGORIES)
            line += f" {lighthouse_mean(lighthouse[file]) * 100:5.1f}"
        print(line)

    pages = len(files)
    print(f"\nChecks failing on most pages ({mode} mode, {pages} pages):")
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

    compared_files = [
        file
        for file in files
        if file in lighthouse and all(file in results for results in (plain, rendered) if results)
    ]
    if not compared_files:
        print("\nNo Lighthouse results for these pages: run with --lighthouse to make them.")
        return
    for label, results in (("source", plain), ("rendered", rendered)):
        if results:
            agreement(label, results, compared_files, lighthouse)

    scored_files = [file for file in compared_files if scored_by_lighthouse(lighthouse[file])]
    print(f"\nSpearman's rho with a bootstrap 90 % interval ({len(scored_files)} pages Lighthouse scored):")
    theirs_mean = [lighthouse_mean(lighthouse[file]) for file in scored_files]
    for label, results in (("source", plain), ("rendered", rendered)):
        if not results:
            continue
        scores = [results[file][0].score for file in scored_files]
        print(correlation_line(f"{label}: score ~ mean of Lighthouse SEO, a11y, BP", scores, theirs_mean))
        for ours_key, theirs_key in (("seo", "seo"), ("accessibility", "accessibility")):
            pairs = [
                (results[file][0].scores[ours_key], lighthouse[file]["categories"][theirs_key])
                for file in scored_files
                if results[file][0].scores.get(ours_key) is not None
            ]
            if pairs:
                xs, ys = zip(*pairs, strict=True)
                print(correlation_line(f"{label}: {ours_key} score ~ Lighthouse {theirs_key}", list(xs), list(ys)))
    if rendered:
        lab_metrics(rendered, compared_files, lighthouse, renderings)
    for label, timed in (("source", plain), ("rendered", rendered)):
        if timed:
            median_ms = statistics.median(seconds for _, seconds in timed.values()) * 1000
            print(f"Median analysis time, {label} mode: {median_ms:7.0f} ms")
    seconds = [entry["seconds"] for entry in lighthouse.values() if "seconds" in entry]
    if seconds:
        print(f"Lighthouse median time per page: {statistics.median(seconds):.1f} s")


def agreement(label: str, results: dict, files: list[str], lighthouse: dict) -> None:
    print(f"\nAgreement with Lighthouse 12 per shared audit ({label} mode):")
    agreed_total = compared_total = 0
    for checks, audits in SHARED_AUDITS.items():
        checks = checks if isinstance(checks[0], tuple) else (checks,)
        key = "+".join(key for _, key in checks)
        agreed = compared = 0
        differing = []
        for file in files:
            ours = results[file][0].results
            found = [ours.get(category, {}).get(name) for category, name in checks]
            theirs = lighthouse_passes(lighthouse[file]["audits"], audits)
            if None in found or theirs is None:
                continue
            compared += 1
            if all(check["passed"] for check in found) == theirs:
                agreed += 1
            else:
                differing.append(f"{file} (Lighthouse {'passes' if theirs else 'fails'})")
        if compared:
            agreed_total += agreed
            compared_total += compared
            share = 100 * agreed / compared
            print(f"  {key[:38]:38} ~ {'+'.join(audits)[:30]:30} {agreed:3}/{compared:<3} {share:5.1f} %")
            for page in differing:
                print(f"      differs on {page}")
    if compared_total:
        print(f"  {'all shared audits':71} {agreed_total:3}/{compared_total:<3} "
              f"{100 * agreed_total / compared_total:5.1f} %")  # fmt: skip


def lighthouse_metric(entry: dict, key: str) -> float | None:
    """The median over Lighthouse's runs of one lab metric of a page."""
    values = [run[key]["value"] for run in metric_runs(entry) if run.get(key, {}).get("value") is not None]
    return statistics.median(values) if values else None


def our_metric(runs: list[dict], key: str) -> float | None:
    """The median over our renderings of a page (their lab metrics, `runs`) of one lab metric."""
    values = [run[key]["value"] for run in runs if run.get(key, {}).get("value") is not None]
    return statistics.median(values) if values else None


def lab_metrics(rendered: dict, files: list[str], lighthouse: dict, renderings: dict[str, list[dict]]) -> None:
    """`renderings`: our lab metrics of each page, one dict per rendering (--renderings); else the analysis's own."""
    measured = [file for file in files if lighthouse_metric(lighthouse[file], "lcp") is not None]
    runs = min((len(metric_runs(lighthouse[file])) for file in measured), default=1)
    runs_of = {file: renderings.get(file) or [rendered[file][0].metrics or {}] for file in files}
    ours_runs = min((len(each) for each in runs_of.values()), default=1)
    print(
        f"\nLab metrics, rendered, against Lighthouse's (median of at least {runs} run(s) a page, ours of "
        f"{ours_runs}; Spearman, bootstrap 90 % interval; and how often both rate the page alike by "
        "Lighthouse's thresholds):"
    )
    for key in METRICS:
        pairs = []
        for file in files:
            ours = our_metric(runs_of[file], key)
            theirs = lighthouse_metric(lighthouse[file], key)
            if ours is not None and theirs is not None:
                pairs.append((ours, theirs))
        if len(pairs) > 2:
            xs, ys = zip(*pairs, strict=True)
            print(correlation_line(f"{key.upper()} ours ~ Lighthouse's", list(xs), list(ys)))
            # A rank correlation says nothing when Lighthouse's values hardly differ (TBT: 0 ms on
            # nearly every page): the rating both give each page still does.
            alike = sum(lab.rate(key, ours)["rating"] == lab.rate(key, theirs)["rating"] for ours, theirs in pairs)
            print(f"  {key.upper()} rated alike{'':37}{alike:3}/{len(pairs)} {100 * alike / len(pairs):5.1f} %")
        # How well Lighthouse repeats itself: its first run against its second, on the same pages.
        repeated = []
        for file in files:
            if len(runs_of_page := metric_runs(lighthouse[file])) > 1:
                first, second = (run.get(key, {}).get("value") for run in runs_of_page[:2])
                if first is not None and second is not None:
                    repeated.append((first, second))
        if len(repeated) > 2:
            xs, ys = zip(*repeated, strict=True)
            print(correlation_line(f"{key.upper()} Lighthouse run 1 ~ run 2", list(xs), list(ys)))


if __name__ == "__main__":
    main()
