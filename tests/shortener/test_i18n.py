"""Interface C in French, German and Spanish (issue 48): its pages translated, its JSON English.

Every C page of the accessibility sweep (tests/axe.py PAGES, the /s/ rows) is fetched in English
and in each language, and must leave no English text (tests/i18n.py) beyond the objects' own codes,
URLs and titles. The same paths answer JSON in Lstu's words: those answers must be the same bytes
whatever Accept-Language says.
"""

import datetime
import re

import pytest
import time_machine
from django.contrib.auth.hashers import make_password
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
