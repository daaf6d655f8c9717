"""Interface C in French, German and Spanish (issue 48): its pages translated, its JSON English.

Every C page of the accessibility sweep (tests/axe.py PAGES, the /s/ rows) is fetched in English
and in each language, and must leave no English text (tests/i18n.py) beyond the objects' own codes,
URLs and titles. The same paths answer JSON in Lstu's words: those answers must be the same bytes
whatever Accept-Language says.
"""

import datetime
import re
from html import unescape

import pytest
import time_machine
from django.contrib.auth.hashers import make_password
from django.db import transaction
from django.test import Client
from django.utils import timezone

from shortener.models import LinkReport
from tests.axe import PAGES
from tests.i18n import untranslated
from tests.shortener.conftest import ADMIN_PASSWORD, JSON
from tests.shortener.factories import ShortLinkFactory

LANGUAGES = ("fr", "de", "es")
C_PAGES = [(path, who) for path, who in PAGES if path.startswith("/s/")]
HTML = {"HTTP_ACCEPT": "text/html"}
NOW = datetime.datetime(2026, 5, 30, 12, 0, tzinfo=datetime.UTC)
# What the sweep's objects hold (their codes, URLs, title and reasons): data, not the page's words.
OBJECTS_TEXT = ("A card", "Phishing: it asks for a bank password.", "Reported", "alice")


@pytest.fixture
def objects(user) -> dict[str, str]:
    """The sweep's short links (tests/foundation/test_axe_browser.py::objects), with a token to list."""
    from shortener.models import ApiKey

    ApiKey.issue(user=user, name="an irc bot")
    link = ShortLinkFactory(
        owner=user,
        code="axe1",
        rules=[{"when": {"device": "ios", "query": {"ref": None}}, "url": "https://apps.example/"}],
        preview_title="A card",
        expires_at=timezone.now() + datetime.timedelta(days=3),
        max_visits=50,
    )
    reported = ShortLinkFactory(owner=user, code="axe4", url="https://phish.example/a-long-path")
    LinkReport.objects.create(link=reported, reason="Phishing: it asks for a bank password.")
    disabled = ShortLinkFactory(owner=user, code="axe3", disabled_at=timezone.now(), disabled_reason="Reported")
    protected = ShortLinkFactory(owner=user, code="axe2", password_hash=make_password("axe"))
    return {"link": link.code, "protected_link": protected.code, "disabled_link": disabled.code}


@pytest.fixture
def clients(user, admin_password) -> dict[str, Client]:
    signed_in, admin_mode = Client(), Client()
    signed_in.force_login(user)
    admin_mode.force_login(user)
    assert admin_mode.post("/s/stats", {"adminpwd": ADMIN_PASSWORD, **JSON}).json()["success"] is True
    return {"anonymous": Client(), "signed-in": signed_in, "admin-mode": admin_mode}


def own_parts(html: str) -> str:
    """What C's templates write: the title, the section's nav and the main content. The site's
    header and footer around them (templates/base.html) are checked with the site's pages."""
    parts = [
        re.search(r"<title>.*?</title>", html, re.S),
        re.search(r'<nav class="section-nav".*?</nav>', html, re.S),
        re.search(r"<main.*?</main>", html, re.S),
    ]
    return "\n".join(part.group(0) for part in parts if part)


def ignored(objects: dict[str, str]) -> set[str]:
    from shortener.models import ShortLink

    words = set(OBJECTS_TEXT)
    for link in ShortLink.objects.all():
        words |= {link.code, link.url, f"http://testserver/s/{link.code}"}
    return words


