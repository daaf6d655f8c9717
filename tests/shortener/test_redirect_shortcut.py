"""The redirect shortcut in front of Django's WSGI handler (shortener/fastpath/wsgi.py), through the real WSGI app."""

import pytest
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections, connection
from django.http import HttpResponse
from django.middleware.security import SecurityMiddleware
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from rest_framework import status

from shortener import messages
from shortener.fastpath import flush_visits
from shortener.fastpath.wsgi import encoded, shortcut_answer, with_redirect_shortcut
from shortener.models import ShortLink
from shortener.responses import redirect_response
from shortener.services.links import link_delete
from tests.shortener.asserts import assert_shortener_error, assert_shortener_error_page
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0"


def wsgi_request(path: str, *, method: str = "get", data: dict | None = None, **headers: str):
    """Status, headers and body from the WSGI application, as a server would get them."""
    request = getattr(RequestFactory(), method)(path, data, **headers)
    # As a server sends it (PEP 3333: the path's bytes as latin-1); building the request decoded it in place.
    environ = {**request.environ, "PATH_INFO": request.path_info.encode().decode("latin-1")}
    answer = {}

    def start_response(status_line: str, header_list: list, exc_info: object = None) -> None:
        answer["status"] = int(status_line.split()[0])
        answer["headers"] = dict(header_list)

    # As Django's test client does: closing connections would end the test's transaction.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        # As config/wsgi.py builds it (built here, after the fixtures turned preloading off).
        result = with_redirect_shortcut(get_wsgi_application())(environ, start_response)
        body = b"".join(result)
        if hasattr(result, "close"):
            result.close()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    return answer["status"], answer["headers"], body


def as_response(status_code: int, headers: dict, body: bytes) -> HttpResponse:
    """What wsgi_request got, as a response the interface's asserts read."""
    return HttpResponse(body, status=status_code, headers=headers)


def counter(code: str = "abc") -> int:
    flush_visits()
    return ShortLink.objects.get(code=code).counter


@pytest.fixture
def link():
    return ShortLinkFactory(code="abc", url="https://example.com/target")


def test_cached_link_redirects_with_the_security_headers_but_no_page_headers(link):
    wsgi_request("/s/abc")  # looked up by the view, then cached

    code, headers, body = wsgi_request("/s/abc")

    assert code == status.HTTP_302_FOUND
    assert headers["Location"] == "https://example.com/target"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "same-origin"
    assert "X-Frame-Options" not in headers
    assert "Set-Cookie" not in headers
    assert headers["Content-Length"] == "0"
    assert body == b""


def test_first_visit_of_an_uncached_code_goes_through_the_view(link):
    code, headers, _ = wsgi_request("/s/abc")

    assert code == status.HTTP_302_FOUND
    assert headers["Location"] == "https://example.com/target"
    assert headers["X-Frame-Options"] == "DENY"


def test_visits_through_the_shortcut_count_once_per_visitor(link):
    for user_agent in (FIREFOX, "Chrome", FIREFOX, "Chrome"):
        wsgi_request("/s/abc", HTTP_USER_AGENT=user_agent)

    assert counter() == 2


def test_head_is_answered_by_the_view_and_not_counted(link):
    wsgi_request("/s/abc")

    code, _, _ = wsgi_request("/s/abc", method="head", HTTP_USER_AGENT=FIREFOX)

    assert code == status.HTTP_302_FOUND
    assert counter() == 1  # the first GET only


def test_deleted_cached_link_stops_redirecting(link):
    wsgi_request("/s/abc")

    link_delete(link=link)

    code, _, body = wsgi_request("/s/abc")
    assert code == status.HTTP_404_NOT_FOUND
    assert b"no longer exists" in body


def test_accept_json_gets_the_json_resolve_without_counting(link):
    wsgi_request("/s/abc", HTTP_ACCEPT="application/json")

    code, headers, body = wsgi_request("/s/abc", HTTP_ACCEPT="application/json")

    assert code == status.HTTP_200_OK
    assert headers["Content-Type"] == "application/json"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert body == b'{"success": true, "url": "https://example.com/target"}'
    assert counter() == 0


def test_format_json_gets_the_json_resolve_of_a_cached_link(link):
    wsgi_request("/s/abc", data={"_format": "json"})

    code, headers, body = wsgi_request("/s/abc", data={"_format": "json"})

    assert code == status.HTTP_200_OK
    assert "X-Frame-Options" not in headers
    assert body == b'{"success": true, "url": "https://example.com/target"}'


