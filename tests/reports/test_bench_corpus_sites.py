"""bench/engine_corpus.py --sites: each corpus page served among its repository's files (issue 21).

The lab metrics' reference depends on it: a page whose scripts and stylesheets are missing blocks
nothing, for Lighthouse as for us. So the way of serving is checked here, where it cannot rot
between the runs its figures come from.
"""

import gzip
import http.client
import ssl

import pytest

from bench.engine_corpus import ServedCorpus
from tests.reports.testsite import make_certificates

COMMIT = "0123456789abcdef0123456789abcdef01234567"
PAGE = b'<!DOCTYPE html><html lang="fr"><head><title>Manuel</title><script src="../js/app.js"></script></head></html>'
SCRIPT = b"document.title = 'Manuel ' + 'charg\\u00e9';\n" * 20


@pytest.fixture
def corpus(tmp_path):
    certificates = make_certificates(tmp_path)
    if certificates is None:
        pytest.skip("openssl is needed for the HTTPS sites")
    tree = tmp_path / "sites" / f"someone+manual@{COMMIT}"
    (tree / "docs").mkdir(parents=True)
    (tree / "js").mkdir()
    (tree / "docs" / "index.html.fr.utf8").write_bytes(PAGE)
    (tree / "js" / "app.js").write_bytes(SCRIPT)
    (tree / "guide").mkdir()
    (tree / "guide" / "index.html").write_bytes(b"<!DOCTYPE html><title>Guide</title>")
    (tmp_path / "secret.txt").write_text("outside the tree")
    manifest = [
        {"file": "manual-fr.html", "repository": "someone/manual", "commit": COMMIT, "path": "docs/index.html.fr.utf8"}
    ]
    served = ServedCorpus(manifest, certificates, 0, tmp_path / "sites")
    yield served, ssl.create_default_context(cafile=str(certificates.ca_cert))
    served.close()


def get(url: str, context: ssl.SSLContext, path: str | None = None, **headers: str) -> http.client.HTTPResponse:
    """GET `path` (sent as it is, not normalised) on the host of `url`, or `url` itself."""
    host, _, rest = url.removeprefix("https://").partition("/")
    connection = http.client.HTTPSConnection(host, context=context, timeout=10)
    connection.request("GET", path or f"/{rest}", headers=headers)
    response = connection.getresponse()
    response.body = response.read()
    connection.close()
    return response


def test_a_page_is_served_as_html_at_its_path_in_its_repository(corpus):
    served, context = corpus
    url = served.url("manual-fr.html")
    assert url.endswith("/docs/index.html.fr.utf8")
    response = get(url, context)
    assert response.status == 200
    assert response.getheader("Content-Type") == "text/html"
    assert response.getheader("Strict-Transport-Security")
    assert response.body == PAGE
    # Browsers (Lighthouse's Chromium) read the same page on the site's HTTP/1.1-only port.
    browser_url = served.url("manual-fr.html", browser=True)
    assert browser_url != url
    assert get(browser_url, context).body == PAGE


def test_the_page_s_own_files_load_compressed_as_a_static_host_sends_them(corpus):
    served, context = corpus
    url = served.url("manual-fr.html")
    response = get(url, context, "/js/app.js", **{"Accept-Encoding": "gzip"})
    assert response.status == 200
    assert response.getheader("Content-Type") == "text/javascript"
    assert response.getheader("Content-Encoding") == "gzip"
    assert gzip.decompress(response.body) == SCRIPT
    assert get(url, context, "/guide/").body == b"<!DOCTYPE html><title>Guide</title>"


def test_what_the_repository_lacks_comes_from_the_test_site_and_nothing_outside_the_tree_is_served(corpus):
    served, context = corpus
    url = served.url("manual-fr.html")
    robots = get(url, context, "/robots.txt")
    assert robots.status == 200
    assert b"Sitemap:" in robots.body
    assert get(url, context, "/js/missing.js").status == 404
    escaped = get(url, context, "/../../secret.txt")
    assert escaped.status == 404
    assert b"outside the tree" not in escaped.body


def test_a_site_published_from_a_folder_is_served_from_it_so_its_absolute_links_resolve(tmp_path):
    certificates = make_certificates(tmp_path)
    if certificates is None:
        pytest.skip("openssl is needed for the HTTPS sites")
    tree = tmp_path / "sites" / f"someone+blog@{COMMIT}"
    (tree / "public" / "posts" / "hello").mkdir(parents=True)
    (tree / "public" / "css").mkdir()
    post = b'<!DOCTYPE html><html lang="en"><head><link rel="stylesheet" href="/css/site.css"></head></html>'
    (tree / "public" / "posts" / "hello" / "index.html").write_bytes(post)
    (tree / "public" / "css" / "site.css").write_bytes(b"body { margin: 0 }\n")
    (tree / "config.toml").write_text("baseURL = 'https://blog.example/'")
    manifest = [
        {
            "file": "blog-hello.html",
            "repository": "someone/blog",
            "commit": COMMIT,
            "root": "public",
            "path": "public/posts/hello/index.html",
        }
    ]
    served = ServedCorpus(manifest, certificates, 0, tmp_path / "sites")
    try:
        context = ssl.create_default_context(cafile=str(certificates.ca_cert))
        url = served.url("blog-hello.html")
        assert url.endswith("/posts/hello/index.html")
        assert get(url, context).body == post
        assert get(url, context, "/css/site.css").body == b"body { margin: 0 }\n"
        # The rest of the repository (the generator's sources) is not part of the site.
        assert get(url, context, "/config.toml").status == 404
    finally:
        served.close()