@pytest.mark.parametrize(("path", "who"), C_PAGES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_page_of_the_sweep_is_translated(path, who, language, objects, clients):
    url = path.format(**objects)
    client = clients[who]
    with time_machine.travel(NOW, tick=False):
        english = client.get(url, HTTP_ACCEPT_LANGUAGE="en", **HTML)
        translated = client.get(url, HTTP_ACCEPT_LANGUAGE=language, **HTML)

    assert translated.status_code == english.status_code
    assert translated["Content-Type"].startswith("text/html")
    body = translated.content.decode()
    assert body != english.content.decode()  # (base.html's <html lang> is the site's; tests/foundation)
    left = untranslated(own_parts(english.content.decode()), own_parts(body), language, ignore=ignored(objects))
    assert left == []


# --- the JSON answers: Lstu's English, byte for byte, whatever Accept-Language says ---------

# (who, method, path, data, undo): `undo` rolls the first request back, so that the second one
# meets the same state (a deletion).
JSON_ANSWERS = [
    ("signed-in", "post", "/s/a", {"shorturl": "https://example.com/page", **JSON}, False),
    ("signed-in", "post", "/s/a.json", {"shorturl": "not a url"}, False),
    ("signed-in", "post", "/s/a", {**JSON}, False),
    ("signed-in", "post", "/s/a", {"shorturl": "https://example.com/", "shorturl-custom": "axe1", **JSON}, False),
    ("signed-in", "post", "/s/a", {"shorturl": "https://example.com/", "expires_at": "tomorrow", **JSON}, False),
    ("signed-in", "get", "/s/stats", JSON, False),
    ("signed-in", "get", "/s/stats.json", {"page": "0"}, False),
    ("signed-in", "get", "/s/stats/axe1", JSON, False),
    ("anonymous", "get", "/s/stats/nope.json", {}, False),
    ("anonymous", "get", "/s/fullstats", {}, False),
    ("signed-in", "get", "/s/d/axe1", JSON, False),
    ("admin-mode", "get", "/s/d/axe4.json", {}, True),
    ("signed-in", "post", "/s/d/axe1", JSON, True),
    ("anonymous", "post", "/s/login", {"login": "alice", "password": "not hers", **JSON}, False),
    ("anonymous", "post", "/s/login", {**JSON}, False),
    ("anonymous", "get", "/s/stats", JSON, False),
    ("signed-in", "post", "/s/stats", {"adminpwd": "wrong", **JSON}, False),
    ("signed-in", "get", "/s/export", {}, False),
    ("signed-in", "get", "/s/export.csv", {}, False),
    ("anonymous", "get", "/s/axe2", JSON, False),
    ("anonymous", "get", "/s/axe3", JSON, False),
    ("anonymous", "get", "/s/nope", JSON, False),
    ("signed-in", "post", "/s/edit/axe1", {"max_visits": "0", **JSON}, False),
    ("signed-in", "get", "/s/qr/axe1.png", {"size": "1", **JSON}, False),
    ("signed-in", "get", "/s/moderation", JSON, False),
    ("anonymous", "post", "/s/report/axe1", {"reason": "", **JSON}, False),
    ("anonymous", "get", "/s/a", JSON, False),
]


def body_of(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


@pytest.mark.parametrize(("who", "method", "path", "data", "undo"), JSON_ANSWERS)
def test_json_answers_are_the_same_bytes_in_every_language(who, method, path, data, undo, objects, clients):
    client = clients[who]
    answers = []
    with time_machine.travel(NOW, tick=False):
        for language in ("en", "fr"):
            with transaction.atomic():
                response = getattr(client, method)(path, data, HTTP_ACCEPT_LANGUAGE=language)
                answers.append((response.status_code, response["Content-Type"], body_of(response)))
                transaction.set_rollback(undo)

    english, french = answers
    assert english[1].startswith(("application/json", "text/csv"))
    assert french == english


def test_the_json_keeps_lstus_message_while_the_page_translates_it(alice_client):
    as_json = alice_client.post("/s/a", {"shorturl": "not a url", **JSON}, HTTP_ACCEPT_LANGUAGE="fr")
    page = alice_client.post("/s/a", {"shorturl": "not a url"}, HTTP_ACCEPT_LANGUAGE="fr")

    assert as_json.json() == {"success": False, "msg": "not a url is not a valid URL."}
    assert page.status_code == as_json.status_code == 400
    assert "not a url n'est pas une URL valide." in unescape(page.content.decode())


def test_flash_messages_are_in_the_readers_language(client, user):
    user.set_password("a-long-password")
    user.save()

    response = client.post(
        "/s/login", {"login": user.username, "password": "a-long-password"}, HTTP_ACCEPT_LANGUAGE="de", follow=True
    )
    created = client.post("/s/a", {"shorturl": "https://example.com/"}, HTTP_ACCEPT_LANGUAGE="es", follow=True)

    assert "Sie sind jetzt angemeldet." in response.content.decode()
    assert "Tu URL corta: http://testserver/s/" in created.content.decode()
    assert "Código QR de http://testserver/s/" in created.content.decode()


def test_the_disabled_and_password_pages_are_translated(objects):
    disabled = Client().get("/s/axe3", HTTP_ACCEPT_LANGUAGE="fr", **HTML)
    wrong = Client().post("/s/axe2", {"password": "no"}, HTTP_ACCEPT_LANGUAGE="es")

    assert disabled.status_code == 410
    assert "a été désactivée par les modérateurs de ce serveur." in disabled.content.decode()
    assert wrong.status_code == 403
    assert "Contraseña incorrecta para la URL corta http://testserver/s/axe2." in wrong.content.decode()


def test_a_short_hosts_pages_follow_the_reader_too(settings, objects):
    settings.SHORTENER_HOST = "sho.rt"
    settings.ALLOWED_HOSTS = ["testserver", "sho.rt"]
    client = Client(HTTP_HOST="sho.rt")

    unknown = client.get("/nope", HTTP_ACCEPT_LANGUAGE="de", **HTML)
    unknown_json = client.get("/nope", {**JSON}, HTTP_ACCEPT_LANGUAGE="de")

    assert unknown.status_code == unknown_json.status_code == 404
    assert "Die Kurz-URL http://sho.rt/nope existiert nicht." in unknown.content.decode()
    assert unknown_json.json() == {"success": False, "msg": "The shortened URL http://sho.rt/nope doesn't exist."}


def test_the_admin_pages_charts_and_domains_are_translated(settings, objects, clients):
    settings.SHORTENER_DOMAINS = ["sho.rt", "two.rt"]
    settings.ALLOWED_HOSTS = ["testserver", "sho.rt", "two.rt"]
    admin = clients["admin-mode"]
    for path in ("/s/stats", "/s/domains"):
        english = admin.get(path, HTTP_ACCEPT_LANGUAGE="en")
        for language in LANGUAGES:
            translated = admin.get(path, HTTP_ACCEPT_LANGUAGE=language)
            english_text, translated_text = english.content.decode(), translated.content.decode()
            left = untranslated(own_parts(english_text), own_parts(translated_text), language, ignore=ignored(objects))
            assert left == [], path
