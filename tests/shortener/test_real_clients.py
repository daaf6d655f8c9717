"""Real Lstu clients, replayed byte for byte over HTTP against a live server at the root of SHORTENER_HOST.

Each function below sends exactly what the client sends to a real Lstu (copied from its
source: the shapes, not the code); only the base URL differs.
- nemubot `modules/urlreducer.py` (`lstu_reducer` over `nemubot/tools/web.py` `getURLContent`):
  POST `<base>/a?format=json`, body `lsturl=<quote(url)>`, Content-Type form, User-agent
  "Nemubot v…", no cookie, reads `short` or `msg` from the JSON answer.
- Framalink shortener WebExtension `webextension/index.js` (`shortener_url`): XHR POST
  `<base>a`, Content-Type form, body `lsturl=<encodeURIComponent(url)>&format=json`, from the
  extension's origin; Firefox sends it without cookies (`{anonymous: true}`), Chromium with them.
"""

import http.client
import json
from urllib.parse import quote, urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from shortener.models import ShortLink

pytestmark = pytest.mark.django_db(transaction=True)

EXTENSION_ORIGINS = {
    "firefox": "moz-extension://4b2f3c1e-8d8a-4bb0-9a57-2f4c1f0e9d11",
    "chromium": "chrome-extension://ggcnfjbnkcdjblalcngjdlhmiphaeemf",
}


@pytest.fixture
def shortener_host(live_server, settings) -> str:
    """The live server's host made the shortener's own host, as an Lstu instance sits at a root."""
    host = urlsplit(live_server.url).hostname
    settings.SHORTENER_HOST = host
    settings.ALLOWED_HOSTS = [host, "testserver"]
    return live_server.url


def _send(base: str, method: str, path: str, body: str | None, headers: dict) -> tuple[int, dict, bytes]:
    parts = urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        connection.request(method, path, body, headers)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def nemubot_reduce(base: str, url: str) -> str:
    """The bot's `lstu_reducer`, with the provider URL `<base>/a?format=json`."""
    status, headers, data = _send(
        base,
        "POST",
        "/a?format=json",
        "lsturl=" + quote(url),
        {"Content-Type": "application/x-www-form-urlencoded", "User-agent": "Nemubot v4.0.dev3"},
    )
    # getURLContent only returns the body for 200 (or 303); anything else is an error to the bot.
    if status != 200:
        raise RuntimeError(f"A HTTP error occurs: {status}")
    assert headers["Content-Type"].startswith("appl")  # the bot refuses other types
    json_data = json.loads(data.decode().strip())
    if "short" in json_data:
        return json_data["short"]
    raise RuntimeError(f"Error: {json_data['msg']}")


def framalink_shorten(base: str, url: str, browser: str, cookie: str = "") -> dict:
    """The extension's `shortener_url`: base ends in "/", so it appends "a"."""
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "Origin": EXTENSION_ORIGINS[browser],
        "User-Agent": "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
    }
    if browser == "chromium":
        headers["Sec-Fetch-Site"] = "none"
        headers["Sec-Fetch-Mode"] = "cors"
    if cookie:
        headers["Cookie"] = cookie
    status, _headers, data = _send(base, "POST", "/a", f"lsturl={quote(url, safe='')}&format=json", headers)
    return {"status": status, **json.loads(data)}


def test_nemubot_shortens_on_an_open_instance(shortener_host, settings):
    settings.SHORTENER_ALLOW_ANONYMOUS = True

    short = nemubot_reduce(shortener_host, "https://nemunaire.me/some/long/page?x=1&y=2")

    link = ShortLink.objects.get()
    assert short == f"{shortener_host}/{link.code}"
    assert link.url == "https://nemunaire.me/some/long/page?x=1&y=2"
    assert link.owner is None


def test_nemubot_gets_the_same_short_twice(shortener_host, settings):
    settings.SHORTENER_ALLOW_ANONYMOUS = True

    first = nemubot_reduce(shortener_host, "https://lstu.fr")
    second = nemubot_reduce(shortener_host, "https://lstu.fr")

    assert first == second
    assert ShortLink.objects.count() == 1


def test_nemubot_is_told_to_log_in_on_a_closed_instance(shortener_host):
    with pytest.raises(RuntimeError, match="401"):
        nemubot_reduce(shortener_host, "https://lstu.fr")

    assert not ShortLink.objects.exists()


@pytest.mark.parametrize("browser", ["firefox", "chromium"])
def test_framalink_shortens_anonymously_on_an_open_instance(shortener_host, settings, browser):
    settings.SHORTENER_ALLOW_ANONYMOUS = True

    answer = framalink_shorten(shortener_host + "/", "https://framasoft.org/fr/", browser)

    link = ShortLink.objects.get()
    assert answer["status"] == 200
    assert answer["success"] is True
    assert answer["short"] == f"{shortener_host}/{link.code}"
    assert answer["qrcode"]


def test_framalink_in_chromium_shortens_as_the_logged_in_user(shortener_host):
    user = get_user_model().objects.create_user(username="carol", password="carol-password")
    browser = Client()
    browser.force_login(user)
    cookie = f"sessionid={browser.cookies['sessionid'].value}"

    answer = framalink_shorten(shortener_host + "/", "https://framasoft.org/fr/", "chromium", cookie=cookie)

    assert answer["success"] is True
    assert ShortLink.objects.get().owner == user


def test_framalink_failure_is_json_it_can_read(shortener_host, settings):
    settings.SHORTENER_ALLOW_ANONYMOUS = True
    settings.SHORTENER_BLOCKED_HOSTS = r"(^|\.)spam\.example$"

    answer = framalink_shorten(shortener_host + "/", "https://www.spam.example/x", "firefox")

    assert answer["success"] is False
    assert "(www.spam.example) that is blacklisted" in answer["msg"]
    assert not ShortLink.objects.exists()