def test_format_json_of_a_deleted_cached_link_is_404_in_json(link):
    wsgi_request("/s/abc", data={"_format": "json"})
    link_delete(link=link)

    answer = as_response(*wsgi_request("/s/abc", data={"_format": "json"}))

    assert_shortener_error(answer, 404, messages.LINK_GONE.format(short="http://testserver/s/abc"))


def test_other_format_with_json_accept_gets_the_redirect(link):
    wsgi_request("/s/abc")

    code, headers, _ = wsgi_request("/s/abc", data={"_format": "html"}, HTTP_ACCEPT="application/json")

    assert code == status.HTTP_302_FOUND
    assert headers["Location"] == "https://example.com/target"


def test_query_string_still_redirects_and_counts(link):
    wsgi_request("/s/abc", HTTP_USER_AGENT=FIREFOX)

    code, headers, _ = wsgi_request("/s/abc", data={"utm_source": "mail"}, HTTP_USER_AGENT="Chrome")

    assert code == status.HTTP_302_FOUND
    assert headers["Location"] == "https://example.com/target"
    assert counter() == 2


def test_host_not_allowed_is_400(link):
    wsgi_request("/s/abc")

    answer = as_response(*wsgi_request("/s/abc", HTTP_HOST="evil.example"))

    assert_shortener_error_page(answer, 400, "Bad request.")


def test_plain_http_is_sent_to_https_when_required(link, settings):
    wsgi_request("/s/abc")
    settings.SECURE_SSL_REDIRECT = True

    code, headers, _ = wsgi_request("/s/abc")

    assert code == status.HTTP_301_MOVED_PERMANENTLY
    assert headers["Location"] == "https://testserver/s/abc"


def test_code_spelled_like_a_page_still_reaches_the_page():
    # Such codes cannot be created, but one could have been entered in the admin.
    ShortLinkFactory(code="stats", url="https://example.com/target")
    wsgi_request("/s/stats")

    code, headers, _ = wsgi_request("/s/stats")

    assert code == status.HTTP_302_FOUND
    assert headers["Location"].startswith("/s/login")


def test_cached_link_redirects_at_the_root_of_the_shortener_host(link, settings):
    settings.SHORTENER_HOST = "sho.rt"
    settings.ALLOWED_HOSTS = ["testserver", "sho.rt"]
    wsgi_request("/abc", HTTP_HOST="sho.rt")

    code, headers, _ = wsgi_request("/abc", HTTP_HOST="sho.rt")

    assert code == status.HTTP_302_FOUND
    assert headers["Location"] == "https://example.com/target"
    assert "X-Frame-Options" not in headers


def test_visit_is_counted_during_the_request_when_flushing_is_off(link, settings):
    settings.SHORTENER_VISIT_FLUSH_SECONDS = 0
    wsgi_request("/s/abc")

    wsgi_request("/s/abc", HTTP_USER_AGENT=FIREFOX)

    assert ShortLink.objects.get(code="abc").counter == 2


@pytest.fixture
def limited():
    return ShortLinkFactory(code="lim", url="https://example.com/limited", max_visits=2)


def test_a_limited_link_is_followed_by_the_shortcut_and_counted_during_the_request(limited):
    wsgi_request("/s/lim", HTTP_USER_AGENT=FIREFOX)  # the view looks it up, counts and caches it

    code, headers, _ = wsgi_request("/s/lim", HTTP_USER_AGENT="Chrome")

    assert code == status.HTTP_302_FOUND
    assert headers["Location"] == "https://example.com/limited"
    assert "X-Frame-Options" not in headers  # no page middleware: the shortcut answered
    assert ShortLink.objects.get(code="lim").counter == 2  # counted, no flush needed


def test_on_the_event_loop_a_limited_link_is_left_to_a_request_thread(limited):
    wsgi_request("/s/lim", HTTP_USER_AGENT=FIREFOX)

    # config.front calls the shortcut on the event loop, where nothing may wait for the database.
    assert shortcut_answer(RequestFactory().get("/s/lim", HTTP_USER_AGENT="Chrome").environ) is None
    assert ShortLink.objects.get(code="lim").counter == 1


def test_a_repeat_visitor_of_a_limited_link_is_read_not_written(limited):
    wsgi_request("/s/lim", HTTP_USER_AGENT=FIREFOX)

    with CaptureQueriesContext(connection) as queries:
        code, headers, _ = wsgi_request("/s/lim", HTTP_USER_AGENT=FIREFOX)

    assert code == status.HTTP_302_FOUND
    assert headers["Location"] == "https://example.com/limited"
    assert [query["sql"].split()[0] for query in queries] == ["SELECT"]
    assert ShortLink.objects.get(code="lim").counter == 1


