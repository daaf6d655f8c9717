"""JSON logs (issue 45, item 5): one object per line with the request's id, and never a secret.

Every endpoint of the URL configuration is asked with GET, POST (a form and JSON), PUT, PATCH
and DELETE, carrying an API key of its interface, a signed-in session's cookie, a password, a
paste's content and an end-to-end key's fragment in its body, query and headers; the served
log (access lines and whatever the application logs) must hold none of them.
"""

import json
import re

import httpx
import pytest
from django.db import connection
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from pastes.models import ApiKey as PastesApiKey
from reports.models import ApiKey as ReportsApiKey
from shortener.models import ApiKey as ShortenerApiKey
from tests.pastes.factories import PasteFactory
from tests.reports.factories import ProjectFactory, ReportFactory
from tests.servers import Server, served_database_url, served_password, server_env
from tests.shortener.factories import ShortLinkFactory

PASSWORD = "Pw-Secret-4f9e2c1b77"
CONTENT = "PASTE-CONTENT-7d1e3a55"
FRAGMENT = "E2E-FRAGMENT-9b8c7a11"
PARAMETER = re.compile(r"<(?:\w+:)?(\w+)>|\(\?P<(\w+)>")


def endpoints(patterns: list, prefix: str = "") -> list[str]:
    """The route of every URL pattern, its parents' prefixes included (`<name>` placeholders kept)."""
    routes = []
    for pattern in patterns:
        text = prefix + str(pattern.pattern).lstrip("^").rstrip("$")
        if isinstance(pattern, URLResolver):
            routes += endpoints(pattern.url_patterns, text)
        elif isinstance(pattern, URLPattern):
            routes.append(text)
    return routes


def filled(route: str, values: dict[str, str]) -> str:
    """A path for `route`: each parameter replaced by a real value of its name (or '1')."""

    def value(match: re.Match) -> str:
        return values.get(match.group(1) or match.group(2), "1")

    path = PARAMETER.sub(value, route)
    return "/" + re.sub(r"[()?+*\\\[\]]", "", path)  # what is left of a regular expression's syntax


@pytest.mark.postgres
@pytest.mark.timeout(900)
@pytest.mark.django_db(transaction=True)
def test_no_secret_reaches_the_log_of_any_endpoint(user):
    user.password = served_password(PASSWORD)
    user.save()
    browser = Client()
    browser.force_login(user)
    session = browser.cookies["sessionid"].value
    keys = {
        "reports": ReportsApiKey.issue(user=user)[1],
        "pastes": PastesApiKey.issue(user=user)[1],
        "shortener": ShortenerApiKey.issue(user=user)[1],
    }
    paste = PasteFactory(owner=user, name="notes", content=CONTENT)
    link = ShortLinkFactory(owner=user, url=f"https://example.com/page#{FRAGMENT}")
    report = ReportFactory(owner=user, project=ProjectFactory(owner=user))
    values = {"paste_id": paste.id, "code": link.code, "pk": str(report.pk), "id": str(report.pk), "username": "alice"}
    secrets = [PASSWORD, CONTENT, FRAGMENT, session, *keys.values()]

    env = server_env(served_database_url(connection), LOG_FORMAT="json", LOG_LEVEL="INFO", REPORTS_ANALYSIS_WAIT="0")
    server = Server(env, workers=1, threads=4, ready_timeout=120)
    paths = sorted({filled(route, values) for route in endpoints(get_resolver().url_patterns)})
    assert len(paths) > 60  # every interface's pages and APIs
    body = {
        "password": PASSWORD,
        "password1": PASSWORD,
        "password2": PASSWORD,
        "oldpassword": PASSWORD,
        "login": "alice",
        "username": "alice",
        "content": CONTENT,
        "lsturl": f"https://example.com/#{FRAGMENT}",
        "url": f"https://example.com/#{FRAGMENT}",
        "name": "n",
    }
    answered = 0
    try:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            for path in paths:
                interface = "reports" if "/api/" in path else next((n for n in keys if n in path), "pastes")
                headers = {"Authorization": f"Bearer {keys[interface]}", "Cookie": f"sessionid={session}"}
                query = {"password": PASSWORD, "key": keys[interface], "content": CONTENT}
                requests = [
                    client.build_request("GET", path, params=query, headers=headers),
                    client.build_request("POST", path, data=body, headers=headers),
                    client.build_request("POST", path, json=body, headers=headers),
                    client.build_request("PUT", path, json=body, headers=headers),
                    client.build_request("PATCH", path, json=body, headers=headers),
                    client.build_request("DELETE", path, headers=headers),
                    # The key in the header an Lstu or PrivateBin client might send it in.
                    client.build_request("GET", path, headers={"Authorization": keys[interface]}),
                ]
                for request in requests:
                    response = client.send(request)
                    assert response.headers["X-Request-ID"]
                    answered += 1
            tagged = client.get("/no/such/page", headers={"X-Request-ID": "probe-7f3a"})
            assert tagged.headers["X-Request-ID"] == "probe-7f3a"
            made_up = client.get("/no/such/page", headers={"X-Request-ID": 'bad id {"json": 1}'})
            assert made_up.headers["X-Request-ID"] != 'bad id {"json": 1}'
        log = server.log_text()
    finally:
        server.stop()

    for secret in secrets:
        leaked = [line for line in log.splitlines() if secret in line]
        assert not leaked, f"{secret!r} is in the log:\n{leaked[0]}"
    lines = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    access = [line for line in lines if line["logger"] == "webtools.access"]
    assert len(access) >= answered
    assert all(line["request_id"] for line in access)
    probe = [line for line in lines if line["request_id"] == "probe-7f3a"]
    # Django's "Not Found" warning and the access line, both with the request's id.
    assert {line["logger"] for line in probe} == {"django.request", "webtools.access"}