def test_a_repeat_visitor_is_refused_once_others_used_the_link_up(limited):
    wsgi_request("/s/lim", HTTP_USER_AGENT=FIREFOX)
    wsgi_request("/s/lim", HTTP_USER_AGENT="Chrome")

    refused = as_response(*wsgi_request("/s/lim", HTTP_USER_AGENT=FIREFOX, HTTP_ACCEPT="text/html"))

    assert_shortener_error_page(refused, 404, messages.LINK_USED_UP.format(short="http://testserver/s/lim"))
    assert ShortLink.objects.get(code="lim").counter == 2


def test_a_refused_visitor_counts_once_the_limit_is_raised(limited):
    wsgi_request("/s/lim", HTTP_USER_AGENT=FIREFOX)
    wsgi_request("/s/lim", HTTP_USER_AGENT="Chrome")
    assert wsgi_request("/s/lim", HTTP_USER_AGENT="Safari")[0] == status.HTTP_404_NOT_FOUND

    ShortLink.objects.filter(code="lim").update(max_visits=3)
    code, _, _ = wsgi_request("/s/lim", HTTP_USER_AGENT="Safari")

    assert code == status.HTTP_302_FOUND
    assert ShortLink.objects.get(code="lim").counter == 3


@pytest.mark.parametrize("path", ["/pastes/paste/@RH\U000336b9W", "/s/\U0001f600", "/api/v1/reports/\u20ac"])
def test_a_path_the_shortcut_declines_reaches_django_undamaged(path):
    # Regression: building a request rewrote the environ's PATH_INFO as decoded text, and
    # Django's handler, given the same environ next, failed to encode it (a 500).
    status_code, headers, _ = wsgi_request(path)

    assert status_code == status.HTTP_404_NOT_FOUND
    assert headers["Content-Type"] in {"application/json", "text/html; charset=utf-8"}


@pytest.mark.parametrize("secure", [False, True], ids=["http", "https"])
@pytest.mark.parametrize("permanent", [False, True], ids=["302", "301"])
@pytest.mark.parametrize("url", ["https://example.com/target", "https://exämple.com/päth?q=ü#f"], ids=["ascii", "iri"])
def test_the_shortcut_redirect_is_the_one_django_makes(settings, secure, permanent, url):
    # The shortcut fills in a template that Django's own classes made; it must not drift from them.
    settings.SHORTENER_REDIRECT_PERMANENT = permanent
    settings.SECURE_HSTS_SECONDS = 3600
    ShortLinkFactory(code="iri", url=url)
    wsgi_request("/s/iri", secure=secure)  # cached by the view
    request = RequestFactory().get("/s/iri", secure=secure)

    answer = shortcut_answer(request.environ)

    django = encoded(SecurityMiddleware(lambda request: None).process_response(request, redirect_response(url)))
    assert answer == django
    assert (answer.header("Strict-Transport-Security") is not None) == secure


def test_a_url_django_would_not_redirect_to_as_is_is_left_to_the_view(settings):
    ShortLinkFactory(code="odd", url="HTTPS://example.com/odd")
    wsgi_request("/s/odd")

    assert shortcut_answer(RequestFactory().get("/s/odd", HTTP_USER_AGENT=FIREFOX).environ) is None
    code, headers, _ = wsgi_request("/s/odd", HTTP_USER_AGENT=FIREFOX)
    assert (code, headers["Location"]) == (302, "HTTPS://example.com/odd")
    assert counter("odd") == 2  # each visitor counted once, by the view


def test_a_host_is_refused_once_no_longer_allowed_though_it_was_remembered(link, settings):
    host = {"HTTP_HOST": "testserver"}  # RequestFactory sends none by default
    wsgi_request("/s/abc", **host)
    assert wsgi_request("/s/abc", **host)[0] == status.HTTP_302_FOUND  # answered by the shortcut

    settings.ALLOWED_HOSTS = ["other.example"]

    assert_shortener_error_page(as_response(*wsgi_request("/s/abc", **host)), 400, "Bad request.")


def test_a_forwarded_host_not_allowed_is_refused_behind_an_allowed_host_header(link, settings):
    settings.USE_X_FORWARDED_HOST = True
    wsgi_request("/s/abc", HTTP_HOST="testserver")
    assert wsgi_request("/s/abc", HTTP_HOST="testserver")[0] == status.HTTP_302_FOUND

    answer = as_response(*wsgi_request("/s/abc", HTTP_HOST="testserver", HTTP_X_FORWARDED_HOST="evil.example"))

    assert_shortener_error_page(answer, 400, "Bad request.")
